"""The scenario programs stay runnable in a foreign interpreter, and the goldens encode the
CSX-equals-CPU property."""
import ast
import json
from pathlib import Path

from minitorch_cs.conformance import catalogue, programs
from minitorch_cs.conformance.adapters import _real_driver
from minitorch_cs.conformance.runner import GOLDEN_DIR

ALLOWED = {"__future__", "inspect", "math", "tempfile", "collections", "pathlib", "numpy",
           "h5py", "json"}


def _imports(path):
    tree = ast.parse(Path(path).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "programs.py is loaded by path: no relative imports"
            yield node.module.split(".")[0]


def test_programs_import_only_stdlib_numpy_h5py():
    assert set(_imports(programs.__file__)) <= ALLOWED


def test_real_driver_never_imports_torch_or_minitorch_statically():
    names = set(_imports(_real_driver.__file__))
    assert "torch" not in names and "cerebras" not in names and "minitorch_cs" not in names


def test_csx_goldens_equal_the_cpu_goldens():
    """Replayed CSX runs give the CPU run's timeline, losses and weights bit for bit; only the
    number of body runs differs (once per executor run)."""
    pairs = 0
    for s in catalogue():
        if not s.name.endswith("@CSX"):
            continue
        cpu = GOLDEN_DIR / (s.name[:-4] + ".json")
        if not cpu.exists():
            continue
        a = json.loads(cpu.read_text())["expected"]
        b = json.loads((GOLDEN_DIR / s.file).read_text())["expected"]
        if s.family == "training":
            n_runs = len(s.inputs["runs"])
            assert b["runs"] == [{"body_runs": 1}] * n_runs
            assert a["runs"] == [{"body_runs": r["num_steps"]} for r in s.inputs["runs"]]
            a, b = dict(a, runs=None), dict(b, runs=None)
        assert a == b, s.name
        pairs += 1
    assert pairs >= 10
