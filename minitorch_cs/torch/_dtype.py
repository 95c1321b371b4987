"""Dtypes and torch's type-promotion rules (mirrors ``torch.dtype`` / ``torch.result_type``)."""
from __future__ import annotations

import builtins

import ml_dtypes
import numpy as np

__all__ = [
    "dtype", "float32", "float", "float64", "double", "float16", "half", "bfloat16", "int64", "long",
    "int32", "int", "int16", "short", "int8", "uint8", "bool", "promote_types", "result_type",
    "get_default_dtype", "set_default_dtype", "to_dtype", "from_numpy_dtype",
]


class dtype:
    """A tensor element type; prints like torch's (``torch.float32``)."""

    __slots__ = ("name", "np", "is_floating_point", "is_signed", "itemsize", "_rank", "_category")

    def __init__(self, name: str, np_type, category: int, rank: int):
        self.name = name
        self.np = np.dtype(np_type)
        self._category = category  # 0 bool, 1 integer, 2 floating
        self._rank = rank
        self.is_floating_point = category == 2
        self.is_signed = name not in ("uint8", "bool")
        self.itemsize = self.np.itemsize

    @property
    def is_complex(self) -> builtins.bool:
        return False

    def to_real(self) -> "dtype":
        return self

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (to_dtype, (self.name,))


bool = dtype("bool", np.bool_, 0, 0)
uint8 = dtype("uint8", np.uint8, 1, 1)
int8 = dtype("int8", np.int8, 1, 1)
int16 = dtype("int16", np.int16, 1, 2)
int32 = dtype("int32", np.int32, 1, 3)
int64 = dtype("int64", np.int64, 1, 4)
float16 = dtype("float16", np.float16, 2, 1)
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, 2, 1)
float32 = dtype("float32", np.float32, 2, 2)
float64 = dtype("float64", np.float64, 2, 3)
float = float32
double = float64
half = float16
long = int64
int = int32
short = int16

_ALL = [bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64]
_BY_NAME = {d.name: d for d in _ALL}
_BY_NP = {d.np: d for d in _ALL}
_ALIASES = {"float": float32, "double": float64, "half": float16, "long": int64, "int": int32,
            "short": int16}

_default_float = [float32]


_SCALAR_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
                 "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
                 "float64": "Double"}


_CPP_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
              "int32": "int", "int64": "long int", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double"}


def cpp_name(d) -> str:
    """The C++ type name some torch kernels print (``float``, ``long int``, ``c10::Half``)."""
    return _CPP_NAMES[to_dtype(d).name]


def scalar_name(d) -> str:
    """torch's C++ scalar-type name used in error messages (``Float``, ``Long``, ...)."""
    return _SCALAR_NAMES[to_dtype(d).name]


def get_default_dtype() -> dtype:
    return _default_float[0]


def set_default_dtype(d: dtype) -> None:
    d = to_dtype(d)
    if d not in (float32, float64, float16, bfloat16):
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default_float[0] = d


def from_numpy_dtype(npd) -> dtype:
    try:
        return _BY_NP[np.dtype(npd)]
    except (KeyError, TypeError):
        raise TypeError(
            f"can't convert np.ndarray of type {np.dtype(npd)}. The only supported types are: "
            "float64, float32, float16, bfloat16, int64, int32, int16, int8, uint8, and bool."
        ) from None


def to_dtype(d) -> dtype:
    """Resolve a dtype-like (our dtype, a numpy dtype, a Python type, or a name) to a ``dtype``."""
    if isinstance(d, dtype):
        return d
    if d is builtins.float:
        return get_default_dtype()
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool
    if isinstance(d, str):
        name = d[6:] if d.startswith("torch.") else d
        if name in _BY_NAME:
            return _BY_NAME[name]
        if name in _ALIASES:
            return _ALIASES[name]
        raise TypeError(f"unknown dtype name {d!r}")
    return from_numpy_dtype(d)


def promote_types(a: dtype, b: dtype) -> dtype:
    """torch.promote_types: the smallest dtype both ``a`` and ``b`` convert to without losing kind."""
    if a is b:
        return a
    if a._category != b._category:
        return a if a._category > b._category else b
    if a._category == 2:
        if a._rank == b._rank:  # float16 vs bfloat16
            return float32
        return a if a._rank > b._rank else b
    if a._category == 1:
        return _BY_NP[np.promote_types(a.np, b.np)]
    return bool


def _scalar_dtype(x) -> dtype:
    if isinstance(x, builtins.bool):
        return bool
    if isinstance(x, builtins.int):
        return int64
    return get_default_dtype()


def result_type(*operands) -> dtype:
    """torch.result_type over tensors and Python scalars.

    Dimensioned tensors outrank zero-dim tensors, which outrank Python scalars; a lower-ranked operand
    only changes the result when its category (bool < integer < floating) is higher, and then a scalar
    contributes the default dtype of its category.
    """
    dim = zero = scal = None
    for x in operands:
        d = getattr(x, "_dtype", None)
        if d is not None:
            if x._data.ndim:
                dim = d if dim is None else promote_types(dim, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
        else:
            if isinstance(x, np.generic):
                d = from_numpy_dtype(x.dtype)
                zero = d if zero is None else promote_types(zero, d)
                continue
            d = _scalar_dtype(x)
            scal = d if scal is None else promote_types(scal, d)
    out = dim
    for d in (zero, scal):
        if d is None:
            continue
        if out is None or d._category > out._category:
            out = d
    return out
