"""``torch.autocast`` (the CPU subset): while active, matmul, linear and convolutions compute in
the autocast dtype (their floating inputs are cast to it; the casts are differentiable, so the
gradients of float32 leaves come back as float32).

``dtype`` is the module-level flag those ops read: the active autocast dtype, or None.
"""
from __future__ import annotations

import functools

from . import _dtype as D

__all__ = ["autocast", "is_autocast_enabled", "get_autocast_dtype", "dtype", "cast_inputs"]

dtype = None


def cast_inputs(*tensors):
    """The floating tensors among ``tensors`` cast to the autocast dtype (others unchanged)."""
    out = []
    for t in tensors:
        if t is not None and t.dtype.is_floating_point and t.dtype is not dtype:
            t = t.to(dtype)
        out.append(t)
    return out


class autocast:
    """``with torch.autocast("cpu", dtype=torch.bfloat16):`` (bfloat16 is the CPU default)."""

    def __init__(self, device_type="cpu", dtype=None, enabled: bool = True, cache_enabled=None):
        self.device_type = device_type
        self.fast_dtype = D.to_dtype(dtype) if dtype is not None else D.bfloat16
        self._enabled = bool(enabled)

    def __enter__(self):
        global dtype
        self._prev = dtype
        dtype = self.fast_dtype if self._enabled else None
        return self

    def __exit__(self, *exc):
        global dtype
        dtype = self._prev
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with autocast(self.device_type, self.fast_dtype, self._enabled):
                return func(*args, **kwargs)
        return wrapper


def is_autocast_enabled(device_type=None) -> bool:
    return dtype is not None


def get_autocast_dtype(device_type="cpu"):
    return dtype if dtype is not None else D.bfloat16
