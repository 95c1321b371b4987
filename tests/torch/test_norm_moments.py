"""Layer and group norm statistics in torch's order of float32 operations.

The row moments follow torch's vectorized Welford cascade (``_kernels/moments.py``): checked
here against a float64 reference and for the overflow rule without torch, and bit for bit
against torch 2.13 when it is installed.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minitorch_cs.torch as mt
from minitorch_cs.torch._kernels.moments import fma32, row_moments32

F = mt.nn.functional

# row lengths that reach every part of the cascade: the tail alone (< 8), one partial block,
# whole blocks of 16 vectors, a binary-counter carry (3, 4, 5 blocks) and the final fold
LENGTHS = [1, 3, 7, 8, 9, 15, 16, 17, 127, 128, 129, 300, 384, 513, 640, 1000, 2049]


def _rows(n, seed, scale=3.0, offset=1.0, rows=24):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((rows, n)) * scale + offset).astype(np.float32)


@pytest.mark.parametrize("n", LENGTHS)
def test_row_moments_close_to_float64(n):
    x = _rows(n, n)
    mean, var = row_moments32(x)
    assert mean.dtype == var.dtype == np.float32 and mean.shape == var.shape == (24,)
    ref = x.astype(np.float64)
    np.testing.assert_allclose(mean, ref.mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var, ref.var(1), rtol=1e-5)


@given(st.lists(st.floats(-1e6, 1e6, width=32), min_size=1, max_size=300))
@settings(max_examples=60, deadline=None)
def test_row_moments_of_any_row(values):
    x = np.array([values], np.float32)
    mean, var = row_moments32(x)
    ref = x.astype(np.float64)
    spread = float(np.abs(ref - ref.mean()).max())
    assert abs(float(mean[0]) - ref.mean()) <= 1e-5 * max(1.0, float(np.abs(ref).max()))
    assert abs(float(var[0]) - ref.var()) <= 1e-4 * max(1.0, spread) ** 2


@pytest.mark.parametrize("n", [1, 5, 16, 300])
def test_equal_values_have_exact_moments(n):
    # Welford's update only sees differences: a row of one repeated large value has that
    # value as its mean and no variance (its sum of squares would overflow float32)
    x = np.full((2, n), 1e19, np.float32)
    x[1] = -1.5
    mean, var = row_moments32(x)
    np.testing.assert_array_equal(mean, x[:, 0])
    np.testing.assert_array_equal(var, [0, 0])


def test_overflowing_differences_give_nan_rows():
    # a difference beyond float32's range, or a partial mean whose square overflows when a lane
    # is merged into the empty state (|mean| from about 1.8e19), makes the whole row NaN; rows
    # without such values are untouched
    rows = [[3e38, -3e38, 1.0, 2.0], [2e19] * 4, [1e19] * 4, [-3e19, 1.0, 2.0, 4.0]]
    y = F.layer_norm(mt.tensor(rows), (4,)).numpy()
    assert np.isnan(y[0]).all() and np.isnan(y[1]).all()
    assert np.isfinite(y[2:]).all()
    np.testing.assert_array_equal(y[2], [0, 0, 0, 0])


def test_fma32_rounds_once():
    a, b = np.float32(1 + 2 ** -13), np.float32(1 - 2 ** -13)
    c = np.float32(-1)
    # a * b = 1 - 2**-26 exactly: rounded first (to 1.0) it would cancel to 0
    assert fma32(a, b, c) == np.float32(-(2.0 ** -26))
    assert a * b + c == 0


def test_layer_norm_zero_comes_out_positive():
    x = mt.tensor([[1.0, 1.0, 1.0, 1.0]])
    w = mt.tensor([-1.0, 1.0, 2.0, -2.0])
    for y in (F.layer_norm(x, (4,)), F.layer_norm(x, (4,), weight=w)):
        assert not np.signbit(y.numpy()).any()


# ----- against torch 2.13 -------------------------------------------------------------------------
def _both(torch, x):
    return torch.tensor(x), mt.tensor(x)


@pytest.mark.parametrize("n", LENGTHS)
def test_row_moments_bitwise_as_torch(n):
    torch = pytest.importorskip("torch")
    for scale, offset in ((3.0, 1.0), (1e-3, 5.0), (100.0, 1e4), (1e17, -3e17)):
        x = _rows(n, 100 + n, scale, offset)
        _, mean, rstd = torch.native_layer_norm(torch.tensor(x), (n,), None, None, 1e-5)
        got_mean, var = row_moments32(x)
        np.testing.assert_array_equal(got_mean, mean.numpy().ravel())
        np.testing.assert_array_equal(np.float32(1) / np.sqrt(var + np.float32(1e-5)),
                                      rstd.numpy().ravel())


def _affine(n, affine):
    rng = np.random.default_rng(n)
    w = rng.standard_normal(n).astype(np.float32) if affine in ("weight", "both") else None
    b = rng.standard_normal(n).astype(np.float32) if affine in ("bias", "both") else None
    return w, b


def _layer_norms(torch, x, n, w, b):
    want = torch.nn.functional.layer_norm(
        torch.tensor(x), (n,), None if w is None else torch.tensor(w),
        None if b is None else torch.tensor(b)).numpy()
    got = F.layer_norm(mt.tensor(x), (n,), None if w is None else mt.tensor(w),
                       None if b is None else mt.tensor(b)).numpy()
    return got, want


@pytest.mark.parametrize("affine", ["none", "weight", "bias", "both"])
@pytest.mark.parametrize("n", LENGTHS)
def test_layer_norm_float32_as_torch(n, affine):
    torch = pytest.importorskip("torch")
    w, b = _affine(n, affine)
    # ordinary rows: a two-pass mean and variance, torch's values to float32 rounding
    x = _rows(n, 100 + n, scale=[3.0, 1e-3, 100.0][n % 3], offset=[1.0, 5.0, 1e4][n % 3])
    got, want = _layer_norms(torch, x, n, w, b)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-5)
    # rows large enough to overflow somewhere in torch's moments, and rows whose mean dwarfs
    # their spread (a last-bit difference of the mean would show), take its cascade: its bits
    for scale, offset in ((4e18, [0.0, 1e19, -2e19][n % 3]), (1e-3, 5.0), (0.5, -100.0)):
        got, want = _layer_norms(torch, _rows(n, 200 + n, scale, offset), n, w, b)
        np.testing.assert_array_equal(got, want)
        assert np.array_equal(np.signbit(got), np.signbit(want))


def test_layer_norm_overflow_rows_as_torch():
    torch = pytest.importorskip("torch")
    rows = [[3e38, -3e38, 1.0, 2.0], [2e19] * 4, [1e19] * 4, [3e38] * 4, [1e30, 1e30, -1e30, 5],
            [2e38, 1e38, -1e38, 0.0], [float("inf"), 1.0, 2.0, 3.0], [float("nan"), 1, 2, 3],
            [0.5, -1.0, 2.0, 0.25]]
    for n in (4, 16, 260):
        x = np.array([r * (n // 4) for r in rows], np.float32)
        got, want = _layer_norms(torch, x, n, None, None)
        np.testing.assert_array_equal(got[:-1], want[:-1])
        np.testing.assert_allclose(got[-1], want[-1], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shape,normalized", [((2, 3, 40), (40,)), ((4, 5, 6), (5, 6)),
                                              ((3, 2, 4, 9), (2, 4, 9))])
def test_layer_norm_multi_dim_and_strided_as_torch(shape, normalized):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(shape))
    x = (rng.standard_normal(shape) * 2 - 1).astype(np.float32)
    x.reshape(-1)[::7] *= np.float32(1e19)  # some rows take torch's cascade
    t, m = _both(torch, x)
    np.testing.assert_allclose(F.layer_norm(m, normalized).numpy(),
                               torch.nn.functional.layer_norm(t, normalized).numpy(),
                               rtol=1e-5, atol=2e-5)
    # a transposed (non-contiguous) input normalizes its logical rows
    tt, mm = t.transpose(0, -1), m.transpose(0, -1)
    last = (tt.shape[-1],)
    np.testing.assert_allclose(F.layer_norm(mm, last).numpy(),
                               torch.nn.functional.layer_norm(tt, last).numpy(),
                               rtol=1e-5, atol=2e-5)


@pytest.mark.parametrize("shape,groups", [((4, 6, 5, 5), 3), ((2, 8, 40), 2), ((3, 4, 7, 9), 4),
                                          ((2, 16, 12, 12), 4)])
def test_group_norm_as_torch(shape, groups):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(groups)
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    x[0, :shape[1] // groups] *= np.float32(2e19)  # the first group of the first sample
    t, m = _both(torch, x)
    want = torch.nn.functional.group_norm(t, groups).numpy()
    got = F.group_norm(m, groups).numpy()
    np.testing.assert_array_equal(got[0, :shape[1] // groups], want[0, :shape[1] // groups])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-5)
    w = rng.standard_normal(shape[1]).astype(np.float32)
    b = rng.standard_normal(shape[1]).astype(np.float32)
    np.testing.assert_allclose(
        F.group_norm(m, groups, mt.tensor(w), mt.tensor(b)).numpy(),
        torch.nn.functional.group_norm(t, groups, torch.tensor(w), torch.tensor(b)).numpy(),
        rtol=1e-5, atol=2e-5)


def test_float64_overflow_rows_as_torch():
    """float64 rows take torch's cascade (4 lanes) where it could overflow: NaN where torch's
    is (the square of a lane's mean from about 1.3e154), finite elsewhere."""
    torch = pytest.importorskip("torch")
    rows = [[1e300, -1e300, 1, 2], [2e154] * 4, [1e154] * 4, [1e300] * 4,
            [1e200, 1e200, -1e200, 5], [float("inf"), 1, 2, 3], [0.5, -1, 2, 0.25]]
    for n in (4, 8, 13):
        x = np.array([r * (n // 4) + [0.0] * (n % 4) for r in rows])
        want = torch.nn.functional.layer_norm(torch.tensor(x), (n,)).numpy()
        got = F.layer_norm(mt.tensor(x), (n,)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)
        g = np.array([[6e161] * 8])
        np.testing.assert_array_equal(
            F.group_norm(mt.tensor(g.reshape(1, 4, 2)), 2).numpy(),
            torch.nn.functional.group_norm(torch.tensor(g.reshape(1, 4, 2)), 2).numpy())
