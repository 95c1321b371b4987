"""Naming and annotation helpers of ``cerebras.pytorch``: ``name_scope``, debug names, and the
``pol`` / ``device_annotation`` decorators.

On the wafer these attach names and attributes (precision optimization level, placement) to the
ops traced inside; nothing here compiles for a wafer, so what remains observable is what the real
stack shows on its CPU backend, measured there (SPEC §4.9): validation and messages, the debug
names, ``current_pol()`` inside a decorated call, and the warning that an annotation made for the
CPU backend (or with no backend yet) has no effect on the ops. As in the real stack, whether a
decorator acts is decided when it is applied: one applied before any backend exists never changes
``current_pol()``.
"""
from __future__ import annotations

import contextlib
import functools
import threading
import warnings
from typing import Optional

__all__ = ["name_scope", "set_debug_scope", "add_debug_name", "get_debug_name", "pol",
           "current_pol", "device_annotation"]

_DEVICES = ("wgth", "acth", "wafer")
_state = threading.local()


def _annotations() -> list:
    if not hasattr(_state, "stack"):
        _state.stack = []
    return _state.stack


@contextlib.contextmanager
def name_scope(name: str, raw: bool = False):
    """Name the ops traced inside (``with cstorch.name_scope("head"): ...``); needs a backend."""
    from ..backend import current_backend
    backend = current_backend()  # RuntimeError naming the fix when there is none
    previous = getattr(backend, "_scope_name", None)
    backend._scope_name = name
    try:
        yield
    finally:
        backend._scope_name = previous


def set_debug_scope(name: Optional[str]) -> None:
    """Prefix the debug names of ops traced from now on with ``name`` (None or "" clears it)."""
    _state.debug_scope = name or ""


def add_debug_name(module, root_name: Optional[str] = None) -> None:
    """Give ``module`` and every descendant a ``_debug_name``: its dotted path from ``root_name``."""
    def visit(m, name):
        m._debug_name = name
        for child_name, child in m.named_children():
            visit(child, ".".join(part for part in (name, child_name) if part))
    visit(module, root_name or "")


def get_debug_name(module) -> str:
    """The module's ``_debug_name`` if it has a non-empty one, else its class name."""
    name = getattr(module, "_debug_name", None)
    return name if name else type(module).__name__


def _annotation(kind, value, enable_fwd):
    """A decorator pushing ``(kind, value)`` for the duration of each call of the function."""
    from ..backend import current_backend
    backend = current_backend(raise_exception=False)
    if backend is None or not backend.is_csx:
        device = "None" if backend is None else str(backend.torch_device)
        warnings.warn(f'Setting GenericAnnotationMode for "{device}" device doesn\'t have any '
                      "effect.", stacklevel=3)
    active = backend is not None and enable_fwd

    def decorate(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            if not active:
                return fn(*args, **kwargs)
            stack = _annotations()
            stack.append((kind, value))
            try:
                return fn(*args, **kwargs)
            finally:
                stack.pop()
        return call
    return decorate


def pol(level: Optional[int] = None, bwd_level: Optional[int] = None, enable_fwd: bool = True,
        enable_bwd: bool = True):
    """Decorator: run the function at precision optimization level ``level`` (0, 1 or 2;
    ``bwd_level`` for its backward ops). ``current_pol()`` inside returns ``level``."""
    for which, val in (("forward", level), ("backward", bwd_level)):
        if val is not None and val not in range(0, 3):
            raise ValueError(f"POL must be None or an integer in range [0, 3) but got {which} "
                             f"level {val}.")
    return _annotation("pol", level, enable_fwd)


def current_pol() -> int:
    """The POL of the innermost ``pol`` call in progress, else
    ``backends.csx.precision.optimization_level``."""
    for kind, value in reversed(_annotations()):
        if kind == "pol":
            if value is not None:
                return value
            break
    from .. import backends
    return backends.csx.precision.optimization_level


def device_annotation(device, enable_fwd=True, enable_bwd=True):
    """Decorator: place the function's ops on ``"wgth"`` (weight host), ``"acth"`` (activation
    host) or ``"wafer"``."""
    if device not in _DEVICES:
        raise TypeError(f"Expected `device` to be one of {_DEVICES}.")
    return _annotation("device_annotation", device, enable_fwd)
