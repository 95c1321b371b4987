"""Python's binary operators on ``Tensor`` (``+``, ``<``, ``&=``, ``@``, ...), bound as torch
binds them.

Every binary special method -- forward (``__add__``), reflected (``__radd__``) and in-place
(``__iadd__``) -- turns a ``TypeError`` from its call into ``NotImplemented``: the operand is not
one the op's signatures take. Python then tries the other operand's reflected method, so a class
of the user's own can define ``__radd__`` and get ``tensor + obj``, and when nobody takes the pair
Python raises its own "unsupported operand type(s) for +: 'Tensor' and 'list'". ``t == "a"`` is
``False`` by the same rule (Python's fallback for ``==`` is identity; ``==``, alone of the
operators, takes a NumPy array as a tensor), and ``t += obj`` that no
in-place method takes falls back to ``t = t + obj``. Our refusal of complex numbers is the one
``TypeError`` kept: torch computes those in complex64, a dtype we do not have.

The reflected methods take what torch's functions take in the first position: a tensor or a
number (``[1, 2] - t`` is Python's error, not a tensor). A NumPy array is neither: numpy's own
operator then computes with the tensor's values and hands the result to ``__array_wrap__``,
which makes it a tensor (a bool result a uint8 one), as torch's does.

Source: torch 2.13's ``Tensor`` (its C-bound operators wrapped by ``TypeError_to_NotImplemented_``
and its Python ones by ``_handle_torch_function_and_wrap_type_error_to_not_implemented``),
measured against it by ``tests/torch/test_operator_protocol.py``. (Imported by the package's
``__init__`` once the functions and methods exist.)
"""
from __future__ import annotations

import functools

import numpy as np

from .. import _dtype as D
from .. import _functions as F
from .._autograd import torch_named
from .._dispatch import apply
from .._ops import elementwise as E
from .._tensor import Tensor
from ._common import _t
from .pointwise import _NUMBERS

def _operand(other):
    """``other`` in a reflected operator's first position: a tensor or a number, as torch's
    functions take there; anything else is the TypeError that becomes NotImplemented."""
    if not isinstance(other, (Tensor,) + _NUMBERS):
        raise TypeError(f"unsupported operand: {type(other).__name__}")
    return _t(other)


def _operator(fn, name):
    """``fn`` as the special method ``name``: its TypeError is ``NotImplemented``."""
    @functools.wraps(fn)
    def method(self, other):
        try:
            return fn(self, other)
        except D.ComplexUnsupported:
            raise
        except TypeError:
            return NotImplemented
    method.__name__ = method.__qualname__ = name
    return method


def _rsub(self, other):  # (torch's rsub: RsubBackward1 for a number, 0 for a tensor)
    other = _operand(other)
    return torch_named(apply(E.Sub, other, self),
                       "RsubBackward0" if isinstance(other, Tensor) else "RsubBackward1", self, other)


def _rdiv(self, other):
    return F.reciprocal(self) * other  # torch's __rdiv__: reciprocal, then the product


def _rfloordiv(self, other):
    return apply(E.Div, _operand(other), self, rounding_mode="floor")


def _rpow(self, other):
    # a number base: torch's Scalar-base kernel (a contiguous result)
    return F.pow(_operand(other), self)


def _rmatmul(self, other):
    return F.matmul(other, self)


def _rmod(self, other):
    return apply(E.Remainder, _operand(other), self)


def _eq(self, other):
    if isinstance(other, np.ndarray):  # (torch's ``==``, not ``!=``, takes an array as a tensor)
        other = Tensor._wrap(other)
    return F.eq(self, other)


def _bool_or_bitwise(logical, bitwise):
    """``a & b`` and friends: the logical op (``logical``) on bool operands -- a Python bool
    included, which the public ``logical_and`` refuses -- else the bitwise function."""
    def fn(self, other):
        if self._dtype is D.bool and (other._dtype is D.bool if isinstance(other, Tensor)
                                      else isinstance(other, bool)):  # bool | 1 is int64
            return apply(logical, self, _t(other))
        return bitwise(self, other)
    return fn


def _shift(fn, reflected=False):
    """``<<``/``>>`` through ``bitwise_left_shift``/``bitwise_right_shift``; the reflected form
    takes a tensor or a number on the left, as the function's ``(Number self, Tensor other)``."""
    def method(self, other):
        return fn(_operand(other), self) if reflected else fn(self, _operand(other))
    return method


def _array_wrap(self, array, context=None, return_scalar=False):
    """A NumPy ufunc's result on a tensor's values (``np.sin(t)``, ``ndarray * t``) as a
    tensor, as torch gives it: a bool result is a uint8 tensor."""
    from .._creation import from_numpy
    array = np.asarray(array)
    if array.dtype == np.bool_:
        array = array.astype(np.uint8)
    return from_numpy(array)


OPERATORS = {
    '__add__': F.add,
    '__radd__': F.add,
    '__sub__': F.sub,
    '__rsub__': _rsub,
    '__mul__': F.mul,
    '__rmul__': F.mul,
    '__truediv__': F.div,
    '__rtruediv__': _rdiv,
    '__div__': F.div,
    '__rdiv__': _rdiv,
    '__floordiv__': F.floor_divide,
    '__rfloordiv__': _rfloordiv,
    '__mod__': F.remainder,
    '__rmod__': _rmod,
    '__pow__': F.pow,
    '__rpow__': _rpow,
    '__matmul__': F.matmul,
    '__rmatmul__': _rmatmul,
    '__and__': _bool_or_bitwise(E.LogicalAnd, F.bitwise_and),
    '__rand__': _bool_or_bitwise(E.LogicalAnd, F.bitwise_and),
    '__or__': _bool_or_bitwise(E.LogicalOr, F.bitwise_or),
    '__ror__': _bool_or_bitwise(E.LogicalOr, F.bitwise_or),
    '__xor__': _bool_or_bitwise(E.LogicalXor, F.bitwise_xor),
    '__rxor__': _bool_or_bitwise(E.LogicalXor, F.bitwise_xor),
    '__lshift__': _shift(F.bitwise_left_shift),
    '__rshift__': _shift(F.bitwise_right_shift),
    '__rlshift__': _shift(F.bitwise_left_shift, reflected=True),
    '__rrshift__': _shift(F.bitwise_right_shift, reflected=True),
    '__eq__': _eq,
    '__ne__': F.ne,
    '__lt__': F.lt,
    '__le__': F.le,
    '__gt__': F.gt,
    '__ge__': F.ge,
}

# in place, through the parsed in-place methods (their argument rules, numpy scalars included);
# torch has no ``__imatmul__``: ``t @= m`` rebinds ``t`` to ``t @ m``
_IN_PLACE = {'__iadd__': 'add_', '__isub__': 'sub_', '__imul__': 'mul_', '__itruediv__': 'div_',
             '__idiv__': 'div_', '__ifloordiv__': 'floor_divide_', '__imod__': 'remainder_',
             '__ipow__': 'pow_', '__iand__': 'bitwise_and_', '__ior__': 'bitwise_or_',
             '__ixor__': 'bitwise_xor_', '__ilshift__': 'bitwise_left_shift_',
             '__irshift__': 'bitwise_right_shift_'}
OPERATORS.update({name: (lambda method: lambda self, other: getattr(self, method)(other))(m)
                  for name, m in _IN_PLACE.items()})

for _name, _impl in OPERATORS.items():
    setattr(Tensor, _name, _operator(_impl, _name))
Tensor.__array_wrap__ = _array_wrap
