"""The one home for hypothesis strategies.

Shapes include 0-d tensors and size-1 dimensions (up to 4 dims); pairs of shapes are mutually
broadcastable; arrays are bounded, finite float64; ``maybe_noncontiguous`` returns a view with the
same values but permuted strides (minitorch's permutation trick), because our views share storage
and kernels must not assume C order; ``kwargs`` draws a subset of optional keyword arguments so
both the default path and the explicit path run (array-api-tests).
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

__all__ = ["shapes", "broadcastable_shapes", "elements", "arrays", "noncontiguous",
           "maybe_noncontiguous", "distinct_arrays", "kwargs", "dims", "float_arrays"]

MAX_DIMS = 4
MAX_SIDE = 4


def shapes(min_dims=0, max_dims=MAX_DIMS, min_side=1, max_side=MAX_SIDE):
    """Tensor shapes: 0-d included by default, sides 1..4 (size-1 dims are common)."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=MAX_DIMS, max_side=MAX_SIDE):
    """A tuple of ``num_shapes`` shapes that broadcast together (differing ranks, size-1 dims)."""
    return hnp.mutually_broadcastable_shapes(num_shapes=num_shapes, min_dims=min_dims,
                                             max_dims=max_dims, min_side=1,
                                             max_side=max_side).map(lambda r: r.input_shapes)


def elements(lo=-2.0, hi=2.0, avoid=(), gap=0.05):
    """Finite floats in ``[lo, hi]``, kept ``gap`` away from each point in ``avoid`` (kinks)."""
    s = st.floats(lo, hi, allow_nan=False, allow_infinity=False, allow_subnormal=False)
    if avoid:
        # map instead of filter: push values out of the forbidden band, so nothing is rejected
        def push(v):
            for a in avoid:
                if abs(v - a) < gap:
                    up = v >= a if lo <= a - gap and a + gap <= hi else a + gap <= hi
                    v = a + gap if up else a - gap
            return v
        s = s.map(push)
    return s


def noncontiguous(arr: np.ndarray, perm) -> np.ndarray:
    """A view equal to ``arr`` whose memory order follows ``perm`` (non-contiguous when ndim > 1)."""
    inv = np.argsort(perm)
    store = np.ascontiguousarray(np.transpose(arr, perm))
    return np.transpose(store, inv)


@st.composite
def maybe_noncontiguous(draw, arr_strategy):
    arr = draw(arr_strategy)
    if arr.ndim > 1 and draw(st.booleans()):
        perm = draw(st.permutations(range(arr.ndim)))
        return noncontiguous(arr, perm)
    return arr


def arrays(shape, lo=-2.0, hi=2.0, avoid=(), gap=0.05, contiguous=None):
    """Bounded finite float64 arrays of ``shape``; non-contiguous at random unless ``contiguous``."""
    base = hnp.arrays(np.float64, shape, elements=elements(lo, hi, avoid, gap))
    if contiguous:
        return base
    return maybe_noncontiguous(base)


def float_arrays(shape_strategy=None, **kw):
    """Arrays of a drawn shape (default: any shape up to 4 dims)."""
    return (shape_strategy or shapes()).flatmap(lambda s: arrays(s, **kw))


GRID = 256  # grid points for distinct_arrays: at least the largest drawn numel (4 ** 4)


@st.composite
def distinct_arrays(draw, shape, lo=-2.0, hi=2.0, offset=0.0, contiguous=None):
    """Float64 arrays whose entries are pairwise far apart (distinct points of a fixed grid of
    spacing (hi-lo)/256): for ops whose gradient has a kink at ties (max, sort, topk, l1 ...).
    Grid points sit at 1/4 of a cell plus ``offset`` cells, so arrays drawn with offsets 0 and 0.5
    never tie with each other, and never hit 0 or a value's negation when lo = -hi."""
    n = int(np.prod(shape, dtype=np.int64))
    pos = draw(st.lists(st.integers(0, max(GRID, n) - 1), min_size=n, max_size=n, unique=True))
    step = (hi - lo) / max(GRID, n)
    vals = lo + (np.asarray(pos, dtype=np.float64) + 0.25 + 0.5 * offset) * step
    arr = vals.reshape(shape)
    if not contiguous and arr.ndim > 1 and draw(st.booleans()):
        arr = noncontiguous(arr, draw(st.permutations(range(arr.ndim))))
    return arr


def dims(ndim, allow_none=True, allow_tuple=True):
    """A ``dim`` argument valid for a tensor of ``ndim`` dims: None, an int (maybe negative), or a
    tuple of distinct dims."""
    n = max(ndim, 1)
    single = st.integers(-n, n - 1)
    options = [single]
    if allow_none:
        options.append(st.none())
    if allow_tuple and ndim > 0:
        options.append(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim,
                                unique=True).map(tuple))
    return st.one_of(*options)


@st.composite
def kwargs(draw, **strategies):
    """A dict holding a drawn subset of the keyword arguments, each drawn from its strategy."""
    out = {}
    for name, s in strategies.items():
        if draw(st.booleans()):
            out[name] = draw(s)
    return out
