"""Python and numpy numbers as operands of the binary ops, swept against torch: a numpy scalar
counts as the Python number it holds (numpy integers as int, numpy floats -- and numpy's bool,
which torch's parser reads as a double -- as float), a number an integer result cannot hold is
refused, and a complex number is refused here (no complex dtypes) instead of losing its
imaginary part."""
from __future__ import annotations

import numpy as np
import pytest

from minitorch_cs import torch
from tests.torch._sweeps import Outcomes, assert_same_as_torch

_NUMBERS = {"np.float64": np.float64(2.5), "np.float32": np.float32(2.5),
            "np.float16": np.float16(2.5), "np.int64": np.int64(3), "np.int8": np.int8(3),
            "np.uint8": np.uint8(3), "np.bool_": np.bool_(True), "int": 3, "float": 2.5,
            "bool": True, "2**40": 2 ** 40, "-2**31-1": -2 ** 31 - 1}


def _outcomes(T):
    tensors = {"float16": T.tensor([1.5, -2.0], dtype=T.float16),
               "int32": T.tensor([3, -2], dtype=T.int32),
               "uint8": T.tensor([3, 250], dtype=T.uint8), "bool": T.tensor([True, False]),
               "float32": T.tensor([1.5, -2.0])}
    ops = {"x + n": lambda a, b: a + b, "n + x": lambda a, b: b + a, "x * n": lambda a, b: a * b,
           "x / n": lambda a, b: a / b, "x ** n": lambda a, b: a ** b, "n - x": lambda a, b: b - a,
           "x == n": lambda a, b: a == b, "x += n": lambda a, b: a.clone().__iadd__(b),
           "where(x > 0, x, n)": lambda a, b: T.where(a > 0, a, b),
           "maximum(x, n)": lambda a, b: T.maximum(a, b), "x.clamp(max=n)": lambda a, b: a.clamp(max=b),
           "x // n": lambda a, b: a // b}
    # (the error's type is the outcome)
    out = Outcomes(show=lambda r: f"{str(r.dtype).split('.')[-1]} {r.tolist()}", messages=False)
    for xn, x in tensors.items():
        for nn, n in _NUMBERS.items():
            for opn, op in ops.items():
                out.run(f"{opn} with x {xn}, n {nn}", lambda op=op, x=x, n=n: op(x, n))
    return out


def test_number_operands_match_torch():
    """720 calls against torch 2.13."""
    assert_same_as_torch(_outcomes, torch)


def test_numpy_scalars_are_weak():
    i = torch.tensor([3, -2], dtype=torch.int32)
    assert (i + np.bool_(True)).dtype is torch.float32  # (numpy's bool: a double to torch)
    assert (np.float64(1.5) - i).dtype is torch.float32 and i.clamp(max=np.int8(1)).dtype is torch.int32
    with pytest.raises(RuntimeError, match="value cannot be converted to type int without overflow"):
        torch.where(i > 0, i, 2 ** 40)


def test_complex_numbers_are_refused():
    x = torch.ones(2)
    for op in (lambda: x + 1j, lambda: x * np.complex64(1j), lambda: torch.where(x > 0, x, 1j)):
        with pytest.raises(TypeError, match="complex numbers are not supported"):
            op()


def test_float32_power_by_an_exponent_float32_cannot_hold():
    """torch keeps the exponent's parity beyond 2**24 (a double power, rounded)."""
    x = torch.tensor([-1.0, -1.0000001, 0.5])
    assert (x ** (2 ** 24 + 1)).tolist() == [-1.0, pytest.approx(-7.389056, rel=1e-5), 0.0]
    assert (x ** 16777217.0)[0].item() == -1.0
