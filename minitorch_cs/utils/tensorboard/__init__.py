"""``cstorch.utils.tensorboard``: ``SummaryWriter`` (with ``base_step``) and ``SummaryReader``.

Porting rule: ``cerebras.pytorch.utils.tensorboard`` becomes ``minitorch_cs.utils.tensorboard``.
Write to a writer from inside a step closure, where tensor values exist (on the emulated wafer,
reading a tensor in the traced step raises).
"""
from __future__ import annotations

from .writer import ScalarEvent, SummaryReader, SummaryWriter, TensorDescriptor, read_events

__all__ = ["SummaryReader", "SummaryWriter"]
