"""Reads and writes at flat positions or mask positions: ``take``, ``put``/``put_`` and
``masked_scatter``.

``take``/``put`` address a tensor as if it were flattened in row-major (logical) order, whatever
its strides; negative indices count from the end. ``masked_scatter`` fills the True positions of
a (broadcast) mask, in row-major order, with the leading elements of ``source``. Output shapes
never depend on values (the number of source elements a mask consumes does, but not any shape),
so a compiled graph holds them; the backward rules are written in tensor ops only.
"""
from __future__ import annotations

import numpy as np

from ._kernel import Kernel
from ._opmath import HALF as _HALF
from ._xp import ns


def _flat_index(index, size, fname):
    """``index`` as non-negative positions into ``size`` elements (torch's range check)."""
    if index.size and size == 0:
        raise IndexError(f"{fname}(): tried to take from an empty tensor" if fname == "take"
                         else f"{fname}(): Tried to put elements into an empty tensor")
    if index.size:
        bad = (index < -size) | (index >= size)
        if bad.any():
            raise IndexError(f"out of range: tried to access index {int(index[bad].flat[0])} on "
                             f"a tensor of {size} elements.")
    return np.where(index < 0, index + size, index).astype(np.int64).reshape(-1)


class Take(Kernel):
    """``take(input, index)``: ``input.flatten()[index]`` in ``index``'s shape; the gradient
    adds back at the positions (repeats accumulate)."""

    name = "take"
    saved = (0,)  # torch's node saves the input (its backward reads only the shape)
    reads = None
    tensor_attrs = ("index",)
    graph_aliases = ("index",)

    @staticmethod
    def forward(ctx, x, index):
        idx = _flat_index(index, x.size, "take")
        ctx.shape, ctx.idx = x.shape, idx
        return x.reshape(-1)[idx].reshape(index.shape)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = int(np.prod(ctx.shape, dtype=np.int64))
        flat = xp.add_at(xp.zeros((n,), g.dtype), (ctx.idx,), xp.reshape(g, (-1,)))
        return (xp.reshape(flat, tuple(ctx.shape)),)


class Put(Kernel):
    """``put(input, index, source, accumulate)``: a copy of ``input`` with ``source``'s elements
    (row-major) written at the flat positions ``index`` (the last of repeated positions wins),
    or added there with ``accumulate``. Gradients: ``input`` keeps the gradient except at
    overwritten positions; ``source`` takes the gradient at its positions."""

    name = "put"
    tensor_attrs = ("index",)
    graph_aliases = ("index",)

    @staticmethod
    def forward(ctx, x, source, index, accumulate=False):
        idx = _flat_index(index, x.size, "put_")
        ctx.idx, ctx.accumulate, ctx.sshape = idx, accumulate, source.shape
        r = np.array(x, copy=True, order="C")
        flat = r.reshape(-1)  # (a view of the copy)
        if accumulate:
            np.add.at(flat, idx, source.reshape(-1))
        else:
            flat[idx] = source.reshape(-1)
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = ctx.needs_input_grad
        shape = tuple(g.shape)
        gx = gs = None
        if n[0]:
            gx = g
            if not ctx.accumulate:
                gx = xp.reshape(xp.set_at(xp.reshape(xp.copy(g), (-1,)), (ctx.idx,), 0), shape)
        if n[1]:
            gs = xp.reshape(xp.getitem(xp.reshape(g, (-1,)), (ctx.idx,)), tuple(ctx.sshape))
        return (gx, gs)


class MaskedScatter(Kernel):
    """``masked_scatter(input, mask, source)``: ``input`` (broadcast with ``mask``) with its
    True positions, in row-major order, taking ``source``'s leading elements. Gradients:
    ``input`` gets the gradient where the mask is False; ``source``'s k-th element the gradient
    at the k-th True position (0 for elements no position took)."""

    name = "masked_scatter"
    saved = (1,)
    graph_inputs = {"mask": 1}

    @staticmethod
    def forward(ctx, x, mask, source):
        shape = np.broadcast_shapes(x.shape, mask.shape)
        m = np.broadcast_to(mask, shape)
        k = int(np.count_nonzero(m))
        if k > source.size:
            raise RuntimeError("Number of elements of source < number of ones in mask")
        ctx.mask, ctx.shape, ctx.sshape = mask, shape, source.shape
        r = np.array(np.broadcast_to(x, shape), copy=True)
        r[m] = source.reshape(-1)[:k]
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = ctx.needs_input_grad
        m = xp.broadcast_to(ctx.mask, tuple(ctx.shape))
        gx = xp.where(m, xp.zeros((), g.dtype), g) if n[0] else None
        gs = None
        if len(n) > 2 and n[2]:
            size = int(np.prod(ctx.sshape, dtype=np.int64))
            flat = xp.reshape(m, (-1,))
            # the k-th True position feeds source element k; the others go to a spare slot
            pos = xp.cumsum(xp.astype(flat, np.int64), 0) - 1
            slot = xp.where(flat, pos, size)
            acc = xp.add_at(xp.zeros((size + 1,), g.dtype), (slot,), xp.reshape(g, (-1,)))
            gs = xp.reshape(xp.getitem(acc, (slice(0, size),)), tuple(ctx.sshape))
        return (gx, None, gs)

