"""Tensor creation: ``tensor``, ``from_numpy``, fills, ranges, and random constructors."""
from __future__ import annotations

import builtins
import functools
import inspect
import math
import numbers

import numpy as np

from . import _dtype as D
from ._errors import c_number
from ._kernels.moments import fma64
from ._device import device as _device_cls
from ._autograd import no_grad
from ._dispatch import Op, apply, read_value
from ._layout import (channels_last_order, checked_format, element_strides, format_strides,
                      laid_out, new_array, order_strides, preserve_format)
from ._layout import preserved_copy
from ._random import RandomNew
from ._sizes import combination_message, sizes
from ._tensor import _TYPE_NAMES, Tensor, _meta_array

__all__ = ["tensor", "as_tensor", "from_numpy", "asarray", "zeros", "ones", "full", "empty",
           "zeros_like", "ones_like", "full_like", "empty_like", "arange", "linspace", "logspace",
           "eye", "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
           "normal", "empty_strided", "scalar_tensor", "tril_indices", "triu_indices"]

_default_device: list = []


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = int(s.item())
        if not isinstance(s, (int, np.integer)):
            raise TypeError(f"expected a sequence of integers or a single integer, got '{s!r}'")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
        out.append(int(s))
    return tuple(out)


def _resolve_device(device):
    """``device`` as a torch.device, the default device (``with torch.device(...)``,
    ``backend.device``) when None, or None when neither is set."""
    if device is None:
        device = _default_device[-1] if _default_device else None
    return None if device is None else _device_cls(device)


def _is_meta(device):
    d = _resolve_device(device)
    if d is None:
        return False
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    return d.type == "meta"


def _finish(t, requires_grad):
    if requires_grad:
        if not t._dtype.is_floating_point:  # (the factories' wording, capitalized)
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t.requires_grad = True
    return t


class Full(Op):
    """A constant-filled tensor (``zeros``, ``ones``, ``full``, ``empty``)."""

    name = "full"
    differentiable = False

    @staticmethod
    def forward(ctx, shape, value, dtype, strides=None):
        # (a number as torch converts a Scalar: refused beyond the dtype's range)
        exact = type(value) in (int, float) and value in (0, 1)  # (zeros/ones: nothing to check)
        r = np.full(shape, value if exact or np.dtype(dtype) == np.bool_ else
                    D.checked_scalar(value, dtype), dtype=dtype)
        return new_array(r) if strides is None else laid_out(r, strides)


def _full(shape, value, dtype, device, requires_grad, strides=None):
    dt = D.to_dtype(dtype).np
    if _is_meta(device):
        t = Tensor._wrap(_meta_array(shape, dt))
        t._meta = True
        return _finish(t, requires_grad)
    attrs = {} if strides is None else {"strides": strides}
    return _finish(apply(Full, shape=shape, value=value, dtype=dt, **attrs), requires_grad)


_SEQUENCES = (list, tuple, range)  # (what torch.tensor reads as a sequence of elements)


def _infer_dtype(data, top=True):
    """torch.tensor's dtype inference: a Python bool is bool, int int64, float the default
    dtype; a numpy scalar, array or tensor its own dtype; a sequence the promotion of its
    elements' (so ``[np.float16(1), 2]`` is float16 and ``[1.5, np.float64(2)]`` float64)."""
    if isinstance(data, Tensor):
        return data._dtype
    if isinstance(data, (np.ndarray, np.generic)):
        return D.from_numpy_dtype(data.dtype)
    if isinstance(data, builtins.bool):
        return D.bool
    if isinstance(data, numbers.Integral):
        return D.int64
    if isinstance(data, numbers.Real):
        return D.get_default_dtype()
    if isinstance(data, str):
        if top:
            raise TypeError("new(): invalid data type 'str'")
        raise ValueError("too many dimensions 'str'")  # (torch reads a str element as a sequence)
    if isinstance(data, _SEQUENCES):
        best = None
        for x in data:
            d = _infer_dtype(x, top=False)
            best = d if best is None else D.promote_types(best, d)
        return best or D.get_default_dtype()
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


def _check_leaf(x, dt):
    """torch's unpacking of one element into dtype ``dt``: an integer or bool dtype takes
    Python numbers (a float truncates; bool takes any number's truth), numpy integers and
    one-element integer tensors, not numpy's float32/float16 scalars (np.float64 is a Python
    float); a floating dtype takes real numbers; an integer dtype's ints must fit a C long
    long."""
    t = type(x)
    if t is builtins.float or (t is builtins.int and -2 ** 63 <= x < 2 ** 63):
        return  # (the common elements, taken by every dtype)
    if isinstance(x, str):
        raise ValueError("too many dimensions 'str'")
    if isinstance(x, np.ndarray):  # (a 0-d array is not a sequence)
        if x.ndim == 0:
            raise TypeError("len() of unsized object")
        return
    integral = not dt.is_floating_point
    if integral and dt is not D.bool and isinstance(x, builtins.int) and \
            not isinstance(x, builtins.bool) and not -2 ** 63 <= x < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    if isinstance(x, Tensor):
        if integral and (x.numel() != 1 or x._dtype.is_floating_point):
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return
    real = isinstance(x, (builtins.float, builtins.int, np.integer)) or (
        isinstance(x, np.generic) and not integral)
    if integral and isinstance(x, np.bool_) and dt is not D.bool:
        real = False
    if integral and dt is D.bool and isinstance(x, (np.bool_, builtins.complex)):
        real = True  # (bool takes any Python number's truth)
    if not real:
        kind = f"numpy.{type(x).__name__}" if isinstance(x, np.generic) else type(x).__name__
        raise TypeError(f"'{kind}' object cannot be interpreted as an integer" if integral
                        else f"must be real number, not {kind}")


def _check_ragged(data, dt):
    """torch's checks of a nested sequence: the shape is read along the first elements, then
    every sequence must have that length at its depth, every leaf must sit at the last depth
    and be an element ``dt`` takes (``_check_leaf``)."""
    shape, x = [], data
    while isinstance(x, _SEQUENCES):
        shape.append(len(x))
        if not x:
            break
        x = x[0]
    if isinstance(x, np.ndarray) and x.ndim and shape:  # (an array element: its dims too)
        shape += x.shape

    def walk(x, dim):
        if isinstance(x, np.ndarray) and x.ndim and dim:  # (cast whole, as torch does)
            if x.shape != tuple(shape[dim:]):
                raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got "
                                 f"{len(x)})")
            return
        if dim == len(shape):
            if isinstance(x, _SEQUENCES):
                kind = type(x).__name__
                raise TypeError(f"'{kind}' object cannot be interpreted as an integer"
                                if not dt.is_floating_point else f"must be real number, not {kind}")
            _check_leaf(x, dt)
            return
        if not isinstance(x, _SEQUENCES):
            raise TypeError("not a sequence")
        if len(x) != shape[dim]:
            raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got "
                             f"{len(x)})")
        for y in x:
            walk(y, dim + 1)

    if isinstance(data, _SEQUENCES):
        walk(data, 0)
    elif isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    elif not isinstance(data, (np.ndarray, Tensor)):
        _check_leaf(data, dt)


def _to_nested(data):
    if isinstance(data, Tensor):  # an element of a nested list: Python reads its value
        read_value(data, "torch.tensor of a list of tensors")
        return data._data
    if isinstance(data, _SEQUENCES):
        return [_to_nested(x) for x in data]
    return data


class Constant(Op):
    """A tensor holding a copy of constant data (``torch.tensor(list)``): a fresh array each
    time it runs, so in-place updates of one never reach another."""

    name = "constant"
    differentiable = False

    @staticmethod
    def forward(ctx, value):
        if value.size and value.ndim:  # a copy with the value's strides (where dense)
            return preserved_copy(value, value)
        if value.ndim:  # empty: its strides as they are (torch keeps a numpy source's zeros)
            return laid_out(value, element_strides(value))
        return np.array(value, copy=True)


_NEGATIVE_STRIDES = (
    "At least one stride in the given numpy array is negative, and tensors with negative strides "
    "are not currently supported. (You can probably work around this by making a copy of your "
    "array  with array.copy().) ")  # (torch 2.13's text, its double space too)


def _numpy_source(arr) -> None:
    """torch's check on a numpy array it takes in (``tensor``, ``as_tensor``, ``from_numpy``)."""
    if any(st < 0 for st in arr.strides):
        raise ValueError(_NEGATIVE_STRIDES)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor that copies ``data`` (nested lists, scalars, arrays or tensors)."""
    if isinstance(data, Tensor):
        from ._fpe import warn_user
        warn_user("To copy construct from a tensor, it is recommended to use sourceTensor.detach()"
                  ".clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
                  "torch.tensor(sourceTensor).")
    dt = D.to_dtype(dtype) if dtype is not None else _infer_dtype(data)
    if isinstance(data, Tensor) and not data._meta and not _is_meta(device):
        with no_grad():  # a copy cut from the graph, through the dispatch point
            out = data.to(dt) if data._dtype is not dt else data.clone()
        return _finish(out, requires_grad)
    if isinstance(data, np.ndarray):
        _numpy_source(data)
    _check_ragged(data, dt)
    nested = _to_nested(data)
    if dt.name.startswith(("int", "uint")) and not (isinstance(data, np.ndarray) and data.ndim):
        # torch refuses Python numbers (not arrays, which it casts) the dtype cannot hold
        src = np.asarray(nested)
        if src.dtype.kind in "fViu":
            info = np.iinfo(dt.np)
            lo = info.min  # c10's overflows: an unsigned dtype takes integers down to -max
            if src.dtype.kind in "fV":
                src = src.astype(np.float64)
            elif dt.name.startswith("uint"):
                lo = -int(info.max)
            if src.size and not (np.isfinite(src).all() and src.min() >= lo
                                 and src.max() <= info.max):
                raise RuntimeError(f"value cannot be converted to type {dt.name} without "
                                   "overflow")
        if src.dtype.kind in "iu":  # numpy refuses to wrap Python ints; torch wraps them
            nested = src.astype(dt.np)
    arr = _array(nested, dt.np)
    if isinstance(data, np.ndarray) and data.size and data.ndim:  # torch copies an array as
        arr = preserved_copy(data, arr)  # from_numpy(a).to(copy=True): its strides where dense
    elif not arr.size and arr.ndim:  # empty: a numpy array's (zero) strides are kept, a
        src = getattr(data, "_data", data)  # tensor's too (as a copy of it); lists make new ones
        arr = laid_out(arr, element_strides(src)) \
            if isinstance(src, np.ndarray) and src.shape == arr.shape else new_array(arr)
    if _is_meta(device) or (isinstance(data, Tensor) and data._meta):
        t = Tensor._wrap(_meta_array(arr.shape, dt.np))
        t._meta = True
        return _finish(t, requires_grad)
    return _finish(apply(Constant, value=arr), requires_grad)


def _array(nested, npdt):
    """``np.array(nested, dtype=npdt)``, doubles converted to float16 as torch converts them
    (through float32: ``D.np_cast``)."""
    if npdt == np.float16:
        src = np.asarray(nested)
        if src.dtype == np.float64:
            return D.np_cast(src, npdt)
    return np.array(nested, dtype=npdt)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    return tensor(s, dtype=dtype or D.get_default_dtype(), device=device, requires_grad=requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Share memory with ``data`` when it is already a tensor/array of the right dtype."""
    if isinstance(data, Tensor):
        return data if dtype is None or D.to_dtype(dtype) is data._dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or D.to_dtype(dtype).np == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


asarray = as_tensor


def from_numpy(arr: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``arr`` (zero copy)."""
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    D.from_numpy_dtype(arr.dtype)
    _numpy_source(arr)
    return Tensor._wrap(arr)


@sizes("zeros", "size")
def zeros(*size, out=None, dtype=None, device=None, requires_grad=False, layout=None,
          pin_memory=False):
    return _full(_shape(size), 0, dtype or D.get_default_dtype(), device, requires_grad)


@sizes("ones", "size")
def ones(*size, out=None, dtype=None, device=None, requires_grad=False, layout=None,
         pin_memory=False):
    return _full(_shape(size), 1, dtype or D.get_default_dtype(), device, requires_grad)


@sizes("empty", "size")
def empty(*size, out=None, dtype=None, device=None, requires_grad=False, layout=None,
          pin_memory=False, memory_format=None):
    # Differs from torch: contents are zeros, not uninitialized memory (SPEC: determinism).
    shape = _shape(size)
    fmt = checked_format(memory_format, "empty")
    if memory_format is not None and fmt is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    order = channels_last_order(fmt, len(shape))
    return _full(shape, 0, dtype or D.get_default_dtype(), device, requires_grad,
                 None if order is None else order_strides(shape, order))


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False):
    """A zero-filled tensor of ``size`` with the element strides ``stride`` (torch's
    ``empty_strided``; overlapping strides allowed, negative ones refused)."""
    shape, stride = _shape(size), tuple(int(s) for s in stride)
    if len(stride) != len(shape):
        raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match dimensionality "
                           f"of strides ({len(stride)})")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)} and "
                           f"strides={list(stride)}")
    return _full(shape, 0, dtype or D.get_default_dtype(), device, requires_grad, stride)


def full(size, fill_value, *, out=None, dtype=None, device=None, requires_grad=False, layout=None):
    if dtype is None:
        if isinstance(fill_value, (Tensor, np.generic)):
            fill_value = fill_value.item()  # a numpy scalar counts as the Python number (torch)
        dtype = D._scalar_dtype(fill_value)
    if not isinstance(size, (tuple, list)):  # (torch's size here is a sequence, never one int)
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    return _full(_shape(tuple(size)), fill_value, dtype, device, requires_grad)


def _like(t, dtype, device, memory_format=None, fname="empty_like"):
    """(shape, dtype, device, strides) of a ``*_like`` result: its layout is
    ``memory_format``'s for ``t`` (torch's ``empty_like``; preserve_format by default)."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(t).__name__}")
    dev = device if device is not None else ("meta" if t._meta else None)
    return (t.shape, dtype or t._dtype, dev,
            format_strides(checked_format(memory_format, fname), t._data))


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, layout=None,
               memory_format=None):
    s, d, dev, st = _like(input, dtype, device, memory_format, "zeros_like")
    return _full(s, 0, d, dev, requires_grad, st)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, layout=None,
              memory_format=None):
    s, d, dev, st = _like(input, dtype, device, memory_format, "ones_like")
    return _full(s, 1, d, dev, requires_grad, st)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, layout=None,
               memory_format=None):
    s, d, dev, st = _like(input, dtype, device, memory_format, "empty_like")
    return _full(s, 0, d, dev, requires_grad, st)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
              memory_format=None):
    s, d, dev, st = _like(input, dtype, device, memory_format, "full_like")
    return _full(s, fill_value, d, dev, requires_grad, st)


class Arange(Op):
    name = "arange"
    differentiable = False

    @staticmethod
    def forward(ctx, start, end, step, dtype):
        """torch's kernel: an integer dtype takes the bounds and step converted to integers
        first (C's truncation), int64 counts its length in integers too, the others in
        doubles; the values are ``start + i * step`` in the accumulation type."""
        dt = np.dtype(dtype)
        if dt.kind == "b":
            raise NotImplementedError('"arange_cpu" not implemented for \'Bool\'')
        for v in (start, end):
            if not np.isfinite(v):
                raise RuntimeError(f"unsupported range: {c_number(start)} -> {c_number(end)}")
        if dt.kind in "iu":
            xs, xe, xst = int(start), int(end), int(step)
            if dt == np.int64:
                if xst == 0:  # (a zero step: RuntimeError; one that truncates to 0: ValueError)
                    raise (RuntimeError if step == 0 else ValueError)("step must be nonzero")
                sgn = (xst > 0) - (xst < 0)
                num = xe - xs + xst - sgn  # (C's integer division truncates toward zero)
                n = abs(num) // abs(xst) * (1 if (num >= 0) == (xst > 0) else -1)
            else:
                n = int(np.ceil((end - start) / step)) if step else 0
            if (xst > 0 and xe < xs) or (xst < 0 and xe > xs):
                raise RuntimeError("upper bound and lower bound inconsistent with step sign")
            return new_array((xs + np.arange(max(n, 0), dtype=np.int64) * xst).astype(dt))
        if step == 0:
            raise RuntimeError("step must be nonzero")
        if (end - start) * step < 0:
            raise RuntimeError("upper bound and lower bound inconsistent with step sign")
        n = int(np.ceil((end - start) / step))
        return new_array(_float_arange(float(start), float(step), n, dt))


# torch 2.13's CPU arange kernel, as measured on this project's machine: the points are written
# in chunks of a vector width (8 float32, 4 float64, 16 float16/bfloat16 values), two chunks at
# a time, the remainder one by one. A lone point is ``start + step * i`` in the accumulation type
# (float64 for float32/float64, float32 for the half types), one fused multiply-add, rounded to
# the dtype; a chunk's first point is that, and the rest ``base + k * step`` from the rounded
# ``base`` (fused, except for bfloat16). (Beyond 32768 points torch splits the range among
# threads, which moves the chunks; that is not emulated.)
_ARANGE_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}


def _float_arange(start, step, n, dt):
    half = dt in (np.dtype(D.float16.np), np.dtype(D.bfloat16.np))
    lanes = 16 if half else _ARANGE_LANES[dt]
    i = np.arange(n, dtype=np.float64)
    if half:  # (float32 accumulation: the exact product and sum in float64, rounded once)
        s, st = np.float64(np.float32(start)), np.float64(np.float32(step))
        out = (st * i + s).astype(np.float32).astype(dt)
    else:
        s, st = np.float64(start), np.float64(step)
        out = fma64(np.full(n, st), i, np.full(n, s)).astype(dt)
    body = n // (2 * lanes) * 2 * lanes
    if body:
        k = np.arange(lanes, dtype=np.float64)
        base = out[:body:lanes].astype(np.float64)[:, None]  # (each chunk's rounded first point)
        if dt == np.dtype(D.bfloat16.np):  # (unfused: the product rounds to float32 first)
            chunk = (base.astype(np.float32) + (k * st).astype(np.float32)).astype(dt)
        elif half:
            chunk = (st * k + base).astype(np.float32).astype(dt)
        else:
            chunk = fma64(np.full(base.shape[0] * lanes, st), np.tile(k, base.shape[0]),
                          np.repeat(base[:, 0], lanes)).reshape(-1, lanes).astype(dt)
        out[:body] = chunk.reshape(-1)
    return out


def arange(start, end=None, step=1, *, out=None, dtype=None, device=None, requires_grad=False,
           layout=None):
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is None:
        dtype = D.int64 if all(isinstance(v, (int, np.integer)) for v in vals) else \
            D.get_default_dtype()
    dt = D.to_dtype(dtype)
    if _is_meta(device):
        n = int(np.ceil((vals[1] - vals[0]) / vals[2]))
        return _full((max(n, 0),), 0, dt, "meta", requires_grad)
    return _finish(apply(Arange, start=vals[0], end=vals[1], step=vals[2], dtype=dt.np),
                   requires_grad)


class Linspace(Op):
    name = "linspace"
    differentiable = False

    @staticmethod
    def forward(ctx, start, end, steps, dtype, log_base=None):
        if log_base is None:
            return new_array(_linspace(start, end, steps, np.dtype(dtype)))
        if np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.float64)):
            return new_array(_logspace(start, end, steps, np.dtype(dtype), log_base))
        r = np.linspace(start, end, steps, dtype=np.float64)
        return new_array(D.np_cast(np.power(log_base, r), dtype))


def _logspace(start, end, steps, dt, base):
    """torch 2.13's CPU logspace for float32/float64, bit for bit: the ends converted to the
    dtype, ``step`` their difference in float64 over ``steps - 1``, the exponents of the first
    half ``start + step * i`` and of the rest ``end - step * (steps - 1 - i)`` in float64 (not
    fused), and C's ``pow`` of the base (numpy's float64 power can differ from it by an ulp),
    rounded to the dtype. One point is ``pow(base, start)``."""
    if steps == 0:
        return np.zeros(0, dt)
    if steps == 1:
        return np.array([math.pow(base, float(start))]).astype(dt)
    s, e = np.float64(dt.type(start)), np.float64(dt.type(end))
    step = np.float64(dt.type(e - s)) / (steps - 1)
    i = np.arange(steps, dtype=np.float64)
    exps = np.where(i < steps // 2, s + step * i, e - step * (steps - 1 - i))
    return np.array([math.pow(base, x) for x in exps.tolist()]).astype(dt)


def _linspace(start, end, steps, dt):
    """torch 2.13's CPU linspace, bit for bit: ``start`` and ``end`` converted to the dtype,
    ``step = (end - start) / (steps - 1)``; the first half of the points ``start + step * i``,
    the rest ``end - step * (steps - 1 - i)`` (so both ends are exact). float32/float64 compute
    each point as one fused multiply-add (torch's compiled kernel contracts it); a half type
    rounds every operation, its operands included (``c10::Half``'s operators); integer dtypes
    step in float64 from the truncated ends and truncate each point. One point is ``start``."""
    if steps == 0:
        return np.zeros(0, dt)
    if steps == 1:
        return D.np_cast(np.array([start], np.float64), dt)
    i = np.arange(steps)
    k = (steps - 1 - i).astype(np.float64)
    first = i < steps // 2
    if dt in (np.dtype(np.float32), np.dtype(np.float64)):
        s, e = dt.type(start), dt.type(end)
        step = dt.type(dt.type(e - s) / dt.type(steps - 1))
        if dt == np.float64:
            lo = fma64(np.full(steps, step), i.astype(np.float64), np.full(steps, s))
            hi = fma64(np.full(steps, -step), k, np.full(steps, e))
        else:  # (float32: the exact product and sum in float64, rounded once)
            lo = (np.float64(s) + np.float64(step) * i).astype(np.float32)
            hi = (np.float64(e) - np.float64(step) * k).astype(np.float32)
        return np.where(first, lo, hi).astype(dt)
    if dt in (np.dtype(D.float16.np), np.dtype(D.bfloat16.np)):

        def rd(v):
            return np.asarray(v, np.float32).astype(dt).astype(np.float32)
        s, e = rd(start), rd(end)
        step = rd(rd(e - s) / rd(steps - 1))
        lo = rd(s + rd(step * rd(i.astype(np.float32))))
        hi = rd(e - rd(step * rd(k.astype(np.float32))))
        return np.where(first, lo, hi).astype(dt)
    s, e = float(start), float(end)  # (the ends already in the integer type)
    step = (e - s) / (steps - 1)
    lo = fma64(np.full(steps, step), i.astype(np.float64), np.full(steps, s))
    hi = fma64(np.full(steps, -step), k, np.full(steps, e))
    return D.np_cast(np.trunc(np.where(first, lo, hi)), dt)


def linspace(start, end, steps, *, out=None, dtype=None, device=None, requires_grad=False,
             layout=None):
    _steps_arg("linspace", start, end, steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = D.to_dtype(dtype) if dtype is not None else D.get_default_dtype()
    # the ends converted to the dtype as torch converts a Scalar (out of range: refused; an
    # unsigned dtype wraps a negative integer), the integer ones as converted
    # (no point: nothing converted; one point: ``start`` alone, torch's fill)
    ends = [D.checked_scalar(v, dt.np) for v in (start, end)[:min(int(steps), 2)]]
    if not dt.is_floating_point and ends:
        start, end = (ends + [end])[:2]
        start, end = float(start), float(end)
    return _finish(apply(Linspace, start=float(start), end=float(end), steps=int(steps), dtype=dt.np),
                   requires_grad)


def _steps_arg(fname, start, end, steps):
    """torch's schema takes an int ``steps`` (not a float, not a bool)."""
    if not isinstance(steps, (builtins.int, np.integer)) or isinstance(steps, builtins.bool):
        raise TypeError(combination_message(fname, (start, end, steps), {}))


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, device=None,
             requires_grad=False, layout=None):
    _steps_arg("logspace", start, end, steps)
    dt = D.to_dtype(dtype) if dtype is not None else D.get_default_dtype()
    return _finish(apply(Linspace, start=float(start), end=float(end), steps=int(steps), dtype=dt.np,
                         log_base=float(base)), requires_grad)


class Eye(Op):
    name = "eye"
    differentiable = False

    @staticmethod
    def forward(ctx, n, m, dtype):
        return new_array(np.eye(n, m, dtype=dtype))


def eye(n, m=None, *, out=None, dtype=None, device=None, requires_grad=False, layout=None):
    for name, v, pos in (("n", n, 1), ("m", m, 2)):
        if v is None and name == "m":
            continue
        if not isinstance(v, (builtins.int, np.integer)) or isinstance(v, builtins.bool):
            raise TypeError(f"eye(): argument '{name}' (position {pos}) must be int, not "
                            f"{type(v).__name__}")
        if v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    dt = D.to_dtype(dtype) if dtype is not None else D.get_default_dtype()
    return _finish(apply(Eye, n=int(n), m=int(m if m is not None else n), dtype=dt.np), requires_grad)


class TriIndices(Op):
    """The (2, N) row and column indices of a ``row`` x ``col`` matrix's lower (``upper``:
    upper) triangle about diagonal ``offset``, in row-major order."""

    name = "tril_indices"
    differentiable = False

    @staticmethod
    def forward(ctx, row, col, offset, upper, dtype):
        r, c = (np.triu_indices if upper else np.tril_indices)(row, offset, col)
        return new_array(np.stack([r, c]).astype(dtype))


def _tri_indices(name, row, col, offset, dtype, requires_grad, upper):
    for arg, v in (("row", row), ("col", col), ("offset", offset)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"{name}(): argument '{arg}' (position "
                            f"{('row', 'col', 'offset').index(arg) + 1}) must be int, not "
                            f"{type(v).__name__}")
    dt = D.to_dtype(dtype) if dtype is not None else D.int64
    for arg, v in (("row", row), ("col", col)):
        if v < 0:
            raise RuntimeError(f"{arg} must be non-negative, got{v}")
    if dt not in (D.int32, D.int64):  # torch's kernel has the index dtypes only
        raise NotImplementedError(f'"{name}" not implemented for \'{D.scalar_name(dt)}\'')
    # (requires_grad is set on the result last, as torch does: an integer one is refused there)
    return _finish(apply(TriIndices, row=row, col=col, offset=offset, upper=upper,
                         dtype=dt.np), requires_grad)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 requires_grad=False):
    """The indices of the lower triangle of a ``row`` x ``col`` matrix (with the diagonal
    ``offset`` and those below it), as a (2, N) tensor: rows, then columns, in row-major order;
    int64 by default (int32 too)."""
    return _tri_indices("tril_indices", row, col, offset, dtype, requires_grad, False)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 requires_grad=False):
    """The indices of the upper triangle of a ``row`` x ``col`` matrix (with the diagonal
    ``offset`` and those above it), as a (2, N) tensor: rows, then columns, in row-major order;
    int64 by default (int32 too)."""
    return _tri_indices("triu_indices", row, col, offset, dtype, requires_grad, True)


# ----- random constructors ------------------------------------------------------------------------
def _rand_new(size, dtype, kind, generator, device, requires_grad, a=0.0, b=1.0, strides=None):
    dt = D.to_dtype(dtype) if dtype is not None else D.get_default_dtype()
    shape = _shape(size)
    if _is_meta(device):
        return _full(shape, 0, dt, "meta", requires_grad)
    if kind in ("uniform", "normal") and not dt.is_floating_point:
        raise NotImplementedError(
            f"\"{'check_uniform_bounds' if kind == 'uniform' else 'normal_kernel_cpu'}\" not "
            f"implemented for '{_TYPE_NAMES[dt.name][:-len('Tensor')]}'")
    attrs = {} if strides is None else {"strides": strides}
    return _finish(apply(RandomNew, shape=shape, dtype=dt.np, kind=kind, a=a, b=b,
                         generator=generator, **attrs), requires_grad)


@sizes("rand", "size", overloaded=True)
def rand(*size, generator=None, out=None, dtype=None, device=None, requires_grad=False,
         layout=None, pin_memory=False):
    return _rand_new(size, dtype, "uniform", generator, device, requires_grad)


@sizes("randn", "size", overloaded=True)
def randn(*size, generator=None, out=None, dtype=None, device=None, requires_grad=False,
          layout=None, pin_memory=False):
    return _rand_new(size, dtype, "normal", generator, device, requires_grad)


def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None, device=None,
            requires_grad=False, layout=None):
    if size is None:
        # torch.randint(high, size) form
        low, high, size = 0, low, high
    if high is None or size is None:
        raise TypeError("randint() missing required arguments: 'high' and 'size'")
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    _random_bounds(low, high, D.to_dtype(dtype) if dtype is not None else D.int64)
    return _rand_new(tuple(size), dtype or D.int64, "integers", generator, device, requires_grad,
                     a=int(low), b=int(high))


_C_TYPE = {"uint8": "unsigned char", "int8": "signed char", "int16": "short", "int32": "int",
           "int64": "long", "bool": "bool"}


def _random_bounds(low, high, dt):
    """torch's check that ``[low, high)`` fits an integer dtype (its C type in the message)."""
    if dt.is_floating_point:
        return
    lo, hi = (0, 1) if dt is D.bool else (int(np.iinfo(dt.np).min), int(np.iinfo(dt.np).max))
    if not lo <= low <= hi:
        raise RuntimeError(f"from is out of bounds for {_C_TYPE[dt.name]}")
    if not lo <= high - 1 <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {_C_TYPE[dt.name]}")


def randperm(n, *, generator=None, out=None, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False):
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = D.to_dtype(dtype) if dtype is not None else D.int64
    return apply(RandomNew, shape=(int(n),), dtype=dt.np, kind="perm", a=int(n), generator=generator)


def rand_like(input, *, dtype=None, device=None, requires_grad=False, generator=None,
              memory_format=None, **kw):
    st = _like(input, dtype, device, memory_format, "rand_like")[3]
    return _rand_new(tuple(input.shape), dtype or input._dtype, "uniform", generator, device,
                     requires_grad, strides=st)


def randn_like(input, *, dtype=None, device=None, requires_grad=False, generator=None,
               memory_format=None, **kw):
    st = _like(input, dtype, device, memory_format, "randn_like")[3]
    return _rand_new(tuple(input.shape), dtype or input._dtype, "normal", generator, device,
                     requires_grad, strides=st)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False,
                 generator=None, memory_format=None, **kw):
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    st = _like(input, dtype, device, memory_format, "randint_like")[3]
    return _rand_new(tuple(input.shape), dtype or input._dtype, "integers", generator, device,
                     requires_grad, a=int(low), b=int(high), strides=st)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None,
           requires_grad=False):
    """``normal(mean, std, size)`` with float arguments, or elementwise with tensor mean/std."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        ref = mean if isinstance(mean, Tensor) else std
        shape = np.broadcast_shapes(tuple(getattr(mean, "shape", ())), tuple(getattr(std, "shape", ())))
        z = _rand_new(shape, ref._dtype, "normal", generator, device, False)
        return z * std + mean
    if size is None:
        raise TypeError("normal() missing required argument 'size' for float mean and std")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return _rand_new(tuple(size), dtype, "normal", generator, device, requires_grad,
                     a=float(mean), b=float(std))


def _install_out():
    from ._out import supports_out
    g = globals()
    for fname in ("zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "eye", "rand",
                  "randn", "randint", "randperm", "normal"):
        if "out" in inspect.signature(g[fname]).parameters:
            g[fname] = supports_out(g[fname], creation=True)


_install_out()


def _on_lazy_device(device) -> bool:
    d = _resolve_device(device)
    return d is not None and d.type == "lazy"


def place(t, device):
    """Put a new tensor on ``device``'s kind: the wafer's lazy device (``device("lazy")``, or no
    device inside ``backend.device`` of a CSX backend) or the host."""
    if isinstance(t, Tensor) and not t._meta:
        t._lazydev = _on_lazy_device(device)
    return t


def _placed(fn, like):
    """A creation function that puts its result on the requested device: ``device=`` when given,
    else the input's device (``*_like``; ``tensor``/``as_tensor``/``asarray`` of a tensor) or the
    default device."""
    @functools.wraps(fn)
    def create(*args, **kwargs):
        out = fn(*args, **kwargs)
        if kwargs.get("out") is not None or not isinstance(out, Tensor) or out._meta:
            return out
        dev = kwargs.get("device")
        if dev is None and like:
            src = args[0] if args else kwargs.get("input", kwargs.get("data"))
            if isinstance(src, Tensor):
                out._lazydev = src._lazydev is True
                return out
        return place(out, dev)
    return create


def _install_placement():
    g = globals()
    for fname in __all__:
        if "device" in inspect.signature(g[fname]).parameters:
            g[fname] = _placed(g[fname], like=fname.endswith("_like") or
                               fname in ("tensor", "as_tensor", "asarray"))
        elif fname == "from_numpy":  # shares a numpy array's memory: always on the host
            g[fname] = functools.wraps(g[fname])(
                lambda *a, _f=g[fname], **k: place(_f(*a, **k), "cpu"))


_install_placement()
