"""Metrics over an accumulated confusion matrix: ``DiceCoefficientMetric``, ``MeanIOUMetric``,
``FBetaScoreMetric``.

Each ``update`` adds the batch's (weighted) confusion matrix; ``compute`` reads the scores off
the running matrix. Classes listed in ``ignore_classes`` (``ignore_labels``) are masked out.
"""
from __future__ import annotations

from typing import List, Optional

from .. import torch
from ..backend import use_cs
from ..core.creation import make_constant
from ._checks import check_shapes
from .metric import Metric
from .utils import compute_confusion_matrix, compute_mask, divide_no_nan

__all__ = ["DiceCoefficientMetric", "MeanIOUMetric", "FBetaScoreMetric"]


def _diag(matrix):
    # cstorch multiplies by an identity instead of taking the diagonal (a wafer workaround).
    return (torch.eye(matrix.shape[0]) * matrix).sum(dim=-1, dtype=torch.float32)


def _mean_over_valid(per_class_num, denominator):
    """Mean of ``num/denom`` over the classes with a non-zero denominator (0 when none)."""
    valid = torch.sum(torch.ne(denominator, 0).to(torch.float32))
    denominator = torch.where(denominator > 0, denominator, torch.ones_like(denominator))
    score = divide_no_nan(per_class_num, denominator)
    # clamp: same result (where picks 0 then) without a 0/0 in the unselected branch
    return torch.where(valid > 0, torch.sum(score) / torch.clamp(valid, min=1),
                       torch.tensor(0, dtype=torch.float32))


class _ConfusionMetric(Metric):
    def __init__(self, num_classes, ignore_classes: Optional[List[int]] = None,
                 name: Optional[str] = None):
        self.num_classes = num_classes
        self.mask = compute_mask(num_classes, ignore_classes)
        super().__init__(name=name)

    def reset(self):
        self.register_state("confusion_matrix",
                            torch.zeros((self.num_classes, self.num_classes), dtype=torch.float32))
        self._dtype = None

    def update(self, labels, predictions, weights=None, dtype=None):
        check_shapes(labels, predictions, weights, self._same_shape_message)
        self.confusion_matrix.add_(compute_confusion_matrix(
            labels=labels, predictions=predictions, num_classes=self.num_classes,
            weights=weights, on_device=use_cs()))
        self._dtype = dtype

    def compute(self):
        result = self._score(self.confusion_matrix, make_constant(self.mask))
        return result.to(self._dtype) if self._dtype is not None else result


class DiceCoefficientMetric(_ConfusionMetric):
    """Mean over classes present of ``2 TP / (2 TP + FP + FN)`` (semantic segmentation)."""

    _same_shape_message = False

    @staticmethod
    def _score(cm, mask):
        rows, cols = torch.sum(cm, 0, dtype=torch.float32), torch.sum(cm, 1, dtype=torch.float32)
        return _mean_over_valid(2 * _diag(cm) * mask, (rows + cols) * mask)


class MeanIOUMetric(_ConfusionMetric):
    """Mean over classes present of ``TP / (TP + FP + FN)`` (intersection over union)."""

    _same_shape_message = True

    @staticmethod
    def _score(cm, mask):
        rows, cols = torch.sum(cm, 0, dtype=torch.float32), torch.sum(cm, 1, dtype=torch.float32)
        diag = _diag(cm) * mask
        return _mean_over_valid(diag, (rows + cols - diag) * mask)


class FBetaScoreMetric(_ConfusionMetric):
    """``(1 + b²) P R / (b² P + R)``, over all samples (``"micro"``) or averaged per class
    (``"macro"``).

    Raises:
        ValueError: ``num_classes`` below 2, ``beta`` not positive, or an unknown
            ``average_type``.
    """

    _same_shape_message = True

    def __init__(self, num_classes, beta: float = 1.0, average_type: str = "micro",
                 ignore_labels: Optional[List] = None, name: Optional[str] = None):
        if num_classes <= 1:
            raise ValueError(f"'num_classes' should be at least 2, got {num_classes}")
        super().__init__(num_classes, ignore_labels, name=name)
        if beta <= 0:
            raise ValueError(f"'beta' should be a positive number, got {beta}")
        self.beta = beta
        allowed = ["micro", "macro"]
        if average_type not in allowed:
            raise ValueError(f"The average_type has to be one of {allowed}, got {average_type}.")
        self.average_type = average_type

    def update(self, labels, predictions, dtype=None):
        super().update(labels, predictions, None, dtype)

    def _score(self, cm, mask):
        tp = _diag(cm)
        predicted, actual = cm.sum(dim=0).float(), cm.sum(dim=1).float()
        b2 = torch.tensor(self.beta).to(torch.float32) ** 2
        if self.average_type == "micro":
            p = divide_no_nan((tp * mask).sum(), (predicted * mask).sum())
            r = divide_no_nan((tp * mask).sum(), (actual * mask).sum())
            return divide_no_nan((1.0 + b2) * p * r, b2 * p + r)
        p, r = divide_no_nan(tp, predicted), divide_no_nan(tp, actual)
        fbeta = divide_no_nan((1.0 + b2) * p * r, b2 * p + r)
        return (fbeta * mask).sum() / mask.sum()
