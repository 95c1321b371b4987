"""End-to-end runs of examples/mnist_custom_loop.py (the loop of the cstorch 2.10 docs page
"Writing a Custom Training Loop") in fresh processes."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from minitorch_cs.datasets import load_bundled_digits, write_idx


pytestmark = pytest.mark.slow  # fresh processes, whole training runs

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "mnist_custom_loop.py"


def _run(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, str(EXAMPLE), "--quiet", *map(str, args)], cwd=cwd,
                       env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-4000:]
    line = r.stdout.strip().splitlines()[-1]
    return dict(kv.split("=") for kv in line.split())


@pytest.fixture(scope="module")
def idx_dir(tmp_path_factory):
    """A small MNIST in IDX files: 1,280 training and 200 test digits from the bundled set."""
    d = tmp_path_factory.mktemp("mnist_idx")
    images, labels = load_bundled_digits()
    order = np.random.default_rng(7).permutation(len(labels))
    tr, te = order[:1280], order[1280:1480]
    write_idx(d / "train-images-idx3-ubyte", images[tr])
    write_idx(d / "train-labels-idx1-ubyte", labels[tr].astype(np.uint8))
    write_idx(d / "t10k-images-idx3-ubyte.gz", images[te])
    write_idx(d / "t10k-labels-idx1-ubyte.gz", labels[te].astype(np.uint8))
    return d


def test_cpu_and_csx_runs_agree(idx_dir, tmp_path):
    cpu = _run("--data_dir", idx_dir, "--num_steps", 200, "--model_dir", tmp_path / "cpu",
               cwd=tmp_path)
    csx = _run("--data_dir", idx_dir, "--num_steps", 200, "--model_dir", tmp_path / "csx",
               "--backend", "CSX", cwd=tmp_path)
    assert cpu == csx
    assert float(cpu["held_out_accuracy"]) > 0.8
    assert (tmp_path / "cpu" / "checkpoint_200.mdl").exists()


def test_resume_from_checkpoint_is_bit_identical(idx_dir, tmp_path):
    import minitorch_cs as cstorch
    common = ("--data_dir", idx_dir, "--num_steps", 120, "--checkpoint_steps", 60)
    _run(*common, "--model_dir", tmp_path / "full", cwd=tmp_path)
    # an interrupted run: 60 steps, then a fresh process resumes from the step-60 checkpoint
    _run("--data_dir", idx_dir, "--num_steps", 60, "--checkpoint_steps", 60,
         "--model_dir", tmp_path / "part", cwd=tmp_path)
    _run(*common, "--model_dir", tmp_path / "part",
         "--checkpoint", tmp_path / "part" / "checkpoint_60.mdl", cwd=tmp_path)
    a = cstorch.load(tmp_path / "full" / "checkpoint_120.mdl", map_location="cpu")
    b = cstorch.load(tmp_path / "part" / "checkpoint_120.mdl", map_location="cpu")
    for k in a["model"]:
        assert np.array_equal(a["model"][k].numpy(), b["model"][k].numpy()), k
    for i in a["optimizer"]["state"]:
        for k, v in a["optimizer"]["state"][i].items():
            assert np.array_equal(np.asarray(v), np.asarray(b["optimizer"]["state"][i][k]))
    assert a["dataloader"] == b["dataloader"] and a["global_step"] == b["global_step"] == 120


@pytest.mark.slow
def test_bundled_digits_reach_the_accuracy_target(tmp_path):
    out = _run("--model_dir", tmp_path / "m", cwd=tmp_path)
    assert out["steps"] == "620"
    assert float(out["held_out_accuracy"]) >= 0.93
