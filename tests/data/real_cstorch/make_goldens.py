"""Golden values for cstorch schedulers and optimizers, from the REAL stack.

Run with the real cerebras-pytorch 2.10 interpreter (CPU backend)::

    /tmp/cs/bin/python tests/data/real_cstorch/make_goldens.py [OUT_DIR]

Writes (default OUT_DIR = this directory):

* ``schedulers.json``    -- every LR scheduler, several hyper-parameter sets:
  the value in ``param_groups[g]["lr"]`` at the moment optimizer step k runs
  (k = 0..N), plus the final scheduler ``state_dict()``;
* ``wd_schedulers.json`` -- the same for ``weight_decay`` schedulers;
* ``optimizers.json``    -- every optimizer, 5 steps on a fixed problem: the
  gradients fed, the parameters after every step, the final state_dict,
  defaults and param-group keys;
* ``errors.json``        -- exception type + message of constructor
  validation errors (and of anything else that crashed while collecting).

Every float is the float32 value widened to a Python float (so the JSON
number is the exact float32 value); NaN/Infinity use Python's JSON extension.
Schedulers and optimizers are driven eagerly (no DataExecutor): the order per
iteration is ``record lr -> optimizer.step() -> scheduler.step()``, which is
the Trainer order.  ``schedulers.json["executor_check"]`` replays one schedule
inside a real DataExecutor + @trace loop to show that the values agree.
"""

import inspect
import json
import math
import sys
import tempfile
import traceback
from pathlib import Path

import numpy as np
import torch

import cerebras.pytorch as cstorch
from cerebras.pytorch.optim import lr_scheduler as LRS
from cerebras.pytorch.optim import weight_decay_scheduler as WDS

HERE = Path(__file__).resolve().parent
ERRORS = []


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------
def jsonable(x):
    if isinstance(x, torch.Tensor):
        t = x.detach().clone()
        vals = t.float().tolist() if t.dtype == torch.bfloat16 else t.tolist()
        return {"__tensor__": str(t.dtype), "shape": list(t.shape), "values": vals}
    if isinstance(x, np.ndarray):
        return {"__ndarray__": str(x.dtype), "shape": list(x.shape), "values": x.tolist()}
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (set, frozenset)):
        return {"__set__": sorted((jsonable(v) for v in x), key=repr)}
    if isinstance(x, tuple):
        return {"__tuple__": [jsonable(v) for v in x]}
    if isinstance(x, list):
        return [jsonable(v) for v in x]
    if isinstance(x, (bool, int, float, str)) or x is None:
        return x
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    return {"__repr__": repr(x), "__type__": type(x).__name__}


def scalar(v):
    """Value of a param-group entry as float (exact widening of float32)."""
    if isinstance(v, torch.Tensor):
        return float(v.detach().float().item())
    return float(v)


def type_name(v):
    if isinstance(v, torch.Tensor):
        return f"tensor {str(v.dtype)} shape={list(v.shape)}"
    return type(v).__name__


def err_record(where, exc):
    rec = {"where": where, "exception": type(exc).__name__, "message": str(exc)}
    tb = traceback.extract_tb(exc.__traceback__)
    if tb:
        last = tb[-1]
        rec["raised_at"] = f"{Path(last.filename).name}:{last.lineno} in {last.name}"
    return rec


# --------------------------------------------------------------------------
# Schedulers
# --------------------------------------------------------------------------
def make_params(n_groups=1, extra=None, untagged=()):
    ps = [torch.nn.Parameter(torch.zeros(2)) for _ in range(n_groups)]
    groups = []
    for i, p in enumerate(ps):
        g = {"params": [p]} if i in untagged else {"params": [p], "tags": [f"g{i}"]}
        if extra:
            g.update(extra[i])
        groups.append(g)
    return groups


def build_sched(spec, opt, module):
    """spec = {"class": name, "kwargs": {...}}; nested schedulers are specs."""
    cls = getattr(module, spec["class"])
    kwargs = dict(spec.get("kwargs", {}))
    if "schedulers" in kwargs:
        kwargs["schedulers"] = [build_sched(s, opt, module) for s in kwargs["schedulers"]]
    if "scheduler" in kwargs:
        kwargs["scheduler"] = build_sched(kwargs["scheduler"], opt, module)
    params = inspect.signature(cls.__init__).parameters
    if "optimizer" in params:
        return cls(opt, **kwargs)
    return cls(**kwargs)  # ChainedScheduler / ChainedWD take no optimizer


def run_schedule(spec, module, key, n_steps, groups_extra=None, n_groups=1,
                 host_kwargs=None, untagged=()):
    host_kwargs = host_kwargs or {"lr": 0.1, "weight_decay": 0.01}
    opt = cstorch.optim.SGD(make_params(n_groups, groups_extra, untagged), **host_kwargs)
    sched = build_sched(spec, opt, module)
    first_type = type_name(opt.param_groups[0][key])
    values = []
    for _ in range(n_steps + 1):
        values.append([scalar(g[key]) for g in opt.param_groups])
        opt.step()
        sched.step()
    out = {
        "values": values,
        "group_value_type_after_construction": first_type,
        "final_last_epoch": int(sched.last_epoch),
        "final_state_dict": jsonable(sched.state_dict()),
    }
    try:
        out["get_last_value"] = [scalar(v) if v is not None else None
                                 for v in sched.get_last_value()]
    except Exception as e:  # record, continue
        out["get_last_value_error"] = err_record("get_last_value", e)
    return out


def resume_check(spec, module, key, split, n_steps):
    """Run `split` steps, save scheduler+optimizer state, rebuild (Trainer order:
    build optimizer+scheduler, then load optimizer, then scheduler), continue."""
    opt = cstorch.optim.SGD(make_params(), lr=0.1, weight_decay=0.01)
    sched = build_sched(spec, opt, module)
    for _ in range(split):
        opt.step()
        sched.step()
    osd, ssd = opt.state_dict(), sched.state_dict()
    opt2 = cstorch.optim.SGD(make_params(), lr=0.1, weight_decay=0.01)
    sched2 = build_sched(spec, opt2, module)
    opt2.load_state_dict(osd)
    sched2.load_state_dict(ssd)
    values = []
    for _ in range(n_steps - split + 1):
        values.append(scalar(opt2.param_groups[0][key]))
        opt2.step()
        sched2.step()
    return {"spec": spec, "split": split,
            "values_from_step_split": values,
            "note": "values[i] is the value seen by optimizer step split+i after "
                    "rebuild -> optimizer.load_state_dict -> scheduler.load_state_dict"}


def lr_cases():
    S = lambda c, **kw: {"class": c, "kwargs": kw}
    return [
        S("ConstantLR", learning_rate=0.1),
        S("ConstantLR", learning_rate=0.5, total_iters=5),
        S("PolynomialLR", initial_learning_rate=1e-3, end_learning_rate=0.0, total_iters=4, power=2.0),
        S("PolynomialLR", initial_learning_rate=0.1, end_learning_rate=0.01, total_iters=20, power=0.5, cycle=True),
        S("PolynomialLR", initial_learning_rate=0.1, end_learning_rate=0.01, total_iters=10),
        S("LinearLR", initial_learning_rate=0.0, end_learning_rate=1e-3, total_iters=10),
        S("LinearLR", initial_learning_rate=0.1, end_learning_rate=0.01, total_iters=20, cycle=True),
        S("LinearLR", initial_learning_rate=0.01, end_learning_rate=0.001, total_iters=30),
        S("ExponentialLR", initial_learning_rate=1e-3, total_iters=10, decay_rate=0.5),
        S("ExponentialLR", initial_learning_rate=1e-3, total_iters=10, decay_rate=0.5, staircase=True),
        S("ExponentialLR", initial_learning_rate=0.1, total_iters=3, decay_rate=0.9),
        S("InverseExponentialTimeDecayLR", initial_learning_rate=1.0, step_exponent=1, total_iters=10, decay_rate=0.5),
        S("InverseExponentialTimeDecayLR", initial_learning_rate=1.0, step_exponent=1, total_iters=10, decay_rate=0.5, staircase=True),
        S("InverseExponentialTimeDecayLR", initial_learning_rate=0.1, step_exponent=2, total_iters=5, decay_rate=0.1),
        S("InverseSquareRootDecayLR"),
        S("InverseSquareRootDecayLR", initial_learning_rate=1.0, scale=1.0, warmup_steps=4),
        S("InverseSquareRootDecayLR", initial_learning_rate=0.5, scale=2.0, warmup_steps=10),
        S("CosineDecayLR", initial_learning_rate=1e-3, end_learning_rate=1e-4, total_iters=10),
        S("CosineDecayLR", initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=30),
        S("CosineAnnealingLR", initial_learning_rate=1.0, T_max=10),
        S("CosineAnnealingLR", initial_learning_rate=0.1, T_max=7, eta_min=0.01),
        S("CosineAnnealingWarmRestarts", initial_learning_rate=1.0, T_0=10),
        S("CosineAnnealingWarmRestarts", initial_learning_rate=1.0, T_0=6, eta_min=0.05),
        S("StepLR", initial_learning_rate=1.0, step_size=3, gamma=0.1),
        S("StepLR", initial_learning_rate=0.1, step_size=5, gamma=0.5),
        S("MultiStepLR", initial_learning_rate=1.0, gamma=0.1, milestones=[2, 5]),
        S("MultiStepLR", initial_learning_rate=0.1, gamma=0.5, milestones=[3, 10, 20]),
        S("MultiStepLR", initial_learning_rate=0.1, gamma=0.5, milestones=[20, 3]),
        S("MultiplicativeLR", initial_learning_rate=0.2, coefficient=0.9),
        S("MultiplicativeLR", initial_learning_rate=1.0, coefficient=0.5),
        S("LambdaLR", initial_learning_rate=0.1),
        S("LambdaLR", initial_learning_rate=1.0),
        S("CyclicLR", base_lr=0.1, max_lr=1.0, step_size_up=4, step_size_down=4),
        S("CyclicLR", base_lr=0.1, max_lr=1.0, step_size_up=4, step_size_down=4, mode="triangular2"),
        S("CyclicLR", base_lr=0.1, max_lr=1.0, step_size_up=4, step_size_down=4, mode="exp_range", gamma=0.9),
        S("CyclicLR", base_lr=0.1, max_lr=1.0, step_size_up=3, step_size_down=5),
        S("CyclicLR", base_lr=0.1, max_lr=1.0, step_size_up=4, mode="triangular", scale_mode="iterations"),
        S("CyclicLR", base_lr=0.01, max_lr=0.1, step_size_up=5, mode="exp_range", gamma=0.95, scale_mode="cycle"),
        S("OneCycleLR", initial_learning_rate=0.1, max_lr=1.0, total_steps=10, pct_start=0.3),
        S("OneCycleLR", initial_learning_rate=0.1, max_lr=1.0, total_steps=10, pct_start=0.3, anneal_strategy="linear"),
        S("OneCycleLR", initial_learning_rate=0.1, max_lr=1.0, total_steps=20, pct_start=0.25, three_phase=True),
        S("OneCycleLR", initial_learning_rate=0.1, max_lr=1.0, total_steps=20, pct_start=0.25, three_phase=True, anneal_strategy="linear"),
        S("OneCycleLR", initial_learning_rate=0.1, max_lr=1.0, total_steps=20, final_div_factor=100.0, anneal_strategy="linear"),
        S("SequentialLR", schedulers=[
            S("LinearLR", initial_learning_rate=0.0, end_learning_rate=1e-3, total_iters=10),
            S("CosineDecayLR", initial_learning_rate=1e-3, end_learning_rate=1e-5, total_iters=20)],
          milestones=[10]),
        S("SequentialLR", schedulers=[
            S("ConstantLR", learning_rate=0.05, total_iters=5),
            S("LinearLR", initial_learning_rate=0.1, end_learning_rate=0.02, total_iters=8),
            S("ExponentialLR", initial_learning_rate=0.02, total_iters=4, decay_rate=0.5)],
          milestones=[5, 13]),
        S("SequentialLR", schedulers=[
            S("StepLR", initial_learning_rate=1.0, step_size=2, gamma=0.5),
            S("CyclicLR", base_lr=0.1, max_lr=0.5, step_size_up=3)],
          milestones=[6]),
        S("ChainedScheduler", schedulers=[
            S("LinearLR", initial_learning_rate=0.1, end_learning_rate=0.01, total_iters=10),
            S("StepLR", initial_learning_rate=1.0, step_size=4, gamma=0.5)]),
        S("ChainedScheduler", schedulers=[
            S("ExponentialLR", initial_learning_rate=0.1, total_iters=5, decay_rate=0.5),
            S("MultiStepLR", initial_learning_rate=2.0, gamma=0.1, milestones=[3, 8])]),
        S("ChainedScheduler", schedulers=[
            S("ConstantLR", learning_rate=0.1),
            S("CyclicLR", base_lr=0.1, max_lr=1.0, step_size_up=4)]),
        S("ChainedLR", schedulers=[
            S("CosineDecayLR", initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=10),
            S("ConstantLR", learning_rate=0.5)]),
        S("PiecewiseConstantLR", learning_rates=[1.0, 0.5, 0.1], milestones=[3, 6]),
        S("PiecewiseConstantLR", learning_rates=[1.0, 0.5, 0.1, 0.01], milestones=[3, 6]),
        S("PiecewiseConstantLR", learning_rates=[1.0, 0.5], milestones=[3, 6]),
        # degenerate arguments that the constructors accept
        S("LinearLR", initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=0),
        S("StepLR", initial_learning_rate=0.1, step_size=0, gamma=0.5),
        S("ExponentialLR", initial_learning_rate=0.1, total_iters=0, decay_rate=0.5),
        S("CyclicLR", base_lr=0.1, max_lr=1.0, step_size_up=4, mode="bogus", gamma=0.9),
        S("OneCycleLR", initial_learning_rate=0.1, max_lr=1.0, total_steps=10, anneal_strategy="bogus"),
        S("CosineDecayLR", initial_learning_rate=0.1, end_learning_rate=0.2, total_iters=10),
    ]


SEED002 = {"class": "SequentialLR", "kwargs": {
    "schedulers": [
        {"class": "LinearLR", "kwargs": {"initial_learning_rate": 0.01, "end_learning_rate": 0.001, "total_iters": 500}},
        {"class": "CosineDecayLR", "kwargs": {"initial_learning_rate": 0.001, "end_learning_rate": 0.0001, "total_iters": 500}}],
    "milestones": [500]}}


def wd_cases():
    S = lambda c, **kw: {"class": c, "kwargs": kw}
    return [
        S("ConstantWD", val=0.1),
        S("ConstantWD", val=0.05, total_iters=5),
        S("PolynomialWD", initial_val=0.1, end_val=0.0, total_iters=4, power=2.0),
        S("PolynomialWD", initial_val=0.1, end_val=0.01, total_iters=10, power=0.5),
        S("LinearWD", initial_val=0.0, end_val=0.1, total_iters=10),
        S("LinearWD", initial_val=0.1, end_val=0.01, total_iters=20, cycle=True),
        S("ExponentialWD", initial_val=0.1, total_iters=10, decay_rate=0.5),
        S("ExponentialWD", initial_val=0.1, total_iters=10, decay_rate=0.5, staircase=True),
        S("InverseExponentialTimeDecayWD", initial_val=1.0, step_exponent=1, total_iters=10, decay_rate=0.5),
        S("InverseExponentialTimeDecayWD", initial_val=0.1, step_exponent=2, total_iters=5, decay_rate=0.1, staircase=True),
        S("InverseSquareRootDecayWD"),
        S("InverseSquareRootDecayWD", initial_val=0.5, scale=2.0, warmup_steps=4),
        S("CosineDecayWD", initial_val=0.1, end_val=0.01, total_iters=10),
        S("CosineDecayWD", initial_val=0.2, end_val=0.0, total_iters=30),
        S("SequentialWD", schedulers=[
            S("LinearWD", initial_val=0.0, end_val=0.1, total_iters=10),
            S("CosineDecayWD", initial_val=0.1, end_val=0.001, total_iters=20)],
          milestones=[10]),
        S("SequentialWD", schedulers=[
            S("ConstantWD", val=0.05, total_iters=5),
            S("StepWD", initial_val=0.1, step_size=3, gamma=0.5)],
          milestones=[5]),
        S("PiecewiseConstantWD", vals=[0.1, 0.05, 0.01], milestones=[3, 6]),
        S("PiecewiseConstantWD", vals=[0.3, 0.2], milestones=[10]),
        S("MultiStepWD", initial_val=0.1, gamma=0.1, milestones=[2, 5]),
        S("MultiStepWD", initial_val=0.2, gamma=0.5, milestones=[10, 20]),
        S("StepWD", initial_val=0.1, step_size=3, gamma=0.1),
        S("StepWD", initial_val=0.2, step_size=7, gamma=0.5),
        S("CosineAnnealingWD", initial_val=0.1, T_max=10),
        S("CosineAnnealingWD", initial_val=0.1, T_max=7, eta_min=0.01),
        S("LambdaWD", initial_val=0.1),
        S("LambdaWD", initial_val=1.0),
        S("CosineAnnealingWarmRestartsWD", initial_val=0.1, T_0=10),
        S("CosineAnnealingWarmRestartsWD", initial_val=1.0, T_0=6, eta_min=0.05),
        S("MultiplicativeWD", initial_val=0.2, coefficient=0.9),
        S("MultiplicativeWD", initial_val=0.1, coefficient=0.5),
        S("ChainedWD", schedulers=[
            S("LinearWD", initial_val=0.1, end_val=0.01, total_iters=10),
            S("StepWD", initial_val=1.0, step_size=4, gamma=0.5)]),
        S("ChainedWD", schedulers=[
            S("ExponentialWD", initial_val=0.1, total_iters=5, decay_rate=0.5),
            S("MultiStepWD", initial_val=2.0, gamma=0.1, milestones=[3, 8])]),
        S("CyclicWD", base_val=0.01, max_val=0.1, step_size_up=4, step_size_down=4),
        S("CyclicWD", base_val=0.01, max_val=0.1, step_size_up=3, mode="triangular2"),
        S("CyclicWD", base_val=0.01, max_val=0.1, step_size_up=4, mode="exp_range", gamma=0.9),
        S("OneCycleWD", initial_val=0.01, max_val=0.1, total_steps=10, pct_start=0.3),
        S("OneCycleWD", initial_val=0.01, max_val=0.1, total_steps=20, pct_start=0.25, three_phase=True, anneal_strategy="linear"),
    ]


def scale_per_param_cases(prefix, module, key, inner):
    """ScalePerParam{LR,WD}: two groups with adjust_learning_rate / adjust_val."""
    cls = f"ScalePerParam{prefix}"
    if not hasattr(module, cls):
        return []
    return [
        ({"class": cls, "kwargs": {"scheduler": inner}},
         [{"adjust_learning_rate": 1.0}, {"adjust_learning_rate": 0.5}]),
        ({"class": cls, "kwargs": {"scheduler": inner}},
         [{"adjust_val": 2.0}, {}]),
    ]


def collect_schedules(module, key, cases, spp_prefix, spp_inner, n_steps=40):
    out = []
    for spec in cases:
        rec = {"spec": spec, "n_steps": n_steps}
        try:
            rec.update(run_schedule(spec, module, key, n_steps))
        except Exception as e:  # record, do not stop
            rec["error"] = err_record(f"{spec['class']}", e)
            ERRORS.append({"kind": "scheduler_run", "spec": spec, **rec["error"]})
        out.append(rec)
    for spec, extra in scale_per_param_cases(spp_prefix, module, key, spp_inner):
        rec = {"spec": spec, "n_steps": n_steps, "param_group_extras": extra,
               "note": "optimizer has 2 param groups (tags g0, g1) with the extras merged in"}
        try:
            rec.update(run_schedule(spec, module, key, n_steps, groups_extra=extra, n_groups=2))
        except Exception as e:
            rec["error"] = err_record(spec["class"], e)
            ERRORS.append({"kind": "scheduler_run", "spec": spec, **rec["error"]})
        out.append(rec)
    return out


def tags_cases(module, key, inner_cls, inner_kwargs):
    """param_group_tags targeting only one of two groups."""
    out = []
    for tags, untagged in ((["g1"], ()), ("g0", ()), ([None], ()), ([None], (1,)), (["g0", None], (1,))):
        spec = {"class": inner_cls, "kwargs": dict(inner_kwargs, param_group_tags=tags)}
        note = "optimizer has 2 param groups: group 0 tagged g0, group 1 " + (
            "untagged" if untagged else "tagged g1") + "; host lr=0.1, weight_decay=0.01"
        rec = {"spec": spec, "n_steps": 12, "note": note}
        try:
            rec.update(run_schedule(spec, module, key, 12, n_groups=2, untagged=untagged))
        except Exception as e:
            rec["error"] = err_record(inner_cls, e)
            ERRORS.append({"kind": "scheduler_run", "spec": spec, **rec["error"]})
        out.append(rec)
    return out


def executor_check(spec, n_steps):
    """Replay `spec` inside DataExecutor + @trace; record lr seen by each step."""
    backend = cstorch.current_backend()
    model = torch.nn.Linear(2, 1)
    compiled = cstorch.compile(model, backend)
    opt = cstorch.optim.SGD(model.parameters(), lr=0.1)
    sched = build_sched(spec, opt, LRS)
    seen = []

    def input_fn():
        ds = torch.utils.data.TensorDataset(torch.ones(4, 2))
        return torch.utils.data.DataLoader(ds, batch_size=2, drop_last=True)

    @cstorch.trace
    def train_step(x):
        seen.append(scalar(opt.param_groups[0]["lr"]))
        loss = compiled(x).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
        sched.step()
        return loss

    loader = cstorch.utils.data.DataLoader(input_fn)
    executor = cstorch.utils.data.DataExecutor(loader, num_steps=n_steps + 1)
    for (x,) in executor:
        train_step(x)
    return seen


# --------------------------------------------------------------------------
# Optimizers
# --------------------------------------------------------------------------
P1_INIT = "np.linspace(-1.0, 1.0, 12, dtype=np.float64).reshape(3, 4).astype(np.float32)"
P2_INIT = "np.linspace(0.5, -0.25, 4, dtype=np.float64).astype(np.float32)"
GRAD_FORMULA = ("g_k(p) = (np.sin(p.astype(np.float64) * 1.3 + k) + 0.1 * k).astype(np.float32)"
                "  -- evaluated in float64 from the current float32 parameter values "
                "just before optimizer step k (k = 0, 1, 2, ...), then rounded to float32")


def init_params():
    p1 = np.linspace(-1.0, 1.0, 12, dtype=np.float64).reshape(3, 4).astype(np.float32)
    p2 = np.linspace(0.5, -0.25, 4, dtype=np.float64).astype(np.float32)
    return p1, p2


def grad_for(p, k):
    x = p.detach().numpy().astype(np.float64)
    return torch.from_numpy((np.sin(x * 1.3 + k) + 0.1 * k).astype(np.float32))


def optimizer_cases():
    C = lambda cls, **kw: {"class": cls, "kwargs": kw}
    return [
        C("SGD", lr=0.1),
        C("SGD", lr=0.1, momentum=0.9, weight_decay=0.01),
        C("SGD", lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1),
        C("SGD", lr=0.05, momentum=0.5, dampening=0.3, weight_decay=0.01, maximize=True),
        C("Adam", lr=0.01),
        C("Adam", lr=0.01, betas=(0.8, 0.99), eps=1e-8, weight_decay=0.1, amsgrad=True),
        C("AdamW", lr=0.01, weight_decay=0.1),
        C("AdamW", lr=0.01, weight_decay=0.1, correct_bias=False),
        C("AdamW", lr=0.01, betas=(0.8, 0.99), weight_decay=0.05, amsgrad=True),
        C("Adadelta"),
        C("Adadelta", lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1, maximize=True),
        C("Adagrad", lr=0.1),
        C("Adagrad", lr=0.1, lr_decay=0.1, weight_decay=0.1, initial_accumulator_value=0.5, maximize=True),
        C("Adamax", lr=0.01),
        C("Adamax", lr=0.02, betas=(0.8, 0.99), weight_decay=0.1, maximize=True),
        C("ASGD", lr=0.1),
        C("ASGD", lr=0.1, lambd=0.01, alpha=0.5, t0=2, weight_decay=0.1, maximize=True),
        C("Lamb", lr=0.01),
        C("Lamb", lr=0.01, betas=(0.8, 0.99), weight_decay=0.1),
        C("Lamb", lr=0.01, weight_decay=0.1, adam=True),
        C("Lion", lr=0.01),
        C("Lion", lr=0.01, betas=(0.8, 0.95), weight_decay=0.1),
        C("NAdam", lr=0.01),
        C("NAdam", lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, momentum_decay=0.01),
        C("RAdam", lr=0.01),
        C("RAdam", lr=0.01, betas=(0.5, 0.6), weight_decay=0.1),
        C("RMSprop", lr=0.01),
        C("RMSprop", lr=0.01, alpha=0.9, weight_decay=0.1, momentum=0.5, centered=True),
        C("RMSprop", lr=0.01, centered=True),
        C("Rprop", lr=0.01),
        C("Rprop", lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.1)),
        C("Adafactor", lr=0.01),
        C("Adafactor", lr=0.01, eps=(1e-30, 1e-2), decay_rate=-0.5, weight_decay=0.1, scale_parameter=False),
        C("Muon"),
        C("Muon", lr=0.05, weight_decay=0.1, momentum=0.9, nesterov=False, ns_steps=3),
    ]


def run_optimizer(case, n_steps=5, params_subset=("p1", "p2")):
    cls = getattr(cstorch.optim, case["class"])
    p1n, p2n = init_params()
    p1 = torch.nn.Parameter(torch.from_numpy(p1n.copy()))
    p2 = torch.nn.Parameter(torch.from_numpy(p2n.copy()))
    named = {"p1": p1, "p2": p2}
    groups = [{"params": [named[n]], "tags": [f"tag_{n}"]} for n in params_subset]
    opt = cls(groups, **case["kwargs"])
    rec = {
        "params_used": list(params_subset),
        "defaults": jsonable(opt.defaults),
        "param_group_keys": [sorted(k for k in g if k != "params") for g in opt.param_groups],
        "initial_state": jsonable({i: opt.state[p] for i, p in enumerate(
            [named[n] for n in params_subset])}),
        "grads": [], "params_after_step": [],
    }
    for k in range(n_steps):
        grads = {}
        for n in params_subset:
            g = grad_for(named[n], k)
            named[n].grad = g.clone()
            grads[n] = g.tolist()
        rec["grads"].append(grads)
        opt.step()
        rec["params_after_step"].append({n: named[n].detach().clone().tolist() for n in params_subset})
    sd = opt.state_dict()
    rec["final_state_dict"] = jsonable(sd)
    return rec


def collect_optimizers():
    out = []
    for case in optimizer_cases():
        rec = {"spec": jsonable(case)}
        try:
            rec.update(run_optimizer(case))
        except Exception as e:
            rec["error"] = err_record(case["class"], e)
            ERRORS.append({"kind": "optimizer_run", "spec": jsonable(case), **rec["error"]})
            if case["class"] == "Muon":
                # Muon needs >= 2-D params; retry with p1 only
                rec2 = {"spec": jsonable(case), "note": "retry with p1 only"}
                try:
                    rec2.update(run_optimizer(case, params_subset=("p1",)))
                except Exception as e2:
                    rec2["error"] = err_record(case["class"], e2)
                    ERRORS.append({"kind": "optimizer_run", "spec": jsonable(case),
                                   "note": "p1 only", **rec2["error"]})
                out.append(rec)
                out.append(rec2)
                continue
        out.append(rec)
    return out


# --------------------------------------------------------------------------
# Constructor validation errors
# --------------------------------------------------------------------------
def error_cases():
    O = lambda cls, **kw: ("optimizer", cls, kw)
    L = lambda cls, **kw: ("lr_scheduler", cls, kw)
    W = lambda cls, **kw: ("weight_decay_scheduler", cls, kw)
    return [
        O("SGD", lr=-0.1), O("SGD", lr=0.1, momentum=-0.5), O("SGD", lr=0.1, weight_decay=-0.1),
        O("SGD", lr=0.1, nesterov=True), O("SGD", lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
        O("SGD"),
        O("Adam", lr=-1.0), O("Adam", betas=(1.0, 0.999)), O("Adam", betas=(0.9, -0.1)), O("Adam", eps=-1.0),
        O("Adam", weight_decay=-0.1),
        O("AdamW", lr=-1.0), O("AdamW", betas=(-0.1, 0.999)), O("AdamW", betas=(0.9, 1.5)), O("AdamW", eps=-1e-6),
        O("AdamW", weight_decay=-0.1),
        O("Adadelta", lr=-1.0), O("Adadelta", rho=1.5), O("Adadelta", eps=-1.0), O("Adadelta", weight_decay=-0.1),
        O("Adagrad", lr=-1.0), O("Adagrad", lr_decay=-1.0), O("Adagrad", weight_decay=-1.0),
        O("Adagrad", initial_accumulator_value=-1.0), O("Adagrad", eps=-1.0),
        O("Adamax", lr=-1.0), O("Adamax", betas=(1.0, 0.9)), O("Adamax", betas=(0.9, 1.0)), O("Adamax", eps=-1.0),
        O("Adamax", weight_decay=-1.0),
        O("ASGD", lr=-1.0), O("ASGD", weight_decay=-1.0),
        O("Lamb", lr=-1.0), O("Lamb", eps=-1.0), O("Lamb", betas=(1.0, 0.9)), O("Lamb", betas=(0.9, 1.0)),
        O("Lamb", weight_decay=-1.0),
        O("Lion", lr=-1.0), O("Lion", betas=(1.5, 0.9)), O("Lion", betas=(0.9, -1.0)), O("Lion", weight_decay=-1.0),
        O("NAdam", lr=-1.0), O("NAdam", eps=-1.0), O("NAdam", betas=(1.0, 0.9)), O("NAdam", betas=(0.9, 1.0)),
        O("NAdam", momentum_decay=-1.0), O("NAdam", weight_decay=-1.0),
        O("RAdam", lr=-1.0), O("RAdam", betas=(1.0, 0.9)), O("RAdam", betas=(0.9, 1.0)), O("RAdam", eps=-1.0),
        O("RAdam", weight_decay=-1.0),
        O("RMSprop", lr=-1.0), O("RMSprop", eps=-1.0), O("RMSprop", momentum=-1.0), O("RMSprop", alpha=-1.0),
        O("RMSprop", weight_decay=-1.0),
        O("Rprop", lr=-1.0), O("Rprop", etas=(1.5, 1.2)), O("Rprop", etas=(0.5, 0.9)),
        O("Adafactor"), O("Adafactor", lr=0.01, clip_threshold=2.0), O("Adafactor", lr=0.01, beta1=0.9),
        O("Adafactor", lr=0.01, relative_step=True), O("Adafactor", lr=0.01, warmup_init=True),
        O("Adafactor", lr=0.01, eps=1e-3), O("Adafactor", lr=0.01, eps=(1e-30,)), O("Adafactor", lr=-0.01),
        O("Adafactor", lr=0.01, weight_decay=-0.1),
        O("Muon", lr=-1.0), O("Muon", weight_decay=1.0), O("Muon", weight_decay=-0.1), O("Muon", momentum=1.0),
        O("Muon", ns_steps=-1),
        L("CosineAnnealingWarmRestarts", initial_learning_rate=1.0, T_0=10, T_mult=2),
        L("SequentialLR", schedulers="LIST2", milestones=[5, 10]),
        L("SequentialLR", schedulers="LIST2", milestones=5),
        L("SequentialLR", schedulers="LIST2"),
        L("PiecewiseConstantLR", learning_rates=[1.0, 0.5], milestones=[3, 6]),
        L("PiecewiseConstantLR", learning_rates=[1.0], milestones=[3, 6]),
        L("ChainedScheduler", schedulers="CONST_CYCLIC"),
        L("LinearLR", initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=10, param_group_tags=["nope"]),
        L("LinearLR", initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=10, param_group_tags=["g0", "g0"]),
        L("LinearLR", optimizer="TORCH_SGD", initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=10),
        L("CyclicLR", base_lr=0.1, max_lr=1.0, step_size_up=4, mode="bogus"),
        L("OneCycleLR", initial_learning_rate=0.1, max_lr=1.0, total_steps=10, anneal_strategy="bogus"),
        L("LinearLR", initial_learning_rate=0.1, end_learning_rate=0.0, total_iters=0),
        L("StepLR", initial_learning_rate=0.1, step_size=0, gamma=0.5),
        L("ExponentialLR", initial_learning_rate=0.1, total_iters=0, decay_rate=0.5),
        W("CosineAnnealingWarmRestartsWD", initial_val=1.0, T_0=10, T_mult=2),
        W("PiecewiseConstantWD", vals=[1.0], milestones=[3, 6]),
        W("SequentialWD", schedulers="LIST2WD", milestones=[5, 10]),
    ]


def collect_errors():
    out = []
    for kind, cls_name, kwargs in error_cases():
        kwargs = dict(kwargs)
        rec = {"family": kind, "class": cls_name, "kwargs": jsonable(kwargs)}
        try:
            opt = cstorch.optim.SGD(make_params(2), lr=0.1)
            if kind == "optimizer":
                p = [torch.nn.Parameter(torch.zeros(3, 4)), torch.nn.Parameter(torch.zeros(4))]
                getattr(cstorch.optim, cls_name)(p, **kwargs)
                rec["result"] = "no exception"
            else:
                module = LRS if kind == "lr_scheduler" else WDS
                if kwargs.get("schedulers") == "LIST2":
                    kwargs["schedulers"] = [LRS.ConstantLR(opt, 0.1), LRS.ConstantLR(opt, 0.2)]
                    rec["kwargs"]["schedulers"] = "[ConstantLR(opt, 0.1), ConstantLR(opt, 0.2)]"
                if kwargs.get("schedulers") == "LIST2WD":
                    kwargs["schedulers"] = [WDS.ConstantWD(opt, 0.1), WDS.ConstantWD(opt, 0.2)]
                    rec["kwargs"]["schedulers"] = "[ConstantWD(opt, 0.1), ConstantWD(opt, 0.2)]"
                if kwargs.get("schedulers") == "CONST_CYCLIC":
                    kwargs["schedulers"] = [LRS.ConstantLR(opt, 0.1),
                                            LRS.CyclicLR(opt, base_lr=0.1, max_lr=1.0, step_size_up=4)]
                    rec["kwargs"]["schedulers"] = "[ConstantLR(opt, 0.1), CyclicLR(opt, base_lr=0.1, max_lr=1.0, step_size_up=4)]"
                if kwargs.get("optimizer") == "TORCH_SGD":
                    kwargs["optimizer"] = torch.optim.SGD([torch.nn.Parameter(torch.zeros(2))], lr=0.1)
                    rec["kwargs"]["optimizer"] = "torch.optim.SGD(...) (not a cstorch optimizer)"
                    getattr(module, cls_name)(**kwargs)
                else:
                    cls = getattr(module, cls_name)
                    if "optimizer" in inspect.signature(cls.__init__).parameters:
                        cls(opt, **kwargs)
                    else:
                        cls(**kwargs)
                rec["result"] = "no exception"
                rec["note"] = "host optimizer: cstorch SGD, 2 param groups tagged g0, g1"
        except Exception as e:
            rec.update(err_record(cls_name, e))
        out.append(rec)
    return out


# --------------------------------------------------------------------------
def main():
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    out_dir.mkdir(parents=True, exist_ok=True)
    cstorch.backend("CPU", artifact_dir=Path(tempfile.mkdtemp(prefix="cs_gold_")))
    torch.manual_seed(0)

    common = {
        "cstorch_version": cstorch.__version__,
        "torch_version": torch.__version__,
        "backend": "CPU",
    }

    lin = {"class": "LinearLR", "kwargs": {"initial_learning_rate": 0.1, "end_learning_rate": 0.01, "total_iters": 10}}
    schedulers = {
        **common,
        "protocol": ("Host optimizer: cstorch.optim.SGD(one param group, lr=0.1, weight_decay=0.01) "
                     "unless noted. The scheduler is built from spec (nested specs build sub-schedulers "
                     "on the same optimizer, in order). Then for k = 0..n_steps: values[k][g] = "
                     "float(param_groups[g]['lr']) (the value optimizer step k uses), "
                     "optimizer.step(), scheduler.step(). final_state_dict is taken after the loop."),
        "cases": collect_schedules(LRS, "lr", lr_cases(), "LR", lin),
        "tags_cases": tags_cases(LRS, "lr", "LinearLR",
                                 {"initial_learning_rate": 0.5, "end_learning_rate": 0.0, "total_iters": 10}),
    }
    seed = {"spec": SEED002, "n_steps": 1100,
            "note": "the schedule of the Model Zoo 2.10 docs page Optimizer and Scheduler: LinearLR 0.01->0.001 over 500 then CosineDecayLR 0.001->0.0001 over 500"}
    try:
        seed.update(run_schedule(SEED002, LRS, "lr", 1100))
    except Exception as e:
        seed["error"] = err_record("seed002", e)
    schedulers["seed002"] = seed
    try:
        schedulers["resume_checks"] = [
            resume_check(lin, LRS, "lr", 4, 14),
            resume_check(SEED002, LRS, "lr", 498, 506),
        ]
    except Exception as e:
        schedulers["resume_checks_error"] = err_record("resume_check", e)
    try:
        # SequentialLR(LinearLR, CosineDecayLR), milestones [10]
        ex_spec = next(c for c in lr_cases() if c["class"] == "SequentialLR")
        seen = executor_check(ex_spec, 35)
        eager = run_schedule(ex_spec, LRS, "lr", 35)["values"]
        schedulers["executor_check"] = {
            "spec": ex_spec, "values_in_executor": seen,
            "matches_eager": seen == [v[0] for v in eager]}
    except Exception as e:
        schedulers["executor_check"] = {"error": err_record("executor_check", e)}

    lin_wd = {"class": "LinearWD", "kwargs": {"initial_val": 0.1, "end_val": 0.01, "total_iters": 10}}
    wd = {
        **common,
        "protocol": schedulers["protocol"].replace("['lr']", "['weight_decay']"),
        "cases": collect_schedules(WDS, "weight_decay", wd_cases(), "WD", lin_wd),
        "tags_cases": tags_cases(WDS, "weight_decay", "LinearWD",
                                 {"initial_val": 0.5, "end_val": 0.0, "total_iters": 10}),
    }

    optimizers = {
        **common,
        "p1_init": P1_INIT,
        "p2_init": P2_INIT,
        "p1_init_values": init_params()[0].tolist(),
        "p2_init_values": init_params()[1].tolist(),
        "grad_formula": GRAD_FORMULA,
        "protocol": ("Params p1 (3,4) and p2 (4,) float32 as above, each in its own param group "
                     "{'params': [p], 'tags': ['tag_p1'|'tag_p2']}; the optimizer is built with the "
                     "spec kwargs; for k = 0..4: p.grad = g_k(p) for each param (grads[k]), "
                     "optimizer.step(), record params (params_after_step[k]). No scheduler, no zero_grad "
                     "(grads are overwritten). final_state_dict = optimizer.state_dict() after 5 steps "
                     "(state keyed by param index; tags sets shown as {'__set__': [...]}; tuples as "
                     "{'__tuple__': [...]}; tensors as {'__tensor__': dtype, 'shape', 'values'})."),
        "cases": collect_optimizers(),
    }

    errors = {**common, "constructor_errors": collect_errors(), "runtime_errors": ERRORS}

    for name, obj in [("schedulers.json", schedulers), ("wd_schedulers.json", wd),
                      ("optimizers.json", optimizers), ("errors.json", errors)]:
        text = json.dumps(obj, indent=1, allow_nan=True)
        (out_dir / name).write_text(text + "\n")
        print(f"wrote {name}: {len(text)} bytes")


if __name__ == "__main__":
    main()
