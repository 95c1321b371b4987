"""The base of every kernel in ``_ops``: what a forward returns is normalised here, once.

numpy hands back things a tensor must not hold: numpy scalars (from reductions of 0-d arrays),
read-only arrays (``broadcast_to``), an input array itself (``x`` returned unchanged), arrays in
whatever memory order the ufunc chose. torch's rules, applied to every kernel's outputs:

* a result is a fresh, writeable ndarray (in-place ops on it work; it never aliases an input);
* its memory layout: elementwise kernels keep their inputs' layout (torch's TensorIterator, as
  numpy's ``order="K"`` does: ``x.t().exp()`` is transposed too); every other kernel
  (reductions, softmax, cumulative ops, matmul, normalization, losses, ...) returns a contiguous
  tensor, so ``.view`` works on it as in torch;
* an empty result has the strides torch gives an empty contiguous tensor (numpy reports 0).
"""
from __future__ import annotations

import functools

import numpy as np

from .._dispatch import Op

__all__ = ["Kernel", "Pointwise", "finish"]


class Kernel(Op):
    """A primitive whose forward's outputs follow torch's layout rules (module docstring)."""

    elementwise = False

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        fwd = cls.__dict__.get("forward")
        if fwd is not None and not cls.is_view:
            raw = fwd.__func__ if isinstance(fwd, staticmethod) else fwd
            cls.forward = staticmethod(_normalising(raw, cls))


class Pointwise(Kernel):
    """An elementwise kernel: results keep the inputs' memory layout."""

    elementwise = True


def _normalising(forward, cls):
    @functools.wraps(forward)
    def run(ctx, *args, **attrs):
        res = forward(ctx, *args, **attrs)
        out = attrs.get("out")
        if isinstance(res, tuple):
            return tuple(finish(r, args, out, cls.elementwise) for r in res)
        return finish(res, args, out, cls.elementwise)
    return run


def finish(r, inputs=(), out=None, elementwise=False):
    """``r`` as a kernel output: a fresh writeable ndarray in torch's layout."""
    if out is not None and r is out:
        return r
    if not isinstance(r, np.ndarray):
        return np.asarray(r)  # a numpy scalar: a new 0-d array
    if r.size == 0:
        return _empty(r.shape, r.dtype)
    if not r.flags.writeable or any(isinstance(a, np.ndarray) and np.may_share_memory(r, a)
                                    for a in inputs):
        return np.array(r, copy=True, order="K" if elementwise else "C")
    if not elementwise and not r.flags.c_contiguous:
        return np.ascontiguousarray(r)
    return r


def _empty(shape, dtype):
    """An empty array with torch's contiguous strides (sizes of 0 count as 1 for the strides)."""
    strides, acc = [], dtype.itemsize
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return np.lib.stride_tricks.as_strided(np.empty(1, dtype), shape, tuple(reversed(strides)),
                                           writeable=True)
