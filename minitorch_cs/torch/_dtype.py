"""Dtypes and torch's type-promotion rules (mirrors ``torch.dtype`` / ``torch.result_type``)."""
from __future__ import annotations

import builtins

import ml_dtypes
import numpy as np

__all__ = [
    "dtype", "float32", "float", "float64", "double", "float16", "half", "bfloat16", "int64", "long",
    "int32", "int", "int16", "short", "int8", "uint8", "bool", "promote_types", "result_type",
    "get_default_dtype", "set_default_dtype", "to_dtype", "from_numpy_dtype", "finfo", "iinfo",
    "can_cast",
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


_F16, _F64, _BF16 = np.dtype(np.float16), np.dtype(np.float64), np.dtype(ml_dtypes.bfloat16)


def np_cast(a, dt):
    """``a`` (a numpy array or scalar, or a Python number) converted to numpy dtype ``dt`` as
    torch converts: a double becomes a float16 through float32 (c10's Half is built from a float,
    so the value rounds twice: -42.98437372777596 is -43.0, where numpy's direct cast gives
    -42.96875), and a bfloat16 becomes an integer through float32 too. Every other conversion is
    numpy's (ml_dtypes' bfloat16 from a double already goes through float32). Always a new array
    (or numpy scalar)."""
    a = np.asarray(a) if not isinstance(a, (np.ndarray, np.generic)) else a
    if a.dtype == _F64 and np.dtype(dt) == _F16:
        return a.astype(np.float32).astype(_F16)
    if a.dtype == _BF16 and np.dtype(dt).kind in "iu":  # c10's BFloat16 converts to an
        # integer through float: NaN, inf and out-of-range values give the float's C cast
        # (INT_MIN for int32/int64; -1.5 is 255 as uint8), where ml_dtypes' direct cast gives 0
        return a.astype(np.float32).astype(dt)
    return a.astype(dt)


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
    if d is builtins.float:  # (torch's parser: Python's float is double, whatever the default)
        return float64
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


class ComplexUnsupported(TypeError):
    """A complex number where a number operand is taken: we have no complex dtypes. (A
    TypeError, and the one a Python operator does not turn into NotImplemented: torch would
    compute the result in complex64, so the refusal names why.)"""


def _scalar_dtype(x) -> dtype:
    """A Python number's dtype in promotion (numpy scalars a user passes are Python numbers by
    the time an op sees them: the argument parser converts them)."""
    if isinstance(x, builtins.bool):
        return bool
    if isinstance(x, builtins.int):
        return int64
    if isinstance(x, (builtins.complex, np.complexfloating)):
        raise ComplexUnsupported("complex numbers are not supported: minitorch_cs has no complex "
                                 "dtypes (torch would compute in complex64)")
    return get_default_dtype()


def result_type(*operands) -> dtype:
    """torch.result_type over tensors, ndarrays (a kernel's view of tensors) and Python scalars:
    the one promotion rule every op uses.

    Dimensioned tensors outrank zero-dim tensors, which outrank Python scalars; a lower-ranked operand
    only changes the result when its category (bool < integer < floating) is higher, and then a scalar
    contributes the default dtype of its category. ``None`` operands are skipped.
    """
    dim = zero = scal = None
    for x in operands:
        if x is None:
            continue
        d = getattr(x, "_dtype", None)
        if d is None and isinstance(x, np.ndarray):
            d, nd = from_numpy_dtype(x.dtype), x.ndim
        elif d is not None:
            nd = x._data.ndim
        if d is not None:
            if nd:
                dim = d if dim is None else promote_types(dim, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
        else:
            if isinstance(x, np.generic):  # (a kernel's 0-d intermediate: a zero-dim operand)
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


def can_cast(from_, to) -> builtins.bool:
    """torch.can_cast: whether a result of dtype ``from_`` may be written into a tensor of dtype
    ``to`` (in-place ops, ``out=``): everything but floating -> integer/bool and integer -> bool
    (``int16`` into ``uint8`` is allowed and wraps, unlike numpy's ``same_kind``)."""
    f, t = to_dtype(from_), to_dtype(to)
    if f._category > t._category and (f._category == 2 or t._category == 0):
        return False
    return True


# ----- torch.finfo / torch.iinfo ----------------------------------------------------------------
# std::numeric_limits<T>::digits10 of torch's C++ types: ``resolution`` is 10 ** -digits10.
_DIGITS10 = {"float16": 3, "bfloat16": 2, "float32": 6, "float64": 15}


def _info_dtype(args, kwargs, fname, want_float):
    """The dtype argument of finfo/iinfo, checked as torch's argument parser checks it."""
    extra = [k for k in kwargs if k != "type"]
    if not args and "type" not in kwargs:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "type"')
    if want_float and (len(args) + len(kwargs) > 1):
        got = ", ".join([_parser_type_name(a) for a in args] +
                        [f"{k}={_parser_type_name(v)}" for k, v in kwargs.items()])
        raise TypeError(f"{fname}() received an invalid combination of arguments - got ({got}), "
                        f"but expected one of:\n * (torch.dtype type)\n * ()\n")
    if len(args) > 1:
        raise TypeError(f"{fname}() takes 1 positional argument but {len(args)} were given")
    if args and "type" in kwargs:
        raise TypeError(f"{fname}() got multiple values for argument 'type'")
    if extra:
        raise TypeError(f"{fname}() got an unexpected keyword argument '{extra[0]}'")
    d = args[0] if args else kwargs["type"]
    if d is builtins.float:  # the parser reads Python's float as double, int as long
        d = float64
    elif d is builtins.int:
        d = int64
    elif d is builtins.bool:
        d = bool
    if not isinstance(d, dtype):
        raise TypeError(f"{fname}(): argument 'type' (position 1) must be torch.dtype, not "
                        f"{type(d).__name__}")
    if want_float and not d.is_floating_point:
        raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to "
                        "handle 'torch.finfo'")
    if not want_float:
        if d.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        if d is bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
    return d


def _parser_type_name(v):
    return "torch.dtype" if isinstance(v, dtype) else type(v).__name__


def _g(v) -> str:
    return f"{v:g}"  # C++'s default ostream format (6 significant digits), as torch prints


class _Info:
    """Read-only, value-compared, unhashable: like torch's C-level finfo/iinfo objects."""

    __slots__ = ()
    __hash__ = None

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __setattr__(self, name, value):
        if name not in self.__slots__:
            raise AttributeError(f"'torch.{type(self).__name__}' object has no attribute '{name}'")
        raise AttributeError(f"attribute '{name}' of 'torch.{type(self).__name__}' objects is not "
                             "writable")

    def _set(self, **values):
        for k, v in values.items():
            object.__setattr__(self, k, v)

    def __str__(self):
        return repr(self)


class finfo(_Info):
    """``torch.finfo(type)``: machine limits of a floating dtype (the default dtype without
    arguments). Attributes, all Python floats but ``bits`` (int) and ``dtype`` (the dtype's name,
    a str, as in torch): ``bits``, ``eps``, ``max``, ``min``, ``tiny``, ``smallest_normal``
    (``tiny`` is its alias), ``resolution`` (``10 ** -digits10``).

    Raises:
        TypeError: ``type`` is not a dtype, or not a floating one (torch's messages).

    Example:
        >>> import minitorch_cs.torch as torch
        >>> torch.finfo(torch.bfloat16).eps
        0.0078125
    """

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, *args, **kwargs):
        d = _info_dtype(args, kwargs, "finfo", True) if args or kwargs else get_default_dtype()
        info = ml_dtypes.finfo(d.np)
        self._set(bits=builtins.int(info.bits), eps=builtins.float(info.eps),
                  max=builtins.float(info.max), min=builtins.float(info.min),
                  tiny=builtins.float(info.smallest_normal),
                  smallest_normal=builtins.float(info.smallest_normal),
                  resolution=10.0 ** -_DIGITS10[d.name], dtype=d.name)

    def __repr__(self):
        return (f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, max={_g(self.max)}, "
                f"eps={_g(self.eps)}, smallest_normal={_g(self.smallest_normal)}, "
                f"tiny={_g(self.tiny)}, dtype={self.dtype})")


class iinfo(_Info):
    """``torch.iinfo(type)``: limits of an integer dtype: ``bits``, ``max``, ``min`` (ints) and
    ``dtype`` (the dtype's name, a str).

    Raises:
        TypeError: ``type`` is missing, not a dtype, floating or bool (torch's messages).
    """

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, *args, **kwargs):
        d = _info_dtype(args, kwargs, "iinfo", False)
        info = np.iinfo(d.np)
        self._set(bits=builtins.int(info.bits), max=builtins.int(info.max),
                  min=builtins.int(info.min), dtype=d.name)

    def __repr__(self):
        return f"iinfo(min={_g(self.min)}, max={_g(self.max)}, dtype={self.dtype})"


# ----- a number argument converted to a dtype ---------------------------------------------------
_C_INT = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t"}
_FLOAT_MAX = {np.dtype(np.float16): 65504.0, np.dtype(bfloat16.np): 3.3895313892515355e38,
              np.dtype(np.float32): 3.4028234663852886e38}
_C_FLOAT = {np.dtype(np.float16): "c10::Half", np.dtype(bfloat16.np): "c10::BFloat16",
            np.dtype(np.float32): "float"}


def checked_scalar(value, dtype):
    """A Python number converted to an integer dtype as torch converts a Scalar argument: a
    value out of the dtype's range is refused ("value cannot be converted to type uint8_t
    without overflow"); floats truncate; an unsigned dtype takes negative integers down to
    ``-max`` (two's complement wrap-around, c10's ``overflows``)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu" and not isinstance(value, (builtins.bool, np.bool_)) and \
            np.asarray(value).dtype != np.bool_:
        info = np.iinfo(dtype)
        lo = -builtins.int(info.max) if dtype.kind == "u" and np.asarray(value).dtype.kind in "iu" \
            else info.min
        if not lo <= value <= info.max:
            raise RuntimeError(f"value cannot be converted to type {_C_INT[dtype.name]} without "
                               "overflow")
        return np.asarray(builtins.int(value)).astype(dtype)
    fmax = _FLOAT_MAX.get(dtype)
    if fmax is not None:  # a finite number beyond a float dtype's range is refused, not inf
        v = builtins.float(np.asarray(value, dtype=np.float64))
        if np.isfinite(v) and abs(v) > fmax:
            raise RuntimeError(f"value cannot be converted to type {_C_FLOAT[dtype]} without "
                               "overflow")
    return np_cast(value, dtype)
