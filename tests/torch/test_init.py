"""nn.init and the layers' default initialisations: bounds, moments, determinism, dispatch.

Tolerances come from the sample size. For n i.i.d. samples of a distribution with variance σ²
and fourth central moment μ4, the sample mean has standard error sqrt(σ²/n) and the (biased)
sample variance has standard error sqrt((μ4 - σ⁴)/n). Every moment check allows K = 5 standard
errors: a correct sampler fails one such check with probability ~6e-7, while a wrong scale (e.g. a
fan_in/fan_out swap or a missing √3) is off by tens or hundreds of standard errors at these sizes.
Uniform(a, b): σ² = (b-a)²/12, μ4 = (b-a)⁴/80. Normal: μ4 = 3σ⁴.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from minitorch_cs import torch
from minitorch_cs.torch import _dispatch, nn
from minitorch_cs.torch.nn import init

K = 5.0  # standard errors allowed per moment check (see the module docstring)


def _check_moments(x, mean, var, mu4, what):
    __tracebackhide__ = True
    x = np.asarray(x, dtype=np.float64).ravel()
    n = x.size
    se_mean = math.sqrt(var / n)
    se_var = math.sqrt((mu4 - var * var) / n)
    m, v = x.mean(), x.var()
    assert abs(m - mean) < K * se_mean, (
        f"got mean {m:.6g}, but should be {mean:.6g} ± {K * se_mean:.3g} [{what}, n={n}]")
    assert abs(v - var) < K * se_var, (
        f"got variance {v:.6g}, but should be {var:.6g} ± {K * se_var:.3g} [{what}, n={n}]")


def _check_uniform(x, a, b, what):
    __tracebackhide__ = True
    x = np.asarray(x, dtype=np.float64).ravel()
    assert x.min() >= a and x.max() <= b, f"got range [{x.min()}, {x.max()}], but should be " \
                                          f"inside [{a}, {b}] [{what}]"
    # P(no sample within δ of an end) = (1 - δ/(b-a))^n ≈ e^-20 for δ = 20 (b-a) / n
    delta = 20 * (b - a) / x.size
    assert x.min() < a + delta and x.max() > b - delta, f"range does not reach the bounds [{what}]"
    w = b - a
    _check_moments(x, (a + b) / 2, w * w / 12, w ** 4 / 80, what)


def _check_normal(x, mean, std, what):
    __tracebackhide__ = True
    _check_moments(x, mean, std * std, 3 * std ** 4, what)


SHAPE = (200, 500)  # n = 100,000 samples per check
FAN_IN, FAN_OUT = 500, 200


def test_uniform_and_normal():
    _check_uniform(init.uniform_(torch.empty(SHAPE), -0.3, 0.7).numpy(), -0.3, 0.7, "uniform_")
    _check_normal(init.normal_(torch.empty(SHAPE), 1.5, 0.2).numpy(), 1.5, 0.2, "normal_")
    _check_uniform(init.uniform_(torch.empty(SHAPE, dtype=torch.float64)).numpy(), 0, 1, "U(0,1)")


def test_constant_ones_zeros_eye_dirac():
    assert np.all(init.constant_(torch.empty(3, 4), 0.25).numpy() == 0.25)
    assert np.all(init.ones_(torch.empty(5)).numpy() == 1)
    assert np.all(init.zeros_(torch.ones(2, 2)).numpy() == 0)
    assert np.array_equal(init.eye_(torch.empty(3, 5)).numpy(), np.eye(3, 5))
    w = init.dirac_(torch.empty(4, 2, 3, 3), groups=2)
    ref = np.zeros((4, 2, 3, 3))
    for g in range(2):
        for d in range(2):
            ref[g * 2 + d, d, 1, 1] = 1
    assert np.array_equal(w.numpy(), ref)
    # a dirac-initialised conv is the identity
    conv = nn.Conv2d(3, 3, 3, padding=1, bias=False)
    init.dirac_(conv.weight)
    x = torch.randn(1, 3, 5, 5)
    assert np.allclose(conv(x).detach().numpy(), x.numpy(), atol=1e-6)


@pytest.mark.parametrize("gain", [1.0, 2.0])
def test_xavier(gain):
    a = gain * math.sqrt(6.0 / (FAN_IN + FAN_OUT))
    _check_uniform(init.xavier_uniform_(torch.empty(SHAPE), gain=gain).numpy(), -a, a, "xavier_u")
    std = gain * math.sqrt(2.0 / (FAN_IN + FAN_OUT))
    _check_normal(init.xavier_normal_(torch.empty(SHAPE), gain=gain).numpy(), 0.0, std, "xavier_n")


@pytest.mark.parametrize("a, mode, nonlinearity", [
    (0, "fan_in", "relu"), (0, "fan_out", "relu"), (math.sqrt(5), "fan_in", "leaky_relu"),
    (0.2, "fan_out", "leaky_relu"), (0, "fan_in", "tanh"), (0, "fan_in", "linear")])
def test_kaiming(a, mode, nonlinearity):
    fan = FAN_IN if mode == "fan_in" else FAN_OUT
    gain = init.calculate_gain(nonlinearity, a)
    bound = math.sqrt(3.0) * gain / math.sqrt(fan)
    w = init.kaiming_uniform_(torch.empty(SHAPE), a=a, mode=mode, nonlinearity=nonlinearity)
    _check_uniform(w.numpy(), -bound, bound, f"kaiming_uniform_({a}, {mode}, {nonlinearity})")
    w = init.kaiming_normal_(torch.empty(SHAPE), a=a, mode=mode, nonlinearity=nonlinearity)
    _check_normal(w.numpy(), 0.0, gain / math.sqrt(fan), f"kaiming_normal_({a}, {mode})")


def test_kaiming_conv_fan_uses_receptive_field():
    w = torch.empty(64, 32, 3, 3)
    assert init._calculate_fan_in_and_fan_out(w) == (32 * 9, 64 * 9)
    assert init._calculate_correct_fan(w, "FAN_OUT") == 64 * 9
    bound = math.sqrt(3.0) * math.sqrt(2.0) / math.sqrt(32 * 9)
    _check_uniform(init.kaiming_uniform_(w, nonlinearity="relu").numpy(), -bound, bound, "conv")


@pytest.mark.parametrize("mean, std, a, b", [(0.0, 1.0, -2.0, 2.0), (0.5, 0.2, 0.0, 1.0),
                                             (0.0, 1.0, 0.5, 3.0)])
def test_trunc_normal_moments_and_bounds(mean, std, a, b):
    x = init.trunc_normal_(torch.empty(SHAPE, dtype=torch.float64), mean, std, a, b).numpy()
    assert x.min() >= a and x.max() <= b
    dist = stats.truncnorm((a - mean) / std, (b - mean) / std, loc=mean, scale=std)
    var = dist.var()
    mu4 = dist.expect(lambda t: (t - dist.mean()) ** 4)
    _check_moments(x, dist.mean(), var, mu4, f"trunc_normal_({mean}, {std}, {a}, {b})")
    # the shape of the distribution, not just two moments: Kolmogorov-Smirnov at p > 1e-6
    assert stats.kstest(x.ravel()[:20000], dist.cdf).pvalue > 1e-6


def test_trunc_normal_float32_and_warning():
    x = init.trunc_normal_(torch.empty(10000), std=0.02, a=-0.04, b=0.04).numpy()
    assert x.dtype == np.float32 and np.all(np.abs(x) <= 0.04) and np.all(np.isfinite(x))
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        init.trunc_normal_(torch.empty(3), mean=10.0)


@pytest.mark.parametrize("shape", [(30, 30), (20, 50), (50, 20), (8, 3, 2, 2)])
def test_orthogonal(shape):
    w = init.orthogonal_(torch.empty(shape, dtype=torch.float64), gain=2.0).numpy()
    flat = w.reshape(shape[0], -1) / 2.0
    rows, cols = flat.shape
    gram = flat @ flat.T if rows <= cols else flat.T @ flat
    assert np.allclose(gram, np.eye(min(rows, cols)), atol=1e-10)


def test_sparse():
    w = init.sparse_(torch.empty(10, 400), sparsity=0.3, std=0.05).numpy()
    assert np.all((w == 0).sum(axis=0) == 3)  # ceil(0.3 * 10) zeros in every column
    _check_normal(w[w != 0], 0.0, 0.05, "sparse_ non-zeros")


def test_calculate_gain_table_and_errors():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01 ** 2))
    assert init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2.0 / 1.04)
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="Unsupported nonlinearity gelu"):
        init.calculate_gain("gelu")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed for tensor with "
                                         "fewer than 2 dimensions"):
        init.xavier_uniform_(torch.empty(3))
    with pytest.raises(ValueError, match=r"Mode fan_avg not supported, please use one of "
                                         r"\['fan_in', 'fan_out'\]"):
        init.kaiming_uniform_(torch.empty(2, 2), mode="fan_avg")
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(torch.empty(2, 2, 2))
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
        init.dirac_(torch.empty(2, 2))
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(torch.empty(0, 3))
    with pytest.warns(FutureWarning, match="`nn.init.normal` is now deprecated"):
        init.normal(torch.empty(2))


def test_generator_and_seed_determinism():
    g1 = torch.Generator().manual_seed(5)
    g2 = torch.Generator().manual_seed(5)
    for fn in (init.uniform_, init.normal_, init.trunc_normal_, init.xavier_uniform_,
               init.kaiming_normal_, init.orthogonal_):
        a = fn(torch.empty(4, 6), generator=g1).numpy()
        b = fn(torch.empty(4, 6), generator=g2).numpy()
        assert np.array_equal(a, b), fn.__name__
    state = torch.get_rng_state()
    init.uniform_(torch.empty(3), generator=torch.Generator().manual_seed(1))
    assert np.array_equal(torch.get_rng_state().numpy(), state.numpy())  # global stream untouched
    torch.manual_seed(123)
    a = nn.Linear(4, 3)
    torch.manual_seed(123)
    b = nn.Linear(4, 3)
    assert np.array_equal(a.weight.detach().numpy(), b.weight.detach().numpy())
    assert np.array_equal(a.bias.detach().numpy(), b.bias.detach().numpy())


def test_init_runs_under_no_grad_on_parameters():
    p = nn.Parameter(torch.empty(3, 4))
    for fn in (init.uniform_, init.normal_, init.trunc_normal_, init.xavier_normal_,
               init.kaiming_uniform_, init.orthogonal_, init.ones_, init.zeros_, init.eye_):
        out = fn(p)
        assert out is p and p.grad_fn is None and p.requires_grad and p.is_leaf


class _Recorder(_dispatch.Mode):
    """A dispatch mode that records (op name, is in-place on a target) and runs the op."""

    def __init__(self):
        self.ops = []

    def dispatch(self, op, args, attrs, target):
        self.ops.append((op.name, target is not None))
        return _dispatch.redispatch(self, op, args, attrs, target)


@pytest.mark.parametrize("fn, expected", [
    (lambda t: init.uniform_(t, -1, 1), [("random_fill", True)]),
    (lambda t: init.kaiming_uniform_(t, a=math.sqrt(5)), [("random_fill", True)]),
    (init.zeros_, [("fill_", True)]),
    (lambda t: init.trunc_normal_(t, std=0.02),
     [("random_fill", True), ("erfinv", True), ("mul", True), ("add", True), ("clamp", True)]),
])
def test_init_goes_through_the_dispatch_point(fn, expected):
    t = nn.Parameter(torch.empty(3, 4))
    with _Recorder() as rec:
        fn(t)
    assert rec.ops == expected


def test_layer_construction_is_fully_recorded():
    # everything a Linear does to its parameters at construction passes through the dispatch point
    with _Recorder() as rec:
        nn.Linear(4, 3)
    assert rec.ops == [("full", False), ("full", False), ("random_fill", True),
                       ("random_fill", True)]


# ----- layer defaults (torch's distributions) -----------------------------------------------------
def test_linear_and_conv_defaults():
    fan_in = 400
    lin = nn.Linear(fan_in, 250)
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform(a=√5) reduces to U(±1/√fan_in)
    _check_uniform(lin.weight.detach().numpy(), -bound, bound, "Linear.weight")
    assert np.all(np.abs(lin.bias.detach().numpy()) <= bound)
    big_bias = nn.Linear(fan_in, 100000)
    _check_uniform(big_bias.bias.detach().numpy(), -bound, bound, "Linear.bias")
    conv = nn.Conv2d(16, 1000, 5)  # fan_in = 16 * 25
    _check_uniform(conv.weight.detach().numpy(), -bound, bound, "Conv2d.weight")
    conv1 = nn.Conv1d(8, 2000, 3, groups=2)  # fan_in = 8/2 * 3
    b1 = 1 / math.sqrt(12)
    _check_uniform(conv1.weight.detach().numpy(), -b1, b1, "Conv1d.weight")
    bil = nn.Bilinear(50, 40, 30)
    b2 = 1 / math.sqrt(50)
    _check_uniform(bil.weight.detach().numpy(), -b2, b2, "Bilinear.weight")


def test_embedding_and_norm_defaults():
    emb = nn.Embedding(1000, 100, padding_idx=3)
    w = emb.weight.detach().numpy()
    assert np.all(w[3] == 0)
    _check_normal(np.delete(w, 3, axis=0), 0.0, 1.0, "Embedding.weight")
    for layer in (nn.LayerNorm(7), nn.BatchNorm1d(7), nn.BatchNorm2d(7), nn.GroupNorm(7, 7)):
        assert np.all(layer.weight.detach().numpy() == 1) and np.all(layer.bias.detach().numpy() == 0)
    bn = nn.BatchNorm2d(3)
    assert bn.running_mean.tolist() == [0.0] * 3 and bn.running_var.tolist() == [1.0] * 3
    assert bn.num_batches_tracked.dtype == torch.int64 and bn.num_batches_tracked.item() == 0
    bn.running_mean.fill_(5)
    bn.num_batches_tracked.fill_(9)
    bn.reset_parameters()
    assert bn.running_mean.tolist() == [0.0] * 3 and bn.num_batches_tracked.item() == 0


def test_factory_kwargs():
    lin = nn.Linear(2, 3, dtype=torch.float64)
    assert lin.weight.dtype == torch.float64 and lin.bias.dtype == torch.float64
    bn = nn.BatchNorm1d(2, dtype=torch.float64)
    assert bn.running_mean.dtype == torch.float64 and bn.num_batches_tracked.dtype == torch.int64
