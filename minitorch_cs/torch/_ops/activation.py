"""Activations torch computes in one kernel, in its order of operations: the gated linear unit
(not the composition ``a * sigmoid(b)``, which would round the sigmoid to a half dtype before
the product), the tanh approximation of GELU, hardshrink/softshrink, softplus and PReLU's
kernel."""
from __future__ import annotations

import math

import numpy as np

from .._layout import _strided_like, torch_layout
from ._kernel import Kernel, Pointwise
from ._opmath import opmath_dtype, scalar_loop_positions
from ._xp import graph_mode, ns
from .elementwise import _refuse, _to_dtype_checked

__all__ = ["Glu", "GeluTanh", "Hardshrink", "PreluKernel", "Softshrink"]


class Glu(Kernel):
    """``glu(x, dim)``: the first half of ``dim`` times the sigmoid of the second,
    ``a * (1 / (1 + exp(-b)))`` in the compute dtype (float32 for half precision), rounded once.

    Backward is torch's ``glu_backward``: ``s = sigmoid(b)`` in the input's dtype, the first
    half's gradient ``s * g`` and the second's ``(1 - s) * s * a * g`` (in the compute dtype,
    rounded once); a graph-recording backward writes the same products as tensor ops."""

    name = "glu"
    node_name = "GluBackward0"
    own_layout = True  # TensorIterator's over the two halves (views of the input)
    saved = (0,)
    graph_inputs = {"x": 0}

    @staticmethod
    def forward(ctx, x, dim):
        ctx.x, ctx.dim = x, dim
        wide = opmath_dtype(x.dtype)
        halves = np.split(x, 2, axis=dim)
        a, b = (h.astype(wide, copy=False) for h in halves)
        one = np.asarray(1, wide)
        with np.errstate(over="ignore"):
            r = a * (one / (one + np.exp(-b)))
        out = _strided_like(r.shape, x.dtype, torch_layout(r.shape, halves))
        np.copyto(out, r, casting="unsafe")
        return out

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x, dim = ctx.x, ctx.dim
        n = x.shape[dim] // 2
        a, b = xp.split_sizes(x, [n, n], dim)
        if graph_mode(xp):
            s = xp.expit(b)
            return (xp.concatenate([s * g, (1 - s) * s * a * g], dim),)
        wide = opmath_dtype(x.dtype)
        with np.errstate(over="ignore"):
            s = (1 / (1 + np.exp(-b.astype(wide)))).astype(x.dtype)  # torch's sigmoid kernel
        sw, gw = s.astype(wide), g.astype(wide)
        first = (sw * gw).astype(x.dtype)
        second = ((1 - sw) * sw * a.astype(wide) * gw).astype(x.dtype)
        return (np.concatenate([first, second], dim),)


class GeluTanh(Pointwise):
    """``gelu(approximate="tanh")`` as torch's kernels compute it, in the compute dtype (float32
    for half precision, rounded once): ``0.5 * x * (1 + tanh(beta * (x + kappa * x * x * x)))``,
    and the gradient ``dy * (0.5 * right + left * (1 - t * t) * (beta * (1 + 3 * kappa * x * x)))``
    with ``left = 0.5 * x``, ``right = 1 + t`` -- each in that order."""

    name = "gelu_tanh"
    saved = (0,)
    _BETA = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5
    _KAPPA = 0.044715

    @staticmethod
    def forward(ctx, x):  # (an ``out=`` target is written by the kernel base's rule)
        wide = opmath_dtype(x.dtype)
        xw = x.astype(wide, copy=False)
        beta, kappa = np.asarray(GeluTanh._BETA, wide), np.asarray(GeluTanh._KAPPA, wide)
        t = np.tanh(beta * (xw + kappa * (xw * xw * xw)))
        ctx.x, ctx.t = x, t
        return (np.asarray(0.5, wide) * xw * (1 + t)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x = ctx.x
        beta, kappa = GeluTanh._BETA, GeluTanh._KAPPA
        if graph_mode(xp):  # t depends on x: recomputed, as the forward computed it
            sq = x * x
            t = xp.tanh(beta * (x + kappa * (sq * x)))
            return (g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * (beta * (1 + 3 * kappa * sq))),)
        wide = opmath_dtype(g.dtype)
        c = lambda v: np.asarray(v, wide)  # noqa: E731
        xw, t = x.astype(wide, copy=False), ctx.t
        sq = xw * xw
        right_d = c(0.5) * xw * (1 - t * t) * (c(beta) * (1 + c(3) * c(kappa) * sq))
        return ((g.astype(wide, copy=False) * (c(0.5) * (1 + t) + right_d)).astype(g.dtype),)


def _shrink_bwd(ctx, g):
    """hardshrink's and softshrink's backward kernel: 0 where ``-lambd <= x <= lambd``, else
    the gradient, ``lambd`` in the input's dtype. At a NaN input torch's two loops disagree
    (measured on torch 2.13): its vector loop tests ``x < -lambd or x > lambd`` (0), its scalar
    loop the complement of the band (the gradient), so the elements of its scalar tail
    (:func:`scalar_loop_positions`) pass the gradient and the others do not."""
    xp = ns(g)
    x, lam = ctx.x, ctx.lam
    if graph_mode(xp):  # (a recorded backward: the band test alone)
        return (xp.where((x >= -lam) & (x <= lam), xp.zeros((), g.dtype), g),)
    with np.errstate(invalid="ignore"):
        passes = ~((x >= -lam) & (x <= lam))
        nan = np.isnan(x)
    if nan.any():  # (the vector loop needs the gradient in the input's layout or broadcast
        # along it; otherwise every element is the scalar loop's)
        same = isinstance(g, np.ndarray) and g.shape == x.shape and all(
            gs == 0 or gs // g.itemsize == xs // x.itemsize
            for gs, xs in zip(g.strides, x.strides))
        passes &= ~nan | (scalar_loop_positions(x) if same else True)
    return (xp.where(passes, g, xp.zeros((), g.dtype)),)


class Hardshrink(Pointwise):
    """``hardshrink(x, lambd)``: 0 where ``-lambd <= x <= lambd``, else ``x`` (NaN stays;
    ``lambd`` converted to the input's dtype first, as torch's kernel reads it); floating
    dtypes only."""

    name = "hardshrink"
    saved = (0,)

    @staticmethod
    def forward(ctx, x, lambd=0.5):
        _refuse("hardshrink_cpu", x.dtype, "biu")
        lam = np.asarray(_to_dtype_checked(lambd, x.dtype))  # (torch's conversion: a value
        ctx.x, ctx.lam = x, lam  # beyond the dtype's range is refused, not inf)
        with np.errstate(invalid="ignore"):
            return np.where((x >= -lam) & (x <= lam), np.zeros((), x.dtype), x)

    backward = staticmethod(_shrink_bwd)


class Softshrink(Pointwise):
    """``softshrink(x, lambd)``: ``x - lambd`` above ``lambd``, ``x + lambd`` below
    ``-lambd``, else zero (NaN stays), computed in float32 for float16/bfloat16 (torch's
    kernel) and rounded once. The zero's sign is the loop's (measured on torch 2.13): torch's
    vector loop gives +0.0, its scalar loop ``x * 0`` (-0.0 for a negative ``x``), so the
    elements of its scalar tail (:func:`scalar_loop_positions`) keep the sign."""

    name = "softshrink"
    saved = (0,)

    @staticmethod
    def forward(ctx, x, lambd=0.5):
        wide = opmath_dtype(x.dtype)
        lam = np.asarray(lambd).astype(wide)
        ctx.x, ctx.lam = x, np.asarray(lambd).astype(x.dtype)
        xw = x.astype(wide, copy=False)
        with np.errstate(invalid="ignore"):
            zero = np.where(scalar_loop_positions(x), xw * 0, np.abs(xw) * 0)
            r = np.where(xw > lam, xw - lam, np.where(xw < -lam, xw + lam, zero))
        return r.astype(x.dtype, copy=False)

    backward = staticmethod(_shrink_bwd)


class PreluKernel(Pointwise):
    """torch's ``_prelu_kernel(x, w)``: ``x`` where ``x > 0``, else ``w * x`` in the operands'
    dtype (``w`` already shaped to broadcast along the channel dim). Backward (torch's
    ``_prelu_kernel_backward``): ``grad`` or ``w * grad`` for ``x``; ``0`` or ``x * grad`` for
    ``w``, summed over the broadcast dims."""

    name = "prelu_kernel"
    saved = (0, 1)
    graph_inputs = {"x": 0, "w": 1}

    @staticmethod
    def forward(ctx, x, w):
        _refuse("prelu_cpu", x.dtype, "biu")
        ctx.x, ctx.w = x, w
        with np.errstate(invalid="ignore", over="ignore"):
            return np.where(x > 0, x, w * x)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x, w = ctx.x, ctx.w
        pos = x > 0
        need = ctx.needs_input_grad
        gx = xp.where(pos, g, w * g) if need[0] else None
        gw = xp.where(pos, xp.zeros((), g.dtype), x * g) if len(need) > 1 and need[1] else None
        return (gx, gw)


class Softplus(Pointwise):
    """torch's kernel: ``x`` where ``x * beta > threshold``, else ``log1p(exp(x * beta)) / beta``;
    the gradient ``grad * z / (z + 1)`` with ``z = exp(x * beta)``, in that order (float32 for
    half precision, rounded once)."""

    name = "softplus"
    saved = (0,)

    @staticmethod
    def forward(ctx, x, beta=1.0, threshold=20.0):
        ctx.x, ctx.beta, ctx.threshold = x, beta, threshold
        wide = opmath_dtype(x.dtype)
        xw = x.astype(wide, copy=False)
        b = np.asarray(beta, wide)
        bx = xw * b
        with np.errstate(over="ignore", invalid="ignore"):
            r = np.where(bx > np.asarray(threshold, wide), xw, np.log1p(np.exp(bx)) / b)
        return r.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        if not graph_mode(xp):
            wide = opmath_dtype(g.dtype)
            gw, xw = g.astype(wide, copy=False), ctx.x.astype(wide, copy=False)
            bx = xw * np.asarray(ctx.beta, wide)
            with np.errstate(over="ignore", invalid="ignore"):
                z = np.exp(bx)
                r = np.where(bx > np.asarray(ctx.threshold, wide), gw, gw * z / (z + 1))
            return (r.astype(g.dtype, copy=False),)
        bx = ctx.x * ctx.beta
        with xp.errstate(over="ignore", invalid="ignore"):
            z = xp.exp(bx)
            return (xp.where(bx > ctx.threshold, g, g * z / (z + 1)),)
