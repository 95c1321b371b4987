"""``cerebras.modelzoo.data``: data-loading helpers shared by Model Zoo data processors."""
