"""Stride-1, undilated 2-D convolution kernels over flattened rows.

Flatten a padded (Hp, Wp) image row by row. The window of every output at kernel offset (i, j)
is then one contiguous run of the flat image: output (p, q) reads element
``i * Wp + j + p * Wp + q``, for p < Ho and q < Wp, a run of ``L = (Ho - 1) * Wp + Wo``
elements from ``i * Wp + j``. The run also holds ``Wp - Wo`` positions per row that are not
outputs (q >= Wo, which wrap into the next row).

* The forward copies these runs into its column matrix (long contiguous copies instead of a
  copy of a 6-D window view) and multiplies it by the weight as before; the columns of the
  positions that are not outputs are computed too and dropped.
* The weight gradient builds the forward's column matrix, sample by sample, and multiplies it
  by the output gradient laid out in rows of ``Wp`` (zeros in the extra columns), transposed:
  one GEMM per sample over ``L`` positions (the BLAS's best shape here) instead of one GEMM over
  the whole batch's positions, whose column matrix is a slow 6-D window copy. The samples'
  products are summed in sample order. A finite input's values at the extra positions are
  multiplied by those zeros; a non-finite input has them set to zero first (0 * inf is NaN).
* The input gradient multiplies the transposed weight by the output gradient laid out in rows
  of ``Wp`` (zeros in the extra columns) and adds each kernel offset's run into the flat input
  gradient (runs of ``L`` instead of rows of ``Wo``). The extra columns are exact zeros when the
  weight is finite, and adding a zero changes no value here (the gradient starts from +0, so it
  never holds -0); a non-finite weight takes the window-by-window kernel instead. Without
  groups, the products of each kernel offset are laid out in rows of ``Hp * Wp`` whose tails
  stay zero, so one add per offset covers every channel (a 1-D add instead of one row per
  channel: 3x faster in numpy).

Every output of the forward and input gradient is the same dot product over (channel, i, j),
in the same order, as in the window-by-window kernels of ``conv.py`` (the weight gradient's
sum over samples is grouped by sample); the memory traffic is what changes (the CNN
benchmark's second convolution: forward 48 -> 38 ms, input gradient 52 -> 35 ms with one
thread). The BLAS may round a product with more columns differently (in the tests, float64
results moved by ~1e-14; float32 ones by ~1e-7 of the largest value with OpenBLAS's AVX2
kernels, not at all with its AVX-512 ones): these kernels are the op's kernels, for eager runs
and replays alike. ``tests/torch/test_kernel_rules.py`` compares the two kinds.
"""
from __future__ import annotations

import numpy as np

__all__ = ["forward", "input_grad", "weight_grad"]


def _runs(cols, xf, wp, run):
    """The column matrix (m, C, kh, kw, L) of flat images ``xf`` (m, C, Hp*Wp): kernel offset
    (i, j)'s run of ``L`` elements from ``i * Wp + j``."""
    kh, kw = cols.shape[2:4]
    for i in range(kh):
        for j in range(kw):
            off = i * wp + j
            cols[:, :, i, j] = xf[:, :, off:off + run]


def forward(xp, wmat, kh, kw, out, chunk):
    """``out`` (N, G*Og, Ho, Wo) = the convolution of ``xp`` (N, C, Hp, Wp, padded) with
    ``wmat`` (G, Og, Cg*kh*kw); ``chunk(n, bytes_per_sample)`` sizes the batch chunks."""
    n, c, hp, wp = xp.shape
    groups, og, k = wmat.shape
    ho, wo = hp - kh + 1, wp - kw + 1
    run = (ho - 1) * wp + wo
    xf = np.ascontiguousarray(xp).reshape(n, c, hp * wp)
    step = chunk(n, c * kh * kw * run * xp.dtype.itemsize)
    cols = np.empty((step, c, kh, kw, run), xp.dtype)
    wide = np.empty((step, groups, og, ho * wp), xp.dtype)
    for a in range(0, n, step):
        m = min(step, n - a)
        _runs(cols[:m], xf[a:a + m], wp, run)
        np.matmul(wmat, cols[:m].reshape(m, groups, k, run), out=wide[:m, :, :, :run])
        out[a:a + m] = wide[:m].reshape(m, groups * og, ho, wp)[..., :wo]
    return out


def input_grad(gy, wt, kh, kw, gx, chunk, one_add=True):
    """Add the input gradient into ``gx`` (N, C, Hp, Wp, C-ordered zeros, padded) from ``gy``
    (N, G*Og, Ho, Wo) and ``wt`` (G, Cg*kh*kw, Og), a finite weight transposed. ``one_add``: one
    add per kernel offset over all channels when there are no groups (the tests compare it with
    the add per channel, ``one_add=False``)."""
    n, cout, ho, wo = gy.shape
    c, hp, wp = gx.shape[1:]
    groups, k, og = wt.shape
    run = (ho - 1) * wp + wo
    flat = gx.reshape(n, c, hp * wp)
    step = chunk(n, c * kh * kw * run * gx.dtype.itemsize)
    rows = np.zeros((step, cout, ho, wp), gx.dtype)  # gy in rows of Wp: the extra columns are 0
    if groups == 1 and one_add:
        return _input_grad_flat(rows, gy, wt[0], kh, kw, gx, step)
    for a in range(0, n, step):
        m = min(step, n - a)
        rows[:m, :, :, :wo] = gy[a:a + m]
        g = rows[:m].reshape(m, groups, og, ho * wp)[..., :run]
        gcols = np.matmul(wt, g).reshape(m, c, kh, kw, run)
        fa = flat[a:a + m]
        for i in range(kh):
            for j in range(kw):
                off = i * wp + j
                fa[:, :, off:off + run] += gcols[:, :, i, j]
    return gx


def _input_grad_flat(rows, gy, wt, kh, kw, gx, step):
    """``input_grad`` without groups, with one add per kernel offset over every channel at
    once: the products of offset (i, j) land in rows of ``Hp * Wp`` (ordered offset-major),
    whose entries past ``L`` are never written and stay zero, so the run of channel c and the
    zeros after it are one contiguous stretch of the flat gradient. A zero added there changes
    no value, and every element gets the same products in the same order as by channels."""
    n, cout, ho, wo = gy.shape
    c, hp, wp = gx.shape[1:]
    area = hp * wp
    run = (ho - 1) * wp + wo
    w_ij = np.ascontiguousarray(wt.reshape(c, kh, kw, cout).transpose(1, 2, 0, 3)).reshape(
        kh * kw * c, cout)
    prods = np.zeros((step, kh * kw * c, area), gx.dtype)
    flat = gx.reshape(n, c * area)
    for a in range(0, n, step):
        m = min(step, n - a)
        rows[:m, :, :, :wo] = gy[a:a + m]
        np.matmul(w_ij, rows[:m].reshape(m, cout, ho * wp)[..., :run], out=prods[:m, :, :run])
        by_offset = prods[:m].reshape(m, kh, kw, c * area)
        for i in range(kh):
            for j in range(kw):
                off = i * wp + j
                flat[a:a + m, off:] += by_offset[:, i, j, :c * area - off]
    return gx


def weight_grad(gy, xp, kh, kw, groups, chunk):
    """The weight gradient (G, Og, Cg*kh*kw) of the convolution of ``xp`` (N, C, Hp, Wp,
    padded) whose output gradient is ``gy`` (N, G*Og, Ho, Wo)."""
    n, c, hp, wp = xp.shape
    cout, ho, wo = gy.shape[1:]
    og = cout // groups
    k = c // groups * kh * kw
    run = (ho - 1) * wp + wo
    xf = np.ascontiguousarray(xp).reshape(n, c, hp * wp)
    step = chunk(n, c * kh * kw * run * xp.dtype.itemsize)
    cols = np.empty((step, c, kh, kw, run), xp.dtype)
    rows = np.zeros((step, cout, ho, wp), xp.dtype)  # gy in rows of Wp: the extra columns are 0
    gw = np.zeros((groups, k, og), xp.dtype)
    wrapped = wp > wo and ho > 1 and not np.isfinite(xp).all()
    for a in range(0, n, step):
        m = min(step, n - a)
        _runs(cols[:m], xf[a:a + m], wp, run)
        if wrapped:  # the wrapped positions: zero, so a non-finite input there multiplies
            # nothing (0 * inf would be NaN); with a finite input, 0 * x adds nothing
            cols[:m, ..., :(ho - 1) * wp].reshape(m, c, kh, kw, ho - 1, wp)[..., wo:] = 0
        rows[:m, :, :, :wo] = gy[a:a + m]
        g = rows[:m].reshape(m, groups, og, ho * wp)[..., :run]
        # (G, K, Og) per sample: this orientation of the product is the faster one
        part = np.matmul(cols[:m].reshape(m, groups, k, run), g.transpose(0, 1, 3, 2))
        for s in part:  # added in sample order
            gw += s
    return np.ascontiguousarray(gw.transpose(0, 2, 1))
