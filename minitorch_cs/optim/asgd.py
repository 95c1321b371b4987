"""``cstorch.optim.ASGD`` (mirrors ``cerebras/pytorch/optim/ASGD.py``): averaged SGD with torch's
semantics, every schedule quantity (``eta``, ``mu``, the average ``ax``) kept as state tensors."""
from __future__ import annotations

from .. import torch
from ..core.creation import zeros_like
from ._functional import is_zero, run_closure, scalar
from .optimizer import Optimizer

__all__ = ["ASGD", "asgd_update"]


def asgd_update(param, grad, eta, mu, ax, step, *, lr, lambd, alpha, t0, weight_decay=0.0,
                maximize=False) -> None:
    """``g ← ±grad + wd·p``; ``p ← p·(1−λη) − η·g``; ``ax ← p`` if ``μ=1`` else
    ``ax + μ(p−ax)``; ``η ← lr/(1+λ·lr·t)^α``; ``μ ← 1/max(1, t−t0)`` (``step`` is t)."""
    if maximize:
        grad = -grad
    if not is_zero(weight_decay):
        grad = grad + param * weight_decay
    alpha = alpha if isinstance(alpha, torch.Tensor) else scalar(alpha, param)
    param.mul_(1 - lambd * eta)
    param.sub_(grad * eta)
    ax.copy_(torch.where(mu == 1, param, ax.add(param.sub(ax).mul(mu))))
    eta.copy_(lr / torch.pow(1 + lambd * lr * step, alpha))
    mu.copy_(1 / torch.maximum(torch.ones((), dtype=mu.dtype), step - t0))


class ASGD(Optimizer):
    """Averaged stochastic gradient descent (Polyak & Juditsky 1992).

    Args:
        params: parameters or parameter groups.
        lr: learning rate.
        lambd: decay term.
        alpha: power of the eta update.
        t0: step at which averaging starts.
        weight_decay: L2 penalty.
        maximize: ascend instead of descend.
    """

    def __init__(self, params, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, maximize: bool = False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                                      weight_decay=weight_decay, maximize=maximize),
                         enable_global_step=True)

    def preinitialize(self):
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["eta"] = scalar(group["lr"], p)
                self.state[p]["mu"] = scalar(1.0, p)
                self.state[p]["ax"] = zeros_like(p)

    def step(self, closure=None):
        loss = run_closure(closure)
        with torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    st = self.state[p]
                    step = self.increment_global_step(p)
                    asgd_update(p, p.grad, st["eta"], st["mu"], st["ax"], step, lr=group["lr"],
                                lambd=group["lambd"], alpha=group["alpha"], t0=group["t0"],
                                weight_decay=group["weight_decay"], maximize=group["maximize"])
        return loss
