"""The losses over their argument space, swept against torch: every reduction of ten losses,
class-index targets of every kind (float, int32, out of range, ignored, all ignored), class
weights (wrong size, wrong dtype), label smoothing, 1-d/3-d inputs, shape and dtype
mismatches, legacy ``size_average``/``reduce``, and the less common losses."""
from __future__ import annotations

from minitorch_cs import torch
from tests.torch._sweeps import Outcomes, assert_same_as_torch, describe


def _outcomes(T):  # noqa: C901 (one table of calls)
    F = T.nn.functional
    res = Outcomes(show=describe)
    run = res.run
    x = T.tensor([[0.2, -1.0, 0.5], [1.5, 0.3, -0.2]])
    t_idx = T.tensor([2, 0])
    t_prob = T.softmax(T.tensor([[1., 2., 3.], [0., 0., 1.]]), 1)
    y = T.tensor([[0.1, 0.9, 0.4], [0.6, 0.2, 0.3]])
    for red in ["mean", "sum", "none", "bogus", None]:
        kw = {} if red is None else {"reduction": red}
        run(f"ce idx {red}", lambda: F.cross_entropy(x, t_idx, **kw))
        run(f"ce prob {red}", lambda: F.cross_entropy(x, t_prob, **kw))
        run(f"nll {red}", lambda: F.nll_loss(F.log_softmax(x, 1), t_idx, **kw))
        run(f"mse {red}", lambda: F.mse_loss(x, y, **kw))
        run(f"l1 {red}", lambda: F.l1_loss(x, y, **kw))
        run(f"bce {red}", lambda: F.binary_cross_entropy(T.sigmoid(x), y, **kw))
        run(f"bcel {red}", lambda: F.binary_cross_entropy_with_logits(x, y, **kw))
        run(f"huber {red}", lambda: F.huber_loss(x, y, **kw))
        run(f"smoothl1 {red}", lambda: F.smooth_l1_loss(x, y, **kw))
        run(f"kl {red}", lambda: F.kl_div(F.log_softmax(x, 1), t_prob, **kw))
    run("ce target float idx", lambda: F.cross_entropy(x, t_idx.float()))
    run("ce target int32", lambda: F.cross_entropy(x, t_idx.int()))
    run("ce target oob", lambda: F.cross_entropy(x, T.tensor([3, 0])))
    run("ce target neg", lambda: F.cross_entropy(x, T.tensor([-1, 0])))
    run("ce ignore_index", lambda: F.cross_entropy(x, T.tensor([-100, 0])))
    run("ce ignore all", lambda: F.cross_entropy(x, T.tensor([-100, -100])))
    run("ce ignore all sum", lambda: F.cross_entropy(x, T.tensor([-100, -100]), reduction="sum"))
    run("ce weight", lambda: F.cross_entropy(x, t_idx, weight=T.tensor([1., 2., 3.])))
    run("ce weight wrong size", lambda: F.cross_entropy(x, t_idx, weight=T.tensor([1., 2.])))
    run("ce weight f64", lambda: F.cross_entropy(x, t_idx, weight=T.tensor([1., 2., 3.], dtype=T.float64)))
    run("ce label_smoothing", lambda: F.cross_entropy(x, t_idx, label_smoothing=0.1))
    run("ce label_smoothing neg", lambda: F.cross_entropy(x, t_idx, label_smoothing=-0.1))
    run("ce label_smoothing prob", lambda: F.cross_entropy(x, t_prob, label_smoothing=0.2))
    run("ce 1d input", lambda: F.cross_entropy(x[0], T.tensor(2)))
    run("ce 3d input", lambda: F.cross_entropy(x.reshape(1, 3, 2), T.tensor([[1, 0]])))
    run("ce batch mismatch", lambda: F.cross_entropy(x, T.tensor([1, 0, 2])))
    run("ce prob shape mismatch", lambda: F.cross_entropy(x, t_prob[:, :2]))
    run("ce int input", lambda: F.cross_entropy(x.long(), t_idx))
    run("mse shape mismatch", lambda: F.mse_loss(x, y[0]))
    run("mse int target", lambda: F.mse_loss(x, y.long()))
    run("mse f64 target", lambda: F.mse_loss(x, y.double()))
    run("bce out of range", lambda: F.binary_cross_entropy(x, y))
    run("bce shape mismatch", lambda: F.binary_cross_entropy(T.sigmoid(x), y[0]))
    run("bce weight", lambda: F.binary_cross_entropy(T.sigmoid(x), y, weight=T.tensor([1., 2., 3.])))
    run("bcel pos_weight", lambda: F.binary_cross_entropy_with_logits(x, y, pos_weight=T.tensor([1., 2., 3.])))
    run("bcel pos_weight bad", lambda: F.binary_cross_entropy_with_logits(x, y, pos_weight=T.tensor([1., 2.])))
    run("huber delta 0", lambda: F.huber_loss(x, y, delta=0.0))
    run("huber delta neg", lambda: F.huber_loss(x, y, delta=-1.0))
    run("smoothl1 beta 0", lambda: F.smooth_l1_loss(x, y, beta=0.0))
    run("smoothl1 beta neg", lambda: F.smooth_l1_loss(x, y, beta=-1.0))
    run("kl log_target", lambda: F.kl_div(F.log_softmax(x, 1), T.log(t_prob), reduction="batchmean", log_target=True))
    run("nll 1d target 2d", lambda: F.nll_loss(x, T.tensor([[1, 0]])))
    run("size_average False", lambda: F.mse_loss(x, y, size_average=False))
    run("reduce False", lambda: F.mse_loss(x, y, reduce=False))
    run("cosine_embedding", lambda: F.cosine_embedding_loss(x, y, T.tensor([1, -1])))
    run("margin_ranking", lambda: F.margin_ranking_loss(x[0], y[0], T.tensor([1., -1., 1.])))
    run("hinge_embedding", lambda: F.hinge_embedding_loss(x, T.tensor([[1., -1., 1.], [-1., 1., 1.]])))
    run("poisson_nll", lambda: F.poisson_nll_loss(x, y))
    run("gaussian_nll", lambda: F.gaussian_nll_loss(x, y, T.ones(2, 3)))
    run("triplet", lambda: F.triplet_margin_loss(x, y, x.flip(0)))
    run("soft_margin", lambda: F.soft_margin_loss(x, T.sign(y - 0.3)))
    run("multilabel_margin", lambda: F.multilabel_margin_loss(x, T.tensor([[2, -1, 0], [0, 1, -1]])))
    run("multi_margin", lambda: F.multi_margin_loss(x, t_idx))
    return res


def test_loss_arguments_match_torch():
    assert_same_as_torch(_outcomes, torch)
