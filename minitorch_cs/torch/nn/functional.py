"""``torch.nn.functional``: activations, losses, normalization, convolution, pooling, dropout."""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .. import _functions as T
from .._autograd import also_checked, no_grad, torch_named
from .._dispatch import also_saved, apply, read_value
from .._fpe import warn_user
from .._ops import elementwise as E
from .._ops import nn as N
from .._ops import movement as M
from .._kernels.fold import blocks
from .._tensor import Tensor, _size, _wrap_dim

__all__ = [
    "linear", "bilinear", "relu", "relu_", "relu6", "gelu", "silu", "mish", "leaky_relu", "elu",
    "selu", "celu", "softplus", "hardtanh", "hardsigmoid", "hardswish", "sigmoid", "tanh",
    "logsigmoid", "softsign", "tanhshrink", "threshold", "hardshrink", "softshrink", "prelu",
    "glu", "dropout", "dropout1d", "dropout2d",
    "alpha_dropout", "softmax", "softmin", "log_softmax", "conv1d", "conv2d", "max_pool1d",
    "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
    "adaptive_max_pool1d", "adaptive_max_pool2d",
    "layer_norm", "batch_norm", "group_norm", "instance_norm", "normalize", "embedding", "one_hot",
    "embedding_bag",
    "pad", "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "cosine_similarity",
    "pairwise_distance", "poisson_nll_loss", "gaussian_nll_loss", "hinge_embedding_loss",
    "margin_ranking_loss", "soft_margin_loss", "cosine_embedding_loss", "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
    "multilabel_soft_margin_loss", "interpolate", "unfold", "fold",
    "scaled_dot_product_attention",
]

from ._functional_base import *  # noqa: F401,F403
from ._functional_base import _not_implemented, _floating, not_differentiable
from ._functional_losses import *  # noqa: F401,F403
from ._functional_attention import *  # noqa: F401,F403
from ._functional_attention import _canonical_mask, _none_or_dtype  # noqa: F401 (modules use)
from ._functional_embedding import embedding_bag, embedding_freq as _embedding_freq
from . import _functional_attention, _functional_base, _functional_embedding, _functional_losses

for _m in (_functional_base, _functional_losses, _functional_attention, _functional_embedding):
    for _name in _m.__all__:  # one public module, as torch's: functions report it as theirs
        getattr(_m, _name).__module__ = __name__
del _m, _name

from ._functional_pool3d import *  # noqa: F401,F403 (conv3d and the volumetric pools)
from . import _functional_pool3d

for _name in _functional_pool3d.__all__:
    getattr(_functional_pool3d, _name).__module__ = __name__
__all__ += _functional_pool3d.__all__
del _name


# ----- convolution and pooling --------------------------------------------------------------------
def _pair(v, n=2):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    _functional_pool3d.conv_checks(input, weight, bias, stride, padding, dilation, groups, 2)
    args = (input, weight) if bias is None else (input, weight, bias)
    return apply(N.Conv, *args, stride=stride, padding=padding, dilation=dilation, groups=groups,
                 nd=2)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    _functional_pool3d.conv_checks(input, weight, bias, stride, padding, dilation, groups, 1)
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


def _pool1d_rank(input, name):
    """torch's ``checkDimRange`` of the 1-d pools: a 2-D or 3-D input."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor "
                           f"for argument #1 'self' (while checking arguments for {name})")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if return_indices:
        _pool1d_rank(input, "max_pool1d")
    elif input.ndim not in (2, 3):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim "
                           f"batch size for input, but got:{list(input.shape)}")
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
    _size(input, -3)  # torch reads the channels first
    if not input._dtype.is_floating_point and input._dtype is not D.int64:
        raise _not_implemented("avg_pool2d", input)
    return apply(N.AvgPool2d, input, kernel_size=kernel_size, stride=stride, padding=padding,
                 ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                 divisor_override=divisor_override)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    _pool1d_rank(input, "avg_pool1d")
    s = stride if stride is not None else kernel_size
    return avg_pool2d(input.unsqueeze(-2), (1, _pair(kernel_size, 1)[0]), (1, _pair(s, 1)[0]),
                      (0, _pair(padding, 1)[0]), ceil_mode, count_include_pad).squeeze(-2)


def adaptive_avg_pool2d(input, output_size):
    if isinstance(output_size, (tuple, list)) and input.ndim <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    out = _pair(output_size)
    out = tuple(input.shape[-2 + i] if o is None else o for i, o in enumerate(out))
    if out == (1, 1) and not input._dtype.is_floating_point:  # torch's (1, 1) path is a mean
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {D.scalar_name(input._dtype)}")
    if out == (1, 1) and input.ndim not in (3, 4):  # the mean over the last two dims, any rank
        return T.mean(input, (-1, -2), keepdim=True)
    _floating(input, "adaptive_avg_pool2d")
    return apply(N.GlobalAvgPool2d if out == (1, 1) else N.AdaptiveAvgPool2d, input,
                 output_size=out)


def adaptive_avg_pool1d(input, output_size):
    _pool1d_rank(input, "adaptive_avg_pool1d")
    o = _pair(output_size, 1)[0]
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, o)).squeeze(-2)


def _list_with_default(out_size, defaults):
    """torch's ``_list_with_default``: a number as it is; a sequence of sizes, ``None`` taking
    the input's size there (the input must have more dims than the sequence has entries)."""
    if isinstance(out_size, int) and not isinstance(out_size, bool):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def _int_sizes(sizes, fname, n):
    """``sizes`` as torch's argument parser reads an ``int[n]`` (one int fills every entry)."""
    if isinstance(sizes, int) and not isinstance(sizes, bool):
        return (sizes,) * n
    for i, v in enumerate(sizes):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"{fname}(): argument 'output_size' (position 2) must be tuple of "
                            f"ints, but found element of type {type(v).__name__} at pos {i}")
    return tuple(sizes)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The largest value of each adaptive window (torch's ``floor``/``ceil`` bins) and, with
    ``return_indices``, its int64 offset in the H*W plane; floating dtypes only."""
    out = _int_sizes(_list_with_default(output_size, tuple(input.shape)), "adaptive_max_pool2d",
                     2)
    if len(out) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    from .._kernels.avgpool import _adaptive_check
    _adaptive_check(input.shape, "adaptive_max_pool2d")
    if min(out) < 0:
        shape = list(input.shape[:-2]) + list(out)
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: {shape}")
    if not input._dtype.is_floating_point:
        raise _not_implemented("adaptive_max_pool2d", input)
    y, idx = apply(N.AdaptiveMaxPool2d, input, output_size=out)
    return (y, idx) if return_indices else y


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """``adaptive_max_pool2d`` of the input with a height of 1 (torch's composition)."""
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 1:
            raise RuntimeError("adaptive_max_pool1d() argument 'output_size' should contain one "
                               f"int (got {len(output_size)})")
        output_size = output_size[0]
    if not isinstance(output_size, int) or isinstance(output_size, bool):
        raise TypeError("adaptive_max_pool1d(): argument 'output_size' (position 2) must be "
                        f"tuple of ints, not {type(output_size).__name__}")
    _pool1d_rank(input, "adaptive_max_pool1d")
    y, idx = adaptive_max_pool2d(input.unsqueeze(-2), (1, output_size), return_indices=True)
    return (y.squeeze(-2), idx.squeeze(-2)) if return_indices else y.squeeze(-2)


def _fold_pairs(**args):
    """torch's ``_pair`` of each argument, then its check that each has two entries."""
    out = []
    for name, v in args.items():
        v = _pair(v)
        if len(v) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
        out.append(tuple(int(i) for i in v))
    return out


def _fold_params(k, d, p, s, stride_first=False):
    """torch's im2col/col2im argument checks, in each one's order (col2im checks the stride
    before the dilation)."""
    checks = [("kernel size should be greater than zero", "kernel", k, k[0] > 0 and k[1] > 0),
              ("dilation should be greater than zero", "dilation", d, d[0] > 0 and d[1] > 0),
              ("padding should be non-negative", "pad", p, p[0] >= 0 and p[1] >= 0),
              ("stride should be greater than zero", "stride", s, s[0] > 0 and s[1] > 0)]
    if stride_first:
        checks = [checks[0], checks[3], checks[1], checks[2]]
    for msg, name, v, ok in checks:
        if not ok:
            raise RuntimeError(f"{msg}, but got {name}_height: {v[0]} {name}_width: {v[1]}")


def _fold_dtype(input, kernel):
    if not (input.dtype.is_floating_point or input.dtype is D.bool):
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{D.scalar_name(input.dtype)}'")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding ``kernel_size`` blocks of a batched (N, C, H, W) or unbatched (C, H, W)
    image as columns: (N, C * kh * kw, L), rows ordered by channel then kernel offset."""
    k, d, p, s = _fold_pairs(kernel_size=kernel_size, dilation=dilation, padding=padding,
                             stride=stride)
    _fold_params(k, d, p, s)
    shape = input.shape
    for i in (1, 2):  # (torch reads these sizes before it checks the rank)
        _wrap_dim(i, input.ndim)
    if not ((input.ndim == 3 and shape[0] and shape[1] and shape[2]) or
            (input.ndim == 4 and shape[1] and shape[2] and shape[3])):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {list(shape)}")
    h, w = shape[-2:]
    ho, wo = blocks(h, k[0], d[0], p[0], s[0]), blocks(w, k[1], d[1], p[1], s[1])
    if ho < 1 or wo < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size=({k[0]}, "
                           f"{k[1]}), dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), "
                           f"calculated shape of the array of sliding blocks as ({ho}, {wo}), "
                           "but its components must be at least one.")
    _fold_dtype(input, "im2col_out_cpu")
    return apply(M.Im2Col, input, kernel_size=k, dilation=d, padding=p, stride=s)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Columns (N, C * kh * kw, L) or (C * kh * kw, L) summed into an image of spatial size
    ``output_size``: the adjoint of ``unfold`` (overlapping blocks add up)."""
    o, k, d, p, s = _fold_pairs(output_size=output_size, kernel_size=kernel_size,
                                dilation=dilation, padding=padding, stride=stride)
    _fold_params(k, d, p, s, stride_first=True)
    shape = input.shape
    if not ((input.ndim == 2 and shape[0] and shape[1]) or
            (input.ndim == 3 and shape[1] and shape[2])):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch "
                           f"size and non-zero dimensions for input, but got: {list(shape)}")
    planes, length = shape[-2], shape[-1]
    if planes % (k[0] * k[1]):
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={planes} and "
                           f"kernel_size=({k[0]}, {k[1]}).")
    bh, bw = blocks(o[0], k[0], d[0], p[0], s[0]), blocks(o[1], k[1], d[1], p[1], s[1])
    given = (f"Given output_size=({o[0]}, {o[1]}), kernel_size=({k[0]}, {k[1]}), dilation=("
             f"{d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), ")
    if length != bh * bw:
        raise RuntimeError(given + "expected size of input's dimension 2 to match the calculated "
                           f"number of sliding blocks {bh} * {bw} = {bh * bw}, but got "
                           f"input.size(2)={length}.")
    if bh < 1 or bw < 1:
        raise RuntimeError(given + f"calculated shape of the array of sliding blocks as ({bh}, "
                           f"{bw}), which is too small (non-positive)")
    if o[0] < 1 or o[1] < 1:
        raise RuntimeError("Expected output spatial size to be positive, but got: output_size=("
                           f"{o[0]}, {o[1]}).")
    _fold_dtype(input, "col2im_out_cpu")
    return apply(M.Col2Im, input, output_size=o, kernel_size=k, dilation=d, padding=p,
                 stride=s)


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
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                               f"{name} of shape {list(t.shape)} and normalized_shape = {list(ns)}")
    args = [input, weight, bias]
    while args and args[-1] is None:
        args.pop()
    return apply(N.LayerNorm, *args, normalized_ndim=len(ns), eps=eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch norm; in training uses batch statistics and updates the running ones in place."""
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(f"running_{'mean' if running_mean is None else 'var'} must be defined "
                           "in evaluation mode")
    if input.ndim < 2:  # torch 2.13's functional (the modules check the rank first)
        if training and input.ndim == 0:
            raise IndexError("tuple index out of range")  # (its batch-size check reads size[0])
        if training and input.shape[0] == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {input.shape}")
        if not training:
            raise RuntimeError(f"running_mean should contain 0 elements not "
                               f"{running_mean.numel()}")
        _wrap_dim(1, input.ndim)  # the kernel reads the channels: IndexError
    params = [p for p in (weight, bias, running_mean, running_var) if p is not None]
    if training and not input._dtype.is_floating_point and not input.is_contiguous() and \
            (not params or params[0]._dtype is input._dtype):
        # torch's CPU path for a non-contiguous input, when no mixed-dtype check intervenes (its
        # mixed type is the first given of weight, bias, running_mean, running_var), starts
        # with a mean
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {D.scalar_name(input._dtype)}")
    not_differentiable("native_batch_norm", running_mean=running_mean, running_var=running_var)
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
            with no_grad():
                axes = [0] + list(range(2, input.ndim))
                x = input.detach()
                # torch updates half-precision statistics in float32, rounded once (a variance
                # beyond float16's range still moves the running one finitely)
                half = {x._dtype, running_mean._dtype} & {D.float16, D.bfloat16}
                x = x.to(D.float32) if half else x
                for r, stat in ((running_mean, x.mean(axes)),
                                (running_var, x.var(axes, correction=1))):
                    if half:
                        r.copy_(r.to(D.float32).mul_(1 - momentum).add_(stat, alpha=momentum))
                    else:
                        r.mul_(1 - momentum).add_(stat, alpha=momentum)
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
    y = _in_suggested_format((input.to(wide) * alpha + beta).to(input._dtype), input)
    # (torch's batch-norm node saves them, and the weight)
    return torch_named(also_saved(y, *(t for t in (input, running_mean, running_var, weight)
                                       if t is not None)), "NativeBatchNormBackward0", input)


def _in_suggested_format(y, input):
    """``y`` laid out as torch's kernels lay out a result they allocate with
    ``input.suggest_memory_format()``: channels-last for a channels-last-like 4-D input,
    contiguous otherwise."""
    from .._ops._kernel import is_channels_last
    if is_channels_last(input._data):
        return apply(E.Clone, y, channels_last=True)
    return y.contiguous()


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
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
    x = apply(N.LayerNorm, input.reshape(N_, num_groups, -1), normalized_ndim=1, eps=eps,
              fused_half=False)
    x = x.reshape(tuple(input.shape))
    if weight is None and bias is None:  # a tensor of its own (torch's output is not a view)
        return torch_named(_in_suggested_format(x, like) if like is not input else x.clone(),
                           "NativeGroupNormBackward0", like)
    shape = (1, C) + (1,) * (input.ndim - 2)
    if weight is not None:
        x = x * weight.reshape(shape)
    if bias is not None:
        x = x + bias.reshape(shape)
    # (torch's node saves the input for every gradient: the weight's reads it too)
    return torch_named(also_checked(_in_suggested_format(x, like) if like is not input else x,
                                    like), "NativeGroupNormBackward0", like)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0) -> Tensor

    Normalize each element by the mean of the squares of ``size`` neighbouring channels
    (zero-padded: ``size // 2`` before, ``(size - 1) // 2`` after): ``input / (k + alpha *
    mean) ** beta``, torch 2.13's composition (the squares' channel window averaged by a pool
    over the channel dim, then ``mul(alpha).add(k).pow(beta)``); an empty input is returned
    as it is. A 3-D or deeper input only; beyond 3-D no half-precision dtype (torch's 3-D
    pool has no kernel for them).
    """
    dim = input.ndim
    if dim < 3:  # (torch's message, its run of spaces included)
        raise ValueError(f"Expected 3D or higher dimensionality{' ' * 26}input (got {dim} "
                         "dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    sizes = tuple(input.shape)
    # torch pools a 3-D input's squares with avg_pool2d over (channels, length) and a deeper
    # one's with avg_pool3d over (channels, dim 2, the rest), which has no half kernel
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """torch's composition: batch norm of the contiguous ``(1, N*C, *)`` view of the input,
    with ``weight``/``bias`` and the running statistics repeated per sample; the running
    statistics (when given) are then set to the mean over the batch of the updated copies.
    So half inputs keep their statistics rounded to the half dtype, as batch norm does."""
    if use_input_stats:
        size = input.shape
        spatial = 1
        for n in size[2:]:
            spatial *= n
        if spatial == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {list(size)}")
    _norm_dtypes("batch_norm", input, running_mean, running_var, weight, bias,
                 floating_first=True)
    b, c = input.shape[0], input.shape[1]
    x = input.contiguous().view((1, b * c) + tuple(input.shape[2:]))
    rep = [None if t is None else t.repeat(b) for t in (weight, bias, running_mean, running_var)]
    out = batch_norm(x, rep[2], rep[3], rep[0], rep[1], training=use_input_stats,
                     momentum=momentum, eps=eps)
    with no_grad():
        for given, copy in ((running_mean, rep[2]), (running_var, rep[3])):
            if given is not None:
                given.copy_(copy.view(b, c).mean(0))
    return out.view(input.shape)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    return input / T.clamp(T.norm(input, p, dim, keepdim=True), min=eps)


# ----- embedding and encoding ---------------------------------------------------------------------
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    if padding_idx:  # torch's bounds check reads weight.size(0)
        if padding_idx > 0:
            assert padding_idx < _size(weight, 0), "Padding_idx must be within num_embeddings"
        else:
            assert padding_idx >= -_size(weight, 0), "Padding_idx must be within num_embeddings"
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if not isinstance(input, Tensor):
        raise TypeError(f"embedding(): argument 'indices' (position 2) must be Tensor, not "
                        f"{type(input).__name__}")
    if scale_grad_by_freq:  # (each index's gradient divided by its count: _ops.embedding_bag)
        return _embedding_freq(input, weight, padding_idx)
    return apply(N.Embedding, weight, input, padding_idx=padding_idx)


def _renorm_rows(weight, input, max_norm, norm_type):
    """``max_norm``: the rows of ``weight`` that ``input`` looks up, each scaled in place (outside
    autograd) to norm ``max_norm`` when its ``norm_type`` norm is larger -- torch's
    ``embedding_renorm_``: ``row *= max_norm / (norm + 1e-7)``, rows taken once, in order."""
    if not isinstance(input, Tensor):
        return  # (the lookup below refuses it with torch's message)
    if input._dtype not in (D.int64, D.int32):
        raise RuntimeError("Expected tensor for argument #2 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"{input.type()} instead (while checking arguments for "
                           "embedding_renorm_)")
    read_value(input, "embedding max_norm")  # (which rows: a value Python reads)
    with no_grad():
        for i in np.unique(input._data.reshape(-1)).tolist():
            if not -weight.shape[0] <= i < weight.shape[0]:  # (torch's row select)
                raise IndexError(f"select(): index {i} out of range for tensor of size "
                                 f"{list(weight.shape)} at dimension 0")
            row = weight[i]
            norm = float(row.norm(norm_type))
            if norm > max_norm:
                row.mul_(max_norm / (norm + 1e-7))


def one_hot(tensor, num_classes=-1):
    if tensor.numel() == 0 and num_classes <= 0:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    return apply(N.OneHot, tensor, num_classes=num_classes)




# ===== language-model era: attention, RMS norm, transposed convolution, resampling ===============
# (appended; each function states its torch rule)

from .._ops.conv_transpose import ConvTranspose as _ConvTranspose  # noqa: E402

__all__ += ["local_response_norm", "rms_norm", "conv_transpose1d", "conv_transpose2d", "pixel_shuffle",
            "pixel_unshuffle", "multi_head_attention_forward"]




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
        idx = tuple(tuple(_interp_nearest_index(in_size[i], out_size[i], sc[i],
                                                mode == "nearest-exact").tolist())
                    for i in range(dim))
        out = apply(N.upsample_nearest(dim, mode == "nearest-exact"), input, indices=idx)
        return _in_suggested_format(out, input) if input.ndim == 4 else out
    half = input._dtype in (D.float16, D.bfloat16)
    if half:  # torch's CPU kernel interpolates half inputs in float32
        out = out.float()
    dt = out._dtype.np
    # the last dim first: torch's kernel weights each row's two neighbours, then the two rows
    for i in reversed(range(dim)):
        i0, i1, l0, l1 = _interp_linear_weights(in_size[i], out_size[i], sc[i], align_corners,
                                                np.dtype(dt))
        shape = [1] * input.ndim
        shape[2 + i] = out_size[i]
        a = T.index_select(out, 2 + i, Tensor._wrap(i0))
        b = T.index_select(out, 2 + i, Tensor._wrap(i1))
        out = a * Tensor._wrap(l0.reshape(shape)) + b * Tensor._wrap(l1.reshape(shape))
    out = out.to(input._dtype) if half else out
    return _in_suggested_format(out, input) if input.ndim == 4 else out


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


def _install_parser():
    """torch's argument errors for the public functions (``_functions/_parser.py``): a
    non-tensor ``input`` is refused before the call, other arguments of the wrong kind when it
    fails (the modules call them too: a frame and an isinstance a call)."""
    from .._functions._parser import parsed
    g = globals()
    for name in __all__:
        f = g.get(name)
        if callable(f) and not isinstance(f, type):
            g[name] = parsed(name, f, functional=True)


_install_parser()

# (after the parser: these check their own arguments, in torch's order and wording)
from ._functional_grid import affine_grid, grid_sample  # noqa: E402
affine_grid.__module__ = grid_sample.__module__ = __name__
__all__ += ["affine_grid", "grid_sample"]
conv3d = conv3d.unparsed  # (its own parsing: torch's overloaded binding's combination errors)


def __dir__():
    """The public names only (torch's module shows its API, not our helpers and imports)."""
    return sorted(set(__all__) | {"__doc__", "__file__", "__name__", "__package__", "__spec__"})
