"""The autograd API off its happy path, swept against torch: ``grad``'s options (unused inputs,
materialized zeros, batched grad outputs), ``backward``'s ``inputs``, ``retain_grad``, hooks
that change a gradient's size or type, ``detach_`` of a view, assigning ``.grad`` of another
size or dtype, and the grad-mode context managers."""
from __future__ import annotations

import pytest

from minitorch_cs import torch
from tests.torch._sweeps import assert_same_as_torch, outcomes


def _calls(T):
    def g():
        x = T.tensor([1., 2.], requires_grad=True)
        return x, (x * x).sum()

    def leaf():
        return T.ones(2, requires_grad=True)

    return {
        "grad": lambda: (lambda x, y: T.autograd.grad(y, x)[0].tolist())(*g()),
        "grad twice": lambda: (lambda x, y: (T.autograd.grad(y, x), T.autograd.grad(y, x)))(*g()),
        "grad unused": lambda: (lambda x, y: T.autograd.grad(y, [x, leaf()]))(*g()),
        "grad allow_unused": lambda: (lambda x, y: T.autograd.grad(y, [x, leaf()], allow_unused=True)[1])(*g()),
        "grad materialize_grads": lambda: (lambda x, y: T.autograd.grad(y, [x, leaf()], materialize_grads=True)[1].tolist())(*g()),
        "grad of a vector": lambda: (lambda x: T.autograd.grad(x * 2, x))(leaf()),
        "grad_outputs of another shape": lambda: (lambda x: T.autograd.grad(x * 2, x, T.ones(3)))(leaf()),
        "grad_outputs float64": lambda: (lambda x: str(T.autograd.grad(x * 2, x, T.ones(2, dtype=T.float64))[0].dtype))(leaf()),
        "grad is_grads_batched": lambda: (lambda x: T.autograd.grad(x * 2, x, T.eye(2), is_grads_batched=True)[0].tolist())(leaf()),
        "grad is_grads_batched create_graph": lambda: (lambda x: T.autograd.grad(x * x, x, T.eye(2), is_grads_batched=True, create_graph=True)[0].tolist())(leaf()),
        "backward twice": lambda: (lambda x, y: (y.backward(), y.backward()))(*g()),
        "backward of a vector": lambda: (lambda x: (x * 2).backward())(leaf()),
        "backward inputs=[x]": lambda: (lambda x, y: (y.backward(inputs=[x]), x.grad.tolist())[1])(*g()),
        "backward inputs=[]": lambda: (lambda x, y: y.backward(inputs=[]))(*g()),
        "retain_grad": lambda: (lambda x: (lambda h: (h.retain_grad(), (h * 3).sum().backward(), h.grad.tolist())[2])(x * 2))(leaf()),
        "retain_grad of a constant": lambda: T.ones(2).retain_grad(),
        "requires_grad_ of int64": lambda: T.ones(2, dtype=T.int64).requires_grad_(),
        "tensor(int, requires_grad=True)": lambda: T.tensor([1, 2], requires_grad=True),
        "hook scales": lambda: (lambda x: (x.register_hook(lambda g: g * 10), (x * 2).sum().backward(), x.grad.tolist())[2])(leaf()),
        "hook changes size": lambda: (lambda x: (x.register_hook(lambda g: g.sum()), (x * 2).sum().backward()))(leaf()),
        "hook changes dtype": lambda: (lambda x: (x.register_hook(lambda g: g.double()), (x * 2).sum().backward()))(leaf()),
        "hook returns int": lambda: (lambda x: (x.register_hook(lambda g: 3), (x * 2).sum().backward()))(leaf()),
        "detach_ of a view": lambda: (leaf() * 1).view(2).detach_(),
        "detach_ of a slice": lambda: T.ones(4)[1:].detach_(),
        "grad of another size": lambda: setattr(leaf(), "grad", T.ones(3)),
        "grad of another dtype": lambda: setattr(leaf(), "grad", T.ones(2, dtype=T.float64)),
        "grad of a constant": lambda: setattr(T.ones(2), "grad", T.ones(2)),
        "grad 0-d into (1,)": lambda: setattr(T.ones(1, requires_grad=True), "grad", T.ones(())),
    }


def _outcomes(T):
    return outcomes(_calls(T), show=lambda r: repr(r)[:200])


def test_autograd_api_matches_torch():
    # (an error's message may stop where torch's goes on about its own distributed tools:
    # ``detach_``'s advice on DDP buckets)
    assert_same_as_torch(_outcomes, torch,
                         same=lambda want, got: not got.startswith("ok") and want.startswith(got))


def test_hooks_may_not_change_a_gradients_size_or_type():
    x = torch.ones(2, requires_grad=True)
    x.register_hook(lambda g: g.sum())
    with pytest.raises(RuntimeError, match="hook '<lambda>' has changed the size of value"):
        (x * 2).sum().backward()
    y = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="attempting to assign a gradient of size '\\[3\\]'"):
        y.grad = torch.ones(3)
    assert torch.autograd.grad(y * 2, y, torch.eye(2), is_grads_batched=True)[0].tolist() == \
        [[2.0, 0.0], [0.0, 2.0]]
