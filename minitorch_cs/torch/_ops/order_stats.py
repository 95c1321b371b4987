"""Order statistics along one dim: ``kthvalue``, ``mode``, ``nanmedian`` and the running extremes
``cummax``/``cummin``, each returning (values, int64 indices).

Where equal values tie, the index torch reports is whatever its CPU algorithm leaves there, not a
rule one can state: ``kthvalue`` runs Sedgewick's quickselect (median-of-three pivot) on (value,
index) pairs and ``mode`` sorts them with libstdc++'s unstable introsort. The values and every
untied index come from numpy at array speed; only a slice where the selected value occurs more
than once (or holds a NaN, which that comparison calls equal to everything) is run through a
step-by-step replay of torch's algorithm (:mod:`.._kernels.replay_sort`), so the index is
torch's exactly. ``nanmedian`` partitions on (value, index), as a stable sort orders them;
``cummax``/``cummin`` keep the last of equal running extremes (torch's ``>=``/``<=`` update).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._kernels.replay_sort import introsort_order, nth_element_order, quickselect_index
from ._kernel import Kernel
from ._xp import ns
from .reduce import SelectAlong, _argsort, _evenly_backward, _select_along, _sort_key


def _rows(x, dim):
    """``x`` as a 2-d array of its slices along ``dim`` (one row per slice), and the shape
    those rows came from (``dim`` moved last)."""
    moved = np.moveaxis(x, dim, -1)
    return moved.reshape(-1, x.shape[dim]), moved.shape


def _back(idx_rows, moved_shape, dim):
    """Per-row indices (one column) as the keepdims index array of the original layout."""
    idx = idx_rows.reshape(moved_shape[:-1] + (1,))
    return np.moveaxis(idx, -1, dim)


def _is_float(x):
    return D._BY_NP[x.dtype].is_floating_point


def _pylist(row, floating):
    """A row as Python numbers (exact: floats widen to float64, integers to int)."""
    return row.astype(np.float64 if floating else np.int64).tolist()


def _equal_to(key, val, floating):
    """Elements of ``key`` equal to the per-row ``val`` (NaN equal to NaN)."""
    eq = key == val
    if floating:
        eq |= np.isnan(key) & np.isnan(val)
    return eq


class KthValue(SelectAlong):
    """``kthvalue(input, k, dim, keepdim)``: the ``k``-th smallest element of each slice (NaN
    counts as the largest); the gradient goes to the returned index."""

    name = "kthvalue"

    @staticmethod
    def forward(ctx, x, k, dim, keepdim=False):
        ctx.shape = x.shape
        if x.ndim == 0:  # one element: itself, at index 0
            return np.array(x, copy=True), np.zeros((), np.int64)
        rows, moved = _rows(x, dim)
        key = _sort_key(rows)
        floating = _is_float(x)
        if rows.size == 0:
            idx = np.zeros((rows.shape[0], 1), np.int64)
        else:
            order = _argsort(key, 1)
            idx = order[:, k - 1:k]
            val = np.take_along_axis(key, idx, 1)
            tied = np.nonzero(_equal_to(key, val, floating).sum(1) > 1)[0]
            for r in tied:  # torch's quickselect decides which of the equal values it returns
                idx[r, 0] = quickselect_index(_pylist(key[r], floating), k - 1)
        return _select_along(ctx, x, _back(idx, moved, dim), dim, keepdim)


class Mode(SelectAlong):
    """``mode(input, dim, keepdim)``: the most frequent value of each slice (the smallest of
    equally frequent ones, in torch's sorted order) and an index where it occurs; the gradient
    goes to that index."""

    name = "mode"

    @staticmethod
    def forward(ctx, x, dim, keepdim=False):
        ctx.shape = x.shape
        if x.ndim == 0:
            return np.array(x, copy=True), np.zeros((), np.int64)
        rows, moved = _rows(x, dim)
        n = rows.shape[1]
        key = _sort_key(rows)
        floating = _is_float(x)
        if rows.size == 0:
            idx = np.zeros((rows.shape[0], 1), np.int64)
            return _select_along(ctx, x, _back(idx, moved, dim), dim, keepdim)
        order = _argsort(key, 1)
        s = np.take_along_axis(key, order, 1)
        pos = np.arange(n)
        new_run = np.ones(s.shape, bool)
        new_run[:, 1:] = s[:, 1:] != s[:, :-1]
        run_end = np.ones(s.shape, bool)
        run_end[:, :-1] = new_run[:, 1:]
        start = np.maximum.accumulate(np.where(new_run, pos, 0), axis=1)
        count = np.where(run_end, pos - start + 1, 0)
        best = np.argmax(count, axis=1)[:, None]  # the first (smallest) most frequent run
        # a stable order puts the largest index last in its run: torch's insertion sort (up
        # to 16 elements) is stable too; a longer sort with repeats, or a NaN, is replayed
        idx = np.take_along_axis(order, best, 1)
        replay = np.isnan(key).any(1) if floating else np.zeros(rows.shape[0], bool)
        if n > 16:
            replay |= np.take_along_axis(count, best, 1)[:, 0] > 1
        for r in np.nonzero(replay)[0]:
            idx[r, 0] = _mode_index(_pylist(key[r], floating))
        return _select_along(ctx, x, _back(idx, moved, dim), dim, keepdim)


def _mode_index(values):
    """torch's CPU mode of one slice: the (value, index) pairs sorted by value with libstdc++'s
    ``std::sort``, then scanned for the first longest run of equal neighbours (``!=`` ends a
    run, so each NaN is a run of its own); the index of that run's last pair."""
    order = introsort_order(values)
    best_len, best, run = 0, 0, 0
    for j in range(len(order)):
        run += 1
        if j == len(order) - 1 or values[order[j]] != values[order[j + 1]]:
            if run > best_len:
                best_len, best = run, order[j]
            run = 0
    return best


class NanMedian(Kernel):
    """``nanmedian(input)``: the lower middle of the non-NaN elements (NaN when there are none);
    the gradient is shared evenly by the elements equal to it (the NaNs when it is NaN)."""

    name = "nanmedian"
    saved = (0,)
    saves_output = True
    graph_inputs = {"x": 0}

    @staticmethod
    def forward(ctx, x):
        if x.dtype == np.bool_ and x.size:  # (an empty one: NaN cast to bool, as in torch)
            raise NotImplementedError("\"median_cpu\" not implemented for 'Bool'")
        flat = x.reshape(-1)
        if _is_float(x):
            flat = flat[~np.isnan(_sort_key(flat))] if flat.size else flat
            if flat.size == 0 and x.size:  # all NaN
                flat = x.reshape(-1)[:1]
        if flat.size == 0:  # NaN, cast (an integer dtype gets its C cast of NaN, as in torch)
            r = np.asarray(np.nan).astype(x.dtype)
        else:
            r = flat[_argsort(flat, 0)[(flat.size - 1) // 2]].reshape(())
            if _is_float(x) and r == 0 and np.unique(np.signbit(flat[flat == 0])).size > 1:
                r = _signed_zero_median(x)
        ctx.x, ctx.y = x, r
        return np.array(r)

    backward = staticmethod(_evenly_backward)


def _signed_zero_median(x):
    """The zero torch's all-reduce ``nanmedian`` returns when -0.0 and 0.0 tie at the median:
    it runs ``std::nth_element`` over a copy of the values in memory order (NaN after every
    number), and the zero that lands at the middle is the answer."""
    v = _pylist(np.ravel(x, order="K"), True)
    n_nan = sum(1 for a in v if a != a)

    def lt(a, b):
        return v[a] < v[b] or (v[b] != v[b] and v[a] == v[a])
    nth = max(len(v) - n_nan - 1, 0) // 2
    return np.asarray(v[nth_element_order(len(v), nth, lt)[nth]], dtype=x.dtype)


class NanMedianDim(SelectAlong):
    """``nanmedian(input, dim, keepdim)``: per slice the lower middle of its non-NaN elements
    (torch partitions on (value, index): among equal values the one a stable sort puts there;
    a slice of NaNs gives the NaN :func:`_all_nan_index` names); the gradient goes to the
    returned index."""

    name = "nanmedian_dim"
    node_name = "NanmedianBackward1"

    @staticmethod
    def forward(ctx, x, dim, keepdim=False):
        ctx.shape = x.shape
        if x.ndim and x.shape[dim] == 0:
            raise IndexError(f"median(): Expected reduction dim {dim} to have non-zero size.")
        if x.dtype == np.bool_:
            raise NotImplementedError("\"median_out\" not implemented for 'Bool'")
        if x.ndim == 0:
            return np.array(x, copy=True), np.zeros((), np.int64)
        key = _sort_key(x)
        order = _argsort(key, dim)  # NaN last
        valid = (~np.isnan(key)).sum(dim, keepdims=True) if _is_float(x) else \
            np.full(tuple(1 if i == dim else n for i, n in enumerate(x.shape)), x.shape[dim])
        k = np.maximum(valid - 1, 0) // 2
        idx = np.take_along_axis(order, k, dim)
        if (valid == 0).any():  # a slice of NaNs: the one torch's nth_element leaves first
            idx = np.where(valid == 0, _all_nan_index(x.shape[dim]), idx)
        return _select_along(ctx, x, idx, dim, keepdim)


_ALL_NAN: dict = {}


def _all_nan_index(n):
    """Where torch's ``nanmedian`` finds the median of ``n`` NaNs: its comparison calls every
    two NaNs equivalent, so the index is the first of the order ``std::nth_element`` leaves
    with nothing to compare (remembered per length)."""
    r = _ALL_NAN.get(n)
    if r is None:
        r = _ALL_NAN[n] = nth_element_order(n, 0, lambda a, b: False)[0]
    return r


class CumMax(Kernel):
    """``cummax`` along ``dim``: the running maximum and the index it was last taken from -- an
    equal value moves the index forward, a NaN takes over and stays (each later NaN moves the
    index); the gradient of each output is added at its index."""

    name = "cummax"
    n_outputs = 2
    saved = (0,)  # torch's node saves the input too (an in-place change refuses the backward)
    saved_outputs = (1,)
    nondiff_outputs = (1,)

    @staticmethod
    def forward(ctx, x, dim):
        return _running_extreme(ctx, x, dim, True)

    @staticmethod
    def backward(ctx, grads):
        g = grads[0]
        if not ctx.shape:
            return (g,)
        xp = ns(g)
        return (xp.scatter_add(xp.zeros(ctx.shape, g.dtype), ctx.dim, ctx.idx, g),)


class CumMin(CumMax):
    """``cummin``: :class:`CumMax` with the running minimum."""

    name = "cummin"

    @staticmethod
    def forward(ctx, x, dim):
        return _running_extreme(ctx, x, dim, False)


def _running_extreme(ctx, x, dim, largest):
    """The running extreme along ``dim`` and its index (see :class:`CumMax`)."""
    ctx.shape, ctx.dim = x.shape, dim
    if x.ndim == 0:
        ctx.idx = np.zeros((), np.int64)
        return np.array(x, copy=True), ctx.idx
    key = _sort_key(x)
    run = (np.maximum if largest else np.minimum).accumulate(key, axis=dim)  # (NaN stays)
    at = _equal_to(key, run, _is_float(x))  # where the running extreme was (re)taken
    pos = np.arange(x.shape[dim]).reshape((-1,) + (1,) * (x.ndim - dim - 1))
    idx = np.maximum.accumulate(np.where(at, pos, 0), axis=dim).astype(np.int64)
    ctx.idx = idx
    return np.take_along_axis(x, idx, dim), idx
