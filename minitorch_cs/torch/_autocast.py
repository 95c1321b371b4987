"""``torch.autocast`` (the CPU subset), as a dispatch mode.

While an :class:`autocast` is active, the ops torch's CPU autocast runs in lower precision --
matmul, linear, addmm and convolutions -- receive their floating inputs cast to the autocast
dtype (the casts are ops too, differentiable, so the gradients of float32 leaves come back as
float32); every other op runs as it is. The emulated wafer's mixed precision uses the same mode.
"""
from __future__ import annotations

import functools

from . import _dtype as D
from ._dispatch import OPS, Mode, apply, modes, redispatch

__all__ = ["autocast", "is_autocast_enabled", "get_autocast_dtype", "AutocastMode",
           "LOWER_PRECISION_OPS"]

# torch's CPU autocast "lower_precision_fp" list, restricted to the ops this package has
LOWER_PRECISION_OPS = frozenset({"matmul", "linear", "addmm", "convolution"})


class AutocastMode(Mode):
    """Casts the floating inputs of :data:`LOWER_PRECISION_OPS` to ``dtype``."""

    def __init__(self, dtype):
        self.dtype = dtype

    def dispatch(self, op, args, attrs, target):
        if target is None and op.name in LOWER_PRECISION_OPS:
            args = tuple(self._cast(a) for a in args)
        return redispatch(self, op, args, attrs, target)

    def _cast(self, t):
        if getattr(t, "_dtype", None) is not None and t._dtype.is_floating_point and \
                t._dtype is not self.dtype:
            return apply(OPS["to_copy"], t, dtype=self.dtype.np)  # (op modules sit above)
        return t


class autocast:
    """``with torch.autocast("cpu", dtype=torch.bfloat16):`` (bfloat16 is the CPU default)."""

    def __init__(self, device_type="cpu", dtype=None, enabled: bool = True, cache_enabled=None):
        self.device_type = device_type
        self.fast_dtype = D.to_dtype(dtype) if dtype is not None else D.bfloat16
        self._enabled = bool(enabled)
        self._mode = None

    def __enter__(self):
        if self._enabled:
            self._mode = AutocastMode(self.fast_dtype).enter()
        return self

    def __exit__(self, *exc):
        if self._mode is not None:
            self._mode.exit()
            self._mode = None
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with autocast(self.device_type, self.fast_dtype, self._enabled):
                return func(*args, **kwargs)
        return wrapper


def _active():
    found = [m for m in modes() if isinstance(m, AutocastMode)]
    return found[-1] if found else None


def is_autocast_enabled(device_type=None) -> bool:
    return _active() is not None


def get_autocast_dtype(device_type="cpu"):
    m = _active()
    return m.dtype if m is not None else D.bfloat16
