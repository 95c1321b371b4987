"""``torch.utils.data._utils.worker``: minitorch_cs loads data in the calling process only."""
from __future__ import annotations

__all__ = ["get_worker_info"]


def get_worker_info():
    """Information about the current loader worker: always None (no worker processes here)."""
    return None
