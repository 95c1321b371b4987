"""``cstorch.amp.optimizer_step`` (mirrors ``cerebras/pytorch/amp/optimizer_step.py``): the
scale → backward → unscale → clip → step → update → zero_grad sequence in one call."""
from __future__ import annotations

from .. import torch

__all__ = ["optimizer_step"]


def _clip_grad_norm_(params, max_norm: float) -> None:
    """torch's ``clip_grad_norm_`` (2-norm over all gradients), written with tensor ops only."""
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return
    total = torch.sqrt(torch.sum(torch.stack([torch.sum(g.float() * g.float()) for g in grads])))
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    with torch.no_grad():
        for g in grads:
            g.mul_(coef.to(g.dtype))


def _clip_grad_value_(params, clip_value: float) -> None:
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)


def optimizer_step(loss, optimizer, grad_scaler, max_gradient_norm: float = None,
                   max_gradient_value: float = None) -> None:
    """Backward of the scaled loss, unscale, optional clipping (by norm *or* value), conditional
    step, scale update and ``zero_grad``. ``optimizer`` may be a list of optimizers.

    Raises:
        ValueError: ``loss`` is not a tensor; a negative clip value; both clip values.
        TypeError: not a cstorch optimizer / GradScaler.
    """
    from ..optim.optimizer import Optimizer
    from .grad_scaler import GradScaler

    if not isinstance(loss, torch.Tensor):
        raise ValueError("Expected the wrapped function to return a single loss tensor. "
                         f"Got: {type(loss)}")
    if isinstance(optimizer, Optimizer):
        optimizers = [optimizer]
    elif isinstance(optimizer, (list, tuple)):
        optimizers = list(optimizer)
        for i, opt in enumerate(optimizers):
            if not isinstance(opt, Optimizer):
                raise TypeError(f"Expected optimizer {i} to be a `cstorch.optim.Optimizer`. "
                                f"Got: `{type(opt)}`")
    else:
        # Differs from cstorch: there this message's f-string hits an unbound name (NameError).
        raise TypeError(f"Expected optimizer to be a `cstorch.optim.Optimizer`. "
                        f"Got: `{type(optimizer)}`")
    if not isinstance(grad_scaler, GradScaler):
        raise TypeError("Expected grad_scaler to be a `cstorch.amp.GradScaler`. "
                        f"Got: `{type(grad_scaler)}`")

    grad_scaler.scale(loss).backward()
    for opt in optimizers:
        grad_scaler.unscale_(opt)

    if max_gradient_norm is not None and max_gradient_norm < 0.0:
        raise ValueError(f"max_gradient_norm has to be a non-negative float. Got "
                         f"{max_gradient_norm}")
    if max_gradient_value is not None and max_gradient_value < 0.0:
        raise ValueError(f"max_gradient_value has to be a non-negative float. Got "
                         f"{max_gradient_value}")
    if max_gradient_norm is not None and max_gradient_value is not None:
        raise ValueError(f"Gradients can be clipped by norm(={max_gradient_norm}) or by "
                         f"value(={max_gradient_value}), but not both. Do not set both "
                         f"`max_gradient_norm` and `max_gradient_value`.")
    # Differs from cstorch: clipping covers every optimizer given (cstorch reads
    # `optimizer.param_groups`, which fails for a list).
    params = [p for opt in optimizers for g in opt.param_groups for p in g["params"]]
    if max_gradient_norm is not None:
        _clip_grad_norm_(params, max_gradient_norm)
    elif max_gradient_value is not None:
        _clip_grad_value_(params, max_gradient_value)

    for opt in optimizers:
        grad_scaler.step(opt)
    grad_scaler.update()
    for opt in optimizers:
        opt.zero_grad()
