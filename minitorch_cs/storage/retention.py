"""``max_checkpoints`` bookkeeping (defined with the backends, which hold one:
``backend.retention``)."""
from ..backend.retention import CheckpointRetention  # noqa: F401

__all__ = ["CheckpointRetention"]
