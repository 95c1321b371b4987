"""torch.logcumsumexp against torch 2.13: torch's scan (``log1p(exp(min - max)) + max`` per
step, accumulated in float64 for float32 inputs and in float32 for half ones), infinities and
NaN, 0-d and empty inputs, its gradient formula and errors."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs.torch as mt


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
def test_logcumsumexp_values_as_torch(dt):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    for shape, dim in [((3, 50), 1), ((40, 2), 0), ((2, 3, 17), -1), ((7,), 0)]:
        v = (rng.standard_normal(shape) * 20).astype(np.float32)
        if v.size > 40:  # infinities, NaN and huge values at a few places
            v.reshape(-1)[[3, 9, 20, 31, 40]] = [np.inf, -np.inf, np.nan, 1e30, -1e30]
        want = torch.logcumsumexp(torch.tensor(v).to(getattr(torch, dt)), dim).double().numpy()
        got = mt.logcumsumexp(mt.tensor(v).to(getattr(mt, dt)), dim).double().numpy()
        tol = 0 if dt != "float64" else 1e-15  # (float64: numpy's and libm's log1p/exp)
        np.testing.assert_allclose(got, want, rtol=tol, atol=0, equal_nan=True)


def test_logcumsumexp_gradient_and_errors_as_torch():
    torch = pytest.importorskip("torch")
    out = []
    for T in (mt, torch):
        x = T.tensor([[0., 1, 2], [3, -1, float("inf")]], dtype=T.float64, requires_grad=True)
        y = T.logcumsumexp(x, 1)
        y.backward(T.tensor([[1., -2, 0.5], [0, 1, 1]], dtype=T.float64))
        z = T.tensor(2., requires_grad=True)
        T.logcumsumexp(z, 0).backward()
        res = [y.grad_fn.name(), x.grad.numpy(), z.grad.item()]
        for f in (lambda: T.logcumsumexp(T.tensor([1, 2]), 0),
                  lambda: T.logcumsumexp(T.tensor([True]), 0),
                  lambda: T.logcumsumexp(T.ones(2, 3), 2),
                  lambda: T.logcumsumexp(T.empty(0), 0).shape):
            try:
                res.append(str(f()))
            except Exception as e:  # noqa: BLE001 (the error is the outcome)
                res.append(f"{type(e).__name__}: {e}")
        out.append(res)
    ours, theirs = out
    assert ours[0] == theirs[0] and ours[2:] == theirs[2:]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)


def test_logcumsumexp_is_the_stable_log_of_cumsum_exp():
    x = np.array([[-1000., -1000., 0.5], [700., 710., -3.]])
    got = mt.logcumsumexp(mt.tensor(x), 1).numpy()
    np.testing.assert_allclose(got, np.logaddexp.accumulate(x, axis=1), rtol=1e-15)
    assert got[0, 1] == -1000 + np.log(2)


def test_logcumsumexp_never_gives_negative_zero():
    # torch's step is log1p(exp(min - max)) + max: a -0.0 element comes out +0.0
    for dt in (mt.float32, mt.float64, mt.bfloat16):
        y = mt.logcumsumexp(mt.tensor([-0.0, -5.0], dtype=dt), 0)
        assert not np.signbit(y.float().numpy()).any()
