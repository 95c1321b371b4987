"""``@step_closure`` and ``@checkpoint_closure``: code that runs with real values after a step.

Without a backend a step closure runs at once. With one, the call is queued (tensor arguments are
snapshotted with ``detach().clone()`` so later in-place updates do not leak in) and the queue is
drained in FIFO order at the end of each executor step and once at the start of each run. On the
emulated CSX backend, closures queued while the step body is being traced repeat every step.
"""
from __future__ import annotations

import functools

from ..backend import current_backend_impl
from ..backend.closures import RepeatStepClosure, snapshot

__all__ = ["step_closure", "checkpoint_closure", "RepeatStepClosure"]  # (the flag: backend)


def step_closure(closure):
    """Queue calls of ``closure`` to run at the end of the current step (see module doc)."""

    @functools.wraps(closure)
    def inner(*args, **kwargs):
        backend = current_backend_impl(raise_exception=False)
        if backend is None:
            closure(*args, **kwargs)
            return
        backend.add_step_closure(closure, args, kwargs, repeat=RepeatStepClosure.default)

    inner.is_step_closure = True
    return inner


def checkpoint_closure(closure):
    """Like ``step_closure``, but the closure only runs before the first step of a run and on the
    executor's checkpoint steps (call it every step; it fires when a checkpoint is available)."""

    @functools.wraps(closure)
    def inner(*args, **kwargs):
        backend = current_backend_impl()

        def gated(*a, **k):
            if not backend.executors:
                raise RuntimeError(
                    "Cannot fetch a checkpoint outside of an execution context. Please make all "
                    "calls to any checkpoint closures inside the training loop.")
            ctx = backend.run_context
            if ctx.is_pre_initial_step or ctx.is_checkpoint_step:
                closure(*a, **k)

        functools.update_wrapper(gated, closure)
        backend.add_step_closure(gated, args, kwargs, repeat=RepeatStepClosure.default)

    inner.is_checkpoint_closure = True
    return inner
