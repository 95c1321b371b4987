"""``torch.nn.functional``'s base layer: reduction and dtype helpers, linear, activations, softmax,
dropout and padding (the loss and attention modules build on these)."""
from __future__ import annotations


import numpy as np

from .. import _dtype as D
from .. import _functions as T
from .._autograd import GradState, torch_named, torch_named_inplace
from .._dispatch import also_saved, apply, apply_inplace
from .._fpe import warn_user
from .._functions.reduction import _implicit_dim
from .._ops import elementwise as E
from .._ops import activation as G
from .._ops import movement as M
from .._ops import linalg as LA
from .._ops import losses as L
from .._random import RandomNew
from .._tensor import Tensor, _wrap_dim


__all__ = [
    "linear", "bilinear", "relu", "relu_", "relu6", "gelu", "silu", "mish", "leaky_relu",
    "elu", "selu", "celu", "softplus", "hardtanh", "hardsigmoid", "hardswish", "sigmoid",
    "tanh", "logsigmoid", "softsign", "tanhshrink", "threshold", "glu", "softmax", "softmin",
    "log_softmax", "dropout", "dropout1d", "dropout2d", "alpha_dropout", "pad", "hardshrink",
    "softshrink", "prelu", "rrelu", "rrelu_",
]


_REDUCTIONS = ("none", "mean", "sum")


def not_differentiable(fn, **arguments):
    """torch's refusal, with grad mode on, of a tensor that requires grad as an argument its op
    has no derivative for (``nll_loss``'s ``weight``, ``batch_norm``'s running statistics):
    "The function 'nll_loss_forward' is not differentiable with respect to argument 'weight'".
    ``fn``: the ATen op's name; ``arguments``: name -> argument (None or a number passes), in
    torch's order."""
    if not GradState.enabled:
        return
    for name, t in arguments.items():
        if isinstance(t, Tensor) and t.requires_grad:
            raise RuntimeError(f"The function '{fn}' is not differentiable with respect to "
                               f"argument '{name}'. This input cannot have requires_grad True.")


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
    2-D input, or a contiguous input with a contiguous bias of one value per output (its rows
    flattened, the result viewed back); otherwise it runs matmul then ``output.add_(bias)`` (so
    a bias of another, castable dtype is accepted)."""
    if bias is None:
        return apply(LA.Linear, input, weight)
    fused = input.ndim == 2 or LA.flattens(input._data, weight._data, bias._data)
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
        return apply(G.GeluTanh, input)
    if approximate != "none":
        raise RuntimeError("approximate argument must be either none or tanh.")
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


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: a non-positive element is scaled by a slope drawn from
    U(lower, upper) in training, by their mean otherwise; its gradient is the same slope
    (torch's ``rrelu_with_noise``; the draws are this library's stream, not torch's)."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        _floating(input, "leaky_relu_cpu", inplace)
        out = _activation(E.LeakyRelu, input, inplace, negative_slope=(lower + upper) / 2)
    else:
        _floating(input, "rrelu_with_noise_out_cpu", inplace)
        keep = input > 0
        noise = input.detach().new_empty(input.shape).uniform_(lower, upper)
        noise = noise.masked_fill(keep, 1)
        out = _composite_inplace(input, inplace, lambda x: x * noise)
    return torch_named(out, "RreluWithNoiseBackward0", input) if not inplace else out


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


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
    if not inplace:  # (our elu kernel computes it: torch's node is celu's own)
        return torch_named(_activation(E.Elu, input, False, alpha=alpha, input_scale=1.0 / alpha),
                           "CeluBackward0", input)
    prev = input.grad_fn
    return torch_named_inplace(_activation(E.Elu, input, True, alpha=alpha,
                                           input_scale=1.0 / alpha), prev, "CeluBackward1")


def softplus(input, beta=1.0, threshold=20.0):
    _floating(input, "softplus_cpu")
    return apply(G.Softplus, input, beta=beta, threshold=threshold)


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
    return apply(L.LogSigmoid, input)


def softsign(input):
    return input / (1 + T.abs(input))


def tanhshrink(input):
    return input - T.tanh(input)


hardshrink = T.hardshrink  # (torch's F.hardshrink and F.prelu are torch.hardshrink/torch.prelu)
prelu = T.prelu


def softshrink(input, lambd=0.5):
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"softshrink_check" not implemented for '
                                  f"'{D.scalar_name(input.dtype)}'")
    hi = float(D.finfo(input.dtype).max)
    lam = float(lambd)
    if not 0 <= lam <= hi:
        raise RuntimeError(f"lambda must be in range [0, {hi:g}] for input dtype "
                           f"{D.scalar_name(input.dtype)}, but found {lam:g}")
    return apply(G.Softshrink, input, lambd=lambd)


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
    return apply(G.Glu, input, dim=d)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:  # (torch.softmax itself takes only an int: the legacy choice is F's)
        dim = _implicit_dim("softmax", input)
    return T.softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _implicit_dim("softmin", input)
    return softmax(-input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _implicit_dim("log_softmax", input)
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
    if not input._dtype.is_floating_point:  # (torch scales by 1/(1-p) into the input's dtype)
        raise RuntimeError("result type Float can't be cast to the desired output type "
                           f"{D.scalar_name(input._dtype)}")
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
    if p < 0.0 or p > 1.0:  # (checked in every mode, as torch does)
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    raise NotImplementedError("alpha_dropout in training mode is not supported")


def pad(input, pad, mode="constant", value=None):
    """torch's checks in its order: the mode, the padding's length, a ``value`` (other than 0)
    only for the constant mode, the ranks the other modes support, then each mode's own (a
    reflection smaller than the dim, a circular wrap at most once)."""
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.ndim}")
    if mode != "constant" and value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
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
    if mode == "circular":
        for i in range(len(pad) // 2):
            if int(pad[2 * i]) > input.shape[-1 - i] or int(pad[2 * i + 1]) > input.shape[-1 - i]:
                raise RuntimeError("Padding value causes wrapping around more than once.")
    if mode == "constant" and all(int(p) <= 0 for p in pad):
        # torch's constant_pad_nd without a positive pad: narrows and clones (the result keeps
        # the input's layout; a negative length is narrow's error)
        out = input
        for i in range(len(pad) // 2):
            d = input.ndim - 1 - i
            lo, hi = int(pad[2 * i]), int(pad[2 * i + 1])
            if lo < 0:
                out = out.narrow(d, -lo, out.shape[d] + lo)
            if hi < 0:
                out = out.narrow(d, 0, out.shape[d] + hi)
        return torch_named(out.clone(), "ConstantPadNdBackward0", input)
    out = apply(M.Pad, input, pad=tuple(int(p) for p in pad), mode=mode,
                value=0.0 if value is None else value)
    if mode in ("reflect", "replicate"):  # torch's kernels (Reflection/Replication-Pad1D..3D)
        torch_named(out, f"{'Reflection' if mode == 'reflect' else 'Replication'}Pad"
                         f"{len(pad) // 2}DBackward0", input)
        # torch's reflection and replication pads save their input (their backward reads it)
        return also_saved(out, input)
    if mode == "circular":  # (torch copies the wrapped slices into a new tensor)
        torch_named(out, "torch::autograd::CopySlices", input)
    return out


def _scalar_like(value, dtype):
    return Tensor._wrap(np.asarray(value, dtype=dtype.np))
