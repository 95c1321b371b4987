"""The optimizers' direct updates (numpy's ufuncs on the arrays, skipping the per-op dispatch:
SGD, Adam, AdamW) give the tensor ops' values bit for bit and count the same in-place writes;
anything they cannot take (a dispatch mode, scheduled tensor hyper-parameters, mixed dtypes,
shared memory, amsgrad) goes through the tensor ops."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import minitorch_cs.torch as torch
from minitorch_cs.optim import SGD, Adam, AdamW
from minitorch_cs.optim import adam_base
from minitorch_cs.optim import sgd as sgd_module
from minitorch_cs.torch import _dispatch


class _PassThrough(_dispatch.Mode):
    """A dispatch mode that changes nothing: while it is active every op is dispatched."""


def _run(make_opt, dtype, dispatched, scales, steps=4):
    """``steps`` optimizer steps on three parameters with random gradients (exact zeros, tiny
    and huge values); the parameters' and the state's arrays and version counts after them."""
    rng = np.random.default_rng(0)
    ps = [torch.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True)
          for s in ((5, 3), (3,), (2, 2, 2))]
    opt = make_opt(ps)
    for _ in range(steps):
        for p in ps:
            p.grad = torch.tensor(rng.standard_normal(p.shape).astype(dtype) *
                                  rng.choice(scales, p.shape).astype(dtype))
        if dispatched:
            with _PassThrough():
                opt.step()
        else:
            opt.step()
    state = [t for p in ps for t in opt.state[p].values()]
    return [t.detach().numpy().copy() for t in ps + state], [t._version for t in ps + state]


def _assert_both_paths_equal(make_opt, dtype, scales):
    direct, v_direct = _run(make_opt, dtype, False, scales)
    ops, v_ops = _run(make_opt, dtype, True, scales)
    for a, b in zip(direct, ops):  # bits (signs of zeros too); 0-d state as 1-d
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(np.atleast_1d(a).view(np.uint8),
                                      np.atleast_1d(b).view(np.uint8))
    assert v_direct == v_ops


def _spy(monkeypatch, module, name="_direct_update"):
    """Record, at each call of ``module.<name>``, whether the direct path was taken: what
    ``_direct_update`` returns, or whether ``direct_arrays`` gave arrays (SGD's group path)."""
    taken = []
    real = getattr(module, name)

    def spy(*a, **k):
        r = real(*a, **k)
        taken.append(r if isinstance(r, bool) else r is not None)
        return r
    monkeypatch.setattr(module, name, spy)
    return taken


CONFIGS = [dict(lr=lr, momentum=m, dampening=d, weight_decay=wd, nesterov=n, maximize=mx)
           for lr, m, d, wd, n, mx in itertools.product(
               (0.1, 3), (0, 0.9), (0.0, 0.25), (0, 0.01), (False, True), (False, True))
           if not (n and (m == 0 or d != 0))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}{v}" for k, v in
                                                                  c.items()))
def test_direct_update_equals_tensor_ops(backend, config, dtype):
    _assert_both_paths_equal(lambda ps: SGD(ps, **config), dtype, [0.0, 1e-30, 1.0, 1e30])


def test_direct_update_is_taken_and_declined(backend, monkeypatch):
    taken = _spy(monkeypatch, sgd_module, "direct_arrays")
    p = torch.ones(3, requires_grad=True)
    opt = SGD([p], lr=0.1, momentum=0.9)
    p.grad = torch.ones(3)
    opt.step()
    assert taken == [True]
    # a scheduled (tensor) learning rate or a mode: the tensor ops, without asking
    opt.param_groups[0]["lr"] = torch.tensor(0.1)
    opt.step()
    opt.param_groups[0]["lr"] = 0.1
    with _PassThrough():
        opt.step()
    assert taken == [True]
    # a gradient of another dtype, a parameter that is a view: declined, then the tensor ops
    # (torch refuses ``p.grad =`` a tensor of another dtype; ``.data`` swaps it in)
    p.grad.data = torch.ones(3, dtype=torch.float64)
    opt.step()
    assert taken == [True, False]
    base = torch.zeros(2, 3)
    v = base[1]
    v.requires_grad_()
    v.grad = torch.ones(3)
    opt2 = SGD([v], lr=0.5)
    opt2.step()
    assert taken[-1] is True  # a view of a base no other operand shares
    np.testing.assert_array_equal(base.numpy()[1], np.full(3, -0.5, np.float32))
    # a gradient that shares memory with the parameter
    q = torch.ones(4, requires_grad=True)
    q.grad = q.detach()
    SGD([q], lr=0.5).step()
    assert taken[-1] is False
    np.testing.assert_array_equal(q.detach().numpy(), np.full(4, 0.5, np.float32))  # 1 - 0.5 * 1


ADAM_CONFIGS = [(cls, dict(lr=lr, betas=(b1, 0.999), eps=eps, weight_decay=wd, **extra))
                for cls, extra in ((AdamW, {}), (AdamW, {"correct_bias": False}),
                                   (AdamW, {"amsgrad": True}), (Adam, {}))
                for lr, b1, eps, wd in ((1e-3, 0.9, 1e-8, 0.0), (0.5, 0.0, 1e-6, 0.1),
                                        (2, 0.5, 0, 0.01))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cls, config", ADAM_CONFIGS,
                         ids=lambda c: c.__name__ if isinstance(c, type) else
                         "-".join(f"{k}{v}" for k, v in c.items()))
def test_adam_direct_update_equals_tensor_ops(backend, cls, config, dtype):
    _assert_both_paths_equal(lambda ps: cls(ps, **config), dtype, [0.0, 1e-20, 1.0, 1e15])


def test_adam_direct_update_is_taken(backend, monkeypatch):
    taken = _spy(monkeypatch, adam_base)
    for cls, config in ADAM_CONFIGS:
        taken.clear()
        _run(lambda ps: cls(ps, **config), np.float32, False, [1.0], steps=1)
        assert taken == ([] if config.get("amsgrad") else [True] * 3)  # amsgrad: tensor ops
