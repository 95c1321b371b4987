"""torch.utils.data: datasets, samplers, DataLoader batching/shuffling/collation and errors."""
from __future__ import annotations

import collections

import numpy as np
import pytest

from minitorch_cs import torch
from minitorch_cs.torch.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader,
                                           Dataset, DistributedSampler, IterableDataset,
                                           RandomSampler, SequentialSampler, StackDataset, Subset,
                                           SubsetRandomSampler, TensorDataset,
                                           WeightedRandomSampler, default_collate,
                                           default_convert, get_worker_info, random_split)


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return i * i


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def _flat(loader):
    return [v for batch in loader for v in batch.tolist()]


# ----- datasets -----------------------------------------------------------------------------------
def test_tensor_dataset():
    x, y = torch.arange(10.0).reshape(5, 2), torch.arange(5)
    ds = TensorDataset(x, y)
    assert len(ds) == 5
    a, b = ds[3]
    assert a.tolist() == [6.0, 7.0] and b.item() == 3
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(x, torch.arange(4))


def test_subset_concat_stack_chain():
    base = Squares(6)
    sub = Subset(base, [5, 0, 2])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [25, 0, 4]
    cat = ConcatDataset([Squares(2), Squares(3)])
    assert len(cat) == 5 and [cat[i] for i in range(5)] == [0, 1, 0, 1, 4]
    assert cat[-1] == 4 and cat.cumulative_sizes == [2, 5]
    assert len(Squares(2) + Squares(4)) == 6
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        cat[-6]
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        ConcatDataset([Stream(3)])
    st = StackDataset(Squares(3), TensorDataset(torch.arange(3)))
    assert st[2][0] == 4 and st[2][1][0].item() == 2
    assert StackDataset(a=Squares(2), b=Squares(2))[1] == {"a": 1, "b": 1}
    assert list(ChainDataset([Stream(2), Stream(3)])) == [0, 1, 0, 1, 2]


def test_random_split_lengths_fractions_and_determinism():
    ds = Squares(10)
    parts = random_split(ds, [3, 7], generator=torch.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    again = random_split(ds, [3, 7], generator=torch.Generator().manual_seed(0))
    assert again[0].indices == parts[0].indices
    # fractions: floor(10*f) each, the remainder dealt round-robin from the first split
    assert [len(p) for p in random_split(ds, [0.25, 0.25, 0.5])] == [3, 2, 5]
    assert [len(p) for p in random_split(Squares(7), [0.5, 0.5])] == [4, 3]
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the "
                                         "input dataset!"):
        random_split(ds, [3, 3])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(Squares(2), [1.0, 0.0])
    # the default generator is the global one: reseeding reproduces the split
    torch.manual_seed(3)
    a = random_split(ds, [5, 5])[0].indices
    torch.manual_seed(3)
    assert random_split(ds, [5, 5])[0].indices == a


# ----- samplers -----------------------------------------------------------------------------------
def test_sequential_and_batch_sampler():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    assert list(BatchSampler(range(7), 3, drop_last=False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(BatchSampler(range(7), 3, drop_last=True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(BatchSampler(range(7), 3, False)) == 3 and len(BatchSampler(range(7), 3, True)) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got "
                                         "batch_size=0"):
        BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value, but got "
                                         "drop_last=1"):
        BatchSampler(range(3), 1, 1)


def test_random_sampler_permutations_and_replacement():
    g = torch.Generator().manual_seed(1)
    perm = list(RandomSampler(range(20), generator=g))
    assert sorted(perm) == list(range(20)) and perm != list(range(20))
    second = list(RandomSampler(range(20), generator=g))
    assert second != perm  # the generator advanced: a new permutation every epoch
    many = list(RandomSampler(range(5), num_samples=12, generator=g))
    assert len(many) == 12 and sorted(many[:10]) == sorted(list(range(5)) * 2)
    rep = list(RandomSampler(range(3), replacement=True, num_samples=70, generator=g))
    assert len(rep) == 70 and set(rep) == {0, 1, 2}
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got "
                                         "num_samples=0"):
        RandomSampler(range(3), num_samples=0)
    with pytest.raises(TypeError, match="replacement should be a boolean value"):
        RandomSampler(range(3), replacement=1)


def test_random_sampler_without_generator_draws_a_seed_per_epoch():
    torch.manual_seed(11)
    s = RandomSampler(range(10))
    e1, e2 = list(s), list(s)
    assert e1 != e2
    torch.manual_seed(11)
    assert list(s) == e1 and list(s) == e2
    # exactly one int64 draw from the global generator per epoch, made at the first index
    torch.manual_seed(11)
    it = iter(s)
    before = torch.get_rng_state()
    next(it)
    torch.set_rng_state(before)
    torch.empty((), dtype=torch.int64).random_()
    one_draw = torch.get_rng_state()
    torch.manual_seed(11)
    list(s)
    assert np.array_equal(torch.get_rng_state().numpy(), one_draw.numpy())


def test_subset_and_weighted_samplers():
    g = torch.Generator().manual_seed(0)
    idx = [10, 20, 30, 40]
    got = list(SubsetRandomSampler(idx, generator=g))
    assert sorted(got) == idx and len(SubsetRandomSampler(idx)) == 4
    w = WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], num_samples=400, generator=g)
    draws = np.array(list(w))
    assert set(draws.tolist()) <= {1, 3} and len(w) == 400
    # P(3) = 3/4; 400 draws: 5 standard errors = 5*sqrt(400*0.75*0.25) ≈ 43
    assert abs((draws == 3).sum() - 300) < 44
    no_rep = list(WeightedRandomSampler([1, 1, 1, 1], 4, replacement=False, generator=g))
    assert sorted(no_rep) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        WeightedRandomSampler([1.0], 0)


def test_distributed_sampler_single_process_and_shards():
    ds = Squares(10)
    s = DistributedSampler(ds)
    assert s.num_replicas == 1 and s.rank == 0 and len(s) == 10
    e0 = list(s)
    assert sorted(e0) == list(range(10))
    assert list(s) == e0  # same epoch, same order (seeded by seed + epoch)
    s.set_epoch(1)
    assert list(s) != e0
    assert list(DistributedSampler(ds, shuffle=False)) == list(range(10))
    r0 = list(DistributedSampler(Squares(5), num_replicas=2, rank=0, shuffle=False))
    r1 = list(DistributedSampler(Squares(5), num_replicas=2, rank=1, shuffle=False))
    assert r0 == [0, 2, 4] and r1 == [1, 3, 0]  # padded by wrapping around, like torch
    assert list(DistributedSampler(Squares(5), 2, 1, shuffle=False, drop_last=True)) == [1, 3]
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(ds, num_replicas=2, rank=2)


# ----- DataLoader ---------------------------------------------------------------------------------
def test_batching_len_and_drop_last():
    ds = TensorDataset(torch.arange(10), torch.arange(10.0) * 2)
    dl = DataLoader(ds, batch_size=4)
    batches = list(dl)
    assert len(dl) == 3 and [b[0].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert batches[0][1].dtype == torch.float32 and batches[0][0].dtype == torch.int64
    dl = DataLoader(ds, batch_size=4, drop_last=True)
    assert len(dl) == 2 and [len(b[0]) for b in dl] == [4, 4]
    assert len(DataLoader(ds)) == 10 and list(DataLoader(ds))[0][0].shape == (1,)
    single = list(DataLoader(Squares(3), batch_size=None))
    assert single == [0, 1, 4]  # no auto-batching: samples pass through default_convert


def test_shuffle_determinism_and_reshuffle_per_epoch():
    ds = TensorDataset(torch.arange(32))
    torch.manual_seed(0)
    dl = DataLoader(ds, batch_size=8, shuffle=True)
    epoch1, epoch2 = _flat(b[0] for b in dl), _flat(b[0] for b in dl)
    assert sorted(epoch1) == list(range(32)) and epoch1 != epoch2 and epoch1 != list(range(32))
    torch.manual_seed(0)
    dl2 = DataLoader(ds, batch_size=8, shuffle=True)
    assert _flat(b[0] for b in dl2) == epoch1 and _flat(b[0] for b in dl2) == epoch2
    # an explicit generator makes the order independent of the global stream
    g1, g2 = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    a = _flat(b[0] for b in DataLoader(ds, batch_size=8, shuffle=True, generator=g1))
    torch.manual_seed(1234)
    b = _flat(b[0] for b in DataLoader(ds, batch_size=8, shuffle=True, generator=g2))
    assert a == b


def test_rng_draws_per_epoch_match_torch_pattern():
    # torch draws one int64 base seed (at iter()) and, for RandomSampler without a generator, one
    # int64 sampler seed (at the first batch): two draws of the global stream per epoch
    ds = TensorDataset(torch.arange(6))
    torch.manual_seed(2)
    list(DataLoader(ds, batch_size=2, shuffle=True))
    after_shuffled = torch.get_rng_state()
    torch.manual_seed(2)
    for _ in range(2):
        torch.empty((), dtype=torch.int64).random_()
    assert np.array_equal(after_shuffled.numpy(), torch.get_rng_state().numpy())
    torch.manual_seed(2)
    list(DataLoader(ds, batch_size=2))  # sequential: only the base-seed draw
    after_seq = torch.get_rng_state()
    torch.manual_seed(2)
    torch.empty((), dtype=torch.int64).random_()
    assert np.array_equal(after_seq.numpy(), torch.get_rng_state().numpy())


Point = collections.namedtuple("Point", ["x", "y"])


def test_default_collate_rules():
    out = default_collate([(1, 2.5, True, "a", b"z"), (3, 4.5, False, "b", b"w")])
    assert out[0].dtype == torch.int64 and out[0].tolist() == [1, 3]
    assert out[1].dtype == torch.float64 and out[1].tolist() == [2.5, 4.5]
    # strings are kept as they come out of zip (a tuple here), like torch
    assert out[2].dtype == torch.bool and out[3] == ("a", "b") and out[4] == (b"z", b"w")
    assert default_collate(["a", "b"]) == ["a", "b"]
    d = default_collate([{"img": np.zeros((2, 2), np.float32), "label": np.int64(3)},
                         {"img": np.ones((2, 2), np.float32), "label": np.int64(5)}])
    assert d["img"].shape == (2, 2, 2) and d["img"].dtype == torch.float32
    assert d["label"].dtype == torch.int64 and d["label"].tolist() == [3, 5]
    p = default_collate([Point(torch.zeros(3), 1), Point(torch.ones(3), 2)])
    assert isinstance(p, Point) and p.x.shape == (2, 3) and p.y.tolist() == [1, 2]
    nested = default_collate([[torch.tensor(1.0), [2, 3]], [torch.tensor(4.0), [5, 6]]])
    assert nested[0].tolist() == [1.0, 4.0] and [t.tolist() for t in nested[1]] == [[2, 5], [3, 6]]
    assert default_collate([np.float32(1.5), np.float32(2.5)]).dtype == torch.float32
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, "
                                        "numbers, dicts or lists; found <class 'object'>"):
        default_collate([object(), object()])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors"):
        default_collate([np.array(["a"]), np.array(["b"])])


def test_default_convert_and_custom_collate():
    conv = default_convert({"a": np.arange(3), "b": [np.float64(1.0), "s"], "c": (1, 2)})
    assert conv["a"].tolist() == [0, 1, 2] and conv["b"][0].dtype == torch.float64
    assert conv["b"][1] == "s" and conv["c"] == [1, 2]
    dl = DataLoader(Squares(5), batch_size=2, collate_fn=lambda batch: sum(batch))
    assert list(dl) == [1, 13, 16]


def test_iterable_dataset_loading():
    dl = DataLoader(Stream(7), batch_size=3)
    assert [b.tolist() for b in dl] == [[0, 1, 2], [3, 4, 5], [6]] and len(dl) == 3
    dl = DataLoader(Stream(7), batch_size=3, drop_last=True)
    assert [b.tolist() for b in dl] == [[0, 1, 2], [3, 4, 5]] and len(dl) == 2
    assert list(DataLoader(Stream(2), batch_size=None)) == [0, 1]


def test_custom_samplers_in_loader():
    ds = TensorDataset(torch.arange(6))
    dl = DataLoader(ds, batch_size=2, sampler=[5, 4, 3, 2, 1, 0])
    assert _flat(b[0] for b in dl) == [5, 4, 3, 2, 1, 0]
    dl = DataLoader(ds, batch_sampler=[[0, 5], [1]])
    assert [b[0].tolist() for b in dl] == [[0, 5], [1]] and dl.batch_size is None


@pytest.mark.parametrize("kwargs, msg", [
    (dict(num_workers=2, prefetch_factor=-1), "prefetch_factor option should be non-negative"),
    (dict(multiprocessing_context="spawn"), "multiprocessing_context can only be used with "
                                            "multi-process loading (num_workers > 0), but got "
                                            "num_workers=0"),
    (dict(num_workers=1, multiprocessing_context="nope"), "multiprocessing_context option should "
                                                          "specify a valid start method in"),
    (dict(num_workers=-1), "num_workers option should be non-negative"),
    (dict(timeout=-1), "timeout option should be non-negative"),
    (dict(shuffle=True, sampler=[0, 1]), "sampler option is mutually exclusive with shuffle"),
    (dict(batch_sampler=[[0]], batch_size=2), "batch_sampler option is mutually exclusive with "
                                              "batch_size, shuffle, sampler, and drop_last"),
    (dict(batch_sampler=[[0]], drop_last=True), "batch_sampler option is mutually exclusive"),
    (dict(batch_size=None, drop_last=True), "batch_size=None option disables auto-batching and is "
                                            "mutually exclusive with drop_last"),
    (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
    (dict(prefetch_factor=2), "prefetch_factor option could only be specified in multiprocessing"),
])
def test_loader_option_errors(kwargs, msg):
    with pytest.raises(ValueError) as info:
        DataLoader(Squares(4), **kwargs)
    assert str(info.value).startswith(msg), str(info.value)


def test_loader_iterable_and_attribute_errors():
    with pytest.raises(ValueError, match="DataLoader with IterableDataset: expected unspecified "
                                         "shuffle option, but got shuffle=True"):
        DataLoader(Stream(3), shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler option"):
        DataLoader(Stream(3), sampler=[0])
    dl = DataLoader(Squares(3))
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader "
                                         "is initialized"):
        dl.batch_size = 2
    assert get_worker_info() is None
    with pytest.raises(AssertionError, match="_SingleProcessDataLoaderIter requires timeout == 0"):
        iter(DataLoader(Squares(3), timeout=1.0))
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator"):
        assert [b.tolist() for b in DataLoader(Squares(2), pin_memory=True)] == [[0], [1]]
