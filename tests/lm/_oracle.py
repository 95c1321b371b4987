"""Run a module built from the same lambda in minitorch_cs and in torch, with the same weights
and inputs, and compare every output, every gradient and the state_dict (keys, order, values)."""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from minitorch_cs import torch as M
from tests.helpers import assert_close


def flat_tensors(out):
    """Every tensor in a (nested) output: tuples, lists, PackedSequence."""
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res += flat_tensors(o)
        return res
    return [] if out is None else [out]


def to_torch(T, a):
    return T.from_numpy(np.array(a, copy=True))


def copy_weights(ours, theirs, T):
    sd = OrderedDict((k, to_torch(T, v.numpy())) for k, v in ours.state_dict().items())
    theirs.load_state_dict(sd)


def make_inputs(ns, arrays, grad):
    out = []
    for a in arrays:
        if isinstance(a, tuple) and a and a[0] == "hx":  # an (h, c) pair
            out.append(tuple(make_inputs(ns, a[1:], grad)))
        elif isinstance(a, np.ndarray):
            t = ns.from_numpy(a.copy())
            if grad and a.dtype.kind == "f":
                t.requires_grad_(True)
            out.append(t)
        else:
            out.append(a)
    return out


def leaves(inputs):
    res = []
    for x in inputs:
        if isinstance(x, tuple):
            res += leaves(x)
        elif hasattr(x, "requires_grad") and x.requires_grad:
            res.append(x)
    return res


def run_both(T, make, arrays, *, call=None, train=True, dtype="double", rtol=1e-9, atol=1e-11,
             name="", seed=0, kwargs=None, grad=True):
    """Build ``make(ns)`` in both namespaces, share weights, run ``call(module, *inputs)`` (default
    ``module(*inputs, **kwargs)``), backprop one random cotangent per float output, compare."""
    __tracebackhide__ = True
    ours = getattr(make(M), dtype)().train(train)
    theirs = getattr(make(T), dtype)().train(train)
    copy_weights(ours, theirs, T)
    kwargs = kwargs or {}
    call = call or (lambda m, *xs: m(*xs, **kwargs))
    xo, xt = make_inputs(M, arrays, grad), make_inputs(T, arrays, grad)
    yo, yt = flat_tensors(call(ours, *xo)), flat_tensors(call(theirs, *xt))
    assert len(yo) == len(yt), f"{name}: {len(yo)} outputs, torch has {len(yt)}"
    for i, (a, b) in enumerate(zip(yo, yt)):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], \
            f"{name} output {i}: dtype {a.dtype}, torch {b.dtype}"
        assert_close(a.detach(), b.detach(), rtol=rtol, atol=atol, call=f"{name} output {i}")
    if grad:
        rng = np.random.default_rng(seed)
        pairs = [(a, b) for a, b in zip(yo, yt) if b.requires_grad]
        us = [rng.standard_normal(tuple(b.shape)).astype(b.detach().numpy().dtype) for _, b in pairs]
        if pairs:
            M.autograd.backward([a for a, _ in pairs], [M.from_numpy(u.copy()) for u in us])
            T.autograd.backward([b for _, b in pairs], [to_torch(T, u) for u in us])
        for i, (a, b) in enumerate(zip(leaves(xo), leaves(xt))):
            if b.grad is not None:
                assert_close(a.grad, b.grad, rtol=rtol, atol=atol, call=f"{name} input {i} grad")
        pt = dict(theirs.named_parameters())
        for pname, p in ours.named_parameters():
            if pt[pname].grad is None:
                assert p.grad is None or not np.any(p.grad.numpy()), f"{name} {pname}.grad"
                continue
            assert_close(p.grad, pt[pname].grad, rtol=rtol, atol=atol, call=f"{name} {pname}.grad")
    so, st = ours.state_dict(), theirs.state_dict()
    assert list(so) == list(st), f"state_dict keys differ [{name}]: {list(so)} vs {list(st)}"
    for k in so:
        assert tuple(so[k].shape) == tuple(st[k].shape), f"{name} state {k} shape"
    return ours, theirs, yo, yt
