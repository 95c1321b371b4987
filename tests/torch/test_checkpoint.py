"""torch.utils.checkpoint: recomputation gives the gradients of the plain forward."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from minitorch_cs import torch
from minitorch_cs.torch.utils import checkpoint as C

nn = torch.nn


def _net():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Dropout(0.3), nn.Linear(8, 8), nn.ReLU(),
                         nn.Linear(8, 2))


def _grads(run):
    net = _net()
    x = torch.from_numpy(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
    x.requires_grad_()
    torch.manual_seed(7)
    out = run(net, x)
    out.square().sum().backward()
    return out.detach().numpy(), x.grad.numpy(), [p.grad.numpy() for p in net.parameters()]


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_equals_the_plain_forward_dropout_included(use_reentrant):
    plain = _grads(lambda net, x: net(x))
    ck = _grads(lambda net, x: C.checkpoint(net, x, use_reentrant=use_reentrant))
    for a, b in zip(plain[:2], ck[:2]):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(plain[2], ck[2]):
        np.testing.assert_array_equal(a, b)


def test_reentrant_node_and_the_missing_use_reentrant_warning():
    x = torch.ones(3, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        y = C.checkpoint(lambda a: (a * 2).sin(), x)
    assert y.grad_fn.name() == "CheckpointFunctionBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos(2.0) * np.ones(3), rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z = C.checkpoint(lambda a: a.exp(), x, use_reentrant=False)
    assert z.grad_fn.name() == "ExpBackward0"


def test_checkpoint_sequential_segments():
    plain = _grads(lambda net, x: net(x))
    seq = _grads(lambda net, x: C.checkpoint_sequential(net, 3, x, use_reentrant=True))
    np.testing.assert_array_equal(plain[1], seq[1])
    for a, b in zip(plain[2], seq[2]):
        np.testing.assert_array_equal(a, b)


def test_reentrant_errors_match_torch():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: k"):
        C.checkpoint(lambda a, k=1: a, x, use_reentrant=True, k=2)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        C.checkpoint(lambda a: a * 2, torch.ones(2), use_reentrant=True)


def test_reentrant_checkpoint_refuses_grad_and_backward_inputs_as_torch():
    from minitorch_cs.torch.utils.checkpoint import checkpoint
    msg = "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad()"
    lin = torch.nn.Linear(3, 3)
    x = torch.randn(2, 3, requires_grad=True)
    y = checkpoint(lambda t: torch.tanh(lin(t)), x, use_reentrant=True).sum()
    with pytest.raises(RuntimeError, match=re.escape(msg)):
        torch.autograd.grad(y, x, retain_graph=True)
    with pytest.raises(RuntimeError, match=re.escape(msg)):
        y.backward(inputs=[x], retain_graph=True)
    y.backward()  # a plain backward re-enters the checkpoint
    assert x.grad is not None
    x.grad = None
    z = checkpoint(lambda t: torch.tanh(lin(t)), x, use_reentrant=False).sum()
    (g,) = torch.autograd.grad(z, x)  # the non-reentrant form works with grad()
    ref = torch.autograd.grad(torch.tanh(lin(x)).sum(), x)[0]
    np.testing.assert_allclose(g.numpy(), ref.numpy())
