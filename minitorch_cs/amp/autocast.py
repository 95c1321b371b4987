"""``cstorch.amp.autocast`` (mirrors ``cerebras/pytorch/amp/autocast.py``).

On CSX it does nothing (the compiler casts). On CPU/GPU it enters ``torch.autocast`` with the half
dtype, so matmul, linear and convolutions compute in it; the CPU backend only supports bfloat16.
"""
from __future__ import annotations

from contextlib import contextmanager

from ..backend import current_backend_impl
from ..torch import _autocast
from ..torch import bfloat16
from ._amp_state import _amp_state

__all__ = ["autocast"]


@contextmanager
def autocast(dtype=None):
    """Compute matmul/linear/conv in ``dtype`` (default: the half dtype) inside the block.

    Raises:
        RuntimeError: no backend exists.
        ValueError: on the CPU backend, a dtype other than bfloat16.
    """
    backend = current_backend_impl()
    if backend.backend_type.is_csx:
        yield None
        return
    if dtype is None:
        dtype = _amp_state.half_dtype
    if backend.backend_type.is_cpu and dtype is not bfloat16:
        raise ValueError("Mixed precision on CPU is only supported with bfloat16. Please call "
                         "cstorch.amp.set_half_dtype(torch.bfloat16) or pass the dtype to "
                         "cstorch.amp.autocast(dtype=torch.bfloat16)")
    with _autocast.autocast(backend.device.torch_device.type, dtype=dtype) as ctx:
        yield ctx
