"""A Python number as an operand, for every dtype: torch's binary operators wrap a number into
the common dtype by a C cast (``uint8 + 256`` adds 0, ``uint8 < -1`` compares with 255, so
``uint8 // 256`` divides by zero), while the ops that take a Scalar *argument* convert it with a
check (``clamp(min=256)`` and ``uint8 ** 256`` refuse it; ``float16 ** 70000`` too). Swept
against PyTorch 2.13 when it is installed; the rules are pinned without it."""
from __future__ import annotations

import math

import numpy as np
import pytest

from minitorch_cs import torch
from tests.helpers import dtype_and_values, ours_and_torch, outcome

_OPS = {
    "add": lambda a, b: a + b, "radd": lambda a, b: b + a, "sub": lambda a, b: a - b,
    "rsub": lambda a, b: b - a, "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
    "rdiv": lambda a, b: b / a, "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b,
    "pow": lambda a, b: a ** b, "rpow": lambda a, b: b ** a, "eq": lambda a, b: a == b,
    "lt": lambda a, b: a < b, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b, "lshift": lambda a, b: a << b, "rshift": lambda a, b: a >> b,
    "clamp": lambda a, b: a.clamp(min=b), "fmod": lambda a, b: a.fmod(b),
    "remainder": lambda a, b: a.remainder(b),
}
_NUMBERS = [0, 1, -1, 2, 255, 256, -129, 300, 2**31, 2**40, -2**63, 2**63 - 1, 0.5, -0.0, 1e10,
            1e40, math.inf, math.nan, True, False, 2.5]
_VALUES = {"uint8": [0, 3, 200], "int8": [-5, 0, 7], "int16": [-300, 0, 9],
           "int32": [-70000, 0, 5], "int64": [-2**40, 0, 3], "float16": [-1.5, 0.0, 3.0],
           "bfloat16": [-1.5, 0.0, 3.0], "float32": [-1.5, 0.0, 3.0],
           "float64": [-1.5, 0.0, 3.0], "bool": [True, False, True]}


def _outcome(T, op, dtype, n):
    a = T.tensor(_VALUES[dtype], dtype=getattr(T, dtype))
    return outcome(lambda: _OPS[op](a, n), dtype_and_values)


def _same(want, got) -> bool:
    if isinstance(want, str) or isinstance(got, str) or want[0] != got[0]:
        return str(want) == str(got)
    a, b = want[1], got[1]
    nan = np.isnan(a)
    return np.array_equal(nan, np.isnan(b)) and np.allclose(a[~nan], b[~nan], rtol=1e-6, atol=0) \
        and np.array_equal(np.signbit(a[~nan]), np.signbit(b[~nan]))


@pytest.mark.parametrize("op", sorted(_OPS))
def test_number_operands_match_torch(op):
    real = pytest.importorskip("torch")
    for dtype in _VALUES:
        for n in _NUMBERS:
            want, got = _outcome(real, op, dtype, n), _outcome(torch, op, dtype, n)
            assert _same(want, got), (op, dtype, n, want, got)


def test_number_operand_rules():
    for T in ours_and_torch():
        u = T.tensor([0, 3, 200], dtype=T.uint8)
        assert (u + 256).tolist() == [0, 3, 200]  # 256 wraps to 0
        assert (u < -1).tolist() == [True] * 3  # -1 wraps to 255
        assert (u == 256).tolist() == [True, False, False]
        assert (u & -1).tolist() == [0, 3, 200]
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            u // 256
        for call in (lambda: u.clamp(min=256), lambda: u ** 256):
            with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t "
                                                   "without overflow"):
                call()
        assert u.clamp(min=-1).tolist() == [255] * 3  # c10's rule for an unsigned dtype
        with pytest.raises(RuntimeError, match="value cannot be converted to type float "
                                               "without overflow"):
            T.ones(1).clamp(min=1e40)
        with pytest.raises(RuntimeError, match="c10::Half without overflow"):
            T.ones(1, dtype=T.float16) ** 70000
        with pytest.raises(NotImplementedError, match='"lshift_cpu" not implemented for '
                                                      "'Float'"):
            u << 0.5
        b = T.tensor([True, False])
        assert (b ** True).tolist() == [True, False] and (b ** 0).tolist() == [True, True]
        with pytest.raises(NotImplementedError, match='"clamp_min_scalar_cpu" not implemented'):
            b.clamp(min=True)
