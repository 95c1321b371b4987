"""``torch.nn.functional``: activations, losses, normalization, convolution, pooling, dropout."""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .. import _functions as T
from .._autograd import GradState
from .._dispatch import apply, apply_inplace, values_hidden, wafer_dtypes
from .._fpe import warn_user
from .._functions.reduction import _implicit_dim
from .._ops import elementwise as E
from .._ops import movement as M
from .._ops import linalg as LA
from .._ops import nn as N
from .._random import RandomNew
from .._tensor import Tensor, _wrap_dim

__all__ = [
    "linear", "bilinear", "relu", "relu_", "relu6", "gelu", "silu", "mish", "leaky_relu", "elu",
    "selu", "celu", "softplus", "hardtanh", "hardsigmoid", "hardswish", "sigmoid", "tanh",
    "logsigmoid", "softsign", "tanhshrink", "threshold", "glu", "dropout", "dropout1d", "dropout2d",
    "alpha_dropout", "softmax", "softmin", "log_softmax", "conv1d", "conv2d", "max_pool1d",
    "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
    "layer_norm", "batch_norm", "group_norm", "instance_norm", "normalize", "embedding", "one_hot",
    "pad", "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "cosine_similarity",
    "pairwise_distance", "poisson_nll_loss", "gaussian_nll_loss", "hinge_embedding_loss",
    "margin_ranking_loss", "soft_margin_loss", "cosine_embedding_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
    "multilabel_soft_margin_loss", "interpolate", "unfold", "scaled_dot_product_attention",
]

_REDUCTIONS = ("none", "mean", "sum")


def _check_reduction(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:
        legacy = "none" if reduce is False else \
            ("mean" if size_average in (None, True) else "sum")
        warn_user(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{legacy}' instead.")
        return legacy
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


# ----- linear and activations ---------------------------------------------------------------------
def linear(input, weight, bias=None):
    """y = input @ weight^T + bias. torch fuses the bias (one addmm, which checks dtypes) for a
    2-D input, or a contiguous input that is 3-D or has a 1-D bias; otherwise it runs matmul
    then ``output.add_(bias)`` (so a bias of another, castable dtype is accepted)."""
    if bias is None:
        return apply(LA.Linear, input, weight)
    fused = input.ndim == 2 or (input.is_contiguous() and (input.ndim == 3 or bias.ndim == 1))
    if fused or bias._dtype is input._dtype:
        return apply(LA.Linear, input, weight, bias)
    return apply(LA.Linear, input, weight).add_(bias)


def bilinear(input1, input2, weight, bias=None):
    for k, x in ((1, input1), (2, input2)):
        if x.shape[-1] != weight.shape[k]:
            raise RuntimeError(f"bilinear(): input{k} size does not match weight size: got "
                               f"{x.shape[-1]} but expected {weight.shape[k]}")
    if tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
        d = next(i for i, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])) if a != b)
        raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: got "
                           f"{input1.shape[d]} and {input2.shape[d]}")
    y = T.einsum("bi,oij,bj->bo", input1.reshape(-1, input1.shape[-1]), weight,
                 input2.reshape(-1, input2.shape[-1]))
    y = y.reshape(tuple(input1.shape[:-1]) + (weight.shape[0],))
    return y + bias if bias is not None else y


def _not_implemented(kernel, t):
    return NotImplementedError(f'"{kernel}" not implemented for \'{D.scalar_name(t._dtype)}\'')


def _floating(t, kernel, inplace=False):
    """torch's error for an activation/loss kernel given an integer or bool tensor. An in-place
    kernel (``inplace=True``) first refuses a target with internal overlap, as torch's
    TensorIterator checks that before the dtype."""
    if inplace:
        _no_internal_overlap(t)
    if not t._dtype.is_floating_point:
        raise _not_implemented(kernel, t)


def _no_internal_overlap(t):
    """torch's first check of an in-place write (TensorIterator, before any dtype check): a
    target whose elements share memory (an expanded tensor) is refused."""
    if any(s == 0 and n > 1 for s, n in zip(t._data.strides, t._data.shape)):
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor "
                           "refers to a single memory location. Please clone() the tensor before "
                           "performing the operation.")


def _activation(op, input, inplace, **attrs):
    """One elementwise kernel, out of place or written into ``input`` (``inplace=True``)."""
    if inplace:
        _no_internal_overlap(input)
        return apply_inplace(op, input, **attrs)
    return apply(op, input, **attrs)


def _composite_inplace(input, inplace, compute):
    """``inplace=True`` for an activation built from several ops: the result is computed from a
    copy (the ops' saved values stay intact) and written into ``input``."""
    if not inplace:
        return compute(input)
    _no_internal_overlap(input)
    return input.copy_(compute(input.clone() if input.requires_grad else input))


def relu(input, inplace=False):
    return input.relu_() if inplace else apply(E.Relu, input)


def relu_(input):
    return input.relu_()


def relu6(input, inplace=False):
    return _activation(E.Hardtanh, input, inplace, lo=0.0, hi=6.0)


def gelu(input, approximate="none"):
    _floating(input, "GeluKernelImpl")
    if approximate == "tanh":
        return apply(E.GeluTanh, input)
    if approximate != "none":
        raise RuntimeError(f"approximate argument must be either none or tanh.")
    return apply(E.Gelu, input)


def silu(input, inplace=False):
    _floating(input, "silu_cpu", inplace)
    return _activation(E.Silu, input, inplace)


def mish(input, inplace=False):
    _floating(input, "mish_cpu", inplace)
    return _activation(E.Mish, input, inplace)  # one kernel (a half input: float32 inside)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    _floating(input, "leaky_relu_cpu", inplace)
    return _activation(E.LeakyRelu, input, inplace, negative_slope=negative_slope)


def elu(input, alpha=1.0, inplace=False):
    _floating(input, "elu_cpu", inplace)
    return _activation(E.Elu, input, inplace, alpha=alpha)


_SELU_SCALE, _SELU_ALPHA = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717


def selu(input, inplace=False):
    _floating(input, "elu_cpu", inplace)
    return _activation(E.Elu, input, inplace, alpha=_SELU_ALPHA, scale=_SELU_SCALE)


def celu(input, alpha=1.0, inplace=False):
    _floating(input, "elu_cpu", inplace)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _activation(E.Elu, input, inplace, alpha=alpha, input_scale=1.0 / alpha)


def softplus(input, beta=1.0, threshold=20.0):
    _floating(input, "softplus_cpu")
    return apply(E.Softplus, input, beta=beta, threshold=threshold)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _activation(E.Hardtanh, input, inplace, lo=min_val, hi=max_val)


def hardsigmoid(input, inplace=False):
    _floating(input, "hardsigmoid_cpu", inplace)
    return _activation(E.Hardsigmoid, input, inplace)


def hardswish(input, inplace=False):
    _floating(input, "hardswish_cpu", inplace)
    return _activation(E.Hardswish, input, inplace)


def sigmoid(input):
    return apply(E.Sigmoid, input)


def tanh(input):
    return apply(E.Tanh, input)


def logsigmoid(input):
    _floating(input, "log_sigmoid_cpu")
    return apply(N.LogSigmoid, input)


def softsign(input):
    return input / (1 + T.abs(input))


def tanhshrink(input):
    return input - T.tanh(input)


def threshold(input, threshold, value, inplace=False):
    return _activation(E.Threshold, input, inplace, threshold=threshold, value=value)


def glu(input, dim=-1):
    _floating(input, "glu_cpu")
    d = _wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{input.shape[d]}")
    a, b = T.chunk(input, 2, d)
    return a * T.sigmoid(b)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return T.softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _implicit_dim("softmin", input)
    return softmax(-input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return T.log_softmax(input, dim, dtype=dtype)


# ----- dropout ------------------------------------------------------------------------------------
def _dropout_mask(input, p, shape, generator=None):
    keep = apply(RandomNew, shape=shape, dtype=input._dtype.np, kind="bernoulli", a=1.0 - p,
                 generator=generator)
    return keep / (1.0 - p) if p < 1 else keep


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by 1/(1-p) (training only)."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0
    mask = _dropout_mask(input, p, tuple(input.shape))
    return input.mul_(mask) if inplace else input * mask


def _feature_dropout(input, p, training, inplace, batched_ndim):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    if input.ndim == batched_ndim - 1:
        shape = (input.shape[0],) + (1,) * (input.ndim - 1)
    mask = _dropout_mask(input, p, shape)
    return input * mask


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 4)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    if not training or p == 0:
        return input
    raise NotImplementedError("alpha_dropout in training mode is not supported")


# ----- convolution and pooling --------------------------------------------------------------------
def _pair(v, n=2):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _conv_dtypes(input, weight, bias, dilation):
    """torch's checks, in its order: the bias's dtype; the kernel's dtype support (no bool; the
    dilated kernel has no integer types but int64); the weight's dtype."""
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(f"Input type ({D.cpp_name(input._dtype)}) and bias type "
                           f"({D.cpp_name(bias._dtype)}) should be the same")
    dilated = any(d != 1 for d in (dilation if isinstance(dilation, (tuple, list))
                                   else (dilation,)))
    if input._dtype is D.bool or (dilated and not input._dtype.is_floating_point
                                  and input._dtype is not D.int64):
        raise _not_implemented("slow_conv_dilated<>" if dilated else "slow_conv2d_cpu", input)
    if weight._dtype is not input._dtype:
        raise RuntimeError(f"expected scalar type {D.scalar_name(input._dtype)} but found "
                           f"{D.scalar_name(weight._dtype)}")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    _conv_dtypes(input, weight, bias, dilation)
    args = (input, weight) if bias is None else (input, weight, bias)
    return apply(N.Conv, *args, stride=stride, padding=padding, dilation=dilation, groups=groups,
                 nd=2)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    _conv_dtypes(input, weight, bias, dilation)
    args = (input, weight) if bias is None else (input, weight, bias)
    return apply(N.Conv, *args, stride=stride, padding=padding, dilation=dilation, groups=groups,
                 nd=1)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if return_indices:
        return apply(N.MaxPool2dWithIndices, input, kernel_size=kernel_size, stride=stride,
                     padding=padding, dilation=dilation, ceil_mode=ceil_mode)
    return apply(N.MaxPool2d, input, kernel_size=kernel_size, stride=stride, padding=padding,
                 dilation=dilation, ceil_mode=ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if not return_indices:  # torch's max_pool1d kernel is floating-only (the indices one is not)
        _floating(input, "max_pool1d_impl")
    s = stride if stride is not None else kernel_size
    y = max_pool2d(input.unsqueeze(-2), (1, _pair(kernel_size, 1)[0]), (1, _pair(s, 1)[0]),
                   (0, _pair(padding, 1)[0]), (1, _pair(dilation, 1)[0]), ceil_mode, return_indices)
    if return_indices:
        return y[0].squeeze(-2), y[1].squeeze(-2)
    return y.squeeze(-2).contiguous()  # torch's max_pool1d_impl writes a contiguous result


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    if not input._dtype.is_floating_point and input._dtype is not D.int64:
        raise _not_implemented("avg_pool2d", input)
    return apply(N.AvgPool2d, input, kernel_size=kernel_size, stride=stride, padding=padding,
                 ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                 divisor_override=divisor_override)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    s = stride if stride is not None else kernel_size
    return avg_pool2d(input.unsqueeze(-2), (1, _pair(kernel_size, 1)[0]), (1, _pair(s, 1)[0]),
                      (0, _pair(padding, 1)[0]), ceil_mode, count_include_pad).squeeze(-2)


def adaptive_avg_pool2d(input, output_size):
    out = _pair(output_size)
    out = tuple(input.shape[-2 + i] if o is None else o for i, o in enumerate(out))
    if out == (1, 1) and not input._dtype.is_floating_point:  # torch's (1, 1) path is a mean
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {D.scalar_name(input._dtype)}")
    _floating(input, "adaptive_avg_pool2d")
    return apply(N.AdaptiveAvgPool2d, input, output_size=out)


def adaptive_avg_pool1d(input, output_size):
    o = _pair(output_size, 1)[0]
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, o)).squeeze(-2)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    raise NotImplementedError("F.unfold is not supported")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if mode != "nearest":
        raise NotImplementedError(f"interpolate mode {mode!r} is not supported (nearest only)")
    if not input._dtype.is_floating_point and not (input.ndim == 4 and input._dtype is D.uint8):
        raise _not_implemented("compute_indices_weights_nearest" if input.ndim == 3 else
                               f"upsample_nearest{input.ndim - 2}d_channels_last", input)
    in_sz = tuple(input.shape[2:])
    if size is None:
        sf = _pair(scale_factor, len(in_sz))
        size = tuple(int(math.floor(s * f)) for s, f in zip(in_sz, sf))
    size = _pair(size, len(in_sz))
    out = input
    for i, (si, so) in enumerate(zip(in_sz, size)):
        idx = np.floor(np.arange(so) * (si / so)).astype(np.int64)
        out = T.index_select(out, 2 + i, Tensor._wrap(idx))
    return out


# ----- normalization ------------------------------------------------------------------------------
def _norm_dtypes(kernel, input, *params, floating_first=False):
    """torch's CPU normalization kernels: floating input; parameters (weight, bias, running
    statistics) of the input's dtype, or all float32 for a float16/bfloat16 input (mixed
    precision; the result keeps the input's dtype)."""
    if floating_first:  # batch_norm checks the input's dtype before its parameters
        _floating(input, kernel)
    given = [p for p in params if p is not None]
    # torch's is_mixed_type: the first given parameter's dtype differs from the input's; then
    # the input must be float16/bfloat16 and every parameter float32
    if given and given[0]._dtype is not input._dtype:
        if input._dtype not in (D.float16, D.bfloat16, D.float32):
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        if not all(p._dtype is D.float32 for p in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    _floating(input, kernel)
    if given and given[0]._dtype is input._dtype:  # not mixed: every parameter in input's dtype
        for p in given:
            if p._dtype is not input._dtype:
                raise RuntimeError(f"expected scalar type {D.scalar_name(input._dtype)} but "
                                   f"found {D.scalar_name(p._dtype)}")


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    _norm_dtypes("LayerNormKernelImpl", input, weight, bias)
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(ns):]) != ns:
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape "
                           f"[*, {', '.join(map(str, ns))}], but got input of size"
                           f"{list(input.shape)}")
    args = [input, weight, bias]
    while args and args[-1] is None:
        args.pop()
    return apply(N.LayerNorm, *args, normalized_ndim=len(ns), eps=eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch norm; in training uses batch statistics and updates the running ones in place."""
    if input.ndim < 2:
        raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")
    params = [p for p in (weight, bias, running_mean, running_var) if p is not None]
    if training and not input._dtype.is_floating_point and not input.is_contiguous() and \
            (not params or params[0]._dtype is input._dtype):
        # torch's CPU path for a non-contiguous input, when no mixed-dtype check intervenes (its
        # mixed type is the first given of weight, bias, running_mean, running_var), starts
        # with a mean
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {D.scalar_name(input._dtype)}")
    _norm_dtypes("batch_norm", input, running_mean, running_var, weight, bias,
                 floating_first=True)
    C = input.shape[1]
    shape = (1, C) + (1,) * (input.ndim - 2)
    if training:
        n = input.numel() // C
        if n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{input.shape}")
        if running_mean is not None:  # explicit in-place updates (every mode sees them)
            prev = GradState.enabled
            GradState.enabled = False
            try:
                axes = [0] + list(range(2, input.ndim))
                x = input.detach()
                running_mean.mul_(1 - momentum).add_(x.mean(axes), alpha=momentum)
                running_var.mul_(1 - momentum).add_(x.var(axes, correction=1), alpha=momentum)
            finally:
                GradState.enabled = prev
        args = [input, weight, bias, running_mean, running_var]
        while args and args[-1] is None:
            args.pop()
        return apply(N.BatchNormTrain, *args, eps=eps)
    # torch's inference kernel: x * alpha + beta with alpha = weight / sqrt(var + eps) and
    # beta = bias - mean * alpha, in float32 for half inputs, rounded to the input's dtype; a
    # contiguous result
    wide = D.float32 if input._dtype in (D.float16, D.bfloat16) else input._dtype
    alpha = T.rsqrt(running_var.to(wide).reshape(shape) + eps)
    if weight is not None:
        alpha = alpha * weight.to(wide).reshape(shape)
    beta = -(running_mean.to(wide).reshape(shape) * alpha)
    if bias is not None:
        beta = bias.to(wide).reshape(shape) + beta
    return _in_suggested_format((input.to(wide) * alpha + beta).to(input._dtype), input)


def _in_suggested_format(y, input):
    """``y`` laid out as torch's kernels lay out a result they allocate with
    ``input.suggest_memory_format()``: channels-last for a channels-last-like 4-D input,
    contiguous otherwise."""
    from .._ops._kernel import is_channels_last
    if is_channels_last(input._data):
        return apply(E.Clone, y, channels_last=True)
    return y.contiguous()


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    _norm_dtypes("GroupNormKernelImpl", input, weight, bias)
    like = input
    input = input.contiguous()  # torch's kernel writes a contiguous result
    N_, C = input.shape[0], input.shape[1]
    if C % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(input.shape)} and num_groups="
                           f"{num_groups}")
    # each group normalized by the layer-norm kernel (statistics in float32 for half inputs, as
    # torch's group-norm kernel computes them), then the per-channel affine
    x = apply(N.LayerNorm, input.reshape(N_, num_groups, -1), normalized_ndim=1, eps=eps)
    x = x.reshape(tuple(input.shape))
    if weight is None and bias is None:  # a tensor of its own (torch's output is not a view)
        return _in_suggested_format(x, like) if like is not input else x.clone()
    shape = (1, C) + (1,) * (input.ndim - 2)
    if weight is not None:
        x = x * weight.reshape(shape)
    if bias is not None:
        x = x + bias.reshape(shape)
    return _in_suggested_format(x, like) if like is not input else x


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    _norm_dtypes("batch_norm", input, running_mean, running_var, weight, bias,
                 floating_first=True)
    # torch normalizes a contiguous (1, N*C, *) view of the input: a contiguous result
    return group_norm(input.contiguous(), input.shape[1], weight, bias, eps)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    return input / T.clamp(T.norm(input, p, dim, keepdim=True), min=eps)


# ----- embedding and encoding ---------------------------------------------------------------------
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    if max_norm is not None:
        raise NotImplementedError("embedding max_norm is not supported")
    if scale_grad_by_freq:  # would silently give unscaled gradients otherwise
        raise NotImplementedError("embedding scale_grad_by_freq is not supported")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    if not isinstance(input, Tensor):
        raise TypeError(f"embedding(): argument 'indices' (position 2) must be Tensor, not "
                        f"{type(input).__name__}")
    return apply(N.Embedding, weight, input, padding_idx=padding_idx)


def one_hot(tensor, num_classes=-1):
    return apply(N.OneHot, tensor, num_classes=num_classes)


def pad(input, pad, mode="constant", value=None):
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.ndim}")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant" and input.ndim not in {2: (2, 3), 4: (3, 4), 6: (4, 5)}.get(len(pad), ()):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if input._dtype is D.bool and mode in ("reflect", "replicate"):
        raise _not_implemented(f"{'reflection' if mode == 'reflect' else 'replication'}_pad"
                               f"{len(pad) // 2}d", input)
    if mode == "reflect":  # reflection needs padding < size (torch checks the last dims first)
        for i in range(len(pad) // 2):
            d = input.ndim - 1 - i
            if pad[2 * i] >= input.shape[d] or pad[2 * i + 1] >= input.shape[d]:
                raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the "
                                   "corresponding input dimension, but got: padding "
                                   f"({pad[2 * i]}, {pad[2 * i + 1]}) at dimension {d} of input "
                                   f"{list(input.shape)}")
    return apply(M.Pad, input, pad=tuple(int(p) for p in pad), mode=mode,
                 value=0.0 if value is None else value)


# ----- losses -------------------------------------------------------------------------------------
def _class_target(target):
    """The class-index target; torch's NLL kernels take Long (int64) or Byte (uint8) only:
    anything else raises its "expected target dtype to be Long or Byte" error."""
    if target._dtype not in (D.int64, D.uint8):
        if wafer_dtypes() and not target._dtype.is_floating_point and target._dtype is not D.bool:
            return target.to(D.int64)  # the wafer takes int32/int16 labels as they are
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{D.scalar_name(target._dtype)}")
    return target


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Cross entropy over logits; targets are class indices or class probabilities."""
    reduction = _check_reduction(reduction, size_average, reduce)
    if label_smoothing > 1.0:  # torch checks only the upper bound, with a RuntimeError
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    if tuple(target.shape) == tuple(input.shape):  # torch's rule for probability targets
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing)
    _floating(input, "log_softmax_lastdim_kernel_impl" if input.ndim <= 2 else
              "log_softmax_kernel_impl")
    t = _class_target(target)
    _check_weight_dtype(input, weight)
    return apply(N.CrossEntropy, input, t, weight=weight, ignore_index=ignore_index,
                 reduction=reduction, label_smoothing=label_smoothing)


def _cross_entropy_probs(input, target, weight, reduction, label_smoothing):
    """torch's composition for class-probability targets: ``log_softmax`` in the input's dtype,
    then ``-(logp * target * weight)`` summed, so the three promote together."""
    if not target._dtype.is_floating_point:
        raise RuntimeError("Expected floating point type for target with class probabilities, got "
                           f"{D.scalar_name(target._dtype)}")
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected target size {list(input.shape)}, got {list(target.shape)}")
    class_dim = 0 if input.ndim == 1 else 1
    n_classes = input.shape[class_dim]
    if weight is not None and (weight.ndim != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                           f"{n_classes} classes or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")
    logp = T.log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + (label_smoothing / n_classes)
    prod = logp * target
    if weight is not None:
        shape = [1] * input.ndim
        shape[class_dim] = n_classes
        prod = prod * (weight.view(shape) if input.ndim > 1 else weight)
    if reduction == "mean":
        if input.numel() == 0:
            return -prod.sum().fill_(float("nan"))
        return -prod.sum() / (input.numel() // n_classes)
    if reduction == "sum":
        return -prod.sum()
    return -prod.sum(class_dim)


def _check_weight_dtype(input, weight):
    if weight is not None and weight._dtype is not input._dtype:
        raise RuntimeError(f"expected scalar type {input.type_name()[6:-6]} but found "
                           f"{weight.type_name()[6:-6]}")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    t = _class_target(target)
    _floating(input, "nll_loss_out_frame" if input.ndim <= 2 else "nll_loss2d_forward_out_frame")
    _check_weight_dtype(input, weight)
    return apply(N.NllLoss, input, t, weight=weight, ignore_index=ignore_index,
                 reduction=reduction)


def _check_same_size(input, target, name):
    if tuple(input.shape) != tuple(target.shape):
        warn_user(f"Using a target size ({target.shape}) that is different to the input size "
                  f"({input.shape}). This will likely lead to incorrect results due to "
                  "broadcasting. Please ensure they have the same size.")


def _promoted_kernel(input, target, kernel):
    """The loss kernels' dtype rule: input and target promote; an integer or bool result has no
    kernel (torch's NotImplementedError)."""
    rt = D.result_type(input, target)
    if not rt.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{D.scalar_name(rt)}\'')
    return rt


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _check_reduction(reduction, size_average, reduce)
    _check_same_size(input, target, "mse_loss")
    rt = _promoted_kernel(input, target, "mse_cpu")
    d = input.to(rt) - target.to(rt)
    return _reduce(d * d, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    _check_same_size(input, target, "l1_loss")
    return _reduce(T.abs(input - target), reduction)


def _broadcast_pair(a, b):
    """Both operands at their broadcast shape (the loss kernels take equal shapes; the engine
    sums the gradients back)."""
    if tuple(a.shape) == tuple(b.shape):
        return a, b
    return T.broadcast_tensors(a, b)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    reduction = _check_reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _check_same_size(input, target, "smooth_l1_loss")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    rt = _promoted_kernel(input, target, "smooth_l1_cpu")
    x, y = _broadcast_pair(input.to(rt), target.to(rt))
    return apply(N.SmoothL1Loss, x, y, beta=beta, reduction=reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """torch's kernel writes into a tensor like ``input``: input and target promote, and the
    result is cast back to ``input``'s dtype (an integer input with a float target is refused)."""
    reduction = _check_reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _check_same_size(input, target, "huber_loss")
    rt = D.result_type(input, target)
    if not D.can_cast(rt, input._dtype):
        raise RuntimeError(f"result type {D.scalar_name(rt)} can't be cast to the desired output "
                           f"type {D.scalar_name(input._dtype)}")
    _promoted_kernel(input, target, "huber_cpu")
    x, y = _broadcast_pair(input.to(rt), target.to(rt))
    loss = apply(N.HuberLoss, x, y, delta=delta, reduction=reduction)
    return loss if loss._dtype is input._dtype else loss.to(input._dtype)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        weight = weight.expand(tuple(input.shape))
    if target._dtype is not input._dtype:
        raise RuntimeError(f"Found dtype {D.scalar_name(target._dtype)} but expected "
                           f"{D.scalar_name(input._dtype)}")
    _floating(input, "binary_cross_entropy")
    w = None
    if weight is not None:
        w = weight if weight._dtype is input._dtype else weight.to(input._dtype)
        w = w.detach()
    args = (input, target) if w is None else (input, target, w)
    return apply(N.BinaryCrossEntropy, *args, reduction=reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """torch's composition, in its order: ``(1 - target).mul_(input).sub_(logsigmoid(input))``
    (times ``weight`` in place): the result has ``1 - target``'s dtype, as in torch."""
    reduction = _check_reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    for name, t in (("weight", weight), ("pos_weight", pos_weight)):
        if t is not None and t.requires_grad and GradState.enabled:
            raise RuntimeError(f"The function 'binary_cross_entropy_with_logits' is not "
                               f"differentiable with respect to argument '{name}'. This input "
                               "cannot have requires_grad True.")
    if all(t is None or t._dtype.is_floating_point for t in (input, target, weight, pos_weight)):
        # floating operands: torch's fused kernel (its backward keeps infinite gradients
        # infinite); other dtypes take the composition below, which raises torch's errors
        if weight is not None:
            weight = weight.expand(input.shape)
        if pos_weight is not None:
            pos_weight = pos_weight.expand(input.shape)
        return apply(N.BinaryCrossEntropyWithLogits, input, target, weight, pos_weight,
                     reduction=reduction)
    log_sigmoid_input = logsigmoid(input)
    if pos_weight is not None:
        log_weight = (pos_weight - 1).mul(target).add_(1)
        log_sigmoid_input = log_sigmoid_input.mul_(log_weight)
    loss = (1 - target).mul_(input).sub_(log_sigmoid_input)
    if weight is not None:
        loss = loss.mul_(weight)
    return _reduce(loss, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """torch's formula: ``exp(t) * (t - x)`` (log targets) or ``xlogy(t, t) - t * x`` (0 where
    ``t == 0``, NaN where ``t < 0`` or NaN); integer inputs are refused."""
    reduction = _check_reduction(reduction, size_average, reduce) if reduction != "batchmean" \
        else "batchmean"
    if not input._dtype.is_floating_point or not target._dtype.is_floating_point:
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = T.exp(target) * (target - input)
    else:
        loss = _xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim else loss.sum()
    if reduction == "mean":
        warn_user("reduction: 'mean' divides the total loss by both the batch size and the "
                  "support size.'batchmean' divides only by the batch size, and aligns with the "
                  "KL div math definition.'mean' will be changed to behave the same as "
                  "'batchmean' in the next major release.")
    return _reduce(loss, reduction)


def _xlogy(x, y):
    """``x * log(y)``, 0 where ``x == 0`` (unless ``y`` is NaN): torch.xlogy."""
    zero = Tensor._wrap(np.zeros((), D.result_type(x, y).np))
    return T.where((x == 0) & ~T.isnan(y), zero, x * T.log(y))


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    loss = T.exp(input) - target * input if log_input else input - target * T.log(input + eps)
    if full:
        stirling = target * T.log(target) - target + 0.5 * T.log(2 * math.pi * target)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """torch's code path: ``var`` reshaped to ``input`` (one missing last dim allowed),
    ValueError for a negative entry, clamped at ``eps`` without autograd seeing the clamp."""
    if isinstance(var, (int, float)):
        var = Tensor._wrap(np.full(tuple(input.shape), var, input._dtype.np))
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    # torch checks the values in Python; inside a traced step (values exist only after it runs)
    # the check is skipped rather than read a value
    if not values_hidden() and bool(T.any(var < 0)):
        raise ValueError("var has negative entry/entries")
    var = var.clone()
    prev = GradState.enabled
    GradState.enabled = False
    try:
        var.clamp_(min=eps)
    finally:
        GradState.enabled = prev
    loss = 0.5 * (T.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    zero = Tensor._wrap(np.zeros((), input._dtype.np))
    # torch's rule, also for targets other than ±1: the hinge term wherever the target is not 1,
    # the input itself wherever it is not -1
    loss = T.where(target != 1, T.clamp(margin - input, min=0), zero) + \
        T.where(target != -1, input, zero)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    return _reduce(T.clamp(-target * (input1 - input2) + margin, min=0), reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    return _reduce(T.log1p(T.exp(-target * input)), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.mean(-1), reduction)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """torch's formulation: both inputs promote (integer ones are cast to the common floating
    dtype), broadcast, and are divided by their own norms (clamped at ``eps`` without autograd
    seeing the clamp) before the product is summed over ``dim``."""
    rt = D.result_type(x1, x2)
    if not rt.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{rt!r}".replace("torch.", ""))
    if not x1._dtype.is_floating_point:
        x1 = x1.to(rt)
    if not x2._dtype.is_floating_point:
        x2 = x2.to(rt)
    x1, x2 = T.broadcast_tensors(x1, x2)
    n1 = T.norm(x1, 2, dim, keepdim=True).clone()
    n2 = T.norm(x2, 2, dim, keepdim=True).clone()
    prev = GradState.enabled
    GradState.enabled = False
    try:
        n1.clamp_(min=eps)
        n2.clamp_(min=eps)
    finally:
        GradState.enabled = prev
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    cos = cosine_similarity(input1, input2, dim=-1)
    zero = Tensor._wrap(np.zeros((), cos._dtype.np))
    loss = T.where(target == 1, 1 - cos, zero) + T.where(target == -1, T.clamp(cos - margin, min=0),
                                                         zero)
    return _reduce(loss, reduction)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``norm(x1 - x2 + eps, p)`` over the last dim of the broadcast inputs (torch's formula)."""
    return T.norm(x1 - x2 + eps, p, max(x1.ndim, x2.ndim) - 1, keepdim)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    dp = pairwise_distance(anchor, positive, p, eps)
    dn = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dn = T.minimum(dn, pairwise_distance(positive, negative, p, eps))
    return _reduce(T.clamp(dp - dn + margin, min=0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """max(margin + d(a, p) - d(a, n), 0) for any distance ``d`` (default: pairwise_distance)."""
    reduction = _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {anchor.ndim}D, positive "
                           f"{positive.ndim}D, and negative {negative.ndim}D inputs")
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos, d_neg = dist(anchor, positive), dist(anchor, negative)
    if swap:
        d_neg = T.minimum(d_neg, dist(positive, negative))
    return _reduce(T.clamp_min(margin + d_pos - d_neg, 0), reduction)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None):
    if not (query._dtype is key._dtype is value._dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {D.cpp_name(query._dtype)} key.dtype: "
                           f"{D.cpp_name(key._dtype)} and value.dtype: "
                           f"{D.cpp_name(value._dtype)} instead.")
    if not query._dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Float but found {D.scalar_name(query._dtype)}")
    s = scale if scale is not None else 1.0 / math.sqrt(query.shape[-1])
    scores = T.matmul(query, key.transpose(-2, -1)) * s
    if is_causal:
        L, S = query.shape[-2], key.shape[-2]
        mask = Tensor._wrap(np.tril(np.ones((L, S), bool)))
        scores = scores.masked_fill(~mask, float("-inf"))
    if attn_mask is not None:
        if attn_mask._dtype is D.bool:
            scores = scores.masked_fill(~attn_mask, float("-inf"))
        else:
            scores = scores + attn_mask
    attn = softmax(scores, -1)
    if dropout_p > 0:
        attn = dropout(attn, dropout_p)
    return T.matmul(attn, value)


# ===== language-model era: attention, RMS norm, transposed convolution, resampling ===============
# (appended; each function states its torch rule)

from .._ops.conv_transpose import ConvTranspose as _ConvTranspose  # noqa: E402

__all__ += ["rms_norm", "conv_transpose1d", "conv_transpose2d", "pixel_shuffle",
            "pixel_unshuffle", "multi_head_attention_forward"]


def _scalar_like(value, dtype):
    return Tensor._wrap(np.asarray(value, dtype=dtype.np))


# ----- RMS norm -----------------------------------------------------------------------------------
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``x / sqrt(mean(x^2 over the trailing dims) + eps) * weight``.

    torch 2.13's rule: half inputs compute in float32 (their "opmath" type) and round the result
    once; ``eps=None`` is the machine epsilon of that computation type (float32's for
    float16/bfloat16/float32 inputs, float64's for float64); the result has the input's dtype.
    A weight of another dtype takes torch's unfused path, with its UserWarning.
    """
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(ns):]) != ns or len(ns) > input.ndim:
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape "
                           f"[*{', '.join(map(str, ns))}], but got input of size"
                           f"{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != ns:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{list(ns)}")
    half = input._dtype in (D.float16, D.bfloat16)
    op_dt = D.float32 if half else input._dtype
    if eps is None:
        eps = float(np.finfo(op_dt.np).eps)
    if weight is not None and weight._dtype is not input._dtype:
        warn_user(f"Mismatch dtype between input and weight: input dtype = "
                  f"{D.scalar_name(input._dtype).lower()}, weight dtype = "
                  f"{D.scalar_name(weight._dtype).lower()}, Cannot dispatch to fused "
                  "implementation.")
    x = input.to(op_dt) if half else input
    dims = tuple(range(input.ndim - len(ns), input.ndim))
    y = x * T.rsqrt((x * x).mean(dims, keepdim=True) + eps)
    if weight is not None:
        y = y * weight
    return y.to(input._dtype) if y._dtype is not input._dtype else y


# ----- transposed convolution ---------------------------------------------------------------------
def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, nd):
    if isinstance(padding, str):
        raise TypeError(f"conv_transpose{nd}d(): argument 'padding' must be tuple of ints, not "
                        "str")
    if input._dtype is not weight._dtype:
        raise RuntimeError(f"expected scalar type {D.scalar_name(input._dtype)} but found "
                           f"{D.scalar_name(weight._dtype)}")
    if bias is not None:
        c_out = weight.shape[1] * groups if weight.ndim == nd + 2 else None
        if c_out is not None and (bias.ndim != 1 or bias.shape[0] != c_out):
            raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, "
                               f"expected bias to be 1-dimensional with {c_out} elements, but "
                               f"got bias of size {list(bias.shape)} instead")
    args = (input, weight) if bias is None else (input, weight, bias)
    return apply(_ConvTranspose, *args, stride=stride, padding=padding,
                 output_padding=output_padding, groups=groups, dilation=dilation, nd=nd)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 1-D convolution (the input gradient of ``conv1d``) over (N, C_in, L) or
    (C_in, L); weight (C_in, C_out // groups, K); L_out = (L - 1) * stride - 2 * padding +
    dilation * (K - 1) + output_padding + 1."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 1)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 2-D convolution over (N, C_in, H, W) or (C_in, H, W); weight
    (C_in, C_out // groups, kH, kW); see :func:`conv_transpose1d` for the output size."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 2)


# ----- pixel shuffle ------------------------------------------------------------------------------
def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r): channel blocks become r x r spatial blocks."""
    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError("pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c, h, w = input.shape[-3:]
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible "
                           f"by the square of upscale_factor, but input.size(-3)={c} is not "
                           f"divisible by {r * r}")
    lead = tuple(input.shape[:-3])
    n = len(lead)
    x = input.reshape(lead + (c // (r * r), r, r, h, w))
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(lead + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of :func:`pixel_shuffle`."""
    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError("pixel_unshuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    c, h, w = input.shape[-3:]
    if h % r:
        raise RuntimeError("pixel_unshuffle expects height to be divisible by downscale_factor, "
                           f"but input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError("pixel_unshuffle expects width to be divisible by downscale_factor, "
                           f"but input.size(-1)={w} is not divisible by {r}")
    lead = tuple(input.shape[:-3])
    n = len(lead)
    x = input.reshape(lead + (c, h // r, r, w // r, r))
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(lead + (c * r * r, h // r, w // r))


# ----- interpolation (supersedes the nearest-only version above) ----------------------------------
_INTERP_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _interp_nearest_index(in_size, out_size, scale, exact):
    """torch's source index per output position (its float32 arithmetic)."""
    if not exact and out_size == in_size:
        return np.arange(out_size)
    if not exact and out_size == 2 * in_size:
        return np.arange(out_size) >> 1
    s = np.float32(1.0 / scale) if scale is not None and scale > 0 else \
        np.float32(in_size) / np.float32(out_size)
    i = np.arange(out_size)
    if exact:
        src = np.floor(((i + 0.5) * np.float64(s)).astype(np.float32))
    else:
        src = np.floor(i.astype(np.float32) * s)
    return np.minimum(src.astype(np.int64), in_size - 1)


def _interp_linear_weights(in_size, out_size, scale, align_corners, dt):
    """(index0, index1, lambda0, lambda1) per output position, torch's rule in ``dt``."""
    i = np.arange(out_size)
    if out_size == in_size:
        return i, i, np.ones(out_size, dt), np.zeros(out_size, dt)
    if align_corners:
        ratio = dt.type(in_size - 1) / dt.type(out_size - 1) if out_size > 1 else dt.type(0)
        src = ratio * i.astype(dt)
    else:
        ratio = dt.type(1.0 / scale) if scale is not None and scale > 0 else \
            dt.type(in_size) / dt.type(out_size)
        src = ratio * (i.astype(dt) + dt.type(0.5)) - dt.type(0.5)
        src = np.where(src < 0, dt.type(0), src).astype(dt)
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    lam1 = np.clip(src - i0.astype(dt), 0, 1).astype(dt)
    i1 = i0 + (i0 < in_size - 1)
    return i0, i1, (dt.type(1) - lam1).astype(dt), lam1


def _interp_dtype(input, mode):
    """torch's upsampling kernels: floating dtypes, and uint8 for nearest and bilinear; the
    error names the kernel (4-D: the channels-last upsample kernel, else the index helper)."""
    dt = input._dtype
    if dt.is_floating_point or mode == "area":  # area: adaptive pooling checks its own
        return
    if dt is D.uint8 and (mode in ("nearest", "nearest-exact") or
                          (mode == "bilinear" and input.ndim == 4)):
        return
    kind = "nearest" if mode in ("nearest", "nearest-exact") else "linear"
    if input.ndim == 4:
        name = f"upsample_{'nearest' if kind == 'nearest' else 'bilinear'}2d_channels_last"
    else:
        name = f"compute_indices_weights_{kind}"
    raise NotImplementedError(f'"{name}" not implemented for \'{D.scalar_name(dt)}\'')


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resample the spatial dims of (N, C, *spatial): modes nearest, nearest-exact, linear (3-D
    input), bilinear (4-D input) and area, with torch's size/scale rules and source-index
    arithmetic; the result is composed of gathers and weighted sums (exact gradients)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scales = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size of "
                    f"{size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format.")
            if not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool)
                       for s in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] "
                                "or Tuple[int, int, int], but got size with types "
                                f"{[type(s) for s in size]}")
            out_size = [int(s) for s in size]
        else:
            out_size = [int(size)] * dim
    elif scale_factor is not None:
        out_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, C, "
                    "d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and out_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        out_size = [int(input.shape[2 + i] * scales[i]) for i in range(dim)]
        scales = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes "
                         "and requires a 4-D tensor as input")
    supported = {("nearest", 3), ("nearest", 4), ("nearest", 5), ("nearest-exact", 3),
                 ("nearest-exact", 4), ("nearest-exact", 5), ("linear", 3), ("bilinear", 4),
                 ("area", 3), ("area", 4)}
    if (mode, input.ndim) not in supported:
        wrong = {"bilinear": 4, "trilinear": 5, "linear": 3}
        if mode in wrong and input.ndim in (3, 4, 5):
            raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                      f"{wrong[mode]}D input")
        if input.ndim not in (3, 4, 5) or mode not in _INTERP_MODES.split(" | "):
            raise NotImplementedError(
                "Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                f"{input.ndim}D) for the modes: {_INTERP_MODES} (got {mode})")
        raise NotImplementedError(f"interpolate mode {mode!r} on {input.ndim}-D input is not "
                                  "supported here (nearest, nearest-exact, linear, bilinear and "
                                  "area are)")
    if antialias:
        raise NotImplementedError("interpolate(antialias=True) is not supported")
    _interp_dtype(input, mode)
    in_size = [int(s) for s in input.shape[2:]]
    if out_size is None:
        out_size = [int(math.floor(s * f)) for s, f in zip(in_size, scales)]
    if any(o <= 0 for o in out_size):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({', '.join(f'{k}: {v}' for k, v in zip('DHW'[-dim:], in_size))}) "
                           f"output ({', '.join(f'{k}: {v}' for k, v in zip('DHW'[-dim:], out_size))})")
    if mode == "area":
        return (adaptive_avg_pool1d if dim == 1 else adaptive_avg_pool2d)(input, out_size)
    sc = scales if scales is not None else [None] * dim
    out = input
    if mode in ("nearest", "nearest-exact"):
        for i in range(dim):
            idx = _interp_nearest_index(in_size[i], out_size[i], sc[i], mode == "nearest-exact")
            out = T.index_select(out, 2 + i, Tensor._wrap(idx))
        return _in_suggested_format(out, input) if input.ndim == 4 else out
    half = input._dtype in (D.float16, D.bfloat16)
    if half:  # torch's CPU kernel interpolates half inputs in float32
        out = out.float()
    dt = out._dtype.np
    for i in range(dim):
        i0, i1, l0, l1 = _interp_linear_weights(in_size[i], out_size[i], sc[i], align_corners,
                                                np.dtype(dt))
        shape = [1] * input.ndim
        shape[2 + i] = out_size[i]
        a = T.index_select(out, 2 + i, Tensor._wrap(i0))
        b = T.index_select(out, 2 + i, Tensor._wrap(i1))
        out = a * Tensor._wrap(l0.reshape(shape)) + b * Tensor._wrap(l1.reshape(shape))
    out = out.to(input._dtype) if half else out
    return _in_suggested_format(out, input) if input.ndim == 4 else out


# ----- attention ----------------------------------------------------------------------------------
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """softmax(q k^T * scale + bias) v (torch 2.13's rule, our composition of it).

    ``scale`` defaults to 1/sqrt(E); ``is_causal`` masks with the top-left aligned lower triangle
    of an (L, S) matrix; a bool ``attn_mask`` keeps True positions, a float one (float32 or the
    query's dtype) is added; both may be given. ``enable_gqa`` repeats each key/value head for
    ``Hq // Hkv`` query heads. A row that masks every key gives zeros (torch's safe softmax),
    with zero gradients. ``dropout_p`` drops attention weights (always: the caller passes 0
    outside training).
    """
    if not (query._dtype is key._dtype is value._dtype):
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {_cpp_dtype(query)} key.dtype: {_cpp_dtype(key)} and "
                           f"value.dtype: {_cpp_dtype(value)} instead.")
    if attn_mask is not None and attn_mask._dtype not in (D.bool, D.float32, query._dtype):
        raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query "
                           f"dtype, but got attn_mask.dtype: {_cpp_dtype(attn_mask)} and  "
                           f"query.dtype: {_cpp_dtype(query)} instead.")
    if enable_gqa:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hq % hk or hq % hv:
            raise RuntimeError("Number of heads in key and value must divide the number of heads "
                               "in ")
        if hk != hq:
            key = T.repeat_interleave(key, hq // hk, dim=-3)
        if hv != hq:
            value = T.repeat_interleave(value, hq // hv, dim=-3)
    s = scale if scale is not None else 1.0 / math.sqrt(query.shape[-1])
    scores = T.matmul(query, key.transpose(-2, -1)) * s
    L, S = query.shape[-2], key.shape[-2]
    if is_causal:
        keep = Tensor._wrap(np.tril(np.ones((L, S), bool)))
        scores = T.where(keep, scores, _scalar_like(float("-inf"), scores._dtype))
    if attn_mask is None:
        attn = softmax(scores, -1)
    else:
        if attn_mask._dtype is D.bool:
            scores = T.where(attn_mask, scores, _scalar_like(float("-inf"), scores._dtype))
        else:
            scores = scores + attn_mask
        # rows that mask every key: zeros, not NaN (softmax over finite stand-in values, then 0)
        dead = T.all(scores == float("-inf"), -1, keepdim=True)
        zero = _scalar_like(0.0, scores._dtype)
        attn = T.where(dead, zero, softmax(T.where(dead, zero, scores), -1))
    if dropout_p > 0:
        attn = dropout(attn, dropout_p)
    return T.matmul(attn, value)


def _cpp_dtype(t):
    """How torch's C++ messages print a dtype (``float``, ``double``, ``long int``, ...)."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int", "int16": "short int",
            "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}.get(
        t._dtype.name, t._dtype.name)


def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask becomes a float mask of ``target_type`` (-inf where True, 0 elsewhere);
    float masks pass through; other dtypes raise. Mixed mask dtypes warn (deprecated in torch)."""
    if mask is None:
        return None
    is_float = mask._dtype.is_floating_point
    if mask._dtype is not D.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask._dtype is not other_type:
        warn_user(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same "
                  "type for both instead.")
    if not is_float:
        mask = T.where(mask, _scalar_like(float("-inf"), target_type),
                       _scalar_like(0.0, target_type))
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    if query.ndim == 3:
        if key.ndim != 3 or value.ndim != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D "
                                 f"but found {key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 2-D but found {key_padding_mask.ndim}-D tensor "
                                 "instead")
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, "
                                 f"2-D or 3-D but found {attn_mask.ndim}-D tensor instead")
        return True
    if query.ndim == 2:
        if key.ndim != 2 or value.ndim != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be "
                                 f"2-D but found {key.ndim}-D and {value.ndim}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 1-D but found {key_padding_mask.ndim}-D tensor "
                                 "instead")
        if attn_mask is not None:
            if attn_mask.ndim not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be "
                                     f"`None`, 2-D or 3-D but found {attn_mask.ndim}-D tensor "
                                     "instead")
            if attn_mask.ndim == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                         f"{attn_mask.shape}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.ndim}-D query tensor")


def _in_projection_packed(q, k, v, w, b=None):
    E = q.shape[-1]
    if k is v:
        if q is k:  # self-attention: one projection, split into q, k, v
            proj = linear(q, w, b).unflatten(-1, (3, E))
            return proj.select(-2, 0), proj.select(-2, 1), proj.select(-2, 2)
        w_q, w_kv = T.split(w, [E, 2 * E])
        b_q, b_kv = (None, None) if b is None else T.split(b, [E, 2 * E])
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, E))
        return linear(q, w_q, b_q), kv.select(-2, 0), kv.select(-2, 1)
    w_q, w_k, w_v = T.chunk(w, 3)
    b_q, b_k, b_v = (None, None, None) if b is None else T.chunk(b, 3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    Eq, Ek, Ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for name, w, shape in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)),
                           ("value", w_v, (Eq, Ev))):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {name} weights shape of {shape}, but got {w.shape}")
    for name, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (Eq,):
            raise AssertionError(f"expecting {name} bias shape of {(Eq,)}, but got {b.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p,
                                 out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """torch's multi-head attention on (L, N, E) query and (S, N, E_k/E_v) key/value (or
    unbatched (L, E)): in-projection, optional bias_k/bias_v and zero-attention rows, masks merged
    into one additive float mask, per-head scaled dot-product attention, out-projection.

    With ``need_weights`` the weights are computed explicitly (q scaled by 1/sqrt(head_dim),
    plain softmax: a row that masks every key is NaN, as in torch) and returned per head or
    averaged; without, :func:`scaled_dot_product_attention` runs (and ``is_causal`` may replace the
    mask, as in torch).
    """
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query._dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the hint replaces the mask (sdpa's is_causal below)
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query._dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
        for n, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {n}_proj_weight is "
                                     "None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else T.chunk(in_proj_bias, 3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight,
                                 b_q, b_k, b_v)
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {key.shape} does not match value shape "
                                 f"{value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = T.cat([k, bias_k.repeat(1, bsz, 1)])
        v = T.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_k.shape[0] != bsz * num_heads:
            raise AssertionError(f"expecting static_k.size(0) of {bsz * num_heads}, but got "
                                 f"{static_k.shape[0]}")
        if static_k.shape[2] != head_dim:
            raise AssertionError(f"expecting static_k.size(2) of {head_dim}, but got "
                                 f"{static_k.shape[2]}")
        k = static_k
    if static_v is None:
        v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_v.shape[0] != bsz * num_heads:
            raise AssertionError(f"expecting static_v.size(0) of {bsz * num_heads}, but got "
                                 f"{static_v.shape[0]}")
        if static_v.shape[2] != head_dim:
            raise AssertionError(f"expecting static_v.size(2) of {head_dim}, but got "
                                 f"{static_v.shape[2]}")
        v = static_v
    if add_zero_attn:
        zeros = Tensor._wrap(np.zeros((bsz * num_heads, 1, head_dim), k._dtype.np))
        k = T.cat([k, zeros], dim=1)
        v = T.cat([v, zeros.to(v._dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(
            -1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        E = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(E))
        scores = T.bmm(q_scaled, k.transpose(-2, -1))
        if attn_mask is not None:
            scores = attn_mask + scores
        weights = softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = T.bmm(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.reshape(tgt_len, bsz, out.shape[1])
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.ndim == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.reshape(tgt_len, bsz, out.shape[1])
    if not is_batched:
        out = out.squeeze(1)
    return out, None


# ----- in-place spellings torch also exports ---------------------------------------------------------
def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def selu_(input):
    return selu(input, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def threshold_(input, threshold, value):
    return globals()["threshold"](input, threshold, value, inplace=True)


__all__ += ["elu_", "celu_", "selu_", "hardtanh_", "leaky_relu_", "threshold_"]


def __dir__():
    """The public names only (torch's module shows its API, not our helpers and imports)."""
    return sorted(set(__all__) | {"__doc__", "__file__", "__name__", "__package__", "__spec__"})
