"""cstorch's constant-fill creators and numpy bridges (``cstorch.full``, ``zeros_like``, ...).

Off CSX they are torch's; optimizers create their state with them in ``preinitialize`` so that
the emulated CSX backend can record the state as constant fills instead of allocating it.
"""
from __future__ import annotations

import numpy as np

from .. import torch as _torch

__all__ = ["full", "full_like", "ones", "ones_like", "zeros", "zeros_like", "from_numpy",
           "to_numpy", "tensor", "make_constant"]


def full(shape, value, dtype=None):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return _torch.full(shape, value, dtype=dtype if dtype is not None else _torch.float32)


def full_like(other, value, dtype=None):
    return _torch.full_like(other, value, dtype=dtype)


def ones(shape, dtype=None):
    return full(shape, 1, dtype)


def ones_like(other, dtype=None):
    return full_like(other, 1, dtype)


def zeros(shape, dtype=None):
    return full(shape, 0, dtype)


def zeros_like(other, dtype=None):
    return full_like(other, 0, dtype)


def from_numpy(array):
    """A tensor from a numpy array (bfloat16 arrays from ml_dtypes included)."""
    return _torch.from_numpy(np.asarray(array))


def to_numpy(tensor):
    """The tensor's values as a numpy array (bfloat16 stays ml_dtypes.bfloat16)."""
    return np.array(tensor.detach()._data, copy=True)


def tensor(data, dtype=None, device=None, requires_grad=False):
    return _torch.tensor(data, dtype=dtype, requires_grad=requires_grad)


def make_constant(t):
    return t
