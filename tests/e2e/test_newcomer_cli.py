"""A newcomer's first hour with the ``minitorch-cs`` command, in fresh processes run from a
directory other than the one holding the files: checkpoints are found from any working
directory, nothing is silently lost, and every error is exactly one line with the right exit
status (2: the command or the params file is wrong; 1: the run failed)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "mnist_custom_loop.py"

PARAMS = """\
trainer:
  init:
    device: CPU
    model_dir: {model_dir}
    seed: 1
    model:
      name: fc_mnist
      depth: 1
      hidden_size: 8
      activation_fn: relu
    optimizer:
      SGD:
        lr: 0.05
    loop:
      max_steps: 4
      eval_frequency: 2
      eval_steps: 2
    checkpoint:
      steps: 2
    logging:
      log_steps: 2
    loggers:
      - ProgressLogger:
          progress_bar: false
  fit:
    train_dataloader:
      data_processor: MNISTDataProcessor
      data_dir: null
      batch_size: 16
      split: train
    val_dataloader: &val
      data_processor: MNISTDataProcessor
      data_dir: null
      batch_size: 16
      split: val
      shuffle: false
  validate:
    val_dataloader: *val
"""


def cli(*args, cwd, debug=False):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    argv = [sys.executable, "-m", "minitorch_cs.cli", *map(str, args)]
    if debug:
        argv.append("--debug")
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def one_line(r):
    """The stderr of a failed run: exactly one line."""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr[-4000:]
    return lines[0]


def snapshot(directory: Path) -> dict:
    return {str(p.relative_to(directory)): (p.stat().st_mtime_ns, p.read_bytes())
            for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A finished 4-step job: params in ``jobs/``, fit run from ``jobs/`` with model_dir
    ``md`` (relative to ``jobs/``)."""
    root = tmp_path_factory.mktemp("newcomer")
    jobs = root / "jobs"
    jobs.mkdir()
    (jobs / "params.yaml").write_text(PARAMS.format(model_dir="md"))
    r = cli("fit", "params.yaml", cwd=jobs)
    assert r.returncode == 0, r.stderr[-4000:]
    assert yaml.safe_load((jobs / "md" / "checkpoints_index.yaml").read_text()) == [
        "checkpoint_2.mdl", "checkpoint_4.mdl"]
    return root


@pytest.fixture
def job(trained, tmp_path):
    """A private copy of the finished job (so each test may change it)."""
    shutil.copytree(trained / "jobs", tmp_path / "jobs")
    (tmp_path / "elsewhere").mkdir()
    return tmp_path


@pytest.mark.slow
def test_validate_from_another_directory_loads_the_checkpoint(job):
    index = (job / "jobs" / "md" / "checkpoints_index.yaml").read_text()
    r = cli("validate", "../jobs/params.yaml", "--model_dir", "../jobs/md",
            cwd=job / "elsewhere")
    assert r.returncode == 0, r.stderr[-4000:]
    assert "Loading weights from checkpoint ../jobs/md/checkpoint_4.mdl" in r.stdout
    assert "No checkpoints were found" not in r.stdout
    assert (job / "jobs" / "md" / "checkpoints_index.yaml").read_text() == index


@pytest.mark.slow
def test_rerunning_a_finished_job_is_one_line_and_changes_nothing(job):
    md = job / "jobs" / "md"
    before = snapshot(md)
    r = cli("fit", "../jobs/params.yaml", "--model_dir", "../jobs/md", cwd=job / "elsewhere")
    assert r.returncode == 1
    assert one_line(r) == (
        "minitorch-cs fit: the job in ../jobs/md is already complete at step 4 (max_steps=4, "
        "last checkpoint ../jobs/md/checkpoint_4.mdl); to train further, raise max_steps "
        "(trainer.init.loop.max_steps) above 4, or use a new model_dir")
    assert "exceeds" not in r.stderr
    assert snapshot(md) == before
    # the same when the latest checkpoint is past max_steps (max_steps lowered)
    (job / "jobs" / "low.yaml").write_text(PARAMS.format(model_dir="md").replace(
        "max_steps: 4", "max_steps: 3"))
    r = cli("fit", "low.yaml", cwd=job / "jobs")
    assert r.returncode == 1
    assert one_line(r) == (
        "minitorch-cs fit: the job in md is at global step 4 (last checkpoint "
        "md/checkpoint_4.mdl), which exceeds max_steps=3; to train further, raise max_steps "
        "(trainer.init.loop.max_steps) above 4, or use a new model_dir")
    assert snapshot(md) == before


@pytest.mark.slow
def test_a_copied_model_dir_loads_its_own_checkpoints(job):
    shutil.copytree(job / "jobs" / "md", job / "copy")
    shutil.rmtree(job / "jobs" / "md")  # the original is gone: the copy must not need it
    r = cli("validate", "../jobs/params.yaml", "--model_dir", "../copy", cwd=job / "elsewhere")
    assert r.returncode == 0, r.stderr[-4000:]
    assert "Loading weights from checkpoint ../copy/checkpoint_4.mdl" in r.stdout


@pytest.mark.slow
def test_more_steps_resume_from_another_directory(job):
    (job / "jobs" / "more.yaml").write_text(PARAMS.format(model_dir="md").replace(
        "max_steps: 4", "max_steps: 6"))
    r = cli("fit", "../jobs/more.yaml", "--model_dir", "../jobs/md", cwd=job / "elsewhere")
    assert r.returncode == 0, r.stderr[-4000:]
    assert "Loading weights from checkpoint ../jobs/md/checkpoint_4.mdl" in r.stdout
    assert yaml.safe_load((job / "jobs" / "md" / "checkpoints_index.yaml").read_text()) == [
        "checkpoint_2.mdl", "checkpoint_4.mdl", "checkpoint_6.mdl"]


@pytest.mark.slow
def test_a_missing_indexed_checkpoint_is_an_error_not_a_fresh_start(job):
    md = job / "jobs" / "md"
    (md / "checkpoint_4.mdl").unlink()
    index = (md / "checkpoints_index.yaml").read_text()
    r = cli("validate", "params.yaml", cwd=job / "jobs")
    assert r.returncode == 1
    assert one_line(r) == (
        "minitorch-cs validate: md/checkpoints_index.yaml lists checkpoint_4.mdl but "
        "md/checkpoint_4.mdl does not exist; restore the file, or remove its entry from the "
        "index to start from the previous checkpoint")
    assert (md / "checkpoints_index.yaml").read_text() == index


@pytest.mark.parametrize("entry", ["abs", "dotdot", "symlink"])
@pytest.mark.slow
def test_autoload_refuses_checkpoints_outside_model_dir(job, entry):
    md = job / "jobs" / "md"
    outside = job / "outside.mdl"
    shutil.copy(md / "checkpoint_4.mdl", outside)
    name = {"abs": str(outside), "dotdot": "../../outside.mdl", "symlink": "checkpoint_9.mdl"}
    if entry == "symlink":
        os.symlink(outside, md / "checkpoint_9.mdl")
    else:
        shutil.copy(outside, job / "checkpoint_9.mdl")  # the name must still match the pattern
        name[entry] = name[entry].replace("outside.mdl", "checkpoint_9.mdl")
    (md / "checkpoints_index.yaml").write_text(yaml.safe_dump(
        ["checkpoint_2.mdl", name[entry]]))
    r = cli("validate", "params.yaml", cwd=job / "jobs")
    assert r.returncode == 1
    line = one_line(r)
    assert line.startswith(f"minitorch-cs validate: md/checkpoints_index.yaml lists "
                           f"{name[entry]!r}, which is outside the model directory md; "), line
    assert line.endswith("autoload only reads checkpoints inside it: remove that entry, or "
                         "pass the checkpoint explicitly (ckpt_path / --checkpoint_path) if you "
                         "trust it")


@pytest.mark.slow
def test_a_checkpoint_of_another_model_is_one_line(job):
    # the Quickstart's custom loop wrote its checkpoint where the Trainer autoloads
    md = job / "jobs" / "other"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, str(EXAMPLE), "--quiet", "--num_steps", "2",
                        "--hidden_size", "4", "--model_dir", str(md)], cwd=job, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    r = cli("validate", "params.yaml", "--model_dir", "other", cwd=job / "jobs")
    assert r.returncode == 1
    assert one_line(r) == (
        "minitorch-cs validate: checkpoint other/checkpoint_2.mdl holds the weights of another "
        "model (no Model Zoo metadata: not written by the Trainer, e.g. by a custom training "
        "loop): 6 of its keys are not in MNISTModel ('net.0.bias', 'net.0.weight', ...) and 4 "
        "keys of MNISTModel are not in it ('fc_layers.0.bias', 'fc_layers.0.weight', ...); load "
        "a checkpoint of this model (ckpt_path / --checkpoint_path), or give this run its own "
        "model_dir")
    # another fc_mnist of a different size: same keys, other shapes; the writer is named
    (job / "jobs" / "wide.yaml").write_text(PARAMS.format(model_dir="md").replace(
        "hidden_size: 8", "hidden_size: 16"))
    r = cli("validate", "wide.yaml", cwd=job / "jobs")
    assert r.returncode == 1
    assert one_line(r) == (
        "minitorch-cs validate: checkpoint md/checkpoint_4.mdl holds the weights of another "
        "model (written by the Trainer for model 'fc_mnist' (MNISTModel)): the keys match but "
        "'model.fc_layers.0.weight' is (8, 784) in the checkpoint and (16, 784) in MNISTModel; "
        "load a checkpoint of this model (ckpt_path / --checkpoint_path), or give this run its "
        "own model_dir")


# ----- the params file: one line, the file, the line, the key path, the fix; exit status 2 ------
def _edit(job, old, new, name="bad.yaml"):
    text = PARAMS.format(model_dir="fresh")
    assert old in text
    (job / "jobs" / name).write_text(text.replace(old, new, 1))
    return name


CONFIG_ERRORS = [
    ("max_steps: 4", "max_steps: 0",
     "bad.yaml, line 15: trainer.init.loop.max_steps: `max_steps` must be greater than 0 in "
     "the loop config, got 0"),
    ("      batch_size: 16\n      split: train", "      batchsize: 16\n      split: train",
     "bad.yaml, line 29: trainer.fit.train_dataloader.batchsize: unknown key 'batchsize' (did "
     "you mean 'batch_size'?). Allowed keys: batch_size, data_dir, data_processor, drop_last, "
     "drop_last_batch, fake_data_seed, num_workers, shuffle, shuffle_seed, split, to_float16, "
     "use_fake_data (of MNISTDataProcessorConfig)"),
    ("device: CPU", "device: GPU",
     "bad.yaml, line 3: trainer.init.device: GPU was specified as the target device, but CUDA "
     "is not available (minitorch_cs computes with numpy, without CUDA); use CPU, or CSX for "
     "the emulated wafer"),
    ("    seed: 1", "    seed: 1\n     depth: 2",
     "bad.yaml, line 6, column 11: invalid YAML: mapping values are not allowed here (check "
     "the indentation of this line and of the lines above it)"),
    ("    seed: 1", "    seed: !!python/object/apply:os.system ['echo pwned']",
     "bad.yaml, line 5: the tag !!python/object/apply:os.system is not allowed: only plain "
     "data is read (mappings, lists, strings, numbers, booleans, null)"),
    ("    seed: 1", "    seed: 1\n    seed: 2",
     "bad.yaml, line 6: the key 'seed' appears twice in the same mapping (first on line 5); "
     "keep one of them"),
    ("        lr: 0.05", "        lr: [" + ", ".join(["0.05"] * 3000) + "]",
     "bad.yaml, line 13: trainer.init.optimizer.SGD.lr: expected a number, got [0.05, 0.05, "
     "0.05, 0.05, 0.05, 0.05, ...]"),
]


@pytest.mark.parametrize("old,new,expected", CONFIG_ERRORS,
                         ids=["max_steps0", "typo", "gpu", "indent", "tag", "dup", "long"])
@pytest.mark.slow
def test_config_errors_are_one_line_with_file_and_line(job, old, new, expected):
    name = _edit(job, old, new)
    r = cli("fit", f"../jobs/{name}", cwd=job / "elsewhere")
    assert r.returncode == 2
    assert one_line(r) == f"minitorch-cs fit: ../jobs/{expected}"
    assert not (job / "jobs" / "fresh").exists() and not (job / "elsewhere" / "fresh").exists()


@pytest.mark.slow
def test_alias_bomb_is_refused_quickly(job):
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    (job / "jobs" / "bomb.yaml").write_text("\n".join(lines) + "\ntrainer: *a8\n")
    r = cli("fit", "bomb.yaml", cwd=job / "jobs")
    assert r.returncode == 2
    assert one_line(r) == (
        "minitorch-cs fit: bomb.yaml, line 5: this value expands to more than 100,000 values "
        "through YAML aliases (*name); a params file that large is refused: write the values "
        "out, or use fewer nested aliases")


@pytest.mark.slow
def test_usage_errors_and_debug(job):
    r = cli("fit", "../jobs", cwd=job / "elsewhere")
    assert r.returncode == 2
    assert one_line(r) == ("minitorch-cs fit: ../jobs: is a directory; pass the path of a "
                           "params YAML file inside it (params.yaml)")
    r = cli("fit", "nope.yaml", cwd=job / "elsewhere")
    assert r.returncode == 2
    assert one_line(r) == ("minitorch-cs fit: nope.yaml: no such file; pass the path of a "
                           "params YAML file (e.g. examples/fc_mnist.yaml)")
    r = cli("fit", "../jobs/params.yaml", "--target_device", "TPU", cwd=job / "elsewhere")
    assert r.returncode == 2 and "invalid choice: 'TPU'" in r.stderr
    # --debug adds the traceback above the same last line
    name = _edit(job, "max_steps: 4", "max_steps: 0")
    r = cli("fit", f"../jobs/{name}", cwd=job / "elsewhere", debug=True)
    assert r.returncode == 2
    assert "Traceback (most recent call last)" in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("minitorch-cs fit: ../jobs/bad.yaml, "
                                                        "line 15: trainer.init.loop.max_steps:")


def test_an_unexpected_failure_names_its_cause_in_one_line():
    from minitorch_cs.modelzoo.cli.main import describe_error
    try:
        try:
            raise ModuleNotFoundError("No module named 'some_optional_dep'")
        except ImportError as inner:
            raise RuntimeError("Encountered error when calling X.setup") from inner
    except RuntimeError as e:
        line, status = describe_error(e)
    assert status == 1
    assert line == ("ModuleNotFoundError: No module named 'some_optional_dep' (a missing "
                    "optional dependency? see README: pip install 'minitorch-cs[...]') (run "
                    "with --debug for the traceback)")


# ----- the Quickstart example: arguments are checked before anything is written --------------
@pytest.mark.parametrize("args,message", [
    (["--num_steps", "0"], "argument --num_steps: must be a positive integer, got 0"),
    (["--batch_size", "0"], "argument --batch_size: must be a positive integer, got 0"),
    (["--batch_size", "-1"], "argument --batch_size: must be a positive integer, got -1"),
    (["--batch_size", "5000"], "argument --batch_size: 5000 is larger than the training set "
                               "(no full batch); choose a smaller one"),
    (["--checkpoint_steps", "-2"], "argument --checkpoint_steps: must be an integer >= 0, "
                                   "got -2"),
    (["--checkpoint", "nope.mdl"], "argument --checkpoint: no such file: 'nope.mdl'"),
])
@pytest.mark.slow
def test_example_validates_arguments_first(tmp_path, args, message):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, str(EXAMPLE), *args, "--model_dir", "out"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 2
    assert r.stderr.splitlines()[-1] == f"mnist_custom_loop.py: error: {message}"
    assert r.stderr.startswith("usage: mnist_custom_loop.py")  # argparse's own format
    assert not (tmp_path / "out").exists()
    assert list(tmp_path.iterdir()) == []


def test_example_default_model_dir_is_its_own():
    import importlib.util
    spec = importlib.util.spec_from_file_location("mnist_custom_loop", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.parse_args([]).model_dir == os.path.join("model_dir", "mnist_custom_loop")
    fc = yaml.safe_load((ROOT / "examples" / "fc_mnist.yaml").read_text())
    assert fc["trainer"]["init"]["model_dir"].strip("./") == "model_dir/fc_mnist"
    assert np.__name__  # numpy is importable alongside (the example needs it)


@pytest.mark.slow
def test_a_hostile_index_file_is_one_line(job):
    md = job / "jobs" / "md"
    (md / "checkpoints_index.yaml").write_text("- !!python/object/apply:os.system ['echo x']\n")
    r = cli("validate", "params.yaml", cwd=job / "jobs")
    assert r.returncode == 1
    assert one_line(r) == (
        "minitorch-cs validate: cannot read the checkpoint index: md/checkpoints_index.yaml, "
        "line 1: the tag !!python/object/apply:os.system is not allowed: only plain data is "
        "read (mappings, lists, strings, numbers, booleans, null); fix or delete it (it lists "
        "the checkpoints of md)")
    (md / "checkpoints_index.yaml").write_text("{a: 1}\n")
    r = cli("validate", "params.yaml", cwd=job / "jobs")
    assert r.returncode == 1
    assert one_line(r) == (
        "minitorch-cs validate: the checkpoint index md/checkpoints_index.yaml must be a list of "
        "checkpoint file names, got {'a': 1}; fix or delete it")
