"""``torch.utils``: ``data`` (datasets, samplers, DataLoader), ``hooks`` and ``checkpoint``."""

from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
