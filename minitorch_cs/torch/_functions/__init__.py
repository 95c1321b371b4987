"""The functional surface of ``torch``: math, reductions, shape and indexing functions.

Each function normalises its arguments (dims, scalars, tensors) and calls ``apply`` with one
primitive; composites are built only from other functions of this package. The functions live in
one module per family (``pointwise``, ``shape``, ``indexing``, ``reduction``, ``linalg``); this
module assembles the public namespace and applies the two call-form rules every native torch
function shares (numpy-style keyword aliases and ``out=``).
"""
from __future__ import annotations

import builtins
import inspect
import math

from .._autograd import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled
from .._dtype import finfo, iinfo
from .._format import set_printoptions
from .._tensor import Tensor
from ._common import _ALIASES, _PYTHON_LEVEL, _with_numpy_names
from .indexing import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .pointwise import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .sampling import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403

__all__ = ["abs", "absolute", "acos", "add", "addcdiv", "addcmul", "addmm", "all", "allclose", "amax", "amin", "any", "arccos", "arcsin", "arctan", "argmax", "argmin", "argsort", "asin", "atan", "atan2", "bincount", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "broadcast_shapes", "broadcast_tensors", "broadcast_to", "cat", "cdist", "ceil", "chunk", "clamp", "clamp_max", "clamp_min", "clip", "clone", "concat", "concatenate", "cos", "cosh", "count_nonzero", "cumprod", "cumsum", "diag", "diagonal", "dist", "div", "divide", "dot", "einsum", "eq", "equal", "erf", "exp", "exp2", "expand", "expm1", "flatten", "flip", "float_power", "floor", "floor_divide", "fmod", "gather", "ge", "greater", "greater_equal", "gt", "hstack", "index_select", "is_floating_point", "is_nonzero", "is_tensor", "isclose", "isfinite", "isinf", "isnan", "le", "lerp", "less", "less_equal", "log", "log10", "log1p", "log2", "logical_and", "logical_not", "logical_or", "logical_xor", "logsumexp", "lt", "masked_fill", "masked_select", "matmul", "max", "maximum", "mean", "meshgrid", "min", "minimum", "mm", "moveaxis", "movedim", "mul", "multiply", "mv", "nansum", "narrow", "ne", "neg", "negative", "nonzero", "norm", "not_equal", "numel", "outer", "permute", "pow", "prod", "reciprocal", "relu", "remainder", "repeat_interleave", "reshape", "roll", "round", "rsqrt", "scatter", "scatter_add", "select", "sgn", "sigmoid", "sign", "sin", "sinh", "softmax", "log_softmax", "sort", "split", "sqrt", "square", "squeeze", "stack", "std", "std_mean", "sub", "subtract", "sum", "swapaxes", "swapdims", "t", "tan", "tanh", "tensor_split", "tensordot", "tile", "topk", "trace", "transpose", "tril", "triu", "true_divide", "trunc", "unbind", "unflatten", "unique", "unsqueeze", "var", "var_mean", "view", "vstack", "where", "erfinv", "finfo", "iinfo", "index_add", "index_copy", "index_fill", "median", "nan_to_num", "nan_to_num_", "set_printoptions", "set_float32_matmul_precision", "get_float32_matmul_precision", "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled", "bernoulli", "multinomial"]



def numel(input):
    return input.numel()


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:
    return input._dtype.is_floating_point


def is_nonzero(input) -> bool:
    return builtins.bool(input)


def _pi():
    return math.pi


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


# the functions whose torch binding takes ``out=`` (torch 2.13; measured on its Python
# bindings: ``relu``, ``isnan``, ``clone``, ``flip``, ``roll``, ... refuse it with a TypeError)
_TAKES_OUT = """abs absolute acos add addcdiv addcmul addmm all amax amin any arccos arcsin arctan
argmax argmin asin atan atan2 bitwise_not bitwise_and bitwise_or bitwise_xor bmm cat ceil clamp
clamp_max clamp_min clip concat concatenate cos cosh cumprod cumsum diag div divide dot eq erf
erfinv exp exp2 expm1 float_power floor floor_divide fmod gather ge greater greater_equal gt hstack
index_add index_copy index_select le lerp less less_equal log log10 log1p log2 log_softmax
logical_and logical_not logical_or logical_xor logsumexp lt masked_select matmul max maximum mean
median min minimum mm mul multiply mv nan_to_num nansum ne neg negative norm not_equal outer
pow prod reciprocal remainder round rsqrt sgn sigmoid sign sin sinh softmax sort sqrt square
stack std sub subtract sum tan tanh tensordot topk tril triu true_divide trunc var vstack
where""".split()


def _install_out():
    from .._out import supports_out
    for fname in _TAKES_OUT:
        if fname in globals():
            globals()[fname] = supports_out(globals()[fname])


_install_out()
