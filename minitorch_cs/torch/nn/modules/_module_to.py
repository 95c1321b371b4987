"""``Module.to``'s arguments, read as torch reads them."""
from __future__ import annotations

from ... import _dtype as D
from ..._device import device as _device_cls
from ..._tensor import Tensor


def _parse_to(*args, **kwargs):
    """Parse ``Module.to`` arguments into (device, dtype, non_blocking, memory_format)."""
    dev = kwargs.pop("device", None)
    dt = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    fmt = kwargs.pop("memory_format", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments - got unexpected "
                        f"keyword arguments {sorted(kwargs)}")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        t = rest.pop(0)
        dev, dt = t.device, t.dtype
    elif rest and isinstance(rest[0], D.dtype):
        dt = rest.pop(0)
    elif rest and (isinstance(rest[0], (str, _device_cls, int)) and not isinstance(rest[0], bool)
                   or rest[0] is None):
        dev = rest.pop(0)
        if rest and (isinstance(rest[0], D.dtype) or rest[0] is None):
            dt = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest:
        raise TypeError(f"to() received an invalid combination of arguments - got {args!r}")
    if dev is not None and not isinstance(dev, _device_cls):
        dev = _device_cls(f"cuda:{dev}" if isinstance(dev, int) else dev)
    if dt is not None:
        dt = D.to_dtype(dt)
    return dev, dt, non_blocking, fmt
