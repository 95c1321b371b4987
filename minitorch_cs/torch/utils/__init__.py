"""``torch.utils``: ``data`` (datasets, samplers, DataLoader) and ``hooks``."""
from __future__ import annotations

from . import data, hooks

__all__ = ["data", "hooks"]
