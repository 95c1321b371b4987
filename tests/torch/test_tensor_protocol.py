"""A tensor as Python sees it -- sizes, strides, offsets, conversions to Python numbers and
indices, truth, formatting, containment, reflected operators, ``torch.Size`` arithmetic --
swept against torch. Known difference (SPEC): an operator given an operand of a type no
overload takes (a list, a str) raises the argument parser's TypeError where torch's operator
returns NotImplemented and Python raises its own TypeError."""
from __future__ import annotations

import math
import operator

import numpy as np
import pytest

from minitorch_cs import torch
from tests.torch._sweeps import assert_same_as_torch, outcomes


def _calls(T):
    x = T.arange(6.).reshape(2, 3)
    s, i, b, e = T.tensor(2.5), T.tensor(3), T.tensor(True), T.zeros(0)
    return {
        "size(-1)": lambda: x.size(-1), "size(2)": lambda: x.size(2), "size(1.0)": lambda: x.size(1.0),
        "ndimension()": lambda: x.ndimension(), "nelement()": lambda: x.nelement(),
        "element_size()": lambda: x.element_size(), "nbytes": lambda: x.nbytes,
        "nbytes of a column": lambda: x[:, :1].nbytes, "itemsize": lambda: x.half().itemsize,
        "stride(-3)": lambda: x.stride(-3),
        "storage_offset of x[1:]": lambda: x[1:].storage_offset(),
        "storage_offset of x[:, 1:]": lambda: x[:, 1:].storage_offset(),
        "storage_offset of x.T[1:]": lambda: x.T[1:].storage_offset(),
        "item() of 6": lambda: x.item(), "item() of empty": lambda: e.item(),
        "len(0-d)": lambda: len(s), "list(0-d)": lambda: list(s),
        "bool(x)": lambda: bool(x), "bool(empty)": lambda: bool(e), "bool(nan)": lambda: bool(T.tensor(float("nan"))),
        "float(s)": lambda: float(s), "float(x)": lambda: float(x), "int(-2.7)": lambda: int(T.tensor(-2.7)),
        "int(nan)": lambda: int(T.tensor(float("nan"))), "complex(s)": lambda: complex(s),
        "complex(x)": lambda: complex(x),
        "index(int)": lambda: operator.index(i), "index(float)": lambda: operator.index(s),
        "index(bool)": lambda: operator.index(b), "index([3])": lambda: operator.index(T.tensor([3])),
        "list[t]": lambda: [10, 20, 30, 40][i], "round(s)": lambda: round(s),
        "math.floor": lambda: math.floor(s), "format .3f": lambda: f"{s:.3f}",
        "format of x": lambda: f"{x:.3f}", "format 05d": lambda: f"{i:05d}",
        "divmod": lambda: divmod(T.tensor(7.), 2), "-bool": lambda: -b, "~float": lambda: ~s,
        "+bool": lambda: +b, "x == None": lambda: x == None,  # noqa: E711
        "3.0 in x": lambda: 3.0 in x, "tensor in x": lambda: T.tensor([1., 2.]) in x,
        "str in x": lambda: "a" in x, "2 ** x": lambda: (2 ** x).tolist(),
        "7 % t": lambda: (7 % T.tensor([2, 3])).tolist(), "7 // t": lambda: (7 // T.tensor([2., 3.])).tolist(),
        "1 << t": lambda: (1 << T.tensor([3])).tolist(), "s ^ s": lambda: s ^ s,
        "np.asarray dtype": lambda: np.asarray(x, dtype=np.int32).tolist(),
        "Size + tuple": lambda: x.shape + (4,), "tuple + Size": lambda: (1,) + x.shape,
        "Size * 2": lambda: x.shape * 2, "Size + list": lambda: x.shape + [4],
        "Size[1:]": lambda: x.shape[1:], "Size.numel": lambda: x.shape.numel(),
    }


def _outcomes(T):
    return outcomes(_calls(T), show=lambda r: repr(r.tolist()) if hasattr(r, "tolist")
                    else repr(r))


def test_tensor_protocol_matches_torch():
    assert_same_as_torch(_outcomes, torch)


def test_offsets_sizes_and_conversions():
    x = torch.arange(6.).reshape(2, 3)
    assert x[:, 1:].storage_offset() == 1 and x[1].storage_offset() == 3 and x.nbytes == 24
    assert repr(x.shape + (4,)) == "torch.Size([2, 3, 4])"
    with pytest.raises(ValueError, match="only one element tensors can be converted"):
        float(x)
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with no values"):
        bool(torch.zeros(0))
