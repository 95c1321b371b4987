"""Metric cases run identically on minitorch_cs and (as a script) on the real cstorch stack.

``run(torch, metrics)`` takes the two namespaces (``torch``/``cstorch.metrics`` of either stack)
and returns ``{case: [value after update 1, value after update 2]}``; the inputs come from a
fixed numpy seed, so both stacks see the same numbers.
"""
import numpy as np


def _inputs():
    rng = np.random.default_rng(7)
    seg_l = [rng.integers(0, 4, size=(3, 5)) for _ in range(2)]
    seg_p = [np.where(rng.random((3, 5)) < 0.6, l, rng.integers(0, 4, size=(3, 5))) for l in seg_l]
    seg_w = [(rng.random((3, 5)) > 0.2).astype(np.float32) for _ in range(2)]
    bin_l = [rng.integers(0, 2, size=(40,)) for _ in range(2)]
    bin_p = [np.clip(0.35 * l + 0.65 * rng.random(40), 0, 1).astype(np.float32) for l in bin_l]
    bin_w = [rng.random(40).astype(np.float32) for _ in range(2)]
    k_l = [np.stack([rng.choice(6, size=2, replace=False) for _ in range(5)]) for _ in range(2)]
    k_p = [rng.standard_normal((5, 6)).astype(np.float32) for _ in range(2)]
    k_w = [rng.random(5).astype(np.float32) for _ in range(2)]
    return dict(seg_l=seg_l, seg_p=seg_p, seg_w=seg_w, bin_l=bin_l, bin_p=bin_p, bin_w=bin_w,
                k_l=k_l, k_p=k_p, k_w=k_w)


def cases(torch, M):
    """(name, metric factory, update(metric, i)) triples."""
    x = _inputs()
    T = lambda a: torch.tensor(a)  # noqa: E731
    seg = lambda m, i: m.update(T(x["seg_l"][i]), T(x["seg_p"][i]))  # noqa: E731
    segw = lambda m, i: m.update(T(x["seg_l"][i]), T(x["seg_p"][i]),  # noqa: E731
                                 weights=T(x["seg_w"][i]))
    fb = lambda m, i: m.update(T(x["seg_l"][i]), T(x["seg_p"][i]))  # noqa: E731
    auc = lambda m, i: m.update(T(x["bin_l"][i]), T(x["bin_p"][i]))  # noqa: E731
    aucw = lambda m, i: m.update(T(x["bin_l"][i]), T(x["bin_p"][i]),  # noqa: E731
                                 weights=T(x["bin_w"][i]))
    atk = lambda m, i: m.update(T(x["k_l"][i]), T(x["k_p"][i]))  # noqa: E731
    atkw = lambda m, i: m.update(T(x["k_l"][i]), T(x["k_p"][i]), weights=T(x["k_w"][i]))  # noqa
    return [
        ("dice", lambda: M.DiceCoefficientMetric(4, name="d"), seg),
        ("dice_w_ignore", lambda: M.DiceCoefficientMetric(4, ignore_classes=[1], name="d"), segw),
        ("miou", lambda: M.MeanIOUMetric(4, name="m"), seg),
        ("miou_w_ignore", lambda: M.MeanIOUMetric(4, ignore_classes=[0, 3], name="m"), segw),
        ("fbeta_micro", lambda: M.FBetaScoreMetric(4, beta=0.5, name="f"), fb),
        ("fbeta_macro", lambda: M.FBetaScoreMetric(4, beta=2.0, average_type="macro",
                                                   ignore_labels=[2], name="f"), fb),
        ("mpca", lambda: M.MeanPerClassAccuracyMetric(4, name="a"), seg),
        ("mpca_w", lambda: M.MeanPerClassAccuracyMetric(5, name="a"), segw),
        ("auc_roc", lambda: M.AUCMetric(num_thresholds=50, name="u"), auc),
        ("auc_roc_w_min", lambda: M.AUCMetric(num_thresholds=20, summation_method="minoring",
                                              name="u"), aucw),
        ("auc_pr", lambda: M.AUCMetric(curve="PR", name="u"), auc),
        ("auc_pr_major", lambda: M.AUCMetric(curve="PR", summation_method="majoring",
                                             thresholds=[0.1, 0.5, 0.7], name="u"), aucw),
        ("p_at_2", lambda: M.PrecisionAtKMetric(2, name="p"), atk),
        ("p_at_3_w", lambda: M.PrecisionAtKMetric(3, name="p"), atkw),
        ("r_at_2", lambda: M.RecallAtKMetric(2, name="r"), atk),
        ("r_at_1_w", lambda: M.RecallAtKMetric(1, name="r"), atkw),
    ]


def run(torch, M):
    out = {}
    for name, make, update in cases(torch, M):
        m = make()
        vals = []
        for i in range(2):
            update(m, i)
            vals.append(float(m.compute()))
        out[name] = vals
    return out


if __name__ == "__main__":  # on the real stack: python _metric_cases.py
    import json

    import cerebras.pytorch as cstorch
    import torch
    print(json.dumps(run(torch, cstorch.metrics)))
