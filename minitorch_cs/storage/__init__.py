"""``cstorch.storage``: ``save``/``load`` in the cstorch 2.10 checkpoint format (version 0.5).

Files written here load in the real ``cerebras.pytorch`` stack and vice versa; see
notes/checkpoint_format.md for the format and SPEC.md for the documented differences.
"""
from __future__ import annotations

from .load import load
from .save import CURRENT_CKPT_FORMAT_VERSION, save
from . import retention  # noqa: F401  (storage.retention.CheckpointRetention)
from .serializers import DeferredObject, DeferredTensor

__all__ = ["save", "load", "DeferredTensor", "DeferredObject", "CURRENT_CKPT_FORMAT_VERSION"]
