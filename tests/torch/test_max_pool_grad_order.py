"""Max pooling's input gradient where windows overlap: torch 2.13 adds the contributions to a
position one at a time, in output order, in the gradient's dtype (a half dtype's own
arithmetic, float32's rounding at each addition). Swept against torch over 1-D, 2-D and
adaptive max pooling with overlapping windows, in four dtypes, bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs.torch as mt


def _cases(rng):
    for trial in range(24):
        n = int(rng.integers(3, 9))
        k = int(rng.integers(2, 4))
        kind = ("max_pool1d", "max_pool2d", "max_pool2d_dilated", "adaptive_max_pool2d")[trial % 4]
        shape = (2, 3, n) if kind == "max_pool1d" else (2, 3, n, n + 1)
        yield kind, shape, k


def _pool(T, kind, x, k):
    F = T.nn.functional
    if kind == "max_pool1d":
        return F.max_pool1d(x, k, 1)
    if kind == "max_pool2d":
        return F.max_pool2d(x, k, 1, padding=k // 2)
    if kind == "max_pool2d_dilated":
        return F.max_pool2d(x, 2, 1, dilation=2)
    return F.adaptive_max_pool2d(x, (x.shape[-2] - 1, x.shape[-1] - 2))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_overlapping_windows_add_in_order_as_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    for kind, shape, k in _cases(rng):
        # few distinct values: many windows share an argmax
        x0 = rng.integers(0, 3, shape) + rng.standard_normal(shape) * 0.01
        got = []
        for T in (torch, mt):
            x = T.tensor(x0, dtype=getattr(T, dtype), requires_grad=True)
            y = _pool(T, kind, x, k)
            g = np.random.default_rng(1).standard_normal(tuple(y.shape)) * 3.3
            y.backward(T.tensor(g, dtype=getattr(T, dtype)))
            got.append(x.grad.float().numpy())
        assert np.array_equal(got[0], got[1]), (kind, shape, k)


def test_float32_contributions_round_at_each_addition():
    # all three windows (padding 1) pick x[1]: 1 + 2**-24 + 2**-24 in float32 is 1, each
    # addition rounding to even, where the exact sum rounded once would be 1 + 2**-23
    x = mt.tensor([[[0.0, 5.0, 0.0]]], requires_grad=True)
    z = mt.nn.functional.max_pool1d(x, 3, 1, padding=1)
    assert z.tolist() == [[[5.0, 5.0, 5.0]]]
    z.backward(mt.tensor([[[1.0, 2.0 ** -24, 2.0 ** -24]]]))
    assert x.grad[0, 0, 1].item() == 1.0
