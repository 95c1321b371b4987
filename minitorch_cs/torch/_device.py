"""``torch.device``: where a tensor lives. Tensors here live on ``cpu``; ``meta`` tensors carry only
shape and dtype (their storage is a single broadcast element)."""
from __future__ import annotations

__all__ = ["device"]

_KNOWN = ("cpu", "meta", "cuda", "lazy")


class device:
    """A device spec: ``device("cpu")``, ``device("cuda", 0)``, ``device("cpu:0")``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({type!r})")
        if ":" in type:
            if index is not None:
                raise RuntimeError("type (string) must not include an index because index was passed "
                                   "explicitly: " + type)
            type, idx = type.split(":", 1)
            try:
                index = int(idx)
            except ValueError:
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'") from None
        if type not in _KNOWN:
            raise RuntimeError(
                "Expected one of cpu, cuda, meta, lazy device type at start of device string: " + type)
        self.type = type
        self.index = index

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __enter__(self):
        from . import _creation
        _creation._default_device.append(self)
        return self

    def __exit__(self, *exc):
        from . import _creation
        _creation._default_device.pop()
        return False


CPU = device("cpu")
META = device("meta")
LAZY = device("lazy", 0)  # the emulated wafer's device (cstorch's CSX backend reports lazy:0)
