"""``F.pad``, ``F.one_hot`` and ``F.embedding`` over their argument space, swept against torch:
every mode, padding, rank and value of ``pad``; empty, negative, 0-d and float indices with
each ``num_classes``, ``padding_idx`` and ``max_norm`` (which renorms the weight in place, so
the calls share one weight as a script's would)."""
from __future__ import annotations

import pytest

from minitorch_cs import torch
from tests.torch._sweeps import Outcomes, assert_same_as_torch, describe


def _outcomes(T):
    F = T.nn.functional
    inputs = {"3-d": T.arange(12.).reshape(1, 2, 6), "4-d": T.arange(24.).reshape(1, 2, 3, 4),
              "2-d": T.arange(6.).reshape(2, 3)}
    pads = [(1,), (1, 2), (2, 1, 0, 1), (-1, 1), (1, -2, 0, 0), (0, 0, 0, 0, 1, 1), (3, 3),
            (6, 0), (7, 0), (1, 1, 1), ()]
    out = Outcomes(show=describe)
    run = out.run
    for mode in ["constant", "reflect", "replicate", "circular", "bogus"]:
        for xn, x in inputs.items():
            for p in pads:
                for value in (None, 0.0, 2.5):
                    kw = {} if value is None else {"value": value}
                    run(f"pad({xn}, {p}, {mode}, value={value})",
                        lambda: F.pad(x, p, mode=mode, **kw))
    indices = {"1-d": T.tensor([0, 2, 1]), "negative": T.tensor([-1, 1]),
               "2-d": T.tensor([[0, 1], [2, 3]]), "empty": T.zeros(0, dtype=T.long),
               "int32": T.tensor([0, 1], dtype=T.int32), "float": T.tensor([0., 1.]),
               "0-d": T.tensor(2)}
    for n, i in indices.items():
        for nc in (-1, 0, 3, 5):
            run(f"one_hot({n}, {nc})", lambda: F.one_hot(i, nc))
    w = T.arange(12.).reshape(4, 3)
    for n, i in indices.items():
        for pi in (None, 0, -1, 5, -5):
            for mn in (None, 1.0, 10.0):
                run(f"embedding({n}, padding_idx={pi}, max_norm={mn})",
                    lambda: F.embedding(i, w, padding_idx=pi, max_norm=mn, norm_type=1.5))
    return out


def test_functional_arguments_match_torch():
    assert_same_as_torch(_outcomes, torch)


def test_embedding_max_norm_renorms_the_rows_it_reads():
    w = torch.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    out = torch.nn.functional.embedding(torch.tensor([0, 1]), w, max_norm=1.0)
    assert out[0].tolist() == pytest.approx([0.6, 0.8], rel=1e-6)
    assert w[1].tolist() == pytest.approx([0.3, 0.4]) and w[2].tolist() == [6.0, 8.0]
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        torch.nn.functional.embedding(torch.tensor([0]), w, padding_idx=3)
