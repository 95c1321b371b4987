"""``torch.nn.functional``'s losses (torch 2.13's kernels and compositions, in its order)."""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .. import _creation
from .. import _functions as T
from .._autograd import GradState, also_checked, torch_named
from .._dispatch import apply, values_hidden, wafer_dtypes
from .._errors import _size_mismatch
from .._fpe import warn_user
from .._ops import losses as L, nn as N
from .._tensor import Tensor, _size
from ._functional_base import _check_reduction, _floating, _reduce, logsigmoid, \
    not_differentiable


__all__ = [
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss",
    "gaussian_nll_loss", "hinge_embedding_loss", "margin_ranking_loss", "soft_margin_loss",
    "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
    "cosine_similarity", "cosine_embedding_loss",
    "pairwise_distance", "pdist", "triplet_margin_loss", "triplet_margin_with_distance_loss",
]


# ----- losses -------------------------------------------------------------------------------------
def _class_target(target, input=None, weight=None):
    """The class-index target; torch's NLL kernels check, in order: the batch sizes, a 0-d or
    1-d target for an input of at most 2 dims, the target's dtype -- Long (int64) or Byte (uint8) only -- and a
    class weight of one value per class."""
    if input is not None and input.ndim != 1 and target.ndim and \
            input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0]}).")
    if input is not None and input.ndim <= 2 and target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input is not None and weight is not None:
        classes = input.shape[1] if input.ndim >= 2 else input.shape[0]
        if weight.numel() != classes:
            raise RuntimeError(f"weight tensor should be defined either for all {classes} "
                               "classes or no classes but got weight tensor of shape: "
                               f"{list(weight.shape)}")
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
    t = _class_target(target, input, weight)
    _check_weight_dtype(input, weight)
    not_differentiable("nll_loss_forward" if input.ndim <= 2 else "nll_loss2d_forward",
                       weight=weight)
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
    if input.ndim == 0:
        _size(input, 1)  # (torch's class dim)
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
        # (torch divides by a C++ number: div.Scalar, DivBackward1)
        return torch_named(-prod.sum() / (input.numel() // n_classes), "DivBackward1", input,
                           target)
    if reduction == "sum":
        return -prod.sum()
    return -prod.sum(class_dim)


def _check_weight_dtype(input, weight):
    if weight is not None and weight._dtype is not input._dtype:
        raise RuntimeError(f"expected scalar type {input._type_name()[6:-6]} but found "
                           f"{weight._type_name()[6:-6]}")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    if input.ndim == 0:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    t = _class_target(target, input, weight)
    _floating(input, "nll_loss_out_frame" if input.ndim <= 2 else "nll_loss2d_forward_out_frame")
    _check_weight_dtype(input, weight)
    not_differentiable("nll_loss_forward" if input.ndim <= 2 else "nll_loss2d_forward",
                       weight=weight)
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
    return torch_named(also_checked(_reduce(d * d, reduction), input, target),  # (torch's node
                       "MseLossBackward0", input, target)  # saves both)


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
    # torch's node saves the operands themselves, not their promoted copies
    return also_checked(apply(L.SmoothL1Loss, x, y, beta=beta, reduction=reduction), input,
                        target)


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
    loss = apply(L.HuberLoss, x, y, delta=delta, reduction=reduction)
    if loss._dtype is not input._dtype:  # (torch's one node writes in input's dtype)
        loss = torch_named(loss.to(input._dtype), "HuberLossBackward0", input, target)
    return also_checked(loss, input, target)  # (torch's node saves the operands themselves)


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
    not_differentiable("binary_cross_entropy", weight=weight)
    w = None
    if weight is not None:
        w = weight if weight._dtype is input._dtype else weight.to(input._dtype)
        w = w.detach()
    args = (input, target) if w is None else (input, target, w)
    return apply(L.BinaryCrossEntropy, *args, reduction=reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """torch's composition, in its order: ``(1 - target).mul_(input).sub_(logsigmoid(input))``
    (times ``weight`` in place): the result has ``1 - target``'s dtype, as in torch."""
    reduction = _check_reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    not_differentiable("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    if all(t is None or t._dtype.is_floating_point for t in (input, target, weight, pos_weight)):
        # floating operands: torch's fused kernel (its backward keeps infinite gradients
        # infinite); other dtypes take the composition below, which raises torch's errors
        # (torch's composition broadcasts ``(pos_weight - 1) * target`` and ``loss * weight``:
        # operands that do not broadcast get its size message for those pairs)
        for a, b in ((pos_weight, target), (input, weight)):
            if a is not None and b is not None:
                err = _size_mismatch([tuple(a.shape), tuple(b.shape)])
                if err is not None:
                    raise err
        if weight is not None:
            weight = weight.expand(input.shape)
        if pos_weight is not None:
            pos_weight = pos_weight.expand(input.shape)
        return apply(L.BinaryCrossEntropyWithLogits, input, target, weight, pos_weight,
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
    # torch's composite is C++, whose compiler forms the right operand of each operator first;
    # that order decides how a target's gradient contributions are summed, so we keep it
    if log_target:
        diff = target - input
        loss = T.exp(target) * diff
    else:
        prod = target * input
        loss = T.xlogy(target, target) - prod
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
    # torch's C++ composition, each binary operator's right operand formed first (that order
    # decides how the gradient contributions of a tensor used several times are summed)
    if log_input:
        prod = target * input
        loss = T.exp(input) - prod
    else:
        prod = target * T.log(input + eps)
        loss = input - prod
    if full:
        half_log = 0.5 * T.log(2 * math.pi * target)
        log_t = T.log(target)
        stirling = (target * log_t - target) + half_log
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
    not_differentiable("soft_margin_loss", target=target)
    loss = _reduce(T.log1p(T.exp(-target * input)), reduction)
    # (torch's node saves both for the input's gradient; the target has none)
    return also_checked(loss, input, target) if input.requires_grad else loss


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    reduction = _check_reduction(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1  # (torch's code: a sum over the classes, then / C)
    return _reduce(loss.sum(dim=class_dim) / input.shape[class_dim], reduction)


def _margin_rows(input, target):
    """``input`` as (N, C) rows and ``target`` as (N, ...) rows, with torch's shape checks."""
    if input.ndim > 2:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(input.shape)}")
    if input.ndim < 2:
        return input.reshape(1, -1), target.reshape(1, -1)
    return input, target


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """The multi-class hinge loss: per sample, ``sum over i != y of max(0, margin - x[y] +
    x[i]) ** p`` (each term times ``weight[y]`` when given), divided by the number of classes
    (torch's kernel: p is 1 or 2; the class indices are int64)."""
    reduction = _check_reduction(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    x, t = _margin_rows(input, target)
    t = t.reshape(-1)
    if t.shape[0] != x.shape[0]:
        raise RuntimeError(f"inconsistent target size, expected {x.shape[0]} but got "
                           f"{list(target.shape)}")
    if t._dtype is not D.int64:
        raise RuntimeError(f"expected scalar type Long but found {D.scalar_name(t._dtype)}")
    not_differentiable("multi_margin_loss", weight=weight)
    classes = x.shape[1]
    xy = x.gather(1, t.unsqueeze(1))
    z = T.relu(margin - xy + x)
    h = z if p == 1 else z * z
    if weight is not None:
        h = h * weight[t].unsqueeze(1)
    others = _creation.ones_like(x, dtype=D.bool).scatter(1, t.unsqueeze(1), False)
    loss = (h * others).sum(1) / classes
    loss = loss.reshape(()) if input.ndim < 2 and reduction == "none" else loss
    return torch_named(_reduce(loss, reduction), "MultiMarginLossBackward0", input)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The multi-label hinge loss: each row's targets are the class indices before its first
    -1; per sample, ``sum over targets j and non-target classes i of max(0, 1 - (x[j] -
    x[i]))``, divided by the number of classes (torch's definition)."""
    reduction = _check_reduction(reduction, size_average, reduce)
    x, t = _margin_rows(input, target)
    if tuple(t.shape) != tuple(x.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    if t._dtype is not D.int64:
        raise RuntimeError(f"expected scalar type Long but found {D.scalar_name(t._dtype)}")
    classes = x.shape[1]
    valid = (t < 0).cumsum(1) == 0  # (the targets: the entries before the first -1)
    idx = t.clamp(min=0)
    chosen = ((idx.unsqueeze(2) == _creation.arange(classes)) & valid.unsqueeze(2)).any(1)
    xy = x.gather(1, idx)  # (N, J): each target's score
    z = T.relu(1 - xy.unsqueeze(2) + x.unsqueeze(1))  # (N, J, C)
    h = z * (valid.unsqueeze(2) & ~chosen.unsqueeze(1))
    loss = h.sum((1, 2)) / classes
    loss = loss.reshape(()) if input.ndim < 2 and reduction == "none" else loss
    return torch_named(_reduce(loss, reduction), "MultilabelMarginLossBackward0", input)


def pdist(input, p=2):
    """The ``p``-norm distances between every pair of rows ``i < j`` of an (N, M) input, in
    row-major order of the pairs (torch's layout: the upper triangle of ``cdist(x, x)``); a
    zero distance has a zero gradient, as torch's backward gives."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    rows, cols = _creation.triu_indices(n, n, 1)
    # (rows of no columns are at distance 0 for every p: torch's kernel, not max()'s refusal)
    out = T.norm(input[rows] - input[cols], p if input.shape[1] else 2.0, 1)
    return torch_named(out, "PdistBackward0", input)


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
    """torch's formula: ``cos = sum(x1 * x2) / sqrt((sum(x1^2) + eps) * (sum(x2^2) + eps))``
    over the features (``eps`` torch's float32 1e-12, 9.99999996e-13, in every dtype), then ``1 - cos`` where the target is 1 and ``max(cos - margin, 0)``
    where it is -1 (0 elsewhere)."""
    reduction = _check_reduction(reduction, size_average, reduce)
    targ_dim = target.ndim
    if targ_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.ndim != targ_dim + 1 or input2.ndim != targ_dim + 1:
        raise RuntimeError(f"{targ_dim}D target tensor expects {targ_dim + 1}D input tensors, but "
                           f"found inputs with sizes {list(input1.shape)} and "
                           f"{list(input2.shape)}.")
    prod_sum = (input1 * input2).sum(targ_dim)
    mag_square1 = (input1 * input1).sum(targ_dim) + L.LOSS_EPSILON
    mag_square2 = (input2 * input2).sum(targ_dim) + L.LOSS_EPSILON
    cos = prod_sum / (mag_square1 * mag_square2).sqrt_()
    zero = Tensor._wrap(np.zeros((), cos._dtype.np))
    pos = 1 - cos
    neg = (cos - margin).clamp_min_(0)
    loss = T.where(target == 1, pos, zero) + T.where(target == -1, neg, zero)
    return _reduce(loss, reduction)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``norm(x1 - x2 + eps, p)`` over the last dim of the broadcast inputs (torch's formula)."""
    return torch_named(T.norm(x1 - x2 + eps, p, max(x1.ndim, x2.ndim) - 1, keepdim),
                       "NormBackward1", x1, x2)  # (torch's norm.ScalarOpt_dim)


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
