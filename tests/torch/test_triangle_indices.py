"""torch.tril_indices / torch.triu_indices: the (2, N) row-major indices of a matrix's lower or
upper triangle about a diagonal offset, int64 (or int32), with torch 2.13's errors."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs.torch as mt
from tests.helpers import outcome

SIZES = [(3, 4, 1), (3, 3, -1), (0, 3), (3, 0), (4, 2, -5), (2, 5, 10), (5, 5), (1, 1, 0),
         (6, 2, 1)]


def _outcomes(T):
    out = []
    for args in SIZES:
        for f in (T.triu_indices, T.tril_indices):
            x = f(*args)
            out.append((x.tolist(), str(x.dtype), x.stride(), tuple(x.shape)))
    for f in (lambda: T.triu_indices(-1, 3), lambda: T.triu_indices(3, -2),
              lambda: T.tril_indices(3, 3, dtype=T.float32), lambda: T.tril_indices(3.0, 3),
              lambda: T.tril_indices(3, 3, dtype=T.int8),
              lambda: T.triu_indices(3, 3, requires_grad=True),
              lambda: T.tril_indices(3, 3, dtype=T.int32).dtype,
              lambda: T.triu_indices(row=2, col=2, offset=1).tolist(),
              lambda: T.triu_indices(-1, 3, requires_grad=True),  # (the kernel's checks first)
              lambda: T.triu_indices(3, 3, dtype=T.int8, requires_grad=True)):
        out.append(outcome(f, str, message=True))
    return out


def test_triangle_indices_as_torch():
    torch = pytest.importorskip("torch")
    assert _outcomes(mt) == _outcomes(torch)


@pytest.mark.parametrize("row,col,offset", [(4, 6, 0), (5, 3, -2), (3, 7, 2), (1, 1, 0)])
def test_triangle_indices_select_the_triangle(row, col, offset):
    m = np.arange(row * col).reshape(row, col)
    lo = mt.tril_indices(row, col, offset).numpy()
    up = mt.triu_indices(row, col, offset).numpy()
    np.testing.assert_array_equal(m[lo[0], lo[1]], m[np.tril(np.ones_like(m), offset) > 0])
    np.testing.assert_array_equal(m[up[0], up[1]], m[np.triu(np.ones_like(m), offset) > 0])
    assert mt.tril_indices(row, col, offset).dtype is mt.int64
    with pytest.raises(RuntimeError, match="^row must be non-negative, got-1$"):
        mt.tril_indices(-1, col)
