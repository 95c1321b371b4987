"""``torch.nn.functional``: activations, losses, normalization, convolution, pooling, dropout."""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .. import _functions as T
from .._autograd import GradState
from .._dispatch import apply
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
    """y = input @ weight^T + bias."""
    if bias is None:
        return apply(LA.Linear, input, weight)
    return apply(LA.Linear, input, weight, bias)


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


def relu(input, inplace=False):
    return input.relu_() if inplace else apply(E.Relu, input)


def relu_(input):
    return input.relu_()


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def gelu(input, approximate="none"):
    if approximate == "tanh":
        return apply(E.GeluTanh, input)
    if approximate != "none":
        raise RuntimeError(f"approximate argument must be either none or tanh.")
    return apply(E.Gelu, input)


def silu(input, inplace=False):
    return apply(E.Silu, input)


def mish(input, inplace=False):
    return input * T.tanh(softplus(input))


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return apply(E.LeakyRelu, input, negative_slope=negative_slope)


def elu(input, alpha=1.0, inplace=False):
    return apply(E.Elu, input, alpha=alpha)


def selu(input, inplace=False):
    scale, alpha = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717
    return scale * apply(E.Elu, input, alpha=alpha)


def celu(input, alpha=1.0, inplace=False):
    return T.clamp(input, min=0) + T.clamp(alpha * T.expm1(T.clamp(input, max=0) / alpha), max=0)


def softplus(input, beta=1.0, threshold=20.0):
    return apply(E.Softplus, input, beta=beta, threshold=threshold)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if inplace:
        return input.clamp_(min_val, max_val)
    return apply(E.Clamp, input, lo=min_val, hi=max_val)


def hardsigmoid(input, inplace=False):
    return hardtanh(input / 6 + 0.5, 0.0, 1.0)


def hardswish(input, inplace=False):
    return input * hardsigmoid(input)


def sigmoid(input):
    return apply(E.Sigmoid, input)


def tanh(input):
    return apply(E.Tanh, input)


def logsigmoid(input):
    return -softplus(-input)


def softsign(input):
    return input / (1 + T.abs(input))


def tanhshrink(input):
    return input - T.tanh(input)


def threshold(input, threshold, value, inplace=False):
    return T.where(input > threshold, input, Tensor._wrap(np.asarray(value, input._dtype.np)))


def glu(input, dim=-1):
    a, b = T.chunk(input, 2, dim)
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


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    args = (input, weight) if bias is None else (input, weight, bias)
    return apply(N.Conv, *args, stride=stride, padding=padding, dilation=dilation, groups=groups,
                 nd=2)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
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
    s = stride if stride is not None else kernel_size
    y = max_pool2d(input.unsqueeze(-2), (1, _pair(kernel_size, 1)[0]), (1, _pair(s, 1)[0]),
                   (0, _pair(padding, 1)[0]), (1, _pair(dilation, 1)[0]), ceil_mode, return_indices)
    if return_indices:
        return y[0].squeeze(-2), y[1].squeeze(-2)
    return y.squeeze(-2)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
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
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
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
    C = input.shape[1]
    shape = (1, C) + (1,) * (input.ndim - 2)
    if training:
        n = input.numel() // C
        if n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{input.shape}")
        args = [input, weight, bias]
        while args and args[-1] is None:
            args.pop()
        out = apply(N.BatchNormTrain, *args, eps=eps)
        if running_mean is not None:
            prev = GradState.enabled
            GradState.enabled = False
            try:
                axes = [0] + list(range(2, input.ndim))
                x = input.detach()
                mean = x.mean(axes)
                var = x.var(axes, correction=1)
                running_mean.mul_(1 - momentum).add_(mean, alpha=momentum)
                running_var.mul_(1 - momentum).add_(var, alpha=momentum)
            finally:
                GradState.enabled = prev
        return out
    out = (input - running_mean.reshape(shape)) / T.sqrt(running_var.reshape(shape) + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    N_, C = input.shape[0], input.shape[1]
    x = input.reshape(N_, num_groups, -1)
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True, correction=0)
    x = ((x - mean) / T.sqrt(var + eps)).reshape(tuple(input.shape))
    shape = (1, C) + (1,) * (input.ndim - 2)
    if weight is not None:
        x = x * weight.reshape(shape)
    if bias is not None:
        x = x + bias.reshape(shape)
    return x


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    return group_norm(input, input.shape[1], weight, bias, eps)


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
    return apply(N.Embedding, weight, input._data if isinstance(input, Tensor) else np.asarray(input),
                 padding_idx=padding_idx)


def one_hot(tensor, num_classes=-1):
    return apply(N.OneHot, tensor, num_classes=num_classes)


def pad(input, pad, mode="constant", value=None):
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           "dimension")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
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
    if target._dtype.is_floating_point:
        return None
    if target._dtype not in (D.int64, D.int32, D.int16, D.int8, D.uint8):
        raise RuntimeError(f"expected scalar type Long but found {target._dtype.name.capitalize()}")
    return target._data


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Cross entropy over logits; targets are class indices or class probabilities."""
    reduction = _check_reduction(reduction, size_average, reduce)
    if label_smoothing > 1.0:  # torch checks only the upper bound, with a RuntimeError
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    w = weight._data if weight is not None else None
    t = _class_target(target)
    if t is None:
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(f"Expected target size {list(input.shape)}, got {list(target.shape)}")
        # probability targets: torch composes ops, so input, target and weight promote together
        rt = D.result_type(input, target, *([weight] if weight is not None else []))
        input, target = input.to(rt), target.to(rt)
        w = w.astype(rt.np, copy=False) if w is not None else None
        return apply(N.CrossEntropyProbs, input, target, weight=w, reduction=reduction,
                     label_smoothing=label_smoothing)
    _check_weight_dtype(input, weight)
    return apply(N.CrossEntropy, input, t, weight=w, ignore_index=ignore_index,
                 reduction=reduction, label_smoothing=label_smoothing)


def _check_weight_dtype(input, weight):
    if weight is not None and weight._dtype is not input._dtype:
        raise RuntimeError(f"expected scalar type {input.type_name()[6:-6]} but found "
                           f"{weight.type_name()[6:-6]}")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    t = _class_target(target)
    if t is None:
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{target._dtype.name.capitalize().rstrip('0123456789')}")
    _check_weight_dtype(input, weight)
    return apply(N.NllLoss, input, t, weight=weight._data if weight is not None else None,
                 ignore_index=ignore_index, reduction=reduction)


def _check_same_size(input, target, name):
    if tuple(input.shape) != tuple(target.shape):
        warn_user(f"Using a target size ({target.shape}) that is different to the input size "
                  f"({input.shape}). This will likely lead to incorrect results due to "
                  "broadcasting. Please ensure they have the same size.")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _check_reduction(reduction, size_average, reduce)
    _check_same_size(input, target, "mse_loss")
    d = input - target
    return _reduce(d * d, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    _check_same_size(input, target, "l1_loss")
    return _reduce(T.abs(input - target), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    reduction = _check_reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _check_same_size(input, target, "smooth_l1_loss")
    d = T.abs(input - target)
    if beta == 0:
        return _reduce(d, reduction)
    loss = T.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    return _reduce(loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    reduction = _check_reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _check_same_size(input, target, "huber_loss")
    d = T.abs(input - target)
    loss = T.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    return _reduce(loss, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    data = input._data
    if np.any((data < 0) | (data > 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    # torch clamps the log terms at -100 so that log(0) stays finite
    logp = T.clamp(T.log(input), min=-100)
    log1mp = T.clamp(T.log(1 - input), min=-100)
    loss = -(target * logp + (1 - target) * log1mp)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    reduction = _check_reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    # log(1 + exp(-x)) computed stably as softplus(-x)
    sp_neg = softplus(-input, 1.0, 1e30)
    if pos_weight is not None:
        lw = 1 + (pos_weight - 1) * target
        loss = (1 - target) * input + lw * sp_neg
    else:
        loss = (1 - target) * input + sp_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    reduction = _check_reduction(reduction, size_average, reduce) if reduction != "batchmean" \
        else "batchmean"
    if log_target:
        loss = T.exp(target) * (target - input)
    else:
        loss = T.where(target > 0, target * (T.log(T.clamp(target, min=1e-45)) - input),
                       Tensor._wrap(np.zeros((), input._dtype.np)))
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim else loss.sum()
    if reduction == "mean":
        warn_user("reduction: 'mean' divides the total loss by both the batch size and the "
                  "support size.'batchmean' divides only by the batch size, and aligns with the "
                  "KL div math definition.'mean' will be changed to behave the same as "
                  "'batchmean' in the next major release.")
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    loss = T.exp(input) - target * input if log_input else input - target * T.log(input + eps)
    if full:
        st = target * T.log(T.clamp(target, min=1)) - target + 0.5 * T.log(2 * math.pi *
                                                                          T.clamp(target, min=1))
        loss = loss + T.where(target > 1, st, Tensor._wrap(np.zeros((), input._dtype.np)))
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    reduction = _check_reduction(reduction)
    v = T.clamp(var, min=eps)
    loss = 0.5 * (T.log(v) + (input - target) ** 2 / v)
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
    n1 = T.clamp(T.norm(x1, 2, dim), min=eps)
    n2 = T.clamp(T.norm(x2, 2, dim), min=eps)
    return (x1 * x2).sum(dim) / (n1 * n2)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    cos = cosine_similarity(input1, input2, dim=-1)
    zero = Tensor._wrap(np.zeros((), cos._dtype.np))
    loss = T.where(target == 1, 1 - cos, zero) + T.where(target == -1, T.clamp(cos - margin, min=0),
                                                         zero)
    return _reduce(loss, reduction)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return T.norm(x1 - x2 + eps, p, -1, keepdim)


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
