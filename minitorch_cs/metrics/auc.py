"""``AUCMetric``: area under the ROC or precision-recall curve, by Riemann sum over thresholds.

Predictions (in [0, 1]) are compared with ``num_thresholds`` thresholds (evenly spaced, plus
``-1e-7`` and ``1 + 1e-7`` at the ends, or the given ``thresholds``); true/false positive and
negative counts accumulate per threshold. ``compute`` sums rectangles between consecutive
thresholds: heights are the mean (``"interpolation"``), minimum (``"minoring"``) or maximum
(``"majoring"``) of the curve at both ends; PR with interpolation integrates precision in closed
form (Davis & Goadrich 2006). Not supported on CSX (``NotImplementedError``, as cstorch).
"""
from __future__ import annotations

from .. import torch
from ..backend import use_cs
from ._checks import check_shapes
from .metric import Metric
from .utils import divide_no_nan

__all__ = ["AUCMetric"]

_EPSILON = 1e-7


class AUCMetric(Metric):
    def __init__(self, num_thresholds=200, curve="ROC", name=None,
                 summation_method="interpolation", thresholds=None):
        if use_cs():
            raise NotImplementedError("AUCMetric not yet supported on CSX.")
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
        self.curve = curve
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(f"Invalid AUC summation method value: '{summation_method}'. "
                             "Expected values are ['interpolation', 'majoring', 'minoring']")
        self.summation_method = summation_method
        if thresholds is not None:
            self.num_thresholds = len(thresholds) + 2
            thresholds = sorted(thresholds)
        else:
            if num_thresholds <= 1:
                raise ValueError(f"num_thresholds must be > 1. Got {num_thresholds}")
            self.num_thresholds = num_thresholds
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self.thresholds = torch.tensor([0.0 - _EPSILON] + thresholds + [1.0 + _EPSILON],
                                       dtype=torch.float32).reshape(-1, 1)
        super().__init__(name=name)

    def reset(self):
        for state in ("true_positive", "true_negative", "false_positive", "false_negative"):
            self.register_state(state, torch.zeros(self.num_thresholds, dtype=torch.float32))

    def update(self, labels, predictions, weights=None):
        check_shapes(labels, predictions, weights)
        if weights is not None:
            weights = weights.flatten()
        labels, predictions = labels.flatten(), predictions.flatten()
        if torch.amin(labels) < 0:
            raise ValueError("Negative values in `labels` tensor is not allowed")
        if torch.amin(predictions) < 0 or torch.amax(predictions) > 1:
            raise ValueError("Values in `predictions` tensor must be in [0, 1]")
        # (num_thresholds, num_predictions) comparisons
        pred_pos = torch.gt(torch.tile(predictions, (self.num_thresholds, 1)),
                            self.thresholds.expand(-1, predictions.shape[0]))
        pred_neg = torch.logical_not(pred_pos)
        label_pos = labels > 0
        label_neg = torch.logical_not(label_pos)
        for state, lab, pred in ((self.true_positive, label_pos, pred_pos),
                                 (self.false_positive, label_neg, pred_pos),
                                 (self.false_negative, label_pos, pred_neg),
                                 (self.true_negative, label_neg, pred_neg)):
            hit = torch.logical_and(lab, pred)
            if weights is not None:
                hit = hit.mul(weights)
            state.add_(torch.sum(hit, dim=-1))

    def _interpolate_pr_auc(self):
        # Precision = TP / P with TP and P = TP + FP linear within each interval: the integral
        # of precision over one interval is slope * (dTP + intercept * log(P_B / P_A)).
        n = self.num_thresholds
        tp, p = self.true_positive, self.true_positive + self.false_positive
        dtp = tp[:n - 1] - tp[1:]
        dp = p[:n - 1] - p[1:]
        slope = divide_no_nan(dtp, torch.clamp(dp, min=0))
        intercept = tp[1:] - slope * p[1:]
        ratio = torch.where(torch.logical_and(p[:n - 1] > 0, p[1:] > 0),
                            divide_no_nan(p[:n - 1], torch.clamp(p[1:], min=0)),
                            torch.ones_like(p[1:]))
        increments = divide_no_nan(slope * (dtp + intercept * torch.log(ratio)),
                                   torch.clamp(tp[1:] + self.false_negative[1:], min=0))
        return torch.sum(increments)

    def compute(self):
        """The AUC as a Python float."""
        if self.curve == "PR" and self.summation_method == "interpolation":
            return float(self._interpolate_pr_auc())
        n = self.num_thresholds
        recall = divide_no_nan(self.true_positive, self.true_positive + self.false_negative)
        if self.curve == "ROC":
            x = divide_no_nan(self.false_positive, self.false_positive + self.true_negative)
            y = recall
        else:
            x = recall
            y = divide_no_nan(self.true_positive, self.true_positive + self.false_positive)
        if self.summation_method == "interpolation":
            heights = (y[:n - 1] + y[1:]) / 2
        elif self.summation_method == "minoring":
            heights = torch.minimum(y[:n - 1], y[1:])
        else:
            heights = torch.maximum(y[:n - 1], y[1:])
        return float(torch.sum((x[:n - 1] - x[1:]) * heights))
