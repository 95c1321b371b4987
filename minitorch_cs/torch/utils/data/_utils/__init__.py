"""``torch.utils.data._utils``: collation and worker info for the single-process DataLoader."""
from __future__ import annotations

from . import collate, worker

__all__ = ["collate", "worker"]
