"""``x[key] = value`` for every kind of key and value: a number is a Scalar to torch, converted
with a check (256 into uint8 and 1e40 into float32 are refused; -1 wraps to 255 in uint8), except
into float16/bfloat16, which torch fills from a double unchecked (70000 is inf); a tensor value
loses its leading size-1 dims first (``x[0] = tensor([2.5])`` fills one slot). Swept against
PyTorch 2.13 when it is installed; the rules are pinned without it."""
from __future__ import annotations

import math

import numpy as np
import pytest

from minitorch_cs import torch
from tests.helpers import ours_and_torch, outcome

_NUMBERS = [0, -1, 256, 2.7, -0.0, math.nan, math.inf, True, 1e40, 70000.0]
_KEYS = {"int": lambda T: 0, "slice": lambda T: slice(0, 2),
         "mask": lambda T: T.tensor([True, False, True]), "index": lambda T: T.tensor([0, 2]),
         "ellipsis": lambda T: ..., "none": lambda T: None}
_TENSORS = {"float64 0-d": lambda T: T.tensor(2.7, dtype=T.float64),
            "int64 0-d": lambda T: T.tensor(300), "bool 0-d": lambda T: T.tensor(True),
            "float32 [1]": lambda T: T.tensor([2.5]),
            "int32 [2]": lambda T: T.tensor([7, 8], dtype=T.int32)}
_DTYPES = ("uint8", "int8", "int64", "float16", "bfloat16", "float32", "bool")


def _outcome(T, dtype, key, value):
    x = T.tensor([1, 2, 3], dtype=getattr(T, dtype))
    v = _TENSORS[value](T) if isinstance(value, str) else value
    return outcome(lambda: x.__setitem__(_KEYS[key](T), v), lambda _: np.array(x.double().tolist()))


@pytest.mark.parametrize("dtype", _DTYPES)
def test_setitem_matches_torch(dtype):
    real = pytest.importorskip("torch")
    for key in _KEYS:
        for value in _NUMBERS + list(_TENSORS):
            want, got = _outcome(real, dtype, key, value), _outcome(torch, dtype, key, value)
            if isinstance(want, np.ndarray) and isinstance(got, np.ndarray):
                assert np.array_equal(want, got, equal_nan=True), (dtype, key, value, want, got)
            else:
                assert str(got) == str(want), (dtype, key, value)


def test_setitem_value_rules():
    for T in ours_and_torch():
        u = T.tensor([1, 2, 3], dtype=T.uint8)
        u[0] = -1
        assert u.tolist() == [255, 2, 3]
        with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t"):
            u[1:] = 256
        f = T.zeros(2)
        with pytest.raises(RuntimeError, match="value cannot be converted to type float"):
            f[0] = 1e40
        h = T.zeros(2, dtype=T.float16)
        h[0] = 70000.0
        assert h.tolist() == [math.inf, 0.0]
        f[0] = T.tensor([[2.5]])
        assert f.tolist() == [2.5, 0.0]
