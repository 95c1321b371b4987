"""Every op-table row's result carries torch's graph-node name (``y.grad_fn.name()``: what a
user sees printed as ``grad_fn=<...>`` and what tools that walk the graph key on), except the
documented differences (SPEC, autograd: node names), listed here by row so that a new op cannot
add one silently."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.torch.test_ops_table import ROWS

# rows whose node name differs from torch's, by the reason SPEC gives
KNOWN: set = set()


def _name(T, row, xs, kw):
    ts = [T.tensor(np.asarray(x, np.float64), dtype=T.float64).requires_grad_() for x in xs]
    out = row.call(T, *ts, **kw)
    out = out[0] if isinstance(out, (tuple, list)) else out
    fn = getattr(out, "grad_fn", None)
    return None if fn is None else fn.name()


@pytest.mark.parametrize("row", [r for r in ROWS if r.grad and r.torch_grad], ids=repr)
@settings(derandomize=True, max_examples=1, database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_node_name_is_torchs(row, data):
    torch = pytest.importorskip("torch")
    import minitorch_cs.torch as ours
    if row.name in KNOWN:
        return
    xs, kw = data.draw(row.inputs)  # (derandomized: the same draw every run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = _name(ours, row, xs, kw), _name(torch, row, xs, kw)
    assert a == b, (row.name, a, b)


def test_copy_and_gradient_copy_nodes_are_torchs():
    """copy_ records torch's hand-written node (``torch::autograd::CopyBackwards``, printed
    without its namespace, as ``CopySlices``), and a leaf's first gradient under create_graph is
    torch's clone_obey_contract: a copy into the leaf's strides when the leaf is dense (that
    node), a contiguous clone otherwise."""
    import minitorch_cs.torch as T
    x = T.ones(3, requires_grad=True) * 2
    a = T.empty(3)
    a.copy_(x)
    assert a.grad_fn.name() == "torch::autograd::CopyBackwards"
    assert repr(a.grad_fn) == "<CopyBackwards object>" and "grad_fn=<CopyBackwards>" in repr(a)
    b = T.zeros(4)
    b[1:].copy_(x)
    assert repr(b.grad_fn) == "<CopySlices object>" and "grad_fn=<CopySlices>" in repr(b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dense = T.ones(3, 4).t().detach().requires_grad_()
        (dense ** 2).sum().backward(create_graph=True)
        strided = T.ones(3, 4)[:, ::2].detach().requires_grad_()
        (strided ** 2).sum().backward(create_graph=True)
    assert repr(dense.grad.grad_fn) == "<CopyBackwards object>" and dense.grad.stride() == (1, 4)
    assert strided.grad.grad_fn.name() == "CloneBackward0" and strided.grad.stride() == (2, 1)
