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


def _rtype(a, b):
    """torch's result dtype (as numpy dtype) for ndarray/scalar operands ``a`` and ``b``."""
    da = a.dtype if isinstance(a, np.ndarray) else None
    db = b.dtype if isinstance(b, np.ndarray) else None
    if da is not None and da == db:
        return da
    ops = []
    for x, d in ((a, da), (b, db)):
        if d is None:
            ops.append(x)
        else:
            ops.append(_ArrView(x))
    return D.result_type(*ops).np


class _ArrView:
    __slots__ = ("_data", "_dtype")

    def __init__(self, arr):
        self._data = arr
        self._dtype = D._BY_NP[arr.dtype]


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
    if out is not None and rt != out.dtype and not np.can_cast(rt, out.dtype, casting="same_kind"):
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

    @staticmethod
    def forward(ctx, x, dtype):
        return x.astype(dtype)

    @staticmethod
    def backward(ctx, g):
        return (g,)


class Clone(Pointwise):
    name = "clone"

    @staticmethod
    def forward(ctx, x, contiguous=False, out=None):
        # clone() keeps the memory layout (torch's preserve_format); contiguous() asks for C order
        return np.array(x, copy=True, order="C" if contiguous else "K")

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
        return (None, g)


class Fill(Pointwise):
    name = "fill_"

    @staticmethod
    def forward(ctx, dst, value, out=None):
        if out is not None:
            out[...] = value
            return out
        return np.full(dst.shape, value, dtype=dst.dtype)

    @staticmethod
    def backward(ctx, g):
        return (None, g.sum())


# ----- unary math -------------------------------------------------------------------------------
def _unary(name, fwd, bwd, saved=(0,), saves_output=False, float_only=True, differentiable=True):
    """Declare a unary op from a numpy forward and a backward ``bwd(x, y, g)``."""

    def forward(ctx, x, out=None):
        if float_only:
            x = _float_out(x)
        if out is not None:
            _out_check(x.dtype, out)  # an integer tensor cannot take a float result in place
            r = fwd(x, out=out)
        else:
            r = fwd(x)
            if r.dtype != x.dtype and x.dtype in _HALF_DT and r.dtype.kind == "f":
                r = r.astype(x.dtype)  # scipy computes half precision in float64
        if saves_output or saved:
            ctx.x = x if saved else None
            ctx.y = r if saves_output else None
        return r

    def backward(ctx, g):
        # ops that save nothing (neg, sign, floor, ...) never set ctx.x / ctx.y
        return (bwd(getattr(ctx, "x", None), getattr(ctx, "y", None), g),)

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


def _wrap1(f):
    def fn(x, out=None):
        return f(x, out=out) if out is not None else f(x)
    return fn


Neg = _unary("neg", _wrap1(np.negative), lambda x, y, g: -g, saved=(), float_only=False)
Abs = _unary("abs", _wrap1(np.abs), lambda x, y, g: g * np.sign(x), float_only=False)
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
               lambda x, y, g: -0.5 * g * y * y * y, saved=(), saves_output=True)
Reciprocal = _unary("reciprocal", lambda x, out=None: np.divide(1, x, out=out),
                    lambda x, y, g: -g * y * y, saved=(), saves_output=True)
Square = _unary("square", lambda x, out=None: np.square(x.astype(np.int64) if x.dtype == np.bool_
                                                        else x, out=out),  # bool**2 is int64
                lambda x, y, g: 2 * g * x, float_only=False)
Sin = _unary("sin", _wrap1(np.sin), lambda x, y, g: g * np.cos(x))
Cos = _unary("cos", _wrap1(np.cos), lambda x, y, g: -g * np.sin(x))
Tan = _unary("tan", _wrap1(np.tan), lambda x, y, g: g * (1 + y * y), saved=(), saves_output=True)
Asin = _unary("asin", _wrap1(np.arcsin), lambda x, y, g: g / np.sqrt(1 - x * x))
Acos = _unary("acos", _wrap1(np.arccos), lambda x, y, g: -g / np.sqrt(1 - x * x))
Atan = _unary("atan", _wrap1(np.arctan), lambda x, y, g: g / (1 + x * x))
Sinh = _unary("sinh", _wrap1(np.sinh), lambda x, y, g: g * np.cosh(x))
Cosh = _unary("cosh", _wrap1(np.cosh), lambda x, y, g: g * np.sinh(x))
Tanh = _unary("tanh", _wrap1(np.tanh), lambda x, y, g: g * (1 - y * y), saved=(), saves_output=True)
Sigmoid = _unary("sigmoid", _sigmoid, lambda x, y, g: g * y * (1 - y), saved=(), saves_output=True)
Relu = _unary("relu", _relu, lambda x, y, g: g * (y > 0), saved=(), saves_output=True,
              float_only=False)
Gelu = _unary("gelu", _gelu_exact, _gelu_exact_bwd)
Silu = _unary("silu", _silu, _silu_bwd)
Erf = _unary("erf", special.erf,
             lambda x, y, g: g * (2 / np.sqrt(np.pi)) * np.exp(-x * x))
# torch saves the input and recomputes erfinv in backward (so the version check is on the input)
Erfinv = _unary("erfinv", special.erfinv,
                lambda x, y, g: g * (0.5 * np.sqrt(np.pi)) * np.exp(np.square(special.erfinv(x))))
def _sign(x, out=None):
    """np.sign, except that torch's sign of NaN is 0 (and of a bool, the bool)."""
    if x.dtype == np.bool_:
        return np.copyto(out, x) or out if out is not None else x.copy()
    r = np.asarray(np.sign(x, out=out))
    if x.dtype.kind == "f":
        np.copyto(r, 0, where=np.isnan(r))
    return r


Sign = _unary("sign", _sign, _zero_grad, saved=(), float_only=False)
Floor = _unary("floor", _wrap1(np.floor), _zero_grad, saved=(), float_only=False)
Ceil = _unary("ceil", _wrap1(np.ceil), _zero_grad, saved=(), float_only=False)
Trunc = _unary("trunc", _wrap1(np.trunc), _zero_grad, saved=(), float_only=False)
Round = _unary("round", _wrap1(np.round), _zero_grad, saved=(), float_only=False)
LogicalNot = _unary("logical_not", _wrap1(np.logical_not), None, saved=(), float_only=False,
                    differentiable=False)
BitwiseNot = _unary("bitwise_not", _wrap1(np.invert), None, saved=(), float_only=False,
                    differentiable=False)
IsNan = _unary("isnan", _wrap1(np.isnan), None, saved=(), float_only=False, differentiable=False)
IsInf = _unary("isinf", _wrap1(np.isinf), None, saved=(), float_only=False, differentiable=False)
IsFinite = _unary("isfinite", _wrap1(np.isfinite), None, saved=(), float_only=False,
                  differentiable=False)


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
        return (np.where(np.isfinite(ctx.x), g, np.zeros((), g.dtype)),)


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
    name = "elu"
    saved = (0,)

    @staticmethod
    def forward(ctx, x, alpha=1.0, out=None):
        ctx.x, ctx.alpha = x, alpha
        r = np.where(x > 0, x, np.asarray(alpha, x.dtype) * np.expm1(np.minimum(x, 0)))
        if out is not None:
            out[...] = r
            return out
        return r

    @staticmethod
    def backward(ctx, g):
        x = ctx.x
        return (np.where(x > 0, g, g * np.asarray(ctx.alpha, g.dtype) * np.exp(np.minimum(x, 0))),)


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
    """clamp(min, max) with scalar or array bounds; gradient passes where min <= x <= max."""

    name = "clamp"
    saved = (0,)
    tensor_attrs = ("lo", "hi")

    @staticmethod
    def forward(ctx, x, lo=None, hi=None, out=None):
        ctx.x, ctx.lo, ctx.hi = x, lo, hi
        if isinstance(lo, np.ndarray) or isinstance(hi, np.ndarray):
            r = x
            if lo is not None:
                r = np.maximum(r, lo)
            if hi is not None:
                r = np.minimum(r, hi)
            r = r.astype(_rtype(x, lo if isinstance(lo, np.ndarray) else hi), copy=False)
        else:
            # torch's promotion with the scalar bounds (int tensor, float bound -> float; bool ->
            # int64 with int bounds)
            rt = D.result_type(_ArrView(x), *(v for v in (lo, hi) if v is not None)).np
            if rt != x.dtype:
                x = x.astype(rt)
            if lo is not None and hi is not None and lo > hi:
                r = np.full_like(x, hi)  # torch: min > max sets everything to max
            else:
                if out is not None:
                    return np.clip(x, lo, hi, out=out)
                r = np.clip(x, lo, hi)
                return r if r.dtype == rt else r.astype(rt)  # bfloat16 with float bounds
        if out is not None:
            out[...] = r
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
        gx = g * m
        glo = ghi = None
        if isinstance(lo, np.ndarray) and len(ctx.needs_input_grad) > 1:
            glo = g * (x < lo)
        if isinstance(hi, np.ndarray) and len(ctx.needs_input_grad) > 2:
            ghi = g * (x > hi)
        return (gx, glo, ghi)


# ----- binary math ------------------------------------------------------------------------------
def _scaled(b, alpha):
    """``b * alpha`` keeping an array's dtype (bfloat16 times a Python float gives float32)."""
    r = b * alpha
    if isinstance(b, np.ndarray) and r.dtype != b.dtype and b.dtype in _HALF_DT:
        r = r.astype(b.dtype)
    return r


class Add(Pointwise):
    name = "add"

    @staticmethod
    def forward(ctx, a, b, alpha=1, out=None):
        if alpha != 1:
            b = _scaled(b, alpha)
        ctx.alpha = alpha
        return _binary(np.add, a, b, out)

    @staticmethod
    def backward(ctx, g):
        n = ctx.needs_input_grad
        return (g if n[0] else None, (g if ctx.alpha == 1 else g * ctx.alpha) if n[1] else None)


class Sub(Pointwise):
    name = "sub"

    @staticmethod
    def forward(ctx, a, b, alpha=1, out=None):
        if alpha != 1:
            b = _scaled(b, alpha)
        ctx.alpha = alpha
        return _binary(np.subtract, a, b, out)

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
        ctx.a, ctx.b = a, b
        return _binary(np.multiply, a, b, out)

    @staticmethod
    def backward(ctx, g):
        n = ctx.needs_input_grad
        return (g * ctx.b if n[0] else None, g * ctx.a if n[1] else None)


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
        ctx.a, ctx.b, ctx.mode = a, b, rounding_mode
        if rounding_mode is None:
            a, b, rt = _prep(a, b)
            if np.dtype(rt).kind in "biu":
                ft = D.get_default_dtype().np
                a = a.astype(ft) if isinstance(a, np.ndarray) else a
                b = b.astype(ft) if isinstance(b, np.ndarray) else b
            if out is not None:
                _out_check(_rtype(a, b), out)
                return np.true_divide(a, b, out=out, casting="unsafe")
            r = np.true_divide(a, b)
            rt = _rtype(a, b)
            return r if isinstance(r, np.ndarray) and r.dtype == rt else np.asarray(r, rt)
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
        return (g / b if n[0] else None, -g * a / (b * b) if n[1] else None)


class Pow(Pointwise):
    name = "pow"
    saved = (0, 1)
    saves_output = True

    @staticmethod
    def forward(ctx, a, b, out=None):
        ctx.a, ctx.b = a, b
        if isinstance(a, np.ndarray) and a.dtype.kind in "iu" and not isinstance(b, np.ndarray) \
                and isinstance(b, int) and b < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        r = _binary(np.power, a, b, out)
        ctx.y = r
        return r

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
            else:
                ga = g * b * np.power(a, b - 1)
        if len(n) > 1 and n[1]:
            with np.errstate(divide="ignore", invalid="ignore"):
                la = np.log(a)
            gb = np.where((a == 0) & (b >= 0), 0, g * y * la)
        return (ga, gb)


def _extremum(name, np_fn, wins):
    """``maximum``/``minimum``; ties share the gradient evenly, as torch does."""

    def forward(ctx, a, b, out=None):
        a, b, _ = _prep(a, b)  # ties are judged in the result dtype, as torch does
        ctx.a, ctx.b = a, b
        return _binary(np_fn, a, b, out)

    def backward(ctx, g):
        a, b = ctx.a, ctx.b
        w = wins(a, b) + 0.5 * (a == b)
        return (g * w, g * (1 - w))

    return type(name.capitalize(), (Pointwise,), {"name": name, "saved": (0, 1),
                                            "forward": staticmethod(forward),
                                            "backward": staticmethod(backward)})


Maximum = _extremum("maximum", np.maximum, np.greater)
Minimum = _extremum("minimum", np.minimum, np.less)


class Atan2(Pointwise):
    name = "atan2"
    saved = (0, 1)

    @staticmethod
    def forward(ctx, a, b, out=None):
        ctx.a, ctx.b = a, b
        return _binary(np.arctan2, _float_out(a), _float_out(b), out)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.a, ctx.b
        d = a * a + b * b
        return (g * b / d, -g * a / d)


class Remainder(Pointwise):
    name = "remainder"
    saved = (0, 1)

    @staticmethod
    def forward(ctx, a, b, out=None):
        ctx.a, ctx.b = a, b
        _check_integer_zero(a, b)
        return _binary(np.remainder, a, b, out)

    @staticmethod
    def backward(ctx, g):
        return (g, -g * np.floor_divide(ctx.a, ctx.b))


class Fmod(Pointwise):
    name = "fmod"
    saved = (0, 1)

    @staticmethod
    def forward(ctx, a, b, out=None):
        ctx.a, ctx.b = a, b
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


class Isclose(Op):
    """``|a - b| <= atol + rtol * |b|`` elementwise (``equal_nan``: NaNs compare equal)."""

    name = "isclose"
    differentiable = False

    @staticmethod
    def forward(ctx, a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
        return np.asarray(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


class Where(Pointwise):
    name = "where"
    saved = (0,)

    @staticmethod
    def forward(ctx, cond, a, b):
        ctx.cond = cond
        _, _, rt = _prep(a, b)
        return np.where(cond, a, b).astype(rt, copy=False)

    @staticmethod
    def backward(ctx, g):
        c = ctx.cond
        n = ctx.needs_input_grad
        zero = np.zeros((), g.dtype)
        return (None, np.where(c, g, zero) if n[1] else None, np.where(c, zero, g) if n[2] else None)


class Lerp(Pointwise):
    name = "lerp"
    saved = (0, 1, 2)

    @staticmethod
    def forward(ctx, a, b, w, out=None):
        ctx.a, ctx.b, ctx.w = a, b, w
        r = a + w * (b - a)
        if out is not None:
            out[...] = r
            return out
        return r.astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        a, b, w = ctx.a, ctx.b, ctx.w
        return (g * (1 - w), g * w, g * (b - a) if isinstance(w, np.ndarray) else None)


class Addcmul(Pointwise):
    """a + value * t1 * t2 (one op so optimizer updates stay a single kernel)."""

    name = "addcmul"
    saved = (1, 2)

    @staticmethod
    def forward(ctx, a, t1, t2, value=1, out=None):
        ctx.t1, ctx.t2, ctx.value = t1, t2, value
        prod = np.asarray(t1 * t2)  # 0-d operands give a numpy scalar, which *= would promote
        if value != 1:
            prod *= value
        return _binary(np.add, a, prod, out)

    @staticmethod
    def backward(ctx, g):
        v = ctx.value
        return (g, g * ctx.t2 * v, g * ctx.t1 * v)


class Addcdiv(Pointwise):
    name = "addcdiv"
    saved = (1, 2)

    @staticmethod
    def forward(ctx, a, t1, t2, value=1, out=None):
        ctx.t1, ctx.t2, ctx.value = t1, t2, value
        q = np.asarray(t1 / t2)
        if value != 1:
            q *= value
        return _binary(np.add, a, q, out)

    @staticmethod
    def backward(ctx, g):
        v, t1, t2 = ctx.value, ctx.t1, ctx.t2
        return (g, g * v / t2, -g * v * t1 / (t2 * t2))
