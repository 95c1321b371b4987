"""Memory layouts by torch's rules, shared by tensor creation and the kernels' result layouts.

torch lays a result out by the strides of what it was made from: an elementwise result orders
its dims as TensorIterator's ``reorder_dimensions`` does, and a ``preserve_format`` copy
(``clone()``, ``to(dtype)``, ``torch.tensor(ndarray)``) keeps a dense source's strides exactly,
size-1 dims included, or packs a non-dense one in its dim order (``infer_dense_strides``).
"""
from __future__ import annotations

import numpy as np


__all__ = ["torch_layout", "preserved_copy", "memory_format", "contiguous_format", "preserve_format",
           "channels_last", "channels_last_3d"]


def dense_layout(a) -> bool:
    """torch's ``is_non_overlapping_and_dense`` for an array (positive strides tiling one block)."""
    acc = a.itemsize
    for st, n in sorted((st, n) for st, n in zip(a.strides, a.shape) if n != 1):
        if st != acc:
            return False
        acc *= n
    return True


def strided_array(shape, dtype, strides):
    """A zero-filled array of ``shape`` with the given element strides (non-negative; dims may
    overlap, as ``empty_strided`` allows)."""
    dtype = np.dtype(dtype)
    n = 1 + sum((s - 1) * st for s, st in zip(shape, strides)) if all(shape) else 1
    return np.lib.stride_tricks.as_strided(np.zeros(n, dtype), tuple(shape),
                                           tuple(st * dtype.itemsize for st in strides),
                                           writeable=True)


def laid_out(r, strides):
    """``r``'s values in a new array with the given element strides (empty ``r`` too: a
    memory format's layout, or the strides an empty source had)."""
    out = strided_array(r.shape, r.dtype, strides)
    np.copyto(out, r)
    return out


def element_strides(a) -> tuple:
    """``a``'s strides counted in elements (what ``Tensor.stride()`` reports)."""
    return tuple(s // a.itemsize for s in a.strides)


def c_strides(shape) -> tuple:
    """The element strides torch gives a new contiguous tensor of ``shape`` (sizes of 0 count
    as 1)."""
    return order_strides(shape, range(len(shape) - 1, -1, -1))


def new_array(arr):
    """A creation op's fresh result: an empty one takes the strides torch gives a new tensor
    (numpy reports 0 for all of them)."""
    return empty_array(arr.shape, arr.dtype) if not arr.size and arr.ndim else arr


def empty_array(shape, dtype):
    """An empty array with the strides torch gives a new contiguous tensor of ``shape`` (numpy
    reports every stride of an empty array as 0, which torch keeps only for tensors copied from
    such an array)."""
    return strided_array(shape, dtype, c_strides(shape))


def torch_layout(shape, arrays) -> list:
    """The order of ``shape``'s dims, fastest first, that torch's TensorIterator gives an
    elementwise result over ``arrays`` (its ``reorder_dimensions``): for each pair of dims the
    first operand whose strides differ on them decides (a broadcast dim, stride 0, defers to the
    next operand); equal strides put the smaller dim first; otherwise the order stays C's."""
    nd = len(shape)
    strides = []
    for a in arrays:
        if a.ndim > nd:
            continue
        # torch's operand strides: 0 where the operand broadcasts (a missing dim, or size 1 under
        # a larger dim); a size-1 dim of the result keeps the operand's own stride (numpy's
        # broadcast_to would report 0 there)
        lead = nd - a.ndim
        strides.append(tuple(0 if i < lead or (a.shape[i - lead] == 1 and shape[i] != 1)
                             else a.strides[i - lead] for i in range(nd)))

    def should_swap(d0, d1):
        for st in strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(nd))[::-1]
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def _strided_like(shape, dtype, perm):
    """An empty array of ``shape`` whose dims are laid out in ``perm`` order (fastest first)."""
    order = perm[::-1]  # slowest first
    base = np.empty([shape[d] for d in order], dtype)
    return base.transpose(np.argsort(order))


def preserved_copy(x, r):
    """``r`` (values of ``x``'s shape, at least one element and one dim) laid out as torch's
    ``preserve_format`` copy of ``x``: ``x``'s own strides when ``x`` is non-overlapping and
    dense, otherwise ``x``'s dim order packed densely (torch's ``infer_dense_strides``). ``r``
    itself when it already has that layout and is a writeable array apart from ``x``."""
    if not dense_layout(x):
        want = _strided_like(r.shape, r.dtype, torch_layout(r.shape, [x]))
        np.copyto(want, r)
        return want
    st = tuple(s // x.itemsize * r.itemsize for s in x.strides)
    if r.strides == st and r.flags.writeable and not np.may_share_memory(r, x):
        return r
    want = np.lib.stride_tricks.as_strided(np.empty(x.size, r.dtype), x.shape, st)
    np.copyto(want, r)
    return want


class memory_format:
    """``torch.memory_format``: how a new tensor lays out its dims (``torch.contiguous_format``,
    ``torch.preserve_format``, ``torch.channels_last``, ``torch.channels_last_3d``)."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return (_memory_format_named, (self._name,))


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
_FORMATS = {f._name: f for f in (contiguous_format, preserve_format, channels_last,
                                 channels_last_3d)}
# the channels-last orders, fastest dim first: C, then the spatial dims from the last, then N
_CHANNELS_LAST = {channels_last: (4, [1, 3, 2, 0]), channels_last_3d: (5, [1, 4, 3, 2, 0])}


def _memory_format_named(name):
    return _FORMATS[name]


def checked_format(fmt, fname):
    """``fmt`` (None means preserve_format) after torch's argument check."""
    if fmt is None:
        return preserve_format
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{fname}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{type(fmt).__name__}")
    return fmt


def channels_last_order(fmt, ndim):
    """The dim order (fastest first) of ``channels_last``/``channels_last_3d`` for a tensor of
    ``ndim`` dims (torch's rank check), or None for another format."""
    if fmt not in _CHANNELS_LAST:
        return None
    rank, order = _CHANNELS_LAST[fmt]
    if ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format")
    return order


def order_strides(shape, order) -> tuple:
    """Element strides packing ``shape`` densely in ``order`` (fastest dim first)."""
    st, acc = [0] * len(shape), 1
    for d in order:
        st[d] = acc
        acc *= max(shape[d], 1)
    return tuple(st)


def format_strides(fmt, x) -> tuple | None:
    """The element strides torch gives a new tensor shaped like array ``x`` in format ``fmt``
    (``empty_like``'s rule), or None for C order: ``preserve_format`` keeps a dense ``x``'s
    strides exactly (an empty one counts as dense) and packs any other in its dim order."""
    order = channels_last_order(fmt, x.ndim)
    if order is not None:
        return order_strides(x.shape, order)
    if fmt is contiguous_format or x.ndim == 0:
        return None
    if x.size == 0 or dense_layout(x):
        st = element_strides(x)
    else:
        st = order_strides(x.shape, torch_layout(x.shape, [x]))
    return None if st == c_strides(x.shape) else st


def suggested_format(x):
    """torch's ``suggest_memory_format()``: channels_last (channels_last_3d) for a 4-D (5-D)
    array whose strides are channels-last-like, else contiguous_format."""
    for fmt, (rank, order) in _CHANNELS_LAST.items():
        if x.ndim == rank and x.size and _channels_last_like(x, order):
            return fmt
    return contiguous_format


def _channels_last_like(x, order) -> bool:
    """torch's ``is_channels_last_strides_2d/3d``: strides increase along ``order`` (size-1
    dims tie by their size), the channel stride nonzero."""
    st = element_strides(x)
    if st[1] == 0:
        return False
    low = 0
    for d in order:
        if st[d] < low:
            return False
        if d == 0 and low == st[1]:
            return False
        low = st[d] * (x.shape[d] if x.shape[d] > 1 else 1)
    return True


def is_contiguous_as(x, fmt) -> bool:
    """``is_contiguous(memory_format=fmt)``: C order, or the channels-last order with the
    strides a dense tensor of that order has (dims of size 1 take any stride)."""
    order = _CHANNELS_LAST.get(fmt)
    if order is None:
        return bool(x.flags.c_contiguous)
    if x.ndim != order[0]:
        return False
    expected, st = 1, element_strides(x)
    for d in order[1]:
        n = x.shape[d]
        if n != 1:
            if st[d] != expected:
                return False
            expected *= n
    return True
