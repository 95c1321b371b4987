"""``torch.bernoulli`` / ``torch.multinomial`` / ``Tensor.bernoulli_``: the documented rules on our
uniform stream (recomputed here from numpy's PCG64), their distributions, torch's call forms,
dtypes and errors, and their seeding as random ops inside a backend device context."""
from __future__ import annotations

import sys

import numpy as np
import pytest

import minitorch_cs as cstorch
from minitorch_cs import torch


def _pcg(seed):
    return np.random.Generator(np.random.PCG64(seed))


# ----- the documented rules ----------------------------------------------------------------------
def test_bernoulli_follows_the_rule():
    p = np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4)
    g = torch.Generator().manual_seed(5)
    got = torch.bernoulli(torch.from_numpy(p), generator=g)
    want = (_pcg(5).random((3, 4), dtype=np.float32) < p).astype(np.float32)
    assert got.dtype is torch.float32 and np.array_equal(got.numpy(), want)
    p64 = p.astype(np.float64)
    got64 = torch.bernoulli(torch.from_numpy(p64), generator=torch.Generator().manual_seed(5))
    assert got64.dtype is torch.float64
    assert np.array_equal(got64.numpy(), (_pcg(5).random((3, 4)) < p64).astype(np.float64))


def test_bernoulli_scalar_p_and_inplace_forms_follow_the_rule():
    g = torch.Generator().manual_seed(3)
    got = torch.bernoulli(torch.zeros(2, 5), 0.3, generator=g)
    assert np.array_equal(got.numpy(), (_pcg(3).random((2, 5), dtype=np.float32) < 0.3)
                          .astype(np.float32))
    x = torch.zeros(6, dtype=torch.int64)
    x.bernoulli_(0.5, generator=torch.Generator().manual_seed(9))
    assert x.dtype is torch.int64
    assert x.tolist() == (_pcg(9).random(6, dtype=np.float32) < 0.5).astype(int).tolist()
    p = torch.tensor([0.0, 1.0, 0.5, 0.25])
    y = torch.empty(2, 4, dtype=torch.bool).bernoulli_(p, generator=torch.Generator()
                                                       .manual_seed(1))
    want = _pcg(1).random((2, 4), dtype=np.float32) < p.numpy()
    assert y.dtype is torch.bool and np.array_equal(y.numpy(), want)
    z = torch.full((4,), 0.5).bernoulli(generator=torch.Generator().manual_seed(2))
    assert np.array_equal(z.numpy(), (_pcg(2).random(4, dtype=np.float32) < 0.5)
                          .astype(np.float32))


def _multinomial_rule(p, n, replacement, seed):
    """The SPEC rule, written independently of the implementation (loops per sample)."""
    g = _pcg(seed)
    rows = np.atleast_2d(np.asarray(p, np.float64))
    out = []
    if replacement:
        u = g.random((rows.shape[0], n))
        for row, us in zip(rows, u):
            cdf = np.cumsum(row) / row.sum()
            last = max(i for i, v in enumerate(row) if v > 0)
            cdf[last:] = 1.0
            out.append([next(i for i, c in enumerate(cdf) if c > x) for x in us])
    else:
        u = g.random(rows.shape)
        for row, us in zip(rows, u):
            keys = [(row[i] / -np.log1p(-us[i]) if row[i] > 0 else 0.0, -i)
                    for i in range(len(row))]
            out.append([-k[1] for k in sorted(keys, reverse=True)[:n]])
    out = np.asarray(out, np.int64)
    return out if np.ndim(p) == 2 else out[0]


@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial_follows_the_rule(replacement):
    p = np.array([[0.1, 0.0, 2.0, 0.5, 0.0], [1.0, 1.0, 1.0, 0.0, 3.0]], np.float32)
    n = 7 if replacement else 5
    got = torch.multinomial(torch.from_numpy(p), n, replacement,
                            generator=torch.Generator().manual_seed(11))
    assert got.dtype is torch.int64 and tuple(got.shape) == (2, n)
    assert got.tolist() == _multinomial_rule(p, n, replacement, 11).tolist()
    one = torch.from_numpy(p[1]).multinomial(3, replacement,
                                             generator=torch.Generator().manual_seed(4))
    assert one.tolist() == _multinomial_rule(p[1], 3, replacement, 4).tolist()


def test_multinomial_distributions():
    p = np.array([0.1, 0.0, 0.6, 0.3])
    torch.manual_seed(0)
    draws = torch.multinomial(torch.from_numpy(p), 20000, True).numpy()
    freq = np.bincount(draws, minlength=4) / draws.size
    assert freq[1] == 0  # a zero-probability category is never drawn with replacement
    assert np.allclose(freq, p, atol=0.015)
    # without replacement, the first draw follows p and no row repeats a category
    rows = torch.multinomial(torch.from_numpy(np.tile(p, (20000, 1))), 3).numpy()
    assert all(len(set(r)) == 3 for r in rows[:500])
    first = np.bincount(rows[:, 0], minlength=4) / len(rows)
    assert np.allclose(first, p, atol=0.015)
    assert not np.any(rows[:, :3] == 1)  # zeros come only after every positive category


def test_bernoulli_distribution_and_stream_consumption():
    torch.manual_seed(0)
    x = torch.bernoulli(torch.full((100000,), 0.3))
    assert abs(float(x.mean()) - 0.3) < 0.01
    # one uniform per element: the stream advances exactly like rand() of the same size
    torch.manual_seed(1)
    torch.bernoulli(torch.full((7,), 0.5))
    a = torch.rand(3)
    torch.manual_seed(1)
    torch.rand(7)
    assert np.array_equal(a.numpy(), torch.rand(3).numpy())


def test_bernoulli_gradient_is_zero_like_torch():
    p = torch.tensor([0.2, 0.9], requires_grad=True)
    y = torch.bernoulli(p)
    assert y.grad_fn is not None and y.grad_fn.name() == "BernoulliBackward0"
    (y * 3).sum().backward()
    assert p.grad.tolist() == [0.0, 0.0]


def test_out_forms():
    out = torch.empty(3)
    r = torch.bernoulli(torch.full((3,), 1.0), out=out)
    assert r is out and out.tolist() == [1.0, 1.0, 1.0]
    o2 = torch.empty(2, dtype=torch.int64)
    torch.multinomial(torch.tensor([0.0, 1.0]), 2, True, out=o2)
    assert o2.tolist() == [1, 1]


# ----- random ops in the RNG modes ---------------------------------------------------------------
def test_device_context_seeds_each_sampling_op_from_one_global_draw(tmp_path):
    from minitorch_cs.core.rng import draw_seed
    backend = cstorch.backend("CPU", artifact_dir=tmp_path)
    p = torch.tensor([0.2, 0.5, 0.9, 0.0])
    torch.manual_seed(123)
    with backend.device:
        a = torch.bernoulli(p)
        b = torch.multinomial(torch.tensor([1.0, 2.0, 3.0]), 4, True)
    torch.manual_seed(123)
    s1, s2 = draw_seed(), draw_seed()
    want_a = (_pcg(s1).random(4, dtype=np.float32) < p.numpy()).astype(np.float32)
    assert np.array_equal(a.numpy(), want_a)
    assert b.tolist() == _multinomial_rule([1.0, 2.0, 3.0], 4, True, s2).tolist()
    assert s1 < sys.maxsize


# ----- torch's call forms and errors -------------------------------------------------------------
def _err(ns, f):
    try:
        f(ns)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e).__name__, str(e)
    return None, None


ERRORS = [
    ("p>1", lambda ns: ns.bernoulli(ns.tensor([0.5, 1.5]))),
    ("p-nan", lambda ns: ns.bernoulli(ns.tensor([0.5, float("nan")]))),
    ("int-input", lambda ns: ns.bernoulli(ns.tensor([1, 0]))),
    ("scalar-p-range", lambda ns: ns.bernoulli(ns.tensor([0.5]), 1.5)),
    ("tensor-as-p", lambda ns: ns.bernoulli(ns.tensor([0.5]), ns.tensor([0.5]))),
    ("inplace-range", lambda ns: ns.ones(2).bernoulli_(2.0)),
    ("inplace-tensor-range", lambda ns: ns.zeros(3).bernoulli_(ns.tensor([0.5, 2.0, 0.1]))),
    ("inplace-tensor-shape", lambda ns: ns.zeros(3).bernoulli_(ns.tensor([0.5, 0.1]))),
    ("mn-int", lambda ns: ns.multinomial(ns.tensor([1, 2]), 1)),
    ("mn-too-many", lambda ns: ns.multinomial(ns.tensor([1.0, 2.0]), 3)),
    ("mn-zero", lambda ns: ns.multinomial(ns.tensor([1.0, 2.0]), 0)),
    ("mn-negative", lambda ns: ns.multinomial(ns.tensor([1.0, -2.0]), 1)),
    ("mn-sum-zero", lambda ns: ns.multinomial(ns.tensor([0.0, 0.0]), 1)),
    ("mn-nan", lambda ns: ns.multinomial(ns.tensor([1.0, float("nan")]), 1)),
    ("mn-inf", lambda ns: ns.multinomial(ns.tensor([1.0, float("inf")]), 1)),
    ("mn-3d", lambda ns: ns.multinomial(ns.ones(2, 2, 2), 1)),
    ("mn-0d", lambda ns: ns.multinomial(ns.ones(()), 1)),
]


@pytest.mark.parametrize("name, f", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(name, f):
    T = pytest.importorskip("torch")
    ours, theirs = _err(torch, f), _err(T, f)
    assert theirs[0] is not None
    assert ours == theirs


def test_shapes_and_dtypes_match_torch():
    T = pytest.importorskip("torch")
    for make in (lambda ns: ns.bernoulli(ns.full((2, 3), 0.5, dtype=ns.float16)),
                 lambda ns: ns.bernoulli(ns.full((2, 3), 0.5, dtype=ns.float64)),
                 lambda ns: ns.rand(3).bernoulli(0.3),
                 lambda ns: ns.zeros(2, 2, dtype=ns.int32).bernoulli_(0.5),
                 lambda ns: ns.multinomial(ns.ones(3, dtype=ns.float64), 2),
                 lambda ns: ns.multinomial(ns.ones(0, 3), 2),
                 lambda ns: ns.multinomial(ns.ones(4, 5), 7, replacement=True)):
        a, b = make(torch), make(T)
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype) == str(b.dtype)
