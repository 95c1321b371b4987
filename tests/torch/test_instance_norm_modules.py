"""nn.InstanceNorm1d/2d/3d (torch 2.13's ``_InstanceNorm``): parameters, buffers, repr, the
forward in training and eval with and without running statistics, unbatched inputs, and the
errors and warning of a mismatched channel count, against torch when it is installed."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_cs.torch as mt

CASES = [("InstanceNorm1d", (2, 3, 7)), ("InstanceNorm1d", (3, 7)),
         ("InstanceNorm2d", (2, 3, 4, 5)), ("InstanceNorm2d", (3, 4, 5)),
         ("InstanceNorm3d", (2, 3, 2, 3, 4)), ("InstanceNorm3d", (3, 2, 3, 4))]
CONFIGS = [{}, {"affine": True}, {"track_running_stats": True}, {"affine": True, "bias": False},
           {"affine": True, "track_running_stats": True, "momentum": None}]


def _run(T, name, shape, kw):
    torch_mod = getattr(T.nn, name)(3, **kw)
    x = T.tensor(np.random.default_rng(len(shape)).standard_normal(shape) * 2 + 1,
                 dtype=T.float32, requires_grad=True)
    out = [repr(torch_mod), sorted(n for n, _ in torch_mod.named_parameters()),
           sorted(n for n, b in torch_mod.named_buffers() if b is not None)]
    for step in range(2):
        y = torch_mod(x)
        (y * T.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
        out.append(y.detach().numpy().copy())
    out.append(x.grad.numpy().copy())
    torch_mod.eval()
    out.append(torch_mod(x).detach().numpy().copy())
    out += [b.numpy().copy() for _, b in sorted(torch_mod.named_buffers())]
    return out


def _same(a, b):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        if isinstance(u, np.ndarray):
            np.testing.assert_allclose(u, v, rtol=2e-5, atol=2e-5)
        else:
            assert u == v


@pytest.mark.parametrize("kw", CONFIGS, ids=lambda k: ",".join(k) or "default")
@pytest.mark.parametrize("name,shape", CASES, ids=lambda c: str(c))
def test_instance_norm_module_as_torch(name, shape, kw):
    torch = pytest.importorskip("torch")
    _same(_run(mt, name, shape, kw), _run(torch, name, shape, kw))


def test_instance_norm_defaults_and_errors():
    m = mt.nn.InstanceNorm2d(3)
    assert repr(m) == ("InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, "
                       "track_running_stats=False)")
    assert m.weight is None and m.running_mean is None and not list(m.parameters())
    x = mt.randn(2, 3, 4, 4)
    y = m(x)
    np.testing.assert_allclose(y.numpy().mean(axis=(2, 3)), 0, atol=1e-6)
    with pytest.raises(ValueError, match=r"^expected 3D or 4D input \(got 2D input\)$"):
        m(mt.randn(3, 4))
    with pytest.raises(ValueError, match=r"expected input's size at dim=1 to match num_features "
                                         r"\(4\), but got: 3\."):
        mt.nn.InstanceNorm2d(4, affine=True)(x)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        mt.nn.InstanceNorm2d(4)(x)  # affine=False: num_features is not used
    assert any("does not match num_features" in str(w.message) for w in seen)
    with pytest.raises(ValueError, match="Expected more than 1 spatial element"):
        mt.nn.InstanceNorm1d(3)(mt.randn(2, 3, 1))


def test_instance_norm_state_dict_with_running_stats_it_does_not_track():
    tracked = mt.nn.InstanceNorm1d(3, track_running_stats=True)
    sd = tracked.state_dict()
    assert sorted(sd) == ["num_batches_tracked", "running_mean", "running_var"]
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "running_mean", '
                                           '"running_var", "num_batches_tracked"'):
        mt.nn.InstanceNorm1d(3).load_state_dict(sd)
    fresh = mt.nn.InstanceNorm1d(3, track_running_stats=True)
    fresh.load_state_dict(sd)
