"""Elementwise functions: arithmetic, unary math, comparisons, logical and bitwise ops, clamp."""
from __future__ import annotations

import builtins
import numpy as np

from .. import _dtype as D
from .._autograd import torch_named, torch_named_inplace
from .._errors import _size_mismatch
from .._dispatch import also_saved, apply, read_value, apply_inplace
from .._ops import elementwise as E
from .._ops import pointwise_extra as PE
from .._ops import activation as G
from .._ops.binary import lerp_dtype
from .._layout import (channels_last, channels_last_order, checked_format, contiguous_format)
from .._tensor import Tensor
from ._common import _check_integral, _check_tensor, _number_arg, _parser_error, _t

__all__ = ["add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
           "floor_divide", "pow", "float_power", "remainder", "fmod", "maximum", "minimum",
           "atan2", "lerp", "addcmul", "addcdiv", "neg", "negative", "abs", "absolute", "exp",
           "exp2", "sinc", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
           "square", "sin", "cos", "tan", "asin", "arcsin", "acos", "arccos", "atan", "arctan",
           "sinh", "cosh", "tanh", "sigmoid", "relu", "erf", "erfinv", "sign", "floor", "ceil",
           "trunc", "fix", "logical_not", "bitwise_not", "isnan", "isinf", "isfinite", "nan_to_num",
           "nan_to_num_", "round", "sgn", "clamp", "clip", "clamp_min", "clamp_max", "eq", "ne",
           "not_equal", "lt", "less", "le", "less_equal", "gt", "greater", "ge", "greater_equal",
           "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
           "bitwise_left_shift", "bitwise_right_shift",
           "equal", "allclose", "isclose", "clone", "asinh", "arcsinh", "acosh", "arccosh",
           "atanh", "arctanh", "lgamma", "digamma", "positive", "xlogy", "hypot", "nextafter",
           "ldexp", "logaddexp",
           "logaddexp2", "fmax", "fmin", "copysign", "heaviside", "frac", "deg2rad", "rad2deg",
           "erfc", "signbit", "isposinf", "isneginf", "logit", "hardshrink", "prelu"]


# ----- elementwise --------------------------------------------------------------------------------
def add(input, other, *, alpha=1, out=None):
    if not isinstance(input, Tensor):
        input, other = other, input
    return apply(E.Add, input, _t(other), alpha=alpha)


def sub(input, other, *, alpha=1, out=None):
    if isinstance(input, Tensor) and input._dtype is D.bool and isinstance(other, Tensor) and \
            other._dtype is D.bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    return apply(E.Sub, input, _t(other), alpha=alpha)


subtract = sub


def mul(input, other, *, out=None):
    if not isinstance(input, Tensor):
        input, other = other, input
    return apply(E.Mul, input, _t(other))


multiply = mul


def div(input, other, *, rounding_mode=None, out=None):
    return apply(E.Div, input, _t(other), rounding_mode=rounding_mode)


divide = true_divide = div


def floor_divide(input, other):
    return apply(E.Div, input, _t(other), rounding_mode="floor")


def pow(input, exponent, *, out=None):
    if isinstance(exponent, Tensor) and exponent.ndim == 0 and not exponent.requires_grad and \
            not isinstance(input, Tensor):
        input = Tensor._wrap(np.asarray(input, D.result_type(input, exponent).np))
    exponent = _t(exponent)
    if not isinstance(input, Tensor):
        return apply(E.PowScalarBase, _t(input), exponent)
    return apply(E.Pow if isinstance(exponent, Tensor) else E.PowScalar, input, exponent)


def float_power(input, exponent):
    return pow(input.double(), exponent.double() if isinstance(exponent, Tensor) else exponent)


def remainder(input, other):
    return apply(E.Remainder, input, _t(other))


def fmod(input, other):
    return apply(E.Fmod, input, _t(other))


def maximum(input, other):
    return apply(E.Maximum, input, other)


def minimum(input, other):
    return apply(E.Minimum, input, other)


def atan2(input, other):
    return apply(E.Atan2, input, other)


def logit(input, eps=None, *, out=None):
    """``log(input / (1 - input))``, the input first clamped into ``[eps, 1 - eps]`` when
    ``eps`` is given."""
    return apply(E.Logit, input, eps=_logit_eps(eps, "logit"))


def _logit_eps(eps, fname):
    if eps is not None and (isinstance(eps, bool) or not isinstance(eps, (int, float))):
        raise TypeError(f"{fname}(): argument 'eps' must be float, not {type(eps).__name__}")
    return None if eps is None else float(eps)


def _logit_inplace(self, eps=None):
    return apply_inplace(E.Logit, self, eps=_logit_eps(eps, "logit_"))


def _tensor_args(fname, **args):
    """torch's argument parser for tensor-only parameters: a number is a TypeError naming the
    argument and its position (counted without a method's ``self``)."""
    for i, (name, v) in enumerate(args.items()):
        if not isinstance(v, Tensor):
            raise TypeError(f"{fname}(): argument '{name}' (position {i + 1}) must be Tensor, "
                            f"not {type(v).__name__}")


def _tensors_only(op, name, inplace=False):
    """A binary function of two tensors (a number is torch's TypeError), with its method form
    (positions counted without ``self``) and, where torch has one, its in-place form."""
    def fn(input, other, *, out=None):
        _tensor_args(name, input=input, other=other)
        return apply(op, input, other)

    def method(self, other, *, out=None):
        _tensor_args(name, other=other)
        return apply(op, self, other)

    fn.__name__ = fn.__qualname__ = name
    method.__name__ = method.__qualname__ = name
    fn.method = method
    if inplace:
        def inplace_form(self, other):
            _tensor_args(name + "_", other=other)
            return apply_inplace(op, self, other)
        inplace_form.__name__ = name + "_"
        fn.inplace = inplace_form
    return fn


hypot = _tensors_only(E.Hypot, "hypot", inplace=True)


def _castable_out_check(out, input, other):
    """``out=``: torch checks that ``out`` can take the result type before the kernel refuses
    integer operands (hypot, logaddexp, logaddexp2)."""
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        E._out_check(D.result_type(input, other).np, out._data)


hypot.out_check = _castable_out_check


nextafter = _tensors_only(PE.Nextafter, "nextafter", inplace=True)
nextafter.out_check = _castable_out_check
ldexp = _tensors_only(PE.Ldexp, "ldexp", inplace=True)


def _ldexp_out_check(out, input, other):
    """``out=``: ldexp's own check that ``out`` can take the result dtype (integer and bool
    operands give the default float), worded as torch's."""
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        rt = D.result_type(input, other)
        if not rt.is_floating_point:
            rt = D.get_default_dtype()
        if not D.can_cast(rt, out.dtype):
            raise RuntimeError("ldexp can't be cast to the desired output type "
                               f"{D.scalar_name(out.dtype)}")
        if input.dtype.is_floating_point and not other.dtype.is_floating_point and \
                other.dtype is not D.bool and out.dtype is not rt:
            # (torch 2.13's exact kernel cannot cast into another dtype: it fails an internal
            # assertion, "!needs_dynamic_casting<func_t>::check(iter)")
            raise RuntimeError(
                f"ldexp: out= must have the result's dtype ({D.scalar_name(rt)}) for a floating "
                f"input with an integer exponent, not {D.scalar_name(out.dtype)} (torch 2.13 "
                "fails an internal assertion there)")


ldexp.out_check = _ldexp_out_check


logaddexp = _tensors_only(PE.Logaddexp, "logaddexp")
logaddexp2 = _tensors_only(PE.Logaddexp2, "logaddexp2")
logaddexp.out_check = logaddexp2.out_check = _castable_out_check
fmax = _tensors_only(PE.Fmax, "fmax")
fmin = _tensors_only(PE.Fmin, "fmin")


def heaviside(input, values, *, out=None):
    _tensor_args("heaviside", input=input, values=values)
    PE.heaviside_dtypes(input.dtype, values.dtype)  # (torch: before broadcasting)
    return apply(PE.Heaviside, input, values)


def _heaviside_method(self, values, *, out=None):
    _tensor_args("heaviside", values=values)
    PE.heaviside_dtypes(self.dtype, values.dtype)
    return apply(PE.Heaviside, self, values)


def _heaviside_inplace(self, values):
    _tensor_args("heaviside_", values=values)
    PE.heaviside_dtypes(self.dtype, values.dtype)
    return apply_inplace(PE.Heaviside, self, values)


heaviside.method = _heaviside_method


def _heaviside_out_check(out, input, values):
    """``out=``: torch refuses an ``out`` of another dtype than the inputs' (before anything)."""
    if isinstance(input, Tensor) and isinstance(values, Tensor) and input.dtype is values.dtype:
        PE.heaviside_dtypes(input.dtype, out.dtype)


heaviside.out_check = _heaviside_out_check


def copysign(input, other, *, out=None):
    if not isinstance(input, Tensor):  # (the argument parser takes a number input: an overload
        # of other ops; a wrong ``other`` it refuses itself)
        got = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__
                        for a in (input, other))
        raise TypeError(f"copysign() received an invalid combination of arguments - got ({got}), "
                        "but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = "
                        "None)\n * (Tensor input, Number other, *, Tensor out = None)\n")
    if isinstance(other, Tensor):
        return apply(PE.Copysign, input, other)
    return apply(PE.CopysignScalar, input, other)


_NUMBERS = (int, float, complex, np.number, np.bool_)


def _number_or_tensor_other(name, other):
    if not isinstance(other, (Tensor,) + _NUMBERS):
        _parser_error(name, (other,), [("Tensor other", (Tensor,)), ("Number other", _NUMBERS)])


def _copysign_method(self, other, *, out=None):
    _number_or_tensor_other("copysign", other)
    return copysign(self, other)


def _copysign_inplace(self, other):
    _number_or_tensor_other("copysign_", other)
    if isinstance(other, Tensor):
        return apply_inplace(PE.Copysign, self, other)
    return apply_inplace(PE.CopysignScalar, self, other)


copysign.method = _copysign_method


_ABSENT = object()  # (an argument not given: torch's parser reports the call's arity)
_SHIFT_SCHEMAS = ("(Tensor input, Tensor other, *, Tensor out = None)", "(Number self, Tensor other)",
                  "(Tensor input, Number other, *, Tensor out = None)")


def _shift_function(op, kernel, name):
    """``bitwise_left_shift``/``bitwise_right_shift`` (and ``<<``/``>>``): a tensor shifted by
    a tensor or a number, or a number by a tensor; integer dtypes only (torch's ``lshift``/
    ``rshift`` kernels), the result in the operands' promoted dtype. A shift past the width
    gives 0 (a negative value shifted right: -1), a negative shift 0. The shapes must broadcast
    before the dtype is looked at (torch's iterator comes first)."""
    def fn(input=_ABSENT, other=_ABSENT, *, out=None):
        given = tuple(a for a in (input, other) if a is not _ABSENT)
        names = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in given)
        head = f"{name}() received an invalid combination of arguments - got ({names}), but " \
            "expected one of:\n * "
        if len(given) < 2:
            raise TypeError(head + "\n * ".join(_SHIFT_SCHEMAS) + "\n")
        if not (isinstance(input, Tensor) and isinstance(other, (Tensor,) + _NUMBERS) or
                isinstance(other, Tensor) and isinstance(input, _NUMBERS)):
            marked = ", ".join("Tensor" if isinstance(a, Tensor) and i else
                               f"!{'Tensor' if isinstance(a, Tensor) else type(a).__name__}!"
                               for i, a in enumerate(given))
            raise TypeError(head + f"{_SHIFT_SCHEMAS[0]}\n * {_SHIFT_SCHEMAS[1]}\n      didn't "
                            f"match because some of the arguments have invalid types: ({marked})"
                            f"\n * {_SHIFT_SCHEMAS[2]}\n")
        input, other = _t(input), _t(other)
        _shapes_broadcast(input, other)
        _shift_dtype(kernel, D.result_type(input, other))
        return apply(op, input, other)
    fn.__name__ = fn.__qualname__ = name

    def out_check(out, input=_ABSENT, other=_ABSENT, **_):
        """With ``out=``: the shapes, then the cast into ``out`` before the kernel's dtype."""
        if isinstance(input, (Tensor,) + _NUMBERS) and isinstance(other, (Tensor,) + _NUMBERS):
            _shapes_broadcast(_t(input), _t(other))
            rt = D.result_type(_t(input), _t(other))
            if not D.can_cast(rt, out.dtype):
                raise RuntimeError(f"result type {D.scalar_name(rt)} can't be cast to the "
                                   f"desired output type {D.scalar_name(out.dtype)}")
    fn.out_check = out_check

    def inplace(self, other=_ABSENT):
        _shift_other(name + "_", other)
        other = _t(other)
        _shapes_broadcast(self, other)
        rt = D.result_type(self, other)
        if rt is D.bool or rt.is_floating_point and self._dtype.is_floating_point:
            _shift_dtype(kernel, rt)  # (else the in-place cast error comes first)
        return apply_inplace(op, self, other)
    inplace.__name__ = inplace.__qualname__ = name + "_"

    def method(self, other=_ABSENT, *, out=None):
        _shift_other(name, other)
        return fn(self, other)
    method.__name__ = method.__qualname__ = name
    fn.inplace, fn.method = inplace, method
    return fn


def _shift_other(name, other):
    if other is _ABSENT:
        raise TypeError(f"{name}() received an invalid combination of arguments - got (), but "
                        "expected one of:\n * (Tensor other)\n * (Number other)\n")
    _number_or_tensor_other(name, other)


def _shapes_broadcast(a, b):
    err = _size_mismatch([t.shape for t in (a, b) if isinstance(t, Tensor)])
    if err is not None:
        raise err


def _shift_dtype(kernel, rt):
    if rt.is_floating_point or rt is D.bool:
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'{D.scalar_name(rt)}\'')


bitwise_left_shift = _shift_function(E.LeftShift, "lshift", "bitwise_left_shift")
bitwise_right_shift = _shift_function(E.RightShift, "rshift", "bitwise_right_shift")


def hardshrink(input, lambd=0.5, *, out=None):
    return apply(G.Hardshrink, input, lambd=lambd)


def prelu(input, weight):
    _tensor_args("prelu", input=input, weight=weight)
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{D.scalar_name(input.dtype)} and {D.scalar_name(weight.dtype)}")
    n = weight.numel()
    if n != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim > 1 else 1
        if channels != n:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {n} and channel size = {channels}.")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    if input.ndim != weight.ndim:  # the weights along dim 1 (torch reshapes them so)
        shape = [1] * input.ndim
        if input.ndim > 1:
            shape[1] = n
        weight = weight.reshape(shape)
    return apply(G.PreluKernel, input, weight)


def xlogy(input, other, *, out=None):
    """``input * log(other)``, 0 where ``input == 0`` (unless ``other`` is NaN); either operand
    may be a Python number."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("xlogy() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__}), but expected one of: "
                        "(Tensor input, Tensor other), (Number self, Tensor other), "
                        "(Tensor input, Number other)")
    return apply(E.Xlogy, _t(input), _t(other))


def lerp(input, end, weight):
    """``input + weight * (end - input)``; ``end`` (and a tensor ``weight``) must have
    ``input``'s dtype (torch does not promote here; the kernel checks), except that a 0-d weight
    tensor promotes with them, as a zero-dim operand does elsewhere."""
    return apply(E.Lerp, input, end, _t(weight))


def addcmul(input, tensor1, tensor2, *, value=1):
    return apply(E.Addcmul, input, tensor1, tensor2,
                 value=_number_arg(value, "addcmul", "value"))


def addcdiv(input, tensor1, tensor2, *, value=1):
    return apply(E.Addcdiv, input, tensor1, tensor2,
                 value=_number_arg(value, "addcdiv", "value"))


def _unary_fn(op):
    def fn(input):
        return apply(op, input)
    fn.__name__ = fn.__qualname__ = op.name
    fn.inplace = _inplace_unary(op)
    return fn


def _inplace_unary(op):
    def inplace(self):
        return apply_inplace(op, self)
    inplace.__name__ = op.name + "_"
    return inplace


def _inplace_binary(op, name, **attrs):
    """``self.<name>_(other)``: the op written into ``self`` (torch's in-place form)."""
    def inplace(self, other):
        return apply_inplace(op, self, _t(other), **attrs)
    inplace.__name__ = name + "_"
    return inplace

def neg(input, *, out=None):
    return apply(E.Neg, input)  # (a bool input: the kernel raises torch's error)


negative = neg


abs = absolute = _unary_fn(E.Abs)


exp = _unary_fn(E.Exp)


exp2 = _unary_fn(E.Exp2)


sinc = _unary_fn(E.Sinc)


expm1 = _unary_fn(E.Expm1)


log = _unary_fn(E.Log)


log2 = _unary_fn(E.Log2)


log10 = _unary_fn(E.Log10)


log1p = _unary_fn(E.Log1p)


sqrt = _unary_fn(E.Sqrt)


rsqrt = _unary_fn(E.Rsqrt)


reciprocal = _unary_fn(E.Reciprocal)


square = _unary_fn(E.Square)


sin = _unary_fn(E.Sin)


cos = _unary_fn(E.Cos)


tan = _unary_fn(E.Tan)


asin = arcsin = _unary_fn(E.Asin)


acos = arccos = _unary_fn(E.Acos)


atan = arctan = _unary_fn(E.Atan)


sinh = _unary_fn(E.Sinh)


asinh = arcsinh = _unary_fn(E.Asinh)


acosh = arccosh = _unary_fn(E.Acosh)


atanh = arctanh = _unary_fn(E.Atanh)
# torch 2.13 has these in-place forms without a derivative (backward through them raises)
asinh.inplace, acosh.inplace, atanh.inplace = (
    _inplace_unary(o) for o in (E.AsinhInplace, E.AcoshInplace, E.AtanhInplace))


lgamma = _unary_fn(E.Lgamma)


digamma = _unary_fn(E.Digamma)


def positive(input):
    """``input`` itself (torch returns the same tensor); bool tensors are refused."""
    _check_tensor(input, "positive")
    if input._dtype is D.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


cosh = _unary_fn(E.Cosh)


tanh = _unary_fn(E.Tanh)


sigmoid = _unary_fn(E.Sigmoid)


relu = _unary_fn(E.Relu)


erf = _unary_fn(E.Erf)


def erfinv(input, *, out=None):
    """The inverse error function, elementwise (``erfinv(±1) = ±inf``, NaN outside [-1, 1]);
    integer inputs give the default float dtype. Differentiable:
    ``d/dx erfinv(x) = sqrt(pi) / 2 * exp(erfinv(x) ** 2)``.

    Example:
        >>> import minitorch_cs.torch as torch
        >>> torch.erfinv(torch.tensor([0.0, 0.5, -1.0]))
        tensor([0.0000, 0.4769,   -inf])
    """
    _check_tensor(input, "erfinv")
    return apply(E.Erfinv, input)


sign = _unary_fn(E.Sign)


floor = _unary_fn(E.Floor)


ceil = _unary_fn(E.Ceil)


trunc = fix = _unary_fn(E.Trunc)


logical_not = _unary_fn(E.LogicalNot)


def bitwise_not(input, *, out=None):
    _check_integral(input, "bitwise_not")
    return apply(E.BitwiseNot, input)


isnan = _unary_fn(E.IsNan)


isinf = _unary_fn(E.IsInf)


isfinite = _unary_fn(E.IsFinite)


frac = _unary_fn(PE.Frac)
deg2rad = _unary_fn(PE.Deg2rad)
rad2deg = _unary_fn(PE.Rad2deg)
erfc = _unary_fn(PE.Erfc)
signbit = _unary_fn(PE.Signbit)
isposinf = _unary_fn(PE.IsPosInf)
isneginf = _unary_fn(PE.IsNegInf)


def _bool_out(name):
    def check(out, *args, **kwargs):
        if out.dtype is not D.bool:
            raise RuntimeError(f"{name} does not support non-boolean outputs.")
    return check


signbit.out_check = _bool_out("signbit")
isposinf.out_check = _bool_out("isposinf")
isneginf.out_check = _bool_out("isneginf")


def _nan_to_num_args(nan, posinf, neginf):
    """torch reads the replacement values as Python floats (``None`` nan is 0; a 0-d tensor
    gives its value); ``None`` posinf/neginf mean the dtype's largest/smallest finite value."""
    def num(v, name):
        if v is None:
            return None
        if isinstance(v, Tensor):
            v = v.item()
        if not isinstance(v, (builtins.int, builtins.float, np.number)):
            raise TypeError(f"nan_to_num(): argument '{name}' must be float, not "
                            f"{type(v).__name__}")
        return builtins.float(v)
    nan = num(nan, "nan")
    return dict(nan=0.0 if nan is None else nan, posinf=num(posinf, "posinf"),
                neginf=num(neginf, "neginf"))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """Replace NaN, +inf and -inf in ``input`` with ``nan``, ``posinf`` and ``neginf`` (default:
    0 and the dtype's largest and smallest finite values); integer and bool tensors come back as
    unchanged copies. Differentiable: the gradient passes where ``input`` is finite, 0 elsewhere.

    Example:
        >>> import minitorch_cs.torch as torch
        >>> torch.nan_to_num(torch.tensor([float("nan"), float("inf"), 1.5]), posinf=9.0)
        tensor([0.0000, 9.0000, 1.5000])
    """
    _check_tensor(input, "nan_to_num")
    return apply(E.NanToNum, input, **_nan_to_num_args(nan, posinf, neginf))


def _nan_to_num_out(input, nan=0.0, posinf=None, neginf=None):
    """``nan_to_num(..., out=)``: for an integer or bool input torch resizes ``out`` plainly
    (contiguous) and copies the input into it."""
    if isinstance(input, Tensor) and not input._dtype.is_floating_point:
        return input.contiguous()  # (``out=`` receives a copy of it)
    return nan_to_num(input, nan, posinf, neginf)


nan_to_num.out_variant = _nan_to_num_out


def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    """In-place :func:`nan_to_num`; returns ``input``."""
    _check_tensor(input, "nan_to_num_")
    return apply_inplace(E.NanToNum, input, **_nan_to_num_args(nan, posinf, neginf))


def round(input, *, decimals=None):
    """Round half to even; ``decimals`` rounds to that many decimal places (negative: tens,
    hundreds, ...) in one kernel, as torch does (floating dtypes only). Given explicitly, even
    as 0, it selects torch's ``round.decimals`` overload (node ``RoundBackward1``; the values of
    ``decimals=0`` are the plain rounding's)."""
    if decimals is None:
        return apply(E.Round, input)
    if decimals:
        return apply(E.RoundDecimals, input, decimals=decimals)
    return apply(PE.RoundZeroDecimals, input)


def sgn(input):
    return torch_named(sign(input), "SgnBackward0", input)  # (our sign's kernel: torch's sgn)


def clamp(input, min=None, max=None, *, out=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if (isinstance(min, Tensor) and min.requires_grad) or \
            (isinstance(max, Tensor) and max.requires_grad):
        # bounds that take gradients: torch's ClampBackward0 (the three promote together)
        return apply(E.ClampTensors, input, min, max)
    # (torch's node saves tensor bounds too: changing one in place is refused at backward)
    return also_saved(apply(E.Clamp, input, lo=min, hi=max), *(
        b for b in (min, max) if isinstance(b, Tensor)))


clip = clamp


# torch's clamp_min/clamp_max are ops of their own: ClampMinBackward0 for a number bound,
# ClampMinBackward1 for a tensor one (clamp's own kernel here)
def clamp_min(input, min):
    return torch_named(clamp(input, min=min), "ClampMinBackward1" if isinstance(min, Tensor)
                       else "ClampMinBackward0", input)


def clamp_max(input, max):
    return torch_named(clamp(input, max=max), "ClampMaxBackward1" if isinstance(max, Tensor)
                       else "ClampMaxBackward0", input)


def inplace_named(fn, name):
    """``fn`` (an in-place form) whose new node, if it records one, takes torch's name ``name``
    (not a view's: its node is the regenerated view's, the op's own sits under CopySlices)."""
    def inplace(self, *args, **kwargs):
        prev = self.grad_fn
        return torch_named_inplace(fn(self, *args, **kwargs), prev, name)
    inplace.__name__ = getattr(fn, "__name__", "inplace")
    return inplace


def _cmp(op):
    def fn(input, other, *, out=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"{op.name}(): argument 'input' must be Tensor")
        return apply(op, input, _t(other))  # (the kernel refuses a floating result type)
    fn.__name__ = fn.__qualname__ = op.name
    fn._op = op
    return fn


eq = _cmp(E.Eq)


ne = not_equal = _cmp(E.Ne)


lt = less = _cmp(E.Lt)


le = less_equal = _cmp(E.Le)


gt = greater = _cmp(E.Gt)


ge = greater_equal = _cmp(E.Ge)


logical_and = _cmp(E.LogicalAnd)


logical_or = _cmp(E.LogicalOr)


logical_xor = _cmp(E.LogicalXor)


bitwise_and = _cmp(E.BitwiseAnd)


bitwise_or = _cmp(E.BitwiseOr)


bitwise_xor = _cmp(E.BitwiseXor)


def equal(input, other) -> bool:
    """True when both tensors have the same shape and elements (a Python bool: a value read)."""
    read_value(input, "equal")
    read_value(other, "equal")
    return input.shape == other.shape and builtins.bool(np.array_equal(input._data, other._data))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """``isclose(...).all()`` as a Python bool (a value read)."""
    read_value(input, "allclose")
    read_value(other, "allclose")
    return builtins.bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol,
                                     equal_nan=equal_nan))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|input - other| <= atol + rtol * |other|`` elementwise, a bool tensor."""
    return apply(E.Isclose, input, _t(other), rtol=rtol, atol=atol, equal_nan=equal_nan)


def clone(input, *, memory_format=None):
    """A copy in ``memory_format`` (preserve_format: ``input``'s strides where dense)."""
    return apply(E.Clone, input, **format_attrs(checked_format(memory_format, "clone"), input))


def format_attrs(fmt, t) -> dict:
    """The Clone kernel's attributes for a copy of ``t`` in memory format ``fmt``."""
    if channels_last_order(fmt, t.ndim) is not None:
        return {"channels_last": True} if fmt is channels_last else {"channels_last_3d": True}
    return {"contiguous": True} if fmt is contiguous_format else {}


# ----- in-place forms -----------------------------------------------------------------------------
# ``Tensor.<name>_`` of a pointwise function is the same kernel written into ``self`` (the dispatch
# point's in-place path: torch's castability check, broadcasting into ``self``'s shape, version
# counter). Each function carries its in-place form as ``fn.inplace``; the method table binds
# ``<name>_`` from it, so a new function gets its in-place method by declaring it here.
def _float_power_inplace(self, exponent):
    if self._dtype is not D.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {D.scalar_name(self._dtype)} "
                           "but the operation's result requires dtype Double")
    return apply_inplace(E.Pow, self, exponent.double() if isinstance(exponent, Tensor)
                         else _t(exponent))


def _neg_inplace(self):
    if self._dtype is D.bool:
        neg(self)  # raises torch's message
    return apply_inplace(E.Neg, self)


def _bitwise_not_inplace(self):
    _check_integral(self, "bitwise_not")
    return apply_inplace(E.BitwiseNot, self)


for _fn, _ip in [
    (div, _inplace_binary(E.Div, "div")),
    (floor_divide, _inplace_binary(E.Div, "floor_divide", rounding_mode="floor")),
    (remainder, _inplace_binary(E.Remainder, "remainder")),
    (fmod, _inplace_binary(E.Fmod, "fmod")),
    (atan2, _inplace_binary(E.Atan2, "atan2")),
    (xlogy, _inplace_binary(E.Xlogy, "xlogy")),
    (heaviside, _heaviside_inplace),
    (copysign, _copysign_inplace),
    (logit, _logit_inplace),
    (float_power, _float_power_inplace),
    (neg, _neg_inplace),
    (sign, sign.inplace),
    (bitwise_not, _bitwise_not_inplace),
    (bitwise_and, _inplace_binary(E.BitwiseAnd, "bitwise_and")),  # (the kernel refuses floats)
    (bitwise_or, _inplace_binary(E.BitwiseOr, "bitwise_or")),
    (bitwise_xor, _inplace_binary(E.BitwiseXor, "bitwise_xor")),
] + [(f, _inplace_binary(f._op, f.__name__)) for f in (eq, ne, lt, le, gt, ge, logical_and,
                                                         logical_or, logical_xor)]:
    _fn.inplace = _ip
sgn.inplace = inplace_named(sign.inplace, "SgnBackward0")
sgn.inplace.__name__ = "sgn_"
for _fn in (isnan, isinf, isfinite, signbit, isposinf, isneginf):  # torch has no isnan_ & co.
    del _fn.inplace
del _fn, _ip


def _lerp_out_check(out, input, end=None, weight=None, **_):
    """``lerp(..., out=)`` in torch's order: the operands' dtype checks, then ``out``'s -- with
    a weight of one or more dims torch's kernel takes no other output dtype ("Found dtype Half
    but expected Float"); a number weight, or a 0-d weight tensor (which torch's kernel reads as
    one number), casts by the usual rule -- and only then the kernel's own dtype support."""
    if not (isinstance(input, Tensor) and isinstance(end, Tensor)):
        return
    w = weight._data if isinstance(weight, Tensor) else weight
    rt = lerp_dtype(input._data, end._data, w)
    if isinstance(weight, Tensor) and weight.ndim:
        if out.dtype is not input._dtype:
            raise RuntimeError(f"Found dtype {D.scalar_name(out.dtype)} but expected "
                               f"{D.scalar_name(input._dtype)}")
    else:
        E._out_check(rt, out._data)


lerp.out_check = _lerp_out_check
