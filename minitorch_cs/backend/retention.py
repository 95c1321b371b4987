"""Keep only the newest N checkpoints written by ``cstorch.save``.

The cstorch 2.0 backends took ``max_checkpoints`` ("the maximum number of checkpoints to keep on
disk"): after every ``cstorch.save`` the oldest checkpoints that save had written beyond that number
were deleted. :class:`CheckpointRetention` is that bookkeeping; a backend holds one as
``checkpoint_retention`` and :func:`minitorch_cs.storage.save` reports every published checkpoint
to it.

It only ever deletes files it saw being written, and only while they are still the same file
(device, inode, size and modification time unchanged): a checkpoint the user moved, replaced,
modified or deleted is forgotten, never touched. Deletions are logged at INFO on the
``minitorch_cs.storage`` logger.
"""
from __future__ import annotations

import collections
import logging
import os

__all__ = ["CheckpointRetention"]

_log = logging.getLogger("minitorch_cs.storage")


def _identity(st):
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class CheckpointRetention:
    """``CheckpointRetention(max_checkpoints=None)``: None keeps everything; a positive int keeps
    the newest ``max_checkpoints`` checkpoints recorded with :meth:`saved`."""

    def __init__(self, max_checkpoints=None):
        if max_checkpoints is not None:
            if isinstance(max_checkpoints, bool) or not isinstance(max_checkpoints, int):
                raise TypeError(f"max_checkpoints must be None or a positive int, got "
                                f"{type(max_checkpoints).__name__}")
            if max_checkpoints < 1:
                raise ValueError(f"max_checkpoints must be None or a positive int, got "
                                 f"{max_checkpoints}")
        self.max_checkpoints = max_checkpoints
        self._written = collections.deque()  # (path, identity), oldest first

    @property
    def checkpoints(self) -> list[str]:
        """The checkpoints kept so far, oldest first."""
        return [p for p, _ in self._written]

    def saved(self, path) -> list[str]:
        """Record that ``path`` was just written; delete the oldest recorded checkpoints beyond
        ``max_checkpoints``. Returns the paths deleted."""
        path = os.path.abspath(os.fspath(path))
        self._written = collections.deque(e for e in self._written if e[0] != path)
        self._written.append((path, _identity(os.stat(path))))
        removed = []
        if self.max_checkpoints is None:
            return removed
        while len(self._written) > self.max_checkpoints:
            old, ident = self._written.popleft()
            try:
                cur = os.lstat(old)
            except FileNotFoundError:
                continue
            if _identity(cur) != ident:
                _log.info("not deleting %s: it is no longer the checkpoint saved there", old)
                continue
            os.unlink(old)
            removed.append(old)
            _log.info("deleted the checkpoint %s: max_checkpoints=%d keeps only the newest",
                      old, self.max_checkpoints)
        return removed

    def __repr__(self):
        return f"CheckpointRetention(max_checkpoints={self.max_checkpoints})"
