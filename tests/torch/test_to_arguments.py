"""``Tensor.to`` and the conversion methods, swept against torch: torch's three ``to``
overloads (dtype / other tensor / device and dtype, each with ``non_blocking`` and ``copy``
by position or keyword) and nothing else; Python's ``float`` is float64 wherever a dtype is
taken (torch's parser reads it as double, whatever the default dtype)."""
from __future__ import annotations

import numpy as np
import pytest

from minitorch_cs import torch
from tests.torch._sweeps import assert_same_as_torch, outcomes


def _calls(T):
    x = T.arange(6.).reshape(2, 3)
    o = T.zeros(1, dtype=T.int32)
    return {
        "to(float64)": lambda: x.to(T.float64), "to('cpu')": lambda: x.to("cpu"),
        "to(device)": lambda: x.to(T.device("cpu")), "to('cpu', float16)": lambda: x.to("cpu", T.float16),
        "to(other)": lambda: x.to(o), "to(dtype=)": lambda: x.to(dtype=T.int8),
        "to(device=, dtype=)": lambda: x.to(device="cpu", dtype=T.bfloat16),
        "to(copy=True) is x": lambda: x.to(copy=True) is x, "to(float32) is x": lambda: x.to(T.float32) is x,
        "to('float')": lambda: x.to("float"), "to(np.float64)": lambda: x.to(np.float64),
        "to(float)": lambda: x.to(float), "to(int)": lambda: x.to(int), "to(bool)": lambda: x.to(bool),
        "to('meta')": lambda: x.to("meta").shape, "to(0)": lambda: x.to(0), "to(None) is x": lambda: x.to(None) is x,
        "to() is x": lambda: x.to() is x, "to(float64, float32)": lambda: x.to(T.float64, T.float32),
        "to(other, float16)": lambda: x.to(o, T.float16), "to(float64, True)": lambda: x.to(T.float64, True),
        "to('cpu', float64, False, True)": lambda: x.to("cpu", T.float64, False, True),
        "to(other, False, True) is x": lambda: x.to(x, False, True) is x,
        "to(float64, copy=1)": lambda: x.to(T.float64, copy=1), "to('cpu:0')": lambda: x.to("cpu:0"),
        "type()": lambda: x.type(), "type(float64)": lambda: x.type(T.float64),
        "type('torch.IntTensor')": lambda: x.type("torch.IntTensor"), "type(int)": lambda: x.type(int),
        "type('torch.Foo')": lambda: x.type("torch.Foo"),
        "double()": lambda: x.double(), "half()": lambda: x.half(), "long()": lambda: x.long(),
        "bool()": lambda: x.bool(), "char()": lambda: x.char(), "short()": lambda: x.short(),
        "byte()": lambda: x.byte(), "bfloat16()": lambda: x.bfloat16(), "int()": lambda: x.int(),
        "type_as(other)": lambda: x.type_as(o), "new_tensor(list)": lambda: x.new_tensor([1, 2]),
        "new_full(int)": lambda: o.new_full((2,), 1.5), "new_ones(dtype=)": lambda: x.new_ones(2, dtype=T.int64),
        "zeros(dtype=float)": lambda: T.zeros(2, dtype=float), "tensor(dtype=float)": lambda: T.tensor([1], dtype=float),
        "sum(dtype=float)": lambda: x.sum(dtype=float), "arange(dtype=float)": lambda: T.arange(3, dtype=float),
    }


def _outcomes(T):
    return outcomes(_calls(T), messages=False,
                    show=lambda r: f"{str(r.dtype).split('.')[-1]} {tuple(r.shape)} {r.tolist()}"
                    if hasattr(r, "tolist") else repr(r))


def test_conversions_match_torch():
    assert_same_as_torch(_outcomes, torch)


def test_python_float_is_double():
    x = torch.arange(3.)
    assert x.to(float).dtype is torch.float64 and torch.zeros(1, dtype=float).dtype is torch.float64
    assert x.to("cpu", torch.float64, False, True).dtype is torch.float64  # (positional flags)
    assert x.char().dtype is torch.int8
    for bad in (lambda: x.to(torch.float64, torch.float32), lambda: x.to(x, torch.float16),
                lambda: x.to(torch.float64, copy=1)):
        with pytest.raises(TypeError, match=r"^to\(\) received an invalid combination"):
            bad()
    with pytest.raises(ValueError, match="invalid type: 'int'"):
        x.type(int)
