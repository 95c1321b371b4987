"""``cstorch.nn`` losses: values, gradients, the ``use_autogen`` flag and the errors equal the real
stack's (a golden file made with cerebras-pytorch 2.10, and a live run when the reference Python is
set); the names the real module has but we do not provide fail with a message saying why."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import minitorch_cs as cstorch
from minitorch_cs import torch

from . import _cstorch_nn_loss_cases as C

HERE = Path(__file__).parent
GOLDEN = json.loads((HERE / "data" / "real_cstorch_nn_losses.json").read_text())


@pytest.fixture(scope="module")
def ours():
    return json.loads(C.dumps(C.run(torch, cstorch.nn)))


def _floats(v):
    return np.array([float(e) for e in np.ravel(np.array(v, dtype=object))], dtype=np.float64)


def _assert_same(case, real, got):
    if "error" in real or "error" in got:
        assert got.get("error") == real.get("error"), case
        return
    assert got["autogen"] == real["autogen"], case
    assert np.shape(got["value"]) == np.shape(real["value"]), case
    np.testing.assert_allclose(_floats(got["value"]), _floats(real["value"]), rtol=2e-6,
                               atol=1e-7, err_msg=case)
    assert [g is None for g in got["grads"]] == [g is None for g in real["grads"]], case
    for g, r in zip(got["grads"], real["grads"]):
        if r is not None:
            np.testing.assert_allclose(_floats(g), _floats(r), rtol=2e-5, atol=1e-6, err_msg=case)


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_losses_equal_the_real_stack(case, ours):
    _assert_same(case, GOLDEN[case], ours[case])


@pytest.mark.reference
def test_losses_equal_a_live_real_run(reference_python, ours):
    out = subprocess.run([reference_python, str(HERE / "_cstorch_nn_loss_cases.py")],
                         capture_output=True, text=True, check=True)
    real = json.loads(out.stdout)
    assert set(real) == set(ours)
    for case in real:
        _assert_same(case, real[case], ours[case])


def test_every_real_loss_name_is_provided_except_ctc():
    real = ["BCELoss", "BCEWithLogitsLoss", "CTCLoss", "CosineEmbeddingLoss", "CrossEntropyLoss",
            "DiceCELoss", "DiceLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "HuberLoss",
            "KLDivLoss", "L1Loss", "MSELoss", "MarginRankingLoss", "MultiLabelSoftMarginLoss",
            "MultiMarginLoss", "NLLLoss", "PoissonNLLLoss", "SmoothL1Loss", "TripletMarginLoss",
            "TripletMarginWithDistanceLoss"]  # dir(cerebras.pytorch.nn), 2.10
    assert sorted(set(real) - {"CTCLoss"}) == sorted(set(cstorch.nn.__all__) - {"functional"})
    for name in ("CTCLoss", "Parameter", "Buffer", "Scope", "SelectiveGrad"):
        with pytest.raises(AttributeError, match=rf"cstorch.nn.{name} is not provided"):
            getattr(cstorch.nn, name)
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        cstorch.nn.Nope  # noqa: B018


def test_torch_losses_are_subclasses_and_default_autogen_off():
    loss = cstorch.nn.CrossEntropyLoss(reduction="sum")
    assert isinstance(loss, torch.nn.CrossEntropyLoss) and loss.autogen_enabled is False
    assert cstorch.nn.MSELoss(use_autogen=True).autogen_enabled is True
    assert isinstance(cstorch.nn.DiceCELoss(3, False), torch.nn.Module)
    assert not isinstance(cstorch.nn.DiceLoss(3), torch.nn.Module)  # a plain callable, as in cstorch


def test_dice_of_a_perfect_prediction_is_one():
    labels = torch.tensor(np.random.default_rng(0).integers(0, 3, (2, 2, 2, 2)))
    logits = 50.0 * torch.nn.functional.one_hot(labels, 3).permute(0, 4, 1, 2, 3).float()
    dice = cstorch.nn.DiceLoss(3, include_background=True)(logits, labels, [2, 3, 2, 2, 2])
    present = np.stack([(labels.numpy() == c).any(axis=(1, 2, 3)) for c in range(3)], 1)
    np.testing.assert_allclose(dice.numpy()[present], 1.0, rtol=1e-5)
    loss = cstorch.nn.DiceCELoss(3, include_background=True, wc=0.0, wd=1.0)
    assert loss(logits, labels, [2, 3, 2, 2, 2]).item() == pytest.approx(
        1.0 - dice.mean().item(), abs=1e-6)
