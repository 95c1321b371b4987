"""``MeanPerClassAccuracyMetric``: the accuracy of each class, averaged over all classes."""
from __future__ import annotations

from typing import Optional

from .. import torch
from ._checks import check_shapes
from .metric import Metric
from .utils import divide_no_nan

__all__ = ["MeanPerClassAccuracyMetric"]


class MeanPerClassAccuracyMetric(Metric):
    """Per class, (weighted) correct predictions over (weighted) labels of that class; the mean
    runs over all ``num_classes`` classes, so a class never seen contributes 0 (as cstorch)."""

    def __init__(self, num_classes, name: Optional[str] = None):
        self.num_classes = num_classes
        super().__init__(name=name)

    def reset(self):
        self.register_state("total_per_class_correct_predictions",
                            torch.zeros(self.num_classes, dtype=torch.float32))
        self.register_state("total_per_class_tokens",
                            torch.zeros(self.num_classes, dtype=torch.float32))
        self._dtype = None

    def update(self, labels, predictions, weights=None, dtype=None):
        check_shapes(labels, predictions, weights)
        labels, predictions = labels.to(torch.long).flatten(), predictions.flatten()
        correct = (labels == predictions).to(torch.float32)
        tokens = torch.ones_like(predictions).to(torch.float32)
        if weights is not None:
            weights = weights.flatten()
            correct, tokens = correct * weights, tokens * weights
        for state, src in ((self.total_per_class_correct_predictions, correct),
                           (self.total_per_class_tokens, tokens)):
            state.add_(torch.zeros(self.num_classes, dtype=torch.float32).scatter_add_(
                dim=0, index=labels, src=src.to(torch.float32)))
        self._dtype = dtype

    def compute(self):
        result = torch.mean(divide_no_nan(self.total_per_class_correct_predictions,
                                          self.total_per_class_tokens))
        return result.to(self._dtype) if self._dtype is not None else result
