"""An interrupted ``fit`` re-run with the same config autoloads the latest checkpoint and ends
bit-identical to an uninterrupted run (weights, optimizer and scheduler state, losses)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import minitorch_cs as cstorch
from minitorch_cs.modelzoo.trainer.callbacks import Callback
from minitorch_cs.modelzoo.trainer.utils import run_trainer

from .conftest import deep, fc_mnist_params

ROOT = Path(__file__).resolve().parents[2]


class SimulatedCrash(Exception):
    pass


class CrashAtStep(Callback):
    """Raises after the batch that reaches ``global_step == step``."""

    def __init__(self, step: int):
        self.step = step

    def on_train_batch_end(self, trainer, model, outputs, batch, batch_idx):
        if trainer.global_step == self.step:
            raise SimulatedCrash(f"simulated crash at step {self.step}")


def _params(tmp_path, name, device, max_steps=8, callbacks=()):
    p = fc_mnist_params(tmp_path / name, device)
    p["trainer"]["init"]["loop"]["max_steps"] = max_steps
    p["trainer"]["init"]["callbacks"] = list(callbacks)
    return p


def _fit(params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_trainer("train_and_eval", deep(params))[0]


def _assert_same_checkpoint(a, b):
    sa, sb = cstorch.load(a, map_location="cpu"), cstorch.load(b, map_location="cpu")
    assert sa["global_step"] == sb["global_step"]
    for k in sa["model"]:
        assert np.array_equal(np.asarray(sa["model"][k]), np.asarray(sb["model"][k])), k
    for (pa, sta), (pb, stb) in zip(sorted(sa["optimizer"]["state"].items()),
                                    sorted(sb["optimizer"]["state"].items())):
        for key in sta:
            assert np.array_equal(np.asarray(sta[key]), np.asarray(stb[key])), (pa, key)
    assert [int(np.asarray(s["last_epoch"])) for s in sa["schedulers"]] == \
        [int(np.asarray(s["last_epoch"])) for s in sb["schedulers"]]
    assert sa["dataloader"] == sb["dataloader"]


def _losses(trainer, after=0):
    return [(s, v) for s, v in trainer.metrics_history.series("loss") if s > after]


@pytest.mark.parametrize("device", ["CPU", "CSX"])
@pytest.mark.slow
def test_max_steps_reached_then_rerun_with_more(tmp_path, device):
    full = _fit(_params(tmp_path, "full", device))
    first = _fit(_params(tmp_path, "part", device, max_steps=4))
    assert first.global_step == 4
    second = _fit(_params(tmp_path, "part", device))  # autoloads checkpoint_4.mdl
    assert second.global_step == 8
    assert _losses(second) == _losses(full, after=4)
    model_dir = Path(second.model_dir)
    _assert_same_checkpoint(tmp_path / "full" / "model_dir" / "checkpoint_8.mdl",
                            model_dir / "checkpoint_8.mdl")
    sa, sb = full.model.state_dict(), second.model.state_dict()
    assert all(np.array_equal(sa[k].cpu().numpy(), sb[k].cpu().numpy()) for k in sa)


@pytest.mark.parametrize("device", ["CPU", "CSX"])
@pytest.mark.slow
def test_crash_after_a_checkpoint_then_rerun(tmp_path, device):
    full = _fit(_params(tmp_path, "full", device))
    with pytest.raises(RuntimeError, match="CrashAtStep") as info:
        _fit(_params(tmp_path, "part", device, callbacks=[{"CrashAtStep": {"step": 6}}]))
    assert isinstance(info.value.__cause__, SimulatedCrash)
    part = tmp_path / "part" / "model_dir"
    assert sorted(p.name for p in part.glob("checkpoint_*.mdl")) == ["checkpoint_4.mdl"]
    again = _fit(_params(tmp_path, "part", device))
    assert again.global_step == 8
    assert _losses(again) == _losses(full, after=4)
    _assert_same_checkpoint(tmp_path / "full" / "model_dir" / "checkpoint_8.mdl",
                            part / "checkpoint_8.mdl")


@pytest.mark.slow
def test_explicit_ckpt_path_and_none(tmp_path):
    _fit(_params(tmp_path, "a", "CPU", max_steps=4))
    ckpt = tmp_path / "a" / "model_dir" / "checkpoint_4.mdl"
    # ckpt_path: null starts from scratch even though a checkpoint exists
    p = _params(tmp_path, "a", "CPU", max_steps=4)
    p["trainer"]["fit"]["ckpt_path"] = None
    fresh = _fit(p)
    assert fresh.global_step == 4
    # checkpoint_4.mdl exists, so the fresh run's step-4 checkpoint gets a timestamp suffix
    stamped = list((tmp_path / "a" / "model_dir").glob("checkpoint_4_*.mdl"))
    assert len(stamped) == 1
    assert re.fullmatch(r"checkpoint_4_\d{8}_\d{6}\.mdl", stamped[0].name)
    # ... and is the latest checkpoint (same step, later timestamp)
    assert fresh.checkpoint.get_latest_checkpoint(fresh) == str(stamped[0])
    # an explicit path into another model_dir
    p = _params(tmp_path, "b", "CPU", max_steps=8)
    p["trainer"]["fit"]["ckpt_path"] = str(ckpt)
    resumed = _fit(p)
    assert resumed.global_step == 8
    assert _losses(resumed)[0][0] == 5


@pytest.mark.slow
def test_process_killed_after_a_checkpoint(tmp_path):
    """SIGKILL of the whole process (no cleanup at all) after checkpoint_4, then the CLI
    re-run: the result equals the uninterrupted run's."""
    import yaml
    (tmp_path / "killer.py").write_text(textwrap.dedent("""
        import os, signal
        from minitorch_cs.modelzoo.trainer.callbacks import Callback

        class KillAtStep(Callback):
            def __init__(self, step: int):
                self.step = step

            def on_train_batch_end(self, trainer, model, outputs, batch, batch_idx):
                if trainer.global_step == self.step:
                    os.kill(os.getpid(), signal.SIGKILL)
    """))
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{tmp_path}")

    def cli(params, name):
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(params))
        code = ("import sys, killer; from minitorch_cs.cli import main; "
                f"sys.exit(main(['fit', {str(path)!r}]))")
        return subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=600)

    full = cli(_params(tmp_path, "full", "CPU"), "full")
    assert full.returncode == 0, full.stderr[-3000:]
    killed = cli(_params(tmp_path, "part", "CPU", callbacks=[{"KillAtStep": {"step": 6}}]),
                 "killed")
    assert killed.returncode == -9
    again = cli(_params(tmp_path, "part", "CPU"), "again")
    assert again.returncode == 0, again.stderr[-3000:]
    assert "Loading weights from checkpoint" in again.stdout
    _assert_same_checkpoint(tmp_path / "full" / "model_dir" / "checkpoint_8.mdl",
                            tmp_path / "part" / "model_dir" / "checkpoint_8.mdl")
