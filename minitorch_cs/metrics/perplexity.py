"""``PerplexityMetric``: exp(total loss / number of tokens)."""
from __future__ import annotations

from .. import torch
from .metric import Metric


class PerplexityMetric(Metric):
    def reset(self):
        self.register_state("total_loss", torch.tensor(0, dtype=torch.float32))
        self.register_state("total_num_tokens", torch.tensor(0, dtype=torch.float32))
        self._dtype = None

    def update(self, labels, loss, weights=None, dtype=None):
        if weights is None:
            num_tokens = torch.tensor(labels.numel(), dtype=torch.float32)
        else:
            num_tokens = (weights > 0).float().sum()
        self.total_loss.add_(loss)
        self.total_num_tokens.add_(num_tokens)
        self._dtype = dtype

    def compute(self):
        result = torch.exp(self.total_loss / self.total_num_tokens)
        return result.to(self._dtype) if self._dtype is not None else result
