"""``torch.nn.functional``'s volumetric ops: ``conv3d``, ``max_pool3d``, ``avg_pool3d``,
``adaptive_avg_pool3d`` and ``adaptive_max_pool3d`` (torch 2.13's argument parsing, checks and
kernels, in its order; the kernels are ``_ops.pool3d``)."""
from __future__ import annotations

import functools
import inspect

from .. import _dtype as D
from .. import _functions as T
from .._dispatch import apply
from .._ops import nn as N
from .._ops import pool3d as P3
from .._sizes import combination_message, type_name
from .._tensor import Tensor
from ._functional_base import _not_implemented

__all__ = ["conv3d", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d"]


# ----- torch's argument parser for these bindings ------------------------------------------------
def _int_like(v, first=True):
    """An int the parser takes: a Python or numpy int (a bool only after a sequence's first
    entry), or a one-element integer tensor."""
    if isinstance(v, Tensor):
        return v.numel() == 1 and not v.dtype.is_floating_point and v.dtype is not D.bool
    import numpy as np
    return isinstance(v, (int, np.integer)) and not (first and isinstance(v, bool))


def _kind_error(fname, pname, kind, v, pos):
    """torch's TypeError for argument ``pname`` of kind ``kind`` given ``v`` (None: it is
    right); ``pos``: its position, when the parser reports one."""
    where = f" (position {pos})" if pos else ""
    optional = kind.endswith("?")
    kind = kind.rstrip("?")
    if v is None and optional:
        return None
    if kind == "bool":
        return None if type(v) is bool else TypeError(
            f"{fname}(): argument '{pname}'{where} must be bool, not {type_name(v)}")
    if kind == "int":
        return None if _int_like(v) else TypeError(
            f"{fname}(): argument '{pname}'{where} must be int, not {type_name(v)}")
    if kind == "Tensor":
        return None if isinstance(v, Tensor) else TypeError(
            f"{fname}(): argument '{pname}'{where} must be Tensor, not {type_name(v)}")
    if kind == "ints|str" and isinstance(v, str):
        return None
    if _int_like(v):
        return None
    if not isinstance(v, (tuple, list)):
        return TypeError(f"{fname}(): argument '{pname}'{where} must be tuple of ints, not "
                         f"{type_name(v)}")
    if v and not _int_like(v[0]):  # (the parser judges a sequence by its first entry)
        return TypeError(f"{fname}(): argument '{pname}'{where} must be tuple of ints, but "
                         f"found element of type {type_name(v[0])} at pos 0")
    for i, e in enumerate(v):
        if not _int_like(e, first=False):
            err = TypeError(f"{fname}(): argument '{pname}' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got "
                            f"{type_name(e)}\"")
            err.unpacking = True  # (raised after the overload is chosen: not a combination)
            return err
    return None


def _parsed(fname, kinds, positions=False, combination=False):
    """Check the arguments of the decorated function as torch's parser checks its binding's:
    ``kinds`` maps parameter names to "ints", "ints|str", "int", "bool", "Tensor" (a trailing
    "?": None allowed); ``positions``: every error names the argument's position (a Python
    wrapper passes them all positionally), else only a positional one does; ``combination``:
    an overloaded binding's error (the call's argument types)."""
    def decorate(f):
        names = list(inspect.signature(f).parameters)

        @functools.wraps(f)
        def call(*args, **kwargs):
            for i, pname in enumerate(names):
                if pname not in kinds:
                    continue
                if i < len(args):
                    v, pos = args[i], i + 1
                elif pname in kwargs:
                    v, pos = kwargs[pname], (i + 1 if positions else None)
                else:
                    continue
                err = _kind_error(fname, pname, kinds[pname], v, pos)
                if err is not None:
                    if combination and not getattr(err, "unpacking", False):
                        raise TypeError(combination_message(fname, args, kwargs))
                    raise err
            return f(*args, **kwargs)
        return call
    return decorate


def _list_with_default(out_size, defaults):
    """torch's ``_list_with_default``: an int (a bool too) as it is; a sequence's ``None``
    entries take the input's sizes (the input must have more dims than it has entries)."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def _ints(v):
    """An int-list argument as plain ints (one int stays one)."""
    if isinstance(v, (tuple, list)):
        return tuple(int(e) for e in v)
    return int(v)


# ----- convolution -------------------------------------------------------------------------------
_LEGACY = {D.uint8: "Byte", D.int8: "Char", D.int16: "Short", D.int32: "Int", D.int64: "Long",
           D.float16: "Half", D.float32: "Float", D.float64: "Double"}


def _type_string(dtype):
    """A CPU tensor type as torch's ``toString`` names it (``torch.FloatTensor``, and for the
    dtypes without a legacy tensor class ``CPUBFloat16Type``)."""
    legacy = _LEGACY.get(dtype)
    return f"torch.{legacy}Tensor" if legacy else f"CPU{D.scalar_name(dtype)}Type"


def conv_checks(input, weight, bias, stride, padding, dilation, groups, nd):
    """torch's checks of an ``nd``-d convolution, in its order: the bias's dtype; the input's
    rank, the argument lists and the shapes (the bias's too; a zero dilation worded as oneDNN
    words it when torch's ``use_mkldnn`` rule sends the call there); the kernel's dtype support
    (no bool; a dilated kernel no integer dtype but int64); the weight's dtype (oneDNN's
    wording on its path)."""
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(f"Input type ({D.cpp_name(input._dtype)}) and bias type "
                           f"({D.cpp_name(bias._dtype)}) should be the same")
    mkldnn = input.ndim in (nd + 1, nd + 2) and weight.ndim >= 2 and \
        N.use_mkldnn(input._data, weight._data, groups, nd)
    bias_shape = None if bias is None else tuple(bias.shape)
    if nd == 3:
        from .._kernels.conv3d import conv3d_check
        conv3d_check(tuple(input.shape), tuple(weight.shape), stride, padding, dilation, groups,
                     mkldnn, bias_shape)
    elif input.ndim in (nd + 1, nd + 2) and weight.ndim == nd + 2:
        from .._kernels.conv import _prep_conv
        _prep_conv(tuple(input.shape), tuple(weight.shape), stride, padding, dilation, groups,
                   nd, f"conv{nd}d", mkldnn, bias_shape)
    dil = dilation if isinstance(dilation, (tuple, list)) else (dilation,)
    dilated = any(d != 1 for d in dil)
    if input._dtype is D.bool or (dilated and not input._dtype.is_floating_point
                                  and input._dtype is not D.int64):
        raise _not_implemented("slow_conv_dilated<>" if dilated else
                               "compute_columns3d" if nd == 3 else "slow_conv2d_cpu", input)
    if weight._dtype is not input._dtype:
        if mkldnn:
            raise RuntimeError(f"Input type ({_type_string(input._dtype)}) and weight type "
                               f"({_type_string(weight._dtype)}) should be the same or input "
                               "should be a MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {D.scalar_name(input._dtype)} but found "
                           f"{D.scalar_name(weight._dtype)}")


@_parsed("conv3d", {"input": "Tensor", "weight": "Tensor", "bias": "Tensor?",
                    "stride": "ints", "padding": "ints|str", "dilation": "ints", "groups": "int"},
         combination=True)  # (functional.py keeps this parsing: torch's binding is overloaded)
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    3-D cross-correlation of an (N, C_in, D, H, W) or unbatched (C_in, D, H, W) input with a
    (C_out, C_in/groups, kD, kH, kW) weight, plus ``bias`` per output channel. ``padding`` is
    an int, three ints, 'valid' or 'same' (stride 1; an odd total puts the extra zero after).
    Each output is one dot product over (channel, kD, kH, kW); half inputs compute in float32
    and round the result once; integer inputs (no bool; dilated: int64 only) sum exactly in
    int64, wrapping as C. Checks in torch's order: the bias's dtype, the input's rank, the
    arguments and shapes, the kernel's dtype support, the weight's dtype (worded as oneDNN
    words it when torch's rule sends the call there).
    """
    stride, dil, groups = _ints(stride), _ints(dilation), int(groups)
    padding = padding if isinstance(padding, str) else _ints(padding)
    conv_checks(input, weight, bias, stride, padding, dil, groups, 3)
    args = (input, weight) if bias is None else (input, weight, bias)
    return apply(P3.Conv3d, *args, stride=stride, padding=padding, dilation=dil, groups=groups,
                 nd=3)


# ----- pooling -----------------------------------------------------------------------------------
@_parsed("max_pool3d", {"kernel_size": "ints", "stride": "ints?", "padding": "ints",
                        "dilation": "ints", "ceil_mode": "bool"}, positions=True)
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False)

    The largest value of each (kD, kH, kW) window of an (N, C, D, H, W) or (C, D, H, W) input
    (stride defaults to the kernel size; ``padding`` adds -inf on both sides, at most half the
    kernel; ``dilation`` spaces the window's elements; ``ceil_mode`` keeps a last partial window
    that starts inside the input or its left padding). Scanned in (d, h, w) order: a larger
    value or a NaN replaces the current one, so ties keep the first and the last NaN wins. With
    ``return_indices`` also the int64 offset of each winner in its D*H*W volume. Every real
    dtype but bool. The gradient goes to the winners (summed where windows share one).
    """
    args = dict(kernel_size=_ints(kernel_size), stride=None if stride is None else _ints(stride),
                padding=_ints(padding), dilation=_ints(dilation), ceil_mode=ceil_mode)
    y, idx = apply(P3.MaxPool3d, input, **args)
    return (y, idx) if return_indices else y


@_parsed("avg_pool3d", {"kernel_size": "ints", "stride": "ints?", "padding": "ints",
                        "ceil_mode": "bool", "count_include_pad": "bool",
                        "divisor_override": "int?"})
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None) -> Tensor

    The mean of each (kD, kH, kW) window of an (N, C, D, H, W) or (C, D, H, W) input: its sum
    (from +0 in (d, h, w) order) over the window's size counting the zero padding, or only the
    positions inside the input (``count_include_pad=False``), or over ``divisor_override``.
    The input must be at least the kernel's size in each dim. float32, float64 and int64 (an
    integer sum divided with truncation toward zero); torch's CPU kernel has no float16 or
    bfloat16 one. The gradient adds each output's share into its window.
    """
    from .._kernels.pool3d import avg_pool3d_args
    avg_pool3d_args(input.shape, _ints(kernel_size), None if stride is None else _ints(stride),
                    _ints(padding), ceil_mode, divisor_override)
    if not input._dtype.is_floating_point and input._dtype is not D.int64 or \
            input._dtype in (D.float16, D.bfloat16):
        raise _not_implemented("avg_pool3d_out_frame", input)
    return apply(P3.AvgPool3d, input, kernel_size=_ints(kernel_size),
                 stride=None if stride is None else _ints(stride), padding=_ints(padding),
                 ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                 divisor_override=divisor_override)


_OUTPUT = {"output_size": "ints"}


def adaptive_avg_pool3d(input, output_size):
    """adaptive_avg_pool3d(input, output_size) -> Tensor

    Average pooling of an (N, C, D, H, W) or (C, D, H, W) input to ``output_size`` (one int for
    all three dims, or three, ``None`` keeping that input size): output i of a dim of size S
    averages the input from floor(i*S/O) to ceil((i+1)*S/O) (windows may overlap), summed from
    +0 in (d, h, w) order and divided by the window's depth, height and width in turn; floating
    dtypes, half ones in their own arithmetic. To (1, 1, 1) it is the mean over the last three
    dims (torch's shortcut: any input of three or more dims, an empty one included).
    """
    out = _list_with_default(output_size, tuple(input.shape))
    _parsed("adaptive_avg_pool3d", _OUTPUT, positions=True)(lambda input, output_size: None)(
        input, out)
    from .._kernels.pool3d import adaptive3d_check, adaptive3d_output
    out = adaptive3d_output(_ints(out), "adaptive_avg_pool3d")
    if out == (1, 1, 1):
        return T.mean(input, (-1, -2, -3), keepdim=True)
    adaptive3d_check(input.shape, out, "adaptive_avg_pool3d")
    if not input._dtype.is_floating_point:
        raise _not_implemented("adaptive_avg_pool3d_cpu", input)
    return apply(P3.AdaptiveAvgPool3d, input, output_size=out)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """adaptive_max_pool3d(input, output_size, return_indices=False)

    The largest value of each adaptive window (those of ``adaptive_avg_pool3d``) of an (N, C,
    D, H, W) or (C, D, H, W) input, scanned in (d, h, w) order: a tie keeps the first, the last
    NaN wins; with ``return_indices`` (any true value) also its int64 offset in the D*H*W
    volume. Floating dtypes. The gradient goes to those positions (summed where windows share
    one; in the half dtype's arithmetic for half inputs).
    """
    out = _list_with_default(output_size, tuple(input.shape))
    _parsed("adaptive_max_pool3d", _OUTPUT, positions=True)(lambda input, output_size: None)(
        input, out)
    from .._kernels.pool3d import adaptive3d_check
    out = _ints(out)
    out = (out,) * 3 if isinstance(out, int) else out
    adaptive3d_check(input.shape, out, "adaptive_max_pool3d")
    if not input._dtype.is_floating_point:
        raise _not_implemented("adaptive_max_pool3d_cpu", input)
    y, idx = apply(P3.AdaptiveMaxPool3d, input, output_size=out)
    return (y, idx) if return_indices else y
