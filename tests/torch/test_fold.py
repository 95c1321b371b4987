"""``F.unfold``/``F.fold`` and ``nn.Unfold``/``nn.Fold`` against torch: generated calls over
kernel sizes, dilations, paddings, strides, batched and unbatched inputs and dtypes -- the same
exception type and message, or the same shape, dtype and values bit for bit (col2im adds in
torch's order, so its sums and half-precision roundings agree) -- and the gradients (each is
the other's adjoint); without torch, a direct loop reference and the adjoint identity."""
from __future__ import annotations

import numpy as np
import pytest

from minitorch_cs import torch as mt


def _params(rng):
    def pair(lo, hi):
        v = tuple(int(i) for i in rng.integers(lo, hi + 1, 2))
        return v if rng.random() < 0.5 else v[0]
    return dict(kernel_size=pair(1, 3), dilation=pair(1, 2), padding=pair(0, 2),
                stride=pair(1, 3))


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 -- the exception is what is compared
        return "err", (type(e).__name__, str(e).split("\n")[0])


def _compare(a, b):
    assert a[0] == b[0], (a, b)
    if a[0] == "err":
        assert a[1] == b[1], (a[1], b[1])
        return
    x, y = a[1], b[1]
    assert tuple(x.shape) == tuple(y.shape) and str(x.dtype)[-8:] == str(y.dtype)[-8:]
    xv = np.array(x.detach().double().tolist() if x.dtype != mt.bool else x.tolist())
    yv = np.array(y.detach().double().tolist() if str(y.dtype) != "torch.bool" else y.tolist())
    assert np.array_equal(xv, yv, equal_nan=True), (xv, yv)


@pytest.mark.parametrize("seed", range(60))
def test_unfold_fold_against_torch(seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    kw = _params(rng)
    dtype = ["float32", "float64", "float16", "bfloat16", "bool", "int64"][seed % 6]
    shape = tuple(int(i) for i in rng.integers(1, 6, 4))
    if seed % 5 == 0:
        shape = shape[1:]  # unbatched
    x = rng.standard_normal(shape).round(2)
    res = []
    for T in (mt, torch):
        def run():
            t = T.tensor(x, dtype=getattr(T, dtype))
            if dtype != "bool" and dtype != "int64":
                t.requires_grad_()
            cols = T.nn.functional.unfold(t, **kw)
            back = T.nn.functional.fold(cols, shape[-2:], **kw)
            if t.requires_grad:
                (back * T.arange(back.numel(), dtype=back.dtype).reshape(back.shape)).sum() \
                    .backward()
                return cols, back, t.grad, cols.grad_fn.name(), back.grad_fn.name()
            return cols, back, None, None, None
        res.append(_outcome(run))
    (k1, a), (k2, b) = res
    assert k1 == k2, (kw, shape, dtype, a, b)
    if k1 == "err":
        assert a == b, (kw, shape, dtype)
        return
    for i in range(3):
        if a[i] is None:
            assert b[i] is None
            continue
        _compare(("ok", a[i]), ("ok", b[i]))
    assert a[3:] == b[3:]


@pytest.mark.parametrize("call", [
    lambda T, F: F.unfold(T.ones(1, 2, 4, 4), 0),
    lambda T, F: F.unfold(T.ones(1, 2, 4, 4), 2, stride=0),
    lambda T, F: F.unfold(T.ones(1, 2, 4, 4), 2, padding=-1),
    lambda T, F: F.unfold(T.ones(1, 2, 4, 4), 2, dilation=0),
    lambda T, F: F.unfold(T.ones(1, 2, 4, 4), (2,)),
    lambda T, F: F.unfold(T.ones(1, 2, 4, 4), (5, 3)),
    lambda T, F: F.unfold(T.ones(5), 2),
    lambda T, F: F.unfold(T.ones(4, 4), 2),
    lambda T, F: F.unfold(T.ones(1, 1, 1, 4, 4), 2),
    lambda T, F: F.unfold(T.ones(1, 0, 4, 4), 2),
    lambda T, F: F.unfold(T.ones(0, 2, 4, 4), 2),
    lambda T, F: F.unfold(T.ones(1, 1, 3, 3, dtype=T.int32), 2),
    lambda T, F: F.fold(T.ones(8), (3, 3), 2),
    lambda T, F: F.fold(T.ones(1, 7, 4), (3, 3), 2),
    lambda T, F: F.fold(T.ones(1, 8, 5), (3, 3), 2),
    lambda T, F: F.fold(T.ones(1, 4, 4), (1, 1), 2),
    lambda T, F: F.fold(T.ones(1, 4, 4), (3, 3), 2, stride=0, dilation=0),
    lambda T, F: F.fold(T.ones(0, 8, 4), (3, 3), 2),
    lambda T, F: F.fold(T.ones(1, 4, 4, dtype=T.int64), (3, 3), 2),
    lambda T, F: F.fold(T.ones(1, 8, 0), (1, 1), 2),
])
def test_argument_and_shape_errors(call):
    torch = pytest.importorskip("torch")
    a = _outcome(lambda: call(mt, mt.nn.functional))
    b = _outcome(lambda: call(torch, torch.nn.functional))
    if a[0] == "ok":
        a = ("ok", tuple(a[1].shape))
        b = ("ok", tuple(b[1].shape)) if b[0] == "ok" else b
    assert a == b


def test_modules_against_torch():
    torch = pytest.importorskip("torch")
    for make in (lambda nn: nn.Unfold(2), lambda nn: nn.Unfold((2, 3), dilation=2, padding=1,
                                                                stride=(1, 2)),
                 lambda nn: nn.Fold((4, 5), 2), lambda nn: nn.Fold(4, (2, 2), stride=2)):
        assert repr(make(mt.nn)) == repr(make(torch.nn))


def test_reference_and_adjoint_without_torch():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5, 6))
    k, d, p, s = (2, 3), (2, 1), (1, 2), (2, 1)
    cols = mt.nn.functional.unfold(mt.tensor(x), k, d, p, s).numpy()
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    ho = (5 + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    wo = (6 + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    want = np.empty((2, 3, k[0], k[1], ho, wo))
    for i in range(k[0]):
        for j in range(k[1]):
            for a in range(ho):
                for b in range(wo):
                    want[:, :, i, j, a, b] = xp[:, :, a * s[0] + i * d[0], b * s[1] + j * d[1]]
    assert np.array_equal(cols, want.reshape(2, -1, ho * wo))
    # fold is unfold's adjoint: <unfold(x), y> == <x, fold(y)>
    y = rng.standard_normal(cols.shape)
    folded = mt.nn.functional.fold(mt.tensor(y), (5, 6), k, d, p, s).numpy()
    assert np.isclose((cols * y).sum(), (x * folded).sum())
