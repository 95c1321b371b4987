"""``torch.utils.data._utils.fetch``: turn sampler indices into collated batches.

The same fetchers run in the calling process (``num_workers=0``) and in worker processes, so a
batch is built by the same code either way.
"""
from __future__ import annotations

__all__ = ["_MapDatasetFetcher", "_IterableDatasetFetcher", "create_fetcher"]


class _BaseDatasetFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last


class _MapDatasetFetcher(_BaseDatasetFetcher):
    """``dataset[i]`` for each index (``__getitems__(indices)`` when the dataset has it)."""

    def fetch(self, possibly_batched_index):
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            if getitems:
                data = getitems(possibly_batched_index)
            else:
                data = [self.dataset[i] for i in possibly_batched_index]
        else:
            data = self.dataset[possibly_batched_index]
        return self.collate_fn(data)


class _IterableDatasetFetcher(_BaseDatasetFetcher):
    """``next()`` on one iterator of the dataset, ``len(index)`` times per batch."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, possibly_batched_index):
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in possibly_batched_index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if not data or (self.drop_last and len(data) < len(possibly_batched_index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
    """A fetcher for a map-style (``kind == 0``) or iterable (``kind == 1``) dataset."""
    cls = _MapDatasetFetcher if kind == 0 else _IterableDatasetFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)
