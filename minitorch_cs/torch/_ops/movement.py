"""Movement primitives: views that share storage (reshape, permute, expand, basic indexing) and
copies that gather or scatter (advanced indexing, cat, stack, gather, scatter, index_select)."""
from __future__ import annotations

import numpy as np

from .._dispatch import Op, view_target
from .._errors import in_range, index_error
from .._kernels import fold
from ._kernel import (Kernel, _strided_like, index_layout, is_channels_last, preserve_format,
                      write_out)
from ._opmath import HALF
from .elementwise import _to_dtype_checked
from .. import _dtype as D
from .._dtype import bool as _bool
from .._tensor import Tensor
from ._xp import graph_mode, ns, raw


# ----- views (forward returns a numpy view of the input) -----------------------------------------
def _view_strides(old_shape, old_strides, shape):
    """torch's ``computeStride`` (byte strides): the strides ``view(shape)`` gives a tensor of
    ``old_shape``/``old_strides``, or None when it cannot be viewed. Only the strides of size-1
    dims can differ from numpy's reshape; torch's are what its layout rules read."""
    new = [0] * len(shape)
    view_d = len(shape) - 1
    base = old_strides[-1] if old_strides else 1
    t_numel = v_numel = 1
    for d in range(len(old_shape) - 1, -1, -1):
        t_numel *= old_shape[d]
        if d == 0 or (old_shape[d - 1] != 1 and old_strides[d - 1] != t_numel * base):
            while view_d >= 0 and (v_numel < t_numel or shape[view_d] == 1):
                new[view_d] = v_numel * base
                v_numel *= shape[view_d]
                view_d -= 1
            if v_numel != t_numel:
                return None
            if d > 0:
                base, t_numel, v_numel = old_strides[d - 1], 1, 1
    return tuple(new) if view_d == -1 else None


def _restrided(r, strides):
    """``r`` with other strides for its size-1 dims (the same memory), when it views a
    C-contiguous root array (else ``r`` unchanged: the layout rules then see numpy's)."""
    if r.strides == strides:
        return r
    root = r
    while True:  # the owning array (through numpy's as_strided wrappers too)
        b = root.base
        if not isinstance(b, np.ndarray) and isinstance(getattr(b, "base", None), np.ndarray) \
                and hasattr(b, "__array_interface__"):
            b = b.base
        if not isinstance(b, np.ndarray):
            break
        root = b
    if not root.flags.c_contiguous:  # a dense root in another order: its memory-order view
        flat = root.ravel(order="K")
        if flat.base is not root:
            return r
        root = flat
    offset = r.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    v = np.ndarray(r.shape, r.dtype, buffer=root, offset=offset, strides=strides)
    if not r.flags.writeable:
        v.flags.writeable = False
    return v


def _torch_view(x, shape, r, unsqueeze=None):
    """``r`` (numpy's reshape of ``x`` to ``shape``, a view) with torch's strides for its
    size-1 dims: ``view``'s rule, or ``unsqueeze``'s (the new dim's stride is the next dim's
    extent, 1 element at the end)."""
    if r.size == 0 or 1 not in r.shape:
        return r
    if unsqueeze is not None:
        d = unsqueeze
        st = x.strides[:d] + ((x.shape[d] * x.strides[d]) if d < x.ndim else x.itemsize,) + \
            x.strides[d:]
    else:
        st = _view_strides(x.shape, x.strides, tuple(shape)) if x.ndim else \
            (x.itemsize,) * len(shape)
        if st is None:
            return r
        st = tuple(a if n == 1 else b for a, b, n in zip(st, r.strides, r.shape))
    return _restrided(r, st)


class UnsafeView(Op):
    """torch's ``_unsafe_view``: the same storage reshaped, but not an autograd view -- its own
    version counter, so an in-place change of the source later is not seen by a backward that
    saved it (torch's kron saves its operands this way)."""

    name = "_unsafe_view"
    alias = True

    @staticmethod
    def forward(ctx, x, shape):
        ctx.shape = x.shape
        r = np.reshape(x, shape)
        return _torch_view(x, shape, r) if np.shares_memory(r, x) else r

    @staticmethod
    def backward(ctx, g):
        return (g.reshape(ctx.shape),)


class View(Op):
    """A view of another shape. ``node``: the name of torch's node when the function that made
    it is not ``view`` (``squeeze``: ``SqueezeBackward0/1/2`` by its dim argument,
    ``unsqueeze``: ``UnsqueezeBackward0``)."""

    name = "view"
    is_view = True

    @staticmethod
    def forward(ctx, x, shape, unsqueeze=None, node=None):
        ctx.shape = x.shape
        if node is not None:
            ctx.torch_node = node
        return _torch_view(x, shape, np.reshape(x, shape, copy=False), unsqueeze)

    @staticmethod
    def backward(ctx, g):
        return (ns(g).reshape(g, ctx.shape),)


class ReshapeCopy(Kernel):
    name = "reshape_copy"
    node_name = "UnsafeViewBackward0"  # (torch: a clone, then an _unsafe_view of it)

    @staticmethod
    def forward(ctx, x, shape):
        ctx.shape = x.shape
        return np.array(np.reshape(x, shape))

    @staticmethod
    def backward(ctx, g):
        return (ns(g).reshape(g, ctx.shape),)


class Permute(Op):
    name = "permute"
    is_view = True

    @staticmethod
    def forward(ctx, x, dims, node=None):  # node: as View's (TransposeBackward0, TBackward0)
        ctx.dims = dims
        if node is not None:
            ctx.torch_node = node
        return np.transpose(x, dims)

    @staticmethod
    def backward(ctx, g):
        return (ns(g).transpose(g, tuple(int(d) for d in np.argsort(ctx.dims))),)


def expand_strides(x, shape) -> tuple:
    """torch's strides of ``x`` expanded to ``shape`` (``inferExpandGeometry``), from the last
    dim: a dim ``x`` has keeps its stride unless it grows from 1 (then 0); a new leading dim of
    size 1 gets the next dim's size times its stride (a contiguous tensor stays contiguous-
    looking: (2, 3) to (1, 2, 3) has strides (6, 3, 1)), a larger one 0."""
    lead = len(shape) - x.ndim
    out = [0] * len(shape)
    for i in range(len(shape) - 1, -1, -1):
        if i >= lead:
            out[i] = x.strides[i - lead] if x.shape[i - lead] == shape[i] else 0
        elif shape[i] == 1 and i + 1 < len(shape):
            out[i] = shape[i + 1] * out[i + 1]
    return tuple(out)


class Expand(Op):
    name = "expand"
    is_view = True

    @staticmethod
    def forward(ctx, x, shape):
        r = np.broadcast_to(x, shape)
        strides = expand_strides(x, r.shape)
        # memory shared by several elements (a grown dim) is read-only: in-place writes there
        # raise; an expand that grows nothing is an ordinary view, writable as in torch
        shared = any(st == 0 and n > 1 for st, n in zip(strides, r.shape))
        return np.lib.stride_tricks.as_strided(x, r.shape, strides,
                                               writeable=x.flags.writeable and not shared)

    @staticmethod
    def backward(ctx, g):
        return (g,)  # the engine sums over the broadcast dimensions


class Index(Op):
    """Basic indexing (ints, slices, None, Ellipsis): a view. ``node``: torch's name for the
    node of the function that made it (``SelectBackward0``, ``SliceBackward0``, ...)."""

    name = "index"
    is_view = True

    @staticmethod
    def forward(ctx, x, key, node=None):
        ctx.shape, ctx.key, ctx.dtype = x.shape, key, x.dtype
        if node is not None:
            ctx.torch_node = node
        r = x[key]
        if not isinstance(r, np.ndarray):  # all-int key: numpy copies out a scalar; keep a view
            r = x[tuple(key) + (Ellipsis,)]
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        return (xp.set_at(xp.zeros(ctx.shape, g.dtype), ctx.key, g),)


class Diagonal(Op):
    name = "diagonal"
    is_view = True

    @staticmethod
    def forward(ctx, x, offset=0, dim1=0, dim2=1):
        ctx.shape, ctx.args = x.shape, (offset, dim1, dim2)
        r = np.diagonal(x, offset, dim1, dim2)
        if x.flags.writeable:  # numpy hands out a read-only view; torch's diagonal is writable
            r.setflags(write=True)
        return r

    @staticmethod
    def backward(ctx, g):
        return (ns(g).call(DiagonalEmbed, g, shape=ctx.shape, args=ctx.args),)


class DiagonalEmbed(Op):
    """The gradient of ``diagonal``: ``g`` written on that diagonal of zeros (torch's
    ``diagonal_backward``); its own gradient is the diagonal again. Backward rules reach it."""

    name = "diagonal_backward"

    @staticmethod
    def forward(ctx, g, shape, args):
        ctx.args = args
        z = np.zeros(shape, g.dtype)
        v = np.diagonal(z, *args)
        v.setflags(write=True)
        v[...] = g
        return z

    @staticmethod
    def backward(ctx, g):
        offset, dim1, dim2 = ctx.args
        return (ns(g).call(Diagonal, g, offset=offset, dim1=dim1, dim2=dim2),)


class Unfold(Op):
    """``Tensor.unfold(dimension, size, step)``: a view of every ``size``-long window along
    ``dimension``, ``step`` apart: that dim counts the windows and a new last dim holds each
    (strides ``step * stride`` and ``stride``); a 0-d tensor gives ``(size,)``."""

    name = "unfold"
    is_view = True

    @staticmethod
    def forward(ctx, x, dimension, size, step):
        ctx.shape, ctx.args = x.shape, (dimension, size, step)
        if x.ndim == 0:
            return np.lib.stride_tricks.as_strided(x, (size,), (x.itemsize,),
                                                   writeable=x.flags.writeable)
        st = x.strides[dimension]
        shape = x.shape[:dimension] + ((x.shape[dimension] - size) // step + 1,) + \
            x.shape[dimension + 1:] + (size,)
        strides = x.strides[:dimension] + (step * st,) + x.strides[dimension + 1:] + (st,)
        return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=x.flags.writeable)

    @staticmethod
    def backward(ctx, g):
        return (ns(g).call(UnfoldBackward, g, shape=ctx.shape, args=ctx.args),)


class UnfoldBackward(Op):
    """The gradient of ``unfold`` (torch's ``unfold_backward``): each window's gradient added
    back at its place in zeros of the input's shape; its own gradient is the unfold again."""

    name = "unfold_backward"

    @staticmethod
    def forward(ctx, g, shape, args):
        ctx.args = args
        d, size, step = args
        z = np.zeros(shape, g.dtype)
        if not shape:
            z[...] = g.reshape(())
            return z
        n = g.shape[d]
        zd = np.moveaxis(z, d, -1)  # (..., L): the windowed dim last, as g's window dim is
        gd = np.moveaxis(g, d, -2)  # (..., n, size)
        for k in range(size):  # offset k of every window: distinct positions, one add each
            zd[..., k:k + step * (n - 1) + 1:step] += gd[..., k]
        return z

    @staticmethod
    def backward(ctx, g):
        d, size, step = ctx.args
        return (ns(g).call(Unfold, g, dimension=d, size=size, step=step),)


# ----- copies ------------------------------------------------------------------------------------
class AdvIndex(Kernel):
    """Advanced indexing (integer/bool arrays): a gather; repeated indices accumulate in backward."""

    name = "index_adv"
    node_name = "IndexBackward0"
    tensor_attrs = ("key",)
    graph_aliases = ("key",)
    own_layout = True  # torch's index kernel decides the result's strides (index_layout)

    @staticmethod
    def dynamic_shape(args, attrs):
        """A boolean mask selects as many elements as it has True values."""
        return any(isinstance(k, Tensor) and k.dtype is _bool for k in attrs["key"])

    @staticmethod
    def forward(ctx, x, key):
        ctx.shape, ctx.key = x.shape, key
        return index_layout(x, key, _indexed(x, key, lambda k: x[k]))  # (a view -- a 0-d
        # index array -- is copied by Kernel)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        return (xp.add_at(xp.zeros(ctx.shape, g.dtype), ctx.key, g),)


class IndexPut(Kernel):
    """``x[key] = v`` as an op (also the in-place form behind ``__setitem__``)."""

    name = "index_put"
    tensor_attrs = ("key",)
    graph_aliases = ("key",)

    @staticmethod
    def forward(ctx, x, v, key, accumulate=False, sliced=False, out=None):
        ctx.key, ctx.accumulate = key, accumulate
        ctx.vshape = v.shape if isinstance(v, np.ndarray) else ()
        if sliced and isinstance(v, np.ndarray) and v.ndim and v.shape[0] == 1:
            # ``x[key] = v`` (torch's setitem, not index_put_) drops v's leading size-1 dims
            lead = next((i for i, n in enumerate(v.shape) if n != 1), v.ndim)
            v = v.reshape(v.shape[lead:])
        r = out if out is not None else np.array(x, copy=True)
        if isinstance(v, np.ndarray) and v.dtype != r.dtype:
            mask_fill = len(key) == 1 and isinstance(key[0], np.ndarray) and \
                key[0].dtype == np.bool_ and v.size == 1  # torch: masked_fill, which casts
            if any(isinstance(k, np.ndarray) for k in key) and not mask_fill:  # index_put_
                from .._dtype import _BY_NP, scalar_name
                raise RuntimeError(
                    "Index put requires the source and destination dtypes match, got "
                    f"{scalar_name(_BY_NP[r.dtype])} for the destination and "
                    f"{scalar_name(_BY_NP[v.dtype])} for the source.")
            # masked_fill converts its one value as a Scalar (out of range or NaN: refused)
            v = _to_dtype_checked(v.reshape(-1)[0].item(), r.dtype) if mask_fill else \
                D.np_cast(v, r.dtype)
        elif isinstance(v, (int, float, np.number)):  # a number is a Scalar to torch: its
            # conversion is checked (256 into uint8, 1e40 into float32 refused), except into a
            # half dtype, which torch fills from a double unchecked (70000 is inf in float16)
            v = D.np_cast(v, r.dtype) if r.dtype in HALF else _to_dtype_checked(v, r.dtype)
        _indexed(r, key, lambda k: _write(r, k, v, accumulate))
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        gx = None
        if ctx.needs_input_grad[0]:
            gx = xp.copy(g)
            if not ctx.accumulate:
                gx = xp.set_at(gx, ctx.key, 0)
        gv = xp.getitem(g, ctx.key) if ctx.needs_input_grad[1] else None
        if gv is not None and gv.ndim < len(ctx.vshape):  # the value's dropped size-1 dims
            gv = xp.reshape(gv, (1,) * (len(ctx.vshape) - gv.ndim) + tuple(gv.shape))
        return (gx, gv)


def _write(r, key, v, accumulate):
    if accumulate:
        if isinstance(v, np.ndarray) and v.ndim:  # numpy 2.4's ufunc.at applies a value
            v = np.broadcast_to(v, r[key].shape)  # broadcast along the index only once
        np.add.at(r, key, v)
    else:
        r[key] = v


def _indexed(x, key, run):
    """``run(key)`` (numpy's read or write at ``key`` of ``x``) after torch's index checks,
    which numpy does not all make (an empty mask over a dim of size 1, an index tensor into a
    dim of size 0): its IndexErrors, in its order; an out-of-range index is torch's error only
    where the result has elements (torch's kernel reads none otherwise)."""
    err = index_error(key, x.shape, bounds=False)
    if err is not None:
        raise err
    try:
        return run(key)
    except IndexError:
        err = index_error(key, x.shape)
        if err is not None:
            raise err from None
        return run(in_range(key, x.shape))


def _concatenate(pieces, axis):
    """``np.concatenate`` into a result laid out by torch's ``cat`` rule: channels-last when
    every piece suggests it (an empty piece does not), else contiguous (size-1 dims included)."""
    shape = list(pieces[0].shape)
    shape[axis] = sum(p.shape[axis] for p in pieces)
    dtype = np.result_type(*pieces)
    if len(shape) == 4 and all(is_channels_last(p) for p in pieces):
        out = _strided_like(shape, dtype, [1, 3, 2, 0])
    else:
        out = np.empty(shape, dtype)
    np.concatenate(pieces, axis=axis, out=out)
    return out


class Cat(Kernel):
    name = "cat"
    own_layout = True

    @staticmethod
    def forward(ctx, *xs, dim=0):
        ctx.sizes = [x.shape[dim] for x in xs]
        ctx.dim = dim
        return _concatenate(xs, dim % xs[0].ndim) if xs[0].ndim else np.concatenate(xs, axis=dim)

    @staticmethod
    def backward(ctx, g):
        return tuple(ns(g).split_sizes(g, ctx.sizes, ctx.dim))


class Stack(Kernel):
    name = "stack"

    @staticmethod
    def forward(ctx, *xs, dim=0):
        ctx.dim = dim
        return np.stack(xs, axis=dim)

    @staticmethod
    def backward(ctx, g):
        return tuple(ns(g).unstack(g, ctx.dim))


class Flip(Kernel):
    elementwise = True  # torch's flip keeps the input's layout
    name = "flip"

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return np.flip(x, dims).copy()

    @staticmethod
    def backward(ctx, g):
        return (ns(g).flip(g, ctx.dims),)


class Roll(Kernel):
    """torch's roll: per dim (in order), the two slices ``x[start:]`` and ``x[:start]``
    concatenated, so the result's layout is ``cat``'s rule on them. Without ``dims``, the
    flattened tensor rolled and viewed back in ``x``'s shape (one node, as torch's)."""

    name = "roll"
    own_layout = True

    @staticmethod
    def forward(ctx, x, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        if x.size == 0:
            return preserve_format(x, x.copy())
        if dims is None:
            r = Roll.forward(ctx, np.reshape(x, -1), shifts, 0).reshape(x.shape)
            ctx.dims = None
            return r
        r = x
        for s, d in zip(*((v,) if not isinstance(v, tuple) else v for v in (shifts, dims))):
            n = r.shape[d]
            start = (n - s) % n
            key = (slice(None),) * (d % r.ndim)
            pieces = (r[key + (slice(start, n),)], r[key + (slice(0, start),)])
            r = _concatenate(pieces, d % r.ndim)
        return r

    @staticmethod
    def backward(ctx, g):
        neg = tuple(-s for s in ctx.shifts) if isinstance(ctx.shifts, tuple) else -ctx.shifts
        return (ns(g).roll(g, neg, ctx.dims),)


class Tile(Kernel):
    name = "repeat"

    @staticmethod
    def forward(ctx, x, reps):
        ctx.shape, ctx.reps = x.shape, reps
        return np.tile(x, reps)

    @staticmethod
    def backward(ctx, g):
        shape = (1,) * (len(ctx.reps) - len(ctx.shape)) + tuple(ctx.shape)
        inter = []
        for r, s in zip(ctx.reps, shape):
            inter += [r, s]
        xp = ns(g)
        g = xp.sum(xp.reshape(g, inter), axis=tuple(range(0, len(inter), 2)))
        return (xp.reshape(g, ctx.shape),)


class RepeatInterleave(Kernel):
    name = "repeat_interleave"
    tensor_attrs = ("repeats",)

    @staticmethod
    def dynamic_shape(args, attrs):
        """Repeat counts held in a tensor decide the output length."""
        return isinstance(attrs["repeats"], Tensor) and attrs["repeats"].numel() > 1

    @staticmethod
    def forward(ctx, x, repeats, dim, output_size=None):
        ctx.shape, ctx.repeats, ctx.dim = x.shape, repeats, dim
        if isinstance(repeats, np.ndarray):
            check_counts(repeats, output_size)
        return np.repeat(x, repeats, axis=dim)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        d = ctx.dim
        n = ctx.shape[d]
        idx = np.repeat(np.arange(n), raw(ctx, "repeats"))  # fixes the output's shape: static
        return (xp.add_at(xp.zeros(ctx.shape, g.dtype), (slice(None),) * d + (idx,), g),)


def check_counts(counts, output_size=None):
    """torch's checks on the values of a tensor of repeat counts: none negative, and their sum
    the ``output_size`` the caller promised (when it gave one)."""
    if counts.size and counts.min() < 0:
        raise RuntimeError("repeats can not be negative")
    if output_size is not None and int(counts.sum()) != output_size:
        raise RuntimeError("allocated size does not match required size")


def first_out_of_range(index, low, high):
    """The first entry (C order) of the integer array ``index`` outside ``[low, high)``, or None."""
    if index.size and (index.min() < low or index.max() >= high):
        return int(index[(index < low) | (index >= high)].flat[0])
    return None


def _check_bounds(index, size, dim, message=None):
    """torch refuses an index outside ``[0, size)`` (numpy would wrap a negative one)."""
    bad = first_out_of_range(index, 0, size)
    if bad is not None:
        raise RuntimeError(message.format(bad=bad, size=size) if message else
                           f"index {bad} is out of bounds for dimension {dim} with size {size}")


class Gather(Kernel):
    name = "gather"
    saved = (0,)  # torch's node saves the input (its backward reads only the shape): changing
    reads = None  # it in place before backward is refused
    tensor_attrs = ("index",)
    graph_aliases = ("index",)

    @staticmethod
    def forward(ctx, x, index, dim):
        _check_bounds(index, x.shape[dim], dim)
        ctx.shape, ctx.index, ctx.dim = x.shape, index, dim
        # torch allows index.size(d) <= x.size(d) for d != dim: read that leading block only
        # (take_along_axis would broadcast the index instead)
        x = x[tuple(slice(None) if d == dim else slice(0, s) for d, s in enumerate(index.shape))]
        return np.take_along_axis(x, index, axis=dim)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        return (xp.scatter_add(xp.zeros(ctx.shape, g.dtype), ctx.dim, ctx.index, g), None)


def _scatter_index(dim, index):
    idx = list(np.indices(index.shape, sparse=True))
    idx[dim] = index
    return tuple(idx)


def _scatter_add(z, dim, index, src):
    np.add.at(z, _scatter_index(dim, index), src[tuple(slice(0, s) for s in index.shape)])


class Scatter(Kernel):
    name = "scatter"
    overlap = "any"  # torch: no memory shared between self and src or index
    graph_aliases = ("index",)

    @staticmethod
    def forward(ctx, x, index, src, dim, reduce=None, out=None):
        _check_bounds(index, x.shape[dim], dim)
        if isinstance(src, np.ndarray) and src.dtype != x.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        ctx.index, ctx.dim, ctx.reduce = index, dim, reduce
        r = out if out is not None else np.array(x, copy=True)
        key = _scatter_index(dim, index)
        if isinstance(src, np.ndarray):
            src = src[tuple(slice(0, s) for s in index.shape)]
        if reduce is None:
            r[key] = src
        elif reduce in ("add", "sum"):
            np.add.at(r, key, src)
        elif reduce in ("multiply", "prod"):
            np.multiply.at(r, key, src)
        else:
            raise RuntimeError("reduce argument must be either add or multiply.")
        return r

    @staticmethod
    def backward(ctx, g):
        if ctx.reduce not in (None, "add", "sum"):
            raise RuntimeError("the derivative of scatter with reduce='multiply' is not implemented")
        xp = ns(g)
        key = _scatter_index(ctx.dim, ctx.index)
        gx = xp.copy(g)
        if ctx.reduce is None:
            gx = xp.set_at(gx, key, 0)
        gsrc = None
        if len(ctx.needs_input_grad) > 2 and ctx.needs_input_grad[2]:
            gsrc = xp.getitem(g, key)
            src_shape = ctx.in_meta[2][0]
            if tuple(gsrc.shape) != src_shape:  # src larger than index: the unread part gets 0
                # Differs from torch: its backward rejects this case ("invalid gradient") (SPEC)
                gsrc = xp.set_at(xp.zeros(src_shape, g.dtype),
                                 tuple(slice(0, n) for n in gsrc.shape), gsrc)
        return (gx, None, gsrc)


class IndexSelect(Kernel):
    name = "index_select"
    tensor_attrs = ("index",)
    graph_aliases = ("index",)

    @staticmethod
    def forward(ctx, x, index, dim):
        _check_bounds(index, x.shape[dim], dim,
                      "INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
        ctx.shape, ctx.index, ctx.dim = x.shape, index, dim
        return np.take(x, index, axis=dim)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        return (xp.add_at(xp.zeros(ctx.shape, g.dtype), (slice(None),) * ctx.dim + (ctx.index,),
                          g), None)


def _along(dim, index):
    return (slice(None),) * dim + (index,)


def _as_nd(a, shape):
    """``a`` seen with ``shape`` (a 0-d self or source is handled as one element along ``dim``)."""
    return a if a.shape == shape else a.reshape(shape)


class IndexAdd(Kernel):
    """``index_add(dim, index, source, alpha)``: ``self[.., index[i], ..] += alpha * source[.., i,
    ..]``, repeated indices accumulating. ``index`` is checked and made 1-d by the caller."""

    name = "index_add"
    overlap = "any"  # torch: no memory shared between self and source or index
    node_name = "IndexAddBackward0"
    saved = (1,)  # torch's node saves the source (its gradient expands to the source's shape)
    reads = {1: (1,)}  # (only for the source's own gradient)
    tensor_attrs = ("index",)
    graph_aliases = ("index",)

    @staticmethod
    def forward(ctx, x, source, index, dim, alpha=1, out=None):
        shape = x.shape or (1,)
        bad = first_out_of_range(index, 0, shape[dim])
        if bad is not None:
            if x.ndim <= 1:  # torch's kernel for vectors reports it this way
                raise IndexError("index out of range in self")
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size "
                               f"{shape[dim]}")
        sshape = shape[:dim] + (index.size,) + shape[dim + 1:]
        ctx.index, ctx.dim, ctx.alpha, ctx.shapes = index, dim, alpha, (x.shape, source.shape)
        r = out if out is not None else np.array(x, copy=True)
        src = _as_nd(source, sshape)
        if alpha != 1 and x.dtype != np.bool_ and (index.size or x.ndim <= 1):
            # torch converts alpha to the dtype in its kernel, which an empty index never runs
            # (its kernel for vectors converts it up front)
            a = _to_dtype_checked(alpha, x.dtype)
            if index.size:
                src = src * a
        np.add.at(_as_nd(r, shape), _along(dim, index), src)
        return r

    @staticmethod
    def backward(ctx, g):
        n = ctx.needs_input_grad
        gsrc = None
        if len(n) > 1 and n[1]:
            xp = ns(g)
            xshape, sshape = ctx.shapes
            gsrc = xp.take(xp.reshape(g, xshape or (1,)), ctx.index, ctx.dim)
            if ctx.alpha != 1:
                gsrc = gsrc * xp.asarray(ctx.alpha, g.dtype)
            gsrc = xp.reshape(gsrc, sshape)
        return (g if n[0] else None, gsrc)


class IndexCopy(Kernel):
    """``index_copy(dim, index, source)``: ``self[.., index[i], ..] = source[.., i, ..]`` (the last
    of repeated indices wins, as on torch's CPU); self's gradient is zero where it was
    overwritten, source's is the gradient at its target."""

    name = "index_copy"
    overlap = "any"  # torch: no memory shared between self and source or index
    node_name = "IndexCopyBackward0"
    saved = (1,)  # torch's node saves the source (its gradient expands to the source's shape)
    tensor_attrs = ("index",)
    graph_aliases = ("index",)

    @staticmethod
    def forward(ctx, x, source, index, dim, out=None):
        shape = x.shape or (1,)
        bad = first_out_of_range(index, 0, shape[dim])
        if bad is not None:
            raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {dim} "
                             f"with size {shape[dim]}")
        sshape = shape[:dim] + (index.size,) + shape[dim + 1:]
        ctx.index, ctx.dim, ctx.shapes = index, dim, (x.shape, source.shape)
        r = out if out is not None else np.array(x, copy=True)
        _as_nd(r, shape)[_along(dim, index)] = _as_nd(source, sshape)
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = ctx.needs_input_grad
        xshape, sshape = ctx.shapes
        g1 = xp.reshape(g, xshape or (1,))
        gx = gsrc = None
        if n[0]:
            gx = xp.reshape(xp.set_at(xp.copy(g1), _along(ctx.dim, ctx.index), 0), xshape)
        if len(n) > 1 and n[1]:
            gsrc = xp.reshape(xp.take(g1, ctx.index, ctx.dim), sshape)
        return (gx, gsrc)


class IndexFill(Kernel):
    """``index_fill(dim, index, value)``: every slice ``self[.., index[i], ..]`` set to ``value``
    (a number, or a 0-d array when the value tensor requires grad: its gradient is the sum of the
    gradient over the filled slices). Negative entries of ``index`` count from the end."""

    name = "index_fill"
    node_name = "IndexFillBackward0"
    elementwise = True  # a clone, then filled: the input's layout, as in torch
    tensor_attrs = ("index",)

    @staticmethod
    def forward(ctx, x, value, index, dim, out=None):
        shape = x.shape or (1,)
        size = shape[dim]
        bad = first_out_of_range(index, -size, size)
        if bad is not None:
            raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
        index = np.where(index < 0, index + size, index)
        ctx.index, ctx.dim, ctx.shape = index, dim, x.shape
        r = out if out is not None else np.array(x, copy=True)
        _as_nd(r, shape)[_along(dim, index)] = _to_dtype_checked(value, x.dtype)
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = ctx.needs_input_grad
        gx = gv = None
        if graph_mode(xp):  # the filled slices as a mask (repeated indices fill once)
            g1 = xp.reshape(g, ctx.shape or (1,))
            filled = xp.set_at(xp.zeros(tuple(g1.shape), np.bool_), _along(ctx.dim, ctx.index),
                               True)
            if n[0]:
                gx = xp.reshape(xp.where(filled, 0, g1), ctx.shape)
            if len(n) > 1 and n[1]:
                gv = xp.sum(xp.where(filled, g1, 0))
            return (gx, gv)
        g1 = _as_nd(g, ctx.shape or (1,))
        key = _along(ctx.dim, np.unique(ctx.index))
        if n[0]:
            gx = np.array(g1, copy=True)
            gx[key] = 0
            gx = gx.reshape(ctx.shape)
        if len(n) > 1 and n[1]:
            gv = np.asarray(g1[key].sum())
        return (gx, gv)


class IndexFillTensor(IndexFill):
    """``index_fill`` with a value tensor that requires grad (torch's second overload)."""

    name = "index_fill_tensor"
    node_name = "IndexFillBackward1"


class MaskedFill(Kernel):
    name = "masked_fill"
    saved = (1,)
    graph_inputs = {"mask": 1}

    @staticmethod
    def forward(ctx, x, mask, value, out=None):
        ctx.mask = mask
        value = _to_dtype_checked(value, x.dtype)  # out of range: torch's overflow error
        if out is not None:
            np.copyto(out, value, where=np.broadcast_to(mask, out.shape), casting="unsafe")
            return out
        return np.where(mask, value, x)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = ctx.needs_input_grad
        gv = None
        if len(n) > 2 and n[2]:
            gv = xp.sum(xp.where(ctx.mask, g, 0))
        return (xp.where(ctx.mask, 0, g), None, gv)


def _triangle(name, np_fn):
    """``tril``/``triu``: keep one triangle (the gradient keeps the same triangle)."""

    def forward(ctx, x, diagonal=0, out=None):
        if x.ndim < 2:  # (numpy would take a 1-D array as a matrix's row)
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        ctx.k = diagonal
        r = np_fn(x, diagonal)
        return write_out(r, out) if out is not None else r

    def backward(ctx, g):
        return (getattr(ns(g), name)(g, ctx.k),)

    return type(name.capitalize(), (Kernel,), {"name": name, "forward": staticmethod(forward),
                                            "backward": staticmethod(backward)})


Tril = _triangle("tril", np.tril)
Triu = _triangle("triu", np.triu)


class Pad(Kernel):
    name = "constant_pad_nd"
    # torch's constant, reflect and replicate modes allocate in the input's
    # suggest_memory_format() (a channels-last input gives a channels-last result); circular's
    # result is contiguous (measured, torch 2.13)
    suggest_format = (0,)
    suggests = staticmethod(lambda attrs: attrs.get("mode", "constant") != "circular")

    @staticmethod
    def forward(ctx, x, pad, mode="constant", value=0.0):
        # pad is torch-ordered: (last_lo, last_hi, prev_lo, prev_hi, ...)
        n = len(pad) // 2
        widths = [(0, 0)] * (x.ndim - n) + [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(n))]
        ctx.widths, ctx.mode, ctx.shape = widths, mode, x.shape
        crop = [(max(-lo, 0), max(-hi, 0)) for lo, hi in widths]
        if any(c != (0, 0) for c in crop):
            x = x[tuple(slice(lo, s - hi) for (lo, hi), s in zip(crop, x.shape))]
        grow = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
        npmode = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
                  "circular": "wrap"}[mode]
        if npmode == "constant":
            return np.pad(x, grow, mode="constant", constant_values=value)
        return np.pad(x, grow, mode=npmode)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        widths, shape = ctx.widths, ctx.shape
        if ctx.mode == "constant":
            src = tuple(slice(max(lo, 0), g.shape[i] - max(hi, 0)) for i, (lo, hi) in enumerate(widths))
            dst = tuple(slice(max(-lo, 0), shape[i] - max(-hi, 0)) for i, (lo, hi) in enumerate(widths))
            return (xp.set_at(xp.zeros(shape, g.dtype), dst, xp.getitem(g, src)),)
        # non-constant modes: scatter back through the index map numpy's pad builds
        idx = np.arange(int(np.prod(shape))).reshape(shape)
        npmode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[ctx.mode]
        pidx = np.pad(idx, [(max(lo, 0), max(hi, 0)) for lo, hi in widths], mode=npmode)
        z = xp.add_at(xp.zeros(idx.size, g.dtype), pidx.ravel(), xp.reshape(g, -1))
        return (xp.reshape(z, shape),)


class ViewTake(Op):
    """A copy of ``view_fn(x)`` (``view_fn``: the view function of a tensor an in-place op
    modified): backward rules of in-place ops on views reach it; its gradient is
    :class:`ViewSet` of zeros."""

    name = "view_take"

    @staticmethod
    def forward(ctx, x, view_fn):
        ctx.view_fn = view_fn
        return np.array(view_fn(view_target(view_fn, x)), copy=True)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        shape, dt = ctx.in_meta[0]
        return (xp.call(ViewSet, xp.zeros(shape, dt), g, view_fn=ctx.view_fn),)


class ViewSet(Op):
    """``x`` with ``view_fn(x)`` replaced by ``v`` (out of place); gradients: ``g`` with that
    region zeroed for ``x``, the region of ``g`` for ``v``."""

    name = "view_set"

    @staticmethod
    def forward(ctx, x, v, view_fn):
        ctx.view_fn = view_fn
        r = view_target(view_fn, x)
        view_fn(r)[...] = v
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = ctx.needs_input_grad
        gx = gv = None
        if n[0]:
            gx = xp.call(ViewSet, g, xp.zeros((), g.dtype), view_fn=ctx.view_fn)
        if len(n) > 1 and n[1]:
            gv = xp.call(ViewTake, g, view_fn=ctx.view_fn)
        return (gx, gv)


class Im2Col(Kernel):
    """``F.unfold``: the sliding blocks of a (C, H, W) or (N, C, H, W) image as columns
    (``_kernels/fold.py``); backward sums the gradient's columns back (``col2im``)."""

    name = "im2col"
    node_name = "Im2ColBackward0"
    graph_inputs = {"x": 0}

    @staticmethod
    def forward(ctx, x, kernel_size, dilation, padding, stride):
        ctx.args = (kernel_size, dilation, padding, stride)
        ctx.size, ctx.unbatched = x.shape[-2:], x.ndim == 3
        r = fold.im2col(x[None] if ctx.unbatched else x, *ctx.args)
        return r[0] if ctx.unbatched else r

    @staticmethod
    def backward(ctx, g):
        return (ns(g).call(Col2Im, g, tuple(ctx.size), *ctx.args),)


class Col2Im(Kernel):
    """``F.fold``: columns (C*kh*kw, L) or (N, C*kh*kw, L) summed into an image of spatial
    size ``output_size``; backward takes the gradient's blocks (``im2col``)."""

    name = "col2im"
    node_name = "Col2ImBackward0"
    graph_inputs = {"x": 0}

    @staticmethod
    def forward(ctx, x, output_size, kernel_size, dilation, padding, stride):
        ctx.args = (kernel_size, dilation, padding, stride)
        ctx.unbatched = x.ndim == 2
        r = fold.col2im(x[None] if ctx.unbatched else x, tuple(output_size), *ctx.args)
        return r[0] if ctx.unbatched else r

    @staticmethod
    def backward(ctx, g):
        return (ns(g).call(Im2Col, g, *ctx.args),)
