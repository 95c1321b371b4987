"""``cstorch.optim.Rprop`` (mirrors ``cerebras/pytorch/optim/Rprop.py``): torch's Rprop with the
sign-change logic written as ``torch.where`` selections."""
from __future__ import annotations

from .. import torch
from ..core.creation import full_like, zeros_like
from ._functional import run_closure, scalar
from .optimizer import Optimizer

__all__ = ["Rprop", "rprop_update"]


def rprop_update(param, grad, prev, step_size, *, etas, step_sizes) -> None:
    """Per element: ``s = g·prev``; the step size is multiplied by ``eta+`` (s>0), ``eta−``
    (s<0) or 1 (s=0), clamped to ``step_sizes``; where the sign flipped the gradient counts as
    0; ``p ← p − sign(g)·step_size``; ``prev ← g``."""
    etaminus, etaplus = (e if isinstance(e, torch.Tensor) else scalar(e, param) for e in etas)
    lo, hi = step_sizes
    # the same where-chain as cstorch, so degenerate etas (e.g. eta- == 1) behave identically
    m = grad * prev
    m = torch.where(m > 0, etaplus, m)
    m = torch.where(m < 0, etaminus, m)
    m = torch.where(m == 0, 1.0, m)
    new_size = torch.clamp(step_size * m, min=lo, max=hi)
    # Differs from cstorch: cstorch zeroes the flipped entries of p.grad in place; we leave the
    # caller's gradient untouched (SPEC, optim).
    grad = torch.where(m == etaminus, 0.0, grad)
    param.sub_(grad.sign() * new_size)
    prev.copy_(grad)
    step_size.copy_(new_size)


class Rprop(Optimizer):
    """Resilient backpropagation (Riedmiller & Braun 1993).

    Args:
        params: parameters or parameter groups.
        lr: initial step size.
        etas: (decrease, increase) multipliers (not validated, like cstorch).
        step_sizes: (minimum, maximum) step size.
    """

    def __init__(self, params, lr: float = 1e-3, etas=(0.5, 1.2), step_sizes=(1e-6, 50.0)):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes))

    def preinitialize(self):
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["prev"] = zeros_like(p)
                self.state[p]["step_size"] = full_like(p, group["lr"])

    def step(self, closure=None):
        loss = run_closure(closure)
        with torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    st = self.state[p]
                    rprop_update(p, p.grad, st["prev"], st["step_size"], etas=group["etas"],
                                 step_sizes=group["step_sizes"])
        return loss
