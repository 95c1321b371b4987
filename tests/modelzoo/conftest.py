"""Fixtures of the Model Zoo tests: clean global state around each test, small models/loaders."""
from __future__ import annotations

import copy
import logging

import numpy as np
import pytest

import minitorch_cs as cstorch
import minitorch_cs.torch as torch
import minitorch_cs.torch.nn as nn


@pytest.fixture(autouse=True)
def _clean_modelzoo_state():
    from minitorch_cs.amp._amp_state import _amp_state
    from minitorch_cs.modelzoo.trainer.callbacks import GLOBAL_CALLBACK_REGISTRY
    _amp_state.reset()
    yield
    _amp_state.reset()
    GLOBAL_CALLBACK_REGISTRY.clear()
    log = logging.getLogger("minitorch_cs.modelzoo")
    for h in list(log.handlers):
        log.removeHandler(h)
        h.close()


class TinyModel(nn.Module):
    """A 4 -> 8 -> 3 classifier returning its loss (what the Trainer expects)."""

    def __init__(self, hidden=8):
        super().__init__()
        self.fc1 = nn.Linear(4, hidden)
        self.fc2 = nn.Linear(hidden, 3)
        self.loss = nn.CrossEntropyLoss()

    def forward(self, batch):
        x, y = batch
        return self.loss(self.fc2(torch.relu(self.fc1(x))), y)


class TinyBatches:
    """A restartable loader of ``n`` fixed batches (5 samples of 4 features, 3 classes)."""

    def __init__(self, n=6, seed=0, batch=5):
        rng = np.random.default_rng(seed)
        self.x = rng.standard_normal((n, batch, 4)).astype(np.float32)
        self.y = rng.integers(0, 3, (n, batch))
        self.position = 0

    def __len__(self):
        return len(self.x)

    def __iter__(self):
        start = self.position % len(self)
        for i in range(start, len(self)):
            self.position += 1
            yield torch.from_numpy(self.x[i].copy()), torch.from_numpy(self.y[i].copy())

    def state_dict(self):
        return {"position": self.position}

    def load_state_dict(self, state_dict, strict=True):
        self.position = int(state_dict["position"])

    def aggregate_state_dict(self, worker_states):
        return worker_states[0]

    def deaggregate_state_dict(self, aggregated_state_dict, strict=True):
        return aggregated_state_dict


def tiny_loader(n=6, seed=0):
    return cstorch.utils.data.DataLoader(TinyBatches, n, seed)


def fc_mnist_params(tmp_path, device="CPU", **init_overrides):
    """A small fc_mnist trainer YAML (as a dict): 8 hidden units, batches of 16 bundled digits."""
    data = {"data_processor": "MNISTDataProcessor", "data_dir": None, "batch_size": 16}
    init = {
        "device": device,
        "model_dir": str(tmp_path / "model_dir"),
        "seed": 1,
        "model": {"name": "fc_mnist", "depth": 1, "hidden_size": 8, "activation_fn": "relu",
                  "compute_eval_metrics": True},
        "optimizer": {"SGD": {"lr": 0.05, "momentum": 0.9}},
        "schedulers": [{"SequentialLR": {"schedulers": [
            {"LinearLR": {"initial_learning_rate": 0.05, "end_learning_rate": 0.01,
                          "total_iters": 4}},
            {"CosineDecayLR": {"initial_learning_rate": 0.01, "end_learning_rate": 0.001,
                               "total_iters": 4}}]}}],
        "loop": {"max_steps": 8, "eval_frequency": 4, "eval_steps": 3},
        "checkpoint": {"steps": 4},
        "logging": {"log_steps": 4},
        "loggers": [{"ProgressLogger": {"progress_bar": False}}],
    }
    init.update(init_overrides)
    return {"trainer": {
        "init": init,
        "fit": {"train_dataloader": {**data, "split": "train", "shuffle": True},
                "val_dataloader": {**data, "split": "val", "shuffle": False}},
        "validate": {"val_dataloader": {**data, "split": "val", "shuffle": False}},
        "validate_all": {"val_dataloaders": {**data, "split": "val", "shuffle": False}},
    }}


def deep(d):
    return copy.deepcopy(d)
