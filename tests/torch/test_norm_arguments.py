"""``torch.linalg``'s norms and ``torch.norm`` over their orders and dims, swept against
torch: every order for vectors and matrices, ``torch.norm``'s string orders handed to
``matrix_norm`` (``"nuc"`` was refused here), dims, dtypes, ``svdvals``, ``cross``, ``dist``."""
from __future__ import annotations

import math

import pytest

from minitorch_cs import torch
from tests.torch._sweeps import Outcomes, assert_same_as_torch, describe


def _outcomes(T):  # noqa: C901 (one table of calls)
    L = T.linalg
    res = Outcomes(show=lambda r: describe(r, limit=6))
    run = res.run
    A = T.tensor([[1., 2., 3.], [4., 5., 6.]])
    v = T.tensor([3., -4.])
    for o in [None, 2, 1, 0, -1, math.inf, -math.inf, 0.5, "fro", "nuc", 3]:
        run(f"vector_norm {o}", lambda: L.vector_norm(v, o) if o is not None else L.vector_norm(v))
        run(f"matrix_norm {o}", lambda: L.matrix_norm(A, o) if o is not None else L.matrix_norm(A))
        run(f"norm A {o}", lambda: L.norm(A, o))
        run(f"norm v {o}", lambda: L.norm(v, o))
        run(f"T.norm A {o}", lambda: T.norm(A, o))
    run("vector_norm dim tuple", lambda: L.vector_norm(A, 2, dim=(0, 1)))
    run("vector_norm keepdim", lambda: L.vector_norm(A, 1, dim=1, keepdim=True))
    run("vector_norm int", lambda: L.vector_norm(T.tensor([3, 4])))
    run("vector_norm dtype", lambda: L.vector_norm(A, dtype=T.float64))
    run("matrix_norm 1d", lambda: L.matrix_norm(v))
    run("matrix_norm dim", lambda: L.matrix_norm(A.reshape(1, 2, 3), dim=(0, 2)))
    run("matrix_norm dim same", lambda: L.matrix_norm(A, dim=(1, 1)))
    run("norm dim 3", lambda: L.norm(A.reshape(1, 2, 3), dim=(0, 1, 2)))
    run("norm 3d no ord", lambda: L.norm(A.reshape(1, 2, 3)))
    run("norm 3d ord", lambda: L.norm(A.reshape(1, 2, 3), 2))
    run("svdvals", lambda: L.svdvals(A))
    run("svdvals 1d", lambda: L.svdvals(v))
    run("cross", lambda: L.cross(A, A.flip(1)))
    run("cross dim2", lambda: L.cross(A.t(), A.t().flip(0), dim=0))
    run("cross bad", lambda: L.cross(A[:, :2], A[:, :2]))
    run("T.cross no dim", lambda: T.cross(A.t(), A.t().flip(0)))
    run("T.norm p=fro dim 1", lambda: T.norm(A, "fro", 1))
    run("T.norm nuc", lambda: T.norm(A, "nuc"))
    run("T.norm p str bad", lambda: T.norm(A, "bad"))
    run("dist", lambda: T.dist(A, A * 2, 3))
    run("dist inf", lambda: T.dist(A, A * 2, float("inf")))
    return res


def test_norm_arguments_match_torch():
    assert_same_as_torch(_outcomes, torch, known=("vector_norm fro", "vector_norm nuc"))


def test_torch_norm_takes_matrix_orders():
    A = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
    assert torch.norm(A, "nuc").item() == pytest.approx(10.2809, rel=1e-4)
    assert A.norm("nuc").item() == torch.linalg.matrix_norm(A, "nuc").item()
    with pytest.raises(RuntimeError, match="linalg.matrix_norm: Order bad not supported."):
        torch.norm(A, "bad")
