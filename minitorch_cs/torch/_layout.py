"""Memory layouts by torch's rules, shared by tensor creation and the kernels' result layouts.

torch lays a result out by the strides of what it was made from: an elementwise result orders
its dims as TensorIterator's ``reorder_dimensions`` does, and a ``preserve_format`` copy
(``clone()``, ``to(dtype)``, ``torch.tensor(ndarray)``) keeps a dense source's strides exactly,
size-1 dims included, or packs a non-dense one in its dim order (``infer_dense_strides``).
"""
from __future__ import annotations

import numpy as np

from ._dispatch import _dense_layout

__all__ = ["torch_layout", "preserved_copy"]


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
    if not _dense_layout(x):
        want = _strided_like(r.shape, r.dtype, torch_layout(r.shape, [x]))
        np.copyto(want, r)
        return want
    st = tuple(s // x.itemsize * r.itemsize for s in x.strides)
    if r.strides == st and r.flags.writeable and not np.may_share_memory(r, x):
        return r
    want = np.lib.stride_tricks.as_strided(np.empty(x.size, r.dtype), x.shape, st)
    np.copyto(want, r)
    return want
