"""``cstorch.amp`` (mirrors ``cerebras/pytorch/amp``): mixed-precision settings, ``autocast``,
loss scaling (``GradScaler``) and the ``optimizer_step`` helper."""
from __future__ import annotations

from ._amp_state import (_amp_state, enable_mixed_precision, get_floating_point_dtype,
                         get_floating_point_dtype_str, get_half_dtype, get_half_dtype_str,
                         is_cbfloat16_tensor, mixed_precision, set_half_dtype)
from .autocast import autocast
from .conditional_update import isfinite, update_if_finite
from .grad_scaler import GradScaler
from .optimizer_step import optimizer_step

__all__ = ["GradScaler", "optimizer_step", "autocast", "enable_mixed_precision",
           "mixed_precision", "set_half_dtype", "get_half_dtype", "get_half_dtype_str",
           "get_floating_point_dtype", "get_floating_point_dtype_str", "is_cbfloat16_tensor",
           "isfinite", "update_if_finite"]
