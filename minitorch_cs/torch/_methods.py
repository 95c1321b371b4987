"""Attach math methods, operators, indexing and in-place ops to ``Tensor``."""
from __future__ import annotations

import builtins

import numpy as np

from . import _dtype as D
from . import _functions as F
from ._functions import indexing as FI
from ._functions._parser import parsed
from ._functions import sampling as FS
from ._functions._common import _number_arg, _with_numpy_names
from ._dispatch import apply, apply_inplace, become
from ._ops import elementwise as E
from ._ops import movement as M
from ._ops.sampling import RandomFill
from ._autograd import no_grad, torch_named, torch_named_inplace
from ._device import device
from ._layout import (checked_format, contiguous_format, is_contiguous_as, preserve_format,
                      suggested_format)
from ._errors import _size_mismatch, c_number
from ._sizes import combination_message, sizes
from ._tensor import _TYPE_NAMES, Tensor, _no_cuda, _to_meta, _wrap_dim, type_name

# Functions whose first argument is the tensor become methods of the same name (see METHODS).
_SAME = """add sub subtract mul multiply div divide true_divide floor_divide pow float_power remainder
fmod maximum minimum atan2 lerp addcmul addcdiv neg negative abs absolute exp exp2 sinc expm1 log log2
log10 log1p sqrt rsqrt reciprocal square sin cos tan asin arcsin acos arccos atan arctan sinh cosh
tanh sigmoid relu erf sign sgn floor ceil trunc round clamp clip clamp_min clamp_max logical_not
bitwise_not isnan isinf isfinite eq ne not_equal lt less le less_equal gt greater ge greater_equal
logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor equal allclose isclose sum
mean nansum prod max min amax amin argmax argmin var std logsumexp norm dist all any count_nonzero
cumsum cumprod sort argsort topk nonzero matmul mm bmm mv dot outer addmm reshape view flatten
unflatten squeeze unsqueeze permute transpose swapaxes swapdims t movedim moveaxis expand
broadcast_to narrow select unbind split chunk tensor_split flip roll tile repeat_interleave diagonal
diag trace tril triu gather scatter scatter_add index_select masked_fill masked_select clone
unique bincount erfinv nan_to_num median index_add index_copy index_fill asinh arcsinh acosh arccosh
atanh arctanh lgamma digamma positive baddbmm addbmm kron take_along_dim rot90 xlogy logit
kthvalue mode nanmedian cummax cummin addmv addr take put masked_scatter index_put
scatter_reduce frac deg2rad rad2deg erfc signbit isposinf isneginf hardshrink prelu flipud
fliplr ravel nanmean diff argwhere msort hsplit vsplit dsplit aminmax logcumsumexp cross
narrow_copy diag_embed adjoint fix is_nonzero histc""".split()


def _unfold(self, dimension, size, step):
    """``Tensor.unfold``: torch's argument types, then its checks in order (the dim, the
    window against the dim's size, the window's sign, the step's)."""
    for i, (name, v) in enumerate((("dimension", dimension), ("size", size), ("step", step))):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise TypeError(f"unfold(): argument '{name}' (position {i + 1}) must be int, not "
                            f"{type(v).__name__}")
    d = _wrap_dim(int(dimension), self.ndim)
    most = self.shape[d] if self.ndim else 1
    if size > most:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {most} but size is "
                           f"{size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return apply(M.Unfold, self, dimension=d, size=int(size), step=int(step))


def _where(self, condition, other):
    return F.where(condition, self, other)


@sizes("sum_to_size", "size", 1)
def _sum_to_size(self, *size):
    """The sum of ``self`` down to ``size`` (a shape that expands to self's): the leading dims
    and the dims of size 1 summed away, as torch's (a sum keeping dims, then a view without the
    leading ones; ``self`` itself when the shapes agree)."""
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and shape[lead + i] != 1)
    if not dims:
        return self if not lead else self.view(size)
    out = F.sum(self, dims, keepdim=True)
    return out.view(size) if lead else out


@sizes("repeat", "repeats", 1)
def _repeat(self, *sizes):
    sizes = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
    if len(sizes) < self.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                           "dimensions of tensor")
    return apply(M.Tile, self, reps=tuple(sizes))


def _softmax(self, dim, dtype=None):
    return F.softmax(self, dim, dtype=dtype)


def _log_softmax(self, dim, dtype=None):
    return F.log_softmax(self, dim, dtype=dtype)


@sizes("tile", "dims", 1)
def _tile(self, *dims):
    return F.tile(self, dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims)


def _repeat_interleave(self, repeats, dim=None, *, output_size=None):
    """``Tensor.repeat_interleave``: its schemas all take ``repeats`` (the one-argument form of
    counts is the function's only)."""
    return F.repeat_interleave(self, repeats, dim, output_size=output_size)


def _split(self, split_size, dim=0):
    return F.split(self, split_size, dim)


_split.__qualname__ = "Tensor.split"  # (torch's method is Python: its errors name it so)


def _t_for_t_(self):
    """``t``, its rank refusal naming ``t_`` (torch's in-place overload's words)."""
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self.ndim}D")
    return F.t(self)


def _pos(self):
    if self._dtype is D.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def _contains(self, element):
    if isinstance(element, (Tensor, int, float, bool)):
        return bool((element == self).any())  # (torch's order: the element first)
    raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                       f"{type(element)}.")


def _matrix_transpose(self):
    """``x.mT``: the last two dims swapped; a 1-D tensor is refused (a 0-d one is itself, as in
    torch 2.13, where both dims wrap to the one scalar dim)."""
    return F.shape._matrix_adjoint(self, "tensor.mT", "Tensor.mT is deprecated on 0-D tensors. "
                                   "This function is the identity in these cases.")


def _conjugate_transpose(self):
    """``x.H``: a matrix's conjugate transpose (for our real dtypes, its transpose); a 0-d
    tensor is itself, with torch's one-time warning."""
    if self.ndim == 0:
        F.shape._warn_once("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
        return F.transpose(self, -2, -1)
    if self.ndim != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.ndim}-D tensor." + (" For batches of matrices, consider using "
                                                       "tensor.mH" if self.ndim > 2 else ""))
    return F.transpose(self, 0, 1)


def _reversed_dims(self):
    # torch warns once per process (TORCH_WARN_ONCE) for .T on anything but a matrix
    if self.ndim != 2:
        F.shape._warn_once(
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
            "cases." if self.ndim == 0 else
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
            "reverse the dimensions of a tensor.")
    return F.permute(self, tuple(reversed(range(self.ndim))))



def _new(self, kind, size, value=0, dtype=None, device=None, requires_grad=False):
    """``new_zeros`` and friends: ``self``'s dtype and device unless given."""
    from . import _creation as C
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{next(s for s in size if s < 0)}: {list(size)}")
    device = self.device if device is None else device
    return C.place(C._full(size, value, dtype or self._dtype, device, requires_grad), device)


def _new_filled(kind, value):
    """``new_zeros``/``new_ones``/``new_empty``: sizes one by one, as one sequence or ``size=``."""
    @sizes(f"new_{kind}", "size", 1)
    def new(self, *size, dtype=None, device=None, requires_grad=False):
        return _new(self, kind, size, value, dtype, device, requires_grad)
    new.__name__ = new.__qualname__ = f"new_{kind}"
    return new


def _new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    return _new(self, "full", (tuple(size),), fill_value, dtype, device, requires_grad)


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    from ._creation import tensor
    return tensor(data, dtype=dtype or self._dtype, device=self.device if device is None else device,
                  requires_grad=requires_grad)




# ----- operators (the binary ones: _operators.py) ----------------------------------------------
def _invert(self):
    if self._dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return F.logical_not(self) if self._dtype is D.bool else F.bitwise_not(self)




# ----- in-place ops -------------------------------------------------------------------------------
def _scalar_or_tensor(x):
    return x


def add_(self, other, *, alpha=1):
    return apply_inplace(E.Add, self, other, alpha=alpha)


def sub_(self, other, *, alpha=1):
    return apply_inplace(E.Sub, self, other, alpha=alpha)


def mul_(self, other):
    return apply_inplace(E.Mul, self, other)


def div_(self, other, *, rounding_mode=None):
    return apply_inplace(E.Div, self, other, rounding_mode=rounding_mode)


def pow_(self, exponent):
    prev = self.grad_fn
    out = apply_inplace(E.Pow, self, exponent)
    return out if isinstance(exponent, Tensor) else \
        torch_named_inplace(out, prev, "PowBackward0")  # (torch's pow_.Scalar)


def clamp_(self, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return apply_inplace(E.Clamp, self, lo=min, hi=max)


def _clamp_bound_(self, which, bound):
    """``clamp_min_``/``clamp_max_``: clamp_'s kernel, with torch's own node for each (a number
    bound's overload 0, a tensor's 1)."""
    prev = self.grad_fn
    out = clamp_(self, **{which: bound})
    return torch_named_inplace(out, prev, f"Clamp{which.capitalize()}Backward"
                               f"{1 if isinstance(bound, Tensor) else 0}")


def copy_(self, src, non_blocking=False):
    if isinstance(src, (int, float)):  # a number: copied as a 0-d tensor (its wrapped form)
        src = Tensor._wrap(np.asarray(src))
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(src).__name__}")
    if type(non_blocking) is not bool:
        raise TypeError("copy_(): argument 'non_blocking' (position 2) must be bool, not "
                        f"{type(non_blocking).__name__}")
    try:
        np.broadcast_shapes(src.shape, self.shape)
        if np.broadcast_shapes(src.shape, self.shape) != tuple(self.shape):
            raise ValueError
    except ValueError:
        try:
            shape = np.broadcast_shapes(src.shape, self.shape)
        except ValueError:
            raise _size_mismatch([tuple(self.shape), tuple(src.shape)]) from None
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape "
                           f"{list(shape)}") from None
    return apply_inplace(E.Copy, self, src)


def fill_(self, value):
    if not isinstance(value, (Tensor, int, float, bool, np.number, np.bool_)):
        raise TypeError(combination_message("fill_", (value,), {}))
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.ndim} dimensions.")
    return apply_inplace(E.Fill, self, value)


def zero_(self):
    prev = self.grad_fn
    return torch_named_inplace(apply_inplace(E.Fill, self, 0), prev, "ZeroBackward0")


def _random_fill(kind):
    def fn(self, a=None, b=None, *, generator=None):
        if kind in ("uniform", "normal") and not self._dtype.is_floating_point:
            kernel = "check_uniform_bounds" if kind == "uniform" else "normal_kernel_cpu"
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{D.scalar_name(self._dtype)}'")
        if kind == "exponential" and not self._dtype.is_floating_point:
            raise RuntimeError("Exponential distribution is a continuous probability "
                               "distribution. dtype must be a floating point but you specified "
                               f"{D.scalar_name(self._dtype)}")
        if kind == "uniform":
            lo, hi = (0.0 if a is None else a), (1.0 if b is None else b)
            if lo > hi:
                raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                                   f"from={c_number(lo)} > to={c_number(hi)}")
            return apply_inplace(RandomFill, self, kind=kind, a=float(lo), b=float(hi),
                                 generator=generator)
        if kind == "normal":
            mean, std = (0.0 if a is None else a), (1.0 if b is None else b)
            if std < 0:
                raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
            return apply_inplace(RandomFill, self, kind=kind, a=float(mean), b=float(std),
                                 generator=generator)
        if kind == "exponential":
            lambd = 1.0 if a is None else a
            if lambd <= 0:
                raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
            return apply_inplace(RandomFill, self, kind=kind, a=float(lambd), generator=generator)
        if kind == "integers":
            if a is None:
                lo, hi = 0, 2 ** 24 + 1 if self._dtype.is_floating_point else np.iinfo(self._dtype.np).max
            elif b is None:
                lo, hi = 0, a
            else:
                lo, hi = a, b
            # torch's node by overload: random_(), random_(to), random_(from, to)
            node = "RandomBackward2" if a is None else "RandomBackward1" if b is None else \
                "RandomBackward0"
            return apply_inplace(RandomFill, self, kind=kind, a=int(lo), b=int(hi),
                                 generator=generator, node=node)
        raise ValueError(kind)
    return fn


def masked_fill_(self, mask, value):
    FI.check_masked_fill(mask, value)
    if not isinstance(value, Tensor):
        return apply_inplace(M.MaskedFill, self, mask, value)
    prev = self.grad_fn
    return torch_named_inplace(apply_inplace(M.MaskedFill, self, mask, value), prev,
                               "MaskedFillBackward1")  # (torch's masked_fill_.Tensor)


def index_add_(self, dim, index, source, *, alpha=1):
    d, idx = FI._index_add_args(self, dim, index, source, "index_add_")
    return apply_inplace(M.IndexAdd, self, source, index=idx, dim=d, alpha=alpha)


def index_copy_(self, dim, index, source):
    d, idx = FI._index_copy_args(self, dim, index, source, "index_copy_")
    return apply_inplace(M.IndexCopy, self, source, index=idx, dim=d)


def index_fill_(self, dim, index, value):
    d, idx, value = FI._index_fill_args(self, dim, index, value, "index_fill_")
    op = M.IndexFillTensor if isinstance(value, Tensor) else M.IndexFill
    return apply_inplace(op, self, value, index=idx, dim=d)


def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    s = src if src is not None else value
    prev = self.grad_fn
    out = apply_inplace(M.Scatter, self, index, s, dim=dim % max(self.ndim, 1), reduce=reduce)
    if isinstance(s, Tensor) or reduce is not None:
        return out
    return torch_named_inplace(out, prev, "ScatterBackward1")  # (torch's scatter_.value)


def scatter_add_(self, dim, index, src):
    prev = self.grad_fn
    return torch_named_inplace(apply_inplace(M.Scatter, self, index, src,
                                             dim=dim % max(self.ndim, 1), reduce="add"),
                               prev, "ScatterAddBackward0")


def lerp_(self, end, weight):
    return apply_inplace(E.Lerp, self, end, weight)


def addcmul_(self, tensor1, tensor2, *, value=1):
    return apply_inplace(E.Addcmul, self, tensor1, tensor2,
                         value=_number_arg(value, "addcmul_", "value"))


def addcdiv_(self, tensor1, tensor2, *, value=1):
    return apply_inplace(E.Addcdiv, self, tensor1, tensor2,
                         value=_number_arg(value, "addcdiv_", "value"))



_INPLACE_UNARY = {"neg": E.Neg, "abs": E.Abs, "exp": E.Exp, "log": E.Log, "sqrt": E.Sqrt,
                  "rsqrt": E.Rsqrt, "reciprocal": E.Reciprocal, "sin": E.Sin, "cos": E.Cos,
                  "tanh": E.Tanh, "sigmoid": E.Sigmoid, "relu": E.Relu, "floor": E.Floor,
                  "ceil": E.Ceil, "trunc": E.Trunc, "round": E.Round, "sign": E.Sign,
                  "square": E.Square, "log1p": E.Log1p, "expm1": E.Expm1, "erf": E.Erf,
                  "erfinv": E.Erfinv}



# ----- indexing -----------------------------------------------------------------------------------
def _sequence_as_tuple(key) -> bool:
    """torch's reading of a key that is a sequence but not a tuple (numpy's old heuristic): a
    list shorter than 32 holding a tensor, a sequence, a slice, ``...`` or None is a tuple of
    indices (``x[[0, slice(None)]]`` is ``x[0, :]``, ``x[[t0, t1]]`` is ``x[t0, t1]``); any
    other list is one index. A numpy array is always one index."""
    if not isinstance(key, list) or len(key) >= 32:
        return False
    return any(k is None or k is Ellipsis or isinstance(k, (Tensor, slice, list, tuple, range,
                                                            str, np.ndarray)) for k in key)


_INDEX_DTYPES = ("int64", "int32", "uint8", "bool")  # (torch: long, int, byte or bool)


def _norm_key(key):
    """The index as a tuple of ints, slices, None, Ellipsis, bools and index *tensors* (lists and
    arrays become constant int64/bool tensors, a uint8 tensor a bool mask, as torch reads it);
    also whether it is an advanced index. Index tensors stay tensors so that an index computed in
    a traced step is an input of the indexing op, not a constant."""
    if _sequence_as_tuple(key):
        key = tuple(key)
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    adv = False
    for k in key:
        if isinstance(k, Tensor):
            if k._dtype.name not in _INDEX_DTYPES:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            out.append(k.to(D.bool) if k._dtype is D.uint8 else k)
            adv = True
        elif isinstance(k, (list, np.ndarray)):
            a = np.asarray(k)
            if a.size == 0:  # x[[]] selects nothing (numpy would read [] as float)
                a = a.astype(np.int64)
            if a.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            out.append(Tensor._wrap(a if a.dtype.kind == "b" else a.astype(np.int64)))
            adv = True
        elif isinstance(k, bool):
            out.append(k)
            adv = True
        elif k is None or k is Ellipsis or isinstance(k, (int, np.integer, slice)):
            if isinstance(k, slice) and k.step is not None and k.step <= 0:
                raise ValueError("slice step cannot be zero" if k.step == 0 else
                                 "step must be greater than zero")
            out.append(k)
        elif isinstance(k, str):  # (torch tries to read it as tensor data)
            raise TypeError("new(): invalid data type 'str'")
        else:
            raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                             f"Variables are valid indices (got {type(k).__name__})")
    return tuple(out), adv


def _check_bounds(shape, key):
    dim = 0
    for k in key:
        if k is None:
            continue
        if k is Ellipsis:
            dim = len(shape) - sum(1 for x in key if x is not None and x is not Ellipsis)
            dim = max(dim, 0) + sum(1 for x in key[:key.index(Ellipsis)] if x is not None)
            continue
        if isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            if dim >= len(shape):
                raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
            if not -shape[dim] <= k < shape[dim]:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size "
                                 f"{shape[dim]}")
        dim += 1
    if dim > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")


def _split_ints(key):
    """torch applies integer indices before advanced ones, like ``select``; numpy counts an int
    as an advanced index, which moves the broadcast dims to the front (``x[1, :, [0]]`` is (3, 1)
    in torch, (1, 3) in numpy). Returns ``(first, rest)`` with ``x[key] == x[first][rest]``, or
    None when the key has no int next to an advanced index."""
    if not any(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))
               for x in key):
        return None
    first, rest = [], []
    for x in key:
        if isinstance(x, (bool, np.bool_)):
            rest.append(x)  # consumes no dimension
        elif isinstance(x, (int, np.integer)):
            first.append(x)
        elif x is None:
            first.append(None)
            rest.append(slice(None))
        elif x is Ellipsis:
            first.append(Ellipsis)
            rest.append(Ellipsis)
        elif isinstance(x, Tensor):
            first.extend([slice(None)] * (x.ndim if x._dtype is D.bool else 1))
            rest.append(x)
        else:  # a slice
            first.append(slice(None))
            rest.append(x)
    return tuple(first), tuple(rest)


def _zero_dim_key(key):
    """torch's errors for indexing a 0-d tensor with anything but None, ``...`` and bool masks
    (a lone slice and a lone int have their own messages)."""
    if isinstance(key, slice):
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    for k in key if isinstance(key, tuple) else (key,):
        if k is None or k is Ellipsis or isinstance(k, (bool, np.bool_)) or (
                isinstance(k, Tensor) and k.ndim == 0 and k._dtype is D.bool):
            continue
        raise IndexError("too many indices for tensor of dimension 0")


def _view_node(key, shape) -> str:
    """torch's name for the node of basic indexing with ``key``: torch applies the entries in
    order, one view op each (an int a ``select``, a slice a ``slice``, ``None`` an
    ``unsqueeze``), and the result shows the last one's node. In a tuple key, a slice that
    keeps the whole dim (start 0, step 1, stop past the end) is skipped; when nothing is left
    the result is an ``alias``. A single slice is always applied (``x[:]`` is a slice)."""
    if not isinstance(key, tuple):
        key = (key,)
        if isinstance(key[0], slice):
            return "SliceBackward0"
    name = "AliasBackward0"
    n_dims = sum(1 for k in key if k is not None and k is not Ellipsis)
    dim = 0
    for k in key:
        if k is None:
            name = "UnsqueezeBackward0"
        elif k is Ellipsis:
            dim += len(shape) - n_dims
        elif isinstance(k, slice):
            whole = k.start in (None, 0) and k.step in (None, 1) and (
                k.stop is None or isinstance(k.stop, (int, np.integer)) and k.stop >= shape[dim])
            if not whole:
                name = "SliceBackward0"
            dim += 1
        else:  # an int
            name = "SelectBackward0"
            dim += 1
    return name


def __getitem__(self, key):
    if not self.ndim:
        _zero_dim_key(key)
    k, adv = _norm_key(key)
    split = _split_ints(k) if adv else None
    if split is not None:
        first, rest = split
        _check_bounds(self.shape, first)
        return __getitem__(apply(M.Index, self, key=first, node="SelectBackward0"), rest)
    if adv:
        try:
            return apply(M.AdvIndex, self, key=k)
        except IndexError as e:
            raise IndexError(str(e)) from None
    _check_bounds(self.shape, k)
    return apply(M.Index, self, key=k, node=_view_node(key, self.shape))


def __setitem__(self, key, value):
    if not self.ndim:
        _zero_dim_key(key)
    if not isinstance(value, Tensor) or value.ndim == 0:
        # (torch writes a number through a byte mask with masked_fill_, which takes bool only)
        for e in key if isinstance(key, (tuple, list)) else (key,):
            if isinstance(e, Tensor) and e._dtype is D.uint8:
                FI.check_masked_fill(e, value)
    k, adv = _norm_key(key)
    split = _split_ints(k) if adv else None
    if split is not None:
        first, rest = split
        _check_bounds(self.shape, first)
        __setitem__(apply(M.Index, self, key=first), rest, value)
        return
    if not adv:
        _check_bounds(self.shape, k)
    if isinstance(value, (list, tuple)):
        from ._creation import tensor
        value = tensor(value, dtype=self._dtype)
    if isinstance(value, Tensor) and value.ndim:
        if adv:
            FI.check_indices(self, k)
        FI.check_value_shape(self, k, value, advanced=adv, strip=True)
    # (sliced: the value's leading size-1 dims are dropped first, as torch's setitem)
    apply_inplace(M.IndexPut, self, value, key=k, sliced=True)
    if self.grad_fn is not None and self._base is None:  # (a view's node is its view's)
        torch_named(self, _setitem_node(key, k, adv, self.shape, value))


def _setitem_node(key, k, adv, shape, value) -> str:
    """torch's node for ``x[key] = value``: ``index_put_`` for an index tensor; otherwise it
    takes the view of basic indexing (whole-dim slices skipped, a single slice too) and copies
    the value into it (``fill_`` for a number or 0-d tensor into a shaped target): the base's
    node is ``CopySlices``, or, when no view op was applied, the copy's or fill's own."""
    if adv:  # torch applies the key's view entries first (a bool entry: an unsqueeze), then
        # index_put_ into that view (its base's node is CopySlices) or into the tensor itself
        basic = []
        for e in k:
            if isinstance(e, Tensor):
                basic.extend([slice(None)] * (e.ndim if e._dtype is D.bool else 1))
            else:
                basic.append(None if isinstance(e, bool) else e)
        return "torch::autograd::CopySlices" if _view_node(tuple(basic), shape) != \
            "AliasBackward0" else "IndexPutBackward0"
    if _view_node(key if isinstance(key, tuple) else (key,), shape) != "AliasBackward0":
        return "torch::autograd::CopySlices"
    vshape = tuple(value.shape) if isinstance(value, Tensor) else ()
    # (copy_ for a shaped value, or a 0-d one into a 0-d target: the shapes agree)
    return "torch::autograd::CopyBackwards" if vshape or not shape else "FillBackward3"


# ----- in-place view changes (``t.transpose_(0, 1)``) -------------------------------------------------
def _inplace_view(name, fn):
    """``t.transpose_(...)`` and friends: ``t`` becomes the view ``fn(t, ...)`` (dispatch.become).
    Its node takes torch's name for the in-place overload: the out-of-place node's number plus
    one (``TransposeBackward1``, ``UnsqueezeBackward1``), or plus three for ``squeeze_``
    (``SqueezeBackward3/4/5`` for no dim, a dim, dims)."""
    step = 3 if name == "squeeze_" else 1

    def method(self, *args, **kwargs):  # t.unsqueeze_(dim=0) as well
        prev = self.grad_fn
        become(self, fn(self, *args, **kwargs))
        node = self.grad_fn
        if node is not None and node is not prev:
            base, num = node.name().rsplit("Backward", 1)
            torch_named(self, f"{base}Backward{int(num) + step}")
        return self
    method.__name__ = name
    return method



# ----- dtype and device conversions ---------------------------------------------------------------
def _is_dtype_arg(a) -> bool:
    """A dtype as torch's parser reads one: a torch dtype or Python's float/int/bool."""
    return isinstance(a, D.dtype) or a in (builtins.float, builtins.int, builtins.bool)


def _to_args(args, kwargs):
    """torch's three ``to`` overloads, told apart by the first argument as its parser does:
    ``to(dtype, non_blocking=False, copy=False)``, ``to(other, non_blocking=False, copy=False)``
    and ``to(device=None, dtype=None, non_blocking=False, copy=False)``, each with keyword
    ``memory_format``. Returns (dtype, device, copy, memory_format); a call that fits none is
    the combination TypeError."""
    kw = dict(kwargs)
    fmt = kw.pop("memory_format", None)
    first = args[0] if args else None
    if isinstance(first, Tensor) or "other" in kw:
        lead, names = ("other",), ("non_blocking", "copy")
    elif _is_dtype_arg(first):
        lead, names = ("dtype",), ("non_blocking", "copy")
    else:
        lead, names = ("device", "dtype"), ("non_blocking", "copy")
    given = dict(zip(lead + names, args))
    ok = len(args) <= len(lead + names) and not (set(given) & set(kw)) and \
        set(kw) <= set(lead + names)
    given.update(kw)
    if ok:
        ok = all(isinstance(given.get(n, False), builtins.bool) for n in names) and (
            "dtype" not in given or given["dtype"] is None or _is_dtype_arg(given["dtype"])) and (
            "other" not in given or isinstance(given["other"], Tensor))
    if not ok:
        raise TypeError(combination_message("to", args, kwargs))
    if "other" in given:
        dt, dev = given["other"]._dtype, given["other"].device
    else:
        dt, dev = given.get("dtype"), given.get("device")
    if isinstance(dev, builtins.int) and not isinstance(dev, builtins.bool):
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return dt, dev, given.get("copy", False), fmt


def _to(self, *args, **kwargs):
    """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)``; ``copy=``,
    ``non_blocking=``, ``memory_format=`` (a copy in that layout unless ``self`` has it)."""
    dt, dev, copy, fmt = _to_args(args, kwargs)
    fmt = checked_format(fmt, "to")
    out = self
    if dev is not None:
        dev = device(dev)
        if dev.type == "cuda":
            _no_cuda()
        if dev.type == "meta" and not self._meta:
            out = _to_meta(self)
        elif dev.type in ("cpu", "lazy") and self._meta:
            raise NotImplementedError("Cannot copy out of meta tensor; no data! Use "
                                      "torch.empty_like(t, device='cpu') to allocate instead.")
        elif (dev.type == "lazy") != self._lazydev:  # host <-> wafer: a copy (differentiable)
            out = apply(E.Clone, self)
            out._lazydev = dev.type == "lazy"
    if dt is not None and D.to_dtype(dt) is not out._dtype:
        out = _cast(out, D.to_dtype(dt))
    elif copy and out is self:
        out = self.clone()
    if fmt is not preserve_format and (
            not is_contiguous_as(out._data, fmt) if out is not self
            else suggested_format(out._data) is not fmt):
        # torch's to() aliases ``self`` only when the layout torch suggests for it is ``fmt``;
        # a copy (a cast here) is laid out in ``fmt`` (re-laid here when the cast kept self's)
        out = apply(E.Clone, out, **F.pointwise.format_attrs(fmt, out))
    return out


def _cast(self, dt):
    if not dt.is_floating_point:  # an integer or bool result is never differentiable (torch)
        with no_grad():
            return apply(E.Cast, self, dtype=dt.np)
    return apply(E.Cast, self, dtype=dt.np)


def _type_as(self, other):
    return _to(self, other._dtype)


def _type(self, dtype=None, non_blocking=False):
    if dtype is None:
        return type_name(self._dtype)
    if isinstance(dtype, type):  # (torch's type() takes a dtype or a type name only)
        raise ValueError(f"invalid type: '{dtype.__name__}'")
    if isinstance(dtype, str):  # torch's legacy names: "torch.DoubleTensor"
        if dtype.startswith("torch.cuda."):
            raise RuntimeError("Cannot initialize CUDA without ATen_cuda library. PyTorch splits "
                               "its backend into two shared libraries: a CPU library and a CUDA "
                               "library; this error has occurred because you are trying to use "
                               "some CUDA functionality, but the CUDA library has not been "
                               "loaded by the dynamic linker for some reason.")
        names = {f"torch.{v}": k for k, v in _TYPE_NAMES.items()}
        if dtype not in names:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = getattr(D, names[dtype])
    return _to(self, dtype)


def _contiguous(self, memory_format=None):
    """``self`` when already contiguous in ``memory_format`` (C order by default), else a copy
    laid out so (torch refuses preserve_format here)."""
    fmt = contiguous_format if memory_format is None else checked_format(memory_format,
                                                                         "contiguous")
    if is_contiguous_as(self._data, fmt):
        return self
    if fmt is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return apply(E.Clone, self, **F.pointwise.format_attrs(fmt, self))


def _is_contiguous(self, memory_format=None):
    fmt = contiguous_format if memory_format is None else checked_format(memory_format,
                                                                         "is_contiguous")
    return is_contiguous_as(self._data, fmt)



# ----- the method table -------------------------------------------------------------------------
# Every Tensor method this module provides, in one declared table, bound once below. Functions of
# ``torch`` whose first argument is the tensor become methods of the same name (``_SAME``).
METHODS: dict = {name: parsed(name, getattr(getattr(F, name), "unparsed", getattr(F, name)),
                              method=True) for name in _SAME}
METHODS.update({f"{name}_": (lambda op: lambda self: apply_inplace(op, self))(op)
                for name, op in _INPLACE_UNARY.items()})
# the in-place forms the functional table declares (``fn.inplace``: acos_, eq_, fmod_, cumsum_,
# addmm_, ...); a new function gets its ``<name>_`` method by declaring one
METHODS.update({f"{name}_": parsed(f"{name}_", getattr(F, name).inplace, method=True)
                for name in _SAME
                if getattr(getattr(F, name), "inplace", None) is not None
                and f"{name}_" not in METHODS})
METHODS.update({
    'to': _to,
    'type_as': _type_as,
    'type': _type,
    'contiguous': _contiguous,
    'is_contiguous': _is_contiguous,
    'float': lambda self, memory_format=None: _to(self, D.float32, memory_format=memory_format),
    'double': lambda self, memory_format=None: _to(self, D.float64, memory_format=memory_format),
    'half': lambda self, memory_format=None: _to(self, D.float16, memory_format=memory_format),
    'bfloat16': lambda self, memory_format=None: _to(self, D.bfloat16, memory_format=memory_format),
    'long': lambda self, memory_format=None: _to(self, D.int64, memory_format=memory_format),
    'int': lambda self, memory_format=None: _to(self, D.int32, memory_format=memory_format),
    'short': lambda self, memory_format=None: _to(self, D.int16, memory_format=memory_format),
    'char': lambda self, memory_format=None: _to(self, D.int8, memory_format=memory_format),
    'bool': lambda self, memory_format=None: _to(self, D.bool, memory_format=memory_format),
    'byte': lambda self, memory_format=None: _to(self, D.uint8, memory_format=memory_format),
    'where': _where,
    'unfold': _unfold,
    'hypot': F.hypot.method,
    'hypot_': F.hypot.inplace,
    'nextafter': F.nextafter.method,
    'nextafter_': F.nextafter.inplace,
    'ldexp': F.ldexp.method,
    'ldexp_': F.ldexp.inplace,
    'logaddexp': F.logaddexp.method,
    'logaddexp2': F.logaddexp2.method,
    'fmax': F.fmax.method,
    'fmin': F.fmin.method,
    'heaviside': F.heaviside.method,
    'copysign': F.copysign.method,
    'unique_consecutive': FI._unique_consecutive_method,
    'bitwise_left_shift': F.bitwise_left_shift.method,
    'bitwise_left_shift_': F.bitwise_left_shift.inplace,
    'bitwise_right_shift': F.bitwise_right_shift.method,
    'bitwise_right_shift_': F.bitwise_right_shift.inplace,
    'copysign_': F.copysign.inplace,
    'heaviside_': F.heaviside.inplace,
    'repeat': _repeat,
    'sum_to_size': _sum_to_size,
    'softmax': _with_numpy_names(_softmax, (("axis", "dim"),)),
    'log_softmax': _with_numpy_names(_log_softmax, (("axis", "dim"),)),
    'expand_as': lambda self, other: F.expand(self, tuple(other.shape)),
    'view_as': lambda self, other: F.view(self, tuple(other.shape)),
    'reshape_as': lambda self, other: F.reshape(self, tuple(other.shape)),
    'T': property(_reversed_dims),
    'mT': property(_matrix_transpose),
    'mH': property(lambda self: F.shape._matrix_adjoint(
        self, "tensor.mH", "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().")),
    'H': property(_conjugate_transpose),
    'real': property(F.real),
    'imag': property(F.imag),
    'absolute_': lambda self: self.abs_(),
    'fix_': lambda self: self.trunc_(),
    'new_zeros': _new_filled("zeros", 0),
    'new_ones': _new_filled("ones", 1),
    'new_empty': _new_filled("empty", 0),
    'new_full': parsed("new_full", _new_full, method=True),
    'new_tensor': _new_tensor,
    '__neg__': F.neg,
    '__pos__': _pos,
    '__abs__': F.abs,
    '__invert__': _invert,
    'add_': add_,
    'sub_': sub_,
    'subtract_': sub_,
    'mul_': mul_,
    'multiply_': mul_,
    'div_': div_,
    'divide_': div_,
    'pow_': pow_,
    'clamp_': clamp_,
    'clip_': clamp_,
    'clamp_min_': lambda self, min: _clamp_bound_(self, "min", min),
    'clamp_max_': lambda self, max: _clamp_bound_(self, "max", max),
    'copy_': copy_,
    'fill_': fill_,
    'zero_': zero_,
    'uniform_': _random_fill("uniform"),
    'normal_': lambda self, mean=0, std=1, *, generator=None: _random_fill("normal")(
        self, mean, std, generator=generator),
    'exponential_': lambda self, lambd=1, *, generator=None: _random_fill("exponential")(
        self, lambd, generator=generator),
    'round_': lambda self, *, decimals=0: apply_inplace(E.RoundDecimals, self, decimals=decimals)
    if decimals else apply_inplace(E.Round, self),
    'random_': _random_fill("integers"),
    'masked_fill_': masked_fill_,
    'index_put_': FI.index_put_,
    'scatter_': scatter_,
    'index_add_': index_add_,
    'index_copy_': index_copy_,
    'index_fill_': index_fill_,
    'nan_to_num_': F.nan_to_num_,
    'scatter_add_': scatter_add_,
    'lerp_': lerp_,
    'addcmul_': addcmul_,
    'addcdiv_': addcdiv_,
    'tril_': lambda self, diagonal=0: apply_inplace(M.Tril, self, diagonal=diagonal),
    'triu_': lambda self, diagonal=0: apply_inplace(M.Triu, self, diagonal=diagonal),
    '__getitem__': __getitem__,
    '__setitem__': __setitem__,
    'transpose_': _inplace_view("transpose_", F.transpose),
    'swapaxes_': _inplace_view("swapaxes_", F.swapaxes),
    'swapdims_': _inplace_view("swapdims_", F.swapdims),
    't_': _inplace_view("t_", _t_for_t_),
    'squeeze_': _inplace_view("squeeze_", F.squeeze),
    'unsqueeze_': _inplace_view("unsqueeze_", F.unsqueeze),
    'tile': _tile,
    'split': _split,
    '__contains__': _contains,
    'bernoulli': FS.bernoulli_method,
    'bernoulli_': FS.bernoulli_,
    'multinomial': F.multinomial,
    'repeat_interleave': parsed("repeat_interleave", _repeat_interleave, method=True),
})

# the methods written here (``add_``, ``clamp_``, ``fmax``, ...) get the argument parser too
# (Python's special methods, torch's own Python methods and ``to``/``type``, which read their
# overloads themselves, keep their behaviour)
for _name, _impl in list(METHODS.items()):
    if not _name.startswith("_") and _name not in ("to", "type") and \
            getattr(_impl, "unparsed", None) is None and \
            callable(_impl) and not isinstance(_impl, type) and \
            getattr(_impl, "__qualname__", "").split(".")[0] != "Tensor":
        METHODS[_name] = parsed(_name, _impl, method=True)

for _name, _impl in METHODS.items():
    setattr(Tensor, _name, _impl)
