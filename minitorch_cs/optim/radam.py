"""``cstorch.optim.RAdam`` (mirrors ``cerebras/pytorch/optim/RAdam.py``): torch's rectified Adam
(threshold ρ_t > 5) with both branches computed and selected by ``torch.where``."""
from __future__ import annotations

from .. import torch
from ..core.creation import zeros_like
from ._functional import is_zero, run_closure, scalar
from .optimizer import Optimizer

__all__ = ["RAdam", "radam_update"]


def radam_update(param, grad, exp_avg, exp_avg_sq, step, *, lr, beta1, beta2, eps,
                 weight_decay=0.0) -> None:
    """``p ← p − lr · m/(1−β1^t) · r_t · √(1−β2^t)/(√v+eps)`` where rectification and adaptive
    terms are 1 while ``ρ_t ≤ 5`` (``step`` is t, already incremented)."""
    b1 = scalar(beta1, param)
    b2 = scalar(beta2, param)
    if not is_zero(weight_decay):
        grad = grad + param * weight_decay
    beta2t = torch.pow(b2, step)
    bias_correction1 = 1 - torch.pow(b1, step)
    bias_correction2 = 1 - beta2t
    exp_avg.mul_(beta1).add_(grad, alpha=1.0 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1.0 - beta2)
    update = exp_avg / bias_correction1
    rho_inf = 2 / (1 - b2) - 1
    rho_t = rho_inf - 2 * step * beta2t / bias_correction2
    rectify = rho_t > 5.0
    # the unused branch (ρ_t ≤ 5) may divide by zero or be negative: select before / and sqrt
    den = torch.where(rectify, (rho_inf - 4.0) * (rho_inf - 2.0) * rho_t, 1.0)
    ratio = (rho_t - 4.0) * (rho_t - 2.0) * rho_inf / den
    rect = torch.sqrt(torch.where(rectify, ratio, 1.0))
    adaptive_lr = torch.where(rectify, torch.sqrt(bias_correction2) / exp_avg_sq.sqrt().add_(eps),
                              1.0)
    update.mul_(rect)
    update.mul_(adaptive_lr)
    update.mul_(lr)
    param.sub_(update)


class RAdam(Optimizer):
    """RAdam (Liu et al. 2020) with a global step counter in the state.

    Args:
        params: parameters or parameter groups.
        lr: learning rate.
        betas: coefficients of the running averages.
        eps: numerical-stability term.
        weight_decay: L2 penalty.
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-6,
                 weight_decay: float = 0.0):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr} - should be >= 0.0")
        for b in betas[:2]:
            if not 0.0 <= b < 1.0:
                raise ValueError(f"Invalid beta parameter: {b} - should be in [0.0, 1.0]")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay} - should be >= 0.0")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps} - should be >= 0.0")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay),
                         enable_global_step=True)

    def preinitialize(self):
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["exp_avg"] = zeros_like(p)
                self.state[p]["exp_avg_sq"] = zeros_like(p)

    def step(self, closure=None):
        loss = run_closure(closure)
        with torch.no_grad():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    st = self.state[p]
                    step = self.increment_global_step(p)
                    radam_update(p, p.grad, st["exp_avg"], st["exp_avg_sq"], step, lr=group["lr"],
                                 beta1=beta1, beta2=beta2, eps=group["eps"],
                                 weight_decay=group["weight_decay"])
        return loss
