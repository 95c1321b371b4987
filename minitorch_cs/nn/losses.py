"""``cerebras.pytorch.nn``'s loss modules, with the real stack's CPU semantics.

Most of them are torch's losses plus one keyword, ``use_autogen=False``: on the wafer it wraps the
loss in an "autogen" scope so the compiler may generate its kernels; off the wafer it does nothing.
Ours accept it, keep it as ``autogen_enabled`` and compute exactly the torch loss (also on the
emulated CSX backend, which has no kernel generator). Five are rewritten in plain tensor ops by
cstorch and differ from torch in small ways we keep: ``HuberLoss``, ``SmoothL1Loss``,
``GaussianNLLLoss``, ``MultiMarginLoss`` (validation by ``assert``; a reduction other than "mean"
or "sum" means "none"; no variance check) and the segmentation losses ``DiceLoss`` (not a Module)
and ``DiceCELoss``. ``CTCLoss`` is not provided (see SPEC §8).
"""
from __future__ import annotations

import math

from .. import torch
from ..torch import nn
from ..torch.nn import functional as F

__all__ = ["BCELoss", "BCEWithLogitsLoss", "CosineEmbeddingLoss", "CrossEntropyLoss", "DiceCELoss",
           "DiceLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "HuberLoss", "KLDivLoss", "L1Loss",
           "MarginRankingLoss", "MSELoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss",
           "PoissonNLLLoss", "SmoothL1Loss", "TripletMarginLoss", "TripletMarginWithDistanceLoss"]


def _autogen(cls):
    """Let ``cls`` take ``use_autogen`` (default False), stored as ``autogen_enabled``."""
    init = cls.__init__

    def __init__(self, *args, use_autogen: bool = False, **kwargs):
        init(self, *args, **kwargs)
        self.autogen_enabled = use_autogen

    __init__.__doc__ = init.__doc__
    cls.__init__ = __init__
    return cls


def _torch_loss(base):
    return _autogen(type(base.__name__, (base,), {
        "__module__": __name__,
        "__doc__": f"``torch.nn.{base.__name__}`` that also accepts ``use_autogen=False``.",
    }))


BCELoss = _torch_loss(nn.BCELoss)
BCEWithLogitsLoss = _torch_loss(nn.BCEWithLogitsLoss)
CosineEmbeddingLoss = _torch_loss(nn.CosineEmbeddingLoss)
CrossEntropyLoss = _torch_loss(nn.CrossEntropyLoss)
HingeEmbeddingLoss = _torch_loss(nn.HingeEmbeddingLoss)
KLDivLoss = _torch_loss(nn.KLDivLoss)
L1Loss = _torch_loss(nn.L1Loss)
MarginRankingLoss = _torch_loss(nn.MarginRankingLoss)
MSELoss = _torch_loss(nn.MSELoss)
MultiLabelSoftMarginLoss = _torch_loss(nn.MultiLabelSoftMarginLoss)
NLLLoss = _torch_loss(nn.NLLLoss)
PoissonNLLLoss = _torch_loss(nn.PoissonNLLLoss)
TripletMarginLoss = _torch_loss(nn.TripletMarginLoss)
TripletMarginWithDistanceLoss = _torch_loss(nn.TripletMarginWithDistanceLoss)


def _reduce(loss, reduction):
    """cstorch's rule: "mean" and "sum" reduce, any other value returns the elementwise loss."""
    if reduction == "mean":
        return torch.mean(loss)
    if reduction == "sum":
        return torch.sum(loss)
    return loss


@_autogen
class HuberLoss(nn.Module):
    """0.5 z² below ``delta``, ``delta (z - delta / 2)`` above, with z = |input - target|."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__()
        assert delta > 0, "HuberLoss only supports positive values for delta."
        self.reduction = reduction
        self.delta = delta

    def forward(self, input, target):
        z = (input - target).abs()
        loss = torch.where(z < self.delta, 0.5 * z * z, self.delta * (z - 0.5 * self.delta))
        return _reduce(loss, self.reduction)


@_autogen
class SmoothL1Loss(nn.Module):
    """0.5 z² / beta below ``beta``, ``z - beta / 2`` above, with z = |input - target|."""

    def __init__(self, reduction="mean", beta=1.0):
        super().__init__()
        assert beta >= 0, "SmoothL1Loss only supports non-negative values for beta."
        self.reduction = reduction
        self.beta = beta

    def forward(self, input, target):
        z = torch.abs(input - target)
        loss = torch.where(z < self.beta, 0.5 * z * z / self.beta, z - 0.5 * self.beta)
        return _reduce(loss, self.reduction)


@_autogen
class GaussianNLLLoss(nn.Module):
    """0.5 (log var + (input - target)² / var), var clamped to ``eps`` (the clamp passes gradients
    straight through, as torch's does); negative variances are not checked."""

    def __init__(self, full=False, eps=1e-6, reduction="mean"):
        super().__init__()
        self.full = full
        self.eps = eps
        self.reduction = reduction

    def forward(self, input, target, var):
        if var.shape != input.shape:
            if tuple(input.shape[:-1]) == tuple(var.shape):
                var = torch.unsqueeze(var, -1)  # one variance per sample (homoscedastic)
            elif not (input.shape[:-1] == var.shape[:-1] and var.shape[-1] == 1):
                raise ValueError(f"`var` is of incorrect size: {var.size()}")
        var = var.clone()
        with torch.no_grad():
            var.clamp_(min=self.eps)
        loss = 0.5 * (torch.log(var) + (input - target) ** 2 / var)
        if self.full:
            loss += 0.5 * math.log(2 * math.pi)
        return _reduce(loss, self.reduction)


@_autogen
class MultiMarginLoss(nn.Module):
    """Multi-class hinge loss: the mean over classes i != y of max(0, margin - x[y] + x[i])^p,
    times ``weight[y]``. Computed over all classes and then corrected for the i == y term (which
    always contributes margin^p). ``p`` must be 1 or 2 and ``reduction`` may not be "none"."""

    def __init__(self, p=1, margin=1.0, weight=None, reduction="mean"):
        super().__init__()
        assert p in [1, 2], "MultiMarginLoss only supports p being 1 or 2."
        assert reduction != "none", "MultiMarginLoss does not support 'none' reduction."
        self.p = p
        self.margin = margin
        self.weight = weight
        self.reduction = reduction

    def forward(self, x, y):
        target_score = torch.gather(x, -1, y.unsqueeze(-1).type(torch.int64))
        loss = (self.margin - target_score + x).clamp(min=0)
        if self.p == 2:
            loss = loss * loss
            correction = self.margin * self.margin
        else:
            correction = self.margin
        batched = len(x.shape) > 1
        if self.weight is not None:
            w = torch.gather(self.weight, 0, y).unsqueeze(-1)
            loss = w * loss
            correction = correction * torch.sum(w)
            if batched:
                correction = torch.div(correction, x.shape[0])
        correction = torch.div(correction, x.shape[-1])
        if batched and self.reduction != "mean":
            correction = correction * x.shape[0]
        if self.reduction == "sum":
            loss = torch.div(loss, x.shape[-1])
        return _reduce(loss, self.reduction) - correction


def _to_one_hot(labels, num_classes):
    """(N, 1, D, H, W) or (N, D, H, W) class indices -> (N, C, D, H, W) float one-hot."""
    if labels.ndim >= 5:
        labels = torch.squeeze(labels, dim=1)
    return F.one_hot(labels.long(), num_classes).float().permute(0, 4, 1, 2, 3)


class DiceLoss:
    """Per-sample, per-class Dice coefficient of 3-D segmentations (not a Module, as in cstorch).

    ``loss(prediction, target, input_shape)`` with prediction (N, C, D, H, W) logits, target
    (N, D, H, W) class indices and ``input_shape`` the list [N, C, D, H, W]: returns the (N, C)
    values 2 |P ∩ T| / (|P| + |T| + 1e-6) over the spatial axes, P = softmax of the prediction over
    channels and T the one-hot target (by default). Without ``include_background`` channel 0 is
    zeroed in both (the mask is built from the first call's ``input_shape`` and kept).
    """

    def __init__(self, num_classes, to_onehot_y=True, to_onehot_x=False, use_softmax=True,
                 use_argmax=False, include_background=False):
        self.num_classes = num_classes
        self.to_onehot_y = to_onehot_y
        self.to_onehot_x = to_onehot_x
        self.use_softmax = use_softmax
        self.use_argmax = use_argmax
        self.include_background = include_background
        self.smooth_nr = 0.0
        self.smooth_dr = 1e-6
        self.bg_mask = None

    def _background_mask(self, dtype, input_shape, axis, device=None):
        shape = list(input_shape)
        zeros = torch.zeros(shape[:axis] + [1] + shape[axis + 1:], dtype=dtype, device=device)
        ones = torch.ones(shape[:axis] + [shape[axis] - 1] + shape[axis + 1:], dtype=dtype,
                          device=device)
        return torch.cat((zeros, ones), axis)

    def __call__(self, prediction, target, input_shape):
        axis = 1
        target = torch.unsqueeze(target, axis)
        spatial = list(range(2, prediction.ndim))
        channels = prediction.shape[axis]
        if self.use_softmax:
            prediction = torch.softmax(prediction, dim=axis)
        elif self.use_argmax:
            prediction = torch.argmax(prediction, dim=axis)
        if self.to_onehot_y:
            target = _to_one_hot(target, self.num_classes)
        if self.to_onehot_x:
            prediction = _to_one_hot(prediction, self.num_classes)
        if not self.include_background:
            if self.bg_mask is None:
                self.bg_mask = self._background_mask(prediction.dtype, input_shape, axis,
                                                    prediction.device)
            assert channels > 1, ("To exclude background the prediction needs more than one "
                                  f"channel. Got {channels}.")
            target = target * self.bg_mask
            prediction = prediction * self.bg_mask
        assert target.shape == prediction.shape, (
            f"Target and prediction shape do not match. Target: ({target.shape}), prediction: "
            f"({prediction.shape}).")
        intersection = torch.sum(target * prediction, dim=spatial)
        target_sum = torch.sum(target, dim=spatial)
        prediction_sum = torch.sum(prediction, dim=spatial)
        return (2.0 * intersection + self.smooth_nr) / (target_sum + prediction_sum +
                                                        self.smooth_dr)


class DiceCELoss(nn.Module):
    """``wc * cross_entropy + wd * (1 - mean Dice)``, the mean Dice rescaled by C / (C - 1) when
    the background channel is left out (so a perfect prediction still scores 1)."""

    def __init__(self, num_classes, include_background, wc=0.5, wd=0.5):
        super().__init__()
        self.dice = DiceLoss(num_classes=num_classes, include_background=include_background)
        self.cross_entropy = nn.CrossEntropyLoss()
        self.wc = wc
        self.wd = wd
        correction = 1.0 if include_background else num_classes / (num_classes - 1)
        self.mean_correction = torch.tensor(correction, dtype=torch.float32)
        self.one_const = torch.tensor(1.0, dtype=torch.float32)

    def forward(self, outputs, labels, input_shape):
        ce = self.cross_entropy(outputs, labels)
        dice = self.mean_correction * torch.mean(self.dice(outputs, labels, input_shape))
        return self.wc * ce + self.wd * (self.one_const - dice)
