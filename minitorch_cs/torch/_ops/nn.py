"""Neural-network primitives: softmax family, fused losses, normalization, embedding, conv, pooling.

Fused where it matters for numerics (log_softmax + nll in cross_entropy) or measured speed (layer
norm); everything else in ``nn.functional`` is composed from primitives.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from ._kernel import Kernel
from ._opmath import opmath
from .linalg import _HALF


def _log_softmax(x, axis):
    if x.size == 0:
        return x.copy()
    m = np.max(x, axis=axis, keepdims=True)
    z = x - m
    return z - np.log(np.sum(np.exp(z), axis=axis, keepdims=True))


class Softmax(Kernel):
    name = "softmax"
    saves_output = True

    @staticmethod
    @opmath
    def forward(ctx, x, dim):
        if x.size == 0:  # nothing to normalise (np.max has no identity)
            ctx.y, ctx.dim = x.copy(), dim
            return ctx.y
        z = x - np.max(x, axis=dim, keepdims=True)
        e = np.exp(z)
        e /= np.sum(e, axis=dim, keepdims=True)
        ctx.y, ctx.dim = e, dim
        return e

    @staticmethod
    def backward(ctx, g):
        y = ctx.y
        return (y * (g - np.sum(g * y, axis=ctx.dim, keepdims=True)),)


class LogSoftmax(Kernel):
    name = "log_softmax"
    saves_output = True

    @staticmethod
    @opmath
    def forward(ctx, x, dim):
        y = _log_softmax(x, dim)
        ctx.y, ctx.dim = y, dim
        return y

    @staticmethod
    def backward(ctx, g):
        return (g - np.exp(ctx.y) * np.sum(g, axis=ctx.dim, keepdims=True),)


def _reduce(loss, weight_sum, reduction):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return np.asarray(loss.sum(), loss.dtype)
    if reduction == "mean":
        return np.asarray(loss.sum() / weight_sum, loss.dtype)
    raise ValueError(f"{reduction} is not a valid value for reduction")


class NllLoss(Kernel):
    """nll_loss over log-probabilities (N, C, d1, ...) with class-index targets (N, d1, ...)."""

    name = "nll_loss"
    tensor_attrs = ("weight",)

    @staticmethod
    @opmath
    def forward(ctx, logp, target, weight=None, ignore_index=-100, reduction="mean"):
        loss, ctx.bw = _nll_forward(ctx, logp, target, weight, ignore_index, reduction)
        return loss

    @staticmethod
    def backward(ctx, g):
        return (_nll_backward(ctx, g), None, None)


def _check_target(logp, target):
    if logp.ndim < 1 or target.dtype.kind not in "iu":
        raise RuntimeError(f"expected scalar type Long but found {target.dtype}")
    n_expected = (logp.shape[0],) + logp.shape[2:] if logp.ndim > 1 else ()
    if target.shape != n_expected:
        if logp.ndim > 1 and target.shape[:1] != logp.shape[:1]:
            raise ValueError(f"Expected input batch_size ({logp.shape[0]}) to match target "
                             f"batch_size ({target.shape[0] if target.ndim else 0}).")
        raise RuntimeError(f"size mismatch (got input: {list(logp.shape)}, target: {list(target.shape)})")


def _nll_forward(ctx, logp, target, weight, ignore_index, reduction):
    _check_target(logp, target)
    C = logp.shape[1] if logp.ndim > 1 else logp.shape[0]
    valid = target != ignore_index
    t = np.where(valid, target, 0)
    if np.any((t < 0) | (t >= C)):
        bad = int(t[(t < 0) | (t >= C)].flat[0])
        raise IndexError(f"Target {bad} is out of bounds.")
    if logp.ndim == 1:
        picked = logp[t]
    else:
        picked = np.squeeze(np.take_along_axis(logp, np.expand_dims(t, 1), axis=1), 1)
    w = (weight[t] if weight is not None else np.ones(t.shape, logp.dtype)) * valid
    w = w.astype(logp.dtype)
    # torch skips an ignored target (a select: its loss is 0 even where the input is ±inf/NaN)
    loss = np.where(valid, -picked * w, np.zeros((), logp.dtype))
    wsum = w.sum()
    ctx.t, ctx.w, ctx.shape, ctx.reduction, ctx.wsum = t, w, logp.shape, reduction, wsum
    return _reduce(loss, wsum, reduction), None


def _nll_backward(ctx, g):
    red = ctx.reduction
    w = ctx.w
    zero = np.zeros((), np.result_type(w, g))
    if red == "mean":  # every target ignored: the total weight is 0 and so is the gradient
        coef = np.where(w == 0, zero, w * (g / ctx.wsum) if ctx.wsum else zero)
    else:
        coef = np.where(w == 0, zero, w * g)
    z = np.zeros(ctx.shape, coef.dtype)
    if len(ctx.shape) == 1:
        z[ctx.t] = -coef
    else:
        np.put_along_axis(z, np.expand_dims(ctx.t, 1), -np.expand_dims(coef, 1), axis=1)
    return z


class CrossEntropy(Kernel):
    """cross_entropy with class-index targets: log_softmax + nll fused (with label smoothing)."""

    name = "cross_entropy"
    tensor_attrs = ("weight",)

    @staticmethod
    @opmath
    def forward(ctx, x, target, weight=None, ignore_index=-100, reduction="mean",
                label_smoothing=0.0):
        dim = 1 if x.ndim > 1 else 0
        logp = _log_softmax(x, dim)
        ctx.logp, ctx.dim, ctx.ls, ctx.weight = logp, dim, label_smoothing, weight
        loss, _ = _nll_forward(ctx, logp, target, weight, ignore_index, reduction)
        if label_smoothing > 0:
            C = x.shape[dim]
            valid = (target != ignore_index)
            if weight is not None:
                shape = [1] * x.ndim
                shape[dim] = C
                smooth = -(logp * weight.reshape(shape)).sum(dim)
            else:
                smooth = -logp.sum(dim)
            smooth = smooth * valid
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
        ls = ctx.ls
        gl = _nll_backward(ctx, g)
        if ls > 0:
            C = ctx.shape[ctx.dim]
            gl = gl * (1 - ls)
            zero = np.zeros((), g.dtype)
            if ctx.reduction == "mean":
                cs = np.where(ctx.valid, g / ctx.smooth_denom if ctx.smooth_denom else zero, zero)
            else:
                cs = np.where(ctx.valid, g, zero)
            cs = np.expand_dims(cs * (ls / C), ctx.dim).astype(gl.dtype)
            if ctx.weight is not None:
                shape = [1] * len(ctx.shape)
                shape[ctx.dim] = C
                gl = gl - cs * ctx.weight.reshape(shape)
            else:
                gl = gl - cs
        # d(-sum_c a_c logp_c)/dx = -a + softmax * sum_c a_c, where gl holds -a
        p = np.exp(ctx.logp)
        return (gl - p * np.sum(gl, axis=ctx.dim, keepdims=True), None, None)


class CrossEntropyProbs(Kernel):
    """cross_entropy with class-probability targets (same shape as the input)."""

    name = "cross_entropy_probs"

    @staticmethod
    @opmath
    def forward(ctx, x, target, weight=None, reduction="mean", label_smoothing=0.0):
        dim = 1 if x.ndim > 1 else 0
        C = x.shape[dim]
        if label_smoothing > 0:
            target = (target * (1 - label_smoothing) + label_smoothing / C).astype(target.dtype)
        logp = _log_softmax(x, dim)
        shape = [1] * x.ndim
        shape[dim] = C
        wt = target * weight.reshape(shape) if weight is not None else target
        loss = -(logp * wt).sum(dim)
        n = loss.size if x.ndim > 1 else 1
        ctx.logp, ctx.wt, ctx.dim, ctx.reduction, ctx.n, ctx.target = logp, wt, dim, reduction, n, target
        # d(smoothed, weighted target)/d(target), for the target's gradient
        ctx.dt = (1 - label_smoothing) * (weight.reshape(shape) if weight is not None else 1)
        if reduction == "mean":
            return np.asarray(loss.sum() / n, x.dtype)
        return _reduce(loss, 1, reduction)

    @staticmethod
    def backward(ctx, g):
        if ctx.reduction == "mean":
            g = g / ctx.n
        g = np.expand_dims(g, ctx.dim) if ctx.reduction == "none" and ctx.logp.ndim > 1 else g
        p = np.exp(ctx.logp)
        gx = g * (p * ctx.wt.sum(ctx.dim, keepdims=True) - ctx.wt)
        gt = None
        if ctx.needs_input_grad[1]:
            gt = -g * ctx.logp * ctx.dt
        return (gx, gt, None)


class LayerNorm(Kernel):
    name = "layer_norm"
    saved = (1,)

    @staticmethod
    @opmath
    def forward(ctx, x, w=None, b=None, normalized_ndim=1, eps=1e-5):
        axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
        mu = x.mean(axis=axes, keepdims=True)
        mu = mu + (x - mu).mean(axis=axes, keepdims=True)  # torch's row moments are exact on
        xc = x - mu  # a row of equal values (a zero variance, a zero normalized value)
        var = (xc * xc).mean(axis=axes, keepdims=True)
        rstd = 1.0 / np.sqrt(var + np.asarray(eps, x.dtype))
        if getattr(ctx, "half_dtype", None) is not None:
            # torch's mixed-type kernel: x * rstd + (-mean * rstd) as one fused multiply-add
            # (a slice of equal values normalizes to a rounding residue, not exactly 0)
            bias = -(mu * rstd)
            xhat = (x.astype(np.float64) * rstd + bias).astype(np.float32)
        else:
            xhat = xc * rstd
        ctx.xhat, ctx.rstd, ctx.axes, ctx.w = xhat, rstd, axes, w
        y = xhat * w if w is not None else xhat.copy()
        if b is not None:
            y += b
        return y  # @opmath rounds it back to a half input's dtype

    @staticmethod
    def backward(ctx, g):
        xhat, rstd, axes, w = ctx.xhat, ctx.rstd, ctx.axes, ctx.w
        n = ctx.needs_input_grad
        gw = gb = gx = None
        lead = tuple(range(xhat.ndim - len(axes)))
        if len(n) > 1 and n[1]:
            gw = (g * xhat).sum(axis=lead)
        if len(n) > 2 and n[2]:
            gb = g.sum(axis=lead)
        if n[0]:
            gh = g * w if w is not None else g
            m1 = gh.mean(axis=axes, keepdims=True)
            m2 = (gh * xhat).mean(axis=axes, keepdims=True)
            gx = (gh - m1 - xhat * m2) * rstd
        return (gx, gw, gb)


class BatchNormTrain(Kernel):
    """batch_norm with batch statistics (training). The running statistics (inputs 3 and 4,
    optional, already updated by the caller) are only saved: torch's kernel saves them, so
    changing them in place before backward is refused, as in torch."""

    name = "batch_norm"
    saved = (3, 4)
    suggest_format = (0,)  # torch: input.suggest_memory_format()

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
        xhat, rstd, axes, w, shape = ctx.xhat, ctx.rstd, ctx.axes, ctx.w, ctx.shape
        n = ctx.needs_input_grad
        gw = (g * xhat).sum(axis=axes) if len(n) > 1 and n[1] else None
        gb = g.sum(axis=axes) if len(n) > 2 and n[2] else None
        gx = None
        if n[0]:
            gh = g * w.reshape(shape) if w is not None else g
            m1 = gh.mean(axis=axes, keepdims=True)
            m2 = (gh * xhat).mean(axis=axes, keepdims=True)
            gx = (gh - m1 - xhat * m2) * rstd
        return (gx, gw, gb, None, None)


@opmath
def _batch_norm_train(ctx, x, w=None, b=None, eps=1e-5, round_stats=None):
    """The normalization of :class:`BatchNormTrain` (float32 for half inputs): (y, batch mean,
    biased batch variance, the statistics in float64 for the running update)."""
    axes = (0,) + tuple(range(2, x.ndim))
    shape = [1] * x.ndim
    shape[1] = x.shape[1]
    mu = x.mean(axis=axes, keepdims=True)
    xc = x - mu
    var = (xc * xc).mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + np.asarray(eps, x.dtype))
    if round_stats is not None:
        mu_r = mu.astype(round_stats).astype(x.dtype)
        rstd = rstd.astype(round_stats).astype(x.dtype)
        xc = x - mu_r
    xhat = xc * rstd
    ctx.xhat, ctx.rstd, ctx.axes, ctx.w, ctx.shape = xhat, rstd, axes, w, shape
    y = xhat * w.reshape(shape) if w is not None else xhat.copy()
    if b is not None:
        y += b.reshape(shape)
    return y, mu.reshape(-1).astype(np.float64), var.reshape(-1).astype(np.float64)


class Embedding(Kernel):
    name = "embedding"

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
        z = np.zeros(ctx.shape, g.dtype)
        np.add.at(z, ctx.idx.reshape(-1), g.reshape(-1, ctx.shape[1]))
        if ctx.pad is not None:
            z[ctx.pad] = 0
        return (z, None)


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


def _conv():
    from .._kernels import conv
    return conv


def _uses_onednn(x, w, groups, nd):
    """Whether torch's CPU convolution takes oneDNN (which leaves the zero padding out of the
    products, so an infinite weight next to the border gives inf, not NaN) -- its
    ``use_mkldnn`` rule for a multi-threaded process: bfloat16 always; float32 when grouped, or
    the kernel is larger than 3x3, or the batch has more than one sample, or the input has more
    than 20480 elements."""
    if x.dtype == D.bfloat16.np:
        return True
    if x.dtype != np.float32:
        return False
    n = x.shape[0] if x.ndim == nd + 2 else 1
    kh, kw = (w.shape[-2], w.shape[-1]) if nd == 2 else (1, w.shape[-1])
    return groups > 1 or (kh > 3 and kw > 3) or n > 1 or x.size > 20480


class Conv(Kernel):
    name = "convolution"
    suggest_format = (0, 1)  # torch: input.suggest_memory_format()
    saved = (0, 1)
    reads = {0: (1,), 1: (0,)}  # (torch saves an operand only for the gradients that read it)

    @staticmethod
    def forward(ctx, x, w, b=None, stride=1, padding=0, dilation=1, groups=1, nd=2):
        k = _conv()
        f = k.conv2d_forward if nd == 2 else k.conv1d_forward
        ctx.x, ctx.w, ctx.args, ctx.nd = x, w, (stride, padding, dilation, groups), nd
        half = x.dtype if x.dtype in _HALF else None
        if half is not None:  # float32 accumulation, result rounded back (torch's CPU rule)
            x, w = x.astype(np.float32), w.astype(np.float32)
        y = f(x, w, stride, padding, dilation, groups,
              skip_padding=_uses_onednn(ctx.x, w, groups, nd))
        if b is not None:
            y = y + b.reshape((-1,) + (1,) * nd)
        if x.dtype.kind in "iu":  # integer convolution (int64 products and sums, wrapping as C)
            return y.astype(x.dtype)
        return y if half is None else y.astype(half)

    @staticmethod
    def backward(ctx, g):
        k = _conv()
        n = ctx.needs_input_grad
        if ctx.nd == 2:
            bi, bw = k.conv2d_backward_input, k.conv2d_backward_weight
        else:
            bi, bw = k.conv1d_backward_input, k.conv1d_backward_weight
        gx = bi(g, ctx.w, ctx.x.shape, *ctx.args) if n[0] else None
        gw = bw(g, ctx.x, ctx.w.shape, *ctx.args) if n[1] else None
        gb = None
        if len(n) > 2 and n[2]:
            axes = (0,) + tuple(range(2, g.ndim)) if g.ndim == ctx.nd + 2 else tuple(range(1, g.ndim))
            gb = g.sum(axis=axes)
        return (gx, gw, gb)


class MaxPool2d(Kernel):
    name = "max_pool2d"
    saved = (0,)  # torch's backward reads the input (its version is checked)
    suggest_format = (0,)  # torch: input.suggest_memory_format()

    @staticmethod
    def forward(ctx, x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
        y, idx = _conv().max_pool2d_forward(_f32(x), kernel_size, stride, padding, dilation,
                                            ceil_mode)
        ctx.idx, ctx.shape = idx, x.shape
        return _back(y, x)

    @staticmethod
    def backward(ctx, g):
        return (_back(_conv().max_pool2d_backward(_f32(g), ctx.idx, ctx.shape), g),)


class MaxPool2dWithIndices(Kernel):
    name = "max_pool2d_with_indices"
    saved = (0,)  # torch's backward reads the input (its version is checked)
    suggest_format = (0,)  # torch: input.suggest_memory_format()
    n_outputs = 2
    nondiff_outputs = (1,)
    saved_outputs = (1,)  # torch's backward reads the indices

    @staticmethod
    def forward(ctx, x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
        y, idx = _conv().max_pool2d_forward(_f32(x), kernel_size, stride, padding, dilation,
                                            ceil_mode)
        ctx.idx, ctx.shape = idx, x.shape
        return _back(y, x), idx

    @staticmethod
    def backward(ctx, grads):
        g = grads[0]
        return (_back(_conv().max_pool2d_backward(_f32(g), ctx.idx, ctx.shape), g),)


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
            return np.trunc(_conv().avg_pool2d_forward(x.astype(np.float64), *ctx.args)).astype(
                x.dtype)
        return _back(_conv().avg_pool2d_forward(_f32(x), *ctx.args), x)

    @staticmethod
    def backward(ctx, g):
        return (_back(_conv().avg_pool2d_backward(_f32(g), ctx.shape, *ctx.args), g),)


class AdaptiveAvgPool2d(Kernel):
    name = "adaptive_avg_pool2d"
    saved = (0,)  # torch's backward reads the input (its version is checked)
    suggest_format = (0,)  # torch: input.suggest_memory_format()

    @staticmethod
    def forward(ctx, x, output_size):
        ctx.shape, ctx.out = x.shape, output_size
        return _back(_conv().adaptive_avg_pool2d_forward(_f32(x), output_size), x)

    @staticmethod
    def backward(ctx, g):
        return (_back(_conv().adaptive_avg_pool2d_backward(_f32(g), ctx.shape, ctx.out), g),)


class BinaryCrossEntropy(Kernel):
    """torch's ``binary_cross_entropy`` kernel: ``-(t * log(x) + (1 - t) * log(1 - x))`` with each
    log clamped at -100 (so saturated probabilities give finite losses), times ``weight``.
    Gradients (torch's formulas): ``g * w * (x - t) / max(x * (1 - x), 1e-12)`` for the input
    (0, never NaN, where x is 0 or 1 and equals the target), ``-g * w * logit(x)`` for the
    target."""

    name = "binary_cross_entropy"
    saved = (0, 1)

    @staticmethod
    @opmath
    def forward(ctx, x, t, w=None, reduction="mean"):
        # torch's kernel checks the values first (NaN fails both checks)
        if not np.all((x >= 0) & (x <= 1)):
            raise RuntimeError("all elements of input should be between 0 and 1")
        if not np.all((t >= 0) & (t <= 1)):
            raise RuntimeError("all elements of target should be between 0 and 1")
        ctx.x, ctx.t, ctx.w, ctx.reduction = x, t, w, reduction
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = (t - 1) * np.maximum(np.log1p(-x), -100) - t * np.maximum(np.log(x), -100)
        if w is not None:
            loss = loss * w
        loss = np.asarray(loss, x.dtype)
        return _reduce(loss, loss.size, reduction)

    @staticmethod
    def backward(ctx, g):
        x, t, w, red = ctx.x, ctx.t, ctx.w, ctx.reduction
        if red == "mean":
            g = g / max(x.size, 1) if x.size else g
        n = ctx.needs_input_grad
        gx = gt = None
        with np.errstate(divide="ignore", invalid="ignore"):
            if n[0]:
                gx = g * (x - t) / np.maximum((1 - x) * x, np.asarray(1e-12, x.dtype))
                if w is not None:
                    gx = gx * w
            if len(n) > 1 and n[1]:
                gt = -(np.log(x) - np.log1p(-x)) * g
                if w is not None:
                    gt = gt * w
        return (gx, gt, None)


class LogSigmoid(Kernel):
    """``log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|))`` (stable for any x); gradient
    ``sigmoid(-x)``. A contiguous result, as torch's kernel writes."""

    name = "log_sigmoid"
    saved = (0,)

    @staticmethod
    @opmath
    def forward(ctx, x):
        ctx.x = x
        return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))

    @staticmethod
    def backward(ctx, g):
        x = ctx.x
        e = np.exp(-np.abs(x))
        # d/dx = 1 - sigmoid(x) = sigmoid(-x), from exp(-|x|) so it never overflows
        s = np.where(x >= 0, e / (1 + e), 1 / (1 + e))
        return ((g * s).astype(g.dtype, copy=False),)


def _log_sigmoid(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def _sigmoid(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


class BinaryCrossEntropyWithLogits(Kernel):
    """torch's fused ``binary_cross_entropy_with_logits`` (same-dtype operands):
    ``(1 - t) * x - log_sigmoid(x) * ((pw - 1) * t + 1)``, times ``weight``, reduced. Backward
    by torch's formulas: ``((pw * t + 1 - t) * sigmoid(x) - pw * t) * w * g`` for the input,
    ``(log_sigmoid(-x) - log_sigmoid(x) * pw) * w * g`` (no pos_weight: ``-x * w * g``) for the
    target -- products, so an infinite upstream gradient stays infinite."""

    name = "binary_cross_entropy_with_logits"
    saved = (0, 1)

    @staticmethod
    def forward(ctx, x, t, w=None, pw=None, reduction="mean"):
        # torch's composition, each step rounded to the dtype torch's op gives it (the in-place
        # ones keep their target's): (1 - t).mul_(x).sub_(log_sigmoid(x).mul_((pw - 1).mul(t)
        # .add_(1))), .mul_(w); the result has ``1 - t``'s dtype (t's)
        from .. import _dtype as D

        def dt(*arrs):
            out = D._BY_NP[arrs[0].dtype]
            for a in arrs[1:]:
                out = D.promote_types(out, D._BY_NP[a.dtype])
            return out.np

        f = np.float64
        x64, t64 = x.astype(f), t.astype(f)
        with np.errstate(over="ignore", invalid="ignore"):
            loss = (1 - t64).astype(t.dtype).astype(f)
            loss = (loss * x64).astype(t.dtype).astype(f)
            ls = _log_sigmoid(x64).astype(x.dtype).astype(f)
            if pw is not None:
                lw = (pw.astype(f) - 1).astype(pw.dtype).astype(f)
                lw_dt = dt(pw, t)
                lw = ((lw * t64).astype(lw_dt).astype(f) + 1).astype(lw_dt).astype(f)
                ls = (ls * lw).astype(x.dtype).astype(f)
            loss = (loss - ls).astype(t.dtype).astype(f)
            if w is not None:
                loss = (loss * w.astype(f)).astype(t.dtype).astype(f)
        ct = dt(x, t, *[a for a in (w, pw) if a is not None])
        ct = np.dtype(np.float32) if ct in _HALF else ct
        ctx.x, ctx.t = x.astype(ct), t.astype(ct)
        ctx.w = None if w is None else w.astype(ct)
        ctx.pw = None if pw is None else pw.astype(ct)
        ctx.reduction = reduction
        with np.errstate(over="ignore", invalid="ignore"):
            return _reduce(loss, loss.size, reduction).astype(t.dtype)

    @staticmethod
    def backward(ctx, g):
        x, t, w, pw = ctx.x, ctx.t, ctx.w, ctx.pw
        if ctx.reduction == "mean" and x.size:
            g = g / x.size
        n = ctx.needs_input_grad
        gx = gt = None
        with np.errstate(invalid="ignore", over="ignore"):
            if n[0]:
                if pw is not None:
                    pt = pw * t
                    gx = (pt + 1 - t) * _sigmoid(x) - pt
                else:
                    gx = _sigmoid(x) - t
                if w is not None:
                    gx = gx * w
                gx = gx * g
            if len(n) > 1 and n[1]:
                gt = _log_sigmoid(-x) - _log_sigmoid(x) * pw if pw is not None else -x
                if w is not None:
                    gt = gt * w
                gt = gt * g
        return (gx, gt, None, None)


class _PointwiseLoss(Kernel):
    """A loss of ``d = input - target`` with torch's own backward formula (which takes the
    sign branch for |d| beyond the threshold, so an infinite difference gives a finite
    gradient where a composition would give 0 * inf = NaN)."""

    saved = (0, 1)
    elementwise = True  # reduction="none": the inputs' layout, as torch's TensorIterator kernel

    @classmethod
    def _loss(cls, z, t):
        raise NotImplementedError

    @classmethod
    def _grad(cls, d, t):
        raise NotImplementedError

    @classmethod
    def _fwd(cls, ctx, x, y, threshold, reduction):
        ctx.x, ctx.y, ctx.t, ctx.reduction = x, y, threshold, reduction
        with np.errstate(invalid="ignore"):
            loss = np.asarray(cls._loss(np.abs(x - y), threshold)).astype(x.dtype, copy=False)
        return _reduce(loss, loss.size, reduction)

    @classmethod
    def _bwd(cls, ctx, g):
        d = ctx.x - ctx.y
        if ctx.reduction == "mean":
            g = g / d.size if d.size else g
        with np.errstate(invalid="ignore"):
            gx = np.asarray(cls._grad(d, ctx.t) * g)
        n = ctx.needs_input_grad
        return (gx if n[0] else None, -gx if len(n) > 1 and n[1] else None)


class SmoothL1Loss(_PointwiseLoss):
    """torch's ``smooth_l1_loss`` kernel: ``0.5 d^2 / beta`` below ``beta``, ``|d| - beta/2``
    above; gradient ``d / beta`` inside, ``sign(d)`` outside."""

    name = "smooth_l1_loss"

    @staticmethod
    @opmath
    def forward(ctx, x, y, beta=1.0, reduction="mean"):
        return SmoothL1Loss._fwd(ctx, x, y, beta, reduction)

    @staticmethod
    def backward(ctx, g):
        return SmoothL1Loss._bwd(ctx, g)

    @staticmethod
    def _loss(z, beta):
        return np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)

    @staticmethod
    def _grad(d, beta):
        return np.where(d < -beta, -1.0, np.where(d > beta, 1.0, d / beta)).astype(d.dtype)


class HuberLoss(_PointwiseLoss):
    """torch's ``huber_loss`` kernel: ``0.5 d^2`` below ``delta``, ``delta (|d| - delta/2)``
    above; gradient ``d`` inside, ``delta * sign(d)`` outside."""

    name = "huber_loss"

    @staticmethod
    @opmath
    def forward(ctx, x, y, delta=1.0, reduction="mean"):
        return HuberLoss._fwd(ctx, x, y, delta, reduction)

    @staticmethod
    def backward(ctx, g):
        return HuberLoss._bwd(ctx, g)

    @staticmethod
    def _loss(z, delta):
        return np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))

    @staticmethod
    def _grad(d, delta):
        return np.where(d < -delta, -delta, np.where(d > delta, delta, d)).astype(d.dtype)
