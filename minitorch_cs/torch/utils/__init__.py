"""``torch.utils``: ``data`` (datasets, samplers, DataLoader), ``hooks`` and ``checkpoint``."""
from __future__ import annotations

from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
