"""``histc`` (function and method) against torch 2.13: bins over given or data ranges, the
edges torch's linspace gives, its interpolated binning in every floating dtype (half types
rounding every operation), values outside the range and NaN, and torch's argument errors."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs.torch as mt
from tests.torch._sweeps import assert_same_as_torch, outcomes


def _calls(T):
    x = [1., 2., 1., 4., 2.5, -1.]
    calls = {
        "range": lambda: T.histc(T.tensor(x), bins=4, min=0, max=3),
        "data range": lambda: T.histc(T.tensor(x), bins=4),
        "one value": lambda: T.histc(T.tensor([2., 2.]), bins=3),
        "empty": lambda: T.histc(T.tensor([]), bins=3),
        "float64": lambda: T.histc(T.tensor(x, dtype=T.float64), bins=4),
        "method": lambda: T.tensor(x).histc(3),
        "2-d": lambda: T.histc(T.tensor(x).reshape(2, 3), 4),
        "0-d": lambda: T.histc(T.tensor(3.), 2),
        "equal bounds": lambda: T.histc(T.tensor(x), bins=3, min=1, max=1),
        "out": lambda: T.histc(T.tensor(x), bins=3, out=T.empty(3)),
        "nan with range": lambda: T.histc(T.tensor([float("nan"), 1.]), bins=3, min=0, max=2),
        "requires grad": lambda: T.histc(T.tensor(x, requires_grad=True), 3).requires_grad,
        "integer input": lambda: T.histc(T.tensor([1, 2]), bins=3),
        "no bins": lambda: T.histc(T.tensor(x), bins=0),
        "negative bins": lambda: T.histc(T.tensor(x), bins=-1),
        "float bins": lambda: T.histc(T.tensor(x), bins=2.5),
        "max below min": lambda: T.histc(T.tensor(x), bins=3, min=3, max=1),
        "nan data": lambda: T.histc(T.tensor([float("nan"), 1.]), bins=3),
        "inf data": lambda: T.histc(T.tensor([float("inf"), 1.]), bins=3),
        "nan min": lambda: T.histc(T.tensor(x), bins=3, min=float("nan")),
    }
    rng = np.random.default_rng(0)
    for i in range(60):
        n, bins = int(rng.integers(1, 200)), int(rng.integers(1, 30))
        v = np.round(rng.standard_normal(n) * 3, int(rng.integers(0, 3))).tolist()
        dt = ("float32", "float64", "float16", "bfloat16")[i % 4]
        lo, hi = (float(rng.integers(-4, 0)), float(rng.integers(0, 4))) if i % 3 else (0, 0)
        calls[f"random {i} {dt}"] = lambda v=v, dt=dt, bins=bins, lo=lo, hi=hi: T.histc(
            T.tensor(v).to(getattr(T, dt)), bins, lo, hi)
    return calls


def test_histc_matches_torch():
    assert_same_as_torch(lambda T: outcomes(_calls(T)), mt)


def test_histc_pinned():
    assert mt.histc(mt.tensor([1., 2., 1., 4., 2.5, -1.]), bins=4, min=0, max=3).tolist() == \
        [0.0, 2.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match=r"torch.histc: range of \[1, inf\] is not finite"):
        mt.histc(mt.tensor([float("inf"), 1.]), bins=3)
