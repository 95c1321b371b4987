"""F.adaptive_max_pool1d/2d and nn.AdaptiveMaxPool1d/2d against torch 2.13: values and int64
indices over overlapping windows, ties (the first), NaN (the last), -inf windows, half
precision, channels-last layouts, gradients (overlapping windows sum) and torch's errors."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs.torch as mt


def _outcome(f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 (the error is the outcome)
        return f"{type(e).__name__}: {e}"
    if isinstance(r, tuple):
        return tuple(_outcome(lambda v=v: v) for v in r)
    values = r.detach().double().numpy()
    return (str(r.dtype), tuple(r.shape), tuple(r.stride()), [repr(v) for v in values.ravel()])


def _cases(T):
    F = T.nn.functional
    rng = np.random.default_rng(3)
    x = T.tensor(rng.integers(-3, 4, (2, 3, 7, 5)).astype(np.float32))  # many ties
    nan = T.tensor([[[[1., float("nan"), 3, float("nan")], [2, 2, -float("inf"), 0]]]])
    out = []
    for size in [(3, 2), 4, (None, 2), (7, 5), (9, 6), 1, (1, 3), 0]:
        out.append(_outcome(lambda: F.adaptive_max_pool2d(x, size, return_indices=True)))
    out.append(_outcome(lambda: F.adaptive_max_pool2d(x[0], (2, 3), return_indices=True)))
    out.append(_outcome(lambda: F.adaptive_max_pool2d(nan, (1, 2), return_indices=True)))
    out.append(_outcome(lambda: F.adaptive_max_pool2d(T.full((1, 1, 2, 2), -float("inf")), 1,
                                                      return_indices=True)))
    for dt in ("float64", "float16", "bfloat16"):
        out.append(_outcome(lambda: F.adaptive_max_pool2d(x.to(getattr(T, dt)), (3, 2),
                                                          return_indices=True)))
    cl = x.contiguous(memory_format=T.channels_last)
    out.append(_outcome(lambda: F.adaptive_max_pool2d(cl, 3, return_indices=True)))
    out.append(_outcome(lambda: F.adaptive_max_pool1d(x[:, :, 0], 3, return_indices=True)))
    out.append(_outcome(lambda: F.adaptive_max_pool1d(x[0, :, 0], [2])))
    for bad in [lambda: F.adaptive_max_pool2d(T.ones(7, 5), 2),
                lambda: F.adaptive_max_pool2d(T.ones(2, 0, 5), 2),
                lambda: F.adaptive_max_pool2d(T.ones(2, 3, 5).long(), 2),
                lambda: F.adaptive_max_pool2d(T.ones(2, 3, 5).bool(), 2),
                lambda: F.adaptive_max_pool2d(T.ones(2, 3, 5), -1),
                lambda: F.adaptive_max_pool2d(T.ones(2, 3, 5), [2]),
                lambda: F.adaptive_max_pool2d(T.ones(2, 3, 5), (1, 2, 3)),
                lambda: F.adaptive_max_pool2d(T.ones(2, 3, 5), (2.5, 2)),
                lambda: F.adaptive_max_pool1d(T.ones(7), 2),
                lambda: F.adaptive_max_pool1d(T.ones(2, 7), (2, 3)),
                lambda: F.adaptive_max_pool1d(T.ones(2, 7), 2.0)]:
        out.append(_outcome(bad))
    out.append(repr(T.nn.AdaptiveMaxPool2d((3, None))))
    out.append(repr(T.nn.AdaptiveMaxPool1d(3, return_indices=True)))
    out.append(_outcome(lambda: T.nn.AdaptiveMaxPool2d(2, return_indices=True)(x)))
    return out


def _grads(T):
    F = T.nn.functional
    rng = np.random.default_rng(4)
    res = []
    for shape, size in [((2, 3, 7, 5), (3, 2)), ((1, 2, 4, 4), (3, 3)), ((3, 6), (4,))]:
        x = T.tensor(rng.standard_normal(shape), dtype=T.float64, requires_grad=True)
        y = F.adaptive_max_pool2d(x, size) if len(shape) == 4 else F.adaptive_max_pool1d(x, size)
        (y * T.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
        res.append((y.grad_fn.name(), x.grad.numpy().tolist()))
    return res


def test_adaptive_max_pool_as_torch():
    torch = pytest.importorskip("torch")
    assert _cases(mt) == _cases(torch)
    assert _grads(mt) == _grads(torch)


def test_adaptive_max_pool_rules():
    F = mt.nn.functional
    x = mt.tensor([[[[1., 5., 5.], [2., 0., 5.], [9., 9., 1.]]]])
    y, i = F.adaptive_max_pool2d(x, (2, 2), return_indices=True)
    # windows rows [0, 2) / [1, 3), columns [0, 2) / [1, 3): ties keep the first offset
    assert y.tolist() == [[[[5., 5.], [9., 9.]]]] and i.tolist() == [[[[1, 1], [6, 7]]]]
    assert i.dtype is mt.int64
    x.requires_grad_()
    F.adaptive_max_pool2d(x, (2, 2)).sum().backward()
    assert x.grad.tolist() == [[[[0., 2., 0.], [0., 0., 0.], [1., 1., 0.]]]]  # shared maxima sum
    with pytest.raises(NotImplementedError, match='"adaptive_max_pool2d" not implemented for '
                                                  "'Long'"):
        F.adaptive_max_pool2d(mt.ones(1, 2, 2, dtype=mt.int64), 1)
