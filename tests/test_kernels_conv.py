"""Tests for minitorch_cs/torch/_kernels/conv.py.

* every forward is compared with a deliberately naive scalar-loop reference;
* every backward is compared with float64 central differences;
* if torch is importable, forward, gradients and error messages are compared
  with torch.nn.functional.
"""

import importlib.util
import math
import pathlib
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

_PATH = (pathlib.Path(__file__).resolve().parents[1]
         / "minitorch_cs" / "torch" / "_kernels" / "conv.py")


def _load():
    try:
        from minitorch_cs.torch._kernels import conv as mod  # noqa: PLC0415
        return mod
    except Exception:  # package __init__ not ready: load the file directly
        spec = importlib.util.spec_from_file_location("_minitorch_cs_kernels_conv", _PATH)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        return mod


K = _load()
P = importlib.import_module("minitorch_cs.torch._kernels.avgpool")

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


# ---------------------------------------------------------------------------
# naive references (scalar loops, straight from the definitions)
# ---------------------------------------------------------------------------

def naive_conv2d(x, w, stride, padding, dilation, groups):
    """padding: (top, bottom, left, right)."""
    N, C, H, W = x.shape
    O, Cg, kh, kw = w.shape
    sh, sw = stride
    dh, dw = dilation
    pt, pb, pl, pr = padding
    Ho = (H + pt + pb - dh * (kh - 1) - 1) // sh + 1
    Wo = (W + pl + pr - dw * (kw - 1) - 1) // sw + 1
    Og = O // groups
    y = np.zeros((N, O, Ho, Wo))
    for n in range(N):
        for o in range(O):
            g = o // Og
            for oh in range(Ho):
                for ow in range(Wo):
                    acc = 0.0
                    for c in range(Cg):
                        for i in range(kh):
                            for j in range(kw):
                                ih = oh * sh - pt + i * dh
                                iw = ow * sw - pl + j * dw
                                if 0 <= ih < H and 0 <= iw < W:
                                    acc += x[n, g * Cg + c, ih, iw] * w[o, c, i, j]
                    y[n, o, oh, ow] = acc
    return y


def naive_pool_out(size, k, p, s, d, ceil_mode):
    eff = d * (k - 1) + 1
    if ceil_mode:
        out = -(-(size + 2 * p - eff) // s) + 1
        if (out - 1) * s >= size + p:
            out -= 1
    else:
        out = (size + 2 * p - eff) // s + 1
    return out


def naive_max_pool2d(x, k, s, p, d, ceil_mode):
    N, C, H, W = x.shape
    Ho = naive_pool_out(H, k[0], p[0], s[0], d[0], ceil_mode)
    Wo = naive_pool_out(W, k[1], p[1], s[1], d[1], ceil_mode)
    y = np.zeros((N, C, Ho, Wo))
    idx = np.zeros((N, C, Ho, Wo), dtype=np.int64)
    for n in range(N):
        for c in range(C):
            for oh in range(Ho):
                for ow in range(Wo):
                    best, bi = -math.inf, None
                    for i in range(k[0]):
                        for j in range(k[1]):
                            ih = oh * s[0] - p[0] + i * d[0]
                            iw = ow * s[1] - p[1] + j * d[1]
                            if 0 <= ih < H and 0 <= iw < W:
                                if bi is None:
                                    bi = ih * W + iw
                                v = x[n, c, ih, iw]
                                if v > best or math.isnan(v):
                                    best, bi = v, ih * W + iw
                    y[n, c, oh, ow] = best
                    idx[n, c, oh, ow] = bi
    return y, idx


def naive_avg_pool2d(x, k, s, p, ceil_mode, count_include_pad, divisor_override):
    N, C, H, W = x.shape
    Ho = naive_pool_out(H, k[0], p[0], s[0], 1, ceil_mode)
    Wo = naive_pool_out(W, k[1], p[1], s[1], 1, ceil_mode)
    y = np.zeros((N, C, Ho, Wo))
    for n in range(N):
        for c in range(C):
            for oh in range(Ho):
                for ow in range(Wo):
                    h0, w0 = oh * s[0] - p[0], ow * s[1] - p[1]
                    # window clipped to the padded input (ceil_mode overhang excluded)
                    h1, w1 = min(h0 + k[0], H + p[0]), min(w0 + k[1], W + p[1])
                    total, cnt = 0.0, 0
                    for ih in range(h0, h1):
                        for iw in range(w0, w1):
                            if 0 <= ih < H and 0 <= iw < W:
                                total += x[n, c, ih, iw]
                                cnt += 1
                    if divisor_override is not None:
                        div = divisor_override
                    elif count_include_pad:
                        div = (h1 - h0) * (w1 - w0)
                    else:
                        div = cnt
                    y[n, c, oh, ow] = total / div
    return y


def naive_adaptive_avg_pool2d(x, out):
    N, C, H, W = x.shape
    oh_, ow_ = out
    y = np.zeros((N, C, oh_, ow_))
    for oh in range(oh_):
        hs, he = (oh * H) // oh_, -(-((oh + 1) * H) // oh_)
        for ow in range(ow_):
            ws, we = (ow * W) // ow_, -(-((ow + 1) * W) // ow_)
            for n in range(N):
                for c in range(C):
                    total = 0.0
                    for ih in range(hs, he):
                        for iw in range(ws, we):
                            total += x[n, c, ih, iw]
                    y[n, c, oh, ow] = total / ((he - hs) * (we - ws))
    return y


def numgrad(f, x, gy, eps=1e-6):
    """d<gy, f(x)>/dx by central differences, element by element (float64)."""
    x = x.astype(np.float64).copy()
    g = np.zeros_like(x)
    flat, gflat = x.reshape(-1), g.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        fp = np.vdot(gy, f(x))
        flat[i] = old - eps
        fm = np.vdot(gy, f(x))
        flat[i] = old
        gflat[i] = (fp - fm) / (2 * eps)
    return g


def same_pads(k, d):
    tot = d * (k - 1)
    return tot // 2, tot - tot // 2


# ---------------------------------------------------------------------------
# hypothesis strategies
# ---------------------------------------------------------------------------

@st.composite
def conv_cases(draw, max_hw=7):
    groups = draw(st.sampled_from([1, 1, 2, 3]))
    cg = draw(st.integers(1, 2))
    og = draw(st.integers(1, 2))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dh, dw = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    mode = draw(st.sampled_from(["int", "tuple", "same", "valid"]))
    if mode == "same":
        sh = sw = 1
        padding = "same"
        pads = same_pads(kh, dh) + same_pads(kw, dw)
    else:
        sh, sw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        if mode == "valid":
            padding, pads = "valid", (0, 0, 0, 0)
        elif mode == "int":
            p = draw(st.integers(0, 2))
            padding, pads = p, (p, p, p, p)
        else:
            ph, pw = draw(st.integers(0, 2)), draw(st.integers(0, 2))
            padding, pads = (ph, pw), (ph, ph, pw, pw)
    H = draw(st.integers(1, max_hw))
    W = draw(st.integers(1, max_hw))
    assume(H + pads[0] + pads[1] >= dh * (kh - 1) + 1)
    assume(W + pads[2] + pads[3] >= dw * (kw - 1) + 1)
    N = draw(st.integers(1, 2))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((N, groups * cg, H, W))
    w = rng.standard_normal((groups * og, cg, kh, kw))
    kwargs = dict(stride=(sh, sw), padding=padding, dilation=(dh, dw), groups=groups)
    return x, w, kwargs, pads, rng


def _all_padding_window(size, k, p, s, d, ceil_mode):
    out = naive_pool_out(size, k, p, s, d, ceil_mode)
    return any(all(not 0 <= o * s - p + i * d < size for i in range(k)) for o in range(out))


@st.composite
def maxpool_cases(draw):
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dh, dw = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    ph = draw(st.integers(0, min(kh // 2, (dh * (kh - 1) + 1) // 2)))
    pw = draw(st.integers(0, min(kw // 2, (dw * (kw - 1) + 1) // 2)))
    stride = draw(st.one_of(st.none(), st.tuples(st.integers(1, 3), st.integers(1, 3))))
    ceil_mode = draw(st.booleans())
    H, W = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    s = (kh, kw) if stride is None else stride
    assume(naive_pool_out(H, kh, ph, s[0], dh, ceil_mode) >= 1)
    assume(naive_pool_out(W, kw, pw, s[1], dw, ceil_mode) >= 1)
    # windows lying entirely in the padding are degenerate (tested separately)
    assume(not _all_padding_window(H, kh, ph, s[0], dh, ceil_mode))
    assume(not _all_padding_window(W, kw, pw, s[1], dw, ceil_mode))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    N, C = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    # distinct values spaced >= 1e-3 apart: no ties, finite differences are safe
    x = rng.permutation(N * C * H * W).reshape(N, C, H, W) * 1e-3 + rng.uniform(0, 1e-4)
    x = x - x.mean()
    kwargs = dict(kernel_size=(kh, kw), stride=stride, padding=(ph, pw),
                  dilation=(dh, dw), ceil_mode=ceil_mode)
    return x, kwargs, rng


@st.composite
def avgpool_cases(draw):
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    ph, pw = draw(st.integers(0, kh // 2)), draw(st.integers(0, kw // 2))
    stride = draw(st.one_of(st.none(), st.tuples(st.integers(1, 3), st.integers(1, 3))))
    ceil_mode = draw(st.booleans())
    cip = draw(st.booleans())
    div = draw(st.one_of(st.none(), st.integers(1, 5)))
    H, W = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    s = (kh, kw) if stride is None else stride
    assume(naive_pool_out(H, kh, ph, s[0], 1, ceil_mode) >= 1)
    assume(naive_pool_out(W, kw, pw, s[1], 1, ceil_mode) >= 1)
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    N, C = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    x = rng.standard_normal((N, C, H, W))
    kwargs = dict(kernel_size=(kh, kw), stride=stride, padding=(ph, pw), ceil_mode=ceil_mode,
                  count_include_pad=cip, divisor_override=div)
    return x, kwargs, rng


@st.composite
def adaptive_cases(draw):
    H, W = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    oh, ow = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    N, C = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    return rng.standard_normal((N, C, H, W)), (oh, ow), rng


# ---------------------------------------------------------------------------
# conv2d / conv1d vs naive and finite differences
# ---------------------------------------------------------------------------

@SETTINGS
@given(conv_cases())
def test_conv2d_forward_matches_naive(case):
    x, w, kw, pads, _ = case
    y = K.conv2d_forward(x, w, **kw)
    ref = naive_conv2d(x, w, kw["stride"], pads, kw["dilation"], kw["groups"])
    assert y.shape == ref.shape
    np.testing.assert_allclose(y, ref, rtol=1e-10, atol=1e-10)


@SETTINGS
@given(conv_cases(max_hw=5))
def test_conv2d_backward_matches_finite_differences(case):
    x, w, kw, _, rng = case
    y = K.conv2d_forward(x, w, **kw)
    gy = rng.standard_normal(y.shape)
    gx = K.conv2d_backward_input(gy, w, x.shape, **kw)
    gw = K.conv2d_backward_weight(gy, x, w.shape, **kw)
    assert gx.shape == x.shape and gw.shape == w.shape
    np.testing.assert_allclose(gx, numgrad(lambda a: K.conv2d_forward(a, w, **kw), x, gy),
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(gw, numgrad(lambda a: K.conv2d_forward(x, a, **kw), w, gy),
                               rtol=1e-6, atol=1e-6)


@SETTINGS
@given(conv_cases())
def test_conv1d_forward_and_backward(case):
    x4, w4, kw, pads, rng = case
    x, w = x4[:, :, 0, :], w4[:, :, 0, :]
    kw1 = dict(stride=kw["stride"][1], dilation=kw["dilation"][1], groups=kw["groups"],
               padding=kw["padding"] if isinstance(kw["padding"], str) else pair(kw["padding"])[1])
    pl, pr = (same_pads(w.shape[2], kw1["dilation"]) if kw1["padding"] == "same"
              else (0, 0) if kw1["padding"] == "valid" else (kw1["padding"],) * 2)
    assume(x.shape[2] + pl + pr >= kw1["dilation"] * (w.shape[2] - 1) + 1)
    y = K.conv1d_forward(x, w, **kw1)
    ref = naive_conv2d(x[:, :, None], w[:, :, None], (1, kw1["stride"]), (0, 0, pl, pr),
                       (1, kw1["dilation"]), kw1["groups"])[:, :, 0]
    np.testing.assert_allclose(y, ref, rtol=1e-10, atol=1e-10)
    gy = rng.standard_normal(y.shape)
    gx = K.conv1d_backward_input(gy, w, x.shape, **kw1)
    gw = K.conv1d_backward_weight(gy, x, w.shape, **kw1)
    np.testing.assert_allclose(gx, numgrad(lambda a: K.conv1d_forward(a, w, **kw1), x, gy),
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(gw, numgrad(lambda a: K.conv1d_forward(x, a, **kw1), w, gy),
                               rtol=1e-6, atol=1e-6)


def test_conv2d_same_asymmetric_padding_goes_right_bottom():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 2, 5, 6))
    w = rng.standard_normal((3, 2, 2, 4))  # totals 1 and 3: extra on bottom/right
    y = K.conv2d_forward(x, w, padding="same")
    assert y.shape == (1, 3, 5, 6)
    np.testing.assert_allclose(y, naive_conv2d(x, w, (1, 1), (0, 1, 1, 2), (1, 1), 1),
                               atol=1e-12)
    y = K.conv2d_forward(x, w, padding="same", dilation=(2, 1))  # totals 2 and 3
    np.testing.assert_allclose(y, naive_conv2d(x, w, (1, 1), (1, 1, 1, 2), (2, 1), 1),
                               atol=1e-12)


def test_conv2d_unbatched_and_dtype():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 6, 7)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 3)).astype(np.float32)
    y = K.conv2d_forward(x, w, stride=2, padding=1, groups=2)
    assert y.dtype == np.float32 and y.shape == (6, 3, 4)
    ref = naive_conv2d(x[None].astype(np.float64), w.astype(np.float64), (2, 2), (1,) * 4,
                       (1, 1), 2)[0]
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
    gy = rng.standard_normal(y.shape).astype(np.float32)
    gx = K.conv2d_backward_input(gy, w, x.shape, 2, 1, 1, 2)
    gw = K.conv2d_backward_weight(gy, x, w.shape, 2, 1, 1, 2)
    assert gx.shape == x.shape and gx.dtype == np.float32
    assert gw.shape == w.shape and gw.dtype == np.float32
    x1 = x[:, 0, :]
    w1 = w[:, :, 0, :]
    y1 = K.conv1d_forward(x1, w1, groups=2)
    assert y1.shape == (6, 5) and y1.dtype == np.float32
    assert K.conv1d_backward_input(np.ones_like(y1), w1, x1.shape, groups=2).shape == x1.shape
    assert K.conv1d_backward_weight(np.ones_like(y1), x1, w1.shape, groups=2).shape == w1.shape


def test_conv2d_empty_batch():
    y = K.conv2d_forward(np.zeros((0, 4, 8, 8)), np.zeros((5, 4, 3, 3)))
    assert y.shape == (0, 5, 6, 6)
    assert K.conv2d_backward_weight(np.zeros((0, 5, 6, 6)), np.zeros((0, 4, 8, 8)),
                                    (5, 4, 3, 3)).shape == (5, 4, 3, 3)
    assert K.conv2d_backward_input(np.zeros((0, 5, 6, 6)), np.zeros((5, 4, 3, 3)),
                                   (0, 4, 8, 8)).shape == (0, 4, 8, 8)


@pytest.mark.parametrize("x_shape,w_shape,kwargs,msg", [
    ((2, 4, 8, 8), (5, 3, 3, 3), {},
     "Given groups=1, weight of size [5, 3, 3, 3], expected input[2, 4, 8, 8] to have 3 "
     "channels, but got 4 channels instead"),
    ((4, 8, 8), (5, 3, 3, 3), {},
     "Given groups=1, weight of size [5, 3, 3, 3], expected input[1, 4, 8, 8] to have 3 "
     "channels, but got 4 channels instead"),
    ((2, 4, 8, 8), (6, 2, 3, 3), {"groups": 3},
     "Given groups=3, weight of size [6, 2, 3, 3], expected input[2, 4, 8, 8] to have 6 "
     "channels, but got 4 channels instead"),
    ((2, 4, 8, 8), (5, 2, 3, 3), {"groups": 2},
     "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight "
     "of size [[5, 2, 3, 3]] instead"),
    ((8, 8), (5, 4, 3, 3), {},
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [8, 8]"),
    ((1, 2, 4, 8, 8), (5, 4, 3, 3), {},
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
     "[1, 2, 4, 8, 8]"),
    ((2, 4, 8, 8), (5, 4, 9, 9), {},
     "Calculated padded input size per channel: (8 x 8). Kernel size: (9 x 9). Kernel size "
     "can't be greater than actual input size"),
    ((2, 4, 8, 8), (5, 4, 3, 3), {"dilation": 4},
     "Calculated padded input size per channel: (8 x 8). Kernel size: (9 x 9). Kernel size "
     "can't be greater than actual input size"),
    ((2, 4, 8, 8), (5, 4, 3, 3), {"stride": 2, "padding": "same"},
     "padding='same' is not supported for strided convolutions"),
    ((2, 4, 8, 8), (5, 4, 3, 3), {"padding": "foo"}, "Invalid padding string: 'foo'"),
    ((2, 4, 8, 8), (5, 4, 3, 3), {"padding": -1}, "negative padding is not supported"),
    ((2, 4, 8, 8), (5, 4, 3, 3), {"stride": 0}, "non-positive stride is not supported"),
    ((2, 4, 8, 8), (5, 4, 3, 3), {"dilation": 0},
     "dilation should be greater than zero, but got [0, 0]"),
    ((2, 4, 8, 8), (5, 4, 3, 3), {"dilation": -1}, "dilation should be greater than zero"),
    ((2, 4, 8, 8), (5, 4, 3, 3), {"groups": 0}, "non-positive groups is not supported"),
    ((2, 4, 8, 8), (5, 4, 3, 3), {"stride": (1, 2, 3)},
     "expected stride to be a single integer value or a list of 2 values to match the "
     "convolution dimensions, but got stride=[1, 2, 3]"),
])
def test_conv2d_errors(x_shape, w_shape, kwargs, msg):
    with pytest.raises(RuntimeError) as e:
        K.conv2d_forward(np.zeros(x_shape), np.zeros(w_shape), **kwargs)
    assert str(e.value) == msg


def test_conv1d_errors():
    with pytest.raises(RuntimeError, match=r"Expected 2D \(unbatched\) or 3D \(batched\) "
                                           r"input to conv1d, but got input of size: "
                                           r"\[2, 4, 8, 8\]"):
        K.conv1d_forward(np.zeros((2, 4, 8, 8)), np.zeros((5, 4, 3)))
    with pytest.raises(RuntimeError) as e:
        K.conv1d_forward(np.zeros((4, 8)), np.zeros((5, 3, 3)))
    assert str(e.value) == ("Given groups=1, weight of size [5, 3, 3], expected input[1, 4, 8] "
                            "to have 3 channels, but got 4 channels instead")


# ---------------------------------------------------------------------------
# pooling vs naive and finite differences
# ---------------------------------------------------------------------------

@SETTINGS
@given(maxpool_cases())
def test_max_pool2d_matches_naive_and_finite_differences(case):
    x, kw, rng = case
    y, idx = K.max_pool2d_forward(x, **kw)
    s = kw["kernel_size"] if kw["stride"] is None else kw["stride"]
    ry, ridx = naive_max_pool2d(x, kw["kernel_size"], s, kw["padding"], kw["dilation"],
                                kw["ceil_mode"])
    assert y.shape == ry.shape and idx.dtype == np.int64
    np.testing.assert_array_equal(y, ry)
    np.testing.assert_array_equal(idx, ridx)
    gy = rng.standard_normal(y.shape)
    gx = K.max_pool2d_backward(gy, idx, x.shape)
    ng = numgrad(lambda a: K.max_pool2d_forward(a, **kw)[0], x, gy, eps=1e-5)
    np.testing.assert_allclose(gx, ng, rtol=1e-6, atol=1e-6)


def test_max_pool2d_ties_nan_and_neg_inf_like_torch():
    # ties: first maximum wins
    x = np.array([[[[1.0, 3.0, 3.0, 0.0], [3.0, 2.0, 3.0, 3.0]]]])
    y, idx = K.max_pool2d_forward(x, 2)
    np.testing.assert_array_equal(y, [[[[3.0, 3.0]]]])
    np.testing.assert_array_equal(idx, [[[[1, 2]]]])
    # NaN: result NaN, index of the last NaN (torch's `val > max || isnan(val)` rule)
    x = np.array([[[[np.nan, 1.0, np.nan, 2.0]]]])
    y, idx = K.max_pool2d_forward(x, (1, 4))
    assert np.isnan(y).all() and idx.item() == 2
    # all -inf with padding: the index is the first in-bounds element, never padding
    x = np.full((1, 1, 3, 3), -np.inf)
    y, idx = K.max_pool2d_forward(x, 2, stride=2, padding=1)
    np.testing.assert_array_equal(idx, [[[[0, 1], [3, 4]]]])
    # duplicated winners accumulate in the backward (overlapping windows)
    x = np.array([[[[0.0, 5.0, 0.0]]]])
    y, idx = K.max_pool2d_forward(x, (1, 2), stride=1)
    gx = K.max_pool2d_backward(np.array([[[[1.0, 2.0]]]]), idx, x.shape)
    np.testing.assert_array_equal(gx, [[[[0.0, 3.0, 0.0]]]])


def test_max_pool2d_unbatched_dtype_and_ceil():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 5, 5)).astype(np.float32)
    y, idx = K.max_pool2d_forward(x, 2, stride=2, ceil_mode=True)
    assert y.shape == (3, 3, 3) and y.dtype == np.float32
    ry, ridx = naive_max_pool2d(x[None].astype(np.float64), (2, 2), (2, 2), (0, 0), (1, 1), True)
    np.testing.assert_array_equal(y, ry[0].astype(np.float32))
    np.testing.assert_array_equal(idx, ridx[0])
    gx = K.max_pool2d_backward(np.ones_like(y), idx, x.shape)
    assert gx.shape == x.shape and gx.dtype == np.float32 and gx.sum() == 27
    # ceil_mode: rounds up, but the last window must start inside input + left padding
    # (4 + 2 - 2 + 2) // 3 + 1 = 3 windows, the third would start at 6 - 1 = 5 > 4: 2
    assert K.max_pool2d_forward(np.zeros((1, 1, 4, 4)), 2, stride=3, padding=1,
                                ceil_mode=True)[0].shape == (1, 1, 2, 2)
    assert P.avg_pool2d_forward(np.zeros((1, 1, 4, 4)), 2, stride=3, padding=1,
                                ceil_mode=True).shape == (1, 1, 2, 2)
    assert K.max_pool2d_forward(np.zeros((1, 1, 4, 4)), 2, stride=3, padding=0,
                                ceil_mode=True)[0].shape == (1, 1, 2, 2)
    assert K.max_pool2d_forward(np.zeros((1, 1, 4, 4)), 2, stride=3, padding=0,
                                ceil_mode=False)[0].shape == (1, 1, 1, 1)


def test_max_pool2d_window_entirely_in_padding():
    # W=1, kernel 2, dilation 2, padding 1: the window covers columns -1 and 1, both
    # outside. torch reports -inf and the index ih*W + 1 (column 1 of a 1-wide row, i.e.
    # the next row, or past the plane for the last row); we return the same indices.
    # The backward follows the in-plane ones like torch and drops the out-of-plane one
    # (torch's CPU backward writes that one into the next plane).
    x = np.arange(3.0).reshape(1, 1, 3, 1)
    y, idx = K.max_pool2d_forward(x, (1, 2), stride=(2, 1), padding=(0, 1), dilation=(2, 2))
    assert y.shape == (1, 1, 2, 1) and np.all(y == -np.inf)
    np.testing.assert_array_equal(idx, [[[[1], [3]]]])
    gx = K.max_pool2d_backward(np.array([[[[1.0], [2.0]]]]), idx, x.shape)
    np.testing.assert_array_equal(gx, [[[[0.0], [1.0], [0.0]]]])


@SETTINGS
@given(avgpool_cases())
def test_avg_pool2d_matches_naive_and_finite_differences(case):
    x, kw, rng = case
    y = P.avg_pool2d_forward(x, **kw)
    s = kw["kernel_size"] if kw["stride"] is None else kw["stride"]
    ref = naive_avg_pool2d(x, kw["kernel_size"], s, kw["padding"], kw["ceil_mode"],
                           kw["count_include_pad"], kw["divisor_override"])
    assert y.shape == ref.shape
    np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-12)
    gy = rng.standard_normal(y.shape)
    gx = P.avg_pool2d_backward(gy, x.shape, **kw)
    np.testing.assert_allclose(gx, numgrad(lambda a: P.avg_pool2d_forward(a, **kw), x, gy),
                               rtol=1e-6, atol=1e-6)


def test_avg_pool2d_unbatched_dtype():
    x = np.arange(2 * 5 * 5, dtype=np.float32).reshape(2, 5, 5)
    y = P.avg_pool2d_forward(x, 3, stride=2, padding=1, ceil_mode=True,
                             count_include_pad=False)
    assert y.shape == (2, 3, 3) and y.dtype == np.float32
    ref = naive_avg_pool2d(x[None].astype(np.float64), (3, 3), (2, 2), (1, 1), True, False,
                           None)[0]
    np.testing.assert_allclose(y, ref, rtol=1e-6)
    gx = P.avg_pool2d_backward(np.ones_like(y), x.shape, 3, stride=2, padding=1,
                               ceil_mode=True, count_include_pad=False)
    assert gx.shape == x.shape and gx.dtype == np.float32


@SETTINGS
@given(adaptive_cases())
def test_adaptive_avg_pool2d_matches_naive_and_finite_differences(case):
    x, out, rng = case
    y = P.adaptive_avg_pool2d_forward(x, out)
    np.testing.assert_allclose(y, naive_adaptive_avg_pool2d(x, out), rtol=1e-12, atol=1e-12)
    gy = rng.standard_normal(y.shape)
    gx = P.adaptive_avg_pool2d_backward(gy, x.shape, out)
    np.testing.assert_allclose(gx, numgrad(lambda a: P.adaptive_avg_pool2d_forward(a, out),
                                           x, gy), rtol=1e-6, atol=1e-6)


def test_adaptive_avg_pool2d_variants():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 7, 5)).astype(np.float32)
    y = P.adaptive_avg_pool2d_forward(x, 1)
    assert y.shape == (3, 1, 1) and y.dtype == np.float32
    np.testing.assert_allclose(y[:, 0, 0], x.mean(axis=(1, 2)), rtol=1e-5)
    y = P.adaptive_avg_pool2d_forward(x, (None, 3))
    assert y.shape == (3, 7, 3)
    np.testing.assert_allclose(y, naive_adaptive_avg_pool2d(x[None], (7, 3))[0], rtol=1e-5,
                               atol=1e-6)
    gx = P.adaptive_avg_pool2d_backward(np.ones((3, 7, 3), np.float32), x.shape, (None, 3))
    assert gx.shape == x.shape and gx.dtype == np.float32
    assert P.adaptive_avg_pool2d_forward(np.zeros((2, 3, 4, 4)), 0).shape == (2, 3, 0, 0)


@pytest.mark.parametrize("fn,args,msg", [
    ("max", dict(kernel_size=3, padding=2),
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and "
     "dilation=1"),
    ("max", dict(kernel_size=3, padding=2, dilation=2),
     "pad should be smaller than or equal to half of kernel size, but got padW = 2, "
     "padH = 2, kW = 3, kH = 3"),
    ("max", dict(kernel_size=9),
     "Given input size: (4x8x8). Calculated output size: (4x0x0). Output size is too small"),
    ("max", dict(kernel_size=2, stride=0), "stride should not be zero"),
    ("max", dict(kernel_size=0, stride=1),
     "kernel size should be greater than zero, but got kH: 0 kW: 0"),
    ("max", dict(kernel_size=2, dilation=0),
     "dilation should be greater than zero, but got dilationH: 0 dilationW: 0"),
    ("max", dict(kernel_size=2, padding=-1), "pad must be non-negative, but got pad: -1"),
    ("max", dict(kernel_size=(2, 2, 2)),
     "max_pool2d: kernel_size must either be a single int, or a tuple of two ints"),
    ("avg", dict(kernel_size=3, padding=2),
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and "
     "dilation=1"),
    ("avg", dict(kernel_size=9),
     "Given input size: (4x8x8). Calculated output size: (4x0x0). Output size is too small"),
    ("avg", dict(kernel_size=2, divisor_override=0), "divisor must be not zero"),
])
def test_pool_errors(fn, args, msg):
    x = np.zeros((2, 4, 8, 8))
    f = K.max_pool2d_forward if fn == "max" else P.avg_pool2d_forward
    with pytest.raises(RuntimeError) as e:
        f(x, **args)
    assert str(e.value) == msg


def test_pool_input_rank_errors():
    with pytest.raises(RuntimeError, match="3D or 4D"):
        K.max_pool2d_forward(np.zeros((8, 8)), 2)
    with pytest.raises(RuntimeError, match="3D or 4D"):
        P.avg_pool2d_forward(np.zeros((8, 8)), 2)
    with pytest.raises(RuntimeError) as e:
        P.adaptive_avg_pool2d_forward(np.zeros((8, 8)), 2)
    assert str(e.value) == "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [8, 8]"
    with pytest.raises(RuntimeError, match="dimension 2 being empty"):
        P.adaptive_avg_pool2d_forward(np.zeros((2, 3, 0, 4)), 2)
    with pytest.raises(RuntimeError, match="output_size must be 2"):
        P.adaptive_avg_pool2d_forward(np.zeros((2, 3, 4, 4)), (2, 2, 2))


# ---------------------------------------------------------------------------
# against torch, when it is installed
# ---------------------------------------------------------------------------

def _torch():
    return pytest.importorskip("torch")


@SETTINGS
@given(conv_cases())
def test_conv2d_vs_torch(case):
    torch = _torch()
    import torch.nn.functional as F
    x, w, kw, _, rng = case
    xt = torch.tensor(x, requires_grad=True)
    wt = torch.tensor(w, requires_grad=True)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yt = F.conv2d(xt, wt, **kw)
    y = K.conv2d_forward(x, w, **kw)
    np.testing.assert_allclose(y, yt.detach().numpy(), rtol=1e-10, atol=1e-10)
    gy = rng.standard_normal(y.shape)
    yt.backward(torch.tensor(gy))
    np.testing.assert_allclose(K.conv2d_backward_input(gy, w, x.shape, **kw),
                               xt.grad.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(K.conv2d_backward_weight(gy, x, w.shape, **kw),
                               wt.grad.numpy(), rtol=1e-10, atol=1e-10)
    # float32 in, float32 out, close to torch's float32
    y32 = K.conv2d_forward(x.astype(np.float32), w.astype(np.float32), **kw)
    assert y32.dtype == np.float32
    np.testing.assert_allclose(y32, yt.detach().numpy(), rtol=1e-4, atol=1e-4)


@SETTINGS
@given(conv_cases())
def test_conv1d_vs_torch(case):
    torch = _torch()
    import torch.nn.functional as F
    x4, w4, kw, _, rng = case
    x, w = x4[:, :, 0, :], w4[:, :, 0, :]
    kw1 = dict(stride=kw["stride"][1], dilation=kw["dilation"][1], groups=kw["groups"],
               padding=kw["padding"] if isinstance(kw["padding"], str) else pair(kw["padding"])[1])
    xt = torch.tensor(x, requires_grad=True)
    wt = torch.tensor(w, requires_grad=True)
    try:
        yt = F.conv1d(xt, wt, **kw1)
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as e2:
            K.conv1d_forward(x, w, **kw1)
        assert str(e2.value) == str(e).split("\n")[0]
        return
    y = K.conv1d_forward(x, w, **kw1)
    np.testing.assert_allclose(y, yt.detach().numpy(), rtol=1e-10, atol=1e-10)
    gy = rng.standard_normal(y.shape)
    yt.backward(torch.tensor(gy))
    np.testing.assert_allclose(K.conv1d_backward_input(gy, w, x.shape, **kw1),
                               xt.grad.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(K.conv1d_backward_weight(gy, x, w.shape, **kw1),
                               wt.grad.numpy(), rtol=1e-10, atol=1e-10)


@SETTINGS
@given(maxpool_cases(), st.booleans())
def test_max_pool2d_vs_torch(case, rounded):
    torch = _torch()
    import torch.nn.functional as F
    x, kw, rng = case
    if rounded:  # many ties
        x = np.round(x * 300)
    xt = torch.tensor(x, requires_grad=True)
    yt, it = F.max_pool2d(xt, return_indices=True, **kw)
    y, idx = K.max_pool2d_forward(x, **kw)
    np.testing.assert_array_equal(y, yt.detach().numpy())
    np.testing.assert_array_equal(idx, it.numpy())
    gy = rng.standard_normal(y.shape)
    yt.backward(torch.tensor(gy))
    np.testing.assert_allclose(K.max_pool2d_backward(gy, idx, x.shape), xt.grad.numpy(),
                               rtol=1e-12, atol=1e-12)


@SETTINGS
@given(avgpool_cases())
def test_avg_pool2d_vs_torch(case):
    torch = _torch()
    import torch.nn.functional as F
    x, kw, rng = case
    xt = torch.tensor(x, requires_grad=True)
    yt = F.avg_pool2d(xt, **kw)
    y = P.avg_pool2d_forward(x, **kw)
    np.testing.assert_allclose(y, yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    gy = rng.standard_normal(y.shape)
    yt.backward(torch.tensor(gy))
    np.testing.assert_allclose(P.avg_pool2d_backward(gy, x.shape, **kw), xt.grad.numpy(),
                               rtol=1e-10, atol=1e-12)


@SETTINGS
@given(adaptive_cases())
def test_adaptive_avg_pool2d_vs_torch(case):
    torch = _torch()
    import torch.nn.functional as F
    x, out, rng = case
    xt = torch.tensor(x, requires_grad=True)
    yt = F.adaptive_avg_pool2d(xt, out)
    y = P.adaptive_avg_pool2d_forward(x, out)
    np.testing.assert_allclose(y, yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    gy = rng.standard_normal(y.shape)
    yt.backward(torch.tensor(gy))
    np.testing.assert_allclose(P.adaptive_avg_pool2d_backward(gy, x.shape, out),
                               xt.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_error_messages_vs_torch():
    torch = _torch()
    import torch.nn.functional as F
    rng = np.random.default_rng(7)
    cases = []
    for _ in range(300):
        H, W = (int(v) for v in rng.integers(1, 7, 2))
        k = tuple(int(v) for v in rng.integers(0, 5, 2))
        s = tuple(int(v) for v in rng.integers(0, 3, 2))
        p = tuple(int(v) for v in rng.integers(-1, 4, 2))
        d = tuple(int(v) for v in rng.integers(0, 3, 2))
        cases.append((H, W, k, s, p, d, bool(rng.integers(0, 2))))
    for H, W, k, s, p, d, cm in cases:
        x = rng.standard_normal((1, 2, H, W))
        for name in ("max", "avg", "conv"):
            if name == "max":
                tf = lambda: F.max_pool2d(torch.tensor(x), k, s, p, d, cm)  # noqa: E731
                kf = lambda: K.max_pool2d_forward(x, k, s, p, d, cm)  # noqa: E731
            elif name == "avg":
                tf = lambda: F.avg_pool2d(torch.tensor(x), k, s, p, cm)  # noqa: E731
                kf = lambda: P.avg_pool2d_forward(x, k, s, p, cm)  # noqa: E731
            else:
                wgt = rng.standard_normal((3, 2) + tuple(max(v, 1) for v in k))
                tf = lambda: F.conv2d(torch.tensor(x), torch.tensor(wgt), None, s, p, d)  # noqa
                kf = lambda: K.conv2d_forward(x, wgt, s, p, d)  # noqa: E731
            try:
                ref = tf()
            except RuntimeError as e:
                with pytest.raises(RuntimeError) as e2:
                    kf()
                assert str(e2.value) == str(e).split("\n")[0], (name, H, W, k, s, p, d, cm)
                continue
            out = kf()
            out = out[0] if isinstance(out, tuple) else out
            assert out.shape == tuple(ref.shape), (name, H, W, k, s, p, d, cm)
