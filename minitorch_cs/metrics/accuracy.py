"""``AccuracyMetric``: the fraction of predictions equal to their labels (optionally weighted)."""
from __future__ import annotations

import warnings

from .. import torch
from .metric import Metric


class AccuracyMetric(Metric):
    def reset(self):
        self.register_state("total_correct_predictions", torch.tensor(0, dtype=torch.float32))
        self.register_state("total_num_tokens", torch.tensor(0, dtype=torch.float32))
        self._dtype = None

    def update(self, labels, predictions, weights=None, dtype=None):
        if labels.shape != predictions.shape:
            warnings.warn(f"Shapes mismatch in accuracy metric\n    labels: {labels.shape}\n    "
                          f"predictions {predictions.shape}")
            predictions = predictions.reshape(labels.shape)
        correct = (labels == predictions).float()
        if weights is None:
            num_correct = correct.sum()
            num_tokens = torch.tensor(correct.numel(), dtype=torch.float32)
        else:
            num_correct = (correct * weights).sum()
            num_tokens = (weights > 0).float().sum()
        self.total_correct_predictions.add_(num_correct)
        self.total_num_tokens.add_(num_tokens)
        self._dtype = dtype

    def compute(self):
        result = self.total_correct_predictions / self.total_num_tokens
        return result.to(self._dtype) if self._dtype is not None else result
