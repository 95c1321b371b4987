"""Muon against an independent numpy implementation of its update rule (cstorch 2.10 `optim/Muon.py`).

The real Muon fails on every CPU step (TypeError), so there is no golden: its source
(momentum EMA, 5-step Newton–Schulz with coefficients 3.4445/−4.7750/2.0315 in bfloat16, lr
scaled by 0.2·√max(A, B), decoupled weight decay) are the specification. bfloat16 semantics:
every op's result is rounded to bfloat16, matmuls and the norm accumulate in float32.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import minitorch_cs.optim as optim
import minitorch_cs.torch as torch
from minitorch_cs.optim.muon import zeropower_via_newtonschulz5

BF16 = ml_dtypes.bfloat16


def r(x):
    """Round to bfloat16 (kept as float32 values)."""
    return np.asarray(x, np.float32).astype(BF16).astype(np.float32)


def ns_reference(G, steps):
    a, b, c = 3.4445, -4.7750, 2.0315
    X = r(G)
    tall = X.shape[-2] > X.shape[-1]
    if tall:
        X = X.T
    norm = r(np.sqrt(np.sum(X * X, dtype=np.float32)))
    X = r(X / r(norm + np.float32(1e-7)))
    for _ in range(steps):
        A = r(X @ X.T)
        B = r(r(np.float32(b) * A) + r(np.float32(c) * r(A @ A)))
        X = r(r(np.float32(a) * X) + r(B @ X))
    return X.T if tall else X


def muon_reference(p, g, buf, lr, wd, mu, nesterov, steps):
    buf = (buf * np.float32(mu) + g * np.float32(1 - mu)).astype(np.float32)
    eff = (g + buf * np.float32(mu)).astype(np.float32) if nesterov else buf
    shape = p.shape
    if eff.ndim == 4:
        eff = eff.reshape(shape[0], -1)
    O = ns_reference(eff, steps).reshape(shape)
    adj = lr * 0.2 * math.sqrt(max(shape[0], shape[1]))
    p = (p * np.float32(1 - adj * wd)).astype(np.float32)
    return (p + r(O * np.float32(-adj))).astype(np.float32), buf


def test_newton_schulz_orthogonalizes(backend):
    G = np.random.default_rng(1).standard_normal((8, 16)).astype(np.float32)
    X = zeropower_via_newtonschulz5(torch.tensor(G), steps=5)
    assert X.dtype is torch.bfloat16 and tuple(X.shape) == (8, 16)
    np.testing.assert_array_equal(X.float().numpy(), ns_reference(G, 5))
    sv = np.linalg.svd(X.float().numpy().astype(np.float64), compute_uv=False)
    assert np.all((sv > 0.6) & (sv < 1.25))  # the quintic pushes singular values near 1


@pytest.mark.parametrize("shape", [(3, 4), (6, 2), (2, 3, 2, 2)])
@pytest.mark.parametrize("kwargs", [{}, dict(lr=0.05, weight_decay=0.1, momentum=0.9,
                                             nesterov=False, ns_steps=3)])
def test_trajectory_matches_numpy(shape, kwargs, backend):
    hyper = dict(lr=0.02, weight_decay=0.01, momentum=0.95, nesterov=True, ns_steps=5)
    hyper.update(kwargs)
    p0 = np.linspace(-1, 1, int(np.prod(shape)), dtype=np.float32).reshape(shape)
    p = torch.tensor(p0.copy(), requires_grad=True)
    opt = optim.Muon([p], **kwargs)
    ref_p, ref_buf = p0.copy(), np.zeros_like(p0)
    for k in range(4):
        g = (np.sin(ref_p.astype(np.float64) * 1.3 + k) + 0.1 * k).astype(np.float32)
        p.grad = torch.tensor(g)
        opt.step()
        ref_p, ref_buf = muon_reference(ref_p, g, ref_buf, hyper["lr"], hyper["weight_decay"],
                                        hyper["momentum"], hyper["nesterov"],
                                        hyper["ns_steps"])
        np.testing.assert_allclose(p.detach().numpy(), ref_p, rtol=1e-6, atol=1e-7,
                                   err_msg=f"step {k}")
        np.testing.assert_allclose(opt.state[p]["momentum_buffer"].numpy(), ref_buf, rtol=1e-6)


def test_defaults_and_state(backend):
    p = torch.zeros(2, 2, requires_grad=True)
    opt = optim.Muon([p])
    assert opt.defaults == dict(lr=0.02, weight_decay=0.01, momentum=0.95, nesterov=True,
                                ns_steps=5)
    assert sorted(opt.state[p]) == ["momentum_buffer"]
