"""Scheduler bookkeeping: counting, registry, state dicts and their round trips."""
from __future__ import annotations

import copy

import numpy as np

import pytest

import minitorch_cs.optim as optim
import minitorch_cs.torch as torch
from minitorch_cs.optim import lr_scheduler as LRS
from minitorch_cs.optim import weight_decay_scheduler as WDS

from ._golden import make_groups, run_schedule, value


def _opt(n=1, **kw):
    return optim.SGD(make_groups(n), lr=0.1, weight_decay=0.01, **kw)


def test_counting_rule(backend):
    opt = _opt()
    sched = LRS.StepLR(opt, 1.0, step_size=1, gamma=0.5)
    assert int(sched.last_epoch) == 0 and sched._step_count == 1 and opt._step_count == 0
    assert sched.last_epoch.dtype is torch.int64
    opt.step()
    sched.step()
    assert opt._step_count == 1 and int(sched.last_epoch) == 1
    assert value(opt.param_groups[0]["lr"]) == 0.5
    assert [value(v) for v in sched.get_last_lr()] == [0.5]
    with pytest.warns(UserWarning, match="please use `get_last_value\\(\\)`"):
        assert value(sched.get_lr()[0]) == 0.5


def test_registry_holds_top_level_schedulers_only(backend):
    opt = _opt()
    subs = [LRS.LinearLR(opt, 0.1, 0.01, 5), LRS.StepLR(opt, 0.01, 2, 0.5)]
    seq = LRS.SequentialLR(opt, subs, milestones=[5])
    wd = WDS.CosineDecayWD(opt, 0.01, 0.0, 10)
    assert list(opt._schedulers_registry) == [seq, wd]


def test_load_does_not_write_groups_but_construction_does(backend):
    """Observation #16."""
    opt = _opt()
    sched = LRS.LinearLR(opt, 0.1, 0.0, 10)
    for _ in range(2):
        opt.step()
        sched.step()
    osd, ssd = copy.deepcopy(opt.state_dict()), copy.deepcopy(sched.state_dict())
    assert value(osd["param_groups"][0]["lr"]) == pytest.approx(0.08)
    # scheduler built after the optimizer load: its constructor writes f(0) = 0.1
    opt2 = _opt()
    opt2.load_state_dict(osd)
    sched2 = LRS.LinearLR(opt2, 0.1, 0.0, 10)
    assert value(opt2.param_groups[0]["lr"]) == pytest.approx(0.1)
    sched2.load_state_dict(copy.deepcopy(ssd))
    assert value(opt2.param_groups[0]["lr"]) == pytest.approx(0.1)  # load writes nothing
    opt2.step()
    sched2.step()
    assert value(opt2.param_groups[0]["lr"]) == pytest.approx(0.07)
    # Trainer order (build, then load both): the loaded 0.08 is used
    opt3 = _opt()
    sched3 = LRS.LinearLR(opt3, 0.1, 0.0, 10)
    opt3.load_state_dict(copy.deepcopy(osd))
    sched3.load_state_dict(copy.deepcopy(ssd))
    assert value(opt3.param_groups[0]["lr"]) == pytest.approx(0.08)


BUILDERS = {
    "Sequential": lambda o: LRS.SequentialLR(o, [LRS.ConstantLR(o, 0.05, 5),
                                                 LRS.LinearLR(o, 0.1, 0.02, 8),
                                                 LRS.ExponentialLR(o, 0.02, 4, 0.5)],
                                             milestones=[5, 13]),
    "Chained": lambda o: LRS.ChainedScheduler([LRS.LinearLR(o, 0.1, 0.01, 10),
                                               LRS.StepLR(o, 1.0, 4, 0.5)]),
    "PiecewiseConstant": lambda o: LRS.PiecewiseConstantLR(o, [1.0, 0.5, 0.1], [3, 6]),
    "ScalePerParam": lambda o: LRS.ScalePerParamLR(o, LRS.CosineDecayLR(o, 0.1, 0.0, 12)),
    "OneCycle": lambda o: LRS.OneCycleLR(o, 0.1, 1.0, 20, three_phase=True),
    "Cyclic": lambda o: LRS.CyclicLR(o, 0.01, 0.1, 3, 5, mode="triangular2"),
    "SequentialWD": lambda o: WDS.SequentialWD(o, [WDS.LinearWD(o, 0.0, 0.1, 10),
                                                   WDS.CosineDecayWD(o, 0.1, 0.001, 20)],
                                               milestones=[10]),
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_round_trip_mid_run_is_bit_exact(name, backend):
    make = BUILDERS[name]
    key = "weight_decay" if name.endswith("WD") else "lr"
    opt = _opt(2)
    full = run_schedule(opt, make(opt), key, 30)

    opt_a = _opt(2)
    sched_a = make(opt_a)
    first = run_schedule(opt_a, sched_a, key, 10)  # 11 steps
    ckpt = copy.deepcopy({"opt": opt_a.state_dict(), "sched": sched_a.state_dict()})
    opt_b = _opt(2)
    sched_b = make(opt_b)
    opt_b.load_state_dict(ckpt["opt"])
    sched_b.load_state_dict(ckpt["sched"])
    rest = run_schedule(opt_b, sched_b, key, 19)
    assert first + rest == full
    assert sorted(sched_b.state_dict()) == sorted(ckpt["sched"])


def test_chained_load_relinks_the_shared_counter(backend):
    opt = _opt()
    ch = BUILDERS["Chained"](opt)
    sd = copy.deepcopy(ch.state_dict())
    ch.load_state_dict(sd)
    assert all(s.last_epoch is ch.last_epoch for s in ch._schedulers)
    assert "_scheduler_nested" not in BUILDERS["ScalePerParam"](_opt()).state_dict()


def test_state_dict_is_the_instance_dict(backend):
    """Observation #15: ``__dict__`` minus the optimizer."""
    opt = _opt()
    sched = LRS.LinearLR(opt, 0.1, 0.01, 10)
    assert list(sched.state_dict()) == ["initial_learning_rate", "end_learning_rate", "power",
                                        "cycle", "param_group_tags", "_last_value",
                                        "total_iters", "last_epoch", "_step_count",
                                        "_get_called_within_step"]
    seq = BUILDERS["Sequential"](opt)
    assert sorted(seq.state_dict()) == ["_get_called_within_step", "_last_value", "_milestones",
                                        "_schedulers", "_step_count", "last_epoch",
                                        "param_group_tags", "total_iters"]
    assert len(seq.state_dict()["_schedulers"]) == 3


def test_tags_select_groups(backend):
    opt = optim.SGD(make_groups(3, untagged=(2,)), lr=0.1)
    LRS.ConstantLR(opt, 0.5, param_group_tags="g1")
    WDS.ConstantWD(opt, 0.2, param_group_tags=[None])
    assert [value(g["lr"]) for g in opt.param_groups] == [0.1, 0.5, 0.1]
    assert [value(g["weight_decay"]) for g in opt.param_groups] == [0, 0, pytest.approx(0.2)]


def test_schedule_inside_a_data_executor_matches_real(backend):
    """schedulers.json["executor_check"]: the values seen inside DataExecutor + @trace equal the
    eager ones."""
    import minitorch_cs as cstorch
    from minitorch_cs.utils.data import DataExecutor, DataLoader

    from ._golden import build_scheduler, load
    check = load("schedulers.json")["executor_check"]
    p = torch.zeros(2, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    sched = build_scheduler(check["spec"], opt, LRS)
    seen = []

    @cstorch.trace
    def train_step(x):
        seen.append(value(opt.param_groups[0]["lr"]))
        loss = (p * x).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
        sched.step()
        return loss

    loader = DataLoader(lambda: [torch.ones(2, 2)] * 2)
    for x in DataExecutor(loader, num_steps=len(check["values_in_executor"])):
        train_step(x)
    np.testing.assert_allclose(seen, check["values_in_executor"], rtol=1e-5)
