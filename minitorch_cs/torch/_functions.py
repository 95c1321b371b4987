"""The functional surface of ``torch``: math, reductions, shape and indexing functions.

Each function normalises its arguments (dims, scalars, tensors) and calls ``apply`` with one
primitive; composites are built only from other functions here.
"""
from __future__ import annotations

import builtins
import functools
import inspect
import math

import numpy as np

from . import _autocast
from . import _dtype as D
from ._autograd import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled
from ._dispatch import apply, apply_inplace
from ._dtype import finfo, iinfo
from ._format import set_printoptions
from ._ops import elementwise as E
from ._ops import linalg as L
from ._ops import movement as M
from ._ops import reduce as R
from ._tensor import Tensor, _wrap_dim

__all__ = ["abs", "absolute", "acos", "add", "addcdiv", "addcmul", "addmm", "all", "allclose", "amax", "amin", "any", "arccos", "arcsin", "arctan", "argmax", "argmin", "argsort", "asin", "atan", "atan2", "bincount", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "broadcast_shapes", "broadcast_tensors", "broadcast_to", "cat", "cdist", "ceil", "chunk", "clamp", "clamp_max", "clamp_min", "clip", "clone", "concat", "concatenate", "cos", "cosh", "count_nonzero", "cumprod", "cumsum", "diag", "diagonal", "dist", "div", "divide", "dot", "einsum", "eq", "equal", "erf", "exp", "exp2", "expand", "expm1", "flatten", "flip", "float_power", "floor", "floor_divide", "fmod", "gather", "ge", "greater", "greater_equal", "gt", "hstack", "index_select", "is_floating_point", "is_nonzero", "is_tensor", "isclose", "isfinite", "isinf", "isnan", "le", "lerp", "less", "less_equal", "log", "log10", "log1p", "log2", "logical_and", "logical_not", "logical_or", "logical_xor", "logsumexp", "lt", "masked_fill", "masked_select", "matmul", "max", "maximum", "mean", "meshgrid", "min", "minimum", "mm", "moveaxis", "movedim", "mul", "multiply", "mv", "nansum", "narrow", "ne", "neg", "negative", "nonzero", "norm", "not_equal", "numel", "outer", "permute", "pow", "prod", "reciprocal", "relu", "remainder", "repeat_interleave", "reshape", "roll", "round", "rsqrt", "scatter", "scatter_add", "select", "sgn", "sigmoid", "sign", "sin", "sinh", "softmax", "log_softmax", "sort", "split", "sqrt", "square", "squeeze", "stack", "std", "std_mean", "sub", "subtract", "sum", "swapaxes", "swapdims", "t", "tan", "tanh", "tensor_split", "tensordot", "tile", "topk", "trace", "transpose", "tril", "triu", "true_divide", "trunc", "unbind", "unflatten", "unique", "unsqueeze", "var", "var_mean", "view", "vstack", "where", "erfinv", "finfo", "iinfo", "index_add", "index_copy", "index_fill", "median", "nan_to_num", "nan_to_num_", "set_printoptions", "set_float32_matmul_precision", "get_float32_matmul_precision", "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled"]

# ----- argument helpers ---------------------------------------------------------------------------


def _t(x):
    """Python scalars pass through; arrays become tensors; a numpy scalar counts as the Python
    number it holds (weak in type promotion, as torch treats it: ``t * np.float64(.5)`` stays
    float32)."""
    if isinstance(x, np.ndarray):
        return Tensor._wrap(x)
    if isinstance(x, np.generic):
        return x.item()
    return x


def _dims(dim, ndim):
    """Normalise ``dim`` (int, tuple, list or None) to a sorted tuple of non-negative axes or None.

    A 0-d tensor accepts dim 0 / -1 (like torch) and has no axis to reduce: that gives None."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        out = tuple(sorted(_wrap_dim(d, ndim) for d in dim))
        if len(set(out)) != len(out):
            raise RuntimeError(f"dim {dim} appears multiple times in the list of dims")
        return out if ndim else None
    d = _wrap_dim(dim, ndim)
    return (d,) if ndim else None


def _on_0d(fn, input, dim, *args, **kwargs):
    """Run a dim-wise op on a 0-d tensor as on one element (torch's rule); results stay 0-d."""
    _wrap_dim(dim, 0)
    out = fn(input.reshape(1), 0, *args, **kwargs)
    if isinstance(out, tuple):
        return type(out)(*(o.reshape(()) for o in out))
    return out.reshape(())


def _check_tensor(x, fn):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


# ----- elementwise --------------------------------------------------------------------------------
def add(input, other, *, alpha=1, out=None):
    if not isinstance(input, Tensor):
        input, other = other, input
    return apply(E.Add, input, _t(other), alpha=alpha)


def sub(input, other, *, alpha=1, out=None):
    if isinstance(input, Tensor) and input._dtype is D.bool and isinstance(other, Tensor) and \
            other._dtype is D.bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    return apply(E.Sub, input, _t(other), alpha=alpha)


subtract = sub


def mul(input, other, *, out=None):
    if not isinstance(input, Tensor):
        input, other = other, input
    return apply(E.Mul, input, _t(other))


multiply = mul


def div(input, other, *, rounding_mode=None, out=None):
    return apply(E.Div, input, _t(other), rounding_mode=rounding_mode)


divide = true_divide = div


def floor_divide(input, other):
    return apply(E.Div, input, _t(other), rounding_mode="floor")


def pow(input, exponent, *, out=None):
    if isinstance(exponent, Tensor) and exponent.ndim == 0 and not exponent.requires_grad and \
            not isinstance(input, Tensor):
        input = Tensor._wrap(np.asarray(input, exponent._dtype.np))
    return apply(E.Pow, input, _t(exponent))


def float_power(input, exponent):
    return pow(input.double(), exponent.double() if isinstance(exponent, Tensor) else exponent)


def remainder(input, other):
    return apply(E.Remainder, input, _t(other))


def fmod(input, other):
    return apply(E.Fmod, input, _t(other))


def maximum(input, other):
    return apply(E.Maximum, input, other)


def minimum(input, other):
    return apply(E.Minimum, input, other)


def atan2(input, other):
    return apply(E.Atan2, input, other)


def lerp(input, end, weight):
    if not input._dtype.is_floating_point and not isinstance(weight, Tensor):
        raise NotImplementedError(f'"lerp_kernel_scalar" not implemented for '
                                  f"'{D.scalar_name(input._dtype)}'")
    if isinstance(end, Tensor) and end._dtype is not input._dtype:  # torch does not promote here
        c_name = {"float32": "float", "float64": "double"}
        raise RuntimeError(f"expected dtype {c_name.get(input._dtype.name, input._dtype.name)} for "
                           f"`end` but got dtype {c_name.get(end._dtype.name, end._dtype.name)}")
    return apply(E.Lerp, input, end, _t(weight))


def addcmul(input, tensor1, tensor2, *, value=1):
    return apply(E.Addcmul, input, tensor1, tensor2, value=value)


def addcdiv(input, tensor1, tensor2, *, value=1):
    return apply(E.Addcdiv, input, tensor1, tensor2, value=value)


def _unary_fn(op):
    def fn(input, *, out=None):
        return apply(op, input)
    fn.__name__ = op.name
    return fn


def _check_integral(input, name):
    if input._dtype.is_floating_point:  # torch has no floating bitwise kernels
        raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                  f"'{D.scalar_name(input._dtype)}'")


def neg(input, *, out=None):
    if input._dtype is D.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you "
                           "are trying to invert a mask, use the `~` or `logical_not()` operator "
                           "instead.")
    return apply(E.Neg, input)


negative = neg
abs = absolute = _unary_fn(E.Abs)
exp = _unary_fn(E.Exp)
exp2 = _unary_fn(E.Exp2)
expm1 = _unary_fn(E.Expm1)
log = _unary_fn(E.Log)
log2 = _unary_fn(E.Log2)
log10 = _unary_fn(E.Log10)
log1p = _unary_fn(E.Log1p)
sqrt = _unary_fn(E.Sqrt)
rsqrt = _unary_fn(E.Rsqrt)
reciprocal = _unary_fn(E.Reciprocal)
square = _unary_fn(E.Square)
sin = _unary_fn(E.Sin)
cos = _unary_fn(E.Cos)
tan = _unary_fn(E.Tan)
asin = arcsin = _unary_fn(E.Asin)
acos = arccos = _unary_fn(E.Acos)
atan = arctan = _unary_fn(E.Atan)
sinh = _unary_fn(E.Sinh)
cosh = _unary_fn(E.Cosh)
tanh = _unary_fn(E.Tanh)
sigmoid = _unary_fn(E.Sigmoid)
relu = _unary_fn(E.Relu)
erf = _unary_fn(E.Erf)


def erfinv(input, *, out=None):
    """The inverse error function, elementwise (``erfinv(±1) = ±inf``, NaN outside [-1, 1]);
    integer inputs give the default float dtype. Differentiable:
    ``d/dx erfinv(x) = sqrt(pi) / 2 * exp(erfinv(x) ** 2)``.

    Example:
        >>> import minitorch_cs.torch as torch
        >>> torch.erfinv(torch.tensor([0.0, 0.5, -1.0]))
        tensor([0.0000, 0.4769,   -inf])
    """
    _check_tensor(input, "erfinv")
    return apply(E.Erfinv, input)


sign = _unary_fn(E.Sign)
floor = _unary_fn(E.Floor)
ceil = _unary_fn(E.Ceil)
trunc = _unary_fn(E.Trunc)
logical_not = _unary_fn(E.LogicalNot)
def bitwise_not(input, *, out=None):
    _check_integral(input, "bitwise_not")
    return apply(E.BitwiseNot, input)
isnan = _unary_fn(E.IsNan)
isinf = _unary_fn(E.IsInf)
isfinite = _unary_fn(E.IsFinite)


def _nan_to_num_args(nan, posinf, neginf):
    """torch reads the replacement values as Python floats (``None`` nan is 0; a 0-d tensor
    gives its value); ``None`` posinf/neginf mean the dtype's largest/smallest finite value."""
    def num(v, name):
        if v is None:
            return None
        if isinstance(v, Tensor):
            v = v.item()
        if not isinstance(v, (builtins.int, builtins.float, np.number)):
            raise TypeError(f"nan_to_num(): argument '{name}' must be float, not "
                            f"{type(v).__name__}")
        return builtins.float(v)
    nan = num(nan, "nan")
    return dict(nan=0.0 if nan is None else nan, posinf=num(posinf, "posinf"),
                neginf=num(neginf, "neginf"))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """Replace NaN, +inf and -inf in ``input`` with ``nan``, ``posinf`` and ``neginf`` (default:
    0 and the dtype's largest and smallest finite values); integer and bool tensors come back as
    unchanged copies. Differentiable: the gradient passes where ``input`` is finite, 0 elsewhere.

    Example:
        >>> import minitorch_cs.torch as torch
        >>> torch.nan_to_num(torch.tensor([float("nan"), float("inf"), 1.5]), posinf=9.0)
        tensor([0.0000, 9.0000, 1.5000])
    """
    _check_tensor(input, "nan_to_num")
    return apply(E.NanToNum, input, **_nan_to_num_args(nan, posinf, neginf))


def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    """In-place :func:`nan_to_num`; returns ``input``."""
    _check_tensor(input, "nan_to_num_")
    return apply_inplace(E.NanToNum, input, **_nan_to_num_args(nan, posinf, neginf))


def round(input, *, decimals=0):
    if decimals:
        scale = 10.0 ** decimals
        return apply(E.Round, input * scale) / scale
    return apply(E.Round, input)


def softmax(input, dim, dtype=None):
    from .nn import functional as NF
    return NF.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, dtype=None):
    from .nn import functional as NF
    return NF.log_softmax(input, dim, dtype=dtype)


def sgn(input):
    return sign(input)


def clamp(input, min=None, max=None, *, out=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    lo = min._data if isinstance(min, Tensor) and not min.requires_grad else min
    hi = max._data if isinstance(max, Tensor) and not max.requires_grad else max
    if isinstance(lo, Tensor) or isinstance(hi, Tensor):
        r = input
        if lo is not None:
            r = maximum(r, lo if isinstance(lo, Tensor) else tensor_like(lo, input))
        if hi is not None:
            r = minimum(r, hi if isinstance(hi, Tensor) else tensor_like(hi, input))
        return r
    return apply(E.Clamp, input, lo=lo, hi=hi)


clip = clamp


def tensor_like(v, ref):
    return Tensor._wrap(np.asarray(v, dtype=ref._dtype.np))


def clamp_min(input, min):
    return clamp(input, min=min)


def clamp_max(input, max):
    return clamp(input, max=max)


def where(condition, input=None, other=None):
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor) or condition._dtype is not D.bool:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with "
                           f"dtype {getattr(condition, '_dtype', type(condition).__name__)}")
    return apply(E.Where, condition, _t(input), _t(other))


def _cmp(op):
    def fn(input, other, *, out=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"{op.name}(): argument 'input' must be Tensor")
        if op.name.startswith("bitwise"):
            _check_integral(input, op.name)
        return apply(op, input, _t(other))
    fn.__name__ = op.name
    return fn


eq = _cmp(E.Eq)
ne = not_equal = _cmp(E.Ne)
lt = less = _cmp(E.Lt)
le = less_equal = _cmp(E.Le)
gt = greater = _cmp(E.Gt)
ge = greater_equal = _cmp(E.Ge)
logical_and = _cmp(E.LogicalAnd)
logical_or = _cmp(E.LogicalOr)
logical_xor = _cmp(E.LogicalXor)
bitwise_and = _cmp(E.BitwiseAnd)
bitwise_or = _cmp(E.BitwiseOr)
bitwise_xor = _cmp(E.BitwiseXor)


def equal(input, other) -> bool:
    return input.shape == other.shape and builtins.bool(np.array_equal(input._data, other._data))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    return builtins.bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol,
                                     equal_nan=equal_nan))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    o = other._data if isinstance(other, Tensor) else other
    return Tensor._wrap(np.isclose(input._data, o, rtol=rtol, atol=atol, equal_nan=equal_nan))


# ----- reductions ---------------------------------------------------------------------------------
def sum(input, dim=None, keepdim=False, *, dtype=None):
    return apply(R.Sum, input, axis=_dims(dim, input.ndim), keepdim=keepdim,
                 dtype=D.to_dtype(dtype).np if dtype is not None else None)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    return apply(R.Mean, input, axis=_dims(dim, input.ndim), keepdim=keepdim,
                 dtype=D.to_dtype(dtype).np if dtype is not None else None)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    return sum(where(isnan(input), 0.0, input), dim, keepdim, dtype=dtype)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    return apply(R.Prod, input, axis=_dims(dim, input.ndim), keepdim=keepdim,
                 dtype=D.to_dtype(dtype).np if dtype is not None else None)


def _minmax(input, dim, keepdim, other, largest):
    if isinstance(dim, Tensor):
        return maximum(input, dim) if largest else minimum(input, dim)
    if dim is None:
        return apply(R.Amax, input, axis=None, keepdim=False, largest=largest)
    if input.ndim == 0:
        return _on_0d(_minmax, input, dim, False, other, largest)
    res = apply(R.MaxDim, input, dim=_wrap_dim(dim, input.ndim), keepdim=keepdim, largest=largest)
    from ._return_types import MinMax
    return MinMax(res, "max" if largest else "min")


def max(input, dim=None, keepdim=False, *, out=None):
    return _minmax(input, dim, keepdim, None, True)


def min(input, dim=None, keepdim=False, *, out=None):
    return _minmax(input, dim, keepdim, None, False)


def amax(input, dim=(), keepdim=False):
    return apply(R.Amax, input, axis=_dims(dim, input.ndim), keepdim=keepdim, largest=True)


def amin(input, dim=(), keepdim=False):
    return apply(R.Amax, input, axis=_dims(dim, input.ndim), keepdim=keepdim, largest=False)


def argmax(input, dim=None, keepdim=False):
    return apply(R.Argmax, input, dim=None if dim is None else _wrap_dim(dim, input.ndim),
                 keepdim=keepdim, largest=True)


def argmin(input, dim=None, keepdim=False):
    return apply(R.Argmax, input, dim=None if dim is None else _wrap_dim(dim, input.ndim),
                 keepdim=keepdim, largest=False)


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def _check_float(input, msg):
    if not input._dtype.is_floating_point:
        raise RuntimeError(msg.format(D.scalar_name(input._dtype)))


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
    return apply(R.Var, input, axis=_dims(dim, input.ndim), correction=_correction(unbiased, correction),
                 keepdim=keepdim, std=True)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return (var(input, dim, unbiased, keepdim, correction=correction), mean(input, dim, keepdim))


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return (std(input, dim, unbiased, keepdim, correction=correction), mean(input, dim, keepdim))


def logsumexp(input, dim, keepdim=False):
    return apply(R.LogSumExp, input, axis=_dims(dim, input.ndim), keepdim=keepdim)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    if p == "fro" and isinstance(dim, (list, tuple)) and len(dim) > 2:
        # torch hands this case to linalg.matrix_norm, which rejects it
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + " ".join(str(d) for d in dim))
    _check_float(input, "linalg.vector_norm: Expected a floating point or complex tensor as input. "
                        "Got {}")
    if p == "fro" or p is None:
        p = 2.0
    if p == "nuc":
        raise NotImplementedError("nuclear norm is not supported")
    return apply(R.Norm, input, p=float(p), axis=_dims(dim, input.ndim), keepdim=keepdim)


def dist(input, other, p=2):
    return norm(input - other, p)


def all(input, dim=None, keepdim=False):
    return apply(R.AllAny, input, axis=_dims(dim, input.ndim), keepdim=keepdim, any=False)


def any(input, dim=None, keepdim=False):
    return apply(R.AllAny, input, axis=_dims(dim, input.ndim), keepdim=keepdim, any=True)


def count_nonzero(input, dim=None):
    return sum(ne(input, 0), dim)


def cumsum(input, dim, *, dtype=None):
    if input.ndim == 0:
        return _on_0d(cumsum, input, dim, dtype=dtype)
    return apply(R.Cumsum, input, dim=_wrap_dim(dim, input.ndim),
                 dtype=D.to_dtype(dtype).np if dtype is not None else None)


def cumprod(input, dim, *, dtype=None):
    if input.ndim == 0:
        return _on_0d(cumprod, input, dim, dtype=dtype)
    return apply(R.Cumprod, input, dim=_wrap_dim(dim, input.ndim),
                 dtype=D.to_dtype(dtype).np if dtype is not None else None)


def sort(input, dim=-1, descending=False, stable=False):
    from ._return_types import Sorted
    if input.ndim == 0:
        return _on_0d(sort, input, dim, descending, stable)
    return Sorted(apply(R.Sort, input, dim=_wrap_dim(dim, input.ndim), descending=descending))


def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending, stable)[1]


def topk(input, k, dim=-1, largest=True, sorted=True):
    from ._return_types import TopK
    if input.ndim == 0:
        return _on_0d(lambda x, d: topk(x, k, d, largest, sorted), input, dim)
    return TopK(apply(R.TopK, input, k=int(k), dim=_wrap_dim(dim, input.ndim), largest=largest))


_NO_DIM = object()


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
    from ._return_types import median as Median
    if dim is _NO_DIM:
        if keepdim is not None:
            raise TypeError('median() missing 1 required positional arguments: "dim"')
        return apply(R.Median, input)
    if not isinstance(dim, (builtins.int, np.integer)) or isinstance(dim, builtins.bool):
        raise TypeError(f"median(): argument 'dim' (position 2) must be int, not "
                        f"{type(dim).__name__}")
    return Median(*apply(R.MedianDim, input, dim=_wrap_dim(dim, input.ndim),
                         keepdim=builtins.bool(keepdim)))


def nonzero(input, *, as_tuple=False):
    idx = np.nonzero(np.atleast_1d(input._data))
    if input.ndim == 0 and not as_tuple:  # torch: one row if the value is nonzero, no columns
        return Tensor._wrap(np.zeros((int(bool(input._data)), 0), np.int64))
    if as_tuple:
        return tuple(Tensor._wrap(i.astype(np.int64)) for i in idx)
    return Tensor._wrap(np.stack(idx, axis=1).astype(np.int64) if idx else
                        np.zeros((0, 0), np.int64))


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    axis = None if dim is None else _wrap_dim(dim, input.ndim)
    r = np.unique(input._data, return_inverse=return_inverse, return_counts=return_counts,
                  axis=axis)
    if not (return_inverse or return_counts):
        return Tensor._wrap(r)
    out = [Tensor._wrap(r[0])]
    if return_inverse:  # one entry per element, or per slice along ``dim``
        shape = input.shape if axis is None else (input.shape[axis],)
        out.append(Tensor._wrap(r[1].reshape(shape).astype(np.int64)))
    if return_counts:
        out.append(Tensor._wrap(r[-1].astype(np.int64)))
    return tuple(out)


def bincount(input, weights=None, minlength=0):
    w = weights._data if weights is not None else None
    return Tensor._wrap(np.bincount(input._data, w, minlength))


# ----- linear algebra -----------------------------------------------------------------------------
_MATMUL_PRECISION = ["highest"]


def set_float32_matmul_precision(precision: str) -> None:
    """Record the internal precision of float32 matrix multiplications: ``"highest"`` (the
    default), ``"high"`` or ``"medium"``.

    On torch's CPU backend (and here) this has no numeric effect: float32 matmuls always compute
    in float32, so the setting is only stored for :func:`get_float32_matmul_precision`. Another
    string warns (torch's UserWarning) and leaves the setting unchanged.

    Raises:
        RuntimeError: ``precision`` is not a str (torch's message).
    """
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        from ._fpe import warn_user
        # torch's text, missing space included
        warn_user(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                  "setFloat32MatmulPrecision call has no effect.")
        return
    _MATMUL_PRECISION[0] = precision


def get_float32_matmul_precision() -> str:
    """The value set by :func:`set_float32_matmul_precision` (``"highest"`` by default)."""
    return _MATMUL_PRECISION[0]


def matmul(input, other, *, out=None):
    if _autocast.dtype is not None:
        input, other = _autocast.cast_inputs(input, other)
    return apply(L.Matmul, input, other)


def mm(input, mat2):
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"self must be a matrix" if input.ndim != 2 else "mat2 must be a matrix")
    return apply(L.Matmul, input, mat2)


def bmm(input, mat2):
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor" if input.ndim != 3 else
                           "batch2 must be a 3D tensor")
    if input.shape[0] != mat2.shape[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input.shape[0]}, {input.shape[2]}] but got: [{mat2.shape[0]}, "
                           f"{mat2.shape[1]}].")
    return apply(L.Matmul, input, mat2)


def mv(input, vec):
    return apply(L.Matmul, input, vec)


def dot(input, other):
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    return apply(L.Matmul, input, other)


def outer(input, vec2):
    return mul(input.unsqueeze(1), vec2.unsqueeze(0))


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    return apply(L.Addmm, input, mat1, mat2, beta=beta, alpha=alpha)


def einsum(equation, *operands):
    """torch.einsum: ``...`` and size-1 broadcasting are resolved here (``...`` becomes unused
    letters, right-aligned across operands; size-1 dims are expanded, so their gradients sum),
    and the op sees one explicit equation over operands of matching sizes."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    subs = lhs.split(",")
    if len(operands) != len(subs):
        more = "more" if len(operands) > len(subs) else "fewer"
        raise RuntimeError(f"einsum(): {more} operands were provided than specified in the "
                           "equation")
    named = [sub.replace("...", "") for sub in subs]
    ell_rank = 0
    for i, (sub, n, op) in enumerate(zip(subs, named, operands)):
        if "..." in sub:
            if len(n) > op.ndim:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(n)}) "
                                   f"is more than the number of dimensions ({op.ndim}) for "
                                   f"operand {i}")
            ell_rank = builtins.max(ell_rank, op.ndim - len(n))
        elif len(n) != op.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(n)}) does "
                               f"not match the number of dimensions ({op.ndim}) for operand {i} "
                               "and no ellipsis was given")
    letters = [c for c in "".join(named) if c.isalpha()]
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in eq]
    ell = "".join(spare[:ell_rank])
    subs = [sub.replace("...", ell[ell_rank - (op.ndim - len(n)):]) if "..." in sub else sub
            for sub, n, op in zip(subs, named, operands)]
    if arrow:
        out = out.replace("...", ell)
    else:  # torch: the broadcast dims, then the letters used once, alphabetically
        out = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    sizes = {}
    for i, (sub, op) in enumerate(zip(subs, operands)):
        for c, n in zip(sub, op.shape):
            seen = sizes.get(c)
            if seen is not None and seen != n and 1 not in (seen, n):
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {i} which "
                                   f"does not broadcast with previously seen size {seen}")
            if seen is None or seen == 1:
                sizes[c] = n
    for op in operands[1:]:
        if op.dtype is not operands[0].dtype:
            raise RuntimeError(f"expected scalar type {D.scalar_name(operands[0].dtype)} but found "
                               f"{D.scalar_name(op.dtype)}")
    operands = [op.expand(*[sizes[c] for c in sub]) if tuple(op.shape) != tuple(
        sizes[c] for c in sub) else op for sub, op in zip(subs, operands)]
    return apply(L.Einsum, *operands, equation=",".join(subs) + "->" + out)


def tensordot(a, b, dims=2):
    if isinstance(dims, int):
        da = list(range(a.ndim - dims, a.ndim))
        db = list(range(dims))
    else:
        da, db = [list(d) if isinstance(d, (list, tuple)) else [d] for d in dims]
    letters = "abcdefghijklmnopqrstuvwxyz"
    sa = list(letters[:a.ndim])
    sb = list(letters[a.ndim:a.ndim + b.ndim])
    for i, j in zip(da, db):
        sb[j] = sa[i]
    out = [c for i, c in enumerate(sa) if i not in da] + [c for j, c in enumerate(sb) if j not in db]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b)


# ----- shape and indexing -------------------------------------------------------------------------
def _infer_shape(shape, numel):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return tuple(shape)


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def reshape(input, *shape):
    shape = _infer_shape(_shape_arg(shape), input._data.size)
    try:
        np.reshape(input._data, shape, copy=False)
        return apply(M.View, input, shape=shape)
    except ValueError:
        return apply(M.ReshapeCopy, input, shape=shape)


def view(input, *shape):
    if len(shape) == 1 and isinstance(shape[0], (D.dtype, type)):
        raise NotImplementedError("view(dtype) is not supported")
    shape = _infer_shape(_shape_arg(shape), input._data.size)
    try:
        np.reshape(input._data, shape, copy=False)
    except ValueError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.") from None
    return apply(M.View, input, shape=shape)


def flatten(input, start_dim=0, end_dim=-1):
    nd = input.ndim
    if nd == 0:
        return reshape(input, 1)
    s, e = _wrap_dim(start_dim, nd), _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shp = input.shape
    n = 1
    for d in shp[s:e + 1]:
        n *= d
    return reshape(input, tuple(shp[:s]) + (n,) + tuple(shp[e + 1:]))


def unflatten(input, dim, sizes):
    d = _wrap_dim(dim, input.ndim)
    shp = tuple(input.shape)
    try:
        sizes = _infer_shape(tuple(sizes), shp[d])
    except RuntimeError:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size "
                           f"of dim {d} ({shp[d]}) in the input tensor") from None
    return reshape(input, shp[:d] + sizes + shp[d + 1:])


def squeeze(input, dim=None):
    shp = input.shape
    if dim is None:
        new = tuple(s for s in shp if s != 1)
    else:
        dims = _dims(dim, input.ndim) or ()
        new = tuple(s for i, s in enumerate(shp) if not (i in dims and s == 1))
    return apply(M.View, input, shape=new)


def unsqueeze(input, dim):
    nd = input.ndim
    if not -(nd + 1) <= dim <= nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd - 1}, {nd}], "
                         f"but got {dim})")
    d = dim % (nd + 1)
    shp = tuple(input.shape)
    return apply(M.View, input, shape=shp[:d] + (1,) + shp[d:])


def permute(input, *dims):
    dims = _shape_arg(dims)
    if len(dims) != input.ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not "
                           f"match the length of the desired ordering of dimensions i.e. input.dim()"
                           f" = {input.ndim} is not equal to len(dims) = {len(dims)}")
    return apply(M.Permute, input, dims=tuple(_wrap_dim(d, input.ndim) for d in dims))


def transpose(input, dim0, dim1):
    nd = input.ndim
    if nd == 0:
        return input.view(())
    p = list(range(nd))
    a, b = _wrap_dim(dim0, nd), _wrap_dim(dim1, nd)
    p[a], p[b] = p[b], p[a]
    return apply(M.Permute, input, dims=tuple(p))


swapaxes = swapdims = transpose


def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return transpose(input, 0, 1) if input.ndim == 2 else input.view(tuple(input.shape))


def movedim(input, source, destination):
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    nd = input.ndim
    src = [_wrap_dim(s, nd) for s in src]
    dst = [_wrap_dim(d, nd) for d in dst]
    order = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute(input, order)


moveaxis = movedim


def expand(input, *sizes):
    sizes = _shape_arg(sizes)
    nd = len(sizes)
    if nd < input.ndim:
        raise RuntimeError(f"expand: the number of sizes provided ({nd}) must be greater or equal "
                           f"to the number of dimensions in the tensor ({input.ndim})")
    shp = (1,) * (nd - input.ndim) + tuple(input.shape)
    new = []
    for s, cur in zip(sizes, shp):
        if s == -1:
            s = cur
        elif cur != 1 and s != cur:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size "
                               f"({cur}) at non-singleton dimension {len(new)}.  Target sizes: "
                               f"{list(sizes)}.  Tensor sizes: {list(input.shape)}")
        new.append(s)
    return apply(M.Expand, input, shape=tuple(new))


def broadcast_to(input, shape):
    return expand(input, tuple(shape))


def broadcast_tensors(*tensors):
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(expand(t, shape) for t in tensors)


def broadcast_shapes(*shapes):
    from ._tensor import Size
    return Size(np.broadcast_shapes(*shapes))


def narrow(input, dim, start, length):
    d = _wrap_dim(dim, input.ndim)
    if isinstance(start, Tensor):
        start = int(start.item())
    if start < 0:
        start += input.shape[d]
    if start + length > input.shape[d] or length < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({input.shape[d]}).")
    key = (slice(None),) * d + (slice(start, start + length),)
    return apply(M.Index, input, key=key)


def select(input, dim, index):
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {d}")
    return apply(M.Index, input, key=(slice(None),) * d + (index,))


def unbind(input, dim=0):
    d = _wrap_dim(dim, input.ndim)
    return tuple(select(input, d, i) for i in range(input.shape[d]))


def split(tensor, split_size_or_sections, dim=0):
    d = _wrap_dim(dim, tensor.ndim)
    n = tensor.shape[d]
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        if s <= 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                               f"size of {n}")
        sizes = [s] * (n // s) + ([n % s] if n % s else []) if s else [0]
    else:
        sizes = list(split_size_or_sections)
        if builtins.sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                               f"tensor's size at dimension {d}), but got split_sizes={sizes}")
    out, start = [], 0
    for s in sizes:
        out.append(narrow(tensor, d, start, s))
        start += s
    return tuple(out)


def chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    n = input.shape[_wrap_dim(dim, input.ndim)]
    size = -(-n // chunks) if n else 0
    return split(input, builtins.max(size, 1), dim) if n else (input,)


def tensor_split(input, indices_or_sections, dim=0):
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
    else:
        idx = [0] + list(indices_or_sections) + [n]
        sizes = [builtins.max(b - a, 0) for a, b in zip(idx, idx[1:])]
    return split(input, sizes, d)


def cat(tensors, dim=0, *, out=None):
    tensors = [x for x in tensors if not (x.ndim == 1 and x.shape[0] == 0)] or list(tensors[:1])
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    d = _wrap_dim(dim, tensors[0].ndim)
    ref = tensors[0]
    for i, x in enumerate(tensors[1:], 1):
        if x.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} and "
                               f"{x.ndim}")
        for k in range(ref.ndim):
            if k != d and x.shape[k] != ref.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected "
                                   f"size {ref.shape[k]} but got size {x.shape[k]} for tensor "
                                   f"number {i} in the list.")
    rt = D.result_type(*tensors)
    tensors = [x if x._dtype is rt else x.to(rt) for x in tensors]
    return apply(M.Cat, *tensors, dim=d)


concat = concatenate = cat


def stack(tensors, dim=0, *, out=None):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, x in enumerate(tensors[1:], 1):
        if x.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(x.shape)} at entry {i}")
    nd = tensors[0].ndim + 1
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
                         f"but got {dim})")
    rt = D.result_type(*tensors)
    tensors = [x if x._dtype is rt else x.to(rt) for x in tensors]
    return apply(M.Stack, *tensors, dim=dim % nd)


def hstack(tensors):
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    return cat([x.reshape(1, -1) if x.ndim == 1 else x for x in tensors], 0)


def flip(input, dims):
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    return apply(M.Flip, input, dims=tuple(_wrap_dim(d, input.ndim) for d in dims))


def roll(input, shifts, dims=None):
    if dims is None:
        return apply(M.Roll, input.flatten(), shifts=shifts, dims=0).view(input.shape)
    return apply(M.Roll, input, shifts=tuple(shifts) if isinstance(shifts, (list, tuple)) else shifts,
                 dims=tuple(dims) if isinstance(dims, (list, tuple)) else dims)


def tile(input, dims):
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return apply(M.Tile, input, reps=dims)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    if repeats is None:  # one-argument form: index i repeated input[i] times
        counts = input._data
        return Tensor._wrap(np.repeat(np.arange(counts.size, dtype=np.int64), counts))
    if dim is None:
        input, dim = input.flatten(), 0
    r = repeats._data if isinstance(repeats, Tensor) else repeats
    return apply(M.RepeatInterleave, input, repeats=r, dim=_wrap_dim(dim, input.ndim))


def diagonal(input, offset=0, dim1=0, dim2=1):
    return apply(M.Diagonal, input, offset=offset, dim1=_wrap_dim(dim1, input.ndim),
                 dim2=_wrap_dim(dim2, input.ndim))


def diag(input, diagonal=0):
    if input.ndim == 1:
        n = input.shape[0] + builtins.abs(diagonal)
        i = np.arange(input.shape[0])
        key = (i, i + diagonal) if diagonal >= 0 else (i - diagonal, i)
        return apply(M.IndexPut, input.new_zeros((n, n)), input, key=key)
    return diagonal_fn(input, diagonal)


def diagonal_fn(input, offset):
    return apply(M.Diagonal, input, offset=offset, dim1=0, dim2=1).clone()


def trace(input):
    return diagonal(input).sum()


def tril(input, diagonal=0):
    return apply(M.Tril, input, diagonal=diagonal)


def triu(input, diagonal=0):
    return apply(M.Triu, input, diagonal=diagonal)


def _index_arr(index, fn):
    if not isinstance(index, Tensor) or index._dtype not in (D.int64, D.int32, D.int16, D.int8,
                                                             D.uint8):
        raise RuntimeError(f"{fn}(): Expected dtype int64 for index")
    return index._data


def gather(input, dim, index, *, sparse_grad=False):
    d = _wrap_dim(dim, input.ndim)
    idx = _index_arr(index, "gather")
    if idx.ndim != input.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    return apply(M.Gather, input, index=idx, dim=d)


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    d = _wrap_dim(dim, input.ndim)
    s = src if src is not None else value
    return apply(M.Scatter, input, _index_arr(index, "scatter"), _t(s), dim=d, reduce=reduce)


def scatter_add(input, dim, index, src):
    return scatter(input, dim, index, src, reduce="add")


def index_select(input, dim, index):
    idx = _index_arr(index, "index_select")
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    return apply(M.IndexSelect, input, index=idx.reshape(-1), dim=_wrap_dim(dim, input.ndim))


def _need_tensor(x, fn, name, pos):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def _sizes_str(shape):
    return " ".join(str(n) for n in shape)  # how torch's C++ prints a std::vector of sizes


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
    idx = index._data.reshape(-1).astype(np.int64, copy=False)
    size = input.shape[d] if input.ndim else 1
    bad = M.first_out_of_range(idx, 0, size)
    if bad is not None:
        if input.ndim <= 1:  # torch's kernel for vectors reports it this way
            raise IndexError("index out of range in self")
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {size}")
    return d, idx


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
    idx = index._data.reshape(-1)
    size = input.shape[d] if input.ndim else 1
    bad = M.first_out_of_range(idx, 0, size)
    if bad is not None:
        raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {d} with "
                         f"size {size}")
    return d, idx


def _parser_error(fn, args, overloads):
    """torch's argument-parser TypeError when no overload of ``fn`` accepts ``args``."""
    def name(a):
        return "Tensor" if isinstance(a, Tensor) else type(a).__name__
    got = ", ".join(name(a) for a in args)
    lines = [f"{fn}() received an invalid combination of arguments - got ({got}), but expected one "
             "of:"]
    for sig, kinds in overloads:
        marked = ", ".join(name(a) if isinstance(a, k) and not (isinstance(a, builtins.bool) and
                                                                k is builtins.int)
                           else f"!{name(a)}!" for a, k in zip(args, kinds))
        lines.append(f" * ({sig})\n      didn't match because some of the arguments have invalid "
                     f"types: ({marked})")
    raise TypeError("\n".join(lines) + "\n")


def _index_fill_args(input, dim, index, value, fn="index_fill"):
    """torch's checks for ``index_fill``, in torch's order; returns (dim, index wrapped into
    ``[0, n)``, value) with value a number, or a 0-d tensor that requires grad."""
    number = (builtins.int, builtins.float, np.number)
    if not isinstance(index, Tensor) or not isinstance(value, (Tensor,) + number):
        _parser_error(fn, (dim, index, value), [
            ("int dim, Tensor index, Tensor value", (builtins.int, Tensor, Tensor)),
            ("int dim, Tensor index, Number value", (builtins.int, Tensor, number))])
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.ndim} dimension(s).")
        if not value.requires_grad:
            value = value.item()
    if index._dtype is not D.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    d = _wrap_dim(dim, builtins.max(input.ndim, 1))
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    idx = index._data.reshape(-1)
    size = input.shape[d] if input.ndim else 1
    bad = M.first_out_of_range(idx, -size, size)
    if bad is not None:
        raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {size}")
    return d, np.where(idx < 0, idx + size, idx), value


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


def masked_fill(input, mask, value):
    if not isinstance(mask, Tensor) or mask._dtype is not D.bool:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{getattr(mask, '_dtype', type(mask).__name__)}")
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.ndim} dimension(s).")
        if value.requires_grad:
            return apply(M.MaskedFill, input, mask._data, value)
        value = value.item()
    return apply(M.MaskedFill, input, mask._data, value)


def masked_select(input, mask):
    return input[mask.expand_as(input) if mask.shape != input.shape else mask]


def clone(input, *, memory_format=None):
    return apply(E.Clone, input)


def numel(input):
    return input.numel()


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:
    return input._dtype.is_floating_point


def is_nonzero(input) -> bool:
    return builtins.bool(input)


def cdist(x1, x2, p=2.0):
    return norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, dim=-1)


def meshgrid(*tensors, indexing="ij"):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = [t.numel() for t in tensors]
    out = []
    for i, t in enumerate(tensors):
        s = [1] * len(tensors)
        s[i] = shape[i]
        out.append(t.reshape(s).expand(shape))
    if indexing == "xy" and len(tensors) >= 2:
        out = [o.transpose(0, 1) for o in out]
    return tuple(out)


def _pi():
    return math.pi


# ----- numpy-style keyword aliases ---------------------------------------------------------------
# torch's argument parser accepts ``axis`` for ``dim`` and ``keepdims`` for ``keepdim`` in every
# native function (``x.sum(axis=0, keepdims=True)``); the few defined in Python (``norm``, ``split``,
# ``unique``) do not.
_ALIASES = (("axis", "dim"), ("keepdims", "keepdim"))
_PYTHON_LEVEL = {"norm", "split", "unique"}


def _with_numpy_names(f, aliases):
    @functools.wraps(f)
    def call(*args, **kwargs):
        if kwargs:
            for alias, name in aliases:
                if alias in kwargs:
                    if name in kwargs:
                        raise TypeError(f"{f.__name__}() got an unexpected keyword argument "
                                        f"'{alias}'")
                    kwargs[name] = kwargs.pop(alias)
        return f(*args, **kwargs)
    return call


def _install_numpy_names():
    for fname in __all__:
        f = globals()[fname]
        if fname in _PYTHON_LEVEL or not callable(f):
            continue
        params = inspect.signature(f).parameters
        aliases = tuple((a, n) for a, n in _ALIASES if n in params and a not in params)
        if aliases:
            globals()[fname] = _with_numpy_names(f, aliases)


_install_numpy_names()


def _install_out():
    from ._out import supports_out
    for fname in ("add", "sub", "mul", "div", "pow", "neg", "bitwise_not", "clamp", "max", "min",
                  "matmul", "cat", "stack"):
        globals()[fname] = supports_out(globals()[fname])


_install_out()
