"""Matrix-vector updates: ``addmv`` (``beta * input + alpha * (mat @ vec)``) and ``addr``
(``beta * input + alpha * outer(vec1, vec2)``).

Both follow torch's rule for ``beta == 0``: ``input`` is not read at all, so a NaN or an inf
there does not reach the result. ``addr``'s ``input`` arrives expanded to the result's shape;
``addmv``'s broadcasts here, with torch's shapes where its kernel resizes the result to
``input``'s (an empty matrix with ``beta != 0``: ``beta * input``; a 0-d input with a one-row
matrix: a 0-d result). The gradients are torch's formulas, each scaled by its scalar only when
that scalar is not 1 (``maybe_multiply``): ``input`` gets ``beta * g`` (zeros for ``beta == 0``).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from ._kernel import Kernel
from ._opmath import HALF as _HALF
from ._xp import ns
from .elementwise import _to_dtype_checked
from .linalg import _gemm, _mm, _no_bool


_BLAS = (np.dtype(np.float32), np.dtype(np.float64))  # (the dtypes torch hands to BLAS)


def _scaled(x, s):
    return x if s == 1 else x * s


class Addmv(Kernel):
    """``beta * c + alpha * (a @ b)`` for a matrix ``a`` and a vector ``b``; the three operands
    share one dtype (torch's check), integer tensors take the scalars truncated."""

    name = "addmv"
    saved = (1, 2)
    reads = {1: (2,), 2: (1,)}  # (each operand is read only by the other's gradient)
    graph_inputs = {"a": 1, "b": 2}

    @staticmethod
    def forward(ctx, c, a, b, beta=1, alpha=1):
        if not c.dtype == a.dtype == b.dtype:
            raise RuntimeError("addmv input tensors must have the same dtype, but got "
                               f"{_name(c)}, {_name(a)}, and {_name(b)}")
        ctx.a, ctx.b, ctx.alpha, ctx.beta = a, b, alpha, beta
        if a.size == 0:  # no kernel runs (bool too): zeros, or input copied and scaled
            if beta == 0:  # (``mul_(beta)``, beta converted as a Scalar), in input's own shape
                return np.zeros(a.shape[:1], c.dtype)
            return c * _to_dtype_checked(beta, c.dtype)
        _no_bool("addmv_impl_cpu", a)
        if a.dtype.kind in "iu":  # the scalars become the integer dtype (range checked)
            _to_dtype_checked(beta, a.dtype), _to_dtype_checked(alpha, a.dtype)
        if alpha == 0 and a.dtype in _BLAS:  # BLAS's gemv: alpha == 0 never reads mat or
            r = np.zeros(a.shape[:1], a.dtype) if beta == 0 else \
                np.broadcast_to(c if beta == 1 else c * a.dtype.type(beta), a.shape[:1])
        else:  # vec (NaN there does not propagate)
            r = _gemm(a, b, c, beta, alpha)
        return r.reshape(()) if c.ndim == 0 and r.shape == (1,) else r  # (torch's 0-d quirk)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = ctx.needs_input_grad
        a, b = ctx.a, ctx.b
        gc = _scaled(g, ctx.beta) if n[0] else None
        if a.size == 0:  # nothing multiplied: no gradient reaches the matrix or the vector
            return (gc, xp.zeros(tuple(a.shape), g.dtype) if n[1] else None,
                    xp.zeros(tuple(b.shape), g.dtype) if n[2] else None)
        g = xp.reshape(g, (a.shape[0],))
        return (gc, _scaled(xp.reshape(g, (-1, 1)) * xp.reshape(b, (1, -1)), ctx.alpha)
                if n[1] else None,
                _scaled(_mm(xp, xp.swapaxes(a, 0, 1), g), ctx.alpha) if n[2] else None)


class Addr(Kernel):
    """``beta * c + alpha * a * b`` over the grid of the column ``a`` (n, 1) and the row ``b``
    (1, m), elementwise in torch's order (``alpha * a`` first); bool tensors combine with
    and/or; half precision computes in float32 and rounds once. The vectors arrive in the
    result dtype; ``c`` (an in-place target of another dtype) is converted. The result is laid
    out as torch's iterator lays it out (``elementwise``: after ``c``'s strides)."""

    name = "addr"
    elementwise = True
    saved = (1, 2)
    reads = {1: (2,), 2: (1,)}
    graph_inputs = {"a": 1, "b": 2}

    @staticmethod
    def forward(ctx, c, a, b, beta=1, alpha=1):
        ctx.a, ctx.b, ctx.alpha, ctx.beta = a, b, alpha, beta
        dt = a.dtype
        col, row = a, b
        if dt == np.bool_:
            prod = col & row if alpha else np.zeros((a.size, b.size), bool)
            return prod | (c.astype(bool) if beta else False)
        work = np.dtype(np.float32) if dt in _HALF else dt
        col, row, c = col.astype(work), row.astype(work), c.astype(work)
        if dt.kind in "iu":
            beta, alpha = int(beta), int(alpha)
        with np.errstate(over="ignore", invalid="ignore"):
            prod = (col if alpha == 1 else np.asarray(alpha).astype(work) * col) * row
            r = prod if beta == 0 else np.asarray(beta).astype(work) * c + prod
        return np.asarray(r).astype(dt, copy=False)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = ctx.needs_input_grad
        a, b = ctx.a, ctx.b
        return (_scaled(g, ctx.beta) if n[0] else None,
                _scaled(xp.reshape(_mm(xp, g, xp.reshape(b, (-1,))), (-1, 1)), ctx.alpha)
                if n[1] else None,
                _scaled(xp.reshape(_mm(xp, xp.swapaxes(g, 0, 1), xp.reshape(a, (-1,))),
                                   (1, -1)), ctx.alpha) if n[2] else None)


def _name(x):
    return D.scalar_name(D._BY_NP[x.dtype])
