"""The ``minitorch-cs`` CLI: end to end in subprocesses (CPU and CSX), flag injection, errors."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from minitorch_cs.cli import main as cli_main
from minitorch_cs.modelzoo.cli.main import args_to_params, build_parser

from .conftest import fc_mnist_params

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "minitorch_cs.cli", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=600)


def _yaml(tmp_path, params):
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params))
    return path


@pytest.mark.parametrize("device", ["CPU", "CSX"])
@pytest.mark.slow
def test_fit_then_validate_all_in_subprocesses(tmp_path, device):
    params = fc_mnist_params(tmp_path)
    params["trainer"]["init"]["device"] = "CPU"  # the flag below picks the device
    path = _yaml(tmp_path, params)
    md = tmp_path / "md"
    r = _cli("fit", path, "--target_device", device, "--model_dir", md, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert f"| Train Device={'CSX' if device == 'CSX' else 'cpu'}, Step=8" in r.stdout
    assert sorted(p.name for p in md.glob("checkpoint_*.mdl")) == ["checkpoint_4.mdl",
                                                                  "checkpoint_8.mdl"]
    # index entries are relative to the model directory
    assert yaml.safe_load((md / "checkpoints_index.yaml").read_text()) == [
        "checkpoint_4.mdl", "checkpoint_8.mdl"]
    summary = next(p for p in md.iterdir() if p.is_dir() and p.name[0].isdigit())
    rows = [json.loads(line) for line in (summary / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows if "loss" in r] == [4, 8]  # train loss on log steps
    assert [r["step"] for r in rows if "validate_0/loss" in r] == [4, 8]  # mean val loss
    assert (summary / "metrics.csv").read_text().startswith("step,name,value\n")
    assert (summary / "trainer_params.yaml").exists() and (md / "latest_run.log").exists()
    r = _cli("validate_all", path, "--target_device", device, "--model_dir", md, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    loaded = [line.split()[-1] for line in r.stdout.splitlines()
              if "Loading weights from checkpoint" in line]
    assert loaded == [str(md / "checkpoint_4.mdl"), str(md / "checkpoint_8.mdl")]


@pytest.mark.slow
def test_validate_with_checkpoint_path_and_compile_only(tmp_path):
    params = fc_mnist_params(tmp_path)
    path = _yaml(tmp_path, params)
    md = tmp_path / "md"
    assert _cli("fit", path, "--model_dir", md, cwd=tmp_path).returncode == 0
    r = _cli("validate", path, "--model_dir", md, "--checkpoint_path", md / "checkpoint_4.mdl",
             cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert f"Loading weights from checkpoint {md / 'checkpoint_4.mdl'}" in r.stdout
    r = _cli("fit", path, "--target_device", "CSX", "--compile_only", "--model_dir",
             tmp_path / "compile", cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert not list((tmp_path / "compile").glob("checkpoint_*.mdl"))


def test_invalid_params_exit_2_with_the_key_path(tmp_path, capsys):
    params = fc_mnist_params(tmp_path)
    params["trainer"]["init"]["optimizer"] = {"SDG": {"lr": 0.1}}
    path = _yaml(tmp_path, params)
    assert cli_main(["fit", str(path)]) == 2
    err = capsys.readouterr().err
    assert "trainer.init.optimizer.SDG: unknown optimizer 'SDG' (did you mean 'SGD'?). " \
           "Allowed optimizers:" in err


def test_flags_are_injected_only_when_given(tmp_path):
    params = fc_mnist_params(tmp_path)
    path = _yaml(tmp_path, params)
    parser = build_parser()

    def parsed(*argv):
        ns = parser.parse_args(["fit", str(path), *argv])
        return args_to_params({k: v for k, v in vars(ns).items() if k not in ("cmd", "mode")})

    assert parsed() == params
    p = parsed("--target_device", "CSX", "-o", "/m", "--checkpoint_path", "/c.mdl",
               "--load_checkpoint_states", "model", "--logging", "DEBUG", "--compile_only",
               "--num_csx", "2", "--mount_dirs", "/a", "/b", "--python_paths", "/p",
               "--job_labels", "k=v", "--job_priority", "p1", "--credentials_path", "/cr",
               "--mgmt_address", "h:1", "--disable_version_check", "--ini", "x=1", "y=true",
               "--debug_args", "z=s")
    t = p["trainer"]
    init = t["init"]
    assert init["backend"] == {"backend_type": "CSX", "compile_only": True, "cluster_config": {
        "num_csx": 2, "mount_dirs": ["/a", "/b"], "python_paths": ["/p"], "job_labels": ["k=v"],
        "credentials_path": "/cr", "mgmt_address": "h:1", "disable_version_check": True,
        "job_priority": 1}}
    assert init["model_dir"] == "/m"
    assert init["logging"] == {"log_steps": 4, "log_level": "DEBUG"}
    assert init["callbacks"] == [
        {"LoadCheckpointStates": {"load_checkpoint_states": "model"}},
        {"GlobalFlags": {"csx.debug.debug_args": {"z": "s"}, "csx.debug.ini": {"x": 1,
                                                                              "y": True}}}]
    assert t["fit"]["ckpt_path"] == t["validate"]["ckpt_path"] == "/c.mdl"
    assert t["validate_all"]["ckpt_paths"] == "/c.mdl"
    # the injected params validate
    from minitorch_cs.modelzoo.trainer.validate import validate_trainer_params
    (config,) = validate_trainer_params(p)
    assert config.init.backend["backend_type"] == "CSX"


def test_dispatcher(tmp_path, capsys):
    assert cli_main([]) == 2
    assert "fit" in capsys.readouterr().out
    assert cli_main(["--help"]) == 0
    assert cli_main(["train"]) == 2
    assert "unknown command 'train'" in capsys.readouterr().err
    script = tmp_path / "s.py"
    script.write_text("import cerebras.pytorch as cstorch\nimport torch\n")
    assert cli_main(["port", str(script)]) == 0
    out = capsys.readouterr().out
    assert "import minitorch_cs as cstorch" in out and "import minitorch_cs.torch as torch" in out
    with pytest.raises(SystemExit):
        cli_main(["fit", "--help"])
    assert "--target_device" in capsys.readouterr().out


def test_console_script_entry_point():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["scripts"]["minitorch-cs"] == "minitorch_cs.cli:main"
