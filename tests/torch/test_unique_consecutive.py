"""``unique_consecutive`` (function and method) against torch 2.13: runs collapsed over the
flattened input or slices along ``dim``, the inverse indices and run lengths, NaN and signed
zeros, empty and 0-d inputs, torch's argument checks and its dispatcher's reading of positional
flags, and the backward that raises -- ``unique``'s too (its values take a node whose backward
raises, as torch's ``Unique2Backward0``/``UniqueDimBackward0``)."""
from __future__ import annotations

import pytest

import minitorch_cs.torch as mt
from tests.torch._sweeps import assert_same_as_torch, outcomes


def _show(r):
    if isinstance(r, tuple):
        return [(t.tolist(), str(t.dtype)[6:], tuple(t.shape)) for t in r]
    if hasattr(r, "tolist"):
        return (r.tolist(), str(r.dtype)[6:], tuple(r.shape))
    return repr(r)


def _calls(T):
    def x():
        return T.tensor([1., 1., 2., 2., 3., 1., 1., 2.], requires_grad=True)

    def m():
        return T.tensor([[1, 1, 2], [1, 1, 2], [3, 3, 3], [1, 1, 2]])

    def xi():
        return T.tensor([1, 1, 2])
    U = T.unique_consecutive
    return {
        "plain": lambda: U(x()),
        "inverse and counts": lambda: U(x(), return_inverse=True, return_counts=True),
        "method counts": lambda: x().unique_consecutive(return_counts=True),
        "rows": lambda: U(m(), dim=0, return_inverse=True, return_counts=True),
        "columns": lambda: U(m(), dim=1, return_counts=True),
        "negative dim": lambda: U(xi(), dim=-1, return_inverse=True),
        "2-d flattened": lambda: U(T.tensor([[1, 2], [1, 2]]), return_inverse=True),
        "empty": lambda: U(T.tensor([]), return_inverse=True, return_counts=True),
        "empty rows": lambda: U(T.empty(0, 3), dim=0, return_inverse=True, return_counts=True),
        "empty columns selected": lambda: U(T.empty(2, 0), dim=1, return_inverse=True,
                                            return_counts=True),
        "empty columns not selected": lambda: U(T.empty(2, 0), dim=0),
        "0-d": lambda: U(T.tensor(5), return_inverse=True, return_counts=True),
        "0-d with dim": lambda: U(T.tensor(5), dim=0),
        "dim out of range": lambda: U(m(), dim=2),
        "nan": lambda: U(T.tensor([float("nan"), float("nan"), 1.])),
        "signed zeros": lambda: U(T.tensor([-0.0, 0.0, 1.0])),
        "bool": lambda: U(T.tensor([True, True, False])),
        "float16": lambda: U(T.tensor([1, 1, 2], dtype=T.float16)),
        "positional flag": lambda: U(xi(), True),
        "positional flags": lambda: U(xi(), True, True),
        "positional counts": lambda: U(xi(), False, True),
        "method positional": lambda: xi().unique_consecutive(True),
        "int flag": lambda: U(xi(), return_inverse=1),
        "list input": lambda: U([1, 2]),
        "keyword input": lambda: U(input=xi()),
        "requires grad": lambda: U(x()).requires_grad,
        "backward": lambda: U(x()).sum().backward(),
        "unique requires grad": lambda: T.unique(x()).requires_grad,
        "unique backward": lambda: T.unique(x()).sum().backward(),
        "unique dim backward": lambda: T.unique(x().reshape(2, 4), dim=1).sum().backward(),
        "unique node": lambda: T.unique(x(), return_counts=True)[0].grad_fn is not None,
    }


def test_unique_consecutive_matches_torch():
    assert_same_as_torch(lambda T: outcomes(_calls(T), show=_show), mt)


def test_runs_collapse_to_their_first_element():
    out, inverse, counts = mt.unique_consecutive(mt.tensor([2, 2, 1, 2, 2, 2]),
                                                 return_inverse=True, return_counts=True)
    assert out.tolist() == [2, 1, 2] and inverse.tolist() == [0, 0, 1, 2, 2, 2]
    assert counts.tolist() == [2, 1, 3]
    with pytest.raises(NotImplementedError, match="derivative for 'unique_consecutive'"):
        mt.unique_consecutive(mt.ones(3, requires_grad=True)).sum().backward()
