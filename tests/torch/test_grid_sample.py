"""``nn.functional.grid_sample`` and ``affine_grid``: torch 2.13's CPU kernels' values and
gradients bit for bit (every mode, padding mode and ``align_corners``, 4-D and 5-D, float32,
float64 and the half types, contiguous and strided grids, NaN/inf/huge grid values), its
argument errors and warnings, its node names, and a traced step on the emulated wafer."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_cs.torch as mt
from minitorch_cs.torch.nn import functional as F
from tests.helpers import train_on_backend

from ._sweeps import assert_same_as_torch

MODES = ("bilinear", "nearest", "bicubic")
PADS = ("zeros", "border", "reflection")
DTYPES = ("float32", "float64", "float16", "bfloat16")
SPECIAL = [np.nan, np.inf, -np.inf, 1e30, -1e30, 3e9, -3e9, 4e4, -4e4, 2.5e5, 1.0, -1.0, 0.0,
           -0.0, 0.5, -0.5, 1.5, 1e10, 6e4]


def _tensor(T, a, dtype, layout=1):
    """``a`` (float64) as a tensor of ``dtype``; a grid's ``layout``: 1 contiguous, 2 a
    permuted copy (its W positions unit-strided), 3 a slice of a wider grid (strided rows)."""
    t = T.tensor(a).to(getattr(T, dtype))
    if layout == 2:
        t = t.permute(0, 3, 1, 2).contiguous().permute(0, 2, 3, 1)
    elif layout == 3:
        wide = T.zeros(a.shape[:2] + (a.shape[2] + 3, a.shape[3]), dtype=getattr(T, dtype))
        wide[:, :, :a.shape[2]] = t
        t = wide[:, :, :a.shape[2]]
    return t


def _arrays(*ts):
    return [None if t is None else t.detach().double().numpy() for t in ts]


def _run(T, x0, g0, dtype, mode, pad, align, layout=1, go0=None, backward=True,
         needs=(True, True)):
    x = _tensor(T, x0, dtype).requires_grad_(needs[0])
    g = _tensor(T, g0, dtype, layout).requires_grad_(needs[1])
    y = F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=align) if T is mt else \
        T.nn.functional.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=align)
    if not backward:
        return _arrays(y) + [None, None, y.dtype, y.grad_fn.name()]
    y.backward(T.tensor(go0).to(y.dtype))
    return _arrays(y, x.grad, g.grad) + [y.dtype, y.grad_fn.name()]


def _torch_crashes(nd, mode, pad, dtype, g0):
    """torch's float32/float64 4-D bilinear backward reads outside the input (a segfault or
    garbage) where a coordinate it keeps is NaN: skip those gradients (SPEC)."""
    return nd == 4 and mode == "bilinear" and pad != "zeros" and \
        dtype in ("float32", "float64") and not np.isfinite(g0).all()


def _same(a, b):
    return a is None and b is None or np.array_equal(a, b, equal_nan=True)


def _cases(seed, n, special=False, layouts=(1,)):
    rng = np.random.default_rng(seed)
    for k in range(n):
        dtype = DTYPES[k % 4]
        nd = 4 if k % 3 else 5
        mode = MODES[(k // 4) % (3 if nd == 4 else 2)]
        pad, align = PADS[(k // 2) % 3], bool((k // 5) % 2)
        layout = layouts[k % len(layouts)] if nd == 4 else 1
        N, C = int(rng.integers(1, 3)), int(rng.integers(1, 4))
        sp = tuple(int(v) for v in rng.integers(1, 7, nd - 2))
        so = tuple(int(v) for v in rng.integers(1, 10 if nd == 4 else 5, nd - 2))
        x0 = rng.standard_normal((N, C) + sp)
        g0 = rng.standard_normal((N,) + so + (nd - 2,)) * 1.4
        if special:
            m = rng.random(g0.shape) < 0.35
            g0[m] = rng.choice(SPECIAL, int(m.sum()))
        go0 = rng.standard_normal((N, C) + so)
        yield dtype, nd, mode, pad, align, layout, x0, g0, go0


@pytest.mark.parametrize("special", [False, True], ids=["plain", "special_values"])
def test_values_and_gradients_bit_for_bit(special):
    """Output, input gradient and grid gradient equal torch's to the bit (NaN where torch's
    is), across dtypes, modes, padding modes, ``align_corners``, 4-D and 5-D, and grid memory
    layouts (which decide the order of the input gradient's additions)."""
    torch = pytest.importorskip("torch")
    compared = 0
    for dtype, nd, mode, pad, align, layout, x0, g0, go0 in _cases(
            11 + special, 96, special, layouts=(1, 2, 3)):
        if special and mode == "bicubic" and layout != 1:
            layout = 1
        back = not _torch_crashes(nd, mode, pad, dtype, g0)
        needs = ((True, True), (False, True), (True, False))[compared % 3]
        want = _run(torch, x0, g0, dtype, mode, pad, align, layout, go0, back, needs)
        got = _run(mt, x0, g0, dtype, mode, pad, align, layout, go0, back, needs)
        label = (dtype, nd, mode, pad, align, layout)
        exact_forward = not (mode == "bicubic" and layout != 1 and dtype in ("float32",
                                                                              "float64"))
        if exact_forward:
            assert _same(want[0], got[0]), label
        else:  # (SPEC: a strided grid's last partial vector may differ in the last bits)
            np.testing.assert_allclose(got[0], want[0], rtol=1e-6, atol=1e-6)
        assert _same(want[1], got[1]), label
        assert _same(want[2], got[2]), label
        assert str(want[3]) == str(got[3]) and want[4] == got[4], label
        compared += 1
    assert compared == 96


def test_half_precision_offsets_wrap_at_16_bits():
    """torch's 4-D kernel indexes float16/bfloat16 inputs with 16-bit integers: a plane of more
    than 32767 elements reads elements 65536 before the right one (another channel's, here);
    reproduced wherever that read stays inside the input."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x0 = rng.standard_normal((1, 2, 200, 200))
    g0 = np.stack([rng.random((1, 3, 5)) * 2 - 1, rng.random((1, 3, 5)) * 0.25 + 0.72], -1)
    for dtype in ("float16", "bfloat16"):
        for mode in MODES:
            want = _run(torch, x0, g0, dtype, mode, "zeros", False, backward=False)[0]
            got = _run(mt, x0, g0, dtype, mode, "zeros", False, backward=False)[0]
            assert _same(want[:, 1], got[:, 1]), (dtype, mode)  # (channel 0 reads before
            # the tensor in torch: garbage)
    right = _run(mt, x0, g0, "float32", "nearest", "zeros", False, backward=False)[0]
    assert not np.allclose(right[:, 1], got[:, 1])


def test_affine_grid_values_and_gradients():
    """The grid and theta's gradient: torch's bits (float64 5-D gradients: within rounding,
    torch's MKL product sums in its own order)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    for k in range(24):
        dtype = DTYPES[k % 4]
        five = bool((k // 4) % 2)
        align = bool((k // 8) % 2)
        n = int(rng.integers(1, 4))
        spatial = tuple(int(v) for v in rng.integers(2, 30 if k % 3 else 5, 3 if five else 2))
        th0 = rng.standard_normal((n, 3, 4) if five else (n, 2, 3))
        go0 = rng.standard_normal((n,) + spatial + (len(spatial),))
        out = []
        for T in (torch, mt):
            th = T.tensor(th0).to(getattr(T, dtype)).requires_grad_()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                g = T.nn.functional.affine_grid(th, (n, 2) + spatial, align_corners=align)
            g.backward(T.tensor(go0).to(g.dtype))
            out.append(_arrays(g, th.grad) + [g.dtype, g.grad_fn.name()])
        (gt, tt, dt_t, node_t), (gm, tm, dt_m, node_m) = out
        assert _same(gt, gm) and str(dt_t) == str(dt_m) and node_t == node_m
        if five and dtype == "float64":
            np.testing.assert_allclose(tm, tt, rtol=1e-13, atol=1e-13)
        else:
            assert _same(tt, tm), (dtype, five, align, spatial)


def _errors(T):
    nnf = T.nn.functional
    x4, g4 = T.ones(2, 3, 4, 5), T.zeros(2, 6, 7, 2)
    x5, g5 = T.ones(2, 3, 4, 5, 6), T.zeros(2, 1, 6, 7, 3)
    th = T.zeros(2, 2, 3)

    def gs(*a, **k):
        k.setdefault("align_corners", False)
        return lambda: nnf.grid_sample(*a, **k)

    def ag(*a, **k):
        k.setdefault("align_corners", False)
        return lambda: nnf.affine_grid(*a, **k)
    return {
        "mode": gs(x4, g4, mode="linear"), "mode_int": gs(x4, g4, mode=1),
        "padding": gs(x4, g4, padding_mode="zero"),
        "mode_first": gs(x4, g4, mode="x", padding_mode="y"),
        "batch": gs(x4, g4[:1]), "last_dim": gs(x4, g4[..., :1]),
        "last_dim_3": gs(x4, T.zeros(2, 6, 7, 3)), "3d_grid_for_4d": gs(x4, T.zeros(2, 1, 6, 7, 2)),
        "unbatched": gs(x4[0], g4[0]), "input_3d": gs(T.ones(2, 3, 5), T.zeros(2, 3, 1)),
        "input_6d": gs(T.ones(2, 3, 4, 5, 6, 7), T.zeros(2, 1, 1, 6, 7, 4)),
        "input_1d": gs(T.ones(2), T.ones(2)), "input_0d": gs(T.tensor(1.0), T.ones(2)),
        "grid_0d": gs(T.ones(2), T.tensor(1.0)),
        "empty_spatial": gs(T.ones(2, 3, 0, 5), g4), "empty_spatial_5d": gs(
            T.ones(2, 3, 4, 0, 6), g5),
        "bicubic_5d": gs(x5, g5, mode="bicubic"), "bicubic_5d_int": gs(x5.int(), g5,
                                                                      mode="bicubic"),
        "grid_dtype": gs(x4, g4.double()), "grid_dtype_5d": gs(x5, g5.double()),
        "grid_half": gs(x4.half(), g4), "grid_int": gs(x4, g4.int()),
        "input_int": gs(x4.int(), g4.int()), "input_bool_5d": gs(x5.bool(), g5),
        "input_long": gs(x4.long(), g4),
        "empty_int_4d": gs(T.ones(0, 3, 4, 5).int(), T.zeros(0, 6, 7, 2)),
        "empty_int_5d": gs(T.ones(0, 3, 4, 5, 6).int(), T.zeros(0, 1, 6, 7, 3)),
        "empty_mixed_5d": gs(T.ones(2, 0, 4, 5, 3), T.zeros(2, 1, 7, 2, 3).double()),
        "empty_grid_4d": gs(x4, T.zeros(2, 0, 7, 2).double()),
        "numpy_input": gs(np.ones((2, 3, 4, 5)), g4), "numpy_grid": gs(x4, np.zeros((2, 6, 7, 2))),
        "align_int": gs(x4, g4, align_corners=1), "align_str": gs(x4, g4, align_corners="a"),
        "positional": lambda: nnf.grid_sample(x4, g4, "nearest", "border", True),
        "ag_int_theta": ag(th.int(), (2, 3, 4, 5)), "ag_bool_theta": ag(th.bool(), (2, 3, 4)),
        "ag_shape_4d": ag(T.zeros(2, 3, 4), (2, 3, 4, 5)),
        "ag_shape_5d": ag(th, (2, 3, 4, 5, 6)), "ag_shape_list": ag(th, [2, 3, 4, 5, 6]),
        "ag_shape_size": ag(th, T.Size([2, 3, 4, 5, 6])), "ag_2d_theta": ag(th[0], (2, 3, 4, 5)),
        "ag_4d_theta": ag(T.zeros(2, 2, 3, 1), (2, 3, 4, 5)),
        "ag_len3": ag(th, (2, 3, 4)), "ag_len7": ag(th, (2, 3, 4, 5, 6, 7, 8)),
        "ag_zero": ag(th, (2, 0, 4, 5)), "ag_negative": ag(th, (2, 3, -1, 5)),
        "ag_zero_batch": ag(th, (0, 3, 4, 5)),
        "ag_unit_aligned_zero": ag(th, (2, 3, 1, 0), align_corners=True),
        "ag_unit_aligned_c": ag(th, (2, -3, 1, 5), align_corners=True),
        "ag_negative_batch": ag(th, (-1, 3, 1, 5), align_corners=True),
        "ag_batch": ag(th, (3, 3, 4, 5)), "ag_batch_5d": ag(T.zeros(1, 3, 4), (3, 3, 2, 4, 5)),
        "ag_float_size": ag(th, (2, 3, 4.0, 5)), "ag_int_size": ag(th, 5),
        "ag_align_int": ag(th, (2, 3, 4, 5), align_corners=1),
        "ag_half_unit": ag(th.half(), (2, 3, 1, 5)),
        "ag_bf16_unit": ag(T.zeros(2, 3, 4).bfloat16(), (2, 3, 4, 1, 5), align_corners=True),
        "ag_numpy": ag(np.zeros((2, 2, 3)), (2, 3, 4, 5)),
    }


def test_errors_as_torch():
    assert_same_as_torch(lambda T: _sweep(T), mt)


def _sweep(T):
    from ._sweeps import outcomes
    return outcomes(_errors(T))


def test_warnings_as_torch():
    """align_corners=None warns (torch 2.13 still does, at the caller's line) and means False;
    affine_grid warns for a unit-size dim with align_corners=True."""
    torch = pytest.importorskip("torch")

    def caught(T):
        out = []
        for call in (lambda: T.nn.functional.grid_sample(T.ones(1, 1, 2, 2), T.zeros(1, 1, 1, 2)),
                     lambda: T.nn.functional.affine_grid(T.zeros(1, 2, 3), (1, 1, 2, 2)),
                     lambda: T.nn.functional.affine_grid(T.zeros(1, 2, 3), (1, 1, 1, 2),
                                                         align_corners=True),
                     lambda: T.nn.functional.affine_grid(T.zeros(1, 2, 3), (1, 1, 1, 2),
                                                         align_corners=False)):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                call()
            out.append([(x.category.__name__, str(x.message), x.filename == __file__)
                        for x in w])
        return out
    assert caught(mt) == caught(torch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x, g = mt.ones(1, 1, 2, 2), mt.full((1, 1, 1, 2), 0.75)
        assert mt.equal(F.grid_sample(x * mt.arange(4.0).reshape(1, 1, 2, 2), g),
                        F.grid_sample(x * mt.arange(4.0).reshape(1, 1, 2, 2), g,
                                      align_corners=False))


def test_known_values_without_torch():
    """Hand-computed samples (runs without torch): bilinear weights, nearest's ties to even,
    border and reflection, zeros padding, the 5-D trilinear mean, nearest's zero grid
    gradient, and affine_grid's identity grid."""
    x = mt.tensor([[[[1.0, 2.0], [3.0, 4.0]]]], dtype=mt.float64, requires_grad=True)
    # align_corners=True: (-1, -1) is pixel (0, 0), (1, 1) pixel (1, 1), (0, 0) the centre
    g = mt.tensor([[[[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0], [0.5, -1.0]]]], dtype=mt.float64,
                  requires_grad=True)
    y = F.grid_sample(x, g, mode="bilinear", align_corners=True)
    assert y.reshape(-1).tolist() == [1.0, 4.0, 2.5, 1.75]
    y.sum().backward()
    # d/dx of the value at (x, y): (b - a) * (1 - fy) + (d - c) * fy, times (W - 1) / 2 = 0.5
    assert g.grad.reshape(-1).tolist()[4:6] == [0.5, 1.0]
    assert x.grad.reshape(-1).tolist() == [1.0 + 0.25 + 0.25, 0.25 + 0.75, 0.25, 1.0 + 0.25]
    # nearest, align_corners=False: x = ((g + 1) * 2 - 1) / 2; g = 0 -> 0.5 -> 0 (ties to even)
    y = F.grid_sample(x.detach(), mt.zeros(1, 1, 1, 2, dtype=mt.float64), mode="nearest",
                      align_corners=False)
    assert y.item() == 1.0
    far = mt.tensor([[[[3.0, 0.0]]]], dtype=mt.float64)
    assert F.grid_sample(x.detach(), far, align_corners=True).item() == 0.0
    assert F.grid_sample(x.detach(), far, padding_mode="border",
                         align_corners=True).item() == 3.0  # (column 1, halfway down)
    # reflection about the corner pixels' centres: x = 3 (unnormalized 2.0) reflects to 0
    assert F.grid_sample(x.detach(), far, padding_mode="reflection",
                         align_corners=True).item() == 2.0
    v = mt.arange(8.0, dtype=mt.float64).reshape(1, 1, 2, 2, 2)
    assert F.grid_sample(v, mt.zeros(1, 1, 1, 1, 3, dtype=mt.float64),
                         align_corners=True).item() == 3.5
    gn = mt.zeros(1, 1, 1, 2, dtype=mt.float64, requires_grad=True)
    F.grid_sample(x.detach(), gn, mode="nearest", align_corners=True).sum().backward()
    assert gn.grad.tolist() == [[[[0.0, 0.0]]]]
    ident = F.affine_grid(mt.tensor([[[1.0, 0, 0], [0, 1.0, 0]]], dtype=mt.float64),
                          (1, 1, 2, 3), align_corners=True)
    assert ident.tolist() == [[[[-1.0, -1.0], [0.0, -1.0], [1.0, -1.0]],
                               [[-1.0, 1.0], [0.0, 1.0], [1.0, 1.0]]]]
    ident = F.affine_grid(mt.tensor([[[1.0, 0, 0], [0, 1.0, 0]]], dtype=mt.float64),
                          (1, 1, 1, 2), align_corners=False)
    assert ident.tolist() == [[[[-0.5, 0.0], [0.5, 0.0]]]]


def test_double_backward():
    """affine_grid's gradient is differentiable again (torch's values); grid_sample's is not
    here (torch 2.13's is: SPEC)."""
    th = mt.tensor(np.arange(6.0).reshape(1, 2, 3) / 5, dtype=mt.float64, requires_grad=True)
    g = F.affine_grid(th, (1, 1, 2, 2), align_corners=True)
    (gt,) = mt.autograd.grad((g * g).sum(), th, create_graph=True)
    (h,) = mt.autograd.grad(gt.sum(), th)
    # d/dtheta sum(2 * grid * base) = 2 * sum(base_j * base_k): the base points (+-1, +-1, 1)
    assert h.tolist() == [[[8.0, 8.0, 8.0], [8.0, 8.0, 8.0]]]
    x = mt.ones(1, 1, 2, 2, requires_grad=True)
    gg = mt.zeros(1, 1, 1, 2, requires_grad=True)
    gx, g2 = mt.autograd.grad(F.grid_sample(x, gg, align_corners=False).sum(), (x, gg),
                              create_graph=True)
    assert g2.grad_fn.name() == "GridSampler2DBackwardBackward0"
    with pytest.raises(NotImplementedError, match="double backward"):
        (gx.sum() + g2.sum()).backward()


def test_node_names_and_empty_results():
    x = mt.ones(2, 3, 4, 5, requires_grad=True)
    y = F.grid_sample(x, mt.zeros(2, 0, 7, 2, requires_grad=True), align_corners=False)
    assert tuple(y.shape) == (2, 3, 0, 7) and y.grad_fn.name() == "GridSampler2DBackward0"
    y.sum().backward()
    assert x.grad.abs().sum().item() == 0
    y = F.grid_sample(mt.ones(0, 3, 4, 5).int(), mt.zeros(0, 6, 7, 2), align_corners=False)
    assert tuple(y.shape) == (0, 3, 6, 7) and y.dtype == mt.int32
    g = mt.zeros(1, 1, 2, 2, 3, requires_grad=True)
    y = F.grid_sample(mt.ones(1, 2, 3, 3, 3), g, align_corners=True)
    assert y.grad_fn.name() == "GridSampler3DBackward0"
    th = mt.zeros(1, 3, 4, requires_grad=True)
    assert F.affine_grid(th, (1, 1, 2, 2, 2), align_corners=True).grad_fn.name() == \
        "AffineGridGeneratorBackward0"


class _STN(mt.nn.Module):
    """A spatial transformer: a linear head predicts each image's affine map, the image is
    resampled through it, then classified."""

    def __init__(self):
        super().__init__()
        self.loc = mt.nn.Linear(16, 6)
        self.fc = mt.nn.Linear(16, 3)

    def forward(self, x):
        theta = self.loc(x.flatten(1)).reshape(-1, 2, 3)
        grid = F.affine_grid(theta, tuple(x.shape), align_corners=False)
        y = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
        z = F.grid_sample(y, grid, mode="bicubic", padding_mode="reflection",
                          align_corners=False)
        return self.fc(z.flatten(1))


def test_traced_step_on_the_wafer_gives_the_cpu_values(tmp_path):
    """affine_grid and grid_sample (and both gradients) in a traced training step on the
    emulated wafer: the CPU backend's losses and weights bit for bit."""
    rng = np.random.default_rng(0)
    data = [(mt.from_numpy(rng.standard_normal((2, 1, 4, 4), dtype=np.float32)),
             mt.from_numpy(rng.integers(0, 3, 2))) for _ in range(3)]
    cpu, csx = (train_on_backend(kind, tmp_path, _STN, data, 3) for kind in ("CPU", "CSX"))
    assert cpu[0] == csx[0] and len(set(cpu[0])) == 3
    assert (cpu[2], csx[2]) == (3, 1)  # (the wafer traced the step once and replayed it)
    for a, b in zip(cpu[1], csx[1]):
        assert a.tobytes() == b.tobytes()
