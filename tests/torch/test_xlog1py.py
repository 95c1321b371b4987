"""``torch.special.xlog1py`` against torch 2.13: values over dtype pairs and special values
(zeros, -1, NaN, infinities), numbers on either side, gradients and node names."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import minitorch_cs.torch as mt
from tests.torch._sweeps import assert_same_as_torch, describe, outcomes

X = [0.0, -0.0, 1.0, 2.5, -3.0, 0.0, np.nan, np.inf, 4.0]
Y = [-1.0, 0.5, 3.0, -0.5, 2.0, np.nan, 1.0, 2.0, -2.0]
DTYPES = ("bool", "int64", "float16", "bfloat16", "float32", "float64")


def _calls(T):
    def t(vals, dt):
        return T.tensor([abs(v) > 1 for v in vals] if dt == "bool" else
                        [0 if np.isnan(v) or np.isinf(v) else int(v) for v in vals]
                        if dt == "int64" else vals).to(getattr(T, dt))
    calls = {}
    for da, db in itertools.product(DTYPES, DTYPES):
        calls[f"{da} {db}"] = lambda da=da, db=db: T.special.xlog1py(t(X, da), t(Y, db))
    for dt in ("float32", "float64"):
        def grads(dt=dt):
            a = t(X, dt).requires_grad_()
            b = t(Y, dt).requires_grad_()
            y = T.special.xlog1py(a, b)
            y.sum().backward()
            return " | ".join(describe(v, digits=6) for v in (y, a.grad, b.grad)) + " " + \
                y.grad_fn.name()
        calls[f"grads {dt}"] = grads
        calls[f"number other {dt}"] = lambda dt=dt: T.special.xlog1py(t(X, dt), 0.5)
        calls[f"number self {dt}"] = lambda dt=dt: T.special.xlog1py(2, t(Y, dt))
    calls["numbers"] = lambda: T.special.xlog1py(1, 2)
    calls["node names"] = lambda: [T.special.xlog1py(*args).grad_fn.name() for args in (
        (T.ones(2, requires_grad=True), T.ones(2)), (2, T.ones(2, requires_grad=True)),
        (T.ones(2, requires_grad=True), 2.0))]
    return calls


def test_xlog1py_matches_torch():
    assert_same_as_torch(lambda T: outcomes(_calls(T), show=lambda r: describe(r, digits=6)),
                         mt)


def test_xlog1py_pinned():
    y = mt.special.xlog1py(mt.tensor([0.0, 2.0, 0.0]), mt.tensor([-1.0, 1.0, float("nan")]))
    assert y[0].item() == 0.0 and y[1].item() == pytest.approx(2 * np.log(2)) and \
        np.isnan(y[2].item())
