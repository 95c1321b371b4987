"""The gated linear unit as one kernel, as torch's CPU kernels compute it (not the composition
``a * sigmoid(b)``, which would round the sigmoid to a half dtype before the product)."""
from __future__ import annotations

import numpy as np

from .._layout import _strided_like, torch_layout
from ._kernel import Kernel
from ._opmath import opmath_dtype
from ._xp import graph_mode, ns

__all__ = ["Glu"]


class Glu(Kernel):
    """``glu(x, dim)``: the first half of ``dim`` times the sigmoid of the second,
    ``a * (1 / (1 + exp(-b)))`` in the compute dtype (float32 for half precision), rounded once.

    Backward is torch's ``glu_backward``: ``s = sigmoid(b)`` in the input's dtype, the first
    half's gradient ``s * g`` and the second's ``(1 - s) * s * a * g`` (in the compute dtype,
    rounded once); a graph-recording backward writes the same products as tensor ops."""

    name = "glu"
    node_name = "GluBackward0"
    own_layout = True  # TensorIterator's over the two halves (views of the input)
    saved = (0,)
    graph_inputs = {"x": 0}

    @staticmethod
    def forward(ctx, x, dim):
        ctx.x, ctx.dim = x, dim
        wide = opmath_dtype(x.dtype)
        halves = np.split(x, 2, axis=dim)
        a, b = (h.astype(wide, copy=False) for h in halves)
        one = np.asarray(1, wide)
        with np.errstate(over="ignore"):
            r = a * (one / (one + np.exp(-b)))
        out = _strided_like(r.shape, x.dtype, torch_layout(r.shape, halves))
        np.copyto(out, r, casting="unsafe")
        return out

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x, dim = ctx.x, ctx.dim
        n = x.shape[dim] // 2
        a, b = xp.split_sizes(x, [n, n], dim)
        if graph_mode(xp):
            s = xp.expit(b)
            return (xp.concatenate([s * g, (1 - s) * s * a * g], dim),)
        wide = opmath_dtype(x.dtype)
        with np.errstate(over="ignore"):
            s = (1 / (1 + np.exp(-b.astype(wide)))).astype(x.dtype)  # torch's sigmoid kernel
        sw, gw = s.astype(wide), g.astype(wide)
        first = (sw * gw).astype(x.dtype)
        second = ((1 - sw) * sw * a.astype(wide) * gw).astype(x.dtype)
        return (np.concatenate([first, second], dim),)
