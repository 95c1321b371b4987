"""Half-precision kernels against PyTorch, bit for bit, on small tensors (torch's scalar loop):
which kernels round every operation to the half dtype (c10's Half/BFloat16 arithmetic) and
which compute in float32 and round once, as measured on torch 2.13."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs.torch as ours

CASES = {
    # name: (function, input domains); every input requires grad unless marked
    "rsqrt": (lambda T, x: T.rsqrt(x), [(0.05, 4)]),
    "asin": (lambda T, x: T.asin(x), [(-0.95, 0.95)]),
    "acos": (lambda T, x: T.acos(x), [(-0.95, 0.95)]),
    "asinh": (lambda T, x: T.asinh(x), [(-3, 3)]),
    "acosh": (lambda T, x: T.acosh(x), [(1.05, 4)]),
    "hardsigmoid": (lambda T, x: T.nn.functional.hardsigmoid(x), [(-4, 4)]),
    "smooth_l1": (lambda T, x, t: T.nn.functional.smooth_l1_loss(x, t, reduction="none",
                                                                  beta=0.7),
                  [(-2, 2), (-2, 2)]),
    "huber_forward": (lambda T, x, t: T.nn.functional.huber_loss(x.detach(), t.detach(),
                                                                 reduction="none", delta=0.7)
                      + x * 0 + t * 0, [(-2, 2), (-2, 2)]),
    "binary_cross_entropy": (lambda T, x, t: T.nn.functional.binary_cross_entropy(
        x, t, reduction="none"), [(0.01, 0.99), (0, 1)]),
    "bce_with_logits_mean": (lambda T, x, t: T.nn.functional.binary_cross_entropy_with_logits(
        x, t.sigmoid()).expand(6), [(-3, 3), (-3, 3)]),
    "addcmul": (lambda T, a, b, c: T.addcmul(a, b, c, value=0.7), [(-3, 3)] * 3),
    "addcdiv": (lambda T, a, b, c: T.addcdiv(a, b, c.abs() + 0.5, value=0.7), [(-3, 3)] * 3),
}


def _run(T, fn, arrays, g, dtype):
    dt = getattr(T, dtype)
    xs = [T.tensor(a, dtype=T.float32).to(dt).requires_grad_() for a in arrays]
    y = fn(T, *xs)
    y.backward(T.tensor(g, dtype=T.float32).to(dt))
    return [np.array(y.float().tolist())] + [np.array(x.grad.float().tolist()) for x in xs]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_half_kernels_round_as_torchs(name, dtype):
    torch = pytest.importorskip("torch")
    fn, domains = CASES[name]
    rng = np.random.default_rng(11)
    for trial in range(20):
        arrays = [rng.uniform(lo, hi, 6) for lo, hi in domains]
        g = rng.standard_normal(6)
        want = _run(torch, fn, arrays, g, dtype)
        got = _run(ours, fn, arrays, g, dtype)
        for i, (w, o) in enumerate(zip(want, got)):
            assert np.array_equal(w, o, equal_nan=True), \
                f"{name} {dtype} trial {trial}: {'output' if i == 0 else f'grad {i}'} {o} != {w}"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("n,step", [(31, 1), (32, 1), (100, 1), (130, 1), (100, 2)])
def test_rsqrt_follows_torchs_vector_and_scalar_loops(dtype, n, step):
    """The vector loop rounds ``1 / sqrt(x)`` once, the scalar loop (the last ``n mod 32`` of a
    contiguous loop on an AVX2 CPU; all of a strided one) rounds the square root first."""
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(n).uniform(0.05, 4, n * step)
    want = torch.tensor(x, dtype=getattr(torch, dtype))[::step].rsqrt().float().numpy()
    got = np.array(ours.tensor(x, dtype=getattr(ours, dtype))[::step].rsqrt().float().tolist())
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("pool", [
    lambda T, x: T.nn.functional.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
    lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, (3, 5)),
    lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, (10, 9)),
], ids=["avg_pool2d", "adaptive", "adaptive_up"])
def test_average_pool_gradients_accumulate_in_the_half_dtype(pool, dtype):
    """torch's pooling backward adds each share into the input gradient in the half dtype's
    arithmetic (every share and every sum rounded to it); its forward sums in float32."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    x, g = rng.standard_normal((1, 2, 8, 8)), None
    res = []
    for T in (torch, ours):
        xt = T.tensor(x, dtype=T.float32).to(getattr(T, dtype)).requires_grad_()
        y = pool(T, xt)
        if g is None:
            g = rng.standard_normal(tuple(y.shape))
        y.backward(T.tensor(g, dtype=T.float32).to(getattr(T, dtype)))
        res.append((np.array(y.float().tolist()), np.array(xt.grad.float().tolist())))
    np.testing.assert_array_equal(res[1][0], res[0][0])
    np.testing.assert_array_equal(res[1][1], res[0][1])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_group_norm_of_equal_values_is_exactly_zero_in_half_precision(dtype):
    """torch's group-norm kernel rounds ``x * rstd`` before adding ``-mean * rstd`` (its layer
    norm fuses the two, leaving a rounding residue): equal values normalize to 0 exactly."""
    torch = pytest.importorskip("torch")
    x = np.full((2, 4, 3), -2.217, np.float32)
    want = torch.nn.functional.group_norm(torch.tensor(x).to(getattr(torch, dtype)), 2)
    got = ours.nn.functional.group_norm(ours.tensor(x).to(getattr(ours, dtype)), 2)
    np.testing.assert_array_equal(np.array(got.float().tolist()), want.float().numpy())
    assert not np.array(got.float().tolist()).any()


def test_log_softmax_last_dim_keeps_its_sum_and_log_in_half():
    """torch's half-precision log_softmax along the last dim rounds the sum of exponentials,
    then its log, to the half dtype before subtracting in float32 (over another dim all stays
    float32): the largest logit's log-probability can be exactly 0 (seed 40 campaign: a
    cross-entropy with an infinite target probability is then NaN, not inf)."""
    from minitorch_cs import torch as mt
    x = mt.tensor([6.0, -4.0], dtype=mt.float16)
    assert mt.log_softmax(x, 0).tolist() == [0.0, -10.0]
    assert mt.log_softmax(x.reshape(2, 1), 0).tolist() == [[-4.5418739318847656e-05], [-10.0]]
    t = mt.tensor([float("inf"), 2.092], dtype=mt.float16)
    assert mt.isnan(mt.nn.functional.cross_entropy(x, t, reduction="none"))


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_log_softmax_and_cross_entropy_half_bits_as_torch(dt):
    torch = pytest.importorskip("torch")
    from minitorch_cs import torch as mt
    rng = np.random.default_rng(7)
    for shape, dim in [((50, 7), -1), ((50, 7), 0), ((4, 30, 5), 1), ((200, 3), -1), ((9,), 0),
                       ((3, 4, 40), 2)]:
        x = (rng.standard_normal(shape) * 6).astype(np.float32)
        want = torch.log_softmax(torch.tensor(x).to(getattr(torch, dt)), dim).float().numpy()
        got = mt.log_softmax(mt.tensor(x).to(getattr(mt, dt)), dim).float().numpy()
        np.testing.assert_array_equal(got, want)
        if len(shape) == 2:
            target = rng.integers(0, shape[1], shape[0])
            want = torch.nn.functional.cross_entropy(torch.tensor(x).to(getattr(torch, dt)),
                                                     torch.tensor(target), reduction="none")
            got = mt.nn.functional.cross_entropy(mt.tensor(x).to(getattr(mt, dt)),
                                                 mt.tensor(target), reduction="none")
            np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_softmax_family_half_values_and_gradients_over_every_dim(dt):
    """softmax over an inner dim stores exp(x - max) in the half output before scaling it;
    log_softmax's backward sums a half gradient in float32. 150 random cases per dtype (shapes,
    dims, gradients: about 17,000 values); numpy's float32 exp and summation order may still
    flip a rounding (an ulp of float32 apart from torch's): at most 6 values in all, each one
    half-precision step apart. (Before the two rules: 296 of 600 gradients differed.)"""
    real = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    diffs = []
    for trial in range(150):
        shape = [(3,), (2, 5), (4, 3, 6), (2, 17), (3, 7, 2)][trial % 5]
        dim = int(rng.integers(-len(shape), len(shape)))
        x0 = (rng.standard_normal(shape) * 3).astype(np.float32)
        g0 = (rng.standard_normal(shape) * 50).astype(np.float32)
        for fn in ("softmax", "log_softmax"):
            got = []
            for T in (real, ours):
                x = T.tensor(x0).to(getattr(T, dt)).requires_grad_()
                y = getattr(T, fn)(x, dim)
                y.backward(T.tensor(g0).to(getattr(T, dt)))
                got.append((y.detach().float().numpy(), x.grad.float().numpy()))
            for want, have in zip(*got):
                bad = np.nonzero(want.view(np.uint32) != have.view(np.uint32))
                diffs += [(fn, shape, dim, want[bad], have[bad])] if bad[0].size else []
    assert sum(d[3].size for d in diffs) <= 6, diffs
    step = 2.0 ** -7 if dt == "bfloat16" else 2.0 ** -10
    for _, _, _, want, have in diffs:
        assert np.all(np.abs(want - have) <= step * np.maximum(np.abs(want), 1e-3) * 2)
