"""Reductions: sum/mean/prod, max/min/arg*, var/std, norms, all/any, cumulative ops, sort/topk/median, softmax."""
from __future__ import annotations

import builtins
import math
import numpy as np

from .. import _dtype as D
from .._autograd import also_checked, torch_named
from .._dispatch import also_saved, apply, apply_inplace
from .._errors import c_number
from .._fpe import warn_user
from .._ops import nn as N
from .._ops import order_stats as O
from .._ops import reduce as R
from .._ops import selection as S
from .._tensor import Tensor, _wrap_dim
from ._common import _NO_DIM, _check_float, _correction, _dims, _on_0d
from .pointwise import maximum, minimum, ne

__all__ = ["histc", "softmax", "log_softmax", "sum", "mean", "nansum", "prod", "max", "min", "amax", "amin",
           "argmax", "argmin", "var", "std", "var_mean", "std_mean", "logsumexp", "norm", "dist",
           "all", "any", "count_nonzero", "cumsum", "cumprod", "sort", "argsort", "topk", "median",
           "cdist", "searchsorted", "bucketize", "kthvalue", "mode", "nanmedian", "cummax",
           "cummin", "isin", "aminmax", "logcumsumexp"]


def _softmax_dtype(input, dtype, dim, kernel="softmax"):
    """``input`` in ``dtype`` (a cast first), or refused as torch's kernels refuse a non-floating
    input or ``dtype`` -- the last-dim kernel or the general one, by ``dim`` -- unless it is empty (then torch
    runs no kernel and returns an empty tensor of the input's dtype)."""
    runs = input._dtype if dtype is None else D.to_dtype(dtype)  # (the kernel's dtype)
    if not runs.is_floating_point and input.numel():
        last = input.ndim == 0 or _wrap_dim(dim, input.ndim) == input.ndim - 1
        raise NotImplementedError(f'"{kernel}{"_lastdim" if last else ""}_kernel_impl" not '
                                  f"implemented for '{D.scalar_name(runs)}'")
    return input.to(dtype) if dtype is not None else input


def _implicit_dim(name, input):
    """torch's legacy choice of dim when none is given, with its deprecation warning."""
    warn_user(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
              "include dim=X as an argument.")
    return 0 if input.ndim in (0, 1, 3) else 1


def softmax(input, dim, dtype=None):
    """``exp(x) / exp(x).sum(dim)`` along ``dim``, computed stably (``dtype`` casts first)."""
    if dim is None:
        dim = _implicit_dim("softmax", input)
    input = _softmax_dtype(input, dtype, dim)
    return apply(N.Softmax, input, dim=_wrap_dim(dim, input.ndim))


def log_softmax(input, dim, dtype=None):
    """``x - logsumexp(x, dim)`` along ``dim`` (``dtype`` casts first)."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input)
    input = _softmax_dtype(input, dtype, dim, "log_softmax")
    return apply(N.LogSoftmax, input, dim=_wrap_dim(dim, input.ndim))


# ----- reductions ---------------------------------------------------------------------------------
# A reduction given ``dim`` is torch's dim overload (SumBackward1, MeanBackward1, ProdBackward1):
# the kernel names its node so when it reduces over axes; a dim that leaves no axis (a 0-d
# input's, an empty list) is named here
def sum(input, dim=None, keepdim=False, *, dtype=None):
    axes = _dims(dim, input.ndim)
    out = apply(R.Sum, input, axis=axes, keepdim=keepdim,
                dtype=D.to_dtype(dtype).np if dtype is not None else None)
    return out if axes is not None or dim is None else torch_named(out, "SumBackward1", input)


def check_mean_dtype(fname, dtype):
    """torch's refusal of a mean into a dtype that is not floating."""
    if dtype is not None and not D.to_dtype(dtype).is_floating_point:
        raise RuntimeError(f"{fname}(): could not infer output dtype. Optional dtype must be "
                           "either a floating point or complex dtype. Got: "
                           f"{D.scalar_name(D.to_dtype(dtype))}")


def mean(input, dim=None, keepdim=False, *, dtype=None):
    check_mean_dtype("mean", dtype)
    axes = _dims(dim, input.ndim)
    out = apply(R.Mean, input, axis=axes, keepdim=keepdim,
                dtype=D.to_dtype(dtype).np if dtype is not None else None)
    return out if axes is not None or dim is None else torch_named(out, "MeanBackward1", input)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    if not input._dtype.is_floating_point:  # nothing to skip: the sum (int64 for integers)
        return sum(input, dim, keepdim, dtype=dtype)
    axes = _dims(dim, input.ndim)
    return apply(R.NanSum, input, axis=axes, keepdim=keepdim,
                 dtype=D.to_dtype(dtype).np if dtype is not None else None)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    axes = _dims(dim, input.ndim)
    out = apply(R.Prod, input, axis=axes, keepdim=keepdim,
                dtype=D.to_dtype(dtype).np if dtype is not None else None)
    return out if axes is not None or dim is None else torch_named(out, "ProdBackward1", input)


def _nonempty(input, axes, fname):
    """torch's refusal of a reduction without an identity over nothing: over every element of an
    empty tensor (a RuntimeError, an IndexError for the arg- reductions), or along a dim of size
    0 (an IndexError naming the first such dim)."""
    if input.numel():
        return
    if not axes:
        if fname.startswith("arg"):
            raise IndexError(f"{fname}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        raise RuntimeError(f"{fname}(): Expected reduction dim to be specified for "
                           "input.numel() == 0. Specify the reduction dim with the 'dim' "
                           "argument.")
    for a in axes:
        if input.shape[a] == 0:
            raise IndexError(f"{fname}(): Expected reduction dim {a} to have non-zero size.")


def _minmax(input, dim, keepdim, other, largest):
    if isinstance(dim, Tensor):
        return maximum(input, dim) if largest else minimum(input, dim)
    fname = "max" if largest else "min"
    if dim is None:
        _nonempty(input, None, fname)
        return apply(R.Amax, input, axis=None, keepdim=False, largest=largest, evenly=True)
    if input.ndim == 0:  # (torch's node is max.dim's / min.dim's all the same)
        return torch_named(_on_0d(_minmax, input, dim, False, other, largest),
                           "MaxBackward0" if largest else "MinBackward0", input)
    _nonempty(input, (_wrap_dim(dim, input.ndim),), fname)
    res = apply(R.MaxDim, input, dim=_wrap_dim(dim, input.ndim), keepdim=keepdim, largest=largest)
    from .._return_types import MinMax
    return MinMax(res, "max" if largest else "min")


def max(input, dim=None, keepdim=False, *, out=None):
    return _minmax(input, dim, keepdim, None, True)


def min(input, dim=None, keepdim=False, *, out=None):
    return _minmax(input, dim, keepdim, None, False)


def _extreme(input, dim, keepdim, largest):
    """``amax``/``amin`` over ``dim`` (None or empty: every dim): an empty dim is refused
    before a repeated one, in torch's order."""
    fname = "amax" if largest else "amin"
    if input.numel() == 0 and input.ndim:
        listed = dim if isinstance(dim, (tuple, list)) else () if dim is None else (dim,)
        _nonempty(input, tuple(_wrap_dim(d, input.ndim) for d in listed), fname)
    axes = _dims(dim, input.ndim)
    _nonempty(input, axes, fname)
    return apply(R.Amax, input, axis=axes, keepdim=keepdim, largest=largest)


def amax(input, dim=None, keepdim=False):
    return _extreme(input, dim, keepdim, True)


def amin(input, dim=None, keepdim=False):
    return _extreme(input, dim, keepdim, False)


def _no_bool_arg(input, name):
    if input._dtype is D.bool:
        raise RuntimeError(f"{name}(): does not support bool input")


def _arg_extreme(input, dim, keepdim, largest):
    """``argmax``/``argmin``: torch's bool and empty-input refusals, then the kernel."""
    fname = "argmax" if largest else "argmin"
    _no_bool_arg(input, fname)
    d = None if dim is None else _wrap_dim(dim, input.ndim)
    _nonempty(input, None if d is None or input.ndim == 0 else (d,), fname)
    return apply(R.Argmax, input, dim=d, keepdim=keepdim, largest=largest)


def argmax(input, dim=None, keepdim=False):
    return _arg_extreme(input, dim, keepdim, True)


def argmin(input, dim=None, keepdim=False):
    return _arg_extreme(input, dim, keepdim, False)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    _check_float(input, "std and var only support floating point and complex dtypes")
    if isinstance(dim, builtins.bool):
        unbiased, dim = dim, None
    return apply(R.Var, input, axis=_dims(dim, input.ndim), correction=_correction(unbiased, correction),
                 keepdim=keepdim)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    _check_float(input, "std and var only support floating point and complex dtypes")
    if isinstance(dim, builtins.bool):
        unbiased, dim = dim, None
    return apply(R.Std, input, axis=_dims(dim, input.ndim), correction=_correction(unbiased, correction),
                 keepdim=keepdim, std=True)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return torch_named((var(input, dim, unbiased, keepdim, correction=correction),
                        _joint_mean(input, dim, keepdim)), "VarMeanBackward0", input)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    s = std(input, dim, unbiased, keepdim, correction=correction)
    # (torch's one node saves the standard deviation too: its backward reads it, so changing
    # it in place before a backward through the mean alone is refused as well)
    return torch_named((s, also_saved(_joint_mean(input, dim, keepdim), s)), "StdMeanBackward0",
                       input)


def _joint_mean(input, dim, keepdim):
    """The mean of ``var_mean``/``std_mean``: torch's one node saves the input for both
    results, so an in-place change of the input before a backward through the mean alone is
    refused too."""
    return also_saved(_welford_mean(input, dim, keepdim), input)


def _welford_mean(input, dim, keepdim):
    """The mean ``var_mean``/``std_mean`` return: torch computes it with Welford's running
    update, so an infinity is only kept when it is the last element of its slice (any earlier
    one meets the next element as inf - inf: NaN). Finite slices give the plain mean."""
    m = mean(input, dim, keepdim)
    x = input._data
    if not input._dtype.is_floating_point or np.isfinite(x).all():
        return m
    axes = _dims(dim, input.ndim)
    axes = tuple(range(input.ndim)) if axes is None else axes
    rows = np.moveaxis(x, axes, tuple(range(-len(axes), 0)))
    lead = rows.shape[:rows.ndim - len(axes)]
    rows = rows.reshape(lead + (-1,))
    inf = np.isinf(rows)
    kept = (inf.sum(-1) == 1) & inf[..., -1] & ~np.isnan(rows).any(-1) if rows.shape[-1] else \
        np.zeros(lead, bool)
    bad = ~np.isfinite(rows).all(-1) & ~kept
    if not bad.any():
        return m
    if keepdim:
        bad = np.expand_dims(bad, axes)
    # a constant NaN added where Welford gives NaN: the gradient still flows through the mean
    fix = np.where(np.ascontiguousarray(bad).reshape(tuple(m.shape)), np.nan, 0.0)
    return m + Tensor._wrap(fix.astype(m._dtype.np))


def logsumexp(input, dim, keepdim=False):
    if isinstance(dim, (tuple, list)) and not dim and not keepdim and input.ndim and \
            input.numel():  # (torch 2.13's kernel fails writing its all-dims result)
        raise RuntimeError("output with shape [] doesn't match the broadcast shape "
                           f"[{', '.join(['1'] * input.ndim)}]")
    if not input._dtype.is_floating_point:  # integers and bool: in the default float dtype
        input = input.to(D.get_default_dtype())
    return apply(R.LogSumExp, input, axis=_dims(dim, input.ndim), keepdim=keepdim)


def norm_dtype(x, dtype, fn):
    """A norm's ``dtype=``: the input converted first; only a widening conversion is allowed
    (torch's ``linalg.vector_norm``/``matrix_norm``; ``fn`` names which in the errors)."""
    if dtype is None:
        return x
    dtype = D.to_dtype(dtype)
    if not dtype.is_floating_point:
        raise RuntimeError(f"linalg.{fn}: dtype should be floating point or complex, but got "
                           f"{D.scalar_name(dtype)}")
    if D.promote_types(x.dtype, dtype) is not dtype:
        raise RuntimeError(f"linalg.{fn}: the dtype of the input ({D.scalar_name(x.dtype)}) "
                           f"should be convertible without narrowing to the specified dtype "
                           f"({D.scalar_name(dtype)})")
    return x.to(dtype)


def norm_identity(x, ord, axis):
    """torch's refusal of a vector norm without an identity (a negative or infinite order)
    over nothing: every element of an empty tensor, or an empty dim of ``axis``."""
    if x.numel() or not (ord < 0 or ord == math.inf):
        return
    shown = c_number(ord)
    if axis is None:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on an empty "
                           "tensor because the operation does not have an identity")
    for d in axis:
        if x.shape[d] == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on the "
                               f"dimension {d}because this dimension is empty and the operation "
                               "does not have an identity")


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """torch's ``torch.norm``: ``"fro"`` over at most two dims and every number order are
    ``linalg.vector_norm``; the other string orders (``"nuc"``, and ``"fro"`` over more dims)
    are ``linalg.matrix_norm`` over ``dim`` (every dim when None), which refuses what it does
    not take."""
    if isinstance(p, str) and not (p == "fro" and (dim is None or isinstance(dim, int) or
                                                   len(dim) <= 2)):
        from .linalg_norms import matrix_norm
        return matrix_norm(input, p, list(range(input.ndim)) if dim is None else dim, keepdim,
                           dtype=dtype)
    _check_float(input, "linalg.vector_norm: Expected a floating point or complex tensor as input. "
                        "Got {}")
    if p == "fro" or p is None:
        p = 2.0
    input = norm_dtype(input, dtype, "vector_norm")  # (torch.norm runs linalg.vector_norm)
    axis = _dims(dim, input.ndim)
    norm_identity(input, p, axis)
    return apply(R.Norm, input, p=float(p), axis=axis, keepdim=keepdim)


def dist(input, other, p=2):
    # torch's DistBackward0 saves both operands (and its result)
    return torch_named(also_checked(norm(input - other, p), input, other), "DistBackward0",
                       input, other)


def _no_dims(input):
    """``all``/``any`` over an empty list of dims: each element's truth, reduced over nothing
    (torch; other reductions read an empty list as every dim), uint8 staying uint8."""
    truth = ne(input, 0)
    return truth.to(D.uint8) if input._dtype is D.uint8 else truth


def all(input, dim=None, keepdim=False):
    if isinstance(dim, (tuple, list)) and not dim:
        return _no_dims(input)
    return apply(R.AllAny, input, axis=_dims(dim, input.ndim), keepdim=keepdim, any=False)


def any(input, dim=None, keepdim=False):
    if isinstance(dim, (tuple, list)) and not dim:
        return _no_dims(input)
    return apply(R.AllAny, input, axis=_dims(dim, input.ndim), keepdim=keepdim, any=True)


def count_nonzero(input, dim=None):
    return sum(ne(input, 0), dim)


def _cumulative_0d(input, dtype):
    """A 0-d input's cumsum/cumprod: the value itself in the result dtype (integers and bool
    widen to int64 unless ``dtype`` says otherwise), as torch's kernel copies it."""
    dt = D.to_dtype(dtype) if dtype is not None else (
        input._dtype if input._dtype.is_floating_point else D.int64)
    return input.to(dt) if dt is not input._dtype else input.clone()


def _cumulative_dtype(name, dtype):
    if dtype is not None and D.to_dtype(dtype) is D.bool:
        raise NotImplementedError(f'"{name}_out_cpu" not implemented for \'Bool\'')


def cumsum(input, dim, *, dtype=None):
    if input.ndim == 0:  # torch copies a 0-d input (no kernel runs, so no dtype check)
        _wrap_dim(dim, 0)
        return torch_named(_cumulative_0d(input, dtype), "CumsumBackward0", input)
    _cumulative_dtype("cumsum", dtype)
    return apply(R.Cumsum, input, dim=_wrap_dim(dim, input.ndim),
                 dtype=D.to_dtype(dtype).np if dtype is not None else None)


def logcumsumexp(input, dim):
    """``log(cumsum(exp(input)))`` along ``dim``, computed stably by torch's scan (floating
    dtypes only; a 0-d input is returned as a copy through the op)."""
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for '
                                  f"'{D.scalar_name(input._dtype)}'")
    return apply(R.Logcumsumexp, input, dim=_wrap_dim(dim, input.ndim) if input.ndim else
                 _wrap_dim(dim, 0))


def cumprod(input, dim, *, dtype=None):
    if input.ndim == 0:  # torch copies a 0-d input (no kernel runs, so no dtype check)
        _wrap_dim(dim, 0)
        out = torch_named(_cumulative_0d(input, dtype), "CumprodBackward0", input)
        return also_saved(out, out)  # (torch's cumprod node saves its result all the same)
    _cumulative_dtype("cumprod", dtype)
    return apply(R.Cumprod, input, dim=_wrap_dim(dim, input.ndim),
                 dtype=D.to_dtype(dtype).np if dtype is not None else None)


def _cumulative_inplace(op, name):
    def inplace(self, dim, *, dtype=None):
        # torch: cumsum_ is cumsum_out(self, dim, dtype or self's dtype, self)
        dt = D.to_dtype(dtype) if dtype is not None else self._dtype
        if self.ndim:
            _cumulative_dtype(name[:-1], dt)
        return apply_inplace(op, self, dim=_wrap_dim(dim, self.ndim), dtype=dt.np)
    inplace.__name__ = name
    return inplace


cumsum.inplace = _cumulative_inplace(R.Cumsum, "cumsum_")
cumprod.inplace = _cumulative_inplace(R.Cumprod, "cumprod_")


def sort(input, dim=-1, descending=False, stable=False):
    from .._return_types import Sorted
    if input.ndim == 0:
        return torch_named(_on_0d(sort, input, dim, descending, stable), "SortBackward0", input)
    return Sorted(apply(R.Sort, input, dim=_wrap_dim(dim, input.ndim), descending=descending))


def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending, stable)[1]


def topk(input, k, dim=-1, largest=True, sorted=True):
    from .._return_types import TopK
    if input.ndim == 0:
        return torch_named(_on_0d(lambda x, d: topk(x, k, d, largest, sorted), input, dim),
                           "TopkBackward0", input)
    return TopK(apply(R.TopK, input, k=int(k), dim=_wrap_dim(dim, input.ndim), largest=largest))


def median(input, dim=_NO_DIM, keepdim=None):
    """``median(input)``: the median of all elements, the LOWER of the two middle values for an
    even count (NaN when any element is NaN; an empty tensor gives NaN). ``median(input, dim,
    keepdim=False)``: ``torch.return_types.median(values, indices)`` along ``dim``, ``indices``
    holding the position of each median (the first NaN of a slice that has one; among equal
    values, the one a stable sort puts in the middle, as torch's CPU kernel does).

    Gradients: the reduction over all elements shares the gradient evenly among the elements
    equal to the median (torch's rule); the ``dim`` form sends it to ``indices``.

    Example:
        >>> import minitorch_cs.torch as torch
        >>> torch.median(torch.tensor([4.0, 1.0, 3.0, 2.0]))
        tensor(2.)
    """
    from .._return_types import median as Median
    if dim is _NO_DIM:
        if keepdim is not None:
            raise TypeError('median() missing 1 required positional arguments: "dim"')
        return apply(R.Median, input)
    if not isinstance(dim, (builtins.int, np.integer)) or isinstance(dim, builtins.bool):
        raise TypeError(f"median(): argument 'dim' (position 2) must be int, not "
                        f"{type(dim).__name__}")
    return Median(*apply(R.MedianDim, input, dim=_wrap_dim(dim, input.ndim),
                         keepdim=builtins.bool(keepdim)))



# ----- order statistics ---------------------------------------------------------------------------
def _int_arg(fname, name, pos, v):
    """An ``int`` argument as torch's parser takes it: a bool is refused (it is an int to
    Python)."""
    if isinstance(v, builtins.bool) or not isinstance(v, (builtins.int, np.integer)):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be int, not "
                        f"{type(v).__name__}")
    return builtins.int(v)


def _reduced_dim(input, dim, fname):
    """``dim`` wrapped; torch refuses a dim of size 0 before anything else."""
    d = _wrap_dim(dim, input.ndim)
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")
    return d


def kthvalue(input, k, dim=-1, keepdim=False):
    """``torch.return_types.kthvalue(values, indices)``: the ``k``-th smallest element of each
    slice along ``dim`` (``k`` counts from 1; NaN is larger than every number) and its int64
    index. Among equal values the index is the one torch's CPU quickselect returns. The
    gradient goes to ``indices``.

    Raises:
        IndexError: ``dim`` out of range, or the slice is empty.
        RuntimeError: ``k`` outside ``[1, size]`` (a 0-d input has size 1).
        NotImplementedError: a bool input.

    Example:
        >>> import minitorch_cs.torch as torch
        >>> torch.kthvalue(torch.tensor([3.0, 1.0, 2.0]), 2).values
        tensor(2.)
    """
    from .._return_types import kthvalue as KthValue
    k = _int_arg("kthvalue", "k", 2, k)
    d = _reduced_dim(input, dim, "kthvalue")
    if not 0 < k <= (input.shape[d] if input.ndim else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if input._dtype is D.bool and input.ndim:  # (a 0-d input is copied: no kernel runs)
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    return KthValue(*apply(O.KthValue, input, k=k, dim=d, keepdim=builtins.bool(keepdim)))


def mode(input, dim=-1, keepdim=False):
    """``torch.return_types.mode(values, indices)``: the most frequent value of each slice along
    ``dim`` (of equally frequent values the smallest) and an int64 index where it occurs (the
    one torch's CPU sort leaves last among them). The gradient goes to ``indices``.

    Example:
        >>> import minitorch_cs.torch as torch
        >>> torch.mode(torch.tensor([2.0, 1.0, 2.0])).values
        tensor(2.)
    """
    from .._return_types import mode as Mode
    d = _reduced_dim(input, dim, "mode")
    return Mode(*apply(O.Mode, input, dim=d, keepdim=builtins.bool(keepdim)))


def nanmedian(input, dim=_NO_DIM, keepdim=_NO_DIM):
    """``median`` with NaNs ignored. ``nanmedian(input)``: the lower middle of the non-NaN
    elements (NaN when there are none, or the tensor is empty); the gradient is shared evenly
    by the elements equal to it. ``nanmedian(input, dim, keepdim=False)``:
    ``torch.return_types.nanmedian(values, indices)`` per slice (a slice of NaNs gives NaN at
    its first index); the gradient goes to ``indices``.

    Example:
        >>> import minitorch_cs.torch as torch
        >>> torch.nanmedian(torch.tensor([1.0, float("nan"), 3.0, 2.0]))
        tensor(2.)
    """
    from .._return_types import nanmedian as NanMedian
    if dim is _NO_DIM:
        if keepdim is not _NO_DIM:
            raise TypeError('nanmedian() missing 1 required positional arguments: "dim"')
        return apply(O.NanMedian, input)
    dim = _int_arg("nanmedian", "dim", 2, dim)
    if keepdim is _NO_DIM:
        keepdim = False
    elif not isinstance(keepdim, (builtins.bool, np.bool_)):  # (None too: torch's schema)
        raise TypeError(f"nanmedian(): argument 'keepdim' must be bool, not "
                        f"{type(keepdim).__name__}")
    return NanMedian(*apply(O.NanMedianDim, input, dim=_wrap_dim(dim, input.ndim),
                            keepdim=builtins.bool(keepdim)))


def _cumulative_extreme(input, dim, op, fname, result):
    if input.numel() == 0 and not isinstance(dim, builtins.bool):  # torch returns before it
        return result(*apply(op, input, dim=0))  # looks at dim (any int is taken)
    if input.ndim == 0 and not isinstance(dim, builtins.bool) and dim not in (0, -1):
        raise IndexError(f"{fname}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    return result(*apply(op, input, dim=_wrap_dim(dim, input.ndim)))


def cummax(input, dim):
    """``torch.return_types.cummax(values, indices)``: the running maximum along ``dim`` and
    the index it was taken from -- the last of equal maxima; once a NaN is met the values stay
    NaN and the index follows each later NaN. The gradient of each output position is added
    at its index.

    Example:
        >>> import minitorch_cs.torch as torch
        >>> torch.cummax(torch.tensor([1.0, 3.0, 2.0, 3.0]), 0).indices
        tensor([0, 1, 1, 3])
    """
    from .._return_types import cummax as CumMax
    return _cumulative_extreme(input, dim, O.CumMax, "cummax", CumMax)


def cummin(input, dim):
    """``torch.return_types.cummin(values, indices)``: :func:`cummax` with the running minimum
    (the last of equal minima; NaN takes over as in ``cummax``)."""
    from .._return_types import cummin as CumMin
    return _cumulative_extreme(input, dim, O.CumMin, "cummin", CumMin)

def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Pairwise ``p``-norm distances between the rows of ``x1`` and ``x2``; torch's checks:
    floating inputs of one dtype, float32/float64 only on CPU."""
    for k, x in ((1, x1), (2, x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, X{k} got: {x.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    for k, x in ((1, x1), (2, x2)):
        if not x._dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, X{k} got: "
                               f"{D.scalar_name(x._dtype)}")
    if x1._dtype in (D.float16, D.bfloat16):
        raise NotImplementedError(f'"cdist" not implemented for \'{D.scalar_name(x1._dtype)}\'')
    if x2._dtype is not x1._dtype:
        raise RuntimeError(f"expected scalar type {D.scalar_name(x1._dtype)} but found "
                           f"{D.scalar_name(x2._dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    return apply(R.Cdist, x1, x2, p=float(p))


# ----- binary search ------------------------------------------------------------------------------
def _search_dtype(seq, values):
    """torch's searchsorted compares in ``result_type(boundaries, values)`` (a 0-d tensor or a
    number ranks below the boundaries); bool has no kernel."""
    common = D.result_type(seq, values)
    if common is D.bool:
        raise NotImplementedError('"searchsorted_out_cpu" not implemented for \'Bool\'')
    if not isinstance(values, Tensor):
        from .._creation import tensor
        return seq.to(common), tensor(values).to(common)  # wraps around, as torch casts
    return seq.to(common), values.to(common)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """The index at which each of ``input``'s values would be inserted into the last dim of
    ``sorted_sequence`` to keep it sorted (``right``/``side="right"``: after equal entries);
    ``sorter`` sorts an unsorted sequence. int64 indices (``out_int32``: int32), not
    differentiable."""
    from .._ops.selection import Searchsorted
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got "
                               f"{side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    if sorted_sequence.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, "
                           "but got 0 dimension")
    vshape = tuple(input.shape) if isinstance(input, Tensor) else ()
    if sorted_sequence.ndim > 1 and (tuple(sorted_sequence.shape[:-1]) != vshape[:-1] or
                                     len(vshape) != sorted_sequence.ndim):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the "
                           "first N-1 dimensions of boundaries tensor and input value tensor must "
                           f"match, but we got boundaries tensor {list(sorted_sequence.shape)} and "
                           f"input value tensor {list(vshape)}")
    if sorter is not None:
        if tuple(sorter.shape) != tuple(sorted_sequence.shape):
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same size, "
                               f"but got boundary tensor {list(sorted_sequence.shape)}and got "
                               f"sorter tensor {list(sorter.shape)}")
        if sorter._dtype is not D.int64:
            raise RuntimeError("torch.searchsorted(): sorter must be a tensor of long dtype but "
                               f"got dtype {D.scalar_name(sorter._dtype)}")
        n = sorted_sequence.shape[-1]
        if sorter.numel() and (bool((sorter < 0).any()) or bool((sorter >= n).any())):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
    seq, values = _search_dtype(sorted_sequence, input)
    return apply(Searchsorted, seq, values, right=right, out_int32=out_int32, sorter=sorter)


def histc(input, bins=100, min=0, max=0, *, out=None):
    """How many elements fall in each of ``bins`` equal-width bins over ``[min, max]``, in
    ``input``'s (floating) dtype. ``min == max`` (the default 0, 0) takes the input's own
    extremes, then widens an empty range by 1 on each side; elements outside the range, and
    NaN, are not counted. Not differentiable. A half-precision count stops growing where the
    dtype cannot add 1 (2048 for float16), as torch's one-thread kernel (its threads each
    count a part, so the saturated total depends on their number there)."""
    if not isinstance(bins, (builtins.int, np.integer)) or isinstance(bins, builtins.bool):
        raise TypeError(f"histc(): argument 'bins' must be int, not {type(bins).__name__}")
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f'"histogram_cpu" not implemented for '
                                  f"'{D.scalar_name(input._dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    shown = [c_number(lo), c_number(hi)]
    if lo == hi and input.numel():
        data = input.detach()
        lo, hi = float(amin(data)), float(amax(data))
        # (a NaN from the data prints as the x86 default NaN, negative, as in torch's message)
        shown = ["-nan" if math.isnan(v) else c_number(v) for v in (lo, hi)]
    if lo == hi:
        lo, hi = lo - 1, hi + 1
        shown = [c_number(lo), c_number(hi)]
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{shown[0]}, {shown[1]}] is not finite")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    return apply(S.Histc, input, bins=int(bins), lo=lo, hi=hi)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each of ``input``'s values among the 1-d ``boundaries``
    (``searchsorted(boundaries, input)``)."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def aminmax(input, *, dim=None, keepdim=False):
    """``torch.return_types.aminmax(min, max)``: the smallest and largest values over ``dim``
    (an int; None: every element) in one node, NaN propagating; each gradient shared evenly
    among the elements equal to its result."""
    from .._return_types import aminmax as AminMax
    if dim is not None and (not isinstance(dim, builtins.int) or isinstance(dim, builtins.bool)):
        raise TypeError(f"aminmax(): argument 'dim' must be int, not {type(dim).__name__}")
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                               "operation has no identity.")
        axis = None
    else:
        d = _wrap_dim(dim, input.ndim)
        if input.ndim and input.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
        axis = (d,) if input.ndim else None
        keepdim = keepdim and input.ndim > 0
    return AminMax(*apply(R.Aminmax, input, axis=axis, keepdim=builtins.bool(keepdim)))


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each of ``elements`` is among ``test_elements`` (``invert``: is not), compared
    in their promoted dtype; either may be a number (not both). A bool tensor of
    ``elements``' shape; bool inputs are refused as torch refuses them. ``assume_unique`` only
    speeds torch up; the result is the same."""
    from .._ops.selection import Isin
    def number(x):
        return isinstance(x, (builtins.int, builtins.float, np.number))

    if not ((isinstance(elements, Tensor) or number(elements)) and
            (isinstance(test_elements, Tensor) or number(test_elements)) and
            (isinstance(elements, Tensor) or isinstance(test_elements, Tensor))):
        raise TypeError(f"isin() received an invalid combination of arguments - got "
                        f"({type(elements).__name__}, {type(test_elements).__name__}), but "
                        "expected one of:\n * (Tensor elements, Tensor test_elements, *, bool "
                        "assume_unique = False, bool invert = False, Tensor out = None)\n * "
                        "(Scalar element, Tensor test_elements, *, bool assume_unique = False, "
                        "bool invert = False, Tensor out = None)\n * (Tensor elements, Scalar "
                        "test_element, *, bool assume_unique = False, bool invert = False, "
                        "Tensor out = None)\n")
    for x in (elements, test_elements):
        if isinstance(x, builtins.bool) or (isinstance(x, Tensor) and x._dtype is D.bool):
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    dt = D.result_type(elements, test_elements)
    return apply(Isin, elements, test_elements, dtype=dt.np, invert=builtins.bool(invert))


def std_var_all(out, input, dim=None, *args, **kwargs):
    """Whether torch's CPU std/var takes its all-reduce kernel (``std_var_all``): ``out`` is
    float32/float64 and the result has at most one element."""
    if isinstance(dim, builtins.bool):
        dim = None
    axes = _dims(dim, input.ndim)
    kept = [n for i, n in enumerate(input.shape) if axes is not None and i not in axes]
    return int(np.prod(kept)) <= 1 and out.dtype in (D.float32, D.float64)


def _std_var_out_check(out, input, dim=None, *args, keepdim=False, **kwargs):
    """The all-reduce kernel (``std_var_all``) takes float32/float64 inputs only: a
    float16/bfloat16 input is refused there."""
    if not isinstance(input, Tensor):
        return
    if std_var_all(out, input, dim) and input._dtype in (D.float16, D.bfloat16):
        raise RuntimeError(f"std_var_all: Unsupported dtype {D.scalar_name(input._dtype)}")


std.out_check = var.out_check = _std_var_out_check
