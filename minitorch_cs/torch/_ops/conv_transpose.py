"""Transposed convolution: one primitive (kernels in ``_kernels.conv``).

A transposed convolution is the input gradient of a convolution, so its forward and both
gradients are the convolution kernels with roles exchanged (see the kernel module's notes).
Half precision accumulates in float32 and rounds the result, as torch's CPU does for ``conv``.
"""
from __future__ import annotations

import numpy as np

from .._dispatch import Op
from .linalg import _HALF

__all__ = ["ConvTranspose"]


def _k():
    from .._kernels import conv
    return conv


class ConvTranspose(Op):
    name = "conv_transpose"
    saved = (0, 1)
    reads = {0: (1,), 1: (0,)}

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
        k = _k()
        n = ctx.needs_input_grad
        half = g.dtype if g.dtype in _HALF else None
        g32 = g.astype(np.float32) if half is not None else g
        gx = gw = gb = None
        if n[0]:
            gx = k.conv_transpose_backward_input(g32, ctx.w, ctx.x_shape, **ctx.args)
        if n[1]:
            gw = k.conv_transpose_backward_weight(g32, ctx.x, ctx.w_shape, **ctx.args)
        if len(n) > 2 and n[2]:
            batched = g.ndim == ctx.nd + 2
            axes = ((0,) if batched else ()) + tuple(range(g.ndim - ctx.nd, g.ndim))
            gb = g32.sum(axis=axes)
        if half is not None:
            gx, gw, gb = (None if a is None else a.astype(half) for a in (gx, gw, gb))
        return (gx, gw, gb)
