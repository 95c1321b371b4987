"""``torch.utils.data.dataloader``: ``DataLoader``, single-process.

Differs from torch: ``num_workers`` must be 0 — minitorch_cs loads data in the calling process
(SPEC "DataLoader"), so worker-only options are accepted only at their defaults. Everything else
follows torch: sampler/batch-sampler construction and their mutual-exclusion errors, automatic
batching with ``default_collate``, ``len()``, and the RNG draws torch makes (one ``_base_seed``
draw from ``generator`` or the global generator per ``iter()``, plus the sampler's own).
"""
from __future__ import annotations

import math
import warnings

from ... import _dtype as D
from ..._creation import empty
from ._utils import collate as _collate
from ._utils.worker import get_worker_info
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

default_collate = _collate.default_collate
default_convert = _collate.default_convert


class _DatasetKind:
    Map = 0
    Iterable = 1


class _InfiniteConstantSampler(Sampler):
    """The 'sampler' of an iterable dataset: yields None forever."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Iterate over a dataset in (shuffled) batches, collated into tensors.

    Args:
        dataset: a map-style :class:`Dataset` (``__getitem__``/``__len__``) or an
            :class:`IterableDataset`.
        batch_size: samples per batch; ``None`` disables automatic batching.
        shuffle: reshuffle every epoch (a :class:`RandomSampler` over ``generator``).
        sampler, batch_sampler: custom index orders (mutually exclusive with shuffle, and
            ``batch_sampler`` with batch_size/sampler/drop_last).
        num_workers: must be 0 (single-process loading, see the module docstring).
        collate_fn: merges a list of samples into a batch (default :func:`default_collate`).
        drop_last: drop the last incomplete batch.
        generator: the random stream for shuffling (default: the global generator).

    Raises:
        ValueError: ``num_workers`` > 0, or an invalid option combination (torch's messages).

    Example:
        >>> import minitorch_cs.torch as torch
        >>> from minitorch_cs.torch.utils.data import DataLoader, TensorDataset
        >>> ds = TensorDataset(torch.arange(5))
        >>> [b[0].tolist() for b in DataLoader(ds, batch_size=2)]
        [[0, 1], [2, 3], [4]]
    """

    __initialized = False

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler=None, batch_sampler=None, num_workers: int = 0, collate_fn=None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if num_workers > 0:
            # Differs from torch: no worker processes (SPEC "DataLoader").
            raise ValueError(f"num_workers={num_workers} is not supported: minitorch_cs loads data "
                             "in a single process (see SPEC.md, 'DataLoader'); use num_workers=0.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
        if persistent_workers:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None:
            raise ValueError("multiprocessing_context can only be used with multi-process loading "
                             f"(num_workers > 0), but got num_workers={num_workers}")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._IterableDataset_len_called = None
        self.__initialized = True

    def __setattr__(self, attr, val) -> None:
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last",
                                           "dataset", "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> "_SingleProcessDataLoaderIter":
        return _SingleProcessDataLoaderIter(self)

    def __len__(self) -> int:
        if self._dataset_kind == _DatasetKind.Iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = (length // self.batch_size if self.drop_last
                          else math.ceil(length / self.batch_size))
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self) -> None:
        pass


class _SingleProcessDataLoaderIter:
    """One pass over a DataLoader: fetch indices from the sampler, samples from the dataset."""

    def __init__(self, loader: DataLoader) -> None:
        if loader.timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        if loader.pin_memory:  # there is no accelerator here, as on a CPU-only torch
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then "
                          "device pinned memory won't be used.", stacklevel=2)
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        # torch draws a base seed for worker seeding at every iter(); kept so the global RNG
        # stream advances exactly as it does under torch
        self._base_seed = empty((), dtype=D.int64).random_(generator=loader.generator).item()
        self._num_yielded = 0
        if self._dataset_kind == _DatasetKind.Iterable:
            self._dataset_iter = iter(self._dataset)
            self._ended = False

    def __iter__(self):
        return self

    def __len__(self) -> int:
        return len(self._index_sampler)

    def _fetch(self, index):
        if self._dataset_kind == _DatasetKind.Map:
            if self._auto_collation:
                getitems = getattr(self._dataset, "__getitems__", None)
                data = getitems(index) if getitems else [self._dataset[i] for i in index]
            else:
                data = self._dataset[index]
            return self._collate_fn(data)
        if self._ended:
            raise StopIteration
        if self._auto_collation:
            data = []
            for _ in index:
                try:
                    data.append(next(self._dataset_iter))
                except StopIteration:
                    self._ended = True
                    break
            if not data or (self._drop_last and len(data) < len(index)):
                raise StopIteration
        else:
            data = next(self._dataset_iter)
        return self._collate_fn(data)

    def __next__(self):
        index = next(self._sampler_iter)
        data = self._fetch(index)
        self._num_yielded += 1
        if (self._dataset_kind == _DatasetKind.Iterable
                and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            warnings.warn(f"Length of IterableDataset {self._dataset} was reported to be "
                          f"{self._IterableDataset_len_called}(when accessing len(dataloader)), "
                          f"but {self._num_yielded} samples have been fetched. ", stacklevel=2)
        return data
