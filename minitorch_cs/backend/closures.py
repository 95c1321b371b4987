"""The step-closure queue's two helpers the backends share: the tracing flag that makes queued
closures repeat every step, and the snapshot of a closure's tensor arguments."""
from __future__ import annotations

from ..core.nest import map_tensors

__all__ = ["RepeatStepClosure", "snapshot"]


class RepeatStepClosure:
    """While active, newly queued closures are marked to repeat every step (used by tracing)."""

    default = False

    def __enter__(self):
        self._prev = RepeatStepClosure.default
        RepeatStepClosure.default = True
        return self

    def __exit__(self, *exc):
        RepeatStepClosure.default = self._prev
        return False


def snapshot(args, kwargs):
    """Host copies of every tensor in ``args``/``kwargs`` (values as of the enqueue): step
    closures receive CPU tensors, as cstorch moves closure arguments off the device."""
    def snap(t):
        c = t.detach().clone()
        c._lazydev = False
        return c
    return map_tensors(snap, args), map_tensors(snap, kwargs)
