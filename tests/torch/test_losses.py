"""Loss modules: values against formulas written here in numpy (every reduction), weights,
ignore_index, label smoothing, gradients, and torch's errors for bad reductions and targets."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from minitorch_cs import torch
from minitorch_cs.torch import nn
from minitorch_cs.torch.nn import functional as F
from tests.helpers import assert_close, gradcheck

RNG = np.random.default_rng(99)
N, C = 6, 4


def _reduce(v, reduction):
    return {"none": v, "mean": v.mean(), "sum": v.sum()}[reduction]


def _t(a):
    return torch.from_numpy(np.asarray(a))


# numpy references, written from the documented formulas
def ref_cross_entropy(x, y, w=None, ignore_index=-100, reduction="mean", ls=0.0):
    logp = special.log_softmax(x, axis=1)
    w = np.ones(x.shape[1]) if w is None else w
    valid = y != ignore_index
    yy = np.where(valid, y, 0)
    nll = -logp[np.arange(len(y)), yy] * w[yy]
    smooth = -(logp * w).sum(1) / x.shape[1]
    loss = np.where(valid, (1 - ls) * nll + ls * smooth, 0.0)
    if reduction == "mean":
        return loss.sum() / (w[yy] * valid).sum()
    return _reduce(loss, reduction)


def ref_nll(logp, y, w=None, reduction="mean"):
    w = np.ones(logp.shape[1]) if w is None else w
    loss = -logp[np.arange(len(y)), y] * w[y]
    return loss.sum() / w[y].sum() if reduction == "mean" else _reduce(loss, reduction)


REDUCTIONS = ["none", "mean", "sum"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_pointwise_losses(reduction):
    x, y = RNG.standard_normal((N, C)), RNG.standard_normal((N, C))
    p, t = special.expit(x), RNG.uniform(size=(N, C))
    d = x - y
    ad = np.abs(d)
    cases = [
        (nn.MSELoss(reduction=reduction), (x, y), d ** 2),
        (nn.L1Loss(reduction=reduction), (x, y), ad),
        (nn.SmoothL1Loss(reduction=reduction, beta=0.5), (x, y),
         np.where(ad < 0.5, 0.5 * d ** 2 / 0.5, ad - 0.25)),
        (nn.HuberLoss(reduction=reduction, delta=0.7), (x, y),
         np.where(ad < 0.7, 0.5 * d ** 2, 0.7 * (ad - 0.35))),
        (nn.BCELoss(reduction=reduction), (p, t), -(t * np.log(p) + (1 - t) * np.log(1 - p))),
        (nn.BCEWithLogitsLoss(reduction=reduction), (x, t),
         -(t * np.log(special.expit(x)) + (1 - t) * np.log(1 - special.expit(x)))),
        (nn.SoftMarginLoss(reduction=reduction), (x, np.sign(y)), np.log1p(np.exp(-np.sign(y) * x))),
        (nn.PoissonNLLLoss(reduction=reduction), (x, np.abs(y)), np.exp(x) - np.abs(y) * x),
        (nn.HingeEmbeddingLoss(margin=0.5, reduction=reduction), (x, np.sign(y)),
         np.where(np.sign(y) == 1, x, np.maximum(0, 0.5 - x))),
    ]
    for loss, args, ref in cases:
        got = loss(*[_t(a) for a in args])
        assert_close(got, _reduce(ref, reduction), rtol=1e-10, atol=1e-12,
                     call=f"{type(loss).__name__}(reduction={reduction!r})")
        # the module is its functional counterpart with the stored options
        assert got.dtype == torch.float64


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_and_nll(reduction):
    x = RNG.standard_normal((N, C))
    y = RNG.integers(0, C, N)
    w = RNG.uniform(0.5, 2.0, C)
    assert_close(nn.CrossEntropyLoss(reduction=reduction)(_t(x), _t(y)),
                 ref_cross_entropy(x, y, reduction=reduction), rtol=1e-10, call="CE")
    assert_close(nn.CrossEntropyLoss(weight=_t(w), reduction=reduction)(_t(x), _t(y)),
                 ref_cross_entropy(x, y, w, reduction=reduction), rtol=1e-10, call="CE weight")
    y_ign = y.copy()
    y_ign[[1, 4]] = -1
    assert_close(nn.CrossEntropyLoss(ignore_index=-1, reduction=reduction)(_t(x), _t(y_ign)),
                 ref_cross_entropy(x, y_ign, ignore_index=-1, reduction=reduction), rtol=1e-10,
                 call="CE ignore_index")
    assert_close(nn.CrossEntropyLoss(label_smoothing=0.2, reduction=reduction)(_t(x), _t(y)),
                 ref_cross_entropy(x, y, ls=0.2, reduction=reduction), rtol=1e-10,
                 call="CE label_smoothing")
    logp = special.log_softmax(x, axis=1)
    assert_close(nn.NLLLoss(weight=_t(w), reduction=reduction)(_t(logp), _t(y)),
                 ref_nll(logp, y, w, reduction), rtol=1e-10, call="NLL")


def test_cross_entropy_probability_targets_and_spatial():
    x = RNG.standard_normal((N, C))
    q = special.softmax(RNG.standard_normal((N, C)), axis=1)
    ref = -(q * special.log_softmax(x, axis=1)).sum(1).mean()
    assert_close(nn.CrossEntropyLoss()(_t(x), _t(q)), ref, rtol=1e-10, call="CE probs")
    # (N, C, d) inputs with (N, d) targets: class dim is 1
    x3 = RNG.standard_normal((2, C, 3))
    y3 = RNG.integers(0, C, (2, 3))
    flat_x = np.moveaxis(x3, 1, -1).reshape(-1, C)
    assert_close(nn.CrossEntropyLoss()(_t(x3), _t(y3)), ref_cross_entropy(flat_x, y3.ravel()),
                 rtol=1e-10, call="CE spatial")


def test_kl_div_gaussian_nll_and_pairwise_losses():
    logq = special.log_softmax(RNG.standard_normal((N, C)), axis=1)
    p = special.softmax(RNG.standard_normal((N, C)), axis=1)
    kl = p * (np.log(p) - logq)
    assert_close(nn.KLDivLoss(reduction="batchmean")(_t(logq), _t(p)), kl.sum() / N, rtol=1e-10,
                 call="KL batchmean")
    assert_close(nn.KLDivLoss(reduction="sum", log_target=True)(_t(logq), _t(np.log(p))),
                 kl.sum(), rtol=1e-10, call="KL log_target")
    assert_close(nn.KLDivLoss()(_t(logq), _t(p)), kl.mean(), rtol=1e-10, call="KL mean")
    mu, tgt, var = (RNG.standard_normal((N, C)), RNG.standard_normal((N, C)),
                    RNG.uniform(0.1, 2, (N, C)))
    ref = 0.5 * (np.log(var) + (mu - tgt) ** 2 / var)
    assert_close(nn.GaussianNLLLoss()(_t(mu), _t(tgt), _t(var)), ref.mean(), rtol=1e-10,
                 call="GaussianNLL")
    a, b = RNG.standard_normal(N), RNG.standard_normal(N)
    s = np.sign(RNG.standard_normal(N))
    assert_close(nn.MarginRankingLoss(margin=0.1)(_t(a), _t(b), _t(s)),
                 np.maximum(0, -s * (a - b) + 0.1).mean(), rtol=1e-10, call="MarginRanking")
    u, v = RNG.standard_normal((N, C)), RNG.standard_normal((N, C))
    cos = (u * v).sum(1) / (np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1))
    ref = np.where(s == 1, 1 - cos, np.maximum(0, cos - 0.2))
    assert_close(nn.CosineEmbeddingLoss(margin=0.2)(_t(u), _t(v), _t(s)), ref.mean(), rtol=1e-10,
                 call="CosineEmbedding")
    an, po, ne = (RNG.standard_normal((N, C)) for _ in range(3))
    dp = np.linalg.norm(an - po + 1e-6, axis=1)
    dn = np.linalg.norm(an - ne + 1e-6, axis=1)
    assert_close(nn.TripletMarginLoss()(_t(an), _t(po), _t(ne)), np.maximum(dp - dn + 1, 0).mean(),
                 rtol=1e-10, call="TripletMargin")
    tm = RNG.integers(0, 2, (N, C)).astype(float)
    ref = -(tm * np.log(special.expit(u)) + (1 - tm) * np.log(special.expit(-u))).mean(1).mean()
    assert_close(nn.MultiLabelSoftMarginLoss()(_t(u), _t(tm)), ref, rtol=1e-10,
                 call="MultiLabelSoftMargin")


def test_bce_weights_and_pos_weight_and_clamp():
    x, t = RNG.standard_normal((N, C)), RNG.uniform(size=(N, C))
    w, pw = RNG.uniform(0.5, 2, C), RNG.uniform(0.5, 3, C)
    sig = special.expit(x)
    ref = -w * (pw * t * np.log(sig) + (1 - t) * np.log(1 - sig))
    assert_close(nn.BCEWithLogitsLoss(weight=_t(w), pos_weight=_t(pw))(_t(x), _t(t)), ref.mean(),
                 rtol=1e-10, call="BCEWithLogits weight/pos_weight")
    # log(0) is clamped to -100, as torch does
    with np.errstate(divide="ignore"):
        assert nn.BCELoss()(_t([0.0, 1.0]), _t([1.0, 0.0])).item() == 100.0
    # large logits stay finite
    assert np.isfinite(nn.BCEWithLogitsLoss()(_t([1000.0, -1000.0]), _t([0.0, 1.0])).item())


def test_loss_weights_are_buffers_and_legacy_args():
    ce = nn.CrossEntropyLoss(weight=torch.ones(3))
    assert list(ce.state_dict()) == ["weight"]
    assert list(nn.BCEWithLogitsLoss(pos_weight=torch.ones(2)).state_dict()) == ["pos_weight"]
    assert list(nn.MSELoss().state_dict()) == []
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated, please "
                                         "use reduction='sum' instead."):
        assert nn.MSELoss(size_average=False).reduction == "sum"
    with pytest.warns(UserWarning):
        assert nn.L1Loss(reduce=False).reduction == "none"


LOSS_GRADS = [
    ("MSE", lambda: nn.MSELoss(), lambda: [RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))]),
    ("L1", lambda: nn.L1Loss(reduction="sum"),
     lambda: [RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))]),
    ("SmoothL1", lambda: nn.SmoothL1Loss(beta=0.5),
     lambda: [RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))]),
    ("Huber", lambda: nn.HuberLoss(delta=0.5, reduction="none"),
     lambda: [RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))]),
    ("BCE", lambda: nn.BCELoss(), lambda: [RNG.uniform(0.1, 0.9, (3, 4)),
                                           RNG.uniform(size=(3, 4))]),
    ("BCEWithLogits", lambda: nn.BCEWithLogitsLoss(pos_weight=torch.full((4,), 2.0,
                                                                         dtype=torch.float64)),
     lambda: [RNG.standard_normal((3, 4)), RNG.uniform(size=(3, 4))]),
    ("KLDiv", lambda: nn.KLDivLoss(reduction="batchmean"),
     lambda: [special.log_softmax(RNG.standard_normal((3, 4)), 1),
              special.softmax(RNG.standard_normal((3, 4)), 1)]),
    ("CE-probs", lambda: nn.CrossEntropyLoss(label_smoothing=0.1),
     lambda: [RNG.standard_normal((3, 4)), special.softmax(RNG.standard_normal((3, 4)), 1)]),
    ("GaussianNLL", lambda: nn.GaussianNLLLoss(),
     lambda: [RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4)),
              RNG.uniform(0.5, 2, (3, 4))]),
    ("CosineEmbedding", lambda: nn.CosineEmbeddingLoss(),
     lambda: [RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))]),
    ("TripletMargin", lambda: nn.TripletMarginLoss(margin=3.0),
     lambda: [RNG.standard_normal((3, 4)) for _ in range(3)]),
    ("TripletMarginWithDistance", lambda: nn.TripletMarginWithDistanceLoss(
        distance_function=lambda x, y: (x - y).abs().sum(-1), margin=3.0, swap=True),
     lambda: [RNG.standard_normal((3, 4)) + 0.5 * k for k in range(3)]),
]


@pytest.mark.parametrize("name, make, inputs", LOSS_GRADS, ids=[c[0] for c in LOSS_GRADS])
def test_loss_gradients(name, make, inputs):
    loss = make()
    args = inputs()
    if name == "CosineEmbedding":
        y = torch.tensor([1.0, -1.0, 1.0], dtype=torch.float64)
        gradcheck(lambda a, b: loss(a, b, y), *args, name=name)
    else:
        gradcheck(loss, *args, name=name)


@pytest.mark.parametrize("weighted", [False, True])
def test_class_index_loss_gradients(weighted):
    y = torch.tensor([0, 3, 1, 3, 2])
    w = torch.tensor([1.0, 2.0, 0.5, 1.5], dtype=torch.float64) if weighted else None
    ce = nn.CrossEntropyLoss(weight=w, ignore_index=2, label_smoothing=0.1)
    gradcheck(lambda x: ce(x, y), RNG.standard_normal((5, 4)), name="CrossEntropy")
    nll = nn.NLLLoss(weight=w, reduction="sum")
    gradcheck(lambda x: nll(x, y), RNG.standard_normal((5, 4)), name="NLL")


@pytest.mark.parametrize("loss", [nn.MSELoss(reduction="avg"), nn.L1Loss(reduction="avg"),
                                  nn.CrossEntropyLoss(reduction="avg"),
                                  nn.KLDivLoss(reduction="avg"), nn.HuberLoss(reduction="avg"),
                                  nn.BCEWithLogitsLoss(reduction="avg")],
                         ids=lambda m: type(m).__name__)
def test_bad_reduction_name(loss):
    x = torch.rand(2, 3)
    y = torch.tensor([0, 1]) if isinstance(loss, nn.CrossEntropyLoss) else torch.rand(2, 3)
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        loss(x, y)


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("action, exc, msg", [
    (lambda: nn.CrossEntropyLoss()(torch.randn(2, 3), torch.tensor([0, 3])), IndexError,
     "Target 3 is out of bounds."),
    (lambda: nn.CrossEntropyLoss()(torch.randn(2, 3), torch.tensor([0, 1, 1])), ValueError,
     "Expected input batch_size (2) to match target batch_size (3)."),
    (lambda: nn.NLLLoss()(torch.randn(2, 3), torch.tensor([0.0, 1.0])), RuntimeError,
     "expected target dtype to be Long or Byte, but got Float"),
    (lambda: nn.BCELoss()(torch.tensor([1.5]), torch.rand(1)), RuntimeError,
     "all elements of input should be between 0 and 1"),
    (lambda: nn.BCEWithLogitsLoss()(torch.randn(2), torch.rand(3)), ValueError,
     "Target size (torch.Size([3])) must be the same as input size (torch.Size([2]))"),
    (lambda: nn.L1Loss()(torch.randn(2, 3), torch.randn(4, 3)), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 0"),
    (lambda: nn.HuberLoss(delta=0)(torch.randn(2), torch.randn(2)), RuntimeError,
     "huber_loss does not support non-positive values for delta."),
    (lambda: nn.CrossEntropyLoss(label_smoothing=2.0)(torch.randn(2, 3), torch.tensor([0, 1])),
     RuntimeError, "label_smoothing must be between 0.0 and 1.0. Got: 2"),
    (lambda: nn.TripletMarginLoss(margin=0), ValueError,
     "TripletMarginLoss: expected margin to be greater than 0, got 0 instead"),
    (lambda: nn.TripletMarginWithDistanceLoss(margin=0), ValueError,
     "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got 0 instead"),
    (lambda: nn.functional.triplet_margin_with_distance_loss(
        torch.randn(2, 3), torch.randn(2, 3), torch.randn(2, 3), margin=-1.0), ValueError,
     "margin must be greater than 0, got -1.0"),
    (lambda: nn.TripletMarginWithDistanceLoss()(torch.randn(2, 3), torch.randn(2, 3),
                                                 torch.randn(3)), RuntimeError,
     "The anchor, positive, and negative tensors are expected to have the same number of "
     "dimensions, but got: anchor 2D, positive 2D, and negative 1D inputs"),
])
def test_bad_target_errors(action, exc, msg):
    with pytest.raises(exc) as info:
        action()
    assert str(info.value.args[0]).startswith(msg), info.value.args[0]


def test_functional_and_module_agree():
    x, y = torch.randn(4, 3), torch.tensor([2, 0, 1, 1])
    assert torch.equal(nn.CrossEntropyLoss(label_smoothing=0.1)(x, y),
                       F.cross_entropy(x, y, label_smoothing=0.1))
    a, b = torch.randn(5), torch.randn(5)
    assert torch.equal(nn.SmoothL1Loss(beta=2.0)(a, b), F.smooth_l1_loss(a, b, beta=2.0))


def test_hinge_embedding_targets_other_than_plus_minus_one():
    # torch: the hinge term wherever target != 1, the input wherever target != -1 (both for 0, 2)
    x = torch.tensor([0.3, -0.5, 2.0, 0.1])
    t = torch.tensor([1.0, -1.0, 0.0, 2.0])
    out = nn.functional.hinge_embedding_loss(x, t, margin=1.0, reduction="none")
    assert_close(out, np.array([0.3, 1.5, 2.0, 1.0]), rtol=1e-6, call="hinge")


_SAVES_BOTH = ["smooth_l1_loss", "huber_loss", "mse_loss", "soft_margin_loss",
               "binary_cross_entropy_with_logits"]


@pytest.mark.parametrize("fn", _SAVES_BOTH + ["l1_loss"])
@pytest.mark.parametrize("which", ["input", "target"])
@pytest.mark.parametrize("mixed", [False, True])
def test_losses_refuse_an_operand_changed_in_place_before_backward(fn, which, mixed):
    """torch's loss nodes save the input and the target themselves (not a promoted copy): one
    changed in place before backward is refused with the version error, also when the two
    dtypes differ (we had checked only the promoted copies) and for the losses we compose (mse,
    soft margin). l1_loss is composed in torch too (its abs node saves the difference)."""
    def run(T):
        x = T.tensor([0.3, -1.2, 2.0], requires_grad=True) * 1.0
        t = T.tensor([0.1, 0.4, -0.5], dtype=T.float64 if mixed else T.float32)
        loss = getattr(T.nn.functional, fn)(x, t)
        (x if which == "input" else t).add_(1.0)
        try:
            loss.backward()
        except RuntimeError as e:
            assert "modified by an inplace operation" in str(e)
            return "refused"
        return "ran"
    assert run(torch) == ("ran" if fn == "l1_loss" else "refused")
    real = pytest.importorskip("torch")
    assert run(real) == run(torch)
