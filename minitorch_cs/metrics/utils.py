"""Helpers shared by the confusion-matrix metrics (``cstorch.metrics.utils``)."""
from __future__ import annotations

from .. import torch

__all__ = ["divide_no_nan", "compute_confusion_matrix", "compute_mask"]


def divide_no_nan(num, denom):
    """``num / denom`` with 0 wherever ``denom`` is 0 (``tf.math.divide_no_nan``)."""
    zero = denom == 0
    return torch.where(zero, torch.zeros_like(num), num) / torch.where(zero, torch.ones_like(denom),
                                                                       denom)


def compute_confusion_matrix(labels, predictions, num_classes, weights=None, on_device=False):
    """A float32 ``[num_classes, num_classes]`` matrix: rows are labels, columns predictions.

    Each (label, prediction) pair adds its weight (1 by default). ``num_classes=None`` takes one
    more than the largest label or prediction. Off the device, negative labels or predictions
    raise ``ValueError``; so does ``weights`` of another shape than ``predictions``.
    """
    labels = labels.flatten()
    if weights is not None:
        if weights.shape != predictions.shape:
            raise ValueError(f"`predictions`={predictions.shape} and ",
                             f"`weights`={weights.shape} have mismatched shapes")
        weights = weights.flatten()
    predictions = predictions.flatten()
    if not on_device:
        if torch.amin(labels) < 0:
            raise ValueError("Negative values in `labels` tensor is not allowed")
        if torch.amin(predictions) < 0:
            raise ValueError("Negative values in `predictions` tensor is not allowed")
        if num_classes is None:
            num_classes = int(torch.amax(torch.maximum(labels, predictions)).item()) + 1
    if weights is None:
        weights = torch.ones_like(predictions, dtype=torch.float32)
    index = (labels * num_classes + predictions.int()).to(torch.long)
    matrix = torch.zeros(num_classes * num_classes, dtype=torch.float32)
    matrix.scatter_add_(dim=0, index=index, src=weights.to(torch.float32))
    return matrix.reshape(num_classes, num_classes)


def compute_mask(num_classes, ignore_classes):
    """Ones, minus one at each ignored class (a class listed twice goes to -1, as in cstorch)."""
    mask = torch.ones(num_classes, dtype=torch.float32)
    if ignore_classes:
        index = torch.tensor(ignore_classes, dtype=torch.long)
        mask.scatter_add_(0, index, -torch.ones(len(ignore_classes), dtype=torch.float32))
    return mask
