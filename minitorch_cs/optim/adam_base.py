"""``cstorch.optim.Adam`` and ``AdamW`` (mirrors ``cerebras/pytorch/optim/AdamBase.py``).

Both share one update rule. Differences from torch, as in cstorch: eps is added to ``sqrt(v)``
*before* the bias correction is applied, the bias correction is tracked as running powers
``beta1_power``/``beta2_power`` in the state (no step counter), default ``eps=1e-6``, and Adam's
``weight_decay`` is an L2 penalty stored as ``l2_regularization_rate`` (its ``weight_decay``
group entry is always 0.0), while AdamW's ``weight_decay`` is decoupled.
"""
from __future__ import annotations

import numpy as np

from .. import torch
from ..core.creation import zeros_like
from ._functional import (bump_versions, direct_arrays, direct_ok, is_zero, run_closure,
                          scalar)
from .optimizer import Optimizer

__all__ = ["AdamBase", "Adam", "AdamW", "adam_update"]


def adam_update(param, grad, exp_avg, exp_avg_sq, *, lr, beta1, beta2, eps, weight_decay=0.0,
                l2_regularization_rate=0.0, max_exp_avg_sq=None, beta1_power=None,
                beta2_power=None) -> None:
    """One Adam/AdamW step for one parameter, in place.

    ``g ← grad + l2·p``; ``m ← β1 m + (1−β1) g``; ``v ← β2 v + (1−β2) g²``;
    ``u ← m / (√v̂ + eps)`` (``v̂ = max_exp_avg_sq ← max(max_exp_avg_sq, v)`` when given);
    with bias correction (``beta1_power`` given) ``u ← u·√(1−β2^t)/(1−β1^t)`` and the powers
    advance; ``u ← u + wd·p``; ``p ← p − lr·u``.
    """
    if isinstance(l2_regularization_rate, torch.Tensor) or l2_regularization_rate > 0.0:
        # Like cstorch, only a positive L2 rate is applied (Adam(weight_decay<0) is a no-op).
        grad = grad + param * l2_regularization_rate
    exp_avg.mul_(beta1).add_(grad, alpha=1.0 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1.0 - beta2)
    if max_exp_avg_sq is not None:
        torch.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)  # (torch's Adam)
        denom = max_exp_avg_sq.sqrt().add_(eps)
    else:
        denom = exp_avg_sq.sqrt().add_(eps)
    update = exp_avg / denom
    if beta1_power is not None:
        step_size = torch.sqrt(1.0 - beta2_power) / (1.0 - beta1_power)
        update.mul_(step_size)
        beta1_power.mul_(beta1)
        beta2_power.mul_(beta2)
    if not is_zero(weight_decay):
        update.add_(param * weight_decay)
    update.mul_(lr)
    param.sub_(update)


def _direct_update(param, grad, exp_avg, exp_avg_sq, *, lr, beta1, beta2, eps, weight_decay,
                   l2_regularization_rate, beta1_power, beta2_power) -> bool:
    """:func:`adam_update` (without amsgrad) on the arrays by numpy's ufuncs when that is exactly
    what the tensor ops compute (``direct_arrays``; the beta powers 0-d arrays of the parameter's
    dtype): each step below is the kernel of the op it replaces, in the same order. False
    (nothing done) to take the tensor ops. The caller checked ``direct_ok``."""
    arrays = direct_arrays(param, grad, exp_avg, exp_avg_sq)
    if arrays is None:
        return False
    p, g, m, v = arrays
    powers = None
    if beta1_power is not None:
        powers = [t._data for t in (beta1_power, beta2_power)]
        if beta2_power is None or any(
                t._meta or a.ndim or a.dtype != p.dtype or not a.flags.writeable
                for t, a in zip((beta1_power, beta2_power), powers)):
            return False
    if l2_regularization_rate > 0.0:
        g = g + p * l2_regularization_rate
    np.multiply(m, beta1, out=m)
    alpha = 1.0 - beta1
    np.add(m, g if alpha == 1 else g * alpha, out=m)
    np.multiply(v, beta2, out=v)
    # addcmul's order: (value * t1) * t2, then the sum
    np.add(v, g * np.asarray(1.0 - beta2, p.dtype) * g, out=v)
    denom = np.sqrt(v)
    np.add(denom, eps, out=denom)
    update = m / denom
    if powers is not None:
        b1p, b2p = powers
        update *= np.sqrt(1.0 - b2p) / (1.0 - b1p)
        np.multiply(b1p, beta1, out=b1p)
        np.multiply(b2p, beta2, out=b2p)
        bump_versions(beta1_power)
        bump_versions(beta2_power)
    if weight_decay != 0:
        update += p * weight_decay
    update *= lr
    np.subtract(p, update, out=p)
    bump_versions(exp_avg, 2)
    bump_versions(exp_avg_sq, 2)
    bump_versions(param)
    return True


class AdamBase(Optimizer):
    """Shared implementation of :class:`Adam` and :class:`AdamW`.

    Raises:
        ValueError: negative lr or eps; a beta outside [0, 1).
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-6,
                 weight_decay: float = 0.0, l2_regularization_rate: float = 0.0,
                 correct_bias: bool = True, amsgrad: bool = False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr} - should be >= 0.0")
        for b in betas[:2]:
            if not 0.0 <= b < 1.0:
                raise ValueError(f"Invalid beta parameter: {b} - should be in [0.0, 1.0]")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps} - should be >= 0.0")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        l2_regularization_rate=l2_regularization_rate,
                        correct_bias=correct_bias, amsgrad=amsgrad)
        super().__init__(params, defaults)

    def preinitialize(self):
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = zeros_like(p)
                if group["correct_bias"]:
                    beta1, beta2 = group["betas"]
                    state["beta1_power"] = scalar(beta1, p)
                    state["beta2_power"] = scalar(beta2, p)

    def step(self, closure=None):
        loss = run_closure(closure)
        with torch.no_grad():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                direct = not group["amsgrad"] and direct_ok(
                    group["lr"], beta1, beta2, group["eps"], group["weight_decay"],
                    group["l2_regularization_rate"])
                for p in group["params"]:
                    grad = p.grad
                    if grad is None:
                        continue
                    state = self.state[p]
                    if direct and _direct_update(
                            p, grad, state["exp_avg"], state["exp_avg_sq"], lr=group["lr"],
                            beta1=beta1, beta2=beta2, eps=group["eps"],
                            weight_decay=group["weight_decay"],
                            l2_regularization_rate=group["l2_regularization_rate"],
                            beta1_power=state.get("beta1_power"),
                            beta2_power=state.get("beta2_power")):
                        continue
                    adam_update(p, grad, state["exp_avg"], state["exp_avg_sq"],
                                lr=group["lr"], beta1=beta1, beta2=beta2, eps=group["eps"],
                                weight_decay=group["weight_decay"],
                                l2_regularization_rate=group["l2_regularization_rate"],
                                max_exp_avg_sq=state.get("max_exp_avg_sq"),
                                beta1_power=state.get("beta1_power"),
                                beta2_power=state.get("beta2_power"))
        return loss

    def load_state_dict(self, state_dict):
        """Load a state dict; a torch/HuggingFace-style ``step`` entry becomes beta powers."""
        state_dict = dict(state_dict)
        new_state = {}
        for key, st in state_dict["state"].items():
            if "step" in st and "beta1_power" not in st:
                st = dict(st)
                step = st.pop("step")
                step = step.item() if isinstance(step, torch.Tensor) else step
                for group in state_dict["param_groups"]:
                    if key in group["params"]:
                        if group["correct_bias"]:
                            beta1, beta2 = group["betas"]
                            st["beta1_power"] = torch.tensor(beta1 ** step, dtype=torch.float32)
                            st["beta2_power"] = torch.tensor(beta2 ** step, dtype=torch.float32)
                        break
            new_state[key] = st
        state_dict["state"] = new_state
        super().load_state_dict(state_dict)


class AdamW(AdamBase):
    """Adam with decoupled weight decay (cstorch flavour: eps before bias correction).

    Args:
        params: parameters or parameter groups.
        lr: learning rate.
        betas: coefficients of the running averages of the gradient and its square.
        eps: added to ``sqrt(v)`` before the bias correction.
        weight_decay: decoupled weight decay (negative values are accepted, like cstorch).
        correct_bias: apply the bias correction (False: BERT-style, no beta powers in state).
        amsgrad: use the running maximum of ``v``.
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-6,
                 weight_decay: float = 0.0, correct_bias: bool = True, amsgrad: bool = False):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                         l2_regularization_rate=0.0, correct_bias=correct_bias, amsgrad=amsgrad)
        for group in self.param_groups:
            group["l2_regularization_rate"] = 0.0

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        state_dict["param_groups"] = [dict(g, l2_regularization_rate=0.0)
                                      for g in state_dict["param_groups"]]
        super().load_state_dict(state_dict)


class Adam(AdamBase):
    """Adam whose ``weight_decay`` is an L2 penalty added to the gradient.

    The value is stored in the groups as ``l2_regularization_rate``; their ``weight_decay`` entry
    is 0.0 (so a weight-decay scheduler on Adam schedules a value Adam never reads, like cstorch).
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-6,
                 weight_decay: float = 0.0, amsgrad: bool = False):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=0.0,
                         l2_regularization_rate=weight_decay, correct_bias=True,
                         amsgrad=amsgrad)
        _move_weight_decay(self.param_groups)

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        groups = [dict(g) for g in state_dict["param_groups"]]
        _move_weight_decay(groups)
        state_dict["param_groups"] = groups
        super().load_state_dict(state_dict)


def _move_weight_decay(groups) -> None:
    """A group's ``weight_decay`` becomes its ``l2_regularization_rate`` (unless already set)."""
    for group in groups:
        group.setdefault("l2_regularization_rate", group.pop("weight_decay", 0.0))
        group["weight_decay"] = 0.0
        group["correct_bias"] = True
