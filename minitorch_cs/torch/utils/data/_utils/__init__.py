"""``torch.utils.data._utils``: collation, fetchers and the worker-process loop."""
from __future__ import annotations

from . import collate, fetch, worker

__all__ = ["collate", "fetch", "worker"]
