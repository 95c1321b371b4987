"""The Model Zoo command line (mirrors ``cerebras.modelzoo.cli``; run as ``minitorch-cs``)."""
