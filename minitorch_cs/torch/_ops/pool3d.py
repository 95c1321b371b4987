"""Volumetric (3-D) pooling and convolution ops: the kernels of ``_kernels.pool3d`` (the n-d
windows of ``_kernels.conv``/``_kernels.avgpool``) with torch's node names, saved tensors,
dtypes and result layouts; their gradients are ops too (differentiable again), shared with the
2-D pools where the rule is the same (max pooling's scatter and gather, the convolution's).

Half precision, as torch 2.13's CPU kernels: max pooling compares in float32 (exact); its
gradient and adaptive pooling's forward and backward compute in the half dtype itself, each
addition and division rounded; avg_pool3d has no half kernel (the caller refuses it).

Layout: max_pool3d's result (and indices) and a float32/bfloat16 conv3d's (oneDNN) are
channels-last-3d for a channels-last-3d input (conv3d: or weight), as torch's; every other
result is contiguous.
"""
from __future__ import annotations

import numpy as np

from .._layout import (_strided_like, channels_last, channels_last_3d, is_contiguous_as,
                       suggested_format)
from ._kernel import Kernel
from ._opmath import HALF as _HALF, rounder
from ._xp import ns
from .nn import Conv, MaxPoolBackward, _back, _f32, use_mkldnn
from .._dispatch import Op

__all__ = ["MaxPool3d", "AvgPool3d", "AvgPool3dBackward", "AdaptiveAvgPool3d",
           "AdaptiveAvgPool3dBackward", "AdaptiveMaxPool3d", "Conv3d"]


def _k():
    from .._kernels import pool3d
    return pool3d


def _unsqueezed(a):
    """A 4-D array as torch's ``unsqueeze(0)`` views it (the new dim's stride is the first dim's
    extent)."""
    return np.lib.stride_tricks.as_strided(a, (1,) + a.shape,
                                           (a.shape[0] * a.strides[0],) + a.strides)


def _cl3d(r):
    """``r`` (a fresh result) laid out channels-last-3d (a 4-D one: as the squeezed result of a
    batch of one)."""
    if r.size == 0:
        return r
    if r.ndim == 4:
        return _cl3d(r[None])[0]
    want = _strided_like(r.shape, r.dtype, [1, 4, 3, 2, 0])
    np.copyto(want, r)
    return want


def _laid_out(r, cl):
    r = np.asarray(r)
    return _cl3d(r) if cl else np.ascontiguousarray(r)


def _half(x):
    return rounder(x.dtype) if x.dtype in _HALF else None


class MaxPool3d(Kernel):
    """``max_pool3d_with_indices``: the maxima and their int64 offsets in each D*H*W volume
    (F.max_pool3d without indices uses it too, as torch's autograd does). The gradient is max
    pooling's scatter into those offsets (in the half dtype's arithmetic for half inputs)."""

    name = "max_pool3d_with_indices"
    node_name = "MaxPool3DWithIndicesBackward0"
    saved = (0,)  # torch's backward reads the input (its version is checked)
    n_outputs = 2
    nondiff_outputs = (1,)
    saved_outputs = (1,)  # torch's backward reads the indices
    own_layout = True

    @staticmethod
    def forward(ctx, x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
        from .._kernels.conv import pool_windows_disjoint
        y, idx = _k().max_pool3d_forward(_f32(x), kernel_size, stride, padding, dilation,
                                         ceil_mode)
        # torch's kernel takes its channels-last-3d path for a 5-D input whose suggested
        # format is channels-last-3d, and for a 4-D one whose batch of one is laid out so
        cl = (suggested_format(x) is channels_last_3d) if x.ndim == 5 else \
            (not x.flags.c_contiguous and is_contiguous_as(_unsqueezed(x), channels_last_3d))
        if not cl and suggested_format(x) is channels_last:  # (a 4-D input torch's switch
            # over memory formats does not take)
            raise RuntimeError("Unsupported memory format. Supports only ChannelsLast3d, "
                               "Contiguous")
        ctx.idx = _laid_out(idx, cl)
        ctx.grad_kw = dict(x_shape=x.shape, nd=3, disjoint=pool_windows_disjoint(
            kernel_size, stride, dilation, nsp=3))
        return _laid_out(_back(y, x), cl), ctx.idx

    @staticmethod
    def backward(ctx, grads):
        return (ns(grads[0]).call(MaxPoolBackward, grads[0], ctx.idx, **ctx.grad_kw),)


_AVG_ARGS = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
             "divisor_override")


class AvgPool3d(Kernel):
    name = "avg_pool3d"
    node_name = "AvgPool3DBackward0"
    saved = (0,)  # torch's backward reads the input (its version is checked)

    @staticmethod
    def forward(ctx, x, kernel_size, stride=None, padding=0, ceil_mode=False,
                count_include_pad=True, divisor_override=None):
        ctx.shape = x.shape
        ctx.args = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        if x.dtype.kind in "iu":  # (int64 only: the caller refuses the others)
            return _k().avg_pool3d_forward(x.astype(np.int64), *ctx.args).astype(x.dtype)
        return _k().avg_pool3d_forward(x, *ctx.args)

    @staticmethod
    def backward(ctx, g):
        return (ns(g).call(AvgPool3dBackward, g, x_shape=ctx.shape, args=ctx.args),)


class AvgPool3dBackward(Op):
    """avg_pool3d's input gradient (linear in ``g``); its gradient is the pooling."""

    name = "avg_pool3d_backward"

    @staticmethod
    def forward(ctx, g, x_shape, args):
        ctx.args = args
        return _k().avg_pool3d_backward(g, x_shape, *args)

    @staticmethod
    def backward(ctx, c):
        return (ns(c).call(AvgPool3d, c, **dict(zip(_AVG_ARGS, ctx.args))),)


class AdaptiveAvgPool3d(Kernel):
    """``adaptive_avg_pool3d`` to an output other than (1, 1, 1) (which torch computes as a
    mean); half inputs in the half dtype's arithmetic."""

    name = "adaptive_avg_pool3d"
    node_name = "AdaptiveAvgPool3DBackward0"
    saved = (0,)  # torch's backward reads the input (its version is checked)

    @staticmethod
    def forward(ctx, x, output_size):
        ctx.shape, ctx.out = x.shape, output_size
        return _back(_k().adaptive_avg_pool3d_forward(_f32(x), output_size, _half(x)), x)

    @staticmethod
    def backward(ctx, g):
        return (ns(g).call(AdaptiveAvgPool3dBackward, g, x_shape=ctx.shape,
                           output_size=ctx.out),)


class AdaptiveAvgPool3dBackward(Op):
    """adaptive_avg_pool3d's input gradient (linear in ``g``); its gradient is the pooling."""

    name = "adaptive_avg_pool3d_backward"

    @staticmethod
    def forward(ctx, g, x_shape, output_size):
        ctx.out = output_size
        return _back(_k().adaptive_avg_pool3d_backward(_f32(g), x_shape, output_size,
                                                       _half(g)), g)

    @staticmethod
    def backward(ctx, c):
        return (ns(c).call(AdaptiveAvgPool3d, c, output_size=ctx.out),)


class AdaptiveMaxPool3d(MaxPool3d):
    """``adaptive_max_pool3d``: the values and their int64 offsets in each D*H*W volume (torch's
    node saves the input and the indices); the gradient is max pooling's scatter into them
    (windows may overlap)."""

    name = "adaptive_max_pool3d"
    node_name = "AdaptiveMaxPool3DBackward0"
    own_layout = False

    @staticmethod
    def forward(ctx, x, output_size):
        y, ctx.idx = _k().adaptive_max_pool3d_forward(_f32(x), output_size)
        ctx.grad_kw = dict(x_shape=x.shape, nd=3, disjoint=False)
        return _back(y, x), ctx.idx


class Conv3d(Conv):
    """The convolution kernel (node ``ConvolutionBackward0``) over three spatial dims, with
    torch's result layout: channels-last-3d when oneDNN runs it (float32 by torch's rule,
    bfloat16) and the input or the weight suggests channels-last-3d."""

    own_layout = True
    suggest_format = ()  # (the 2-D channels-last rule is not this kernel's: its own below)

    @staticmethod
    def forward(ctx, x, w, b=None, stride=1, padding=0, dilation=1, groups=1, nd=3):
        batched = x if x.ndim == 5 else _unsqueezed(x)
        y = Conv.forward(ctx, x, w, b, stride, padding, dilation, groups, nd)
        cl = use_mkldnn(x, w, groups, 3) and channels_last_3d in (
            suggested_format(batched), suggested_format(w))
        return _laid_out(y, cl)
