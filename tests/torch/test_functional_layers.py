"""The activations and the other ``nn.functional`` layers' functions over their arguments,
swept against torch: every activation on float, int, bool, half and 0-d inputs, their
parameters at and past their edges, dropout's, the normalizations' shape checks, ``linear``,
``bilinear``, the distances; and ``rrelu``/``pdist``, checked in values and gradients."""
from __future__ import annotations

import numpy as np
import pytest

from minitorch_cs import torch
from tests.torch._sweeps import Outcomes, assert_same_as_torch, describe


def _outcomes(T):  # noqa: C901 (one table of calls)
    F = T.nn.functional
    res = Outcomes(show=lambda r: describe(r, limit=6))
    run = res.run
    x = T.tensor([[-1.5, -0.2, 0.0, 0.3, 2.0]])
    acts = {"relu": F.relu, "relu6": F.relu6, "elu": F.elu, "selu": F.selu, "celu": F.celu, "gelu": F.gelu, "silu": F.silu, "mish": F.mish, "softplus": F.softplus, "softsign": F.softsign, "tanhshrink": F.tanhshrink, "hardtanh": F.hardtanh, "hardsigmoid": F.hardsigmoid, "hardswish": F.hardswish, "logsigmoid": F.logsigmoid, "sigmoid": F.sigmoid, "tanh": F.tanh, "leaky_relu": F.leaky_relu, "hardshrink": F.hardshrink, "softshrink": F.softshrink, "threshold": lambda t: F.threshold(t, 0.1, 20), "glu": lambda t: F.glu(T.cat([t, t], 1)), "rrelu eval": lambda t: F.rrelu(t, training=False)}
    for n, f in acts.items():
        run(n, lambda: f(x))
        run(n + " int", lambda: f(T.tensor([[-1, 0, 2]])))
        run(n + " bool", lambda: f(T.tensor([[True, False]])))
        run(n + " half", lambda: f(x.half()))
        run(n + " 0d", lambda: f(T.tensor(0.5)))
    run("gelu tanh", lambda: F.gelu(x, approximate="tanh"))
    run("gelu bogus", lambda: F.gelu(x, approximate="bogus"))
    run("elu alpha neg", lambda: F.elu(x, alpha=-1.0))
    run("celu alpha 0", lambda: F.celu(x, alpha=0.0))
    run("softplus beta 0", lambda: F.softplus(x, beta=0))
    run("softplus threshold", lambda: F.softplus(x, beta=2, threshold=1))
    run("hardtanh min>max", lambda: F.hardtanh(x, 2.0, -1.0))
    run("leaky_relu slope tensor", lambda: F.leaky_relu(x, T.tensor(0.1)))
    run("softshrink neg lambd", lambda: F.softshrink(x, -0.5))
    run("hardshrink neg", lambda: F.hardshrink(x, -0.5))
    run("threshold int", lambda: F.threshold(T.tensor([1, 5]), 2, 0))
    run("relu inplace leaf", lambda: F.relu(T.ones(2, requires_grad=True), inplace=True))
    run("relu_ int", lambda: T.tensor([-1, 2]).relu_())
    run("softmax int", lambda: F.softmax(T.tensor([1, 2]), 0))
    run("log_softmax dim None 3d", lambda: F.log_softmax(T.ones(2, 2, 2)))
    run("softmin", lambda: F.softmin(x, 1))
    run("glu odd", lambda: F.glu(x))
    run("glu dim", lambda: F.glu(T.ones(2, 4), dim=0))
    run("dropout p=1", lambda: F.dropout(x, 1.0))
    run("dropout p=-0.1", lambda: F.dropout(x, -0.1))
    run("dropout eval", lambda: F.dropout(x, 0.5, training=False))
    run("dropout int", lambda: F.dropout(T.tensor([1, 2]), 0.5))
    run("dropout2d 2d", lambda: F.dropout2d(T.ones(3, 4), 0.0))
    run("alpha_dropout eval", lambda: F.alpha_dropout(x, 0.5, training=False))
    run("normalize", lambda: F.normalize(x))
    run("normalize p=1 dim0", lambda: F.normalize(x, p=1, dim=0))
    run("normalize int", lambda: F.normalize(T.tensor([[3, 4]])))
    run("layer_norm shape", lambda: F.layer_norm(x, (5,)))
    run("layer_norm bad", lambda: F.layer_norm(x, (4,)))
    run("layer_norm weight wrong", lambda: F.layer_norm(x, (5,), weight=T.ones(4)))
    run("group_norm bad groups", lambda: F.group_norm(T.ones(2, 6, 3), 4))
    run("group_norm", lambda: F.group_norm(T.arange(36.).reshape(2, 6, 3), 3))
    run("batch_norm no running train", lambda: F.batch_norm(T.arange(6.).reshape(3, 2), None, None, training=True))
    run("batch_norm no running eval", lambda: F.batch_norm(T.arange(6.).reshape(3, 2), None, None, training=False))
    run("batch_norm 1 sample", lambda: F.batch_norm(T.ones(1, 2), None, None, training=True))
    run("instance_norm", lambda: F.instance_norm(T.arange(12.).reshape(1, 2, 6)))
    run("linear 1d weight", lambda: F.linear(x, T.ones(5)))
    run("linear bad", lambda: F.linear(x, T.ones(3, 4)))
    run("linear int", lambda: F.linear(T.tensor([[1, 2]]), T.tensor([[1, 1]])))
    run("bilinear", lambda: F.bilinear(T.ones(2, 3), T.ones(2, 4), T.ones(5, 3, 4)))
    run("cosine_similarity", lambda: F.cosine_similarity(T.ones(2, 3), T.zeros(2, 3)))
    run("pairwise_distance", lambda: F.pairwise_distance(T.ones(2, 3), T.zeros(2, 3)))
    run("pdist", lambda: F.pdist(T.arange(6.).reshape(3, 2)))
    return res


def test_functional_layers_match_torch():
    assert_same_as_torch(_outcomes, torch, known=("celu alpha 0", "batch_norm no running train"))


def _pdist_run(T, a, p):
    x = T.tensor(a, requires_grad=True)
    y = T.nn.functional.pdist(x, p)
    (y * T.arange(y.numel(), dtype=T.float64)).sum().backward()
    return y.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("shape", [(3, 2), (1, 3), (4, 1), (2, 0), (5, 3)])
@pytest.mark.parametrize("p", [2, 1, 0, 3.5, float("inf")])
def test_pdist_matches_torch(shape, p):
    real = pytest.importorskip("torch")
    a = np.random.default_rng(sum(shape)).standard_normal(shape)
    if shape[0] >= 3:
        a[2] = a[0]  # (a zero distance: a zero gradient)
    for w, g in zip(_pdist_run(real, a, p), _pdist_run(torch, a, p)):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_rrelu():
    x = torch.tensor([-1.5, -0.2, 0.0, 0.3], requires_grad=True)
    y = torch.nn.functional.rrelu(x)  # (eval: the slopes' mean)
    assert y.tolist() == pytest.approx([-1.5 * 11 / 48, -0.2 * 11 / 48, 0.0, 0.3], rel=1e-6)
    assert y.grad_fn.name() == "RreluWithNoiseBackward0"
    torch.manual_seed(0)
    y = torch.nn.functional.rrelu(x, training=True)
    y.sum().backward()
    slopes = x.grad.tolist()
    assert all(1 / 8 <= s <= 1 / 3 for s in slopes[:3]) and slopes[3] == 1.0
    assert y.tolist()[:2] == pytest.approx([-1.5 * slopes[0], -0.2 * slopes[1]], rel=1e-6)
    m = torch.nn.RReLU(0.1, 0.3)
    assert repr(m) == "RReLU(lower=0.1, upper=0.3)" and m.eval()(torch.tensor([-1.0])).item() == \
        pytest.approx(-0.2)
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal"):
        torch.nn.functional.rrelu(x, 0.5, 0.2)
