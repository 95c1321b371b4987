"""Dim-wise ops on a 0-d tensor return their own 0-d tensors, and the graph checks them as
torch's does: an in-place change of an output the backward saved (``max``'s indices, ``sort``'s
indices, ...) is refused at backward; a change of an output it did not save is not."""
from __future__ import annotations

import pytest

import minitorch_cs.torch as mt
from tests.torch._sweeps import assert_same_as_torch, outcomes

OPS = {
    "max": lambda T, x: T.max(x, 0), "min": lambda T, x: T.min(x, -1),
    "sort": lambda T, x: T.sort(x, 0), "topk": lambda T, x: T.topk(x, 1),
    "kthvalue": lambda T, x: T.kthvalue(x, 1), "median": lambda T, x: T.median(x, 0),
    "nanmedian": lambda T, x: T.nanmedian(x, 0), "mode": lambda T, x: T.mode(x, 0),
    "cummax": lambda T, x: T.cummax(x, 0), "cummin": lambda T, x: T.cummin(x, 0),
    "cumsum": lambda T, x: (T.cumsum(x, 0),), "cumprod": lambda T, x: (T.cumprod(x, 0),),
    "logcumsumexp": lambda T, x: (T.logcumsumexp(x, 0),),
    "softmax": lambda T, x: (T.softmax(x, 0),), "log_softmax": lambda T, x: (T.log_softmax(x, 0),),
}


def _calls(T):
    calls = {}
    for name, op in OPS.items():
        for which in (0, 1):
            def run(op=op, which=which):
                x = T.tensor(1.5, requires_grad=True)
                outs = op(T, x)
                if which >= len(outs):
                    return "no such output"
                outs[which].add_(0)  # (a version bump, the value unchanged)
                (outs[0] * x).sum().backward()
                return round(x.grad.item(), 4)
            calls[f"{name} output {which}"] = run
    return calls


def test_in_place_changes_of_zero_dim_outputs_match_torch():
    assert_same_as_torch(lambda T: outcomes(_calls(T)), mt)


def test_max_of_a_zero_dim_tensor_saves_its_indices():
    x = mt.tensor(1.5, requires_grad=True)
    values, indices = mt.max(x, 0)
    indices.add_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        values.backward()
