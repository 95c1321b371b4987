"""Elementwise primitives: casts, unary math, and torch's type promotion helpers (binary math and
comparisons live in :mod:`.binary`, re-exported here).

Backward rules are written for same-shaped operands; the engine sums gradients back over
broadcast dimensions and casts them to each input's dtype.
"""
from __future__ import annotations

import math

import numpy as np
from . import _special as special

from .. import _dtype as D
from ._kernel import Pointwise, write_out
from .._kernels.select import max_first, min_first, relu_grad
from ._xp import HalfOps, graph_mode, ns, raw

_LN2, _LN10 = math.log(2.0), math.log(10.0)


def _is_arr(v) -> bool:
    """An array operand (a tensor in graph mode), as opposed to a Python number."""
    return hasattr(v, "shape")

# ----- promotion helpers -------------------------------------------------------------------------


def _rtype(*operands):
    """torch's result dtype (as numpy dtype) of kernel operands: ndarrays (0-d ones rank as
    zero-dim tensors) and Python numbers (weak); ``_dtype.result_type`` is the one rule."""
    a = operands[0] if operands else None
    if type(a) is np.ndarray and all(type(b) is np.ndarray and b.dtype == a.dtype
                                     for b in operands[1:]):
        return a.dtype  # arrays of one dtype (the common case, no rule to consult)
    if len(operands) == 2:  # a floating array and a real Python number: the array's dtype (a
        b = operands[1]  # number never outranks a tensor of its own category or higher)
        if type(b) is np.ndarray:
            a, b = b, a
        if type(a) is np.ndarray and a.dtype.kind == "f" and type(b) in (int, float):
            return a.dtype
    return D.result_type(*operands).np


def _float_rtype(*operands) -> np.dtype:
    """:func:`_rtype`, except that integer and bool operands give the default float dtype (the
    rule of torch's float-valued binary ops: ``copysign``, ``xlogy``, ``atan2``, ``ldexp``)."""
    rt = np.dtype(_rtype(*operands))
    return D.get_default_dtype().np if rt.kind in "biu" else rt


def _not_implemented(kernel, dtype):
    """torch's error for a kernel without an implementation for ``dtype``."""
    return NotImplementedError(f'"{kernel}" not implemented for '
                               f"'{D.scalar_name(D._BY_NP[np.dtype(dtype)])}'")


def _refuse(kernel, dtype, kinds="b"):
    """Raise torch's error when ``dtype``'s kind (numpy's b/i/u/f) is one ``kernel`` lacks."""
    if np.dtype(dtype).kind in kinds:
        raise _not_implemented(kernel, dtype)


_to_dtype_checked = D.checked_scalar  # (the one conversion of a number argument; see _dtype)


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
        a = D.np_cast(a, rt)
    if isinstance(b, np.ndarray) and b.dtype != rt:
        b = D.np_cast(b, rt)
    if not isinstance(a, np.ndarray):
        a = np.asarray(D.np_cast(a, rt)) if not isinstance(b, np.ndarray) else a
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


from ._opmath import HALF as _HALF_DT, opmath_dtype  # noqa: E402  (the one half-precision rule)


def _wrap_int(v, rt):
    """A Python int outside an integer dtype's range wraps around (a C cast), as in torch."""
    return np.array(v).astype(rt) if type(v) is int else v


def _binary(f, a, b, out, opmath=False):
    """``f(a, b)`` in torch's result dtype. A Python number with a half-precision tensor is
    cast to the half dtype first (torch's TensorIterator does: ``h + 2049.`` adds 2048 in
    float16), except for the kernels that read the number itself in float32 (``opmath``:
    multiply, divide -- ``h * 65536.`` is finite where ``|h| < 1``); either way the arithmetic
    runs in float32 and rounds once."""
    a, b, rt = _prep(a, b)
    if (type(a) is not np.ndarray or type(b) is not np.ndarray) and rt in _HALF_DT:
        with np.errstate(over="ignore"):
            if type(a) is not np.ndarray:
                a = np.float32(a if opmath else D.np_cast(a, rt))
            if type(b) is not np.ndarray:
                b = np.float32(b if opmath else D.np_cast(b, rt))
    if out is not None:
        _out_check(rt, out)
        if out.dtype == np.float16 and np.dtype(rt) == np.float64:  # rounded as torch casts
            return write_out(f(a, b), out)
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
        return preserve_format(x, D.np_cast(x, dtype))

    @staticmethod
    def backward(ctx, g):
        return (g,)


class Clone(Pointwise):
    name = "clone"
    own_layout = True  # preserve_format (x's strides when dense), C order, or channels-last

    @staticmethod
    def forward(ctx, x, contiguous=False, channels_last=False, channels_last_3d=False, out=None):
        # clone() keeps the memory layout (torch's preserve_format); contiguous() asks for C order;
        # channels_last(_3d): a 4-D (5-D) copy in torch's channels-last layout
        from ._kernel import channels_last_copy, preserve_format
        from .._layout import channels_last_3d as cl3d, channels_last_order, laid_out, order_strides
        if channels_last:
            return channels_last_copy(np.array(x, copy=True))
        if channels_last_3d:
            return laid_out(x, order_strides(x.shape, channels_last_order(cl3d, x.ndim)))
        if contiguous:
            return np.array(x, copy=True, order="C")
        return preserve_format(x, np.array(x, copy=True, order="K"))

    @staticmethod
    def backward(ctx, g):
        return (g,)


class Copy(Pointwise):
    """``dst.copy_(src)``: dst takes src's values (broadcast, cast); dst's old value gets no grad."""

    name = "copy_"
    node_name = "torch::autograd::CopyBackwards"  # (torch's hand-written node)

    @staticmethod
    def forward(ctx, dst, src, out=None):
        if isinstance(src, np.ndarray) and src.dtype != dst.dtype:
            src = D.np_cast(src, dst.dtype)
        if out is not None:
            np.copyto(out, src, casting="unsafe")
            return out
        return np.array(np.broadcast_to(src, dst.shape), dtype=dst.dtype)

    @staticmethod
    def backward(ctx, g):
        # dst's old value gets a zero gradient (torch's CopyBackwards): the graph before the copy
        # still sees the node, so leaves behind it get zeros, not None. src's gradient is the
        # gradient converted to src's dtype first, then summed over the broadcast dims (in a
        # float64 source, a half gradient's sum cannot overflow)
        xp = ns(g)
        meta = ctx.in_meta[1] if len(getattr(ctx, "in_meta", ())) > 1 else None
        gs = g
        if meta is not None and meta[1] != xp.npdtype(g) and \
                (meta[1].kind == "f" or meta[1] in _HALF_DT):
            gs = xp.astype(g, meta[1])
        return (xp.zeros_like(g), gs)


class Fill(Pointwise):
    name = "fill_"

    @staticmethod
    def forward(ctx, dst, value, out=None):
        # torch's fill_ overloads: a number (FillBackward2) or a 0-d tensor (FillBackward3)
        ctx.torch_node = "FillBackward3" if isinstance(value, np.ndarray) else "FillBackward2"
        value = _to_dtype_checked(value, dst.dtype)  # torch's Scalar conversion (overflow error)
        if out is not None:
            out[...] = value
            return out
        return np.full(dst.shape, value, dtype=dst.dtype)

    @staticmethod
    def backward(ctx, g):
        # the old value gets zeros (fill_/zero_ cut the graph, as torch's FillBackward does)
        xp = ns(g)
        return (xp.zeros_like(g), xp.sum(g))


# ----- unary math -------------------------------------------------------------------------------
def _unary(name, fwd, bwd, saved=(0,), saves_output=False, float_only=True, differentiable=True,
           no_bool=None, kernel_bwd=False, keeps=False, f16_formula=False, half_fwd=None):
    """Declare a unary op from a numpy forward and a backward ``bwd(xp, x, y, g)`` (``xp`` the
    array namespace, ``_xp``); ``no_bool`` names the torch kernel that has no bool implementation
    (its error is raised for bool inputs).

    For float16/bfloat16 inputs the forward computes in float32 and rounds once. The backward
    follows torch's: where torch has a backward *kernel* (``kernel_bwd``: tanh, sigmoid, gelu,
    silu, mish, ...) it computes in float32 too; where torch's derivative is a formula of tensor
    ops (``grad * self.cos()``, ``grad * (self.pow(2) + 1).rsqrt()``, ...) every step rounds to
    the half dtype (so ``x * x`` overflows to inf there as in torch), and ``bwd`` is written in
    torch's order of operations.

    ``f16_formula``: torch's backward kernel computes float16 in float16 arithmetic, one
    rounding per operation (``sigmoid``'s: measured on torch 2.13), bfloat16 in float32.

    ``half_fwd(x)``: the forward for a float16/bfloat16 ``x`` (as given: its layout decides
    torch's loops), returning the half result, where torch's kernel rounds an intermediate to
    the half dtype.

    ``keeps``: the forward also fills a dict (``fwd(x, keep=d)``) with intermediate arrays the
    backward would compute again (GELU's erf); a first-order backward receives them as keyword
    arguments instead of recomputing them (the same values), a graph-recording one recomputes."""

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
        f = fwd if not (half and half_fwd) else (lambda v: half_fwd(x))
        if out is not None:
            _out_check(x.dtype, out)  # an integer tensor cannot take a float result in place
            if half:
                r = np.asarray(f(xw))
                np.copyto(out, r.astype(x.dtype) if r.dtype.kind == "f" else r, casting="unsafe")
                r = out
            else:
                r = fwd(x, out=out)
        elif keeps:
            kept = {}
            r = fwd(xw, keep=kept)
            ctx.kept = kept
        else:
            r = f(xw)
        if out is None:
            if half and np.asarray(r).dtype.kind == "f":  # (isnan & co. stay bool)
                r = np.asarray(r).astype(x.dtype)
        if saves_output or saved:
            ctx.x = (xw if kernel_bwd else x) if saved else None
            ctx.y = r if saves_output else None
        return r

    def backward(ctx, g):
        # ops that save nothing (neg, sign, floor, ...) never set ctx.x / ctx.y
        xp = ns(g)
        x, y = getattr(ctx, "x", None), getattr(ctx, "y", None)
        if xp.npdtype(g) in _HALF_DT:
            if kernel_bwd and not (f16_formula and xp.npdtype(g) == np.float16):
                # torch's backward kernel: float32 inside
                g = xp.astype(g, np.float32)
                y = xp.astype(y, np.float32) if y is not None else None
            elif not graph_mode(xp):  # torch's formula of tensor ops: each rounds (numbers in
                # float32), as the tensor ops of a graph-recording backward do
                g, x, y = (None if a is None else a.view(HalfOps) for a in (g, x, y))
                r = bwd(xp, x, y, g)
                return (None if r is None else np.asarray(r),)
        if keeps and not graph_mode(xp):
            kept = ctx.__dict__.get("kept")
            if kept:
                return (bwd(xp, x, y, g, **kept),)
        return (bwd(xp, x, y, g),)

    cls = type(name.capitalize(), (Pointwise,), {
        "name": name, "saved": saved, "saves_output": saves_output,
        "differentiable": differentiable, "graph_inputs": {"x": 0},
        "forward": staticmethod(forward), "backward": staticmethod(backward)})
    return cls


def _zero_grad(xp, x, y, g):
    return xp.zeros_like(g)


def _relu(x, out=None):
    # torch: x < 0 ? 0 : x (relu(-0.0) is -0.0): the input is the operand kept on a tie
    return max_first(x, 0, out=out) if out is not None else max_first(x, 0)


def _sigmoid(x, out=None):
    return special.expit(x, out=out) if out is not None else special.expit(x)


def _gelu_exact(x, out=None, keep=None):
    e = special.erf(x * np.asarray(0.7071067811865476, x.dtype))
    if keep is not None:  # the backward's erf (scipy's erf is slow: ~20 ns an element)
        keep["erf"] = e
    r = 0.5 * x * (1.0 + e)
    if out is not None:
        return write_out(r, out)
    return r.astype(x.dtype, copy=False)


def _gelu_exact_bwd(xp, x, y, g, erf=None):
    if erf is None:
        erf = xp.erf(x * xp.asarray(0.7071067811865476, x.dtype))
    cdf = 0.5 * (1.0 + erf)
    pdf = xp.exp(-0.5 * x * x) * xp.asarray(0.3989422804014327, x.dtype)
    return g * (cdf + x * pdf)


def _silu(x, out=None):
    with np.errstate(over="ignore"):
        r = x / (1 + np.exp(-x))  # torch's kernel: x / (1 + exp(-x))
    if out is not None:
        return write_out(r, out)
    return r


def _silu_bwd(xp, x, y, g):
    # torch's silu_backward kernel: dy * sigmoid * (1 + x * (1 - sigmoid)), left to right
    with xp.errstate(over="ignore"):
        s = 1 / (1 + xp.exp(-x))
    return g * s * (1 + x * (1 - s))


def _mish(x, out=None):
    with np.errstate(over="ignore"):
        r = x * np.tanh(np.log1p(np.exp(x)))  # torch's kernel: x * tanh(log1p(exp(x)))
    if out is not None:
        return write_out(r, out)
    return r


def _mish_bwd(xp, x, y, g):
    # torch's mish_backward: dy * (tanh_sp + x * sigmoid * (1 - tanh_sp^2)), in one kernel
    with np.errstate(over="ignore"):
        s = 1 / (1 + xp.exp(-x))
        t = xp.tanh(xp.log1p(xp.exp(x)))
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


Neg = _unary("neg", _negative, lambda xp, x, y, g: -g, saved=(), float_only=False)
from ._xp import _np_rsqrt, _sgn, wide32  # noqa: E402  (torch's sgn for gradients: 0 for NaN)


Abs = _unary("abs", _wrap1(np.abs), lambda xp, x, y, g: g * xp.sgn(x), float_only=False,
             no_bool="abs_cpu")
Exp = _unary("exp", wide32(np.exp, float64_too=True), lambda xp, x, y, g: g * y, saved=(),
             saves_output=True)
# the derivatives below are torch's formulas in its order (a number multiplies in the compute
# dtype): grad * result * ln 2, grad / (x * ln 2), (-x * x + 1).rsqrt(), ...
Exp2 = _unary("exp2", wide32(np.exp2), lambda xp, x, y, g: g * y * _LN2,
              saved=(), saves_output=True)
Expm1 = _unary("expm1", wide32(np.expm1), lambda xp, x, y, g: g * (y + 1), saved=(),
               saves_output=True)
Log = _unary("log", wide32(np.log), lambda xp, x, y, g: g / x)
Log2 = _unary("log2", wide32(np.log2),
              lambda xp, x, y, g: g / (x * _LN2))
Log10 = _unary("log10", wide32(np.log10),
               lambda xp, x, y, g: g / (x * _LN10))
Log1p = _unary("log1p", wide32(np.log1p), lambda xp, x, y, g: g / (1 + x))
Sqrt = _unary("sqrt", _wrap1(np.sqrt), lambda xp, x, y, g: g / (2 * y), saved=(),
              saves_output=True)
def _rsqrt_bwd(xp, x, y, g):
    """torch's ``-0.5 * grad * result.pow(3)``, the cube by the pow kernel's own rule."""
    from .binary import PowScalar  # (binary imports this module)
    return (-0.5 * g) * xp.call(PowScalar, y, 3)


Rsqrt = _unary("rsqrt", lambda x, out=None: np.divide(1, np.sqrt(x), out=out), _rsqrt_bwd,
               saved=(), saves_output=True, half_fwd=_np_rsqrt)  # (the formulas' rsqrt too)
Reciprocal = _unary("reciprocal", lambda x, out=None: np.divide(1, x, out=out),
                    lambda xp, x, y, g: -g * (y * y), saved=(), saves_output=True)
def _square(x, out=None):
    if x.dtype == np.bool_:  # bool ** 2 is int64 (which a bool target cannot take)
        x = x.astype(np.int64)
        _out_check(x.dtype, out)
        if out is not None:
            np.copyto(out, np.square(x), casting="unsafe")
            return out
    return np.square(x, out=out) if out is not None else np.square(x)


Square = _unary("square", _square,
                lambda xp, x, y, g: g * (2 * x), float_only=False)
Square.node_name = "PowBackward0"  # (torch's square is pow(x, 2))
Sin = _unary("sin", wide32(np.sin), lambda xp, x, y, g: g * xp.cos(x))
Cos = _unary("cos", wide32(np.cos), lambda xp, x, y, g: -g * xp.sin(x))
Tan = _unary("tan", wide32(np.tan), lambda xp, x, y, g: g * (1 + y * y), saved=(),
             saves_output=True)
Asin = _unary("asin", wide32(np.arcsin), lambda xp, x, y, g: g * xp.rsqrt(-x * x + 1))
Acos = _unary("acos", wide32(np.arccos), lambda xp, x, y, g: g * -xp.rsqrt(-x * x + 1))
Atan = _unary("atan", wide32(np.arctan), lambda xp, x, y, g: g / (1 + x * x))
Sinh = _unary("sinh", wide32(np.sinh, float64_too=True), lambda xp, x, y, g: g * xp.cosh(x))
# torch's derivatives: (x^2 + 1).rsqrt(), (x^2 - 1).rsqrt(), grad * 1 / (1 - x^2)
Asinh = _unary("asinh", _wrap1(np.arcsinh), lambda xp, x, y, g: g * xp.rsqrt(x * x + 1))
Acosh = _unary("acosh", _wrap1(np.arccosh), lambda xp, x, y, g: g * xp.rsqrt(x * x - 1))
Atanh = _unary("atanh", wide32(np.arctanh), lambda xp, x, y, g: g / (1 - x * x))


def _no_inplace_derivative(op):
    """``op``'s in-place form as torch 2.13 has it: the forward runs, and a backward through it
    raises ("the derivative for 'inplace version of acosh' is not implemented.")."""
    def backward(ctx, g):
        raise NotImplementedError(f"the derivative for 'inplace version of {op.name}' is not "
                                  "implemented.")
    # (torch's node for it is the in-place overload's: AsinhBackward1)
    return type(op.__name__ + "Inplace", (op,), {"backward": staticmethod(backward),
                                                  "node_name": op.__name__ + "Backward1"})


AsinhInplace, AcoshInplace, AtanhInplace = (_no_inplace_derivative(o) for o in (Asinh, Acosh, Atanh))


def _lgamma(x, out=None):
    r = special.gammaln(x)
    r = np.where(x == -np.inf, np.asarray(np.inf, r.dtype), r)  # torch: lgamma(-inf) = inf
    if out is not None:
        return write_out(r, out)
    return r.astype(x.dtype, copy=False)


def _digamma(x, out=None):
    r = special.psi(x)  # psi(±0) = ∓inf and NaN at the negative integers and -inf, as torch
    if out is not None:
        return write_out(r, out)
    return r.astype(x.dtype, copy=False)


def _trigamma(x):
    wide = opmath_dtype(x.dtype)  # torch's opmath for half dtypes
    return special.trigamma(x.astype(wide)).astype(x.dtype)


# torch's derivatives are formulas: grad * digamma(self), grad * polygamma(1, self) -- for half
# inputs the polygamma result is rounded to the half dtype (trigamma(-2) overflows to inf)
Lgamma = _unary("lgamma", _lgamma, lambda xp, x, y, g: g * xp.digamma(x))
Digamma = _unary("digamma", _digamma, lambda xp, x, y, g: g * xp.trigamma(x))
Cosh = _unary("cosh", wide32(np.cosh, float64_too=True), lambda xp, x, y, g: g * xp.sinh(x))
Tanh = _unary("tanh", wide32(np.tanh, float64_too=True), lambda xp, x, y, g: g * (1 - y * y),
              saved=(), saves_output=True, kernel_bwd=True)
# torch's sigmoid_backward kernel: grad * (1 - result) * result
Sigmoid = _unary("sigmoid", _sigmoid, lambda xp, x, y, g: g * (1 - y) * y, saved=(),
                 saves_output=True, kernel_bwd=True, f16_formula=True)
def _relu_bwd(xp, x, y, g):
    if graph_mode(xp):
        return xp.where(y <= 0, xp.zeros((), g.dtype), g)
    return relu_grad(y, g)


Relu = _unary("relu", _relu, _relu_bwd,
              saved=(), saves_output=True, float_only=False, no_bool="relu")
Gelu = _unary("gelu", _gelu_exact, _gelu_exact_bwd, kernel_bwd=True, keeps=True)
Silu = _unary("silu", _silu, _silu_bwd, kernel_bwd=True)
Mish = _unary("mish", _mish, _mish_bwd, kernel_bwd=True)
Erf = _unary("erf", special.erf,
             lambda xp, x, y, g: 2 / math.sqrt(math.pi) * xp.exp(-(x * x)) * g)
# torch saves the input and recomputes erfinv in backward (so the version check is on the input)
def _erfinv(x, out=None):
    """erfinv, odd at zero as torch's: ``erfinv(-0.0)`` is ``-0.0`` (scipy's gives ``0.0``)."""
    neg_zero = (x == 0) & np.signbit(x)  # (read before an in-place call overwrites x)
    r = special.erfinv(x, out=out) if out is not None else np.asarray(special.erfinv(x))
    if neg_zero.any():  # (a 0-d input gives a 0-d array: a scalar could not be written)
        np.copyto(r, -0.0, where=neg_zero)
    return r


Erfinv = _unary("erfinv", wide32(_erfinv),
                lambda xp, x, y, g: 0.5 * math.sqrt(math.pi) * xp.exp(xp.square(xp.erfinv(x))) * g)


class Polygamma(Pointwise):
    """``polygamma(n, x)`` for ``n >= 1``: the derivatives of ``digamma`` (``n = 1`` is torch's
    trigamma algorithm; higher orders scipy's), differentiable to any order. Backward rules
    reach it (``digamma``'s derivative); it has no public function here."""

    name = "polygamma"
    saved = (0,)
    graph_inputs = {"x": 0}

    @staticmethod
    def forward(ctx, x, n=1):
        ctx.x, ctx.n = x, n
        if n == 1:
            r = _trigamma(x)
        else:
            from scipy.special import polygamma
            wide = opmath_dtype(x.dtype)
            r = np.asarray(polygamma(n, x.astype(wide))).astype(x.dtype)
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        return (g * xp.call(Polygamma, ctx.x, n=ctx.n + 1),)
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
    def forward(ctx, x, decimals=0):
        _refuse("round_cpu", x.dtype, "biu")
        wide = opmath_dtype(x.dtype)
        xw = x.astype(wide, copy=False)
        p = np.asarray(10.0 ** abs(decimals)).astype(wide)
        r = (np.round(xw / p) * p if decimals < 0 else np.round(xw * p) / p).astype(x.dtype)
        return r

    @staticmethod
    def backward(ctx, g):
        return (ns(g).zeros_like(g),)


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
        xp = ns(g)
        with xp.errstate(invalid="ignore"):
            return (g * xp.astype(xp.isfinite(ctx.x), xp.npdtype(g)),)


class LeakyRelu(Pointwise):
    name = "leaky_relu"
    saved = (0,)
    inplace_saves_output = True  # torch's leaky_relu_ backward reads its result

    @staticmethod
    def forward(ctx, x, negative_slope=0.01):
        ctx.x, ctx.slope = x, negative_slope
        if getattr(ctx, "inplace_target", None) is not None:
            ctx.torch_node = "LeakyReluBackward1"  # (torch's leaky_relu_ node)
        # torch's kernel: half precision computes x * slope in float32 and rounds once
        wide = opmath_dtype(x.dtype)
        r = np.where(x > 0, x, (x.astype(wide, copy=False) * np.asarray(negative_slope, wide))
                     .astype(x.dtype, copy=False))
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        if graph_mode(xp):
            return (xp.where(ctx.x > 0, g, g * ctx.slope),)
        wide = opmath_dtype(g.dtype)  # (the backward kernel: float32 for half precision)
        return (np.where(ctx.x > 0, g, (g.astype(wide, copy=False) * np.asarray(ctx.slope, wide))
                         .astype(g.dtype, copy=False)),)


class Elu(Pointwise):
    """torch's ``elu`` kernel, which also computes ``selu`` and ``celu``: ``scale * x`` for
    ``x > 0``, else ``scale * alpha * (exp(x * input_scale) - 1)``; the gradient at 0 is the
    left branch's (``scale * alpha * input_scale``), as in torch."""

    name = "elu"
    inplace_saves_output = True  # torch's elu_ (selu_, celu_) backward reads its result
    saved = (0,)

    @staticmethod
    def forward(ctx, x, alpha=1.0, scale=1.0, input_scale=1.0):
        ctx.x, ctx.alpha, ctx.scale, ctx.input_scale = x, alpha, scale, input_scale
        if getattr(ctx, "inplace_target", None) is not None:
            ctx.torch_node = "EluBackward1"  # (torch's elu_/selu_ node; celu_ names its own)
        wide = opmath_dtype(x.dtype)
        xw = x.astype(wide, copy=False)
        c = lambda v: np.asarray(v, wide)  # noqa: E731
        arg = min_first(xw, 0) * c(input_scale)
        # (torch's expm1 is correctly rounded but for rare last-bit misses; numpy's float32
        # expm1 is not: a double expm1 rounded to float32 matched torch on 99.96% of elements,
        # numpy's float32 one on 90%)
        em1 = np.expm1(arg.astype(np.float64)).astype(wide) if wide == np.float32 else \
            np.expm1(arg)
        # (a zero, either sign, takes the ``x * scale`` branch: torch keeps its sign whatever
        # alpha's)
        r = np.where(xw >= 0, xw * c(scale), em1 * (c(alpha) * c(scale)))  # (torch's negcoef:
        # alpha * scale in that dtype)
        r = r.astype(x.dtype, copy=False)
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x = ctx.x
        if not graph_mode(xp):  # torch's backward kernel, in its order (float32 for half):
            # grad * input_scale * (alpha * scale) * exp(x * input_scale), or grad * scale
            wide = opmath_dtype(g.dtype)
            gw, xw = g.astype(wide, copy=False), x.astype(wide, copy=False)
            c = lambda v: np.asarray(v, wide)  # noqa: E731
            neg = gw * c(ctx.input_scale) * (c(ctx.alpha) * c(ctx.scale)) * \
                np.exp(np.minimum(xw, 0) * c(ctx.input_scale))
            return (np.where(xw <= 0, neg, gw * c(ctx.scale)).astype(g.dtype, copy=False),)
        c = lambda v: xp.asarray(v, g.dtype)  # noqa: E731
        # exp of the negative part only (no overflow in the branch where() drops); in a graph
        # a select, whose derivative at 0 is the left branch's, as torch's double backward
        neg_x = xp.where(x <= 0, x, 0) if graph_mode(xp) else xp.minimum(x, 0)
        neg = c(ctx.alpha * ctx.scale * ctx.input_scale) * xp.exp(neg_x * c(ctx.input_scale))
        return (xp.where(x <= 0, g * neg, g * c(ctx.scale)),)  # NaN takes the right branch


class Hardtanh(Pointwise):
    """``hardtanh``/``relu6``: clamp into ``[lo, hi]`` keeping the input's dtype (the bounds are
    converted to it); the gradient is 0 at and beyond the bounds, unlike ``clamp``'s, and
    passes for NaN (torch's ``hardtanh_backward``)."""

    name = "hardtanh"
    saved = (0,)

    @staticmethod
    def forward(ctx, x, lo=-1.0, hi=1.0):
        if x.dtype == np.bool_:
            raise RuntimeError("Bool inputs not supported for hardtanh")
        if x.dtype == np.uint8 and (lo < 0 or hi < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
        ctx.x, ctx.lo, ctx.hi = x, lo, hi
        if x.dtype.kind in "iu":
            lo, hi = int(lo), int(hi)
        r = min_first(max_first(x, np.asarray(lo).astype(x.dtype)),
                      np.asarray(hi).astype(x.dtype))
        return np.asarray(r, x.dtype)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x = ctx.x
        return (xp.where((x <= ctx.lo) | (x >= ctx.hi), xp.zeros((), g.dtype), g),)


class Threshold(Pointwise):
    """``threshold(x, t, v)``: ``v`` where ``x <= t``, else ``x`` (NaN stays NaN); the gradient
    passes where ``x > t`` does not hold false, i.e. it is 0 only where ``x <= t``."""

    name = "threshold"
    saved = (0,)

    @staticmethod
    def forward(ctx, x, threshold=0.0, value=0.0):
        if x.dtype == np.bool_:
            raise _not_implemented("threshold_cpu", x.dtype)
        ctx.x, ctx.t = x, threshold
        if getattr(ctx, "inplace_target", None) is not None:
            ctx.torch_node = "ThresholdBackward1"  # (torch's threshold_ node)
        v = np.asarray(_to_dtype_checked(value, x.dtype))
        r = np.where(x <= threshold, v, x)
        return np.asarray(r, x.dtype)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        return (xp.where(ctx.x <= ctx.t, xp.zeros((), g.dtype), g),)


class Hardsigmoid(Pointwise):
    """``relu6(x + 3) / 6``; gradient ``1/6`` strictly inside ``(-3, 3)`` (torch's kernel, whose
    1/6 is rounded to float32 even for float64 tensors)."""

    name = "hardsigmoid"
    saved = (0,)

    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        wide = opmath_dtype(x.dtype)
        xw = x.astype(wide, copy=False)
        r = (np.minimum(np.maximum(xw + 3, 0), 6) / np.asarray(6, wide)).astype(x.dtype)
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        if graph_mode(xp):
            return (xp.call(HardsigmoidBackward, g, ctx.x),)
        return (HardsigmoidBackward.forward(ctx, g, ctx.x),)


class HardsigmoidBackward(Pointwise):
    """hardsigmoid's input gradient, an op of its own because torch defines no derivative for
    it: differentiating it raises torch's error."""

    name = "hardsigmoid_backward"

    @staticmethod
    def forward(ctx, g, x):
        # torch's kernel multiplies by 1/6 rounded to float32, in float64 too (and in float32
        # for half precision, rounded once)
        wide = opmath_dtype(g.dtype)
        sixth = np.asarray(np.float32(1.0 / 6.0), wide)
        prod = (g.astype(wide, copy=False) * sixth).astype(g.dtype, copy=False)
        return np.where((x > -3) & (x < 3), prod, np.zeros((), g.dtype))

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")


class Hardswish(Pointwise):
    """``x * relu6(x + 3) / 6``; gradient 0 up to -3, ``x / 3 + 1/2`` inside ``(-3, 3)``, 1 from 3
    on (torch's ``hardswish_backward``)."""

    name = "hardswish"
    saved = (0,)

    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        wide = opmath_dtype(x.dtype)
        xw = x.astype(wide, copy=False)
        r = (xw * np.minimum(np.maximum(xw + 3, 0), 6) / np.asarray(6, wide)).astype(x.dtype)
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x = ctx.x
        if not graph_mode(xp):  # torch's backward kernel: float32 for half, rounded once
            wide = opmath_dtype(g.dtype)
            gw, xw = g.astype(wide, copy=False), x.astype(wide, copy=False)
            mid = (gw * (xw / np.asarray(3, wide) + np.asarray(0.5, wide))).astype(g.dtype)
            return (np.where(x <= -3, np.zeros((), g.dtype), np.where(x < 3, mid, g)),)
        mid = g * (x / xp.asarray(3, g.dtype) + xp.asarray(0.5, g.dtype))
        return (xp.where(x <= -3, xp.zeros((), g.dtype), xp.where(x < 3, mid, g)),)


class Clamp(Pointwise):
    """clamp(min, max) with scalar or array bounds: ``min(max(x, lo), hi)``, so ``lo > hi`` gives
    ``hi`` everywhere and a NaN bound gives NaN (torch's rule). The result dtype is the promotion
    of the input with both bounds (a number bound outside an integer dtype is refused, as torch
    converts a Scalar argument). The gradient passes where ``lo <= x <= hi``; a tensor bound gets it where it is the result."""

    name = "clamp"
    saved = (0,)
    tensor_attrs = ("lo", "hi")
    graph_inputs = {"x": 0}
    graph_aliases = ("lo", "hi")

    @staticmethod
    def forward(ctx, x, lo=None, hi=None, out=None):
        ctx.x, ctx.lo, ctx.hi = x, lo, hi
        if not (isinstance(lo, np.ndarray) or isinstance(hi, np.ndarray)):
            ctx.torch_node = "ClampBackward1"  # torch's number-bounds overload (tensor: 0)
        rt = _rtype(x, lo, hi)
        if rt == np.bool_ and not isinstance(lo if lo is not None else hi, np.ndarray):
            kernel = "clamp_min" if hi is None else "clamp_max" if lo is None else "clamp"
            raise NotImplementedError(f'"{kernel}_scalar_cpu" not implemented for \'Bool\'')
        half = rt in _HALF_DT
        xr = x.astype(rt, copy=False)
        r = xr
        for bound, f in ((lo, max_first), (hi, min_first)):  # ties keep x (torch)
            if bound is None:
                continue
            if not isinstance(bound, np.ndarray):  # a Scalar argument: torch checks its
                _to_dtype_checked(bound, rt)  # conversion (256 cannot clamp uint8, nor 1e40
                # float32; -1 wraps to 255 in uint8, c10's rule for unsigned types)
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
        xp = ns(g)
        x, lo, hi = ctx.x, ctx.lo, ctx.hi
        m = None
        if lo is not None:
            m = x >= lo
        if hi is not None:
            m = (x <= hi) if m is None else m & (x <= hi)
        zero = xp.zeros((), g.dtype)
        gx = xp.where(m, g, zero)  # a select, never g * 0 (an inf gradient stays masked)
        glo = ghi = None
        if _is_arr(lo) and len(ctx.needs_input_grad) > 1:
            glo = xp.where(x < lo, g, zero)
        if _is_arr(hi) and len(ctx.needs_input_grad) > 2:
            ghi = xp.where(x > hi, g, zero)
        return (gx, glo, ghi)


class ClampTensors(Pointwise):
    """``clamp`` with tensor bounds that take gradients (torch's ClampBackward0): the forward of
    :class:`Clamp`; backward by torch's ``clamp_backward_min_max`` masks -- the input where
    ``lo <= x <= hi``, ``lo`` where ``x < lo`` (and ``lo < hi``), ``hi`` where ``x > hi`` (or
    ``hi < lo``); comparisons with NaN are false, so a NaN input passes no gradient to the
    bounds."""

    name = "clamp_tensors"
    node_name = "ClampBackward0"  # (torch's clamp.Tensor overload)
    saved = (0, 1, 2)
    graph_inputs = {"x": 0, "lo": 1, "hi": 2}

    @staticmethod
    def forward(ctx, x, lo, hi, out=None):
        ctx.x, ctx.lo, ctx.hi = x, lo, hi
        return Clamp.forward.__wrapped__(Ctx_(), x, lo, hi, out)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x, lo, hi = ctx.x, ctx.lo, ctx.hi
        zero = xp.zeros((), xp.npdtype(g))
        with xp.errstate(invalid="ignore"):
            if lo is not None and hi is not None:
                gx = xp.where((x >= lo) & (x <= hi), g, zero)
                glo = xp.where((x < lo) & (lo < hi), g, zero)
                ghi = xp.where((x > hi) | (hi < lo), g, zero)
            elif lo is not None:
                gx, glo, ghi = xp.where(x >= lo, g, zero), xp.where(x < lo, g, zero), None
            else:
                gx, glo, ghi = xp.where(x <= hi, g, zero), None, xp.where(x > hi, g, zero)
        n = ctx.needs_input_grad
        return (gx, glo if isinstance(raw(ctx, "lo"), np.ndarray) and n[1] else None,
                ghi if isinstance(raw(ctx, "hi"), np.ndarray) and n[2] else None)


class Ctx_:
    """A throwaway context for calling another kernel's forward."""


# ----- binary math: in .binary (re-exported here: ``E.Add`` and friends) -----------------------
from .binary import *  # noqa: E402,F401,F403
from .unary import *  # noqa: E402,F401,F403
