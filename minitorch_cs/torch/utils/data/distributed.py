"""``torch.utils.data.distributed``: ``DistributedSampler`` for a single process.

Differs from torch: there is no process group, so ``num_replicas`` defaults to 1 and ``rank`` to
0 instead of asking ``torch.distributed`` (SPEC "DataLoader"); given explicitly they behave like
torch's (padding or dropping to equal shards, ``set_epoch`` reshuffles).
"""
from __future__ import annotations

import math
from typing import Iterator

from ..._creation import randperm
from ..._random import Generator
from .dataset import Dataset
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """This rank's share of a (shuffled) permutation: every ``num_replicas``-th index from
    ``rank``. Shuffling is seeded by ``seed + epoch`` (call :meth:`set_epoch` each epoch)."""

    def __init__(self, dataset: Dataset, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None:
            num_replicas = 1
        if rank is None:
            rank = 0
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(len(self.dataset), generator=g).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[:self.total_size]
        indices = indices[self.rank:self.total_size:self.num_replicas]
        return iter(indices)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Make the next epoch's shuffle differ (the seed becomes ``seed + epoch``)."""
        self.epoch = epoch
