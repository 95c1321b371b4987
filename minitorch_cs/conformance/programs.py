"""The scenario programs: small deterministic programs over the public cstorch API.

This module is the executable definition of every conformance scenario. Each family function
``run_<family>(env, inputs)`` takes the scenario's JSON ``inputs`` and returns its observable trace
as plain JSON data (dicts with string keys, lists, floats, ints, bools, strings, None).

It is written against *injected* namespaces, never against an import: ``env.cstorch`` is the
implementation's ``cerebras.pytorch`` and ``env.torch`` its ``torch``. minitorch_cs runs it with
``minitorch_cs`` / ``minitorch_cs.torch``; the real-stack driver loads this very file by path
inside the reference interpreter and runs it with ``cerebras.pytorch`` / ``torch``. So the file
imports nothing but the standard library and numpy (h5py inside the checkpoint-layout program),
and never the package it lives in.

CONFORMANCE.md describes each program in words, for implementations that are not Python.
"""
from __future__ import annotations

import inspect
import math
import tempfile
from collections import OrderedDict
from pathlib import Path

import numpy as np

FAMILIES = ("scheduler", "optimizer", "executor", "training", "lazy_init", "checkpoint",
            "cstorch_nn")


class Unsupported(Exception):
    """Raised by an environment or program for something the implementation cannot run."""


class Env:
    """What a program gets: the two namespaces, a backend factory and scratch space.

    ``backend_factory(kind)`` returns a backend of type ``kind`` (``"CPU"`` or ``"CSX"``) that the
    scenario may use as if fresh: no queued step closures, no active executor, default
    ``cstorch.backends`` flags. An implementation whose backend is a process-wide singleton that
    cannot be reset (the real stack) returns the existing one when its type matches.
    """

    def __init__(self, cstorch, torch, backend_factory, data_dir=None, tmp_root=None):
        self.cstorch = cstorch
        self.torch = torch
        self._factory = backend_factory
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.tmp_root = tmp_root

    def backend(self, kind):
        return self._factory(kind)

    def tmpdir(self) -> Path:
        return Path(tempfile.mkdtemp(prefix="cs_conformance_", dir=self.tmp_root))


def run(env, family, inputs):
    """Run one scenario program and return its trace (plain JSON data)."""
    fn = globals().get(f"run_{family}")
    if fn is None or family not in FAMILIES:
        raise Unsupported(f"unknown scenario family {family!r}")
    return plain(fn(env, inputs))


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def plain(x):
    """Plain JSON data: numpy scalars to Python numbers, tuples to lists, keys to strings."""
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x)
    if x is None or isinstance(x, str):
        return x
    raise TypeError(f"not plain JSON data: {type(x).__name__}")


def scalar(v):
    """A param-group value (float or 0-d tensor) as a Python float; None stays None."""
    if v is None:
        return None
    return float(v)


def values(t):
    """A tensor's values as nested Python lists (floats widened exactly from float32)."""
    return t.detach().tolist()


def dtype_name(dt) -> str:
    """``torch.float32`` -> ``"float32"`` (the implementation's module path is dropped)."""
    return str(dt).rsplit(".", 1)[-1]


def exception_name(e) -> str:
    """The name of the first built-in class in the exception's MRO (``RuntimeError`` for an
    implementation's own ``RuntimeError`` subclass): the observable error kind."""
    for cls in type(e).__mro__:
        if cls.__module__ == "builtins":
            return cls.__name__
    return type(e).__name__


def error_name(fn):
    """Call ``fn``; :func:`exception_name` of what it raised, or None."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is the observation
        return exception_name(e)
    return None


def build_scheduler(cstorch, spec, opt, key):
    """A (possibly nested) scheduler from ``{"class": name, "kwargs": {...}}``.

    Nested ``schedulers`` / ``scheduler`` specs are built first, in order, on the same optimizer.
    Classes whose constructor has no ``optimizer`` parameter (``ChainedScheduler``,
    ``ChainedWD``) are built without it.
    """
    module = cstorch.optim.lr_scheduler if key == "lr" else cstorch.optim.weight_decay_scheduler
    cls = getattr(module, spec["class"])
    kwargs = dict(spec.get("kwargs", {}))
    if "schedulers" in kwargs:
        kwargs["schedulers"] = [build_scheduler(cstorch, s, opt, key) for s in kwargs["schedulers"]]
    if "scheduler" in kwargs:
        kwargs["scheduler"] = build_scheduler(cstorch, kwargs["scheduler"], opt, key)
    if "optimizer" in inspect.signature(cls.__init__).parameters:
        return cls(opt, **kwargs)
    return cls(**kwargs)


def optimizer_kwargs(kwargs):
    """JSON kwargs to constructor kwargs: lists become tuples (``betas``, ``etas``, ``eps`` …)."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in kwargs.items()}


def formula_values(shape, index, scale=1.0):
    """Deterministic float32 test values: ``scale * sin(0.7 * i + 1.3 * index)`` over the flat
    index ``i``, computed in float64 and rounded to float32."""
    n = int(np.prod(shape)) if len(shape) else 1
    a = scale * np.sin(0.7 * np.arange(n, dtype=np.float64) + 1.3 * index)
    return a.astype(np.float32).reshape(shape)


def set_params(torch, params, scale=0.5):
    """Overwrite every parameter with :func:`formula_values` (index = position in the list)."""
    with torch.no_grad():
        for i, p in enumerate(params):
            p.copy_(torch.from_numpy(formula_values(tuple(p.shape), i, scale)))


# ---------------------------------------------------------------------------------------------
# scheduler: values over t
# ---------------------------------------------------------------------------------------------
def _scheduler_host(env, inputs):
    torch, cstorch = env.torch, env.cstorch
    groups = []
    for g in inputs.get("groups", [{"tags": ["g0"]}]):
        group = {"params": [torch.nn.Parameter(torch.zeros(2))]}
        if g.get("tags") is not None:
            group["tags"] = list(g["tags"])
        group.update(g.get("extra", {}))
        groups.append(group)
    return cstorch.optim.SGD(groups, **inputs.get("host", {"lr": 0.1, "weight_decay": 0.01}))


def run_scheduler(env, inputs):
    """SGD host (one param group per ``groups`` entry, no gradients) and the scheduler of
    ``spec`` (if its construction raises: ``{"construction_error": <class>}``). For k = 0..n_steps: record every group's ``key`` value (the value that
    optimizer step k uses), ``optimizer.step()``, ``scheduler.step()``.

    With ``resume: {"split": s}``: after s steps the optimizer and scheduler state dicts are
    taken, both are rebuilt from scratch, ``optimizer.load_state_dict`` then
    ``scheduler.load_state_dict`` (the Trainer's order: build both, then load), and recording
    goes on from step s. ``"order": "load_optimizer_first"`` builds the scheduler only after
    ``optimizer.load_state_dict`` (its constructor then overwrites the loaded value).
    """
    env.backend("CPU")
    key, n = inputs["key"], inputs["n_steps"]
    opt = _scheduler_host(env, inputs)
    try:
        sched = build_scheduler(env.cstorch, inputs["spec"], opt, key)
    except (TypeError, ValueError, AttributeError, RuntimeError) as e:
        return {"construction_error": exception_name(e)}
    resume = inputs.get("resume")
    vals = []
    for k in range(n + 1):
        if resume is not None and k == resume["split"]:
            osd, ssd = opt.state_dict(), sched.state_dict()
            opt = _scheduler_host(env, inputs)
            if resume.get("order") == "load_optimizer_first":
                opt.load_state_dict(osd)
                sched = build_scheduler(env.cstorch, inputs["spec"], opt, key)
            else:
                sched = build_scheduler(env.cstorch, inputs["spec"], opt, key)
                opt.load_state_dict(osd)
            sched.load_state_dict(ssd)
        vals.append([scalar(g[key]) for g in opt.param_groups])
        opt.step()
        sched.step()
    return {"values": vals, "last_epoch": int(sched.last_epoch),
            "last_value": [scalar(v) for v in sched.get_last_value()],
            "state_dict_keys": sorted(sched.state_dict())}


# ---------------------------------------------------------------------------------------------
# optimizer: trajectories
# ---------------------------------------------------------------------------------------------
def optimizer_init_params():
    """p1 (3, 4) and p2 (4,), float32: linspace(-1, 1, 12) and linspace(0.5, -0.25, 4)."""
    p1 = np.linspace(-1.0, 1.0, 12, dtype=np.float64).reshape(3, 4).astype(np.float32)
    p2 = np.linspace(0.5, -0.25, 4, dtype=np.float64).astype(np.float32)
    return {"p1": p1, "p2": p2}


def optimizer_grad(p, k):
    """g_k(p) = sin(1.3 p + k) + 0.1 k, in float64 from the float32 values, rounded to float32."""
    return (np.sin(p.astype(np.float64) * 1.3 + k) + 0.1 * k).astype(np.float32)


def _state_value(torch, v):
    if isinstance(v, torch.Tensor):
        return values(v)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    return v


def run_optimizer(env, inputs):
    """Params p1, p2 (:func:`optimizer_init_params`; ``params`` picks which), each in its own
    param group tagged ``tag_<name>`` (``tags: false``: one plain list of params, no groups).
    The optimizer is built with ``kwargs``; each entry of ``schedulers`` (``{"key", "spec"}``)
    is built on it, in order. For k = 0..n_steps-1: ``p.grad = g_k(p)`` for every param,
    ``optimizer.step()``, every scheduler's ``step()``, then record the params and every group's
    ``lr`` and ``weight_decay``. Finally the optimizer state of each param (sorted state names,
    tensor values as nested lists, numbers as floats) and every param group's entries but
    ``params`` (tag sets as sorted lists, tuples as lists, numbers and 0-d tensors as floats).
    """
    torch, cstorch = env.torch, env.cstorch
    env.backend("CPU")
    names = inputs.get("params", ["p1", "p2"])
    init = optimizer_init_params()
    params = {n: torch.nn.Parameter(torch.from_numpy(init[n].copy())) for n in names}
    if inputs.get("tags", True):
        groups = [{"params": [params[n]], "tags": [f"tag_{n}"]} for n in names]
    else:
        groups = [params[n] for n in names]
    opt = getattr(cstorch.optim, inputs["class"])(groups, **optimizer_kwargs(inputs["kwargs"]))
    scheds = [build_scheduler(cstorch, s["spec"], opt, s["key"])
              for s in inputs.get("schedulers", [])]
    steps = []
    for k in range(inputs.get("n_steps", 5)):
        for n in names:
            params[n].grad = torch.from_numpy(optimizer_grad(params[n].detach().numpy(), k))
        opt.step()
        for s in scheds:
            s.step()
        steps.append({
            "params": {n: values(params[n]) for n in names},
            "lr": [scalar(g["lr"]) for g in opt.param_groups],
            "weight_decay": [scalar(g.get("weight_decay")) for g in opt.param_groups],
        })
    state = {}
    for n in names:
        st = opt.state[params[n]]
        state[n] = {str(k): _state_value(torch, v) for k, v in sorted(st.items())}
    groups = [{k: _group_value(torch, g[k]) for k in sorted(g) if k != "params"}
              for g in opt.param_groups]
    return {"steps": steps, "state": state, "param_groups": groups}


def _group_value(torch, v):
    if isinstance(v, (set, frozenset)):
        return sorted(v, key=repr)
    if isinstance(v, (list, tuple)):
        return [_group_value(torch, x) for x in v]
    return _state_value(torch, v)


# ---------------------------------------------------------------------------------------------
# executor: which steps run which closures
# ---------------------------------------------------------------------------------------------
def _checkpoint_steps(cstorch, value):
    """JSON ``checkpoint_steps``: an int, None, or ``{"schedule": [[start, end, step,
    include_last], ...]}`` for a ``Schedule`` of 0-based ranges."""
    if isinstance(value, dict):
        S = cstorch.utils.data.Schedule
        return S([S.Range(start=a, end=b, step=c, include_last=d) for a, b, c, d in
                  value["schedule"]])
    return value


def _batches(torch, n):
    return [(torch.full((2,), float(i)), torch.full((2,), i, dtype=torch.int64))
            for i in range(n)]


def run_executor(env, inputs):
    """A loader of ``n_batches`` batches ``(full((2,), float(i)), full((2,), i, int64))``; optionally a step closure
    and a checkpoint closure called before the loop; then one DataExecutor per entry of ``runs``
    (``num_steps``, ``checkpoint_steps``). Each step: ``x.mul_(2)``, the step closure on x (its
    snapshot must not see the later ``x.add_(100)``), the checkpoint closure, and a ``body``
    event with the executor counters. After each run an ``after`` event with the counters and
    ``len(executor)``. The log lists every event in the order it happened.
    """
    if inputs.get("program") == "checks":
        return run_executor_checks(env, inputs)
    if inputs.get("program") == "closures":
        return run_executor_closures(env, inputs)
    torch, cstorch = env.torch, env.cstorch
    env.backend(inputs.get("backend", "CPU"))
    loader = cstorch.utils.data.DataLoader(lambda n: _batches(torch, n), inputs["n_batches"])
    log = []

    @cstorch.step_closure
    def rec(x, step):
        log.append(["closure", step, values(x)])

    @cstorch.checkpoint_closure
    def ck(step):
        ex = cstorch.current_executor()
        log.append(["ckpt", step, ex.iteration, ex.user_iteration, ex.on_final_iteration])

    if inputs.get("preloop", False):
        rec(torch.zeros(1), 0)
        ck(0)
    for run_ in inputs["runs"]:
        ex = cstorch.utils.data.DataExecutor(
            loader, num_steps=run_.get("num_steps"),
            checkpoint_steps=_checkpoint_steps(cstorch, run_.get("checkpoint_steps")))
        for step, (x, y) in enumerate(ex, 1):
            x.mul_(2)
            rec(x, step)
            x.add_(100)
            ck(step)
            log.append(["body", step, int(y[0]), ex.iteration, ex.user_iteration,
                        ex.on_final_iteration])
        log.append(["after", ex.iteration, ex.user_iteration, ex.on_final_iteration, len(ex)])
    return {"log": log}


def run_executor_closures(env, inputs):
    """Step closures with nested arguments and keyword arguments, a closure that queues another
    closure while it runs (it runs at the *next* drain; the one queued at the last step waits
    for the next run's pre-initial drain), and what calling a closure returns. Two runs of 3
    steps over 3 batches ``(full((2,), float(i)),)``; the second run does not call ``outer``."""
    torch, cstorch = env.torch, env.cstorch
    env.backend(inputs.get("backend", "CPU"))
    loader = cstorch.utils.data.DataLoader(
        lambda: [(torch.full((2,), float(i)),) for i in range(3)])
    log = []

    def tree(v):
        if isinstance(v, dict):
            return {k: tree(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [tree(x) for x in v]
        return values(v) if isinstance(v, torch.Tensor) else v

    @cstorch.step_closure
    def inner(tag):
        log.append(["inner", tag, cstorch.current_executor().iteration])

    @cstorch.step_closure
    def outer(d, k=None):
        it = cstorch.current_executor().iteration
        log.append(["outer", tree(d), tree(k), it])
        inner(it)

    returned = []
    for run_ in range(2):
        ex = cstorch.utils.data.DataExecutor(loader, num_steps=3)
        for (x,) in ex:
            if run_ == 0:
                returned.append(outer({"x": x, "n": 3, "l": [x, (x * 3, "s")]}, k=x * 2))
            x.add_(10)
            log.append(["body", run_, ex.iteration])
        log.append(["after", run_])
    return {"log": log, "returned": returned}


def run_executor_checks(env, inputs):
    """Exception class names of invalid executor / compute_num_steps calls, and
    ``compute_num_steps`` results (``null`` where it raised, with the class in ``errors``)."""
    torch, cstorch = env.torch, env.cstorch
    env.backend("CPU")
    data = cstorch.utils.data
    sized = data.DataLoader(lambda n: _batches(torch, n), 3)
    unsized = data.DataLoader(lambda n: (b for b in _batches(torch, n)), 3)
    loaders = {"sized3": sized, "unsized": unsized}
    errors = {
        "executor_num_steps_0": error_name(lambda: data.DataExecutor(sized, num_steps=0)),
        "executor_checkpoint_steps_str": error_name(
            lambda: data.DataExecutor(sized, num_steps=2, checkpoint_steps="x")),
        "executor_checkpoint_steps_negative": error_name(
            lambda: data.DataExecutor(sized, num_steps=2, checkpoint_steps=-1)),
        "executor_plain_list": error_name(lambda: data.DataExecutor([1])),
        "executor_unsized_no_num_steps": error_name(lambda: data.DataExecutor(unsized)),
        "dataloader_not_callable": error_name(lambda: data.DataLoader([1, 2])),
        "schedule_negative_start": error_name(lambda: data.Schedule.Range(-1, 3, 1, False)),
        "second_backend": error_name(lambda: cstorch.backend("CPU")),
        "current_executor_outside_run": error_name(cstorch.current_executor),
        "artifact_dir_before_iterating": error_name(
            lambda: data.DataExecutor(sized, num_steps=1).artifact_dir),
    }
    cns = []
    for case in inputs["compute_num_steps"]:
        kw = dict(case["kwargs"])
        try:
            cns.append([data.compute_num_steps(loaders[case["loader"]], **kw), None])
        except Exception as e:  # noqa: BLE001
            cns.append([None, exception_name(e)])
    return {"errors": errors, "compute_num_steps": cns}


# ---------------------------------------------------------------------------------------------
# training: traced steps in an executor (CPU eager, CSX trace once + replay)
# ---------------------------------------------------------------------------------------------
def training_data(torch, n_batches, batch, d_in, n_cls):
    out = []
    for b in range(n_batches):
        x = formula_values((batch, d_in), 10 + b, 1.5)
        y = (np.arange(batch) * 7 + 3 * b) % n_cls
        out.append((torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))))
    return out


def run_training(env, inputs):
    """An MLP ``Linear(d_in, hidden) -> ReLU -> Linear(hidden, n_cls)`` with every parameter set
    by :func:`set_params` (scale 0.5), compiled; the optimizer ``optimizer`` over its parameters
    and the schedulers ``schedulers``; a loader over ``n_batches`` fixed batches
    (:func:`training_data`). A ``@trace`` step: count the body run, cross-entropy loss,
    backward, ``optimizer.step()``, ``zero_grad()``, schedulers' ``step()``, optionally a step
    closure called *inside* the traced body (``closure_inside``), and ``mode`` variants (below).
    After each call a step closure records (step, loss, lr) and a checkpoint closure records the
    parameter sums. One DataExecutor per ``runs`` entry; per run the number of body runs.

    ``mode``: ``"plain"``; ``"frozen_branch"`` (the body doubles the loss it returns on its first
    run only: on CSX that branch is frozen into the graph); ``"read_inside"`` (the body calls
    ``loss.item()``: an error on CSX); ``"retrace_changes"`` (``retrace_every_iteration`` on,
    and the body adds an op on its third run: an error on CSX at step 3).
    """
    torch, cstorch = env.torch, env.cstorch
    F = torch.nn.functional
    kind = inputs.get("backend", "CPU")
    mode = inputs.get("mode", "plain")
    b = env.backend(kind)
    if mode == "retrace_changes":
        cstorch.backends.csx.debug.retrace_every_iteration = True
    d_in, hidden, n_cls = inputs["dims"]
    model = torch.nn.Sequential(torch.nn.Linear(d_in, hidden), torch.nn.ReLU(),
                                torch.nn.Linear(hidden, n_cls))
    set_params(torch, list(model.parameters()))
    compiled = cstorch.compile(model, b)
    o = inputs["optimizer"]
    opt = getattr(cstorch.optim, o["class"])(model.parameters(), **optimizer_kwargs(o["kwargs"]))
    scheds = [build_scheduler(cstorch, s["spec"], opt, s["key"])
              for s in inputs.get("schedulers", [])]
    data = training_data(torch, inputs["n_batches"], inputs["batch"], d_in, n_cls)
    loader = cstorch.utils.data.DataLoader(lambda: data)
    log = []
    body_runs = [0]

    @cstorch.step_closure
    def record(step, loss, lr):
        log.append(["step", step, float(loss), float(lr)])

    @cstorch.step_closure
    def inside(loss):
        log.append(["inside", float(loss)])

    @cstorch.checkpoint_closure
    def ck(step):
        log.append(["ckpt", step, [float(p.detach().sum()) for p in model.parameters()]])

    @cstorch.trace
    def train_step(x, y):
        body_runs[0] += 1
        loss = F.cross_entropy(compiled(x), y)
        if mode == "read_inside":
            log.append(["read", loss.item()])
        if mode == "retrace_changes" and body_runs[0] == 3:
            loss = loss * 1.0
        loss.backward()
        opt.step()
        opt.zero_grad()
        for s in scheds:
            s.step()
        if inputs.get("closure_inside"):
            inside(loss)
        if mode == "frozen_branch" and body_runs[0] == 1:
            return loss * 2
        return loss

    runs = []
    error = None
    try:
        for run_ in inputs["runs"]:
            before = body_runs[0]
            ex = cstorch.utils.data.DataExecutor(
                loader, num_steps=run_["num_steps"],
                checkpoint_steps=_checkpoint_steps(cstorch, run_.get("checkpoint_steps")))
            for step, (x, y) in enumerate(ex, 1):
                loss = train_step(x, y)
                record(step, loss, opt.param_groups[0]["lr"])
                ck(step)
            runs.append({"body_runs": body_runs[0] - before})
    except Exception as e:  # noqa: BLE001 - the error and where it happened are observations
        error = {"type": exception_name(e), "completed_runs": len(runs)}
    finally:
        if mode == "retrace_changes":
            cstorch.backends.csx.debug.retrace_every_iteration = False
    return {"runs": runs, "log": log, "error": error,
            "final_params": [values(p) for p in model.parameters()]}


# ---------------------------------------------------------------------------------------------
# lazy_init: initialization on the CSX device under a fixed seed
# ---------------------------------------------------------------------------------------------
def _seed001_model(torch):
    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w1 = torch.nn.Parameter(torch.empty(2, 2))
            self.w2 = torch.nn.Parameter(torch.empty(2, 2))
            self.reset_parameters()

        def reset_parameters(self):
            self.w1.data.uniform_(-1, 1)
            self.w2.data.normal_()

    return Model


def _seed001_init_weights(torch, Model):
    def init_weights(model):
        if isinstance(model, Model):
            torch.nn.init.kaiming_uniform_(model.w1)
            torch.nn.init.kaiming_normal_(model.w2)
    return init_weights


def run_lazy_init(env, inputs):
    """Build a model under ``with backend.device:`` on CSX with the given debug flags and seed,
    compile it, and observe its weights (``observe: "values"``) or only relations between them
    that hold whatever the random stream (``observe: "relations"``).

    ``model``: ``"seed001"`` (the Model of the cstorch 2.10 docs page "Efficient Weight
    Initialization": w1 ``uniform_(-1, 1)``, w2 ``normal_()``; then,
    with ``apply_init``, ``model.apply(init_weights)`` after the with block: kaiming_uniform_ w1,
    kaiming_normal_ w2); ``"mlp"`` (``Sequential(Linear(6, 5), ReLU(), Linear(5, 3))`` then
    ``xavier_uniform_`` on each weight via ``apply``); ``"alias"`` (that page's
    ``x @ fc1.weight.T`` forward vs the ``F.linear`` form, traced in one executor step).
    """
    torch, cstorch = env.torch, env.cstorch
    b = env.backend("CSX")
    dbg = cstorch.backends.csx.debug
    dbg.lazy_initialization = inputs.get("lazy_initialization", True)
    dbg.optimize_initialization = inputs.get("optimize_initialization", True)
    dbg.skip_weight_init = inputs.get("skip_weight_init", False)
    seed = inputs.get("seed", 0)
    model_kind = inputs["model"]
    if model_kind == "alias":
        return _lazy_alias(env, b)
    torch.manual_seed(seed)
    if model_kind == "seed001":
        Model = _seed001_model(torch)
        init_weights = _seed001_init_weights(torch, Model)
        with b.device:
            model = Model()
        if inputs.get("apply_init", True):
            model.apply(init_weights)
    else:
        with b.device:
            model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(),
                                        torch.nn.Linear(5, 3))
        model.apply(lambda m: torch.nn.init.xavier_uniform_(m.weight)
                    if isinstance(m, torch.nn.Linear) else None)
    cstorch.compile(model, b)
    lazy = {name: np.array(values(p), dtype=np.float32) for name, p in model.named_parameters()}
    if inputs.get("observe") == "values":
        return {name: v.tolist() for name, v in lazy.items()}
    rel = {"all_zero": all(bool((v == 0).all()) for v in lazy.values()),
           "shapes": {k: list(v.shape) for k, v in lazy.items()}}
    if model_kind == "seed001":
        apply_init = inputs.get("apply_init", True)
        # that page: what effectively runs lazily, each weight's ops together on the global stream
        torch.manual_seed(seed)
        w1, w2 = torch.empty(2, 2), torch.empty(2, 2)
        w1.uniform_(-1, 1)
        if apply_init:
            torch.nn.init.kaiming_uniform_(w1)
        w2.normal_()
        if apply_init:
            torch.nn.init.kaiming_normal_(w2)
        # the eager program order
        torch.manual_seed(seed)
        eager = Model()
        if apply_init:
            eager.apply(_seed001_init_weights(torch, Model))
        ew1 = np.array(values(eager.w1), dtype=np.float32)
        rel["equals_grouped_order"] = bool(np.array_equal(lazy["w1"], np.array(values(w1))) and
                                           np.array_equal(lazy["w2"], np.array(values(w2))))
        rel["allclose_eager_w1"] = bool(np.allclose(ew1, lazy["w1"]))
        rel["w1_in_kaiming_bound"] = bool(np.abs(lazy["w1"]).max() <= math.sqrt(6 / 2) * 1.0001)
    # determinism: the same seed again gives the same weights
    rel["deterministic"] = _rebuild_equal(env, b, inputs, seed, lazy)
    return rel


def _rebuild_equal(env, b, inputs, seed, lazy):
    torch = env.torch
    torch.manual_seed(seed)
    if inputs["model"] == "seed001":
        Model = _seed001_model(torch)
        with b.device:
            model = Model()
        if inputs.get("apply_init", True):
            model.apply(_seed001_init_weights(torch, Model))
    else:
        with b.device:
            model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(),
                                        torch.nn.Linear(5, 3))
        model.apply(lambda m: torch.nn.init.xavier_uniform_(m.weight)
                    if isinstance(m, torch.nn.Linear) else None)
    again = {n: np.array(values(p), dtype=np.float32) for n, p in model.named_parameters()}
    return all(np.array_equal(again[k], lazy[k]) for k in lazy)


def _lazy_alias(env, b):
    torch, cstorch = env.torch, env.cstorch
    F = torch.nn.functional

    class Explicit(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(4, 2)

        def forward(self, x):
            return x @ self.fc1.weight.T + self.fc1.bias

    class Implicit(Explicit):
        def forward(self, x):
            return F.linear(x, self.fc1.weight, self.fc1.bias)

    out = {}
    for name, cls in (("explicit_T", Explicit), ("F_linear", Implicit)):
        with b.device:
            model = cls()
        compiled = cstorch.compile(model, b)
        loader = cstorch.utils.data.DataLoader(lambda: [torch.ones(3, 4)])

        @cstorch.trace
        def step(x):
            return compiled(x).sum()

        def go():
            for x in cstorch.utils.data.DataExecutor(loader, num_steps=1):
                step(x)
        out[name] = error_name(go)
    return out


# ---------------------------------------------------------------------------------------------
# checkpoint: save / load round trips
# ---------------------------------------------------------------------------------------------
def describe(torch, x):
    """A loaded checkpoint tree as plain data: containers keep their type name and key order,
    tensors give dtype/shape/values, numpy-like leaves (anything with ``__array__``) likewise."""
    if isinstance(x, torch.Tensor):
        return {"tensor": dtype_name(x.dtype), "shape": list(x.shape), "values": values(x)}
    if isinstance(x, (OrderedDict, dict)):
        return {"dict": "OrderedDict" if type(x) is OrderedDict else "dict",
                "items": [[k, describe(torch, v)] for k, v in x.items()]}
    if isinstance(x, (list, tuple)):
        return {type(x).__name__: [describe(torch, v) for v in x]}
    if isinstance(x, (bool, int, float, str)) or x is None:
        return {type(x).__name__: x}
    if hasattr(x, "__array__"):
        a = np.asarray(x)
        return {"array": str(a.dtype), "shape": list(a.shape), "values": a.tolist()}
    return {"other": type(x).__name__}


def _ckpt_model_and_optimizer(env):
    torch, cstorch = env.torch, env.cstorch
    model = torch.nn.Linear(3, 2)
    set_params(torch, list(model.parameters()))
    opt = cstorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = cstorch.optim.lr_scheduler.LinearLR(opt, initial_learning_rate=0.1,
                                                end_learning_rate=0.01, total_iters=4)
    return model, opt, sched


def _ckpt_steps(env, model, opt, sched, ks):
    torch = env.torch
    for k in ks:
        x = torch.from_numpy(formula_values((4, 3), 20 + k))
        loss = (model(x) ** 2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        sched.step()


def run_checkpoint(env, inputs):
    """``case``: ``"training_state"`` — a Linear(3, 2) (formula weights), SGD(momentum 0.9) and
    LinearLR trained 2 steps (eager, no executor), saved as ``{"model", "optimizer",
    "schedulers": [..], "global_step": 2, "extra": {...}}`` with ``cstorch.save``, loaded back
    (``map_location`` None and ``"cpu"``), restored into fresh objects, trained 2 more steps:
    the loaded tree, whether a tied pair came back as one object, and the params after resuming
    vs training 4 steps straight. Errors — saving to an existing path (the exception
    class; whether the first file still loads), saving a tensor that requires grad, loading a
    missing path: ``"errors"``. ``"layout"`` — the HDF5 layout of a saved file
    (root attribute names, datasets with their ``__TYPE__``, metadata serializer per leaf).
    ``"load_file"`` — load ``file`` from the scenario data dir and describe it.
    """
    torch, cstorch = env.torch, env.cstorch
    env.backend("CPU")
    case = inputs["case"]
    if case == "load_file":
        if env.data_dir is None:
            raise Unsupported("no scenario data dir")
        loaded = cstorch.load(str(env.data_dir / inputs["file"]))
        out = {"tree": describe(torch, loaded)}
        if inputs.get("tied"):
            a, b = inputs["tied"]
            out["tied_is_same_object"] = _get(loaded, a) is _get(loaded, b)
        return out
    d = env.tmpdir()
    if case == "errors":
        path = str(d / "a.mdl")
        cstorch.save({"x": torch.ones(2)}, path)
        err = error_name(lambda: cstorch.save({"x": torch.zeros(2)}, path))
        p = torch.nn.Parameter(torch.ones(2))
        param_path = d / "param.mdl"
        return {"overwrite": err, "first_file_intact": values(cstorch.load(path)["x"]),
                "save_requires_grad": error_name(lambda: cstorch.save({"p": p}, str(param_path))),
                "requires_grad_file_exists": param_path.exists(),
                "load_missing": error_name(lambda: cstorch.load(str(d / "missing.mdl")))}
    if case == "layout":
        return _layout(env, d)
    # training_state
    model, opt, sched = _ckpt_model_and_optimizer(env)
    _ckpt_steps(env, model, opt, sched, [0, 1])
    tied = torch.arange(4, dtype=torch.float32).reshape(2, 2) + 0.5
    state = {"model": model.state_dict(), "optimizer": opt.state_dict(),
             "schedulers": [sched.state_dict()], "global_step": 2,
             "extra": {"tied_a": tied, "tied_b": tied, "ints": torch.arange(3),
                       "nested": [1.5, "s", None, (2, True)],
                       "array": np.arange(4, dtype=np.float64).reshape(2, 2) / 8}}
    path = str(d / "state.mdl")
    cstorch.save(state, path)
    out = {}
    for label, loc in (("deferred", None), ("cpu", "cpu")):
        loaded = cstorch.load(path, map_location=loc)
        out[f"tree_{label}"] = describe(torch, {k: loaded[k] for k in ("model", "global_step",
                                                                          "extra")})
        out[f"tied_{label}"] = loaded["extra"]["tied_a"] is loaded["extra"]["tied_b"]
    loaded = cstorch.load(path)
    out["optimizer_state"] = describe(torch, loaded["optimizer"]["state"])
    out["optimizer_group_keys"] = [sorted(g) for g in loaded["optimizer"]["param_groups"]]
    out["scheduler_last_epoch"] = int(loaded["schedulers"][0]["last_epoch"])
    model2, opt2, sched2 = _ckpt_model_and_optimizer(env)
    model2.load_state_dict(loaded["model"])
    opt2.load_state_dict(loaded["optimizer"])
    sched2.load_state_dict(loaded["schedulers"][0])
    _ckpt_steps(env, model2, opt2, sched2, [2, 3])
    _ckpt_steps(env, model, opt, sched, [2, 3])
    out["resumed_params"] = [values(p) for p in model2.parameters()]
    out["straight_params"] = [values(p) for p in model.parameters()]
    out["resumed_lr"] = scalar(opt2.param_groups[0]["lr"])
    return out


def _get(tree, dotted):
    for part in dotted.split("."):
        tree = tree[int(part)] if isinstance(tree, (list, tuple)) else tree[part]
    return tree


def _layout(env, d):
    import h5py  # the format is HDF5; both stacks depend on h5py
    import json

    torch, cstorch = env.torch, env.cstorch
    tied = torch.ones(2, 2)
    tree = {"w": torch.arange(6, dtype=torch.float32).reshape(2, 3), "step": 3, "name": "n",
            "none": None, "f": 0.25, "i64": torch.arange(3), "tied": [tied, tied],
            "nested": {"a": (1, 2.5)}, "np": np.arange(3, dtype=np.float32),
            "step_again": 3, "name_again": "n"}
    path = str(d / "layout.mdl")
    cstorch.save(tree, path)
    out = {"datasets": {}, "metadata": {}}
    with h5py.File(path, "r") as f:
        attrs = sorted(f.attrs)
        out["root_attrs"] = [a for a in attrs if not a.endswith(".__metadata__")]
        out["version"] = float(f.attrs["__version__"])
        out["success"] = bool(f.attrs["__SUCCESS__"])
        for name in sorted(f):
            ds = f[name]
            out["datasets"][name] = {"dtype": str(ds.dtype), "shape": list(ds.shape),
                                     "type": _attr_str(ds.attrs.get("__TYPE__"))}
        for a in attrs:
            if a.endswith(".__metadata__"):
                meta = json.loads(_attr_str(f.attrs[a]))
                inner = meta.get(a, {})
                out["metadata"][a[: -len(".__metadata__")]] = {
                    "keys": sorted(meta), "type": inner.get("__TYPE__"),
                    "linked": bool(inner.get("__LINKED__", False))}
        out["spec_skeleton"] = json.loads(_attr_str(f.attrs["__spec__"]))[0]
    return out


def _attr_str(v):
    if v is None:
        return None
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray):
        return _attr_str(v.tolist())
    return str(v)


# ---------------------------------------------------------------------------------------------
# cstorch_nn: cstorch.nn losses and functional helpers on fixed operands
# ---------------------------------------------------------------------------------------------
def _nn_operand(torch, spec):
    """An operand from its JSON spec: ``{"float": shape, "index": i, "scale": s}`` (formula
    values, float32; ``"grad": true`` makes it a leaf that requires grad), ``{"labels": shape,
    "classes": c}`` (int64 ``(7 * i + 3) % c`` over the flat index), ``{"ints": [...]}`` (int64),
    ``{"list": [...]}`` (a Python list, e.g. an ``input_shape``); anything else as is."""
    if not isinstance(spec, dict):
        return spec
    if "float" in spec:
        a = formula_values(tuple(spec["float"]), spec.get("index", 0), spec.get("scale", 1.0))
        if "shift" in spec:
            a = (a + np.float32(spec["shift"])).astype(np.float32)
        return torch.tensor(a, requires_grad=bool(spec.get("grad", False)))
    if "labels" in spec:
        n = int(np.prod(spec["labels"]))
        a = ((7 * np.arange(n) + 3) % spec["classes"]).reshape(spec["labels"])
        return torch.tensor(a.astype(np.int64))
    if "ints" in spec:
        return torch.tensor(np.asarray(spec["ints"], dtype=np.int64))
    if "list" in spec:
        return list(spec["list"])
    raise ValueError(f"unknown operand spec {spec}")


def run_cstorch_nn(env, inputs):
    """``kind``: ``"loss"`` — construct ``cstorch.nn.<class>(*args, **kwargs)`` (operand specs in
    kwargs become tensors) and call it on the operands; ``"function"`` — call
    ``cstorch.nn.functional.<name>(*operands, **kwargs)``. The trace: the output's values, dtype
    and shape (a tuple output: each), the loss's ``autogen_enabled`` (or None), and the gradients
    of ``sum(output * formula_values(output.shape, 7))`` w.r.t. each operand that requires grad
    (None for the others) — or, when construction or the call raises, the exception class and
    message."""
    torch, cstorch = env.torch, env.cstorch
    ops = [_nn_operand(torch, spec) for spec in inputs.get("operands", [])]
    kwargs = {k: _nn_operand(torch, v) for k, v in inputs.get("kwargs", {}).items()}
    try:
        if inputs["kind"] == "loss":
            obj = getattr(cstorch.nn, inputs["class"])(*inputs.get("args", []), **kwargs)
            out = obj(*ops)
        else:
            obj = getattr(cstorch.nn.functional, inputs["name"])
            out = obj(*ops, **kwargs)
    except Exception as e:  # noqa: BLE001 - the error is the observation
        return {"error": exception_name(e), "message": str(e)}
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    trace = {"outputs": [{"values": values(o), "dtype": dtype_name(o.dtype),
                          "shape": list(o.shape)} for o in outs],
             "autogen": getattr(obj, "autogen_enabled", None)}
    leaves = [o for o in ops if getattr(o, "requires_grad", False)]
    if leaves:
        total = None
        for o in outs:
            if o.requires_grad:
                w = torch.from_numpy(formula_values(tuple(o.shape), 7))
                term = (o * w).sum()
                total = term if total is None else total + term
        if total is not None:
            total.backward()
        trace["grads"] = [values(o.grad) if getattr(o, "grad", None) is not None else None
                          for o in ops if getattr(o, "requires_grad", False)]
    return trace
