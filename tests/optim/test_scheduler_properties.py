"""Closed forms at random steps against independent float64 formulas, and the composition laws
of SequentialLR / ChainedScheduler / ScalePerParamLR."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minitorch_cs.optim as optim
from minitorch_cs.optim import lr_scheduler as LRS
from minitorch_cs.optim import weight_decay_scheduler as WDS

from ._golden import make_groups, value

rates = st.floats(1e-4, 2.0)
ts = st.integers(0, 3000)
iters = st.integers(1, 500)
fracs = st.floats(0.05, 0.99)


def _close(got, want, scale):
    """float32 evaluation vs float64 formula: relative 2e-5, absolute 1e-6 of the scale."""
    assert got == pytest.approx(want, rel=2e-5, abs=1e-6 * scale + 1e-30), (got, want)


def f32(x):
    """cstorch holds bases of powers as float32 tensors; the formulas round them the same way
    (otherwise f32(0.99999)^3000 vs 0.99999^3000 differs by far more than float32 arithmetic)."""
    return float(np.float32(x))


def _opt():
    return optim.SGD(make_groups(1), lr=0.1, weight_decay=0.01)


# ---- independent formulas (float64) ---------------------------------------------------------
def poly(i, e, T, p, t):
    return e if t >= T else (i - e) * (1 - t / T) ** p + e


def cyclic(b, m, up, down, mode, gamma, t):
    total = up + down
    r = up / total
    c = math.floor(1 + t / total)
    x = 1 + t / total - c
    h = x / r if x <= r else (x - 1) / (r - 1)
    if mode == "triangular":
        s = 1.0
    elif mode == "triangular2":
        s = 2.0 ** -(c - 1)
    else:
        s = f32(gamma) ** t
    return b + (m - b) * h * s


def onecycle(i, m, T, pct, div, three, strategy, t):
    lo = i / div
    if three:
        bounds = [pct * T - 1, 2 * pct * T - 2, T - 1]
        phases = [(i, m), (m, i), (i, lo)]
    else:
        bounds = [pct * T - 1, T - 1]
        phases = [(i, m), (m, lo)]
    k = 0
    while k + 1 < len(bounds) and t > bounds[k]:
        k += 1
    begin = 0.0 if k == 0 else bounds[k - 1]
    frac = (t - begin) / (bounds[k] - begin)
    s, e = phases[k]
    if strategy == "cos":
        return e + (s - e) * 0.5 * (1 + math.cos(math.pi * frac))
    return s + frac * (e - s)


CASES = {
    "ConstantLR": (st.tuples(rates, st.one_of(st.none(), iters)),
                   lambda o, a: LRS.ConstantLR(o, a[0], a[1]),
                   lambda a, t: f32(a[0])),
    "LinearLR": (st.tuples(rates, rates, iters),
                 lambda o, a: LRS.LinearLR(o, a[0], a[1], a[2]),
                 lambda a, t: poly(a[0], a[1], a[2], 1.0, t)),
    "PolynomialLR": (st.tuples(rates, rates, iters, st.floats(0.5, 3.0)),
                     lambda o, a: LRS.PolynomialLR(o, a[0], a[1], a[2], power=a[3]),
                     lambda a, t: poly(a[0], a[1], a[2], a[3], t)),
    "ExponentialLR": (st.tuples(rates, iters, st.floats(0.5, 0.999), st.booleans()),
                      lambda o, a: LRS.ExponentialLR(o, a[0], a[1], a[2], staircase=a[3]),
                      lambda a, t: a[0] * f32(a[2]) ** (math.floor(t / a[1]) if a[3]
                                                        else t / a[1])),
    "InverseExponentialTimeDecayLR": (
        st.tuples(rates, st.integers(1, 2), iters, st.floats(0.01, 2.0), st.booleans()),
        lambda o, a: LRS.InverseExponentialTimeDecayLR(o, a[0], a[1], a[2], a[3], a[4]),
        lambda a, t: a[0] / (1 + a[3] * (math.floor(t ** a[1] / a[2]) if a[4]
                                         else t ** a[1] / a[2]))),
    "InverseSquareRootDecayLR": (
        st.tuples(rates, st.floats(0.1, 5.0), st.integers(1, 100)),
        lambda o, a: LRS.InverseSquareRootDecayLR(o, a[0], a[1], a[2]),
        lambda a, t: a[0] * a[1] / math.sqrt(max(t, a[2]))),
    "CosineDecayLR": (st.tuples(rates, rates, iters),
                      lambda o, a: LRS.CosineDecayLR(o, a[0], a[1], a[2]),
                      lambda a, t: a[1] + (a[0] - a[1]) * 0.5 * (
                          1 + math.cos(math.pi * min(t, a[2]) / a[2]))),
    "CosineAnnealingLR": (st.tuples(rates, iters, st.floats(0.0, 1e-3)),
                          lambda o, a: LRS.CosineAnnealingLR(o, a[0], a[1], a[2]),
                          lambda a, t: a[2] + (a[0] - a[2]) * 0.5 * (
                              1 + math.cos(math.pi * t / a[1]))),
    "CosineAnnealingWarmRestarts": (
        st.tuples(rates, iters, st.floats(0.0, 1e-3)),
        lambda o, a: LRS.CosineAnnealingWarmRestarts(o, a[0], a[1], eta_min=a[2]),
        lambda a, t: a[2] + (a[0] - a[2]) * 0.5 * (1 + math.cos(
            math.pi * (t if t < a[1] else (t // a[1] - 1) * a[1]) / a[1]))),
    "StepLR": (st.tuples(rates, st.integers(1, 200), st.floats(0.1, 0.99)),
               lambda o, a: LRS.StepLR(o, a[0], a[1], a[2]),
               lambda a, t: a[0] * f32(a[2]) ** (t // a[1])),
    "MultiStepLR": (st.tuples(rates, st.floats(0.1, 0.99),
                              st.lists(st.integers(1, 3000), min_size=1, max_size=4)),
                    lambda o, a: LRS.MultiStepLR(o, a[0], a[1], a[2]),
                    lambda a, t: a[0] * f32(a[1]) ** sum(t >= m for m in a[2])),
    "MultiplicativeLR": (st.tuples(rates, st.floats(0.99, 1.0)),
                         lambda o, a: LRS.MultiplicativeLR(o, a[0], a[1]),
                         lambda a, t: a[0] * f32(a[1]) ** t),
    "LambdaLR": (st.tuples(rates,), lambda o, a: LRS.LambdaLR(o, a[0]),
                 lambda a, t: a[0] * a[0] * (t / 30) * f32(0.95) ** t),
    "CyclicLR": (st.tuples(rates, rates, st.integers(1, 100), st.integers(1, 100),
                           st.sampled_from(["triangular", "triangular2", "exp_range"]),
                           st.floats(0.99, 1.0)),
                 lambda o, a: LRS.CyclicLR(o, a[0], a[1], a[2], a[3], mode=a[4], gamma=a[5]),
                 lambda a, t: cyclic(*a, t)),
    "OneCycleLR": (st.tuples(rates, rates, st.sampled_from([20, 40, 100, 400]),
                             st.sampled_from([0.25, 0.3, 0.4]), st.sampled_from([10.0, 1e4]),
                             st.booleans(), st.sampled_from(["cos", "linear"])),
                   lambda o, a: LRS.OneCycleLR(o, a[0], a[1], a[2], a[3], a[4], a[5], a[6]),
                   lambda a, t: onecycle(*a, t)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_closed_form_matches_formula(name, backend):
    strategy, make, formula = CASES[name]

    @given(args=strategy, t=ts)
    def check(args, t):
        sched = make(_opt(), args)
        scale = max(abs(a) for a in args[:2] if isinstance(a, float)) if name != "LambdaLR" \
            else args[0] ** 2
        if name == "OneCycleLR":
            # linear extrapolation grows, and cosine arguments (float32) grow with t
            scale = max(args[0], args[1]) * (1 + t / args[2])
        if name == "CosineAnnealingLR":
            scale *= 1 + t / args[1]  # float32 cos(π·t/T_max) loses absolute accuracy as t grows
        _close(value(sched.value_at(t)), formula(args, t), scale)

    check()


WD_PAIRS = [
    (lambda o: LRS.ConstantLR(o, 0.3, 5), lambda o: WDS.ConstantWD(o, 0.3, 5)),
    (lambda o: LRS.PolynomialLR(o, 0.1, 0.01, 20, 2.0),
     lambda o: WDS.PolynomialWD(o, 0.1, 0.01, 20, 2.0)),
    (lambda o: LRS.LinearLR(o, 0.1, 0.01, 20), lambda o: WDS.LinearWD(o, 0.1, 0.01, 20)),
    (lambda o: LRS.ExponentialLR(o, 0.1, 7, 0.5, True),
     lambda o: WDS.ExponentialWD(o, 0.1, 7, 0.5, True)),
    (lambda o: LRS.InverseExponentialTimeDecayLR(o, 0.1, 2, 5, 0.1),
     lambda o: WDS.InverseExponentialTimeDecayWD(o, 0.1, 2, 5, 0.1)),
    (lambda o: LRS.InverseSquareRootDecayLR(o, 0.5, 2.0, 4),
     lambda o: WDS.InverseSquareRootDecayWD(o, 0.5, 2.0, 4)),
    (lambda o: LRS.CosineDecayLR(o, 0.1, 0.01, 10), lambda o: WDS.CosineDecayWD(o, 0.1, 0.01, 10)),
    (lambda o: LRS.SequentialLR(o, [LRS.LinearLR(o, 0.0, 0.1, 10), LRS.StepLR(o, 0.1, 3, 0.5)],
                                [10]),
     lambda o: WDS.SequentialWD(o, [WDS.LinearWD(o, 0.0, 0.1, 10), WDS.StepWD(o, 0.1, 3, 0.5)],
                                [10])),
    (lambda o: LRS.PiecewiseConstantLR(o, [0.3, 0.2, 0.1], [4, 9]),
     lambda o: WDS.PiecewiseConstantWD(o, [0.3, 0.2, 0.1], [4, 9])),
    (lambda o: LRS.MultiStepLR(o, 0.2, 0.5, [3, 11]),
     lambda o: WDS.MultiStepWD(o, 0.2, 0.5, [3, 11])),
    (lambda o: LRS.StepLR(o, 0.2, 7, 0.5), lambda o: WDS.StepWD(o, 0.2, 7, 0.5)),
    (lambda o: LRS.CosineAnnealingLR(o, 0.1, 7, 0.01),
     lambda o: WDS.CosineAnnealingWD(o, 0.1, 7, 0.01)),
    (lambda o: LRS.LambdaLR(o, 0.5), lambda o: WDS.LambdaWD(o, 0.5)),
    (lambda o: LRS.CosineAnnealingWarmRestarts(o, 1.0, 6, eta_min=0.05),
     lambda o: WDS.CosineAnnealingWarmRestartsWD(o, 1.0, 6, eta_min=0.05)),
    (lambda o: LRS.MultiplicativeLR(o, 0.2, 0.9), lambda o: WDS.MultiplicativeWD(o, 0.2, 0.9)),
    (lambda o: LRS.ChainedLR([LRS.LinearLR(o, 0.1, 0.01, 10), LRS.StepLR(o, 1.0, 4, 0.5)]),
     lambda o: WDS.ChainedWD([WDS.LinearWD(o, 0.1, 0.01, 10), WDS.StepWD(o, 1.0, 4, 0.5)])),
    (lambda o: LRS.CyclicLR(o, 0.1, 1.0, 3, 5, "exp_range", 0.97),
     lambda o: WDS.CyclicWD(o, 0.1, 1.0, 3, 5, "exp_range", 0.97)),
    (lambda o: LRS.OneCycleLR(o, 0.1, 1.0, 30, 0.25, 1e4, True),
     lambda o: WDS.OneCycleWD(o, 0.1, 1.0, 30, 0.25, 1e4, True)),
    (lambda o: LRS.ScalePerParamLR(o, LRS.LinearLR(o, 0.1, 0.01, 10)),
     lambda o: WDS.ScalePerParamWD(o, WDS.LinearWD(o, 0.1, 0.01, 10))),
]


def test_every_weight_decay_scheduler_is_covered(backend):
    built = {type(make_wd(_opt())).__name__ for _, make_wd in WD_PAIRS}
    assert built == set(WDS.__all__) - {"WeightDecayScheduler"}


@pytest.mark.parametrize("pair", range(len(WD_PAIRS)))
def test_weight_decay_schedulers_share_the_closed_forms(pair, backend):
    make_lr, make_wd = WD_PAIRS[pair]
    opt = _opt()
    lr, wd = make_lr(opt), make_wd(opt)
    for t in range(40):
        assert value(opt.param_groups[0]["lr"]) == value(opt.param_groups[0]["weight_decay"])
        opt.step()
        lr.step()
        wd.step()


# ---- composition -------------------------------------------------------------------------------
def _standalone(kind, args):
    """A fresh, independent scheduler (on its own optimizer) to evaluate a piece alone."""
    return kind(_opt(), *args)


PIECES = [(LRS.LinearLR, (0.01, 0.001, 7)), (LRS.CosineDecayLR, (0.001, 1e-4, 11)),
          (LRS.ExponentialLR, (0.02, 5, 0.7)), (LRS.StepLR, (0.05, 3, 0.5)),
          (LRS.ConstantLR, (0.03, 4)), (LRS.CyclicLR, (0.01, 0.1, 3))]


def test_sequential_runs_each_piece_from_its_milestone(backend):
    """SequentialLR at step t is piece j at t − m_{j−1} (stepping and closed form agree)."""
    check_sequential()


@given(pieces=st.lists(st.sampled_from(range(len(PIECES))), min_size=1, max_size=4),
       gaps=st.lists(st.integers(1, 15), min_size=3, max_size=3), n=st.integers(0, 60))
def check_sequential(pieces, gaps, n):
    opt = _opt()
    subs = [PIECES[j][0](opt, *PIECES[j][1]) for j in pieces]
    milestones = list(np.cumsum(gaps[:len(pieces) - 1]).astype(int).tolist())
    seq = LRS.SequentialLR(opt, subs, milestones=milestones)
    alone = [_standalone(*PIECES[j]) for j in pieces]
    for t in range(n + 1):
        j = sum(t >= m for m in milestones)
        start = 0 if j == 0 else milestones[j - 1]
        want = value(alone[j].value_at(t - start))
        assert value(opt.param_groups[0]["lr"]) == want
        assert value(seq.value_at(t)) == want
        opt.step()
        seq.step()


def test_chained_is_the_product(backend):
    """ChainedScheduler(s0, s1, ...) = s0(t)·Π s_k(t)/s_k.initial_val, all on one counter."""
    check_chained()


@given(n=st.integers(0, 40), idx=st.lists(st.sampled_from([0, 1, 2, 3]), min_size=1,
                                          max_size=3))
def check_chained(n, idx):
    opt = _opt()
    chain_ok = [(LRS.LinearLR, (0.1, 0.01, 10)), (LRS.StepLR, (1.0, 4, 0.5)),
                (LRS.ExponentialLR, (0.5, 5, 0.5)), (LRS.MultiStepLR, (2.0, 0.1, [3, 8]))]
    subs = [chain_ok[i][0](opt, *chain_ok[i][1]) for i in idx]
    chained = LRS.ChainedScheduler(subs)
    alone = [_standalone(*chain_ok[i]) for i in idx]
    for t in range(n + 1):
        want = value(alone[0].value_at(t))
        for s in alone[1:]:
            want *= value(s.value_at(t)) / s.initial_val
        assert value(opt.param_groups[0]["lr"]) == pytest.approx(want, rel=1e-6)
        assert all(s.last_epoch is chained.last_epoch for s in subs)
        opt.step()
        chained.step()


def test_sequential_with_one_scheduler_is_that_scheduler(backend):
    opt = _opt()
    seq = LRS.SequentialLR(opt, [LRS.CosineDecayLR(opt, 0.1, 0.0, 9)], milestones=[])
    alone = _standalone(LRS.CosineDecayLR, (0.1, 0.0, 9))
    for t in range(20):
        assert value(opt.param_groups[0]["lr"]) == value(alone.value_at(t))
        opt.step()
        seq.step()


def test_scale_per_param_scales_each_group(backend):
    groups = make_groups(3, extra=[{"adjust_learning_rate": 2.0}, {"adjust_val": 0.5}, {}])
    opt = optim.SGD(groups, lr=0.1)
    sp = LRS.ScalePerParamLR(opt, LRS.LinearLR(opt, 0.1, 0.0, 10))
    alone = _standalone(LRS.LinearLR, (0.1, 0.0, 10))
    for t in range(15):
        base = value(alone.value_at(t))
        got = [value(g["lr"]) for g in opt.param_groups]
        assert got == pytest.approx([2 * base, 0.5 * base, base], rel=1e-6)
        opt.step()
        sp.step()


def test_value_at_does_not_disturb_state(backend):
    opt = _opt()
    seq = LRS.SequentialLR(opt, [LRS.LinearLR(opt, 0.0, 1.0, 5), LRS.StepLR(opt, 1.0, 2, 0.5)],
                           milestones=[5])
    for _ in range(3):
        opt.step()
        seq.step()
    before = [int(seq.last_epoch)] + [int(s.last_epoch) for s in seq._schedulers]
    seq.value_at(100)
    after = [int(seq.last_epoch)] + [int(s.last_epoch) for s in seq._schedulers]
    assert before == after == [3, 3, 0]
