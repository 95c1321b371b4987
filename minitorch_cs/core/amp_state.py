"""Process-wide mixed-precision settings (mirrors ``cerebras/pytorch/amp/_amp_state.py``).

``set_half_dtype`` picks the 16-bit float the model uses (``"float16"`` by default, ``"bfloat16"``,
or ``"cbfloat16"``, which is represented by ``torch.float16``) and turns mixed precision on.
"""
from __future__ import annotations

from .. import torch

__all__ = ["enable_mixed_precision", "mixed_precision", "set_half_dtype", "get_half_dtype",
           "get_half_dtype_str", "get_floating_point_dtype", "get_floating_point_dtype_str",
           "is_cbfloat16_tensor"]

_HALF_STRS = ("float16", "bfloat16", "cbfloat16")


class AmpState:
    """Whether mixed precision is on, and which half dtype it uses."""

    def __init__(self):
        self._enabled = False
        self._real_dtype_str = "float16"

    @property
    def enabled(self) -> bool:
        return self._enabled

    @enabled.setter
    def enabled(self, value):
        if not isinstance(value, bool):
            raise ValueError(f"Expected a boolean value, got: {type(value)}")
        self._enabled = value

    @property
    def half_dtype(self):
        return torch.bfloat16 if self._real_dtype_str == "bfloat16" else torch.float16

    @half_dtype.setter
    def half_dtype(self, value):
        if value is torch.float16:
            self._real_dtype_str = "float16"
        elif value is torch.bfloat16:
            self._real_dtype_str = "bfloat16"
        elif isinstance(value, str) and value in _HALF_STRS:
            self._real_dtype_str = value
        else:
            raise ValueError(f"Invalid half dtype: {value}. Accepted values are: \"float16\", "
                             f"\"bfloat16\", \"cbfloat16\", {torch.float16}, {torch.bfloat16}.")
        self.enabled = True

    @property
    def half_dtype_str(self) -> str:
        return self._real_dtype_str

    def get_floating_point_dtype(self, default=torch.float32):
        return self.half_dtype if self.enabled else default

    def get_floating_point_dtype_str(self, default="float32") -> str:
        return self.half_dtype_str if self.enabled else default

    def reset(self) -> None:
        """Back to the defaults (mixed precision off, float16); used between tests."""
        self.__init__()


_amp_state = AmpState()


def mixed_precision() -> bool:
    """Whether mixed precision is enabled."""
    return _amp_state.enabled


def enable_mixed_precision(enable: bool = True) -> bool:
    """Turn mixed precision on or off; returns the new setting."""
    _amp_state.enabled = enable
    return _amp_state.enabled


def set_half_dtype(value):
    """Set the half dtype (``"float16"``, ``"bfloat16"``, ``"cbfloat16"``, ``torch.float16`` or
    ``torch.bfloat16``), enable mixed precision, and return the torch dtype the model should use
    (``torch.float16`` stands in for cbfloat16).

    Raises:
        ValueError: any other value.
    """
    _amp_state.half_dtype = value
    return _amp_state.half_dtype


def get_half_dtype():
    """The torch dtype of the half type (``torch.float16`` by default)."""
    return _amp_state.half_dtype


def get_half_dtype_str() -> str:
    """``"float16"`` (default), ``"bfloat16"`` or ``"cbfloat16"``."""
    return _amp_state.half_dtype_str


def get_floating_point_dtype(default=torch.float32):
    """The half dtype when mixed precision is enabled, else ``default``."""
    return _amp_state.get_floating_point_dtype(default)


def get_floating_point_dtype_str(default="float32") -> str:
    """The half dtype's name when mixed precision is enabled, else ``default``."""
    return _amp_state.get_floating_point_dtype_str(default)


def is_cbfloat16_tensor(tensor) -> bool:
    """True if ``tensor`` has the half dtype and that half dtype is cbfloat16."""
    return tensor.dtype is _amp_state.half_dtype and _amp_state.half_dtype_str == "cbfloat16"
