"""A model and data processor written the Model Zoo way (as ``fc_mnist``: a ``ModelConfig``
subclass, a registered model, a data processor returning a torch DataLoader over torchvision's
MNIST), with the REAL stack's imports, ported by the rewrite and driven by the Trainer from
YAML on small IDX files."""
from __future__ import annotations

import importlib
import inspect
import re
import sys

import pytest
import yaml

from minitorch_cs.tools.port import port_source

from . import _events, _mnist_files

MODULE = '''\
"""tiny_fc_mnist: fc_mnist's shape at a size that trains in seconds."""
from typing import List, Literal, Optional

from pydantic import Field

import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import datasets, transforms

import cerebras.pytorch as cstorch
import cerebras.pytorch.distributed as dist
from cerebras.modelzoo.config import DataConfig, ModelConfig
from cerebras.pytorch.metrics import AccuracyMetric


class TinyMNISTModelConfig(ModelConfig):
    name: Literal["tiny_fc_mnist"]
    """Name of the model."""

    hidden_sizes: Optional[List[int]] = None
    """Sizes of the hidden layers (take precedence over depth and hidden_size)."""

    depth: Optional[int] = None
    hidden_size: Optional[int] = None
    dropout: float = Field(0.0, ge=0, le=1)

    def post_init(self, context):
        if self.hidden_sizes is None:
            if self.hidden_size is None or self.depth is None:
                raise ValueError("hidden_size and depth, or hidden_sizes must be provided")
            self.hidden_sizes = [self.hidden_size] * self.depth


class TinyMNISTModel(nn.Module):
    def __init__(self, config: TinyMNISTModelConfig):
        if isinstance(config, dict):
            config = TinyMNISTModelConfig(**config)
        super().__init__()
        layers, width = [], 784
        for size in config.hidden_sizes:
            layers.append(nn.Linear(width, size))
            width = size
        self.fc_layers = nn.ModuleList(layers)
        self.last_layer = nn.Linear(width, 10)
        self.dropout = nn.Dropout(config.dropout)
        self.accuracy_metric = AccuracyMetric(name="eval/accuracy")

    def forward(self, data):
        inputs, labels = data
        x = torch.flatten(inputs, 1)
        for layer in self.fc_layers:
            x = self.dropout(F.relu(layer(x)))
        logits = self.last_layer(x)
        if not self.training:
            self.accuracy_metric(labels=labels.clone(), predictions=logits.argmax(-1).int())
        return F.nll_loss(F.log_softmax(logits, dim=1), labels)


class TinyMNISTDataProcessorConfig(DataConfig):
    data_processor: Literal["TinyMNISTDataProcessor"]
    split: Literal["train", "val"]
    batch_size: int
    data_dir: str = "./"
    shuffle: bool = True
    drop_last: bool = Field(True, validation_alias="drop_last_batch")


class TinyMNISTDataProcessor:
    def __init__(self, config: TinyMNISTDataProcessorConfig):
        if isinstance(config, dict):
            config = TinyMNISTDataProcessorConfig(**config)
        self.config = config
        self.batch_size = dist.get_streaming_batch_size(config.batch_size)
        self.dtype = cstorch.amp.get_floating_point_dtype()

    def create_dataloader(self):
        dataset = datasets.MNIST(
            self.config.data_dir,
            train=self.config.split == "train",
            download=dist.is_master_ordinal(),
            transform=transforms.Compose([
                transforms.ToTensor(),
                transforms.Normalize((0.1307,), (0.3081,)),
                transforms.Lambda(lambda x: torch.as_tensor(x, dtype=self.dtype)),
            ]),
            target_transform=transforms.Lambda(lambda x: torch.as_tensor(
                x, dtype=torch.int32 if cstorch.use_cs() else torch.int64)),
        )
        sampler = None
        if cstorch.use_cs() and dist.num_streamers() > 1 and dist.is_streamer():
            sampler = torch.utils.data.distributed.DistributedSampler(
                dataset, num_replicas=dist.num_streamers(), rank=dist.get_streaming_rank(),
                shuffle=self.config.shuffle)
        return torch.utils.data.DataLoader(
            dataset, batch_size=self.batch_size, sampler=sampler, drop_last=self.config.drop_last,
            shuffle=False if sampler else self.config.shuffle)
'''

PARAMS = '''\
trainer:
  init:
    device: {device}
    model_dir: {model_dir}
    seed: 1
    model:
      name: tiny_fc_mnist
      depth: 1
      hidden_size: 32
    optimizer:
      SGD:
        lr: 0.05
        momentum: 0.9
    schedulers:
      - LinearLR:
          initial_learning_rate: 0.05
          end_learning_rate: 0.01
          total_iters: 30
    loop:
      max_steps: 30
      eval_frequency: 30
    checkpoint:
      steps: 30
    logging:
      log_steps: 10
  fit:
    train_dataloader:
      data_processor: TinyMNISTDataProcessor
      data_dir: {data_dir}
      batch_size: 16
      drop_last_batch: true
      shuffle: true
      split: train
    val_dataloader: &val
      data_processor: TinyMNISTDataProcessor
      data_dir: {data_dir}
      batch_size: 10
      drop_last_batch: true
      shuffle: false
      split: val
  validate:
    val_dataloader: *val
'''


def _modelzoo():
    try:
        from minitorch_cs.modelzoo import Trainer  # noqa: F401
    except ImportError as e:
        pytest.skip(f"minitorch_cs.modelzoo.Trainer is not importable yet ({e})")
    try:
        from minitorch_cs.modelzoo.registry import registry
        from minitorch_cs.modelzoo.trainer.utils import run_trainer
    except ImportError as e:
        pytest.skip(f"the Trainer's YAML entry point (modelzoo.trainer.utils.run_trainer) or "
                    f"the model registry is not importable yet ({e})")
    return registry, run_trainer


def _register(registry, module):
    """Model Zoo registers ``name``, the model's dotted ``path`` and its data processors'
    paths; a registry that takes the classes themselves gets those instead."""
    params = inspect.signature(registry.register_model).parameters
    if "path" in params:
        registry.register_model(name="tiny_fc_mnist",
                                path=f"{module.__name__}.TinyMNISTModel",
                                data_processor_paths=(f"{module.__name__}.TinyMNISTDataProcessor",))
    else:
        registry.register_model("tiny_fc_mnist", module.TinyMNISTModel,
                                module.TinyMNISTModelConfig,
                                data_processors=[(module.TinyMNISTDataProcessor,
                                                  module.TinyMNISTDataProcessorConfig)])


@pytest.fixture
def ported_module(tmp_path, monkeypatch):
    pkg = tmp_path / "user_models"
    pkg.mkdir()
    (pkg / "tiny_fc_mnist.py").write_text(port_source(MODULE))
    monkeypatch.syspath_prepend(str(pkg))
    sys.modules.pop("tiny_fc_mnist", None)
    yield importlib.import_module("tiny_fc_mnist")
    sys.modules.pop("tiny_fc_mnist", None)


def test_config_behaves_like_model_zoos(ported_module):
    m = ported_module
    cfg = m.TinyMNISTModelConfig(depth=2, hidden_size=8)
    assert cfg.name == "tiny_fc_mnist" and cfg.hidden_sizes == [8, 8]
    with pytest.raises(ValueError, match="hidden_size and depth"):
        m.TinyMNISTModelConfig(depth=2)
    with pytest.raises(ValueError, match="Extra inputs are not permitted"):
        m.TinyMNISTModelConfig(depth=1, hidden_size=4, hiden_size=5)
    data = m.TinyMNISTDataProcessorConfig(split="val", batch_size=4, drop_last_batch=False)
    assert data.data_processor == "TinyMNISTDataProcessor" and data.drop_last is False
    with pytest.raises(RuntimeError, match="should not be directly called"):
        data()


@pytest.mark.slow
@pytest.mark.parametrize("device", ["CPU", "CSX"])
def test_trainer_runs_the_ported_model_from_yaml(device, ported_module, tmp_path):
    registry, run_trainer = _modelzoo()
    _register(registry, ported_module)
    data_dir = _mnist_files.make_root(tmp_path / "mnist")
    model_dir = tmp_path / "model_dir"
    params = yaml.safe_load(PARAMS.format(device=device, model_dir=model_dir, data_dir=data_dir))
    (trainer,) = run_trainer("train_and_eval", params)
    assert trainer.global_step == 30
    assert (model_dir / "checkpoint_30.mdl").exists()
    fit = _logged(model_dir)
    losses = [v for _, v in fit["loss"]]
    assert [s for s, _ in fit["loss"]] == [10, 20, 30] and losses[-1] < losses[0]
    accuracy = _accuracy(fit)
    assert accuracy > 0.8, accuracy
    # validate the saved checkpoint, as `cszoo validate` would: same weights, same accuracy
    run_trainer("eval", params)
    assert _accuracy(_logged(model_dir)) == pytest.approx(accuracy, abs=1e-6)


def _logged(model_dir):
    """Every scalar the Trainer's TensorBoard logger wrote, read with the test's own reader."""
    out = {}
    for f in _events.event_files(model_dir):
        for tag, values in _events.scalars(f).items():
            out.setdefault(tag, []).extend(values)
    return out


def _accuracy(logged):
    """The newest model's accuracy. Metric names are process-global in cstorch: the metric of a
    later model with the same name is logged as ``eval/accuracy.1``, ``.2``, ..."""
    found = {}
    for tag in logged:
        m = re.search(r"eval/accuracy(?:\.(\d+))?$", tag)
        if m:
            found[int(m.group(1) or 0)] = tag
    assert found, sorted(logged)
    return logged[found[max(found)]][-1][1]
