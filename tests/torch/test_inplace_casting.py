"""In-place forms and their target's dtype: the result is computed in the operands' common
dtype, then written into the target when torch's cast rule allows it ("result type Float can't
be cast to the desired output type Long" otherwise), with torch's checks in torch's order.
Swept against PyTorch 2.13 when it is installed; the rules are pinned without it."""
from __future__ import annotations

import numpy as np
import pytest

from minitorch_cs import torch
from tests.helpers import dtype_and_values, ours_and_torch, outcome

_OPS = {
    "add_": lambda x, T, o: x.add_(o),
    "mul_": lambda x, T, o: x.mul_(o),
    "div_": lambda x, T, o: x.div_(o),
    "div_trunc_": lambda x, T, o: x.div_(o, rounding_mode="trunc"),
    "div_floor_": lambda x, T, o: x.div_(o, rounding_mode="floor"),
    "pow_": lambda x, T, o: x.pow_(o),
    "remainder_": lambda x, T, o: x.remainder_(o),
    "clamp_": lambda x, T, o: x.clamp_(min=o),
    "lerp_": lambda x, T, o: x.lerp_(x * 0 + 1, o),
    "addcmul_": lambda x, T, o: x.addcmul_(x, x, value=o),
    "addcdiv_": lambda x, T, o: x.addcdiv_(x, x + 1, value=o),
    "bitwise_and_": lambda x, T, o: x.bitwise_and_(o),
    "eq_": lambda x, T, o: x.eq_(o),
    "lt_": lambda x, T, o: x.lt_(o),
    "sqrt_": lambda x, T, o: x.sqrt_(),
    "neg_": lambda x, T, o: x.neg_(),
}
_OTHERS = {
    "int": lambda T: 2,
    "float": lambda T: 0.5,
    "float32[2]": lambda T: T.tensor([0.5, 2.0], dtype=T.float32),
    "int64[2]": lambda T: T.tensor([2, 3]),
    "float64 0-d": lambda T: T.tensor(0.5, dtype=T.float64),
    "bool[2]": lambda T: T.tensor([True, False]),
    "float16[2]": lambda T: T.tensor([0.5, 2.0], dtype=T.float16),
    "int32 0-d": lambda T: T.tensor(3, dtype=T.int32),
}
_TARGETS = ("int64", "uint8", "bool", "float16", "float32")


def _outcome(T, op, target, other):
    x = T.tensor([3, 1], dtype=getattr(T, target))
    return outcome(lambda: _OPS[op](x, T, _OTHERS[other](T)), lambda _: dtype_and_values(x))


@pytest.mark.parametrize("op", sorted(_OPS))
def test_in_place_forms_match_torch(op):
    real = pytest.importorskip("torch")
    for target in _TARGETS:
        for other in _OTHERS:
            want, got = _outcome(real, op, target, other), _outcome(torch, op, target, other)
            if isinstance(want, tuple) and isinstance(got, tuple) and want[0] == got[0]:
                assert np.allclose(want[1], got[1], rtol=1e-3, equal_nan=True), \
                    (op, target, other, want, got)
            else:
                assert got == want, (op, target, other)


def test_in_place_casting_rules():
    for T in ours_and_torch():
        x = T.tensor([5, -7])
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                               "output type Long"):
            x.div_(0.7, rounding_mode="trunc")
        assert x.tolist() == [5, -7]
        # a number weight is no operand of lerp's iterator: the integer kernel is refused
        with pytest.raises(NotImplementedError, match='"lerp_kernel_scalar" not implemented'):
            x.lerp_(x, 0.5)
        u = T.tensor([3, 1], dtype=T.uint8)
        u.bitwise_and_(T.tensor(1, dtype=T.int32))  # a 0-d operand does not promote
        assert u.tolist() == [1, 1] and u.dtype == T.uint8
        with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired "
                                               "output type Bool"):
            T.tensor([True]).bitwise_and_(2)
        f = T.ones(2)
        with pytest.raises(TypeError, match="argument 'value' must be Number, not Tensor"):
            f.addcmul_(f, f, value=T.tensor([0.5]))
        assert f.addcmul_(f, f, value=T.tensor(0.5)).tolist() == [1.5, 1.5]  # a 0-d one is
