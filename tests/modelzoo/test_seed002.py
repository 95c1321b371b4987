"""Model Zoo 2.10 docs, "Optimizer and Scheduler": the optimizer/scheduler YAML block and its
Python form give the same learning rate at every step and the same losses (and the closed-form
LRs of cstorch 2.10 `optim/lr_scheduler.py`)."""
from __future__ import annotations

import math
import re
import warnings

import pytest
import yaml

import minitorch_cs as cstorch
from minitorch_cs.modelzoo import Trainer
from minitorch_cs.modelzoo.models.vision.fc_mnist import (MNISTDataProcessor, MNISTModel,
                                                           MNISTModelConfig)
from minitorch_cs.modelzoo.trainer.callbacks import Callback, Logging, TrainingLoop
from minitorch_cs.modelzoo.trainer.utils import run_trainer

# The page's YAML, verbatim but for `...` (the model, loop and data it leaves out).
SEED_YAML = """
trainer:
  init:
    optimizer:
      # Corresponds to cstorch.optim.SGD
      SGD:
        lr: 0.01
        momentum: 0.9
    schedulers:
      - SequentialLR:
          schedulers:
            - LinearLR:
                initial_learning_rate: 0.01
                end_learning_rate: 0.001
                total_iters: 500
            - CosineDecayLR:
                initial_learning_rate: 0.001
                end_learning_rate: 0.0001
                total_iters: 500
"""

MODEL = {"name": "fc_mnist", "depth": 1, "hidden_size": 8, "activation_fn": "relu"}
DATA = {"data_processor": "MNISTDataProcessor", "data_dir": None, "batch_size": 8,
        "split": "train"}


class RecordLR(Callback):
    """The learning rate each optimizer step used, read after the step (a step closure)."""

    def __init__(self):
        self.lrs = []

    def on_after_optimizer_step(self, trainer, model, optimizer):
        self.record(optimizer.param_groups[0]["lr"])

    @cstorch.step_closure
    def record(self, lr):
        self.lrs.append(float(lr))


def _yaml_params(tmp_path, device, total_iters):
    params = yaml.safe_load(re.sub(r"total_iters: 500", f"total_iters: {total_iters}",
                                   SEED_YAML))
    init = params["trainer"]["init"]
    init.update(device=device, model_dir=str(tmp_path / "yaml"), seed=3, model=MODEL,
                loop={"max_steps": 2 * total_iters + 2}, logging={"log_steps": 100},
                callbacks=[{"RecordLR": {}}], loggers=[])
    params["trainer"]["fit"] = {"train_dataloader": DATA}
    return params


def _python_run(tmp_path, device, total_iters):
    # The page's Python form (imports mapped), on the same model and data as the YAML form.
    recorder = RecordLR()
    trainer = Trainer(
        device=device, model_dir=tmp_path / "python", seed=3,
        model=lambda: MNISTModel(MNISTModelConfig(**MODEL)),
        optimizer=lambda model: cstorch.optim.SGD(
            model.parameters(),
            lr=0.01,
            momentum=0.9,
        ),
        schedulers=[
            lambda optimizer: cstorch.optim.lr_scheduler.SequentialLR(
                optimizer,
                schedulers=[
                    cstorch.optim.lr_scheduler.LinearLR(
                        optimizer,
                        initial_learning_rate=0.01,
                        end_learning_rate=0.001,
                        total_iters=total_iters,
                    ),
                    cstorch.optim.lr_scheduler.CosineDecayLR(
                        optimizer,
                        initial_learning_rate=0.001,
                        end_learning_rate=0.0001,
                        total_iters=total_iters,
                    ),
                ]
            ),
        ],
        loop=TrainingLoop(max_steps=2 * total_iters + 2), logging=Logging(log_steps=100),
        callbacks=[recorder])
    loader = cstorch.utils.data.DataLoader(
        lambda cfg: MNISTDataProcessor(cfg).create_dataloader(), DATA)
    trainer.fit(loader)
    return trainer, recorder.lrs


def _expected_lr(t, T):
    if t < T:
        return 0.01 + (0.001 - 0.01) * t / T
    k = min(t - T, T)
    return 0.0001 + (0.001 - 0.0001) * 0.5 * (1 + math.cos(math.pi * k / T))


def _compare(tmp_path, device, total_iters):
    warnings.simplefilter("ignore")
    yaml_trainer = run_trainer("train", _yaml_params(tmp_path, device, total_iters))[0]
    yaml_lrs = next(yaml_trainer.get_callbacks(RecordLR)).lrs
    py_trainer, py_lrs = _python_run(tmp_path, device, total_iters)
    steps = 2 * total_iters + 2
    assert len(yaml_lrs) == len(py_lrs) == steps
    assert yaml_lrs == py_lrs
    for t, lr in enumerate(yaml_lrs):
        assert lr == pytest.approx(_expected_lr(t, total_iters), rel=1e-6, abs=1e-9), t
    # the YAML form milestones were computed from total_iters
    assert yaml_trainer.schedulers[0]._milestones == [total_iters]
    assert yaml_trainer.metrics_history.series("loss") == py_trainer.metrics_history.series("loss")
    a, b = yaml_trainer.model.state_dict(), py_trainer.model.state_dict()
    assert all((a[k].cpu().numpy() == b[k].cpu().numpy()).all() for k in a)


@pytest.mark.parametrize("device", ["CPU", "CSX"])
def test_yaml_and_python_forms_agree(tmp_path, device):
    _compare(tmp_path, device, total_iters=5)


@pytest.mark.slow
def test_yaml_and_python_forms_agree_seed_horizon(tmp_path):
    """The page's own horizon: 500 + 500 steps (and two past it)."""
    _compare(tmp_path, "CPU", total_iters=500)
