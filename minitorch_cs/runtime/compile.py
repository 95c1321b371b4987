"""``cstorch.compile`` and ``@cstorch.trace``.

``compile`` does not compile: it registers the model with the backend, moves it to the backend's
device and returns a plain function that runs the forward pass and carries the model's public
methods. ``trace`` marks the per-step function; the backend decides how it runs (CPU: every call;
emulated CSX: once per executor run, replayed afterwards).
"""
from __future__ import annotations

import functools
import inspect

from ..backend import Backend, backend as _make_backend, current_backend

__all__ = ["compile", "trace"]


def _resolve_backend(backend):
    if backend is None:
        b = current_backend(raise_exception=False)
        return b if b is not None else _make_backend("CPU")
    if isinstance(backend, str):
        return _make_backend(backend)
    if isinstance(backend, Backend):
        if backend is not current_backend(raise_exception=False):
            raise RuntimeError("Compile got a backend that is not the current backend.")
        return backend
    raise TypeError(f"Expected backend to be one of str, Backend or None. Got: {type(backend)}")


def compile(model, backend=None):
    """Prepare ``model`` for the backend and return its compiled forward function."""
    from ..torch.nn import Module
    if not isinstance(model, Module):
        raise TypeError(f"Expected model to be a torch.nn.Module, got {type(model).__name__}")
    b = _resolve_backend(backend)
    impl = b._impl
    impl.register_model(model)
    model = impl.setup_model(model)

    def compiled_forward(*args, **kwargs):
        impl.set_step_model(model)
        return impl.forward(model, *args, **kwargs)

    for name, member in inspect.getmembers(model, predicate=inspect.ismethod):
        if not name.startswith("_"):
            setattr(compiled_forward, name, member)
    compiled_forward.device = b.torch_device
    compiled_forward.model = model
    return compiled_forward


def trace(step_fn):
    """Mark ``step_fn`` as the traced step (forward, loss, backward, optimizer, scheduler)."""

    @functools.wraps(step_fn)
    def traced(*args, **kwargs):
        from ..backend import current_backend_impl
        impl = current_backend_impl()
        return impl.run_traced(step_fn, args, kwargs)

    traced.is_traced = True
    return traced
