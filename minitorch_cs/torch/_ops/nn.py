"""Neural-network primitives: softmax family, nll/cross-entropy, normalization, embedding, conv,
pooling (the other loss kernels are in ``losses``).

Fused where it matters for numerics (log_softmax + nll in cross_entropy) or measured speed (layer
norm); everything else in ``nn.functional`` is composed from primitives.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from .. import _dtype as D
from .._dispatch import Op
from ._kernel import Kernel
from .._kernels.moments import fma32, row_moments32, row_moments64
from ._opmath import as_saved as _as_saved, opmath, rounder
from ._xp import NP, graph_mode, ns, raw
from ._opmath import HALF as _HALF
from .losses import _reduce


def _log_softmax(x, axis, half=None):
    """``x - max - log(sum(exp(x - max)))`` along ``axis``. ``half``: the half dtype of a
    float32-widened input; along its last dim torch's kernel keeps the sum, and then its log,
    in that dtype (each rounded once) before subtracting in float32 (measured on torch 2.13;
    over another dim everything stays float32)."""
    if x.size == 0:
        return x.copy()
    # (the ufuncs' reduce methods: numpy's max/sum are these, without their Python wrappers)
    m = np.maximum.reduce(x, axis=axis, keepdims=True)
    z = x - m
    s = np.add.reduce(np.exp(z), axis=axis, keepdims=True)
    if half is not None and axis in (-1, x.ndim - 1):
        with np.errstate(all="ignore"):
            return z - np.log(s.astype(half).astype(x.dtype)).astype(half).astype(x.dtype)
    return z - np.log(s)


class Softmax(Kernel):
    name = "softmax"
    saves_output = True

    @staticmethod
    @opmath
    def forward(ctx, x, dim):
        return _softmax(ctx, x, dim)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        y = ctx.y
        return (y * (g - xp.sum(g * y, axis=ctx.dim, keepdims=True)),)


def _softmax(ctx, x, dim):
    """Softmax's forward (float32 for a half input, ``ctx.half_dtype`` set by opmath); saves
    the result its backward reads."""
    if x.size == 0:  # nothing to normalise (np.max has no identity)
        ctx.y, ctx.dim = x.copy(), dim
        return ctx.y
    z = x - np.maximum.reduce(x, axis=dim, keepdims=True)  # (np.max would warn on NaN)
    e = np.exp(z)
    s = np.add.reduce(e, axis=dim, keepdims=True)
    half = getattr(ctx, "half_dtype", None)
    if half is not None and x.ndim and dim % x.ndim != x.ndim - 1:
        # over an inner dim torch's kernel stores exp(x - max) in the half-precision output
        # first (the sum takes the unrounded values), then scales the stored values
        e = e.astype(half).astype(np.float32)
    e *= 1 / s  # (torch: times the reciprocal)
    ctx.y, ctx.dim = _as_saved(ctx, e), dim
    return e


class SafeSoftmax(Softmax):
    """torch's ``_safe_softmax`` (attention's math path): ``softmax`` along ``dim``, except that
    a slice whose values are all -inf gives zeros instead of NaN. Its backward is softmax's,
    read with that result (so a dead slice passes ``0 * (g - sum(g * 0))``: NaN where the
    incoming gradient is infinite, as torch's)."""

    name = "_safe_softmax"
    node_name = "SafeSoftmaxBackward0"

    @staticmethod
    @opmath
    def forward(ctx, x, dim):
        dead = np.logical_and.reduce(x == -np.inf, axis=dim, keepdims=True) if x.size else None
        y = _softmax(ctx, np.where(dead, 0, x) if dead is not None and dead.any() else x, dim)
        if dead is not None and dead.any():
            y = np.where(dead, np.zeros((), y.dtype), y)
            ctx.y = _as_saved(ctx, y)
        return y


class LogSoftmax(Kernel):
    name = "log_softmax"
    saves_output = True

    @staticmethod
    @opmath
    def forward(ctx, x, dim):
        y = _log_softmax(x, dim, getattr(ctx, "half_dtype", None))
        ctx.y, ctx.dim = _as_saved(ctx, y), dim
        return y

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        if g.dtype in _HALF:  # (torch's kernel sums a half gradient in float32, rounding once)
            g = xp.astype(g, np.float32)
        return (g - xp.exp(ctx.y) * xp.sum(g, axis=ctx.dim, keepdims=True),)


class NllLoss(Kernel):
    """nll_loss over log-probabilities (N, C, d1, ...) with class-index targets (N, d1, ...)."""

    name = "nll_loss"
    tensor_attrs = ("weight",)
    graph_aliases = ("target", "weight")

    @staticmethod
    @opmath
    def forward(ctx, logp, target, weight=None, ignore_index=-100, reduction="mean"):
        loss, ctx.bw = _nll_forward(ctx, logp, target, weight, ignore_index, reduction)
        return loss

    @staticmethod
    def backward(ctx, g):
        return (_nll_backward(ns(g), ctx, g), None, None)


def _check_target(logp, target):
    if logp.ndim < 1:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    if target.dtype.kind not in "iu":
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{D.scalar_name(target.dtype)}")
    n_expected = (logp.shape[0],) + logp.shape[2:] if logp.ndim > 1 else ()
    if target.shape != n_expected:
        if logp.ndim > 1 and target.shape[:1] != logp.shape[:1]:
            raise ValueError(f"Expected input batch_size ({logp.shape[0]}) to match target "
                             f"batch_size ({target.shape[0] if target.ndim else 0}).")
        raise RuntimeError(f"size mismatch (got input: {list(logp.shape)}, target: {list(target.shape)})")


def every_target_counts(target, n_classes, ignore_index, weight=None) -> bool:
    """No class weights, an ``ignore_index`` outside the classes and every target a class (the
    ufuncs' min/max reduce): the losses' selects and products by ones then change nothing."""
    return weight is None and target.size > 0 and not 0 <= ignore_index < n_classes and \
        0 <= np.minimum.reduce(target, None) and np.maximum.reduce(target, None) < n_classes


def _nll_forward(ctx, logp, target, weight, ignore_index, reduction):
    _check_target(logp, target)
    if logp.ndim > 2:
        # torch's nll_loss2d: a 4-d input's, or (reduced) any input of 3 or more dims (folded
        # to 4 dims first; unreduced, its result is a view of nll_loss2d's)
        ctx.torch_node = "NllLoss2DBackward0" if logp.ndim == 4 or reduction != "none" \
            else "ViewBackward0"
    C = logp.shape[1] if logp.ndim > 1 else logp.shape[0]
    ctx.all_count = logp.ndim == 2 and every_target_counts(target, C, ignore_index, weight)
    if ctx.all_count:  # the common case: the general rule below without its no-op selects
        t, valid = target, None
    else:
        valid = target != ignore_index
        t = np.where(valid, target, 0)
        if t.size and (t.min() < 0 or t.max() >= C):
            bad = int(t[(t < 0) | (t >= C)].flat[0])
            raise IndexError(f"Target {bad} is out of bounds.")
    if logp.ndim == 1:
        picked = logp[t]
    elif logp.ndim == 2:  # (N, C): one element per row (take_along_axis without its set-up)
        picked = logp[np.arange(logp.shape[0]), t]
    else:
        picked = np.squeeze(np.take_along_axis(logp, np.expand_dims(t, 1), axis=1), 1)
    if valid is None:
        w = np.ones(t.shape, logp.dtype)
        loss = np.negative(picked)
    else:
        w = (weight[t] if weight is not None else np.ones(t.shape, logp.dtype)) * valid
        w = w.astype(logp.dtype)
        # torch skips an ignored target (a select: its loss is 0 even where the input is ±inf/NaN)
        loss = np.where(valid, -picked * w, np.zeros((), logp.dtype))
    wsum = np.add.reduce(w, None)
    ctx.t, ctx.w, ctx.shape, ctx.reduction, ctx.wsum = t, w, logp.shape, reduction, wsum
    ctx.target, ctx.weight, ctx.ignore_index = target, weight, ignore_index
    return _reduce(loss, wsum, reduction), None


def _nll_weights(xp, ctx):
    """(t, w, wsum) of :func:`_nll_forward`: the stored arrays, or in graph mode recomputed
    from the target and weight tensors (so a graph capture sees where they come from)."""
    if not graph_mode(xp):
        return ctx.t, ctx.w, ctx.wsum
    target, weight = ctx.target, ctx.weight
    dt = raw(ctx, "w").dtype
    valid = target != ctx.ignore_index
    t = xp.where(valid, target, 0)
    w = xp.getitem(weight, t) if weight is not None else xp.ones(tuple(t.shape), dt)
    w = xp.astype(w * valid, dt)
    return t, w, xp.sum(w)


def _nll_backward(xp, ctx, g):
    red = ctx.reduction
    t, w, wsum = _nll_weights(xp, ctx)
    if not graph_mode(xp) and raw(ctx, "all_count") and red != "none":
        # weights of one, none ignored, wsum = N > 0: the general rule's selects are no-ops
        coef = w * (g / wsum) if red == "mean" else w * g
        z = np.zeros(ctx.shape, coef.dtype)
        z[np.arange(ctx.shape[0]), t] = -coef
        return z
    zero = xp.zeros((), np.result_type(xp.npdtype(w), xp.npdtype(g)))
    if red == "mean":  # every target ignored: the total weight is 0 and so is the gradient
        if graph_mode(xp):
            coef = xp.where(w == 0, zero, w * (g / xp.where(wsum == 0, 1, wsum)))
        else:
            coef = np.where(w == 0, zero, w * (g / wsum) if wsum else zero)
    else:
        coef = xp.where(w == 0, zero, w * g)
    z = xp.zeros(ctx.shape, coef.dtype)
    if len(ctx.shape) == 1:
        return xp.set_at(z, t, -coef)
    if len(ctx.shape) == 2 and not graph_mode(xp):  # (N, C): the rows picked by index
        z[np.arange(ctx.shape[0]), t] = -coef
        return z
    return xp.put_along_axis(z, xp.expand_dims(t, 1), -xp.expand_dims(coef, 1), 1)


class CrossEntropy(Kernel):
    """cross_entropy with class-index targets: log_softmax + nll fused (with label smoothing)."""

    name = "cross_entropy"
    tensor_attrs = ("weight",)
    graph_aliases = ("target", "weight")

    @staticmethod
    @opmath
    def forward(ctx, x, target, weight=None, ignore_index=-100, reduction="mean",
                label_smoothing=0.0):
        dim = 1 if x.ndim > 1 else 0
        half = getattr(ctx, "half_dtype", None)
        logp = _log_softmax(x, dim, half)
        if half is not None:  # torch's cross_entropy is log_softmax then nll_loss: the log-
            # probabilities both read are the half-precision output of the first
            logp = logp.astype(half).astype(np.float32)
        ctx.logp, ctx.dim, ctx.ls, ctx.weight = logp, dim, label_smoothing, weight
        loss, _ = _nll_forward(ctx, logp, target, weight, ignore_index, reduction)
        if label_smoothing > 0:
            ctx.torch_node = "AddBackward0"  # (torch's composition ends adding the smoothing)
            C = x.shape[dim]
            valid = (target != ignore_index)
            if weight is not None:
                shape = [1] * x.ndim
                shape[dim] = C
                smooth = -(logp * weight.reshape(shape)).sum(dim)
            else:
                smooth = -logp.sum(dim)
            # ignored targets: 0, NaN logits included (torch's masked_fill, not a product)
            smooth = np.where(valid, smooth, np.zeros((), smooth.dtype))
            if reduction == "mean":
                denom = ctx.wsum if weight is not None else valid.sum()
                smooth_r = smooth.sum() / denom
            elif reduction == "sum":
                smooth_r = smooth.sum()
            else:
                smooth_r = smooth
            ctx.smooth_denom = denom if reduction == "mean" else None
            ctx.valid = valid
            loss = (1 - label_smoothing) * loss + (label_smoothing / C) * smooth_r
            loss = np.asarray(loss, x.dtype)
        return loss

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        ls = ctx.ls
        gl = _nll_backward(xp, ctx, g)
        if ls > 0:
            C = ctx.shape[ctx.dim]
            gl = gl * (1 - ls)
            zero = xp.zeros((), g.dtype)
            if graph_mode(xp):
                valid = ctx.target != ctx.ignore_index
                if ctx.reduction == "mean":
                    denom = _nll_weights(xp, ctx)[2] if ctx.weight is not None else \
                        xp.sum(valid)
                    cs = xp.where(valid & (denom != 0), g / xp.where(denom == 0, 1, denom), zero)
                else:
                    cs = xp.where(valid, g, zero)
            elif ctx.reduction == "mean":
                cs = np.where(ctx.valid, g / ctx.smooth_denom if ctx.smooth_denom else zero, zero)
            else:
                cs = np.where(ctx.valid, g, zero)
            cs = xp.astype(xp.expand_dims(cs * (ls / C), ctx.dim), xp.npdtype(gl))
            if ctx.weight is not None:
                shape = [1] * len(ctx.shape)
                shape[ctx.dim] = C
                gl = gl - cs * xp.reshape(ctx.weight, shape)
            else:
                gl = gl - cs
        # d(-sum_c a_c logp_c)/dx = -a + softmax * sum_c a_c, where gl holds -a
        if graph_mode(xp):  # the log-probabilities as the output of a log_softmax of the input
            from .._autograd_graph import derived_outputs
            logp = derived_outputs(ctx, LogSoftmax, [0], [raw(ctx, "logp")], dim=ctx.dim)[0]
        else:
            logp = ctx.logp
        p = xp.exp(logp)
        return (gl - p * xp.sum(gl, axis=ctx.dim, keepdims=True), None, None)


class LayerNorm(Kernel):
    name = "layer_norm"
    saved = (0, 1)  # the input and weight, as torch's native_layer_norm saves them
    graph_inputs = {"w": 1}

    @staticmethod
    @opmath
    def forward(ctx, x, w=None, b=None, normalized_ndim=1, eps=1e-5, fused_half=True):
        axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
        if x.dtype in (np.float32, np.float64) and x.size and \
                getattr(ctx, "half_dtype", None) is None:
            return _layer_norm_rows(ctx, x, w, b, axes, eps, group=not fused_half)
        mu = NP.mean(x, axis=axes, keepdims=True)  # (NP: numpy's warnings silenced, as torch)
        mu = mu + NP.mean(x - mu, axis=axes, keepdims=True)  # torch's row moments are exact on
        xc = x - mu  # a row of equal values (a zero variance, a zero normalized value)
        var = NP.mean(xc * xc, axis=axes, keepdims=True)
        rstd = 1.0 / np.sqrt(var + np.asarray(eps, x.dtype))
        if getattr(ctx, "half_dtype", None) is not None and fused_half:
            # torch's mixed-type layer-norm kernel: x * rstd + (-mean * rstd) as one fused
            # multiply-add (a slice of equal values normalizes to a rounding residue, not
            # exactly 0); group norm's (``fused_half=False``) rounds the product first
            bias = -(mu * rstd)
            xhat = (x.astype(np.float64) * rstd + bias).astype(np.float32)
        else:
            xhat = xc * rstd
        ctx.xhat, ctx.rstd, ctx.axes, ctx.w, ctx.eps = xhat, rstd, axes, w, eps
        y = xhat * w if w is not None else xhat.copy()
        if b is not None:
            y += b
        else:  # torch's kernel adds its shift (-mean * scale): an exact zero comes out +0.0
            y += 0
        return y  # @opmath rounds it back to a half input's dtype

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        axes, w = ctx.axes, ctx.w
        xhat, rstd = _normalized(xp, ctx)
        n = ctx.needs_input_grad
        gw = gb = gx = None
        lead = tuple(range(xhat.ndim - len(axes)))
        if len(n) > 1 and n[1]:
            gw = xp.sum(g * xhat, axis=lead)
        if len(n) > 2 and n[2]:
            gb = xp.sum(g, axis=lead)
        if n[0]:
            gh = g * w if w is not None else g
            m1 = xp.mean(gh, axis=axes, keepdims=True)
            m2 = xp.mean(gh * xhat, axis=axes, keepdims=True)
            gx = (gh - m1 - xhat * m2) * rstd
        return (gx, gw, gb)


# a float32 row whose largest magnitude times sqrt(length) stays under this can overflow
# nowhere in torch's moments (its squares and their sums stay finite), and is normalized with a
# two-pass mean and variance; any other row (non-finite ones included) takes torch's Welford
# cascade itself, which is exact but costs about 16 numpy passes per row
_SAFE_SCALE32 = 2.0 ** 60
_SKEW32 = 64.0  # rows with |mean| > 8 std also take the cascade (see _layer_norm_rows)
_SAFE_SCALE64 = 2.0 ** 500  # (float64's: squares stay under 2**1000)


def _layer_norm_rows(ctx, x, w, b, axes, eps, group=False):
    """float32 and float64 layer norm. The statistics: a two-pass mean (with a correction pass,
    exact on a row of equal values) and variance, within rounding of torch's; except for rows
    that could overflow inside torch's moments, which get torch's vectorized Welford cascade
    (``_kernels.moments``: NaN or infinite where torch's are), and, in float32, rows whose mean
    exceeds 8 standard deviations (where a last-bit difference in the mean would show). Those
    float32 rows take torch's output formula too, ``fma((x - mean) * rstd, weight, bias)``
    (``fma(x - mean, rstd, bias)`` without a weight): bit for bit torch 2.13's forward there.
    ``rstd = 1 / sqrt(var + eps)`` in the input's dtype; ``group``: group norm's statistics,
    its ``rstd`` computed in float64 and rounded once, and no affine parameters here (the
    caller applies them per channel). Without a bias, torch's kernel adds a zero shift: an
    exact zero comes out +0.0."""
    single = x.dtype == np.float32
    T = x.dtype.type
    safe = _SAFE_SCALE32 if single else _SAFE_SCALE64
    lead = x.shape[:x.ndim - len(axes)]
    keep = lead + (1,) * len(axes)
    rows = x.reshape(math.prod(lead), -1)
    with np.errstate(all="ignore"):
        scale = math.sqrt(rows.shape[1])
        risky = None  # (the whole array first: a per-row check costs more than the moments)
        if not max(float(rows.max()), -float(rows.min())) * scale < safe:
            risky = ~(np.abs(rows).max(axis=1) * scale < safe)
        mean = rows.mean(axis=1, keepdims=True)
        mean += (rows - mean).mean(axis=1, keepdims=True)
        dev = rows - mean
        var = (dev * dev).mean(axis=1)
        mean = mean[:, 0]
        if single:  # a row whose mean dwarfs its spread normalizes differences of nearly equal
            # values, where the last bit of the mean shows (|mean| / std ulps of it)
            skewed = mean * mean > T(_SKEW32) * var
            risky = skewed if risky is None else risky | skewed
        if risky is not None and not risky.any():
            risky = None
        if risky is not None:
            moments = row_moments32 if single else row_moments64
            mean[risky], var[risky] = moments(rows[risky])
        if group:
            rstd = (1.0 / np.sqrt(var.astype(np.float64) + eps)).astype(x.dtype)
        else:
            rstd = T(1) / np.sqrt(var + T(eps))
        mu, rstd = mean.reshape(keep), rstd.reshape(keep)
        xc = x - mu
        xhat = xc * rstd
        y = xhat * w if w is not None else xhat.copy()
        y += b if b is not None else T(0)
        if risky is not None and single:  # torch's fused output formula on those rows
            at = risky.reshape(lead)
            shift = b if b is not None else T(0)
            y[at] = fma32(xhat[at], w, shift) if w is not None else \
                fma32(xc[at], rstd[at], shift)
    ctx.xhat, ctx.rstd, ctx.axes, ctx.w, ctx.eps = xhat, rstd, axes, w, eps
    return y


def _normalized(xp, ctx):
    """(xhat, rstd) of a normalization: the forward's arrays, or in graph mode recomputed from
    the input tensor (both depend on it), in the forward's dtype and arithmetic."""
    if not graph_mode(xp):
        return ctx.xhat, ctx.rstd
    x = xp.astype(ctx.input(0), raw(ctx, "xhat").dtype)
    axes = ctx.axes
    mu = xp.mean(x, axis=axes, keepdims=True)
    xc = x - mu
    var = xp.mean(xc * xc, axis=axes, keepdims=True)
    rstd = 1.0 / xp.sqrt(var + xp.asarray(ctx.eps, x.dtype))
    return xc * rstd, rstd


class BatchNormTrain(Kernel):
    """batch_norm with batch statistics (training). The running statistics (inputs 3 and 4,
    optional, already updated by the caller) are only saved: torch's kernel saves them, so
    changing them in place before backward is refused, as in torch."""

    name = "batch_norm"
    saved = (0, 1, 3, 4)  # the input, weight and running statistics, as torch's kernel saves
    suggest_format = (0,)  # torch: input.suggest_memory_format()
    graph_inputs = {"w": 1}

    @staticmethod
    def forward(ctx, x, w=None, b=None, rm=None, rv=None, eps=1e-5):
        # a half input with half (or no) parameters: torch's kernel keeps the batch statistics
        # in the input's dtype (rounded), then normalizes in float32; with float32 parameters
        # (mixed precision) they stay float32
        given = [a for a in (w, b, rm, rv) if a is not None]
        rnd = x.dtype if x.dtype in _HALF and all(a.dtype == x.dtype for a in given) else None
        return _batch_norm_train(ctx, x, w, b, eps, round_stats=rnd)[0]

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        axes, w, shape = ctx.axes, ctx.w, ctx.shape
        xhat, rstd = _normalized(xp, ctx)
        n = ctx.needs_input_grad
        gw = xp.sum(g * xhat, axis=axes) if len(n) > 1 and n[1] else None
        gb = xp.sum(g, axis=axes) if len(n) > 2 and n[2] else None
        gx = None
        if n[0]:
            gh = g * xp.reshape(w, shape) if w is not None else g
            m1 = xp.mean(gh, axis=axes, keepdims=True)
            m2 = xp.mean(gh * xhat, axis=axes, keepdims=True)
            gx = (gh - m1 - xhat * m2) * rstd
        return (gx, gw, gb, None, None)


@opmath
def _batch_norm_train(ctx, x, w=None, b=None, eps=1e-5, round_stats=None):
    """The normalization of :class:`BatchNormTrain` (float32 for half inputs): (y, batch mean,
    biased batch variance, the statistics in float64 for the running update)."""
    axes = (0,) + tuple(range(2, x.ndim))
    shape = [1] * x.ndim
    shape[1] = x.shape[1]
    mu = NP.mean(x, axis=axes, keepdims=True)  # (NP: numpy's warnings silenced, as torch)
    xc = x - mu
    var = NP.mean(xc * xc, axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + np.asarray(eps, x.dtype))
    if round_stats is not None:
        mu_r = mu.astype(round_stats).astype(x.dtype)
        rstd = rstd.astype(round_stats).astype(x.dtype)
        xc = x - mu_r
    xhat = xc * rstd
    ctx.xhat, ctx.rstd, ctx.axes, ctx.w, ctx.shape, ctx.eps = xhat, rstd, axes, w, shape, eps
    # torch's kernel: y = x * alpha + beta with alpha = invstd * weight, beta = bias - mean *
    # alpha (so an infinite weight gives inf - inf = NaN, as there)
    mean = mu if round_stats is None else mu_r
    alpha = rstd * w.reshape(shape) if w is not None else rstd
    with np.errstate(invalid="ignore", over="ignore"):
        beta = -(mean * alpha) if b is None else b.reshape(shape) - mean * alpha
        y = x * alpha + beta
    return y, mu.reshape(-1).astype(np.float64), var.reshape(-1).astype(np.float64)


class Embedding(Kernel):
    name = "embedding"
    graph_aliases = ("idx",)

    @staticmethod
    def forward(ctx, w, idx, padding_idx=None):
        if idx.dtype.kind not in "iu":
            from .._tensor import _TYPE_NAMES
            name = _TYPE_NAMES.get(np.dtype(idx.dtype).name, str(idx.dtype))
            raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following "
                               f"scalar types: Long, Int; but got torch.{name} instead (while "
                               "checking arguments for embedding)")
        if idx.size and (idx.min() < 0 or idx.max() >= w.shape[0]):
            raise IndexError("index out of range in self")
        ctx.shape, ctx.idx, ctx.pad = w.shape, idx, padding_idx
        return w[idx]

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        z = xp.add_at(xp.zeros(ctx.shape, g.dtype), xp.reshape(ctx.idx, -1),
                      xp.reshape(g, (-1, ctx.shape[1])))
        if ctx.pad is not None:
            z = xp.set_at(z, ctx.pad, 0)
        return (z, None)


class UpsampleNearest(Kernel):
    """``interpolate`` in the nearest modes: each output reads the input at its source index per
    spatial dim (``indices``, computed by the caller with torch's rule). The gradient is torch's
    kernel: every input cell sums the outputs that read it from +0 in row-major output order
    (in float32 for half precision, rounded once)."""

    name = "upsample_nearest"

    @staticmethod
    def forward(ctx, x, indices):
        ctx.shape, ctx.indices = x.shape, indices
        out = x
        for d, idx in enumerate(indices):
            out = np.take(out, np.asarray(idx), axis=2 + d)
        return out

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        if graph_mode(xp):
            return (xp.call(UpsampleNearestBackward, g, shape=ctx.shape, indices=ctx.indices),)
        return (UpsampleNearestBackward.forward(ctx, g, ctx.shape, ctx.indices),)


class UpsampleNearestBackward(Op):
    """The nearest upsampling's input gradient (linear in ``g``; its gradient is the
    upsampling)."""

    name = "upsample_nearest_backward"

    @staticmethod
    def forward(ctx, g, shape, indices):
        ctx.indices = indices
        wide = _f32(g)
        runs = []  # per spatial dim: the outputs reading each input position (first, count)
        for d, idx in enumerate(indices):
            n_in, last = shape[2 + d], len(idx) - 1
            first = np.minimum(np.searchsorted(idx, np.arange(n_in)), last)
            runs.append((first, np.bincount(idx, minlength=n_in), last))
        out, zero = np.zeros(shape, wide.dtype), np.zeros((), wide.dtype)
        for offs in np.ndindex(*(int(c.max()) for _, c, _ in runs)):  # (row-major: torch's order)
            where = [np.minimum(f + o, last) for (f, _, last), o in zip(runs, offs)]
            has = functools.reduce(np.logical_and.outer,
                                   [o < c for (_, c, _), o in zip(runs, offs)])
            out += np.where(has, wide[(Ellipsis,) + np.ix_(*where)], zero)
        return _back(out, g)

    @staticmethod
    def backward(ctx, c):
        nd = len(ctx.indices)  # (the double backward's node: the nearest kernel, unnamed mode)
        return (ns(c).call(upsample_nearest(nd, False), c, indices=ctx.indices),)


_UPSAMPLE_NEAREST: dict = {}


def upsample_nearest(nd, exact):
    """The :class:`UpsampleNearest` kernel for ``nd`` spatial dims, named as torch's node is
    (``UpsampleNearest2DBackward0``, ``UpsampleNearestExact1DBackward0``, ...)."""
    key = (nd, exact)
    op = _UPSAMPLE_NEAREST.get(key)
    if op is None:
        name = f"UpsampleNearest{'Exact' if exact else ''}{nd}D"
        op = _UPSAMPLE_NEAREST[key] = type(name, (UpsampleNearest,), {
            "node_name": f"{name}Backward0", "__doc__": UpsampleNearest.__doc__})
    return op


class OneHot(Kernel):
    name = "one_hot"
    differentiable = False

    @staticmethod
    def forward(ctx, t, num_classes=-1):
        if t.dtype != np.int64:
            raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
        if t.size and t.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        n = int(t.max()) + 1 if num_classes == -1 else num_classes
        if t.size and t.max() >= n:
            raise RuntimeError("Class values must be smaller than num_classes.")
        return (t[..., None] == np.arange(n)).astype(np.int64)


# ----- convolution and pooling (kernels in _kernels.conv) -----------------------------------------
def _f32(x):
    """Half precision runs the pooling kernels in float32 (rounded back after), like torch's CPU."""
    return x.astype(np.float32) if x.dtype in _HALF else x


def _back(y, like):
    """Round a float32 result back to ``like``'s half dtype (other dtypes: unchanged)."""
    return y.astype(like.dtype) if like.dtype in _HALF else y


def _avgpool():
    from .._kernels import avgpool
    return avgpool


def _conv():
    from .._kernels import conv
    return conv


def _conv_nd(nd):
    """The kernels of ``conv{nd}d``."""
    if nd == 3:
        from .._kernels import conv3d
        return conv3d
    return _conv()


def use_mkldnn(x, w, groups, nd):
    """torch's ``use_mkldnn`` rule for a multi-threaded process: bfloat16 always; float32 when
    grouped, or the kernel's last two dims are both larger than 3, or the batch has more than
    one sample, or the batched input's first four dims hold more than 20480 elements (all of a
    2-D input; N*C*D*H of a 3-D one)."""
    if x.dtype == D.bfloat16.np:
        return True
    if x.dtype != np.float32:
        return False
    batched = x.shape if x.ndim == nd + 2 else (1,) + x.shape
    kh, kw = (w.shape[-2], w.shape[-1]) if nd >= 2 else (1, w.shape[-1])
    return groups > 1 or (kh > 3 and kw > 3) or batched[0] > 1 or \
        math.prod(batched[:4]) > 20480


def _uses_onednn(x, w, groups, nd):
    """Whether torch's CPU convolution takes oneDNN's direct kernel (which leaves the zero
    padding out of the products, so an infinite weight next to the border gives inf, not NaN):
    :func:`use_mkldnn`, and within oneDNN, measured on torch 2.13 (x86-64): a grouped
    convolution takes the direct kernel only when depthwise (one input and one output channel per
    group) or when both per-group channel counts are multiples of 4; the kernel applies the
    padding-extent condition itself (``_kernels.conv``)."""
    onednn = use_mkldnn(x, w, groups, nd)
    if onednn and groups > 1:
        cin, cout = w.shape[1], w.shape[0] // groups
        return (cin == cout == 1) or (cin % 4 == 0 and cout % 4 == 0)
    return onednn


class Conv(Kernel):
    name = "convolution"
    suggest_format = (0, 1)  # torch: input.suggest_memory_format()
    unbatched = True
    saved = (0, 1)
    reads = {0: (1,), 1: (0,)}  # (torch saves an operand only for the gradients that read it)
    graph_inputs = {"x": 0, "w": 1}

    @staticmethod
    def forward(ctx, x, w, b=None, stride=1, padding=0, dilation=1, groups=1, nd=2):
        k = _conv()
        ctx.x, ctx.w, ctx.args, ctx.nd = x, w, (stride, padding, dilation, groups), nd
        if x.ndim == nd + 1:  # torch: the batch of one's result squeezed (its node's name)
            ctx.torch_node = "SqueezeBackward1"
        if b is not None and x.ndim >= nd + 1 and x.shape[-nd - 1] == 0:
            ctx.bias_shape = b.shape  # torch: no input channels, an empty result of no
            b = None  # channels (and a zero bias gradient)
        half = x.dtype if x.dtype in _HALF else None
        if half is not None:  # float32 accumulation, result rounded back (torch's CPU rule)
            x, w = x.astype(np.float32), w.astype(np.float32)
        skip = _uses_onednn(ctx.x, w, groups, nd)
        if nd == 3:  # (and oneDNN's message for a zero dilation, torch's bias shape check)
            y = _conv_nd(3).conv3d_forward(x, w, stride, padding, dilation, groups, skip,
                                           use_mkldnn(ctx.x, w, groups, nd),
                                           None if b is None else b.shape)
        else:
            y = (k.conv2d_forward if nd == 2 else k.conv1d_forward)(
                x, w, stride, padding, dilation, groups, skip_padding=skip)
        if b is not None:  # (into the kernel's fresh result when no promotion is needed)
            y = np.add(y, b.reshape((-1,) + (1,) * nd), out=y if y.dtype == b.dtype else None)
        if x.dtype.kind in "iu":  # integer convolution (int64 products and sums, wrapping as C)
            return y.astype(x.dtype)
        return y if half is None else y.astype(half)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = ctx.needs_input_grad
        # each operand is read only for the gradient that needs it (torch saves it only then)
        gx = xp.call(ConvInputGrad, g, ctx.w, x_shape=tuple(raw(ctx, "x").shape), args=ctx.args,
                     nd=ctx.nd) if n[0] else None
        gw = xp.call(ConvWeightGrad, g, ctx.x, w_shape=tuple(raw(ctx, "w").shape),
                     args=ctx.args, nd=ctx.nd) if n[1] else None
        gb = None
        if len(n) > 2 and n[2]:
            shape = ctx.__dict__.get("_node", ctx).__dict__.get("bias_shape")
            if shape is not None:  # (no input channels: see forward)
                gb = xp.zeros(shape, g.dtype)
            else:
                axes = (0,) + tuple(range(2, g.ndim)) if g.ndim == ctx.nd + 2 else \
                    tuple(range(1, g.ndim))
                gb = xp.sum(g, axis=axes)
        return (gx, gw, gb)


def _conv_kw(args, nd):
    stride, padding, dilation, groups = args
    return dict(stride=stride, padding=padding, dilation=dilation, groups=groups, nd=nd)


class ConvInputGrad(Op):
    """A convolution's input gradient ``BI(g, w)`` (the adjoint of ``x -> conv(x, w)``), an op
    so that it can be differentiated again: ``<BI(g, w), c> = <g, conv(c, w)>`` gives its
    gradients ``conv(c, w)`` for ``g`` and ``BW(g, c)`` for ``w``."""

    name = "convolution_backward_input"
    saved = (0, 1)
    graph_inputs = {"g": 0, "w": 1}

    @staticmethod
    def forward(ctx, g, w, x_shape, args, nd):
        ctx.g, ctx.w, ctx.args, ctx.nd = g, w, args, nd
        return getattr(_conv_nd(nd), f"conv{nd}d_backward_input")(g, w, x_shape, *args)

    @staticmethod
    def backward(ctx, c):
        xp = ns(c)
        n = ctx.needs_input_grad
        w = ctx.w
        dg = xp.call(Conv, c, w, **_conv_kw(ctx.args, ctx.nd)) if n[0] else None
        dw = xp.call(ConvWeightGrad, ctx.g, c, w_shape=tuple(w.shape), args=ctx.args,
                     nd=ctx.nd) if n[1] else None
        return (dg, dw)


class ConvWeightGrad(Op):
    """A convolution's weight gradient ``BW(g, x)`` (the adjoint of ``w -> conv(x, w)``), an op
    so that it can be differentiated again: its gradients are ``conv(x, c)`` for ``g`` and
    ``BI(g, c)`` for ``x``."""

    name = "convolution_backward_weight"
    saved = (0, 1)
    graph_inputs = {"g": 0, "x": 1}

    @staticmethod
    def forward(ctx, g, x, w_shape, args, nd):
        ctx.g, ctx.x, ctx.args, ctx.nd = g, x, args, nd
        return getattr(_conv_nd(nd), f"conv{nd}d_backward_weight")(g, x, w_shape, *args)

    @staticmethod
    def backward(ctx, c):
        xp = ns(c)
        n = ctx.needs_input_grad
        x = ctx.x
        dg = xp.call(Conv, x, c, **_conv_kw(ctx.args, ctx.nd)) if n[0] else None
        dx = xp.call(ConvInputGrad, ctx.g, c, x_shape=tuple(x.shape), args=ctx.args,
                     nd=ctx.nd) if n[1] else None
        return (dg, dx)


class MaxPool2d(Kernel):
    name = "max_pool2d"
    saved = (0,)  # torch's backward reads the input (its version is checked)
    suggest_format = (0,)  # torch: input.suggest_memory_format()

    @staticmethod
    def forward(ctx, x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
        return _max_pool(ctx, x, (kernel_size, stride, padding, dilation, ceil_mode))

    @staticmethod
    def backward(ctx, g):
        return (ns(g).call(MaxPoolBackward, g, ctx.idx, **ctx.grad_kw),)


def _max_pool(ctx, x, args):
    """The pooled values; ``ctx`` keeps the winners and what their gradient needs."""
    y, ctx.idx = _conv().max_pool2d_forward(_f32(x), *args)
    ctx.grad_kw = dict(x_shape=x.shape, disjoint=_conv().pool_windows_disjoint(*args[:2], args[3]))
    return _back(y, x)


class MaxPoolBackward(Op):
    """max pooling's input gradient: ``g`` scattered to the argmax positions ``idx`` (summed
    where windows overlap; ``disjoint``: they do not); its gradient gathers from them
    (:class:`MaxPoolGather`)."""

    name = "max_pool2d_backward"
    saved = (1,)

    @staticmethod
    def forward(ctx, g, idx, x_shape, disjoint=False, nd=2):
        ctx.idx, ctx.disjoint, ctx.nd = idx, disjoint, nd
        # torch adds the contributions to a position one at a time in the gradient's dtype (a
        # half one's own arithmetic), for every number of pooled dims ``nd``
        r = rounder(g.dtype if g.dtype in _HALF else None)
        return _back(_conv().max_pool2d_backward(_f32(g), idx, x_shape, disjoint, nd, r), g)

    @staticmethod
    def backward(ctx, c):
        return (ns(c).call(MaxPoolGather, c, ctx.idx, disjoint=ctx.disjoint, nd=ctx.nd), None)


class MaxPoolGather(Op):
    """``x`` read at max pooling's argmax positions ``idx`` (flat offsets into each H*W plane;
    positions outside the plane read 0): the adjoint of :class:`MaxPoolBackward`."""

    name = "max_pool2d_gather"
    saved = (1,)

    @staticmethod
    def forward(ctx, x, idx, disjoint=False, nd=2):
        ctx.idx, ctx.x_shape, ctx.disjoint, ctx.nd = idx, x.shape, disjoint, nd
        planes = int(np.prod(x.shape[:-nd], dtype=np.int64))
        plane = math.prod(x.shape[-nd:])
        i = np.asarray(idx, np.int64).reshape(planes, math.prod(idx.shape[-nd:]))
        keep = (i >= 0) & (i < plane)
        r = np.take_along_axis(x.reshape(planes, plane), np.where(keep, i, 0), axis=1)
        return np.where(keep, r, np.zeros((), x.dtype)).reshape(idx.shape)

    @staticmethod
    def backward(ctx, g):
        return (ns(g).call(MaxPoolBackward, g, ctx.idx, x_shape=ctx.x_shape,
                           disjoint=ctx.disjoint, nd=ctx.nd), None)


class MaxPool2dWithIndices(Kernel):
    name = "max_pool2d_with_indices"
    saved = (0,)  # torch's backward reads the input (its version is checked)
    suggest_format = (0,)  # torch: input.suggest_memory_format()
    n_outputs = 2
    nondiff_outputs = (1,)
    saved_outputs = (1,)  # torch's backward reads the indices

    @staticmethod
    def forward(ctx, x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
        return _max_pool(ctx, x, (kernel_size, stride, padding, dilation, ceil_mode)), ctx.idx

    @staticmethod
    def backward(ctx, grads):
        return (ns(grads[0]).call(MaxPoolBackward, grads[0], ctx.idx, **ctx.grad_kw),)


class AdaptiveMaxPool2d(MaxPool2dWithIndices):
    """``adaptive_max_pool2d``: the values and their int64 offsets in each H*W plane (torch's
    node ``AdaptiveMaxPool2DBackward0`` saves the input and the indices); the gradient is max
    pooling's scatter into those offsets (windows may overlap), as max pooling's."""

    name = "adaptive_max_pool2d"
    node_name = "AdaptiveMaxPool2DBackward0"

    @staticmethod
    def forward(ctx, x, output_size):
        y, ctx.idx = _avgpool().adaptive_max_pool2d_forward(_f32(x), *output_size)
        ctx.grad_kw = dict(x_shape=x.shape, disjoint=False)
        return _back(y, x), ctx.idx


class AvgPool2d(Kernel):
    name = "avg_pool2d"
    saved = (0,)  # torch's backward reads the input (its version is checked)
    suggest_format = (0,)  # torch: input.suggest_memory_format()

    @staticmethod
    def forward(ctx, x, kernel_size, stride=None, padding=0, ceil_mode=False,
                count_include_pad=True, divisor_override=None):
        ctx.shape = x.shape
        ctx.args = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        if x.dtype.kind in "iu":  # int64: the sum divided with C's truncation, as torch does
            return _avgpool().avg_pool2d_forward(x.astype(np.int64), *ctx.args).astype(x.dtype)
        return _back(_avgpool().avg_pool2d_forward(_f32(x), *ctx.args), x)

    @staticmethod
    def backward(ctx, g):
        return (ns(g).call(AvgPoolBackward, g, x_shape=ctx.shape, args=ctx.args),)


_AVG_ARGS = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
             "divisor_override")


class AvgPoolBackward(Op):
    """average pooling's input gradient (linear in ``g``); its gradient is the pooling."""

    name = "avg_pool2d_backward"

    @staticmethod
    def forward(ctx, g, x_shape, args):
        ctx.args = args
        # (torch accumulates a half-precision gradient in the half dtype)
        r = rounder(g.dtype if g.dtype in _HALF else None)
        return _back(_avgpool().avg_pool2d_backward(_f32(g), x_shape, *args, rounding=r), g)

    @staticmethod
    def backward(ctx, c):
        return (ns(c).call(AvgPool2d, c, **dict(zip(_AVG_ARGS, ctx.args))),)


class AdaptiveAvgPool2d(Kernel):
    name = "adaptive_avg_pool2d"
    saved = (0,)  # torch's backward reads the input (its version is checked)
    suggest_format = (0,)  # torch: input.suggest_memory_format()

    @staticmethod
    def forward(ctx, x, output_size):
        ctx.shape, ctx.out = x.shape, output_size
        return _back(_avgpool().adaptive_avg_pool2d_forward(_f32(x), output_size), x)

    @staticmethod
    def backward(ctx, g):
        return (ns(g).call(AdaptiveAvgPoolBackward, g, x_shape=ctx.shape, output_size=ctx.out),)


class GlobalAvgPool2d(AdaptiveAvgPool2d):
    """``adaptive_avg_pool2d`` to ``(1, 1)``: torch computes it as a mean over the last two dims
    (its node is ``MeanBackward1`` and saves no input; a channels-last input's result is
    restrided to channels-last)."""

    saved = ()
    node_name = "MeanBackward1"


class AdaptiveAvgPoolBackward(Op):
    """adaptive average pooling's input gradient (linear in ``g``); its gradient is the
    pooling."""

    name = "adaptive_avg_pool2d_backward"

    @staticmethod
    def forward(ctx, g, x_shape, output_size):
        ctx.out = output_size
        # (torch accumulates a half-precision gradient in the half dtype)
        r = rounder(g.dtype if g.dtype in _HALF else None)
        return _back(_avgpool().adaptive_avg_pool2d_backward(_f32(g), x_shape, output_size,
                                                          rounding=r), g)

    @staticmethod
    def backward(ctx, c):
        return (ns(c).call(AdaptiveAvgPool2d, c, output_size=ctx.out),)
