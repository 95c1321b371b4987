"""Unary kernels of torch's special-function family with their own rules: ``sinc`` (pi and the
product in the computing dtype) and ``logit`` (an ``eps`` clamp; every operation in the tensor's
dtype, as torch's kernels). Reached as ``elementwise.Sinc``/``elementwise.Logit``."""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from ._kernel import Pointwise, write_out
from ._xp import ns, raw
from .elementwise import _float_out, _unary

__all__ = ["Sinc", "Logit"]


def _sinc(x, out=None):
    """torch's sinc kernel: 1 at 0, else sin(pi x) / (pi x) with pi and the product in the
    computing dtype (so sinc(1) in float32 is sin(float32(pi)) / float32(pi), not 0)."""
    px = x * np.asarray(math.pi, x.dtype)
    zero = x == 0
    r = np.where(zero, np.ones((), x.dtype), np.sin(px) / np.where(zero, np.ones((), x.dtype), px))
    return write_out(r, out) if out is not None else r


def _sinc_bwd(xp, x, y, g):
    # torch's sinc_backward: grad * ((pi x cos(pi x) - sin(pi x)) / (pi x^2)), 0 where pi x^2
    # is (the quotient formed first, then the grad times it)
    px = x * math.pi
    sq = x * x * math.pi
    r = g * ((px * xp.cos(px) - xp.sin(px)) / sq)
    return xp.where(sq == 0, xp.zeros((), xp.npdtype(r)), r)


Sinc = _unary("sinc", _sinc, _sinc_bwd)


def _logit_bounds(eps, dt):
    """``(lo, hi)`` of logit's clamp in dtype ``dt`` (torch converts ``eps`` to the dtype, then
    ``hi = 1 - eps`` in it), or None for no clamp (``eps`` None or negative)."""
    lo = None if eps is None else D.np_cast(np.asarray(eps, np.float64), dt)
    return None if lo is None or lo < 0 else (lo, np.ones((), dt) - lo)


class Logit(Pointwise):
    """``log(x / (1 - x))`` (torch.logit); with ``eps`` the input is first clamped into
    ``[eps, 1 - eps]`` (NaN passes). torch's CPU kernels compute in the tensor's dtype, each
    operation rounded (also for float16/bfloat16), and its backward is
    ``grad / (x * (1 - x))`` where ``x`` lies in ``[0, 1]`` (with ``eps``: in ``[lo, hi]``),
    else NaN (with ``eps``: 0) -- the vectorized kernel's choice, NaN inputs included."""

    name = "logit"
    saved = (0,)

    @staticmethod
    def forward(ctx, x, eps=None, out=None):
        x = _float_out(x)
        one = np.ones((), x.dtype)
        bounds = _logit_bounds(eps, x.dtype)
        xc = x if bounds is None else np.where(x < bounds[0], bounds[0],
                                               np.where(x > bounds[1], bounds[1], x))
        ctx.x, ctx.eps = x, eps
        q = xc / (one - xc)
        # float32: torch takes MKL's vector log, within an ulp of the exact value; the float64
        # log rounded once is the exact value's nearest float32 (closer to it than numpy's own
        # float32 log, which misses by an ulp more often)
        r = np.log(q.astype(np.float64)).astype(np.float32) if x.dtype == np.float32 else \
            np.log(q)
        return write_out(r, out) if out is not None else r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x, dt = ctx.x, xp.npdtype(g)
        bounds = _logit_bounds(raw(ctx, "eps"), dt)
        lo, hi = (0.0, 1.0) if bounds is None else (float(bounds[0]), float(bounds[1]))
        fill = xp.asarray(float("nan") if bounds is None else 0.0, dt)
        return (xp.where((x >= lo) & (x <= hi), g / (x * (1 - x)), fill),)
