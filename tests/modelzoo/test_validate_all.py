"""``validate`` and ``validate_all`` over several checkpoints (paths, globs, autoload)."""
from __future__ import annotations

import warnings

import pytest

from minitorch_cs.modelzoo.trainer.utils import run_trainer

from .conftest import deep, fc_mnist_params


def _run(mode, params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_trainer(mode, deep(params))[0]


def _val_losses(trainer):
    return [v for _, v in trainer.metrics_history.series("validate_0/loss")]


@pytest.fixture
def trained(tmp_path):
    """A fit of 6 steps with checkpoints at 2, 4, 6 and validation after each."""
    params = fc_mnist_params(tmp_path)
    init = params["trainer"]["init"]
    init["loop"] = {"max_steps": 6, "eval_frequency": 2, "eval_steps": 3}
    init["checkpoint"] = {"steps": 2}
    fit = _run("train_and_eval", params)
    return params, fit


@pytest.mark.parametrize("device", ["CPU", "CSX"])
def test_validate_all_over_every_checkpoint_equals_the_validations_of_fit(tmp_path, device):
    params = fc_mnist_params(tmp_path)
    init = params["trainer"]["init"]
    init.update(device=device, loop={"max_steps": 6, "eval_frequency": 2, "eval_steps": 3},
                checkpoint={"steps": 2})
    fit = _run("train_and_eval", params)
    in_fit = _val_losses(fit)
    assert len(in_fit) == 3
    va = _run("eval_all", params)  # no ckpt_paths: every checkpoint in model_dir
    assert _val_losses(va) == in_fit
    # global steps of the loaded checkpoints, in (step, timestamp) order
    assert [s for s, _ in va.metrics_history.series("validate_0/loss")] == [2, 4, 6]
    acc = va.metrics_history.series("validate_0/accuracy")
    assert [s for s, _ in acc] == [2, 4, 6] and all(0 <= v <= 1 for _, v in acc)


def test_explicit_paths_globs_and_errors(trained, tmp_path):
    params, fit = trained
    md = tmp_path / "model_dir"
    in_fit = _val_losses(fit)
    p = deep(params)
    p["trainer"]["validate_all"]["ckpt_paths"] = [str(md / "checkpoint_6.mdl"),
                                                  str(md / "checkpoint_2.mdl")]
    assert _val_losses(_run("eval_all", p)) == [in_fit[2], in_fit[0]]
    p["trainer"]["validate_all"]["ckpt_paths"] = str(md / "checkpoint_[46].mdl")
    assert _val_losses(_run("eval_all", p)) == in_fit[1:]
    p["trainer"]["validate_all"]["ckpt_paths"] = str(md / "checkpoint_99.mdl")
    with pytest.raises(FileNotFoundError, match="Checkpoint file"):
        _run("eval_all", p)
    # validate: one checkpoint (default: the latest)
    assert _val_losses(_run("eval", params)) == in_fit[-1:]
    p = deep(params)
    p["trainer"]["validate"]["ckpt_path"] = str(md / "checkpoint_4.mdl")
    assert _val_losses(_run("eval", p)) == in_fit[1:2]


def test_eval_all_without_checkpoints(tmp_path):
    with pytest.raises(FileNotFoundError, match="No checkpoints were found"):
        _run("eval_all", fc_mnist_params(tmp_path))


def test_missing_sections(tmp_path):
    params = fc_mnist_params(tmp_path)
    for mode, section in (("eval", "validate"), ("eval_all", "validate_all"),
                          ("train", "fit")):
        p = deep(params)
        del p["trainer"][section]
        with pytest.raises(RuntimeError, match=f"missing `{section}` section"):
            _run(mode, p)
    with pytest.raises(ValueError, match="Invalid mode"):
        run_trainer("predict", params)
