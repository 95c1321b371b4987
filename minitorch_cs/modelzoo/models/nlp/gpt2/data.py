"""``GptTokenFileDataProcessor``: batches of token windows from a ``uint16`` token file.

The file is a flat stream of token ids (``uint16``, as nanoGPT-style ``train.bin`` files), read
through ``np.memmap``. Sample ``i`` is the window ``tokens[i*(L+1) : (i+1)*(L+1)]`` with
``L = max_sequence_length``: ``input_ids`` its first ``L`` tokens, ``labels`` its last ``L``, and
``attention_mask`` (Model Zoo's loss mask) 1 for every label, or -- with
``loss_mask_after_token`` -- only for the labels from the first occurrence of that token on
(prompt masking: e.g. ``61``, the ``=`` of ``"12+34=64"``, trains on the answer only). All three
are int32, as Model Zoo's GPT processors yield them.

With ``synthetic_addition_digits`` and a missing ``data_path``, the offline addition task of
``examples/gpt.py`` is written there first (one line per problem, ``"012+345=7530\\n"``: operands
zero-padded, the sum reversed; bytes as tokens), ``split: val`` holding problems never seen in
``split: train``; use ``max_sequence_length = 3 * digits + 3``.

Not in Model Zoo (its GPT processors read HDF5 files); the loader is restartable (its position is
saved in checkpoints) and shuffles with ``numpy.random.default_rng(shuffle_seed + epoch)``.
"""
from __future__ import annotations

import logging
import os
from typing import Literal, Optional

import numpy as np
from pydantic import Field

from minitorch_cs import torch

from ....config import DataConfig

__all__ = ["GptTokenFileDataProcessorConfig", "GptTokenFileDataProcessor", "TokenWindows",
           "write_addition_token_file"]

_log = logging.getLogger(__name__)


class GptTokenFileDataProcessorConfig(DataConfig):
    data_processor: Literal["GptTokenFileDataProcessor"]
    """Name of the data processor."""

    data_path: str
    """The ``uint16`` token file."""

    max_sequence_length: int = Field(..., gt=0)
    """Tokens per sample (each sample reads ``max_sequence_length + 1`` tokens)."""

    batch_size: int = Field(..., gt=0)
    """Batch size."""

    shuffle: bool = True
    """Shuffle the samples every epoch."""

    shuffle_seed: int = 0
    """Seed of the shuffling order."""

    drop_last: bool = Field(True, validation_alias="drop_last_batch")
    """Drop the last incomplete batch (the wafer needs equal batches)."""

    num_workers: int = 0
    """Loader worker processes (accepted; loading is in-process)."""

    loss_mask_after_token: Optional[int] = None
    """Only labels from the first occurrence of this token in the inputs on count in the loss."""

    synthetic_addition_digits: Optional[int] = Field(None, ge=1, le=6)
    """Write the offline addition task (operands of this many digits) to a missing ``data_path``."""

    split: Literal["train", "val"] = "train"
    """Which problems of the synthetic task to write."""

    synthetic_num_examples: int = Field(50_000, gt=0)
    """How many problems the synthetic ``train`` split gets (``val`` gets 1,000)."""


def _addition_line(a, b, digits):
    return f"{a:0{digits}d}+{b:0{digits}d}={str(a + b).zfill(digits + 1)[::-1]}\n"


def write_addition_token_file(path, digits, split, num_examples, seed=0, num_val=1000):
    """Write the addition task's ``split`` to ``path`` (atomically); validation problems are drawn
    first from ``seed`` and excluded from the training ones."""
    rng = np.random.default_rng(seed)
    n = 10 ** digits
    val_ids = rng.choice(n * n, size=min(num_val, n * n // 2), replace=False)
    if split == "val":
        ids = val_ids
    else:
        ids = rng.integers(0, n * n, size=num_examples + len(val_ids))
        ids = ids[~np.isin(ids, val_ids)][:num_examples]
    text = "".join(_addition_line(int(i) // n, int(i) % n, digits) for i in ids)
    tokens = np.frombuffer(text.encode("ascii"), dtype=np.uint8).astype(np.uint16)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    tokens.tofile(tmp)
    os.replace(tmp, path)


class TokenWindows:
    """Restartable batches of token windows; ``position`` counts batches produced."""

    def __init__(self, path, seq_len, batch_size, shuffle, drop_last, seed, mask_token):
        self.tokens = np.memmap(path, dtype=np.uint16, mode="r")
        self.seq_len = seq_len
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.seed = seed
        self.mask_token = mask_token
        self.num_samples = len(self.tokens) // (seq_len + 1)
        self.position = 0

    def __len__(self):
        n = self.num_samples
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def _batch(self, idx):
        w = self.seq_len + 1
        windows = np.stack([np.asarray(self.tokens[i * w:(i + 1) * w]) for i in idx])
        windows = windows.astype(np.int32)
        x, y = windows[:, :-1], windows[:, 1:]
        if self.mask_token is None:
            mask = np.ones_like(y)
        else:
            mask = (np.cumsum(x == self.mask_token, axis=1) > 0).astype(np.int32)
        return {"input_ids": torch.from_numpy(np.ascontiguousarray(x)),
                "attention_mask": torch.from_numpy(mask),
                "labels": torch.from_numpy(np.ascontiguousarray(y))}

    def __iter__(self):
        n = len(self)
        if n == 0:
            return
        epoch, start = divmod(self.position, n)
        order = (np.random.default_rng(self.seed + epoch).permutation(self.num_samples)
                 if self.shuffle else np.arange(self.num_samples))
        for b in range(start, n):
            idx = order[b * self.batch_size:(b + 1) * self.batch_size]
            self.position += 1
            yield self._batch(idx)

    # the RestartableDataLoader protocol
    def state_dict(self):
        return {"position": self.position}

    def load_state_dict(self, state_dict, strict=True):
        self.position = int(state_dict["position"])

    def aggregate_state_dict(self, worker_states):
        return worker_states[0]

    def deaggregate_state_dict(self, aggregated_state_dict, strict=True):
        return aggregated_state_dict


class GptTokenFileDataProcessor:
    """Builds the loader from a ``GptTokenFileDataProcessorConfig`` (or a dict of its fields)."""

    def __init__(self, config: GptTokenFileDataProcessorConfig):
        if isinstance(config, dict):
            config = GptTokenFileDataProcessorConfig(**config)
        self.config = config
        self.batch_size = config.batch_size

    def create_dataloader(self):
        c = self.config
        if not os.path.exists(c.data_path):
            if c.synthetic_addition_digits is None:
                raise FileNotFoundError(f"Token file {c.data_path!r} does not exist. Point "
                                        "data_path at a uint16 token file, or set "
                                        "synthetic_addition_digits to write the offline addition "
                                        "task there.")
            _log.info("Writing the %d-digit addition task (%s) to %s",
                      c.synthetic_addition_digits, c.split, c.data_path)
            write_addition_token_file(c.data_path, c.synthetic_addition_digits, c.split,
                                      c.synthetic_num_examples)
        return TokenWindows(c.data_path, c.max_sequence_length, c.batch_size, c.shuffle,
                            c.drop_last, c.shuffle_seed, c.loss_mask_after_token)
