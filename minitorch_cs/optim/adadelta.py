"""``cstorch.optim.Adadelta`` (mirrors ``cerebras/pytorch/optim/Adadelta.py``): torch's algorithm
with preinitialized state and cstorch's default ``eps=1e-6``."""
from __future__ import annotations

from .. import torch
from ..core.creation import zeros_like
from ._functional import is_zero, run_closure
from .optimizer import Optimizer

__all__ = ["Adadelta", "adadelta_update"]


def adadelta_update(param, grad, square_avg, acc_delta, *, lr, rho, eps, weight_decay=0.0,
                    maximize=False) -> None:
    """``g ← ±grad + wd·p``; ``s ← ρs + (1−ρ)g²``; ``δ ← √(a+eps)/√(s+eps)·g``;
    ``a ← ρa + (1−ρ)δ²``; ``p ← p − lr·δ`` (in place)."""
    if maximize:
        grad = -grad
    if not is_zero(weight_decay):
        grad = grad + param * weight_decay
    square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
    std = square_avg.add(eps).sqrt_()
    delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
    acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
    param.sub_(delta * lr)


class Adadelta(Optimizer):
    """Adadelta (Zeiler 2012).

    Args:
        params: parameters or parameter groups.
        lr: scale of the update.
        rho: decay of the running averages (in [0, 1]).
        eps: numerical-stability term.
        weight_decay: L2 penalty.
        maximize: ascend instead of descend.
    """

    def __init__(self, params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, maximize: bool = False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize))

    def preinitialize(self):
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["square_avg"] = zeros_like(p)
                self.state[p]["acc_delta"] = zeros_like(p)

    def step(self, closure=None):
        loss = run_closure(closure)
        with torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    st = self.state[p]
                    adadelta_update(p, p.grad, st["square_avg"], st["acc_delta"], lr=group["lr"],
                                    rho=group["rho"], eps=group["eps"],
                                    weight_decay=group["weight_decay"],
                                    maximize=group["maximize"])
        return loss
