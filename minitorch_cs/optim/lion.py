"""``cstorch.optim.Lion`` (mirrors ``cerebras/pytorch/optim/Lion.py``): sign of an interpolated
momentum, decoupled weight decay."""
from __future__ import annotations

from .. import torch
from ..core.creation import zeros_like
from ._functional import is_zero, run_closure
from .optimizer import Optimizer

__all__ = ["Lion", "lion_update"]


def lion_update(param, grad, exp_avg, *, lr, beta1, beta2, weight_decay=0.0) -> None:
    """``p ← p·(1−lr·wd)``; ``p ← p − lr·sign(β1 m + (1−β1) g)``; ``m ← β2 m + (1−β2) g``."""
    if not is_zero(weight_decay):
        param.mul_(1 - lr * weight_decay)
    update = (exp_avg * beta1).add_(grad, alpha=1 - beta1).sign_()
    param.sub_(update * lr)
    exp_avg.mul_(beta2).add_(grad, alpha=1 - beta2)


class Lion(Optimizer):
    """Lion (Chen et al. 2023, "Symbolic Discovery of Optimization Algorithms").

    Args:
        params: parameters or parameter groups.
        lr: learning rate.
        betas: interpolation and momentum coefficients.
        weight_decay: decoupled weight decay.
    """

    def __init__(self, params, lr: float = 1e-4, betas=(0.9, 0.99), weight_decay: float = 0.0):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        for i, b in enumerate(betas[:2]):
            if not 0.0 <= b < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {b}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))

    def preinitialize(self):
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["exp_avg"] = zeros_like(p)

    def step(self, closure=None):
        loss = run_closure(closure)
        with torch.no_grad():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    lion_update(p, p.grad, self.state[p]["exp_avg"], lr=group["lr"], beta1=beta1,
                                beta2=beta2, weight_decay=group["weight_decay"])
        return loss
