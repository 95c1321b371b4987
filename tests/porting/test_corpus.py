"""The porting corpus (``tests/porting/corpus``): scripts written for the real stack, ported by
``python -m minitorch_cs.tools.port`` here and run in a subprocess.

Each port must change nothing but module paths on import lines. With
``MINITORCH_CS_REFERENCE_PYTHON`` set, the GPT script also runs unchanged under the real
cerebras-pytorch 2.10 CPU backend, and its losses, gradient norms and learning rates must equal
ours.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minitorch_cs
from minitorch_cs.tools.port import main as port_main

from . import _events, _mnist_files

REPO = str(Path(minitorch_cs.__file__).parents[1])
CORPUS = Path(__file__).parent / "corpus"
SCRIPTS = sorted(p.name for p in CORPUS.glob("*.py"))
ENV = {**os.environ, "PYTHONPATH": REPO}


def port(name, tmp_path) -> Path:
    """``python -m minitorch_cs.tools.port CORPUS/name -o tmp/ported_name`` (run in-process; the
    command line itself is tested in test_port_tool)."""
    out = tmp_path / f"ported_{name}"
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = port_main([str(CORPUS / name), "-o", str(out)])
    assert status == 0, err.getvalue()
    assert "warnings:" not in err.getvalue() and "notes:" not in err.getvalue(), err.getvalue()
    return out


def run_script(path, *args, cwd, python=sys.executable, env=ENV, timeout=600):
    return subprocess.run([python, str(path), *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=timeout)


def last_json(stdout):
    return json.loads(stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", SCRIPTS)
def test_corpus_is_written_for_the_real_stack_and_only_import_paths_change(name, tmp_path):
    src = (CORPUS / name).read_bytes()
    assert b"minitorch_cs" not in src
    assert re.search(rb"^import torch$", src, re.M) and re.search(rb"^import cerebras", src, re.M)
    out = port(name, tmp_path).read_bytes()
    before, after = src.split(b"\n"), out.split(b"\n")
    assert len(before) == len(after)
    for b, a in zip(before, after):
        if b != a:
            assert b.lstrip().startswith((b"import ", b"from ")), (b, a)
            # what follows the module path (names, aliases, comments) is unchanged
            assert b.split(b" import ")[-1] == a.split(b" import ")[-1] or \
                a.endswith(b" as " + b.split()[-1].split(b".")[0]), (b, a)


@pytest.fixture(scope="module")
def mnist_root(tmp_path_factory):
    return _mnist_files.make_root(tmp_path_factory.mktemp("mnist"))


@pytest.fixture(scope="module")
def tokens(tmp_path_factory):
    path = tmp_path_factory.mktemp("tokens") / "tokens.bin"
    rng = np.random.default_rng(0)
    ((np.arange(4000) * 7 + rng.integers(0, 3, 4000)) % 64).astype(np.uint16).tofile(path)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["CPU", "CSX"])
def test_mnist_custom_loop(backend, mnist_root, tmp_path):
    script = port("mnist_custom_loop.py", tmp_path)
    model_dir = tmp_path / "model_dir"
    run = run_script(script, "--data_dir", mnist_root, "--model_dir", model_dir,
                     "--backend", backend, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.strip().splitlines()
    assert [l.split(":")[0] for l in lines[:-1]] == ["| Step 10", "| Step 20", "| Step 30"]
    result = json.loads(lines[-1])
    losses = result["losses"]
    assert len(losses) == 30 and np.mean(losses[-5:]) < 0.5 * np.mean(losses[:5])
    assert result["accuracy"] > 0.85
    ckpt = minitorch_cs.load(str(model_dir / "checkpoint_30.mdl"))
    assert ckpt["step"] == 30 and tuple(ckpt["model"]["fc1.weight"].shape) == (64, 784)
    (events_file,) = _events.event_files(model_dir / "tb")
    steps, values = zip(*_events.scalars(events_file)["loss"])
    assert list(steps) == list(range(1, 31))
    np.testing.assert_allclose(values, losses, rtol=1e-6)


@pytest.mark.slow
def test_csx_probe(tmp_path):
    script = port("csx_probe.py", tmp_path)
    run = run_script(script, "--artifact_dir", tmp_path / "probe", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    r = last_json(run.stdout)
    assert r["cstorch"] == r["appliance"] == "2.10.0" and r["is_csx"] and r["num_csx"] == 1
    assert r["steps"] == 40 and r["samples"] == 40 * 32
    assert r["last_loss"] < 0.05 * r["first_loss"] and r["last_accuracy"] == 1.0


@pytest.mark.slow
def test_install_check(tmp_path):
    script = port("install_check.py", tmp_path)
    run = run_script(script, "--artifact_dir", tmp_path / "check", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip().splitlines()[-1] == "Installation check passed"


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["CPU", "CSX"])
def test_fc_mnist_data_processor(backend, mnist_root, tmp_path):
    script = port("fc_mnist_data.py", tmp_path)
    run = run_script(script, "--data_dir", mnist_root, "--model_dir", tmp_path / "md",
                     "--backend", backend, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    r = last_json(run.stdout)
    label = "torch.int32" if backend == "CSX" else "torch.int64"
    assert r["fake"] == {"len": 7500, "batches": [[[8, 1, 28, 28], "torch.float32", label]] * 2}
    # the t10k labels in file order (shuffle off), read through two DataLoader workers' worth of
    # settings forced in-process, as the real user node does
    raw = (mnist_root / "MNIST" / "raw" / "t10k-labels-idx1-ubyte").read_bytes()[8:]
    assert r["val_labels"] == list(raw)
    first, resumed = r["map"]["first"], r["map"]["resumed"]
    assert r["map"]["checkpoints"] == ["dataloader_3.mdl", "dataloader_4.mdl"]
    assert resumed[0] == first[3]  # resumed after the 30 samples checkpointed at step 3
    assert sorted(v for batch in first for v in batch) != list(range(40))  # shuffled (seed 0)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["CPU", "CSX"])
def test_gpt_training_script(backend, tokens, tmp_path):
    script = port("gpt_train.py", tmp_path)
    model_dir = tmp_path / "md"
    run = run_script(script, "--data", tokens, "--model_dir", model_dir, "--backend", backend,
                     cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    r = last_json(run.stdout)
    hist = r["history"]
    assert [h["step"] for h in hist] == list(range(1, 13))
    assert [h["samples"] for h in hist] == [4.0 * s for s in range(1, 13)]
    assert hist[-1]["loss"] < hist[0]["loss"] - 0.2
    lrs = [h["lr"] for h in hist]
    assert lrs[3] == pytest.approx(3e-3) and lrs[-1] == pytest.approx(3e-4)  # warmup, cosine
    assert lrs[:4] == sorted(lrs[:4]) and lrs[3:] == sorted(lrs[3:], reverse=True)
    assert r["memory_gi"] == (64 if backend == "CSX" else None)
    assert r["unigram_entropy"] == pytest.approx(np.log(64), abs=0.05)
    assert sorted(p.name for p in model_dir.glob("checkpoint_*.mdl")) == [
        "checkpoint_12.mdl", "checkpoint_6.mdl"]
    # resume from the latest checkpoint: three more steps
    run2 = run_script(script, "--data", tokens, "--model_dir", model_dir, "--backend", backend,
                      "--num_steps", 15, cwd=tmp_path)
    assert run2.returncode == 0, run2.stderr[-3000:]
    assert "resumed from checkpoint_12.mdl at step 12" in run2.stdout
    assert [h["step"] for h in last_json(run2.stdout)["history"]] == [13, 14, 15]



@pytest.mark.slow
def test_gpt_training_script_equals_the_real_stack(reference_python, tokens, tmp_path):
    """The same script, unchanged, on the real 2.10 CPU backend: the same numbers."""
    real = run_script(CORPUS / "gpt_train.py", "--data", tokens, "--model_dir", tmp_path / "real",
                      python=reference_python, env={k: v for k, v in os.environ.items()
                                                    if k != "PYTHONPATH"},
                      cwd=tmp_path, timeout=1800)
    assert real.returncode == 0, real.stderr[-3000:]
    ours = run_script(port("gpt_train.py", tmp_path), "--data", tokens, "--model_dir",
                      tmp_path / "ours", cwd=tmp_path)
    assert ours.returncode == 0, ours.stderr[-3000:]
    want, got = last_json(real.stdout), last_json(ours.stdout)
    assert got["unigram_entropy"] == pytest.approx(want["unigram_entropy"], rel=1e-12)
    for key in ("loss", "grad_norm", "lr", "samples"):
        np.testing.assert_allclose([h[key] for h in got["history"]],
                                   [h[key] for h in want["history"]], rtol=2e-5, err_msg=key)
