"""``cstorch.optim.Adamax`` (mirrors ``cerebras/pytorch/optim/Adamax.py``): the infinity-norm Adam
variant with the bias correction tracked as ``beta1_power`` and eps added inside the max."""
from __future__ import annotations

from .. import torch
from ..core.creation import zeros_like
from ._functional import is_zero, run_closure, scalar
from .optimizer import Optimizer

__all__ = ["Adamax", "adamax_update"]


def adamax_update(param, grad, exp_avg, exp_inf, beta1_power, *, lr, beta1, beta2, eps,
                  weight_decay=0.0, maximize=False) -> None:
    """``g ← ±grad + wd·p``; ``m ← β1 m + (1−β1) g``; ``u ← max(β2 u, |g|+eps)``;
    ``p ← p − lr·m/u/(1−β1^t)``; ``beta1_power`` advances."""
    if maximize:
        grad = -grad
    if not is_zero(weight_decay):
        grad = grad + param * weight_decay
    exp_avg.mul_(beta1).add_(grad, alpha=1.0 - beta1)
    exp_inf.copy_(torch.maximum(exp_inf * beta2, grad.abs().add_(eps)))
    update = exp_avg / exp_inf
    update.div_(1.0 - beta1_power)
    beta1_power.mul_(beta1)
    update.mul_(lr)
    param.sub_(update)


class Adamax(Optimizer):
    """Adamax (Kingma & Ba 2015, section 7).

    Args:
        params: parameters or parameter groups.
        lr: learning rate.
        betas: decay of the first moment and of the infinity norm.
        eps: added to ``|g|`` inside the max.
        weight_decay: L2 penalty (not validated, like cstorch).
        maximize: ascend instead of descend.
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-6,
                 weight_decay: float = 0.0, maximize: bool = False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr} - should be >= 0.0")
        for b in betas[:2]:
            if not 0.0 <= b < 1.0:
                raise ValueError(f"Invalid beta parameter: {b} - should be in [0.0, 1.0)")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps} - should be >= 0.0")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize))

    def preinitialize(self):
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["exp_avg"] = zeros_like(p)
                state["exp_inf"] = zeros_like(p)
                state["beta1_power"] = scalar(group["betas"][0], p)

    def step(self, closure=None):
        loss = run_closure(closure)
        with torch.no_grad():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    st = self.state[p]
                    adamax_update(p, p.grad, st["exp_avg"], st["exp_inf"], st["beta1_power"],
                                  lr=group["lr"], beta1=beta1, beta2=beta2, eps=group["eps"],
                                  weight_decay=group["weight_decay"], maximize=group["maximize"])
        return loss
