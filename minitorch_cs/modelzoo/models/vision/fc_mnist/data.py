"""``MNISTDataProcessor``: batches of MNIST digits for ``fc_mnist``.

Reads the IDX files in ``data_dir`` (flat or torchvision layout); without them it falls back to
the 5,000 real digits bundled with minitorch_cs (4,000 train, 1,000 for ``val``), with a warning.
Images are normalized with mean 0.1307 / std 0.3081 (as torchvision's ``Normalize``) and shaped
``(batch, 1, 28, 28)``; labels are int64 (int32 on CSX, as Model Zoo's processor).

Differs from Model Zoo: the loader is restartable (its position is saved in checkpoints, so a
resumed ``fit`` continues with the very next batch), and shuffling uses
``numpy.random.default_rng(shuffle_seed + epoch)`` instead of the global torch generator.
"""
from __future__ import annotations

from typing import Any, Literal, Optional

import numpy as np
from pydantic import Field, model_validator

import minitorch_cs as cstorch
from minitorch_cs import torch
from minitorch_cs.datasets import MNIST_MEAN, MNIST_STD, load_mnist

from ....config import DataConfig

__all__ = ["MNISTDataProcessorConfig", "MNISTDataProcessor", "MNISTBatches"]


class MNISTDataProcessorConfig(DataConfig):
    data_processor: Literal["MNISTDataProcessor"]
    """Name of the data processor."""

    split: Optional[Literal["train", "val"]] = None
    """``train`` (the training set) or ``val`` (the held-out/test set)."""

    batch_size: int = Field(..., gt=0)
    """Batch size."""

    shuffle: bool = True
    """Shuffle the samples every epoch."""

    drop_last: bool = Field(True, validation_alias="drop_last_batch")
    """Drop the last incomplete batch (the wafer needs equal batches)."""

    num_workers: int = 0
    """Loader worker processes (accepted; loading is in-process)."""

    use_fake_data: bool = False
    """Random (or zero) images instead of MNIST."""

    fake_data_seed: Optional[int] = None
    """Seed of the fake data (zeros when None)."""

    data_dir: Optional[str] = "./"
    """Directory with the MNIST IDX files; the bundled digits are used if they are missing."""

    shuffle_seed: int = 0
    """Seed of the shuffling order (not in Model Zoo)."""

    to_float16: Optional[Any] = Field(default=None, deprecated=True)

    @model_validator(mode="after")
    def validate_split(self):
        if self.split is None and not self.use_fake_data:
            raise ValueError("split must be provided when use_fake_data is False")
        return self


class MNISTBatches:
    """Restartable batches of (images, labels); ``position`` counts batches produced."""

    def __init__(self, images, labels, batch_size, shuffle, drop_last, seed, label_dtype):
        self.x = images
        self.y = labels
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.seed = seed
        self.label_dtype = label_dtype
        self.position = 0

    def __len__(self):
        n = len(self.y)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self):
        n = len(self)
        if n == 0:
            return
        epoch, start = divmod(self.position, n)
        order = (np.random.default_rng(self.seed + epoch).permutation(len(self.y))
                 if self.shuffle else np.arange(len(self.y)))
        for b in range(start, n):
            idx = order[b * self.batch_size:(b + 1) * self.batch_size]
            self.position += 1
            yield (torch.from_numpy(self.x[idx]),
                   torch.from_numpy(self.y[idx]).to(self.label_dtype))

    # the RestartableDataLoader protocol
    def state_dict(self):
        return {"position": self.position}

    def load_state_dict(self, state_dict, strict=True):
        self.position = int(state_dict["position"])

    def aggregate_state_dict(self, worker_states):
        return worker_states[0]

    def deaggregate_state_dict(self, aggregated_state_dict, strict=True):
        return aggregated_state_dict


class MNISTDataProcessor:
    """Builds the MNIST loader from a ``MNISTDataProcessorConfig`` (or a dict of its fields)."""

    def __init__(self, config: MNISTDataProcessorConfig):
        if isinstance(config, dict):
            config = MNISTDataProcessorConfig(**config)
        self.config = config
        self.batch_size = config.batch_size
        self.shuffle = config.shuffle
        self.dtype = torch.float32

    def create_dataloader(self):
        c = self.config
        label_dtype = torch.int32 if cstorch.use_cs() else torch.int64
        if c.use_fake_data:
            n = 60000 // self.batch_size * self.batch_size
            n = min(n, 64 * self.batch_size)
            if c.fake_data_seed is not None:
                rng = np.random.default_rng(c.fake_data_seed)
                x = rng.random((n, 1, 28, 28), dtype=np.float32)
                y = rng.integers(0, 10, n)
            else:
                x = np.zeros((n, 1, 28, 28), np.float32)
                y = np.zeros(n, np.int64)
        else:
            split = "train" if c.split == "train" else "test"
            images, y = load_mnist(c.data_dir, split)
            x = ((images.astype(np.float32) / 255.0 - MNIST_MEAN) / MNIST_STD)
            x = x.astype(np.float32).reshape(-1, 1, 28, 28)
        return MNISTBatches(x, np.asarray(y, np.int64), self.batch_size, c.shuffle, c.drop_last,
                            c.shuffle_seed, label_dtype)
