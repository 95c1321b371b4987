"""``grid_sample``'s sampling and its gradients in torch 2.13's CPU order of operations.

torch has two CPU kernels (PyTorch 2.13, ``aten/src/ATen/native/cpu/GridSamplerKernel.cpp`` and
``GridSampler.cpp``), and their arithmetic differs; both are reproduced here, measured bit for
bit against torch 2.13 on x86-64 (its AVX2 kernels) in float32 and float64.

**4-D inputs** run a vectorized kernel. Source coordinates, weights and sums are computed in the
input's dtype, lane by lane, with the multiply-adds its compiler fuses (float32/float64; a half
type rounds every operation instead, its vector operations going through float32 one at a
time):

* unnormalizing: ``(g + 1) * s`` (``align_corners``, ``s = (size - 1) / 2``) or
  ``fma(g + 1, size / 2, -0.5)``;
* reflection (about ``[0, size - 1]`` or ``[-0.5, size - 0.5]``): ``a = |u - low|``,
  ``e = fma(-trunc(a / span2), span2, a)`` with ``span2`` twice the span, then
  ``min(e, span2 - e) + low``; a size-1 dim with ``align_corners`` reflects to 0;
* clipping to ``[0, size - 1]`` takes NaN to 0 in the forward; the backward's clip keeps NaN
  (and its gradient mask is "strictly inside", by comparing bit patterns);
* bilinear: ``x0 = floor(x)``, ``w = x - x0``, ``e = 1 - w`` (likewise ``n``/``s`` for y), weights
  ``s*e, s*w, n*e, n*w`` for the nw, ne, sw, se corners, and the value
  ``fma(se_v, se, fma(sw_v, sw, fma(ne_v, ne, nw_v * nw)))`` where an out-of-bounds corner reads
  0 (so a NaN weight gives NaN even there, as in torch);
* nearest: round half to even;
* bicubic: the cubic convolution coefficients (``A = -0.75``) as fused polynomials, 16 reads
  clamped or reflected by the padding mode, summed as fused chains along x then y;
* indices are the floored coordinates converted to 32-bit (float32: out of range or NaN is
  INT_MIN, out of bounds) or 64-bit integers (float64).

The input gradient is a scatter: contributions are added one at a time in the kernel's order --
the output positions are taken in vectors (8 lanes for float32, 4 for float64, 16 for the half
types), and for each vector, channel by channel, corner by corner, lane by lane. Which positions
form a vector depends on the grid's memory layout (a contiguous grid: the flattened positions;
otherwise each output row on its own), which is followed. The grid gradient accumulates over the
channels in the dtype: ``gx = fma(fma(se_v - sw_v, n, (ne_v - nw_v) * s), gOut, gx)`` (and the
mirror for y), then times the coordinate's derivative multiplier.

**5-D inputs** run a scalar loop, compiled without fused multiply-adds: unnormalizing is
``((g + 1) / 2) * (size - 1)`` or ``((g + 1) * size - 1) / 2``; reflection uses ``fmod`` and the
parity of ``floor(a / span)`` (a 32-bit integer); clipping is ``min(size - 1, max(u, 0))`` with
C++'s comparisons (a NaN coordinate clips to ``size - 1`` in the forward, stays NaN in the
backward, where it reads nothing); trilinear weights are products of the distances in the
order torch writes them; the output adds each in-bounds corner's ``value * weight`` to 0 in
turn; the input gradient adds contributions position by position, corner by corner.

Where torch's 4-D backward reads memory outside the input (a NaN coordinate with border or
reflection padding, an infinite one with reflection: torch crashes or reads garbage), the
corner counts as out of bounds here.
"""
from __future__ import annotations

import math

import numpy as np

from .moments import fma32, fma64

__all__ = ["sample", "sample_backward", "HALF_TYPES"]

_I32_MIN = -2 ** 31
_I64_MIN = -2 ** 63
_CORNERS2 = ((0, 0), (1, 0), (0, 1), (1, 1))  # nw, ne, sw, se: (dx, dy)


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
    L = idx.shape[1]
    full = (np.arange(N)[:, None, None] * C + np.arange(C)[None, :, None]) * S + idx[:, None, :]
    m = np.broadcast_to(mask[:, None, :], (N, C, L))
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


def _bounds(i, size, clamped):
    """In-bounds mask of integer indices (``clamped``: the padding keeps them inside, only the
    +1 neighbour can leave, above)."""
    return (i < size) if clamped else (i > -1) & (i < size)


def _cubic(t, dt, fused):
    """The four cubic convolution coefficients for the fractional offsets ``t``."""
    A = dt.type(-0.75)
    one, two, three = dt.type(1), dt.type(2), dt.type(3)
    c5, c8, c4 = dt.type(5) * A, dt.type(8) * A, dt.type(4) * A
    a2, a3 = A + two, A + three

    def outer(x):  # (not fused: measured)
        return ((A * x - c5) * x + c8) * x - c4

    def inner(x):
        return _fma(_fma(a2, x, -a3, fused) * x, x, one, fused)
    return outer(t + one), inner(t), inner(one - t), outer(two - t)


def _cubic_grad(t, dt, fused):
    """The coefficients' derivatives (torch's ``get_cubic_coefficients_grad``)."""
    A = dt.type(-0.75)
    two, three = dt.type(2), dt.type(3)
    m3a, m10a, m8a = dt.type(-3) * A, dt.type(10) * A, dt.type(8) * A
    p3a2, m3a2, m2a3 = three * (A + two), dt.type(-3) * (A + two), two * (A + three)
    x0 = dt.type(-1) - t
    c0 = _fma(_fma(m3a, x0, -m10a, fused), x0, -m8a, fused)
    x1 = dt.type(0) - t
    c1 = _fma(m3a2, x1, -m2a3, fused) * x1
    x2 = dt.type(1) - t
    c2 = _fma(p3a2, x2, -m2a3, fused) * x2
    x3 = two - t
    c3 = _fma(_fma(dt.type(3) * A, x3, -m10a, fused), x3, m8a, fused)
    return c0, c1, c2, c3


def _sample2d(inp, grid, mode, padding, align, gout=None, need_input=True):
    """The 4-D kernel: the output, or with ``gout`` the (input, grid) gradients."""
    dt = inp.dtype
    fused = dt not in HALF_TYPES
    N, C, H, W = inp.shape
    Ho, Wo = grid.shape[1:3]
    P = Ho * Wo
    bits = 8 * dt.itemsize if dt.itemsize >= 4 else 16
    axw, axh = _Axis(W, align, dt), _Axis(H, align, dt)
    gx = np.ascontiguousarray(grid[..., 0]).reshape(N, P)
    gy = np.ascontiguousarray(grid[..., 1]).reshape(N, P)
    flat = np.ascontiguousarray(inp).reshape(N, C, H * W)
    clamped = padding != "zeros"
    backward = gout is not None
    if backward:
        go = np.ascontiguousarray(gout).reshape(N, C, P)
    zero = dt.type(0)
    with np.errstate(all="ignore"):
        if mode == "bicubic":
            # the sums along x: the first multiply-add fused and the other two not, except for
            # a grid the kernel reads through strides (not one contiguous slice per batch), in
            # float64, or float32 with reflection padding: a fused chain (measured on whole
            # vectors; the last, partial vector of such a grid differs again, not reproduced)
            x_chain = fused and not _contiguous_slices(grid) and (
                dt == np.float64 or padding == "reflection")
            x = _v_unnormalize(gx, axw, fused)
            y = _v_unnormalize(gy, axh, fused)
            x0, y0 = np.floor(x), np.floor(y)
            tx, ty = x - x0, y - y0
            cx, cy = _cubic(tx, dt, fused), _cubic(ty, dt, fused)

            def read(i, j):  # (index, mask) of the tap (x0 - 1 + i, y0 - 1 + j)
                xx = _v_coords(x0 + dt.type(-1 + i), axw, padding, fused)
                yy = _v_coords(y0 + dt.type(-1 + j), axh, padding, fused)
                ix, iy = _to_int(xx, bits), _to_int(yy, bits)
                m = np.ones(ix.shape, bool) if clamped else \
                    (ix > -1) & (ix < W) & (iy > -1) & (iy < H)
                return np.where(m, iy * W + ix, 0), m
            taps = {i * 4 + j: read(i, j) for i in range(4) for j in range(4)}
            if not backward:
                # along x the first sum is fused, the others not; along y every multiply-add
                # is (measured)
                rows = []
                for j in range(4):
                    v = [_gather(flat, *taps[i * 4 + j]) for i in range(4)]
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
            gcx, gcy = _cubic_grad(tx, dt, fused), _cubic_grad(ty, dt, fused)
            ggx = np.zeros((N, P), dt)
            ggy = np.zeros((N, P), dt)
            contrib = []
            for c in range(C):
                g_c = go[:, c]
                for i in range(4):
                    for j in range(4):
                        idx, m = taps[i * 4 + j]
                        if need_input:
                            contrib.append((c, i * 4 + j, g_c * cx[i] * cy[j]))
                        val = _gather(flat[:, c:c + 1], idx, m)[:, 0]
                        vg = val * g_c
                        ggx = _fma(-(vg * gcx[i]), cy[j], ggx, fused)
                        ggy = _fma(-(vg * gcy[j]), cx[i], ggy, fused)
            ggx = ggx * axw.scale
            ggy = ggy * axh.scale
            gin = None
            if need_input:
                gin = _scatter_taps(inp.shape, dt, grid, P, contrib, taps, 16, C)
            return gin, np.stack([ggx, ggy], -1).reshape(grid.shape)

        if mode == "nearest":
            x = _v_location(gx, axw, padding, fused)
            y = _v_location(gy, axh, padding, fused)
            ix, iy = _to_int(np.rint(x), bits), _to_int(np.rint(y), bits)
            m = np.ones(ix.shape, bool) if clamped else \
                (ix > -1) & (ix < W) & (iy > -1) & (iy < H)
            if clamped:  # (a coordinate the backward's clip left NaN reads nothing)
                m &= (ix > -1) & (iy > -1)
            idx = np.where(m, iy * W + ix, 0)
            if not backward:
                return _gather(flat, idx, m).reshape(N, C, Ho, Wo)
            gin = None
            if need_input:
                taps = {0: (idx, m)}
                contrib = [(c, 0, go[:, c]) for c in range(C)]
                gin = _scatter_taps(inp.shape, dt, grid, P, contrib, taps, 1, C)
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
        ixw, iyn = _to_int(xw, bits), _to_int(yn, bits)
        if clamped:
            okx, oky = (ixw > -1), (iyn > -1)  # (only a NaN the backward kept fails these)
            mw, mn = okx, oky
            me, ms = okx & (ixw + 1 < W), oky & (iyn + 1 < H)
        else:
            mw, mn = _bounds(ixw, W, False), _bounds(iyn, H, False)
            me, ms = _bounds(ixw + 1, W, False), _bounds(iyn + 1, H, False)
        masks = (mw & mn, me & mn, mw & ms, me & ms)
        base = iyn * W + ixw  # (wraps where masked: never read)
        offs = (0, 1, W, W + 1)
        taps = {k: (np.where(masks[k], base + offs[k], 0), masks[k]) for k in range(4)}
        if not backward:
            vals = [_gather(flat, *taps[k]) for k in range(4)]
            out = vals[0] * weights[0][:, None]
            for k in range(1, 4):
                out = _fma(vals[k], weights[k][:, None], out, fused)
            return out.reshape(N, C, Ho, Wo)
        ggx = np.zeros((N, P), dt)
        ggy = np.zeros((N, P), dt)
        vals = [_gather(flat, *taps[k]) for k in range(4)]
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
            gin = _scatter_taps(inp.shape, dt, grid, P, contrib, taps, 4, C)
        return gin, np.stack([ggx, ggy], -1).reshape(grid.shape)


def _scatter_taps(shape, dt, grid, P, contrib, taps, ntaps, C):
    """The 4-D input gradient: ``contrib`` lists (channel, tap, values (N, P)); each position's
    contributions are added vector by vector, then by channel, tap and lane (the kernel's
    order)."""
    N = shape[0]
    chunk = _chunks(grid, P)
    # position order within the kernel's loops: (vector, tap, lane) for every channel
    key = (chunk[:, None] * ntaps + np.arange(ntaps)[None, :]).reshape(-1)  # (P * ntaps)
    order = np.argsort(key, kind="stable")
    idx = np.stack([taps[k][0] for k in range(ntaps)], -1).reshape(N, P * ntaps)
    mask = np.stack([taps[k][1] for k in range(ntaps)], -1).reshape(N, P * ntaps)
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
    t = dt.type
    N, C, D, H, W = inp.shape
    Do, Ho, Wo = grid.shape[1:4]
    P = Do * Ho * Wo
    g = [np.ascontiguousarray(grid[..., k]).reshape(N, P) for k in range(3)]
    flat = np.ascontiguousarray(inp).reshape(N, C, D * H * W)
    backward = gout is not None
    if backward:
        go = np.ascontiguousarray(gout).reshape(N, C, P)
    with np.errstate(all="ignore"):
        sizes = (W, H, D)
        if backward and mode == "bilinear":
            locs = [_s_location(g[k], sizes[k], padding, align, dt, grad=True) for k in range(3)]
            (ix, mx), (iy, my), (iz, mz) = locs
        else:
            ix, iy, iz = (_s_location(g[k], sizes[k], padding, align, dt) for k in range(3))
        if mode == "nearest":
            jx, jy, jz = (_to_int(np.rint(a), 64) for a in (ix, iy, iz))
            m = (jx > -1) & (jx < W) & (jy > -1) & (jy < H) & (jz > -1) & (jz < D)
            idx = np.where(m, (jz * H + jy) * W + jx, 0)
            if not backward:
                return _gather(flat, idx, m).reshape(N, C, Do, Ho, Wo)
            gin = None
            if need_input:
                gin = _scatter(inp.shape, dt, idx, go, m)
            return gin, np.zeros(grid.shape, dt)
        x0, y0, z0 = (_to_int(np.floor(a), 64) for a in (ix, iy, iz))
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
                sx, sy, sz = (t(1) if d else t(-1) for d in (dx, dy, dz))
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
