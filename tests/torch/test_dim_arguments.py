"""The ``dim`` argument of the dim-wise ops, swept: negative, out of range, repeated, empty,
None, a bool, a float, by position and by keyword, on a matrix, a vector, a 0-d and an empty
tensor. Each call gives torch's result (dtype, shape, values) or torch's error type -- no dim
torch refuses is silently read (``True`` as dim 1, ``None`` as every dim), and no dim torch
takes is refused."""
from __future__ import annotations

import pytest

from minitorch_cs import torch
from tests.torch._sweeps import Outcomes, assert_same_as_torch

_OPS = ["sum", "mean", "prod", "amax", "amin", "argmax", "argmin", "max", "min", "std", "var",
        "logsumexp", "norm", "nansum", "nanmean", "all", "any", "count_nonzero", "median",
        "nanmedian", "mode", "cumsum", "cumprod", "softmax", "log_softmax", "squeeze",
        "unsqueeze", "flip", "aminmax", "std_mean", "var_mean", "logcumsumexp", "cummax",
        "cummin", "sort", "argsort", "kthvalue", "topk", "unbind", "select", "narrow", "chunk",
        "diff", "flatten", "movedim", "transpose", "sum_to_size"]
_DIMS = [-3, 2, -1, 0, (0, 0), (), [0, -2], (0, 1), None, (1, -1), 1.0, True]


def _call(x, fn, d, by_keyword):
    f = getattr(x, fn)
    if fn == "select":
        return f(d, 0)
    if fn == "narrow":
        return f(d, 0, 1)
    if fn == "chunk":
        return f(2, dim=d) if by_keyword else f(2, d)
    if fn in ("movedim", "transpose"):
        return f(d, 0)
    extra = (1,) if fn in ("kthvalue", "topk") else ()
    return f(*extra, dim=d) if by_keyword else f(*extra, d)


def _outcomes(T):
    inputs = {"matrix": T.arange(1., 7.).reshape(2, 3) / 7, "0-d": T.tensor(0.5),
              "empty": T.zeros(0, 3), "vector": T.tensor([0.3, -1.0, 2.0])}
    out = Outcomes(show=_shown, messages=False)  # (the error's type is the outcome)
    for fn in _OPS:
        for xn, x in inputs.items():
            for d in _DIMS:
                for by_keyword in (True, False):
                    form = "dim=" if by_keyword else "by position"
                    out.run(f"x.{fn}({d!r}) on {xn}, {form}",
                            lambda x=x, fn=fn, d=d, k=by_keyword: _call(x, fn, d, k))
    return out


def _shown(r) -> str:
    r = r[0] if isinstance(r, (tuple, list)) else r
    return (f"{str(r.dtype).split('.')[-1]} {tuple(r.shape)} " +
            str([round(float(v), 3) for v in r.detach().double().reshape(-1).tolist()]))


def test_dim_arguments_match_torch():
    """4,512 calls against torch 2.13."""
    assert_same_as_torch(_outcomes, torch)


@pytest.mark.parametrize("call, kind", [
    (lambda x: x.sum(dim=True), TypeError),  # (True is not dim 1)
    (lambda x: x.cumsum(True), TypeError),
    (lambda x: x.max(dim=None), TypeError),
    (lambda x: x.max(1.0), TypeError),
    (lambda x: x.prod(dim=None), TypeError),
    (lambda x: x.squeeze(dim=None), TypeError),
    (lambda x: x.softmax(dim=None), TypeError),
    (lambda x: x.std(dim=True), TypeError),  # (by keyword: not the unbiased overload)
    (lambda x: x.logsumexp(()), RuntimeError),
    (lambda x: x.movedim((0, 1), (1,)), RuntimeError),
    (lambda x: x.movedim(0, (1,)), TypeError),
    (lambda x: torch.tensor(1.0).select(0, 0), IndexError),
    (lambda x: torch.tensor(1.0).transpose(0, 2), IndexError),
])
def test_dims_torch_refuses(call, kind):
    with pytest.raises(kind):
        call(torch.arange(1., 7.).reshape(2, 3))


def test_dims_torch_takes():
    x = torch.arange(1., 7.).reshape(2, 3)
    assert x.all(dim=()).shape == (2, 3) and x.any(()).dtype is torch.bool  # (no dim reduced)
    assert x.amax(dim=None).item() == 6.0 and x.amin(None).item() == 1.0
    assert x.std(True).item() == pytest.approx(1.8708287, rel=1e-6)  # (unbiased=True)
    assert torch.tensor(0.5).flip(0).item() == 0.5 and torch.tensor(0.5).movedim(-1, 0).ndim == 0
    assert x.sum_to_size(1, 3).tolist() == [[5.0, 7.0, 9.0]] and x.sum_to_size(3).shape == (3,)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        x.sum((0, -2))
