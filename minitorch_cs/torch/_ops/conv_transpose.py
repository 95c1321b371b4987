"""Transposed convolution: one primitive (kernels in ``_kernels.conv``).

A transposed convolution is the input gradient of a convolution, so its forward and both
gradients are the convolution kernels with roles exchanged (see the kernel module's notes).
Half precision accumulates in float32 and rounds the result, as torch's CPU does for ``conv``.
"""
from __future__ import annotations

import numpy as np

from .._dispatch import Op
from ._xp import ns
from ._opmath import HALF as _HALF

__all__ = ["ConvTranspose"]


def _k():
    from .._kernels import conv
    return conv


class ConvTranspose(Op):
    name = "conv_transpose"
    saved = (0, 1)
    reads = {0: (1,), 1: (0,)}
    graph_inputs = {"x": 0, "w": 1}

    @staticmethod
    def forward(ctx, x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                nd=2):
        ctx.x_shape, ctx.w_shape = x.shape, w.shape
        ctx.args = dict(stride=stride, padding=padding, output_padding=output_padding,
                        groups=groups, dilation=dilation, nsp=nd)
        ctx.nd = nd
        half = x.dtype if x.dtype in _HALF else None
        if half is not None:
            x, w = x.astype(np.float32), w.astype(np.float32)
        ctx.x, ctx.w = x, w
        y = _k().conv_transpose_forward(x, w, **ctx.args)
        if b is not None:
            y = y + b.reshape((-1,) + (1,) * nd).astype(y.dtype, copy=False)
        return y if half is None else y.astype(half)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = ctx.needs_input_grad
        half = xp.npdtype(g) if xp.npdtype(g) in _HALF else None
        g32 = xp.astype(g, np.float32) if half is not None else g
        gx = gw = gb = None
        if n[0]:
            gx = xp.call(ConvTransposeInputGrad, g32, ctx.w, x_shape=ctx.x_shape, args=ctx.args)
        if n[1]:
            gw = xp.call(ConvTransposeWeightGrad, g32, ctx.x, w_shape=ctx.w_shape, args=ctx.args)
        if len(n) > 2 and n[2]:
            batched = g.ndim == ctx.nd + 2
            axes = ((0,) if batched else ()) + tuple(range(g.ndim - ctx.nd, g.ndim))
            gb = xp.sum(g32, axis=axes)
        if half is not None:
            gx, gw, gb = (None if a is None else xp.astype(a, half) for a in (gx, gw, gb))
        return (gx, gw, gb)


def _forward_kw(args):
    a = dict(args)
    a["nd"] = a.pop("nsp")
    return a


class ConvTransposeInputGrad(Op):
    """A transposed convolution's input gradient ``BI(g, w)`` (a convolution of ``g``), an op so
    that it can be differentiated again: ``<BI(g, w), c> = <g, conv_transpose(c, w)>`` gives its
    gradients ``conv_transpose(c, w)`` for ``g`` and ``BW(g, c)`` for ``w``."""

    name = "conv_transpose_backward_input"
    saved = (0, 1)
    graph_inputs = {"g": 0, "w": 1}

    @staticmethod
    def forward(ctx, g, w, x_shape, args):
        ctx.g, ctx.w, ctx.args, ctx.x_shape = g, w, args, x_shape
        return _k().conv_transpose_backward_input(g, w, x_shape, **args)

    @staticmethod
    def backward(ctx, c):
        xp = ns(c)
        n = ctx.needs_input_grad
        dg = xp.call(ConvTranspose, c, ctx.w, **_forward_kw(ctx.args)) if n[0] else None
        dw = xp.call(ConvTransposeWeightGrad, ctx.g, c, w_shape=tuple(ctx.w.shape),
                     args=ctx.args) if n[1] else None
        return (dg, dw)


class ConvTransposeWeightGrad(Op):
    """A transposed convolution's weight gradient ``BW(g, x)``, an op so that it can be
    differentiated again: its gradients are ``conv_transpose(x, c)`` for ``g`` and
    ``BI(g, c)`` for ``x``."""

    name = "conv_transpose_backward_weight"
    saved = (0, 1)
    graph_inputs = {"g": 0, "x": 1}

    @staticmethod
    def forward(ctx, g, x, w_shape, args):
        ctx.g, ctx.x, ctx.args = g, x, args
        return _k().conv_transpose_backward_weight(g, x, w_shape, **args)

    @staticmethod
    def backward(ctx, c):
        xp = ns(c)
        n = ctx.needs_input_grad
        dg = xp.call(ConvTranspose, ctx.x, c, **_forward_kw(ctx.args)) if n[0] else None
        dx = xp.call(ConvTransposeInputGrad, ctx.g, c, x_shape=tuple(ctx.x.shape),
                     args=ctx.args) if n[1] else None
        return (dg, dx)
