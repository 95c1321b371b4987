"""Vectorized numpy kernels for convolution and pooling (forward and backward).

Pure functions on ``np.ndarray``: no Tensor class, no autograd.  Layout is
NCHW (NCL for 1d), weights are ``(C_out, C_in // groups, kH, kW)`` exactly as
in PyTorch.  Unbatched inputs (``(C, H, W)`` for the 2d ops, ``(C, L)`` for the
1d ops) are accepted and give unbatched outputs, like torch.  The convolution
kernels (``_conv_fwd``/``_conv_bwd_*``) and max pooling's (``max_pool_nd``) take
any number of spatial dims: ``conv3d`` and ``pool3d`` run them over (D, H, W).

Implementation notes
--------------------
* Convolution uses im2col: a strided window view of the padded input
  (``sliding_window_view``) is gathered once into a column matrix and
  contracted with the weight by a (batched) matmul.  The backward w.r.t. the
  input multiplies by the transposed weight and scatters the columns back with
  a loop over the ``kH * kW`` kernel offsets (each iteration is a strided slice
  add over the whole batch, so there is no loop over output positions).
* Max pooling runs a loop over kernel offsets keeping a running max and the
  offset of the winner, which reproduces torch's CPU rule exactly
  (``val > max or isnan(val)``: first maximum wins, the last NaN wins, a
  window of only ``-inf`` reports its first in-bounds element).
* Average pooling is separable: window sums along H then along W.
* Adaptive average pooling uses exact pooling matrices: ``y = P_h @ x @ P_w^T``.
* Results keep the input floating dtype (float32 stays float32).

Known deviations from torch (all on invalid or degenerate input)
----------------------------------------------------------------
* Mixed float dtypes are promoted (``np.result_type``) instead of raising;
  integer inputs to conv / avg / adaptive pooling are computed in float64.
* A weight of the wrong rank raises "weight should have 4 dimensions for
  conv2d, ..." (torch complains about the stride list length instead).
* dilation=0 raises the message of torch's generic CPU path ("dilation should
  be greater than zero, but got [0, 0]"); torch's mkldnn path words it
  "non-positive dilation is not supported".
* avg_pool2d on a 2-D input raises RuntimeError (torch raises IndexError).
* max_pool2d windows lying entirely in the padding (possible with dilation)
  get torch's -inf value and torch's index; in the backward an index that
  falls outside the H*W plane is dropped (torch's CPU kernel writes it into
  the next plane).
* Summation order differs, so float results agree to rounding, not bitwise.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from . import conv_rows
from .select import max_first

__all__ = [
    "conv2d_forward",
    "conv2d_backward_input",
    "conv2d_backward_weight",
    "conv1d_forward",
    "conv1d_backward_input",
    "conv1d_backward_weight",
    "max_pool2d_forward",
    "max_pool2d_backward",
    "max_pool_nd",
    "pool_windows_disjoint",
    "conv_output_size",
    "conv_transpose_forward",
    "conv_transpose_backward_input",
    "conv_transpose_backward_weight",
    "conv_transpose_output_size",
    "pool_output_size",
]


# ---------------------------------------------------------------------------
# argument helpers
# ---------------------------------------------------------------------------

def _shape_str(shape) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _conv_tuple(value, n: int, name: str) -> tuple:
    """Normalise a conv int-or-sequence argument to an n-tuple (torch wording)."""
    if _is_int(value):
        return (int(value),) * n
    vals = [int(v) for v in value]
    if len(vals) == 1:
        return (vals[0],) * n
    if len(vals) != n:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {n} values "
            f"to match the convolution dimensions, but got {name}={_shape_str(vals)}")
    return tuple(vals)


def _pool_tuple(value, name: str, op: str) -> tuple:
    """Normalise a pooling int-or-pair argument to a 2-tuple (torch wording)."""
    if _is_int(value):
        return (int(value), int(value))
    vals = [int(v) for v in value]
    if len(vals) == 1:
        return (vals[0], vals[0])
    if len(vals) != 2:
        raise RuntimeError(
            f"{op}: {name} must either be a single int, or a tuple of two ints")
    return tuple(vals)


def _float_dtype(*arrays) -> np.dtype:
    dt = np.result_type(*arrays)
    if not np.issubdtype(dt, np.inexact):
        dt = np.dtype(np.float64)
    return dt


def _as_float(a) -> np.ndarray:
    a = np.asarray(a)
    if not np.issubdtype(a.dtype, np.inexact):
        a = a.astype(np.float64)
    return a


def _operands(x, w):
    """Forward operands: integer ones as int64 (an exact product sum that wraps as in C, as
    torch's integer convolution; float64 would round large values), others as floats."""
    x, w = np.asarray(x), np.asarray(w)
    if x.dtype.kind in "iu" and w.dtype.kind in "iu":
        return x.astype(np.int64, copy=False), w.astype(np.int64, copy=False)
    return _as_float(x), _as_float(w)


# ---------------------------------------------------------------------------
# convolution
# ---------------------------------------------------------------------------

def conv_output_size(size: int, kernel: int, stride: int, pad_l: int, pad_r: int,
                     dilation: int) -> int:
    """Output length of a convolution along one dimension."""
    return (size + pad_l + pad_r - dilation * (kernel - 1) - 1) // stride + 1


def _conv_params(w_shape, stride, padding, dilation, groups, nsp: int):
    """Validate/normalise conv hyper-parameters.

    Returns (stride, pads, dilation, groups) where pads is a tuple of
    (left, right) pairs, one per spatial dim.
    """
    stride = _conv_tuple(stride, nsp, "stride")
    dilation = _conv_tuple(dilation, nsp, "dilation")
    groups = int(groups)
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0),) * nsp
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = []
            for d, k in zip(dilation, w_shape[2:]):
                total = d * (int(k) - 1)
                pads.append((total // 2, total - total // 2))
            pads = tuple(pads)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        p = _conv_tuple(padding, nsp, "padding")
        pads = tuple((v, v) for v in p)
    # same order as torch's checks
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(l < 0 or r < 0 for l, r in pads):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    return stride, pads, dilation, groups


def _check_conv_shapes(x_shape, w_shape, groups, pads, dilation, name, nsp, onednn=False,
                       bias_shape=None):
    """torch's check_shape_forward, for an already batched x_shape (``onednn``: a zero dilation
    is refused with the message of torch's oneDNN path; ``bias_shape``: the bias's is checked
    too)."""
    if len(w_shape) != nsp + 2:
        raise RuntimeError(
            f"weight should have {nsp + 2} dimensions for {name}, but got weight of "
            f"size {_shape_str(w_shape)}")
    cout = int(w_shape[0])
    if cout < groups or cout == 0:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
            f"but got weight of size {_shape_str(w_shape)} instead")
    if cout % groups != 0:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at "
            f"dimension 0, but got weight of size [{_shape_str(w_shape)}] instead")
    if int(x_shape[1]) != int(w_shape[1]) * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {_shape_str(w_shape)}, expected "
            f"input{_shape_str(x_shape)} to have {int(w_shape[1]) * groups} channels, "
            f"but got {int(x_shape[1])} channels instead")
    if bias_shape is not None and tuple(bias_shape) != (cout,):
        raise RuntimeError(
            f"Given weight of size {_shape_str(w_shape)}, expected bias to be 1-dimensional "
            f"with {cout} elements, but got bias of size {_shape_str(bias_shape)} instead")
    padded = [int(x_shape[2 + i]) + pads[i][0] + pads[i][1] for i in range(nsp)]
    eff = [dilation[i] * (int(w_shape[2 + i]) - 1) + 1 for i in range(nsp)]
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError(
            "Calculated padded input size per channel: (" + " x ".join(map(str, padded))
            + "). Kernel size: (" + " x ".join(map(str, eff))
            + "). Kernel size can't be greater than actual input size")
    if any(d == 0 for d in dilation):
        if onednn:
            raise RuntimeError("non-positive dilation is not supported")
        # the message of torch's generic (non-mkldnn) CPU path
        raise RuntimeError(
            f"dilation should be greater than zero, but got {_shape_str(dilation)}")


def _batch_x_shape(x_shape, nsp, name):
    x_shape = tuple(int(s) for s in x_shape)
    if len(x_shape) == nsp + 1:
        return (1,) + x_shape, True
    if len(x_shape) == nsp + 2:
        return x_shape, False
    raise RuntimeError(
        f"Expected {nsp + 1}D (unbatched) or {nsp + 2}D (batched) input to {name}, "
        f"but got input of size: {_shape_str(x_shape)}")


def _pad_hw(x, pads, value=0.0):
    """``x`` padded by ``pads`` ((before, after) per trailing dim: (H, W), or (D, H, W))."""
    if not any(p for pair in pads for p in pair):
        return x
    lead = x.ndim - len(pads)
    out = np.full(x.shape[:lead] + tuple(s + lo + hi for s, (lo, hi) in
                                         zip(x.shape[lead:], pads)), value, dtype=x.dtype)
    out[(Ellipsis,) + tuple(slice(lo, lo + s) for s, (lo, _) in zip(x.shape[lead:], pads))] = x
    return out


def _windows(xp, ks, stride, dilation, outs):
    """Strided window view of a padded input: (N, C, *outs, *ks), no copy."""
    eff = tuple(d * (k - 1) + 1 for k, d in zip(ks, dilation))
    v = sliding_window_view(xp, eff, axis=tuple(range(-len(ks), 0)))
    return v[(Ellipsis,) + tuple(slice(None, (o - 1) * s + 1, s) for o, s in zip(outs, stride))
             + tuple(slice(None, None, d) for d in dilation)]


def _conv_out(spatial, ks, stride, pads, dilation):
    return tuple(conv_output_size(n, k, s, p[0], p[1], d)
                 for n, k, s, p, d in zip(spatial, ks, stride, pads, dilation))


def _im2col_nd(x, ks, stride, pads, dilation, groups, batch_inner=False):
    """Column matrix of the (padded) input, as a contiguous copy, and the output sizes.

    Default layout (N, G, Cg*prod(ks), L); with batch_inner=True the layout is
    (G, Cg*prod(ks), N*L), which lets the weight gradient be one matmul (L: output positions).
    """
    n, c = x.shape[:2]
    nsp = len(ks)
    outs = _conv_out(x.shape[2:], ks, stride, pads, dilation)
    v = _windows(_pad_hw(x, pads), ks, stride, dilation, outs)  # (N, C, *outs, *ks)
    k = (c // groups) * math.prod(ks)
    kd, od = tuple(range(2 + nsp, 2 + 2 * nsp)), tuple(range(2, 2 + nsp))
    if batch_inner:
        v = v.transpose((1,) + kd + (0,) + od)  # (C, *ks, N, *outs)
        cols = np.ascontiguousarray(v).reshape(groups, k, n * math.prod(outs))
    else:
        v = v.transpose((0, 1) + kd + od)  # (N, C, *ks, *outs)
        cols = np.ascontiguousarray(v).reshape(n, groups, k, math.prod(outs))
    return cols, outs


def _im2col(x, kh, kw, stride, pads, dilation, groups, batch_inner=False):
    """:func:`_im2col_nd` of a 2-D image: (cols, Ho, Wo)."""
    cols, (ho, wo) = _im2col_nd(x, (kh, kw), stride, pads, dilation, groups, batch_inner)
    return cols, ho, wo


# Forward and input-gradient kernels work through the batch in chunks whose column matrix fits
# in cache (about this many bytes): each sample's GEMM and each element's sequence of additions
# are the same as over the whole batch at once, so chunking changes no result, only how often the
# column matrix travels through memory.
_CHUNK_BYTES = 1 << 21


#: stride-1 undilated 2-D forward and input-gradient kernels run over flat rows (``conv_rows``);
#: the tests switch this off to compare them with the window-by-window kernels
_FLAT_ROWS = True


def _chunk(n, per_sample_bytes):
    return max(1, min(n, _CHUNK_BYTES // max(1, per_sample_bytes)))


def _rows_apply(nsp, stride, dilation):
    """Whether the flat-row kernels (:mod:`conv_rows`, 2-D only) run this convolution."""
    return _FLAT_ROWS and nsp == 2 and all(s == 1 for s in stride) and \
        all(d == 1 for d in dilation)


# The convolution kernels take any number of spatial dims (len(stride): 2 for conv1d/conv2d,
# 3 for conv3d): x (N, C, *spatial), w (C_out, C/groups, *ks); pads ((before, after), ...).
def _conv_fwd(x, w, stride, pads, dilation, groups, skip_padding=False):
    n = x.shape[0]
    cout, cg, *ks = w.shape
    nsp = len(ks)
    dt = np.dtype(np.int64) if x.dtype == w.dtype == np.int64 else _float_dtype(x, w)
    x = x.astype(dt, copy=False)
    w = w.astype(dt, copy=False)
    outs = _conv_out(x.shape[2:], ks, stride, pads, dilation)
    if n == 0:
        return np.zeros((0, cout) + outs, dtype=dt)
    k = cg * math.prod(ks)
    size = math.prod(outs)
    wmat = w.reshape(groups, cout // groups, k)
    if skip_padding and any(p for pair in pads for p in pair) and \
            all(max(pair) < d * (kk - 1) + 1 for pair, d, kk in zip(pads, dilation, ks)) \
            and not np.isfinite(w).all():
        # torch's oneDNN direct convolution (bfloat16, and float32 by its use_mkldnn rule) never
        # multiplies the padding: a non-finite weight against a padded zero does not turn the
        # border outputs into NaN (0 * inf); its im2col path does (skip_padding=False), and so
        # does oneDNN when a padding reaches the kernel's dilated extent (measured, torch 2.13)
        cols, _ = _im2col_nd(x, ks, stride, pads, dilation, groups)
        valid, _ = _im2col_nd(np.ones((1,) + x.shape[1:], dt), ks, stride, pads, dilation,
                              groups)
        with np.errstate(invalid="ignore"):
            prod = wmat[None, :, :, :, None] * cols[:, :, None, :, :]  # (N, G, Og, K, L)
        y = np.add.reduce(np.where(valid[:, :, None] != 0, prod, np.zeros((), dt)), axis=3)
        return y.reshape((n, cout) + outs)
    xp = _pad_hw(x, pads)
    if _rows_apply(nsp, stride, dilation):  # same products, flat rows
        return conv_rows.forward(xp, wmat, *ks, np.empty((n, cout) + outs, dt), _chunk)
    y = np.empty((n, groups, cout // groups, size), dtype=dt)
    step = _chunk(n, groups * k * size * dt.itemsize)
    perm = (0, 1) + tuple(range(2 + nsp, 2 + 2 * nsp)) + tuple(range(2, 2 + nsp))
    for a in range(0, n, step):
        v = _windows(xp[a:a + step], ks, stride, dilation, outs)  # (n, C, *outs, *ks)
        cols = np.ascontiguousarray(v.transpose(perm)).reshape(-1, groups, k, size)
        np.matmul(wmat, cols, out=y[a:a + step])  # (n, G, Og, L)
    return y.reshape((n, cout) + outs)


def _conv_bwd_input(gy, w, x_shape, stride, pads, dilation, groups):
    n, c, *spatial = x_shape
    cout, cg, *ks = w.shape
    nsp = len(ks)
    dt = _float_dtype(gy, w)
    outs = gy.shape[2:]
    gx = np.zeros((n, c) + tuple(s + lo + hi for s, (lo, hi) in zip(spatial, pads)), dtype=dt)
    inner = (slice(None), slice(None)) + tuple(slice(lo, lo + s)
                                               for s, (lo, _) in zip(spatial, pads))
    if n == 0 or gx.size == 0:
        return gx[inner]
    wt = w.astype(dt, copy=False).reshape(groups, cout // groups, cg * math.prod(ks)
                                          ).transpose(0, 2, 1)
    if _rows_apply(nsp, stride, dilation) and np.isfinite(wt).all():
        conv_rows.input_grad(gy.astype(dt, copy=False), wt, *ks, gx, _chunk)
        return gx[inner]
    size = math.prod(outs)
    g = gy.astype(dt, copy=False).reshape(n, groups, cout // groups, size)
    spans = [(o - 1) * s + 1 for o, s in zip(outs, stride)]
    step = _chunk(n, c * math.prod(ks) * size * dt.itemsize)
    for a in range(0, n, step):
        gcols = np.matmul(wt, g[a:a + step])  # (n, G, Cg*prod(ks), L)
        gcols = gcols.reshape((-1, c) + tuple(ks) + tuple(outs))
        gxa = gx[a:a + step]
        for off in itertools.product(*(range(kk) for kk in ks)):  # (row-major offsets)
            gxa[(slice(None), slice(None)) + tuple(
                slice(i * d, i * d + span, s) for i, d, span, s in
                zip(off, dilation, spans, stride))] += gcols[(slice(None), slice(None)) + off]
    return gx[inner]


def _conv_bwd_weight(gy, x, w_shape, stride, pads, dilation, groups):
    cout, cg, *ks = w_shape
    dt = _float_dtype(gy, x)
    x = x.astype(dt, copy=False)
    n = x.shape[0]
    if n == 0:
        return np.zeros(tuple(w_shape), dtype=dt)
    if _rows_apply(len(ks), stride, dilation):  # one GEMM per sample
        return conv_rows.weight_grad(gy.astype(dt, copy=False), _pad_hw(x, pads), *ks,
                                     groups, _chunk).reshape(tuple(w_shape))
    cols, outs = _im2col_nd(x, ks, stride, pads, dilation, groups, batch_inner=True)
    og = cout // groups
    size = math.prod(outs)
    g = gy.astype(dt, copy=False).reshape(n, groups, og, size)
    # contract over N and output positions: (G, Og, N*P) @ (G, N*P, K)
    gm = np.ascontiguousarray(g.transpose(1, 2, 0, 3)).reshape(groups, og, n * size)
    gw = np.matmul(gm, cols.transpose(0, 2, 1))  # (G, Og, K)
    return gw.reshape(tuple(w_shape))


# (the names the tests and the transposed convolution use for the 2-D case)
_conv2d_fwd, _conv2d_bwd_input, _conv2d_bwd_weight = _conv_fwd, _conv_bwd_input, _conv_bwd_weight


def _prep_conv(x_shape, w_shape, stride, padding, dilation, groups, nsp, name, onednn=False,
               bias_shape=None):
    xb, unbatched = _batch_x_shape(x_shape, nsp, name)
    st, pads, dil, groups = _conv_params(w_shape, stride, padding, dilation, groups, nsp)
    _check_conv_shapes(xb, tuple(int(s) for s in w_shape), groups, pads, dil, name, nsp, onednn,
                       bias_shape)
    return xb, unbatched, st, pads, dil, groups


def conv2d_forward(x, w, stride=1, padding=0, dilation=1, groups=1, skip_padding=False):
    """2-D cross-correlation, torch.nn.functional.conv2d without bias.

    x: (N, C, H, W) or (C, H, W); w: (C_out, C/groups, kH, kW).
    padding: int, pair, "valid" or "same" (stride 1 only; the odd extra
    padding goes to the bottom/right like torch).
    """
    x, w = _operands(x, w)
    xb, unb, st, pads, dil, g = _prep_conv(x.shape, w.shape, stride, padding, dilation,
                                          groups, 2, "conv2d")
    if xb[1] == 0:
        y = _no_channels(xb, w, st, pads, dil, x)
    else:
        y = _conv2d_fwd(x.reshape(xb), w, st, pads, dil, g, skip_padding)
    return y[0] if unb else y


def _no_channels(xb, w, st, pads, dil, x):
    """torch's result of a convolution of an input without channels: empty, of no channels."""
    return np.zeros((xb[0], 0) + _conv_out(xb[2:], w.shape[2:], st, pads, dil),
                    np.result_type(x, w))


def conv2d_backward_input(gy, w, x_shape, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv2d_forward w.r.t. its input (shape x_shape)."""
    gy = _as_float(gy)
    w = _as_float(w)
    xb, unb, st, pads, dil, g = _prep_conv(x_shape, w.shape, stride, padding, dilation,
                                          groups, 2, "conv2d")
    if xb[1] == 0:
        return np.zeros(tuple(x_shape), _float_dtype(gy, w))
    gyb = gy.reshape((1,) + gy.shape) if unb else gy
    gx = _conv2d_bwd_input(gyb, w, xb, st, pads, dil, g)
    return np.ascontiguousarray(gx[0] if unb else gx)


def conv2d_backward_weight(gy, x, w_shape, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv2d_forward w.r.t. its weight (shape w_shape)."""
    gy = _as_float(gy)
    x = _as_float(x)
    w_shape = tuple(int(s) for s in w_shape)
    xb, unb, st, pads, dil, g = _prep_conv(x.shape, w_shape, stride, padding, dilation,
                                          groups, 2, "conv2d")
    if xb[1] == 0:
        return np.zeros(w_shape, _float_dtype(gy, x))
    gyb = gy.reshape((1,) + gy.shape) if unb else gy
    return _conv2d_bwd_weight(gyb, x.reshape(xb), w_shape, st, pads, dil, g)


# -- conv1d: reshape to 2d with a unit height --------------------------------

def _conv1d_to_2d(x_shape, w_shape, stride, padding, dilation, groups):
    xb, unb, st, pads, dil, g = _prep_conv(x_shape, w_shape, stride, padding, dilation,
                                          groups, 1, "conv1d")
    x4 = (xb[0], xb[1], 1, xb[2])
    w4 = (int(w_shape[0]), int(w_shape[1]), 1, int(w_shape[2]))
    return x4, w4, unb, (1, st[0]), ((0, 0), pads[0]), (1, dil[0]), g


def conv1d_forward(x, w, stride=1, padding=0, dilation=1, groups=1, skip_padding=False):
    """1-D cross-correlation on (N, C, L) or (C, L); w: (C_out, C/groups, K)."""
    x, w = _operands(x, w)
    x4, w4, unb, st, pads, dil, g = _conv1d_to_2d(x.shape, w.shape, stride, padding,
                                                  dilation, groups)
    if x4[1] == 0:
        y = _no_channels(x4, w.reshape(w4), st, pads, dil, x)
    else:
        y = _conv2d_fwd(x.reshape(x4), w.reshape(w4), st, pads, dil, g, skip_padding)
    y = y.reshape(y.shape[0], y.shape[1], y.shape[3])
    return y[0] if unb else y


def conv1d_backward_input(gy, w, x_shape, stride=1, padding=0, dilation=1, groups=1):
    gy = _as_float(gy)
    w = _as_float(w)
    x4, w4, unb, st, pads, dil, g = _conv1d_to_2d(x_shape, w.shape, stride, padding,
                                                  dilation, groups)
    if x4[1] == 0:
        return np.zeros(tuple(x_shape), _float_dtype(gy, w))
    gy4 = gy.reshape(x4[0], w4[0], 1, gy.shape[-1])
    gx = _conv2d_bwd_input(gy4, w.reshape(w4), x4, st, pads, dil, g)
    gx = np.ascontiguousarray(gx).reshape(x4[0], x4[1], x4[3])
    return gx[0] if unb else gx


def conv1d_backward_weight(gy, x, w_shape, stride=1, padding=0, dilation=1, groups=1):
    gy = _as_float(gy)
    x = _as_float(x)
    w_shape = tuple(int(s) for s in w_shape)
    x4, w4, unb, st, pads, dil, g = _conv1d_to_2d(x.shape, w_shape, stride, padding,
                                                  dilation, groups)
    if x4[1] == 0:
        return np.zeros(w_shape, _float_dtype(gy, x))
    gy4 = gy.reshape(x4[0], w4[0], 1, gy.shape[-1])
    gw = _conv2d_bwd_weight(gy4, x.reshape(x4), w4, st, pads, dil, g)
    return gw.reshape(w_shape)


# ---------------------------------------------------------------------------
# pooling helpers
# ---------------------------------------------------------------------------

def pool_output_size(size: int, kernel: int, pad: int, stride: int, dilation: int,
                     ceil_mode: bool) -> int:
    """torch's pooling_output_shape (checks pad <= half the effective kernel)."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    eff = (kernel - 1) * dilation + 1
    if pad > int(eff / 2):  # C++ integer division truncates toward zero
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={pad}, "
            f"kernel_size={kernel} and dilation={dilation}")
    num = size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = num // stride + 1  # floor division == torch's div_rtn
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _pool_params(x_shape, kernel_size, stride, padding, dilation, ceil_mode, op):
    k = _pool_tuple(kernel_size, "kernel_size", op)
    if stride is None or (not _is_int(stride) and len(stride) == 0):
        s = k
    else:
        s = _pool_tuple(stride, "stride", op)
    p = _pool_tuple(padding, "padding", op)
    d = _pool_tuple(dilation, "dilation", op)
    ho = pool_output_size(x_shape[-2], k[0], p[0], s[0], d[0], ceil_mode)
    wo = pool_output_size(x_shape[-1], k[1], p[1], s[1], d[1], ceil_mode)
    # torch's pool2d_shape_check
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}")
    if s[0] <= 0 or s[1] <= 0:
        raise RuntimeError(
            f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationH: {d[0]} dilationW: {d[1]}")
    if not (k[1] // 2 >= p[1] and k[0] // 2 >= p[0]):
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"padW = {p[1]}, padH = {p[0]}, kW = {k[1]}, kH = {k[0]}")
    if ho < 1 or wo < 1:
        c = x_shape[-3]
        raise RuntimeError(
            f"Given input size: ({c}x{x_shape[-2]}x{x_shape[-1]}). "
            f"Calculated output size: ({c}x{ho}x{wo}). Output size is too small")
    return k, s, p, d, ho, wo


def _pool_batch(x_shape, op):
    x_shape = tuple(int(v) for v in x_shape)
    if len(x_shape) == 3:
        if 0 in x_shape:
            raise RuntimeError(
                f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size "
                f"for input, but got:{_shape_str(x_shape)}")
        return (1,) + x_shape, True
    if len(x_shape) == 4:
        if 0 in x_shape[1:]:
            raise RuntimeError(
                f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size "
                f"for input, but got:{_shape_str(x_shape)}")
        return x_shape, False
    raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")


def _pad_extent(size, pad, kernel, stride, dilation, out):
    """Right padding needed so that all `out` windows fit (ceil_mode may overhang)."""
    need = (out - 1) * stride + dilation * (kernel - 1) + 1
    return max(need - size - pad, 0)


# ---------------------------------------------------------------------------
# max pooling
# ---------------------------------------------------------------------------

def max_pool2d_forward(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """torch.nn.functional.max_pool2d(..., return_indices=True).

    Returns (y, indices); indices are int64 flat offsets into each H*W plane.
    """
    x = np.asarray(x)
    xb, unb = _pool_batch(x.shape, "max_pool2d")
    k, s, p, d, ho, wo = _pool_params(xb, kernel_size, stride, padding, dilation, ceil_mode,
                                      "max_pool2d")
    maxval, indices = max_pool_nd(x.reshape(xb), k, s, p, d, (ho, wo), "max_pool2d")
    if unb:
        return maxval[0], indices[0]
    return maxval, indices


def max_pool_nd(xv, k, s, p, d, outs, name):
    """Max pooling of ``xv`` (N, C, *spatial) over windows ``k`` (stride ``s``, padding ``p``,
    dilation ``d``; one entry per spatial dim) to ``outs``: the maxima and the int64 flat
    offsets of the winners in each plane (H*W, or D*H*W), as torch's CPU kernel finds them."""
    n, c = xv.shape[:2]
    spatial = xv.shape[2:]
    if np.issubdtype(xv.dtype, np.floating):
        low = -np.inf
        check_nan = True
    elif np.issubdtype(xv.dtype, np.integer):
        low = np.iinfo(xv.dtype).min
        check_nan = False
    else:
        raise NotImplementedError(f'"{name}" not implemented for '
                                  f"'{'Bool' if xv.dtype == np.bool_ else xv.dtype}'")
    pads = [(pi, _pad_extent(size, pi, ki, si, di, o))
            for size, ki, si, pi, di, o in zip(spatial, k, s, p, d, outs)]
    xp = _pad_hw(xv, pads, value=low)
    nsp = len(k)

    def grid(vectors):  # per-dim vectors broadcast over the output grid
        return [v.reshape((-1,) + (1,) * (nsp - 1 - i)) for i, v in enumerate(vectors)]

    # start of each window (may be negative = inside left padding), and its first in-bounds
    # kernel offset (torch's default index)
    starts = [np.arange(o) * si - pi for o, si, pi in zip(outs, s, p)]
    firsts = [-(-np.maximum(-st, 0) // di) for st, di in zip(starts, d)]
    # the winner's kernel position (row-major over the kernel) as a small code (a byte for up
    # to 255 positions: the per-window bookkeeping moves an eighth of the bytes of int64
    # offsets), starting at the first in-bounds position; offsets at the end
    weights = [math.prod(k[i + 1:]) for i in range(nsp)]
    code_dt = np.uint8 if math.prod(k) < 256 else np.int64
    spans = [(o - 1) * si + 1 for o, si in zip(outs, s)]
    first = sum(f * w for f, w in zip(grid(firsts), weights))
    positions = list(itertools.product(*(range(ki) for ki in k)))

    def scan(nan_aware):
        maxval = np.full((n, c) + tuple(outs), low, dtype=xv.dtype)
        code = np.empty((n, c) + tuple(outs), dtype=code_dt)
        code[...] = first
        step = np.empty_like(code)
        for kpos, off in enumerate(positions):
            v = xp[(slice(None), slice(None)) + tuple(
                slice(i * di, i * di + span, si) for i, di, span, si in zip(off, d, spans, s))]
            upd = v > maxval  # torch: a later element wins if greater, or if NaN
            if nan_aware:
                upd |= np.isnan(v)
            # branch-free updates (masked copies are slow on random masks); the running
            # maximum keeps the earlier of two equal values (0.0 and -0.0), as the scan's
            # winner does, and propagates NaN, which is torch's result value too
            max_first(maxval, v, out=maxval)
            np.subtract(kpos, code, out=step, casting="unsafe")  # (mod 256 for bytes)
            step *= upd
            code += step
        return maxval, code

    if _TILES and tuple(s) == tuple(k) and all(di == 1 for di in d) and \
            not any(q for pair in pads for q in pair):
        found = _max_tiles(xv, k, outs, code_dt)
        nan_found = found is None  # (a NaN maximum: the scan's NaN rule decides the winners)
        maxval, code = scan(True) if nan_found else found
    else:
        maxval, code = scan(False)
        # a NaN anywhere in a window makes its maximum NaN: only then can the NaN rule change a
        # winner, and the scan runs again with it
        nan_found = check_nan and np.isnan(maxval).any()
        if nan_found:
            maxval, code = scan(True)
    strides = [math.prod(spatial[i + 1:]) for i in range(nsp)]
    offsets = np.array([sum(i * di * st for i, di, st in zip(off, d, strides))
                        for off in positions], np.int64)
    indices = np.take(offsets, code)  # flat offset of the winner from the window's corner
    indices += sum(st * w for st, w in zip(grid(starts), strides))
    if nan_found:
        # torch's value is the winning NaN itself (np.maximum may propagate another one)
        fix = np.isnan(maxval)
        volume = math.prod(spatial)
        plane = xv.reshape(n, c, volume)
        won = np.take_along_axis(plane, np.clip(indices, 0, volume - 1).reshape(n, c, -1),
                                 axis=2).reshape(maxval.shape)
        np.copyto(maxval, won, where=fix)
    return maxval, indices


_TILES = True  #: windows that tile the input take :func:`_max_tiles` (tests compare the scan)


def _max_tiles(xv, k, outs, code_dt):
    """Max pooling whose windows tile the input (stride = kernel, no padding or dilation): the
    scan's maxima and winners' codes (:func:`max_pool_nd`), or None for a NaN maximum.
    The windows are copied once into (prod(k), N, C, *outs): every pass reads contiguous memory
    (the scan's strided views cost several times more). Without NaN the scan's winner is the
    first position holding the maximum (a later one wins only when greater; 0.0 == -0.0), and
    ``max_first`` in scan order keeps that position's value, to the sign of a zero."""
    n, c = xv.shape[:2]
    nsp = len(k)
    tiles = np.empty((math.prod(k), n, c) + tuple(outs), xv.dtype)
    split = xv[(slice(None), slice(None)) + tuple(slice(0, o * ki) for o, ki in zip(outs, k))]
    split = split.reshape((n, c) + tuple(v for o, ki in zip(outs, k) for v in (o, ki)))
    # (N, C, o0, k0, o1, k1, ...) -> (k0, k1, ..., N, C, o0, o1, ...)
    perm = tuple(3 + 2 * i for i in range(nsp)) + (0, 1) + tuple(2 + 2 * i for i in range(nsp))
    np.copyto(tiles.reshape(tuple(k) + (n, c) + tuple(outs)), split.transpose(perm))
    maxval = tiles[0].copy()
    for v in tiles[1:]:
        max_first(maxval, v, out=maxval)
    if maxval.dtype.kind == "f" and np.isnan(maxval).any():
        return None
    code = np.zeros(maxval.shape, code_dt)
    before = np.ones(maxval.shape, bool)  # no position so far holds the maximum
    ne = np.empty(maxval.shape, bool)
    for v in tiles[:-1]:
        np.not_equal(v, maxval, out=ne)
        before &= ne
        np.add(code, before, out=code, casting="unsafe")
    return maxval, code


def pool_windows_disjoint(kernel_size, stride=None, dilation=1, nsp=2) -> bool:
    """Whether max pooling's windows share no input position (each spans at most its stride)."""
    if nsp == 3:
        from .pool3d import pool3d_params  # (the 3-D argument rules)
        k, s, _, d = pool3d_params(kernel_size, stride, 0, dilation, "max_pool3d")
    else:
        k, s, _, d, _, _ = _pool_params((1, 1 << 30, 1 << 30), kernel_size, stride, 0,
                                        dilation, False, "max_pool2d")
    return all(si >= di * (ki - 1) + 1 for ki, si, di in zip(k, s, d))


def max_pool2d_backward(gy, indices, x_shape, disjoint=False, nsp=2, rounding=None):
    """Scatter-add gy into the argmax positions recorded by max_pool2d_forward (max_pool_nd:
    ``nsp`` spatial dims). ``disjoint`` (:func:`pool_windows_disjoint`): each position receives
    at most one gradient, assigned as ``+0 + g``, the sum's value (``-0.0`` becomes ``+0.0``).
    ``rounding``: given, the contributions to one position are added one at a time in output
    order in ``gy``'s dtype, each sum rounded by it too (the half dtype torch's kernel adds
    in; the identity for float32/float64), as torch's kernel adds them; without it they are
    summed exactly (in float64), then rounded."""
    gy = _as_float(gy)
    x_shape = tuple(int(v) for v in x_shape)
    planes = int(np.prod(x_shape[:-nsp], dtype=np.int64))
    plane = math.prod(x_shape[-nsp:])
    if planes == 0:  # an empty batch: an empty gradient (as torch)
        return np.zeros(x_shape, gy.dtype)
    idx = np.asarray(indices, dtype=np.int64).reshape(planes, -1)
    g = gy.reshape(planes, -1)
    weights = g.ravel()
    if idx.size and (idx.min() < 0 or idx.max() >= plane):
        # degenerate windows lying entirely in the padding (possible with
        # dilation, e.g. W=1, kernel 2, dilation 2, padding 1) get an index
        # outside the plane, as in torch; their gradient is dropped.
        keep = ((idx >= 0) & (idx < plane)).ravel()
        weights = np.where(keep, weights, 0)
        idx = np.where(keep.reshape(idx.shape), idx, 0)
        disjoint = False  # (the dropped ones all point at offset 0 now)
    flat = (idx + (np.arange(planes, dtype=np.int64) * plane)[:, None]).ravel()
    if disjoint:
        gx = np.zeros(planes * plane, gy.dtype)
        gx[flat] = weights + np.zeros((), gy.dtype)
        return gx.reshape(x_shape)
    if rounding is not None:
        return _scatter_in_order(flat, weights, planes * plane, rounding).reshape(x_shape)
    gx = np.bincount(flat, weights=weights, minlength=planes * plane)
    return gx.astype(gy.dtype, copy=False).reshape(x_shape)


def _scatter_in_order(flat, weights, size, rounding):
    """``weights`` added into ``size`` zeros at ``flat``, each target's contributions one at a
    time in their order, every sum rounded by ``rounding``: round k adds every target's k-th
    contribution (the targets of one round are distinct)."""
    order = np.argsort(flat, kind="stable")
    target = flat[order]
    start = np.r_[0, np.flatnonzero(np.diff(target)) + 1]
    rank = np.arange(target.size) - np.repeat(start, np.diff(np.r_[start, target.size]))
    out = np.zeros(size, weights.dtype)
    for r in range(int(rank.max(initial=-1)) + 1):
        sel = order[rank == r]
        out[flat[sel]] = rounding(out[flat[sel]] + weights[sel])
    return out


# ---------------------------------------------------------------------------
# transposed convolution
# ---------------------------------------------------------------------------
# conv_transpose(x, w) is the adjoint of conv(., w) w.r.t. its input: the weight
# (C_in, C_out // groups, *k) is read as the weight of a convolution from C_out
# to C_in channels.  So its forward is that convolution's input gradient, its
# input gradient is that convolution's forward, and its weight gradient is
# that convolution's weight gradient with the roles of input and output
# swapped.  No extra loops: the same im2col kernels do the work.

def conv_transpose_output_size(size: int, kernel: int, stride: int, pad: int, out_pad: int,
                               dilation: int) -> int:
    """Output length of a transposed convolution along one dimension."""
    return (size - 1) * stride - 2 * pad + dilation * (kernel - 1) + out_pad + 1


def _prep_conv_transpose(x_shape, w_shape, stride, padding, output_padding, dilation,
                         groups, nsp, name):
    """torch's checks for conv_transpose{1,2}d, in its order; returns the 2-d parameters."""
    xb, unb = _batch_x_shape(x_shape, nsp, name)
    w_shape = tuple(int(s) for s in w_shape)
    if len(w_shape) != nsp + 2:
        raise RuntimeError(
            f"weight should have {nsp + 2} dimensions for {name}, but got weight of "
            f"size {_shape_str(w_shape)}")
    st = _conv_tuple(stride, nsp, "stride")
    pad = _conv_tuple(padding, nsp, "padding")
    opad = _conv_tuple(output_padding, nsp, "output_padding")
    dil = _conv_tuple(dilation, nsp, "dilation")
    groups = int(groups)
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(p < 0 for p in pad):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in opad):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in st):
        raise RuntimeError("non-positive stride is not supported")
    if w_shape[0] % groups != 0:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at "
            f"dimension 0, but got weight of size [{_shape_str(w_shape)}] instead")
    if xb[1] != w_shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {_shape_str(w_shape)}, expected "
            f"input{_shape_str(xb)} to have {w_shape[0]} channels, but got {xb[1]} channels "
            "instead")
    if any(d <= 0 for d in dil):
        names = ("height", "width")[-nsp:] if nsp <= 2 else ()
        raise RuntimeError("dilation should be greater than zero, but got " + ", ".join(
            f"dilation_{n}: {d}" for n, d in zip(names, dil)))
    if any(o >= s and o >= d for o, s, d in zip(opad, st, dil)):
        names = ("height", "width") if nsp == 2 else ("width",)
        parts = ([f"output_padding_{n}: {o}" for n, o in zip(names, opad)]
                 + [f"stride_{n}: {s}" for n, s in zip(names, st)]
                 + [f"dilation_{n}: {d}" for n, d in zip(names, dil)])
        raise RuntimeError("output padding must be smaller than either stride or dilation, "
                           "but got " + " ".join(parts))
    out = tuple(conv_transpose_output_size(xb[2 + i], w_shape[2 + i], st[i], pad[i], opad[i],
                                           dil[i]) for i in range(nsp))
    if any(o < 1 for o in out):
        raise RuntimeError(
            "Given input size per channel: (" + " x ".join(str(s) for s in xb[2:])
            + "). Calculated output size per channel: (" + " x ".join(map(str, out))
            + "). Output size is too small")
    y_shape = (xb[0], w_shape[1] * groups) + out
    if nsp == 1:  # run as 2-d with a unit height
        xb = (xb[0], xb[1], 1, xb[2])
        y_shape = (y_shape[0], y_shape[1], 1, y_shape[2])
        w4 = (w_shape[0], w_shape[1], 1, w_shape[2])
        st, pad, dil = (1, st[0]), (0, pad[0]), (1, dil[0])
    else:
        w4 = w_shape
    pads = tuple((p, p) for p in pad)
    return xb, unb, w4, y_shape, st, pads, dil, groups


def _unbatch(a, unb, nsp):
    if nsp == 1:
        a = a.reshape(a.shape[0], a.shape[1], a.shape[3])
    return np.ascontiguousarray(a[0] if unb else a)


def conv_transpose_forward(x, w, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                           nsp=2):
    """torch.nn.functional.conv_transpose{nsp}d without bias.

    x: (N, C_in, *spatial) or unbatched; w: (C_in, C_out // groups, *k).
    """
    x = _as_float(x)
    w = _as_float(w)
    name = f"conv_transpose{nsp}d"
    xb, unb, w4, y_shape, st, pads, dil, g = _prep_conv_transpose(
        x.shape, w.shape, stride, padding, output_padding, dilation, groups, nsp, name)
    y = _conv2d_bwd_input(x.reshape(xb), w.reshape(w4), y_shape, st, pads, dil, g)
    return _unbatch(y, unb, nsp)


def conv_transpose_backward_input(gy, w, x_shape, stride=1, padding=0, output_padding=0,
                                  groups=1, dilation=1, nsp=2):
    """Gradient of conv_transpose_forward w.r.t. its input: a plain convolution of gy."""
    gy = _as_float(gy)
    w = _as_float(w)
    xb, unb, w4, y_shape, st, pads, dil, g = _prep_conv_transpose(
        x_shape, w.shape, stride, padding, output_padding, dilation, groups, nsp,
        f"conv_transpose{nsp}d")
    gx = _conv2d_fwd(gy.reshape(y_shape), w.reshape(w4), st, pads, dil, g)
    # output_padding rows/cols beyond the last full window never reach the input
    gx = gx[:, :, :xb[2], :xb[3]]
    return _unbatch(gx, unb, nsp)


def conv_transpose_backward_weight(gy, x, w_shape, stride=1, padding=0, output_padding=0,
                                   groups=1, dilation=1, nsp=2):
    """Gradient of conv_transpose_forward w.r.t. its weight (shape w_shape)."""
    gy = _as_float(gy)
    x = _as_float(x)
    xb, unb, w4, y_shape, st, pads, dil, g = _prep_conv_transpose(
        x.shape, w_shape, stride, padding, output_padding, dilation, groups, nsp,
        f"conv_transpose{nsp}d")
    xt = x.reshape(xb)
    full = tuple(conv_output_size(y_shape[2 + i], w4[2 + i], st[i], pads[i][0], pads[i][1],
                                  dil[i]) for i in range(2))
    if full != xb[2:]:  # output_padding >= stride (allowed when < dilation): the convolution of
        # gy has extra rows/cols that the transposed convolution never read; their cotangent is 0
        xt = np.pad(xt, ((0, 0), (0, 0), (0, full[0] - xb[2]), (0, full[1] - xb[3])))
    gw = _conv2d_bwd_weight(xt, gy.reshape(y_shape), w4, st, pads, dil, g)
    return gw.reshape(tuple(int(s) for s in w_shape))
