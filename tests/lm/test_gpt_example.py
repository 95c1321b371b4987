"""End-to-end runs of examples/gpt.py in fresh processes: the loss falls, CPU and the emulated
wafer give identical losses, a resumed run is bit-identical to an uninterrupted one, TensorBoard
scalars are written, and (slow) the full run reaches the held-out accuracy target."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
# one BLAS thread per subprocess unless the caller chose: on two shared cores OpenBLAS' threads
# otherwise spin against each other (same results, many times slower)
_ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1", **os.environ}
EXAMPLE = ROOT / "examples" / "gpt.py"
SMALL = ("--digits", 2, "--num_train", 2000, "--num_val", 200, "--n_embd", 32, "--n_layer", 1,
         "--batch_size", 32, "--warmup_steps", 5)


def _run(*args, cwd):
    env = dict(_ONE_BLAS_THREAD, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, str(EXAMPLE), *map(str, args)], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stderr[-4000:]
    lines = r.stdout.strip().splitlines()
    return dict(kv.split("=") for kv in lines[-1].split()), lines


def _logged_losses(lines):
    return [float(line.split()[3]) for line in lines if line.startswith("step ")]


def test_loss_falls_and_cpu_equals_csx(tmp_path):
    common = (*SMALL, "--num_steps", 30, "--log_steps", 1)
    cpu, cpu_lines = _run(*common, "--model_dir", tmp_path / "cpu", cwd=tmp_path)
    csx, csx_lines = _run(*common, "--model_dir", tmp_path / "csx", "--backend", "CSX",
                          cwd=tmp_path)
    losses = _logged_losses(cpu_lines)
    assert len(losses) == 30 and losses[-1] < 0.75 * losses[0]
    assert _logged_losses(csx_lines) == losses
    assert cpu == csx  # final loss (all digits) and held-out accuracy
    events = list((tmp_path / "cpu" / "tensorboard").rglob("events.out.tfevents.*"))
    assert events and events[0].stat().st_size > 0


def test_resume_from_checkpoint_is_bit_identical(tmp_path):
    import minitorch_cs as cstorch
    common = (*SMALL, "--num_steps", 20, "--checkpoint_steps", 10, "--quiet")
    full, _ = _run(*common, "--model_dir", tmp_path / "full", cwd=tmp_path)
    # the same run, interrupted after step 10: a fresh process resumes from the step-10 checkpoint
    _run(*SMALL, "--num_steps", 20, "--checkpoint_steps", 10, "--quiet", "--model_dir",
         tmp_path / "part", cwd=tmp_path)
    os.remove(tmp_path / "part" / "checkpoint_20.mdl")
    resumed, _ = _run(*common, "--model_dir", tmp_path / "part", "--checkpoint",
                      tmp_path / "part" / "checkpoint_10.mdl", cwd=tmp_path)
    assert resumed["held_out_accuracy"] == full["held_out_accuracy"]
    a = cstorch.load(tmp_path / "full" / "checkpoint_20.mdl", map_location="cpu")
    b = cstorch.load(tmp_path / "part" / "checkpoint_20.mdl", map_location="cpu")
    for k in a["model"]:
        assert np.array_equal(a["model"][k].numpy(), b["model"][k].numpy()), k
    for i in a["optimizer"]["state"]:
        for k, v in a["optimizer"]["state"][i].items():
            assert np.array_equal(np.asarray(v), np.asarray(b["optimizer"]["state"][i][k]))
    assert a["dataloader"] == b["dataloader"] and a["global_step"] == b["global_step"] == 20
    assert np.array_equal(np.asarray(a["lr_scheduler"]["last_epoch"]),
                          np.asarray(b["lr_scheduler"]["last_epoch"]))


@pytest.mark.slow
def test_full_run_reaches_99_percent_exact_match(tmp_path):
    out, _ = _run("--quiet", "--model_dir", tmp_path / "m", cwd=tmp_path)
    assert out["steps"] == "3000"
    assert float(out["held_out_accuracy"]) >= 0.99
