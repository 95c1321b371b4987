"""``cstorch.optim.NAdam`` (mirrors ``cerebras/pytorch/optim/NAdam.py``).

Follows cstorch's update, which differs from torch's NAdam in one factor: the bias-correction term
of the momentum part uses ``mu_product · mu_t · mu_{t+1}`` after ``mu_product`` already includes
``mu_t`` (torch: ``mu_product · mu_{t+1}``). Measured against the real stack; see SPEC.
"""
from __future__ import annotations

from .. import torch
from ..core.creation import zeros_like
from ._functional import is_zero, run_closure, scalar
from .optimizer import Optimizer

__all__ = ["NAdam", "nadam_update"]


def nadam_update(param, grad, exp_avg, exp_avg_sq, mu_product, step, *, lr, beta1, beta2, eps,
                 weight_decay=0.0, momentum_decay=4e-3) -> None:
    """One NAdam step (``step`` is t, already incremented; ``mu_product`` advances in place)."""
    beta2t = torch.pow(scalar(beta2, param), step)
    bias_correction2 = 1 - beta2t
    if not is_zero(weight_decay):
        grad = grad + param * weight_decay
    point_nine_six = scalar(0.96, param)
    mu = beta1 * (1.0 - 0.5 * torch.pow(point_nine_six, step * momentum_decay))
    mu_next = beta1 * (1.0 - 0.5 * torch.pow(point_nine_six, (step + 1) * momentum_decay))
    mu_product.mul_(mu)
    mu_product_next = mu_product * mu * mu_next  # sic: cstorch's extra factor mu (module doc)
    exp_avg.mul_(beta1).add_(grad, alpha=1.0 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1.0 - beta2)
    denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
    momentum_update = (exp_avg * mu_next) / (1.0 - mu_product_next)
    grad_update = (grad * (1.0 - mu)) / (1.0 - mu_product)
    update = momentum_update + grad_update
    update.mul_(lr)
    param.addcdiv_(update, denom, value=-1)


class NAdam(Optimizer):
    """NAdam (Dozat 2016) with a global step counter in the state.

    Args:
        params: parameters or parameter groups.
        lr: learning rate.
        betas: coefficients of the running averages.
        eps: numerical-stability term.
        weight_decay: L2 penalty.
        momentum_decay: momentum decay ψ.
    """

    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i, b in enumerate(betas[:2]):
            if not 0.0 <= b < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {b}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if momentum_decay < 0.0:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay), enable_global_step=True)

    def preinitialize(self):
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["mu_product"] = scalar(1.0, p)
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
                    nadam_update(p, p.grad, st["exp_avg"], st["exp_avg_sq"], st["mu_product"],
                                 step, lr=group["lr"], beta1=beta1, beta2=beta2, eps=group["eps"],
                                 weight_decay=group["weight_decay"],
                                 momentum_decay=group["momentum_decay"])
        return loss
