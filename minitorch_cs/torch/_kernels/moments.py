"""Row moments (mean and biased variance) in torch's CPU order of float32 operations.

torch's layer-norm and group-norm kernels compute each row's moments with Welford's update,
vectorized and combined in a cascade (PyTorch 2.13, ``aten/src/ATen/native/cpu/
moments_utils.h``, ``RowwiseMoments``). The row is read in vectors of 8 lanes; blocks of up to
16 vectors update a running mean and sum of squared deviations per lane; the blocks' results
are merged in a binary-counter cascade; the elements past the last whole vector are taken one
by one; then the 8 lanes are merged into the row's result. The compiled kernel fuses some of
the multiply-adds (measured against torch 2.13 on x86-64, where every mean and inverse standard
deviation below came out bit for bit as torch's):

* the vector update: ``m1 = fma(d, 1/(j+1), m1)`` and ``m2 = fma(d, x - m1, m2)``, with
  ``d = x - m1`` before the update;
* merging two vector states: ``m1 + c * delta`` unfused, and
  ``m2 = fma(delta * c, delta * m0, m2 + m2_add)``;
* the element-by-element tail: unfused (``m1 += d / k``; ``m2 += d * (x - m1)``);
* merging the lanes: ``m1 = fma(c, delta, m1)`` and ``m2 = m2 + fma(delta * delta * c, m0,
  m2_add)``.

Welford's update squares differences, not values, so a row of large equal values keeps its
moments where a sum of squares would overflow. But when a difference overflows, or a square
inside a merge does, the state turns infinite or NaN, and so does the normalized row, as in
torch: merging the first lane into the empty state multiplies the square of that lane's mean
by a count of zero, so any float32 row whose lane means reach about 1.8e19 in magnitude comes
out NaN (a two-pass mean and variance would give finite values or zeros instead).

A fused multiply-add of float32 operands is computed in float64: the product is exact there,
and the sum is rounded to float64 and then to float32 (a double rounding, which can differ from
one rounding only in rare halfway cases).
"""
from __future__ import annotations

import numpy as np

__all__ = ["fma32", "fma64", "row_moments32", "row_moments64"]

LANES = 8  # float32 lanes of torch's vectorized moments kernel (measured)
CHUNK = 16  # vectors per Welford block (torch's kChunkSize)

_F64 = np.float64


def fma32(a, b, c):
    """``a * b + c`` with one rounding to float32 (see the module's note on double rounding):
    the product and the sum in float64, cast to a float32 result by the add itself."""
    p = np.multiply(a, b, dtype=_F64)
    out = np.empty(np.broadcast_shapes(np.shape(p), np.shape(c)), np.float32)
    return np.add(p, c, out=out, dtype=_F64, casting="unsafe")


_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitting constant for float64
_SAFE = 2.0 ** 995  # below it neither the split nor the product overflows


def fma64(a, b, c):
    """``a * b + c`` for float64 arrays with one rounding (what a fused multiply-add gives),
    by error-free transformations: Dekker's exact product ``a * b = p + e`` (Veltkamp's
    split), Knuth's exact sum ``p + c = s + t``, then ``s + (t + e)``. The last two roundings
    agree with one rounding of the exact value except in rare halfway cases. Where an operand or
    the product is too large to split (or not finite), the unfused ``a * b + c``. A zero result
    has the fused operation's sign (``fma(-1, 0, -0)`` is ``-0``)."""
    a, b, c = np.broadcast_arrays(np.asarray(a, _F64), np.asarray(b, _F64),
                                  np.asarray(c, _F64))
    with np.errstate(all="ignore"):
        p = a * b
        ta, tb = a * _SPLIT, b * _SPLIT
        ah = ta - (ta - a)
        al = a - ah
        bh = tb - (tb - b)
        bl = b - bh
        e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        s = p + c
        v = s - p
        t = (p - (s - v)) + (c - v)
        r = s + (t + e)
        zero = r == 0  # (an exact zero: the rounded sum's sign is the fused one's, -0 + -0 -> -0;
        if zero.any():  # the correction terms above would turn it into +0)
            r = np.where(zero, s, r)
        plain = ~((np.abs(a) < _SAFE) & (np.abs(b) < _SAFE) & (np.abs(p) < _SAFE)
                  & np.isfinite(c) & np.isfinite(s))
        if plain.any():
            r = np.where(plain, p + c, r)
    return r


class _Float32:
    """float32 arithmetic of torch's kernel: 8 lanes, multiply-adds fused (emulated in
    float64, cast into the float32 state by the add)."""

    T, lanes, wide = np.float32, LANES, _F64
    fma = staticmethod(fma32)

    @staticmethod
    def fma_into(a, b, c, out, tmp):
        np.multiply(a, b, out=tmp, dtype=_F64)
        np.add(tmp, c, out=out, dtype=_F64, casting="unsafe")


class _Float64:
    """float64: torch's 4 lanes; its multiply-adds unfused here (an exact float64 fma would
    need more than numpy offers), so the bits may differ while overflow and NaN fall where
    torch's do."""

    T, lanes, wide = np.float64, 4, _F64

    @staticmethod
    def fma(a, b, c):
        return a * b + c

    @staticmethod
    def fma_into(a, b, c, out, tmp):
        np.multiply(a, b, out=tmp)
        np.add(tmp, c, out=out)


def _merge_vec(add, acc, ar):
    """Merge the vector state ``add`` = (m0, m1, m2) into ``acc``: torch's vector merge."""
    m0a, m1a, m2a = add
    m0, m1, m2 = acc
    n = m0 + m0a
    c = ar.T(0) if n == 0 else ar.T(m0a) / ar.T(n)
    delta = m1a - m1
    m1 = m1 + c * delta
    m2 = ar.fma(delta * c, delta * ar.T(m0), m2 + m2a)
    return (n, m1, m2)


def row_moments32(x):
    """(mean, biased variance) of each row of the float32 array ``x`` (rows, N), each of shape
    (rows,), in torch's order of operations (module docstring)."""
    return _row_moments(x, _Float32)


def row_moments64(x):
    """:func:`row_moments32` for float64 rows (4 lanes, multiply-adds unfused: the overflow
    and NaN pattern of torch's kernel, its values to the last bits)."""
    return _row_moments(x, _Float64)


def _row_moments(x, ar):
    rows, n_el = x.shape
    T, lanes = ar.T, ar.lanes
    n = n_el // lanes  # whole vectors
    m = -(-n // CHUNK)  # blocks
    depth = (m - 1).bit_length() if m > 1 else 0
    zero = np.zeros((rows, lanes), T)
    stk = [(0, zero, zero) for _ in range(max(depth, 1))]
    with np.errstate(all="ignore"):
        if m:
            # every block's Welford pass at once: (rows, blocks, 16 vectors, lanes)
            full = n // CHUNK
            blocks = []
            if full:
                blocks.append(_welford_blocks(
                    x[:, :full * CHUNK * lanes].reshape(rows, full, CHUNK, lanes), ar))
            if n % CHUNK:
                start = full * CHUNK * lanes
                blocks.append(_welford_blocks(
                    x[:, start:n * lanes].reshape(rows, 1, n % CHUNK, lanes), ar))
            m1s = np.concatenate([b[0] for b in blocks], axis=1) if len(blocks) > 1 else \
                blocks[0][0]
            m2s = np.concatenate([b[1] for b in blocks], axis=1) if len(blocks) > 1 else \
                blocks[0][1]
            for i in range(m):
                size = min(CHUNK, n - i * CHUNK)
                stk[0] = _merge_vec((size, m1s[:, i], m2s[:, i]), stk[0], ar)
                mask = i + 1
                j = 1
                while j < depth and (mask & 1) == 0:
                    stk[j] = _merge_vec(stk[j - 1], stk[j], ar)
                    stk[j - 1] = (0, zero, zero)
                    mask >>= 1
                    j += 1
            for i in range(1, depth):
                stk[0] = _merge_vec(stk[i], stk[0], ar)
        # the lanes as contiguous (lanes, rows) arrays, the tail as (elements, rows)
        lane_m1 = np.ascontiguousarray(stk[0][1].T)
        lane_m2 = np.ascontiguousarray(stk[0][2].T)
        tail = np.ascontiguousarray(x[:, n * lanes:].T)
        k = 0
        m1 = np.zeros(rows, T)
        m2 = np.zeros(rows, T)
        d = np.empty(rows, T)
        t = np.empty(rows, T)
        p = np.empty(rows, ar.wide)
        subtract, multiply, add = np.subtract, np.multiply, np.add
        for xi in tail:  # the tail, element by element
            k += 1
            subtract(xi, m1, out=d)
            add(m1, d / T(k), out=m1)
            subtract(xi, m1, out=t)
            multiply(d, t, out=t)
            add(m2, t, out=m2)
        for lane in range(lanes):  # the lanes, one by one: fma(c, delta, m1) and
            # m2 + fma(delta * delta * c, k, lane_m2)
            total = k + n
            c = T(0) if total == 0 else T(n) / T(total)
            subtract(lane_m1[lane], m1, out=d)
            ar.fma_into(d, _F64(c), m1, m1, p)
            multiply(d, d, out=t)
            multiply(t, c, out=t)
            ar.fma_into(t, _F64(k), lane_m2[lane], t, p)
            add(m2, t, out=m2)
            k = total
        return m1, m2 / T(n_el)


def _welford_blocks(v, ar):
    """Welford's vector update over axis 2 of ``v`` (rows, blocks, size, lanes): the
    (rows, blocks, lanes) mean and sum of squared deviations of each block, with ``ar``'s
    multiply-adds."""
    vt = np.ascontiguousarray(np.moveaxis(v, 2, 0))  # (size, rows, blocks, lanes)
    shape = vt.shape[1:]
    T = ar.T
    m1 = np.zeros(shape, T)
    m2 = np.zeros(shape, T)
    d = np.empty(shape, T)
    e = np.empty(shape, T)
    p = np.empty(shape, ar.wide)
    subtract = np.subtract
    for j in range(vt.shape[0]):
        xj = vt[j]
        subtract(xj, m1, out=d)
        ar.fma_into(d, _F64(T(1) / T(j + 1)), m1, m1, p)
        subtract(xj, m1, out=e)
        ar.fma_into(d, e, m2, m2, p)
    return m1, m2
