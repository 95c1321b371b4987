"""``cstorch.optim.Adafactor`` (mirrors ``cerebras/pytorch/optim/Adafactor.py``): the supported
subset of HuggingFace's Adafactor (external lr, no first moment, clip threshold 1), with factored
second moments for parameters of two or more dimensions and a global step counter."""
from __future__ import annotations

from .. import torch
from ..core.creation import zeros, zeros_like
from ._functional import is_zero, run_closure, scalar, scalar_dtype
from .optimizer import Optimizer

__all__ = ["Adafactor", "adafactor_update"]


def _rms(t):
    return t.square().mean().sqrt()


def adafactor_update(param, grad, step, *, lr, eps=(1e-30, 1e-3), clip_threshold=1.0,
                     decay_rate=-0.8, weight_decay=0.0, scale_parameter=True,
                     exp_avg_sq_row=None, exp_avg_sq_col=None, exp_avg_sq=None) -> None:
    """One Adafactor step (``step`` is t, already incremented).

    ``lr_t = lr·max(rms(p), eps2)`` (or ``lr`` without ``scale_parameter``);
    ``β2_t = 1 − t^decay_rate``; the second moment of ``g² + eps1`` is kept per row and column
    (factored) or in full; ``u = g/√v̂`` divided by ``max(rms(u)/clip_threshold, 1)``;
    ``p ← p − wd·lr_t·p − lr_t·u``.
    """
    if scale_parameter:
        eps2 = eps[1] if isinstance(eps[1], torch.Tensor) else scalar(eps[1], param)
        lr = torch.maximum(_rms(param), eps2) * lr
    decay = decay_rate if isinstance(decay_rate, torch.Tensor) else scalar(decay_rate, param)
    beta2t = 1.0 - torch.pow(step, decay)
    update = grad ** 2 + eps[0]
    if exp_avg_sq_row is not None:
        exp_avg_sq_row.mul_(beta2t).add_(update.mean(dim=-1).mul(1.0 - beta2t))
        exp_avg_sq_col.mul_(beta2t).add_(update.mean(dim=-2).mul(1.0 - beta2t))
        r_factor = (exp_avg_sq_row / exp_avg_sq_row.mean(dim=-1, keepdim=True)).rsqrt()
        c_factor = exp_avg_sq_col.rsqrt()
        update = torch.mul(r_factor.unsqueeze(-1), c_factor.unsqueeze(-2)).mul_(grad)
    else:
        exp_avg_sq.mul_(beta2t).add_(update.mul(1.0 - beta2t))
        update = exp_avg_sq.rsqrt().mul_(grad)
    update.div_(torch.maximum(_rms(update) / clip_threshold, scalar(1.0, param)))
    update.mul_(lr)
    if not is_zero(weight_decay):
        param.sub_(param * (weight_decay * lr))
    param.sub_(update)


class Adafactor(Optimizer):
    """Adafactor (Shazeer & Stern 2018), the subset cstorch supports.

    Args:
        params: parameters or parameter groups.
        lr: external learning rate (required; ``relative_step`` is not supported).
        eps: (regularization added to g², lower bound of the parameter scale); two floats.
        clip_threshold: update clipping threshold (only 1.0 is supported).
        decay_rate: exponent of the second-moment decay ``β2_t = 1 − t^decay_rate``.
        beta1: first-moment coefficient (only None is supported).
        weight_decay: decoupled weight decay, scaled by the step's lr.
        scale_parameter: scale the lr by the parameter's RMS.
        relative_step: unsupported (must be False).
        warmup_init: unsupported (must be False).
    """

    def __init__(self, params, lr: float, eps=(1e-30, 1e-3), clip_threshold: float = 1.0,
                 decay_rate: float = -0.8, beta1=None, weight_decay: float = 0.0,
                 scale_parameter: bool = True, relative_step: bool = False,
                 warmup_init: bool = False):
        if lr is not None and relative_step:
            raise ValueError("Cannot combine manual `lr` and `relative_step=True` options")
        if warmup_init and not relative_step:
            raise ValueError("`warmup_init=True` is not supported yet")
        if clip_threshold != 1.0:
            raise ValueError(f"Only `clip_threshold=1.0` is supported now. It was set to "
                             f"{clip_threshold}.")
        if beta1 is not None:
            raise ValueError(f"Only `beta1=None` is supported now. It was set to {beta1}.")
        if relative_step:
            raise ValueError("`relative_step=True` is not supported yet")
        if (not isinstance(eps, (tuple, list)) or len(eps) != 2
                or not all(isinstance(x, float) for x in eps)):
            raise ValueError(f"Expected `eps` to be a tuple/list of two floats, but got {eps}.")
        super().__init__(params, dict(lr=lr, eps=eps, clip_threshold=clip_threshold,
                                      decay_rate=decay_rate, beta1=beta1,
                                      weight_decay=weight_decay, scale_parameter=scale_parameter,
                                      relative_step=relative_step, warmup_init=warmup_init),
                         enable_global_step=True)

    def preinitialize(self):
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                shape = tuple(p.shape)
                if len(shape) >= 2:
                    dt = scalar_dtype(p)  # float32 like cstorch (float64 for float64 params)
                    state["exp_avg_sq_row"] = zeros(shape[:-1], dtype=dt)
                    state["exp_avg_sq_col"] = zeros(shape[:-2] + shape[-1:], dtype=dt)
                else:
                    state["exp_avg_sq"] = zeros_like(p)

    def step(self, closure=None):
        loss = run_closure(closure)
        with torch.no_grad():
            for group in self.param_groups:
                if group["lr"] is None:
                    raise ValueError("Learning rate is not set for the group. Please pass a "
                                     "learning rate to constructor or used a learning rate "
                                     "scheduler to set the learning rate.")
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    st = self.state[p]
                    step = self.increment_global_step(p)
                    adafactor_update(p, p.grad, step, lr=group["lr"], eps=group["eps"],
                                     clip_threshold=group["clip_threshold"],
                                     decay_rate=group["decay_rate"],
                                     weight_decay=group["weight_decay"],
                                     scale_parameter=group["scale_parameter"],
                                     exp_avg_sq_row=st.get("exp_avg_sq_row"),
                                     exp_avg_sq_col=st.get("exp_avg_sq_col"),
                                     exp_avg_sq=st.get("exp_avg_sq"))
        return loss
