"""``F.linear`` with a bias of any shape that broadcasts to the output: torch runs addmm over the
input's rows (a 2-D input, or a contiguous input with a contiguous bias of one value per output:
the result viewed back, node ``ViewBackward0``), otherwise matmul and then the bias added
(``AddBackward0``); each bias gets its gradient in its own shape, to second order too."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs.torch as T

_FORMS = [((2,), (1, 3)), ((4, 2), (1, 3)), ((4, 2), (4, 3)), ((4, 2), ()), ((5, 4, 2), (1, 3)),
          ((5, 4, 2), (4, 3)), ((4, 2), (3,)), ((5, 4, 2), (3,))]


def _run(lib, xs, bs, create_graph=False):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal(xs), requires_grad=True)
    w = lib.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    b = lib.tensor(rng.standard_normal(bs), requires_grad=True)
    y = lib.nn.functional.linear(x, w, b)
    grads = lib.autograd.grad((y * y).sum(), (x, w, b), create_graph=create_graph)
    if create_graph:
        sum(g.sum() for g in grads).backward()
        grads = grads + (x.grad, w.grad, b.grad)
    return y, grads


@pytest.mark.parametrize("xs,bs", _FORMS)
def test_values_and_gradients(xs, bs):
    y, (gx, gw, gb) = _run(T, xs, bs)
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal(xs), rng.standard_normal((3, 2)), rng.standard_normal(bs)
    ref = x @ w.T + b
    np.testing.assert_allclose(y.detach().numpy(), ref.reshape(y.shape), rtol=1e-12)
    assert tuple(gb.shape) == bs and tuple(gx.shape) == xs


@pytest.mark.parametrize("xs,bs", _FORMS)
def test_matches_torch_to_second_order(xs, bs):
    torch = pytest.importorskip("torch")
    ours, theirs = _run(T, xs, bs, True), _run(torch, xs, bs, True)
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name()
    np.testing.assert_allclose(ours[0].detach().numpy(), theirs[0].detach().numpy(), rtol=1e-12)
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10)
