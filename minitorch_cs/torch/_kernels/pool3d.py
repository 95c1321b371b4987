"""Volumetric pooling kernels: ``max_pool3d``, ``avg_pool3d``, ``adaptive_avg_pool3d`` and
``adaptive_max_pool3d`` over (N, C, D, H, W) or unbatched (C, D, H, W) arrays.

The windows are the n-d kernels of ``conv`` (max pooling) and ``avgpool`` (average and
adaptive pooling), the 2-D kernels' own, with three spatial dims; this module holds torch's
3-D argument rules and messages, in its order of checks:

* max_pool3d / avg_pool3d: the argument lists' lengths (one int or three), the input's rank,
  (avg: a zero ``divisor_override``), each dim's output size (``pooling_output_shape``: a zero
  stride, a negative padding, a padding beyond half the dilated kernel), then
  ``pool3d_shape_check``: positive kernel, stride and dilation, no empty non-batch dim, (avg:
  an input at least the kernel's size), a padding at most half the kernel, an output of at
  least one element per dim;
* the adaptive pools: the output size's length and sign, then the input's rank and empty
  dims (avg_pool3d checks the empty dims first, max_pool3d the rank).

Dtypes (torch 2.13's CPU kernels): max pooling takes every real dtype but bool; average
pooling floating dtypes and int64, no float16/bfloat16 (``"avg_pool3d_out_frame" not
implemented``); the adaptive pools floating dtypes, half ones included (computed in the half
dtype's own arithmetic: the callers pass its rounding).
"""
from __future__ import annotations

import numpy as np

from .avgpool import (adaptive_avg_nd, adaptive_avg_nd_backward, adaptive_max_nd, avg_pool_nd,
                      avg_pool_nd_backward)
from .conv import _as_float, _is_int, _shape_str, max_pool_nd, pool_output_size

__all__ = ["pool3d_params", "max_pool3d_forward", "avg_pool3d_args", "avg_pool3d_forward",
           "avg_pool3d_backward", "adaptive3d_output", "adaptive3d_check",
           "adaptive_avg_pool3d_forward", "adaptive_avg_pool3d_backward",
           "adaptive_max_pool3d_forward"]

# the wording of each op's list-length checks (torch's two kernels phrase them differently)
_LISTS = {
    "max_pool3d": {"kernel_size": "must either be a single int, or a tuple of three ints",
                   "stride": "must either be omitted, a single int, or a tuple of three ints",
                   "padding": "must either be a single int, or a tuple of three ints",
                   "dilation": "must be either a single int, or a tuple of three ints"},
    "avg_pool3d": {"kernel_size": "must be a single int, or a tuple of three ints",
                   "stride": "must be omitted, a single int, or a tuple of three ints",
                   "padding": "must be a single int, or a tuple of three ints"},
}


def _triple(value, name, op, default=None):
    """One int for all three dims, or three ints (``default`` for an omitted or empty one)."""
    if value is None or (not _is_int(value) and len(value) == 0 and default is not None):
        return default
    vals = (int(value),) if _is_int(value) else tuple(int(v) for v in value)
    if len(vals) not in (1, 3):
        raise RuntimeError(f"{op}: {name} {_LISTS[op][name]}")
    return vals * 3 if len(vals) == 1 else vals


def pool3d_params(kernel_size, stride, padding, dilation, op):
    """The (kernel, stride, padding, dilation) triples of a 3-D pool (torch's list checks)."""
    k = _triple(kernel_size, "kernel_size", op)
    s = _triple(stride, "stride", op, default=k)
    p = _triple(padding, "padding", op)
    d = _triple(dilation, "dilation", op) if op == "max_pool3d" else (1, 1, 1)
    return k, s, p, d


def _batched(x_shape):
    x_shape = tuple(int(v) for v in x_shape)
    if len(x_shape) not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    return x_shape


def _pool3d_check(x_shape, k, s, p, d, ceil_mode, fn_name, input_size=False):
    """Each dim's output size, then torch's ``pool3d_shape_check``; the output sizes."""
    outs = tuple(pool_output_size(n, ki, pi, si, di, ceil_mode)
                 for n, ki, si, pi, di in zip(x_shape[-3:], k, s, p, d))
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {k[0]} kH: "
                           f"{k[1]} kW: {k[2]}")
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {s[0]} dH: {s[1]} "
                           f"dW: {s[2]}")
    if min(d) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {d[0]} "
                           f"dilationH: {d[1]} dilationW: {d[2]}")
    for i, n in enumerate(x_shape):
        if n <= 0 and not (len(x_shape) == 5 and i == 0):  # (torch prints the size, 0)
            raise RuntimeError(f"{fn_name}: Expected input's non-batch dimensions to have "
                               f"positive length, but input has a shape of "
                               f"{_shape_str(x_shape)} and non-batch dimension {n} has length "
                               "zero!")
    t, h, w = x_shape[-3:]
    if input_size and (t < k[0] or h < k[1] or w < k[2]):
        raise RuntimeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size "
                           f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    if not all(ki // 2 >= pi for ki, pi in zip(k, p)):
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                           f"kT: {k[0]} kW: {k[2]} kH: {k[1]} padT: {p[0]} padW: {p[2]} "
                           f"padH: {p[1]}")
    if min(outs) < 1:
        c = x_shape[-4]
        raise RuntimeError(f"Given input size: ({c}x{t}x{h}x{w}). Calculated output size: "
                           f"({c}x{outs[0]}x{outs[1]}x{outs[2]}). Output size is too small")
    return outs


def _as_batch(x):
    return (x[None], True) if x.ndim == 4 else (x, False)


# ---------------------------------------------------------------------------
# max and average pooling
# ---------------------------------------------------------------------------

def max_pool3d_forward(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """torch.nn.functional.max_pool3d(..., return_indices=True): the maxima and the int64 flat
    offsets of the winners in each D*H*W volume (the first of equal values, the last NaN)."""
    x = np.asarray(x)
    k, s, p, d = pool3d_params(kernel_size, stride, padding, dilation, "max_pool3d")
    shape = _batched(x.shape)
    outs = _pool3d_check(shape, k, s, p, d, ceil_mode,
                         "max_pool3d_with_indices_out_cpu_template()")
    xb, unb = _as_batch(x)
    y, idx = max_pool_nd(xb, k, s, p, d, outs, "max_pool3d")
    return (y[0], idx[0]) if unb else (y, idx)


def avg_pool3d_args(x_shape, kernel_size, stride, padding, ceil_mode, divisor_override):
    """torch's argument checks of avg_pool3d (its dtype is the caller's to check, after these):
    the kernel, stride and padding triples."""
    k, s, p, _ = pool3d_params(kernel_size, stride, padding, 1, "avg_pool3d")
    shape = _batched(x_shape)
    if divisor_override is not None and int(divisor_override) == 0:
        raise RuntimeError("divisor must be not zero")
    _pool3d_check(shape, k, s, p, (1, 1, 1), ceil_mode, "avg_pool3d()", input_size=True)
    return k, s, p


def avg_pool3d_forward(x, kernel_size, stride=None, padding=0, ceil_mode=False,
                       count_include_pad=True, divisor_override=None):
    """torch.nn.functional.avg_pool3d: each window summed from +0 in (t, h, w) order and divided
    by its size (with the padding, or without: ``count_include_pad=False``) or by
    ``divisor_override``; an int64 input sums in int64 and divides with C's truncation."""
    x = np.asarray(x)
    k, s, p = avg_pool3d_args(x.shape, kernel_size, stride, padding, ceil_mode, divisor_override)
    xb, unb = _as_batch(x)
    outs = tuple(pool_output_size(n, ki, pi, si, 1, ceil_mode)
                 for n, ki, si, pi in zip(xb.shape[2:], k, s, p))
    y = avg_pool_nd(xb, k, s, p, outs, count_include_pad, divisor_override)
    return y[0] if unb else y


def avg_pool3d_backward(gy, x_shape, kernel_size, stride=None, padding=0, ceil_mode=False,
                        count_include_pad=True, divisor_override=None):
    """Gradient of avg_pool3d_forward w.r.t. its input: each output's share (its gradient over
    its divisor) added into its window, output by output in (t, h, w) order."""
    gy = _as_float(gy)
    k, s, p = avg_pool3d_args(x_shape, kernel_size, stride, padding, ceil_mode, divisor_override)
    unb = len(x_shape) == 4
    xb = ((1,) if unb else ()) + tuple(int(v) for v in x_shape)
    gx = avg_pool_nd_backward(gy.reshape(xb[:2] + gy.shape[-3:]), xb, k, s, p,
                              count_include_pad, divisor_override)
    return gx[0] if unb else gx


# ---------------------------------------------------------------------------
# adaptive pooling
# ---------------------------------------------------------------------------

def adaptive3d_output(output_size, name):
    """The output size as torch's kernel reads it: three sizes (one int for all), none
    negative (adaptive_avg_pool3d's checks; adaptive_max_pool3d's come with the input's)."""
    out = (int(output_size),) * 3 if _is_int(output_size) else tuple(output_size)
    if name == "adaptive_avg_pool3d":
        if len(out) != 3:
            raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
        if min(out) < 0:
            raise RuntimeError("adaptive_avg_pool3d: elements of output_size must be greater "
                               f"than or equal to 0 but received {{{out[0]}, {out[1]},"
                               f"{out[2]}}}")
    return out


def adaptive3d_check(x_shape, out, name):
    """torch's checks of the input (and, for adaptive_max_pool3d, of the output size)."""
    x_shape = tuple(int(v) for v in x_shape)

    def rank():
        if len(x_shape) not in (4, 5):
            colon = ":" if name == "adaptive_max_pool3d" else ""  # (torch's two wordings)
            raise RuntimeError(f"{name}(): Expected 4D or 5D tensor, but got{colon} "
                               f"{_shape_str(x_shape)}")

    if name == "adaptive_max_pool3d":
        rank()
    for i in range(1, len(x_shape)):
        if x_shape[i] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {_shape_str(x_shape)} with "
                               f"dimension {i} being empty")
    if name == "adaptive_avg_pool3d":
        rank()
    else:
        if len(out) != 3:
            raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must "
                               "be 3")
        if min(out) < 0:
            shape = list(x_shape[:-3]) + list(out)
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: "
                               f"{shape}")


def adaptive_avg_pool3d_forward(x, output_size, rounding=None):
    """torch.nn.functional.adaptive_avg_pool3d (not to (1, 1, 1), which torch computes as a
    mean): each window summed from +0 in (t, h, w) order, divided by its depth, height and
    width in turn; ``rounding``: the half dtype's (torch computes in it)."""
    out = adaptive3d_output(output_size, "adaptive_avg_pool3d")
    adaptive3d_check(x.shape, out, "adaptive_avg_pool3d")
    if 0 in out or x.size == 0:
        return np.zeros(x.shape[:-3] + out, x.dtype)
    return adaptive_avg_nd(x, out, rounding)


def adaptive_avg_pool3d_backward(gy, x_shape, output_size, rounding=None):
    """Gradient of adaptive_avg_pool3d_forward: each output's gradient divided by its window's
    depth, height and width in turn, added into the window output by output."""
    return adaptive_avg_nd_backward(_as_float(gy), tuple(int(v) for v in x_shape),
                                    adaptive3d_output(output_size, "adaptive_avg_pool3d"),
                                    rounding)


def adaptive_max_pool3d_forward(x, output_size):
    """torch.nn.functional.adaptive_max_pool3d(..., return_indices=True): each window's largest
    value (the first of equal ones, the last NaN) and its int64 offset in the D*H*W volume."""
    out = (int(output_size),) * 3 if _is_int(output_size) else tuple(output_size)
    adaptive3d_check(x.shape, out, "adaptive_max_pool3d")
    return adaptive_max_nd(x, out)
