"""The runner: minitorch_cs passes every scenario; a broken implementation fails the right ones
with a readable diff; the real stack passes every CPU scenario (when it is installed)."""
import io
import json
import sys

import pytest

import minitorch_cs
import minitorch_cs.torch as mtorch
from minitorch_cs.conformance import catalogue, check, main
from minitorch_cs.conformance.adapters.base import ProgramAdapter
from minitorch_cs.conformance.adapters.minitorch_cs import (FEATURES, MinitorchCsAdapter,
                                                            _factory, _reset)
from minitorch_cs.conformance.runner import GOLDEN_DIR, UsageError, load_adapter


@pytest.mark.slow
def test_minitorch_cs_adapter_passes_every_scenario(tmp_path):
    out = io.StringIO()
    ok, report = check(MinitorchCsAdapter(), GOLDEN_DIR, report_path=tmp_path / "r.json",
                       out=out)
    assert ok, out.getvalue()[-3000:]
    assert report["summary"]["passed"] == len(catalogue())
    assert report["summary"]["unsupported"] == 0
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["ok"] and saved["summary"] == report["summary"]
    assert "passed" in out.getvalue() and "-> OK" in out.getvalue()


# ---------------------------------------------------------------------------------------------
# a deliberately broken implementation: minitorch_cs with two bugs injected through the public
# namespaces (SGD ignores dampening; LinearLR reaches its end value one step late)
# ---------------------------------------------------------------------------------------------
class _Proxy:
    def __init__(self, target, **overrides):
        self._target, self._overrides = target, overrides

    def __getattr__(self, name):
        if name in self._overrides:
            return self._overrides[name]
        return getattr(self._target, name)


class LateLinearLR(minitorch_cs.optim.lr_scheduler.LinearLR):
    def __init__(self, optimizer, initial_learning_rate, end_learning_rate, total_iters,
                 cycle=False, param_group_tags=None):
        super().__init__(optimizer, initial_learning_rate, end_learning_rate, total_iters + 1,
                         cycle=cycle, param_group_tags=param_group_tags)


class NoDampeningSGD(minitorch_cs.optim.SGD):
    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 maximize=False):
        super().__init__(params, lr, momentum=momentum, weight_decay=weight_decay,
                         nesterov=nesterov, maximize=maximize)


def broken_adapter():
    lrs = _Proxy(minitorch_cs.optim.lr_scheduler, LinearLR=LateLinearLR)
    optim = _Proxy(minitorch_cs.optim, SGD=NoDampeningSGD, lr_scheduler=lrs)
    cstorch = _Proxy(minitorch_cs, optim=optim)
    adapter = ProgramAdapter("broken", cstorch, mtorch, _factory, FEATURES, cleanup=_reset)
    adapter.id = "broken"
    return adapter


@pytest.mark.slow
def test_broken_adapter_fails_the_right_scenarios(tmp_path):
    out = io.StringIO()
    ok, report = check(broken_adapter(), GOLDEN_DIR, report_path=tmp_path / "r.json", out=out)
    assert not ok
    status = {r["name"]: r for r in report["scenarios"]}
    failed = {n for n, r in status.items() if r["status"] == "failed"}
    assert not {n for n, r in status.items() if r["status"] == "error"}
    uses_linear = {s.name for s in catalogue() if '"LinearLR"' in json.dumps(s.inputs)}
    uses_linear.add("checkpoint/training-state")  # its program builds a LinearLR
    # every failure is explained by one of the two bugs ...
    assert failed <= uses_linear | {"optimizer/SGD-4"}
    # ... and the scenarios that pin those behaviours down do fail
    assert {"optimizer/SGD-4", "scheduler/lr/LinearLR-1", "scheduler/lr/LinearLR-3",
            "scheduler/lr/SequentialLR-1", "scheduler/lr/seed002", "scheduler/lr/tags-1",
            "scheduler/lr/ScalePerParamLR-1", "scheduler/lr/ChainedScheduler-1",
            "optimizer/SGD-tagged-schedules", "training/sgd-linear",
            "training/sgd-linear@CSX", "checkpoint/training-state"} <= failed
    # SGD without dampening, LinearLR-free schedules, executors and lazy init are unaffected
    for name in ("optimizer/SGD-1", "optimizer/SGD-2", "optimizer/SGD-3",
                 "scheduler/lr/CosineDecayLR-1", "scheduler/wd/LinearWD-1",
                 "executor/several-runs", "training/adamw-two-runs",
                 "lazy_init/seed001-grouped/values"):
        assert status[name]["status"] == "passed", name
    # a readable diff: the path, got/expected and the tolerance
    text = out.getvalue()
    assert "FAILED scheduler/lr/LinearLR-1" in text
    first = status["scheduler/lr/LinearLR-1"]["mismatches"][0]
    assert first["path"] == "values[1][0]"
    assert first["message"].startswith("got 9.0909") and "but should be 0.0001" in first["message"]
    assert "tolerance atol=" in first["message"]
    sgd = status["optimizer/SGD-4"]["mismatches"][0]
    assert sgd["path"].startswith("steps[0].params.p1") and "but should be" in sgd["message"]
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["summary"]["failed"] == len(failed) and not saved["ok"]


def test_unsupported_scenarios_are_reported_not_failed():
    adapter = MinitorchCsAdapter()
    adapter.features = frozenset(f for f in adapter.features if f != "backend:CSX")
    ok, report = check(adapter, GOLDEN_DIR, only=["lazy_init/", "executor/closures"],
                       out=False)
    assert ok
    by = {r["name"]: r["status"] for r in report["scenarios"]}
    assert by["executor/closures"] == "passed"
    assert by["executor/closures@CSX"] == "unsupported"
    assert all(v == "unsupported" for k, v in by.items() if k.startswith("lazy_init/"))


def test_cli_check_and_exit_status(tmp_path, capsys):
    report = tmp_path / "r.json"
    assert main(["check", "--impl", "minitorch_cs", "--only", "executor/", "--report",
                 str(report), "-q"]) == 0
    assert json.loads(report.read_text())["ok"]
    mod = "tests.conformance.test_check:broken_adapter"
    assert main(["check", "--impl", mod, "--only", "optimizer/SGD", "--report", "-"]) == 1
    text = capsys.readouterr().out
    assert "optimizer/SGD-4" in text and "failed" in text and "FAILED" in text
    assert main(["list"]) == 0
    assert "scheduler/lr/seed002" in capsys.readouterr().out


def test_load_adapter_aliases_and_errors():
    assert load_adapter("minitorch_cs").name == "minitorch_cs"
    assert load_adapter("minitorch_cs.conformance.adapters.minitorch_cs:ADAPTER").id == \
        "minitorch_cs"
    with pytest.raises(UsageError, match="has no adapter attribute"):
        load_adapter("minitorch_cs.conformance.compare")
    with pytest.raises(UsageError, match="no module named 'nosuchmod'"):
        load_adapter("nosuchmod")


# ---------------------------------------------------------------------------------------------
# the command line: usage errors are one line with exit status 2; nothing lands in the cwd
# ---------------------------------------------------------------------------------------------
def _cli_lines(capsys, *argv):
    from minitorch_cs.cli import main as cli_main
    status = cli_main(["conformance", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err.splitlines()


def test_usage_errors_are_one_line_exit_2(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, _, err = _cli_lines(capsys, "check", "--impl", "nosuchmod")
    assert status == 2 and err == [
        "minitorch-cs conformance: error: --impl nosuchmod: no module named 'nosuchmod' (give "
        "an importable MODULE[:ADAPTER] or a FILE.py; aliases: minitorch_cs, cerebras.pytorch, "
        "real-cpu)"]
    status, out, err = _cli_lines(capsys, "check", "--impl", "minitorch_cs", "--only",
                                  "nosuch/*")
    assert status == 2 and len(err) == 1 and out == ""
    assert err[0].startswith("minitorch-cs conformance: error: --only nosuch/* selects no "
                             "scenario of ")
    assert err[0].endswith("; `list` shows their names")
    status, _, err = _cli_lines(capsys, "check", "--impl", "minitorch_cs", "--golden",
                                str(tmp_path))
    assert status == 2 and err == [
        f"minitorch-cs conformance: error: no manifest.json in {tmp_path}: pass --golden DIR "
        f"(a directory made by `export DIR`)"]
    status, _, err = _cli_lines(capsys, "export", str(tmp_path / "x"), "--only", "nope")
    assert status == 2 and len(err) == 1 and "selects no scenario" in err[0]
    monkeypatch.delenv("MINITORCH_CS_REFERENCE_PYTHON", raising=False)
    status, _, err = _cli_lines(capsys, "check", "--impl", "cerebras.pytorch")
    assert status == 2 and len(err) == 1 and "set MINITORCH_CS_REFERENCE_PYTHON" in err[0]
    assert list(tmp_path.iterdir()) == []  # nothing written in the working directory


def test_report_goes_to_the_cache_dir_and_is_named(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path / "..")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    status, out, err = _cli_lines(capsys, "check", "--impl", "minitorch_cs", "--only",
                                  "executor/checks", "-q")
    report = tmp_path / "cache" / "minitorch_cs" / "conformance" / "minitorch_cs-report.json"
    assert status == 0 and err == []
    assert out.splitlines()[-1] == f"report: {report}"
    assert json.loads(report.read_text())["ok"]
    assert list(work.iterdir()) == []


def test_adapter_file_with_the_default_reusing_factory(capsys, tmp_path, monkeypatch):
    # the CONFORMANCE.md template, with minitorch_cs standing in for "my_stack": one backend
    # per process (no private reset), CPU scenarios only
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_stack_conformance.py").write_text(
        "import minitorch_cs as cstorch\n"
        "import minitorch_cs.torch as torch\n"
        "from minitorch_cs.conformance.adapters import ALL_FAMILIES, ProgramAdapter\n"
        "ADAPTER = ProgramAdapter('my_stack', cstorch, torch, "
        "features=ALL_FAMILIES | {'backend:CPU'})\n")
    import minitorch_cs.conformance.adapters.minitorch_cs as own
    own.reset()
    try:
        for impl in ("my_stack_conformance", "my_stack_conformance.py"):
            status, out, err = _cli_lines(capsys, "check", "--impl", impl, "--report", "-",
                                          "--only", "optimizer/SGD", "--only", "executor/")
            assert status == 0, out[-2000:] + "\n".join(err)
            assert "failed" not in out.split("\n")[-2] or " 0 failed" in out
            assert "-> OK" in out
    finally:
        own.reset()
        sys.modules.pop("my_stack_conformance", None)


@pytest.mark.reference
def test_real_stack_passes_every_cpu_scenario(reference_python, tmp_path):
    from minitorch_cs.conformance.adapters.real_cpu import RealCpuAdapter
    out = io.StringIO()
    ok, report = check(RealCpuAdapter(reference_python), GOLDEN_DIR,
                       report_path=tmp_path / "real.json", out=out)
    assert ok, out.getvalue()[-4000:]
    cpu = [s for s in catalogue() if not s.csx_only]
    known = [s for s in cpu if "real-cpu" in s.known_differences]
    assert report["summary"]["passed"] == len(cpu) - len(known)
    assert report["summary"]["known-diff"] == len(known)
    assert report["summary"]["unsupported"] == sum(s.csx_only for s in catalogue())


def test_minitorch_cs_cli_dispatches_conformance(capsys):
    from minitorch_cs.cli import main as cli_main
    assert cli_main(["conformance", "list"]) == 0
    assert "checkpoint/layout" in capsys.readouterr().out
