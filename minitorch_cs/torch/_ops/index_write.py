"""Reads and writes at flat positions, mask positions or scattered indices: ``take``,
``put``/``put_``, ``masked_scatter`` and ``scatter_reduce``.

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
from .movement import _check_bounds, _scatter_index


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


_REDUCE_AT = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
              "amin": np.minimum}


def _identity(reduce, dtype):
    """The value a target starts from when ``include_self=False``."""
    if reduce in ("sum", "mean"):
        return np.zeros((), dtype)
    if reduce == "prod":
        return np.ones((), dtype)
    big = reduce == "amin"
    if dtype == np.bool_:
        return np.asarray(big)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.asarray(info.max if big else info.min, dtype)
    return np.asarray(np.inf if big else -np.inf).astype(dtype)


class ScatterReduce(Kernel):
    """``scatter_reduce(input, dim, index, src, reduce, include_self)``: each ``src`` element
    (the block ``index`` covers) reduced into ``input`` at its index along ``dim`` -- "sum",
    "prod", "mean" (integers: floor division), "amax"/"amin" (NaN propagates; of equal values
    the first met is kept, self first, then ``src`` along ``dim``, which decides a zero's
    sign). Without ``include_self`` a target position is reduced from ``src`` only. Gradients
    are torch's formulas (``prod`` through the product of the other factors where one is 0;
    ``amax``/``amin`` shared evenly by the elements equal to the result)."""

    name = "scatter_reduce"
    overlap = "any"
    saved = (0, 2)
    saves_output = True
    graph_inputs = {"x": 0, "src": 2}
    graph_aliases = ("index",)

    @staticmethod
    def forward(ctx, x, index, src, dim, reduce, include_self=True):
        _check_bounds(index, x.shape[dim], dim)
        src = src[tuple(slice(0, s) for s in index.shape)]
        ctx.dim, ctx.reduce, ctx.include_self = dim, reduce, include_self
        if index.size == 0:  # nothing scattered (torch checks no shapes then)
            ctx.x, ctx.src, ctx.y, ctx.index = x, src, x, index
            return np.array(x, copy=True)
        if reduce == "mean" and x.dtype == np.bool_:
            raise NotImplementedError("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented "
                                      "for 'Bool'")
        key = _scatter_index(dim, index)
        hits = np.zeros(x.shape, np.int64)
        np.add.at(hits, key, 1)
        hit = hits > 0
        r = np.array(x, copy=True) if include_self else \
            np.where(hit, _identity(reduce, x.dtype), x).astype(x.dtype)
        _REDUCE_AT[reduce].at(r, key, src)
        if reduce == "mean":
            n = hits + (1 if include_self else 0)
            if r.dtype.kind in "iu":
                r = np.where(hit, np.floor_divide(r, np.maximum(n, 1)), r).astype(x.dtype)
            else:
                with np.errstate(invalid="ignore", divide="ignore"):
                    r = np.where(hit, r / np.maximum(n, 1).astype(r.dtype), r).astype(x.dtype)
        elif reduce in ("amax", "amin") and (r.dtype.kind == "f" or r.dtype in _HALF):
            r = _first_zero_sign(r, x, src, key, index, dim, include_self, hit)
        ctx.x, ctx.src, ctx.y, ctx.index = x, src, r, index
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = ctx.needs_input_grad
        x, src, y, index, d = ctx.x, ctx.src, ctx.y, ctx.index, ctx.dim
        reduce, inc = ctx.reduce, ctx.include_self
        if 0 in tuple(index.shape):  # nothing scattered: the formulas below, with no terms
            gx = g
            with xp.errstate(divide="ignore", invalid="ignore"):
                if reduce == "prod":  # (self's NaN and inf still give NaN, as in torch)
                    mx = xp.where(x == 0, xp.ones((), g.dtype), x)
                    gx = g * mx / mx
                elif reduce in ("amax", "amin"):
                    x_is = xp.astype(x == y, xp.npdtype(g))
                    gx = x_is * (g / x_is)
            return (gx if n[0] else None, None,
                    xp.zeros(ctx.in_meta[2][0], g.dtype) if n[2] else None)
        src = xp.getitem(src, tuple(slice(0, k) for k in index.shape))  # (the block read)
        key = _scatter_index(d, index)  # (reading at it gathers: index's shape)
        gx = gs = None
        if reduce == "sum":
            gx, gs = g, xp.getitem(g, key)
        elif reduce == "mean":
            cnt = xp.ones(tuple(g.shape), g.dtype) if inc else xp.zeros(tuple(g.shape), g.dtype)
            cnt = xp.scatter_add(cnt, d, index, xp.ones(tuple(index.shape), g.dtype))
            cnt = xp.where(cnt == 0, xp.ones((), g.dtype), cnt)
            gx = g / cnt
            gs = xp.getitem(g, key) / xp.getitem(cnt, key)
        elif reduce == "prod":
            one = xp.ones((), g.dtype)
            masked_x = xp.where(x == 0, one, x)
            gx = g * xp.call(ScatterReduce, masked_x, index, src, dim=d, reduce="prod",
                             include_self=inc) / masked_x
            src_zero = src == 0
            nz = xp.scatter_add(xp.zeros(tuple(g.shape), g.dtype), d, index,
                                xp.astype(src_zero, xp.npdtype(g)))
            single = src_zero & (xp.getitem(nz, key) == 1)
            masked_src = xp.where(single, one, src)
            others = xp.call(ScatterReduce, x, index, masked_src, dim=d, reduce="prod",
                             include_self=inc)
            gs = xp.where(single, xp.getitem(g * others, key),
                          xp.getitem(g * y, key) / xp.where(src_zero, one, src))
        else:  # amax / amin
            value = xp.getitem(y, key)
            x_is = xp.astype(x == y, xp.npdtype(g))
            src_is = xp.astype(src == value, xp.npdtype(g))
            share = g / xp.scatter_add(xp.copy(x_is), d, index, src_is)  # (numpy: in place)
            gx = x_is * share
            gs = src_is * xp.getitem(share, key)
        if not inc and n[0]:  # the targets did not read input
            gx = xp.set_at(xp.copy(gx), key, 0)
        if n[2] and tuple(gs.shape) != ctx.in_meta[2][0]:  # src larger than index: unread
            gs = xp.set_at(xp.zeros(ctx.in_meta[2][0], g.dtype),  # elements get 0
                           tuple(slice(0, k) for k in gs.shape), gs)
        return (gx if n[0] else None, None, gs if n[2] else None)


def _first_zero_sign(r, x, src, key, index, dim, include_self, hit):
    """``r`` with each zero result at a ``hit`` position signed as the first zero the
    reduction met (torch keeps the running value on a tie; numpy's maximum/minimum may return
    either zero). Positions nothing was scattered to keep ``input``'s value as it is."""
    zero = (r == 0) & hit
    if not zero.any():
        return r
    big = np.iinfo(np.int64).max
    pos = np.arange(index.shape[dim]).reshape((-1,) + (1,) * (index.ndim - dim - 1))
    code = np.where(src == 0, 2 * (pos + 1) + np.signbit(src), big)  # (self ranks as 0)
    first = np.full(r.shape, big, np.int64)
    if include_self:
        first = np.where(x == 0, np.signbit(x).astype(np.int64), big)
    np.minimum.at(first, key, code)
    neg = (first % 2 == 1) & (first != big)
    return np.where(zero, np.where(neg, -np.zeros((), r.dtype), np.zeros((), r.dtype)), r)
