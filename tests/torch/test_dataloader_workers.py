"""``DataLoader(num_workers>0)``: worker processes with torch's semantics (order, seeds,
worker_init_fn, get_worker_info, persistent workers, prefetching, errors, timeout, shutdown)."""
from __future__ import annotations

import gc
import multiprocessing
import os
import random
import time
import warnings

import numpy as np
import pytest

import minitorch_cs as cstorch
import minitorch_cs.torch as torch
from minitorch_cs.torch.utils.data import (DataLoader, Dataset, IterableDataset, TensorDataset,
                                           get_worker_info)

pytestmark = pytest.mark.filterwarnings("ignore:This DataLoader will create")


class Squares(Dataset):
    def __init__(self, n=10):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": torch.tensor([float(i), float(i * i)]), "i": i}


class WhoAmI(Dataset):
    """Each sample reports the worker and the first draws of every random stream there."""

    def __len__(self):
        return 6

    def __getitem__(self, i):
        w = get_worker_info()
        return {"i": i, "id": w.id, "num_workers": w.num_workers, "seed": w.seed,
                "same_dataset": w.dataset is self, "pid": os.getpid(),
                "py": random.random(), "np": float(np.random.random_sample()),
                "torch": float(torch.rand(()))}


def _batches(loader):
    return [{k: v.tolist() if isinstance(v, torch.Tensor) else v for k, v in b.items()}
            for b in loader]


def _workers_of(iterator):
    return list(iterator._workers)


def test_batches_equal_single_process_ones():
    ds = Squares(11)
    for kw in (dict(batch_size=3), dict(batch_size=4, drop_last=True), dict(batch_size=None),
               dict(batch_size=2, shuffle=True, generator=torch.Generator().manual_seed(5))):
        if "generator" in kw:
            kw0 = {**kw, "generator": torch.Generator().manual_seed(5)}
        else:
            kw0 = kw
        want = _batches(DataLoader(ds, **kw0))
        got = _batches(DataLoader(ds, num_workers=3, **kw))
        assert got == want


def test_shuffled_epochs_with_the_global_generator_match_single_process():
    ds = TensorDataset(torch.arange(10))
    torch.manual_seed(7)
    dl = DataLoader(ds, batch_size=3, shuffle=True)
    want = [[b[0].tolist() for b in dl] for _ in range(2)]
    torch.manual_seed(7)
    dl = DataLoader(ds, batch_size=3, shuffle=True, num_workers=2)
    got = [[b[0].tolist() for b in dl] for _ in range(2)]
    assert got == want and want[0] != want[1]
    # persistent workers draw their base seed once, at the first iter() (as torch): the first
    # epoch is the same, later epochs shuffle from a stream one draw behind
    torch.manual_seed(7)
    dl = DataLoader(ds, batch_size=3, shuffle=True, num_workers=2, persistent_workers=True)
    assert [b[0].tolist() for b in dl] == want[0]


def test_worker_info_and_seeds_follow_torch():
    torch.manual_seed(123)
    base = torch.empty((), dtype=torch.int64).random_().item()  # what iter() draws
    torch.manual_seed(123)
    rows = []
    for b in DataLoader(WhoAmI(), batch_size=1, num_workers=2):
        rows.append({k: (v[0].item() if isinstance(v, torch.Tensor) else v[0]) for k, v in
                     b.items()})
    assert [r["id"] for r in rows] == [0, 1, 0, 1, 0, 1]  # round-robin, in order
    assert all(r["num_workers"] == 2 and r["same_dataset"] for r in rows)
    for wid in (0, 1):
        first = next(r for r in rows if r["id"] == wid)
        seed = base + wid
        assert first["seed"] == seed
        assert first["py"] == random.Random(seed).random()
        words = np.random.SeedSequence([wid, base & 0xFFFFFFFF, base >> 32, 0]).generate_state(4)
        assert first["np"] == np.random.RandomState(words).random_sample()
        assert first["torch"] == torch.rand((), generator=torch.Generator().manual_seed(seed)
                                            ).item()
    assert len({r["pid"] for r in rows}) == 2 and os.getpid() not in {r["pid"] for r in rows}


def test_numpy_seed_is_torchs_generate_state():
    real = pytest.importorskip("torch.utils.data._utils.worker")
    from minitorch_cs.torch.utils.data._utils.worker import _numpy_seed
    for base, wid in [(0, 0), (987654321987654, 5), (2 ** 63 - 1, 1)]:
        assert list(_numpy_seed(base, wid)) == list(real._generate_state(base, wid))


class InitRecorder(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.tag


def _init(worker_id):
    info = get_worker_info()
    info.dataset.tag = f"worker {worker_id} of {info.num_workers}"


def test_worker_init_fn_runs_in_each_worker_after_seeding():
    got = [b for b in DataLoader(InitRecorder(), batch_size=None, num_workers=2,
                                 worker_init_fn=_init)]
    assert got == ["worker 0 of 2", "worker 1 of 2"] * 2
    assert get_worker_info() is None


class Counting(Dataset):
    """Counts how many items this copy served: persistent workers keep the count."""

    calls = 0

    def __len__(self):
        return 4

    def __getitem__(self, i):
        type(self).calls += 1
        return torch.tensor([i, type(self).calls, os.getpid()])


def test_persistent_workers_survive_epochs_and_stop_with_the_loader():
    dl = DataLoader(Counting(), batch_size=2, num_workers=2, persistent_workers=True)
    first = [b.tolist() for b in dl]
    it = dl._iterator
    workers = _workers_of(it)
    second = [b.tolist() for b in dl]
    assert dl._iterator is it and all(w.is_alive() for w in workers)
    assert [r[0] for b in second for r in b] == [0, 1, 2, 3]
    # the same processes, whose dataset copies kept counting
    assert {r[2] for b in first for r in b} == {r[2] for b in second for r in b}
    assert [r[1] for b in second for r in b] == [3, 4, 3, 4]
    del dl, it
    gc.collect()
    assert all(w.exitcode is not None for w in workers)


def test_non_persistent_workers_stop_after_each_epoch():
    dl = DataLoader(Counting(), batch_size=2, num_workers=2)
    it = iter(dl)
    workers = _workers_of(it)
    assert [r[0] for b in it for r in b.tolist()] == [0, 1, 2, 3]
    assert all(w.exitcode == 0 for w in workers)


def test_prefetch_factor_bounds_outstanding_batches():
    it = iter(DataLoader(Squares(40), batch_size=1, num_workers=2, prefetch_factor=3))
    assert it._tasks_outstanding == 6 and it._send_idx == 6
    next(it)
    assert it._tasks_outstanding <= 6 and it._send_idx == 7
    del it
    it = iter(DataLoader(Squares(3), batch_size=1, num_workers=2))
    assert it._send_idx == 3  # fewer batches than 2 * prefetch_factor


def test_break_and_garbage_collection_stop_workers():
    before = set(multiprocessing.active_children())
    for _ in DataLoader(Squares(30), batch_size=1, num_workers=2):
        break
    gc.collect()
    time.sleep(0.05)
    assert set(multiprocessing.active_children()) <= before


class Faulty(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 3:
            raise ValueError("sample 3 is corrupt")
        return i


def test_worker_exception_is_reraised_with_torchs_wording_and_loading_continues():
    it = iter(DataLoader(Faulty(), batch_size=2, num_workers=2))
    assert next(it).tolist() == [0, 1]
    with pytest.raises(ValueError) as e:
        next(it)
    msg = str(e.value)
    assert msg.startswith("Caught ValueError in DataLoader worker process 1.\nOriginal Traceback "
                          "(most recent call last):")
    assert "sample 3 is corrupt" in msg
    assert next(it).tolist() == [4, 5]
    workers = _workers_of(it)
    with pytest.raises(StopIteration):
        next(it)
    assert all(w.exitcode is not None for w in workers)


def test_exception_in_the_loop_body_still_stops_workers():
    workers = []
    with pytest.raises(RuntimeError, match="stop here"):
        it = iter(DataLoader(Squares(20), batch_size=1, num_workers=2))
        workers = _workers_of(it)
        for _ in it:
            raise RuntimeError("stop here")
    del it
    gc.collect()
    assert workers and all(w.exitcode is not None for w in workers)


class Dies(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 2:
            os._exit(3)
        return i


def test_a_dead_worker_raises_torchs_error():
    it = iter(DataLoader(Dies(), batch_size=1, num_workers=2))
    with pytest.raises(RuntimeError, match=r"^DataLoader worker \(pid\(s\) \d+\) exited "
                                           r"unexpectedly$"):
        for _ in it:
            pass
    assert all(w.exitcode is not None for w in _workers_of(it))


class Slow(Dataset):
    def __len__(self):
        return 3

    def __getitem__(self, i):
        time.sleep(0.6)
        return i


def test_timeout():
    it = iter(DataLoader(Slow(), batch_size=1, num_workers=1, timeout=0.2))
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.2 seconds$"):
        next(it)
    workers = _workers_of(it)
    del it
    gc.collect()
    assert all(w.exitcode is not None for w in workers)


class Stream(IterableDataset):
    def __init__(self, n, shard=True):
        self.n, self.shard = n, shard

    def __iter__(self):
        w = get_worker_info()
        if w is None or not self.shard:
            return iter(range(self.n))
        return iter(range(w.id, self.n, w.num_workers))


def test_iterable_dataset_runs_in_every_worker_as_in_torch():
    assert [b.tolist() for b in DataLoader(Stream(10), batch_size=3, num_workers=2)] == [
        [0, 2, 4], [1, 3, 5], [6, 8], [7, 9]]
    # without sharding each worker yields the whole dataset (torch's documented pitfall)
    assert [b.tolist() for b in DataLoader(Stream(4, shard=False), batch_size=2,
                                           num_workers=2)] == [[0, 1], [0, 1], [2, 3], [2, 3]]
    dl = DataLoader(Stream(5), batch_size=2, num_workers=2, persistent_workers=True)
    assert [b.tolist() for b in dl] == [b.tolist() for b in dl] == [[0, 2], [1, 3], [4]]


def test_iterable_dataset_order_matches_torch():
    real = pytest.importorskip("torch")
    from torch.utils.data import DataLoader as RealLoader
    from torch.utils.data import IterableDataset as RealIterable
    from torch.utils.data import get_worker_info as real_info

    class RealStream(RealIterable):
        def __iter__(self):
            w = real_info()
            return iter(range(w.id, 11, w.num_workers))

    want = [b.tolist() for b in RealLoader(RealStream(), batch_size=2, num_workers=3)]
    assert [b.tolist() for b in DataLoader(Stream(11), batch_size=2, num_workers=3)] == want
    assert real is not None


def test_spawn_context():
    got = [b[0].tolist() for b in DataLoader(TensorDataset(torch.arange(5)), batch_size=2,
                                             num_workers=1, multiprocessing_context="spawn")]
    assert got == [[0, 1], [2, 3], [4]]


def test_too_many_workers_warns_like_torch():
    n = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DataLoader(Squares(2), num_workers=n + 1)
    assert any(f"This DataLoader will create {n + 1} worker processes in total. Our suggested max "
               f"number of worker in current system is {n}, which is smaller than what this "
               "DataLoader is going to create." in str(w.message) for w in caught)


calls = []


def _record_init(worker_id):
    calls.append((worker_id, get_worker_info()))


def _workers_input_fn():
    return DataLoader(Squares(6), batch_size=2, num_workers=8, persistent_workers=True,
                      worker_init_fn=_record_init)


def test_cstorch_dataloader_loads_in_process_as_the_real_user_node(cpu_backend):
    calls.clear()
    loader = cstorch.utils.data.DataLoader(_workers_input_fn)
    inner = loader.dataloader
    assert inner.num_workers == 0 and inner.persistent_workers is False
    assert calls == [(0, None)]  # worker_init_fn(0), called in this process
    got = [b["i"].tolist() for b in cstorch.utils.data.DataExecutor(loader, num_steps=3)]
    assert got == [[0, 1], [2, 3], [4, 5]] and calls == [(0, None)]


def _failing_init(worker_id):
    raise OSError("no shared memory")


def test_cstorch_dataloader_restores_the_settings_when_worker_init_fn_fails(cpu_backend):
    loader = cstorch.utils.data.DataLoader(
        lambda: DataLoader(Squares(4), batch_size=2, num_workers=2, worker_init_fn=_failing_init))
    inner = loader.dataloader  # the real stack swallows the error and restores the settings
    assert inner.num_workers == 2 and inner.persistent_workers is False
