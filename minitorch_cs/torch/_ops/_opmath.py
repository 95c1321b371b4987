"""torch's CPU rule for half precision: kernels that accumulate (sums, means, norms, softmax,
normalization, losses) read float16/bfloat16 inputs as float32, compute in float32, and round
only the result back. numpy would accumulate bfloat16 in bfloat16 (3000 × 0.1 sums to 32).
"""
from __future__ import annotations

import functools

import numpy as np

from .elementwise import _HALF_DT as HALF


def opmath(forward):
    """Wrap an ``Op.forward``: half-precision array arguments are widened to float32, and float32
    results are rounded back to the (first) half dtype. The op's saved context stays float32, so
    its backward computes in float32 too (the engine rounds gradients to each input's dtype)."""
    @functools.wraps(forward)
    def run(ctx, *args, **attrs):
        half = None
        for a in args:
            if isinstance(a, np.ndarray) and a.dtype in HALF:
                half = a.dtype
                break
        if half is None:
            return forward(ctx, *args, **attrs)
        ctx.half_dtype = half  # (a kernel whose float32 arithmetic differs for half inputs)
        wide = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype in HALF else a
                for a in args]
        out = forward(ctx, *wide, **attrs)
        if isinstance(out, tuple):
            return tuple(o.astype(half) if isinstance(o, np.ndarray) and o.dtype == np.float32
                         else o for o in out)
        return out.astype(half) if out.dtype == np.float32 else out
    return run
