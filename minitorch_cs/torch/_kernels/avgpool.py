"""Average pooling kernels (``avg_pool2d``/``avg_pool3d`` and ``adaptive_avg_pool2d``/``3d``,
forward and backward): each window summed in torch's order from +0, and each gradient share
added into its window output by output, as torch's CPU kernels do; the argument rules are the
pooling helpers of ``conv`` (3-D: ``pool3d``). Adaptive max pooling's forward shares the
adaptive windows (its gradient is max pooling's scatter into the argmax positions). The
``*_nd`` kernels take (N, C, *spatial) arrays of any number of spatial dims."""
from __future__ import annotations

import itertools
import math

import numpy as np

from .conv import _as_float, _is_int, _pad_extent, _pad_hw, _pool_batch, _pool_params, _shape_str

__all__ = ["avg_pool2d_forward", "avg_pool2d_backward", "adaptive_avg_pool2d_forward",
           "adaptive_avg_pool2d_backward", "adaptive_max_pool2d_forward", "avg_pool_nd",
           "avg_pool_nd_backward", "adaptive_avg_nd", "adaptive_avg_nd_backward",
           "adaptive_max_nd"]


# ---------------------------------------------------------------------------
# average pooling
# ---------------------------------------------------------------------------

def _avg_divisor(size, k, s, p, out):
    """Per-output (pool_size, valid_count) along one dim, as in torch's kernel."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, size + p)
    pool = end - start
    valid = np.minimum(end, size) - np.maximum(start, 0)
    return pool, valid


def _avg_setup(x_shape, kernel_size, stride, padding, ceil_mode, divisor_override, dtype):
    xb, unb = _pool_batch(x_shape, "avg_pool2d")
    (kh, kw), (sh, sw), (ph, pw), _, ho, wo = _pool_params(
        xb, kernel_size, stride, padding, 1, ceil_mode, "avg_pool2d")
    if divisor_override is not None and int(divisor_override) == 0:
        raise RuntimeError("divisor must be not zero")
    return xb, unb, (kh, kw), (sh, sw), (ph, pw), ho, wo


def _avg_div(spatial, k, s, p, outs, count_include_pad, divisor_override, dtype):
    """Each output's divisor: the override, or the product of the per-dim window sizes (with
    the padding, or only the positions inside the input)."""
    if divisor_override is not None:
        return np.asarray(divisor_override, dtype=dtype)
    counts = [_avg_divisor(n, ki, si, pi, o)[0 if count_include_pad else 1]
              for n, ki, si, pi, o in zip(spatial, k, s, p, outs)]
    div = counts[0]
    for c in counts[1:]:
        div = np.multiply.outer(div, c)
    return div.astype(dtype)


def _views(shape, k, s, outs):
    """(kernel offset, the strided index of every window's element at that offset), offsets
    row-major."""
    spans = [(o - 1) * si + 1 for o, si in zip(outs, s)]
    for off in itertools.product(*(range(ki) for ki in k)):
        yield off, (slice(None), slice(None)) + tuple(
            slice(i, i + span, si) for i, span, si in zip(off, spans, s))


def avg_pool_nd(x, k, s, p, outs, count_include_pad=True, divisor_override=None):
    """Average pooling of ``x`` (N, C, *spatial; floating, or int64 summed in int64 -- wrapping,
    as C does -- and divided with truncation toward zero, as torch's integer kernel) to
    ``outs``: each window summed from +0 in row-major order (padded zeros add nothing)."""
    spatial = x.shape[2:]
    xp = _pad_hw(x, [(pi, _pad_extent(n, pi, ki, si, 1, o))
                     for n, ki, si, pi, o in zip(spatial, k, s, p, outs)])
    y = None
    for off, idx in _views(xp.shape, k, s, outs):
        if y is None:  # (from +0: a window of -0.0 sums to 0.0)
            y = xp[idx] + np.zeros((), x.dtype)
        else:
            y += xp[idx]
    div = _avg_div(spatial, k, s, p, outs, count_include_pad, divisor_override, x.dtype)
    if x.dtype == np.int64:
        q = y // div  # floor, then toward zero where the division is inexact and negative
        return q + ((y % div != 0) & ((y < 0) != (div < 0)))
    y /= div
    return y


def avg_pool_nd_backward(gy, x_shape, k, s, p, count_include_pad=True, divisor_override=None,
                         rounding=None):
    """Gradient of :func:`avg_pool_nd` w.r.t. its input (``x_shape`` batched); ``rounding``: a
    function rounding to the half dtype whose arithmetic torch's kernel accumulates in (each
    share and each sum)."""
    r = rounding or _exact
    spatial, outs = x_shape[2:], gy.shape[2:]
    g = r(gy / _avg_div(spatial, k, s, p, outs, count_include_pad, divisor_override, gy.dtype))
    pads = [(pi, _pad_extent(n, pi, ki, si, 1, o))
            for n, ki, si, pi, o in zip(spatial, k, s, p, outs)]
    gxp = np.zeros(tuple(x_shape[:2]) + tuple(n + lo + hi for n, (lo, hi) in
                                              zip(spatial, pads)), dtype=g.dtype)
    # torch adds each output's share into its window output by output (row-major): an input
    # cell meets the windows covering it in that order when the offsets run backwards
    for off, idx in reversed(list(_views(gxp.shape, k, s, outs))):
        view = gxp[idx]
        view[...] = r(view + g)
    return np.ascontiguousarray(gxp[(slice(None), slice(None)) + tuple(
        slice(lo, lo + n) for n, (lo, _) in zip(spatial, pads))])


def avg_pool2d_forward(x, kernel_size, stride=None, padding=0, ceil_mode=False,
                       count_include_pad=True, divisor_override=None):
    """torch.nn.functional.avg_pool2d (:func:`avg_pool_nd`)."""
    x = np.asarray(x)
    if x.dtype != np.int64:
        x = _as_float(x)
    xb, unb, k, s, p, ho, wo = _avg_setup(x.shape, kernel_size, stride, padding, ceil_mode,
                                          divisor_override, x.dtype)
    y = avg_pool_nd(x.reshape(xb), k, s, p, (ho, wo), count_include_pad, divisor_override)
    return y[0] if unb else y


def avg_pool2d_backward(gy, x_shape, kernel_size, stride=None, padding=0, ceil_mode=False,
                        count_include_pad=True, divisor_override=None, rounding=None):
    """Gradient of avg_pool2d_forward w.r.t. its input (:func:`avg_pool_nd_backward`)."""
    gy = _as_float(gy)
    xb, unb, k, s, p, ho, wo = _avg_setup(x_shape, kernel_size, stride, padding, ceil_mode,
                                          divisor_override, gy.dtype)
    gx = avg_pool_nd_backward(gy.reshape(xb[:2] + (ho, wo)), xb, k, s, p, count_include_pad,
                              divisor_override, rounding)
    return gx[0] if unb else gx


# ---------------------------------------------------------------------------
# adaptive average pooling
# ---------------------------------------------------------------------------

def _adaptive_out(x_shape, output_size):
    if _is_int(output_size):
        out = (int(output_size), int(output_size))
    else:
        out = tuple(output_size)
        if len(out) == 1:
            out = (out[0], out[0])
        if len(out) != 2:
            raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    oh = x_shape[-2] if out[0] is None else int(out[0])
    ow = x_shape[-1] if out[1] is None else int(out[1])
    if oh < 0 or ow < 0:
        raise RuntimeError(
            "adaptive_avg_pool2d: elements of output_size must be greater than or equal "
            f"to 0 but received {{{oh}, {ow}}}")
    return oh, ow


def _adaptive_check(x_shape, name="adaptive_avg_pool2d"):
    x_shape = tuple(int(v) for v in x_shape)
    if len(x_shape) not in (3, 4):
        colon = ":" if name == "adaptive_max_pool2d" else ""  # (torch's two wordings)
        raise RuntimeError(f"{name}(): Expected 3D or 4D tensor, but got{colon} "
                           f"{_shape_str(x_shape)}")
    for d in range(1, len(x_shape)):
        if x_shape[d] == 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {_shape_str(x_shape)} with dimension {d} "
                "being empty")
    return x_shape


def _adaptive_bins(size, out):
    """torch's bins along one dim: starts ``floor(i*S/O)``, ends ``ceil((i+1)*S/O)``."""
    i = np.arange(out)
    start = (i * size) // out
    end = ((i + 1) * size + out - 1) // out
    return start, end


def _grid(vectors):
    """Per-dim vectors shaped to broadcast over the output grid (the first dim outermost)."""
    n = len(vectors)
    return tuple(np.asarray(v).reshape((-1,) + (1,) * (n - 1 - i)) for i, v in enumerate(vectors))


def _adaptive_offsets(shape, outs):
    """Per window offset (row-major, up to the largest window): the input positions it reads
    for every output (per dim, clipped inside) and the mask of outputs whose window has it."""
    nsp = len(outs)
    bins = [_adaptive_bins(n, o) for n, o in zip(shape[-nsp:], outs)]
    sizes = [e - b for b, e in bins]
    for off in itertools.product(*(range(int(k.max())) for k in sizes)):
        idx = _grid([np.minimum(b + o, n - 1) for (b, _), o, n in zip(bins, off,
                                                                        shape[-nsp:])])
        has = np.logical_and.reduce(np.broadcast_arrays(*_grid([o < k for o, k in
                                                                zip(off, sizes)])))
        yield idx, has


def _exact(v):
    return v


def _adaptive_divisors(shape, outs, dtype):
    """The window sizes per dim, shaped for the output grid, in ``dtype``."""
    nsp = len(outs)
    return _grid([(e - b).astype(dtype) for b, e in
                  (_adaptive_bins(n, o) for n, o in zip(shape[-nsp:], outs))])


def adaptive_avg_nd(x, outs, rounding=None):
    """Adaptive average pooling of the last ``len(outs)`` dims of ``x`` (nonempty): each window
    summed from +0 in row-major order, divided by its size along each dim in turn (torch's
    kernel); ``rounding``: the half dtype's rounding, applied to each sum and quotient (torch's
    3-D kernel computes in the half dtype itself)."""
    r = rounding or _exact
    nsp = len(outs)
    out, zero = np.zeros(x.shape[:-nsp] + tuple(outs), x.dtype), np.zeros((), x.dtype)
    for idx, has in _adaptive_offsets(x.shape, outs):
        v = np.where(has, x[(Ellipsis,) + idx], zero)
        if rounding is None:
            out += v
        else:
            out = r(out + v)
    for div in _adaptive_divisors(x.shape, outs, x.dtype):
        out = r(out / div)
    return out


def adaptive_avg_nd_backward(gy, x_shape, outs, rounding=None):
    """Gradient of :func:`adaptive_avg_nd`: torch adds each output's ``grad`` divided by the
    window's size along each dim in turn into its window, output by output in row-major order
    (in the half dtype's arithmetic ``rounding`` rounds to, when given)."""
    r = rounding or _exact
    nsp = len(outs)
    out = np.zeros(x_shape, dtype=gy.dtype)
    if 0 in outs or gy.size == 0:
        return out
    delta = gy
    for div in _adaptive_divisors(x_shape, outs, gy.dtype):
        delta = r(delta / div)
    spatial = x_shape[-nsp:]
    if any(o > n for o, n in zip(outs, spatial)):  # windows share a start: one window at a
        bins = [_adaptive_bins(n, o) for n, o in zip(spatial, outs)]  # time, in torch's order
        for pos in itertools.product(*(range(o) for o in outs)):
            win = out[(Ellipsis,) + tuple(slice(b[i], e[i]) for (b, e), i in zip(bins, pos))]
            win[...] = r(win + delta[(Ellipsis,) + tuple(slice(i, i + 1) for i in pos)])
        return out
    zero = np.zeros((), gy.dtype)  # (each offset's positions are distinct; an input cell
    # meets the windows covering it in row-major order when the offsets run backwards)
    for idx, has in reversed(list(_adaptive_offsets(x_shape, outs))):
        idx = (Ellipsis,) + idx
        out[idx] = r(out[idx] + np.where(has, delta, zero))
    return out


def adaptive_max_nd(x, outs):
    """Adaptive max pooling of the last ``len(outs)`` dims of ``x``: each window's largest
    value and its flat offset in the plane (H*W, D*H*W), read in row-major order as torch's
    kernel does: a larger value replaces the current one, a tie keeps the first, and every
    NaN replaces it (so the last NaN wins); a window of -inf keeps its first offset."""
    nsp = len(outs)
    spatial = x.shape[-nsp:]
    out_shape = x.shape[:-nsp] + tuple(outs)
    if 0 in outs or x.size == 0:
        return np.zeros(out_shape, x.dtype), np.zeros(out_shape, np.int64)
    strides = [math.prod(spatial[i + 1:]) for i in range(nsp)]
    starts = _grid([_adaptive_bins(n, o)[0] for n, o in zip(spatial, outs)])
    best = np.full(out_shape, -np.inf, x.dtype)
    where = np.broadcast_to(sum(b * st for b, st in zip(starts, strides)), out_shape).copy()
    for idx, has in _adaptive_offsets(x.shape, outs):
        val = x[(Ellipsis,) + idx]
        take = has & ((val > best) | np.isnan(val))
        best = np.where(take, val, best)
        where = np.where(take, sum(i * st for i, st in zip(idx, strides)), where)
    return best, where


def adaptive_avg_pool2d_forward(x, output_size):
    """torch.nn.functional.adaptive_avg_pool2d: each window summed from +0 row by row, divided
    by its height, then its width (torch's kernel); to 1x1 it is torch's mean over both dims."""
    x = _as_float(x)
    shape = _adaptive_check(x.shape)
    oh, ow = _adaptive_out(shape, output_size)
    h, wd = shape[-2], shape[-1]
    if oh == 0 or ow == 0 or x.size == 0:
        return np.zeros(shape[:-2] + (oh, ow), dtype=x.dtype)
    if oh == 1 and ow == 1:
        return np.add.reduce(x, axis=(-2, -1), keepdims=True) / (h * wd)  # (np.mean's sum)
    return adaptive_avg_nd(x, (oh, ow))


def adaptive_avg_pool2d_backward(gy, x_shape, output_size, rounding=None):
    """Gradient of adaptive_avg_pool2d_forward w.r.t. its input (:func:`adaptive_avg_nd_backward`
    in the half dtype's arithmetic ``rounding`` rounds to, when given)."""
    gy = _as_float(gy)
    shape = _adaptive_check(x_shape)
    return adaptive_avg_nd_backward(gy, shape, _adaptive_out(shape, output_size), rounding)


def adaptive_max_pool2d_forward(x, oh, ow):
    """torch.nn.functional.adaptive_max_pool2d to ``(oh, ow)`` (:func:`adaptive_max_nd`)."""
    _adaptive_check(x.shape, "adaptive_max_pool2d")
    return adaptive_max_nd(x, (oh, ow))
