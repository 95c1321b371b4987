"""Step-by-step replays of the two unstable selection algorithms behind torch's CPU
``kthvalue`` and ``mode``, for the one thing numpy cannot give: which of several equal values
ends up at a position. Both run on a Python list of one slice's values (floats widened to
float64 or Python ints, so comparisons are exact) and move a parallel list of original indices
along with the values.

The comparison is torch's: ``kthvalue`` orders by "greater, or NaN against a number" (NaN is
the largest and equal to NaN); ``mode`` sorts with a plain ``<`` (every comparison with NaN is
false, so a NaN is "equal" to everything and stays where the algorithm leaves it).

These are loops over Python numbers, run only on the slices whose answer depends on them (see
:mod:`.._ops.order_stats`).
"""
from __future__ import annotations

__all__ = ["quickselect_index", "introsort_order", "nth_element_order"]

_THRESHOLD = 16  # libstdc++'s cut-off between introsort partitioning and insertion sort


def _gt_or_nan(a, b) -> bool:
    return (a != a and b == b) or a > b


def quickselect_index(values, k):
    """The original index that Sedgewick's quickselect (torch's ``quick_select_template``:
    median-of-three pivot at ``(L + R) >> 1``, Hoare partition) leaves at position ``k``."""
    arr = list(values)
    idx = list(range(len(arr)))
    gt = _gt_or_nan

    def swap(i, j):
        arr[i], arr[j] = arr[j], arr[i]
        idx[i], idx[j] = idx[j], idx[i]

    lo, hi = 0, len(arr) - 1
    while True:
        if hi <= lo:
            return idx[k]
        if hi == lo + 1:
            if gt(arr[lo], arr[hi]):
                swap(lo, hi)
            return idx[k]
        swap((lo + hi) >> 1, lo + 1)
        if gt(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if gt(arr[lo], arr[hi]):
            swap(lo, hi)
        if gt(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j, piv = lo + 1, hi, arr[lo]
        while True:
            i += 1
            while gt(piv, arr[i]):
                i += 1
            j -= 1
            while gt(arr[j], piv):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1


def introsort_order(values):
    """The original indices in the order libstdc++'s ``std::sort`` (introsort: median-of-three
    partitioning down to 16 elements, heapsort past depth ``2 * floor(log2(n))``, then one
    insertion sort) leaves them, comparing values with ``<``."""
    n = len(values)
    items = list(range(n))
    if n < 2:
        return items

    def lt(a, b):
        return values[a] < values[b]
    _introsort_loop(items, 0, n, 2 * (n.bit_length() - 1), lt)
    if n > _THRESHOLD:
        _insertion_sort(items, 0, _THRESHOLD, lt)
        for i in range(_THRESHOLD, n):
            _linear_insert(items, i, lt)
    else:
        _insertion_sort(items, 0, n, lt)
    return items


def nth_element_order(n, nth, lt):
    """The order of ``range(n)`` libstdc++'s ``std::nth_element`` (introselect: the same
    median-of-three partitioning down to 3 elements, heap selection past depth
    ``2 * floor(log2(n))``, then an insertion sort) leaves, for the comparison ``lt`` of two
    items. (torch's ``nanmedian`` along a dim: a slice of NaNs, all equivalent to each other,
    returns the index this leaves at position 0.)"""
    a = list(range(n))
    if nth >= n:
        return a
    first, last, depth = 0, n, 2 * (n.bit_length() - 1) if n else 0
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, lt)
            a[first], a[nth] = a[nth], a[first]
            return a
        depth -= 1
        cut = _partition_pivot(a, first, last, lt)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, lt)
    return a


def _make_heap(a, first, n, lt):
    """libstdc++'s ``__make_heap`` over the ``n`` elements from ``first``."""
    if n >= 2:
        parent = (n - 2) // 2
        while True:
            _adjust_heap(a, first, parent, n, a[first + parent], lt)
            if parent == 0:
                break
            parent -= 1


def _heap_select(a, first, middle, last, lt):
    n = middle - first
    _make_heap(a, first, n, lt)
    for i in range(middle, last):
        if lt(a[i], a[first]):
            v = a[i]
            a[i] = a[first]
            _adjust_heap(a, first, 0, n, v, lt)


def _introsort_loop(a, first, last, depth, lt):
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_sort(a, first, last, lt)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, lt)
        _introsort_loop(a, cut, last, depth, lt)
        last = cut


def _partition_pivot(a, first, last, lt):
    mid = first + (last - first) // 2
    _median_to_first(a, first, first + 1, mid, last - 1, lt)
    lo, hi, piv = first + 1, last, a[first]
    while True:
        while lt(a[lo], piv):
            lo += 1
        hi -= 1
        while lt(piv, a[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _median_to_first(a, result, i, j, k, lt):
    x, y, z = a[i], a[j], a[k]
    if lt(x, y):
        pick = j if lt(y, z) else (k if lt(x, z) else i)
    elif lt(x, z):
        pick = i
    elif lt(y, z):
        pick = k
    else:
        pick = j
    a[result], a[pick] = a[pick], a[result]


def _insertion_sort(a, first, last, lt):
    for i in range(first + 1, last):
        v = a[i]
        if lt(v, a[first]):
            a[first + 1:i + 1] = a[first:i]
            a[first] = v
        else:
            _linear_insert(a, i, lt)


def _linear_insert(a, last, lt):
    v = a[last]
    nxt = last - 1
    while lt(v, a[nxt]):
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = v


def _heap_sort(a, first, last, lt):
    """libstdc++'s ``__partial_sort(first, last, last)``: make_heap, then sort_heap."""
    _make_heap(a, first, last - first, lt)
    while last - first > 1:
        last -= 1
        v = a[last]
        a[last] = a[first]
        _adjust_heap(a, first, 0, last - first, v, lt)


def _adjust_heap(a, first, hole, length, value, lt):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if lt(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and lt(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value
