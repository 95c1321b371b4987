"""``PrecisionAtKMetric`` and ``RecallAtKMetric``: top-k retrieval quality.

``labels`` is ``(batch, num_labels)`` (the relevant class ids per row), ``predictions`` the
``(batch, num_classes)`` scores. Per row, the hits are the labels found among the top ``k``
predicted classes: precision@k accumulates ``hits`` and ``k - hits``, recall@k ``hits`` and
``num_labels - hits``, each times the row's weight. ``compute`` returns a Python float. Not
supported on CSX (``NotImplementedError``, as cstorch).
"""
from __future__ import annotations

from typing import Optional

from .. import torch
from ..backend import use_cs
from .metric import Metric

__all__ = ["PrecisionAtKMetric", "RecallAtKMetric"]


def _hits(labels, predictions, k, weights):
    if weights is not None and len(weights.shape) != 0 and weights.numel() != labels.shape[0]:
        raise ValueError(f"`labels`={labels.shape} and `weights`={weights.shape} so`weights` must"
                         f" be a scalar or a vector of size {labels.shape[0]}")
    _, top = torch.topk(predictions, k, dim=-1)
    # every label against every top-k index: labels repeated k times vs top-k tiled per label
    same = labels.repeat_interleave(k, dim=1) == top.repeat(1, labels.shape[-1])
    return torch.sum(same, dim=-1).float()


class _AtK(Metric):
    _kind = ""

    def __init__(self, k, name: Optional[str] = None):
        if use_cs():
            raise NotImplementedError(f"{type(self).__name__} not yet supported on CSX.")
        self.k = k
        super().__init__(name=name)

    def reset(self):
        self.register_state("true_positive_at_k", torch.tensor(0, dtype=torch.float32))
        self.register_state(self._other, torch.tensor(0, dtype=torch.float32))

    def update(self, labels, predictions, weights=None):
        hits = _hits(labels, predictions, self.k, weights)
        misses = self._total(labels) - hits
        if weights is not None:
            hits, misses = hits * weights, misses * weights
        self.true_positive_at_k.add_(torch.sum(hits))
        getattr(self, self._other).add_(torch.sum(misses))

    def compute(self):
        tp = self.true_positive_at_k
        return float(tp / (tp + getattr(self, self._other)))


class PrecisionAtKMetric(_AtK):
    """``TP@k / (TP@k + FP@k)``: the share of the top-k predictions that are labels."""

    _other = "false_positive_at_k"

    def _total(self, labels):
        return self.k


class RecallAtKMetric(_AtK):
    """``TP@k / (TP@k + FN@k)``: the share of the labels found in the top-k predictions."""

    _other = "false_negative_at_k"

    def __init__(self, k, name: Optional[str] = None):
        self.num_classes = None
        super().__init__(k, name=name)

    def update(self, labels, predictions, weights=None):
        if self.num_classes is None:
            self.num_classes = predictions.shape[-1]
        super().update(labels, predictions, weights)

    def _total(self, labels):
        return labels.shape[-1]
