"""Elementwise primitives: casts, unary math, binary math with torch's type promotion, comparisons.

Backward rules are written for same-shaped operands; the engine sums gradients back over
broadcast dimensions and casts them to each input's dtype.
"""
from __future__ import annotations

import numpy as np
from . import _special as special

from .. import _dtype as D
from ._kernel import Pointwise

# ----- promotion helpers -------------------------------------------------------------------------


def _rtype(*operands):
    """torch's result dtype (as numpy dtype) of kernel operands: ndarrays (0-d ones rank as
    zero-dim tensors) and Python numbers (weak); ``_dtype.result_type`` is the one rule."""
    if len(operands) == 2:
        a, b = operands
        if type(a) is np.ndarray and type(b) is np.ndarray and a.dtype == b.dtype:
            return a.dtype
    return D.result_type(*operands).np


def _not_implemented(kernel, dtype):
    """torch's error for a kernel without an implementation for ``dtype``."""
    return NotImplementedError(f'"{kernel}" not implemented for '
                               f"'{D.scalar_name(D._BY_NP[np.dtype(dtype)])}'")


def _refuse(kernel, dtype, kinds="b"):
    """Raise torch's error when ``dtype``'s kind (numpy's b/i/u/f) is one ``kernel`` lacks."""
    if np.dtype(dtype).kind in kinds:
        raise _not_implemented(kernel, dtype)


_C_INT = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t"}
_FLOAT_MAX = {np.dtype(np.float16): 65504.0, np.dtype(D.bfloat16.np): 3.3895313892515355e38,
              np.dtype(np.float32): 3.4028234663852886e38}
_C_FLOAT = {np.dtype(np.float16): "c10::Half", np.dtype(D.bfloat16.np): "c10::BFloat16",
            np.dtype(np.float32): "float"}


def _to_dtype_checked(value, dtype):
    """A Python number converted to an integer dtype as torch converts a Scalar argument: a
    value out of the dtype's range is refused ("value cannot be converted to type uint8_t
    without overflow"); floats truncate; an unsigned dtype takes negative integers down to
    ``-max`` (two's complement wrap-around, c10's ``overflows``)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu" and not isinstance(value, (bool, np.bool_)) and \
            np.asarray(value).dtype != np.bool_:
        info = np.iinfo(dtype)
        lo = -int(info.max) if dtype.kind == "u" and np.asarray(value).dtype.kind in "iu" \
            else info.min
        if not lo <= value <= info.max:
            raise RuntimeError(f"value cannot be converted to type {_C_INT[dtype.name]} without "
                               "overflow")
        return np.asarray(int(value)).astype(dtype)
    fmax = _FLOAT_MAX.get(dtype)
    if fmax is not None:  # a finite number beyond a float dtype's range is refused, not inf
        v = float(np.asarray(value, dtype=np.float64))
        if np.isfinite(v) and abs(v) > fmax:
            raise RuntimeError(f"value cannot be converted to type {_C_FLOAT[dtype]} without "
                               "overflow")
    return np.asarray(value).astype(dtype)


def _is_bool(x) -> bool:
    return (isinstance(x, np.ndarray) and x.dtype == np.bool_) or isinstance(x, (bool, np.bool_))


def _prep(a, b):
    """Cast array operands to the torch result dtype; Python scalars stay weak."""
    ta, tb = type(a), type(b)
    if ta is np.ndarray:
        if tb is np.ndarray:
            if a.dtype == b.dtype:
                return a, b, a.dtype
        elif tb is float or tb is int:
            # fast path: a Python number keeps a float array's dtype, and an int array's for ints
            k = a.dtype.kind
            if k == "f" or (tb is int and k in "iu"):
                return a, b, a.dtype
    elif tb is np.ndarray and (ta is float or ta is int):
        k = b.dtype.kind
        if k == "f" or (ta is int and k in "iu"):
            return a, b, b.dtype
    rt = _rtype(a, b)
    if isinstance(a, np.ndarray) and a.dtype != rt:
        a = a.astype(rt)
    if isinstance(b, np.ndarray) and b.dtype != rt:
        b = b.astype(rt)
    if not isinstance(a, np.ndarray):
        a = np.asarray(a, dtype=rt) if not isinstance(b, np.ndarray) else a
    return a, b, rt


def _out_check(rt, out):
    if out is not None and rt != out.dtype and not D.can_cast(D._BY_NP[np.dtype(rt)],
                                                              D._BY_NP[out.dtype]):
        raise RuntimeError(f"result type {D.scalar_name(D._BY_NP[np.dtype(rt)])} can't be cast to "
                           f"the desired output type {D.scalar_name(D._BY_NP[out.dtype])}")


def _size_mismatch(sa, sb):
    """torch's broadcast error: the right-most dimension where the sizes disagree."""
    n = max(len(sa), len(sb))
    for i in range(n - 1, -1, -1):
        x = sa[i - n + len(sa)] if i - n + len(sa) >= 0 else 1
        y = sb[i - n + len(sb)] if i - n + len(sb) >= 0 else 1
        if x != y and x != 1 and y != 1:
            return RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) "
                                f"at non-singleton dimension {i}")
    return None


_HALF_DT = (np.dtype(np.float16), np.dtype(D.bfloat16.np))


def _wrap_int(v, rt):
    """A Python int outside an integer dtype's range wraps around (a C cast), as in torch."""
    return np.array(v).astype(rt) if type(v) is int else v


def _binary(f, a, b, out):
    a, b, rt = _prep(a, b)
    if (type(a) is not np.ndarray or type(b) is not np.ndarray) and rt in _HALF_DT:
        # torch computes half tensors with a Python number in float32 ("opmath") and rounds the
        # result: h * 65536. is finite where |h| < 1, not inf from rounding 65536 to float16
        if type(a) is not np.ndarray:
            a = np.float32(a)
        if type(b) is not np.ndarray:
            b = np.float32(b)
    if out is not None:
        _out_check(rt, out)
        try:
            return f(a, b, out=out, casting="unsafe")
        except OverflowError:
            return f(_wrap_int(a, rt), _wrap_int(b, rt), out=out, casting="unsafe")
    try:
        r = f(a, b)
    except OverflowError:
        r = f(_wrap_int(a, rt), _wrap_int(b, rt))
    except ValueError:
        err = _size_mismatch(np.shape(a), np.shape(b))
        if err is None:
            raise
        raise err from None
    if not isinstance(r, np.ndarray):
        r = np.asarray(r, dtype=rt)
    elif r.dtype != rt and r.dtype != np.bool_:
        r = r.astype(rt)
    return r




def _float_out(a):
    """Result dtype for ops that always produce floats (int inputs -> default float)."""
    if isinstance(a, np.ndarray) and a.dtype.kind in "biu":
        return a.astype(D.get_default_dtype().np)
    return a


def _dt(ctx_arr, g):
    return g


# ----- casts and copies --------------------------------------------------------------------------
class Cast(Pointwise):
    name = "to_copy"
    own_layout = True  # torch's _to_copy: preserve_format (x's strides when x is dense)

    @staticmethod
    def forward(ctx, x, dtype):
        from ._kernel import preserve_format
        return preserve_format(x, x.astype(dtype))

    @staticmethod
    def backward(ctx, g):
        return (g,)


class Clone(Pointwise):
    name = "clone"
    own_layout = True  # preserve_format (x's strides when dense), C order, or channels-last

    @staticmethod
    def forward(ctx, x, contiguous=False, channels_last=False, out=None):
        # clone() keeps the memory layout (torch's preserve_format); contiguous() asks for C order;
        # channels_last: a 4-D copy in torch's channels-last layout
        from ._kernel import channels_last_copy, preserve_format
        if channels_last:
            return channels_last_copy(np.array(x, copy=True))
        if contiguous:
            return np.array(x, copy=True, order="C")
        return preserve_format(x, np.array(x, copy=True, order="K"))

    @staticmethod
    def backward(ctx, g):
        return (g,)


class Copy(Pointwise):
    """``dst.copy_(src)``: dst takes src's values (broadcast, cast); dst's old value gets no grad."""

    name = "copy_"

    @staticmethod
    def forward(ctx, dst, src, out=None):
        if isinstance(src, np.ndarray) and src.dtype != dst.dtype:
            src = src.astype(dst.dtype)
        if out is not None:
            np.copyto(out, src, casting="unsafe")
            return out
        return np.array(np.broadcast_to(src, dst.shape), dtype=dst.dtype)

    @staticmethod
    def backward(ctx, g):
        # dst's old value gets a zero gradient (torch's CopyBackwards): the graph before the copy
        # still sees the node, so leaves behind it get zeros, not None
        return (np.zeros_like(g), g)


class Fill(Pointwise):
    name = "fill_"

    @staticmethod
    def forward(ctx, dst, value, out=None):
        value = _to_dtype_checked(value, dst.dtype)  # torch's Scalar conversion (overflow error)
        if out is not None:
            out[...] = value
            return out
        return np.full(dst.shape, value, dtype=dst.dtype)

    @staticmethod
    def backward(ctx, g):
        # the old value gets zeros (fill_/zero_ cut the graph, as torch's FillBackward does)
        return (np.zeros_like(g), g.sum())


# ----- unary math -------------------------------------------------------------------------------
def _unary(name, fwd, bwd, saved=(0,), saves_output=False, float_only=True, differentiable=True,
           no_bool=None, kernel_bwd=False):
    """Declare a unary op from a numpy forward and a backward ``bwd(x, y, g)``; ``no_bool`` names
    the torch kernel that has no bool implementation (its error is raised for bool inputs).

    For float16/bfloat16 inputs the forward computes in float32 and rounds once. The backward
    follows torch's: where torch has a backward *kernel* (``kernel_bwd``: tanh, sigmoid, gelu,
    silu, mish, ...) it computes in float32 too; where torch's derivative is a formula of tensor
    ops (``grad * self.cos()``, ``grad * (self.pow(2) + 1).rsqrt()``, ...) every step rounds to
    the half dtype (so ``x * x`` overflows to inf there as in torch), and ``bwd`` is written in
    torch's order of operations."""

    def forward(ctx, x, out=None):
        if no_bool is not None and x.dtype == np.bool_:
            if no_bool == "relu":
                raise RuntimeError("Boolean inputs not supported for relu")
            raise _not_implemented(no_bool, x.dtype)
        if float_only:
            x = _float_out(x)
        half = x.dtype in _HALF_DT
        # torch's CPU kernels compute float16/bfloat16 in float32 and round once (opmath)
        xw = x.astype(np.float32) if half else x
        if out is not None:
            _out_check(x.dtype, out)  # an integer tensor cannot take a float result in place
            if half:
                r = np.asarray(fwd(xw))
                np.copyto(out, r.astype(x.dtype) if r.dtype.kind == "f" else r, casting="unsafe")
                r = out
            else:
                r = fwd(x, out=out)
        else:
            r = fwd(xw)
            if half and np.asarray(r).dtype.kind == "f":  # (isnan & co. stay bool)
                r = np.asarray(r).astype(x.dtype)
        if saves_output or saved:
            ctx.x = (xw if kernel_bwd else x) if saved else None
            ctx.y = r if saves_output else None
        return r

    def backward(ctx, g):
        # ops that save nothing (neg, sign, floor, ...) never set ctx.x / ctx.y
        x, y = getattr(ctx, "x", None), getattr(ctx, "y", None)
        if kernel_bwd and g.dtype in _HALF_DT:  # torch's backward kernel: float32 inside
            g = g.astype(np.float32)
            y = y.astype(np.float32) if y is not None else None
        return (bwd(x, y, g),)

    cls = type(name.capitalize(), (Pointwise,), {
        "name": name, "saved": saved, "saves_output": saves_output,
        "differentiable": differentiable,
        "forward": staticmethod(forward), "backward": staticmethod(backward)})
    return cls


def _zero_grad(x, y, g):
    return np.zeros_like(g)


def _relu(x, out=None):
    return np.maximum(x, 0, out=out) if out is not None else np.maximum(x, 0)


def _sigmoid(x, out=None):
    return special.expit(x, out=out) if out is not None else special.expit(x)


def _gelu_exact(x, out=None):
    r = 0.5 * x * (1.0 + special.erf(x * np.asarray(0.7071067811865476, x.dtype)))
    if out is not None:
        out[...] = r
        return out
    return r.astype(x.dtype, copy=False)


def _gelu_exact_bwd(x, y, g):
    cdf = 0.5 * (1.0 + special.erf(x * np.asarray(0.7071067811865476, x.dtype)))
    pdf = np.exp(-0.5 * x * x) * np.asarray(0.3989422804014327, x.dtype)
    return g * (cdf + x * pdf)


def _silu(x, out=None):
    r = x * special.expit(x)
    if out is not None:
        out[...] = r
        return out
    return r


def _silu_bwd(x, y, g):
    s = special.expit(x)
    return g * (s * (1 + x * (1 - s)))


def _mish(x, out=None):
    with np.errstate(over="ignore"):
        r = x * np.tanh(np.log1p(np.exp(x)))  # torch's kernel: x * tanh(log1p(exp(x)))
    if out is not None:
        out[...] = r
        return out
    return r


def _mish_bwd(x, y, g):
    # torch's mish_backward: dy * (tanh_sp + x * sigmoid * (1 - tanh_sp^2)), in one kernel
    with np.errstate(over="ignore"):
        s = 1 / (1 + np.exp(-x))
        t = np.tanh(np.log1p(np.exp(x)))
    return g * (t + x * s * (1 - t * t))


def _wrap1(f):
    def fn(x, out=None):
        return f(x, out=out) if out is not None else f(x)
    return fn


def _negative(x, out=None):
    if x.dtype == np.bool_:  # every path (function, method, in-place, out=): torch's refusal
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you "
                           "are trying to invert a mask, use the `~` or `logical_not()` operator "
                           "instead.")
    return np.negative(x, out=out) if out is not None else np.negative(x)


Neg = _unary("neg", _negative, lambda x, y, g: -g, saved=(), float_only=False)
def _sgn(x):
    """torch's sgn for gradients: -1, 0 or 1, and 0 for NaN (a NaN input gets a zero
    gradient from abs and the 1-norm, as in torch)."""
    s = np.sign(x)
    return np.where(np.isnan(s), np.zeros((), s.dtype), s) if s.dtype.kind == "f" else s


Abs = _unary("abs", _wrap1(np.abs), lambda x, y, g: g * _sgn(x), float_only=False,
             no_bool="abs_cpu")
Exp = _unary("exp", _wrap1(np.exp), lambda x, y, g: g * y, saved=(), saves_output=True)
Exp2 = _unary("exp2", _wrap1(np.exp2), lambda x, y, g: g * y * np.log(2.0).astype(y.dtype),
              saved=(), saves_output=True)
Expm1 = _unary("expm1", _wrap1(np.expm1), lambda x, y, g: g * (y + 1), saved=(), saves_output=True)
Log = _unary("log", _wrap1(np.log), lambda x, y, g: g / x)
Log2 = _unary("log2", _wrap1(np.log2), lambda x, y, g: g / (x * np.log(2.0).astype(x.dtype)))
Log10 = _unary("log10", _wrap1(np.log10), lambda x, y, g: g / (x * np.log(10.0).astype(x.dtype)))
Log1p = _unary("log1p", _wrap1(np.log1p), lambda x, y, g: g / (1 + x))
Sqrt = _unary("sqrt", _wrap1(np.sqrt), lambda x, y, g: g / (2 * y), saved=(), saves_output=True)
Rsqrt = _unary("rsqrt", lambda x, out=None: np.divide(1, np.sqrt(x), out=out),
               lambda x, y, g: (-0.5 * g) * np.power(y, 3), saved=(), saves_output=True)
Reciprocal = _unary("reciprocal", lambda x, out=None: np.divide(1, x, out=out),
                    lambda x, y, g: -g * (y * y), saved=(), saves_output=True)
def _square(x, out=None):
    if x.dtype == np.bool_:  # bool ** 2 is int64 (which a bool target cannot take)
        x = x.astype(np.int64)
        _out_check(x.dtype, out)
        if out is not None:
            np.copyto(out, np.square(x), casting="unsafe")
            return out
    return np.square(x, out=out) if out is not None else np.square(x)


Square = _unary("square", _square,
                lambda x, y, g: g * (2 * x), float_only=False)
Sin = _unary("sin", _wrap1(np.sin), lambda x, y, g: g * np.cos(x))
Cos = _unary("cos", _wrap1(np.cos), lambda x, y, g: -g * np.sin(x))
Tan = _unary("tan", _wrap1(np.tan), lambda x, y, g: g * (1 + y * y), saved=(), saves_output=True)
Asin = _unary("asin", _wrap1(np.arcsin), lambda x, y, g: g / np.sqrt(1 - x * x))
Acos = _unary("acos", _wrap1(np.arccos), lambda x, y, g: -g / np.sqrt(1 - x * x))
Atan = _unary("atan", _wrap1(np.arctan), lambda x, y, g: g / (1 + x * x))
Sinh = _unary("sinh", _wrap1(np.sinh), lambda x, y, g: g * np.cosh(x))
# torch's derivatives: (x^2 + 1).rsqrt(), (x^2 - 1).rsqrt(), 1 / (1 - x^2)
Asinh = _unary("asinh", _wrap1(np.arcsinh), lambda x, y, g: g / np.sqrt(x * x + 1))
Acosh = _unary("acosh", _wrap1(np.arccosh), lambda x, y, g: g / np.sqrt(x * x - 1))
Atanh = _unary("atanh", _wrap1(np.arctanh), lambda x, y, g: g * (1 / (1 - x * x)))


def _no_inplace_derivative(op):
    """``op``'s in-place form as torch 2.13 has it: the forward runs, and a backward through it
    raises ("the derivative for 'inplace version of acosh' is not implemented.")."""
    def backward(ctx, g):
        raise NotImplementedError(f"the derivative for 'inplace version of {op.name}' is not "
                                  "implemented.")
    return type(op.__name__ + "Inplace", (op,), {"backward": staticmethod(backward)})


AsinhInplace, AcoshInplace, AtanhInplace = (_no_inplace_derivative(o) for o in (Asinh, Acosh, Atanh))


def _lgamma(x, out=None):
    r = special.gammaln(x)
    r = np.where(x == -np.inf, np.asarray(np.inf, r.dtype), r)  # torch: lgamma(-inf) = inf
    if out is not None:
        out[...] = r
        return out
    return r.astype(x.dtype, copy=False)


def _digamma(x, out=None):
    r = special.psi(x)  # psi(±0) = ∓inf and NaN at the negative integers and -inf, as torch
    if out is not None:
        out[...] = r
        return out
    return r.astype(x.dtype, copy=False)


def _trigamma(x):
    wide = np.float32 if x.dtype in _HALF_DT else x.dtype  # torch's opmath for half dtypes
    return special.trigamma(x.astype(wide)).astype(x.dtype)


Lgamma = _unary("lgamma", _lgamma, lambda x, y, g: g * _digamma(x), kernel_bwd=True)
Digamma = _unary("digamma", _digamma, lambda x, y, g: g * _trigamma(x), kernel_bwd=True)
Cosh = _unary("cosh", _wrap1(np.cosh), lambda x, y, g: g * np.sinh(x))
Tanh = _unary("tanh", _wrap1(np.tanh), lambda x, y, g: g * (1 - y * y), saved=(), saves_output=True,
              kernel_bwd=True)
Sigmoid = _unary("sigmoid", _sigmoid, lambda x, y, g: g * y * (1 - y), saved=(), saves_output=True,
                 kernel_bwd=True)
Relu = _unary("relu", _relu, lambda x, y, g: np.where(y <= 0, np.zeros((), g.dtype), g), saved=(),
              saves_output=True, float_only=False, no_bool="relu")
Gelu = _unary("gelu", _gelu_exact, _gelu_exact_bwd, kernel_bwd=True)
Silu = _unary("silu", _silu, _silu_bwd, kernel_bwd=True)
Mish = _unary("mish", _mish, _mish_bwd, kernel_bwd=True)
Erf = _unary("erf", special.erf,
             lambda x, y, g: g * (2 / np.sqrt(np.pi)) * np.exp(-x * x), kernel_bwd=True)
# torch saves the input and recomputes erfinv in backward (so the version check is on the input)
Erfinv = _unary("erfinv", special.erfinv,
                lambda x, y, g: g * (0.5 * np.sqrt(np.pi)) * np.exp(np.square(special.erfinv(x))),
                kernel_bwd=True)
def _sign(x, out=None):
    """np.sign, except that torch's sign of NaN is 0 (and of a bool, the bool)."""
    if x.dtype == np.bool_:
        return np.copyto(out, x) or out if out is not None else x.copy()
    r = np.asarray(np.sign(x, out=out))
    if D._BY_NP[x.dtype].is_floating_point:  # bfloat16 included (numpy's kind is "V")
        np.copyto(r, 0, where=np.isnan(r))
    return r


Sign = _unary("sign", _sign, _zero_grad, saved=(), float_only=False)
Floor = _unary("floor", _wrap1(np.floor), _zero_grad, saved=(), float_only=False,
               no_bool="floor_vml_cpu")
Ceil = _unary("ceil", _wrap1(np.ceil), _zero_grad, saved=(), float_only=False,
              no_bool="ceil_vml_cpu")
Trunc = _unary("trunc", _wrap1(np.trunc), _zero_grad, saved=(), float_only=False,
               no_bool="trunc_vml_cpu")
Round = _unary("round", _wrap1(np.round), _zero_grad, saved=(), float_only=False,
               no_bool="round_vml_cpu")
LogicalNot = _unary("logical_not", _wrap1(np.logical_not), None, saved=(), float_only=False,
                    differentiable=False)
BitwiseNot = _unary("bitwise_not", _wrap1(np.invert), None, saved=(), float_only=False,
                    differentiable=False)
IsNan = _unary("isnan", _wrap1(np.isnan), None, saved=(), float_only=False, differentiable=False)
IsInf = _unary("isinf", _wrap1(np.isinf), None, saved=(), float_only=False, differentiable=False)
IsFinite = _unary("isfinite", _wrap1(np.isfinite), None, saved=(), float_only=False,
                  differentiable=False)


class RoundDecimals(Pointwise):
    """``round(x, decimals=d)``: ``nearbyint(x * 10^d) / 10^d`` (``d < 0``: ``nearbyint(x /
    10^-d) * 10^-d``), computed in float32 for half dtypes and rounded once (torch's kernel);
    floating dtypes only."""

    name = "round_decimals"
    node_name = "RoundBackward1"

    @staticmethod
    def forward(ctx, x, decimals=0, out=None):
        _refuse("round_cpu", x.dtype, "biu")
        wide = np.float32 if x.dtype in _HALF_DT else x.dtype
        xw = x.astype(wide, copy=False)
        p = np.asarray(10.0 ** abs(decimals)).astype(wide)
        r = (np.round(xw / p) * p if decimals < 0 else np.round(xw * p) / p).astype(x.dtype)
        if out is not None:
            out[...] = r
            return out
        return r

    @staticmethod
    def backward(ctx, g):
        return (np.zeros_like(g),)


class NanToNum(Pointwise):
    """``nan_to_num``: NaN, +inf and -inf replaced by the given numbers (posinf/neginf default to
    the dtype's largest/smallest finite value); integer and bool inputs are copied unchanged.
    The gradient passes where the input was finite and is 0 elsewhere (torch's rule)."""

    name = "nan_to_num"
    saved = (0,)

    @staticmethod
    def forward(ctx, x, nan=0.0, posinf=None, neginf=None, out=None):
        ctx.x = x
        r = out if out is not None else np.array(x, copy=True)
        dt = D._BY_NP[x.dtype]
        if not dt.is_floating_point:
            return r
        info = D.finfo(dt)
        for mask, v in ((np.isnan(x), nan), (x == np.inf, info.max if posinf is None else posinf),
                        (x == -np.inf, info.min if neginf is None else neginf)):
            if mask.any():  # a value beyond the dtype's range becomes inf, as in torch's cast
                np.copyto(r, np.asarray(v, np.float64).astype(x.dtype), where=mask)
        return r

    @staticmethod
    def backward(ctx, g):
        # torch: grad * isfinite(self) -- a product, so an infinite gradient gives NaN there
        with np.errstate(invalid="ignore"):
            return (g * np.isfinite(ctx.x).astype(g.dtype),)


class GeluTanh(Pointwise):
    name = "gelu_tanh"
    saved = (0,)

    @staticmethod
    def forward(ctx, x, out=None):
        c = np.asarray(0.7978845608028654, x.dtype)
        inner = c * (x + 0.044715 * x ** 3)
        t = np.tanh(inner)
        ctx.x, ctx.t = x, t
        r = 0.5 * x * (1 + t)
        if out is not None:
            out[...] = r
            return out
        return r.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        x, t = ctx.x, ctx.t
        c = 0.7978845608028654
        dinner = c * (1 + 3 * 0.044715 * x * x)
        return (g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * dinner),)


class LeakyRelu(Pointwise):
    name = "leaky_relu"
    saved = (0,)
    inplace_saves_output = True  # torch's leaky_relu_ backward reads its result

    @staticmethod
    def forward(ctx, x, negative_slope=0.01, out=None):
        ctx.x, ctx.slope = x, negative_slope
        r = np.where(x > 0, x, x * np.asarray(negative_slope, x.dtype))
        if out is not None:
            out[...] = r
            return out
        return r

    @staticmethod
    def backward(ctx, g):
        return (np.where(ctx.x > 0, g, g * np.asarray(ctx.slope, g.dtype)),)


class Elu(Pointwise):
    """torch's ``elu`` kernel, which also computes ``selu`` and ``celu``: ``scale * x`` for
    ``x > 0``, else ``scale * alpha * (exp(x * input_scale) - 1)``; the gradient at 0 is the
    left branch's (``scale * alpha * input_scale``), as in torch."""

    name = "elu"
    inplace_saves_output = True  # torch's elu_ (selu_, celu_) backward reads its result
    saved = (0,)

    @staticmethod
    def forward(ctx, x, alpha=1.0, scale=1.0, input_scale=1.0, out=None):
        ctx.x, ctx.alpha, ctx.scale, ctx.input_scale = x, alpha, scale, input_scale
        wide = np.float32 if x.dtype in _HALF_DT else x.dtype
        xw = x.astype(wide, copy=False)
        c = lambda v: np.asarray(v, wide)  # noqa: E731
        r = np.where(xw > 0, xw * c(scale),
                     c(alpha * scale) * np.expm1(np.minimum(xw, 0) * c(input_scale)))
        r = r.astype(x.dtype, copy=False)
        if out is not None:
            out[...] = r
            return out
        return r

    @staticmethod
    def backward(ctx, g):
        x = ctx.x
        c = lambda v: np.asarray(v, g.dtype)  # noqa: E731
        neg = c(ctx.alpha * ctx.scale * ctx.input_scale) * np.exp(np.minimum(x, 0) *
                                                                  c(ctx.input_scale))
        return (np.where(x <= 0, g * neg, g * c(ctx.scale)),)  # NaN takes the right branch


class Hardtanh(Pointwise):
    """``hardtanh``/``relu6``: clamp into ``[lo, hi]`` keeping the input's dtype (the bounds are
    converted to it); the gradient is 0 at and beyond the bounds, unlike ``clamp``'s, and
    passes for NaN (torch's ``hardtanh_backward``)."""

    name = "hardtanh"
    saved = (0,)

    @staticmethod
    def forward(ctx, x, lo=-1.0, hi=1.0, out=None):
        if x.dtype == np.bool_:
            raise RuntimeError("Bool inputs not supported for hardtanh")
        if x.dtype == np.uint8 and (lo < 0 or hi < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
        ctx.x, ctx.lo, ctx.hi = x, lo, hi
        if x.dtype.kind in "iu":
            lo, hi = int(lo), int(hi)
        r = np.minimum(np.maximum(x, np.asarray(lo).astype(x.dtype)),
                       np.asarray(hi).astype(x.dtype))
        if out is not None:
            out[...] = r
            return out
        return np.asarray(r, x.dtype)

    @staticmethod
    def backward(ctx, g):
        x = ctx.x
        return (np.where((x <= ctx.lo) | (x >= ctx.hi), np.zeros((), g.dtype), g),)


class Threshold(Pointwise):
    """``threshold(x, t, v)``: ``v`` where ``x <= t``, else ``x`` (NaN stays NaN); the gradient
    passes where ``x > t`` does not hold false, i.e. it is 0 only where ``x <= t``."""

    name = "threshold"
    saved = (0,)

    @staticmethod
    def forward(ctx, x, threshold=0.0, value=0.0, out=None):
        if x.dtype == np.bool_:
            raise _not_implemented("threshold_cpu", x.dtype)
        ctx.x, ctx.t = x, threshold
        v = np.asarray(_to_dtype_checked(value, x.dtype))
        r = np.where(x <= threshold, v, x)
        if out is not None:
            out[...] = r
            return out
        return np.asarray(r, x.dtype)

    @staticmethod
    def backward(ctx, g):
        return (np.where(ctx.x <= ctx.t, np.zeros((), g.dtype), g),)


class Hardsigmoid(Pointwise):
    """``relu6(x + 3) / 6``; gradient ``1/6`` strictly inside ``(-3, 3)`` (torch's kernel, whose
    1/6 is rounded to float32 even for float64 tensors)."""

    name = "hardsigmoid"
    saved = (0,)

    @staticmethod
    def forward(ctx, x, out=None):
        ctx.x = x
        wide = np.float32 if x.dtype in _HALF_DT else x.dtype
        xw = x.astype(wide, copy=False)
        r = (np.minimum(np.maximum(xw + 3, 0), 6) / np.asarray(6, wide)).astype(x.dtype)
        if out is not None:
            out[...] = r
            return out
        return r

    @staticmethod
    def backward(ctx, g):
        x = ctx.x
        # torch's kernel multiplies by 1/6 rounded to float32, in float64 too
        sixth = np.asarray(np.float32(1.0 / 6.0), g.dtype)
        return (np.where((x > -3) & (x < 3), g * sixth, np.zeros((), g.dtype)),)


class Hardswish(Pointwise):
    """``x * relu6(x + 3) / 6``; gradient 0 up to -3, ``x / 3 + 1/2`` inside ``(-3, 3)``, 1 from 3
    on (torch's ``hardswish_backward``)."""

    name = "hardswish"
    saved = (0,)

    @staticmethod
    def forward(ctx, x, out=None):
        ctx.x = x
        wide = np.float32 if x.dtype in _HALF_DT else x.dtype
        xw = x.astype(wide, copy=False)
        r = (xw * np.minimum(np.maximum(xw + 3, 0), 6) / np.asarray(6, wide)).astype(x.dtype)
        if out is not None:
            out[...] = r
            return out
        return r

    @staticmethod
    def backward(ctx, g):
        x = ctx.x
        mid = g * (x / np.asarray(3, g.dtype) + np.asarray(0.5, g.dtype))
        return (np.where(x <= -3, np.zeros((), g.dtype), np.where(x < 3, mid, g)),)


class Softplus(Pointwise):
    name = "softplus"
    saved = (0,)

    @staticmethod
    def forward(ctx, x, beta=1.0, threshold=20.0, out=None):
        ctx.x, ctx.beta, ctx.threshold = x, beta, threshold
        bx = x * beta
        r = np.where(bx > threshold, x, np.logaddexp(0, bx) / beta).astype(x.dtype)
        if out is not None:
            out[...] = r
            return out
        return r

    @staticmethod
    def backward(ctx, g):
        bx = ctx.x * ctx.beta
        return (np.where(bx > ctx.threshold, g, g * special.expit(bx)),)


class Clamp(Pointwise):
    """clamp(min, max) with scalar or array bounds: ``min(max(x, lo), hi)``, so ``lo > hi`` gives
    ``hi`` everywhere and a NaN bound gives NaN (torch's rule). The result dtype is the promotion
    of the input with both bounds (a bound outside an integer dtype wraps, as torch's cast does).
    The gradient passes where ``lo <= x <= hi``; a tensor bound gets it where it is the result."""

    name = "clamp"
    saved = (0,)
    tensor_attrs = ("lo", "hi")

    @staticmethod
    def forward(ctx, x, lo=None, hi=None, out=None):
        ctx.x, ctx.lo, ctx.hi = x, lo, hi
        rt = _rtype(x, lo, hi)
        half = rt in _HALF_DT
        xr = x.astype(rt, copy=False)
        r = xr
        for bound, f in ((lo, np.maximum), (hi, np.minimum)):
            if bound is None:
                continue
            b = _wrap_int(bound, rt) if not isinstance(bound, np.ndarray) else bound
            b = np.asarray(b).astype(np.float32 if half and not isinstance(bound, np.ndarray)
                                     else rt, copy=False)
            r = f(r, b)
        r = np.asarray(r).astype(rt, copy=False)
        if out is not None:
            _out_check(rt, out)
            np.copyto(out, r, casting="unsafe")
            return out
        return r

    @staticmethod
    def backward(ctx, g):
        x, lo, hi = ctx.x, ctx.lo, ctx.hi
        m = np.ones(x.shape, bool)
        if lo is not None:
            m &= x >= lo
        if hi is not None:
            m &= x <= hi
        zero = np.zeros((), g.dtype)
        gx = np.where(m, g, zero)  # a select, never g * 0 (an inf gradient stays masked)
        glo = ghi = None
        if isinstance(lo, np.ndarray) and len(ctx.needs_input_grad) > 1:
            glo = np.where(x < lo, g, zero)
        if isinstance(hi, np.ndarray) and len(ctx.needs_input_grad) > 2:
            ghi = np.where(x > hi, g, zero)
        return (gx, glo, ghi)


class ClampTensors(Pointwise):
    """``clamp`` with tensor bounds that take gradients (torch's ClampBackward1): the forward of
    :class:`Clamp`; backward by torch's ``clamp_backward_min_max`` masks -- the input where
    ``lo <= x <= hi``, ``lo`` where ``x < lo`` (and ``lo < hi``), ``hi`` where ``x > hi`` (or
    ``hi < lo``); comparisons with NaN are false, so a NaN input passes no gradient to the
    bounds."""

    name = "clamp_tensors"
    node_name = "ClampBackward1"
    saved = (0, 1, 2)

    @staticmethod
    def forward(ctx, x, lo, hi, out=None):
        ctx.x, ctx.lo, ctx.hi = x, lo, hi
        return Clamp.forward.__wrapped__(Ctx_(), x, lo, hi, out)

    @staticmethod
    def backward(ctx, g):
        x, lo, hi = ctx.x, ctx.lo, ctx.hi
        zero = np.zeros((), g.dtype)
        with np.errstate(invalid="ignore"):
            if lo is not None and hi is not None:
                gx = np.where((x >= lo) & (x <= hi), g, zero)
                glo = np.where((x < lo) & (lo < hi), g, zero)
                ghi = np.where((x > hi) | (hi < lo), g, zero)
            elif lo is not None:
                gx, glo, ghi = np.where(x >= lo, g, zero), np.where(x < lo, g, zero), None
            else:
                gx, glo, ghi = np.where(x <= hi, g, zero), None, np.where(x > hi, g, zero)
        n = ctx.needs_input_grad
        return (gx, glo if isinstance(lo, np.ndarray) and n[1] else None,
                ghi if isinstance(hi, np.ndarray) and n[2] else None)


class Ctx_:
    """A throwaway context for calling another kernel's forward."""


# ----- binary math ------------------------------------------------------------------------------
def _scaled(a, b, alpha):
    """``alpha * b`` for ``add``/``sub``, checked as torch checks ``alpha``: a float alpha is
    refused for integral results, a bool alpha for non-bool ones. Computed in the result dtype
    (half precision in float32, rounded once with the sum)."""
    rt = np.dtype(_rtype(a, b))
    if rt.kind in "biu" and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if isinstance(alpha, (bool, np.bool_)) and rt.kind != "b":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if alpha == 1 and not isinstance(alpha, (bool, np.bool_)):
        return b
    if not isinstance(b, np.ndarray):
        return b * alpha
    if rt.kind == "b":
        return np.asarray(b.astype(bool) & bool(alpha))
    wide = np.float32 if rt in _HALF_DT else rt
    return np.asarray(b.astype(wide, copy=False) * np.asarray(alpha).astype(wide))


def _check_sub(a, b):
    if _is_bool(a) and _is_bool(b) and isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def _add_sub(f, a, b, alpha, out):
    b2 = _scaled(a, b, alpha)
    if b2 is b or not isinstance(b2, np.ndarray):
        return _binary(f, a, b2, out)
    rt = _rtype(a, b)
    r = np.asarray(f(a.astype(b2.dtype, copy=False) if isinstance(a, np.ndarray) else a, b2))
    r = r.astype(rt, copy=False)
    if out is not None:
        _out_check(rt, out)
        np.copyto(out, r, casting="unsafe")
        return out
    return r


class Add(Pointwise):
    name = "add"

    @staticmethod
    def forward(ctx, a, b, alpha=1, out=None):
        ctx.alpha = alpha
        return _add_sub(np.add, a, b, alpha, out)

    @staticmethod
    def backward(ctx, g):
        n = ctx.needs_input_grad
        return (g if n[0] else None, (g if ctx.alpha == 1 else g * ctx.alpha) if n[1] else None)


class Sub(Pointwise):
    name = "sub"

    @staticmethod
    def forward(ctx, a, b, alpha=1, out=None):
        _check_sub(a, b)
        ctx.alpha = alpha
        return _add_sub(np.subtract, a, b, alpha, out)

    @staticmethod
    def backward(ctx, g):
        n = ctx.needs_input_grad
        return (g if n[0] else None, (-g if ctx.alpha == 1 else g * -ctx.alpha) if n[1] else None)


class Mul(Pointwise):
    name = "mul"
    saved = (0, 1)
    reads = {0: (1,), 1: (0,)}  # a is read for b's gradient, b for a's

    @staticmethod
    def forward(ctx, a, b, out=None):
        ctx.a, ctx.b = _grad_operands(a, b)
        return _binary(np.multiply, a, b, out)

    @staticmethod
    def backward(ctx, g):
        n = ctx.needs_input_grad
        return (g * ctx.b if n[0] else None, g * ctx.a if n[1] else None)


def _grad_operands(a, b):
    """Operands as a backward formula reads them: an integer or bool array operand of a floating
    result in the result's dtype (torch's formula promotes it against the gradient: in float16
    a large int32 is inf there, so a zero gradient times it is NaN, as in torch)."""
    rt = np.dtype(_rtype(a, b))
    if rt.kind not in "fV" and rt not in _HALF_DT:
        return a, b
    return tuple(x.astype(rt) if isinstance(x, np.ndarray) and x.dtype.kind in "biu" else x
                 for x in (a, b))


def _check_integer_zero(a, b):
    """torch raises for an integer division (floor, trunc, remainder, fmod) by zero; numpy would
    return 0 with a warning."""
    if np.dtype(_rtype(a, b)).kind in "iu" and np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")


class Div(Pointwise):
    name = "div"
    saved = (0, 1)
    reads = {0: (1,), 1: (0, 1)}

    @staticmethod
    def forward(ctx, a, b, rounding_mode=None, out=None):
        ctx.a, ctx.b = _grad_operands(a, b)
        ctx.mode = rounding_mode
        if rounding_mode is None:
            a0, b0 = a, b
            a, b, rt = _prep(a, b)
            if np.dtype(rt).kind in "biu":
                # torch promotes integer inputs straight to the float type (each operand cast
                # from its own dtype: uint8 253 / int32 -3 is -84.3, not 253 / 253)
                ft = D.get_default_dtype().np
                a = a0.astype(ft) if isinstance(a0, np.ndarray) else a
                b = b0.astype(ft) if isinstance(b0, np.ndarray) else b
            if out is not None:
                _out_check(_rtype(a, b), out)
                return np.true_divide(a, b, out=out, casting="unsafe")
            r = np.true_divide(a, b)
            rt = _rtype(a, b)
            return r if isinstance(r, np.ndarray) and r.dtype == rt else np.asarray(r, rt)
        if rounding_mode in ("floor", "trunc"):
            _refuse(f"div_{rounding_mode}_cpu", _rtype(a, b))
        _check_integer_zero(a, b)
        if rounding_mode == "floor":
            return _binary(np.floor_divide, a, b, out)
        if rounding_mode == "trunc":
            a2, b2, rt = _prep(a, b)
            r = np.trunc(np.true_divide(a2, b2))
            r = r.astype(rt) if isinstance(r, np.ndarray) else np.asarray(r, rt)
            if out is not None:
                out[...] = r
                return out
            return r
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                           f"found '{rounding_mode}'")

    @staticmethod
    def backward(ctx, g):
        n = ctx.needs_input_grad
        if ctx.mode is not None:
            return (np.zeros_like(g) if n[0] else None, np.zeros_like(g) if n[1] else None)
        a, b = ctx.a, ctx.b
        # torch's formula for the divisor: -g * ((a / b) / b) (b * b would underflow first)
        return (g / b if n[0] else None, -g * ((a / b) / b) if n[1] else None)


class Pow(Pointwise):
    """``a ** b`` with a tensor exponent: torch saves both operands and the result."""

    name = "pow"
    node_name = "PowBackward1"
    saved = (0, 1)
    saves_output = True

    @staticmethod
    def forward(ctx, a, b, out=None):
        return _pow_forward(ctx, a, b, out)

    @staticmethod
    def backward(ctx, g):
        a, b, y = ctx.a, ctx.b, ctx.y
        n = ctx.needs_input_grad
        ga = gb = None
        if n[0]:
            if not isinstance(b, np.ndarray) and b == 0:
                ga = np.zeros_like(g)
            elif not isinstance(b, np.ndarray) and b == 2:
                ga = g * 2 * a
            else:  # torch: 0 where the exponent is 0 (0 ** -1 would make it NaN)
                with np.errstate(divide="ignore", invalid="ignore"):
                    ga = np.where(b == 0, np.zeros((), g.dtype), g * b * np.power(a, b - 1))
        if len(n) > 1 and n[1]:
            with np.errstate(divide="ignore", invalid="ignore"):
                la = np.log(a)
            gb = np.where((a == 0) & (b >= 0), 0, g * y * la)
        return (ga, gb)


def _pow_forward(ctx, a, b, out=None):
    ctx.a, ctx.b = a, b
    rt = np.dtype(_rtype(a, b))
    if rt.kind == "b":
        raise _not_implemented("pow", rt)
    if rt.kind in "iu" and isinstance(b, np.ndarray):
        r = _int_pow(a, b, rt)
        if out is not None:
            _out_check(rt, out)
            np.copyto(out, r, casting="unsafe")
            r = out
    else:
        if rt.kind in "iu" and isinstance(b, (int, np.integer)) and b < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        r = _pow_special(a, b, rt)
        if r is None:
            r = _binary(np.power, a, b, out)
        elif out is not None:
            _out_check(rt, out)
            np.copyto(out, r, casting="unsafe")
            r = out
    ctx.y = r
    return r


def _pow_special(a, b, rt):
    """torch's scalar-exponent kernel where numpy's differs: ``x ** -0.5`` is ``rsqrt`` for
    float32/float64/bfloat16 (NaN at -inf, -inf at -0); float16 has no special cases, so its
    ``x ** ±0.5`` follows C's ``pow`` (``(-inf) ** 0.5 = inf``, ``(-inf) ** -0.5 = 0``) where
    numpy's float32 path would take ``sqrt``. None: numpy's ``power`` is torch's."""
    if not (isinstance(a, np.ndarray) and isinstance(b, (float, int)) and
            not isinstance(b, bool) and b in (0.5, -0.5) and D._BY_NP[rt].is_floating_point):
        return None
    x = a.astype(np.float32 if rt in _HALF_DT else rt, copy=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        if rt == np.float16:
            r = np.sqrt(np.abs(x)) if b > 0 else 1 / np.sqrt(np.abs(x))  # pow on |x| ...
            r = np.where(x < 0, np.where(np.isinf(x), r, np.nan), r)  # ... NaN below 0, not -inf
            if b < 0:
                r = np.where(x == 0, np.inf, r)  # pow(±0, -0.5) = +inf
        elif b > 0:
            return None  # numpy's power takes sqrt as torch does
        else:
            r = 1 / np.sqrt(x)
    return np.asarray(r).astype(rt)


class PowScalar(Pow):
    """``a ** n`` with a number exponent: torch saves only ``a`` (an in-place change of the
    result does not spoil the gradient)."""

    name = "pow_scalar"
    node_name = "PowBackward0"
    saved = (0,)
    saves_output = False


class PowScalarBase(Pow):
    """``n ** t`` with a number base: a contiguous result (torch's kernel for a Scalar base
    does not follow the exponent's layout, unlike ``tensor(n) ** t``)."""

    name = "pow_scalar_base"
    node_name = "PowBackward2"
    saved = (1,)
    elementwise = False

    @staticmethod
    def forward(ctx, a, b, out=None):
        return _pow_forward(ctx, a, b, out)


def _int_pow(a, b, rt):
    """Integer powers with an integer tensor exponent: a negative exponent gives 0, except for
    bases 1 and -1 (torch's integer kernel; numpy refuses negative integer powers)."""
    a = np.asarray(a).astype(rt, copy=False)
    b = np.asarray(b).astype(rt, copy=False)
    neg = b < 0
    with np.errstate(over="ignore"):
        r = np.power(a, np.where(neg, np.zeros((), rt), b))
    if neg.any():
        one = np.ones((), rt)
        special = np.where(a == 1, one, np.where((a == -1) & (b % 2 != 0), -one, np.zeros((), rt)))
        special = np.where((a == -1) & (b % 2 == 0), one, special)
        r = np.where(neg, special, r)
    return np.asarray(r, dtype=rt)


def _extremum(name, np_fn, loses):
    """``maximum``/``minimum``; ties share the gradient evenly and a NaN comparison (the result
    is NaN) sends the whole gradient to both operands, as torch's backward does (each operand's
    gradient is masked only where it strictly loses)."""

    def forward(ctx, a, b, out=None):
        a, b, _ = _prep(a, b)  # ties are judged in the result dtype, as torch does
        ctx.a, ctx.b = a, b
        return _binary(np_fn, a, b, out)

    def backward(ctx, g):
        a, b = ctx.a, ctx.b
        zero = np.zeros((), g.dtype)
        half = g * np.asarray(0.5, g.dtype)
        tie = a == b
        ga = np.where(tie, half, np.where(loses(a, b), zero, g))
        gb = np.where(tie, half, np.where(loses(b, a), zero, g))
        return (ga, gb)

    return type(name.capitalize(), (Pointwise,), {"name": name, "saved": (0, 1),
                                                  "forward": staticmethod(forward),
                                                  "backward": staticmethod(backward)})


Maximum = _extremum("maximum", np.maximum, np.less)
Minimum = _extremum("minimum", np.minimum, np.greater)


class Atan2(Pointwise):
    name = "atan2"
    saved = (0, 1)

    @staticmethod
    def forward(ctx, a, b, out=None):
        rt = np.dtype(_rtype(a, b))
        if rt.kind in "biu":  # integer and bool operands give the default float
            rt = D.get_default_dtype().np
        ctx.a_bool = isinstance(a, np.ndarray) and a.dtype == np.bool_
        a, b = (x.astype(rt, copy=False) if isinstance(x, np.ndarray) else x for x in (a, b))
        ctx.a, ctx.b = a, b
        return _binary(np.arctan2, a, b, out)

    @staticmethod
    def backward(ctx, g):
        # torch: grad * other * recip, grad * -self * recip, with recip 0 where the squared
        # norm is 0 (underflow included): (0, 0) has zero gradients, not NaN
        if getattr(ctx, "a_bool", False) and len(ctx.needs_input_grad) > 1 and \
                ctx.needs_input_grad[1]:  # torch's formula negates self: refused for bool
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.")
        a, b = ctx.a, ctx.b
        d = a * a + b * b
        with np.errstate(divide="ignore"):
            recip = np.where(d == 0, np.zeros((), d.dtype), 1 / d)
        return (g * b * recip, g * -a * recip)


class Remainder(Pointwise):
    name = "remainder"
    saved = (0, 1)
    reads = {0: (1,), 1: (1,)}  # only other's gradient reads them (self's is the gradient itself)

    @staticmethod
    def forward(ctx, a, b, out=None):
        ctx.a, ctx.b = _grad_operands(a, b)
        _refuse("remainder_cpu", _rtype(a, b))
        _check_integer_zero(a, b)
        return _binary(np.remainder, a, b, out)

    @staticmethod
    def backward(ctx, g):
        return (g, -g * np.floor_divide(ctx.a, ctx.b))


class Fmod(Pointwise):
    name = "fmod"
    saved = (0, 1)
    reads = {0: (1,), 1: (1,)}  # only other's gradient reads them (self's is the gradient itself)

    @staticmethod
    def forward(ctx, a, b, out=None):
        ctx.a, ctx.b = _grad_operands(a, b)
        _refuse("fmod_cpu", _rtype(a, b))
        _check_integer_zero(a, b)
        return _binary(np.fmod, a, b, out)

    @staticmethod
    def backward(ctx, g):
        return (g, -g * np.trunc(ctx.a / ctx.b))


def _nondiff_binary(name, f):
    def forward(ctx, a, b, out=None):
        if out is not None:
            return f(a, b, out=out)
        a2, b2, _ = _prep(a, b) if name not in _LOGICAL else (a, b, None)
        r = f(a2, b2)
        return r if isinstance(r, np.ndarray) else np.asarray(r)
    return type(name.capitalize(), (Pointwise,), {"name": name, "differentiable": False,
                                            "forward": staticmethod(forward)})


_LOGICAL = {"logical_and", "logical_or", "logical_xor"}
Eq = _nondiff_binary("eq", np.equal)
Ne = _nondiff_binary("ne", np.not_equal)
Lt = _nondiff_binary("lt", np.less)
Le = _nondiff_binary("le", np.less_equal)
Gt = _nondiff_binary("gt", np.greater)
Ge = _nondiff_binary("ge", np.greater_equal)
LogicalAnd = _nondiff_binary("logical_and", np.logical_and)
LogicalOr = _nondiff_binary("logical_or", np.logical_or)
LogicalXor = _nondiff_binary("logical_xor", np.logical_xor)
BitwiseAnd = _nondiff_binary("bitwise_and", np.bitwise_and)
BitwiseOr = _nondiff_binary("bitwise_or", np.bitwise_or)
BitwiseXor = _nondiff_binary("bitwise_xor", np.bitwise_xor)
FloorDivide = _nondiff_binary("floor_divide", np.floor_divide)
LeftShift = _nondiff_binary("bitwise_left_shift", np.left_shift)
RightShift = _nondiff_binary("bitwise_right_shift", np.right_shift)


class Isclose(Pointwise):
    """``|a - b| <= atol + rtol * |b|`` elementwise (``equal_nan``: NaNs compare equal)."""

    name = "isclose"
    differentiable = False

    @staticmethod
    def forward(ctx, a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
        return np.asarray(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


class Where(Pointwise):
    name = "where"
    saved = (0,)
    promoted = (1, 2)  # the condition is not converted

    @staticmethod
    def forward(ctx, cond, a, b):
        ctx.cond = cond
        rt = _rtype(a, b)
        a, b = (x.astype(rt, copy=False) if isinstance(x, np.ndarray) else _wrap_int(x, rt)
                for x in (a, b))
        return np.asarray(np.where(cond, a, b)).astype(rt, copy=False)

    @staticmethod
    def backward(ctx, g):
        c = ctx.cond
        n = ctx.needs_input_grad
        zero = np.zeros((), g.dtype)
        return (None, np.where(c, g, zero) if n[1] else None, np.where(c, zero, g) if n[2] else None)


def _cpp(dt) -> str:
    return D.cpp_name(D._BY_NP[np.dtype(dt)])


class Lerp(Pointwise):
    """``start + weight * (end - start)``, evaluated as torch's kernel does (from ``end`` when
    ``|weight| >= 0.5``, so ``weight = 1`` gives ``end`` exactly); no promotion: ``end`` and a
    tensor ``weight`` must have ``start``'s dtype."""

    name = "lerp"
    saved = (0, 1, 2)
    reads = {0: (2,), 1: (2,), 2: (0, 1)}  # (torch saves an operand only for the gradients that read it)

    @staticmethod
    def forward(ctx, a, b, w, out=None):
        if b.dtype != a.dtype:
            raise RuntimeError(f"expected dtype {_cpp(a.dtype)} for `end` but got dtype "
                               f"{_cpp(b.dtype)}")
        tensor_w = isinstance(w, np.ndarray)
        if tensor_w and w.ndim and w.dtype != a.dtype:
            raise RuntimeError(f"expected dtype {_cpp(a.dtype)} for `weight` but got dtype "
                               f"{_cpp(w.dtype)}")
        rt = np.dtype(_rtype(a, b, w))  # a 0-d weight promotes (a zero-dim tensor)
        # TensorIterator's cast check comes before the kernel's dtype check (in place too)
        _out_check(rt, out if out is not None else getattr(ctx, "inplace_target", None))
        _refuse("lerp_kernel_tensor" if tensor_w else "lerp_kernel_scalar", a.dtype, "biu")
        if rt != a.dtype:
            a, b = a.astype(rt), b.astype(rt)
        ctx.a, ctx.b, ctx.w = a, b, w
        wide = np.float32 if a.dtype in _HALF_DT else a.dtype
        aa, bb = a.astype(wide, copy=False), b.astype(wide, copy=False)
        ww = np.asarray(w).astype(wide, copy=False)
        d = bb - aa
        r = np.where(np.abs(ww) < 0.5, aa + ww * d, bb - d * (1 - ww)).astype(a.dtype)
        if out is not None:
            np.copyto(out, r, casting="unsafe")
            return out
        return r

    @staticmethod
    def backward(ctx, g):
        a, b, w = ctx.a, ctx.b, ctx.w
        return (g * (1 - w), g * w, g * (b - a) if isinstance(w, np.ndarray) else None)


def _addc(a, t1, t2, value, combine, out):
    """``a + value * combine(t1, t2)`` in the promoted dtype of all three tensors (``value``
    takes the result's type: truncated for integer results, as torch's scalar cast does)."""
    rt = np.dtype(_rtype(a, t1, t2))
    wide = np.dtype(np.float32) if rt in _HALF_DT else rt
    if rt.kind in "biu":
        value = int(value)
    a2, x1, x2 = (np.asarray(x).astype(wide, copy=False) for x in (a, t1, t2))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.asarray(a2 + np.asarray(value).astype(wide) * combine(x1, x2)).astype(rt)
    if out is not None:
        _out_check(rt, out)
        np.copyto(out, r, casting="unsafe")
        return out
    return r


class Addcmul(Pointwise):
    """a + value * t1 * t2 (one op so optimizer updates stay a single kernel)."""

    name = "addcmul"
    saved = (1, 2)
    reads = {1: (2,), 2: (1,)}  # (torch saves an operand only for the gradients that read it)

    @staticmethod
    def forward(ctx, a, t1, t2, value=1, out=None):
        if np.dtype(_rtype(a, t1, t2)) == np.bool_:
            raise _not_implemented("addcmul_cpu_out", np.bool_)
        ctx.t1, ctx.t2, ctx.value = t1, t2, value
        return _addc(a, t1, t2, value, np.multiply, out)

    @staticmethod
    def backward(ctx, g):
        v = ctx.value
        return (g, g * ctx.t2 * v, g * ctx.t1 * v)


class Addcdiv(Pointwise):
    name = "addcdiv"
    saved = (1, 2)
    reads = {1: (2,), 2: (1, 2)}  # (torch saves an operand only for the gradients that read it)

    @staticmethod
    def forward(ctx, a, t1, t2, value=1, out=None):
        if np.asarray(t1).dtype.kind in "biu" and np.asarray(t2).dtype.kind in "biu":
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future  release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
                "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))."
                "to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
                "float inputs. The future addcdiv behavior is just the latter implementation: "
                "(input + value * tensor1 / tensor2), for all dtypes.")
        ctx.t1, ctx.t2, ctx.value = t1, t2, value
        return _addc(a, t1, t2, value, np.true_divide, out)

    @staticmethod
    def backward(ctx, g):
        v, t1, t2 = ctx.value, ctx.t1, ctx.t2
        return (g, g * v / t2, -g * v * t1 / (t2 * t2))
