"""PyTorch as the oracle for the nn subset (skipped without torch).

Every layer and loss is built in both namespaces from the same lambda, the same weights are
loaded into both (our state_dict -> torch's load_state_dict), and the outputs, the input and
parameter gradients (backward seeded with one random cotangent) and the state after the step
(running statistics) must agree in float64. Reprs, state_dict keys, error types, init gains and
collation are compared too.
"""
from __future__ import annotations

import math
import warnings
from collections import OrderedDict

import numpy as np
import pytest

from minitorch_cs import torch as M
from tests.helpers import assert_close

T = pytest.importorskip("torch")

RTOL, ATOL = 1e-9, 1e-11


def _to_torch(a):
    return T.from_numpy(np.array(a, copy=True))


def _copy_weights(ours, theirs):
    sd = OrderedDict((k, _to_torch(v.numpy())) for k, v in ours.state_dict().items())
    theirs.load_state_dict(sd)


def _run_both(make, shapes, *, train=True, int_input=None, seed=0):
    """Build with ``make(ns)`` in both namespaces, share weights, run forward+backward on the same
    inputs; return both modules, inputs and outputs (as leaves with .grad)."""
    ours = make(M).double().train(train)
    theirs = make(T).double().train(train)
    _copy_weights(ours, theirs)
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    xo = [M.from_numpy(a.copy()).requires_grad_(True) for a in arrays]
    xt = [_to_torch(a).requires_grad_(True) for a in arrays]
    if int_input is not None:
        xo, xt = [M.from_numpy(int_input.copy())], [_to_torch(int_input)]
    yo, yt = ours(*xo), theirs(*xt)
    u = rng.standard_normal(tuple(yt.shape))
    yo.backward(M.from_numpy(u.copy()))
    yt.backward(_to_torch(u))
    return ours, theirs, xo, xt, yo, yt


# torch's CPU hardsigmoid backward multiplies by float32(1/6) even in float64 (relative error
# 3e-8); ours uses the exact 1/6
_GRAD_RTOL = {"Hardsigmoid": 1e-7}


def _compare(name, ours, theirs, xo, xt, yo, yt):
    __tracebackhide__ = True
    assert_close(yo, yt.detach(), rtol=RTOL, atol=ATOL, call=f"{name} output")
    for i, (a, b) in enumerate(zip(xo, xt)):
        if b.grad is not None:
            assert_close(a.grad, b.grad, rtol=_GRAD_RTOL.get(name, RTOL), atol=ATOL,
                         call=f"{name} input {i} grad")
    pt = dict(theirs.named_parameters())
    for pname, p in ours.named_parameters():
        assert_close(p.grad, pt[pname].grad, rtol=RTOL, atol=ATOL, call=f"{name} {pname}.grad")
    st = theirs.state_dict()
    so = ours.state_dict()
    assert list(so) == list(st), f"state_dict keys differ [{name}]"
    for k in so:
        assert_close(so[k], st[k], rtol=RTOL, atol=ATOL, call=f"{name} state {k}")


LAYERS = [
    ("Identity", lambda ns: ns.nn.Identity(), [(2, 3)]),
    ("Linear", lambda ns: ns.nn.Linear(3, 4), [(2, 5, 3)]),
    ("Linear-nobias", lambda ns: ns.nn.Linear(3, 2, bias=False), [(4, 3)]),
    ("Bilinear", lambda ns: ns.nn.Bilinear(2, 3, 4), [(5, 2), (5, 3)]),
    ("Conv1d", lambda ns: ns.nn.Conv1d(2, 4, 3, stride=2, padding=1), [(2, 2, 9)]),
    ("Conv1d-same-reflect", lambda ns: ns.nn.Conv1d(2, 2, 4, padding="same",
                                                    padding_mode="reflect", groups=2),
     [(1, 2, 7)]),
    ("Conv2d", lambda ns: ns.nn.Conv2d(3, 4, 3, stride=(2, 1), padding=(1, 2)), [(2, 3, 7, 6)]),
    ("Conv2d-same-dilated-circular", lambda ns: ns.nn.Conv2d(2, 4, (3, 2), padding="same",
                                                             dilation=(1, 2), groups=2,
                                                             padding_mode="circular"),
     [(1, 2, 6, 5)]),
    ("Conv2d-replicate-unbatched", lambda ns: ns.nn.Conv2d(2, 3, 2, padding=1,
                                                           padding_mode="replicate"), [(2, 4, 4)]),
    ("Conv2d-valid", lambda ns: ns.nn.Conv2d(3, 2, 2, padding="valid", bias=False),
     [(1, 3, 4, 3)]),
    ("MaxPool1d", lambda ns: ns.nn.MaxPool1d(3, stride=2, padding=1), [(2, 3, 8)]),
    ("MaxPool2d", lambda ns: ns.nn.MaxPool2d(3, stride=2, padding=1, dilation=1), [(2, 2, 7, 7)]),
    ("MaxPool2d-ceil", lambda ns: ns.nn.MaxPool2d(2, ceil_mode=True), [(1, 2, 5, 5)]),
    ("AvgPool1d", lambda ns: ns.nn.AvgPool1d(3, stride=2, padding=1), [(2, 2, 7)]),
    ("AvgPool2d", lambda ns: ns.nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False),
     [(1, 2, 6, 5)]),
    ("AvgPool2d-divisor", lambda ns: ns.nn.AvgPool2d(2, divisor_override=3), [(1, 2, 4, 4)]),
    ("AdaptiveAvgPool1d", lambda ns: ns.nn.AdaptiveAvgPool1d(3), [(2, 2, 7)]),
    ("AdaptiveAvgPool2d", lambda ns: ns.nn.AdaptiveAvgPool2d((2, None)), [(1, 2, 5, 3)]),
    ("AdaptiveAvgPool2d-3", lambda ns: ns.nn.AdaptiveAvgPool2d(3), [(2, 1, 7, 5)]),
    ("ReLU", lambda ns: ns.nn.ReLU(), [(3, 4)]),
    ("ReLU6", lambda ns: ns.nn.ReLU6(), [(3, 4)]),
    ("LeakyReLU", lambda ns: ns.nn.LeakyReLU(0.2), [(3, 4)]),
    ("GELU", lambda ns: ns.nn.GELU(), [(3, 4)]),
    ("GELU-tanh", lambda ns: ns.nn.GELU("tanh"), [(3, 4)]),
    ("SiLU", lambda ns: ns.nn.SiLU(), [(3, 4)]),
    ("Mish", lambda ns: ns.nn.Mish(), [(3, 4)]),
    ("ELU", lambda ns: ns.nn.ELU(0.5), [(3, 4)]),
    ("SELU", lambda ns: ns.nn.SELU(), [(3, 4)]),
    ("CELU", lambda ns: ns.nn.CELU(1.5), [(3, 4)]),
    ("Softplus", lambda ns: ns.nn.Softplus(beta=2.0, threshold=1.0), [(3, 4)]),
    ("Hardtanh", lambda ns: ns.nn.Hardtanh(-0.5, 0.5), [(3, 4)]),
    ("Hardsigmoid", lambda ns: ns.nn.Hardsigmoid(), [(3, 4)]),
    ("Hardswish", lambda ns: ns.nn.Hardswish(), [(3, 4)]),
    ("Sigmoid", lambda ns: ns.nn.Sigmoid(), [(3, 4)]),
    ("Tanh", lambda ns: ns.nn.Tanh(), [(3, 4)]),
    ("LogSigmoid", lambda ns: ns.nn.LogSigmoid(), [(3, 4)]),
    ("Softsign", lambda ns: ns.nn.Softsign(), [(3, 4)]),
    ("Tanhshrink", lambda ns: ns.nn.Tanhshrink(), [(3, 4)]),
    ("Threshold", lambda ns: ns.nn.Threshold(0.1, -2.0), [(3, 4)]),
    ("GLU", lambda ns: ns.nn.GLU(1), [(3, 4)]),
    ("Softmax", lambda ns: ns.nn.Softmax(dim=1), [(3, 4)]),
    ("Softmin", lambda ns: ns.nn.Softmin(dim=0), [(3, 4)]),
    ("LogSoftmax", lambda ns: ns.nn.LogSoftmax(dim=-1), [(2, 3, 4)]),
    ("LayerNorm", lambda ns: ns.nn.LayerNorm(4), [(3, 4)]),
    ("LayerNorm-2d-noaffine", lambda ns: ns.nn.LayerNorm((3, 4), elementwise_affine=False),
     [(2, 3, 4)]),
    ("LayerNorm-nobias", lambda ns: ns.nn.LayerNorm(4, bias=False), [(2, 4)]),
    ("GroupNorm", lambda ns: ns.nn.GroupNorm(2, 4), [(2, 4, 3)]),
    ("GroupNorm-4d", lambda ns: ns.nn.GroupNorm(3, 6, eps=1e-3), [(2, 6, 2, 3)]),
    ("BatchNorm1d", lambda ns: ns.nn.BatchNorm1d(3), [(4, 3)]),
    ("BatchNorm1d-3d", lambda ns: ns.nn.BatchNorm1d(3, momentum=0.3), [(4, 3, 2)]),
    ("BatchNorm2d", lambda ns: ns.nn.BatchNorm2d(2), [(3, 2, 2, 2)]),
    ("BatchNorm2d-cma", lambda ns: ns.nn.BatchNorm2d(2, momentum=None), [(3, 2, 2, 2)]),
    ("BatchNorm1d-noaffine-nostats", lambda ns: ns.nn.BatchNorm1d(3, affine=False,
                                                                  track_running_stats=False),
     [(4, 3)]),
    ("Flatten", lambda ns: ns.nn.Flatten(), [(2, 3, 4)]),
    ("Unflatten", lambda ns: ns.nn.Unflatten(1, (2, 3)), [(2, 6)]),
    ("ZeroPad2d", lambda ns: ns.nn.ZeroPad2d((1, 0, 2, 1)), [(1, 2, 3, 3)]),
    ("ConstantPad1d", lambda ns: ns.nn.ConstantPad1d(2, 1.5), [(2, 3)]),
    ("ReflectionPad2d", lambda ns: ns.nn.ReflectionPad2d(1), [(1, 1, 3, 3)]),
    ("ReplicationPad1d", lambda ns: ns.nn.ReplicationPad1d((2, 1)), [(1, 2, 3)]),
    ("CircularPad2d", lambda ns: ns.nn.CircularPad2d(1), [(1, 1, 3, 3)]),
    ("CosineSimilarity", lambda ns: ns.nn.CosineSimilarity(dim=1), [(3, 4), (3, 4)]),
    ("PairwiseDistance", lambda ns: ns.nn.PairwiseDistance(p=3.0, keepdim=True), [(3, 4), (3, 4)]),
    ("Sequential-CNN", lambda ns: ns.nn.Sequential(
        ns.nn.Conv2d(1, 4, 3, padding=1), ns.nn.BatchNorm2d(4), ns.nn.ReLU(),
        ns.nn.MaxPool2d(2), ns.nn.Flatten(), ns.nn.Linear(16, 3), ns.nn.LogSoftmax(-1)),
     [(2, 1, 4, 4)]),
]


@pytest.mark.parametrize("name, make, shapes", LAYERS, ids=[c[0] for c in LAYERS])
def test_layer_matches_torch(name, make, shapes):
    _compare(name, *_run_both(make, shapes))


@pytest.mark.parametrize("name, make, shapes", [c for c in LAYERS if "Norm" in c[0]],
                         ids=[c[0] for c in LAYERS if "Norm" in c[0]])
def test_layer_matches_torch_in_eval(name, make, shapes):
    _compare(name, *_run_both(make, shapes, train=False))


def test_embedding_matches_torch():
    idx = np.array([[0, 2, 5], [2, 2, 1]])
    for make in (lambda ns: ns.nn.Embedding(6, 3), lambda ns: ns.nn.Embedding(6, 3, padding_idx=2),
                 lambda ns: ns.nn.Embedding(6, 3, padding_idx=-1)):
        _compare("Embedding", *_run_both(make, [], int_input=idx))


def test_dropout_eval_is_identity_in_both():
    for make in (lambda ns: ns.nn.Dropout(0.3), lambda ns: ns.nn.Dropout2d(0.5)):
        _compare("Dropout-eval", *_run_both(make, [(2, 3, 2, 2)], train=False))


# ----- losses -------------------------------------------------------------------------------------
def _loss_inputs(rng):
    x = rng.standard_normal((5, 4))
    return {
        "x": x, "y": rng.standard_normal((5, 4)),
        "p": 1 / (1 + np.exp(-x)), "t": rng.uniform(size=(5, 4)),
        "cls": rng.integers(0, 4, 5), "cls_ign": np.array([0, -1, 3, -1, 2]),
        "logp": x - np.log(np.exp(x).sum(1, keepdims=True)),
        "prob": np.exp(rng.standard_normal((5, 4))) / np.exp(rng.standard_normal((5, 4))).sum(),
        "sign": np.sign(rng.standard_normal((5, 4))), "sign1": np.sign(rng.standard_normal(5)),
        "pos": np.abs(rng.standard_normal((5, 4))), "var": rng.uniform(0.2, 2, (5, 4)),
        "v1": rng.standard_normal(5), "v2": rng.standard_normal(5),
        "a": rng.standard_normal((5, 4)), "b": rng.standard_normal((5, 4)),
        "c": rng.standard_normal((5, 4)),
        "w": rng.uniform(0.5, 2, 4), "x3": rng.standard_normal((2, 4, 3)),
        "cls3": rng.integers(0, 4, (2, 3)),
    }


LOSSES = [
    ("MSELoss", lambda ns, w: ns.nn.MSELoss(), ["x", "y"]),
    ("MSELoss-sum", lambda ns, w: ns.nn.MSELoss(reduction="sum"), ["x", "y"]),
    ("L1Loss", lambda ns, w: ns.nn.L1Loss(reduction="none"), ["x", "y"]),
    ("SmoothL1Loss", lambda ns, w: ns.nn.SmoothL1Loss(beta=0.5), ["x", "y"]),
    ("HuberLoss", lambda ns, w: ns.nn.HuberLoss(delta=0.7, reduction="sum"), ["x", "y"]),
    ("BCELoss", lambda ns, w: ns.nn.BCELoss(weight=w(ns)), ["p", "t"]),
    ("BCEWithLogitsLoss", lambda ns, w: ns.nn.BCEWithLogitsLoss(pos_weight=w(ns)), ["x", "t"]),
    ("BCEWithLogitsLoss-none", lambda ns, w: ns.nn.BCEWithLogitsLoss(weight=w(ns),
                                                                     reduction="none"),
     ["x", "t"]),
    ("CrossEntropyLoss", lambda ns, w: ns.nn.CrossEntropyLoss(), ["x", "cls"]),
    ("CrossEntropyLoss-weight-ignore-smooth", lambda ns, w: ns.nn.CrossEntropyLoss(
        weight=w(ns), ignore_index=-1, label_smoothing=0.15), ["x", "cls_ign"]),
    ("CrossEntropyLoss-probs", lambda ns, w: ns.nn.CrossEntropyLoss(label_smoothing=0.1),
     ["x", "prob"]),
    ("CrossEntropyLoss-spatial", lambda ns, w: ns.nn.CrossEntropyLoss(reduction="sum"),
     ["x3", "cls3"]),
    ("NLLLoss", lambda ns, w: ns.nn.NLLLoss(weight=w(ns)), ["logp", "cls"]),
    ("NLLLoss-none", lambda ns, w: ns.nn.NLLLoss(reduction="none", ignore_index=-1),
     ["logp", "cls_ign"]),
    ("KLDivLoss", lambda ns, w: ns.nn.KLDivLoss(reduction="batchmean"), ["logp", "prob"]),
    ("KLDivLoss-logtarget", lambda ns, w: ns.nn.KLDivLoss(reduction="sum", log_target=True),
     ["logp", "y"]),
    ("PoissonNLLLoss", lambda ns, w: ns.nn.PoissonNLLLoss(), ["x", "pos"]),
    ("PoissonNLLLoss-full", lambda ns, w: ns.nn.PoissonNLLLoss(log_input=False, full=True),
     ["pos", "pos"]),
    ("GaussianNLLLoss", lambda ns, w: ns.nn.GaussianNLLLoss(full=True), ["x", "y", "var"]),
    ("HingeEmbeddingLoss", lambda ns, w: ns.nn.HingeEmbeddingLoss(margin=0.5), ["x", "sign"]),
    ("SoftMarginLoss", lambda ns, w: ns.nn.SoftMarginLoss(), ["x", "sign"]),
    ("MarginRankingLoss", lambda ns, w: ns.nn.MarginRankingLoss(margin=0.2),
     ["v1", "v2", "sign1"]),
    ("CosineEmbeddingLoss", lambda ns, w: ns.nn.CosineEmbeddingLoss(margin=0.1),
     ["a", "b", "sign1"]),
    ("TripletMarginLoss", lambda ns, w: ns.nn.TripletMarginLoss(margin=2.0), ["a", "b", "c"]),
    ("TripletMarginLoss-swap", lambda ns, w: ns.nn.TripletMarginLoss(p=1.0, swap=True),
     ["a", "b", "c"]),
    ("MultiLabelSoftMarginLoss", lambda ns, w: ns.nn.MultiLabelSoftMarginLoss(weight=w(ns)),
     ["x", "t"]),
    ("TripletMarginWithDistanceLoss", lambda ns, w: ns.nn.TripletMarginWithDistanceLoss(),
     ["a", "b", "c"]),
    ("TripletMarginWithDistanceLoss-cos-swap", lambda ns, w: ns.nn.TripletMarginWithDistanceLoss(
        distance_function=lambda x, y: 1.0 - ns.nn.functional.cosine_similarity(x, y),
        margin=0.5, swap=True, reduction="sum"), ["a", "b", "c"]),
]


@pytest.mark.parametrize("name, make, keys", LOSSES, ids=[c[0] for c in LOSSES])
def test_loss_matches_torch(name, make, keys):
    data = _loss_inputs(np.random.default_rng(5))

    def weight(ns):
        return (M.from_numpy if ns is M else _to_torch)(data["w"].copy())

    lo, lt = make(M, weight), make(T, weight)
    xo, xt = [], []
    for i, k in enumerate(keys):
        a = data[k]
        diff = a.dtype.kind == "f" and i == 0 or (a.dtype.kind == "f" and k in ("y", "b", "c"))
        xo.append(M.from_numpy(a.copy()).requires_grad_(diff))
        xt.append(_to_torch(a).requires_grad_(diff))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yo, yt = lo(*xo), lt(*xt)
    u = np.random.default_rng(1).standard_normal(tuple(yt.shape))
    yo.backward(M.from_numpy(u.copy()))
    yt.backward(_to_torch(u))
    assert_close(yo, yt.detach(), rtol=RTOL, atol=ATOL, call=f"{name} value")
    for i, (a, b) in enumerate(zip(xo, xt)):
        if b.grad is not None:
            assert_close(a.grad, b.grad, rtol=RTOL, atol=ATOL, call=f"{name} grad {i}")
    assert list(lo.state_dict()) == list(lt.state_dict())


# ----- module API parity --------------------------------------------------------------------------
def _model(ns):
    nn = ns.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 4, padding_idx=0)
            self.body = nn.Sequential(OrderedDict(
                fc=nn.Linear(4, 8), norm=nn.LayerNorm(8), act=nn.GELU(),
                drop=nn.Dropout(0.1)))
            self.heads = nn.ModuleList([nn.Linear(8, 2), nn.Linear(8, 2)])
            self.table = nn.ModuleDict({"bn": nn.BatchNorm1d(8), "conv": nn.Conv1d(8, 8, 1)})
            self.extra = nn.ParameterList([nn.Parameter(ns.zeros(2)), nn.Parameter(ns.ones(3))])
            self.pd = nn.ParameterDict({"b": nn.Parameter(ns.zeros(1)),
                                        "a": nn.Parameter(ns.zeros(1))})
            self.register_buffer("mask", ns.ones(4))
            self.register_buffer("tmp", ns.zeros(1), persistent=False)
            self.tied = self.heads[0]
            self.loss = nn.CrossEntropyLoss(weight=ns.ones(2))

        def forward(self, idx):
            h = self.body(self.emb(idx).mean(1))
            return self.heads[0](h) + self.heads[1](h)

    return Net()


def test_state_dict_keys_and_traversal_match_torch():
    ours, theirs = _model(M), _model(T)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for fn in (lambda m: [n for n, _ in m.named_parameters()],
               lambda m: [n for n, _ in m.named_parameters(remove_duplicate=False)],
               lambda m: [n for n, _ in m.named_buffers()],
               lambda m: [n for n, _ in m.named_modules()],
               lambda m: [n for n, _ in m.named_modules(remove_duplicate=False)],
               lambda m: [n for n, _ in m.named_children()],
               lambda m: [n for n, _ in m.named_parameters(prefix="p", recurse=False)],
               lambda m: [tuple(p.shape) for p in m.parameters()]):
        assert fn(ours) == fn(theirs)
    assert repr(ours) == repr(theirs)
    _copy_weights(ours, theirs)
    ours.eval()
    theirs.eval()
    idx = np.array([[1, 2, 0], [4, 4, 9]])
    assert_close(ours(M.from_numpy(idx)), theirs(_to_torch(idx)).detach(), rtol=1e-6, atol=1e-7,
                 call="Net forward")


def test_load_state_dict_messages_match_torch():
    def attempt(ns, sd_fn):
        m = ns.nn.Sequential(ns.nn.Linear(3, 2), ns.nn.BatchNorm1d(2))
        try:
            return m.load_state_dict(sd_fn(ns), strict=False)
        except RuntimeError as e:
            return str(e)

    cases = [
        lambda ns: {"0.weight": ns.zeros(2, 3)},
        lambda ns: {"0.weight": ns.zeros(2, 4), "1.bias": ns.zeros(2), "junk.x": ns.zeros(1)},
        lambda ns: {"1.running_mean": ns.zeros(3), "0.bias": ns.zeros(2)},
    ]
    for make in cases:
        got, want = attempt(M, make), attempt(T, make)
        if isinstance(want, str):
            assert got == want
        else:
            assert (got.missing_keys, got.unexpected_keys) == (want.missing_keys,
                                                              want.unexpected_keys)
    for make in cases:
        msgs = []
        for ns in (M, T):
            m = ns.nn.Sequential(ns.nn.Linear(3, 2), ns.nn.BatchNorm1d(2))
            with pytest.raises(RuntimeError) as info:
                m.load_state_dict(make(ns))
            msgs.append(str(info.value))
        assert msgs[0] == msgs[1]


def test_reprs_match_torch():
    def build(ns):
        nn = ns.nn
        P = nn.Parameter
        return [
            nn.Identity(), nn.Linear(3, 4), nn.Bilinear(2, 3, 4, bias=False), nn.Conv1d(2, 4, 3),
            nn.Conv2d(2, 4, 3, stride=2, padding=1, bias=False),
            nn.Conv2d(2, 4, (3, 5), padding="same", padding_mode="reflect", dilation=2, groups=2),
            nn.MaxPool1d(2), nn.MaxPool2d(3, 2, 1, ceil_mode=True), nn.AvgPool1d(2),
            nn.AvgPool2d(2), nn.AdaptiveAvgPool1d(3), nn.AdaptiveAvgPool2d((2, None)),
            nn.ReLU(True), nn.LeakyReLU(0.2, True), nn.GELU("tanh"), nn.SiLU(), nn.Softmax(),
            nn.LogSoftmax(-1), nn.ELU(), nn.SELU(True), nn.CELU(), nn.Softplus(), nn.Hardtanh(),
            nn.ReLU6(), nn.Mish(), nn.Hardswish(), nn.Threshold(0.1, 20), nn.GLU(),
            nn.Dropout(0.2, True), nn.Dropout2d(), nn.LayerNorm([2, 3], elementwise_affine=False),
            nn.BatchNorm1d(3),
            nn.BatchNorm2d(3, momentum=None, affine=False, track_running_stats=False),
            nn.GroupNorm(2, 4), nn.Embedding(10, 3, padding_idx=0, max_norm=1.0),
            nn.Flatten(), nn.Unflatten(1, (2, 3)), nn.CrossEntropyLoss(), nn.ZeroPad2d(1),
            nn.ConstantPad1d(2, 3.5), nn.ReflectionPad2d((1, 0, 2, 1)),
            nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()]),
            nn.ParameterList([P(ns.zeros(2)), P(ns.zeros(2, 3, dtype=ns.float64))]),
            nn.ParameterDict({"a": P(ns.zeros(2))}), nn.Sequential(),
        ]
    for a, b in zip(build(M), build(T)):
        assert repr(a) == repr(b)


ERRORS = [
    lambda ns: ns.nn.Linear(3, 4)(ns.randn(2, 5)),
    lambda ns: ns.nn.Conv2d(3, 4, 3)(ns.randn(1, 2, 5, 5)),
    lambda ns: ns.nn.Conv2d(3, 4, 5)(ns.randn(1, 3, 2, 2)),
    lambda ns: ns.nn.BatchNorm1d(4)(ns.randn(5, 3)),
    lambda ns: ns.nn.BatchNorm2d(4)(ns.randn(5, 4)),
    lambda ns: ns.nn.BatchNorm1d(4)(ns.randn(1, 4)),
    lambda ns: ns.nn.GroupNorm(2, 4)(ns.randn(2, 6, 3)),
    lambda ns: ns.nn.LayerNorm(4)(ns.randn(2, 3)),
    lambda ns: ns.nn.Embedding(3, 2)(ns.tensor([3])),
    lambda ns: ns.nn.Embedding(3, 2)(ns.tensor([1.0])),
    lambda ns: ns.nn.Bilinear(2, 3, 4)(ns.randn(2, 3), ns.randn(2, 3)),
    lambda ns: ns.nn.MaxPool2d(2)(ns.randn(3)),
    lambda ns: ns.nn.Flatten()(ns.randn(3)),
    lambda ns: ns.nn.Unflatten(1, (2, 2))(ns.randn(2, 3)),
    lambda ns: ns.nn.ReflectionPad2d(3)(ns.randn(1, 1, 2, 2)),
    lambda ns: ns.nn.Softmax(3)(ns.randn(2, 2)),
    lambda ns: ns.nn.MSELoss(reduction="avg")(ns.randn(2), ns.randn(2)),
    lambda ns: ns.nn.CrossEntropyLoss()(ns.randn(2, 3), ns.tensor([0, 3])),
    lambda ns: ns.nn.CrossEntropyLoss()(ns.randn(2, 3), ns.tensor([0, 1, 1])),
    lambda ns: ns.nn.BCELoss()(ns.tensor([1.5]), ns.rand(1)),
    lambda ns: ns.nn.BCEWithLogitsLoss()(ns.randn(2), ns.rand(3)),
    lambda ns: ns.nn.L1Loss()(ns.randn(2, 3), ns.randn(4, 3)),
    lambda ns: ns.nn.Conv2d(4, 4, 3, stride=2, padding="same"),
    lambda ns: ns.nn.Conv2d(3, 4, 3, groups=2),
    lambda ns: ns.nn.Dropout(1.5),
    lambda ns: ns.nn.GroupNorm(3, 4),
    lambda ns: ns.nn.Linear(2, 2).load_state_dict({"weight": ns.zeros(3, 3)}),
    lambda ns: ns.nn.Linear(2, 2).to(ns.int64),
    lambda ns: ns.nn.Module().register_buffer("a.b", None),
    lambda ns: ns.nn.init.kaiming_uniform_(ns.zeros(3)),
    lambda ns: ns.nn.init.calculate_gain("foo"),
    lambda ns: ns.utils.data.DataLoader([1, 2], sampler=[0], shuffle=True),
    lambda ns: ns.utils.data.BatchSampler([1], 0, False),
    lambda ns: ns.utils.data.default_collate([[1, 2], [3]]),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_error_types_and_messages_match_torch(i):
    def run(ns):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                ERRORS[i](ns)
            except Exception as e:  # noqa: BLE001  (the class is what we compare)
                return type(e), str(e)
        return None, ""

    (ct, mt), (co, mo) = run(T), run(M)
    assert co is ct, f"got {co}, but should be {ct} [error case {i}]: ours {mo!r} / torch {mt!r}"
    assert mo == mt, f"message differs [error case {i}]"


# ----- init, utils, data --------------------------------------------------------------------------
def test_init_gains_and_fans_match_torch():
    for nl, param in [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None),
                      ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.3),
                      ("leaky_relu", math.sqrt(5)), ("selu", None)]:
        assert M.nn.init.calculate_gain(nl, param) == T.nn.init.calculate_gain(nl, param)
    for shape in [(3, 4), (5, 2, 3), (8, 4, 3, 3)]:
        assert M.nn.init._calculate_fan_in_and_fan_out(M.empty(shape)) == \
            T.nn.init._calculate_fan_in_and_fan_out(T.empty(shape))


def test_deterministic_inits_match_torch():
    for fn in ("eye_", "ones_", "zeros_", "dirac_"):
        shape = (4, 4) if fn == "eye_" else (4, 2, 3, 3)
        a = getattr(M.nn.init, fn)(M.empty(shape))
        b = getattr(T.nn.init, fn)(T.empty(shape))
        assert np.array_equal(a.numpy(), b.numpy()), fn
    assert np.array_equal(M.nn.init.dirac_(M.empty(6, 3, 3), groups=3).numpy(),
                          T.nn.init.dirac_(T.empty(6, 3, 3), groups=3).numpy())


def test_clip_grad_norm_matches_torch():
    rng = np.random.default_rng(3)
    grads = [rng.standard_normal((3, 4)), rng.standard_normal(5)]
    for norm_type in (2.0, 1.0, math.inf, 0.5):
        for max_norm in (0.5, 100.0):
            res = []
            for ns in (M, T):
                ps = [ns.nn.Parameter(ns.zeros(g.shape, dtype=ns.float64)) for g in grads]
                for p, g in zip(ps, grads):
                    p.grad = (M.from_numpy if ns is M else _to_torch)(g.copy())
                total = ns.nn.utils.clip_grad_norm_(ps, max_norm, norm_type)
                res.append((total, [p.grad for p in ps]))
            assert_close(res[0][0], res[1][0], rtol=1e-12)
            for a, b in zip(res[0][1], res[1][1]):
                assert_close(a, b, rtol=1e-12)


def test_collate_matches_torch():
    batches = [
        [(1, 2.5, True), (3, 4.5, False)],
        [{"a": np.zeros((2, 3), np.float32), "b": np.int32(4)},
         {"a": np.ones((2, 3), np.float32), "b": np.int32(5)}],
        [np.float64(1.0), np.float64(2.0)],
        [[1, 2], [3, 4]],
    ]

    def flatten(x):
        if hasattr(x, "numpy"):
            return [(str(x.dtype), tuple(x.shape), x.numpy().tolist())]
        if isinstance(x, dict):
            return [(k, flatten(v)) for k, v in x.items()]
        if isinstance(x, (list, tuple)):
            return [flatten(v) for v in x]
        return [x]

    for b in batches:
        assert flatten(M.utils.data.default_collate(b)) == flatten(T.utils.data.default_collate(b))


def test_deterministic_samplers_match_torch():
    for n, reps, rank, drop in [(10, 3, 1, False), (10, 3, 2, True), (7, 2, 0, False)]:
        a = list(M.utils.data.DistributedSampler(range(n), reps, rank, shuffle=False,
                                                 drop_last=drop))
        b = list(T.utils.data.DistributedSampler(range(n), reps, rank, shuffle=False,
                                                 drop_last=drop))
        assert a == b
    for bs, drop in [(3, False), (3, True), (5, False)]:
        assert list(M.utils.data.BatchSampler(range(11), bs, drop)) == \
            list(T.utils.data.BatchSampler(range(11), bs, drop))
        assert len(M.utils.data.DataLoader(range(11), batch_size=bs, drop_last=drop)) == \
            len(T.utils.data.DataLoader(range(11), batch_size=bs, drop_last=drop))
    for lengths in ([0.3, 0.3, 0.4], [0.5, 0.5], [0.1] * 10):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert [len(s) for s in M.utils.data.random_split(range(17), lengths)] == \
                [len(s) for s in T.utils.data.random_split(range(17), lengths)]


def test_public_names_exist_in_torch():
    for name in M.nn.__all__:
        assert hasattr(T.nn, name), f"torch.nn has no {name}"
    for name in M.nn.init.__all__:
        assert hasattr(T.nn.init, name), name
    for name in M.nn.utils.__all__:
        assert hasattr(T.nn.utils, name), name
    for name in M.utils.data.__all__:
        assert hasattr(T.utils.data, name), name


def _signature(f):
    import inspect
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return None
    out = []
    for p in params:
        d = p.default
        d = None if d is inspect.Parameter.empty else (
            "<Generator>" if type(d).__name__ == "Generator" else
            # a function default (Transformer's activation=F.relu): its name, not its address
            f"<function {d.__qualname__}>" if inspect.isfunction(d) else repr(d))
        out.append((p.name, p.kind.name, d))
    return out


def test_signatures_match_torch():
    pairs = []
    for n in M.nn.modules.__all__:
        ours, theirs = getattr(M.nn, n), getattr(T.nn, n)
        pairs.append((f"nn.{n}", ours.__init__, theirs.__init__))
        pairs.append((f"nn.{n}.forward", ours.forward, theirs.forward))
    for mod in ("init", "utils"):
        for n in getattr(M.nn, mod).__all__:
            pairs.append((f"nn.{mod}.{n}", getattr(getattr(M.nn, mod), n),
                          getattr(getattr(T.nn, mod), n)))
    for n in M.utils.data.__all__:
        a, b = getattr(M.utils.data, n), getattr(T.utils.data, n)
        pairs.append((f"utils.data.{n}", a.__init__ if isinstance(a, type) else a,
                      b.__init__ if isinstance(b, type) else b))
    for n in ("state_dict", "load_state_dict", "named_parameters", "named_buffers",
              "named_modules", "register_forward_hook", "register_forward_pre_hook", "zero_grad",
              "train", "register_buffer", "register_parameter", "apply", "requires_grad_",
              "to_empty", "parameters", "buffers", "get_submodule", "set_submodule",
              "get_parameter", "add_module"):
        pairs.append((f"Module.{n}", getattr(M.nn.Module, n), getattr(T.nn.Module, n)))
    for n in M.nn.modules.module.__all__[1:]:
        pairs.append((n, getattr(M.nn.modules.module, n), getattr(T.nn.modules.module, n)))
    pairs.append(("Parameter", M.nn.Parameter.__new__, T.nn.Parameter.__new__))
    pairs.append(("Buffer", M.nn.Buffer.__new__, T.nn.Buffer.__new__))
    bad = [f"{name}: ours {_signature(a)}, torch {_signature(b)}" for name, a, b in pairs
           if _signature(a) != _signature(b)]
    assert not bad, "\n".join(bad)
