"""``SparsityCallback`` and ``AutoRestart``: accepted, not implemented beyond their defaults."""
from __future__ import annotations

from .callback import CoreCallback

__all__ = ["SparsityCallback", "AutoRestart"]


class SparsityCallback(CoreCallback):
    # Differs from Model Zoo: cstorch.sparse is not implemented, so any sparsity raises
    # (SPEC, Model Zoo).
    def __init__(self, sparsity=None):
        if sparsity is not None:
            raise NotImplementedError(
                "Sparsity is not implemented in minitorch_cs (cstorch.sparse is out of scope); "
                "pass sparsity=None.")
        self.sparsity = None


class AutoRestart(CoreCallback):
    """Autorestart settings. Model Zoo restarts failed runs from a wrapper that spawns the
    trainer in subprocesses (CLI only); minitorch_cs does not, so only the disabled default
    (``max_num_restarts=None``) is accepted."""

    def __init__(self, max_num_restarts=None, min_steps_since_last_ckpt=None):
        if max_num_restarts:
            raise NotImplementedError("Autorestart is not implemented in minitorch_cs; remove "
                                      "`autorestart` or set max_num_restarts to None.")
        self.max_num_restarts = max_num_restarts
        self.min_steps_since_last_ckpt = min_steps_since_last_ckpt

    @property
    def enabled(self) -> bool:
        return False
