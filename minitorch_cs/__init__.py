"""``minitorch_cs``: the Cerebras PyTorch API (``cerebras.pytorch``) on numpy.

Porting rule: ``import cerebras.pytorch as cstorch`` becomes ``import minitorch_cs as cstorch``.
"""
from __future__ import annotations

from . import backends
from .backend import backend, current_backend, current_torch_device, use_cs
from .core.creation import (from_numpy, full, full_like, make_constant, ones, ones_like, tensor,
                            to_numpy, zeros, zeros_like)

__version__ = "2.10.0"  # the cerebras.pytorch release whose behaviour we mirror

__all__ = ["backends", "backend", "current_backend", "current_torch_device", "use_cs", "full",
           "full_like", "ones", "ones_like", "zeros", "zeros_like", "from_numpy", "to_numpy",
           "tensor", "make_constant"]
