"""torch.nn.utils: gradient clipping and parameter/vector conversion."""
from __future__ import annotations

import math

import numpy as np
import pytest

from minitorch_cs import torch
from minitorch_cs.torch import nn
from minitorch_cs.torch.nn.utils import (clip_grad_norm_, clip_grad_value_, get_total_norm,
                                         parameters_to_vector, vector_to_parameters)
from tests.helpers import assert_close


def _params_with_grads(*grads):
    ps = []
    for g in grads:
        p = nn.Parameter(torch.zeros(np.shape(g)))
        p.grad = torch.tensor(g, dtype=torch.float32)
        ps.append(p)
    return ps


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, math.inf])
def test_clip_grad_norm_scales_when_above(norm_type):
    grads = [[3.0, -4.0], [[1.0, 2.0], [0.5, -6.0]]]
    ps = _params_with_grads(*grads)
    flat = np.concatenate([np.ravel(g) for g in grads])
    total = np.max(np.abs(flat)) if norm_type == math.inf else \
        np.sum(np.abs(flat) ** norm_type) ** (1 / norm_type)
    out = clip_grad_norm_(ps, max_norm=1.0, norm_type=norm_type)
    assert out.ndim == 0 and out.dtype == torch.float32
    assert_close(out, total, rtol=1e-6, call=f"total norm p={norm_type}")
    coef = 1.0 / (total + 1e-6)
    for p, g in zip(ps, grads):
        assert_close(p.grad, np.asarray(g) * coef, rtol=1e-6, call="clipped grad")


def test_clip_grad_norm_leaves_small_grads_and_skips_missing():
    ps = _params_with_grads([0.3, 0.4])
    no_grad = nn.Parameter(torch.ones(3))
    total = clip_grad_norm_(ps + [no_grad], max_norm=10.0)
    assert_close(total, 0.5, rtol=1e-6)
    assert_close(ps[0].grad, [0.3, 0.4], rtol=1e-6)  # coefficient clamped at 1
    assert no_grad.grad is None
    single = _params_with_grads([6.0, 8.0])[0]
    clip_grad_norm_(single, 5.0)  # a single tensor is accepted
    assert_close(single.grad, [3.0, 4.0], rtol=1e-5)
    assert clip_grad_norm_([], 1.0).item() == 0.0
    with pytest.warns(UserWarning, match="`parameters` is an empty generator, no gradient clipping "
                                         "will occur."):
        clip_grad_norm_((p for p in []), 1.0)


def test_clip_grad_norm_on_a_model_and_nonfinite():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 1))
    (model(torch.randn(8, 4)) ** 2).sum().backward()
    before = np.sqrt(sum(float((p.grad.numpy().astype(np.float64) ** 2).sum())
                         for p in model.parameters()))
    total = clip_grad_norm_(model.parameters(), max_norm=0.1)
    assert_close(total, before, rtol=1e-5)
    after = np.sqrt(sum(float((p.grad.numpy().astype(np.float64) ** 2).sum())
                        for p in model.parameters()))
    assert after == pytest.approx(0.1, rel=1e-4)
    bad = _params_with_grads([1.0, math.inf])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from "
                                           "`parameters` is non-finite, so it cannot be clipped."):
        clip_grad_norm_(bad, 1.0, error_if_nonfinite=True)
    assert math.isinf(get_total_norm([bad[0].grad]).item())


def test_clip_grad_value():
    ps = _params_with_grads([-3.0, 0.5, 2.0])
    assert clip_grad_value_(ps, 1.0) is None
    assert ps[0].grad.tolist() == [-1.0, 0.5, 1.0]


def test_parameters_to_vector_round_trip():
    lin = nn.Linear(3, 2)
    vec = parameters_to_vector(lin.parameters())
    assert vec.shape == (8,)
    assert_close(vec, np.concatenate([lin.weight.detach().numpy().ravel(),
                                      lin.bias.detach().numpy()]))
    new = torch.arange(8.0)
    vector_to_parameters(new, lin.parameters())
    assert lin.weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert lin.bias.tolist() == [6.0, 7.0]
    assert isinstance(lin.weight, nn.Parameter) and lin.weight.requires_grad
    # differentiable: the vector's gradient flows to every parameter
    parameters_to_vector(lin.parameters()).pow(2).sum().backward()
    assert_close(lin.bias.grad, [12.0, 14.0])
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        vector_to_parameters([1.0], lin.parameters())
