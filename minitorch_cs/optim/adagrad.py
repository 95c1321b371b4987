"""``cstorch.optim.Adagrad`` (mirrors ``cerebras/pytorch/optim/Adagrad.py``): torch's algorithm
with a global step counter in the state and cstorch's default ``eps=1e-6`` (torch: 1e-10)."""
from __future__ import annotations

from .. import torch
from ..core.creation import full_like
from ._functional import is_zero, run_closure
from .optimizer import Optimizer

__all__ = ["Adagrad", "adagrad_update"]


def adagrad_update(param, grad, state_sum, step, *, lr, lr_decay=0.0, weight_decay=0.0, eps=1e-6,
                   maximize=False) -> None:
    """``g ← ±grad + wd·p``; ``sum ← sum + g²``;
    ``p ← p − lr·g/(1+(t−1)·lr_decay)/(√sum+eps)``; ``step`` is t (already incremented)."""
    if maximize:
        grad = -grad
    if not is_zero(weight_decay):
        grad = grad + param * weight_decay
    state_sum.addcmul_(grad, grad, value=1.0)
    std = state_sum.sqrt().add_(eps)
    grad = grad / (1.0 + (step - 1.0) * lr_decay)
    param.addcdiv_(grad * lr, std, value=-1)


class Adagrad(Optimizer):
    """Adagrad (Duchi et al. 2011).

    Args:
        params: parameters or parameter groups.
        lr: learning rate.
        lr_decay: learning-rate decay per step.
        weight_decay: L2 penalty.
        initial_accumulator_value: starting value of the squared-gradient sum.
        eps: numerical-stability term.
        maximize: ascend instead of descend.
    """

    def __init__(self, params, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-6,
                 maximize: bool = False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if lr_decay < 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if initial_accumulator_value < 0.0:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps,
                                      weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      maximize=maximize), enable_global_step=True)

    def preinitialize(self):
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"] = full_like(p, group["initial_accumulator_value"])

    def step(self, closure=None):
        loss = run_closure(closure)
        with torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    step = self.increment_global_step(p)
                    adagrad_update(p, p.grad, self.state[p]["sum"], step, lr=group["lr"],
                                   lr_decay=group["lr_decay"], weight_decay=group["weight_decay"],
                                   eps=group["eps"], maximize=group["maximize"])
        return loss
