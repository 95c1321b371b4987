"""``cstorch.optim.Lamb`` (mirrors ``cerebras/pytorch/optim/Lamb.py``): layer-wise adaptive Adam
without bias correction; the trust ratio uses the weight norm clamped to [0, 10]."""
from __future__ import annotations

from .. import torch
from ..core.creation import zeros_like
from ._functional import is_zero, run_closure
from .optimizer import Optimizer

__all__ = ["Lamb", "lamb_update"]


def lamb_update(param, grad, exp_avg, exp_avg_sq, *, lr, beta1, beta2, eps, weight_decay=0.0,
                adam=False) -> None:
    """``m, v`` as Adam (no bias correction); ``a ← m/(√v+eps) + wd·p``;
    ``r ← ‖p‖/‖a‖`` (with ``‖p‖`` clamped to [0, 10]; 1 if either norm is 0, or if ``adam``);
    ``p ← p − lr·r·a``."""
    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    adam_step = exp_avg / exp_avg_sq.sqrt().add(eps)
    if not is_zero(weight_decay):
        adam_step = adam_step + param * weight_decay
    if adam:
        update = adam_step
    else:
        weight_norm = param.pow(2).sum().sqrt().clamp(0, 10)
        adam_norm = adam_step.pow(2).sum().sqrt()
        ok = (weight_norm > 0).logical_and(adam_norm > 0)
        # divide by a safe denominator so the unused branch never computes 0/0
        trust_ratio = torch.where(ok, weight_norm / torch.where(ok, adam_norm, 1.0), 1.0)
        update = adam_step * trust_ratio
    param.sub_(update * lr)


class Lamb(Optimizer):
    """LAMB (You et al. 2019), as in cstorch.

    Args:
        params: parameters or parameter groups.
        lr: learning rate.
        betas: coefficients of the running averages.
        eps: numerical-stability term.
        weight_decay: added to the Adam step before the trust ratio (not validated, like cstorch).
        adam: use a trust ratio of 1 (plain Adam without bias correction).
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-6,
                 weight_decay: float = 0, adam: bool = False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i, b in enumerate(betas[:2]):
            if not 0.0 <= b < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {b}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      adam=adam))

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
                    lamb_update(p, p.grad, st["exp_avg"], st["exp_avg_sq"], lr=group["lr"],
                                beta1=beta1, beta2=beta2, eps=group["eps"],
                                weight_decay=group["weight_decay"], adam=group["adam"])
        return loss
