"""The ``fc_mnist`` model: ``depth`` hidden Linear layers of ``hidden_size`` (or the sizes in
``hidden_sizes``), an optional activation and dropout after each, a last layer to 10 logits,
``log_softmax`` and ``NLLLoss``. ``forward((inputs, labels))`` returns the scalar loss."""
from __future__ import annotations

from typing import List, Literal, Optional

from pydantic import Field

import minitorch_cs as cstorch
from minitorch_cs import torch
from minitorch_cs.metrics import AccuracyMetric
from minitorch_cs.torch import nn
from minitorch_cs.torch.nn import functional as F

from ....config import ModelConfig

__all__ = ["MNISTModelConfig", "MNIST", "MNISTModel"]


class MNISTModelConfig(ModelConfig):
    name: Literal["fc_mnist"]
    """Name of the model."""

    use_bias: bool = True
    """Whether the linear layers have a bias."""

    hidden_sizes: Optional[List[int]] = None
    """Sizes of the hidden layers (takes precedence over ``depth`` and ``hidden_size``)."""

    depth: Optional[int] = None
    """Number of hidden layers (used when ``hidden_sizes`` is not set)."""

    hidden_size: Optional[int] = None
    """Size of each hidden layer (used when ``hidden_sizes`` is not set)."""

    activation_fn: Optional[Literal["relu"]] = None
    """Non-linearity after each hidden layer."""

    dropout: float = Field(0.0, ge=0, le=1)
    """Dropout probability after each hidden layer."""

    disable_softmax: bool = False
    """Skip log_softmax on the logits (the loss is then NLL of the raw logits)."""

    compute_eval_metrics: bool = False
    """Compute accuracy during validation (an ``AccuracyMetric`` named ``accuracy``)."""

    to_float16: bool = False
    """Convert the model to the half dtype."""

    def post_init(self, context):
        if self.hidden_sizes is not None:
            self.depth = len(self.hidden_sizes)
        elif self.hidden_size is None or self.depth is None:
            raise ValueError("hidden_size and depth, or hidden_sizes must be provided")
        else:
            self.hidden_sizes = [self.hidden_size] * self.depth


class MNIST(nn.Module):
    """The MLP: 784 -> hidden_sizes... -> 10 logits."""

    def __init__(self, config: MNISTModelConfig):
        super().__init__()
        layers, width = [], 784
        for size in config.hidden_sizes:
            layers.append(nn.Linear(width, size, bias=config.use_bias))
            width = size
        self.fc_layers = nn.ModuleList(layers)
        self.last_layer = nn.Linear(width, 10, bias=config.use_bias)
        self.nonlin = nn.ReLU() if config.activation_fn == "relu" else None
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, inputs):
        x = torch.flatten(inputs, 1)
        for layer in self.fc_layers:
            x = layer(x)
            if self.nonlin is not None:
                x = self.nonlin(x)
            x = self.dropout(x)
        return self.last_layer(x)


class MNISTModel(nn.Module):
    """``MNIST`` plus the loss (and an accuracy metric in eval mode when
    ``compute_eval_metrics``). Takes a ``MNISTModelConfig`` or a dict of its fields."""

    def __init__(self, config: MNISTModelConfig):
        if isinstance(config, dict):
            config = MNISTModelConfig(**config.get("model", config))
        super().__init__()
        self.model = self.build_model(config)
        self.loss_fn = nn.NLLLoss()
        self.disable_softmax = config.disable_softmax
        self.accuracy_metric = AccuracyMetric(name="accuracy") if config.compute_eval_metrics \
            else None

    def build_model(self, config):
        model = MNIST(config)
        if config.to_float16:
            return model.to(cstorch.amp.get_half_dtype())
        return model

    def forward(self, data):
        inputs, labels = data
        logits = self.model(inputs)
        if not self.model.training and self.accuracy_metric is not None:
            predictions = logits.argmax(-1).int()
            self.accuracy_metric(labels=labels.clone(), predictions=predictions)
        if not self.disable_softmax:
            logits = F.log_softmax(logits, dim=1)
        return self.loss_fn(logits, labels)
