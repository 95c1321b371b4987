"""F.conv3d and nn.Conv3d against torch 2.13: generated cases (batched and unbatched, stride,
padding ints / 'same' / 'valid', dilation, groups, bias), values and gradients of every input
(float64 to ~1e-12, float32 to rounding, float16/bfloat16 as torch's float32 accumulation),
integer dtypes, layouts, non-finite weights at the border, torch's errors and the module's
constructor, padding modes and repr; central differences and known values without torch; and
the op inside a traced step on the emulated wafer."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs.torch as mt
from tests.helpers import train_on_backend
from tests.torch._sweeps import assert_same_as_torch, outcomes


def _case(rng):
    """(x shape, w shape, bias?, kwargs) of a valid conv3d call."""
    while True:
        groups = int(rng.choice([1, 1, 2, 3]))
        cin, cout = groups * int(rng.integers(1, 3)), groups * int(rng.integers(1, 3))
        k = tuple(int(v) for v in rng.integers(1, 4, 3))
        spatial = tuple(int(v) for v in rng.integers(1, 7, 3))
        unbatched = rng.random() < 0.25
        x = ((int(rng.integers(1, 4)),) if not unbatched else ()) + (cin,) + spatial
        kw = dict(groups=groups)
        r = rng.random()
        if r < 0.15:
            kw["padding"] = "same"
            kw["dilation"] = tuple(int(v) for v in rng.integers(1, 3, 3))
        elif r < 0.25:
            kw["padding"] = "valid"
        else:
            kw["padding"] = tuple(int(v) for v in rng.integers(0, 3, 3)) if rng.random() < 0.7 \
                else int(rng.integers(0, 2))
            kw["stride"] = tuple(int(v) for v in rng.integers(1, 3, 3)) if rng.random() < 0.7 \
                else int(rng.integers(1, 3))
            kw["dilation"] = tuple(int(v) for v in rng.integers(1, 3, 3)) if rng.random() < 0.5 \
                else 1
        pad = kw["padding"]
        pads = (0, 0, 0) if pad == "valid" else (pad,) * 3 if isinstance(pad, int) else pad
        dil = kw.get("dilation", 1)
        dil = (dil,) * 3 if isinstance(dil, int) else dil
        if pad != "same" and any(n + 2 * p < d * (kk - 1) + 1
                                 for n, p, d, kk in zip(spatial, pads, dil, k)):
            continue
        return x, (cout, cin // groups) + k, bool(rng.random() < 0.6), kw


def _conv(T, x0, w0, b0, kw, dtype, g0=None):
    dt = getattr(T, dtype)
    x, w = T.tensor(x0).to(dt), T.tensor(w0).to(dt)
    b = None if b0 is None else T.tensor(b0).to(dt)
    floating = x.dtype.is_floating_point
    if floating:
        for t in (x, w, b):
            if t is not None:
                t.requires_grad_()
    y = T.nn.functional.conv3d(x, w, b, **kw)
    out = [y.detach().double().numpy(), str(y.dtype), y.grad_fn.name() if floating else None]
    if floating and g0 is not None:
        y.backward(T.tensor(g0).to(dt))
        out += [t.grad.double().numpy() for t in (x, w, b) if t is not None]
    return out


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_values_and_gradients_match_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0 if dtype == "float64" else 1)
    tol = dict(rtol=1e-12, atol=1e-13) if dtype == "float64" else dict(rtol=2e-5, atol=2e-6)
    for _ in range(30):
        xs, ws, bias, kw = _case(rng)
        x0, w0 = rng.standard_normal(xs), rng.standard_normal(ws)
        b0 = rng.standard_normal(ws[0]) if bias else None
        y = torch.nn.functional.conv3d(torch.tensor(x0), torch.tensor(w0), None, **kw)
        g0 = rng.standard_normal(tuple(y.shape))
        want, got = _conv(torch, x0, w0, b0, kw, dtype, g0), _conv(mt, x0, w0, b0, kw, dtype, g0)
        assert got[1:3] == want[1:3], (xs, ws, kw)
        assert len(got) == len(want)
        for a, b in zip(got[3:] + got[:1], want[3:] + want[:1]):
            assert a.shape == b.shape
            np.testing.assert_allclose(a, b, **tol, err_msg=str((xs, ws, kw)))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_accumulates_in_float32(dtype):
    """torch's CPU conv3d computes a half-precision convolution in float32 (the bias added
    there) and rounds the result once: ours agrees but for the float32 summation order's
    rounding (a value's last bit, rarely)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    for _ in range(10):
        xs, ws, bias, kw = _case(rng)
        x0, w0 = rng.standard_normal(xs), rng.standard_normal(ws)
        b0 = rng.standard_normal(ws[0]) if bias else None
        want, got = _conv(torch, x0, w0, b0, kw, dtype), _conv(mt, x0, w0, b0, kw, dtype)
        assert got[1:] == want[1:]
        ulp = 2.0 ** (-10 if dtype == "float16" else -7)
        np.testing.assert_allclose(got[0], want[0], rtol=ulp, atol=ulp)
        assert (got[0] == want[0]).mean() > 0.95


def test_integer_convolution_as_torch():
    def calls(T):
        F = T.nn.functional
        rng = np.random.default_rng(4)
        x = T.tensor(rng.integers(-9, 9, (2, 2, 4, 5, 3)))
        w = T.tensor(rng.integers(-9, 9, (3, 2, 2, 2, 2)))
        return {
            **{d: (lambda d=d: F.conv3d(x.to(getattr(T, d)), w.to(getattr(T, d)), stride=(1, 2, 1),
                                        padding=1)) for d in ("int64", "int32", "int16", "uint8")},
            "int64_dilated": lambda: F.conv3d(x, w, dilation=(2, 1, 1), padding=(1, 0, 1)),
            "int64_bias": lambda: F.conv3d(x, w, T.tensor([1, 2, 3])),
            "int32_dilated": lambda: F.conv3d(x.int(), w.int(), dilation=2, padding=1),
            "bool": lambda: F.conv3d(x.bool(), w.bool()),
            "bool_dilated": lambda: F.conv3d(x.bool(), w.bool(), dilation=2, padding=1),
            "int64_big": lambda: F.conv3d(x * 2 ** 40, w * 2 ** 30),
        }
    assert_same_as_torch(lambda T: outcomes(calls(T), show=lambda r: f"{tuple(r.shape)} "
                                            f"{r.dtype} {r.reshape(-1).tolist()}"), mt)


def _bad_calls(T):
    F = T.nn.functional
    rng = np.random.default_rng(5)
    x = T.tensor(rng.standard_normal((2, 3, 5, 6, 7)), dtype=T.float32)
    w = T.tensor(rng.standard_normal((4, 3, 2, 2, 2)), dtype=T.float32)
    x1, w4 = x[:1], T.ones(4, 3, 4, 4, 4)
    return {
        "rank3": lambda: F.conv3d(T.ones(3, 4, 5), w),
        "rank6": lambda: F.conv3d(T.ones(1, 2, 3, 4, 5, 6), w),
        "w4": lambda: F.conv3d(x, T.ones(4, 3, 2, 2)),
        "w6": lambda: F.conv3d(x, T.ones(4, 3, 2, 2, 2, 2)),
        "w2": lambda: F.conv3d(x, T.ones(4, 3)),
        "w4_lists": lambda: F.conv3d(x, T.ones(4, 3, 2, 2), stride=[1, 1], padding=[0, 0],
                                     dilation=[1, 1]),
        "w4_same": lambda: F.conv3d(x, T.ones(4, 3, 2, 2), padding="same"),
        "w4_valid": lambda: F.conv3d(x, T.ones(4, 3, 2, 2), padding="valid"),
        "channels": lambda: F.conv3d(x, T.ones(4, 2, 2, 2, 2)),
        "groups0": lambda: F.conv3d(x, w, groups=0),
        "groups_neg": lambda: F.conv3d(x, w, groups=-1),
        "groups_div": lambda: F.conv3d(T.ones(2, 4, 5, 6, 7), T.ones(3, 2, 2, 2, 2), groups=2),
        "groups_ok": lambda: F.conv3d(T.ones(2, 4, 5, 6, 7), T.ones(4, 2, 2, 2, 2), groups=2),
        "groups_cout": lambda: F.conv3d(T.ones(2, 4, 5, 6, 7), T.ones(1, 2, 2, 2, 2), groups=2),
        "kernel_big": lambda: F.conv3d(x, T.ones(4, 3, 6, 2, 2)),
        "pad_neg": lambda: F.conv3d(x, w, padding=-1),
        "stride0": lambda: F.conv3d(x, w, stride=0),
        "stride_neg": lambda: F.conv3d(x, w, stride=(1, -1, 1)),
        "stride2": lambda: F.conv3d(x, w, stride=(1, 1)),
        "stride4": lambda: F.conv3d(x, w, stride=(1, 1, 1, 1)),
        "pad2": lambda: F.conv3d(x, w, padding=(1, 1)),
        "dil2": lambda: F.conv3d(x, w, dilation=(1, 1)),
        "dil0_mkldnn": lambda: F.conv3d(x, w, dilation=0),
        "dil0_small": lambda: F.conv3d(x1, w, dilation=0),
        "dil0_double": lambda: F.conv3d(x.double(), w.double(), dilation=0),
        "dil0_channels": lambda: F.conv3d(x[:, :2], w, dilation=0),
        "dil0_k1": lambda: F.conv3d(T.ones(2, 3, 1, 6, 7), w, dilation=0),
        "dil_neg": lambda: F.conv3d(x, w, dilation=-1),
        "same": lambda: F.conv3d(x, w, padding="same"),
        "same_stride": lambda: F.conv3d(x, w, padding="same", stride=2),
        "same_stride1": lambda: F.conv3d(x, w, padding="same", stride=(1, 1, 1)),
        "valid": lambda: F.conv3d(x, w, padding="valid"),
        "bad_string": lambda: F.conv3d(x, w, padding="foo"),
        "bias_len": lambda: F.conv3d(x, w, T.ones(3)),
        "bias_2d": lambda: F.conv3d(x, w, T.ones(4, 1)),
        "bias_0d": lambda: F.conv3d(x, w, T.ones(())),
        "bias_len_channels": lambda: F.conv3d(x[:, :2], w, T.ones(3)),
        "bias_len_small": lambda: F.conv3d(T.ones(2, 3, 1, 6, 7), w, T.ones(3)),
        "bias_dtype": lambda: F.conv3d(x, w, T.ones(4).double()),
        "bias_half": lambda: F.conv3d(x, w.double(), T.ones(4).half()),
        "w_double_mkldnn": lambda: F.conv3d(x, w.double()),
        "w_double_small": lambda: F.conv3d(x1, w.double()),
        "w_double_unbatched": lambda: F.conv3d(x[0], w.double()),
        "w_double_k4": lambda: F.conv3d(x1, w4.double()),
        "w_bf16": lambda: F.conv3d(x, w.bfloat16()),
        "w_bf16_small": lambda: F.conv3d(x1, w.bfloat16()),
        "bf16_w_half": lambda: F.conv3d(x.bfloat16(), w.half()),
        "bf16_w_bool": lambda: F.conv3d(x.bfloat16(), w.bool()),
        "half_w_bf16": lambda: F.conv3d(x.half(), w.bfloat16()),
        "double_w_float": lambda: F.conv3d(x.double(), w),
        "long_w_float": lambda: F.conv3d(x.long(), w),
        "long_w_int": lambda: F.conv3d(x.long(), w.int()),
        "float_w_uint8": lambda: F.conv3d(x, w.to(T.uint8)),
        "float_w_int8": lambda: F.conv3d(x, w.to(T.int8)),
        "float_w_int16": lambda: F.conv3d(x, w.to(T.int16)),
        "bool_w_double": lambda: F.conv3d(x.bool(), w.double()),
        "long_bias_float": lambda: F.conv3d(x.long(), w.long(), T.ones(4)),
        "empty_n": lambda: F.conv3d(T.ones(0, 3, 5, 6, 7), w),
        "empty_c": lambda: F.conv3d(T.ones(2, 0, 5, 6, 7), T.ones(4, 0, 2, 2, 2)),
        "empty_spatial": lambda: F.conv3d(T.ones(2, 3, 0, 6, 7), w),
        "empty_cout": lambda: F.conv3d(x, T.ones(0, 3, 2, 2, 2)),
        "unbatched": lambda: F.conv3d(x[0], w, T.ones(4), padding=(1, 0, 1)),
        "pad_float": lambda: F.conv3d(x, w, padding=1.0),
        "groups_float": lambda: F.conv3d(x, w, groups=1.0),
        "stride_float": lambda: F.conv3d(x, w, stride=1.0),
        "dil_list": lambda: F.conv3d(x, w, dilation=[1, 1.0, 1]),
        "w_list": lambda: F.conv3d(x, [1.0]),
        "bias_list": lambda: F.conv3d(x, w, [1.0]),
        "module": lambda: T.nn.Conv3d(3, 4, 2, bias=False)(x).shape,
        "module_groups": lambda: T.nn.Conv3d(3, 4, 2, groups=2),
        "module_groups0": lambda: T.nn.Conv3d(3, 3, 2, groups=0),
        "module_out_groups": lambda: T.nn.Conv3d(4, 3, 2, groups=2),
        "module_pad_str": lambda: T.nn.Conv3d(3, 4, 2, padding="foo"),
        "module_same_stride": lambda: T.nn.Conv3d(3, 4, 2, padding="same", stride=2),
        "module_reflect_big": lambda: T.nn.Conv3d(3, 4, 2, padding=5, padding_mode="reflect")(x),
        "module_wrong_channels": lambda: T.nn.Conv3d(2, 4, 2)(x),
    }


def test_errors_as_torch():
    """Each call's error, or its result's shape and dtype (values: the tests above)."""
    assert_same_as_torch(lambda T: outcomes(_bad_calls(T), show=lambda r: repr(r) if isinstance(
        r, (tuple, T.Size, T.nn.Module)) else f"{tuple(r.shape)} {r.dtype}"), mt)


def test_module_as_torch():
    """nn.Conv3d: constructor arguments, attributes, repr, parameter shapes and torch's
    initialisation bounds; the forward of every padding mode with torch's weights."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    x0 = rng.standard_normal((2, 4, 5, 6, 5))
    configs = [dict(in_channels=4, out_channels=6, kernel_size=3),
               dict(in_channels=4, out_channels=2, kernel_size=(1, 2, 3), stride=(2, 1, 1),
                    padding=(0, 1, 2), dilation=(1, 2, 1), groups=2, bias=False),
               dict(in_channels=4, out_channels=4, kernel_size=2, padding="same", dilation=2,
                    padding_mode="reflect"),
               dict(in_channels=4, out_channels=3, kernel_size=(3, 2, 2), padding=(1, 1, 0),
                    padding_mode="replicate"),
               dict(in_channels=4, out_channels=4, kernel_size=3, padding=1, stride=2,
                    padding_mode="circular", groups=4),
               dict(in_channels=4, out_channels=5, kernel_size=2, padding="valid",
                    dtype=None)]
    for cfg in configs:
        mods = [T.nn.Conv3d(**cfg) for T in (torch, mt)]
        assert repr(mods[1]) == repr(mods[0])
        for name in ("in_channels", "out_channels", "kernel_size", "stride", "padding",
                     "dilation", "groups", "padding_mode", "output_padding", "transposed",
                     "_reversed_padding_repeated_twice"):
            assert getattr(mods[1], name) == getattr(mods[0], name), name
        assert [tuple(p.shape) for p in mods[1].parameters()] == \
            [tuple(p.shape) for p in mods[0].parameters()]
        fan_in = cfg["in_channels"] // cfg.get("groups", 1) * np.prod(mods[0].kernel_size)
        for p in mods[1].parameters():  # kaiming_uniform(a=sqrt(5)) and the bias: 1/sqrt(fan_in)
            assert np.abs(p.detach().numpy()).max() <= 1 / np.sqrt(fan_in) + 1e-7
        with mt.no_grad():
            for pm, pt in zip(mods[1].parameters(), mods[0].parameters()):
                pm.copy_(mt.tensor(pt.detach().numpy()))
        outs = []
        for T, m in zip((torch, mt), mods):
            x = T.tensor(x0, dtype=T.float32, requires_grad=True)
            y = m(x)
            y.backward(T.ones_like(y))
            outs.append((y.detach().numpy(), x.grad.numpy(), m.weight.grad.numpy()))
        for a, b in zip(outs[1], outs[0]):
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)
    assert mt.nn.Conv3d(2, 2, 1, dtype=mt.float64).weight.dtype is mt.float64


def test_layouts_as_torch():
    """A float32 conv3d that oneDNN runs writes channels-last-3d when the input or the weight
    is laid out so (float64 and the small single-sample case: contiguous)."""
    torch = pytest.importorskip("torch")

    def strides(T):
        F = T.nn.functional
        rng = np.random.default_rng(7)
        x = T.tensor(rng.standard_normal((2, 3, 4, 5, 6)), dtype=T.float32)
        w = T.tensor(rng.standard_normal((4, 3, 2, 2, 2)), dtype=T.float32)
        xc, wc = (t.contiguous(memory_format=T.channels_last_3d) for t in (x, w))
        return [F.conv3d(a, b).stride() for a, b in
                ((x, w), (xc, w), (x, wc), (xc[:1], w), (xc.double(), w.double()),
                 (x[:1], wc), (xc[0], w))]
    assert strides(mt) == strides(torch)


def test_non_finite_weights_at_the_border_as_torch():
    """oneDNN's direct convolution leaves the zero padding out of its products (an infinite
    weight next to the border gives inf there, not NaN); torch's other paths multiply it."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    for xs, ws, kw in [((2, 2, 3, 4, 4), (2, 2, 2, 3, 3), dict(padding=1)),
                       ((1, 2, 3, 4, 4), (2, 2, 2, 3, 3), dict(padding=(1, 1, 0))),
                       ((1, 2, 3, 4, 4), (2, 2, 4, 4, 4), dict(padding=2)),
                       ((2, 4, 3, 3, 3), (4, 1, 3, 3, 3), dict(padding=1, groups=4)),
                       ((2, 4, 3, 3, 3), (4, 2, 3, 3, 3), dict(padding=1, groups=2))]:
        x0, w0 = rng.standard_normal(xs), rng.standard_normal(ws)
        w0.flat[0] = np.inf
        for dtype in ("float32", "float64", "bfloat16"):
            got = [T.nn.functional.conv3d(T.tensor(x0).to(getattr(T, dtype)),
                                          T.tensor(w0).to(getattr(T, dtype)), **kw)
                   for T in (torch, mt)]
            a, b = (g.double().numpy() for g in got)
            assert (np.isnan(a) == np.isnan(b)).all() and (np.isinf(a) == np.isinf(b)).all(), \
                (xs, ws, kw, dtype)


def test_gradients_match_central_differences():
    """Without torch: the gradients of input, weight and bias against central differences."""
    rng = np.random.default_rng(9)
    x0, w0, b0 = (rng.standard_normal(s) for s in ((2, 4, 3, 4, 3), (2, 2, 2, 2, 3), (2,)))
    kw = dict(stride=(1, 2, 1), padding=(1, 0, 2), dilation=(1, 1, 2), groups=2)
    F = mt.nn.functional

    def f(x, w, b):
        return F.conv3d(mt.tensor(x), mt.tensor(w), mt.tensor(b), **kw).numpy()
    g0 = rng.standard_normal(f(x0, w0, b0).shape)
    ts = [mt.tensor(a, requires_grad=True) for a in (x0, w0, b0)]
    F.conv3d(*ts, **kw).backward(mt.tensor(g0))
    args = [x0, w0, b0]
    for i, t in enumerate(ts):
        num = np.zeros_like(args[i])
        for j in range(num.size):
            lo, hi = [a.copy() for a in args], [a.copy() for a in args]
            lo[i].flat[j] -= 1e-6
            hi[i].flat[j] += 1e-6
            num.flat[j] = ((f(*hi) - f(*lo)) * g0).sum() / 2e-6
        np.testing.assert_allclose(t.grad.numpy(), num, rtol=1e-6, atol=1e-7)


def test_second_order_gradients_match_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(10)
    x0, w0 = rng.standard_normal((2, 2, 3, 4, 3)), rng.standard_normal((3, 2, 2, 2, 2))
    g0 = rng.standard_normal((2, 3, 4, 2, 4))
    res = []
    for T in (torch, mt):
        x, w = T.tensor(x0, requires_grad=True), T.tensor(w0, requires_grad=True)
        y = T.nn.functional.conv3d(x, w, padding=(1, 0, 1), stride=(1, 2, 1))
        gx, gw = T.autograd.grad(y, (x, w), T.tensor(g0), create_graph=True)
        ((gx ** 2).sum() + (gw * gw.detach()).sum()).backward()
        res.append([t.detach().numpy() for t in (gx, gw, x.grad, w.grad)])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_known_values_without_torch():
    F = mt.nn.functional
    x = mt.arange(8, dtype=mt.float64).reshape(1, 1, 2, 2, 2)
    w = mt.ones(1, 1, 2, 2, 2, dtype=mt.float64)
    assert F.conv3d(x, w).tolist() == [[[[[28.0]]]]]
    assert F.conv3d(x, w, mt.tensor([0.5], dtype=mt.float64)).tolist() == [[[[[28.5]]]]]
    y = F.conv3d(x, w, padding=1)
    assert tuple(y.shape) == (1, 1, 3, 3, 3) and y[0, 0, 0, 0, 0].item() == 0.0 and \
        y[0, 0, 1, 1, 1].item() == 28.0 and y[0, 0, 2, 2, 2].item() == 7.0
    same = F.conv3d(x, mt.ones(1, 1, 2, 2, 2, dtype=mt.float64), padding="same")
    assert same[0, 0].tolist() == [[[28.0, 16.0], [18.0, 10.0]], [[22.0, 12.0], [13.0, 7.0]]]
    xg = x.clone().requires_grad_()
    F.conv3d(xg, w, padding=1).sum().backward()
    assert xg.grad.tolist() == [[[[[8.0] * 2] * 2] * 2]]
    assert F.conv3d(x.long(), w.long(), dilation=1).dtype is mt.int64
    assert F.conv3d(x[0], w).grad_fn is None and tuple(F.conv3d(x[0], w).shape) == (1, 1, 1, 1)
    m = mt.nn.Conv3d(2, 4, (1, 2, 3), stride=2, padding=(0, 1, 1), bias=False,
                     padding_mode="circular")
    assert repr(m) == ("Conv3d(2, 4, kernel_size=(1, 2, 3), stride=(2, 2, 2), padding=(0, 1, 1),"
                       " bias=False, padding_mode=circular)")
    assert tuple(m.weight.shape) == (4, 2, 1, 2, 3)
    with pytest.raises(RuntimeError, match="Expected 4D \\(unbatched\\) or 5D \\(batched\\) "
                                           "input to conv3d"):
        F.conv3d(mt.ones(2, 3, 4), w)
    with pytest.raises(NotImplementedError, match='"compute_columns3d" not implemented'):
        F.conv3d(x.bool(), w.bool())
    with pytest.raises(ValueError, match="padding_mode must be one of"):  # (a set's order)
        mt.nn.Conv3d(3, 4, 2, padding_mode="zero")


class _Net3d(mt.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = mt.nn.Conv3d(1, 3, 2, padding=1)
        self.conv2 = mt.nn.Conv3d(3, 4, (1, 2, 2), groups=1, padding="same")
        self.mp = mt.nn.MaxPool3d(2, 1)
        self.ap = mt.nn.AvgPool3d((1, 2, 2), padding=(0, 1, 1), count_include_pad=False)
        self.aap = mt.nn.AdaptiveAvgPool3d((2, 1, 2))
        self.amp = mt.nn.AdaptiveMaxPool3d(2)
        self.fc = mt.nn.Linear(4 * 4 + 4 * 8, 3)

    def forward(self, x):
        h = mt.nn.functional.relu(self.conv(x))
        h = self.conv2(self.ap(self.mp(h)))
        return self.fc(mt.cat([self.aap(h).flatten(1), self.amp(h).flatten(1)], 1))


def test_conv3d_and_pools_in_a_traced_step_on_the_wafer(tmp_path):
    """A 3-D CNN's training steps (conv3d, every 3-D pool, their gradients) on the emulated
    wafer give the CPU backend's losses and weights bit for bit."""
    rng = np.random.default_rng(0)
    data = [(mt.from_numpy(rng.standard_normal((2, 1, 4, 5, 4), dtype=np.float32)),
             mt.from_numpy(rng.integers(0, 3, 2))) for _ in range(3)]
    cpu, csx = (train_on_backend(kind, tmp_path, _Net3d, data, 3, momentum=0.9)
                for kind in ("CPU", "CSX"))
    assert cpu[0] == csx[0] and len(cpu[0]) == 3 and len(set(cpu[0])) == 3
    assert (cpu[2], csx[2]) == (3, 1)  # (the wafer traced the step once and replayed it)
    for a, b in zip(cpu[1], csx[1]):
        assert a.tobytes() == b.tobytes()
