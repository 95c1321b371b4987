"""Reduction primitives (sum, mean, prod, max/min, var, logsumexp, norm, cumsum, sort, topk)."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from .. import _dtype as D
from ._kernel import Kernel
from ._opmath import HALF as _HALF
from ._opmath import opmath
from ._xp import NP, HalfOps, graph_mode, ns
from .._fpe import warn_user


def _expand_back(xp, g, shape, axis, keepdim):
    """Reshape a reduced gradient so it broadcasts against the input of ``shape``."""
    if axis is None:
        return xp.broadcast_to(xp.reshape(g, (1,) * len(shape)), shape)
    if not keepdim:
        g = xp.expand_dims(g, axis)
    return xp.broadcast_to(g, shape)


def _acc_dtype(x, dtype):
    if dtype is not None:
        return dtype
    if x.dtype.kind in "biu":
        return np.int64
    return None


def _accumulate(ufunc, x, axis, dtype=None):
    """``ufunc.accumulate`` along ``axis`` (what np.cumsum/np.cumprod do), 0-d inputs included."""
    if x.ndim == 0:
        return ufunc.accumulate(x.reshape(1), axis=0, dtype=dtype).reshape(())
    return ufunc.accumulate(x, axis=axis, dtype=dtype)


def _cumsum(x, axis, dtype=None):
    """torch's cumsum: each prefix sum starts from +0 (a prefix of zeros is ``0.``, never
    ``-0.``; numpy's starts from the first element)."""
    r = _accumulate(np.add, x, axis, dtype)
    if (r.dtype.kind == "f" or r.dtype in _HALF) and x.ndim:  # (a 0-d input is copied)
        r += 0  # (-0.0 + 0 is 0.0; every other value is unchanged)
    return r


def _var(x, axis, n, correction, keepdim):
    """np.var's arithmetic (sum, divide, square the deviations, sum, divide), the mean refined
    once by the mean deviation: torch's per-dim kernel is Welford's and its all-reduce takes the
    mean of its cascade sum, both exact where the values are all equal (a zero variance, so
    std's gradient is masked there); numpy's sum is not, the refined mean is."""
    mean = np.true_divide(np.add.reduce(x, axis=axis, keepdims=True), n)
    corr = np.true_divide(np.add.reduce(x - mean, axis=axis, keepdims=True), n)
    mean = np.where(np.isfinite(corr), mean + corr, mean)  # (an inf slice keeps its mean)
    dev = np.asarray(x - mean)
    np.multiply(dev, dev, out=dev)
    return np.true_divide(np.add.reduce(dev, axis=axis, keepdims=keepdim), n - correction)


class Sum(Kernel):
    name = "sum"

    @staticmethod
    @opmath
    def forward(ctx, x, axis=None, keepdim=False, dtype=None):
        ctx.shape, ctx.axis, ctx.keepdim = x.shape, axis, keepdim
        if axis is not None:
            ctx.torch_node = "SumBackward1"  # (torch's sum.dim_IntList)
        # ufunc methods, not np.sum/np.mean/np.var: numpy's Python wrappers would raise their
        # floating-point warnings from numpy's frames, past our filter (_fpe)
        r = np.add.reduce(x, axis=axis, dtype=_acc_dtype(x, dtype), keepdims=keepdim)
        return np.asarray(r)

    @staticmethod
    def backward(ctx, g):
        return (_expand_back(ns(g), g, ctx.shape, ctx.axis, ctx.keepdim),)


class NanSum(Kernel):
    """torch's nansum of a floating input: the sum with every NaN read as 0. The gradient is
    the sum's, multiplied by the input's non-NaN mask (torch's ``nansum_backward``), so a NaN
    gradient stays NaN even where the input was NaN (a ``where`` would give 0 there)."""

    name = "nansum"
    node_name = "NansumBackward0"
    saved = (0,)
    graph_inputs = {"x": 0}

    @staticmethod
    def forward(ctx, x, axis=None, keepdim=False, dtype=None):
        r = Sum.forward(ctx, np.where(np.isnan(x), x.dtype.type(0), x), axis, keepdim, dtype)
        ctx.__dict__.pop("torch_node", None)  # (the sum's dim overload name is not nansum's)
        ctx.x = x
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x = ctx.x
        gb = _expand_back(xp, g, tuple(x.shape), ctx.axis, ctx.keepdim)
        return (gb * (x == x),)


class Mean(Kernel):
    name = "mean"

    @staticmethod
    @opmath(half_dtype_in_float=True)  # torch's mean_out: a half-precision result dtype is
    # summed and divided in float32 (the input converted to float32), then rounded
    def forward(ctx, x, axis=None, keepdim=False, dtype=None):
        if x.dtype.kind in "biu" and dtype is None:
            raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                               f"floating point or complex dtype. Got: {D.scalar_name(D._BY_NP[x.dtype])}")
        ctx.shape, ctx.axis, ctx.keepdim = x.shape, axis, keepdim
        if axis is not None:
            ctx.torch_node = "MeanBackward1"  # (torch's mean.dim)
        n = x.size if axis is None else int(np.prod([x.shape[a] for a in axis]))
        ctx.n = n
        if n == 0:  # torch: nan, silently (numpy warns "Mean of empty slice")
            return np.full(np.add.reduce(x, axis=axis, keepdims=keepdim).shape, np.nan,
                           dtype or x.dtype)
        r = np.asarray(np.true_divide(np.add.reduce(x, axis=axis, dtype=dtype, keepdims=keepdim),
                                      n))  # np.mean's arithmetic
        return r.astype(dtype or x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        if not graph_mode(xp) and g.dtype in _HALF:  # torch divides by the count in float32
            g = g.view(HalfOps)
        r = _expand_back(xp, g / ctx.n if ctx.n else g * np.nan, ctx.shape, ctx.axis,
                         ctx.keepdim)
        return (np.asarray(r) if type(r) is HalfOps else r,)


class Prod(Kernel):
    name = "prod"
    saved = (0,)
    saves_output = True
    graph_inputs = {"x": 0}

    @staticmethod
    @opmath
    def forward(ctx, x, axis=None, keepdim=False, dtype=None):
        ctx.x, ctx.axis, ctx.keepdim = x, axis, keepdim
        if axis is not None:
            ctx.torch_node = "ProdBackward1"  # (torch's prod.dim_int)
        r = np.asarray(np.multiply.reduce(x, axis=axis, keepdims=keepdim,
                                          dtype=_acc_dtype(x, dtype)))
        half = getattr(ctx, "half_dtype", None)
        # the gradient reads the result torch saved: a half input's, rounded (inf where the
        # float32 product overflows half precision: a zero gradient times it is NaN, as in torch)
        ctx.y = r if half is None or dtype is not None else r.astype(half).astype(r.dtype)
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x, axis = ctx.x, ctx.axis
        shape = tuple(x.shape)
        gb = _expand_back(xp, g, shape, axis, ctx.keepdim)
        # torch: grad * result / input when nothing is 0, and prod() of all elements with two
        # zeros has no gradient (a graph uses the rule below always: whether the input holds a
        # zero is not known when the graph is built)
        if not graph_mode(xp) and x.ndim:
            zeros = int((x == 0).sum())
            if not zeros:
                with np.errstate(divide="ignore", invalid="ignore"):
                    return (gb * (_expand_back(xp, ctx.y, shape, axis, ctx.keepdim) / x),)
            if axis is None and zeros > 1:
                return (np.zeros(shape, gb.dtype),)
        # product of all other elements, robust to zeros: exclusive cumprods from both sides
        ax = tuple(range(x.ndim)) if axis is None else axis
        moved = xp.moveaxis(x, ax, tuple(range(-len(ax), 0)))
        lead = tuple(moved.shape[:moved.ndim - len(ax)])
        flat = xp.reshape(moved, lead + (-1,))
        ones = xp.ones(lead + (1,), x.dtype)
        left = xp.cumprod(xp.concatenate([ones, flat[..., :-1]], -1), -1)
        right = xp.flip(xp.cumprod(xp.concatenate([ones, xp.flip(flat, -1)[..., :-1]], -1), -1),
                        -1)
        others = xp.reshape(left * right, moved.shape)
        others = xp.moveaxis(others, tuple(range(-len(ax), 0)), ax)
        return (gb * others,)


class Amax(Kernel):
    """amax/amin and full max/min: the gradient is shared evenly among tied maxima."""

    name = "amax"
    saved = (0,)
    saves_output = True
    graph_inputs = {"x": 0}

    @staticmethod
    def forward(ctx, x, axis=None, keepdim=False, largest=True, evenly=False):
        ctx.x, ctx.axis, ctx.keepdim, ctx.evenly = x, axis, keepdim, evenly
        if evenly:  # torch's max()/min() of everything
            ctx.torch_node = "MaxBackward1" if largest else "MinBackward1"
        elif not largest:
            ctx.torch_node = "AminBackward0"
        # (an empty reduction is refused before, by each function's own error: _nonempty)
        f = np.maximum.reduce if largest else np.minimum.reduce  # (np.max's wrapper would
        r = np.asarray(f(x, axis=axis, keepdims=keepdim))  # warn about NaN from numpy's frame)
        ctx.y = r
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x = ctx.x
        if not ctx.evenly:  # amax/amin
            return (_scale_grad_by_count(xp, x, g, ctx.y, ctx.axis, ctx.keepdim),)
        # max()/min() of everything: torch's evenly_distribute_backward shares the gradient
        # among the elements equal to the result (the NaNs when it is NaN), written into zeros
        shape = tuple(x.shape)
        yb = _expand_back(xp, ctx.y, shape, ctx.axis, ctx.keepdim)
        gb = _expand_back(xp, g, shape, ctx.axis, ctx.keepdim)
        dt = xp.npdtype(x)
        with xp.errstate(divide="ignore", invalid="ignore"):
            mask = (x == yb) | (xp.isnan(x) & xp.isnan(yb)) if dt.kind == "f" or \
                dt in _HALF else x == yb
            cnt = xp.sum(mask, axis=ctx.axis, keepdims=True)
            return (xp.where(mask, gb / cnt, xp.zeros((), gb.dtype)),)


def _scale_grad_by_count(xp, x, g, y, axis, keepdim):
    """torch's ``scale_grad_by_count``: ``(g / count) * mask`` over the elements of ``x`` equal
    to the reduced result ``y`` (a NaN result matches nothing: 0 / 0 and NaN, as in torch)."""
    shape = tuple(x.shape)
    mask = x == _expand_back(xp, y, shape, axis, keepdim)
    cnt = xp.sum(mask, axis=axis, keepdims=True)
    with xp.errstate(divide="ignore", invalid="ignore"):
        return (_expand_back(xp, g, shape, axis, keepdim) / cnt) * mask


class Aminmax(Kernel):
    """``aminmax``: the smallest and largest values over ``axis`` (None: all) in one node
    (torch's ``AminmaxBackward0``); NaN propagates. Each result's gradient is shared evenly
    among the elements equal to it (torch's ``scale_grad_by_count``), and the two are added."""

    name = "aminmax"
    node_name = "AminmaxBackward0"
    saved = (0,)
    saved_outputs = (0, 1)  # torch's backward reads both results
    n_outputs = 2
    graph_inputs = {"x": 0}

    @staticmethod
    def forward(ctx, x, axis=None, keepdim=False):
        ctx.x, ctx.axis, ctx.keepdim = x, axis, keepdim
        # (an empty reduction is refused before, by the function: its own error)
        lo = np.asarray(np.minimum.reduce(x, axis=axis, keepdims=keepdim))
        hi = np.asarray(np.maximum.reduce(x, axis=axis, keepdims=keepdim))
        ctx.lo, ctx.hi = lo, hi
        return lo, hi

    @staticmethod
    def backward(ctx, grads):
        xp = ns(grads[0])
        lo, hi = (_scale_grad_by_count(xp, ctx.x, g, y, ctx.axis, ctx.keepdim)
                  for g, y in zip(grads, (ctx.lo, ctx.hi)))
        return (lo + hi,)


def _select_along(ctx, x, idx, dim, keepdim):
    """(values, int64 indices) of the entries ``idx`` (keepdims form) picks along ``dim``; saves
    what :func:`_select_along_backward` needs."""
    vals = np.take_along_axis(x, idx, axis=dim)
    ctx.shape, ctx.dim, ctx.idx, ctx.keepdim = x.shape, dim, idx, keepdim
    if not keepdim:
        vals, idx = np.squeeze(vals, dim), np.squeeze(idx, dim)
    return vals, idx.astype(np.int64)


def _select_along_backward(ctx, g):
    """The gradient of :func:`_select_along`: ``g`` put back at the selected entries."""
    xp = ns(g)
    if not ctx.keepdim:
        g = xp.expand_dims(g, ctx.dim)
    return xp.put_along_axis(xp.zeros(ctx.shape, g.dtype), ctx.idx, g, ctx.dim)


class MaxDim(Kernel):
    """max/min along one dim returning (values, indices); gradient goes to the returned index."""

    name = "max_dim"
    n_outputs = 2
    saved_outputs = (1,)  # torch's backward reads the indices
    nondiff_outputs = (1,)

    @staticmethod
    def forward(ctx, x, dim, keepdim=False, largest=True):
        if not largest:
            ctx.torch_node = "MinBackward0"  # (torch's min.dim; max.dim is MaxBackward0)
        idx = np.argmax(x, axis=dim, keepdims=True) if largest else np.argmin(x, axis=dim, keepdims=True)
        return _select_along(ctx, x, idx, dim, keepdim)

    @staticmethod
    def backward(ctx, grads):
        return (_select_along_backward(ctx, grads[0]),)


class SelectAlong(Kernel):
    """A kernel returning (values, int64 indices) of one entry per slice along ``dim``
    (:func:`_select_along`); its forward sets ``ctx.shape`` first, and a 0-d input is its own
    value. The gradient goes to the returned index (the indices are saved, as torch's backward
    reads them)."""

    n_outputs = 2
    saved_outputs = (1,)
    nondiff_outputs = (1,)

    @staticmethod
    def backward(ctx, grads):
        if not ctx.shape:
            return (grads[0],)
        return (_select_along_backward(ctx, grads[0]),)


def _median_index(x, axis):
    """Index of torch's median along ``axis`` (kept as a size-1 dim): the lower middle element of
    a stable sort, so ties resolve as torch's CPU kernel (which partitions on (value, index)); a
    slice with a NaN gives its first NaN."""
    k = (x.shape[axis] - 1) // 2
    idx = np.take(_argsort(x, axis), [k], axis=axis)
    if D._BY_NP[x.dtype].is_floating_point:
        nan = np.isnan(x)
        if nan.any():
            has = nan.any(axis=axis, keepdims=True)
            idx = np.where(has, np.argmax(nan, axis=axis, keepdims=True), idx)
    return idx


def _check_median_dtype(x, kernel):
    if x.dtype == np.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _evenly_backward(ctx, g):
    """torch's ``evenly_distribute_backward`` of an all-reduce selecting the value ``ctx.y`` of
    ``ctx.x``: ``g`` shared evenly by the elements equal to it (the NaNs when it is NaN)."""
    xp = ns(g)
    x, y = ctx.x, ctx.y
    mask = xp.where(xp.isnan(y), xp.isnan(x), x == y)
    return (xp.astype(xp.where(mask, g / xp.sum(mask), xp.zeros((), g.dtype)), xp.npdtype(g)),)


class Median(Kernel):
    """``median(input)``: the lower of the two middle values (NaN if any); the gradient is shared
    evenly by every element equal to it (torch's ``evenly_distribute_backward``)."""

    name = "median"
    node_name = "MedianBackward0"
    saved = (0,)
    saves_output = True
    graph_inputs = {"x": 0}

    @staticmethod
    def forward(ctx, x):
        _check_median_dtype(x, "median_cpu")
        flat = x.reshape(-1)
        if flat.size == 0:  # NaN, cast (an integer dtype gets its C cast of NaN, as in torch)
            r = np.asarray(np.nan).astype(x.dtype)
        else:
            r = flat[_median_index(flat, 0)[0]].reshape(())
        ctx.x, ctx.y = x, r
        return np.array(r)

    backward = staticmethod(_evenly_backward)


class MedianDim(SelectAlong):
    """``median(input, dim, keepdim)``: (values, indices); the gradient goes to the index."""

    name = "median_dim"
    node_name = "MedianBackward1"

    @staticmethod
    def forward(ctx, x, dim, keepdim=False):
        _check_median_dtype(x, "median_out")
        ctx.shape = x.shape
        if x.ndim == 0:  # one element: itself, at index 0
            return np.array(x, copy=True), np.zeros((), np.int64)
        if x.shape[dim] == 0:
            raise IndexError(f"median(): Expected reduction dim {dim} to have non-zero size.")
        return _select_along(ctx, x, _median_index(x, dim), dim, keepdim)


class Argmax(Kernel):
    name = "argmax"
    differentiable = False

    @staticmethod
    def forward(ctx, x, dim=None, keepdim=False, largest=True):
        f = np.argmax if largest else np.argmin
        if dim is None:
            r = np.asarray(f(x))
            return r.reshape((1,) * x.ndim) if keepdim else r
        return np.asarray(f(x, axis=dim, keepdims=keepdim)).astype(np.int64)


class Var(Kernel):
    name = "var"
    saved = (0,)
    graph_inputs = {"x": 0}

    @staticmethod
    @opmath
    def forward(ctx, x, axis=None, correction=1, keepdim=False, std=False):
        ctx.x, ctx.axis, ctx.correction, ctx.keepdim, ctx.std = x, axis, correction, keepdim, std
        n = x.size if axis is None else int(np.prod([x.shape[a] for a in axis]))
        ctx.n = n
        # torch accumulates in double for every floating dtype (Welford's update per dim, the
        # deviations from the mean for a whole-tensor reduction) and rounds the result once:
        # float32 and half inputs are computed in float64 here, which gives its rounded value
        xd = x.astype(np.float64) if x.dtype != np.float64 else x
        with np.errstate(divide="ignore", invalid="ignore"):
            if n - correction > 0:
                r = np.asarray(_var(xd, axis, n, correction, keepdim))
            else:  # torch divides by max(0, n - correction) and warns
                name = "std" if std else "var"
                warn_user(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                          "than the reduction factor (input numel divided by output numel).")
                mean = np.add.reduce(xd, axis=axis, keepdims=True) / n
                sq = np.add.reduce(np.square(xd - mean), axis=axis, keepdims=keepdim)
                r = np.asarray(sq / np.asarray(0, sq.dtype))
            if std:
                r = np.sqrt(r)
        with np.errstate(over="ignore"):
            r = r.astype(x.dtype, copy=False)
        half = getattr(ctx, "half_dtype", None)
        # the backward is torch's formula of tensor ops: it reads the input and the result as
        # torch holds them (a half input's rounded result) and rounds every step in their dtype
        ctx.y = r if half is None else r.astype(half)
        if half is not None:
            ctx.x = x.astype(half)
        return r

    @staticmethod
    def backward(ctx, g):
        """torch's ``var_backward`` (and ``std_backward`` before it), in its order of operations:
        ``grad_var = (grad / (std * 2)).masked_fill_(std == 0, 0)`` for std, then
        ``(2.0 / (N - correction)) * grad_var * (x - x.mean(dim, keepdim=True))``, each step
        rounded in the input's dtype, the number multiplied in the compute dtype (float32 for
        half precision), the mean the mean op's (its sum divided by N; not the forward's refined
        one), except over equal values (below). A graph-recording backward keeps the mean op."""
        xp = ns(g)
        x = ctx.x
        shape = tuple(x.shape)
        gb = _expand_back(xp, g, shape, ctx.axis, ctx.keepdim)
        if ctx.std:
            y = _expand_back(xp, ctx.y, shape, ctx.axis, ctx.keepdim)
            with xp.errstate(divide="ignore", invalid="ignore"):
                gb = xp.where(y == 0, 0, gb / (y * 2))
        dof = ctx.n - ctx.correction
        scale = 2.0 / dof if dof else math.inf  # (torch's double division)
        axis = tuple(range(len(shape))) if ctx.axis is None else ctx.axis
        if graph_mode(xp):
            mean = xp.mean(x, axis=axis, keepdims=True)
            return (gb * scale * (x - mean),)
        mean = xp.call(Mean, x, axis=axis, keepdim=True)
        if ctx.n:  # a slice of equal values: their mean exactly (torch's cascade sum gives it
            # for a long slice, where numpy's pairwise sum may not; torch's is off in the last
            # bit for some short ones, ours then a rounding apart: 0 against ~1e-9)
            hi = np.maximum.reduce(x, axis=axis, keepdims=True)
            mean = np.where(hi == np.minimum.reduce(x, axis=axis, keepdims=True), hi, mean)
        if gb.dtype in _HALF:  # (the number multiplies in float32, as torch's does)
            gb = gb.view(HalfOps)
        with np.errstate(over="ignore", invalid="ignore"):
            return (np.asarray(gb * scale * (x - mean)),)


class Std(Var):
    """``std``: as ``var``, and torch's node also saves the result (an in-place change of it
    before backward is refused)."""

    name = "std"
    saves_output = True


class LogSumExp(Kernel):
    name = "logsumexp"
    saved = (0,)
    saves_output = True
    graph_inputs = {"x": 0}

    @staticmethod
    @opmath
    def forward(ctx, x, axis, keepdim=False):
        m = np.maximum.reduce(x, axis=axis, keepdims=True, initial=-np.inf)  # empty: -inf
        m = np.where(np.isfinite(m), m, 0)
        r = np.log(np.add.reduce(np.exp(x - m), axis=axis, keepdims=True)) + m
        if not keepdim:
            r = np.squeeze(r, axis)
        ctx.x, ctx.axis, ctx.keepdim, ctx.y = x, axis, keepdim, r
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x = ctx.x
        shape = tuple(x.shape)
        y = _expand_back(xp, ctx.y, shape, ctx.axis, ctx.keepdim)
        return (_expand_back(xp, g, shape, ctx.axis, ctx.keepdim) * xp.exp(x - y),)


def two_norm(x, axis=None, keepdims=False):
    """The 2-norm kernel: the square root of numpy's sum of squares (``np.sum``'s reduction,
    without its Python layers). The replay runs it directly for a whole tensor."""
    return np.sqrt(np.add.reduce(x * x, axis=axis, keepdims=keepdims))


class Norm(Kernel):
    name = "norm"
    node_name = "LinalgVectorNormBackward0"  # (torch.norm and linalg's norms run this op)
    saved = (0,)
    saves_output = True
    graph_inputs = {"x": 0}

    @staticmethod
    @opmath
    def forward(ctx, x, p=2.0, axis=None, keepdim=False):
        ctx.x, ctx.p, ctx.axis, ctx.keepdim = x, p, axis, keepdim
        n = x.size if axis is None else math.prod(x.shape[d] for d in axis)
        a = np.abs(x) if p != 2 or n == 1 else None  # (the 2-norm squares x itself)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            if n == 1 and p != 0 and x.size:  # one element per result: |x| exactly (torch)
                r = a.reshape(a.shape if keepdim else np.sum(a, axis=axis).shape) \
                    if axis is not None or keepdim else a.reshape(())
            elif p == float("inf"):
                r = np.max(a, axis=axis, keepdims=keepdim)
            elif p == float("-inf"):
                r = np.min(a, axis=axis, keepdims=keepdim)
            elif p == 0:
                r = np.sum(a != 0, axis=axis, keepdims=keepdim).astype(x.dtype)
            elif p == 1:
                r = np.sum(a, axis=axis, keepdims=keepdim)
            elif p == 2:
                r = two_norm(x, axis, keepdim)
            else:
                r = np.sum(a ** p, axis=axis, keepdims=keepdim) ** (1.0 / p)
        r = np.asarray(r).astype(x.dtype, copy=False)
        ctx.y = r
        half = getattr(ctx, "half_dtype", None)
        if half is not None:  # torch's norm_backward is a formula of tensor ops: for a half
            # input it reads the rounded result and rounds every step in the half dtype
            ctx.x, ctx.y = x.astype(half), r.astype(half)
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        x, p = ctx.x, ctx.p
        shape = tuple(x.shape)
        y = _expand_back(xp, ctx.y, shape, ctx.axis, ctx.keepdim)
        gb = _expand_back(xp, g, shape, ctx.axis, ctx.keepdim)
        if p == 2:  # torch: grad * (self / norm).masked_fill_(norm == 0, 0)
            with xp.errstate(divide="ignore", invalid="ignore"):
                gx = gb * xp.where(y == 0, xp.zeros((), xp.npdtype(x)), x / y)
        elif p == 1:
            gx = gb * xp.sgn(x)  # torch's sgn: NaN gets 0
        elif p in (float("inf"), float("-inf")):
            # torch: sgn(x) * ((grad / count) * mask), the mask also marking NaNs
            a = xp.abs(x)
            mask = (a == y) | xp.isnan(a)
            cnt = xp.sum(mask, axis=ctx.axis, keepdims=True)
            with xp.errstate(divide="ignore", invalid="ignore"):
                gx = xp.sgn(x) * ((gb / cnt) * mask)
        elif p == 0:
            gx = xp.zeros_like(x)
        else:  # torch's linalg_vector_norm_backward, case by case
            zero = xp.zeros((), x.dtype)
            with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
                if p < 1:
                    scaled = xp.where(x == 0, zero, xp.sgn(x) * xp.abs(x) ** (p - 1))
                    gx = scaled * gb * y ** (1 - p)
                else:
                    scaled = xp.sgn(x) * xp.abs(x) ** (p - 1) if p < 2 else \
                        x * xp.abs(x) ** (p - 2)
                    scale = gb / y ** (p - 1)
                    gx = scaled * xp.where(y == 0, zero, scale)
        return (gx,)


class Cumsum(Kernel):
    name = "cumsum"

    @staticmethod
    @opmath
    def forward(ctx, x, dim, dtype=None):
        ctx.dim = dim
        return _cumsum(x, dim, _acc_dtype(x, dtype))

    @staticmethod
    def backward(ctx, g):
        if g.ndim == 0:
            return (g,)
        xp = ns(g)
        if graph_mode(xp):
            return (xp.flip(xp.cumsum(xp.flip(g, ctx.dim), ctx.dim), ctx.dim),)
        return (np.flip(_cumsum(np.flip(g, ctx.dim), ctx.dim), ctx.dim),)


class Logcumsumexp(Kernel):
    """``log(cumsum(exp(x)))`` along ``dim`` by torch's scan: each step ``log1p(exp(min -
    max)) + max`` of the running value and the next element (equal infinities keep
    themselves, NaN propagates), accumulated in torch's CPU accumulation type (float64 for
    float32 inputs, float32 for half ones) and rounded per element. Gradient: torch's
    ``logcumsumexp_backward``, reverse scans of the positive and negative parts of the
    gradient in log space."""

    name = "logcumsumexp"
    saved = (0,)
    saves_output = True
    graph_inputs = {"x": 0}

    @staticmethod
    def forward(ctx, x, dim):
        ctx.x, ctx.dim = x, dim
        acc = np.float64 if x.dtype == np.float32 else \
            np.float32 if x.dtype in _HALF else x.dtype
        with np.errstate(all="ignore"):
            if x.ndim == 0:  # (torch copies a 0-d input)
                y = x.copy()
            else:  # (torch's step adds log1p(...) >= +0 to the larger operand: never -0.0)
                y = (_accumulate(np.logaddexp, x.astype(acc), dim) +
                     np.zeros((), acc)).astype(x.dtype)
        ctx.y = y
        return y

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        if g.ndim == 0 or g.size == 0:
            return (g,)
        x, y, d = ctx.x, ctx.y, ctx.dim
        dt = xp.npdtype(g)
        lowest = float(ml_dtypes.finfo(dt).min)  # (torch's numeric_limits<scalar_t>::lowest())

        def reverse(v):
            return xp.flip(xp.call(Logcumsumexp, xp.flip(v, d), dim=d), d)

        with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
            log_abs = xp.log(xp.abs(g))
            floor = xp.zeros((), dt) + lowest
            pos = xp.where(g > 0, log_abs, floor)
            neg = xp.where(g < 0, log_abs, floor)
            return (xp.exp(reverse(pos - y) + x) - xp.exp(reverse(neg - y) + x),)


class Cumprod(Kernel):
    name = "cumprod"
    saved = (0,)
    saves_output = True
    graph_inputs = {"x": 0}

    @staticmethod
    @opmath
    def forward(ctx, x, dim, dtype=None):
        ctx.x, ctx.dim = x, dim
        ctx.y = _accumulate(np.multiply, x, dim, _acc_dtype(x, dtype))
        return ctx.y

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        if graph_mode(xp):
            return (_cumprod_backward_graph(xp, ctx.x, g, ctx.dim),)
        x, y, d = ctx.x, ctx.y, ctx.dim
        if x.size <= 1 or x.shape[d] == 1:  # torch hands the gradient through unchanged
            return (g,)
        if g.dtype in _HALF:  # torch's formula runs on the half tensors (its saved result is
            # the rounded one, so an overflowed product is inf there); its cumsum sums in float32
            x, y = x.astype(g.dtype), y.astype(g.dtype)
            if x.ndim and not (x == 0).any():
                w = g * y
                acc = np.flip(_accumulate(np.add, np.flip(w.astype(np.float32), d), d), d)
                return (acc.astype(g.dtype) / x,)
        if not (x == 0).any():
            return (np.flip(_accumulate(np.add, np.flip(g * y, d), d), d) / x,)
        return (_cumprod_grad_with_zeros(x, y, g, d),)


def _cumprod_grad_with_zeros(x, y, g, d):
    """torch's first-order cumprod gradient for an input with zeros (z1, z2: the first two
    zeros of a slice): before z1 the reversed cumulative sum of ``g * y`` (cut at z1) over x;
    at z1 ``y[z1-1] * (g[z1] + sum_{z1<j<z2} g[j] prod_{z1<i<=j} x_i)``; after z1 exactly 0 --
    so an infinite gradient past a zero never meets a 0 (no NaN)."""
    zeros = np.cumsum(x == 0, axis=d)
    before = zeros == 0
    zero = np.zeros((), g.dtype)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        w = np.where(before, y * g, zero)
        out = np.where(before, np.flip(np.cumsum(np.flip(w, d), axis=d), d) / x, zero)
        first = zeros == 1
        at = np.argmax(first, axis=d)[(slice(None),) * d + (None,)]  # the first zero (or 0)
        is_first = (np.arange(x.shape[d]).reshape((-1,) + (1,) * (x.ndim - d - 1)) == at) & first
        inner = first & ~is_first
        run = np.cumprod(np.where(inner, x, np.ones((), x.dtype)), axis=d)
        total = np.add.reduce(run * np.where(first, g, zero), axis=d, keepdims=True)
        prev = np.take_along_axis(y, np.maximum(at - 1, 0), axis=d)
        total = total * np.where(at == 0, np.ones((), y.dtype), prev)
        out = np.where(is_first, total, out)
    return out.astype(g.dtype, copy=False)


def _cumprod_backward_graph(xp, x, g, d):
    """cumprod's input gradient as recorded tensor ops, valid with zeros in the input: for
    ``y_j = prod_{k<=j} x_k``, ``dx_i = prod_{k<i} x_k * sum_{j>=i} g_j prod_{i<k<=j} x_k``."""
    shape = tuple(x.shape)
    if not shape:
        return g
    xs, gs = xp.moveaxis(x, d, -1), xp.moveaxis(g, d, -1)
    n = shape[d]
    lead = tuple(xs.shape[:-1])
    ones = xp.ones(lead + (1,), x.dtype)
    left = xp.cumprod(xp.concatenate([ones, xs[..., :-1]], -1), -1)  # prod_{k<i} x_k
    k = np.arange(n)
    after = xp.const(k[None, :] > k[:, None])  # [i, k]: k > i
    upto = xp.const(k[None, :] >= k[:, None])  # [i, j]: j >= i
    between = xp.cumprod(xp.where(after, xp.expand_dims(xs, -2), 1), -1)  # prod_{i<k<=j} x_k
    right = xp.sum(xp.where(upto, xp.expand_dims(gs, -2) * between, 0), -1)
    return xp.moveaxis(left * right, -1, d)


class AllAny(Kernel):
    name = "all_any"
    differentiable = False

    @staticmethod
    def forward(ctx, x, axis=None, keepdim=False, any=False):
        f = np.any if any else np.all
        r = np.asarray(f(x, axis=axis, keepdims=keepdim))
        return r.astype(np.uint8) if x.dtype == np.uint8 else r  # torch keeps uint8 here


def _sort_key(x):
    """``x`` as an array numpy sorts correctly: bool/unsigned as int64, float16/bfloat16 as
    float32 (exact; numpy's bfloat16 sort misplaces NaN)."""
    if x.dtype.kind in "bu":
        return x.astype(np.int64)
    if x.dtype in _HALF:
        return x.astype(np.float32)
    return x


def _argsort(x, axis):
    """Stable ascending order with NaN last (torch's rule, for every float dtype)."""
    return np.argsort(_sort_key(x), axis=axis, kind="stable")


def _argsort_descending(x, axis):
    """Stable descending order with NaN first (torch ranks NaN above every number)."""
    key = _sort_key(x)
    if key.dtype.kind == "f":
        nan = np.isnan(key)
        if nan.any():
            idx = np.argsort(-np.where(nan, 0, key), axis=axis, kind="stable")
            first = np.argsort(~np.take_along_axis(nan, idx, axis), axis=axis, kind="stable")
            return np.take_along_axis(idx, first, axis)
    # integers reverse by bitwise not (-x overflows at the most negative value; ~x does not)
    return np.argsort(~key if key.dtype.kind in "iu" else -key, axis=axis, kind="stable")


class Sort(Kernel):
    name = "sort"
    elementwise = True  # values and indices keep the input's layout, as torch's sort does
    n_outputs = 2
    saved_outputs = (1,)  # torch's backward reads the indices
    nondiff_outputs = (1,)

    @staticmethod
    def forward(ctx, x, dim=-1, descending=False, stable=False):
        if descending:
            idx = _argsort_descending(x, dim)
        else:
            idx = _argsort(x, dim)
        ctx.shape, ctx.dim, ctx.idx = x.shape, dim, idx
        return np.take_along_axis(x, idx, axis=dim), idx.astype(np.int64)

    @staticmethod
    def backward(ctx, grads):
        xp = ns(grads)
        g = grads[0]
        return (xp.put_along_axis(xp.zeros(ctx.shape, g.dtype), ctx.idx, g, ctx.dim),)


class TopK(Kernel):
    name = "topk"
    n_outputs = 2
    saved_outputs = (1,)  # torch's backward reads the indices
    nondiff_outputs = (1,)

    @staticmethod
    def forward(ctx, x, k, dim=-1, largest=True, sorted=True):
        if k > x.shape[dim] or k < 0:
            raise RuntimeError("selected index k out of range")
        if x.dtype == np.bool_:
            raise RuntimeError("topk does not support bool dtypes on CPU")
        idx = _argsort_descending(x, dim) if largest else _argsort(x, dim)
        idx = np.take(idx, np.arange(k), axis=dim)
        ctx.shape, ctx.dim, ctx.idx = x.shape, dim, idx
        return np.take_along_axis(x, idx, axis=dim), idx.astype(np.int64)

    @staticmethod
    def backward(ctx, grads):
        xp = ns(grads)
        g = grads[0]
        return (xp.put_along_axis(xp.zeros(ctx.shape, g.dtype), ctx.idx, g, ctx.dim),)


class Cdist(Kernel):
    """Pairwise ``p``-norm distances between the rows of ``x1`` (..., P, M) and ``x2``
    (..., R, M). Backward by torch's ``_cdist_backward``: each pair's term is formed, then
    masked where the distance is 0 -- after the product, so an infinite upstream gradient on a
    zero distance gives 0, not NaN."""

    name = "cdist"
    node_name = "CdistBackward0"
    saved = (0, 1)
    saves_output = True
    graph_inputs = {"x1": 0, "x2": 1}

    @staticmethod
    def forward(ctx, x1, x2, p=2.0):
        diff = x1[..., :, None, :] - x2[..., None, :, :]
        a = np.abs(diff)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            if p == 0:
                r = (a != 0).sum(-1).astype(x1.dtype)
            elif p == float("inf"):
                r = a.max(-1) if a.shape[-1] else np.zeros(a.shape[:-1], x1.dtype)
            elif p == 1:
                r = a.sum(-1)
            elif p == 2:
                r = np.sqrt((diff * diff).sum(-1))
            else:
                r = (a ** p).sum(-1) ** (1.0 / p)
        r = np.asarray(r, x1.dtype)
        ctx.x1, ctx.x2, ctx.diff, ctx.p, ctx.y = x1, x2, diff, p, r
        return r

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        p, y, n = ctx.p, ctx.y, ctx.needs_input_grad
        if graph_mode(xp) and not (p == 2 and max(tuple(y.shape)[-2:], default=0) > 25):
            # torch's _cdist_backward kernel, whose own derivative torch does not define: the
            # gradient is recorded and differentiating it raises torch's error
            g1 = xp.call(CdistBackward, g, ctx.x1, ctx.x2, y, p=p) if n[0] else None
            g2 = xp.call(CdistBackward, xp.swapaxes(g, -1, -2), ctx.x2, ctx.x1,
                         xp.swapaxes(y, -1, -2), p=p) if n[1] else None
            return (g1, g2)
        if graph_mode(xp):
            # p = 2 with more than 25 rows: torch computes through matrix products (its default
            # compute_mode), which differentiate again; recorded from the pairwise differences
            diff = xp.expand_dims(ctx.x1, -2) - xp.expand_dims(ctx.x2, -3)
        else:
            diff = ctx.diff
        res = _cdist_terms(xp, g, diff, y, p)
        return (xp.sum(res, axis=-2) if n[0] else None,
                -xp.sum(res, axis=-3) if n[1] else None)


def _cdist_terms(xp, g, diff, y, p):
    """torch's ``_cdist_backward`` terms, one per pair and coordinate (masked after the
    product where the distance is 0)."""
    gg, yy = xp.expand_dims(g, -1), xp.expand_dims(y, -1)
    zero = xp.zeros((), xp.npdtype(diff))
    with xp.errstate(divide="ignore", over="ignore", invalid="ignore"):
        if p == 0:
            return xp.zeros_like(diff)
        if p == 1:
            return gg * xp.sign(diff)
        if p == float("inf"):
            return gg * xp.sign(diff) * (xp.abs(diff) == yy)
        if p == 2:
            return xp.where(yy == 0, zero, gg * diff / yy)
        if p < 2:
            return xp.where(yy == 0, zero, xp.sign(diff) * xp.abs(diff) ** (p - 1) * gg
                            / yy ** (p - 1))
        return xp.where(yy == 0, zero, diff * xp.abs(diff) ** (p - 2) * gg / yy ** (p - 1))


class CdistBackward(Kernel):
    """``cdist``'s gradient for ``x1`` (torch's ``_cdist_backward``; for ``x2`` it is called with
    the operands swapped and the gradient transposed), an op of its own because torch defines
    no derivative for it: differentiating it raises torch's error."""

    name = "_cdist_backward"
    node_name = "CdistBackwardBackward0"

    @staticmethod
    def forward(ctx, g, x1, x2, y, p):
        diff = x1[..., :, None, :] - x2[..., None, :, :]
        return _cdist_terms(NP, g, diff, y, p).sum(-2)

    @staticmethod
    def backward(ctx, c):
        raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")
