"""Selections whose output shape depends on the input's values: ``nonzero``, ``unique``,
``bincount`` and the counts form of ``repeat_interleave``.

They are ordinary ops eagerly; ``data_dependent_shape`` tells a compiled graph (the emulated
wafer's capture) that it cannot hold them, since every shape there is fixed when the step is
compiled.
"""
from __future__ import annotations

import numpy as np

from .._dispatch import Op
from ._xp import ns
from .movement import check_counts


class Nonzero(Op):
    """The indices of the nonzero elements: one row per element, one column per dimension."""

    name = "nonzero"
    differentiable = False
    data_dependent_shape = True

    @staticmethod
    def forward(ctx, x):
        if x.ndim == 0:  # torch: one row if the value is nonzero, no columns
            return np.zeros((int(bool(x)), 0), np.int64)
        idx = np.nonzero(x)
        return np.stack(idx, axis=1).astype(np.int64) if idx else np.zeros((0, 0), np.int64)


class NonzeroTuple(Nonzero):
    """``nonzero(as_tuple=True)``: one index array per dimension of the input (at least one)."""

    name = "nonzero_tuple"
    n_outputs = -1  # as many as the input has dimensions

    @staticmethod
    def forward(ctx, x):
        return tuple(i.astype(np.int64) for i in np.nonzero(np.atleast_1d(x)))


class Unique(Op):
    """The sorted distinct values (or slices along ``dim``), with optional inverse indices and
    counts (always three outputs here; the caller keeps the ones asked for)."""

    name = "unique"
    data_dependent_shape = True
    n_outputs = 3
    nondiff_outputs = (1, 2)

    @staticmethod
    def forward(ctx, x, axis=None):
        # torch records a node for the values whose backward raises (no derivative)
        ctx.torch_node = "Unique2Backward0" if axis is None else "UniqueDimBackward0"
        vals, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, axis=axis)
        shape = x.shape if axis is None else (x.shape[axis],)
        return vals, inverse.reshape(shape).astype(np.int64), counts.astype(np.int64)

    @staticmethod
    def backward(ctx, *grads):
        op = "_unique2" if ctx.torch_node == "Unique2Backward0" else "unique_dim"
        raise NotImplementedError(f"the derivative for '{op}' is not implemented.")


class UniqueConsecutive(Op):
    """Each run of equal consecutive values (slices along ``axis``) collapsed to its first one,
    with the inverse indices (the run each element belongs to, in ``x``'s shape or along
    ``axis``) and the run lengths. NaN equals nothing, so each NaN is its own run; 0.0 and -0.0
    are one run. torch records a node for the values whose backward raises (no derivative)."""

    name = "unique_consecutive"
    node_name = "UniqueConsecutiveBackward0"
    data_dependent_shape = True
    n_outputs = 3
    nondiff_outputs = (1, 2)

    @staticmethod
    def forward(ctx, x, axis=None):
        if axis is None:
            rows = x.reshape(-1, 1)
        else:
            rows = np.moveaxis(x, axis, 0)
            rows = rows.reshape(x.shape[axis], rows[0].size if x.shape[axis] else 0)
        n = rows.shape[0]
        starts = np.ones(n, bool)
        if n > 1 and rows.shape[1]:
            starts[1:] = np.any(rows[1:] != rows[:-1], axis=1)
        elif n > 1:  # (slices with no elements are all equal)
            starts[1:] = False
        first = np.flatnonzero(starts)
        vals = x.reshape(-1)[first] if axis is None else np.take(x, first, axis=axis)
        inverse = (np.cumsum(starts) - 1).astype(np.int64)
        counts = np.diff(np.append(first, n)).astype(np.int64)
        return vals, inverse.reshape(x.shape if axis is None else (n,)), counts

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("the derivative for 'unique_consecutive' is not implemented.")


class Histc(Op):
    """``bins`` equal-width bins over ``[lo, hi]`` (already chosen by the caller): how many
    elements fall in each, counted in ``x``'s dtype. The edges are ``linspace(lo, hi, bins +
    1)`` in that dtype (torch's linspace); elements outside the edges, and NaN, are not counted.
    Each element's bin is found as torch's histc finds it, by linear interpolation alone:
    ``(x - lo) * bins / (hi - lo)`` in the dtype's own arithmetic (a half type rounding every
    operation), truncated -- so an element a rounding away from an edge may land in the bin
    beside the one the edges give, as in torch; the top edge belongs to the last bin."""

    name = "histc"
    differentiable = False

    @staticmethod
    def forward(ctx, x, bins, lo, hi):
        from .._creation import _linspace
        dt = x.dtype
        edges = _linspace(lo, hi, bins + 1, dt)
        flat = x.reshape(-1)
        v = flat[(flat >= edges[0]) & (flat <= edges[-1])]
        half = dt.itemsize < 4
        w = np.dtype(np.float32) if half else dt

        def rnd(a):  # (a half type's operator rounds its result to the type)
            return np.asarray(a, w).astype(dt).astype(w) if half else np.asarray(a, w)
        e = edges.astype(w)
        pos = rnd(rnd(rnd(v.astype(w) - e[0]) * w.type(bins)) / rnd(e[-1] - e[0]))
        idx = pos.astype(np.int64)
        idx = np.where(idx == bins, bins - 1, idx)  # (the top edge: the last bin)
        out = np.zeros(bins, dt)
        if half:  # (a half-precision count rounds at each step)
            np.add.at(out, idx, np.ones((), dt))
        else:
            out[:] = np.bincount(idx, minlength=bins)
        return out


class Bincount(Op):
    """Occurrences of each non-negative integer (``weights``: summed weights instead)."""

    name = "bincount"
    differentiable = False
    data_dependent_shape = True

    @staticmethod
    def forward(ctx, x, weights=None, minlength=0):
        if x.dtype == np.bool_ or x.dtype.kind not in "iu":  # torch's checks, in its order
            from .elementwise import _not_implemented
            raise _not_implemented("bincount_cpu", x.dtype)
        if x.ndim != 1 or (x.size and x.min() < 0):
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
        if weights is None or not x.size:  # (torch: an empty input counts, weights or not)
            return np.bincount(x, None, minlength)
        # torch's result: float32 for float32 weights (summed in float32, in index order),
        # float64 for any other weights
        dt = np.float32 if weights.dtype == np.float32 else np.float64
        out = np.zeros(max(int(x.max()) + 1 if x.size else 0, minlength), dt)
        np.add.at(out, x, weights.astype(dt, copy=False))
        return out


class RepeatCounts(Op):
    """``repeat_interleave(counts)``: index ``i`` repeated ``counts[i]`` times."""

    name = "repeat_interleave_counts"
    differentiable = False
    data_dependent_shape = True

    @staticmethod
    def forward(ctx, counts, output_size=None):
        check_counts(counts, output_size)
        return np.repeat(np.arange(counts.size, dtype=counts.dtype), counts)


class MaskedSelect(Op):
    """The elements of ``x`` where the (broadcast) boolean ``mask`` is True, as a 1-d tensor in
    row-major order; the gradient scatters back to those positions."""

    name = "masked_select"
    data_dependent_shape = True
    saved = (0,)  # torch's node saves the input (its backward reads only the shape)

    @staticmethod
    def forward(ctx, x, mask):
        shape = np.broadcast_shapes(x.shape, mask.shape)
        m = np.broadcast_to(mask, shape)
        ctx.shape, ctx.mask = x.shape, m
        return np.broadcast_to(x, shape)[m]

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        full = xp.set_at(xp.zeros(tuple(ctx.mask.shape), g.dtype), ctx.mask, g)
        return (full, None)  # the engine sums over broadcast dimensions


class Searchsorted(Op):
    """torch's binary search (``cus_lower_bound``/``cus_upper_bound``) run over every value at
    once: ``start``/``end`` arrays narrowed ``log2(n)`` times by ``!(mid >= v)`` (``right``:
    ``!(mid > v)``), so NaNs and unsorted boundaries land where torch's search puts them.
    ``seq`` is 1-d or has the values' leading dims; ``sorter`` indexes ``seq``'s last dim."""

    name = "searchsorted"
    differentiable = False
    tensor_attrs = ("sorter",)

    @staticmethod
    def forward(ctx, seq, values, right=False, out_int32=False, sorter=None):
        n = seq.shape[-1]
        vshape = values.shape
        if seq.ndim == 1:
            rows_s = seq[None, :]
            rows_v = values.reshape(1, -1)
            srt = None if sorter is None else sorter[None, :]
        else:
            rows_s = seq.reshape(-1, n)
            rows_v = values.reshape(rows_s.shape[0], -1)
            srt = None if sorter is None else sorter.reshape(-1, n)
        start = np.zeros(rows_v.shape, np.int64)
        end = np.full(rows_v.shape, n, np.int64)
        row = np.arange(rows_v.shape[0])[:, None]
        with np.errstate(invalid="ignore"):
            while True:
                active = start < end
                if not active.any():
                    break
                mid = start + ((end - start) >> 1)
                at = np.minimum(mid, max(n - 1, 0))
                if srt is not None:
                    at = srt[row, at]
                mv = rows_s[row, at]
                go_right = ~(mv > rows_v) if right else ~(mv >= rows_v)
                start = np.where(active & go_right, mid + 1, start)
                end = np.where(active & ~go_right, mid, end)
        return start.reshape(vshape).astype(np.int32 if out_int32 else np.int64)


class Isin(Op):
    """Whether each of ``elements`` equals one of ``test`` (any shape), compared in ``dtype``,
    their promoted dtype (a number converted as torch converts a Scalar: wrapping into an
    integer dtype); NaN equals nothing, -0.0 equals 0.0. A bool result, not differentiable."""

    name = "isin"
    differentiable = False

    @staticmethod
    def forward(ctx, elements, test, dtype, invert=False):
        wide = np.dtype(np.float32) if dtype.kind not in "biuf" else dtype  # (half: exact)
        e = np.asarray(np.asarray(elements).astype(dtype)).astype(wide, copy=False)
        t = np.asarray(test).astype(dtype).astype(wide, copy=False).reshape(-1)
        return np.asarray(np.isin(e, t, invert=invert))
