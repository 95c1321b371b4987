"""``torch.utils.data._utils.worker``: the loop a DataLoader worker process runs.

A worker seeds itself as torch's workers do, from the iterator's ``base_seed`` (one int64 drawn
from the loader's generator, or the global one, at every ``iter()``): Python's ``random`` and
the global generator with ``base_seed + worker_id``, numpy's legacy global generator with the
four words ``SeedSequence([worker_id, base_seed & 0xffffffff, base_seed >> 32, 0])`` generates
(torch's ``_generate_state``, which is numpy's SeedSequence hashing). It then sets the
:func:`get_worker_info` it answers, runs ``worker_init_fn(worker_id)`` and serves
``(task index, sampler indices)`` requests from its index queue with collated batches (or an
:class:`ExceptionWrapper`) on the shared result queue, until it receives ``None``. It also stops
when its parent process disappears.
"""
from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass

__all__ = ["get_worker_info", "WorkerInfo", "ExceptionWrapper"]

# how often a waiting worker checks that its parent is still alive (torch: 5 s)
_STATUS_CHECK_INTERVAL = 0.5


@dataclass(frozen=True)
class WorkerInfo:
    """What :func:`get_worker_info` returns inside a worker: ``id`` (0 .. num_workers-1),
    ``num_workers``, ``seed`` (``base_seed + id``), ``dataset`` (this process's copy), ``rng``
    (None: thread workers are not provided) and ``worker_method`` ("multiprocessing")."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = "multiprocessing"


_worker_info = None


def get_worker_info():
    """The current worker's :class:`WorkerInfo`; None in the main process."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """Sent by a worker whose copy of an IterableDataset is exhausted."""
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Sent to persistent workers at a new epoch: rebuild the fetcher, then acknowledge."""


class ExceptionWrapper:
    """An exception caught in a worker, carried to the main process with its traceback.

    ``reraise()`` raises the same exception type with the message ``"Caught <Type> in DataLoader
    worker process <i>.\\nOriginal Traceback (most recent call last): ..."`` (torch's wording);
    a type that cannot be built from one message string becomes a RuntimeError.
    """

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:  # noqa: BLE001
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    """KeyError quotes its argument; this keeps the traceback readable."""

    def __repr__(self):
        return self


def _numpy_seed(base_seed: int, worker_id: int):
    import numpy as np
    return np.random.SeedSequence([worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]
                                  ).generate_state(4)


def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation,
                 collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers):
    global _worker_info
    from ...._random import manual_seed
    from .fetch import create_fetcher

    try:
        seed = base_seed + worker_id
        random.seed(seed)
        manual_seed(seed)
        import numpy as np
        np.random.seed(_numpy_seed(base_seed, worker_id))
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = create_fetcher(dataset_kind, dataset, auto_collation, collate_fn,
                                     drop_last)
        except Exception:  # noqa: BLE001
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        iteration_end = False
        parent = os.getppid()
        while os.getppid() == parent:
            try:
                request = index_queue.get(timeout=_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(request, _ResumeIteration):
                data_queue.put((request, None))
                iteration_end = False
                try:
                    fetcher = create_fetcher(dataset_kind, dataset, auto_collation, collate_fn,
                                             drop_last)
                except Exception:  # noqa: BLE001
                    init_exception = ExceptionWrapper(
                        where=f"in DataLoader worker process {worker_id}")
                continue
            if request is None:
                break
            if done_event.is_set() or iteration_end:
                continue  # wait for the final None
            idx, index = request
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:  # noqa: BLE001
                    if isinstance(e, StopIteration) and dataset_kind == 1:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            del data, idx, index, request
    except KeyboardInterrupt:
        pass  # the main process raises it
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
