"""Small tensor helpers shared by the optimizer update rules (ours; no real counterpart).

Hyper-parameters arrive either as Python numbers (constants of the step) or as 0-d tensors (values
written by a scheduler). Branching on a Python number is static, so it is allowed; tensors are
only ever combined with tensor ops, never inspected.
"""
from __future__ import annotations

from .. import torch

__all__ = ["is_zero", "scale_sub_", "scalar_dtype", "scalar", "run_closure"]


def is_zero(value) -> bool:
    """True only for a Python number equal to 0 (a scheduled tensor is never assumed zero)."""
    return not isinstance(value, torch.Tensor) and value == 0


def scale_sub_(param, update, lr) -> None:
    """``param -= lr * update`` in place, with one temporary at most."""
    if isinstance(lr, torch.Tensor):
        param.sub_(update * lr)
    else:
        param.add_(update, alpha=-lr)


def scalar_dtype(p):
    """dtype of scalar optimizer state for parameter ``p``.

    cstorch keeps scalar state (beta powers, step counters, ...) in float32; we do too, except for
    float64 parameters, whose scalar state is float64 so a float64 run stays float64 throughout.
    """
    return torch.float64 if p.dtype is torch.float64 else torch.float32


def scalar(value, p):
    """A 0-d tensor holding ``value`` in :func:`scalar_dtype` of ``p``."""
    return torch.tensor(value, dtype=scalar_dtype(p))


def run_closure(closure):
    """Evaluate an optimizer-step closure with gradients enabled (None if there is none)."""
    if closure is None:
        return None
    with torch.enable_grad():
        return closure()
