"""``cerebras.modelzoo.common.pytorch_utils`` (Model Zoo 2.10): dataset and structure helpers
data processors use."""
from __future__ import annotations

import random

import minitorch_cs.torch as torch

__all__ = ["visit_structure", "BufferedShuffleDataset", "IterableDatasetSampler", "to_cpu",
           "to_tensor", "SampleGenerator"]


def visit_structure(data_structure, select_fn, strict=False, scope=None):
    """Yield ``(scope, item)`` for every leaf of nested lists/tuples/dicts that ``select_fn``
    accepts; ``scope`` is the list of indices/keys (as str) leading to it.

    Raises:
        ValueError: with ``strict``, a leaf that ``select_fn`` rejects.
    """
    scope = scope or []
    if isinstance(data_structure, (list, tuple)):
        for i, v in enumerate(data_structure):
            yield from visit_structure(v, select_fn, strict, scope + [str(i)])
    elif isinstance(data_structure, dict):
        for k, v in data_structure.items():
            yield from visit_structure(v, select_fn, strict, scope + [str(k)])
    elif select_fn(data_structure):
        yield scope, data_structure
    elif strict:
        raise ValueError(f"Unknown data structure: {data_structure}")


class BufferedShuffleDataset(torch.utils.data.IterableDataset):
    """Shuffle an iterable dataset through a buffer of ``buffer_size`` items (reservoir
    sampling with Python's ``random`` module: seed it, in each worker when there are workers).

    Raises:
        AssertionError: ``buffer_size`` is not positive.
    """

    def __init__(self, dataset, buffer_size):
        super().__init__()
        assert buffer_size > 0, "buffer_size should be larger than 0"
        self.dataset = dataset
        self.buffer_size = buffer_size

    def __iter__(self):
        buf = []
        for x in self.dataset:
            if len(buf) == self.buffer_size:
                idx = random.randint(0, self.buffer_size - 1)
                yield buf[idx]
                buf[idx] = x
            else:
                buf.append(x)
        random.shuffle(buf)
        while buf:
            yield buf.pop()

    def __len__(self):
        return len(self.dataset)


class IterableDatasetSampler(torch.utils.data.IterableDataset):
    """Every worker of every rank iterates the whole dataset and keeps its share: element ``i``
    goes to the worker whose ``shift`` makes ``(shift + i) % (world_size * num_workers) == 0``,
    with ``shift = rank * num_workers + worker_id`` (Model Zoo's rule)."""

    def __init__(self, iterable_dataset, world_size=1, rank=0):
        self.iterable_dataset = iterable_dataset
        self.rank = rank
        self.world_size = world_size

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        mod, shift = self.world_size, self.rank
        if info:
            mod *= info.num_workers
            shift = self.rank * info.num_workers + info.id
        for i, element in enumerate(self.iterable_dataset):
            if (shift + i) % mod == 0:
                yield element


def to_cpu(tensor):
    """A tensor, or the tensors in a list/tuple/dict, moved to the CPU.

    Raises:
        TypeError: anything else.
    """
    if isinstance(tensor, torch.Tensor):
        return tensor.to("cpu")
    if isinstance(tensor, (list, tuple)):
        return type(tensor)(t.to("cpu") if isinstance(t, torch.Tensor) else t for t in tensor)
    if isinstance(tensor, dict):
        return {k: t.to("cpu") if isinstance(t, torch.Tensor) else t for k, t in tensor.items()}
    raise TypeError(f"Invalid type. Expected Tensor or list/tuple of Tensors. Got: "
                    f"{type(tensor)}")


def to_tensor(value, device=None):
    """Python ints become int32 tensors and floats float32 tensors (also inside lists and
    tuples); anything else is returned as is."""
    if isinstance(value, int):
        return torch.tensor(value, dtype=torch.int32, device=device)
    if isinstance(value, float):
        return torch.tensor(value, dtype=torch.float32, device=device)
    if isinstance(value, tuple):
        return tuple(map(to_tensor, value))
    if isinstance(value, list):
        return list(map(to_tensor, value))
    return value


class SampleGenerator:
    """An iterable returning the same ``data`` object ``sample_count`` times, usable in place of
    a DataLoader for synthetic data; ``len()`` is ``sample_count`` and every ``iter()`` starts
    over."""

    def __init__(self, data, sample_count):
        self._data = data
        self._sample_count = sample_count
        self._count = 0

    def __iter__(self):
        return SampleGenerator(self._data, self._sample_count)

    def __len__(self):
        return self._sample_count

    def __next__(self):
        return self.next()

    def next(self):
        """The next sample (StopIteration after ``sample_count`` of them)."""
        if self._count >= self._sample_count:
            raise StopIteration
        self._count += 1
        return self._data
