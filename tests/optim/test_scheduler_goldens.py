"""Every LR and weight-decay scheduler against the real cstorch 2.10 CPU backend's goldens."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import minitorch_cs.optim as optim
import minitorch_cs.torch as torch
from minitorch_cs.optim import lr_scheduler as LRS

from ._golden import (MODULES, build_scheduler, case_id, host_optimizer, load, make_groups,
                      run_schedule, unjson, value)

FILES = {"lr": "schedulers.json", "weight_decay": "wd_schedulers.json"}


def _cases(key, section="cases"):
    return [(key, c) for c in load(FILES[key])[section]]


ALL = _cases("lr") + _cases("weight_decay")
TAGS = _cases("lr", "tags_cases") + _cases("weight_decay", "tags_cases")


def _check_case(key, case, backend):
    module = MODULES[key]
    opt = host_optimizer(case)
    if "error" in case:
        err = case["error"]
        with pytest.raises(Exception) as info:
            build_scheduler(case["spec"], opt, module)
        assert type(info.value).__name__ == err["exception"]
        return
    sched = build_scheduler(case["spec"], opt, module)
    assert all(isinstance(g[key], torch.Tensor) and g[key].dtype is torch.float32
               and g[key].ndim == 0 for g, v in zip(opt.param_groups, sched.get_last_value())
               if v is not None)
    got = np.array(run_schedule(opt, sched, key, case["n_steps"]))
    np.testing.assert_allclose(got, np.array(case["values"], dtype=np.float64), rtol=1e-5,
                               atol=0, equal_nan=True, err_msg=case_id(case))
    assert int(sched.last_epoch) == case["final_last_epoch"]
    assert sched.last_epoch.dtype is torch.int64
    sd = sched.state_dict()
    expected = case["final_state_dict"]
    assert sorted(sd) == sorted(expected)
    for k, v in expected.items():
        if k in ("_last_value", "_schedulers", "_scheduler", "last_epoch"):
            continue
        assert sd[k] == unjson(v), k
    last = [value(v) if v is not None else None for v in sched.get_last_value()]
    np.testing.assert_allclose(np.array(last, dtype=float),
                               np.array(case["get_last_value"], dtype=float), rtol=1e-5,
                               equal_nan=True)


@pytest.mark.parametrize("key,case", ALL, ids=[f"{k}:{case_id(c)}" for k, c in ALL])
def test_scheduler_matches_real(key, case, backend):
    _check_case(key, case, backend)


@pytest.mark.parametrize("key,case", TAGS, ids=[f"{k}:{case_id(c)}" for k, c in TAGS])
def test_param_group_tags_match_real(key, case, backend):
    _check_case(key, case, backend)


def test_nested_state_dicts_match_real(backend):
    """Sequential/Chained/ScalePerParam state dicts nest their children's state dicts."""
    for case in load("schedulers.json")["cases"]:
        if "error" in case or case["spec"]["class"] not in (
                "SequentialLR", "ChainedScheduler", "ScalePerParamLR"):
            continue
        opt = host_optimizer(case)
        sched = build_scheduler(case["spec"], opt, LRS)
        run_schedule(opt, sched, "lr", case["n_steps"])
        sd = sched.state_dict()
        exp = case["final_state_dict"]
        for name in ("_schedulers", "_scheduler"):
            if name in exp:
                subs = exp[name] if isinstance(exp[name], list) else [exp[name]]
                mine = sd[name] if isinstance(sd[name], list) else [sd[name]]
                assert [sorted(s) for s in mine] == [sorted(s) for s in subs]
                for m, s in zip(mine, subs):
                    assert int(m["last_epoch"]) == s["last_epoch"]["values"]
        if "_milestones" in exp:
            assert sd["_milestones"] == exp["_milestones"]


def test_seed002_objects(backend):
    """Model Zoo 2.10 docs, "Optimizer and Scheduler": LinearLR 0.01→0.001 over 500, then CosineDecayLR 0.001→0.0001 over 500."""
    gold = load("schedulers.json")["seed002"]
    opt = optim.SGD(make_groups(1), lr=0.01, momentum=0.9)
    sched = LRS.SequentialLR(opt, schedulers=[
        LRS.LinearLR(opt, initial_learning_rate=0.01, end_learning_rate=0.001, total_iters=500),
        LRS.CosineDecayLR(opt, initial_learning_rate=0.001, end_learning_rate=0.0001,
                          total_iters=500)], milestones=[500])
    got = run_schedule(opt, sched, "lr", gold["n_steps"])
    np.testing.assert_allclose(got, gold["values"], rtol=1e-5)
    assert int(sched.last_epoch) == gold["final_last_epoch"]


def test_seed002_callables(backend):
    """That page's Python form: ``lambda optimizer: SequentialLR(optimizer, schedulers=[...])``
    (no milestones: they default to the cumulative total_iters, Model Zoo's rule)."""
    gold = load("schedulers.json")["seed002"]
    optimizer_fn = lambda params: optim.SGD(params, lr=0.01, momentum=0.9)  # noqa: E731
    schedulers = [
        lambda optimizer: LRS.SequentialLR(optimizer, schedulers=[
            LRS.LinearLR(optimizer, initial_learning_rate=0.01, end_learning_rate=0.001,
                         total_iters=500),
            LRS.CosineDecayLR(optimizer, initial_learning_rate=0.001, end_learning_rate=0.0001,
                              total_iters=500)]),
    ]
    opt = optimizer_fn(make_groups(1))
    sched = schedulers[0](opt)
    assert sched._milestones == [500]
    got = run_schedule(opt, sched, "lr", gold["n_steps"])
    np.testing.assert_allclose(got, gold["values"], rtol=1e-5)

    # sub-schedulers may be callables too (what a YAML-built config hands over)
    opt2 = optimizer_fn(make_groups(1))
    sched2 = LRS.SequentialLR(opt2, schedulers=[
        lambda o: LRS.LinearLR(o, initial_learning_rate=0.01, end_learning_rate=0.001,
                               total_iters=500),
        lambda o: LRS.CosineDecayLR(o, initial_learning_rate=0.001, end_learning_rate=0.0001,
                                    total_iters=500)], milestones=[500])
    assert isinstance(sched2._schedulers[0], LRS.LinearLR)
    assert run_schedule(opt2, sched2, "lr", gold["n_steps"]) == got


@pytest.mark.parametrize("idx", [0, 1])
def test_resume_matches_real(idx, backend):
    """Trainer order: build optimizer + scheduler, load the optimizer, then the scheduler."""
    check = load("schedulers.json")["resume_checks"][idx]
    spec, split = check["spec"], check["split"]
    opt = optim.SGD(make_groups(1), lr=0.1, weight_decay=0.01)
    sched = build_scheduler(spec, opt, LRS)
    for _ in range(split):
        opt.step()
        sched.step()
    osd, ssd = copy.deepcopy(opt.state_dict()), copy.deepcopy(sched.state_dict())
    opt2 = optim.SGD(make_groups(1), lr=0.1, weight_decay=0.01)
    sched2 = build_scheduler(spec, opt2, LRS)
    opt2.load_state_dict(osd)
    sched2.load_state_dict(ssd)
    got = []
    for _ in range(len(check["values_from_step_split"])):
        got.append(value(opt2.param_groups[0]["lr"]))
        opt2.step()
        sched2.step()
    np.testing.assert_allclose(got, check["values_from_step_split"], rtol=1e-5)


def test_group_value_is_float32_tensor_after_construction(backend):
    """Observation #14: constructing a scheduler writes a 0-d float32 tensor into the group."""
    opt = optim.SGD(make_groups(1), lr=0.1)
    LRS.MultiplicativeLR(opt, 0.2, 0.9)
    lr = opt.param_groups[0]["lr"]
    assert isinstance(lr, torch.Tensor) and lr.dtype is torch.float32 and lr.ndim == 0
    assert isinstance(opt.state_dict()["param_groups"][0]["lr"], torch.Tensor)
