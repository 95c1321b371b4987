"""The functional surface of ``torch``: math, reductions, shape and indexing functions.

Each function normalises its arguments (dims, scalars, tensors) and calls ``apply`` with one
primitive; composites are built only from other functions of this package. The functions live in
one module per family (``pointwise``, ``shape``, ``indexing``, ``reduction``, ``linalg``); this
module assembles the public namespace and applies the two call-form rules every native torch
function shares (numpy-style keyword aliases and ``out=``).
"""
from __future__ import annotations

import builtins
import functools
import inspect
import math

from .._autograd import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled
from .. import _dtype as _D
from .._dispatch import check_overlap
from .._dtype import finfo, iinfo
from .._format import set_printoptions
from .._out import attach_not_implemented
from .._tensor import Tensor
from . import pointwise as _pointwise
from ._common import _ALIASES, _PYTHON_LEVEL, _with_numpy_names
from ._parser import _combination
from .composite import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .pointwise import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .reduction import std_var_all as _reduction_std_var_all
from .sampling import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403

__all__ = ["abs", "absolute", "acos", "add", "addcdiv", "addcmul", "addmm", "all", "allclose", "amax", "amin", "any", "arccos", "arcsin", "arctan", "argmax", "argmin", "argsort", "asin", "atan", "atan2", "bincount", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "bmm", "broadcast_shapes", "broadcast_tensors", "broadcast_to", "cat", "cdist", "ceil", "chunk", "clamp", "clamp_max", "clamp_min", "clip", "clone", "concat", "concatenate", "cos", "cosh", "count_nonzero", "cumprod", "cumsum", "diag", "diagonal", "dist", "div", "divide", "dot", "einsum", "eq", "equal", "erf", "exp", "exp2", "expm1", "flatten", "flip", "float_power", "floor", "floor_divide", "fmod", "gather", "ge", "greater", "greater_equal", "gt", "hstack", "index_select", "is_floating_point", "is_nonzero", "is_tensor", "isclose", "isfinite", "isinf", "isnan", "le", "lerp", "less", "less_equal", "log", "log10", "log1p", "log2", "logical_and", "logical_not", "logical_or", "logical_xor", "logsumexp", "lt", "masked_fill", "masked_select", "matmul", "max", "maximum", "mean", "meshgrid", "min", "minimum", "mm", "moveaxis", "movedim", "mul", "multiply", "mv", "nansum", "narrow", "ne", "neg", "negative", "nonzero", "norm", "not_equal", "numel", "outer", "permute", "pow", "prod", "reciprocal", "relu", "remainder", "repeat_interleave", "reshape", "roll", "round", "rsqrt", "scatter", "scatter_add", "select", "sgn", "sigmoid", "sign", "sin", "sinc", "sinh", "softmax", "log_softmax", "sort", "split", "sqrt", "square", "squeeze", "stack", "std", "std_mean", "sub", "subtract", "sum", "swapaxes", "swapdims", "t", "tan", "tanh", "tensor_split", "tensordot", "tile", "topk", "trace", "transpose", "tril", "triu", "true_divide", "trunc", "unbind", "unflatten", "unique", "unique_consecutive", "unsqueeze", "var", "var_mean", "vstack", "where", "erfinv", "finfo", "iinfo", "index_add", "index_copy", "index_fill", "median", "nan_to_num", "nan_to_num_", "set_printoptions", "set_float32_matmul_precision", "get_float32_matmul_precision", "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled", "bernoulli", "multinomial", "asinh", "arcsinh", "acosh", "arccosh", "atanh", "arctanh", "lgamma", "digamma", "positive", "baddbmm", "addbmm", "kron", "take_along_dim", "rot90", "searchsorted", "bucketize", "xlogy", "hypot", "nextafter", "ldexp", "logit", "logaddexp", "logaddexp2", "fmax", "fmin", "copysign", "heaviside", "frac", "deg2rad", "rad2deg", "erfc", "signbit", "isposinf", "isneginf", "hardshrink", "histc", "prelu", "flipud", "fliplr", "ravel", "atleast_1d", "atleast_2d", "atleast_3d", "nanmean", "diff", "argwhere", "msort", "rsub", "column_stack", "row_stack", "dstack", "hsplit", "vsplit", "dsplit", "isin", "aminmax", "logcumsumexp", "cross"]
__all__ += ["kthvalue", "mode", "nanmedian", "cummax", "cummin", "addmv", "addr",
            "take", "put", "masked_scatter", "index_put", "scatter_reduce",
            "narrow_copy", "diag_embed", "adjoint", "real", "imag", "fix"]  # (added with their own tests)



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


# ``out=``: the functions whose torch binding takes it (torch 2.13; measured on its Python
# bindings: ``relu``, ``isnan``, ``clone``, ``flip``, ``roll``, ... refuse it with a TypeError),
# and how each treats ``out``'s dtype (measured the same way):
#   castable  compute in the result dtype, then cast into ``out`` (torch's can_cast rule);
#   same      ``out`` must have the result's dtype ("Found dtype Double but expected Float");
#   exact     ``out`` must have the result's dtype (each op's own message);
#   compute   the reduction runs in ``out``'s dtype (``sum(x, 0, out=int_tensor)``).
_TAKES_OUT = """abs absolute acos add addcdiv addcmul addmm all amax amin any arccos arcsin arctan
argmax argmin asin atan atan2 bitwise_not bitwise_and bitwise_or bitwise_xor bitwise_left_shift
bitwise_right_shift bmm cat ceil clamp
clamp_max clamp_min clip concat concatenate cos cosh cumprod cumsum diag div divide dot eq erf
erfinv exp exp2 sinc expm1 float_power floor floor_divide fmod gather ge greater greater_equal gt hstack
index_add index_copy index_select le lerp less less_equal log log10 log1p log2 log_softmax
logical_and logical_not logical_or logical_xor logsumexp lt masked_select matmul max maximum mean
median min minimum mm mul multiply mv nan_to_num nansum ne neg negative norm not_equal outer
pow prod reciprocal remainder round rsqrt sgn sigmoid sign sin sinh softmax sort sqrt square
stack std sub subtract sum tan tanh tensordot topk tril triu true_divide trunc var vstack
where asinh arcsinh acosh arccosh atanh arctanh lgamma digamma baddbmm addbmm kron take_along_dim
searchsorted bucketize xlogy hypot nextafter ldexp logit kthvalue mode nanmedian cummax cummin addmv addr take
scatter_reduce logaddexp logaddexp2 fmax fmin copysign heaviside frac deg2rad rad2deg erfc signbit
isposinf isneginf hardshrink nanmean isin narrow_copy fix histc""".split()
_OUT_POLICY = dict.fromkeys(
    "abs absolute neg negative floor ceil round trunc fix sign sgn bitwise_not clamp clamp_min "
    "clamp_max clip frac hardshrink".split(), "same")
_OUT_POLICY.update(dict.fromkeys(
    "argmax argmin norm softmax log_softmax matmul mm bmm mv addmm gather tril triu diag "
    "index_add index_copy sort topk max min median tensordot dot index_select masked_select amax "
    "amin where nan_to_num float_power all any take_along_dim baddbmm addbmm searchsorted "
    "bucketize vector_norm matrix_norm svdvals kthvalue mode nanmedian cummax cummin addmv take "
    "scatter_reduce isin narrow_copy histc".split(), "exact"))
_OUT_POLICY.update(dict.fromkeys("sum prod nansum cumsum cumprod mean logsumexp nanmean".split(),
                                 "compute"))
# torch's memory-overlap check between ``out`` and the inputs: "partial" for TensorIterator ops
# (out may be an input itself, not a shifted view of one), "any" for index and concatenation ops
# (no shared memory at all); the other ops (matmul, softmax, reductions, ...) do not check
_OUT_OVERLAP = dict.fromkeys(
    [n for n in _TAKES_OUT if n in _pointwise.__all__] + "where float_power cumsum cumprod sort "
    "topk lerp".split(), "partial")
_OUT_OVERLAP.update(dict.fromkeys("index_select masked_select take_along_dim gather cat concat "
                                  "concatenate stack hstack vstack".split(), "any"))
# torch has no out= overload without dim
_OUT_NEEDS_DIM = {"sum": 1, "prod": 1, "median": 1, "nanmedian": 1}

# Autograd and ``out=`` (torch 2.13, measured with an input or ``out`` that requires grad): a
# differentiable op refuses ("functions with out=... arguments don't support automatic
# differentiation") before its own checks of ``out``, naming the ATen op it dispatches to (an
# alias names its target: ``clip`` -> clamp, ``outer`` and ``kron`` -> mul, ``vstack`` -> cat);
# the ops without a derivative never refuse and never record; a few composites accept, ``out``
# then requiring grad through a node whose backward raises (torch's NotImplemented node, named
# after the ATen op), or, for ``tensordot``, through the copy into ``out``.
_OUT_GRAD_NAME = {
    "absolute": "abs", "arccos": "acos", "arcsin": "asin", "arctan": "atan", "arcsinh": "asinh",
    "arccosh": "acosh", "arctanh": "atanh", "clip": "clamp", "concat": "cat",
    "concatenate": "cat", "hstack": "cat", "vstack": "cat", "divide": "div",
    "true_divide": "div", "multiply": "mul", "outer": "mul", "kron": "mul", "subtract": "sub",
    "negative": "neg", "square": "pow", "float_power": "pow", "norm": "linalg_vector_norm",
    "nanmean": "nansum", "fix": "trunc"}
_OUT_NO_GRAD = set(
    "eq ne lt le gt ge greater greater_equal less less_equal not_equal argmax argmin all any "
    "logical_and logical_or logical_xor logical_not bitwise_and bitwise_or bitwise_xor "
    "bitwise_left_shift bitwise_right_shift "
    "bitwise_not searchsorted bucketize signbit isposinf isneginf isin histc".split())
_OUT_NOT_IMPLEMENTED = {"softmax": "aten::softmax", "log_softmax": "aten::log_softmax",
                        "diag": "aten::diagonal_copy", "floor_divide": "aten::floor_divide",
                        "heaviside": "aten::heaviside"}


def _out_grad_error(name):
    return RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                        "differentiation, but one of the arguments requires grad.")


def _exact_message(fname, got, want):
    g, w = _D.cpp_name(got), _D.cpp_name(want)
    G, W = _D.scalar_name(got), _D.scalar_name(want)
    if fname == "dot":
        return f"result dtype {G} does not match input dtype {W}"
    if fname == "histc":
        return (f"torch.histogram: input tensor and hist tensor should have the same dtype, but "
                f"got input {w} and hist {g}")
    if fname == "tensordot":
        return (f"tensordot: Expected the output tensor to have dtype {W}, but got an output "
                f"tensor with dtype {G}")
    if fname in ("index_select", "masked_select"):
        return f"{fname}(): self and result must have the same scalar type"
    if fname in ("amax", "amin"):
        return (f"Expected the dtype for input and out to match, but got {W} for input's dtype "
                f"and {G} for out's dtype.")
    if fname == "where":
        return f"Expected out type to be {W} but got {G}"
    if fname == "nan_to_num":
        return f"nan_to_num: dtype of out: {G} should be same as input: {W}"
    if fname == "float_power":
        return (f"the output given to float_power has dtype {G} but the operation's result "
                "requires dtype Double")
    if fname in ("all", "any"):
        return f"{fname} only supports bool tensor for result, got: {G}"
    if fname in ("median", "nanmedian"):
        from .._tensor import type_name
        return (f"Expected tensor for 'values' to have the same type as tensor for argument #2 "
                f"'self'; but type {type_name(got)} does not equal {type_name(want)} (while "
                f"checking arguments for {fname})")
    if fname == "addbmm":  # out takes self's place in the addmm it runs
        return f"self and mat2 must have the same dtype, but got {G} and {W}"
    if fname in ("searchsorted", "bucketize"):
        return ("torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
                "Long(int64) depending on whether out_int32 flag is True, but we got output "
                f"tensor's dtype {G} and out_int32 flag is {want is _D.int32}")
    if fname == "take":
        return (f"take(): self and out expected to have the same dtype, but got self.dtype = {W} "
                f"and out.dtype = {G}")
    if fname == "kthvalue":
        return "output indices must be of scalar type Long" if want is _D.int64 else \
            "output values must be of same type as input"
    if fname == "mode":
        return f"expected scalar type '{W}' but got '{G}' for values output"
    if fname in ("cummax", "cummin"):
        return f"expected scalar_type {W} but found {G}"
    if fname == "matrix_norm":
        return f"linalg.matrix_norm expected out tensor dtype {W} but got: {G}"
    if fname == "narrow_copy":
        return ("Expected self.dtype() == output.dtype() to be true, but got false.  (Could this "
                "error message be improved?  If so, please report an enhancement request to "
                "PyTorch.)")
    return f"Expected out tensor to have dtype {w}, but got {g} instead"


def _with_out(fname, f):
    """``fname(..., out=o)`` by torch's rules: the argument check, the autograd refusal, the
    dtype policy above, then the write (``_out.write``: resize with torch's warning)."""
    from .._autograd import GradState
    from .._out import write
    policy = _OUT_POLICY.get(fname, "castable")

    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        sig = None

    @functools.wraps(f)
    def call(*args, out=None, **kwargs):
        if out is None:
            return f(*args, **kwargs)
        if sig is not None:  # argument errors first, as torch's parser reports them
            try:
                sig.bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"{fname}(): {e}") from None
        if fname in _OUT_NEEDS_DIM and len(args) <= _OUT_NEEDS_DIM[fname] and \
                "dim" not in kwargs:
            if fname in ("median", "nanmedian"):
                raise TypeError(f'{fname}() missing 1 required positional arguments: "dim"')
            raise _combination(fname, args, {**kwargs, "out": out})
        if fname in ("cat", "concat", "concatenate", "stack", "hstack", "vstack") and args and \
                isinstance(args[0], Tensor):
            raise TypeError(f"{fname}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                            "not Tensor")
        if fname == "where" and len(args) + len(kwargs) < 3:  # where(condition): no out=
            raise _combination(fname, args, {**kwargs, "out": out})
        tupled = isinstance(out, (tuple, list))
        wants_tuple = fname in ("sort", "topk", "kthvalue", "mode", "cummax", "cummin") or (
            fname in ("max", "min", "median", "nanmedian") and (len(args) > 1 or "dim" in kwargs))
        if tupled != wants_tuple:  # torch's parser: one overload names the argument, several
            # list the call's types (the first line of its message)
            if fname in ("topk", "kthvalue", "mode", "cummax", "cummin") or (
                    not wants_tuple and fname not in ("max", "min")):
                raise TypeError(f"{fname}(): argument 'out' must be "
                                f"{'tuple of Tensors' if wants_tuple else 'Tensor'}, not "
                                f"{type(out).__name__}")
            raise _combination(fname, args, {**kwargs, "out": out})
        outs = tuple(out) if tupled else (out,)
        grad_node = None  # the ATen name of a NotImplemented node out gets, or "copy"
        if GradState.enabled and fname not in _OUT_NO_GRAD:
            inputs_rg = builtins.any(
                isinstance(t, Tensor) and t.requires_grad
                for a in list(args) + list(kwargs.values())
                for t in (a if isinstance(a, (list, tuple)) else (a,)))
            out_rg = builtins.any(isinstance(o, Tensor) and o.requires_grad for o in outs)
            if fname in _OUT_NOT_IMPLEMENTED:
                if out_rg:
                    raise _out_grad_error(_OUT_NOT_IMPLEMENTED[fname])
                grad_node = _OUT_NOT_IMPLEMENTED[fname] if inputs_rg else None
            elif fname == "tensordot":
                grad_node = "copy" if inputs_rg or out_rg else None
            elif inputs_rg or out_rg:
                if fname == "float_power" and isinstance(out, Tensor) and \
                        out.dtype is not _D.float64 and not out.dtype.is_complex:
                    raise RuntimeError(_exact_message(fname, out.dtype, _D.float64))
                raise _out_grad_error(_OUT_GRAD_NAME.get(fname, fname))
        if fname in ("searchsorted", "bucketize") and isinstance(out, Tensor) and \
                out.dtype is not (_D.int32 if kwargs.get("out_int32") else _D.int64):
            raise RuntimeError(_exact_message(fname, out.dtype, _D.int32 if kwargs.get(
                "out_int32") else _D.int64))  # checked before the inputs' dtypes, as torch
        if policy == "same" and isinstance(out, Tensor):  # TensorIterator checks out's dtype
            operands = [a for a in list(args) + list(kwargs.values())  # before the kernel runs
                        if isinstance(a, (Tensor, int, float)) and not isinstance(a, builtins.bool)
                        or isinstance(a, Tensor)]
            if operands:
                want = _D.result_type(*operands)
                if out.dtype is not want:
                    raise RuntimeError(f"Found dtype {_D.scalar_name(out.dtype)} but expected "
                                       f"{_D.scalar_name(want)}")
        check = getattr(f, "out_check", None)  # a function's own out= checks, in torch's order
        if check is not None and isinstance(out, Tensor):
            check(out, *args, **kwargs)
        if fname in ("std", "var") and args and isinstance(args[0], Tensor) and \
                isinstance(out, Tensor) and out.dtype.is_floating_point and \
                args[0].dtype.is_floating_point and out.dtype is not args[0].dtype and \
                not _reduction_std_var_all(out, *args, **kwargs):
            # torch's reduction runs in the result's dtype: the input is converted to it first
            # (its all-reduce kernel computes in the input's and casts the result)
            args = (args[0].to(out.dtype),) + tuple(args[1:])
        if policy == "compute" and kwargs.get("dtype") is None and fname != "logsumexp":
            od = outs[0].dtype
            if fname == "mean" and (not od.is_floating_point or (
                    args and not args[0].dtype.is_floating_point)):
                pass  # computed in the input's dtype, then refused by the cast check below
            elif fname == "nansum" and not od.is_floating_point and args and \
                    args[0].dtype.is_floating_point:
                raise NotImplementedError(f'"nansum_cpu" not implemented for '
                                          f"'{_D.scalar_name(od)}'")
            else:
                kwargs["dtype"] = od
        if fname == "addbmm" and args and isinstance(args[0], Tensor) and \
                isinstance(out, Tensor) and len(args) > 2 and isinstance(args[2], Tensor) and \
                out.dtype is args[2].dtype and args[0].dtype is not out.dtype:
            # torch's addbmm_out copies self into out, then runs out.addmm_(...) per batch: the
            # sum is computed in out's dtype (out must have the batches' dtype)
            args = (args[0].to(out.dtype),) + tuple(args[1:])
        if fname == "logsumexp" and not outs[0].dtype.is_floating_point:
            raise RuntimeError("logsumexp(): Expected floating point type for result tensor, but "
                               f"got: {_D.scalar_name(outs[0].dtype)}")
        if fname in _OUT_OVERLAP:
            inputs = [t for a in list(args) + list(kwargs.values())
                      for t in (a if isinstance(a, (list, tuple)) else (a,))]
            for o in outs:
                if isinstance(o, Tensor):
                    check_overlap(o, inputs, full_ok=_OUT_OVERLAP[fname] == "partial")
        result = getattr(f, "out_variant", f)(*args, **kwargs)
        results = tuple(result) if isinstance(result, tuple) else (result,)
        if len(results) != len(outs):
            raise TypeError(f"{fname}(): out must be a tuple of {len(results)} tensors")
        for r, o in zip(results, outs):
            if r.dtype is o.dtype:
                continue
            if policy == "same":
                raise RuntimeError(f"Found dtype {_D.scalar_name(o.dtype)} but expected "
                                   f"{_D.scalar_name(r.dtype)}")
            if policy == "exact":
                raise RuntimeError(_exact_message(fname, o.dtype, r.dtype))
            if not _D.can_cast(r.dtype, o.dtype):
                raise RuntimeError(f"result type {_D.scalar_name(r.dtype)} can't be cast to the "
                                   f"desired output type {_D.scalar_name(o.dtype)}")
        if fname == "kron":  # kron_out resizes out (contiguous), then multiplies into a view
            results = tuple(r.contiguous() for r in results)
        if grad_node == "copy":  # tensordot: computed with its graph, copied into out
            _copy_with_grad(fname, results[0], outs[0])
            return out
        for r, o in zip(results, outs):
            write(r if r.dtype is o.dtype else r.to(o.dtype), o)
        if grad_node is not None:
            attach_not_implemented(out, results[0], grad_node)
        if isinstance(result, tuple):
            return type(result)(*outs) if hasattr(result, "_fields") else outs
        return out
    return call


def _copy_with_grad(fname, result, out):
    """``out.copy_(result)`` recorded (torch's tensordot copies its result into ``out``); an
    ``out`` that requires grad must already have the result's shape (torch's message)."""
    from .._out import write
    if result.shape != out.shape:
        if out.requires_grad:
            raise RuntimeError(f"{fname}(): the 'out' tensor was specified and requires "
                               "gradients, and its shape does not match the expected result. "
                               "Either remove the 'out' argument, ensure it does not require "
                               "gradients, or make sure its shape matches the expected output.")
        write(result.detach(), out)  # resized (torch's warning), then the recorded copy
    out.copy_(result)


def _install_out():
    for fname in _TAKES_OUT:
        if fname in globals():
            globals()[fname] = _with_out(fname, globals()[fname])


_install_out()


def _install_parser():
    from ._parser import parsed
    for fname in __all__:
        f = globals()[fname]
        if callable(f) and not isinstance(f, type) and fname not in _PYTHON_LEVEL:
            globals()[fname] = parsed(fname, f)


_install_parser()
