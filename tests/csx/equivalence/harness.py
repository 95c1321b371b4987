"""How a case is declared, run under one backend, recorded, stored and judged.

A *case* is a named training setup (``build(env) -> Setup``) plus the outcome it must have on the
emulated CSX backend compared with the CPU backend (``Equal``, ``Refused`` or ``Documented``).
``run_case`` runs it the way a cstorch user writes it (compile, optimizer, ``@cstorch.trace`` step
inside a ``DataExecutor``, a ``@cstorch.step_closure`` reading the step's outputs) in a fresh
backend, and returns what happened: the outcome (ok, or the exception with the step it came from),
the values every step closure saw, and the final state of every parameter, buffer, gradient,
optimizer state tensor, param-group value and scheduler counter. ``judge`` compares two such
records bit for bit.
"""
from __future__ import annotations

import importlib
import json
import re
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

import minitorch_cs as cstorch
from minitorch_cs import torch

__all__ = ["Equal", "Refused", "Documented", "Case", "Setup", "Env", "run_case", "save_results",
           "load_results", "judge", "diff_records", "INTERNAL_ERROR_TYPES"]

STEPS = 5  # steps per case (one executor run unless the case runs its own loop)


# ----- expectations ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Equal:
    """Both backends run every step and every recorded value is bit-identical on CPU and CSX
    (same kind, dtype, shape, bits, NaN positions and signs of zeros)."""

    def __str__(self):
        return "equal"


@dataclass(frozen=True)
class Refused:
    """CPU runs the case; CSX raises at step ``at_step`` (while the step runs or right after it,
    before the next one) an exception of one of ``types`` whose message contains a match of every
    regex in ``words`` (case-insensitive): the wafer rule and the fix, in any order."""

    words: tuple
    at_step: int = 1
    types: tuple = ("RuntimeError",)

    def __str__(self):
        return f"refused at step {self.at_step}"


@dataclass(frozen=True)
class Documented:
    """A deliberate CPU/CSX difference: ``check(cpu, csx)`` (the two full result sets, so a check
    can use twin cases) asserts what SPEC.md section ``spec`` says."""

    spec: str
    check: Callable

    def __str__(self):
        return f"documented difference (SPEC {self.spec})"


# Exceptions our own code raises by accident: a refusal must never be one of these.
INTERNAL_ERROR_TYPES = ("KeyError", "AttributeError", "TypeError", "IndexError", "NameError",
                        "AssertionError", "UnboundLocalError", "NotImplementedError",
                        "RecursionError", "ZeroDivisionError")
_INTERNAL_WORDS = re.compile(r"internal error|unexpected error|traceback", re.I)


@dataclass
class Case:
    name: str
    doc: str
    build: Callable  # (env) -> Setup
    expect: Any = field(default_factory=Equal)
    xfail: str | None = None  # root cause (one line) while the case fails today
    group: str = "pattern"


@dataclass
class Setup:
    """What ``build`` returns: the traced step, its batches and every object whose final state is
    recorded. ``loop(env, setup)`` replaces the default loop (one executor run of ``steps`` steps
    over ``batches``, each step's output recorded in a step closure)."""

    step: Callable | None = None
    batches: list = field(default_factory=list)
    modules: dict = field(default_factory=dict)
    optimizers: list = field(default_factory=list)
    schedulers: list = field(default_factory=list)
    extra: Callable | None = None  # () -> nest of values recorded after the run
    loop: Callable | None = None
    steps: int = STEPS


# ----- the environment a case runs in ------------------------------------------------------------
class Env:
    """One case's run under one backend kind: the backend, data helpers and the recorder."""

    def __init__(self, kind: str, artifact_dir: Path):
        self.kind = kind
        self.artifact_dir = artifact_dir
        self.step_no = 0  # traced-step calls started, over all runs
        self.raised_inside = False
        self.closure_values: list = []
        self.backend = None

    def start(self):
        reset_runtime()
        self.backend = cstorch.backend(self.kind, artifact_dir=self.artifact_dir)
        return self.backend

    # data
    @staticmethod
    def batches(n=STEPS, shape=(4, 6), classes=3, seed=0, dtype=np.float32):
        rng = np.random.default_rng(seed)
        return [(torch.from_numpy(rng.standard_normal(shape).astype(dtype)),
                 torch.from_numpy(rng.integers(0, classes, shape[0]).astype(np.int64)))
                for _ in range(n)]

    def model(self, factory):
        """Build a model as a cstorch user does: inside ``backend.device``."""
        with self.backend.device:
            return factory()

    def compile(self, model):
        return cstorch.compile(model, self.backend)

    # running
    def call(self, fn, *args, **kwargs):
        """Call a traced step (counted; an exception is marked as raised inside the step)."""
        self.step_no += 1
        try:
            return fn(*args, **kwargs)
        except BaseException:
            self.raised_inside = True
            raise

    def executor(self, batches, steps=STEPS, **kwargs):
        loader = cstorch.utils.data.DataLoader(lambda: batches)
        return cstorch.utils.data.DataExecutor(loader, num_steps=steps, **kwargs)

    def record(self, *values, **named):
        """Queue a step closure that stores the values it receives."""
        def store(vals, nmd):
            flat = {}
            flatten(vals, "", flat)
            flatten(nmd, "", flat)
            self.closure_values.append(flat)
        cstorch.step_closure(store)(values, named)

    def run(self, step, batches, steps=STEPS):
        """The default loop: one executor run, each step's output recorded in a step closure."""
        for batch in self.executor(batches, steps):
            out = self.call(step, *batch) if isinstance(batch, (tuple, list)) else \
                self.call(step, batch)
            self.record(out)


def reset_runtime():
    """A fresh process-like state: no backend, default flags, amp state, seed 0, grad mode on."""
    importlib.import_module("minitorch_cs.backend")._reset_for_tests()
    cstorch.backends.reset()
    cstorch.amp._amp_state.reset()
    torch.set_grad_enabled(True)
    torch.manual_seed(0)


# ----- flattening values -------------------------------------------------------------------------
def _array(t):
    a = t.detach()
    return np.array(a.numpy(force=True), copy=True)  # host copy of a lazy tensor


def flatten(obj, prefix, out):
    """``out[key] = (kind, dtype, value)`` for every leaf of ``obj`` (tensors, numbers, nests)."""
    key = prefix or "."
    if isinstance(obj, torch.Tensor):
        out[key] = ("tensor", str(obj.dtype).replace("torch.", ""), _array(obj))
    elif isinstance(obj, np.ndarray):
        out[key] = ("array", str(obj.dtype), np.array(obj, copy=True))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            flatten(v, f"{prefix}/{k}" if prefix else str(k), out)
    elif isinstance(obj, (tuple, list)):
        for i, v in enumerate(obj):
            flatten(v, f"{prefix}/{i}" if prefix else str(i), out)
    elif obj is None or isinstance(obj, (bool, int, float, str)):
        out[key] = ("py", type(obj).__name__, obj)
    elif isinstance(obj, np.generic):
        out[key] = ("py", type(obj).__name__, obj.item())
    else:
        out[key] = ("py", type(obj).__name__, repr(obj))


def _final_state(setup, out):
    for mname, m in setup.modules.items():
        for n, p in m.named_parameters():
            flatten(p, f"param/{mname}.{n}", out)
            flatten(p.grad, f"grad/{mname}.{n}", out)
        for n, b in m.named_buffers():
            flatten(b, f"buffer/{mname}.{n}", out)
        for n, sub in m.named_modules():
            out[f"training/{mname}.{n}"] = ("py", "bool", bool(sub.training))
    for k, opt in enumerate(setup.optimizers):
        index = {}
        for gi, g in enumerate(opt.param_groups):
            for hk, hv in g.items():
                if hk != "params":
                    flatten(hv, f"opt{k}/group{gi}/{hk}", out)
            for p in g["params"]:
                index[id(p)] = len(index)
        for p, st in opt.state.items():
            flatten(dict(st), f"opt{k}/state/{index.get(id(p), 'unknown')}", out)
    for k, s in enumerate(setup.schedulers):
        # host-side call-order counters count the body's one run on the wafer (SPEC, CSX:
        # "Python state the step may change")
        host = getattr(type(s), "_capture_host_state", ())
        flatten({n: v for n, v in s.state_dict().items()
                 if not n.startswith("_schedulers") and n not in host},
                f"sched{k}", out)
    if setup.extra is not None:
        flatten(setup.extra(), "extra", out)


# ----- running one case --------------------------------------------------------------------------
def _frames(exc):
    """The innermost frames of the package and of the harness (for the report; not compared)."""
    tb = traceback.extract_tb(exc.__traceback__)
    keep = [f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in tb
            if "minitorch_cs" in f.filename or "equivalence" in f.filename]
    return keep[-4:]


def run_case(case: Case, kind: str, artifact_dir: Path) -> dict:
    """Run ``case`` under backend ``kind``; return ``{"outcome": ..., "values": {...}}``."""
    env = Env(kind, artifact_dir)
    values: dict = {}
    outcome = {"status": "ok"}
    setup = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            env.start()
            setup = case.build(env)
            if setup.loop is not None:
                setup.loop(env, setup)
            else:
                env.run(setup.step, setup.batches, setup.steps)
        except Exception as e:  # noqa: BLE001 - every exception is an outcome to record
            outcome = {"status": "raised", "type": type(e).__name__,
                       "mro": [c.__name__ for c in type(e).__mro__],
                       "message": str(e), "step": env.step_no, "inside": env.raised_inside,
                       "where": _frames(e)}
        for i, flat in enumerate(env.closure_values):
            for k, v in flat.items():
                values[f"closure/{i}/{k}"] = v
        if setup is not None:
            try:
                _final_state(setup, values)
            except Exception as e:  # noqa: BLE001
                values["state_error"] = ("py", "str", f"{type(e).__name__}: {e}")
    reset_runtime()
    return {"outcome": outcome, "values": values}


# ----- storing ----------------------------------------------------------------------------------
def _py(v):
    if isinstance(v, float) and not np.isfinite(v):
        return {"float": repr(v)}
    return v


def _unpy(v):
    if isinstance(v, dict) and "float" in v:
        return float(v["float"])
    return v


def save_results(prefix, results: dict) -> None:
    """``prefix.json`` (outcomes, value metadata, Python values) + ``prefix.npz`` (arrays)."""
    prefix = Path(prefix)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    arrays, meta = {}, {}
    for name, rec in results.items():
        vals = {}
        for key, (kind, dtype, v) in rec["values"].items():
            if kind in ("tensor", "array"):
                aid = f"a{len(arrays)}"
                a = v
                if a.dtype.kind == "V":
                    # ml_dtypes (bfloat16): stored by bits (npz cannot name the dtype)
                    a = a.view(f"u{a.dtype.itemsize}")
                arrays[aid] = a
                vals[key] = [kind, dtype, aid]
            else:
                vals[key] = [kind, dtype, _py(v)]
        meta[name] = {"outcome": rec["outcome"], "values": vals}
    np.savez(prefix.with_suffix(".npz"), **arrays)
    prefix.with_suffix(".json").write_text(json.dumps(meta, indent=1, sort_keys=True))


def load_results(prefix) -> dict:
    prefix = Path(prefix)
    meta = json.loads(prefix.with_suffix(".json").read_text())
    with np.load(prefix.with_suffix(".npz")) as z:
        arrays = {k: z[k] for k in z.files}
    out = {}
    for name, rec in meta.items():
        vals = {}
        for key, (kind, dtype, v) in rec["values"].items():
            vals[key] = (kind, dtype, arrays[v] if kind in ("tensor", "array") else _unpy(v))
        out[name] = {"outcome": rec["outcome"], "values": vals}
    return out


# ----- judging ----------------------------------------------------------------------------------
def _same_bits(a, b) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True)
                    and np.array_equal(np.signbit(a.real), np.signbit(b.real)))
    return bool(np.array_equal(a, b))


def diff_records(a: dict, b: dict, limit=6) -> list:
    """Human-readable differences between two value maps (empty when bit-identical)."""
    out = []
    for key in sorted(set(a) | set(b)):
        if key not in a or key not in b:
            out.append(f"{key}: only on {'CPU' if key in a else 'CSX'}")
            continue
        (ka, da, va), (kb, db, vb) = a[key], b[key]
        if (ka, da) != (kb, db):
            out.append(f"{key}: {ka} {da} on CPU, {kb} {db} on CSX")
        elif ka in ("tensor", "array"):
            if va.shape != vb.shape:
                out.append(f"{key}: shape {va.shape} on CPU, {vb.shape} on CSX")
            elif not _same_bits(va, vb):
                bad = ~((va == vb) | (np.isnan(va) & np.isnan(vb)) if va.dtype.kind in "fc"
                        else (va == vb))
                n = int(np.sum(bad)) if va.ndim else 1
                out.append(f"{key}: {n} of {va.size} elements differ "
                           f"(CPU {np.ravel(va)[:3]}, CSX {np.ravel(vb)[:3]})")
        elif not (va == vb or (isinstance(va, float) and isinstance(vb, float)
                               and np.isnan(va) and np.isnan(vb))):
            out.append(f"{key}: {va!r} on CPU, {vb!r} on CSX")
        if len(out) >= limit:
            out.append("...")
            break
    return out


def _describe(outcome):
    if outcome["status"] == "ok":
        return "ran"
    where = "in" if outcome["inside"] else "after"
    return (f"raised {outcome['type']} {where} step {outcome['step']}: "
            f"{outcome['message'][:300]} [{' <- '.join(reversed(outcome.get('where', [])))}]")


def judge(case: Case, cpu_all: dict, csx_all: dict) -> None:
    """Assert that ``case``'s CPU and CSX records meet its expectation."""
    cpu, csx = cpu_all[case.name], csx_all[case.name]
    oc, ox = cpu["outcome"], csx["outcome"]
    exp = case.expect
    if isinstance(exp, Documented):
        exp.check(cpu_all, csx_all)
        return
    if isinstance(exp, Refused):
        assert oc["status"] == "ok", f"CPU must run {case.name}, but it {_describe(oc)}"
        assert ox["status"] == "raised", \
            f"CSX must refuse {case.name} at step {exp.at_step} but ran all steps " \
            f"(differences from CPU: {diff_records(cpu['values'], csx['values'])})"
        bad_type = not set(exp.types) & set(ox["mro"]) or ox["type"] in INTERNAL_ERROR_TYPES
        missing = [w for w in exp.words if not re.search(w, ox["message"], re.I | re.S)]
        assert not bad_type and not missing and not _INTERNAL_WORDS.search(ox["message"]) and \
            ox["step"] == exp.at_step, \
            f"CSX must refuse {case.name} at step {exp.at_step} with {'/'.join(exp.types)} " \
            f"matching {list(exp.words)}; it {_describe(ox)}" + \
            (f" (message lacks {missing})" if missing else "")
        return
    assert oc["status"] == "ok", f"CPU must run {case.name}, but it {_describe(oc)}"
    assert ox["status"] == "ok", f"CSX {_describe(ox)}"
    d = diff_records(cpu["values"], csx["values"])
    assert not d, f"{case.name}: CSX differs from CPU: " + "; ".join(d)
