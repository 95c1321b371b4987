"""The GPT benchmark's ``--profile``: the replayed step's plan steps, timed and summed by kind."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.slow
def test_gpt_step_profile_lists_the_replays_kernels():
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "gpt_step.py"),
                        "--steps", "3", "--batch", "4", "--profile"],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout
    assert "plan steps; the replayed step" in out
    kinds = [line.split(" x  ", 1)[1] for line in out.splitlines() if " x  " in line]
    assert "_linear" in kinds and "_cross_entropy" in kinds  # planned kernels
    assert any(k.startswith("_op_entry ") for k in kinds)  # recorded entries name their op
