"""``cstorch.utils.data.sampler``: ``DistributedSampler`` for map-style datasets.

Not torch's ``DistributedSampler``: cstorch's shuffles (optionally over ``num_samples`` per
logical epoch, seeded by ``seed + epoch``), skips to ``start_index`` (for restarts), groups
indices into batches of the *global* ``batch_size`` (carrying a short tail over to the next epoch
when ``drop_last``, or padding it with :data:`pad_index` when ``pad_last``) and shards batches
across streamers. Use it as a DataLoader's ``batch_sampler`` when ``batch_size`` is given.

In one process there is no streamer (see ``minitorch_cs.distributed``), so sharding passes the
global batches through, as on the real user node. Shuffled orders come from our ``randperm``,
which is not torch's bit stream (SPEC "RNG").
"""
from __future__ import annotations

import itertools
import math
from typing import Iterable, Optional

from ... import torch
from ...backend import use_cs

__all__ = ["DistributedSampler", "ShuffleSampler", "ShardedSampler", "BatchSampler", "pad_index"]

#: Placeholder index filling an incomplete last batch when ``pad_last=True``.
pad_index = object()


class DistributedSampler(torch.utils.data.Sampler):
    """Shuffle, skip, batch and shard a map-style dataset (cstorch's CSX sampler).

    Args:
        data_source: The dataset (only ``len`` is used).
        shuffle: Shuffle each epoch (then ``seed`` is required; ``None`` fails when iterating, as
            in cstorch).
        seed: Seed of epoch 0's shuffle; epoch ``e`` uses ``seed + e``.
        start_index: Samples already streamed in earlier runs (skipped).
        shard: Shard batches across streamers.
        batch_size: Yield batches of this (global) size instead of single indices.
        drop_last: Carry an incomplete last batch over to the next epoch instead of yielding it.
        num_samples: Samples per logical epoch (default ``len(data_source)``).
        pad_last: With ``drop_last=False``, pad the last batch with :data:`pad_index`.

    Raises:
        ValueError: on CSX with ``drop_last=False`` and ``pad_last=False``, or with
            ``batch_size=None`` and ``shard``; for a non-positive ``num_samples``/``batch_size``.
    """

    def __init__(self, data_source, shuffle: bool = True, seed: Optional[int] = None,
                 start_index: int = 0, shard: bool = True, batch_size: Optional[int] = None,
                 drop_last: bool = True, num_samples: Optional[int] = None,
                 pad_last: bool = False):
        if use_cs() and not drop_last and not pad_last:
            raise ValueError("Running on CSX requires all batches to have the same batch size. "
                             "Setting `drop_last=False` and `pad_last=False` violates this "
                             "condition as the last batch may have a smaller batch size. Please "
                             "set `drop_last=True` or `pad_last=True`.")
        if use_cs() and batch_size is None and shard:
            raise ValueError("Running on CSX but batch_size is None and shard is enabled. When "
                             "running on CSX, the batch_size must be the global batch size.")
        self.sampler = ShuffleSampler(data_source, shuffle=shuffle, seed=seed,
                                      start_index=start_index, num_samples=num_samples)
        if batch_size is not None:
            self.sampler = BatchSampler(self.sampler, batch_size, drop_last, pad_last)
        if shard:
            self.sampler = ShardedSampler(self.sampler)
        self.kwargs = {"data_source": data_source, "shuffle": shuffle, "seed": seed,
                       "shard": shard, "batch_size": batch_size, "drop_last": drop_last}

    def __iter__(self):
        return iter(self.sampler)

    def __len__(self) -> int:
        return len(self.sampler)

    def set_state(self, start_index: int) -> None:
        """Continue deterministically after ``start_index`` samples streamed in total."""
        self.__init__(**self.kwargs, start_index=start_index)


class ShuffleSampler(torch.utils.data.Sampler):
    """Indices of one logical epoch of ``num_samples`` (shuffled or cycled), from a start."""

    def __init__(self, data_source, num_samples: Optional[int] = None, shuffle: bool = True,
                 seed: Optional[int] = None, start_index: int = 0):
        self._data_source = data_source
        self._num_samples = num_samples
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")
        self._num_samples_frozen = self.num_samples
        self.shuffle = shuffle
        self.seed = seed
        self.epoch = start_index // self.num_samples
        self.start_index = start_index - self.num_samples * self.epoch

    @property
    def num_samples(self) -> int:
        return len(self._data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        if self.num_samples != self._num_samples_frozen:
            raise RuntimeError("Data source passed into Sampler must have the same length every "
                               f"epoch. Original length was {self._num_samples_frozen}, new "
                               f"length is {self.num_samples}")
        n = len(self._data_source)
        if self.shuffle:
            gen = torch.Generator()
            gen.manual_seed(self.seed + self.epoch)
            if self.num_samples > n:
                # whole copies of the dataset, one shuffled copy, cut, then shuffled together
                copies = math.ceil(self.num_samples / n)
                perm = torch.cat([torch.arange(n) for _ in range(copies - 1)]
                                 + [torch.randperm(n, generator=gen)])[:self.num_samples]
                perm = perm[torch.randperm(self.num_samples, generator=gen)]
            else:
                perm = torch.randperm(n, generator=gen)[:self.num_samples]
            yield from perm[self.start_index:].tolist()
        else:
            yield from (i % n for i in range(self.start_index, self.num_samples))
        self.epoch += 1
        self.start_index = 0

    def __len__(self) -> int:
        return self.num_samples - self.start_index


class ShardedSampler(torch.utils.data.Sampler):
    """Shards global batches across streamers; without a streamer (one process) a pass-through."""

    def __init__(self, data_source: Iterable):
        self._data_source = data_source

    def __iter__(self):
        yield from self._data_source

    def __len__(self) -> int:
        return len(self._data_source)


class BatchSampler(torch.utils.data.Sampler):
    """torch's ``BatchSampler`` except that with ``drop_last`` the samples left over at the end of
    an epoch start the next one, and ``pad_last`` pads a short last batch with ``pad_index``."""

    def __init__(self, sampler, batch_size: int, drop_last: bool, pad_last: bool):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.pad_last = pad_last
        self.leftover_samples = list(sampler) if len(sampler) < batch_size else []

    def __iter__(self):
        if self.drop_last:
            it = itertools.chain(self.leftover_samples, self.sampler)
            while True:
                batch = list(itertools.islice(it, self.batch_size))
                if len(batch) < self.batch_size:
                    self.leftover_samples = batch
                    return
                yield batch
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch:
            if self.pad_last:
                batch += [pad_index] * (self.batch_size - len(batch))
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return (len(self.sampler) + len(self.leftover_samples)) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
