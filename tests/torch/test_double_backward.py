"""Higher-order gradients: every differentiable row of the op table, differentiated twice.

``gradgradcheck`` (tests/helpers.py) records the gradient with ``create_graph=True`` and checks
its derivatives, with respect to the inputs and to the cotangents, against float64 central
differences of the first-order gradient. With PyTorch installed, the same rows' Hessian-vector
products (and vector-Jacobian products of the gradient w.r.t. the cotangent) are compared with
torch's.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from minitorch_cs import torch
from tests.helpers import assert_close, describe, gradgradcheck, to_numpy
from tests.torch.test_ops_table import ROWS

GRAD_ROWS = [r for r in ROWS if r.grad]
# two drawn examples per row keep the file well under a minute; the first-order table runs the
# full count
FEW = settings(max_examples=2)

# Points where a row's first derivative is smooth enough for first-order checks but its second
# derivative follows a convention rather than the limit (the inputs are drawn elsewhere):
SECOND_ORDER_KINKS = {
    # torch masks d/da a**b to 0 where b == 0, and so does its derivative w.r.t. b there
    "pow": lambda xs, kw: np.all(xs[1] != 0),
}

# Rows whose double backward torch does not define: the first backward records, the second
# raises torch's error (ours and torch's, same type and message).
NO_DOUBLE_BACKWARD = {
    "F.hardsigmoid": (RuntimeError, "derivative for aten::hardsigmoid_backward is not "
                                    "implemented"),
    # torch's _cdist_backward kernel (the table's inputs have at most 25 rows, so torch does
    # not take its matrix-product path)
    "cdist": (NotImplementedError, "the derivative for '_cdist_backward' is not implemented"),
}


@pytest.mark.parametrize("r", GRAD_ROWS, ids=[r.name for r in GRAD_ROWS])
@FEW
@given(data=st.data())
def test_row_double_backward(r, data):
    xs, kw = data.draw(r.inputs, label="inputs")
    keep = SECOND_ORDER_KINKS.get(r.name)
    assume(keep is None or keep(xs, kw))
    call = describe(r.name, *xs, **{k: v for k, v in kw.items() if not isinstance(v, np.ndarray)})
    fn = lambda *ts: r.call(torch, *ts, **kw)  # noqa: E731
    if r.name in NO_DOUBLE_BACKWARD:
        exc, msg = NO_DOUBLE_BACKWARD[r.name]
        with pytest.raises(exc, match=msg):
            gradgradcheck(fn, *xs, name=call)
        return
    gradgradcheck(fn, *xs, name=call)


def _diff_outputs(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return tuple(o for o in outs if getattr(o, "requires_grad", False)
                 and o.dtype.is_floating_point)


@pytest.mark.parametrize("r", GRAD_ROWS, ids=[r.name for r in GRAD_ROWS])
@settings(max_examples=1)
@given(data=st.data())
def test_row_public_gradcheck(r, data):
    """The public ``torch.autograd.gradcheck``/``gradgradcheck`` (fast mode) agree on every row
    (rows whose double backward raises: first order only)."""
    xs, kw = data.draw(r.inputs, label="inputs")
    keep = SECOND_ORDER_KINKS.get(r.name)
    assume(keep is None or keep(xs, kw))
    leaves = tuple(torch.from_numpy(np.array(x, np.float64)).requires_grad_(True) for x in xs)
    fn = lambda *ts: _diff_outputs(r.call(torch, *ts, **kw))  # noqa: E731
    assert torch.autograd.gradcheck(fn, leaves, fast_mode=True)
    if r.name not in NO_DOUBLE_BACKWARD:
        assert torch.autograd.gradgradcheck(fn, leaves, fast_mode=True)


def test_every_differentiable_row_is_double_differentiated():
    assert len(GRAD_ROWS) == sum(1 for r in ROWS if r.grad) > 250


# ----- against PyTorch ------------------------------------------------------------------------------
def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _second_order(T, fn, xs, kw, seed=0):
    """(H v summed over outputs, d<w, grad>/du) for random u, v, w: the Hessian-vector product
    of ``<u, f(x)>`` and the derivative of the weighted gradient w.r.t. the cotangent."""
    rng = np.random.default_rng(seed)
    leaves = [T.from_numpy(x.copy()).requires_grad_(True) for x in xs]
    outs = [o for o in _as_tuple(fn(T, *leaves, **kw)) if o.requires_grad]
    us = [T.from_numpy(rng.standard_normal(tuple(o.shape))).requires_grad_(True) for o in outs]
    gs = T.autograd.grad(outs, leaves, us, create_graph=True, allow_unused=True)
    vs = [T.from_numpy(rng.standard_normal(x.shape)) for x in xs]
    dot = None
    for g, v in zip(gs, vs):
        if g is not None and g.requires_grad:
            t = (g * v).sum()
            dot = t if dot is None else dot + t
    if dot is None:
        return None
    sec = T.autograd.grad(dot, leaves + us, allow_unused=True)
    return [None if s is None else _np(s) for s in sec]


def _np(t):
    if getattr(t, "_is_zerotensor", lambda: False)():  # torch's symbolic zeros
        return np.zeros(tuple(t.shape))
    return to_numpy(t)


@pytest.mark.parametrize("r", [r for r in GRAD_ROWS if r.torch_grad],
                         ids=[r.name for r in GRAD_ROWS if r.torch_grad])
@settings(max_examples=1)
@given(data=st.data())
def test_row_hvp_matches_torch(r, data):
    torch_ref = pytest.importorskip("torch")
    xs, kw = data.draw(r.inputs, label="inputs")
    keep = SECOND_ORDER_KINKS.get(r.name)
    assume(keep is None or keep(xs, kw))
    call = describe(r.name, *xs, **{k: v for k, v in kw.items() if not isinstance(v, np.ndarray)})
    if r.name in NO_DOUBLE_BACKWARD:
        exc, msg = NO_DOUBLE_BACKWARD[r.name]
        for T in (torch_ref, torch):
            with pytest.raises(exc, match=msg):
                _second_order(T, r.call, xs, kw)
        return
    want = _second_order(torch_ref, r.call, xs, kw)
    got = _second_order(torch, r.call, xs, kw)
    if want is None or got is None:
        # one side recorded no graph: the other's second derivatives must all be zero
        for s in (want or got or []):
            assert s is None or not np.any(s), f"second derivative differs from zero [{call}]"
        return
    for i, (g, w) in enumerate(zip(got, want)):
        if w is None:
            assert g is None or not np.any(g), f"input {i}: torch has no second derivative [{call}]"
            continue
        g = np.zeros_like(w) if g is None else g
        assert_close(g, w, rtol=1e-6, atol=1e-8, call=f"second derivative {i} of {call}")
