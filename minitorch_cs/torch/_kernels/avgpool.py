"""Average pooling kernels (``avg_pool2d`` and ``adaptive_avg_pool2d``, forward and backward):
each window summed in torch's order from +0, and each gradient share added into its window
output by output, as torch's CPU kernels do; the argument rules are the pooling helpers of
``conv``. Adaptive max pooling's forward shares the adaptive windows (its gradient is max
pooling's scatter into the argmax positions)."""
from __future__ import annotations

import numpy as np

from .conv import _as_float, _is_int, _pad_extent, _pad_hw, _pool_batch, _pool_params, _shape_str

__all__ = ["avg_pool2d_forward", "avg_pool2d_backward", "adaptive_avg_pool2d_forward",
           "adaptive_avg_pool2d_backward", "adaptive_max_pool2d_forward"]


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


def _avg_div(xb, k, s, p, ho, wo, count_include_pad, divisor_override, dtype):
    if divisor_override is not None:
        return np.asarray(divisor_override, dtype=dtype)
    ph_, vh = _avg_divisor(xb[2], k[0], s[0], p[0], ho)
    pw_, vw = _avg_divisor(xb[3], k[1], s[1], p[1], wo)
    if count_include_pad:
        div = ph_[:, None] * pw_[None, :]
    else:
        div = vh[:, None] * vw[None, :]
    return div.astype(dtype)


def avg_pool2d_forward(x, kernel_size, stride=None, padding=0, ceil_mode=False,
                       count_include_pad=True, divisor_override=None):
    """torch.nn.functional.avg_pool2d. An int64 input sums in int64 (wrapping, as C does) and
    divides with truncation toward zero, as torch's integer kernel."""
    x = np.asarray(x)
    if x.dtype != np.int64:
        x = _as_float(x)
    xb, unb, (kh, kw), (sh, sw), (ph, pw), ho, wo = _avg_setup(
        x.shape, kernel_size, stride, padding, ceil_mode, divisor_override, x.dtype)
    n, c, h, wd = xb
    pb = _pad_extent(h, ph, kh, sh, 1, ho)
    pr = _pad_extent(wd, pw, kw, sw, 1, wo)
    xp = _pad_hw(x.reshape(xb), ((ph, pb), (pw, pr)))
    hspan = (ho - 1) * sh + 1
    wspan = (wo - 1) * sw + 1
    # each window summed in torch's order: from +0 (a window of -0.0 sums to 0.0), row by row,
    # left to right within a row
    y = xp[:, :, 0:hspan:sh, 0:wspan:sw] + np.zeros((), x.dtype)
    for i in range(kh):
        for j in range(kw):
            if i or j:
                y += xp[:, :, i:i + hspan:sh, j:j + wspan:sw]
    div = _avg_div(xb, (kh, kw), (sh, sw), (ph, pw), ho, wo, count_include_pad,
                   divisor_override, x.dtype)
    if x.dtype == np.int64:
        q = y // div  # floor, then toward zero where the division is inexact and negative
        y = q + ((y % div != 0) & ((y < 0) != (div < 0)))
    else:
        y /= div
    return y[0] if unb else y


def avg_pool2d_backward(gy, x_shape, kernel_size, stride=None, padding=0, ceil_mode=False,
                        count_include_pad=True, divisor_override=None, rounding=None):
    """Gradient of avg_pool2d_forward w.r.t. its input; ``rounding``: a function rounding to the
    half dtype whose arithmetic torch's kernel accumulates in (each share and each sum)."""
    r = rounding or _exact
    gy = _as_float(gy)
    xb, unb, (kh, kw), (sh, sw), (ph, pw), ho, wo = _avg_setup(
        x_shape, kernel_size, stride, padding, ceil_mode, divisor_override, gy.dtype)
    n, c, h, wd = xb
    g = r(gy.reshape(n, c, ho, wo) / _avg_div(xb, (kh, kw), (sh, sw), (ph, pw), ho, wo,
                                              count_include_pad, divisor_override, gy.dtype))
    pb = _pad_extent(h, ph, kh, sh, 1, ho)
    pr = _pad_extent(wd, pw, kw, sw, 1, wo)
    hp, wp = h + ph + pb, wd + pw + pr
    hspan = (ho - 1) * sh + 1
    wspan = (wo - 1) * sw + 1
    # torch adds each output's share into its window output by output (row-major): an input
    # cell meets the windows covering it in that order when the offsets run backwards
    gxp = np.zeros((n, c, hp, wp), dtype=g.dtype)
    for i in reversed(range(kh)):
        for j in reversed(range(kw)):
            view = gxp[:, :, i:i + hspan:sh, j:j + wspan:sw]
            view[...] = r(view + g)
    gx = np.ascontiguousarray(gxp[:, :, ph:ph + h, pw:pw + wd])
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


def _adaptive_offsets(shape, oh, ow):
    """Per window offset (row-major, up to the largest window): the input rows and columns it
    reads for every output (clipped inside) and the mask of outputs whose window has it."""
    (sh, eh), (sw, ew) = _adaptive_bins(shape[-2], oh), _adaptive_bins(shape[-1], ow)
    kh, kw = eh - sh, ew - sw
    for di in range(int(kh.max())):
        for dj in range(int(kw.max())):
            yield (np.minimum(sh + di, shape[-2] - 1), np.minimum(sw + dj, shape[-1] - 1),
                   (di < kh)[:, None] & (dj < kw)[None, :])


def _exact(v):
    return v


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
    out, zero = np.zeros(shape[:-2] + (oh, ow), x.dtype), np.zeros((), x.dtype)
    for rows, cols, has in _adaptive_offsets(shape, oh, ow):
        out += np.where(has, x[..., rows[:, None], cols[None, :]], zero)
    (sh, eh), (sw, ew) = _adaptive_bins(h, oh), _adaptive_bins(wd, ow)
    return out / (eh - sh).astype(x.dtype)[:, None] / (ew - sw).astype(x.dtype)[None, :]


def adaptive_avg_pool2d_backward(gy, x_shape, output_size, rounding=None):
    """Gradient of adaptive_avg_pool2d_forward w.r.t. its input: torch adds each output's
    ``grad / height / width`` into its window, output by output in row-major order (in the
    half dtype's arithmetic ``rounding`` rounds to, when given)."""
    r = rounding or _exact
    gy = _as_float(gy)
    shape = _adaptive_check(x_shape)
    oh, ow = _adaptive_out(shape, output_size)
    h, wd = shape[-2], shape[-1]
    out = np.zeros(shape, dtype=gy.dtype)
    if oh == 0 or ow == 0 or gy.size == 0:
        return out
    (sh, eh), (sw, ew) = _adaptive_bins(h, oh), _adaptive_bins(wd, ow)
    delta = r(r(gy / (eh - sh).astype(gy.dtype)[:, None]) / (ew - sw).astype(gy.dtype)[None, :])
    if oh > h or ow > wd:  # windows share a start: one window at a time, in torch's order
        for i in range(oh):
            for j in range(ow):
                win = out[..., sh[i]:eh[i], sw[j]:ew[j]]
                win[...] = r(win + delta[..., i:i + 1, j:j + 1])
        return out
    zero = np.zeros((), gy.dtype)  # (each offset's rows and columns are distinct; an input
    # cell meets the windows covering it in row-major order when the offsets run backwards)
    for rows, cols, has in reversed(list(_adaptive_offsets(shape, oh, ow))):
        idx = (Ellipsis, rows[:, None], cols[None, :])
        out[idx] = r(out[idx] + np.where(has, delta, zero))
    return out


def adaptive_max_pool2d_forward(x, oh, ow):
    """torch.nn.functional.adaptive_max_pool2d to ``(oh, ow)``: each window's largest value and
    its flat offset in the H*W plane, read row by row as torch's kernel does: a larger value
    replaces the current one, a tie keeps the first, and every NaN replaces it (so the last NaN
    wins); a window of -inf keeps its first offset."""
    shape = _adaptive_check(x.shape, "adaptive_max_pool2d")
    h, wd = shape[-2], shape[-1]
    out_shape = shape[:-2] + (oh, ow)
    if oh == 0 or ow == 0 or x.size == 0:
        return np.zeros(out_shape, x.dtype), np.zeros(out_shape, np.int64)
    (sh, _), (sw, _) = _adaptive_bins(h, oh), _adaptive_bins(wd, ow)
    best = np.full(out_shape, -np.inf, x.dtype)
    where = np.broadcast_to(sh[:, None] * wd + sw[None, :], out_shape).copy()
    for rows, cols, has in _adaptive_offsets(shape, oh, ow):
        val = x[..., rows[:, None], cols[None, :]]
        take = has & ((val > best) | np.isnan(val))
        best = np.where(take, val, best)
        where = np.where(take, rows[:, None] * wd + cols[None, :], where)
    return best, where
