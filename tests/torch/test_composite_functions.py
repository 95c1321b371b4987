"""The functions torch composes of other ops (``flipud``, ``fliplr``, ``ravel``,
``atleast_1d/2d/3d``, ``nanmean``, ``diff``, ``argwhere``, ``msort``, ``rsub``, the stacks and
splits) against torch: generated calls over shapes (0-d and empty ones included), dims, dtypes
and arguments -- the same exception type and message, or the same results (shapes, dtypes,
values; float64 gradients) -- and, without torch, their definitions in numpy."""
from __future__ import annotations

import numpy as np
import pytest

from minitorch_cs import torch as mt


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 -- the exception is what is compared
        return "err", (type(e).__name__, str(e).split("\n")[0])


def _flat(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def _same(a, b, what):
    assert a[0] == b[0], (what, a, b)
    if a[0] == "err":
        assert a[1] == b[1], (what, a[1], b[1])
        return
    ra, rb = _flat(a[1]), _flat(b[1])
    assert len(ra) == len(rb), what
    for x, y in zip(ra, rb):
        assert tuple(x.shape) == tuple(y.shape) and str(x.dtype)[-7:] == str(y.dtype)[-7:], \
            (what, x.shape, y.shape, x.dtype, y.dtype)
        xv, yv = np.array(x.detach().tolist()), np.array(y.detach().tolist())
        assert np.allclose(xv, yv, rtol=1e-12, atol=0, equal_nan=True), (what, xv, yv)


CALLS = {
    "flipud": lambda T, x, r: T.flipud(x),
    "fliplr": lambda T, x, r: x.fliplr(),
    "ravel": lambda T, x, r: T.ravel(x.transpose(0, -1) if x.ndim else x),
    "atleast_1d": lambda T, x, r: T.atleast_1d(x),
    "atleast_2d": lambda T, x, r: T.atleast_2d(x, x),
    "atleast_3d": lambda T, x, r: T.atleast_3d([x]),
    "nanmean": lambda T, x, r: T.nanmean(x, keepdim=r % 4 == 1) if r % 2 else
    x.nanmean(dim=-1, keepdim=bool(r % 3)),
    "diff": lambda T, x, r: T.diff(x, n=r % 4, dim=-1 if r % 3 else 0),
    "diff_prepend": lambda T, x, r: T.diff(x, dim=0, prepend=x[:1] * 2, append=x[-1:]),
    "argwhere": lambda T, x, r: T.argwhere(x),
    "msort": lambda T, x, r: T.msort(x),
    "rsub": lambda T, x, r: T.rsub(x, 2.5 if r % 2 else x * 3, alpha=r % 3),
    "column_stack": lambda T, x, r: T.column_stack([x, x]),
    "row_stack": lambda T, x, r: T.row_stack((x, x)),
    "dstack": lambda T, x, r: T.dstack([x, x]),
    "hsplit": lambda T, x, r: T.hsplit(x, 2 if r % 2 else [1]),
    "vsplit": lambda T, x, r: x.vsplit(2 if r % 2 else [1, 2]),
    "dsplit": lambda T, x, r: T.dsplit(x, 1 if r % 2 else [1]),
}


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("seed", range(8))
def test_against_torch(name, seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed * 31 + len(name))
    nd = seed % 4
    shape = tuple(int(i) for i in rng.integers(0 if seed == 5 else 1, 4, nd))
    x = rng.standard_normal(shape).round(1)
    if x.size > 1:
        x.flat[0] = np.nan
    dtype = ("float64", "float32", "int64", "bool")[seed % 4] if name not in (
        "nanmean",) else "float64"
    res = []
    for T in (mt, torch):
        def run():
            t = T.tensor(x, dtype=T.float64).to(getattr(T, dtype))
            if dtype == "float64":
                t.requires_grad_()
            out = CALLS[name](T, t, seed)
            outs = [o for o in _flat(out) if o.requires_grad]
            if outs:
                sum(o.sum() * (i + 1) for i, o in enumerate(outs)).backward()
                return list(_flat(out)) + [t.grad]
            return out
        res.append(_outcome(run))
    _same(res[0], res[1], (name, shape, dtype))


def test_definitions_without_torch():
    x = np.arange(24.0).reshape(2, 3, 4)
    t = mt.tensor(x)
    assert np.array_equal(mt.flipud(t).numpy(), x[::-1]) and np.array_equal(
        mt.fliplr(t).numpy(), x[:, ::-1])
    assert mt.atleast_3d(mt.tensor([1.0, 2.0])).shape == (1, 2, 1)
    assert np.array_equal(mt.diff(t, n=2, dim=1).numpy(), np.diff(x, n=2, axis=1))
    v = mt.tensor([1.0, np.nan, 3.0])
    assert mt.nanmean(v).item() == 2.0
    assert np.array_equal(mt.column_stack([mt.tensor([1, 2]), mt.tensor([3, 4])]).numpy(),
                          np.column_stack([[1, 2], [3, 4]]))
    assert [tuple(p.shape) for p in mt.hsplit(t, [1])] == [(2, 1, 4), (2, 2, 4)]
    with pytest.raises(RuntimeError, match="torch.hsplit attempted to split along dimension 1, "
                                           "but the size of the dimension 3 is not divisible by "
                                           "the split_size 2!"):
        mt.hsplit(t, 2)
    assert mt.rsub(mt.tensor([1.0]), 3.0, alpha=2).item() == 1.0
