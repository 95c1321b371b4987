"""``cstorch.optim.Muon`` (mirrors ``cerebras/pytorch/optim/Muon.py``, new in cstorch 2.10).

Momentum SGD whose update is orthogonalized by a quintic Newton–Schulz iteration (Jordan et al.,
https://kellerjordan.github.io/posts/muon/), with the learning rate scaled by
``0.2·√max(A, B)`` for an ``A×B…`` parameter and decoupled weight decay.

Written from the reference description: the real class fails on every CPU step (it calls its
Newton–Schulz helper as an unbound function), never stores its momentum buffer back into the
state, and on CSX always runs one Newton–Schulz step whatever ``ns_steps`` says. Here the buffer is
updated in place and ``ns_steps`` iterations run on every backend (SPEC, optim).
"""
from __future__ import annotations

import math

from .. import torch
from ..core.creation import zeros_like
from ._functional import run_closure
from .optimizer import Optimizer

__all__ = ["Muon", "muon_update", "zeropower_via_newtonschulz5"]

NS_COEFFICIENTS = (3.4445, -4.7750, 2.0315)


def zeropower_via_newtonschulz5(G, steps: int = 5):
    """Approximate the orthogonal factor ``U Vᵀ`` of ``G = U S Vᵀ`` (G has ≥ 2 dims).

    Runs in bfloat16 like cstorch: every op rounds its result to bfloat16 (matmuls and the norm
    accumulate in float32 first, as torch's CPU kernels do). The iteration is
    ``A = X Xᵀ; B = bA + cA²; X ← aX + BX`` on ``X = G/(‖G‖_F + 1e-7)``, transposed so that
    ``X`` is wide.
    """
    if G.ndim < 2:
        raise ValueError(f"G has {G.ndim} dimensions. Requires G has 2 or more dimensions")
    a, b, c = NS_COEFFICIENTS
    X = G.bfloat16()
    transpose = G.size(-2) > G.size(-1)
    if transpose:
        X = X.mT
    norm = X.float().norm(dim=(-2, -1), keepdim=True).bfloat16()
    X = X / (norm + 1e-7)
    for _ in range(steps):
        A = X @ X.mT
        B = b * A + c * (A @ A)
        X = a * X + B @ X
    if transpose:
        X = X.mT
    return X


def muon_lr_scale(shape) -> float:
    """``0.2·√max(A, B)`` for a parameter of shape ``(A, B, ...)``."""
    if len(shape) < 2:
        raise ValueError(f"G has {len(shape)} dimensions. Requires G has 2 or more dimensions")
    return 0.2 * math.sqrt(max(shape[0], shape[1]))


def muon_update(param, grad, momentum_buffer, *, lr, momentum, weight_decay, nesterov=True,
                ns_steps=5) -> None:
    """``buf ← μ·buf + (1−μ)·g``; ``u = g + μ·buf`` (nesterov) or ``buf``; 4-D updates are
    flattened to 2-D; ``O = NS(u)``; ``lr' = lr·0.2·√max(A,B)``;
    ``p ← p·(1 − lr'·wd) − lr'·O`` (``O`` is bfloat16; the product is rounded to bfloat16)."""
    scale = muon_lr_scale(tuple(param.shape))
    momentum_buffer.mul_(momentum).add_(grad, alpha=1 - momentum)
    eff = grad + momentum_buffer * momentum if nesterov else momentum_buffer
    if eff.ndim == 4:
        eff = eff.reshape(len(eff), -1)
    eff = zeropower_via_newtonschulz5(eff, steps=ns_steps)
    eff = eff.reshape(tuple(param.shape))
    adjusted_lr = lr * scale
    param.mul_(1 - adjusted_lr * weight_decay)
    param.add_(eff * (-adjusted_lr))


class Muon(Optimizer):
    """Muon: momentum orthogonalized by Newton–Schulz (parameters must have ≥ 2 dims).

    Args:
        params: parameters or parameter groups (matrices or conv kernels).
        lr: learning rate before the ``0.2·√max(A, B)`` scaling.
        weight_decay: decoupled weight decay, in [0, 1).
        momentum: EMA coefficient of the momentum buffer, in [0, 1).
        nesterov: use the Nesterov-style update ``g + μ·buf``.
        ns_steps: Newton–Schulz iterations.
    """

    def __init__(self, params, lr: float = 0.02, weight_decay: float = 0.01,
                 momentum: float = 0.95, nesterov: bool = True, ns_steps: int = 5):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr} - should be >= 0.0")
        if not 0.0 <= weight_decay < 1.0:
            raise ValueError(f"Invalid weight decay parameter: {weight_decay} - should be in "
                             f"[0.0, 1.0]")
        if not 0.0 <= momentum < 1.0:
            raise ValueError(f"Invalid momentum parameter: {momentum} - should be in [0.0, 1.0]")
        if ns_steps < 0:
            raise ValueError(f"Invalid number of steps: {ns_steps} - should be >= 0")
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay, momentum=momentum,
                                      nesterov=nesterov, ns_steps=ns_steps))

    def preinitialize(self):
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["momentum_buffer"] = zeros_like(p)

    def step(self, closure=None):
        loss = run_closure(closure)
        with torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    muon_update(p, p.grad, self.state[p]["momentum_buffer"], lr=group["lr"],
                                momentum=group["momentum"], weight_decay=group["weight_decay"],
                                nesterov=group["nesterov"], ns_steps=group["ns_steps"])
        return loss
