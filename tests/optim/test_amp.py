"""cstorch.amp: half-dtype settings, autocast on CPU, GradScaler (as measured on the real 2.10 CPU backend, and
the dynamic-loss-scaling semantics we run where the real CPU backend crashes), optimizer_step."""
from __future__ import annotations

import copy

import ml_dtypes
import numpy as np
import pytest

import minitorch_cs.optim as optim
import minitorch_cs.torch as torch
import minitorch_cs.torch.nn.functional as F
from minitorch_cs import amp
from minitorch_cs.optim import lr_scheduler as LRS

BF16 = ml_dtypes.bfloat16


# ---- settings ------------------------------------------------------------------------------------
def test_half_dtype_settings(backend):
    assert not amp.mixed_precision()
    assert amp.get_half_dtype() is torch.float16 and amp.get_half_dtype_str() == "float16"
    assert amp.get_floating_point_dtype() is torch.float32
    assert amp.get_floating_point_dtype_str() == "float32"
    assert amp.set_half_dtype("bfloat16") is torch.bfloat16
    assert amp.mixed_precision() and amp.get_floating_point_dtype() is torch.bfloat16
    assert amp.set_half_dtype("cbfloat16") is torch.float16  # proxy dtype
    assert amp.get_half_dtype_str() == "cbfloat16"
    assert amp.is_cbfloat16_tensor(torch.zeros(2, dtype=torch.float16))
    assert not amp.is_cbfloat16_tensor(torch.zeros(2))
    assert amp.set_half_dtype(torch.float16) is torch.float16
    assert not amp.is_cbfloat16_tensor(torch.zeros(2, dtype=torch.float16))
    assert amp.enable_mixed_precision(False) is False and not amp.mixed_precision()
    assert amp.get_floating_point_dtype_str() == "float32"


# ---- autocast --------------------------------------------------------------------------------
def _bf16(a):
    return np.asarray(a, np.float32).astype(BF16).astype(np.float32)


def test_autocast_computes_linear_matmul_conv_in_bfloat16(backend):
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((4, 5)).astype(np.float32))
    w = torch.tensor(rng.standard_normal((3, 5)).astype(np.float32), requires_grad=True)
    b = torch.tensor(rng.standard_normal(3).astype(np.float32), requires_grad=True)
    img = torch.tensor(rng.standard_normal((1, 2, 5, 5)).astype(np.float32))
    k = torch.tensor(rng.standard_normal((3, 2, 3, 3)).astype(np.float32))
    with amp.autocast(torch.bfloat16):
        y = F.linear(x, w, b)
        z = x @ w.mT
        c = F.conv2d(img, k)
        s = x + 1.0  # elementwise ops are not autocast
    assert y.dtype is torch.bfloat16 and z.dtype is torch.bfloat16 and c.dtype is torch.bfloat16
    assert s.dtype is torch.float32
    want = _bf16(_bf16(_bf16(x.numpy()) @ _bf16(w.detach().numpy()).T) + _bf16(b.detach().numpy()))
    np.testing.assert_array_equal(y.float().detach().numpy(), want)
    y.float().sum().backward()
    assert w.grad.dtype is torch.float32 and b.grad.dtype is torch.float32
    assert F.linear(x, w, b).dtype is torch.float32  # back to float32 outside the block


def test_autocast_uses_the_half_dtype_by_default(backend):
    amp.set_half_dtype(torch.bfloat16)
    with amp.autocast() as ctx:
        assert ctx is not None
        assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype is torch.bfloat16


# ---- GradScaler on the CPU backend: what the real stack shows --------------------------------
def _param_with_grad(value=0.552314):
    p = torch.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    p.grad = torch.tensor([value, value])
    return p, opt


@pytest.mark.parametrize("kwargs,divisor", [({"loss_scale": 128}, 128.0),
                                            ({"loss_scale": "dynamic"}, 32768.0),
                                            ({"loss_scale": "dynamic", "init_scale": 8}, 8.0),
                                            ({}, 1.0)])
def test_cpu_scale_identity_but_unscale_divides(kwargs, divisor, backend):
    """Observation #12."""
    p, opt = _param_with_grad()
    scaler = amp.GradScaler(**kwargs)
    loss = (p * p).sum()
    assert scaler.scale(loss) is loss
    assert scaler.state_dict() == {}
    scaler.unscale_(opt)
    np.testing.assert_allclose(p.grad.numpy(), np.float32(0.552314) / np.float32(divisor),
                               rtol=1e-7)
    scaler.unscale_(opt)  # a second unscale_ is a no-op
    np.testing.assert_allclose(p.grad.numpy(), np.float32(0.552314) / np.float32(divisor),
                               rtol=1e-7)


def test_cpu_scale_values_and_types(backend):
    """Observation #13."""
    static = amp.GradScaler(loss_scale=128.0)
    assert isinstance(static.get_scale(), float) and static.get_scale() == 128.0
    dyn = amp.GradScaler("dynamic")
    assert isinstance(dyn.get_scale(), torch.Tensor) and dyn.get_scale().dtype is torch.float32
    assert float(dyn.get_scale()) == 32768.0
    assert float(amp.GradScaler("dynamic", init_scale=1024, max_loss_scale=256).get_scale()) == 256
    skipped = static.get_num_skipped_steps()
    assert skipped.dtype is torch.int64 and int(skipped) == 0
    dyn.load_state_dict({"loss_scale": 4.0, "num_skipped_steps": 3})
    assert float(dyn.get_scale()) == 4.0 and int(dyn.get_num_skipped_steps()) == 3
    assert dyn.state_dict() == {}
    amp.set_half_dtype("cbfloat16")
    assert float(amp.GradScaler("dynamic").get_scale()) == 2.0 ** 31


# ---- dynamic loss scaling: conditional steps and rollback ------------------------------------
def _setup(scale=8.0, **kw):
    p = torch.tensor(np.linspace(-1, 1, 6).reshape(2, 3).astype(np.float32), requires_grad=True)
    q = torch.tensor(np.array([0.5, -0.5], np.float32), requires_grad=True)
    opt = optim.Adam([p, q], lr=0.01)
    seq = LRS.SequentialLR(opt, [LRS.LinearLR(opt, 0.01, 0.02, 3), LRS.StepLR(opt, 0.02, 2, 0.5)],
                           milestones=[3])
    scaler = amp.GradScaler("dynamic", init_scale=scale, **kw)
    return p, q, opt, seq, scaler


def _grads(k, scale):
    """Gradients as the backward of a loss scaled by ``scale`` (a power of two: exact)."""
    g1 = (np.sin(np.arange(6, dtype=np.float32).reshape(2, 3) + k) * scale).astype(np.float32)
    g2 = (np.cos(np.arange(2, dtype=np.float32) + k) * scale).astype(np.float32)
    return g1, g2


def _snapshot(p, q, opt, seq):
    return (p.detach().numpy().copy(), q.detach().numpy().copy(),
            copy.deepcopy({k: {n: v.numpy().copy() for n, v in st.items()}
                           for k, st in opt.state_dict()["state"].items()}),
            int(seq.last_epoch), [int(s.last_epoch) for s in seq._schedulers],
            float(opt.param_groups[0]["lr"]))


def _same(a, b):
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    for k in a[2]:
        for n in a[2][k]:
            np.testing.assert_array_equal(a[2][k][n], b[2][k][n])
    assert a[3:] == b[3:]


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_non_finite_step_is_rolled_back(bad, backend):
    p, q, opt, seq, scaler = _setup()
    for k in range(2):  # two clean steps
        g1, g2 = _grads(k, float(scaler.get_scale()))
        p.grad, q.grad = torch.tensor(g1), torch.tensor(g2)
        scaler.step(opt)
        scaler.update()
        seq.step()
    before = _snapshot(p, q, opt, seq)
    assert before[3] == 2
    g1, g2 = _grads(2, float(scaler.get_scale()))
    g2[1] = bad
    p.grad, q.grad = torch.tensor(g1), torch.tensor(g2)
    scaler.step(opt)
    scaler.update()
    seq.step()
    _same(_snapshot(p, q, opt, seq), before)  # params, Adam state, all counters, lr: unchanged
    assert int(scaler.get_num_skipped_steps()) == 1
    assert float(scaler.get_scale()) == 4.0  # halved (overflow tolerance 0)
    assert not bool(amp.isfinite(opt))


def test_skipped_step_leaves_no_trace(backend):
    """A run with one overflowing step, then clean steps, equals the run without that step."""
    def run(inject):
        p, q, opt, seq, scaler = _setup(scale=4.0, max_loss_scale=4.0)
        ks = [0, 1, "bad", 2, 3] if inject else [0, 1, 2, 3]
        for k in ks:
            g1, g2 = _grads(0 if k == "bad" else k, float(scaler.get_scale()))
            if k == "bad":
                g1[0, 0] = np.inf
            p.grad, q.grad = torch.tensor(g1), torch.tensor(g2)
            scaler.step(opt)
            scaler.update()
            seq.step()
        return _snapshot(p, q, opt, seq)

    with_skip, without = run(True), run(False)
    np.testing.assert_array_equal(with_skip[0], without[0])
    np.testing.assert_array_equal(with_skip[1], without[1])
    assert with_skip[3:] == without[3:]


def _simulate_scale(flags, init, per_increase, tolerance, lo, hi):
    """Independent restatement of the DLS update rule (cstorch 2.10 `amp/grad_scaler.py`)."""
    scale, steps, overflows, out = min(init, hi), 0, 0, []
    for finite in flags:
        steps += 1
        overflows += 0 if finite else 1
        if overflows / steps > tolerance:
            scale, steps, overflows = scale / 2, 0, 0
        if steps > per_increase:
            scale, steps, overflows = scale * 2, 0, 0
        scale = min(scale, hi)
        unclamped = scale
        scale = max(scale, lo)
        out.append((scale, unclamped))
    return out


@pytest.mark.parametrize("tolerance", [0.0, 0.4])
def test_dynamic_scale_update_rule(tolerance, backend):
    p = torch.zeros(2, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    scaler = amp.GradScaler("dynamic", init_scale=4.0, steps_per_increase=2,
                            min_loss_scale=0.5, max_loss_scale=16.0,
                            overflow_tolerance=tolerance)
    flags = [True, True, True, False, True, False, False, False, False, True, True, True, True,
             True, True, True, True, True]
    want = _simulate_scale(flags, 4.0, 2, tolerance, 0.5, 16.0)
    for finite, (scale, unclamped) in zip(flags, want):
        p.grad = torch.tensor([1.0, 1.0 if finite else np.inf])
        scaler.step(opt)
        scaler.update()
        assert float(scaler.get_scale()) == scale
        assert float(scaler.get_non_clamped_scale()) == unclamped
    assert int(scaler.get_num_skipped_steps()) == flags.count(False)


def test_static_scaler_steps_unconditionally(backend):
    p = torch.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([p], lr=0.5)
    scaler = amp.GradScaler(loss_scale=4.0)
    p.grad = torch.tensor([4.0, 8.0])
    scaler.step(opt)  # unscales (/4) then steps
    scaler.update()
    np.testing.assert_array_equal(p.detach().numpy(), [0.5, 1.0])
    assert float(scaler.get_scale()) == 4.0


def test_optimizer_created_after_the_scaler(backend):
    scaler = amp.GradScaler("dynamic", init_scale=2.0)
    p = torch.tensor([1.0], requires_grad=True)
    opt = optim.SGD([p], lr=1.0)
    p.grad = torch.tensor([2.0])
    scaler.step(opt)
    scaler.update()
    np.testing.assert_array_equal(p.detach().numpy(), [0.0])


# ---- optimizer_step ----------------------------------------------------------------------------
def _loss_setup():
    w = torch.tensor(np.array([[0.5, -1.0], [2.0, 0.25]], np.float32), requires_grad=True)
    x = torch.tensor(np.array([[1.0, 2.0], [3.0, -1.0]], np.float32))
    return w, x


def test_optimizer_step_equals_the_manual_sequence(backend):
    w, x = _loss_setup()
    opt = optim.SGD([w], lr=0.1, momentum=0.9)
    scaler = amp.GradScaler()
    amp.optimizer_step(((x @ w) ** 2).sum(), opt, scaler)
    assert w.grad is None  # zero_grad ran
    w2, _ = _loss_setup()
    opt2 = optim.SGD([w2], lr=0.1, momentum=0.9)
    ((x @ w2) ** 2).sum().backward()
    opt2.step()
    np.testing.assert_array_equal(w.detach().numpy(), w2.detach().numpy())


@pytest.mark.parametrize("mode", ["norm", "value"])
def test_optimizer_step_clips(mode, backend):
    w, x = _loss_setup()
    opt = optim.SGD([w], lr=1.0)
    ((x @ w) ** 2).sum().backward()
    g = w.grad.numpy().astype(np.float64)
    w.grad = None
    before = w.detach().numpy().copy()
    if mode == "norm":
        amp.optimizer_step(((x @ w) ** 2).sum(), opt, amp.GradScaler(), max_gradient_norm=1.0)
        want = g * min(1.0, 1.0 / (np.sqrt((g ** 2).sum()) + 1e-6))
    else:
        amp.optimizer_step(((x @ w) ** 2).sum(), opt, amp.GradScaler(), max_gradient_value=0.5)
        want = np.clip(g, -0.5, 0.5)
    np.testing.assert_allclose(before - w.detach().numpy(), want, rtol=1e-5)


def test_optimizer_step_with_dynamic_scaler_skips_overflow(backend):
    w, x = _loss_setup()
    opt = optim.SGD([w], lr=0.1)
    scaler = amp.GradScaler("dynamic")
    before = w.detach().numpy().copy()
    amp.optimizer_step((w * w).sum() * float("inf"), opt, scaler)
    np.testing.assert_array_equal(w.detach().numpy(), before)
    assert int(scaler.get_num_skipped_steps()) == 1 and float(scaler.get_scale()) == 16384.0
