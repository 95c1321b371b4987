"""Memory formats: ``torch.contiguous_format``/``preserve_format``/``channels_last``/
``channels_last_3d`` in the ``*_like`` functions, ``empty``, ``empty_strided``, ``clone``,
``contiguous``, ``to``, ``is_contiguous`` and ``Module.to``, each laid out as torch 2.13 lays
it out (strides) and refused with its errors."""
from __future__ import annotations

import pickle
import warnings

import pytest

from minitorch_cs import torch


def _outcome(f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 (the error is the outcome)
        return f"{type(e).__name__}: {e}"
    return r.stride() if hasattr(r, "stride") else r


def _layouts(T):
    """Strides (or the error) of every format-taking call on tensors of each kind."""
    sources = {"c4": T.ones(2, 3, 4, 5), "transposed": T.ones(2, 3).t(),
               "strided": T.ones(2, 3, 4)[:, ::2], "c5": T.ones(1, 2, 3, 4, 5),
               "cl4": T.ones(2, 3, 4, 5).contiguous(memory_format=T.channels_last),
               "size1": T.ones(4, 1, 2)}
    fmts = [None, T.preserve_format, T.contiguous_format, T.channels_last, T.channels_last_3d]
    calls = [T.zeros_like, T.empty_like, T.randn_like, lambda t, **k: T.full_like(t, 2, **k),
             T.clone, lambda t, **k: t.contiguous(**k), lambda t, **k: t.to(**k),
             lambda t, **k: t.is_contiguous(**k), lambda t, **k: t.to(T.float64, **k),
             lambda t, **k: t.double(**k), lambda t, **k: t.float(**k), lambda t, **k: t.int(**k)]
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for x in sources.values():
            for fm in fmts:
                kw = {} if fm is None else {"memory_format": fm}
                out.append([_outcome(lambda: f(x, **kw)) for f in calls])
        out.append([_outcome(f) for f in (
            lambda: T.empty(2, 3, memory_format=T.channels_last),
            lambda: T.empty(2, 3, 4, 5, memory_format=T.channels_last),
            lambda: T.empty(1, 2, 3, 4, 5, memory_format=T.channels_last_3d),
            lambda: T.empty(2, 3, memory_format=T.preserve_format),
            lambda: T.zeros_like(T.ones(2), memory_format="channels_last"),
            lambda: T.empty_strided((2, 3), (1, 2)), lambda: T.empty_strided((2, 3), (0, 1)),
            lambda: T.empty_strided((2, 3), (-1, 1)), lambda: T.empty_strided((2, 3), (1,)),
            lambda: T.nn.Conv2d(3, 4, 3).to(memory_format=T.channels_last).weight,
            lambda: repr(T.channels_last))])
    return out


def test_layouts_and_errors_are_torchs():
    real = pytest.importorskip("torch")
    assert _layouts(torch) == _layouts(real)


def test_memory_format_rules():
    x = torch.ones(2, 3, 4, 5)
    cl = x.contiguous(memory_format=torch.channels_last)
    assert cl.stride() == (60, 1, 15, 3) and cl.is_contiguous(memory_format=torch.channels_last)
    assert not cl.is_contiguous() and cl.contiguous().stride() == (60, 20, 5, 1)
    assert torch.zeros_like(cl).stride() == (60, 1, 15, 3)  # preserve_format
    assert torch.zeros_like(torch.ones(2, 3).t()).stride() == (1, 3)
    assert torch.ones(2, 3).t().to(memory_format=torch.contiguous_format).stride() == (1, 3)
    assert torch.empty_strided((2, 3), (1, 2)).stride() == (1, 2)
    assert repr(torch.channels_last_3d) == "torch.channels_last_3d"
    assert pickle.loads(pickle.dumps(torch.channels_last)) is torch.channels_last
    with pytest.raises(RuntimeError, match="^required rank 4 tensor to use channels_last format$"):
        torch.ones(2, 3).contiguous(memory_format=torch.channels_last)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported by the "
                                           "contiguous operator"):
        torch.ones(2, 3).t().contiguous(memory_format=torch.preserve_format)
    with pytest.raises(TypeError, match="argument 'memory_format' must be torch.memory_format, "
                                        "not str"):
        torch.empty_like(x, memory_format="channels_last")
    # a channels-last copy keeps values and gradients
    w = torch.randn(2, 3, 4, 5, requires_grad=True)
    y = w.to(memory_format=torch.channels_last)
    assert torch.equal(y, w) and y.grad_fn is not None
    (y * 2).sum().backward()
    assert torch.equal(w.grad, torch.full_like(w, 2.0))


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_pad_result_layout_follows_torch(mode, dtype):
    """constant, reflect and replicate padding allocate in the input's suggested memory format
    (a channels-last input gives a channels-last result), circular contiguously (found by the
    random programs on a permuted int8 input)."""
    torch = pytest.importorskip("torch")
    import minitorch_cs.torch as mt
    got = []
    for T in (mt, torch):
        x = T.arange(48).reshape(4, 4, 3, 1).expand(4, 4, 3, 3).to(getattr(T, dtype)).clone()
        x = x.permute(0, 3, 1, 2)
        got.append(tuple(T.nn.functional.pad(x, (1, 2, 1, 1), mode=mode).stride()))
    assert got[0] == got[1]


def _unbatched_conv_strides(T):
    """Strides of unbatched (3-D) conv2d results over inputs and weights of each layout."""
    v = T.tensor([-1, -1, 4], dtype=T.float32)
    x = v.repeat(2)[:4].reshape((1, 1, 4)).permute(2, 1, 0)  # (4, 1, 1) with strides (1, 4, 4)
    w = v.repeat(16).reshape((4, 2, 2, 3))
    hwc = T.arange(60, dtype=T.float32).reshape(5, 6, 2).permute(2, 0, 1)
    cl_weight = T.ones((3, 2, 3, 3)).to(memory_format=T.channels_last)
    return [T.nn.functional.conv2d(x, w, padding=1, groups=2).stride(),
            T.nn.functional.conv2d(x.to(T.int64), w.to(T.int64), padding=1, groups=2).stride(),
            T.nn.functional.conv2d(hwc, T.ones((3, 2, 3, 3))).stride(),
            T.nn.functional.conv2d(T.ones((2, 5, 6)), cl_weight).stride(),
            T.nn.functional.conv1d(T.ones((2, 5)), T.ones((3, 2, 2))).stride()]


def test_unbatched_conv2d_layout_is_the_squeezed_batch_of_one():
    """torch runs a 3-D conv2d input as a batch of one (unsqueeze(0), whose new dim's stride is
    size[0] * stride[0]): its format decides, and the result is the squeezed channels-last
    result (found by the random programs on a permuted int64 input)."""
    assert _unbatched_conv_strides(torch) == [(1, 4, 4), (1, 4, 4), (12, 4, 1), (1, 12, 3),
                                              (4, 1)]
    real = pytest.importorskip("torch")
    assert _unbatched_conv_strides(torch) == _unbatched_conv_strides(real)


def _grad_strides(T):
    """Strides of new .grad tensors for leaves of each layout."""
    leaves = {"transposed": T.ones(3, 4).t(), "strided": T.ones(3, 4)[:, ::2],
              "expanded": T.ones(4, 1, 3).expand(4, 2, 3), "size1": T.ones(3, 1, 4).permute(1, 0, 2),
              "channels_last": T.ones(2, 3, 4, 5).contiguous(memory_format=T.channels_last)}
    out = {}
    for name, leaf in leaves.items():
        x = leaf.detach().requires_grad_()
        (x * 2).sum().backward()
        out[name] = x.grad.stride()
    x = T.arange(60, dtype=T.float32).reshape(1, 5, 6, 2).permute(0, 3, 1, 2).detach()
    x.requires_grad_()
    T.nn.functional.conv2d(x, T.ones((3, 2, 3, 3))).sum().backward()
    out["conv input"] = x.grad.stride()
    return out


def test_new_grad_follows_the_leafs_layout():
    """torch's gradient layout contract: a new .grad has a dense leaf's strides (its size-1
    dims' too), any other leaf's gradient is contiguous."""
    assert _grad_strides(torch) == {"transposed": (1, 4), "strided": (2, 1),
                                    "expanded": (6, 3, 1), "size1": (12, 4, 1),
                                    "channels_last": (60, 1, 15, 3),
                                    "conv input": (60, 1, 12, 2)}
    real = pytest.importorskip("torch")
    assert _grad_strides(torch) == _grad_strides(real)
