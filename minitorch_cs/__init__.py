"""``minitorch_cs``: the Cerebras PyTorch API (``cerebras.pytorch``) on numpy.

Porting rule: ``import cerebras.pytorch as cstorch`` becomes ``import minitorch_cs as cstorch``.
"""
from __future__ import annotations

from . import backends
from .backend import backend, current_backend, current_torch_device, use_cs
from .runtime.annotations import (add_debug_name, current_pol, device_annotation, get_debug_name,
                               name_scope, pol, set_debug_scope)
from .runtime.compile import compile, trace
from .core.creation import (from_numpy, full, full_like, make_constant, ones, ones_like, tensor,
                            to_numpy, zeros, zeros_like)
from .utils.data import current_executor
from .utils.step_closures import checkpoint_closure, step_closure
from . import amp, distributed, metrics, nn, optim, utils  # noqa: E402
from .storage import load, save  # noqa: E402

__version__ = "2.10.0"  # the cerebras.pytorch release whose behaviour we mirror

__all__ = ["backends", "backend", "current_backend", "current_torch_device", "use_cs", "compile",
           "trace", "step_closure", "checkpoint_closure", "current_executor", "full", "full_like",
           "ones", "ones_like", "zeros", "zeros_like", "from_numpy", "to_numpy", "tensor",
           "make_constant", "name_scope", "set_debug_scope", "add_debug_name", "get_debug_name",
           "pol", "current_pol", "device_annotation", "utils", "distributed", "nn", "optim", "amp",
           "metrics", "save", "load"]

_REMOVED = {
    "summarize_scalar": "cstorch.summarize_scalar is now removed. Please create a SummaryWriter and "
                        "write to it directly:\n\n\timport cerebras.pytorch.utils.tensorboard\n\n\t"
                        "writer = tensorboard.SummaryWriter(log_dir='./log_dir')\n\twriter."
                        "add_scalar(...)\n\nNote, writing to a SummaryWriter should only occur "
                        "inside a step closure.",
    "summarize_tensor": "cstorch.summarize_tensor is now removed. Please create a SummaryWriter and "
                        "write to it directly:\n\n\timport cerebras.pytorch.utils.tensorboard\n\n\t"
                        "writer = tensorboard.SummaryWriter(log_dir='./log_dir')\n\twriter."
                        "add_tensor(...)\n\nNote, writing to a SummaryWriter should only occur "
                        "inside a step closure.",
}


def __getattr__(name):
    if name in _REMOVED:
        raise AttributeError(_REMOVED[name])
    raise AttributeError(f"module 'minitorch_cs' has no attribute '{name}'")
