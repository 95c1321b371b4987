"""Indexing functions: where, nonzero, unique, bincount, gather/scatter, index_select/add/copy/fill, masked_fill/select/scatter, take/put, index_put."""
from __future__ import annotations

import builtins
import numpy as np

from .. import _dtype as D
from .._autograd import also_checked, torch_named
from .._dispatch import apply, apply_inplace
from .._errors import expand_error, in_range, index_error
from .._fpe import warn_user
from .._ops import elementwise as E
from .._ops import index_write as W
from .._ops import movement as M
from .._ops import selection as S
from .._tensor import Tensor, _wrap_dim
from ._common import _index_arr, _need_tensor, _parser_error, _sizes_str, _t

__all__ = ["where", "nonzero", "unique", "unique_consecutive", "bincount", "gather", "scatter", "scatter_add",
           "index_select", "index_add", "index_copy", "index_fill", "masked_fill", "masked_select",
           "take", "put", "masked_scatter", "index_put", "scatter_reduce"]


def where(condition, input=None, other=None):
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if input is None or other is None:  # torch has where(condition) and where(condition, x, y)
        from ._parser import _combination
        raise _combination("where", (condition, input if other is None else other), {})
    if isinstance(condition, Tensor) and condition._dtype is D.uint8:
        # torch still takes a uint8 condition (nonzero is True), warning once per process
        if not _UINT8_WHERE_WARNED:
            _UINT8_WHERE_WARNED.append(True)
            warn_user("where received a uint8 condition tensor. This behavior is deprecated and "
                      "will be removed in a future version of PyTorch. Use a boolean condition "
                      "instead.")
        condition = condition != 0
    if not isinstance(condition, Tensor) or condition._dtype is not D.bool:
        name = D.scalar_name(condition._dtype) if isinstance(condition, Tensor) else \
            type(condition).__name__
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with "
                           f"dtype {name}")
    return apply(E.Where, condition, _t(input), _t(other))


_UINT8_WHERE_WARNED: list = []


def nonzero(input, *, as_tuple=False):
    """The indices of the nonzero elements of ``input``: an ``(n, input.ndim)`` int64 tensor, or
    with ``as_tuple`` one 1-d int64 tensor per dimension. The output's shape depends on the values,
    so a compiled step (the emulated wafer) refuses it."""
    if as_tuple:
        return apply(S.NonzeroTuple, input)
    return apply(S.Nonzero, input)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The sorted distinct values of ``input`` (slices along ``dim``), with the inverse indices
    and the counts when asked for. Data-dependent output shape (see :func:`nonzero`)."""
    if not isinstance(input, Tensor):
        raise TypeError("_unique2(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    for name, v in (("sorted", sorted), ("return_inverse", return_inverse),
                    ("return_counts", return_counts)):
        if not isinstance(v, (builtins.bool, np.bool_)):  # torch's schema: bools only
            raise TypeError(f"_unique2(): argument '{name}' must be bool, not {type(v).__name__}")
    axis = None if dim is None else _wrap_dim(dim, input.ndim)
    vals, inverse, counts = apply(S.Unique, input, axis=axis)
    if not (return_inverse or return_counts):
        return vals
    return (vals,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())


def _unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    if not isinstance(input, Tensor):
        raise TypeError("unique_consecutive(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    for name, v in (("return_inverse", return_inverse), ("return_counts", return_counts)):
        if not isinstance(v, (builtins.bool, np.bool_)):
            raise TypeError(f"unique_consecutive(): argument '{name}' must be bool, not "
                            f"{type(v).__name__}")
    axis = None
    if dim is not None:
        if input.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        axis = _wrap_dim(dim, input.ndim)
        if any(n == 0 for d, n in enumerate(input.shape) if d != axis):
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique "
                               "cannot be applied")
    vals, inverse, counts = apply(S.UniqueConsecutive, input, axis=axis)
    none = Tensor._wrap(np.zeros(0, np.int64))  # (torch's kernel: an output not asked for)
    return vals, inverse if return_inverse else none, counts if return_counts else none


def unique_consecutive(*args, **kwargs):
    """``input`` with each run of equal consecutive elements (slices along ``dim``; the
    flattened input without) collapsed to one, with the inverse indices and the run lengths
    when asked for: ``unique_consecutive(input, return_inverse=False, return_counts=False,
    dim=None)``. Data-dependent output shape (see :func:`nonzero`); no derivative (a backward
    through it raises, as torch's).

    Which results are returned is read as torch 2.13's dispatcher reads it: ``return_inverse``
    by keyword or as the third positional argument, ``return_counts`` by keyword or as the
    second -- so ``unique_consecutive(x, True)`` computes the inverse but returns
    ``(output, counts)`` with empty counts, as torch does."""
    # (the dispatcher tests the flags' truth first: a tensor there is bool()'s error)
    want_inverse = bool(kwargs.get("return_inverse", args[2] if len(args) > 2 else False))
    want_counts = bool(kwargs.get("return_counts", args[1] if len(args) > 1 else False))
    vals, inverse, counts = _unique_consecutive(*args, **kwargs)
    if not (want_inverse or want_counts):
        return vals
    return (vals,) + ((inverse,) if want_inverse else ()) + ((counts,) if want_counts else ())


def _unique_consecutive_method(self, return_inverse=False, return_counts=False, dim=None):
    return unique_consecutive(self, return_inverse=return_inverse, return_counts=return_counts,
                              dim=dim)


def bincount(input, weights=None, minlength=0):
    """How often each value ``0..max(input)`` occurs in the 1-d non-negative integer ``input``
    (summed ``weights`` instead when given); at least ``minlength`` bins."""
    if weights is None:
        return apply(S.Bincount, input, minlength=minlength)
    return apply(S.Bincount, input, weights, minlength=minlength)


def gather(input, dim, index, *, sparse_grad=False):
    d = _wrap_dim(dim, input.ndim)
    idx = _index_arr(index, "gather")
    if idx.ndim != input.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    return apply(M.Gather, input, index=idx, dim=d)


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    d = _wrap_dim(dim, input.ndim)
    s = src if src is not None else value
    out = apply(M.Scatter, input, _index_arr(index, "scatter"), _t(s), dim=d, reduce=reduce)
    if isinstance(s, Tensor) or reduce is not None:
        return out
    return torch_named(out, "ScatterBackward1", input)  # (torch's scatter.value)


def scatter_add(input, dim, index, src):
    return torch_named(scatter(input, dim, index, src, reduce="add"), "ScatterAddBackward0",
                       input, src)


def index_select(input, dim, index):
    idx = _index_arr(index, "index_select")
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    return apply(M.IndexSelect, input, index=idx.reshape(-1), dim=_wrap_dim(dim, input.ndim))


def _index_add_args(input, dim, index, source, fn="index_add"):
    """torch's checks for ``index_add``, in torch's order; returns (dim, 1-d int64 index)."""
    _need_tensor(index, fn, "index", 2)
    _need_tensor(source, fn, "source", 3)
    d = _wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: "
                         f"{index.ndim} with type: {D.scalar_name(index._dtype)} and size: "
                         f"{list(index.shape)}")
    if index._dtype not in (D.int64, D.int32):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: "
                           f"{D.scalar_name(index._dtype)}")
    if input._dtype is not source._dtype:
        raise RuntimeError(f"index_add_(): self ({D.scalar_name(input._dtype)}) and source "
                           f"({D.scalar_name(source._dtype)}) must have the same scalar type")
    if d != 0 and d >= source.ndim:
        raise RuntimeError(f"index_add_(): Indexing dim {d} is out of bounds of the source tensor "
                           f"with dim {source.ndim}")
    n = index.numel()
    if n != (1 if source.ndim == 0 else source.shape[d]):
        if source.ndim == 0:
            raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
        raise RuntimeError(f"index_add_(): Number of indices ({n}) should be equal to "
                           f"source.size(dim): ({source.shape[d]}), for dim: {d}")
    ss, xs = list(source.shape), list(input.shape)
    if source.ndim and input.ndim:
        del ss[d], xs[d]
    if ss != xs:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(input.shape)} "
                           f"source.shape = {list(source.shape)}")
    return d, index.reshape(-1).to(D.int64)  # the range is checked by the kernel


def _index_copy_args(input, dim, index, source, fn="index_copy"):
    """torch's checks for ``index_copy``, in torch's order; returns (dim, 1-d index)."""
    _need_tensor(index, fn, "index", 2)
    _need_tensor(source, fn, "source", 3)
    d = _wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    n = index.numel()
    if source.ndim == 0 and n != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element "
                         f"(got {n})")
    if source.ndim != input.ndim and source.ndim and input.ndim:
        raise IndexError("index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({source.ndim}), "
                         f"destination dimensionality ({input.ndim})")
    if index._dtype is not D.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{D.scalar_name(index._dtype)}")
    if input._dtype is not source._dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but "
                           f"got (self) {D.scalar_name(input._dtype)} and (source) "
                           f"{D.scalar_name(source._dtype)}")
    xs, ss = list(input.shape), list(source.shape)
    if xs:
        del xs[d]
    if ss:
        del ss[d]
    if xs != ss:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. "
                           f"Destination slice shape: {_sizes_str(xs)} at dimension {d} and source "
                           f"slice shape: {_sizes_str(ss)} at dimension 0.")
    if source.ndim and n != source.shape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to "
                         f"source.size(dim) ({source.shape[d]})")
    return d, index.reshape(-1)  # the range is checked by the kernel


def _index_fill_args(input, dim, index, value, fn="index_fill"):
    """torch's checks for ``index_fill``, in torch's order; returns (dim, 1-d index, value) with
    value a number or a 0-d tensor (the kernel checks the index range and wraps negatives)."""
    number = (builtins.int, builtins.float, np.number)
    if not isinstance(index, Tensor) or not isinstance(value, (Tensor,) + number):
        _parser_error(fn, (dim, index, value), [
            ("int dim, Tensor index, Tensor value", (builtins.int, Tensor, Tensor)),
            ("int dim, Tensor index, Number value", (builtins.int, Tensor, number))])
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.ndim} dimension(s).")
    if index._dtype is not D.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    d = _wrap_dim(dim, builtins.max(input.ndim, 1))
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    return d, index.reshape(-1), value


def index_add(input, dim, index, source, *, alpha=1):
    """``out = input.clone(); out[..., index[i], ...] += alpha * source[..., i, ...]`` along
    ``dim`` (repeated indices accumulate). ``index`` is a 0-d or 1-d int64/int32 tensor with one
    entry per slice of ``source``; ``source`` has ``input``'s dtype and its shape but along ``dim``.
    Differentiable w.r.t. ``input`` and ``source``.

    Raises:
        RuntimeError/IndexError: torch's errors for a bad index (an index outside
            ``[0, size)``: a negative index does not wrap), dtype or shape.

    Example:
        >>> import minitorch_cs.torch as torch
        >>> torch.zeros(3).index_add(0, torch.tensor([0, 2, 0]), torch.ones(3), alpha=2)
        tensor([4., 0., 2.])
    """
    d, idx = _index_add_args(input, dim, index, source)
    return apply(M.IndexAdd, input, source, index=idx, dim=d, alpha=alpha)


def index_copy(input, dim, index, source):
    """``out = input.clone(); out[..., index[i], ...] = source[..., i, ...]`` along ``dim`` (the
    last of repeated indices wins, as on torch's CPU). ``index`` must be int64. Differentiable
    w.r.t. ``input`` (zero where overwritten) and ``source``.

    Raises:
        RuntimeError/IndexError: torch's errors for a bad index (outside ``[0, size)``), dtype or
            shape.
    """
    d, idx = _index_copy_args(input, dim, index, source)
    return apply(M.IndexCopy, input, source, index=idx, dim=d)


def index_fill(input, dim, index, value):
    """``out = input.clone()`` with every slice ``index[i]`` along ``dim`` set to ``value`` (a
    number or a 0-d tensor). ``index`` must be int64; negative entries count from the end (as in
    torch's index_fill). Differentiable w.r.t. ``input`` (zero where filled) and a value tensor.

    Raises:
        IndexError: index not int64, or outside ``[-size, size)``.
        RuntimeError: index with more than one dimension, or a value tensor that is not 0-d.
    """
    d, idx, value = _index_fill_args(input, dim, index, value)
    op = M.IndexFillTensor if isinstance(value, Tensor) else M.IndexFill
    return apply(op, input, value, index=idx, dim=d)


def check_masked_fill(mask, value):
    """torch's checks of ``masked_fill``/``masked_fill_``: a bool mask (its C type named), a
    0-d value tensor."""
    if not isinstance(mask, Tensor) or mask._dtype is not D.bool:
        name = D.cpp_name(mask._dtype) if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{name}")
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")


def masked_fill(input, mask, value):
    check_masked_fill(mask, value)
    if isinstance(value, Tensor):
        # (torch's masked_fill.Tensor)
        return torch_named(apply(M.MaskedFill, input, mask, value), "MaskedFillBackward1", input,
                           value)
    return apply(M.MaskedFill, input, mask, value)


def masked_select(input, mask):
    """The elements of ``input`` where the boolean ``mask`` (broadcast with it) is True, as a
    1-d tensor. Data-dependent output shape (see :func:`nonzero`)."""
    if not isinstance(mask, Tensor) or mask._dtype is not D.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    return apply(S.MaskedSelect, input, mask)


# ----- flat and masked writes ---------------------------------------------------------------------
def _long_index(index, fname):
    _need_tensor(index, fname, "index", 2)
    if index._dtype is not D.int64:
        raise RuntimeError(f"{fname}(): Expected a long tensor for index, but got "
                           f"{D.scalar_name(index._dtype)}")


def take(input, index):
    """``input.flatten()[index]``, shaped like ``index`` (int64; negative entries count from the
    end, outside ``[-numel, numel)`` is torch's IndexError). The gradient adds back at the
    positions (repeats accumulate)."""
    _long_index(index, "take")
    return apply(W.Take, input, index=index)


def _put_args(input, index, source, accumulate, fname):
    """torch's checks for ``put_``, in its order: the argument types, the index dtype, the
    source dtype, then one source element per index."""
    _need_tensor(index, fname, "index", 1)  # (the argument types first, as torch's parser)
    _need_tensor(source, fname, "source", 2)
    if not isinstance(accumulate, (builtins.bool, np.bool_)):
        raise TypeError(f"{fname}(): argument 'accumulate' (position 3) must be bool, not "
                        f"{type(accumulate).__name__}")
    _long_index(index, fname)
    if source._dtype is not input._dtype:
        raise RuntimeError(f"{fname}(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {D.scalar_name(input._dtype)} and source.dtype = "
                           f"{D.scalar_name(source._dtype)}")
    if source.numel() != index.numel():
        raise IndexError(f"{fname}(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, index.numel() = "
                         f"{index.numel()}")


def put(input, index, source, accumulate=False):
    """A copy of ``input`` with ``source``'s elements (row-major) written at the flat positions
    ``index`` of ``input`` seen as flattened (negative entries count from the end; the last of
    repeated positions wins), or added there with ``accumulate=True``. ``source`` has
    ``input``'s dtype and one element per index. Differentiable in ``input`` and ``source``."""
    _put_args(input, index, source, accumulate, "put")
    # (torch's put is a clone, in input's layout, then put_)
    return also_checked(apply_inplace(W.Put, input.clone(), source, index=index,
                                      accumulate=builtins.bool(accumulate)), _if_rg(source))


def _put_inplace(self, index, source, accumulate=False):
    _put_args(self, index, source, accumulate, "put_")
    src = _if_rg(source)
    saved = [(src, src._vc[0])] if src is not None else []  # (before the write, which bumps a
    # source sharing self's storage)
    return also_checked(apply_inplace(W.Put, self, source, index=index,
                                      accumulate=builtins.bool(accumulate)), versions=saved)


def _if_rg(source):
    """``source`` when it requires grad: torch's put node then saves it (source's gradient is
    ``grad.take(index).reshape_as(source)``), so changing it in place before backward is
    refused as in torch."""
    return source if source.requires_grad else None


put.inplace = _put_inplace


def _masked_scatter_args(input, mask, source):
    _need_tensor(source, "masked_scatter", "source", 2)
    if not isinstance(mask, Tensor) or mask._dtype is not D.bool:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{D.scalar_name(mask._dtype) if isinstance(mask, Tensor) else mask}")
    if source._dtype is not input._dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{D.scalar_name(input._dtype)} and {D.scalar_name(source._dtype)}")


def masked_scatter(input, mask, source):
    """``input`` (broadcast with the bool ``mask``) with its True positions, in row-major order,
    filled from ``source``'s leading elements (fewer elements than True positions is torch's
    RuntimeError). Differentiable in ``input`` (zero where filled) and ``source``."""
    _masked_scatter_args(input, mask, source)
    return apply(W.MaskedScatter, input, mask, source)


def _masked_scatter_inplace(self, mask, source):
    _masked_scatter_args(self, mask, source)
    return apply_inplace(W.MaskedScatter, self, mask.expand(tuple(self.shape)), source)


masked_scatter.inplace = _masked_scatter_inplace


def index_put(input, indices, values, accumulate=False):
    """``input.clone().index_put_(indices, values, accumulate)``: a copy with ``values`` written
    (or with ``accumulate`` added) at the positions the tuple of index tensors selects.
    Differentiable in ``input`` (zero where written, without ``accumulate``) and ``values``."""
    return _index_put(input, indices, values, accumulate, inplace=False)


def index_put_(self, indices, values, accumulate=False):
    """``Tensor.index_put_``: :func:`index_put` written into ``self``, with the same checks."""
    return _index_put(self, indices, values, accumulate, inplace=True)


def _index_put(input, indices, values, accumulate, inplace):
    """torch's ``index_put_`` on ``input`` itself (``inplace``) or on its clone (``index_put``):
    its argument and shape checks before the kernel, in its order."""
    if not isinstance(indices, (tuple, list)):
        name, pos = ("index_put_", 1) if inplace else ("index_put", 2)
        raise TypeError(f"{name}(): argument 'indices' (position {pos}) must be tuple of "
                        f"Tensors, not {type(indices).__name__}")
    for k, i in enumerate(indices):
        if not isinstance(i, Tensor):  # (None too: torch's binding takes tensors only)
            raise TypeError(f"expected Tensor as element {k} in argument {0 if inplace else 1}, "
                            f"but got {type(i).__name__}")
    dest = (lambda: input) if inplace else input.clone  # (index_put: a clone in input's
    # layout, then index_put_)
    mask = indices[0] if len(indices) == 1 and isinstance(indices[0], Tensor) and \
        indices[0]._dtype is D.bool else None
    if mask is not None and isinstance(values, Tensor) and values.numel() == 1 and \
            not accumulate and mask.ndim <= input.ndim:
        # torch fills through the mask (masked_fill): the one value converted to input's dtype,
        # the mask extended by trailing dims and expanded to input's shape (its own dims must
        # be input's leading ones exactly)
        err = index_error((mask,), tuple(input.shape))
        if err is not None:
            raise err
        mask = mask.reshape(tuple(mask.shape) + (1,) * (input.ndim - mask.ndim)).expand(
            tuple(input.shape))
        return apply_inplace(M.IndexPut, dest(), values.reshape(()), key=(mask,),
                             accumulate=False)
    if len(indices) <= input.ndim:  # (torch's index checks come first)
        check_indices(input, tuple(indices))
    if isinstance(values, Tensor) and values._dtype is not input._dtype and indices:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{D.scalar_name(input._dtype)} for the destination and "
                           f"{D.scalar_name(values._dtype)} for the source.")
    if isinstance(values, Tensor) and len(indices) <= input.ndim:
        check_value_shape(input, tuple(indices), values, advanced=True, strip=False)
    return apply_inplace(M.IndexPut, dest(), values, key=tuple(indices), accumulate=accumulate)


def check_indices(input, key):
    """torch's checks of an advanced key's index tensors from shapes (``index_error`` without
    the values' bounds): they come before the value's shape and the kernel's own checks."""
    err = index_error(key, tuple(input.shape), bounds=False)
    if err is not None:
        raise err


def check_value_shape(input, key, value, *, advanced, strip):
    """torch's check that ``value`` fits what ``key`` selects of ``input``, from shapes alone
    (before any index value is read; an advanced key once its index tensors passed
    :func:`check_indices`). ``strip``: setitem drops the value's leading size-1 dims first
    (``index_put_`` does not). An advanced key gets ``index_put_``'s message; a basic one
    ``expand``'s, naming the first dim from the right that differs."""
    shape = tuple(input.shape)
    arrays = tuple(k._data if isinstance(k, Tensor) else k for k in key)
    if advanced:
        arrays = in_range(arrays, shape)  # (the selection's shape; no index value matters)
    target = np.broadcast_to(np.empty((), np.bool_), shape)[arrays].shape
    vshape = tuple(value.shape)
    if strip:
        vshape = vshape[next((i for i, n in enumerate(vshape) if n != 1), len(vshape)):]
    err = expand_error(vshape, target, value.type())
    if err is not None and advanced:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(vshape)} cannot be "
                           f"broadcast to indexing result of shape {list(target)}")
    if err is not None:
        raise err


_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _scatter_reduce_args(input, dim, index, src, reduce, fname, include_self=True):
    """torch's checks for ``scatter_reduce``; returns the wrapped dim."""
    _need_tensor(src, fname, "src", 4)
    if not isinstance(reduce, str):
        raise TypeError(f"{fname}(): argument 'reduce' (position 5) must be str, not "
                        f"{type(reduce).__name__}")
    d = _wrap_dim(dim, input.ndim)
    _index_arr(index, fname)
    if reduce not in _REDUCTIONS and reduce not in ("max", "min"):  # (torch takes these two
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")  # as amax/amin)
    if index.numel():
        if index.ndim != input.ndim:
            raise RuntimeError("Index tensor must have the same number of dimensions as self "
                               "tensor")
        if index.ndim != src.ndim:
            raise RuntimeError("Index tensor must have the same number of dimensions as src "
                               "tensor")
        if builtins.any(index.shape[k] > src.shape[k] or (k != d and index.shape[k] >
                                                           input.shape[k])
                        for k in range(index.ndim)):
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self "
                               f"{list(input.shape)} apart from dimension {d} and to be no "
                               f"larger size than src {list(src.shape)}")
    if src._dtype is not input._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if reduce == "mean" and input._dtype is D.bool and (include_self or not index.numel()):
        # (torch's order: without include_self the kernel checks the index range first)
        kernel = "scatter_gather_tensor_cpu_reduce_mean" if index.numel() else "div_floor_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    return d


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """A copy of ``input`` with each element of ``src`` (the block ``index`` covers) reduced
    into the position its ``index`` entry names along ``dim``: ``reduce`` is "sum", "prod",
    "mean" (integers round down), "amax" or "amin" (NaN propagates). ``include_self=False``
    leaves ``input``'s value out of every position something is scattered to. Differentiable
    in ``input`` and ``src`` with torch's formulas (ties of amax/amin share the gradient)."""
    d = _scatter_reduce_args(input, dim, index, src, reduce, "scatter_reduce", include_self)
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if input.ndim == 0:  # one element: as a 1-d tensor, reshaped back
        return scatter_reduce(input.reshape(1), 0, index.reshape(-1), src.reshape(-1), reduce,
                              include_self=include_self).reshape(())
    return apply(W.ScatterReduce, input, index, src, dim=d, reduce=reduce,
                 include_self=builtins.bool(include_self))


def _scatter_reduce_inplace(self, dim, index, src, reduce, *, include_self=True):
    d = _scatter_reduce_args(self, dim, index, src, reduce, "scatter_reduce_", include_self)
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if self.ndim == 0:
        self.copy_(scatter_reduce(self, dim, index, src, reduce, include_self=include_self))
        return self
    return apply_inplace(W.ScatterReduce, self, index, src, dim=d, reduce=reduce,
                         include_self=builtins.bool(include_self))


scatter_reduce.inplace = _scatter_reduce_inplace
