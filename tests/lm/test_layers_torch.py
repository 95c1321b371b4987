"""PyTorch as the oracle for the language-model layers (skipped without torch).

Every module is built in both namespaces from the same lambda, our weights are loaded into torch,
and outputs, input and parameter gradients (one random cotangent per output) and the state_dict
(keys, order, shapes) must agree -- in float64 to 1e-9, and in float32 to float32 rounding
(float32 stays float32). Weights also load the other way (torch -> ours), and torch's errors
(type and text) are compared for bad calls.
"""
from __future__ import annotations

import warnings
from collections import OrderedDict

import numpy as np
import pytest

from minitorch_cs import torch as M
from tests.helpers import assert_close
from tests.lm._oracle import copy_weights, flat_tensors, run_both

T = pytest.importorskip("torch")

RNG = np.random.default_rng(2024)


def r(*shape):
    return RNG.standard_normal(shape)


def ns_of(x):
    return T if isinstance(x, T.Tensor) else M


# (name, factory, inputs, train): inputs are float64 arrays, or ("hx", h, c) pairs
CASES = [
    ("RMSNorm", lambda ns: ns.nn.RMSNorm(4), [r(2, 3, 4)]),
    ("RMSNorm-2d-eps", lambda ns: ns.nn.RMSNorm([3, 4], eps=1e-3), [r(2, 3, 4)]),
    ("RMSNorm-noaffine", lambda ns: ns.nn.RMSNorm(4, elementwise_affine=False), [r(5, 4)]),
    ("ConvTranspose1d", lambda ns: ns.nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1,
                                                         output_padding=1, groups=2),
     [r(2, 4, 7)]),
    ("ConvTranspose1d-dil-nobias", lambda ns: ns.nn.ConvTranspose1d(3, 2, 2, dilation=3,
                                                                    bias=False), [r(3, 5)]),
    ("ConvTranspose2d", lambda ns: ns.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1,
                                                         output_padding=1), [r(2, 4, 5, 5)]),
    ("ConvTranspose2d-groups-rect", lambda ns: ns.nn.ConvTranspose2d(
        4, 2, (3, 2), stride=(2, 1), padding=(0, 1), groups=2, dilation=(1, 2)),
     [r(1, 4, 4, 6)]),
    ("ConvTranspose2d-op-lt-dilation", lambda ns: ns.nn.ConvTranspose2d(
        2, 3, 3, output_padding=1, dilation=2), [r(1, 2, 4, 4)]),
    ("PixelShuffle", lambda ns: ns.nn.PixelShuffle(2), [r(2, 8, 3, 3)]),
    ("PixelUnshuffle", lambda ns: ns.nn.PixelUnshuffle(3), [r(1, 2, 6, 9)]),
    ("Upsample-nearest", lambda ns: ns.nn.Upsample(scale_factor=1.5), [r(2, 3, 4, 5)]),
    ("Upsample-bilinear", lambda ns: ns.nn.Upsample(size=(7, 3), mode="bilinear"),
     [r(2, 3, 4, 5)]),
    ("Upsample-bilinear-ac", lambda ns: ns.nn.Upsample(scale_factor=(2, 0.5), mode="bilinear",
                                                       align_corners=True), [r(1, 2, 3, 6)]),
    ("Upsample-linear", lambda ns: ns.nn.Upsample(scale_factor=2.5, mode="linear"),
     [r(2, 3, 5)]),
    ("UpsamplingNearest2d", lambda ns: ns.nn.UpsamplingNearest2d(scale_factor=2), [r(1, 2, 3, 3)]),
    ("UpsamplingBilinear2d", lambda ns: ns.nn.UpsamplingBilinear2d(size=5), [r(1, 2, 3, 4)]),
    ("MultiheadAttention", lambda ns: ns.nn.MultiheadAttention(8, 2), [r(5, 3, 8), r(4, 3, 8),
                                                                      r(4, 3, 8)]),
    ("MultiheadAttention-kdim-vdim-biaskv-zero-bf",
     lambda ns: ns.nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True,
                                         add_zero_attn=True, batch_first=True),
     [r(3, 5, 8), r(3, 4, 3), r(3, 4, 5)]),
    ("MultiheadAttention-unbatched-nobias", lambda ns: ns.nn.MultiheadAttention(8, 4, bias=False),
     [r(5, 8), r(4, 8), r(4, 8)]),
    ("RNN-relu-2layer", lambda ns: ns.nn.RNN(3, 4, 2, nonlinearity="relu"), [r(5, 2, 3)]),
    ("RNN-bi-batchfirst-h0", lambda ns: ns.nn.RNN(3, 4, 2, bidirectional=True,
                                                  batch_first=True), [r(2, 5, 3), r(4, 2, 4)]),
    ("RNN-unbatched", lambda ns: ns.nn.RNN(3, 4), [r(5, 3), r(1, 4)]),
    ("LSTM-bi-proj-h0c0", lambda ns: ns.nn.LSTM(3, 4, 2, bidirectional=True, proj_size=2),
     [r(5, 2, 3), ("hx", r(4, 2, 2), r(4, 2, 4))]),
    ("LSTM-unbatched", lambda ns: ns.nn.LSTM(3, 4), [r(5, 3)]),
    ("LSTM-nobias-batchfirst", lambda ns: ns.nn.LSTM(3, 4, bias=False, batch_first=True),
     [r(2, 5, 3)]),
    ("GRU-bi-nobias-h0", lambda ns: ns.nn.GRU(3, 4, 2, bidirectional=True, bias=False),
     [r(5, 2, 3), r(4, 2, 4)]),
    ("GRU-unbatched-h0", lambda ns: ns.nn.GRU(3, 4), [r(5, 3), r(1, 4)]),
    ("RNNCell", lambda ns: ns.nn.RNNCell(3, 4, nonlinearity="relu"), [r(2, 3), r(2, 4)]),
    ("RNNCell-unbatched", lambda ns: ns.nn.RNNCell(3, 4), [r(3)]),
    ("LSTMCell", lambda ns: ns.nn.LSTMCell(3, 4), [r(2, 3), ("hx", r(2, 4), r(2, 4))]),
    ("LSTMCell-nobias", lambda ns: ns.nn.LSTMCell(3, 4, bias=False), [r(2, 3)]),
    ("GRUCell", lambda ns: ns.nn.GRUCell(3, 4), [r(3)]),
    ("GRUCell-h0", lambda ns: ns.nn.GRUCell(3, 4), [r(2, 3), r(2, 4)]),
    ("TransformerEncoderLayer", lambda ns: ns.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0),
     [r(5, 3, 8)]),
    ("TransformerEncoderLayer-normfirst-gelu-bf",
     lambda ns: ns.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu",
                                              norm_first=True, batch_first=True),
     [r(3, 5, 8)]),
    ("TransformerEncoderLayer-callable-nobias",
     lambda ns: ns.nn.TransformerEncoderLayer(8, 4, 16, dropout=0.0, activation=ns.tanh,
                                              bias=False), [r(4, 8)]),
    ("TransformerDecoderLayer", lambda ns: ns.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0),
     [r(5, 3, 8), r(4, 3, 8)]),
    ("TransformerDecoderLayer-normfirst", lambda ns: ns.nn.TransformerDecoderLayer(
        8, 2, 16, dropout=0.0, norm_first=True, batch_first=True), [r(3, 5, 8), r(3, 4, 8)]),
    ("TransformerEncoder", lambda ns: ns.nn.TransformerEncoder(
        ns.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2, ns.nn.LayerNorm(8),
        enable_nested_tensor=False), [r(5, 3, 8)]),
    ("TransformerDecoder", lambda ns: ns.nn.TransformerDecoder(
        ns.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2), [r(5, 3, 8), r(4, 3, 8)]),
    ("Transformer", lambda ns: ns.nn.Transformer(8, 2, 2, 1, 16, dropout=0.0),
     [r(5, 3, 8), r(4, 3, 8)]),
]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("name, make, arrays", CASES, ids=[c[0] for c in CASES])
def test_module_matches_torch_float64(name, make, arrays):
    run_both(T, make, arrays, name=name)


@pytest.mark.parametrize("name, make, arrays", CASES, ids=[c[0] for c in CASES])
def test_module_matches_torch_float32(name, make, arrays):
    arrays32 = [tuple([a[0]] + [x.astype(np.float32) for x in a[1:]]) if isinstance(a, tuple)
                else a.astype(np.float32) for a in arrays]
    run_both(T, make, arrays32, dtype="float", name=name, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name, make, arrays", CASES, ids=[c[0] for c in CASES])
def test_torch_weights_load_into_ours(name, make, arrays):
    theirs = make(T).double().eval()
    ours = make(M).double().eval()
    sd = OrderedDict((k, M.from_numpy(v.detach().numpy().copy()))
                     for k, v in theirs.state_dict().items())
    missing, unexpected = ours.load_state_dict(sd)
    assert not missing and not unexpected
    xo = [M.from_numpy(a) if isinstance(a, np.ndarray) else
          (M.from_numpy(a[1]), M.from_numpy(a[2])) for a in arrays]
    xt = [T.from_numpy(a) if isinstance(a, np.ndarray) else
          (T.from_numpy(a[1]), T.from_numpy(a[2])) for a in arrays]
    with T.no_grad():
        yt = flat_tensors(theirs(*xt))
    yo = flat_tensors(ours(*xo))
    for i, (a, b) in enumerate(zip(yo, yt)):
        assert_close(a, b, rtol=1e-9, atol=1e-11, call=f"{name} output {i}")


# ----- attention masks and flags -----------------------------------------------------------------
def _mask_call(attn_mask, kpm, **kw):
    def call(mod, q, k, v):
        ns = ns_of(q)
        am = None if attn_mask is None else ns.from_numpy(attn_mask.copy())
        km = None if kpm is None else ns.from_numpy(kpm.copy())
        return mod(q, k, v, attn_mask=am, key_padding_mask=km, **kw)
    return call


_CAUSAL = np.triu(np.full((5, 5), -np.inf), 1)
_BOOL = RNG.random((5, 4)) > 0.4
_BOOL[:, 0] = False  # every row keeps key 0
_KPM = np.zeros((3, 4), bool)
_KPM[1, 2:] = True
_FLOAT3D = r(6, 5, 4)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("average", [True, False])
@pytest.mark.parametrize("masks", ["float-causal", "bool", "kpm", "bool+kpm", "3d-float",
                                   "causal-hint"])
def test_multihead_attention_masks_match_torch(need_weights, average, masks):
    q, kv = r(5, 3, 8), r(4, 3, 8)
    am, kpm, extra = {"float-causal": (_CAUSAL[:, :4], None, {}), "bool": (_BOOL, None, {}),
                      "kpm": (None, _KPM, {}), "bool+kpm": (_BOOL, _KPM, {}),
                      "3d-float": (_FLOAT3D, None, {}),
                      "causal-hint": (None, None, {})}[masks]
    if masks == "causal-hint":  # self-attention with is_causal and its mask
        q = kv = r(5, 3, 8)
        am, extra = _CAUSAL, {"is_causal": True}
    run_both(T, lambda ns: ns.nn.MultiheadAttention(8, 2), [q, kv, kv],
             call=_mask_call(am, kpm, need_weights=need_weights, average_attn_weights=average,
                             **extra),
             name=f"MHA {masks} need_weights={need_weights} average={average}")


def test_multihead_attention_self_attention_uses_one_projection_and_matches():
    x = r(3, 5, 8)
    run_both(T, lambda ns: ns.nn.MultiheadAttention(8, 4, batch_first=True), [x],
             call=lambda m, x: m(x, x, x, need_weights=False), name="self-attention")


def test_multihead_attention_dropout_is_identity_in_eval_and_changes_train():
    m = M.nn.MultiheadAttention(8, 2, dropout=0.5).double()
    x = M.from_numpy(r(4, 2, 8))
    m.eval()
    a = m(x, x, x)[0].detach()
    b = m(x, x, x)[0].detach()
    assert np.array_equal(a.numpy(), b.numpy())
    m.train()
    M.manual_seed(0)
    c = m(x, x, x)[0]
    assert not np.allclose(a.numpy(), c.detach().numpy())


def test_transformer_generate_square_subsequent_mask_matches_torch():
    for dt in (None, "float64"):
        a = M.nn.Transformer.generate_square_subsequent_mask(4, dtype=getattr(M, dt) if dt
                                                             else None)
        b = T.nn.Transformer.generate_square_subsequent_mask(4, dtype=getattr(T, dt) if dt
                                                             else None)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        assert_close(a, b)


def test_transformer_with_masks_matches_torch():
    src, tgt = r(6, 2, 8), r(5, 2, 8)
    kpm = np.zeros((2, 6), bool)
    kpm[0, 4:] = True

    def call(m, s, t):
        ns = ns_of(s)
        return m(s, t, tgt_mask=ns.nn.Transformer.generate_square_subsequent_mask(5).double(),
                 src_key_padding_mask=ns.from_numpy(kpm.copy()),
                 memory_key_padding_mask=ns.from_numpy(kpm.copy()))
    run_both(T, lambda ns: ns.nn.Transformer(8, 2, 1, 2, 16, dropout=0.0, norm_first=True),
             [src, tgt], call=call, name="Transformer masks")


# ----- packed sequences --------------------------------------------------------------------------
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_packed_sequence_through_rnn_matches_torch(batch_first, enforce_sorted, kind):
    lengths = [5, 2, 4, 1]
    if enforce_sorted:
        lengths = sorted(lengths, reverse=True)

    def call(mod, x):
        R = ns_of(x).nn.utils.rnn
        packed = R.pack_padded_sequence(x, lengths, batch_first=batch_first,
                                        enforce_sorted=enforce_sorted)
        out, h = mod(packed)
        padded, lens = R.pad_packed_sequence(out, batch_first=batch_first, total_length=6)
        return padded, out.data, h

    make = {"RNN": lambda ns: ns.nn.RNN(3, 4, 2, bidirectional=True, batch_first=batch_first),
            "LSTM": lambda ns: ns.nn.LSTM(3, 4, 2, bidirectional=True, proj_size=2,
                                          batch_first=batch_first),
            "GRU": lambda ns: ns.nn.GRU(3, 4, 1, batch_first=batch_first)}[kind]
    run_both(T, make, [r(4, 5, 3) if batch_first else r(5, 4, 3)], call=call,
             name=f"packed {kind}")


def test_pack_pad_utilities_match_torch():
    seqs = [r(3, 2), r(5, 2), r(1, 2)]
    RM, RT = M.nn.utils.rnn, T.nn.utils.rnn
    for bf in (False, True):
        for side in ("right", "left"):
            a = RM.pad_sequence([M.from_numpy(s) for s in seqs], batch_first=bf,
                                padding_value=-1.5, padding_side=side)
            b = RT.pad_sequence([T.from_numpy(s) for s in seqs], batch_first=bf,
                                padding_value=-1.5, padding_side=side)
            assert_close(a, b)
    for enforce in (True, False):
        ss = sorted(seqs, key=len, reverse=True) if enforce else seqs
        pa = RM.pack_sequence([M.from_numpy(s) for s in ss], enforce_sorted=enforce)
        pb = RT.pack_sequence([T.from_numpy(s) for s in ss], enforce_sorted=enforce)
        assert_close(pa.data, pb.data)
        assert pa.batch_sizes.tolist() == pb.batch_sizes.tolist()
        for x, y in ((pa.sorted_indices, pb.sorted_indices),
                     (pa.unsorted_indices, pb.unsorted_indices)):
            assert (x is None) == (y is None) and (x is None or x.tolist() == y.tolist())
        ua, ub = RM.unpack_sequence(pa), RT.unpack_sequence(pb)
        for x, y in zip(ua, ub):
            assert_close(x, y)
        padded_a, lens_a = RM.pad_packed_sequence(pa, batch_first=True, padding_value=9.0)
        padded_b, lens_b = RT.pad_packed_sequence(pb, batch_first=True, padding_value=9.0)
        assert_close(padded_a, padded_b)
        assert lens_a.tolist() == lens_b.tolist()
    la = RM.unpad_sequence(M.from_numpy(r(4, 3, 2)), M.tensor([4, 1, 2]))
    assert [tuple(x.shape) for x in la] == [(4, 2), (1, 2), (2, 2)]
    # a PackedSequence is a named tuple with torch's fields and repr shape
    assert RM.PackedSequence._fields == RT.PackedSequence._fields
    assert repr(pa).startswith("PackedSequence(data=tensor(")
    assert pa.double().data.dtype == M.float64


# ----- functional forms --------------------------------------------------------------------------
FUNCTIONAL = [
    ("rms_norm-eps", lambda F, ns, x, w: F.rms_norm(x, [4], w, eps=1e-2), [r(3, 4), r(4)]),
    ("rms_norm-none", lambda F, ns, x: F.rms_norm(x, (3, 4)), [r(2, 3, 4)]),
    ("conv_transpose1d", lambda F, ns, x, w, b: F.conv_transpose1d(x, w, b, 2, 1, 1),
     [r(2, 4, 5), r(4, 3, 3), r(3)]),
    ("conv_transpose2d", lambda F, ns, x, w: F.conv_transpose2d(x, w, None, (1, 2), (1, 0),
                                                                (0, 1), 2, (2, 1)),
     [r(2, 4, 5, 4), r(4, 1, 3, 3)]),
    ("pixel_shuffle-5d", lambda F, ns, x: F.pixel_shuffle(x, 2), [r(2, 3, 8, 2, 3)]),
    ("pixel_unshuffle-3d", lambda F, ns, x: F.pixel_unshuffle(x, 2), [r(3, 4, 6)]),
    ("interpolate-nearest-exact", lambda F, ns, x: F.interpolate(x, scale_factor=1.7,
                                                                 mode="nearest-exact"),
     [r(2, 3, 5, 4)]),
    ("interpolate-nearest-1d", lambda F, ns, x: F.interpolate(x, size=9), [r(2, 3, 4)]),
    ("interpolate-bilinear-recompute", lambda F, ns, x: F.interpolate(
        x, scale_factor=1.7, mode="bilinear", recompute_scale_factor=True), [r(1, 2, 5, 4)]),
    ("interpolate-area", lambda F, ns, x: F.interpolate(x, size=(3, 2), mode="area"),
     [r(2, 3, 5, 4)]),
    ("sdpa", lambda F, ns, q, k, v: F.scaled_dot_product_attention(q, k, v),
     [r(2, 3, 4, 5), r(2, 3, 6, 5), r(2, 3, 6, 5)]),
    ("sdpa-causal-scale", lambda F, ns, q, k, v: F.scaled_dot_product_attention(
        q, k, v, is_causal=True, scale=0.3), [r(2, 3, 6, 5), r(2, 3, 4, 5), r(2, 3, 4, 5)]),
    ("sdpa-bool-dead-row", lambda F, ns, q, k, v: F.scaled_dot_product_attention(
        q, k, v, attn_mask=ns.from_numpy(_SDPA_BOOL.copy())),
     [r(2, 3, 4, 5), r(2, 3, 6, 5), r(2, 3, 6, 5)]),
    ("sdpa-float-mask", lambda F, ns, q, k, v: F.scaled_dot_product_attention(
        q, k, v, attn_mask=ns.from_numpy(_SDPA_FLOAT.copy())),
     [r(2, 3, 4, 5), r(2, 3, 6, 5), r(2, 3, 6, 5)]),
    ("sdpa-gqa", lambda F, ns, q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
     [r(2, 6, 4, 5), r(2, 2, 6, 5), r(2, 3, 6, 5)]),
    ("sdpa-unbatched", lambda F, ns, q, k, v: F.scaled_dot_product_attention(q, k, v),
     [r(4, 5), r(6, 5), r(6, 3)]),
]
_SDPA_BOOL = RNG.random((4, 6)) > 0.3
_SDPA_BOOL[1] = False  # a row that masks every key: zeros and zero gradients, as torch
_SDPA_FLOAT = r(4, 6)


class _Fn:
    """A parameter-free module wrapper so functional forms run through ``run_both``."""

    def __init__(self, fn, ns):
        self.fn, self.ns = fn, ns
        self.F = ns.nn.functional

    def __call__(self, *xs):
        return self.fn(self.F, self.ns, *xs)


@pytest.mark.parametrize("name, fn, arrays", FUNCTIONAL, ids=[c[0] for c in FUNCTIONAL])
def test_functional_matches_torch(name, fn, arrays):
    from tests.lm._oracle import make_inputs
    xo, xt = make_inputs(M, arrays, True), make_inputs(T, arrays, True)
    yo, yt = fn(M.nn.functional, M, *xo), fn(T.nn.functional, T, *xt)
    assert str(yo.dtype).split(".")[-1] == str(yt.dtype).split(".")[-1]
    assert_close(yo.detach(), yt.detach(), rtol=1e-9, atol=1e-11, call=name)
    u = r(*yt.shape)
    yo.backward(M.from_numpy(u.copy()))
    yt.backward(T.from_numpy(u.copy()))
    for i, (a, b) in enumerate(zip(xo, xt)):
        if b.grad is not None:
            assert_close(a.grad, b.grad, rtol=1e-9, atol=1e-11, call=f"{name} grad {i}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_rms_norm_half_precision_matches_torch(dtype):
    x, w = r(16, 33), r(33)
    a = M.nn.functional.rms_norm(M.from_numpy(x).to(getattr(M, dtype)), [33],
                                 M.from_numpy(w).to(getattr(M, dtype)))
    b = T.nn.functional.rms_norm(T.from_numpy(x).to(getattr(T, dtype)), [33],
                                 T.from_numpy(w).to(getattr(T, dtype)))
    assert str(a.dtype) == str(b.dtype)
    if dtype == "float32":  # summation order: within a float32 ulp or two
        assert_close(a, b, rtol=3e-7, atol=0)
    else:  # one rounding of the float32 result: equal
        assert np.array_equal(a.float().numpy(), b.float().numpy())


def test_conv_transpose_half_precision_matches_torch():
    x, w = r(1, 4, 5, 5), r(4, 3, 3, 3)
    for dt in ("float16", "bfloat16"):
        a = M.nn.functional.conv_transpose2d(M.from_numpy(x).to(getattr(M, dt)),
                                             M.from_numpy(w).to(getattr(M, dt)), stride=2)
        b = T.nn.functional.conv_transpose2d(T.from_numpy(x).to(getattr(T, dt)),
                                             T.from_numpy(w).to(getattr(T, dt)), stride=2)
        assert str(a.dtype) == str(b.dtype)
        # torch's half-precision kernel depends on the CPU's instruction set (on an AVX2 CPU,
        # 2 of 363 bfloat16 outputs near 0.18 differed from ours by 0.014)
        assert_close(a.float(), b.float(), rtol=1e-2, atol=1e-2 if dt == "float16" else 3e-2,
                     call=dt)


def test_conv_transpose_output_size_matches_torch():
    x = r(1, 2, 4, 4)
    mo, mt = M.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1).double(), \
        T.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1).double()
    copy_weights(mo, mt, T)
    for size in ([7, 7], [8, 8], [1, 3, 8, 7]):
        a = mo(M.from_numpy(x), output_size=size)
        b = mt(T.from_numpy(x), output_size=size)
        assert_close(a.detach(), b.detach(), rtol=1e-9, atol=1e-12)


# ----- errors ------------------------------------------------------------------------------------
def _err(ns, f):
    try:
        f(ns)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e).__name__, str(e)
    return None, None


ERRORS = [
    ("mha-embed-heads", lambda ns: ns.nn.MultiheadAttention(8, 3)),
    ("mha-nonpositive", lambda ns: ns.nn.MultiheadAttention(0, 1)),
    ("mha-4d-query", lambda ns: ns.nn.MultiheadAttention(8, 2)(ns.zeros(1, 2, 3, 8),
                                                              ns.zeros(2, 3, 8),
                                                              ns.zeros(2, 3, 8))),
    ("mha-mask-shape", lambda ns: ns.nn.MultiheadAttention(8, 2)(
        ns.zeros(3, 2, 8), ns.zeros(4, 2, 8), ns.zeros(4, 2, 8), attn_mask=ns.zeros(3, 3))),
    ("mha-int-mask", lambda ns: ns.nn.MultiheadAttention(8, 2)(
        ns.zeros(3, 2, 8), ns.zeros(4, 2, 8), ns.zeros(4, 2, 8),
        attn_mask=ns.zeros(3, 4, dtype=ns.int64))),
    ("mha-causal-without-mask", lambda ns: ns.nn.MultiheadAttention(8, 2)(
        ns.zeros(3, 2, 8), ns.zeros(3, 2, 8), ns.zeros(3, 2, 8), is_causal=True)),
    ("mha-kpm-shape", lambda ns: ns.nn.MultiheadAttention(8, 2)(
        ns.zeros(3, 2, 8), ns.zeros(4, 2, 8), ns.zeros(4, 2, 8),
        key_padding_mask=ns.zeros(2, 3, dtype=ns.bool))),
    ("sdpa-dtypes", lambda ns: ns.nn.functional.scaled_dot_product_attention(
        ns.zeros(2, 3, 4, dtype=ns.float64), ns.zeros(2, 3, 4), ns.zeros(2, 3, 4))),
    ("sdpa-mask-dtype", lambda ns: ns.nn.functional.scaled_dot_product_attention(
        ns.zeros(2, 3, 4), ns.zeros(2, 3, 4), ns.zeros(2, 3, 4),
        attn_mask=ns.zeros(3, 3, dtype=ns.int64))),
    ("sdpa-gqa-heads", lambda ns: ns.nn.functional.scaled_dot_product_attention(
        ns.zeros(1, 3, 2, 4), ns.zeros(1, 2, 2, 4), ns.zeros(1, 2, 2, 4), enable_gqa=True)),
    ("rnn-dtype", lambda ns: ns.nn.RNN(3, 4)(ns.zeros(2, 2, 3, dtype=ns.float64))),
    ("rnn-input-size", lambda ns: ns.nn.LSTM(3, 4)(ns.zeros(2, 2, 5))),
    ("rnn-4d", lambda ns: ns.nn.GRU(3, 4)(ns.zeros(1, 2, 2, 3))),
    ("rnn-hidden-size", lambda ns: ns.nn.RNN(3, 4)(ns.zeros(2, 2, 3), ns.zeros(1, 3, 4))),
    ("lstm-cell-size", lambda ns: ns.nn.LSTM(3, 4)(ns.zeros(2, 2, 3),
                                                   (ns.zeros(1, 2, 4), ns.zeros(1, 3, 4)))),
    ("rnn-hx-dim", lambda ns: ns.nn.RNN(3, 4)(ns.zeros(2, 2, 3), ns.zeros(2, 4))),
    ("lstm-hx-dim", lambda ns: ns.nn.LSTM(3, 4)(ns.zeros(2, 3), (ns.zeros(1, 1, 4),
                                                                 ns.zeros(1, 1, 4)))),
    ("rnn-nonlinearity", lambda ns: ns.nn.RNN(3, 4, nonlinearity="gelu")),
    ("rnn-proj-size-gru", lambda ns: ns.nn.GRU(3, 4, proj_size=2)),
    ("rnn-proj-size-big", lambda ns: ns.nn.LSTM(3, 4, proj_size=4)),
    ("rnn-dropout", lambda ns: ns.nn.LSTM(3, 4, 2, dropout=1.5)),
    ("rnn-hidden-zero", lambda ns: ns.nn.LSTM(3, 0)),
    ("rnn-bias-type", lambda ns: ns.nn.GRU(3, 4, bias=1)),
    ("cell-input-size", lambda ns: ns.nn.RNNCell(3, 4)(ns.zeros(2, 5))),
    ("cell-batch", lambda ns: ns.nn.GRUCell(3, 4)(ns.zeros(2, 3), ns.zeros(3, 4))),
    ("cell-hidden", lambda ns: ns.nn.LSTMCell(3, 4)(ns.zeros(2, 3), (ns.zeros(2, 5),
                                                                     ns.zeros(2, 4)))),
    ("cell-3d", lambda ns: ns.nn.GRUCell(3, 4)(ns.zeros(1, 2, 3))),
    ("lstmcell-hx-tensor", lambda ns: ns.nn.LSTMCell(3, 4)(ns.zeros(2, 3), ns.zeros(2, 4))),
    ("encoder-activation", lambda ns: ns.nn.TransformerEncoderLayer(8, 2, activation="tanh")),
    ("transformer-batch", lambda ns: ns.nn.Transformer(8, 2, 1, 1, 16)(ns.zeros(3, 2, 8),
                                                                      ns.zeros(3, 4, 8))),
    ("transformer-feature", lambda ns: ns.nn.Transformer(8, 2, 1, 1, 16)(ns.zeros(3, 2, 6),
                                                                        ns.zeros(3, 2, 6))),
    ("convT-channels", lambda ns: ns.nn.functional.conv_transpose2d(ns.zeros(1, 3, 5, 5),
                                                                    ns.zeros(4, 3, 3, 3))),
    ("convT-output-padding", lambda ns: ns.nn.functional.conv_transpose2d(
        ns.zeros(1, 4, 5, 5), ns.zeros(4, 3, 3, 3), stride=2, output_padding=2)),
    ("convT-negative-padding", lambda ns: ns.nn.functional.conv_transpose1d(
        ns.zeros(1, 4, 5), ns.zeros(4, 3, 3), padding=-1)),
    ("convT-too-small", lambda ns: ns.nn.functional.conv_transpose2d(
        ns.zeros(1, 4, 5, 5), ns.zeros(4, 3, 3, 3), padding=5)),
    ("convT-bias", lambda ns: ns.nn.functional.conv_transpose2d(
        ns.zeros(1, 4, 5, 5), ns.zeros(4, 3, 3, 3), ns.zeros(2))),
    ("convT-padding-str", lambda ns: ns.nn.functional.conv_transpose2d(
        ns.zeros(1, 4, 5, 5), ns.zeros(4, 3, 3, 3), padding="same")),
    ("convT-dtype", lambda ns: ns.nn.functional.conv_transpose2d(
        ns.zeros(1, 4, 5, 5), ns.zeros(4, 3, 3, 3, dtype=ns.float64))),
    ("convT-1d-input", lambda ns: ns.nn.functional.conv_transpose2d(ns.zeros(5, 5),
                                                                    ns.zeros(4, 3, 3, 3))),
    ("ConvTranspose-padding-mode", lambda ns: ns.nn.ConvTranspose2d(2, 3, 3,
                                                                    padding_mode="reflect")),
    ("ConvTranspose-output-size", lambda ns: ns.nn.ConvTranspose2d(2, 3, 3, stride=2)(
        ns.zeros(1, 2, 4, 4), output_size=[12, 12])),
    ("ConvTranspose-output-size-len", lambda ns: ns.nn.ConvTranspose1d(2, 3, 3)(
        ns.zeros(1, 2, 4), output_size=[1, 2, 3, 4])),
    ("rms-shape", lambda ns: ns.nn.functional.rms_norm(ns.zeros(4, 5), [4])),
    ("pixel-shuffle-channels", lambda ns: ns.nn.functional.pixel_shuffle(ns.zeros(1, 3, 2, 2),
                                                                         2)),
    ("pixel-shuffle-2d", lambda ns: ns.nn.functional.pixel_shuffle(ns.zeros(3, 2), 2)),
    ("pixel-shuffle-factor", lambda ns: ns.nn.functional.pixel_shuffle(ns.zeros(1, 4, 2, 2),
                                                                       0)),
    ("pixel-unshuffle-height", lambda ns: ns.nn.functional.pixel_unshuffle(
        ns.zeros(1, 3, 3, 2), 2)),
    ("pixel-unshuffle-width", lambda ns: ns.nn.functional.pixel_unshuffle(
        ns.zeros(1, 3, 2, 3), 2)),
    ("interp-both", lambda ns: ns.nn.functional.interpolate(ns.zeros(1, 1, 2, 2), size=3,
                                                            scale_factor=2)),
    ("interp-neither", lambda ns: ns.nn.functional.interpolate(ns.zeros(1, 1, 2, 2))),
    ("interp-align-nearest", lambda ns: ns.nn.functional.interpolate(
        ns.zeros(1, 1, 2, 2), size=3, align_corners=True)),
    ("interp-bilinear-3d", lambda ns: ns.nn.functional.interpolate(ns.zeros(1, 1, 2), size=3,
                                                                   mode="bilinear")),
    ("interp-linear-4d", lambda ns: ns.nn.functional.interpolate(ns.zeros(1, 1, 2, 2), size=3,
                                                                 mode="linear")),
    ("interp-size-len", lambda ns: ns.nn.functional.interpolate(ns.zeros(1, 1, 2, 2),
                                                                size=(3, 3, 3))),
    ("interp-2d-input", lambda ns: ns.nn.functional.interpolate(ns.zeros(2, 2), size=3)),
    ("interp-recompute-size", lambda ns: ns.nn.functional.interpolate(
        ns.zeros(1, 1, 2, 2), size=3, recompute_scale_factor=True)),
    ("pack-unsorted", lambda ns: ns.nn.utils.rnn.pack_padded_sequence(ns.zeros(4, 3),
                                                                      [2, 4, 1])),
    ("pack-zero-length", lambda ns: ns.nn.utils.rnn.pack_padded_sequence(ns.zeros(4, 3),
                                                                         [4, 1, 0])),
    ("pack-lengths-count", lambda ns: ns.nn.utils.rnn.pack_padded_sequence(ns.zeros(4, 3),
                                                                           [4, 1, 1, 1])),
    ("pack-empty", lambda ns: ns.nn.utils.rnn.pack_padded_sequence(ns.zeros(0, 3), [0, 0, 0])),
    ("pad-total-length", lambda ns: ns.nn.utils.rnn.pad_packed_sequence(
        ns.nn.utils.rnn.pack_padded_sequence(ns.zeros(4, 3), [4, 2, 1]), total_length=3)),
    ("pad-sequence-empty", lambda ns: ns.nn.utils.rnn.pad_sequence([])),
    ("pad-sequence-side", lambda ns: ns.nn.utils.rnn.pad_sequence([ns.zeros(2)],
                                                                  padding_side="middle")),
    ("pad-sequence-trailing", lambda ns: ns.nn.utils.rnn.pad_sequence(
        [ns.zeros(2, 3), ns.zeros(4, 2)])),
    ("pad-sequence-not-iterable", lambda ns: ns.nn.utils.rnn.pad_sequence(5)),
]


@pytest.mark.parametrize("name, f", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(name, f):
    ours, theirs = _err(M, f), _err(T, f)
    assert theirs[0] is not None, f"torch accepts {name}"
    assert ours == theirs


def test_signature_defaults_and_reprs_match_torch():
    pairs = [
        (lambda ns: ns.nn.MultiheadAttention(8, 2, batch_first=True)),
        (lambda ns: ns.nn.LSTM(3, 4, 2, bias=False, batch_first=True, dropout=0.5,
                               bidirectional=True, proj_size=2)),
        (lambda ns: ns.nn.GRUCell(3, 4, bias=False)),
        (lambda ns: ns.nn.RNNCell(3, 4, nonlinearity="relu")),
        (lambda ns: ns.nn.RNN(3, 4, 1, "relu")),
        (lambda ns: ns.nn.ConvTranspose2d(2, 4, (3, 2), stride=2, output_padding=1, groups=2,
                                          bias=False, dilation=2)),
        (lambda ns: ns.nn.ConvTranspose1d(2, 4, 3)),
        (lambda ns: ns.nn.RMSNorm([2, 3], eps=1e-3)),
        (lambda ns: ns.nn.Upsample(scale_factor=(2, 3), mode="bilinear")),
        (lambda ns: ns.nn.Upsample(size=4)),
        (lambda ns: ns.nn.PixelShuffle(3)),
        (lambda ns: ns.nn.PixelUnshuffle(2)),
        (lambda ns: ns.nn.TransformerEncoder(ns.nn.TransformerEncoderLayer(8, 2, 16), 2,
                                             enable_nested_tensor=False)),
        (lambda ns: ns.nn.Transformer(8, 2, 1, 1, 16, batch_first=True, norm_first=True)),
    ]
    for make in pairs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a, b = make(M), make(T)
        assert repr(a) == repr(b)
        assert [(k, tuple(v.shape)) for k, v in a.state_dict().items()] == \
            [(k, tuple(v.shape)) for k, v in b.state_dict().items()]


def test_encoder_nested_tensor_warning_matches_torch():
    for ns in (M, T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ns.nn.TransformerEncoder(ns.nn.TransformerEncoderLayer(8, 2, 16), 2)
        msgs = [str(x.message) for x in w]
        if ns is M:
            ours = msgs
        else:
            theirs = msgs
    assert ours == theirs and ours


def test_rnn_dropout_warning_matches_torch():
    for ns in (M, T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ns.nn.GRU(3, 4, dropout=0.5)
        msgs = [str(x.message) for x in w]
        if ns is M:
            ours = msgs
        else:
            theirs = msgs
    assert ours == theirs and ours
