"""Every kind of key ``x[key]`` and ``x[key] = v`` take, swept against torch: a list holding a
tensor, a sequence, a slice, ``...`` or None is read as a tuple of indices (numpy's old rule,
which torch keeps); index tensors must be int64, int32, uint8 or bool; a number written through
a uint8 mask is refused (torch's ``masked_fill_``). Known difference: a key with more than one
``...`` is refused here (SPEC)."""
from __future__ import annotations

import numpy as np
import pytest

from minitorch_cs import torch
from tests.torch._sweeps import Outcomes, assert_same_as_torch


def _keys(T):
    return {
        "True": True, "False": False, "None": None, "...": Ellipsis,
        "reversed slice": slice(None, None, -1), "zero step": slice(None, None, 0),
        "float": 1.0, "numpy int": np.int64(1), "numpy array": np.array([0, 1]),
        "numpy bool array": np.array([True, False]), "bool list": [True, False],
        "int list": [0, 1], "int and bool list": [0, True],
        "int32 tensor": T.tensor([0, 1], dtype=T.int32),
        "int8 tensor": T.tensor([0, 1], dtype=T.int8),
        "int16 tensor": T.tensor([0, 1], dtype=T.int16),
        "uint8 tensor": T.tensor([1, 0], dtype=T.uint8), "float tensor": T.tensor([0., 1.]),
        "0-d tensor": T.tensor(1), "0-d bool tensor": T.tensor(True), "out of range": 5,
        "negative out of range": -3, "tuple of lists": ([0, 1], [1, 2]),
        "nested list": [[0, 1], [1, 0]], "list with None and ...": [None, Ellipsis, None],
        "list with slice": [0, slice(None)], "list with ...": [0, Ellipsis],
        "list of arrays": [np.array([0, 1]), np.array([1, 0])],
        "2-d numpy array": np.array([[0, 1], [1, 0]]), "wide slice": slice(-100, 100),
        "str": "a", "empty list": [], "list of 40": [0] * 40,
        "2-d bool tensor": T.tensor([[True, False, True], [False, True, False]]),
        "list of tensors": [T.tensor(0), T.tensor(1)], "int, list, slice": (0, [0, 2], slice(1, 3)),
        "split advanced": ([0, 1], slice(None), [1, 2]), "numpy 0-d": np.array(1),
        "bool and int": (True, 0), "tensor-bounded slice": slice(T.tensor(1), T.tensor(3)),
        "too many": (0, 0, 0, 0), "uint8 and int": (T.tensor([1, 0], dtype=T.uint8), 0),
    }


def _written(x, key, v) -> str:
    y = x.clone()
    y[key] = v
    return str(y.reshape(-1).tolist())


def _read(x, key) -> str:
    r = x[key]
    return f"{tuple(r.shape)} {r.reshape(-1).tolist()}"


def _outcomes(T):
    x = T.arange(24.).reshape(2, 3, 4)
    out = Outcomes(show=str)
    for name, key in _keys(T).items():
        for value in (-1.0, "0-d", "row"):
            v = T.tensor(-2.0) if value == "0-d" else T.full((4,), -3.0) \
                if value == "row" else value
            out.run(f"x[{name}] = {value}", lambda key=key, v=v: _written(x, key, v))
        out.run(f"x[{name}]", lambda key=key: _read(x, key))
    return out


def test_index_keys_match_torch():
    assert_same_as_torch(_outcomes, torch)


def test_a_list_of_indices_is_a_tuple():
    x = torch.arange(24.).reshape(2, 3, 4)
    assert x[[[0, 1], [1, 0]]].shape == (2, 4)  # x[[0, 1], [1, 0]]
    assert x[[torch.tensor(0), torch.tensor(1)]].shape == (4,)  # x[0, 1]
    assert x[[0, slice(None)]].shape == (3, 4) and x[[0, None]].shape == (1, 3, 4)
    assert x[[0, 1]].shape == (2, 3, 4) and x[np.array([[0, 1], [1, 0]])].shape == (2, 2, 3, 4)


@pytest.mark.parametrize("call, kind, message", [
    (lambda x: x[torch.tensor([0, 1], dtype=torch.int8)], IndexError,
     "tensors used as indices must be long, int, byte or bool tensors"),
    (lambda x: x.__setitem__(torch.tensor([1, 0], dtype=torch.uint8), 1.0), RuntimeError,
     "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"),
    (lambda x: x[::0], ValueError, "slice step cannot be zero"),
    (lambda x: x[::-1], ValueError, "step must be greater than zero"),
])
def test_keys_torch_refuses(call, kind, message):
    with pytest.raises(kind) as e:
        call(torch.arange(24.).reshape(2, 3, 4))
    assert str(e.value) == message
