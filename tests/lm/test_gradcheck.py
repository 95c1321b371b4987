"""Gradient checks of the language-model layers and ops: analytic gradients (backward seeded with a
random cotangent) against float64 central differences along random directions
(``tests.helpers.gradcheck``), on hypothesis-drawn shapes and options for the functional forms and
on fixed configurations for every module (input and every parameter)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from minitorch_cs import torch
from minitorch_cs.torch import nn
from tests import strategies as S
from tests.helpers import gradcheck
from tests.torch.test_layers import layer_gradcheck

F = torch.nn.functional
RNG = np.random.default_rng(77)


def _randn(*shape):
    return RNG.standard_normal(shape)


# ----- functional forms on drawn shapes -------------------------------------------------------
@given(data=st.data())
def test_sdpa_gradients(data):
    b = data.draw(st.integers(1, 2), label="batch")
    h = data.draw(st.integers(1, 3), label="heads")
    L, S_, E, Ev = (data.draw(st.integers(1, 4), label=n) for n in ("L", "S", "E", "Ev"))
    causal = data.draw(st.booleans(), label="is_causal")
    mask_kind = data.draw(st.sampled_from([None, "bool", "float"]), label="mask")
    scale = data.draw(st.sampled_from([None, 0.5]), label="scale")
    q = data.draw(S.arrays((b, h, L, E)), label="q")
    k = data.draw(S.arrays((b, h, S_, E)), label="k")
    v = data.draw(S.arrays((b, h, S_, Ev)), label="v")
    mask = None
    if mask_kind == "bool":
        keep = np.asarray(data.draw(S.arrays((L, S_), lo=0, hi=1)) > 0.3)
        keep[:, 0] = True  # rows keep at least one key (a dead row has zero gradient anyway)
        mask = torch.from_numpy(keep)
    elif mask_kind == "float":
        mask = torch.from_numpy(np.ascontiguousarray(data.draw(S.arrays((L, S_)))))

    def fn(q, k, v):
        m = mask.to(q.dtype) if mask is not None and mask.dtype != torch.bool else mask
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal,
                                              scale=scale)
    gradcheck(fn, q, k, v, name="scaled_dot_product_attention")


@given(data=st.data())
def test_sdpa_gqa_gradients(data):
    kv_heads = data.draw(st.sampled_from([1, 2]), label="kv heads")
    q = data.draw(S.arrays((1, 4, 3, 2)), label="q")
    k = data.draw(S.arrays((1, kv_heads, 3, 2)), label="k")
    v = data.draw(S.arrays((1, kv_heads, 3, 2)), label="v")
    gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True,
                                                             is_causal=True),
              q, k, v, name="sdpa(enable_gqa)")


@given(data=st.data())
def test_conv_transpose2d_gradients(data):
    groups = data.draw(st.sampled_from([1, 2]), label="groups")
    cin, cout_g = 2 * groups, data.draw(st.integers(1, 2), label="out per group")
    kh, kw = data.draw(st.integers(1, 3), label="kh"), data.draw(st.integers(1, 3), label="kw")
    stride = data.draw(st.tuples(st.integers(1, 3), st.integers(1, 3)), label="stride")
    dilation = data.draw(st.tuples(st.integers(1, 2), st.integers(1, 2)), label="dilation")
    padding = data.draw(st.tuples(st.integers(0, 1), st.integers(0, 1)), label="padding")
    opad = tuple(data.draw(st.integers(0, max(s, d) - 1), label="output_padding")
                 for s, d in zip(stride, dilation))
    H, W = data.draw(st.integers(2, 4), label="H"), data.draw(st.integers(2, 4), label="W")
    x = data.draw(S.arrays((2, cin, H, W)), label="x")
    w = data.draw(S.arrays((cin, cout_g, kh, kw)), label="w")
    bias = data.draw(S.arrays((cout_g * groups,)), label="b")
    out = [(n - 1) * s - 2 * p + d * (k - 1) + o + 1
           for n, s, p, d, k, o in zip((H, W), stride, padding, dilation, (kh, kw), opad)]
    if min(out) < 1:
        return
    gradcheck(lambda x, w, b: F.conv_transpose2d(x, w, b, stride, padding, opad, groups,
                                                 dilation), x, w, bias, name="conv_transpose2d")


@given(data=st.data())
def test_conv_transpose1d_gradients(data):
    stride = data.draw(st.integers(1, 3), label="stride")
    opad = data.draw(st.integers(0, stride - 1), label="output_padding")
    batched = data.draw(st.booleans(), label="batched")
    x = data.draw(S.arrays(((2,) if batched else ()) + (3, 4)), label="x")
    w = data.draw(S.arrays((3, 2, 3)), label="w")
    gradcheck(lambda x, w: F.conv_transpose1d(x, w, stride=stride, output_padding=opad), x, w,
              name="conv_transpose1d")


@given(data=st.data())
def test_rms_norm_gradients(data):
    shape = data.draw(S.shapes(min_dims=1, max_dims=3), label="shape")
    nd = data.draw(st.integers(1, len(shape)), label="normalized dims")
    ns = shape[len(shape) - nd:]
    eps = data.draw(st.sampled_from([None, 1e-3]), label="eps")
    x = data.draw(S.arrays(shape, lo=0.2, hi=2.0), label="x")  # away from the all-zero kink
    w = data.draw(S.arrays(ns), label="weight")
    gradcheck(lambda x, w: F.rms_norm(x, ns, w, eps), x, w, name="rms_norm")


@given(data=st.data())
def test_interpolate_gradients(data):
    mode = data.draw(st.sampled_from(["nearest", "nearest-exact", "bilinear", "area"]),
                     label="mode")
    x = data.draw(S.arrays((1, 2, data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4)))),
                  label="x")
    use_size = data.draw(st.booleans(), label="size given")
    kw = {}
    if mode == "bilinear":
        kw["align_corners"] = data.draw(st.booleans(), label="align_corners")
    if use_size or mode == "area":
        kw["size"] = (data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6)))
    else:
        kw["scale_factor"] = data.draw(st.sampled_from([0.5, 1.5, 2.0, 2.7]), label="scale")
        if min(int(s * kw["scale_factor"]) for s in x.shape[2:]) < 1:
            return
    gradcheck(lambda x: F.interpolate(x, mode=mode, **kw), x, name=f"interpolate({mode})")


@given(data=st.data())
def test_pixel_shuffle_gradients(data):
    r = data.draw(st.integers(1, 3), label="factor")
    x = data.draw(S.arrays((2, r * r, 2, 3)), label="x")
    gradcheck(lambda x: F.pixel_shuffle(x, r), x, name="pixel_shuffle")
    y = data.draw(S.arrays((1, 2, 2 * r, r)), label="y")
    gradcheck(lambda y: F.pixel_unshuffle(y, r), y, name="pixel_unshuffle")


# ----- modules: input and parameter gradients ---------------------------------------------------
def _mha(**kw):
    return lambda: nn.MultiheadAttention(6, 2, **kw)


MODULES = [
    ("MultiheadAttention", _mha(), [(4, 2, 6), (3, 2, 6), (3, 2, 6)]),
    ("MultiheadAttention-kv-dims-biaskv-zero", _mha(kdim=3, vdim=4, add_bias_kv=True,
                                                    add_zero_attn=True, batch_first=True),
     [(2, 4, 6), (2, 3, 3), (2, 3, 4)]),
    ("RNN", lambda: nn.RNN(3, 4, 2, bidirectional=True), [(4, 2, 3)]),
    ("LSTM-proj", lambda: nn.LSTM(3, 4, 2, proj_size=2, batch_first=True), [(2, 4, 3)]),
    ("GRU", lambda: nn.GRU(3, 4, bidirectional=True), [(4, 2, 3)]),
    ("RNNCell-relu", lambda: nn.RNNCell(3, 4, nonlinearity="relu"), [(2, 3), (2, 4)]),
    ("LSTMCell", lambda: nn.LSTMCell(3, 4), [(2, 3)]),
    ("GRUCell", lambda: nn.GRUCell(3, 4), [(2, 3), (2, 4)]),
    ("TransformerEncoderLayer", lambda: nn.TransformerEncoderLayer(6, 2, 8, dropout=0.0),
     [(3, 2, 6)]),
    ("TransformerDecoderLayer-normfirst", lambda: nn.TransformerDecoderLayer(
        6, 2, 8, dropout=0.0, norm_first=True, activation="gelu"), [(3, 2, 6), (4, 2, 6)]),
    ("RMSNorm", lambda: nn.RMSNorm(4), [(3, 4)]),
    ("ConvTranspose2d", lambda: nn.ConvTranspose2d(2, 4, 3, stride=2, padding=1,
                                                   output_padding=1, groups=2), [(1, 2, 3, 3)]),
    ("ConvTranspose1d", lambda: nn.ConvTranspose1d(2, 3, 2, stride=3), [(2, 2, 4)]),
    ("Upsample-bilinear", lambda: nn.Upsample(scale_factor=1.5, mode="bilinear"),
     [(1, 2, 3, 3)]),
]


@pytest.mark.parametrize("name, make, shapes", MODULES, ids=[m[0] for m in MODULES])
def test_module_gradients(name, make, shapes):
    torch.manual_seed(0)
    layer = make()
    inputs = [_randn(*s) for s in shapes]
    # modules returning (output, state) or (output, weights) are checked through every output
    layer_gradcheck(layer, *inputs, name=name)


def test_packed_lstm_gradients():
    torch.manual_seed(0)
    lstm = nn.LSTM(2, 3, bidirectional=True).double()
    R = nn.utils.rnn
    x = _randn(4, 3, 2)

    class Packed(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = lstm

        def forward(self, x):
            out, (h, c) = self.lstm(R.pack_padded_sequence(x, [3, 4, 1], enforce_sorted=False))
            padded, _ = R.pad_packed_sequence(out)
            return padded, h, c
    layer_gradcheck(Packed(), x, name="packed LSTM")
