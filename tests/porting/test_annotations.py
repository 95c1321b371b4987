"""cstorch.name_scope / debug names / pol / device_annotation: the observations of
``_annotation_cases.py`` equal the real 2.10 stack's (committed golden; live with the reference
Python), each in a fresh interpreter because the backend is a process-wide singleton."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
GOLDEN = json.loads((HERE / "data" / "real_annotations.json").read_text())


def _run(python, which):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([python, str(HERE / "_annotation_cases.py"), which], capture_output=True,
                         text=True, env=env, check=True)
    return json.loads(out.stdout)


def test_annotations_equal_the_real_stack():
    assert _run(sys.executable, "ours") == GOLDEN


@pytest.mark.reference
def test_golden_equals_a_live_real_run(reference_python):
    assert _run(reference_python, "real") == GOLDEN


_CSX = r"""
import warnings
warnings.simplefilter("error")  # no "doesn't have any effect" warning on the (emulated) wafer
import minitorch_cs as cstorch
cstorch.backend("CSX", artifact_dir=__import__("tempfile").mkdtemp())

@cstorch.pol(level=0)
def f():
    return cstorch.current_pol()

@cstorch.device_annotation("acth")
def g():
    return cstorch.current_pol()

print(f(), g(), cstorch.current_pol())
"""


def test_on_csx_annotations_act_without_warning():
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", _CSX], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["0", "1", "1"]
