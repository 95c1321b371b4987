"""``cstorch.optim.RMSprop`` (mirrors ``cerebras/pytorch/optim/RMSprop.py``): torch's algorithm
(L2, optional momentum and centering) with preinitialized state; no ``maximize``."""
from __future__ import annotations

from .. import torch
from ..core.creation import zeros_like
from ._functional import is_zero, run_closure, scale_sub_
from .optimizer import Optimizer

__all__ = ["RMSprop", "rmsprop_update"]


def rmsprop_update(param, grad, square_avg, *, lr, alpha, eps, weight_decay=0.0, momentum=0.0,
                   momentum_buffer=None, grad_avg=None) -> None:
    """``g ← grad + wd·p``; ``s ← αs + (1−α)g²``; centered: ``ḡ ← αḡ + (1−α)g`` and
    ``d ← √(s−ḡ²)+eps``, else ``d ← √s+eps``; momentum: ``b ← μb + g/d``, ``p ← p − lr·b``;
    else ``p ← p − lr·g/d``."""
    if not is_zero(weight_decay):
        grad = grad + param * weight_decay
    square_avg.mul_(alpha).addcmul_(grad, grad, value=1.0 - alpha)
    if grad_avg is not None:
        grad_avg.mul_(alpha).add_(grad, alpha=1 - alpha)
        avg = square_avg.addcmul(grad_avg, grad_avg, value=-1.0).sqrt_().add_(eps)
    else:
        avg = square_avg.sqrt().add_(eps)
    if momentum > 0.0:
        momentum_buffer.mul_(momentum).addcdiv_(grad, avg)
        scale_sub_(param, momentum_buffer, lr)
    else:
        param.addcdiv_(grad * lr, avg, value=-1)


class RMSprop(Optimizer):
    """RMSprop (Hinton, lecture 6.5).

    Args:
        params: parameters or parameter groups.
        lr: learning rate.
        alpha: smoothing constant.
        eps: numerical-stability term.
        weight_decay: L2 penalty.
        momentum: momentum factor.
        centered: normalize by the estimated variance instead of the second moment.
    """

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if alpha < 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay))

    def preinitialize(self):
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["square_avg"] = zeros_like(p)
                if group["momentum"] > 0:
                    self.state[p]["momentum_buffer"] = zeros_like(p)
                if group["centered"]:
                    self.state[p]["grad_avg"] = zeros_like(p)

    def step(self, closure=None):
        loss = run_closure(closure)
        with torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    st = self.state[p]
                    rmsprop_update(p, p.grad, st["square_avg"], lr=group["lr"],
                                   alpha=group["alpha"], eps=group["eps"],
                                   weight_decay=group["weight_decay"], momentum=group["momentum"],
                                   momentum_buffer=st.get("momentum_buffer"),
                                   grad_avg=st.get("grad_avg"))
        return loss
