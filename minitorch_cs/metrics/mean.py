"""``MeanMetric``: the (weighted) mean of a stream of values."""
from __future__ import annotations

from .. import torch
from .metric import Metric


class MeanMetric(Metric):
    def reset(self):
        self.register_state("mean_value", torch.tensor(0, dtype=torch.float32))
        self.register_state("weight", torch.tensor(0, dtype=torch.float32))
        self._dtype = None

    def update(self, value, weight=1.0, dtype=None):
        if not isinstance(value, torch.Tensor):
            value = torch.as_tensor(value, dtype=torch.float32)
        if not isinstance(weight, torch.Tensor):
            weight = torch.as_tensor(weight, dtype=torch.float32)
        weight = torch.broadcast_to(weight, value.shape)
        self.mean_value.add_((value * weight).sum())
        self.weight.add_(weight.sum())
        self._dtype = dtype

    def compute(self):
        result = self.mean_value / self.weight
        return result.to(self._dtype) if self._dtype is not None else result
