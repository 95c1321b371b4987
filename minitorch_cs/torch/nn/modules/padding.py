"""``torch.nn.modules.padding``: constant/zero, reflection, replication and circular padding of
the last 1 or 2 dims (``F.pad`` order: last dim first)."""
from __future__ import annotations

from .. import functional as F
from .module import Module
from .utils import _ntuple, _pair

__all__ = ["ConstantPad1d", "ConstantPad2d", "ZeroPad1d", "ZeroPad2d", "ReflectionPad1d",
           "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d",
           "CircularPad2d"]

_quadruple = _ntuple(4, "_quadruple")


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]

    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``: padding (left, right)."""

    def __init__(self, padding, value: float) -> None:
        super().__init__(value)
        self.padding = _pair(padding)


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with ``value``: padding (left, right, top, bottom)."""

    def __init__(self, padding, value: float) -> None:
        super().__init__(value)
        self.padding = _quadruple(padding)


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ModePadNd(Module):
    __constants__ = ["padding"]
    mode = "reflect"

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_ModePadNd):
    """Pad the last dim by reflecting at the edge (edge not repeated)."""

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pair(padding)


class ReflectionPad2d(_ModePadNd):
    """Pad the last two dims by reflection."""

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _quadruple(padding)


class ReplicationPad1d(_ModePadNd):
    """Pad the last dim by repeating the edge value."""

    mode = "replicate"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pair(padding)


class ReplicationPad2d(_ModePadNd):
    """Pad the last two dims by repeating the edge values."""

    mode = "replicate"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _quadruple(padding)


class CircularPad1d(_ModePadNd):
    """Pad the last dim by wrapping around."""

    mode = "circular"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pair(padding)

    def forward(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad2d(_ModePadNd):
    """Pad the last two dims by wrapping around."""

    mode = "circular"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _quadruple(padding)

    def forward(self, input):
        if input.dim() != 3 and input.dim() != 4:
            raise ValueError(f"expected 3D or 4D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")
