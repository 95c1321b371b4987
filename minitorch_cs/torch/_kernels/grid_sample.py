"""``grid_sample``'s sampling and its gradients, and ``affine_grid``, in torch 2.13's CPU order
of operations.

torch has two CPU kernels for ``grid_sample`` (PyTorch 2.13, ``aten/src/ATen/native/cpu/
GridSamplerKernel.cpp`` and ``GridSampler.cpp``), and their arithmetic differs; both are
reproduced here, measured bit for bit against torch 2.13 on x86-64 (``tests/torch/
test_grid_sample.py``).

**4-D inputs** run a vectorized kernel (its AVX2 build: 8 float32 lanes, 4 float64, 16 for the
half types). Coordinates, weights and sums are computed in the input's dtype, lane by lane,
with the multiply-adds its compiler fuses in float32/float64 (a half type rounds every
operation instead: its vector operations go through float32 one at a time):

* unnormalizing: ``(g + 1) * s`` (``align_corners``, ``s = (size - 1) / 2``) or
  ``fma(g + 1, size / 2, -0.5)``;
* reflection (about ``[0, size - 1]`` or ``[-0.5, size - 0.5]``): ``a = |u - low|``,
  ``e = fma(-trunc(a / span2), span2, a)`` with ``span2`` twice the span, then
  ``min(e, span2 - e) + low``; a size-1 dim with ``align_corners`` reflects to 0;
* clipping to ``[0, size - 1]`` takes NaN to 0 in the forward; the backward's clip keeps NaN
  (its gradient mask is "strictly inside", comparing bit patterns);
* bilinear: ``x0 = floor(x)``, ``w = x - x0``, ``e = 1 - w`` (likewise ``n``/``s`` for y),
  weights ``s*e, s*w, n*e, n*w`` for the nw, ne, sw, se corners, and the value
  ``fma(se_v, se, fma(sw_v, sw, fma(ne_v, ne, nw_v * nw)))``, an out-of-bounds corner reading
  0 (so a NaN weight gives NaN even there);
* nearest: round half to even;
* bicubic: the cubic convolution coefficients (``A = -0.75``), 16 reads clamped or reflected by
  the padding mode, summed along x then y; which multiply-adds are fused differs between the
  copies of this code the compiler made (see the profiles below);
* indices: the floored coordinates converted to 32-bit (float32; out of range or NaN is
  INT_MIN, out of bounds) or 64-bit integers (float64), and 16-bit ones for the half types
  (converted through 32 bits and wrapped), offsets included: a half-precision plane of more
  than 32767 elements is read (and its gradient written) 65536 elements off, as torch does --
  where that leaves the tensor torch reads or writes outside it; here such a read is 0 and
  such a write is dropped.

The input gradient is a scatter: contributions are added one at a time in the kernel's order --
vector by vector of output positions, then channel by channel, corner (tap) by corner, lane by
lane. Which positions form a vector depends on the grid's memory layout (a contiguous grid
slice: the flattened positions; otherwise each output row on its own), which is followed. The
grid gradient accumulates over the channels in the dtype (bilinear: ``gx = fma(fma(se_v - sw_v,
n, (ne_v - nw_v) * s), gOut, gx)`` and the mirror for y; bicubic: ``gx = fma(-(v * gOut *
dcx), cy, gx)``), then times the coordinate's derivative multiplier.

**5-D inputs** run a scalar loop, compiled without fused multiply-adds: unnormalizing is
``((g + 1) / 2) * (size - 1)`` or ``((g + 1) * size - 1) / 2``; reflection uses ``fmod`` and the
parity of ``floor(a / span)`` (a 32-bit integer); clipping is ``min(size - 1, max(u, 0))`` with
C++'s comparisons (a NaN coordinate clips to ``size - 1`` in the forward, stays NaN in the
backward, where it reads nothing -- in bfloat16 a NaN coordinate is index 0 instead);
trilinear weights are products of the distances in the order torch writes them; the output
adds each in-bounds corner's ``value * weight`` to 0 in turn; the input gradient adds
contributions position by position, corner by corner.

Where torch's float32/float64 4-D bilinear backward reads outside the input (a NaN coordinate
the backward's clip keeps: torch crashes or reads garbage), the corner counts as out of
bounds here.
"""
from __future__ import annotations

import math

import numpy as np

from .moments import fma32, fma64

__all__ = ["sample", "sample_backward", "affine_forward", "affine_backward", "HALF_TYPES"]


def _half_types():
    out = [np.dtype(np.float16)]
    try:
        import ml_dtypes
        out.append(np.dtype(ml_dtypes.bfloat16))
    except ImportError:  # pragma: no cover
        pass
    return tuple(out)


HALF_TYPES = _half_types()


# ----- arithmetic helpers ---------------------------------------------------------------------
def _fma(a, b, c, fused):
    """``a * b + c``: one rounding when ``fused`` (float32/float64), else two."""
    if not fused:
        return a * b + c
    a = np.asarray(a)
    return fma32(a, b, c) if a.dtype == np.float32 else fma64(a, b, c).astype(a.dtype, copy=False)


def _to_int(x, bits):
    """Floating values (already integral) to integers as the x86 conversions give them: out of
    the ``bits``-bit range or NaN is the "integer indefinite" value (the most negative)."""
    lo = float(-2 ** (bits - 1))
    with np.errstate(invalid="ignore"):
        bad = ~((x >= lo) & (x < -lo))
        return np.where(bad, -2 ** (bits - 1), np.where(bad, 0, x).astype(np.int64))


def _lanes(dt):
    """The kernel's vector width for ``dt``: 256 bits of the dtype (torch's AVX2 build of this
    kernel, which its AVX-512 dispatch falls back to; measured)."""
    return 32 // np.dtype(dt).itemsize


def _contiguous(sizes, strides):
    """Whether ``strides`` (in elements) are the contiguous strides of ``sizes`` (size-1 dims
    ignored: torch's ``geometry_is_contiguous``)."""
    expect = 1
    for n, st in zip(reversed(sizes), reversed(strides)):
        if n != 1 and st != expect:
            return False
        expect *= n
    return True


def _grid_strides(grid):
    return tuple(st // grid.itemsize for st in grid.strides[1:])


def _contiguous_slices(grid):
    """Whether each batch's grid slice (Ho, Wo, 2) is contiguous (the iterator's first case)."""
    return _contiguous(grid.shape[1:], _grid_strides(grid))


def _chunks(grid, P):
    """The vector index of each flattened output position (torch's grid-slice iterator): a
    contiguous grid slice, or one with its W positions unit-strided and its (H, W) dims
    contiguous, runs over the flattened positions; any other, row by row."""
    Ho, Wo = grid.shape[1], grid.shape[2]
    step = _lanes(grid.dtype)
    sH, sW, _ = _grid_strides(grid)
    p = np.arange(P)
    if _contiguous_slices(grid) or ((sW == 1 or Wo == 1) and _contiguous((Ho, Wo), (sH, sW))):
        return p // step
    per_row = -(-Wo // step)
    return (p // Wo) * per_row + (p % Wo) // step


def _gather(flat, idx, mask):
    """``flat`` (N, C, S) read at ``idx`` (N, P) where ``mask`` (N, P): (N, C, P), 0 elsewhere."""
    N, C = flat.shape[:2]
    i = np.where(mask, idx, 0)
    v = flat[np.arange(N)[:, None, None], np.arange(C)[None, :, None], i[:, None, :]]
    return np.where(mask[:, None, :], v, flat.dtype.type(0))


def _scatter(shape, dtype, idx, vals, mask, order=None):
    """Zeros of ``shape`` (N, C, *spatial) receiving ``vals`` (N, C, L) at the flat spatial
    indices ``idx`` (N, L) where ``mask`` (N, L), added one at a time in the order of L (after
    the permutation ``order`` when given), in ``dtype``'s arithmetic."""
    N, C = shape[:2]
    S = math.prod(shape[2:])
    out = np.zeros(N * C * S, dtype)
    if order is not None:
        idx, vals, mask = idx[:, order], vals[:, :, order], mask[:, order]
    full = (np.arange(N)[:, None, None] * C + np.arange(C)[None, :, None]) * S + idx[:, None, :]
    # (a 16-bit wrapped offset may leave the tensor: torch writes outside it, dropped here)
    m = mask[:, None, :] & (full >= 0) & (full < out.size)
    np.add.at(out, full[m], vals[m])
    return out.reshape(shape)


# ----- coordinates, 4-D (the vectorized kernel) -----------------------------------------------
class _Axis:
    """One spatial dim's constants in the dtype (torch's ``ComputeLocationBase``)."""

    def __init__(self, size, align, dt):
        t = dt.type
        self.dt, self.size, self.align = dt, size, align
        self.max = t(size - 1)
        if align:
            self.scale = t(size - 1) / t(2)
            self.span2 = t(size - 1) * t(2)
            self.low = None
            self.empty = size <= 1
        else:
            self.scale = t(size) / t(2)
            self.span2 = t(size) * t(2)
            self.low = t(-0.5)
            self.empty = False


def _v_unnormalize(g, ax, fused):
    one = ax.dt.type(1)
    if ax.align:
        return (g + one) * ax.scale
    return _fma(g + one, ax.scale, ax.dt.type(-0.5), fused)


def _v_reflect_parts(u, ax, fused):
    """(extra, reflected extra, whether u is below low) of the vector reflection."""
    d = u - ax.low if ax.low is not None else u
    a = np.abs(d)
    flips = np.trunc(a / ax.span2)
    e = _fma(-flips, ax.span2, a, fused)
    return e, ax.span2 - e, d < 0


def _v_reflect(u, ax, fused):
    if ax.empty:
        return np.zeros_like(u)
    e, r, _ = _v_reflect_parts(u, ax, fused)
    m = np.minimum(e, r)
    return m + ax.low if ax.low is not None else m


def _v_clip(u, ax):
    zero = ax.dt.type(0)
    c = np.where(u > zero, u, zero)  # (max(u, 0) with NaN -> 0)
    return np.where(c < ax.max, c, ax.max)


def _v_coords(u, ax, padding, fused):
    """``compute_coordinates``: padding applied to unnormalized coordinates."""
    if padding == "border":
        return _v_clip(u, ax)
    if padding == "reflection":
        return _v_clip(_v_reflect(u, ax, fused), ax)
    return u


def _v_clip_grad(u, ax):
    """(clipped, strictly-inside mask) with NaN kept (and counted inside)."""
    zero = ax.dt.type(0)
    nan = np.isnan(u)
    lo = np.where(u > zero, u, zero)
    res = np.where(nan, u, np.where(lo < ax.max, lo, ax.max))
    inside = nan | ((lo != zero) & (res != ax.max))
    return res, inside


def _v_location(g, ax, padding, fused, grad=False):
    """torch's ``ComputeLocation.apply`` (and ``apply_get_grad``: with the multiplier)."""
    u = _v_unnormalize(g, ax, fused)
    dt = ax.dt
    if not grad:
        return _v_coords(u, ax, padding, fused)
    if padding == "zeros":
        return u, np.full(u.shape, ax.scale, dt)
    if padding == "border":
        res, inside = _v_clip_grad(u, ax)
        return res, np.where(inside, ax.scale, dt.type(0))
    if ax.empty:
        z = np.zeros_like(u)
        return z, z.copy()
    e, r, neg = _v_reflect_parts(u, ax, fused)
    flip = e > r
    res = np.where(flip, r, e)
    if ax.low is not None:
        res = res + ax.low
    mult = np.where(flip ^ neg, dt.type(-1), dt.type(1)) * ax.scale
    res, inside = _v_clip_grad(res, ax)
    return res, np.where(inside, mult, dt.type(0))


def _cubic(t, dt, outer_fused, inner_fused):
    """The four cubic convolution coefficients (``A = -0.75``) for the fractional offsets
    ``t``: ``((A x - 5A) x + 8A) x - 4A`` at ``t + 1`` and ``2 - t``, ``((A + 2) x - (A + 3))
    x x + 1`` at ``t`` and ``1 - t``, each multiply-add fused or not."""
    A = dt.type(-0.75)
    one, two, three = dt.type(1), dt.type(2), dt.type(3)
    c5, c8, c4 = dt.type(5) * A, dt.type(8) * A, dt.type(4) * A
    a2, a3 = A + two, A + three
    fo, fi = outer_fused, inner_fused

    def outer(x):
        return _fma(_fma(_fma(A, x, -c5, fo), x, c8, fo), x, -c4, fo)

    def inner(x):
        return _fma(_fma(a2, x, -a3, fi) * x, x, one, fi)
    return outer(t + one), inner(t), inner(one - t), outer(two - t)


def _cubic_grad(t, dt, outer_fused, inner_fused):
    """The coefficients' derivatives (torch's ``get_cubic_coefficients_grad``)."""
    A = dt.type(-0.75)
    two, three = dt.type(2), dt.type(3)
    m3a, m10a, m8a = dt.type(-3) * A, dt.type(10) * A, dt.type(8) * A
    p3a2, m3a2, m2a3 = three * (A + two), dt.type(-3) * (A + two), two * (A + three)
    fo, fi = outer_fused, inner_fused
    x0 = dt.type(-1) - t
    c0 = _fma(_fma(m3a, x0, -m10a, fo), x0, -m8a, fo)
    x1 = dt.type(0) - t
    c1 = _fma(m3a2, x1, -m2a3, fi) * x1
    x2 = dt.type(1) - t
    c2 = _fma(p3a2, x2, -m2a3, fi) * x2
    x3 = two - t
    c3 = _fma(_fma(dt.type(3) * A, x3, -m10a, fo), x3, m8a, fo)
    return c0, c1, c2, c3


# Which multiply-adds torch's compiled bicubic code fuses differs between the copies of the code
# the compiler made (float32/float64, padding mode, the grid iterator's case, whether the input
# needs a gradient); measured on whole vectors of positions:
# forward: (coefficients' cubic fused, quadratic fused, sum along x a fused chain)
#   -- the sum along x otherwise fuses its first multiply-add only; along y always a chain;
# backward: (coefficients' cubic, quadratic, derivatives' quadratic, linear fused).
def _bicubic_forward_profile(dt, padding, contiguous):
    chain = not contiguous and (dt == np.float64 or padding == "reflection")
    return False, True, chain


def _bicubic_backward_profile(dt, padding, contiguous, need_input):
    if need_input or (dt == np.float64 and padding == "reflection"):
        return False, True, False, False
    return True, True, True, True


class _Memory:
    """The input as the 4-D kernel reads it: element offsets from a (batch, channel) base, in
    the input's memory (a dense input: its own strides; otherwise a contiguous copy)."""

    def __init__(self, inp):
        a = inp if _dense(inp) else np.ascontiguousarray(inp)
        self.mem = np.ravel(a, order="K")
        es = [st // a.itemsize for st in a.strides]
        N, C = a.shape[:2]
        self.base = np.arange(N)[:, None] * es[0] + np.arange(C)[None, :] * es[1]
        self.sH, self.sW = es[2], es[3]
        self.zero = a.dtype.type(0)

    def read(self, off, mask, c=None):
        """Values at offsets ``off`` (N, P) where ``mask``: (N, C, P) (or channel ``c``); an
        offset outside the input (only a 16-bit wrap makes one) reads 0."""
        base = self.base if c is None else self.base[:, c:c + 1]
        addr = base[:, :, None] + off[:, None, :]
        ok = mask[:, None, :] & (addr >= 0) & (addr < self.mem.size)
        return np.where(ok, self.mem[np.where(ok, addr, 0)], self.zero)


def _dense(a):
    """Whether ``a``'s elements fill its memory span with non-negative strides."""
    dims = sorted((st, n) for st, n in zip(a.strides, a.shape) if n != 1)
    expect = a.itemsize
    for st, n in dims:
        if st != expect:
            return False
        expect *= n
    return True


def _wrap16(v):
    """Two's-complement 16-bit wraparound of integer arrays."""
    return ((v + 32768) & 0xFFFF) - 32768


def _sample2d(inp, grid, mode, padding, align, gout=None, need_input=True):
    """The 4-D kernel: the output, or with ``gout`` the (input, grid) gradients."""
    dt = inp.dtype
    half = dt in HALF_TYPES
    fused = not half
    N, C, H, W = inp.shape
    Ho, Wo = grid.shape[1:3]
    P = Ho * Wo
    axw, axh = _Axis(W, align, dt), _Axis(H, align, dt)
    gx = np.ascontiguousarray(grid[..., 0]).reshape(N, P)
    gy = np.ascontiguousarray(grid[..., 1]).reshape(N, P)
    mem = _Memory(inp)
    clamped = padding != "zeros"
    backward = gout is not None
    if backward:
        go = np.ascontiguousarray(gout).reshape(N, C, P)
    # the kernel's integers have the dtype's width: 32 bits for float32, 64 for float64, 16
    # for the half types (converted through 32 bits, wrapping)
    wrap = _wrap16 if half else (lambda v: v)

    def to_int(v):
        return _wrap16(_to_int(v, 32)) if half else _to_int(v, 8 * dt.itemsize)
    sH, sW, w16 = wrap(mem.sH), wrap(mem.sW), wrap(W)

    def offsets(ix, iy):  # (memory offset, offset into the contiguous gradient)
        return wrap(wrap(iy * sH) + wrap(ix * sW)), wrap(wrap(iy * w16) + ix)

    def in_bounds(ix, iy):
        return (ix > -1) & (ix < W) & (iy > -1) & (iy < H)
    with np.errstate(all="ignore"):
        if mode == "bicubic":
            x = _v_unnormalize(gx, axw, fused)
            y = _v_unnormalize(gy, axh, fused)
            x0, y0 = np.floor(x), np.floor(y)
            tx, ty = x - x0, y - y0
            contiguous = _contiguous_slices(grid)
            if backward:
                co, ci, go_, gi_ = _bicubic_backward_profile(dt, padding, contiguous,
                                                              need_input)
                x_chain = False
            else:
                co, ci, x_chain = _bicubic_forward_profile(dt, padding, contiguous)
            co, ci = co and fused, ci and fused
            cx, cy = _cubic(tx, dt, co, ci), _cubic(ty, dt, co, ci)

            def tap(i, j):  # the tap (x0 - 1 + i, y0 - 1 + j), clamped or reflected
                ix = to_int(_v_coords(x0 + dt.type(-1 + i), axw, padding, fused))
                iy = to_int(_v_coords(y0 + dt.type(-1 + j), axh, padding, fused))
                m = np.ones(ix.shape, bool) if clamped else in_bounds(ix, iy)
                return offsets(ix, iy) + (m,)
            taps = [tap(i, j) for i in range(4) for j in range(4)]  # (i * 4 + j)
            if not backward:
                rows = []
                for j in range(4):
                    v = [mem.read(taps[i * 4 + j][0], taps[i * 4 + j][2]) for i in range(4)]
                    if x_chain:
                        r = cx[0][:, None] * v[0]
                        for i in range(1, 4):
                            r = _fma(cx[i][:, None], v[i], r, fused)
                        rows.append(r)
                    else:
                        r = _fma(cx[0][:, None], v[0], cx[1][:, None] * v[1], fused)
                        rows.append((r + cx[2][:, None] * v[2]) + cx[3][:, None] * v[3])
                out = cy[0][:, None] * rows[0]
                for j in range(1, 4):
                    out = _fma(cy[j][:, None], rows[j], out, fused)
                return out.reshape(N, C, Ho, Wo)
            gcx = _cubic_grad(tx, dt, go_ and fused, gi_ and fused)
            gcy = _cubic_grad(ty, dt, go_ and fused, gi_ and fused)
            ggx = np.zeros((N, P), dt)
            ggy = np.zeros((N, P), dt)
            contrib = []
            for c in range(C):
                g_c = go[:, c]
                for i in range(4):
                    for j in range(4):
                        off, _, m = taps[i * 4 + j]
                        if need_input:
                            contrib.append((c, i * 4 + j, g_c * cx[i] * cy[j]))
                        vg = mem.read(off, m, c)[:, 0] * g_c
                        ggx = _fma(-(vg * gcx[i]), cy[j], ggx, fused)
                        ggy = _fma(-(vg * gcy[j]), cx[i], ggy, fused)
            ggx = ggx * axw.scale
            ggy = ggy * axh.scale
            gin = None
            if need_input:
                gin = _scatter_taps(inp.shape, dt, grid, P, contrib, taps, C)
            return gin, np.stack([ggx, ggy], -1).reshape(grid.shape)

        if mode == "nearest":
            x = _v_location(gx, axw, padding, fused)
            y = _v_location(gy, axh, padding, fused)
            ix, iy = to_int(np.rint(x)), to_int(np.rint(y))
            m = np.ones(ix.shape, bool) if clamped else in_bounds(ix, iy)
            tp = offsets(ix, iy) + (m,)
            if not backward:
                return mem.read(tp[0], m).reshape(N, C, Ho, Wo)
            gin = None
            if need_input:
                contrib = [(c, 0, go[:, c]) for c in range(C)]
                gin = _scatter_taps(inp.shape, dt, grid, P, contrib, [tp], C)
            return gin, np.zeros(grid.shape, dt)

        # bilinear
        if backward:
            x, mx = _v_location(gx, axw, padding, fused, grad=True)
            y, my = _v_location(gy, axh, padding, fused, grad=True)
        else:
            x = _v_location(gx, axw, padding, fused)
            y = _v_location(gy, axh, padding, fused)
        xw, yn = np.floor(x), np.floor(y)
        w = x - xw
        e = dt.type(1) - w
        n = y - yn
        s = dt.type(1) - n
        weights = (s * e, s * w, n * e, n * w)
        ixw, iyn = to_int(xw), to_int(yn)
        ixe, iys = wrap(ixw + 1), wrap(iyn + 1)
        if clamped:  # (in range but for a NaN the backward's clip kept: it reads nothing here)
            mw, mn = ixw > -1, iyn > -1
            me, ms = mw & (ixe < W), mn & (iys < H)
        else:
            mw, mn = (ixw > -1) & (ixw < W), (iyn > -1) & (iyn < H)
            me, ms = (ixe > -1) & (ixe < W), (iys > -1) & (iys < H)
        masks = (mw & mn, me & mn, mw & ms, me & ms)
        o_nw, g_nw = offsets(ixw, iyn)
        o_sw, g_sw = wrap(o_nw + sH), wrap(g_nw + w16)
        taps = [(o_nw, g_nw, masks[0]), (wrap(o_nw + sW), wrap(g_nw + 1), masks[1]),
                (o_sw, g_sw, masks[2]), (wrap(o_sw + sW), wrap(g_sw + 1), masks[3])]
        vals = [mem.read(o, m) for o, _, m in taps]
        if not backward:
            out = vals[0] * weights[0][:, None]
            for k in range(1, 4):
                out = _fma(vals[k], weights[k][:, None], out, fused)
            return out.reshape(N, C, Ho, Wo)
        ggx = np.zeros((N, P), dt)
        ggy = np.zeros((N, P), dt)
        for c in range(C):
            nw_v, ne_v, sw_v, se_v = (v[:, c] for v in vals)
            g_c = go[:, c]
            tx = _fma(se_v - sw_v, n, (ne_v - nw_v) * s, fused)
            ty = _fma(se_v - ne_v, w, (sw_v - nw_v) * e, fused)
            ggx = _fma(tx, g_c, ggx, fused)
            ggy = _fma(ty, g_c, ggy, fused)
        ggx = ggx * mx
        ggy = ggy * my
        gin = None
        if need_input:
            contrib = [(c, k, weights[k] * go[:, c]) for c in range(C) for k in range(4)]
            gin = _scatter_taps(inp.shape, dt, grid, P, contrib, taps, C)
        return gin, np.stack([ggx, ggy], -1).reshape(grid.shape)


def _scatter_taps(shape, dt, grid, P, contrib, taps, C):
    """The 4-D input gradient: ``contrib`` lists (channel, tap, values (N, P)), ``taps`` the
    (memory offset, gradient offset, mask) of each tap; each position's contributions are added
    vector by vector, then by channel, tap and lane (the kernel's order)."""
    N = shape[0]
    ntaps = len(taps)
    chunk = _chunks(grid, P)
    # position order within the kernel's loops: (vector, tap, lane) for every channel
    key = (chunk[:, None] * ntaps + np.arange(ntaps)[None, :]).reshape(-1)  # (P * ntaps)
    order = np.argsort(key, kind="stable")
    idx = np.stack([t[1] for t in taps], -1).reshape(N, P * ntaps)
    mask = np.stack([t[2] for t in taps], -1).reshape(N, P * ntaps)
    vals = np.empty((N, C, P, ntaps), dt)
    for c, k, v in contrib:
        vals[:, c, :, k] = v
    return _scatter(shape, dt, idx, vals.reshape(N, C, P * ntaps), mask, order)


# ----- coordinates, 5-D (the scalar kernel) ---------------------------------------------------
def _s_unnormalize(g, size, align, dt):
    t = dt.type
    if align:
        return ((g + t(1)) / t(2)) * t(size - 1), t(size - 1) / t(2)
    return ((g + t(1)) * t(size) - t(1)) / t(2), t(size) / t(2)


def _s_reflect(u, twice_low, twice_high, dt, grad=False):
    t = dt.type
    if twice_low == twice_high:
        z = np.zeros_like(u)
        return (z, z.copy()) if grad else z
    lo = t(twice_low) / t(2)
    span = t(twice_high - twice_low) / t(2)
    d = u - lo
    if grad:
        neg = d < t(0)
        a = np.where(neg, -d, d)
    else:
        a = np.abs(d)
    extra = np.fmod(a, span)
    flips = _to_int(np.floor(a / span), 32)
    even = flips % 2 == 0
    res = np.where(even, extra + lo, span - extra + lo)
    if not grad:
        return res
    sign = np.where(neg, t(-1), t(1))
    return res, np.where(even, sign, -sign)


def _s_clip(u, size, dt, grad=False):
    t = dt.type
    top = t(size - 1)
    if not grad:
        m = np.where(u < t(0), t(0), u)  # std::max(u, 0): NaN stays
        return np.where(m < top, m, top)  # std::min(top, m): NaN -> top
    low, high = u <= t(0), u >= top
    res = np.where(low, t(0), np.where(high, top, u))
    return res, np.where(low | high, t(0), t(1))


def _s_location(g, size, padding, align, dt, grad=False):
    u, mult = _s_unnormalize(g, size, align, dt)
    if padding == "zeros":
        return (u, np.full(u.shape, mult, dt)) if grad else u
    if padding == "reflection":
        tl, th = (0, 2 * (size - 1)) if align else (-1, 2 * size - 1)
        if grad:
            u, gr = _s_reflect(u, tl, th, dt, grad=True)
            u, gc = _s_clip(u, size, dt, grad=True)
            return u, (mult * gr) * gc
        return _s_clip(_s_reflect(u, tl, th, dt), size, dt)
    if grad:
        u, gc = _s_clip(u, size, dt, grad=True)
        return u, mult * gc
    return _s_clip(u, size, dt)


def _sample3d(inp, grid, mode, padding, align, gout=None, need_input=True):
    dt = inp.dtype
    N, C, D, H, W = inp.shape
    Do, Ho, Wo = grid.shape[1:4]
    P = Do * Ho * Wo
    g = [np.ascontiguousarray(grid[..., k]).reshape(N, P) for k in range(3)]
    flat = np.ascontiguousarray(inp).reshape(N, C, D * H * W)
    backward = gout is not None
    if backward:
        go = np.ascontiguousarray(gout).reshape(N, C, P)
    bf16 = dt in HALF_TYPES and dt != np.float16

    def to_int(v):  # (bfloat16's conversion takes NaN to 0, the others to INT64_MIN: measured)
        i = _to_int(v, 64)
        return np.where(np.isnan(v), 0, i) if bf16 else i
    with np.errstate(all="ignore"):
        sizes = (W, H, D)
        if backward:  # (the gradient's clip keeps NaN: such a position reads nothing)
            locs = [_s_location(g[k], sizes[k], padding, align, dt, grad=True) for k in range(3)]
            (ix, mx), (iy, my), (iz, mz) = locs
        else:
            ix, iy, iz = (_s_location(g[k], sizes[k], padding, align, dt) for k in range(3))
        if mode == "nearest":
            jx, jy, jz = (to_int(np.rint(a)) for a in (ix, iy, iz))
            m = (jx > -1) & (jx < W) & (jy > -1) & (jy < H) & (jz > -1) & (jz < D)
            idx = np.where(m, (jz * H + jy) * W + jx, 0)
            if not backward:
                return _gather(flat, idx, m).reshape(N, C, Do, Ho, Wo)
            gin = None
            if need_input:
                gin = _scatter(inp.shape, dt, idx, go, m)
            return gin, np.zeros(grid.shape, dt)
        x0, y0, z0 = (to_int(np.floor(a)) for a in (ix, iy, iz))
        fx1, fy1, fz1 = (_int_as(b + 1, dt) - a for a, b in ((ix, x0), (iy, y0), (iz, z0)))
        fx0, fy0, fz0 = (a - _int_as(b, dt) for a, b in ((ix, x0), (iy, y0), (iz, z0)))
        # corners tnw, tne, tsw, tse, bnw, bne, bsw, bse: (dx, dy, dz) and their distances
        corners = [(dx, dy, dz) for dz in (0, 1) for dy in (0, 1) for dx in (0, 1)]
        fx, fy, fz = (fx1, fx0), (fy1, fy0), (fz1, fz0)
        weights, taps = [], []
        for dx, dy, dz in corners:
            weights.append((fx[dx] * fy[dy]) * fz[dz])
            cx, cy, cz = x0 + dx, y0 + dy, z0 + dz
            m = (cx > -1) & (cx < W) & (cy > -1) & (cy < H) & (cz > -1) & (cz < D)
            taps.append((np.where(m, (cz * H + cy) * W + cx, 0), m))
        vals = [_gather(flat, *tp) for tp in taps]
        if not backward:
            out = np.zeros((N, C, P), dt)
            for (idx, m), v, wgt in zip(taps, vals, weights):
                out = np.where(m[:, None, :], out + v * wgt[:, None, :], out)
            return out.reshape(N, C, Do, Ho, Wo)
        gix, giy, giz = (np.zeros((N, P), dt) for _ in range(3))
        for c in range(C):
            g_c = go[:, c]
            for (dx, dy, dz), (idx, m), v in zip(corners, taps, vals):
                val = v[:, c]
                tx = ((val * fy[dy]) * fz[dz]) * g_c
                ty = ((val * fx[dx]) * fz[dz]) * g_c
                tz = ((val * fx[dx]) * fy[dy]) * g_c
                gix = np.where(m, gix + tx if dx else gix - tx, gix)
                giy = np.where(m, giy + ty if dy else giy - ty, giy)
                giz = np.where(m, giz + tz if dz else giz - tz, giz)
        gg = np.stack([mx * gix, my * giy, mz * giz], -1).reshape(grid.shape)
        gin = None
        if need_input:
            idx = np.stack([tp[0] for tp in taps], -1).reshape(N, P * 8)
            mask = np.stack([tp[1] for tp in taps], -1).reshape(N, P * 8)
            contrib = np.stack([wgt[:, None, :] * go for wgt in weights], -1)
            gin = _scatter(inp.shape, dt, idx, contrib.reshape(N, C, P * 8), mask)
        return gin, gg


def _int_as(i, dt):
    """An int64 index as the dtype's value (C++'s conversion in ``int - scalar``)."""
    return i.astype(np.float32).astype(dt) if dt in HALF_TYPES else i.astype(dt)


# ----- entry points ---------------------------------------------------------------------------
def sample(inp, grid, mode, padding, align):
    """The sampled output of ``inp`` (N, C, *spatial) at ``grid`` (N, *out, ndim)."""
    f = _sample2d if inp.ndim == 4 else _sample3d
    return f(inp, grid, mode, padding, align)


def sample_backward(gout, inp, grid, mode, padding, align, need_input=True):
    """(input gradient or None, grid gradient) for the output gradient ``gout``."""
    if gout.size == 0:
        return (np.zeros(inp.shape, inp.dtype) if need_input else None,
                np.zeros(grid.shape, grid.dtype))
    f = _sample2d if inp.ndim == 4 else _sample3d
    return f(inp, grid, mode, padding, align, gout=gout, need_input=need_input)


# ----- affine_grid ----------------------------------------------------------------------------
def _base_axis(n, align, dt, linspace):
    """torch's ``linspace_from_neg_one``: ``linspace(-1, 1, n)`` (``linspace(start, end,
    steps, dtype)``: torch's bits), scaled by ``(n - 1) / n`` without ``align_corners`` (a
    multiplication, then a division, each rounded in the dtype; a half type through float32);
    a single point is 0."""
    if n <= 1:
        return np.zeros(1, dt)
    r = linspace(-1.0, 1.0, n, dt)
    if align:
        return r
    if dt in HALF_TYPES:
        f = np.float32
        r = (r.astype(f) * f(n - 1)).astype(dt)
        return (r.astype(f) / f(n)).astype(dt)
    return r * dt.type(n - 1) / dt.type(n)


def affine_base(spatial, align, dt, linspace):
    """The base grid ``(*spatial, k + 1)``: x along the last dim, then y, (z), and a column of
    ones (``spatial``: (H, W) or (D, H, W))."""
    k = len(spatial)
    base = np.empty(tuple(spatial) + (k + 1,), dt)
    for a in range(k):  # coordinate a (x, y, z) varies along spatial dim k - 1 - a
        shape = [1] * k
        shape[k - 1 - a] = spatial[k - 1 - a]
        base[..., a] = _base_axis(spatial[k - 1 - a], align, dt, linspace).reshape(shape)
    base[..., k] = 1
    return base


def _acc_dtype(dt):
    return np.dtype(np.float32) if dt in HALF_TYPES else dt


def affine_forward(theta, spatial, align, linspace):
    """``base @ theta^T`` per batch: each output coordinate the sequential sum of the three
    (four) products in the dtype (a half type in float32, rounded once), as torch's batched
    product computes it for this shape (measured bit for bit)."""
    dt = theta.dtype
    acc = _acc_dtype(dt)
    N, k = theta.shape[0], len(spatial)
    b = affine_base(spatial, align, dt, linspace).reshape(-1, k + 1).astype(acc)
    t = theta.astype(acc)
    out = b[None, :, 0, None] * t[:, None, :, 0]
    for j in range(1, k + 1):
        out = out + b[None, :, j, None] * t[:, None, :, j]
    return out.astype(dt).reshape((N,) + tuple(spatial) + (k,))


def affine_backward(g, spatial, align, linspace):
    """``theta``'s gradient ``(base^T @ g)^T``: for each entry the sum over the grid positions,
    in order (a half type in float32, rounded once)."""
    dt = g.dtype
    acc = _acc_dtype(dt)
    N, k = g.shape[0], len(spatial)
    b = affine_base(spatial, align, dt, linspace).reshape(-1, k + 1).astype(acc)
    gg = g.reshape(N, -1, k).astype(acc)
    prod = gg[:, :, :, None] * b[None, :, None, :]  # (N, P, k, k + 1)
    if prod.shape[1] == 0:
        return np.zeros((N, k, k + 1), dt)
    s = np.cumsum(prod, axis=1)[:, -1] + acc.type(0)  # (a sequential sum)
    return s.astype(dt)
