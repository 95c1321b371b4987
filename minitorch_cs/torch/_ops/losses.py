"""Loss kernels with torch's own formulas: binary cross-entropy (with logits), smooth L1 and
Huber, and the reduction they share with ``nll_loss``/``cross_entropy``; log-sigmoid, whose
buffer the logits loss reuses. Half precision follows each torch kernel as measured: some compute
in float32 and round once, others round every operation in the half dtype.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from ._kernel import Kernel, preserve_format
from ._opmath import (HALF as _HALF, LOOP_STEP, as_saved as _as_saved, opmath, rounder,
                      scalar_loop_positions)
from ._xp import graph_mode, ns

__all__ = ["BinaryCrossEntropy", "BinaryCrossEntropyWithLogits", "HuberLoss", "LogSigmoid",
           "SmoothL1Loss", "LOSS_EPSILON"]


def _reduce(loss, weight_sum, reduction):
    if reduction == "none":
        # an unbatched input's loss is accumulated from +0 by torch's kernel (a batch's is not)
        return loss + 0 if loss.ndim == 0 and loss.dtype.kind == "f" else loss
    # torch's sums start from +0 (numpy's from the first element: a sum of -0.0 stays -0.0)
    if reduction == "sum":
        return np.asarray(np.add.reduce(loss, None) + 0, loss.dtype)
    if reduction == "mean":
        return np.asarray((np.add.reduce(loss, None) + 0) / weight_sum, loss.dtype)
    raise ValueError(f"{reduction} is not a valid value for reduction")


# torch's loss kernels' EPSILON is a float constant: 1e-12 rounded to float32, in every dtype
LOSS_EPSILON = float(np.float32(1e-12))


class BinaryCrossEntropy(Kernel):
    """torch's ``binary_cross_entropy`` kernel: ``-(t * log(x) + (1 - t) * log(1 - x))`` with each
    log clamped at -100 (so saturated probabilities give finite losses), times ``weight``.
    Gradients (torch's formulas): ``g * w * (x - t) / max(x * (1 - x), eps)`` for the input
    (0, never NaN, where x is 0 or 1 and equals the target; ``eps`` is ``LOSS_EPSILON``), and
    ``-g * w * logit(x)`` for the target."""

    name = "binary_cross_entropy"
    saved = (0, 1, 2)  # input, target and weight, as torch's backward reads them
    graph_inputs = {"x": 0, "t": 1, "w": 2}

    @staticmethod
    @opmath
    def forward(ctx, x, t, w=None, reduction="mean"):
        # torch's kernel checks the values first (NaN fails both checks)
        if not np.all((x >= 0) & (x <= 1)):
            raise RuntimeError("all elements of input should be between 0 and 1")
        if not np.all((t >= 0) & (t <= 1)):
            raise RuntimeError("all elements of target should be between 0 and 1")
        ctx.x, ctx.t, ctx.w, ctx.reduction = x, t, w, reduction
        r = rounder(ctx.__dict__.get("half_dtype"))  # (torch's half kernel: every op rounds)
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = r(r(r(t - 1) * np.maximum(r(np.log1p(-x)), -100)) -
                     r(t * np.maximum(r(np.log(x)), -100)))
        if w is not None:
            loss = r(loss * w)
        loss = np.asarray(loss, x.dtype)
        return _reduce(loss, loss.size, reduction)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x, t, w, red = ctx.x, ctx.t, ctx.w, ctx.reduction
        size = math.prod(x.shape)
        mean = red == "mean" and size
        n = ctx.needs_input_grad
        gx = gt = None
        half = ctx.__dict__.get("half_dtype") if not graph_mode(xp) else None
        # torch's order: the formula with the incoming grad, then * weight, then / numel (mean)
        with xp.errstate(divide="ignore", invalid="ignore"):
            if n[0] and half is not None:
                gx = _bce_input_grad_half(np.asarray(g), x, t, w, size, red, half)
            elif n[0]:
                gx = g * (x - t) / xp.maximum((1 - x) * x, xp.asarray(LOSS_EPSILON, x.dtype))
                if w is not None:
                    gx = gx * w
                if mean:
                    gx = gx / size
            if len(n) > 1 and n[1] and half is not None:  # each op of the half dtype rounds
                r = rounder(half)
                gt = r(r(-r(np.log(r(x / r(1 - x))))) * np.asarray(g, np.float32))
                if w is not None:
                    gt = r(gt * w)
                if mean:
                    gt = r(gt / size)
            elif len(n) > 1 and n[1]:
                gt = -xp.log(x / (1 - x)) * g  # -logit(x) * grad (logit's kernel: log(x/(1-x)))
                if w is not None:
                    gt = gt * w
                if mean:
                    gt = gt / size
        return (gx, gt, None)


def _bce_input_grad_half(g, x, t, w, size, reduction, half):
    """torch's half-precision kernel for the input's gradient: every step rounded to the half
    dtype, the 1e-12 floor included (0 in float16, so x == t == 1 gives 0/0 = NaN there), then
    ``* weight`` and ``/ numel`` (mean) on the half result."""
    r = rounder(half)
    den = np.maximum(r(r(1 - x) * x), r(1e-12))
    gx = r(r(r(g) * r(x - t)) / den)
    if w is not None:
        gx = r(gx * w)
    if reduction == "mean" and size:
        gx = r(gx / size)
    return gx


class LogSigmoid(Kernel):
    """``log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|))`` (stable for any x); gradient
    ``sigmoid(-x)``. A contiguous result, as torch's kernel writes."""

    name = "log_sigmoid"
    saved = (0,)
    graph_inputs = {"x": 0}

    @staticmethod
    @opmath
    def forward(ctx, x):
        ctx.x = x
        return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x = ctx.x
        if graph_mode(xp):  # sigmoid(-x) itself: smooth at 0, where exp(-|x|) has a kink
            return (xp.astype(g * xp.expit(-x), xp.npdtype(g)),)
        # torch's kernel: (max_deriv - sign * b / (1 + b)) * grad, b = exp(-|x|) as stored
        b = _as_saved(ctx, np.exp(-np.abs(x)))
        t = b / (1 + b)
        return ((np.where(x < 0, 1 - t, t) * g.astype(t.dtype)).astype(g.dtype, copy=False),)


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
    saved = (0, 1, 2, 3)  # input, target, weight and pos_weight, as torch's backward reads them
    graph_inputs = {"x": 0, "t": 1, "w": 2, "pw": 3}

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
        same = all(a is None or a.dtype == x.dtype for a in (t, w, pw))
        ctx.half = x.dtype if x.dtype in _HALF and same else None
        with np.errstate(over="ignore", invalid="ignore"):
            return _reduce(loss, loss.size, reduction).astype(t.dtype)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x, t, w, pw = ctx.x, ctx.t, ctx.w, ctx.pw
        size = math.prod(x.shape)
        mean = ctx.reduction == "mean" and size
        if graph_mode(xp):  # the smooth ops, so that the gradient can be differentiated again
            sigmoid, log_sigmoid = xp.expit, (lambda v: xp.call(LogSigmoid, v))
            r = rounder(None)
        else:
            sigmoid, log_sigmoid = _sigmoid, _log_sigmoid
            r = rounder(ctx.__dict__.get("half"))  # torch's formulas are half tensor ops
            if ctx.__dict__.get("half") is not None:
                g = np.asarray(g, np.float32)
        n = ctx.needs_input_grad
        gx = gt = None
        # torch's order: the formula, times the grad, times the weight, over numel (a mean)
        with xp.errstate(invalid="ignore", over="ignore"):
            if n[0]:
                if pw is not None:
                    pt = r(pw * t)
                    gx = r(r(r(r(pt + 1) - t) * r(sigmoid(x))) - pt)
                else:
                    gx = r(r(sigmoid(x)) - t)
                gx = r(gx * g)
                if w is not None:
                    gx = r(gx * w)
                if mean:
                    gx = r(gx / size)
            if len(n) > 1 and n[1]:
                if pw is not None:
                    gt = r(r(r(log_sigmoid(-x)) - r(r(log_sigmoid(x)) * pw)) * g)
                else:
                    gt = r(-x * g)
                if w is not None:
                    gt = r(gt * w)
                if mean:
                    gt = r(gt / size)
        return (gx, gt, None, None)


class _PointwiseLoss(Kernel):
    """A loss of ``d = input - target`` with torch's own backward formula (which takes the
    sign branch for |d| beyond the threshold, so an infinite difference gives a finite
    gradient where a composition would give 0 * inf = NaN)."""

    saved = (0, 1)
    elementwise = True  # reduction="none": the inputs' layout, as torch's TensorIterator kernel
    graph_inputs = {"x": 0, "y": 1}

    # the half dtypes whose torch kernel computes in that dtype, rounding every operation (the
    # others compute half precision in float32 and round once); for the backward kernel, a half
    # dtype's mode: "own" (its arithmetic) or "float32" (the scalar formula's order in float32)
    per_op_half = ()
    half_bwd = {}

    @classmethod
    def _loss(cls, z, t, r):
        raise NotImplementedError

    @classmethod
    def _grad(cls, xp, d, t, norm, g):
        raise NotImplementedError

    @classmethod
    def _grad_scalar(cls, d, t, norm, g, r):
        """``_grad`` as torch's scalar loop writes it, ``r`` rounding each operation (to a half
        dtype computed in its own arithmetic; the identity otherwise)."""
        raise NotImplementedError

    @classmethod
    def _fwd(cls, ctx, x, y, threshold, reduction):
        ctx.x, ctx.y, ctx.t, ctx.reduction = x, y, threshold, reduction
        half = ctx.__dict__.get("half_dtype")
        r = rounder(half if half in cls.per_op_half else None)
        threshold = r(threshold)
        with np.errstate(invalid="ignore"):
            z = np.abs(r(x - y))
            loss = np.asarray(cls._loss(z, threshold, r)).astype(x.dtype, copy=False)
        return _reduce(loss, loss.size, reduction)

    @classmethod
    def _bwd(cls, ctx, g):
        # torch's backward kernel: norm (1/numel for a mean, else 1, in the dtype) times the
        # incoming grad inside the formula, in its order; the target's gradient is the kernel
        # with the operands swapped, which is exactly the negation
        xp = ns(g)
        d = ctx.x - ctx.y
        size = math.prod(d.shape)
        dt = xp.npdtype(d)
        norm = 1.0 / size if ctx.reduction == "mean" and size else 1.0
        half = ctx.__dict__.get("half_dtype")
        mode = cls.half_bwd.get(half) if half is not None and not graph_mode(xp) else None
        if mode is not None:
            # torch's scalar backward formula: in the half dtype's own arithmetic (every
            # operation rounded), or in float32 (rounded once at the end)
            rh = rounder(half if mode == "own" else None)

            def r(v):
                return rh(np.asarray(v, np.float32))
            g32 = np.asarray(g).astype(np.float32)
            with np.errstate(invalid="ignore"):
                gx = cls._grad_scalar(r(d), r(ctx.t), r(norm), g32, r)
            gx = np.asarray(gx).astype(half)
            n = ctx.needs_input_grad
            return (gx if n[0] else None, -gx if len(n) > 1 and n[1] else None)
        norm = xp.asarray(norm, dt)
        with xp.errstate(invalid="ignore"):
            gx = xp.astype(cls._grad(xp, d, xp.asarray(ctx.t, dt), norm, g), dt)
            x, y = ctx.x, ctx.y
            if not graph_mode(xp) and dt.kind == "f" and dt.itemsize in LOOP_STEP:
                # torch's scalar loop (the tail of a contiguous loop; all of a strided one)
                # associates the formula as written in C++, its vector loop as above
                plain = x.flags.c_contiguous and y.flags.c_contiguous and x.shape == y.shape
                scalar = scalar_loop_positions(x) if plain else True
                tail = cls._grad_scalar(d, np.asarray(ctx.t, dt), norm, np.asarray(g, dt),
                                        rounder(None))
                gx = np.where(scalar, tail, gx).astype(dt, copy=False)
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

    per_op_half = (np.dtype(np.float16),)  # (bfloat16 computes in float32; measured, 2.13)
    half_bwd = {np.dtype(np.float16): "float32"}

    @staticmethod
    def _loss(z, beta, r):
        return np.where(z < beta, r(r(r(0.5 * z) * z) / beta), r(z - r(0.5 * beta)))

    @staticmethod
    def _grad(xp, d, beta, norm, g):
        return xp.where(d <= -beta, -norm * g, xp.where(d >= beta, norm * g, norm * (d / beta) * g))

    @staticmethod
    def _grad_scalar(d, beta, norm, g, r):
        return np.where(d <= -beta, r(-norm * g),
                        np.where(d >= beta, r(norm * g), r(r(r(norm * d) * g) / beta)))


class HuberLoss(_PointwiseLoss):
    """torch's ``huber_loss`` kernel: ``0.5 d^2`` below ``delta``, ``delta (|d| - delta/2)``
    above; gradient ``d`` inside, ``delta * sign(d)`` outside."""

    name = "huber_loss"
    own_layout = True  # torch writes into empty_like(input), whatever the target's layout

    @staticmethod
    @opmath
    def forward(ctx, x, y, delta=1.0, reduction="mean"):
        r = HuberLoss._fwd(ctx, x, y, delta, reduction)
        return preserve_format(x, r) if reduction == "none" else r

    @staticmethod
    def backward(ctx, g):
        return HuberLoss._bwd(ctx, g)

    per_op_half = (np.dtype(D.bfloat16.np),)  # (float16 computes in float32: measured, 2.13)
    half_bwd = {np.dtype(D.bfloat16.np): "own"}

    @staticmethod
    def _loss(z, delta, r):
        return np.where(z < delta, r(r(0.5 * z) * z), r(delta * r(z - r(0.5 * delta))))

    @staticmethod
    def _grad(xp, d, delta, norm, g):
        return xp.where(d <= -delta, -(norm * delta) * g,
                        xp.where(d >= delta, (norm * delta) * g, norm * d * g))

    @staticmethod
    def _grad_scalar(d, delta, norm, g, r):
        return np.where(d <= -delta, r(r(-norm * g) * delta),
                        np.where(d >= delta, r(r(norm * g) * delta), r(r(norm * d) * g)))
