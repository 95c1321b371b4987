"""``multi_margin_loss`` and ``multilabel_margin_loss`` (functional and modules): values,
shapes and gradients against torch over random inputs, every reduction, ``p``, ``margin`` and
``weight``, 1-d and 2-d inputs; float64 gradient checks."""
from __future__ import annotations

import numpy as np
import pytest

from minitorch_cs import torch
from tests.helpers import gradcheck


def _cases(seed):
    rng = np.random.default_rng(seed)
    n, c = int(rng.integers(1, 5)), int(rng.integers(2, 6))
    x = rng.standard_normal((n, c))
    y = rng.integers(0, c, n)
    labels = np.full((n, c), -1)
    for i in range(n):
        k = int(rng.integers(0, c + 1))
        labels[i, :k] = rng.permutation(c)[:k]
    return x, y, labels, rng


def _run(T, x, y, labels, kw, which, one_d):
    xi = T.tensor(x, requires_grad=True)
    inp = xi[0] if one_d else xi
    F = T.nn.functional
    if which == "multi":
        tgt = T.tensor(y[0] if one_d else y)
        out = F.multi_margin_loss(inp, tgt, **kw)
    else:
        tgt = T.tensor(labels[0] if one_d else labels)
        out = F.multilabel_margin_loss(inp, tgt, **kw)
    out.sum().backward()
    return out.detach().numpy(), xi.grad.numpy()


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("which", ["multi", "multilabel"])
def test_margin_losses_match_torch(seed, which):
    real = pytest.importorskip("torch")
    x, y, labels, rng = _cases(seed)
    for reduction in ("mean", "sum", "none"):
        for one_d in (False, True):
            kw = {"reduction": reduction}
            if which == "multi":
                kw.update(p=int(rng.integers(1, 3)), margin=float(rng.uniform(0.2, 2.0)))
                if rng.random() < 0.5:
                    kw["weight"] = rng.uniform(0.1, 2.0, x.shape[1])
            mine_kw = dict(kw, weight=torch.tensor(kw["weight"])) if "weight" in kw else kw
            real_kw = dict(kw, weight=real.tensor(kw["weight"])) if "weight" in kw else kw
            want = _run(real, x, y, labels, real_kw, which, one_d)
            got = _run(torch, x, y, labels, mine_kw, which, one_d)
            for w, g in zip(want, got):
                assert w.shape == g.shape
                np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_margin_losses_gradcheck():
    x, y, labels, _ = _cases(3)
    F = torch.nn.functional
    gradcheck(lambda a: F.multi_margin_loss(a, torch.tensor(y), p=2, margin=0.7), x + 0.013)
    gradcheck(lambda a: F.multilabel_margin_loss(a, torch.tensor(labels)), x + 0.013)


def test_margin_loss_modules_and_checks():
    x = torch.tensor([[0.2, -1.0, 0.5], [1.5, 0.3, -0.2]])
    assert torch.nn.MultiMarginLoss(p=2)(x, torch.tensor([2, 0])).item() == pytest.approx(
        torch.nn.functional.multi_margin_loss(x, torch.tensor([2, 0]), p=2).item())
    loss = torch.nn.MultiLabelMarginLoss()(x, torch.tensor([[2, -1, 0], [0, 1, -1]]))
    assert loss.item() == pytest.approx(0.2, rel=1e-6)
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        torch.nn.MultiMarginLoss(p=3)
