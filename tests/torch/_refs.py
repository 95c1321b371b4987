"""Plain numpy references for the op table: written for clarity (loops over kernel offsets and
output positions are fine here), following torch's documented formulas."""
from __future__ import annotations

import math

import numpy as np
from scipy import special


def ax(x, dim):
    """numpy axis for a torch ``dim`` (0-d tensors accept dim 0/-1 and reduce nothing)."""
    if x.ndim == 0:
        return None
    return dim


def log_softmax(x, dim):
    if x.ndim == 0:
        return x - x
    m = np.max(x, axis=dim, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=dim, keepdims=True))


def softmax(x, dim):
    return np.exp(log_softmax(x, dim))


def gelu(x, approximate="none"):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + special.erf(x / math.sqrt(2)))


def softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.log1p(np.exp(beta * x)) / beta)


def elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(x))


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def conv(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    nd = w.ndim - 2
    unbatched = x.ndim == nd + 1
    if unbatched:
        x = x[None]
    s, p, d = _tuple(stride, nd), _tuple(padding, nd), _tuple(dilation, nd)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pi, pi) for pi in p])
    n, c = x.shape[:2]
    o, k = w.shape[0], w.shape[2:]
    size = [(xp.shape[2 + i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(nd)]
    out = np.zeros((n, o, *size))
    cg, og = c // groups, o // groups
    for g in range(groups):
        for offs in np.ndindex(*k):
            sl = tuple(slice(offs[i] * d[i], offs[i] * d[i] + s[i] * (size[i] - 1) + 1, s[i])
                       for i in range(nd))
            patch = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + sl]
            wk = w[(slice(g * og, (g + 1) * og), slice(None)) + offs]
            out[:, g * og:(g + 1) * og] += np.einsum("nc...,oc->no...", patch, wk)
    if b is not None:
        out += b.reshape((1, -1) + (1,) * nd)
    return out[0] if unbatched else out


def _pool_size(n, k, s, p, d, ceil_mode):
    num = n + 2 * p - d * (k - 1) - 1
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    k = _tuple(kernel_size, 2)
    s = _tuple(stride if stride is not None else kernel_size, 2)
    p, d = _tuple(padding, 2), _tuple(dilation, 2)
    H, W = x.shape[-2:]
    oh = _pool_size(H, k[0], s[0], p[0], d[0], ceil_mode)
    ow = _pool_size(W, k[1], s[1], p[1], d[1], ceil_mode)
    out = np.full(x.shape[:-2] + (oh, ow), -np.inf)
    for i in range(oh):
        for j in range(ow):
            for a in range(k[0]):
                for b in range(k[1]):
                    h, w = i * s[0] - p[0] + a * d[0], j * s[1] - p[1] + b * d[1]
                    if 0 <= h < H and 0 <= w < W:
                        out[..., i, j] = np.maximum(out[..., i, j], x[..., h, w])
    return out


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    k = _tuple(kernel_size, 2)
    s = _tuple(stride if stride is not None else kernel_size, 2)
    p = _tuple(padding, 2)
    H, W = x.shape[-2:]
    oh = _pool_size(H, k[0], s[0], p[0], 1, ceil_mode)
    ow = _pool_size(W, k[1], s[1], p[1], 1, ceil_mode)
    out = np.zeros(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - p[0], j * s[1] - p[1]
            h1, w1 = min(h0 + k[0], H + p[0]), min(w0 + k[1], W + p[1])
            pool = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, H), min(w1, W)
            div = divisor_override or (pool if count_include_pad else (h1 - h0) * (w1 - w0))
            out[..., i, j] = x[..., h0:h1, w0:w1].sum(axis=(-2, -1)) / div
    return out


def _adaptive_pool2d(x, output_size, reduce):
    """``reduce`` over each adaptive window: rows floor(i*H/oh) .. ceil((i+1)*H/oh), columns
    likewise."""
    oh, ow = _tuple(output_size, 2)
    H, W = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        h0, h1 = (i * H) // oh, -(-((i + 1) * H) // oh)
        for j in range(ow):
            w0, w1 = (j * W) // ow, -(-((j + 1) * W) // ow)
            out[..., i, j] = reduce(x[..., h0:h1, w0:w1], axis=(-2, -1))
    return out


def adaptive_avg_pool2d(x, output_size):
    return _adaptive_pool2d(x, output_size, np.mean)


def adaptive_max_pool2d(x, output_size):
    return _adaptive_pool2d(x, output_size, np.max)


def nll(logp, target, weight=None, ignore_index=-100, reduction="mean"):
    """nll_loss over (N, C, ...) or (C,) log-probabilities."""
    cdim = 1 if logp.ndim > 1 else 0
    valid = target != ignore_index
    t = np.where(valid, target, 0)
    picked = np.squeeze(np.take_along_axis(logp, np.expand_dims(t, cdim), axis=cdim), cdim)
    w = (weight[t] if weight is not None else np.ones(t.shape)) * valid
    loss = -picked * w
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / w.sum()


def cross_entropy(x, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    cdim = 1 if x.ndim > 1 else 0
    C = x.shape[cdim]
    logp = log_softmax(x, cdim)
    if target.dtype.kind == "f":  # class probabilities
        t = target * (1 - label_smoothing) + label_smoothing / C
        shape = [1] * x.ndim
        shape[cdim] = C
        wt = t * weight.reshape(shape) if weight is not None else t
        loss = -(logp * wt).sum(cdim)
        if reduction == "none":
            return loss
        if reduction == "sum":
            return loss.sum()
        return loss.sum() / (x.size / C)
    loss = nll(logp, target, weight, ignore_index, reduction)
    if label_smoothing == 0:
        return loss
    # aten cross_entropy_loss_label_smoothing
    ignore = target == ignore_index
    shape = [1] * x.ndim
    shape[cdim] = C
    smooth = -(logp * (weight.reshape(shape) if weight is not None else 1)).sum(cdim)
    smooth = np.where(ignore, 0.0, smooth)
    if reduction == "mean":
        denom = weight[target[~ignore]].sum() if weight is not None else (~ignore).sum()
        smooth = smooth.sum() / denom
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - label_smoothing) * loss + smooth * (label_smoothing / C)


def layer_norm(x, ndim, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - ndim, x.ndim))
    mu = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    y = (x - mu) / np.sqrt(var + eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y


def batch_norm(x, rm, rv, w=None, b=None, training=False, momentum=0.1, eps=1e-5):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    if training:
        mu, var = x.mean(axis=axes), x.var(axis=axes)
        n = x.size // x.shape[1]
        rm = (1 - momentum) * rm + momentum * mu
        rv = (1 - momentum) * rv + momentum * var * n / (n - 1)
    else:
        mu, var = rm, rv
    y = (x - mu.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    return y, rm, rv


def pad(x, pads, mode="constant", value=0.0):
    n = len(pads) // 2
    widths = [(0, 0)] * (x.ndim - n) + [(pads[2 * i], pads[2 * i + 1]) for i in reversed(range(n))]
    crop = tuple(slice(max(-lo, 0), s - max(-hi, 0)) for (lo, hi), s in zip(widths, x.shape))
    x = x[crop]
    grow = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
    npmode = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
              "circular": "wrap"}[mode]
    if mode == "constant":
        return np.pad(x, grow, constant_values=value)
    return np.pad(x, grow, mode=npmode)


def scatter(x, dim, index, src, reduce=None):
    out = x.copy()
    idx = list(np.indices(index.shape, sparse=True))
    idx[dim] = index
    src = src[tuple(slice(0, s) for s in index.shape)] if np.ndim(src) else src
    if reduce == "add":
        np.add.at(out, tuple(idx), src)
    else:
        out[tuple(idx)] = src
    return out


def gather(x, dim, index):
    idx = list(np.indices(index.shape, sparse=True))
    idx[dim] = index
    return x[tuple(idx)]
