"""The factories over their argument space, swept against torch: ``arange``'s integer rule
(bounds and step converted to the integer type first; int64 counts its length in integers),
its refusals (a zero step, an infinite bound, bool), ``linspace``/``logspace``'s int steps,
``full``'s sequence size and number conversion (refused beyond the dtype's range, as a Scalar
argument is), ``eye``'s ints, the ``*_like`` functions' tensor, ``randint``'s bounds against
the dtype and ``randperm``'s size."""
from __future__ import annotations

import numpy as np
import pytest

from minitorch_cs import torch
from tests.torch._sweeps import Outcomes, assert_same_as_torch, describe, outcomes


def _calls(T):
    return {
        "arange(5)": lambda: T.arange(5), "arange(5.)": lambda: T.arange(5.),
        "arange(0, 1, 0.1)": lambda: T.arange(0, 1, 0.1), "arange(1, 0, -0.3)": lambda: T.arange(1, 0, -0.3),
        "arange(0, 1, 0)": lambda: T.arange(0, 1, 0), "arange(1, 0)": lambda: T.arange(1, 0),
        "arange(tensor 5)": lambda: T.arange(T.tensor(5)), "arange(tensor 2.5)": lambda: T.arange(T.tensor(2.5)),
        "arange(np.int64 5)": lambda: T.arange(np.int64(5)), "arange(5, float16)": lambda: T.arange(5, dtype=T.float16),
        "arange(0, 2.5, 0.5, int64)": lambda: T.arange(0, 2.5, 0.5, dtype=T.int64),
        "arange(0, 2.5, 0.5, int32)": lambda: T.arange(0, 2.5, 0.5, dtype=T.int32),
        "arange(0, 5, 1.5, int64)": lambda: T.arange(0, 5, 1.5, dtype=T.int64),
        "arange(0, 5, 2.7, int32)": lambda: T.arange(0, 5, 2.7, dtype=T.int32),
        "arange(5, 0, -1.5, int64)": lambda: T.arange(5, 0, -1.5, dtype=T.int64),
        "arange(5, 0, -1.5, int16)": lambda: T.arange(5, 0, -1.5, dtype=T.int16),
        "arange(-1.5, 2, 1, int64)": lambda: T.arange(-1.5, 2, 1, dtype=T.int64),
        "arange(0, 300, 100, uint8)": lambda: T.arange(0, 300, 100, dtype=T.uint8),
        "arange(inf)": lambda: T.arange(float("inf")), "arange(nan)": lambda: T.arange(float("nan")),
        "arange(True)": lambda: T.arange(True), "arange(-5)": lambda: T.arange(-5),
        "arange(0, 3, bool)": lambda: T.arange(0, 3, dtype=T.bool),
        "linspace(0, 1, 5)": lambda: T.linspace(0, 1, 5), "linspace(0, 1, 1)": lambda: T.linspace(0, 1, 1),
        "linspace(0, 1, 0)": lambda: T.linspace(0, 1, 0), "linspace(0, 1, -1)": lambda: T.linspace(0, 1, -1),
        "linspace(0, 10, 4, int64)": lambda: T.linspace(0, 10, 4, dtype=T.int64),
        "linspace(0, 1, 2.0)": lambda: T.linspace(0, 1, 2.0), "linspace(0, 1, True)": lambda: T.linspace(0, 1, True),
        "linspace(0, np.float32, np.float64)": lambda: T.linspace(0, np.float32(1), np.float64(3)),
        "logspace(0, 2, 3)": lambda: T.logspace(0, 2, 3), "logspace(0, 2, 3, base=2)": lambda: T.logspace(0, 2, 3, base=2),
        "full((2,), 1)": lambda: T.full((2,), 1), "full((2,), True)": lambda: T.full((2,), True),
        "full((2,), 1.5, int64)": lambda: T.full((2,), 1.5, dtype=T.int64),
        "full((2,), np.float16)": lambda: T.full((2,), np.float16(1.5)), "full(2, 1)": lambda: T.full(2, 1),
        "full([], 1)": lambda: T.full([], 1), "full((2,), tensor)": lambda: T.full((2,), T.tensor(3.)),
        "full((2,), 300, uint8)": lambda: T.full((2,), 300, dtype=T.uint8),
        "full((2,), -1, uint8)": lambda: T.full((2,), -1, dtype=T.uint8),
        "full((2,), 256.5, uint8)": lambda: T.full((2,), 256.5, dtype=T.uint8),
        "full((2,), 1e40, float32)": lambda: T.full((2,), 1e40, dtype=T.float32),
        "full((2,), 2**31, int32)": lambda: T.full((2,), 2 ** 31, dtype=T.int32),
        "full((-1,), 1)": lambda: T.full((-1,), 1), "eye(3)": lambda: T.eye(3), "eye(2, 3)": lambda: T.eye(2, 3),
        "eye(0)": lambda: T.eye(0), "eye(-1)": lambda: T.eye(-1), "eye(2, -1)": lambda: T.eye(2, -1),
        "eye(2.0)": lambda: T.eye(2.0), "eye(True)": lambda: T.eye(True),
        "full_like(int, 1.7)": lambda: T.full_like(T.tensor([1, 2]), 1.7),
        "ones_like(list)": lambda: T.ones_like([1, 2]), "zeros_like(list)": lambda: T.zeros_like([1]),
        "randint(5, 0, (2,))": lambda: T.randint(5, 0, (2,)),
        "randint(2**40, (1,), int32)": lambda: T.randint(2 ** 40, (1,), dtype=T.int32),
        "randint(-2**40, 0, (1,), int32)": lambda: T.randint(-2 ** 40, 0, (1,), dtype=T.int32),
        "randint(0, 257, (2,), uint8)": lambda: T.randint(0, 257, (2,), dtype=T.uint8),
        "randint(-1, 2, (2,), uint8)": lambda: T.randint(-1, 2, (2,), dtype=T.uint8),
        "randint(0, 3, (2,), bool)": lambda: T.randint(0, 3, (2,), dtype=T.bool),
        "randperm(0)": lambda: T.randperm(0), "randperm(-1)": lambda: T.randperm(-1),
    }


def _outcomes(T):
    return outcomes(_calls(T), show=lambda r: f"{str(r.dtype).split('.')[-1]} "
                                              f"{tuple(r.shape)} {r.tolist()}")


def test_factory_arguments_match_torch():
    assert_same_as_torch(_outcomes, torch)


def test_integer_arange_and_checked_fills():
    assert torch.arange(0, 5, 1.5, dtype=torch.int64).tolist() == [0, 1, 2, 3, 4]
    assert torch.arange(0, 5, 2.7, dtype=torch.int32).tolist() == [0, 2]
    with pytest.raises(ValueError, match="step must be nonzero"):
        torch.arange(0, 2.5, 0.5, dtype=torch.int64)
    assert torch.full((1,), -1, dtype=torch.uint8).tolist() == [255]
    for value, dt in ((256.5, torch.uint8), (1e40, torch.float32)):
        with pytest.raises(RuntimeError, match="without overflow"):
            torch.full((1,), value, dtype=dt)


def _new_and_like_outcomes(T):  # noqa: C901 (one table of calls)
    res = Outcomes(show=lambda r: f"{describe(r, limit=4)} rg={r.requires_grad}"
                   if hasattr(r, "requires_grad") else repr(r))
    run = res.run
    x = T.arange(6.).reshape(2, 3)
    i = T.tensor([1, 2])
    run("new_tensor", lambda: x.new_tensor([1, 2]))
    run("new_tensor float data int self", lambda: i.new_tensor([1.5]))
    run("new_tensor dtype", lambda: x.new_tensor([1, 2], dtype=T.int8))
    run("new_tensor rg", lambda: x.new_tensor([1.], requires_grad=True))
    run("new_tensor from tensor", lambda: x.new_tensor(i))
    run("new_full int self float fill", lambda: i.new_full((2,), 2.7))
    run("new_full bool fill", lambda: x.new_full((2,), True))
    run("new_ones rg", lambda: x.new_ones(2, requires_grad=True))
    run("new_ones rg int", lambda: i.new_ones(2, requires_grad=True))
    run("new_zeros tuple", lambda: x.new_zeros((2, 2)))
    run("new_empty list", lambda: x.new_empty([2]).shape)
    run("new_zeros neg", lambda: x.new_zeros(-1))
    run("zeros_like dtype", lambda: T.zeros_like(x, dtype=T.int32))
    run("ones_like rg", lambda: T.ones_like(x, requires_grad=True))
    run("ones_like rg int", lambda: T.ones_like(i, requires_grad=True))
    run("full_like 2.5 int", lambda: T.full_like(i, 2.5))
    run("full_like 300 u8", lambda: T.full_like(i.byte(), 300))
    run("full_like True f", lambda: T.full_like(x, True))
    run("rand_like int", lambda: T.rand_like(i))
    run("randn_like int", lambda: T.randn_like(i))
    run("randint_like float", lambda: T.randint_like(x, 5).dtype)
    run("randint_like low>high", lambda: T.randint_like(x, 5, 2))
    run("empty_like shape", lambda: T.empty_like(x).shape)
    run("zeros_like memfmt", lambda: T.zeros_like(x, memory_format=T.channels_last))
    run("tensor rg int", lambda: T.tensor([1, 2], requires_grad=True))
    run("zeros rg", lambda: T.zeros(2, requires_grad=True))
    run("zeros int rg", lambda: T.zeros(2, dtype=T.int64, requires_grad=True))
    run("arange rg", lambda: T.arange(3., requires_grad=True))
    run("full rg int", lambda: T.full((2,), 1, requires_grad=True))
    run("eye rg", lambda: T.eye(2, requires_grad=True))
    run("linspace rg", lambda: T.linspace(0, 1, 3, requires_grad=True))
    run("as_tensor rg kw", lambda: T.as_tensor([1.], requires_grad=True))
    return res


def test_new_and_like_arguments_match_torch():
    """``Tensor.new_*`` and the ``*_like`` factories: dtypes, fills, ``requires_grad``."""
    assert_same_as_torch(_new_and_like_outcomes, torch)
