"""Elementwise ops of torch 2.13 added after the first op table: ``logaddexp``/``logaddexp2``,
the NaN-ignoring extrema ``fmax``/``fmin``, ``copysign``, ``heaviside``, ``frac``, the angle
conversions ``deg2rad``/``rad2deg``, ``erfc``, the tests ``signbit``, ``isposinf`` and
``isneginf``, and ``round``'s ``decimals=0`` overload.

Each follows torch's CPU kernel: the dtypes it has an implementation for (others raise its
NotImplementedError), its result dtype (integer inputs give the default float where torch's
do), float16/bfloat16 computed in float32 and rounded once where torch's kernel does, and its
derivative formula from torch's ``derivatives.yaml``, in its order of operations (measured on
torch 2.13: ``tests/torch/test_ops_table.py`` rows and ``tests/torch/test_added_pointwise.py``).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._errors import before_broadcast
from ._kernel import Pointwise, finish, write_out
from ._opmath import HALF, opmath_dtype
from ._xp import HalfOps, graph_mode, ns
from .binary import PowScalarBase, _int_pow, _plain
from .elementwise import _binary, _float_rtype, _out_check, _prep, _refuse, _rtype, _unary
from . import _special as special
from . import elementwise as E

__all__ = ["Copysign", "CopysignScalar", "Deg2rad", "Erfc", "Fmax", "Fmin", "Frac", "Heaviside",
           "IsNegInf", "IsPosInf", "Ldexp", "Logaddexp", "Logaddexp2", "Nextafter", "Rad2deg",
           "RoundZeroDecimals", "Signbit", "heaviside_dtypes"]

# torch's constants (c10/util/MathConstants.h), correctly rounded to double
_PI_180 = float("0.017453292519943295769236907684886127134428718885417")
_180_PI = float("57.295779513082320876798154814105170332405472466564")
_INV_LN2 = 1.0 / float("0.693147180559945309417232121458176568")


def _half_view(*arrays):
    """The arrays of a backward formula, each operation rounding to the half dtype as torch's
    tensor ops do (:class:`HalfOps`); other dtypes (and graph mode) as given."""
    return tuple(a.view(HalfOps) if isinstance(a, np.ndarray) and a.dtype in HALF else a
                 for a in arrays)


# ----- logaddexp, logaddexp2 ----------------------------------------------------------------------
def _log_add(two):
    """torch's ``logaddexp{,2}_kernel``: ``m + log1p(exp(-|a - b|))`` with ``m = max(a, b)``
    (``exp2`` and a factor ``1 / ln 2`` for base 2, added with one fused multiply-add in
    float32), except that two equal infinities give themselves (``inf - inf`` would be NaN); NaN
    propagates. Half precision in float32."""

    def forward(ctx, a, b, out=None):
        rt = np.dtype(_rtype(a, b))
        _out_check(rt, out)  # (torch checks an out= target's dtype before the kernel's)
        _refuse("logaddexp2_cpu" if two else "logaddexp_cpu", rt, "biu")
        # torch's derivative subtracts the operands as given: a bool one makes it raise
        ctx.bool_operand = any(isinstance(v, np.ndarray) and v.dtype == np.bool_ for v in (a, b))
        a, b, _ = _prep(a, b)
        ctx.a, ctx.b = a, b
        wide = opmath_dtype(rt)
        x, y = np.asarray(a).astype(wide, copy=False), np.asarray(b).astype(wide, copy=False)
        with np.errstate(all="ignore"):
            d = -np.abs(x - y)
            m = np.maximum(x, y)
            if not two:
                r = m + np.log1p(np.exp(d))
            elif wide == np.float32:  # torch's kernel fuses ``m + tail * (1 / ln 2)`` into one
                # multiply-add (measured): the float32 product is exact in float64
                r = (m.astype(np.float64) + np.log1p(np.exp2(d)).astype(np.float64)
                     * float(np.float32(_INV_LN2))).astype(np.float32)
            else:
                r = m + np.log1p(np.exp2(d)) * _INV_LN2
            r = np.where((x == y) & (np.abs(x) == np.inf), x, r)
        r = r.astype(rt, copy=False)
        return write_out(r, out) if out is not None else r

    def backward(ctx, g):
        # self: grad / (1 + exp(other - self)), other: grad / (1 + exp(self - other)); base 2:
        # pow(2, other - self)
        if ctx.__dict__.get("bool_operand"):
            raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not "
                               "supported. If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.")
        xp = ns(g)
        a, b = ctx.a, ctx.b
        if not graph_mode(xp):
            g, a, b = _half_view(g, a, b)
        need = ctx.needs_input_grad

        def term(d):
            with xp.errstate(over="ignore"):
                return xp.call(PowScalarBase, 2, d) if two else xp.exp(d)

        ga = _plain(g / (1 + term(b - a))) if need[0] else None
        gb = _plain(g / (1 + term(a - b))) if len(need) > 1 and need[1] else None
        return (ga, gb)

    name = "logaddexp2" if two else "logaddexp"
    return type(name.capitalize(), (Pointwise,), {
        "name": name, "saved": (0, 1), "graph_inputs": {"a": 0, "b": 1},
        "forward": staticmethod(forward), "backward": staticmethod(backward)})


Logaddexp = _log_add(False)
Logaddexp2 = _log_add(True)


# ----- fmax, fmin ---------------------------------------------------------------------------------
def _nan_ignoring(name, keeps):
    """``fmax``/``fmin``: a NaN operand loses to a number (NaN only when both are). torch's
    floating kernel is C's ``fmax``/``fmin`` per element: equal operands (0.0 and -0.0) give the
    first, except in bfloat16, whose conversion path gives the second (measured on torch 2.13);
    integer and bool operands take ``maximum``/``minimum``. Gradient (torch's formula): all of it
    to ``self`` where ``self`` is kept by the comparison or ``other`` is NaN, else to ``other``."""
    strict, loose = (np.greater, np.greater_equal) if keeps == "max" else (np.less, np.less_equal)
    ints = np.maximum if keeps == "max" else np.minimum

    def forward(ctx, a, b, out=None):
        a, b, rt = _prep(a, b)
        ctx.a, ctx.b = a, b
        rt = np.dtype(rt)
        if rt.kind in "biu":
            return _binary(ints, a, b, out)
        cmp = strict if rt == D.bfloat16.np else loose
        with np.errstate(invalid="ignore"):
            first = cmp(a, b) | np.isnan(b)
        r = np.where(first, a, b)
        if out is not None:
            _out_check(rt, out)
            return write_out(r, out)
        return r

    def backward(ctx, g):
        xp = ns(g)
        a, b = ctx.a, ctx.b
        zero = xp.zeros((), g.dtype)
        to_self = (a >= b if keeps == "max" else a <= b) | xp.isnan(b)
        return (xp.where(to_self, g, zero), xp.where(to_self, zero, g))

    return type(name.capitalize(), (Pointwise,), {
        "name": name, "saved": (0, 1), "graph_inputs": {"a": 0, "b": 1},
        "forward": staticmethod(forward), "backward": staticmethod(backward)})


Fmax = _nan_ignoring("fmax", "max")
Fmin = _nan_ignoring("fmin", "min")


# ----- copysign -----------------------------------------------------------------------------------
class Copysign(Pointwise):
    """``|input|`` with the sign bit of ``other`` (a tensor here; :class:`CopysignScalar` for a
    number); integer and bool operands give the default float dtype. Gradient (torch's
    ``copysign_tensor_self_backward``): ``grad * (result / self)``, 0 where ``self`` is 0;
    ``other`` gets zeros."""

    name = "copysign"
    saved = (0,)
    reads = {0: (0,)}  # (torch saves ``self`` for its own gradient only)
    saves_output = True
    graph_inputs = {"a": 0}

    @staticmethod
    def forward(ctx, a, b, out=None):
        rt = _float_rtype(a, b)
        a = np.asarray(a).astype(rt, copy=False) if isinstance(a, np.ndarray) else a
        if isinstance(b, np.ndarray):
            ctx.b_meta = (b.shape, b.dtype)
            b = b.astype(rt, copy=False)
        ctx.a = a
        ctx.y = r = _binary(np.copysign, a, b, out)
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        a, y = ctx.a, ctx.y
        if not graph_mode(xp):
            g, a, y = _half_view(g, a, y)
        with xp.errstate(divide="ignore", invalid="ignore"):
            ratio = y / a
        ratio = xp.where(a == 0, xp.zeros((), xp.npdtype(ratio)), ratio)
        ga = _plain(g * ratio)
        meta = ctx.__dict__.get("b_meta")
        if meta is None:
            return (ga,)
        return (ga, xp.zeros(meta[0], dtype=meta[1]))


class CopysignScalar(Copysign):
    name = "copysign_scalar"
    node_name = "CopysignBackward1"


# ----- heaviside ----------------------------------------------------------------------------------
def heaviside_dtypes(*dtypes):
    """torch's refusal of heaviside operands (and ``out``) of different dtypes; the functions
    make it before broadcasting, as torch does."""
    if any(d != dtypes[0] for d in dtypes[1:]):
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")


class Heaviside(Pointwise):
    """``values`` where ``input`` is 0, else ``input > 0`` (NaN gives 0), in the common dtype of
    two tensors that must share it (and any ``out``): torch has no mixed-dtype kernel. torch has
    no derivative: the result of an input that requires grad hangs on a node whose backward
    raises."""

    name = "heaviside"
    node_name = "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, a, b, out=None):
        target = out if out is not None else getattr(ctx, "inplace_target", None)
        heaviside_dtypes(a.dtype, b.dtype, *(() if target is None else (target.dtype,)))
        with np.errstate(invalid="ignore"):
            r = np.where(a == 0, b, (a > 0).astype(a.dtype))
        return write_out(r, out) if out is not None else r

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::heaviside is not implemented")


# ----- unary --------------------------------------------------------------------------------------
def _frac(x, out=None):
    _refuse("frac_cpu", x.dtype, "biu")
    with np.errstate(invalid="ignore"):  # (inf - inf: NaN, as torch's)
        return np.subtract(x, np.trunc(x), out=out) if out is not None else x - np.trunc(x)


def _scale(c):
    """``x * c`` with ``c`` in ``x``'s dtype (float32 arithmetic reads it as float32, as
    torch's mul kernel reads its scalar)."""
    def fwd(x, out=None):
        f = x.dtype.type(c)
        return np.multiply(x, f, out=out) if out is not None else x * f
    return fwd


def _signbit(x, out=None):
    if x.dtype.kind == "f":
        r = np.signbit(x)
    elif x.dtype.kind == "i":
        r = x < 0
    else:  # bool and unsigned: never negative
        r = np.zeros(x.shape, bool)
    return write_out(r, out) if out is not None else r


def _is_inf(sign):
    def f(x, out=None):
        r = x == sign * np.inf if x.dtype.kind == "f" else np.zeros(x.shape, bool)
        return write_out(r, out) if out is not None else r
    return f


Frac = _unary("frac", _frac, lambda xp, x, y, g: g, saved=(), float_only=False)
# deg2rad/rad2deg: torch multiplies by the constant (integer inputs first become the default
# float); the gradient is grad times the same constant
Deg2rad = _unary("deg2rad", _scale(_PI_180), lambda xp, x, y, g: g * _PI_180, saved=())
Rad2deg = _unary("rad2deg", _scale(_180_PI), lambda xp, x, y, g: g * _180_PI, saved=())
# torch: -2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad
Erfc = _unary("erfc", special.erfc, lambda xp, x, y, g: -2 / np.sqrt(np.pi) * xp.exp(-(x * x)) * g)
Signbit = _unary("signbit", _signbit, None, saved=(), float_only=False, differentiable=False)
IsPosInf = _unary("isposinf", _is_inf(1), None, saved=(), float_only=False, differentiable=False)
IsNegInf = _unary("isneginf", _is_inf(-1), None, saved=(), float_only=False, differentiable=False)


class RoundZeroDecimals(E.Round):
    """``round(x, decimals=0)``: the plain rounding's values under torch's ``round.decimals``
    overload (its node is ``RoundBackward1``), which has no integer or bool kernel."""

    node_name = "RoundBackward1"

    @staticmethod
    def forward(ctx, x, out=None):
        _refuse("round_vml_cpu", x.dtype, "biu")
        return _ROUND(ctx, x, out=out)


_ROUND = E.Round.forward.__wrapped__  # (the plain kernel, before its result normalisation)


# ----- nextafter, ldexp ---------------------------------------------------------------------------
class Nextafter(Pointwise):
    """The next representable value after ``input`` toward ``other``, in the operands' common
    dtype; floating dtypes only (torch's ``nextafter_cpu``). torch's derivative passes the
    gradient to ``input`` where the operands differ (0 where they are equal, whatever the
    gradient) and gives ``other`` zeros."""

    name = "nextafter"
    saved = (0, 1)
    reads = {0: (0,), 1: (0,)}
    graph_aliases = ("equal",)

    @staticmethod
    def forward(ctx, a, b, out=None):
        rt = np.dtype(_rtype(a, b))
        _out_check(rt, out if out is not None else getattr(ctx, "inplace_target", None))
        _refuse("nextafter_cpu", rt, "biu")
        ctx.b_meta = (b.shape, b.dtype)
        a, b, _ = _prep(a, b)
        # (compared in the result's dtype, and before an in-place kernel overwrites ``a``)
        ctx.equal = equal = np.asarray(a == b)
        r = _binary(np.nextafter, a, b, out)
        if equal.any():  # C's nextafter gives ``other`` when the two are equal (numpy's float16
            np.copyto(r, np.broadcast_to(b, r.shape), where=equal)  # gives ``input``: -0.0, 0.0)
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        zero = xp.zeros((), dtype=xp.npdtype(g))
        shape, dtype = ctx.b_meta
        return (xp.where(ctx.equal, zero, g), xp.zeros(shape, dtype=dtype))


_LN2 = float("0.693147180559945309417232121458176568")


def _pow2(b):
    """``2.0 ** other`` as torch's ``pow(Scalar, Tensor)`` computes it: in ``other``'s dtype
    when it is floating, else in the default float dtype."""
    if _floating(b.dtype):
        return _binary(np.power, 2.0, b, None)
    rt = D.get_default_dtype().np
    with np.errstate(over="ignore", under="ignore"):
        return np.power(rt.type(2.0), b.astype(rt))


class Ldexp(Pointwise):
    """``input * 2 ** other`` (torch.ldexp). The result dtype is the operands' common dtype, the
    default float for integer and bool operands. torch has two kernels: a floating ``input``
    with an integer ``other`` scales exactly (C's ``ldexp``, the exponent taken as a 32-bit int,
    half types through float32; a bool ``other`` is refused there), every other pair multiplies
    by ``pow(2.0, other)`` (in ``other``'s floating dtype or the default float). An in-place or
    ``out=`` target must be able to take the result dtype. Gradients (``LdexpBackward0``):
    ``grad * 2 ** other`` and ``grad * input * ln 2 * 2 ** other``."""

    name = "ldexp"
    node_name = "LdexpBackward0"
    own_layout = True  # (see forward)
    saved = (1,)
    reads = {1: (0,)}  # (``other``, for ``input``'s gradient; ``other``'s reads the result)
    saves_output = True
    graph_inputs = {"b": 1}

    @staticmethod
    def forward(ctx, a, b, out=None):
        rt = _float_rtype(a, b)
        target = out if out is not None else getattr(ctx, "inplace_target", None)
        if target is not None and not D.can_cast(D._BY_NP[rt], D._BY_NP[target.dtype]):
            # (checked before the operands are broadcast, as torch's ldexp_out does)
            raise before_broadcast(RuntimeError(
                "ldexp can't be cast to the desired output type "
                f"{D.scalar_name(D._BY_NP[target.dtype])}"))
        ctx.b = b
        if _floating(a.dtype) and not _floating(b.dtype):
            if b.dtype == np.bool_:
                raise E._not_implemented("ldexp_cpu_exp", b.dtype)
            if out is None and a.size and a.shape != np.broadcast_shapes(a.shape, b.shape):
                # torch's kernel writes into a result made in the input's shape, then resized
                from .._out import resize_warning
                resize_warning(a.shape, np.broadcast_shapes(a.shape, b.shape))
            n = b.astype(np.int64, copy=False).astype(np.int32)  # (C's int: wraps)
            wide = opmath_dtype(a.dtype)
            with np.errstate(over="ignore", under="ignore"):
                r = np.ldexp(a.astype(wide, copy=False), n).astype(a.dtype, copy=False)
            # (torch's kernel writes into a result made like the input; when the operands
            # broadcast beyond it, its loop lays the resized result out over both)
            operands = (a,) if a.shape == r.shape else (a, b)
        else:
            p = _pow2(b)
            with np.errstate(over="ignore", under="ignore", invalid="ignore"):
                r = _binary(np.multiply, a, p, None, opmath=True)
            r = np.asarray(r).astype(rt, copy=False)
            # the result's layout, as measured on torch 2.13: its loop over the input and a
            # C-ordered power for a float32 or integer input, over the input and ``other``
            # for a float64 or half one
            operands = (a, np.asarray(p, order="C")) if a.dtype == np.float32 or \
                not _floating(a.dtype) else (a, b)
        if out is None:  # the layout of torch's loop over its operands (the product's: the
            r = finish(r, operands, None, True)  # power, not ``other``)
        if out is not None:
            np.copyto(out, r, casting="unsafe")
            r = out
        ctx.y = r
        return r

    @staticmethod
    def backward(ctx, g):
        # torch's formulas: grad * pow(2, other) with an integer 2 (an integer ``other`` keeps
        # an integer power: 0 for a negative exponent) and grad * result * ln 2
        xp = ns(g)
        b, y = ctx.b, ctx.y
        if graph_mode(xp):
            p = xp.power(2, b)
        else:
            p = _pow2(b) if _floating(b.dtype) else \
                _int_pow(np.int64(2), b, np.dtype(_rtype(2, b)))
            g, y = _half_view(g, y)
        with xp.errstate(over="ignore", under="ignore", invalid="ignore"):
            ga = g * p
            gb = g * y * _LN2 if _floating(xp.npdtype(b)) else None
        return (_plain(ga), None if gb is None else _plain(gb))


def _floating(dtype) -> bool:
    return dtype.kind == "f" or dtype in HALF
