"""Small tensor helpers shared by the optimizer update rules (ours; no real counterpart).

Hyper-parameters arrive either as Python numbers (constants of the step) or as 0-d tensors (values
written by a scheduler). Branching on a Python number is static, so it is allowed; tensors are
only ever combined with tensor ops, never inspected.
"""
from __future__ import annotations

import numpy as np

from .. import torch
from ..torch import _dispatch

__all__ = ["is_zero", "scale_sub_", "scalar_dtype", "scalar", "run_closure", "direct_ok",
           "direct_arrays", "bump_versions"]

_DIRECT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def is_zero(value) -> bool:
    """True only for a Python number equal to 0 (a scheduled tensor is never assumed zero)."""
    return not isinstance(value, torch.Tensor) and value == 0


def scale_sub_(param, update, lr) -> None:
    """``param -= lr * update`` in place, with one temporary at most."""
    if isinstance(lr, torch.Tensor):
        param.sub_(update * lr)
    else:
        param.add_(update, alpha=-lr)


def direct_ok(*hyper) -> bool:
    """Whether an update rule may run on arrays directly (:func:`direct_arrays`) this step: no
    dispatch mode is active (no graph capture, fake tensors, autocast or observer needs to see
    the ops) and every hyper-parameter is a Python int or float (a scheduled 0-d tensor is not)."""
    return not _dispatch.modes() and all(type(v) in (int, float) for v in hyper)


def direct_arrays(*tensors):
    """The arrays of ``tensors`` when an update rule may run on them with numpy's ufuncs
    directly (after :func:`direct_ok`), or None to take the tensor ops: every tensor is a
    materialised, writeable float32/float64 array (not 0-d) of one dtype, shape and device,
    sharing no memory with another. Then an in-place tensor op ``a.op_(b, alpha=c)`` with Python
    number operands is exactly ``ufunc(a, b * c, out=a)`` (the eager in-place kernel's own fast
    path), so the rule's values are the tensor ops' values bit for bit; only the per-op dispatch
    is skipped. (torch's optimizers have such "foreach" paths for the same reason.)"""
    a0 = tensors[0]._data
    dt, shape = a0.dtype, a0.shape
    if dt not in _DIRECT_DTYPES or a0.ndim == 0:
        return None
    device = None  # (None: an internal array of no device, mixes with any)
    arrays = []
    owners = True  # every array owns its memory: distinct ones cannot overlap
    for t in tensors:
        a = t._data
        if t._meta or a.shape != shape or a.dtype != dt or not a.flags.writeable:
            return None
        d = t._lazydev
        if d is not None:
            if device is None:
                device = d
            elif d != device:
                return None
        if a.base is not None:
            owners = False
        arrays.append(a)
    n = len(arrays)
    if owners:
        if len({id(a) for a in arrays}) < n:
            return None
    elif any(np.may_share_memory(arrays[i], arrays[j]) for i in range(n) for j in range(i)):
        return None
    return arrays


def bump_versions(tensor, n=1) -> None:
    """Count ``n`` in-place writes on ``tensor`` (as the tensor ops would have)."""
    tensor._vc[0] += n


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
