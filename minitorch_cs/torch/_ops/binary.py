"""Binary elementwise kernels: arithmetic, powers, extrema, comparisons, logical and bitwise
ops, ``where``, ``lerp``, ``addcmul``/``addcdiv`` (torch 2.13's promotion and broadcasting rules,
shared with :mod:`.elementwise`)."""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._errors import before_broadcast
from ._kernel import Pointwise, write_out
from ._xp import HalfOps, graph_mode, ns, raw

__all__ = [  # private helpers too: callers reach them as E._name
    "Add", "Addcdiv", "Addcmul", "Atan2", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Div", "Eq",
    "FloorDivide", "Fmod", "Ge", "Gt", "Isclose", "Le", "LeftShift", "Lerp", "LogicalAnd",
    "LogicalOr", "LogicalXor", "Lt", "Maximum", "Minimum", "Mul", "Ne", "Pow", "PowScalar",
    "PowScalarBase", "Remainder", "RightShift", "Sub", "Where", "Xlogy", "Xlog1py", "Hypot", "_LOGICAL", "_add_sub",
    "_addc", "_check_integer_zero", "_check_sub", "_cpp", "_extremum", "_int_pow",
    "_nondiff_binary", "_pow_forward", "_pow_special", "_scaled",
]

from ._opmath import HALF, opmath_dtype, scalar_loop_positions
from .elementwise import (  # the shared promotion helpers and the pointwise base
    _binary, _float_rtype, _is_arr, _is_bool, _not_implemented, _out_check, _prep, _refuse,
    _rtype, _to_dtype_checked, _wrap_int)
from .._kernels.select import max_first, min_first


# ----- binary math ------------------------------------------------------------------------------
def _scaled(a, b, alpha):
    """``alpha * b`` for ``add``/``sub``, checked as torch checks ``alpha``: a float alpha is
    refused for integral results, a bool alpha for non-bool ones. Computed in the result dtype
    (in half precision the product is rounded before the sum, as torch's kernel does)."""
    if type(alpha) is int and alpha == 1:
        return b  # (no check refuses an int alpha of 1)
    rt = np.dtype(_rtype(a, b))
    if rt.kind in "biu" and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if isinstance(alpha, (bool, np.bool_)) and rt.kind != "b":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if alpha == 1 and not isinstance(alpha, (bool, np.bool_)):
        return b
    if rt in HALF:  # torch (measured): alpha and b in the half dtype, their product rounded
        # to it, then added and rounded again
        with np.errstate(over="ignore"):
            prod = np.asarray(b).astype(rt) * np.asarray(alpha).astype(rt)
        return prod if isinstance(b, np.ndarray) else float(prod)
    if not isinstance(b, np.ndarray):
        return b * alpha
    if rt.kind == "b":
        return np.asarray(b.astype(bool) & bool(alpha))
    return np.asarray(b.astype(rt, copy=False) * np.asarray(alpha).astype(rt))


def _check_sub(a, b):
    ab, bb = _is_bool(a), _is_bool(b)
    if not (ab or bb):
        return
    if ab and bb:  # (a Python bool counts as a bool tensor: torch wraps it as one)
        raise before_broadcast(RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
            "or `logical_xor()` operator instead."))
    # (torch's sub_check runs before its TensorIterator: ahead of a shape error)
    raise before_broadcast(RuntimeError(
        "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
        "to invert a mask, use the `~` or `logical_not()` operator instead."))


def _add_sub(f, a, b, alpha, out):
    b2 = _scaled(a, b, alpha)
    if b2 is b or not isinstance(b2, np.ndarray):  # (a scaled number is already in the half
        return _binary(f, a, b2, out, opmath=b2 is not b)  # dtype times alpha: not again)
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


def _scalar_operand(a, b):
    """``b`` as torch's multiply and divide kernels read it for a half-precision result: a
    second operand holding one element (any shape that broadcasts as a single value,
    TensorIterator's ``is_scalar``) is taken at its own value in float32 (the kernel's
    ``original_scalar_value``) -- not rounded to the half dtype first, so ``h / tensor(70000.)``
    and ``h * tensor([70000])`` are finite in float16 -- and the kernel then works in float32
    (a truncating division truncates the unrounded quotient). Returned as a float32 array of
    ``b``'s shape; otherwise ``b`` itself."""
    if isinstance(b, np.ndarray) and b.size == 1 and isinstance(a, np.ndarray) and \
            b.dtype != np.bool_ and np.dtype(_rtype(a, b)) in HALF:
        return b.astype(np.float32)
    return b


def _by_scalar(f, a, b, s, out):
    """``f(a, s)`` for :func:`_scalar_operand`'s float32 ``s``: ``a`` in the half result dtype,
    computed in float32 and rounded once (then written into ``out``, if given)."""
    rt = np.dtype(_rtype(a, b))
    r = np.asarray(f(D.np_cast(a, rt).astype(np.float32), s)).astype(rt)
    if out is None:
        return r
    _out_check(rt, out)
    np.copyto(out, r, casting="unsafe")
    return out


class Mul(Pointwise):
    name = "mul"
    saved = (0, 1)
    reads = {0: (1,), 1: (0,)}  # a is read for b's gradient, b for a's
    graph_inputs = {"a": 0, "b": 1}

    @staticmethod
    def forward(ctx, a, b, out=None):
        ctx.a, ctx.b = _grad_operands(a, b)
        s = _scalar_operand(a, b)
        ctx.by_scalar = s is not b
        if ctx.by_scalar:
            ctx.b = b  # ``g * b`` (a's gradient) reads it as the forward does
            return _by_scalar(np.multiply, a, b, s, out)
        return _binary(np.multiply, a, b, out, opmath=True)

    @staticmethod
    def backward(ctx, g):
        n = ctx.needs_input_grad
        if ctx.by_scalar:  # torch's formula is the same product of tensors: its kernel's rule
            xp = ns(g)
            return (xp.call(Mul, g, ctx.b) if n[0] else None,
                    xp.call(Mul, g, ctx.a) if n[1] else None)
        return (g * ctx.b if n[0] else None, g * ctx.a if n[1] else None)


def _grad_operands(a, b):
    """Operands as a backward formula reads them: array operands of a floating result in the
    result's dtype, as torch's formula of tensor ops promotes them (a 0-d tensor of another
    floating dtype counts for less than a dimensioned one): an integer or bool operand -- in
    float16 a large int32 is inf there, so a zero gradient times it is NaN -- and a floating one
    of another dtype, as in torch (mul's and div's gradients; remainder's and fmod's divide the
    operands as given, see :func:`_quotient`)."""
    if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype != b.dtype) and \
            (not isinstance(a, np.ndarray) or a.dtype.kind not in "biu") and \
            (not isinstance(b, np.ndarray) or b.dtype.kind not in "biu"):
        return a, b  # nothing to convert
    rt = np.dtype(_rtype(a, b))
    if rt.kind not in "fV" and rt not in HALF:
        return a, b
    return tuple(x.astype(rt) if isinstance(x, np.ndarray) and x.dtype != rt else x
                 for x in (a, b))


def _check_integer_zero(a, b):
    """torch raises for an integer division (floor, trunc, remainder, fmod) by zero -- the
    divisor taken in the result dtype (an int64 0-d divisor cast to uint8 may become 0); numpy
    would return 0 with a warning."""
    rt = np.dtype(_rtype(a, b))
    if rt.kind in "iu" and np.any((b.astype(rt) if isinstance(b, np.ndarray) else
                                   _wrap_int(b, rt)) == 0):  # (256 is 0 in uint8)
        raise RuntimeError("ZeroDivisionError")


class Div(Pointwise):
    name = "div"
    saved = (0, 1)
    reads = {0: (1,), 1: (0, 1)}
    graph_inputs = {"a": 0, "b": 1}

    @staticmethod
    def forward(ctx, a, b, rounding_mode=None, out=None):
        ctx.a, ctx.b = _grad_operands(a, b)
        ctx.mode = rounding_mode
        if rounding_mode is not None:
            ctx.torch_node = "DivBackward2"  # (torch's div.Tensor_mode / div.Scalar_mode)
        s = _scalar_operand(a, b)
        ctx.by_scalar = s is not b
        shape = None
        if ctx.by_scalar:
            if rounding_mode is None:
                ctx.b = b  # the gradients divide by it as the forward does
                return _by_scalar(np.true_divide, a, b, s, out)
            # the rounding kernels read it so too: here a float32 number with ``a`` in the
            # result dtype (then the broadcast shape restored)
            shape = np.broadcast_shapes(a.shape, b.shape)
            rt = _rtype(a, b)
            a = a if a.dtype == rt else D.np_cast(a, rt)
            b = float(s.reshape(-1)[0])
        if rounding_mode is None:
            a0, b0 = a, b
            a, b, rt = _prep(a, b)
            if np.dtype(rt).kind in "biu":
                # torch promotes integer inputs straight to the float type (each operand cast
                # from its own dtype: uint8 253 / int32 -3 is -84.3, not 253 / 253)
                ft = rt = D.get_default_dtype().np
                a = a0.astype(ft) if isinstance(a0, np.ndarray) else a
                b = b0.astype(ft) if isinstance(b0, np.ndarray) else b
            elif np.dtype(rt) in HALF and isinstance(a, np.ndarray) and \
                    not isinstance(b, np.ndarray):
                b = np.float32(b)  # a number divisor: torch's kernel divides in float32
            if out is not None:
                _out_check(rt, out)
                return np.true_divide(a, b, out=out, casting="unsafe")
            r = np.true_divide(a, b)
            return r if isinstance(r, np.ndarray) and r.dtype == rt else np.asarray(r, rt)
        if rounding_mode in ("floor", "trunc"):
            _refuse(f"div_{rounding_mode}_cpu", _rtype(a, b))
        _check_integer_zero(a, b)
        if rounding_mode == "floor":
            r = _binary(np.floor_divide, a, b, out, opmath=True)
            return r if shape is None or out is not None else r.reshape(shape)
        if rounding_mode == "trunc":
            a2, b2, rt = _prep(a, b)
            if np.dtype(rt) in HALF and not isinstance(b2, np.ndarray):
                b2 = np.float32(b2)  # the divisor's own value, in float32 (torch's kernel)
            r = np.trunc(np.true_divide(a2, b2))
            r = r.astype(rt) if isinstance(r, np.ndarray) else np.asarray(r, rt)
            if shape is not None:
                r = r.reshape(shape)
            if out is not None:
                return write_out(r, out)
            return r
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                           f"found '{rounding_mode}'")

    @staticmethod
    def backward(ctx, g):
        n = ctx.needs_input_grad
        if ctx.mode is not None:
            xp = ns(g)
            return (xp.zeros_like(g) if n[0] else None, xp.zeros_like(g) if n[1] else None)
        b = ctx.b
        # torch's formula for the divisor: -g * ((a / b) / b) (b * b would underflow first)
        if ctx.by_scalar:  # each step a tensor op in torch's formula: the kernels' rule
            xp = ns(g)
            return (xp.call(Div, g, b) if n[0] else None,
                    xp.call(Mul, -g, xp.call(Div, xp.call(Div, ctx.a, b), b)) if n[1] else None)
        return (g / b if n[0] else None, -g * ((ctx.a / b) / b) if n[1] else None)


class Pow(Pointwise):
    """``a ** b`` with a tensor exponent: torch saves both operands and the result."""

    name = "pow"
    node_name = "PowBackward1"
    saved = (0, 1)
    saves_output = True
    graph_inputs = {"a": 0, "b": 1}

    @staticmethod
    def forward(ctx, a, b, out=None):
        return _pow_forward(ctx, a, b, out)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        a, b = ctx.a, ctx.b
        n = ctx.needs_input_grad
        ga = gb = None
        if n[0]:
            if not _is_arr(b) and b == 0:
                ga = xp.zeros_like(g)
            elif not _is_arr(b) and b == 2:  # (torch: grad * (2 * self): the doubling first,
                ga = g * (2 * a)  # so a half gradient near its largest value does not overflow)
            elif not _is_arr(b):  # self.pow(b - 1) by the same kernel (its special cases:
                # (-inf) ** -0.5 is rsqrt's NaN, not C pow's 0)
                with xp.errstate(divide="ignore", invalid="ignore"):
                    ga = g * (b * xp.call(PowScalar, a, b - 1))
            else:  # torch: 0 where the exponent is 0 (0 ** -1 would make it NaN)
                if raw(ctx, "b").dtype == np.bool_:  # torch's formula takes exponent - 1
                    _check_sub(raw(ctx, "b"), 1)
                # exponent * self.pow(exponent - 1), each op in the result dtype: a 0-d
                # exponent of a wider dtype is converted first (a bfloat16 base's exponent
                # 201.7 - 1 becomes 201, an odd power of a negative base, not NaN)
                rt = xp.npdtype(ctx.y)
                e, bb = b - 1, b
                if xp.npdtype(e) != rt:
                    e, bb = xp.astype(e, rt), xp.astype(b, rt)
                with xp.errstate(divide="ignore", invalid="ignore"):
                    ga = xp.where(b == 0, xp.zeros((), g.dtype), g * (bb * xp.power(a, e)))
        if len(n) > 1 and n[1]:
            y = ctx.y
            if _is_arr(a) and xp.npdtype(a) != xp.npdtype(y):
                a = xp.astype(a, xp.npdtype(y))  # torch: self.to(result dtype).log() (numpy's
                # log of an int8 array would be float16)
            with xp.errstate(divide="ignore", invalid="ignore"):
                la = xp.log(a)
            # torch: grad * where(0 ** b with b >= 0, 0, result * log(base)), so an infinite
            # grad there gives NaN, as in torch
            if not _is_arr(a):  # a number base: 0 ** b has no log
                gb = g * (xp.where(b >= 0, xp.zeros((), g.dtype), y * la) if a == 0 else y * la)
            else:
                gb = g * xp.where((a == 0) & (b >= 0), xp.zeros((), g.dtype), y * la)
        return (ga, gb)


def _pow_forward(ctx, a, b, out=None):
    ctx.a, ctx.b = a, b
    rt = np.dtype(_rtype(a, b))
    if rt.kind == "b" and not isinstance(b, np.ndarray) and b in (0, 1):
        # torch answers a number exponent of 0 or 1 before any kernel: ones, or the base
        r = np.ones(a.shape, rt) if b == 0 else np.array(a, copy=True)
        ctx.y = r
        return write_out(r, out) if out is not None else r
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
        if (type(b) is int and rt.kind in "iu") or (type(b) in (int, float) and rt in HALF):
            # the integer and half kernels convert the exponent to the tensor's dtype, checked
            _to_dtype_checked(b, rt)  # (uint8 ** 256 and float16 ** 70000 are refused)
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
    numpy's float32 path would take ``sqrt``. ``x ** 3`` and ``x ** -2`` are ``x * x * x`` and
    ``1 / (x * x)`` rounded after each product in float32, float64 and bfloat16 (torch's
    optimized kernel; numpy's correctly rounded power differed on a quarter of float32
    elements); float16 computes C's pow in float32. None: numpy's ``power`` is torch's."""
    if not (isinstance(a, (np.ndarray, np.generic)) and isinstance(b, (float, int)) and
            not isinstance(b, bool) and D._BY_NP[rt].is_floating_point):  # (0-d: a scalar too)
        return None
    if b in (3, -2) and rt != np.float16:
        x = a.astype(rt, copy=False)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore", under="ignore"):
            sq = x * x
            return np.asarray(sq * x if b == 3 else np.divide(np.ones((), rt), sq))
    if rt == np.float32 and abs(b) > 2 ** 24:  # (an exponent float32 cannot hold: torch
        # keeps its parity -- (-1) ** (2**24 + 1) is -1 -- as a double power, then rounds)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore", under="ignore"):
            return np.asarray(np.power(a.astype(np.float64), float(b))).astype(rt)
    if b not in (0.5, -0.5):
        return None
    x = a.astype(opmath_dtype(rt), copy=False)
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


def _same_dense_layout(a, b) -> bool:
    """Two array operands of one shape, both C-ordered: torch's loop over them is one dense run
    (the case whose vector and scalar loops :func:`scalar_loop_positions` tells apart)."""
    return type(a) is np.ndarray and type(b) is np.ndarray and a.shape == b.shape and \
        a.ndim > 0 and a.flags.c_contiguous and b.flags.c_contiguous


def _extremum(name, np_fn, loses):
    """``maximum``/``minimum``; ties share the gradient evenly and a NaN comparison (the result
    is NaN) sends the whole gradient to both operands, as torch's backward does (each operand's
    gradient is masked only where it strictly loses)."""

    def forward(ctx, a, b, out=None):
        dense = out is None and _same_dense_layout(a, b)
        a, b, _ = _prep(a, b)  # ties are judged in the result dtype, as torch does
        ctx.a, ctx.b = a, b
        r = _binary(np_fn, a, b, out)
        if dense and (r.dtype.kind == "f" or r.dtype in HALF):
            # a tie of 0.0 and -0.0: torch's scalar loop keeps the first operand, its vector
            # loop (over the leading elements of a dense run) the second (measured)
            with np.errstate(invalid="ignore"):
                tie = (a == b) & (np.signbit(a) != np.signbit(b))
            if tie.any():
                vec = tie & ~scalar_loop_positions(r)
                r = np.where(vec, b, r) if vec.any() else r
        return r

    def backward(ctx, g):
        xp = ns(g)
        a, b = ctx.a, ctx.b
        zero = xp.zeros((), g.dtype)
        half = g * xp.asarray(0.5, g.dtype)
        tie = a == b
        lose = getattr(xp, loses)
        ga = xp.where(tie, half, xp.where(lose(a, b), zero, g))
        gb = xp.where(tie, half, xp.where(lose(b, a), zero, g))
        return (ga, gb)

    return type(name.capitalize(), (Pointwise,), {"name": name, "saved": (0, 1),
                                                  "graph_inputs": {"a": 0, "b": 1},
                                                  "forward": staticmethod(forward),
                                                  "backward": staticmethod(backward)})


Maximum = _extremum("maximum", max_first, "less")  # ties keep the first operand (torch)
Minimum = _extremum("minimum", min_first, "greater")


class Atan2(Pointwise):
    name = "atan2"
    saved = (0, 1)
    graph_inputs = {"a": 0, "b": 1}

    @staticmethod
    def forward(ctx, a, b, out=None):
        rt = _float_rtype(a, b)
        ctx.a_bool = isinstance(a, np.ndarray) and a.dtype == np.bool_
        ctx.a, ctx.b, ctx.rt = a, b, rt  # (backward squares and negates them in their own dtype)
        a, b = (x.astype(rt, copy=False) if isinstance(x, np.ndarray) else x for x in (a, b))
        return _binary(np.arctan2, a, b, out)

    @staticmethod
    def backward(ctx, g):
        # torch's atan2_backward: recip = 1 / (self * self + other * other), 0 where that is 0
        # (underflow included: (0, 0) has zero gradients, not NaN); grad * other * recip and
        # grad * -self * recip. Each product is taken in its operand's own dtype, as torch
        # does: an integer operand's square and negation wrap (-uint8(8) is 248)
        if getattr(ctx, "a_bool", False) and len(ctx.needs_input_grad) > 1 and \
                ctx.needs_input_grad[1]:  # torch's formula negates self: refused for bool
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.")
        xp = ns(g)
        a, b, rt = ctx.a, ctx.b, raw(ctx, "rt")

        def wide(x):
            return xp.astype(x, rt) if _is_arr(x) else x
        d = wide(a * a) + wide(b * b)
        with xp.errstate(divide="ignore"):
            recip = xp.where(d == 0, xp.zeros((), xp.npdtype(d)), 1 / d)
        return (g * wide(b) * recip, g * wide(-a) * recip)


class Hypot(Pointwise):
    """``sqrt(a^2 + b^2)`` without intermediate overflow (torch.hypot): floating operands only
    (torch's ``hypot_cpu`` has no integer or bool kernel); half precision computes in float32
    and rounds once."""

    name = "hypot"
    saved = (0, 1)
    reads = {0: (0,), 1: (1,)}  # (torch saves an operand only for its own gradient)
    saves_output = True
    graph_inputs = {"a": 0, "b": 1}

    @staticmethod
    def forward(ctx, a, b, out=None):
        rt = np.dtype(_rtype(a, b))
        # (torch checks that an in-place or out= target can take the result type first)
        _out_check(rt, out if out is not None else getattr(ctx, "inplace_target", None))
        if rt.kind in "biu":
            raise _not_implemented("hypot_cpu", rt)
        ctx.a, ctx.b = a, b
        ctx.y = r = _binary(np.hypot, a, b, out)
        return r

    @staticmethod
    def backward(ctx, g):
        # torch's formulas: grad * self / result and grad * other / result (NaN at (0, 0))
        y = ctx.y
        return (g * ctx.a / y, g * ctx.b / y)


def _xlog_forward(ctx, a, b, log, node):
    """``x * log(y)`` (``log``: numpy's log or log1p), 0 where ``x == 0`` unless ``y`` is NaN;
    integer and bool operands give the default float dtype; a number operand names torch's
    overload node (``node`` + 1 for a number ``self``, + 2 for a number ``other``)."""
    if not isinstance(b, np.ndarray):  # torch's overloads: a number other or self
        ctx.torch_node = node + "2"
    elif not isinstance(a, np.ndarray):
        ctx.torch_node = node + "1"
    rt = _float_rtype(a, b)
    a, b = (x.astype(rt, copy=False) if isinstance(x, np.ndarray) else x for x in (a, b))
    ctx.a, ctx.b = a, b
    wide = opmath_dtype(rt)
    x, y = (np.asarray(v).astype(wide, copy=False) for v in (a, b))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lg = log(y.astype(np.float64)).astype(wide) if wide == np.float32 else log(y)
        if rt != wide:  # half: the log rounds before the product
            lg = lg.astype(rt).astype(wide)
        r = x * lg
    r = np.where((x == 0) & ~np.isnan(y), np.zeros((), wide), r)
    return r.astype(rt, copy=False)


class Xlogy(Pointwise):
    """``x * log(y)``, 0 where ``x == 0`` unless ``y`` is NaN (torch.xlogy). Integer and bool
    operands give the default float dtype. torch's kernel is scalar C++: C's ``log`` of the
    dtype (float32's correctly rounded: ours is float64's, rounded; numpy's float32 log differed
    from it on ~15% of inputs), and in half precision ``log(y)`` and the product each round to
    the half dtype (the half type's own operators)."""
    name = "xlogy"
    saved = (0, 1)
    graph_inputs = {"a": 0, "b": 1}

    @staticmethod
    def forward(ctx, a, b):
        return _xlog_forward(ctx, a, b, np.log, "XlogyBackward")

    @staticmethod
    def backward(ctx, g):
        # torch (derivatives.yaml, after pytorch#80770): self gets xlogy(grad, other), 0 where
        # self == 0 and other <= 0 (the derivative along x = 0); other gets grad * self / other
        return _xlog_backward(ctx, g, Xlogy, 0)


class Xlog1py(Pointwise):
    """``x * log1p(y)``, 0 where ``x == 0`` unless ``y`` is NaN (torch.special.xlog1py), by
    :class:`Xlogy`'s rules with ``log1p``. Gradients (torch's formulas): ``self`` gets
    ``xlog1py(grad, other)``, 0 where ``self == 0`` and ``other <= -1``; ``other`` gets
    ``grad * self / (other + 1)``."""
    name = "special_xlog1py"
    node_name = "SpecialXlog1PyBackward0"
    saved = (0, 1)
    graph_inputs = {"a": 0, "b": 1}

    @staticmethod
    def forward(ctx, a, b):
        return _xlog_forward(ctx, a, b, np.log1p, "SpecialXlog1PyBackward")

    @staticmethod
    def backward(ctx, g):
        return _xlog_backward(ctx, g, Xlog1py, 1)


def _xlog_backward(ctx, g, op, shift):
    """The gradients of ``x * log(y + shift)`` (``op``: the kernel itself): ``x`` gets
    ``op(grad, y)``, 0 where ``x == 0`` and ``y + shift <= 0``; ``y`` gets ``grad * x / (y +
    shift)``."""
    xp = ns(g)
    a, b = ctx.a, ctx.b
    need = ctx.needs_input_grad
    ga = gb = None
    if need[0]:
        ga = xp.call(op, g, b)
        ga = xp.where((a == 0) & (b <= -shift), xp.zeros((), xp.npdtype(ga)), ga)
    if len(need) > 1 and need[1]:
        with xp.errstate(divide="ignore", invalid="ignore"):
            gb = g * a / (b + 1) if shift else g * a / b
    return (ga, gb)


def _remainder(a, b, **kw):
    """torch's remainder: fmod, moved by ``b`` when its sign differs from ``b``'s. The values are
    numpy's, except an exact zero: numpy gives it ``b``'s sign, torch keeps fmod's (``a``'s):
    ``remainder(0., -1.5)`` is ``0.``, ``remainder(-3., 1.5)`` is ``-0.``."""
    neg = np.signbit(a)  # (read before an in-place call overwrites a)
    r = np.remainder(a, b, **kw)
    if not isinstance(r, np.ndarray):
        return r if r != 0 else type(r)(-0.0 if neg else 0.0)
    if r.dtype.kind == "f" or r.dtype in HALF:
        zero = r == 0
        if zero.any():
            np.copyto(r, np.where(neg, np.array(-0.0, r.dtype), np.array(0.0, r.dtype)),
                      where=zero)
    return r


class Remainder(Pointwise):
    name = "remainder"
    saved = (0, 1)
    reads = {0: (1,), 1: (1,)}  # only other's gradient reads them (self's is the gradient itself)
    graph_inputs = {"a": 0, "b": 1}

    @staticmethod
    def forward(ctx, a, b, out=None):
        ctx.a, ctx.b = a, b  # (the quotient of the gradient divides them as given)
        if isinstance(b, np.ndarray) and isinstance(a, np.ndarray):
            ctx.torch_node = "RemainderBackward1"  # (torch's remainder.Tensor; a number: 0)
        _refuse("remainder_cpu", _rtype(a, b))
        _check_integer_zero(a, b)
        return _binary(_remainder, a, b, out)

    @staticmethod
    def backward(ctx, g):
        return (g, -g * _quotient(g, ctx, "floor"))


def _quotient(g, ctx, mode):
    """``self.div(other, rounding_mode=mode)`` of torch's remainder/fmod derivative, on the
    operands as given (our div kernel: a 0-d divisor of a half-precision result is read as a
    float32 number, as torch's div kernels read a CPU scalar), in the result's dtype (div's
    own)."""
    return ns(g).call(Div, ctx.a, ctx.b, rounding_mode=mode)


class Fmod(Pointwise):
    name = "fmod"
    saved = (0, 1)
    reads = {0: (1,), 1: (1,)}  # only other's gradient reads them (self's is the gradient itself)
    graph_inputs = {"a": 0, "b": 1}

    @staticmethod
    def forward(ctx, a, b, out=None):
        ctx.a, ctx.b = a, b  # (the quotient of the gradient divides them as given)
        if isinstance(b, np.ndarray):
            ctx.torch_node = "FmodBackward1"  # (torch's fmod.Tensor; a number: 0)
        _refuse("fmod_cpu", _rtype(a, b))
        _check_integer_zero(a, b)
        return _binary(np.fmod, a, b, out)

    @staticmethod
    def backward(ctx, g):
        return (g, -g * _quotient(g, ctx, "trunc"))


def _nondiff_binary(name, f):
    def forward(ctx, a, b, out=None):
        a2, b2, rt = _prep(a, b) if name not in _LOGICAL else (a, b, None)
        if rt is not None and np.dtype(rt).kind in "iu":  # a Python int out of the dtype's
            a2, b2 = _wrap_int(a2, rt), _wrap_int(b2, rt)  # range wraps (a C cast), as in torch
        if out is not None:  # (in place too) computed in the operands' common dtype, then
            if name.startswith("bitwise"):  # cast to the target when torch's rule allows (a
                _out_check(rt, out)  # comparison's bool result casts to any dtype)
            return f(a2, b2, out=out, casting="unsafe")
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
    graph_inputs = {"cond": 0}

    @staticmethod
    def forward(ctx, cond, a, b):
        ctx.cond = cond
        rt = _rtype(a, b)
        a, b = (x if isinstance(x, np.ndarray) and x.dtype == rt else
                D.np_cast(x, rt) if isinstance(x, (np.ndarray, float)) else
                _to_dtype_checked(x, rt) if np.dtype(rt).kind in "iu" else _wrap_int(x, rt)
                for x in (a, b))  # (a number an integer result cannot hold is refused)
        return np.asarray(np.where(cond, a, b)).astype(rt, copy=False)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        c = ctx.cond
        n = ctx.needs_input_grad
        zero = xp.zeros((), g.dtype)
        return (None, xp.where(c, g, zero) if n[1] else None, xp.where(c, zero, g) if n[2] else None)


def _cpp(dt) -> str:
    return D.cpp_name(D._BY_NP[np.dtype(dt)])


def lerp_dtype(a, b, w):
    """torch's checks of ``lerp``'s operands (arrays, or a number ``w``) before anything else
    (its meta function): ``end`` and a weight of one or more dims must have ``start``'s dtype.
    Returns the result dtype: a 0-d tensor weight promotes (a zero-dim operand); a number weight
    is no operand of torch's iterator (``lerp.Scalar``), so start and end alone set it."""
    if b.dtype != a.dtype:
        raise RuntimeError(f"expected dtype {_cpp(a.dtype)} for `end` but got dtype "
                           f"{_cpp(b.dtype)}")
    tensor_w = isinstance(w, np.ndarray)
    if tensor_w and w.ndim and w.dtype != a.dtype:
        raise RuntimeError(f"expected dtype {_cpp(a.dtype)} for `weight` but got dtype "
                           f"{_cpp(w.dtype)}")
    return np.dtype(_rtype(a, b, w) if tensor_w else _rtype(a, b))


class Lerp(Pointwise):
    """``start + weight * (end - start)``, evaluated as torch's kernel does (from ``end`` when
    ``|weight| >= 0.5``, so ``weight = 1`` gives ``end`` exactly); no promotion: ``end`` and a
    tensor ``weight`` must have ``start``'s dtype."""

    name = "lerp"
    saved = (0, 1, 2)
    reads = {0: (2,), 1: (2,), 2: (0, 1)}  # (torch saves an operand only for the gradients that read it)
    graph_inputs = {"a": 0, "b": 1, "w": 2}

    @staticmethod
    def forward(ctx, a, b, w, out=None):
        rt = lerp_dtype(a, b, w)
        tensor_w = isinstance(w, np.ndarray)
        if tensor_w:
            ctx.torch_node = "LerpBackward1"  # (torch's lerp.Tensor; a number weight: 0)
        # TensorIterator's cast check comes before the kernel's dtype check (in place too)
        _out_check(rt, out if out is not None else getattr(ctx, "inplace_target", None))
        if tensor_w:  # the tensor kernel runs in the common dtype (an integer start with a 0-d
            _refuse("lerp_kernel_tensor", rt, "biu")  # float weight is computed in float)
        else:  # a number weight does not promote: the scalar kernel runs in start's dtype
            _refuse("lerp_kernel_scalar", a.dtype, "biu")
        # torch's weight gradient subtracts the ends as given: two bool ends make it raise
        ctx.bool_ends = a.dtype == np.bool_ and b.dtype == np.bool_
        if rt != a.dtype:
            a, b = a.astype(rt), b.astype(rt)
        ctx.a, ctx.b, ctx.w = a, b, w
        wide = opmath_dtype(a.dtype)
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
        need = ctx.needs_input_grad
        # torch's formulas take 1 - weight (start's gradient) and end - start (weight's): a
        # bool weight, or two bool ends, make them raise
        if _is_arr(w) and ((need[0] and raw(ctx, "w").dtype == np.bool_) or
                           (len(need) > 2 and need[2] and raw(ctx, "bool_ends"))):
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                               "supported. Use the `^` or `logical_xor()` operator instead.")
        return (g * (1 - w), g * w, g * (b - a) if _is_arr(w) else None)


def _addc(a, t1, t2, value, combine, out):
    """``a + value * combine(t1, t2)`` in the promoted dtype of all three tensors (``value``
    takes the result's type: truncated for integer results, as torch's scalar cast does)."""
    rt = np.dtype(_rtype(a, t1, t2))
    wide = opmath_dtype(rt)
    if rt.kind in "biu":
        value = int(value)
    if rt.kind == "f" and wide == rt and (out is None or out.dtype == rt) and \
            all(type(x) is np.ndarray and x.dtype == rt for x in (a, t1, t2)):
        # one dtype throughout (the optimizers' case): the sum is the result, written into the
        # in-place target directly (numpy's warnings from our frames are silenced, ``_fpe``)
        prod = combine(np.asarray(value).astype(rt) * t1, t2)
        return np.add(a, prod) if out is None else np.add(a, prod, out=out)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        # each operand in the common dtype first, as torch's TensorIterator casts them (an
        # int32 beyond float16's range is inf there)
        a2, x1, x2 = (np.asarray(x).astype(rt, copy=False).astype(wide, copy=False)
                      for x in (a, t1, t2))
        # torch's order: (value * t1) then * or / t2 (value * t1 may overflow first)
        r = np.asarray(a2 + combine(np.asarray(value).astype(wide) * x1, x2)).astype(rt)
    if out is not None:
        _out_check(rt, out)
        np.copyto(out, r, casting="unsafe")
        return out
    return r


def _half_formula(g, t1, t2):
    """``(t1, t2, g)`` for a backward formula of tensor ops: when all are arrays of one half
    dtype (not recording a graph), views that round every operation to it and compute a number
    operand in float32, as torch's tensor ops do; otherwise as given."""
    if not graph_mode(ns(g)) and isinstance(g, np.ndarray) and g.dtype in HALF and all(
            isinstance(a, np.ndarray) and a.dtype == g.dtype for a in (t1, t2)):
        return t1.view(HalfOps), t2.view(HalfOps), g.view(HalfOps)
    return t1, t2, g


def _plain(a):
    return np.asarray(a) if isinstance(a, HalfOps) else a


class Addcmul(Pointwise):
    """a + value * t1 * t2 (one op so optimizer updates stay a single kernel)."""

    name = "addcmul"
    saved = (1, 2)
    reads = {1: (2,), 2: (1,)}  # (torch saves an operand only for the gradients that read it)
    graph_inputs = {"t1": 1, "t2": 2}

    @staticmethod
    def forward(ctx, a, t1, t2, value=1, out=None):
        if np.dtype(_rtype(a, t1, t2)) == np.bool_:
            raise _not_implemented("addcmul_cpu_out", np.bool_)
        ctx.t1, ctx.t2, ctx.value = t1, t2, value
        return _addc(a, t1, t2, value, np.multiply, out)

    @staticmethod
    def backward(ctx, g):
        v = ctx.value  # torch's formulas: grad * (tensor2 * value), grad * (tensor1 * value)
        t1, t2, h = _half_formula(g, ctx.t1, ctx.t2)
        return (g, _plain(h * (t2 * v)), _plain(h * (t1 * v)))


class Addcdiv(Pointwise):
    name = "addcdiv"
    saved = (1, 2)
    reads = {1: (2,), 2: (1, 2)}  # (torch saves an operand only for the gradients that read it)
    graph_inputs = {"t1": 1, "t2": 2}

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
        v = ctx.value
        t1, t2, h = _half_formula(g, ctx.t1, ctx.t2)
        # torch's formulas: grad * (value / tensor2), -grad * (value * tensor1 / tensor2^2)
        return (g, _plain(h * (v / t2)), _plain(-h * (v * t1 / (t2 * t2))))
