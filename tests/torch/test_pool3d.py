"""F.max_pool3d / avg_pool3d / adaptive_avg_pool3d / adaptive_max_pool3d and their modules
against torch 2.13: generated cases (batched and unbatched, every option), values, int64 indices,
node names and gradients bit for bit in float64 and float32, half precision (torch's own
arithmetic), layouts, central differences, torch's errors; and known small values without
torch."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs.torch as mt
from tests.torch._sweeps import assert_same_as_torch, outcomes

OPS = ("max", "avg", "adaptive_avg", "adaptive_max")


def _case(rng, op):
    """A random call: (shape, kwargs), valid for torch."""
    while True:
        unbatched = rng.random() < 0.25
        spatial = tuple(int(v) for v in rng.integers(1, 7, 3))
        shape = ((int(rng.integers(1, 4)),) if not unbatched else ()) + \
            (int(rng.integers(1, 4)),) + spatial
        if op.startswith("adaptive"):
            out = [int(v) for v in rng.integers(1, 9, 3)]
            if rng.random() < 0.3:
                out[int(rng.integers(0, 3))] = None
            return shape, dict(output_size=tuple(out) if rng.random() < 0.8 else out[0] or 2)
        k = tuple(int(v) for v in rng.integers(1, 4, 3))
        s = tuple(int(v) for v in rng.integers(1, 4, 3)) if rng.random() < 0.6 else None
        p = tuple(int(rng.integers(0, ki // 2 + 1)) for ki in k)
        kw = dict(kernel_size=k if rng.random() < 0.8 else k[0], stride=s,
                  padding=p if rng.random() < 0.8 else min(k) // 2,
                  ceil_mode=bool(rng.random() < 0.4))
        if op == "max":
            kw["dilation"] = tuple(int(v) for v in rng.integers(1, 3, 3))
            if isinstance(kw["kernel_size"], int) or isinstance(kw["padding"], int):
                kw["dilation"] = int(rng.integers(1, 3))
        else:
            kw["count_include_pad"] = bool(rng.random() < 0.5)
            kw["divisor_override"] = int(rng.integers(1, 9)) if rng.random() < 0.3 else None
        ks = kw["kernel_size"] if isinstance(kw["kernel_size"], tuple) else (k[0],) * 3
        if op == "avg" and any(n < kk for n, kk in zip(spatial, ks)):
            continue  # (torch's avg_pool3d wants the input at least the kernel's size)
        try:
            import torch
            r = _call(torch, op, torch.zeros(shape), kw)
        except ImportError:
            return shape, kw
        except RuntimeError:
            continue
        if op == "max" and r[1].numel() and (r[1].min() < 0 or r[1].max() >= np.prod(spatial)):
            continue  # (a window wholly in the padding: torch's backward writes out of bounds)
        return shape, kw


def _call(T, op, x, kw):
    F = T.nn.functional
    if op == "max":
        return F.max_pool3d(x, **kw, return_indices=True)
    if op == "avg":
        return F.avg_pool3d(x, **kw)
    if op == "adaptive_avg":
        return F.adaptive_avg_pool3d(x, **kw)
    return F.adaptive_max_pool3d(x, **kw, return_indices=True)


def _run(T, op, x0, kw, dtype, g0=None):
    x = T.tensor(x0).to(getattr(T, dtype))
    floating = x.dtype.is_floating_point
    if floating:
        x.requires_grad_()
    r = _call(T, op, x, kw)
    y, idx = r if isinstance(r, tuple) else (r, None)
    out = {"y": (str(y.dtype), tuple(y.shape), y.detach().double().numpy().tobytes()),
           "node": y.grad_fn.name() if floating else None,
           "idx": None if idx is None else (str(idx.dtype), idx.numpy().tolist())}
    if floating and y.numel():
        g = T.tensor(g0).to(x.dtype)
        y.backward(g)
        out["grad"] = x.grad.double().numpy().tobytes()
    return out


@pytest.mark.parametrize("op", OPS)
def test_values_indices_and_gradients_match_torch_bit_for_bit(op):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng({"max": 1, "avg": 2, "adaptive_avg": 3, "adaptive_max": 4}[op])
    compared = 0
    for i in range(40):
        shape, kw = _case(rng, op)
        dtype = ("float64", "float32")[i % 2]
        x0 = rng.standard_normal(shape)
        if op.endswith("max"):
            x0 = np.round(x0 * 2) / 2  # ties
            if i % 5 == 0:
                x0[rng.random(shape) < 0.1] = np.nan
            if i % 7 == 0:
                x0[rng.random(shape) < 0.2] = -np.inf
        yt = _call(torch, op, torch.tensor(x0), kw)
        g0 = rng.standard_normal(tuple((yt[0] if isinstance(yt, tuple) else yt).shape))
        want, got = _run(torch, op, x0, kw, dtype, g0), _run(mt, op, x0, kw, dtype, g0)
        if op == "adaptive_avg" and kw["output_size"] in (1, (1, 1, 1)):
            # (torch's mean: our reduction's order differs, SPEC's mean entry)
            yw, yg = (np.frombuffer(o["y"][2]) for o in (want, got))
            np.testing.assert_allclose(yg, yw, rtol=1e-13,
                                       atol=1e-6 if dtype == "float32" else 1e-15)
            want["y"], got["y"] = want["y"][:2], got["y"][:2]
        assert got == want, (shape, kw, dtype)
        compared += 1
    assert compared == 40


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", ["max", "adaptive_avg", "adaptive_max"])
def test_half_precision_computes_in_the_half_dtype_as_torch(op, dtype):
    """torch's 3-D kernels add (and divide) half values in the half dtype itself, one rounding
    per operation: overlapping windows make the gradients' sums differ from float32's."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    for i in range(12):
        shape, kw = _case(rng, op)
        if op == "max" and i % 2:
            shape, kw = (2, 2, 5, 6, 4), dict(kernel_size=3, stride=1, padding=1)
        if op != "max" and i % 2:
            shape, kw = (1, 2, 3, 2, 3), dict(output_size=(5, 7, 4))
        x0 = rng.standard_normal(shape) * 20
        yt = _call(torch, op, torch.tensor(x0), kw)
        g0 = rng.standard_normal(tuple((yt[0] if isinstance(yt, tuple) else yt).shape)) * 5
        assert _run(mt, op, x0, kw, dtype, g0) == _run(torch, op, x0, kw, dtype, g0), \
            (shape, kw)


def test_integer_inputs_as_torch():
    """max_pool3d takes every real dtype but bool; avg_pool3d int64 (a truncating division)."""
    def calls(T):
        F = T.nn.functional
        x = T.tensor(np.random.default_rng(3).integers(-50, 50, (2, 2, 4, 5, 3)))
        return {
            **{f"max_{d}": (lambda d=d: F.max_pool3d(x.to(getattr(T, d)), 2, 1, 1,
                                                    return_indices=True)[0])
               for d in ("int64", "int32", "int16", "int8", "uint8")},
            "max_idx": lambda: F.max_pool3d(x, (2, 3, 1), return_indices=True)[1],
            "avg_int64": lambda: F.avg_pool3d(x, 2, 1, 1),
            "avg_int64_nopad": lambda: F.avg_pool3d(x, 2, 1, 1, count_include_pad=False),
            "avg_int64_div": lambda: F.avg_pool3d(x, 2, divisor_override=-3),
            **{f"avg_{d}": (lambda d=d: F.avg_pool3d(x.to(getattr(T, d)), 2))
               for d in ("int32", "uint8", "bool", "float16", "bfloat16")},
            "max_bool": lambda: F.max_pool3d(x.bool(), 2),
            "amax_long": lambda: F.adaptive_max_pool3d(x, 2),
            "aavg_long": lambda: F.adaptive_avg_pool3d(x, 2),
            "aavg1_long": lambda: F.adaptive_avg_pool3d(x, 1),
            "amax_bool": lambda: F.adaptive_max_pool3d(x.bool(), 2),
        }
    assert_same_as_torch(lambda T: outcomes(calls(T)), mt)


def _bad_calls(T):
    F = T.nn.functional
    x = T.tensor(np.random.default_rng(9).standard_normal((2, 3, 5, 6, 7)), dtype=T.float32)
    return {
        # max_pool3d
        "mp_rank3": lambda: F.max_pool3d(T.ones(3, 4, 5), 2),
        "mp_rank6": lambda: F.max_pool3d(T.ones(1, 1, 3, 4, 5, 6), 2, return_indices=True),
        "mp_k0": lambda: F.max_pool3d(x, 0),
        "mp_kneg": lambda: F.max_pool3d(x, -1),
        "mp_k2": lambda: F.max_pool3d(x, (2, 2)),
        "mp_k4": lambda: F.max_pool3d(x, (2, 2, 2, 2)),
        "mp_k1": lambda: F.max_pool3d(x, (2,)),
        "mp_kempty": lambda: F.max_pool3d(x, []),
        "mp_s0": lambda: F.max_pool3d(x, 2, 0),
        "mp_sneg": lambda: F.max_pool3d(x, 2, -1),
        "mp_s2": lambda: F.max_pool3d(x, 2, (1, 1)),
        "mp_sempty": lambda: F.max_pool3d(x, 2, ()),
        "mp_p3": lambda: F.max_pool3d(x, 2, 1, 3),
        "mp_pneg": lambda: F.max_pool3d(x, 2, 1, -1),
        "mp_p2": lambda: F.max_pool3d(x, 2, 1, (1, 1)),
        "mp_d0": lambda: F.max_pool3d(x, 2, 1, 0, 0),
        "mp_dneg": lambda: F.max_pool3d(x, 2, 1, 0, -1),
        "mp_d2": lambda: F.max_pool3d(x, 2, 1, 0, (1, 1)),
        "mp_pad_dil": lambda: F.max_pool3d(x, 2, 1, 2, 3),
        "mp_pad_dil2": lambda: F.max_pool3d(x, (3, 2, 2), 1, (2, 1, 1), 2),
        "mp_small": lambda: F.max_pool3d(x, 6),
        "mp_small2": lambda: F.max_pool3d(x, (1, 7, 1), return_indices=True),
        "mp_empty_c": lambda: F.max_pool3d(T.ones(2, 0, 5, 6, 7), 2),
        "mp_empty_d": lambda: F.max_pool3d(T.ones(2, 3, 5, 0, 7), 2),
        "mp_empty_unb": lambda: F.max_pool3d(T.ones(0, 5, 6, 7), 2),
        "mp_empty_n": lambda: F.max_pool3d(T.ones(0, 3, 5, 6, 7), 2),
        "mp_kfloat": lambda: F.max_pool3d(x, 2.0),
        "mp_kfloat_kw": lambda: F.max_pool3d(x, kernel_size=2.0),
        "mp_klist": lambda: F.max_pool3d(x, [2, 2.0, 2]),
        "mp_klist0": lambda: F.max_pool3d(x, [2.0, 2, 2]),
        "mp_kbool": lambda: F.max_pool3d(x, True),
        "mp_kstr": lambda: F.max_pool3d(x, "a"),
        "mp_sfloat": lambda: F.max_pool3d(x, 2, 2.0),
        "mp_dfloat": lambda: F.max_pool3d(x, 2, 2, 0, 1.0),
        "mp_ceil": lambda: F.max_pool3d(x, 2, ceil_mode=1),
        "mp_ri": lambda: F.max_pool3d(x, 2, return_indices=1)[1],
        "mp_list_input": lambda: F.max_pool3d([1.0], 2),
        # avg_pool3d
        "ap_rank3": lambda: F.avg_pool3d(T.ones(3, 4, 5), 2),
        "ap_k0": lambda: F.avg_pool3d(x, 0),
        "ap_kneg": lambda: F.avg_pool3d(x, -1),
        "ap_k2": lambda: F.avg_pool3d(x, (2, 2)),
        "ap_s0": lambda: F.avg_pool3d(x, 2, 0),
        "ap_sneg": lambda: F.avg_pool3d(x, 2, -1),
        "ap_s2": lambda: F.avg_pool3d(x, 2, (1, 1)),
        "ap_p2": lambda: F.avg_pool3d(x, 2, 1, 2),
        "ap_pk1": lambda: F.avg_pool3d(x, (1, 2, 2), 1, 1),
        "ap_pneg": lambda: F.avg_pool3d(x, 2, 1, -1),
        "ap_p2t": lambda: F.avg_pool3d(x, 2, 1, (1, 1)),
        "ap_small": lambda: F.avg_pool3d(x, 6),
        "ap_small_pad": lambda: F.avg_pool3d(x, (6, 1, 1), 1, (3, 0, 0)),
        "ap_empty_c": lambda: F.avg_pool3d(T.ones(2, 0, 5, 6, 7), 2),
        "ap_empty_unb": lambda: F.avg_pool3d(T.ones(0, 5, 6, 7), 2),
        "ap_empty_n": lambda: F.avg_pool3d(T.ones(0, 3, 5, 6, 7), 2),
        "ap_div0": lambda: F.avg_pool3d(x, 2, divisor_override=0),
        "ap_div0_rank": lambda: F.avg_pool3d(T.ones(3, 4, 5), 2, divisor_override=0),
        "ap_div0_k": lambda: F.avg_pool3d(x, 0, divisor_override=0),
        "ap_divfloat": lambda: F.avg_pool3d(x, 2, divisor_override=2.5),
        "ap_divfloat_pos": lambda: F.avg_pool3d(x, 2, 2, 0, False, True, 2.5),
        "ap_divbool": lambda: F.avg_pool3d(x, 2, divisor_override=True),
        "ap_kfloat": lambda: F.avg_pool3d(x, 2.0),
        "ap_klist": lambda: F.avg_pool3d(x, (2, 2.0, 2)),
        "ap_ceil": lambda: F.avg_pool3d(x, 2, ceil_mode=1),
        "ap_cip": lambda: F.avg_pool3d(x, 2, count_include_pad=1),
        "ap_half_bad_k": lambda: F.avg_pool3d(x.half(), 0),
        "ap_list_input": lambda: F.avg_pool3d([1.0], 2),
        # adaptive_avg_pool3d
        "aa_rank3": lambda: F.adaptive_avg_pool3d(T.ones(3, 4, 5), 2),
        "aa_rank6": lambda: F.adaptive_avg_pool3d(T.ones(1, 1, 3, 4, 5, 6), 2),
        "aa_rank6_1": lambda: F.adaptive_avg_pool3d(T.ones(1, 1, 3, 4, 5, 6), 1),
        "aa_rank3_1": lambda: F.adaptive_avg_pool3d(T.ones(3, 4, 5), 1),
        "aa_rank2_1": lambda: F.adaptive_avg_pool3d(T.ones(4, 5), 1),
        "aa_rank3_111": lambda: F.adaptive_avg_pool3d(T.ones(3, 4, 5), (1, 1, 1)),
        "aa_2": lambda: F.adaptive_avg_pool3d(x, (2, 2)),
        "aa_4": lambda: F.adaptive_avg_pool3d(x, (2, 2, 2, 2)),
        "aa_1": lambda: F.adaptive_avg_pool3d(x, (2,)),
        "aa_neg": lambda: F.adaptive_avg_pool3d(x, -1),
        "aa_neg3": lambda: F.adaptive_avg_pool3d(x, (2, -1, 3)),
        "aa_zero": lambda: F.adaptive_avg_pool3d(x, 0),
        "aa_zero2": lambda: F.adaptive_avg_pool3d(x, (0, 2, 2)),
        "aa_none": lambda: F.adaptive_avg_pool3d(x, (None, 2, None)),
        "aa_float": lambda: F.adaptive_avg_pool3d(x, 2.0),
        "aa_float_t": lambda: F.adaptive_avg_pool3d(x, (2.0, 2, 2)),
        "aa_float_t2": lambda: F.adaptive_avg_pool3d(x, (2, 2.0, 2)),
        "aa_bool": lambda: F.adaptive_avg_pool3d(x, True),
        "aa_str": lambda: F.adaptive_avg_pool3d(x, "a"),
        "aa_empty_c": lambda: F.adaptive_avg_pool3d(T.ones(2, 0, 5, 6, 7), 2),
        "aa_empty_c1": lambda: F.adaptive_avg_pool3d(T.ones(2, 0, 5, 6, 7), 1),
        "aa_empty_n": lambda: F.adaptive_avg_pool3d(T.ones(0, 3, 5, 6, 7), 2),
        "aa_empty_d": lambda: F.adaptive_avg_pool3d(T.ones(2, 3, 5, 0, 7), 2),
        "aa_empty_rank3": lambda: F.adaptive_avg_pool3d(T.ones(0, 5, 6), 2),
        "aa_empty_rank3b": lambda: F.adaptive_avg_pool3d(T.ones(5, 0, 6), 2),
        # adaptive_max_pool3d
        "am_rank3": lambda: F.adaptive_max_pool3d(T.ones(3, 4, 5), 2),
        "am_rank2": lambda: F.adaptive_max_pool3d(T.ones(4, 5), 2),
        "am_rank6": lambda: F.adaptive_max_pool3d(T.ones(1, 1, 3, 4, 5, 6), 2),
        "am_2": lambda: F.adaptive_max_pool3d(x, (2, 2)),
        "am_4": lambda: F.adaptive_max_pool3d(x, (2, 2, 2, 2)),
        "am_1": lambda: F.adaptive_max_pool3d(x, (2,)),
        "am_neg": lambda: F.adaptive_max_pool3d(x, -1),
        "am_neg3": lambda: F.adaptive_max_pool3d(x, (2, 3, -2)),
        "am_zero": lambda: F.adaptive_max_pool3d(x, 0, return_indices=True)[1],
        "am_none": lambda: F.adaptive_max_pool3d(x, (None, 2, None), return_indices=True)[1],
        "am_float": lambda: F.adaptive_max_pool3d(x, 2.0),
        "am_float_t": lambda: F.adaptive_max_pool3d(x, (2.0, 2, 2)),
        "am_bool": lambda: F.adaptive_max_pool3d(x, True),
        "am_empty_c": lambda: F.adaptive_max_pool3d(T.ones(2, 0, 5, 6, 7), 2),
        "am_empty_n": lambda: F.adaptive_max_pool3d(T.ones(0, 3, 5, 6, 7), 2),
        "am_empty_d": lambda: F.adaptive_max_pool3d(T.ones(2, 3, 5, 0, 7), 2),
        "am_rank3_none": lambda: F.adaptive_max_pool3d(T.ones(3, 4, 5), (None, 2, 2)),
        "am_ri": lambda: F.adaptive_max_pool3d(x, 2, return_indices=1)[1],
        # modules
        "MaxPool3d": lambda: T.nn.MaxPool3d(2, 1, 1, return_indices=True)(x)[1],
        "MaxPool3d_bad": lambda: T.nn.MaxPool3d((2, 2))(x),
        "AvgPool3d": lambda: T.nn.AvgPool3d((2, 1, 3), padding=(1, 0, 1), ceil_mode=True,
                                           count_include_pad=False)(x),
        "AvgPool3d_div": lambda: T.nn.AvgPool3d(3, 2, divisor_override=5)(x),
        "AdaptiveAvgPool3d": lambda: T.nn.AdaptiveAvgPool3d((3, None, 2))(x),
        "AdaptiveMaxPool3d": lambda: T.nn.AdaptiveMaxPool3d(4, return_indices=True)(x)[1],
    }


def test_errors_and_edge_calls_as_torch():
    assert_same_as_torch(lambda T: outcomes(_bad_calls(T)), mt)


def test_module_reprs_and_attributes_as_torch():
    def reprs(T):
        nn = T.nn
        mods = [nn.MaxPool3d(2), nn.MaxPool3d((1, 2, 3), (2, 1, 1), 1, 2, True, True),
                nn.AvgPool3d(3), nn.AvgPool3d((1, 2, 3), 1, (0, 1, 1), True, False, 4),
                nn.AdaptiveAvgPool3d((2, None, 3)), nn.AdaptiveAvgPool3d(5),
                nn.AdaptiveMaxPool3d(2), nn.AdaptiveMaxPool3d((1, 2, None), True)]
        return [(repr(m), sorted((k, repr(v)) for k, v in vars(m).items()
                                 if not k.startswith("_") and k != "training")) for m in mods]
    torch = pytest.importorskip("torch")
    assert reprs(mt) == reprs(torch)


def test_channels_last_3d_layouts_as_torch():
    """max_pool3d keeps a channels-last-3d input's layout (values and indices) and refuses a
    4-D input laid out channels-last (2-D); the average and adaptive pools write contiguous
    results."""
    torch = pytest.importorskip("torch")

    def strides(T):
        F = T.nn.functional
        x = T.tensor(np.random.default_rng(1).standard_normal((2, 3, 5, 6, 4)))
        cl = x.contiguous(memory_format=T.channels_last_3d)
        unb = x[0].permute(1, 2, 3, 0).contiguous().permute(3, 0, 1, 2)
        out = []
        for inp in (x, cl, unb):
            y, i = F.max_pool3d(inp, 2, 1, return_indices=True)
            out += [y.stride(), i.stride(), y.numpy().tolist() == F.max_pool3d(
                inp.contiguous(), 2, 1).numpy().tolist()]
            out += [F.avg_pool3d(inp, 2).stride(), F.adaptive_avg_pool3d(inp, 2).stride(),
                    F.adaptive_max_pool3d(inp, 3).stride()]
        cl4 = x[0].permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)  # (4-D channels-last)
        out.append(outcomes({"max": lambda: F.max_pool3d(cl4, 2)})["max"])
        return out
    assert strides(mt) == strides(torch)


def _central_difference(f, x0, g0, eps=1e-6):
    grad = np.zeros_like(x0)
    for i in range(x0.size):
        d = np.zeros_like(x0)
        d.flat[i] = eps
        grad.flat[i] = ((f(x0 + d) - f(x0 - d)) * g0).sum() / (2 * eps)
    return grad


@pytest.mark.parametrize("op, kw", [
    ("max", dict(kernel_size=(2, 3, 2), stride=(1, 2, 1), padding=(1, 1, 0), dilation=(1, 1, 2),
                 ceil_mode=True)),
    ("avg", dict(kernel_size=(3, 2, 2), stride=(2, 1, 2), padding=(1, 1, 0), ceil_mode=True,
                 count_include_pad=False)),
    ("avg", dict(kernel_size=2, stride=1, padding=1, divisor_override=3)),
    ("adaptive_avg", dict(output_size=(3, 2, 5))),
    ("adaptive_max", dict(output_size=(2, 4, 3))),
])
def test_gradients_match_central_differences(op, kw):
    """Without torch: autograd's gradient against central differences in float64 (distinct
    inputs, so the winners of max pooling do not move)."""
    rng = np.random.default_rng(11)
    x0 = rng.permutation(np.arange(2 * 2 * 4 * 5 * 4)).reshape(2, 2, 4, 5, 4) / 7.0

    def f(a):
        r = _call(mt, op, mt.tensor(a), kw)
        return (r[0] if isinstance(r, tuple) else r).numpy()
    g0 = rng.standard_normal(f(x0).shape)
    x = mt.tensor(x0, requires_grad=True)
    r = _call(mt, op, x, kw)
    (r[0] if isinstance(r, tuple) else r).backward(mt.tensor(g0))
    np.testing.assert_allclose(x.grad.numpy(), _central_difference(f, x0, g0), rtol=1e-7,
                               atol=1e-8)


@pytest.mark.parametrize("op", OPS)
def test_second_order_gradients_match_torch(op):
    """The gradients are ops themselves: a gradient of the gradient (w.r.t. the upstream
    gradient and the input) as torch's."""
    torch = pytest.importorskip("torch")
    kw = {"max": dict(kernel_size=2, stride=1, padding=1),
          "avg": dict(kernel_size=(2, 3, 2), stride=1, padding=(1, 1, 0)),
          "adaptive_avg": dict(output_size=(3, 4, 2)),
          "adaptive_max": dict(output_size=(2, 3, 3))}[op]
    rng = np.random.default_rng(5)
    x0 = rng.standard_normal((2, 2, 4, 5, 3))
    res = []
    for T in (torch, mt):
        x = T.tensor(x0, requires_grad=True)
        r = _call(T, op, x, kw)
        y = r[0] if isinstance(r, tuple) else r
        g = T.tensor(rng.standard_normal(tuple(y.shape)), requires_grad=True)
        rng = np.random.default_rng(5)
        rng.standard_normal((2, 2, 4, 5, 3))
        (gx,) = T.autograd.grad(y, x, g, create_graph=True)
        (gx * T.tensor(np.linspace(-1, 1, gx.numel()).reshape(tuple(gx.shape)))).sum().backward()
        res.append((gx.detach().numpy().tobytes(), g.grad.numpy().tobytes()))
    assert res[0] == res[1]


def test_known_values_without_torch():
    F = mt.nn.functional
    x = mt.arange(2 * 3 * 4, dtype=mt.float64).reshape(1, 1, 2, 3, 4)
    # (2, 3, 4) volume 0..23: windows of 2x2x2
    y, i = F.max_pool3d(x, 2, return_indices=True)
    assert y.tolist() == [[[[[17.0, 19.0]]]]] and i.tolist() == [[[[[17, 19]]]]]
    assert F.avg_pool3d(x, 2).tolist() == [[[[[8.5, 10.5]]]]]
    # padding counted (8 of 27 window positions are inside) or not
    x3 = mt.arange(27, dtype=mt.float64).reshape(1, 1, 3, 3, 3)
    a = F.avg_pool3d(x3, 3, 1, 1)[0, 0, 0, 0, 0].item()
    assert a == (0 + 1 + 3 + 4 + 9 + 10 + 12 + 13) / 27
    b = F.avg_pool3d(x3, 3, 1, 1, count_include_pad=False)[0, 0, 0, 0, 0].item()
    assert b == (0 + 1 + 3 + 4 + 9 + 10 + 12 + 13) / 8
    assert F.avg_pool3d(x.long(), 2, divisor_override=3).tolist() == [[[[[22, 28]]]]]
    # adaptive: depth 2 -> 1, height 3 -> 2 (rows [0, 2) and [1, 3)), width 4 -> 1
    aa = F.adaptive_avg_pool3d(x, (1, 2, 1))
    assert aa.tolist() == [[[[[np.mean([0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 16, 17, 18,
                                        19])], [np.mean([4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18,
                                                         19, 20, 21, 22, 23])]]]]]
    ym, im = F.adaptive_max_pool3d(x, (1, 2, 1), return_indices=True)
    assert ym.tolist() == [[[[[19.0], [23.0]]]]] and im.tolist() == [[[[[19], [23]]]]]
    # gradients: overlapping max windows sum; the NaN rule (the last NaN wins)
    z = mt.tensor([[[[[1.0, 3.0, 2.0]]]]], requires_grad=True)
    F.max_pool3d(z, (1, 1, 2), stride=1).sum().backward()
    assert z.grad.tolist() == [[[[[0.0, 2.0, 0.0]]]]]
    n = mt.tensor([[[[[float("nan"), 5.0, float("nan")]]]]])
    assert F.max_pool3d(n, (1, 1, 3), return_indices=True)[1].tolist() == [[[[[2]]]]]
    assert F.adaptive_avg_pool3d(mt.ones(2, 3, 4, 5), 1).grad_fn is None
    assert F.adaptive_avg_pool3d(x, 1).item() == 11.5
    with pytest.raises(NotImplementedError, match="avg_pool3d_out_frame"):
        F.avg_pool3d(mt.ones(1, 1, 2, 2, 2, dtype=mt.float16), 2)
    with pytest.raises(RuntimeError, match="pad should be smaller than or equal to half of "
                                           "kernel size"):
        F.max_pool3d(x, 2, 1, 2, 3)
    assert repr(mt.nn.MaxPool3d(2)) == ("MaxPool3d(kernel_size=2, stride=2, padding=0, "
                                        "dilation=1, ceil_mode=False)")
    assert repr(mt.nn.AvgPool3d(2)) == "AvgPool3d(kernel_size=2, stride=2, padding=0)"


def test_local_response_norm_pools_deep_inputs_with_avg_pool3d():
    """local_response_norm beyond 3-D is torch's avg_pool3d composition: its values, and the
    half-precision refusal of torch's avg_pool3d kernel."""
    torch = pytest.importorskip("torch")
    x0 = np.random.default_rng(2).standard_normal((2, 5, 3, 2, 2))
    got = []
    for T in (torch, mt):
        x = T.tensor(x0, requires_grad=True)
        y = T.nn.functional.local_response_norm(x, 3, alpha=0.5, beta=0.75, k=1.5)
        y.backward(T.ones_like(y))
        got.append((y.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(got[1][0], got[0][0], rtol=1e-14, atol=0)
    np.testing.assert_allclose(got[1][1], got[0][1], rtol=1e-13, atol=1e-15)
    with pytest.raises(NotImplementedError, match="\"avg_pool3d_out_frame\" not implemented for "
                                                  "'BFloat16'"):
        mt.nn.functional.local_response_norm(mt.ones(1, 2, 2, 2, dtype=mt.bfloat16), 2)
