"""``cstorch.nn`` loss cases run identically on minitorch_cs and (as a script) on the real stack.

``run(torch, cnn)`` takes ``torch`` and ``cstorch.nn`` of either stack and returns, per case, the
loss value, the gradients of ``sum(loss * fixed weights)`` w.r.t. the float inputs, and the
``autogen_enabled`` flag — or the exception type and message when construction or the call fails.
Inputs come from a fixed numpy seed, so both stacks see the same numbers.
"""
import math

import numpy as np


def _data():
    rng = np.random.default_rng(11)
    f = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    return dict(
        x=f(4, 5), t=f(4, 5), y=np.array([0, 2, 4, 1]), p=rng.uniform(0.05, 0.95, (4, 5)).astype(
            np.float32), b=(rng.random((4, 5)) > 0.5).astype(np.float32), sign=np.array(
            [1.0, -1.0, 1.0, -1.0], np.float32), v1=f(4), v2=f(4), var=rng.uniform(
            -0.1, 2.0, (4, 5)).astype(np.float32), var_s=rng.uniform(0.5, 2, (4,)).astype(
            np.float32), w=rng.uniform(0.5, 2, (5,)).astype(np.float32), x1=f(5), y1=np.array(3),
        seg=f(2, 3, 2, 3, 2), lab=rng.integers(0, 3, (2, 2, 3, 2)), cnt=rng.poisson(
            2.0, (4, 5)).astype(np.float32), logp=np.log(rng.dirichlet(np.ones(5), 4)).astype(
            np.float32))


def cases(torch, nn):
    """(name, factory, [input keys], weighted) — float inputs get gradients."""
    cos_dist = lambda a, b: 1.0 - torch.nn.functional.cosine_similarity(a, b)  # noqa: E731
    return [
        ("BCELoss", lambda: nn.BCELoss(use_autogen=True), ["p", "b"]),
        ("BCEWithLogitsLoss", lambda: nn.BCEWithLogitsLoss(pos_weight=torch.tensor(
            np.float32(2.0))), ["x", "b"]),
        ("CosineEmbeddingLoss", lambda: nn.CosineEmbeddingLoss(margin=0.1), ["x", "t", "sign"]),
        ("CrossEntropyLoss", lambda: nn.CrossEntropyLoss(use_autogen=True, label_smoothing=0.1),
         ["x", "y"]),
        ("HingeEmbeddingLoss", lambda: nn.HingeEmbeddingLoss(margin=0.5), ["x", "b"]),
        ("KLDivLoss", lambda: nn.KLDivLoss(reduction="batchmean", log_target=True),
         ["x", "logp"]),
        ("L1Loss", lambda: nn.L1Loss(reduction="sum"), ["x", "t"]),
        ("MarginRankingLoss", lambda: nn.MarginRankingLoss(margin=0.2), ["v1", "v2", "sign"]),
        ("MSELoss", lambda: nn.MSELoss(use_autogen=False), ["x", "t"]),
        ("MultiLabelSoftMarginLoss", lambda: nn.MultiLabelSoftMarginLoss(), ["x", "b"]),
        ("NLLLoss", lambda: nn.NLLLoss(weight=torch.tensor([1.0, 2.0, 0.5, 1.0, 1.5])),
         ["logp", "y"]),
        ("PoissonNLLLoss", lambda: nn.PoissonNLLLoss(full=True), ["x", "cnt"]),
        ("TripletMarginLoss", lambda: nn.TripletMarginLoss(margin=2.0, swap=True),
         ["x", "t", "p"]),
        ("TripletMarginWithDistanceLoss", lambda: nn.TripletMarginWithDistanceLoss(
            distance_function=cos_dist, margin=0.5, use_autogen=True), ["x", "t", "p"]),
        ("HuberLoss", lambda: nn.HuberLoss(use_autogen=True), ["x", "t"]),
        ("HuberLoss-delta-sum", lambda: nn.HuberLoss("sum", 0.5), ["x", "t"]),
        ("HuberLoss-none", lambda: nn.HuberLoss(reduction="none", delta=0.7), ["x", "t"]),
        ("HuberLoss-bogus-reduction", lambda: nn.HuberLoss(reduction="avg"), ["x", "t"]),
        ("HuberLoss-delta-0", lambda: nn.HuberLoss(delta=0.0), ["x", "t"]),
        ("SmoothL1Loss", lambda: nn.SmoothL1Loss(), ["x", "t"]),
        ("SmoothL1Loss-beta-sum", lambda: nn.SmoothL1Loss("sum", 0.3), ["x", "t"]),
        ("SmoothL1Loss-beta-0", lambda: nn.SmoothL1Loss(beta=0.0), ["x", "t"]),
        ("SmoothL1Loss-beta-negative", lambda: nn.SmoothL1Loss(beta=-1.0), ["x", "t"]),
        ("GaussianNLLLoss", lambda: nn.GaussianNLLLoss(), ["x", "t", "var"]),
        ("GaussianNLLLoss-full-sum", lambda: nn.GaussianNLLLoss(True, 1e-3, "sum"),
         ["x", "t", "var"]),
        ("GaussianNLLLoss-homoscedastic", lambda: nn.GaussianNLLLoss(), ["x", "t", "var_s"]),
        ("GaussianNLLLoss-bad-var", lambda: nn.GaussianNLLLoss(), ["x", "t", "w"]),
        ("MultiMarginLoss", lambda: nn.MultiMarginLoss(), ["x", "y"]),
        ("MultiMarginLoss-p2-weight-sum", lambda: nn.MultiMarginLoss(
            p=2, margin=0.5, weight=torch.tensor([1.0, 2.0, 0.5, 1.0, 1.5]), reduction="sum"),
         ["x", "y"]),
        ("MultiMarginLoss-weight-mean", lambda: nn.MultiMarginLoss(
            weight=torch.tensor([1.0, 2.0, 0.5, 1.0, 1.5])), ["x", "y"]),
        ("MultiMarginLoss-1d", lambda: nn.MultiMarginLoss(margin=2.0), ["x1", "y1"]),
        ("MultiMarginLoss-bogus-reduction", lambda: nn.MultiMarginLoss(reduction="avg"),
         ["x", "y"]),
        ("MultiMarginLoss-none", lambda: nn.MultiMarginLoss(reduction="none"), ["x", "y"]),
        ("MultiMarginLoss-p3", lambda: nn.MultiMarginLoss(p=3), ["x", "y"]),
        ("DiceLoss", lambda: nn.DiceLoss(3), ["seg", "lab", "shape"]),
        ("DiceLoss-background", lambda: nn.DiceLoss(3, include_background=True),
         ["seg", "lab", "shape"]),
        ("DiceLoss-argmax", lambda: nn.DiceLoss(3, to_onehot_x=True, use_softmax=False,
                                                use_argmax=True), ["seg", "lab", "shape"]),
        ("DiceLoss-one-channel", lambda: nn.DiceLoss(1), ["seg1", "lab0", "shape1"]),
        ("DiceCELoss", lambda: nn.DiceCELoss(3, False), ["seg", "lab", "shape"]),
        ("DiceCELoss-background", lambda: nn.DiceCELoss(3, True, wc=0.3, wd=0.7),
         ["seg", "lab", "shape"]),
    ]


_DIFFERENTIABLE = {"x", "t", "p", "var", "var_s", "v1", "v2", "x1", "seg", "logp"}


def _arg(torch, data, key):
    if key == "shape":
        return list(data["seg"].shape)
    if key == "shape1":
        return [2, 1, 2, 3, 2]
    if key == "seg1":
        return torch.tensor(data["seg"][:, :1].copy(), requires_grad=True)
    if key == "lab0":
        return torch.tensor(np.zeros_like(data["lab"]))
    a = data[key]
    return torch.tensor(a, requires_grad=a.dtype == np.float32 and key in _DIFFERENTIABLE)


def _tolist(t):
    return np.asarray(t.detach().numpy(), dtype=np.float64).tolist()


def run(torch, nn):
    data = _data()
    out = {}
    for name, make, keys in cases(torch, nn):
        try:
            loss_fn = make()
            args = [_arg(torch, data, k) for k in keys]
            loss = loss_fn(*args)
            w = torch.tensor(np.linspace(0.5, 1.5, int(np.prod(loss.shape))).reshape(
                tuple(loss.shape)).astype(np.float32))
            if loss.requires_grad:
                (loss * w).sum().backward()
            grads = [_tolist(a.grad) if getattr(a, "grad", None) is not None else None
                     for a in args]
            out[name] = {"value": _tolist(loss), "grads": grads,
                         "autogen": getattr(loss_fn, "autogen_enabled", None)}
        except Exception as e:  # the failure itself is the result
            out[name] = {"error": [type(e).__name__, str(e)]}
    return out


def dumps(result):
    """JSON with NaN/inf as strings (both stacks must agree on them too)."""
    def clean(v):
        if isinstance(v, float) and not math.isfinite(v):
            return repr(v)
        if isinstance(v, list):
            return [clean(x) for x in v]
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        return v
    return __import__("json").dumps(clean(result), indent=1, sort_keys=True)


if __name__ == "__main__":  # on the real stack: python _cstorch_nn_loss_cases.py
    import cerebras.pytorch as cstorch
    import torch
    print(dumps(run(torch, cstorch.nn)))
