"""``ComputeNorm``: logs the model-wise norm of the parameters and of the gradients, and the
gradient norm of each ``layers.<i>`` block."""
from __future__ import annotations

import re

from minitorch_cs import torch

from .callback import Callback

__all__ = ["ComputeNorm"]

_LAYER = re.compile(r".*(layers\.)(\d+)(\.).*")


def _sq_norm(t):
    t = t.detach().float()
    return (t * t).sum()


class ComputeNorm(Callback):
    """Logs ``model_wise_params_norm`` before the backward pass and ``model_wise_grad_norm`` and
    ``per_layer_grad_norm/layer_<i>`` before the optimizer step."""

    def on_before_backward(self, trainer, model, outputs):
        total = torch.tensor(0.0)
        for _, p in model.named_parameters():
            if p.requires_grad:
                total = total + _sq_norm(p)
        trainer.log_metrics(model_wise_params_norm=torch.sqrt(total))

    def on_before_optimizer_step(self, trainer, model, optimizer):
        total = torch.tensor(0.0)
        per_layer = {}
        for name, p in model.named_parameters():
            if p.grad is None:
                continue
            sq = _sq_norm(p.grad)
            total = total + sq
            match = _LAYER.match(name)
            if match:
                layer = match.group(2)
                per_layer[layer] = per_layer.get(layer, torch.tensor(0.0)) + sq
        trainer.log_metrics(model_wise_grad_norm=torch.sqrt(total))
        if per_layer:
            trainer.log_metrics(**{f"per_layer_grad_norm/layer_{k}": torch.sqrt(v)
                                   for k, v in per_layer.items()})
