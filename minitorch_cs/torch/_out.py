"""``out=`` for the functions that take it: torch writes the result into the given tensor(s).

Rules (torch's): the result dtype must be castable to ``out``'s ("result type Float can't be cast
to the desired output type Long"); an ``out`` of another shape is resized, with torch's
deprecation warning when it had elements; autograd does not record through ``out=`` (an input that
requires grad is a RuntimeError); creation functions without ``dtype`` take ``out``'s. The ``out``
tensor itself is returned (a tuple of them for ``max``/``min`` with ``dim``).
"""
from __future__ import annotations

import functools

import numpy as np

from . import _dtype as D
from ._autograd import GradState, no_grad
from ._dispatch import OPS, Op, apply, apply_inplace, set_data
from ._fpe import warn_user
from ._tensor import Tensor


def _requires_grad(args, kwargs):
    for a in list(args) + list(kwargs.values()):
        items = a if isinstance(a, (list, tuple)) else (a,)
        if any(isinstance(t, Tensor) and t.requires_grad for t in items):
            return True
    return False


def resize_warning(had, required) -> None:
    """torch's deprecation warning when an output of one or more elements is resized."""
    warn_user(f"An output with one or more elements was resized since it had shape "
              f"{list(had)}, which does not match the required output shape {list(required)}. "
              "This behavior is deprecated, and in a future PyTorch release outputs will not be "
              "resized unless they have zero elements. You can explicitly reuse an out tensor t "
              "by resizing it, inplace, to zero elements with t.resize_(0).")


def write(result: Tensor, out: Tensor) -> None:
    """Copy ``result`` into ``out`` by torch's rules (cast check, resize), through the dispatch
    point: an in-place copy, or for a resize ``out`` rebinding to a new tensor of the result's
    shape in ``out``'s dtype (``set_data``)."""
    src, dst = result._data, out._data
    if src.dtype != dst.dtype and not D.can_cast(result._dtype, out._dtype):
        raise RuntimeError(f"result type {D.scalar_name(result._dtype)} can't be cast to the "
                           f"desired output type {D.scalar_name(out._dtype)}")
    if dst.shape != src.shape:
        if dst.size:
            resize_warning(dst.shape, src.shape)
        with no_grad():  # (ops by name: the op modules sit above this one)
            resized = apply(OPS["to_copy"], result, dtype=dst.dtype) if src.dtype != dst.dtype \
                else apply(OPS["clone"], result)
        vc = out._vc
        set_data(out, resized)
        out._vc = vc  # out keeps its version counter
        out._vc[0] += 1
        return
    with no_grad():
        apply_inplace(OPS["copy_"], out, result)


class _NotImplementedOut(Op):
    """``out`` of an op torch runs with ``out=`` on inputs that require grad without a
    derivative for that form (``softmax(x, 0, out=o)``): ``out`` takes the result's values and
    requires grad through a node whose backward raises, naming the ATen op (torch's
    NotImplemented node: "derivative for aten::softmax is not implemented")."""

    name = "not_implemented_out"
    node_name = "torch::autograd::NotImplemented"  # (torch's node's name)

    @staticmethod
    def forward(ctx, dst, src, aten="", out=None):
        ctx.aten = aten
        return src

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError(f"derivative for {ctx.aten} is not implemented")


def attach_not_implemented(out: Tensor, result: Tensor, aten: str) -> None:
    """Record ``out`` (already holding ``result``'s values) as computed from ``result`` by a
    node that cannot be differentiated (see :class:`_NotImplementedOut`)."""
    apply_inplace(_NotImplementedOut, out, result, aten=aten)


def supports_out(f, creation=False):
    """Wrap ``f`` (which ignores ``out``) so ``out=`` is honoured."""
    @functools.wraps(f)
    def call(*args, out=None, **kwargs):
        if out is None:
            return f(*args, **kwargs)
        outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        if creation:
            if kwargs.get("dtype") is None:
                kwargs["dtype"] = outs[0].dtype
        elif GradState.enabled and _requires_grad(args, kwargs):
            raise RuntimeError(f"{f.__name__}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")
        result = f(*args, **kwargs)
        results = tuple(result) if isinstance(result, tuple) else (result,)
        if len(results) != len(outs):
            raise TypeError(f"{f.__name__}(): out must be a tuple of {len(results)} tensors")
        for r, o in zip(results, outs):
            write(r, o)
        if isinstance(result, tuple):
            return type(result)(*outs) if hasattr(result, "_fields") else outs
        return out
    return call
