"""Sorting, selection and counting over their arguments, swept against torch: sort, argsort,
topk and kthvalue along every dim with every k (NaN, signed zeros and ties), empty and 0-d
inputs, unique (sorted, inverse, counts, dims), searchsorted/bucketize (sides, sorters,
scalars), bincount (weights' dtypes, negative input), the NaN-aware reductions."""
from __future__ import annotations

from minitorch_cs import torch
from tests.torch._sweeps import assert_same_as_torch, outcomes

nan = float("nan")

# (documented: topk's order among equal values; not provided: unique_consecutive, histc)
_KNOWN = {"topk k=4 dim=1", "topk k=4 dim=-1", "topk k=4 dim=1 smallest unsorted",
          "topk k=4 dim=-1 smallest unsorted", "unique_consecutive", "unique_consecutive counts",
          "histc", "histc auto", "histc int"}


def _outcomes(T):  # noqa: C901 (one table of calls)
    x = T.tensor([[3., nan, 1., 1.], [-0.0, 0.0, 2., -1.]]); e = T.zeros(0); s = T.tensor(2.)
    calls = {}
    for d in [0, 1, -1, 2]:
        calls[f"sort dim={d}"] = lambda d=d: T.sort(x, d).values
        calls[f"sort desc dim={d}"] = lambda d=d: T.sort(x, d, descending=True).indices
        calls[f"argsort stable dim={d}"] = lambda d=d: T.argsort(x, dim=d, stable=True)
        for k in [0, 1, 4, 5, -1]:
            calls[f"topk k={k} dim={d}"] = lambda d=d, k=k: T.topk(x, k, d).indices
            calls[f"topk k={k} dim={d} smallest unsorted"] = lambda d=d, k=k: T.topk(x, k, d, largest=False, sorted=False).values
            calls[f"kthvalue k={k} dim={d}"] = lambda d=d, k=k: T.kthvalue(x, k, d).values
    calls["sort empty"] = lambda: T.sort(e).values
    calls["topk empty k0"] = lambda: T.topk(e, 0).values
    calls["topk 0d k1"] = lambda: T.topk(s, 1).values
    calls["topk 0d k2"] = lambda: T.topk(s, 2).values
    calls["kthvalue 0d"] = lambda: T.kthvalue(s, 1).values
    calls["sort int"] = lambda: T.sort(T.tensor([3, 1, 2]), descending=True).values
    calls["sort bool"] = lambda: T.sort(T.tensor([True, False, True])).values
    calls["topk bool"] = lambda: T.topk(T.tensor([True, False]), 1).values
    calls["unique"] = lambda: T.unique(x)
    calls["unique sorted False"] = lambda: T.unique(T.tensor([3, 1, 3, 2]), sorted=False)
    calls["unique inverse"] = lambda: T.unique(T.tensor([3, 1, 3, 2]), return_inverse=True)[1]
    calls["unique counts"] = lambda: T.unique(T.tensor([3, 1, 3, 2]), return_counts=True)[1]
    calls["unique dim0"] = lambda: T.unique(T.tensor([[1, 2], [1, 2], [0, 1]]), dim=0)
    calls["unique dim1"] = lambda: T.unique(T.tensor([[1, 1], [2, 2]]), dim=1)
    calls["unique_consecutive"] = lambda: T.unique_consecutive(T.tensor([1, 1, 2, 2, 3, 1]))
    calls["unique_consecutive counts"] = lambda: T.unique_consecutive(T.tensor([1, 1, 2, 1]), return_counts=True)[1]
    calls["searchsorted"] = lambda: T.searchsorted(T.tensor([1., 2., 3.]), T.tensor([0.5, 2., 3.5]))
    calls["searchsorted right"] = lambda: T.searchsorted(T.tensor([1., 2., 2., 3.]), T.tensor([2.]), right=True)
    calls["searchsorted side"] = lambda: T.searchsorted(T.tensor([1., 2., 2., 3.]), T.tensor([2.]), side="right")
    calls["searchsorted side conflict"] = lambda: T.searchsorted(T.tensor([1., 2.]), T.tensor([2.]), right=False, side="right")
    calls["searchsorted out_int32"] = lambda: T.searchsorted(T.tensor([1., 2.]), T.tensor([2.]), out_int32=True)
    calls["searchsorted sorter"] = lambda: T.searchsorted(T.tensor([3., 1., 2.]), T.tensor([2.]), sorter=T.tensor([1, 2, 0]))
    calls["searchsorted scalar"] = lambda: T.searchsorted(T.tensor([1., 2.]), 1.5)
    calls["bucketize"] = lambda: T.bucketize(T.tensor([0.5, 2.]), T.tensor([1., 2.]))
    calls["bucketize right"] = lambda: T.bucketize(T.tensor([0.5, 2.]), T.tensor([1., 2.]), right=True)
    calls["histc"] = lambda: T.histc(T.tensor([1., 2., 1., 5.]), bins=4, min=0, max=4)
    calls["histc auto"] = lambda: T.histc(T.tensor([1., 2., 1., 5.]), bins=4)
    calls["histc int"] = lambda: T.histc(T.tensor([1, 2]), bins=2)
    calls["bincount"] = lambda: T.bincount(T.tensor([0, 2, 2]))
    calls["bincount weights"] = lambda: T.bincount(T.tensor([0, 2, 2]), weights=T.tensor([0.5, 1., 2.]))
    calls["bincount neg"] = lambda: T.bincount(T.tensor([-1, 2]))
    calls["bincount minlength"] = lambda: T.bincount(T.tensor([0]), minlength=3)
    calls["bincount float"] = lambda: T.bincount(T.tensor([0., 1.]))
    calls["msort"] = lambda: T.msort(x)
    calls["argmax nan"] = lambda: T.argmax(x, 1)
    calls["max nan"] = lambda: T.max(x, 1).indices
    calls["median nan"] = lambda: T.median(x, 1).indices
    calls["nanmedian"] = lambda: T.nanmedian(x, 1).values
    calls["mode"] = lambda: T.mode(T.tensor([[1, 2, 2], [3, 3, 1]]), 1).values
    calls["cummax"] = lambda: T.cummax(x, 1).indices
    return outcomes(calls)


def test_sorting_and_counting_match_torch():
    assert_same_as_torch(_outcomes, torch, known=_KNOWN)


def test_bincount_result_dtype():
    """torch's rule: float32 weights give float32 counts, any other weights float64."""
    idx = torch.tensor([0, 2, 2])
    assert torch.bincount(idx, weights=torch.tensor([0.5, 1., 2.])).dtype is torch.float32
    assert torch.bincount(idx, weights=torch.tensor([1, 2, 3])).dtype is torch.float64
    assert torch.bincount(idx, weights=torch.tensor([0.5, 1., 2.]).half()).dtype is torch.float64
