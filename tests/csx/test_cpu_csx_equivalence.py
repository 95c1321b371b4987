"""CPU ≡ CSX: every case of ``tests/csx/equivalence`` gives the CPU backend's values bit for bit
on the emulated CSX backend, or is refused there at trace time with a message naming the wafer
rule and the fix, or differs exactly as SPEC.md documents.

The corpus runs in two subprocesses (one per backend, all cases each, started together); each
case is then judged here. Cases that fail today are strict xfails carrying their root cause
(``equivalence/causes.py``): a fix that repairs one turns it into an XPASS, which fails the suite
until the xfail is removed.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.csx.equivalence import generated, harness, oprows, patterns, runner

# the whole corpus runs in two subprocesses (about a minute on two cores): an end-to-end run
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CASES = runner.all_cases()


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """``{"CPU": ..., "CSX": ...}``: the whole corpus run once per backend, in parallel."""
    out = tmp_path_factory.mktemp("equivalence")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    procs = {kind: subprocess.Popen(
        [sys.executable, "-m", "tests.csx.equivalence.runner", "--backend", kind,
         "--out", str(out / kind)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True) for kind in ("CPU", "CSX")}
    loaded = {}
    for kind, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"the {kind} runner failed:\n{stdout}\n{stderr}"
        loaded[kind] = harness.load_results(out / kind)
    return loaded


def _param(case):
    marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_cpu_csx_equivalence(results, case):
    harness.judge(case, results["CPU"], results["CSX"])


# ----- the corpus itself --------------------------------------------------------------------------
def test_corpus_shape():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)), "duplicate case names"
    pats = patterns.PATTERNS
    assert len(pats) >= 80
    assert all(c.doc and "\n" not in c.doc for c in pats), "every pattern has a one-line docstring"
    from tests.torch.test_ops_table import ROWS
    assert len(oprows.row_cases()) == len(ROWS)
    kinds = {type(c.expect).__name__ for c in pats}
    assert kinds == {"Equal", "Refused", "Documented"}
    stale = (set(patterns.XFAIL) - set(names)) | \
        ({f"row:{n}" for n in oprows.ROW_XFAIL} - set(names)) | \
        ({f"inplace:{n}" for n in oprows.INPLACE_XFAIL} - set(names))
    assert not stale, f"xfail entries for unknown cases: {stale}"
    gen = [c for c in CASES if c.group == "generated"]
    assert len(gen) == generated.SUITE_COUNT


@pytest.mark.parametrize("kind", ["CPU", "CSX"])
@pytest.mark.parametrize("index", range(4))
def test_generated_step_resumes_bit_for_bit(kind, index, tmp_path):
    """Five steps of a generated program in one run end where three steps, a checkpoint
    (cstorch.save of model, optimizers, schedulers and the generator), a fresh backend restored
    from it (cstorch.load) and two more steps end, bit for bit, on either backend."""
    assert generated.resume_differences(generated.SUITE_SEED, index, kind, tmp_path) == []


def test_generated_programs_are_reproducible_and_varied():
    """A generated step is a pure function of (seed, index), and a campaign's programs cover
    every model kind, loss, optimizer and optional piece (both of its states)."""
    assert generated.spec(5, 7) == generated.spec(5, 7)
    assert generated.spec(5, 7) != generated.spec(5, 8)
    specs = [generated.spec(1, i) for i in range(400)]
    for key in ("kind", "loss", "opt", "act"):
        drawn = {s[key] for s in specs}
        assert len(drawn) > 2, key
    assert {s["opt"] for s in specs} == set(generated._OPTIMIZERS)
    for key, off in generated.OPTIONAL.items():
        values = {repr(s[key]) for s in specs}
        assert repr(off) in values and len(values) > 1, key


def test_every_inplace_method_is_covered():
    """Every Tensor attribute ending in ``_`` (and every ``__i*__`` operator) is an in-place case
    or excluded with a reason."""
    from minitorch_cs import torch
    found = {n for n in dir(torch.Tensor) if n.endswith("_") and not n.startswith("__")}
    found |= {n for n in dir(torch.Tensor) if re.fullmatch(r"__i(?!nit|ndex|nt|nvert|ter)\w+__", n)}
    missing = found - set(oprows.INPLACE) - set(oprows.INPLACE_EXCLUDED)
    assert not missing, f"in-place methods without a case: {sorted(missing)}"
    assert not set(oprows.INPLACE) - found, "cases for methods Tensor does not have"


_INTERNAL = ["internal error: gradient of shape (4, 3)", "KeyError: 'momentum_buffer'",
             "'NoneType' object has no attribute '_data'", "list index out of range", ""]


@pytest.mark.parametrize("case", [c for c in CASES if isinstance(c.expect, harness.Refused)],
                         ids=lambda c: c.name)
def test_refusal_words_are_specific(case):
    """A refusal's keywords never all match an internal error's text (the judge also rejects
    internal error types and the words 'internal error')."""
    for text in _INTERNAL:
        assert not all(re.search(w, text, re.I) for w in case.expect.words), (case.name, text)
    assert all(w for w in case.expect.words) and len(case.expect.words) >= 2


def _rec(**values):
    return {"outcome": {"status": "ok"}, "values": values}


def test_judge_is_bit_exact(tmp_path):
    """The comparison sees a sign of zero, one ulp, a dtype, a shape and a Python type; NaNs in the
    same places are equal; results survive the npz/json round trip (bfloat16 by its bits)."""
    import ml_dtypes
    a = np.array([0.0, 1.0, np.nan], np.float32)
    base = {"x": ("tensor", "float32", a), "n": ("py", "int", 3)}
    assert not harness.diff_records(base, dict(base, x=("tensor", "float32", a.copy())))
    for other in [np.array([-0.0, 1.0, np.nan], np.float32),
                  np.array([0.0, np.nextafter(np.float32(1), np.float32(2)), np.nan], np.float32),
                  a.astype(np.float64), a[:2]]:
        assert harness.diff_records(base, dict(base, x=("tensor", str(other.dtype), other)))
    assert harness.diff_records(base, dict(base, n=("py", "float", 3.0)))
    b16 = np.array([1.5, -0.0], ml_dtypes.bfloat16)
    recs = {"c": _rec(x=("tensor", "float32", a), h=("tensor", "bfloat16", b16),
                      f=("py", "float", float("inf")))}
    harness.save_results(tmp_path / "r", recs)
    back = harness.load_results(tmp_path / "r")["c"]["values"]
    assert back["f"] == ("py", "float", float("inf"))
    assert not harness.diff_records(back, harness.load_results(tmp_path / "r")["c"]["values"])
    assert np.array_equal(back["x"][2], a, equal_nan=True)
    assert back["h"][2].tobytes() == b16.tobytes()


def _raised(type_="RuntimeError", message="", step=1, inside=True, mro=None):
    return {"outcome": {"status": "raised", "type": type_, "mro": mro or [type_, "Exception"],
                        "message": message, "step": step, "inside": inside, "where": []},
            "values": {}}


def test_judge_refusal_rules():
    """A refusal passes only for the declared type, step and words, never for an internal error
    type or text, and never when CPU fails too."""
    case = harness.Case("c", "doc", None, harness.Refused((r"value", r"step.?closure")))
    good = "Cannot read a tensor's value here; use a cstorch.step_closure"
    cpu = {"c": _rec()}
    harness.judge(case, cpu, {"c": _raised(message=good)})
    harness.judge(case, cpu, {"c": _raised("ValueReadError", good,
                                           mro=["ValueReadError", "RuntimeError"])})
    for bad in [_raised(message=good, step=2), _raised(message="value only"),
                _raised("KeyError", good, mro=["KeyError", "RuntimeError"]),
                _raised(message="internal error: " + good), {"c": _rec()}["c"]]:
        with pytest.raises(AssertionError):
            harness.judge(case, cpu, {"c": bad})
    with pytest.raises(AssertionError, match="CPU must run"):
        harness.judge(case, {"c": _raised(message=good)}, {"c": _raised(message=good)})
    equal = harness.Case("c", "doc", None)
    with pytest.raises(AssertionError, match="CSX raised"):
        harness.judge(equal, cpu, {"c": _raised(message=good)})


def test_run_case_records_where_it_raised(tmp_path):
    """The outcome names the step that raised and whether it was inside the traced call."""
    import minitorch_cs as cstorch
    from minitorch_cs import torch

    def build(fail_inside):
        def b(env):
            lin = torch.nn.Linear(2, 1)
            env.compile(lin)
            seen = []

            @cstorch.trace
            def step(x):
                if fail_inside and len(seen) == 2:
                    raise RuntimeError("boom inside")
                seen.append(1)
                return lin(x).sum()

            def loop(env, setup):
                for i, (x,) in enumerate(env.executor([(torch.ones(3, 2),)] * 5), start=1):
                    env.record(env.call(step, x))
                    if not fail_inside and i == 2:
                        raise ValueError("boom between steps")
            return harness.Setup(step, modules={"m": lin}, loop=loop)
        return b

    inside = harness.run_case(harness.Case("a", "", build(True)), "CPU", tmp_path / "a")
    assert inside["outcome"]["type"] == "RuntimeError" and inside["outcome"]["step"] == 3
    assert inside["outcome"]["inside"] and len([k for k in inside["values"]
                                                if k.startswith("closure/")]) == 2
    between = harness.run_case(harness.Case("b", "", build(False)), "CPU", tmp_path / "b")
    assert between["outcome"]["type"] == "ValueError" and between["outcome"]["step"] == 2
    assert not between["outcome"]["inside"] and "param/m.weight" in between["values"]
