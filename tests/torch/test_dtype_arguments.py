"""The ``dtype=`` argument of the reductions and softmaxes: the result's dtype, or torch's
refusal (a mean into an integer dtype, a softmax kernel of an integer dtype, a norm that would
narrow), for every input dtype, target dtype and call form -- no target dtype is silently
ignored or silently accepted."""
from __future__ import annotations

import json
import warnings

import pytest

from minitorch_cs import torch

_FUNCTIONS = ["sum", "mean", "prod", "cumsum", "cumprod", "softmax", "log_softmax", "nansum",
              "nanmean", "norm", "logsumexp", "count_nonzero", "amax", "argmax", "all", "any"]
_TAKES_DIM = {"cumsum", "cumprod", "softmax", "log_softmax", "logsumexp"}


def _outcomes(T):
    inputs = {"float32": T.arange(1., 7.).reshape(2, 3) / 7, "int64": T.arange(6).reshape(2, 3),
              "bool": T.tensor([[True, False, True], [False, False, True]]),
              "float16": (T.arange(1., 7.).reshape(2, 3) / 7).half()}
    targets = ["float64", "int32", "float16", "bool", "bfloat16"]
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn in _FUNCTIONS:
            for xn, x in inputs.items():
                for dn in targets:
                    for form in ("function", "method", "function dim", "method dim"):
                        f = getattr(T, fn) if form.startswith("function") else getattr(x, fn)
                        args = (x,) if form.startswith("function") else ()
                        if form.endswith("dim") or fn in _TAKES_DIM:
                            args += (1,)
                        try:
                            r = f(*args, dtype=getattr(T, dn))
                            got = (f"ok {str(r.dtype).split('.')[-1]} {tuple(r.shape)} " +
                                   str([round(float(v), 3)
                                        for v in r.detach().double().reshape(-1).tolist()]))
                        except Exception as e:  # noqa: BLE001 (the error is the outcome)
                            got = f"{type(e).__name__}: {str(e).splitlines()[0]}"
                        out[f"{fn}({xn} -> {dn}, {form})"] = got
    return out


def test_dtype_arguments_match_torch():
    """1,280 calls against torch 2.13: the same result dtype, shape and values (to three
    places), or the same error type and message."""
    real = pytest.importorskip("torch")
    want, got = _outcomes(real), _outcomes(torch)
    diffs = {k: (want[k], got[k]) for k in want if want[k] != got[k]}
    assert not diffs, json.dumps(diffs, indent=1)


@pytest.mark.parametrize("call, kind, message", [
    (lambda x: x.mean(dtype=torch.int32), RuntimeError,
     "mean(): could not infer output dtype. Optional dtype must be either a floating point or "
     "complex dtype. Got: Int"),
    (lambda x: torch.nanmean(x, 0, dtype=torch.bool), RuntimeError,
     "nanmean(): could not infer output dtype. Optional dtype must be either a floating point "
     "or complex dtype. Got: Bool"),
    (lambda x: x.long().mean(), RuntimeError,
     "mean(): could not infer output dtype. Input dtype must be either a floating point or "
     "complex dtype. Got: Long"),
    (lambda x: x.softmax(1, dtype=torch.int64), NotImplementedError,
     "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
    (lambda x: x.log_softmax(0, dtype=torch.int32), NotImplementedError,
     "\"log_softmax_kernel_impl\" not implemented for 'Int'"),
    (lambda x: x.norm(dtype=torch.half), RuntimeError,
     "linalg.vector_norm: the dtype of the input (Float) should be convertible without "
     "narrowing to the specified dtype (Half)"),
    (lambda x: torch.norm(x, 1, dtype=torch.int32), RuntimeError,
     "linalg.vector_norm: dtype should be floating point or complex, but got Int"),
])
def test_refused_dtype_arguments(call, kind, message):
    x = torch.arange(1., 7.).reshape(2, 3)
    with pytest.raises(kind) as e:
        call(x)
    assert str(e.value) == message


def test_norm_computes_in_its_dtype():
    """``torch.norm``/``Tensor.norm`` run ``linalg.vector_norm``: the input converted to
    ``dtype`` first (it was ignored)."""
    x = torch.arange(1., 7.).reshape(2, 3).half()
    r = x.norm(dtype=torch.float64)
    assert r.dtype is torch.float64 and r.item() == pytest.approx(91 ** 0.5, rel=1e-12)
    assert torch.norm(x, 1, dim=1, dtype=torch.float32).dtype is torch.float32
