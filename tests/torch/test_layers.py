"""Every layer: forward values against numpy formulas, gradient checks (input and parameters,
float64 central differences with a random cotangent), and torch's errors on bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from minitorch_cs import torch
from minitorch_cs.torch import nn
from tests.helpers import assert_close, gradcheck

RNG = np.random.default_rng(1234)


def _randn(*shape):
    return RNG.standard_normal(shape)


# ----- gradient checks ----------------------------------------------------------------------------
def layer_gradcheck(layer, *inputs, name, seed_rng=False):
    """gradcheck ``layer`` w.r.t. its float inputs and every parameter (as float64).

    Parameters are swapped for the gradcheck leaves in ``_parameters`` so the layer's own forward
    runs unchanged. ``seed_rng`` reseeds the global generator before every call (dropout masks).
    """
    __tracebackhide__ = True
    layer = layer.double()
    named = list(layer.named_parameters())
    owners = []
    for pname, _ in named:
        mod_path, _, leaf = pname.rpartition(".")
        owners.append((layer.get_submodule(mod_path), leaf))
    params = [p.detach().numpy().copy() for _, p in named]
    n_in = len(inputs)

    def fn(*args):
        for (mod, leaf), p in zip(owners, args[n_in:]):
            mod._parameters[leaf] = p
        if seed_rng:
            torch.manual_seed(7)
        return layer(*args[:n_in])

    gradcheck(fn, *inputs, *params, name=name)


# (name, layer factory, input shapes); inputs are standard normal float64
GRAD_CASES = [
    ("Identity", lambda: nn.Identity(), [(2, 3)]),
    ("Linear", lambda: nn.Linear(3, 4), [(2, 5, 3)]),
    ("Linear-nobias-1d", lambda: nn.Linear(3, 2, bias=False), [(3,)]),
    ("Bilinear", lambda: nn.Bilinear(2, 3, 4), [(5, 2), (5, 3)]),
    ("Conv1d", lambda: nn.Conv1d(2, 4, 3, stride=2, padding=1), [(2, 2, 7)]),
    ("Conv1d-same-reflect", lambda: nn.Conv1d(2, 2, 3, padding="same", padding_mode="reflect",
                                              groups=2), [(1, 2, 6)]),
    ("Conv2d", lambda: nn.Conv2d(2, 3, 3, stride=2, padding=1), [(2, 2, 5, 5)]),
    ("Conv2d-same-circular-dil", lambda: nn.Conv2d(2, 4, (3, 2), padding="same", dilation=2,
                                                   groups=2, padding_mode="circular"),
     [(1, 2, 6, 5)]),
    ("Conv2d-replicate-unbatched", lambda: nn.Conv2d(2, 2, 2, padding=1,
                                                     padding_mode="replicate"), [(2, 4, 4)]),
    ("Conv2d-valid-nobias", lambda: nn.Conv2d(3, 2, 2, padding="valid", bias=False),
     [(1, 3, 4, 3)]),
    ("MaxPool1d", lambda: nn.MaxPool1d(2), [(2, 3, 8)]),
    ("MaxPool2d", lambda: nn.MaxPool2d(3, stride=2, padding=1), [(2, 2, 7, 7)]),
    ("MaxPool2d-ceil", lambda: nn.MaxPool2d(2, ceil_mode=True), [(1, 2, 5, 5)]),
    ("AvgPool1d", lambda: nn.AvgPool1d(3, stride=2, padding=1), [(2, 2, 7)]),
    ("AvgPool2d", lambda: nn.AvgPool2d(2, padding=1, count_include_pad=False), [(1, 2, 5, 4)]),
    ("AdaptiveAvgPool1d", lambda: nn.AdaptiveAvgPool1d(3), [(2, 2, 7)]),
    ("AdaptiveAvgPool2d", lambda: nn.AdaptiveAvgPool2d((2, None)), [(1, 2, 5, 3)]),
    ("ReLU", lambda: nn.ReLU(), [(3, 4)]),
    ("ReLU6", lambda: nn.ReLU6(), [(3, 4)]),
    ("LeakyReLU", lambda: nn.LeakyReLU(0.2), [(3, 4)]),
    ("GELU", lambda: nn.GELU(), [(3, 4)]),
    ("GELU-tanh", lambda: nn.GELU("tanh"), [(3, 4)]),
    ("SiLU", lambda: nn.SiLU(), [(3, 4)]),
    ("Mish", lambda: nn.Mish(), [(3, 4)]),
    ("ELU", lambda: nn.ELU(0.5), [(3, 4)]),
    ("SELU", lambda: nn.SELU(), [(3, 4)]),
    ("CELU", lambda: nn.CELU(1.5), [(3, 4)]),
    ("Softplus", lambda: nn.Softplus(beta=2.0, threshold=1.0), [(3, 4)]),
    ("Hardtanh", lambda: nn.Hardtanh(-0.5, 0.5), [(3, 4)]),
    ("Hardsigmoid", lambda: nn.Hardsigmoid(), [(3, 4)]),
    ("Hardswish", lambda: nn.Hardswish(), [(3, 4)]),
    ("Sigmoid", lambda: nn.Sigmoid(), [(3, 4)]),
    ("Tanh", lambda: nn.Tanh(), [(3, 4)]),
    ("LogSigmoid", lambda: nn.LogSigmoid(), [(3, 4)]),
    ("Softsign", lambda: nn.Softsign(), [(3, 4)]),
    ("Tanhshrink", lambda: nn.Tanhshrink(), [(3, 4)]),
    ("Threshold", lambda: nn.Threshold(0.1, -2.0), [(3, 4)]),
    ("GLU", lambda: nn.GLU(1), [(3, 4)]),
    ("Softmax", lambda: nn.Softmax(dim=1), [(3, 4)]),
    ("Softmin", lambda: nn.Softmin(dim=0), [(3, 4)]),
    ("LogSoftmax", lambda: nn.LogSoftmax(dim=-1), [(2, 3, 4)]),
    ("Dropout", lambda: nn.Dropout(0.3), [(4, 5)]),
    ("Dropout1d", lambda: nn.Dropout1d(0.5), [(2, 4, 3)]),
    ("Dropout2d", lambda: nn.Dropout2d(0.5), [(2, 4, 2, 2)]),
    ("LayerNorm", lambda: nn.LayerNorm(4), [(3, 4)]),
    ("LayerNorm-2d-noaffine", lambda: nn.LayerNorm((3, 4), elementwise_affine=False),
     [(2, 3, 4)]),
    ("LayerNorm-nobias", lambda: nn.LayerNorm(4, bias=False), [(2, 4)]),
    ("GroupNorm", lambda: nn.GroupNorm(2, 4), [(2, 4, 3)]),
    ("BatchNorm1d-2d", lambda: nn.BatchNorm1d(3), [(4, 3)]),
    ("BatchNorm1d-3d", lambda: nn.BatchNorm1d(3), [(4, 3, 2)]),
    ("BatchNorm2d", lambda: nn.BatchNorm2d(2), [(3, 2, 2, 2)]),
    ("BatchNorm2d-eval", lambda: nn.BatchNorm2d(2).eval(), [(3, 2, 2, 2)]),
    ("BatchNorm1d-noaffine-nostats", lambda: nn.BatchNorm1d(3, affine=False,
                                                           track_running_stats=False), [(4, 3)]),
    ("Flatten", lambda: nn.Flatten(), [(2, 3, 4)]),
    ("Unflatten", lambda: nn.Unflatten(1, (2, 3)), [(2, 6)]),
    ("ZeroPad2d", lambda: nn.ZeroPad2d((1, 0, 2, 1)), [(1, 2, 3, 3)]),
    ("ConstantPad1d", lambda: nn.ConstantPad1d(2, 1.5), [(2, 3)]),
    ("ReflectionPad2d", lambda: nn.ReflectionPad2d(1), [(1, 1, 3, 3)]),
    ("ReplicationPad1d", lambda: nn.ReplicationPad1d((2, 1)), [(1, 2, 3)]),
    ("CircularPad2d", lambda: nn.CircularPad2d(1), [(1, 1, 3, 3)]),
    ("CosineSimilarity", lambda: nn.CosineSimilarity(dim=1), [(3, 4), (3, 4)]),
    ("PairwiseDistance", lambda: nn.PairwiseDistance(), [(3, 4), (3, 4)]),
    ("Sequential-MLP", lambda: nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 2)),
     [(3, 4)]),
]


@pytest.mark.parametrize("name, make, shapes", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_layer_gradients(name, make, shapes):
    torch.manual_seed(0)
    layer = make()
    inputs = [_randn(*s) for s in shapes]
    layer_gradcheck(layer, *inputs, name=name, seed_rng=name.startswith("Dropout"))


def test_embedding_gradient_and_padding_row():
    # padding_idx deliberately blocks the padding row's (true) gradient, so the numeric check
    # runs without it; the blocking is checked below
    emb = nn.Embedding(6, 3).double()
    idx = torch.tensor([[0, 2, 5], [2, 2, 1]])

    def fn(w):
        emb._parameters["weight"] = w
        return emb(idx)

    gradcheck(fn, emb.weight.detach().numpy().copy(), name="Embedding")
    emb2 = nn.Embedding(6, 3, padding_idx=2)
    emb2(idx).sum().backward()
    assert np.all(emb2.weight.grad.numpy()[2] == 0)  # the padding row gets no gradient
    assert np.allclose(emb2.weight.grad.numpy()[0], 1.0)


# ----- forward values against numpy formulas ------------------------------------------------------
def _np(t):
    return t.detach().numpy()


def test_linear_and_bilinear_values():
    lin = nn.Linear(3, 2)
    x = torch.randn(4, 3)
    assert_close(lin(x), _np(x) @ _np(lin.weight).T + _np(lin.bias), rtol=1e-6, call="Linear")
    bil = nn.Bilinear(2, 3, 4)
    a, b = torch.randn(5, 2), torch.randn(5, 3)
    ref = np.einsum("bi,oij,bj->bo", _np(a), _np(bil.weight), _np(b)) + _np(bil.bias)
    assert_close(bil(a, b), ref, rtol=1e-5, atol=1e-6, call="Bilinear")


def _conv2d_ref(x, w, b, stride, pad):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    ho, wo = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, o, ho, wo))
    for i in range(ho):
        for j in range(wo):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out + b[None, :, None, None]


def test_conv_values():
    conv = nn.Conv2d(3, 4, 3, stride=2, padding=1).double()
    x = torch.randn(2, 3, 6, 5, dtype=torch.float64)
    ref = _conv2d_ref(_np(x), _np(conv.weight), _np(conv.bias), 2, 1)
    assert_close(conv(x), ref, rtol=1e-10, call="Conv2d")
    conv1 = nn.Conv1d(2, 3, 3, padding="same").double()
    x1 = torch.randn(1, 2, 5, dtype=torch.float64)
    ref1 = _conv2d_ref(_np(x1)[:, :, None, :], _np(conv1.weight)[:, :, None, :], _np(conv1.bias),
                       1, 0)
    # padding="same" with k=3 pads one on each side of the length dim only
    xp = np.pad(_np(x1), ((0, 0), (0, 0), (1, 1)))
    ref1 = _conv2d_ref(xp[:, :, None, :], _np(conv1.weight)[:, :, None, :], _np(conv1.bias), 1, 0)
    assert_close(conv1(x1), ref1[:, :, 0, :], rtol=1e-10, call="Conv1d same")
    refl = nn.Conv2d(1, 1, 3, padding=1, padding_mode="reflect", bias=False).double()
    xr = torch.randn(1, 1, 4, 4, dtype=torch.float64)
    xpr = np.pad(_np(xr), ((0, 0), (0, 0), (1, 1), (1, 1)), mode="reflect")
    assert_close(refl(xr), _conv2d_ref(xpr, _np(refl.weight), np.zeros(1), 1, 0), rtol=1e-10,
                 call="Conv2d reflect")


def test_pooling_values():
    x = torch.arange(16.0).reshape(1, 1, 4, 4)
    assert nn.MaxPool2d(2)(x).tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]]
    assert nn.AvgPool2d(2)(x).tolist() == [[[[2.5, 4.5], [10.5, 12.5]]]]
    assert nn.AdaptiveAvgPool2d(1)(x).tolist() == [[[[7.5]]]]
    y, idx = nn.MaxPool2d(2, return_indices=True)(x)
    assert idx.tolist() == [[[[5, 7], [13, 15]]]]
    x1 = torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0]]])
    assert nn.MaxPool1d(2)(x1).tolist() == [[[3.0, 5.0]]]
    assert nn.AvgPool1d(2)(x1).tolist() == [[[2.0, 3.5]]]
    assert nn.AdaptiveAvgPool1d(1)(x1).tolist() == [[[3.0]]]


ACTIVATIONS = [
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (nn.LeakyReLU(0.1), lambda x: np.where(x >= 0, x, 0.1 * x)),
    (nn.GELU(), lambda x: 0.5 * x * (1 + special.erf(x / math.sqrt(2)))),
    (nn.GELU("tanh"), lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi)
                                                       * (x + 0.044715 * x ** 3)))),
    (nn.SiLU(), lambda x: x * special.expit(x)),
    (nn.Mish(), lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    (nn.ELU(0.7), lambda x: np.where(x > 0, x, 0.7 * np.expm1(x))),
    (nn.SELU(), lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772
                                                        * np.expm1(x))),
    (nn.CELU(2.0), lambda x: np.maximum(x, 0) + np.minimum(0, 2.0 * np.expm1(x / 2.0))),
    (nn.Softplus(2.0, 3.0), lambda x: np.where(2 * x > 3, x, np.log1p(np.exp(2 * x)) / 2)),
    (nn.Hardtanh(-0.5, 2.0), lambda x: np.clip(x, -0.5, 2.0)),
    (nn.Hardsigmoid(), lambda x: np.clip(x / 6 + 0.5, 0, 1)),
    (nn.Hardswish(), lambda x: x * np.clip(x / 6 + 0.5, 0, 1)),
    (nn.Sigmoid(), special.expit),
    (nn.Tanh(), np.tanh),
    (nn.LogSigmoid(), lambda x: -np.log1p(np.exp(-x))),
    (nn.Softsign(), lambda x: x / (1 + np.abs(x))),
    (nn.Tanhshrink(), lambda x: x - np.tanh(x)),
    (nn.Threshold(0.5, -1.0), lambda x: np.where(x > 0.5, x, -1.0)),
    (nn.GLU(), lambda x: x[:, :2] * special.expit(x[:, 2:])),
    (nn.Softmax(1), lambda x: special.softmax(x, axis=1)),
    (nn.Softmin(1), lambda x: special.softmax(-x, axis=1)),
    (nn.LogSoftmax(1), lambda x: special.log_softmax(x, axis=1)),
]


@pytest.mark.parametrize("layer, ref", ACTIVATIONS, ids=[type(a[0]).__name__ for a in ACTIVATIONS])
def test_activation_values(layer, ref):
    x = _randn(5, 4) * 3
    assert_close(layer(torch.from_numpy(x)), ref(x), rtol=1e-10, atol=1e-12,
                 call=type(layer).__name__)


def test_inplace_relu_modifies_input():
    x = torch.tensor([-1.0, 2.0])
    y = nn.ReLU(inplace=True)(x)
    assert y is x and x.tolist() == [0.0, 2.0]


def test_normalization_values():
    x = _randn(4, 3, 5)
    ln = nn.LayerNorm(5, eps=1e-5).double()
    with torch.no_grad():
        ln.weight.copy_(torch.from_numpy(_randn(5)))
        ln.bias.copy_(torch.from_numpy(_randn(5)))
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    ref = (x - mu) / np.sqrt(var + 1e-5) * _np(ln.weight) + _np(ln.bias)
    assert_close(ln(torch.from_numpy(x)), ref, rtol=1e-10, call="LayerNorm")
    gn = nn.GroupNorm(3, 3, eps=1e-3).double()  # one channel per group = instance norm
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    assert_close(gn(torch.from_numpy(x)), (x - mu) / np.sqrt(var + 1e-3), rtol=1e-10,
                 call="GroupNorm")
    bn = nn.BatchNorm1d(3).double()
    mu, var = x.mean((0, 2), keepdims=True), x.var((0, 2), keepdims=True)
    assert_close(bn(torch.from_numpy(x)), (x - mu) / np.sqrt(var + 1e-5), rtol=1e-10,
                 call="BatchNorm1d")
    n = x.size // 3
    assert_close(bn.running_var, 0.9 + 0.1 * x.var((0, 2)) * n / (n - 1), rtol=1e-10,
                 call="running_var uses the unbiased batch variance")


def test_embedding_flatten_dropout_values():
    emb = nn.Embedding(4, 2)
    idx = torch.tensor([[3, 0], [1, 1]])
    assert_close(emb(idx), _np(emb.weight)[idx.numpy()], call="Embedding")
    pre = nn.Embedding.from_pretrained(torch.eye(3))
    assert not pre.weight.requires_grad and pre(torch.tensor([1])).tolist() == [[0.0, 1.0, 0.0]]
    assert nn.Flatten()(torch.zeros(2, 3, 4)).shape == (2, 12)
    assert nn.Flatten(0, 1)(torch.zeros(2, 3, 4)).shape == (6, 4)
    assert nn.Unflatten(-1, (2, 2))(torch.zeros(3, 4)).shape == (3, 2, 2)
    torch.manual_seed(0)
    y = nn.Dropout2d(0.5)(torch.ones(4, 8, 3, 3)).numpy()
    per_channel = y.reshape(32, 9)
    # whole channels are dropped together
    assert np.all((per_channel == 0).all(1) | (per_channel == 2).all(1))
    assert nn.Dropout(0.0)(torch.ones(3)).tolist() == [1.0] * 3
    assert nn.Dropout(1.0)(torch.ones(3)).tolist() == [0.0] * 3


# ----- bad input: torch's error type and a message naming the shapes ------------------------------
ERROR_CASES = [
    (lambda: nn.Linear(3, 4)(torch.randn(2, 5)), RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (2x5 and 3x4)"),
    (lambda: nn.Linear(3, 4)(torch.randn(5)), RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (1x5 and 3x4)"),
    (lambda: nn.Bilinear(2, 3, 4)(torch.randn(2, 3), torch.randn(2, 3)), RuntimeError,
     "bilinear(): input1 size does not match weight size: got 3 but expected 2"),
    (lambda: nn.Conv2d(3, 4, 3)(torch.randn(1, 2, 5, 5)), RuntimeError,
     "Given groups=1, weight of size [4, 3, 3, 3], expected input[1, 2, 5, 5] to have 3 channels, "
     "but got 2 channels instead"),
    (lambda: nn.Conv1d(2, 4, 3)(torch.randn(1, 3, 5)), RuntimeError,
     "Given groups=1, weight of size [4, 2, 3], expected input[1, 3, 5] to have 2 channels, but "
     "got 3 channels instead"),
    (lambda: nn.MaxPool2d(2)(torch.randn(3)), RuntimeError,
     "non-empty 3D or 4D (batch mode) tensor expected for input"),
    (lambda: nn.BatchNorm1d(4)(torch.randn(5, 3)), RuntimeError,
     "running_mean should contain 3 elements not 4"),
    (lambda: nn.BatchNorm1d(4, track_running_stats=False)(torch.randn(5, 3)), RuntimeError,
     "weight should contain 3 elements not 4"),
    (lambda: nn.BatchNorm1d(4)(torch.randn(5, 4, 2, 2)), ValueError,
     "expected 2D or 3D input (got 4D input)"),
    (lambda: nn.BatchNorm2d(4)(torch.randn(5, 4)), ValueError, "expected 4D input (got 2D input)"),
    (lambda: nn.BatchNorm1d(4)(torch.randn(1, 4)), ValueError,
     "Expected more than 1 value per channel when training, got input size torch.Size([1, 4])"),
    (lambda: nn.GroupNorm(2, 4)(torch.randn(2, 6, 3)), RuntimeError,
     "Expected weight to be a vector of size equal to the number of channels in input, but got "
     "weight of shape [4] and input of shape [2, 6, 3]"),
    (lambda: nn.GroupNorm(4, 4, affine=False)(torch.randn(2, 6, 3)), RuntimeError,
     "Expected number of channels in input to be divisible by num_groups, but got input of shape "
     "[2, 6, 3] and num_groups=4"),
    (lambda: nn.LayerNorm(4)(torch.randn(2, 3)), RuntimeError,
     "Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]"),
    (lambda: nn.Embedding(3, 2)(torch.tensor([3])), IndexError, "index out of range in self"),
    (lambda: nn.Embedding(3, 2)(torch.tensor([1.0])), RuntimeError,
     "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
     "Int; but got torch.FloatTensor instead (while checking arguments for embedding)"),
    (lambda: nn.Flatten()(torch.randn(3)), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda: nn.Unflatten(1, (2, 2))(torch.randn(2, 3)), RuntimeError,
     "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) in the input "
     "tensor"),
    (lambda: nn.ReflectionPad2d(3)(torch.randn(1, 1, 2, 2)), RuntimeError,
     "Argument #4: Padding size should be less than the corresponding input dimension, but got: "
     "padding (3, 3) at dimension 3 of input [1, 1, 2, 2]"),
    # constructor validation
    (lambda: nn.Conv2d(4, 4, 3, stride=2, padding="same"), ValueError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: nn.Conv2d(4, 4, 3, padding="full"), ValueError, "Invalid padding string 'full'"),
    (lambda: nn.Conv2d(4, 4, 3, padding_mode="zero"), ValueError, "padding_mode must be one of"),
    (lambda: nn.Conv2d(4, 3, 3, groups=2), ValueError, "out_channels must be divisible by groups"),
    (lambda: nn.Conv2d(3, 4, 3, groups=2), ValueError, "in_channels must be divisible by groups"),
    (lambda: nn.Dropout(1.5), ValueError,
     "dropout probability has to be between 0 and 1, but got 1.5"),
    (lambda: nn.GroupNorm(3, 4), ValueError, "num_channels (4) must be divisible by num_groups (3)"),
    (lambda: nn.Embedding(3, 2, padding_idx=5), AssertionError,
     "Padding_idx must be within num_embeddings"),
    (lambda: nn.Hardtanh(1, 0), AssertionError, "max_val (0) must be greater than min_val (1)"),
    (lambda: nn.Unflatten(1, 4), TypeError,
     "unflattened_size must be a tuple of ints, but found type int"),
]


@pytest.mark.parametrize("action, exc, msg", ERROR_CASES, ids=[str(i) for i in
                                                              range(len(ERROR_CASES))])
def test_bad_input_errors(action, exc, msg):
    with pytest.raises(exc) as info:
        action()
    text = str(info.value.args[0]) if info.value.args else ""
    assert text.startswith(msg), f"got {text!r}, but should start with {msg!r}"


def test_meta_device_construction_and_assign_load():
    lin = nn.Linear(3, 2, device="meta")
    assert lin.weight.is_meta and lin.weight.shape == (2, 3) and lin.weight.requires_grad
    src = nn.Linear(3, 2)
    lin.load_state_dict(src.state_dict(), assign=True)
    assert not lin.weight.is_meta
    x = torch.randn(4, 3)
    assert_close(lin(x), src(x), call="meta Linear after load_state_dict(assign=True)")
    empty = nn.BatchNorm1d(2, device="meta").to_empty(device="cpu")
    assert not empty.running_mean.is_meta
