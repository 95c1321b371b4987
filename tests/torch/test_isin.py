"""torch.isin against torch 2.13: membership compared in the promoted dtype (a number wraps into
an integer dtype as a Scalar does), NaN matching nothing, -0.0 matching 0.0, scalar elements,
``invert``, ``out=``, empty inputs and torch's errors."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs.torch as mt
from tests.helpers import outcome


def _outcomes(T):
    a = T.tensor([[1, 2], [3, float("nan")]])
    cases = [
        lambda: T.isin(a, T.tensor([2., float("nan")])), lambda: T.isin(a, 3),
        lambda: T.isin(3, a), lambda: T.isin(a, T.tensor([1, 3]), invert=True),
        lambda: T.isin(T.tensor([1, 2]), T.tensor([1.5, 2.0])),
        lambda: T.isin(T.tensor([0.]), T.tensor([-0.])),
        lambda: T.isin(T.tensor([1, 2], dtype=T.uint8), T.tensor([-255])),
        lambda: T.isin(T.tensor([300]), T.tensor([44], dtype=T.uint8)),
        lambda: T.isin(T.tensor([44], dtype=T.uint8), 300),
        lambda: T.isin(T.tensor([True]), T.tensor([1])), lambda: T.isin(T.tensor([1]), True),
        lambda: T.isin(1, 2), lambda: T.isin(T.tensor([1, 2]), [2]),
        lambda: T.isin(T.tensor([1.]), T.tensor([1.], dtype=T.float16)),
        lambda: T.isin(T.tensor([1, 2]).bfloat16(), T.tensor([2.]).half()),
        lambda: T.isin(T.ones(2, requires_grad=True), T.ones(1)).requires_grad,
        lambda: T.isin(T.tensor([1, 2]), T.tensor([2]), out=T.empty(2, dtype=T.bool)),
        lambda: T.isin(T.tensor([1, 2]), T.tensor([2]), out=T.empty(2, dtype=T.int64)),
        lambda: T.isin(T.tensor([]), T.tensor([1.])), lambda: T.isin(T.tensor([1., 2]), T.tensor([])),
        lambda: T.isin(T.tensor([1, 2]), T.tensor([2]), assume_unique=True),
        lambda: T.isin(T.tensor([1, 2]), 2.5), lambda: T.isin(T.tensor([1.5, 2]), 2),
        lambda: T.isin(T.tensor([1, 2]), T.tensor([[2], [5]])),
        lambda: T.isin(T.tensor(2), T.tensor([2])),
        lambda: T.isin(elements=T.tensor([1]), test_elements=T.tensor([1])),
        lambda: T.isin(T.tensor([16777217]), T.tensor([16777216.])),
    ]
    return [outcome(c, lambda x: (x.tolist(), str(x.dtype), tuple(x.shape))
                    if hasattr(x, "tolist") else x, message=True) for c in cases]


def test_isin_as_torch():
    torch = pytest.importorskip("torch")
    assert _outcomes(mt) == _outcomes(torch)


def test_isin_random_sweep_as_numpy():
    rng = np.random.default_rng(0)
    for _ in range(20):
        x = rng.integers(-5, 6, rng.integers(0, 4, 2))
        t = rng.integers(-5, 6, rng.integers(0, 7))
        got = mt.isin(mt.tensor(x), mt.tensor(t))
        np.testing.assert_array_equal(got.numpy(), np.isin(x, t))
        assert got.dtype is mt.bool and tuple(got.shape) == x.shape
