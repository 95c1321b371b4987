"""The cstorch metrics beyond accuracy/mean/perplexity: values equal the real stack's (a golden
file made with cerebras-pytorch 2.10, and a live run when the reference Python is set), and the
real stack's errors."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import minitorch_cs as cstorch
from minitorch_cs import torch
from minitorch_cs.metrics import (AUCMetric, DiceCoefficientMetric, FBetaScoreMetric,
                                  MeanIOUMetric, MeanPerClassAccuracyMetric, PrecisionAtKMetric,
                                  RecallAtKMetric, get_all_metrics)

from . import _metric_cases

HERE = Path(__file__).parent
GOLDEN = json.loads((HERE / "data" / "real_metrics.json").read_text())


@pytest.fixture(scope="module")
def ours():
    return _metric_cases.run(torch, cstorch.metrics)


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_values_equal_the_real_stack(case, ours):
    np.testing.assert_allclose(ours[case], GOLDEN[case], rtol=2e-6, atol=1e-7, err_msg=case)


@pytest.mark.reference
def test_values_equal_a_live_real_run(reference_python, ours):
    out = subprocess.run([reference_python, str(HERE / "_metric_cases.py")], capture_output=True,
                         text=True, check=True)
    real = json.loads(out.stdout.strip().splitlines()[-1])
    assert set(real) == set(ours)
    for case in real:
        np.testing.assert_allclose(ours[case], real[case], rtol=2e-6, atol=1e-7, err_msg=case)


def _t(a, dtype=None):
    return torch.tensor(a, dtype=dtype)


def test_mean_iou_by_hand():
    m = MeanIOUMetric(3, name="miou")
    labels, preds = _t([0, 0, 1, 1, 2]), _t([0, 1, 1, 1, 0])
    m.update(labels, preds)
    # class 0: TP 1, FP 1, FN 1 -> 1/3; class 1: TP 2, FP 1 -> 2/3; class 2: TP 0 FN 1 -> 0
    assert float(m.compute()) == pytest.approx((1 / 3 + 2 / 3 + 0) / 3, rel=1e-6)
    m.reset()
    assert float(m.confusion_matrix.sum()) == 0.0


def test_dice_ignores_absent_classes_and_returns_zero_without_data():
    m = DiceCoefficientMetric(4, name="dice")
    assert float(m.compute()) == 0.0
    m.update(_t([[1, 1]]), _t([[1, 1]]))
    assert float(m.compute()) == pytest.approx(1.0)


def test_dtype_argument_casts_the_result():
    m = MeanPerClassAccuracyMetric(2, name="m")
    m.update(_t([0, 1]), _t([0, 0]), dtype=torch.float16)
    assert m.compute().dtype == torch.float16
    assert float(m.compute()) == pytest.approx(0.5)


def test_precision_recall_at_k_by_hand():
    labels = _t([[0, 2]])
    scores = _t([[0.9, 0.8, 0.1, 0.0]])   # top-2: classes 0, 1
    p, r = PrecisionAtKMetric(2, name="p"), RecallAtKMetric(2, name="r")
    p.update(labels, scores)
    r.update(labels, scores)
    assert p.compute() == pytest.approx(0.5) and isinstance(p.compute(), float)
    assert r.compute() == pytest.approx(0.5)
    assert r.num_classes == 4


def test_auc_perfect_and_random_classifiers():
    perfect = AUCMetric(name="auc")
    perfect.update(_t([0, 0, 1, 1]), _t([0.1, 0.2, 0.8, 0.9]))
    assert perfect.compute() == pytest.approx(1.0, abs=1e-6)
    inverted = AUCMetric(name="auc")
    inverted.update(_t([1, 1, 0, 0]), _t([0.1, 0.2, 0.8, 0.9]))
    assert inverted.compute() == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("make,match", [
    (lambda: AUCMetric(curve="XY"), "Curve must be either ROC or PR"),
    (lambda: AUCMetric(summation_method="mid"), "Invalid AUC summation method"),
    (lambda: AUCMetric(num_thresholds=1), "num_thresholds must be > 1"),
    (lambda: FBetaScoreMetric(1), "'num_classes' should be at least 2"),
    (lambda: FBetaScoreMetric(3, beta=0), "'beta' should be a positive number"),
    (lambda: FBetaScoreMetric(3, average_type="weighted"), "average_type has to be one of"),
])
def test_constructor_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_update_errors():
    with pytest.raises(ValueError, match="mismatched shapes of"):
        DiceCoefficientMetric(3, name="d").update(_t([0, 1]), _t([0]))
    with pytest.raises(ValueError, match="mismatched shapes. Their shapes were"):
        MeanIOUMetric(3, name="m").update(_t([0, 1]), _t([0]))
    with pytest.raises(ValueError, match="Negative values in `labels`"):
        MeanIOUMetric(3, name="m").update(_t([-1, 1]), _t([0, 1]))
    with pytest.raises(ValueError, match="must be in \\[0, 1\\]"):
        AUCMetric(name="a").update(_t([0, 1]), _t([0.5, 1.5]))
    with pytest.raises(ValueError, match="must be a scalar or a vector of size 1"):
        PrecisionAtKMetric(1, name="p").update(_t([[0]]), _t([[0.1, 0.2]]), weights=_t([1., 2.]))


def test_not_supported_on_csx():
    cstorch.backend("CSX")
    for cls in (AUCMetric, lambda name: PrecisionAtKMetric(1, name=name),
                lambda name: RecallAtKMetric(1, name=name)):
        with pytest.raises(NotImplementedError, match="not yet supported on CSX"):
            cls(name="x")


def test_registry_names_repeated_metrics():
    before = {n for n, _ in get_all_metrics()}
    MeanIOUMetric(2, name="registry_probe")
    MeanIOUMetric(2, name="registry_probe")
    names = {n for n, _ in get_all_metrics()} - before
    assert {"registry_probe.0", "registry_probe.1"} <= names


def test_state_is_not_persistent_by_default():
    m = FBetaScoreMetric(3, name="f")
    assert m.state_dict() == {} or "confusion_matrix" not in m.state_dict()
