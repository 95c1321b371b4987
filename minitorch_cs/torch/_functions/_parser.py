"""torch's argument parser in small: an argument of the wrong type is torch's TypeError.

torch checks every argument of a native function against its schema before the kernel runs, so
``x.add("s")``, ``x.sum(0, 1)`` and ``x.mm(np.ones((3, 3)))`` are TypeErrors ("add(): argument
'other' (position 1) must be Tensor, not str"). Our functions take Python values as they come
and would fail later, with whatever error the kernel meets (an AttributeError, a numpy
ValueError), or run (a float ``k``, a truthy ``keepdim``). :func:`parsed` wraps a function:
arguments of the kinds a wrong value slips through (tensors, ints, bool flags) are checked
before every call, the others when the call fails; a wrong one becomes torch's TypeError (one
schema: the argument, its position and type; several overloads: "received an invalid
combination of arguments - got (...)"). A call that fails for another reason keeps its error.

Kinds follow the parameter names torch uses (``other``, ``dim``, ``keepdim``, ...), with the
type each function's schema declares where it differs (``dim`` is an int for ``argmax`` and a
tuple of ints for ``amax``); the facts were measured on torch 2.13's Python bindings.
"""
from __future__ import annotations

import functools
import inspect
import numbers

import numpy as np

from .._dtype import bool as _bool_dtype, dtype as _dtype_cls
from .._sizes import combination_message, missing_message, type_name
from .._tensor import Tensor
from ._common import _ALIASES

_NUMBER = (numbers.Number, np.number, np.bool_)
_INT = (int, np.integer)
_P = inspect.Parameter
_NUMPY_ALIASES = {alias for alias, _ in _ALIASES}
_NAMED = (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD, _P.KEYWORD_ONLY)  # (not *args/**kw)


def _is_tensor(v):
    return isinstance(v, Tensor)


def _is_number(v):
    return isinstance(v, _NUMBER) or isinstance(v, Tensor)


def _is_int(v):  # (not a bool: torch's int arguments refuse True/False; a one-element
    # integer tensor is taken)
    return (isinstance(v, _INT) and not isinstance(v, bool)) or (
        isinstance(v, Tensor) and v.numel() == 1 and not v.dtype.is_floating_point and
        v.dtype is not _bool_dtype)


def _is_ints(v):
    return _is_int(v) or (isinstance(v, (tuple, list)) and all(_is_int(i) for i in v))


def _is_float(v):
    return isinstance(v, _NUMBER) or (isinstance(v, Tensor) and v.numel() == 1)


def _is_bool(v):
    return isinstance(v, (bool, np.bool_))


def _is_dtype(v):
    return isinstance(v, _dtype_cls)


# kind -> (check, the type torch's message names)
KINDS = {
    "Tensor": (_is_tensor, "Tensor"),
    "Tensor|Number": (lambda v: _is_tensor(v) or _is_number(v), "Tensor"),
    "Number": (_is_number, "Number"),
    "Tensor|int": (lambda v: _is_tensor(v) or _is_int(v), "Tensor"),
    "any": (lambda v: True, ""),  # (the function checks it with torch's own message)
    # (a number, or a 0-d tensor outside autograd: torch's Scalar takes it; not a 1-d tensor,
    # not one that requires grad)
    "Python number": (lambda v: isinstance(v, _NUMBER) or (
        isinstance(v, Tensor) and v.ndim == 0 and not v.requires_grad), "Number"),
    "int": (_is_int, "int"),
    "tuple of ints": (_is_ints, "tuple of ints"),
    # (std/var: a positional bool is their ``unbiased`` overload; see DIM_REFUSED)
    "tuple of ints|bool": (lambda v: _is_ints(v) or isinstance(v, bool), "tuple of ints"),
    "float": (_is_float, "float"),
    "bool": (_is_bool, "bool"),
    "dtype": (_is_dtype, "torch.dtype"),
}

# a parameter's kind by its name (torch's schemas name their parameters consistently)
BY_NAME = {
    "input": "Tensor", "self": "Tensor", "other": "Tensor|Number", "mat1": "Tensor",
    "mat2": "Tensor", "vec": "Tensor", "vec1": "Tensor", "vec2": "Tensor", "tensor": "Tensor",
    "tensor1": "Tensor", "tensor2": "Tensor", "batch1": "Tensor", "batch2": "Tensor",
    "index": "Tensor", "mask": "Tensor", "indices": "Tensor", "source": "Tensor",
    "weights": "Tensor", "end": "Tensor", "condition": "Tensor", "exponent": "Tensor|Number",
    "weight": "Tensor|Number", "src": "Tensor|Number", "min": "Tensor|Number",
    "max": "Tensor|Number", "alpha": "Number", "beta": "Number", "value": "Number",
    "dim": "tuple of ints", "dims": "tuple of ints", "shape": "tuple of ints",
    "size": "tuple of ints", "shifts": "tuple of ints", "split_size_or_sections": "tuple of ints",
    "keepdim": "bool", "descending": "bool", "stable": "bool", "largest": "bool",
    "sorted": "bool", "k": "int", "diagonal": "int", "offset": "int", "start_dim": "int",
    "end_dim": "int", "dim0": "int", "dim1": "int", "axis0": "int", "axis1": "int",
    "chunks": "int", "dim2": "int", "start": "int", "length": "int", "nan": "float",
    "minlength": "int", "sizes": "tuple of ints", "boundaries": "Tensor",
    "sorted_sequence": "Tensor",
    "posinf": "float", "neginf": "float", "eps": "float", "rtol": "float", "atol": "float",
    "equal_nan": "bool", "dtype": "dtype", "unbiased": "bool", "correction": "Number",
}

# the schema's type of the first argument after ``input`` where the name alone does not tell
# it (measured: these functions have one schema each)
SINGLE = {
    "add": "Tensor", "sub": "Tensor", "mul": "Tensor", "div": "Tensor", "maximum": "Tensor",
    "minimum": "Tensor", "atan2": "Tensor", "logical_and": "Tensor", "logical_or": "Tensor",
    "logical_xor": "Tensor", "equal": "Tensor", "allclose": "Tensor", "isclose": "Tensor",
    "nansum": "tuple of ints", "amax": "tuple of ints", "amin": "tuple of ints", "argmax": "int",
    "argmin": "int", "logsumexp": "tuple of ints", "dist": "Tensor", "cumsum": "int",
    "cumprod": "int", "topk": "int", "matmul": "Tensor", "mm": "Tensor", "bmm": "Tensor",
    "mv": "Tensor", "dot": "Tensor", "outer": "Tensor", "reshape": "tuple of ints",
    "flatten": "int", "unsqueeze": "int", "permute": "tuple of ints", "transpose": "int",
    "swapaxes": "int", "swapdims": "int", "expand": "tuple of ints",
    "broadcast_to": "tuple of ints", "select": "int", "unbind": "int", "chunk": "int",
    "flip": "tuple of ints", "roll": "tuple of ints", "tile": "tuple of ints", "diagonal": "int",
    "diag": "int", "tril": "int", "triu": "int", "gather": "int", "scatter_add": "int",
    "index_select": "int", "masked_select": "Tensor", "bincount": "Tensor", "nan_to_num": "float",
    "median": "int", "index_add": "int", "index_copy": "int", "kron": "Tensor",
    "take_along_dim": "Tensor", "rot90": "int", "logit": "float", "split": "tuple of ints",
    "normal": "float", "kthvalue": "int", "mode": "int", "nanmedian": "int", "cummax": "int",
    "cummin": "int",
}

# torch's name for a function in its messages, where it is not the function's own
DISPLAY = {"split": "split_with_sizes"}

# ``dim`` is one int in these schemas (a tuple of ints in the reductions over several dims)
DIM_INT = set("""argmax argmin cumsum cumprod topk take_along_dim select unbind gather scatter
scatter_add scatter_reduce index_select index_add index_copy index_fill median prod max min sort argsort
unsqueeze chunk narrow flatten unflatten kthvalue mode nanmedian cummax cummin softmax log_softmax
logcumsumexp aminmax""".split())

# parameters our functions name differently from torch's schema (their names in its messages)
RENAMED = {"expand": {"sizes": "size"}, "broadcast_to": {"shape": "size"},
           "view": {"shape": "size"}, "repeat": {"sizes": "repeats"},
           "swapaxes": {"dim0": "axis0", "dim1": "axis1"}, "dot": {"other": "tensor"}}

# per function, kinds the name table does not give
EXTRA = {"select": {"index": "int"},
         "logical_and": {"other": "Tensor"}, "logical_or": {"other": "Tensor"},
         "logical_xor": {"other": "Tensor"}, "atan2": {"other": "Tensor"},
         "maximum": {"other": "Tensor"}, "minimum": {"other": "Tensor"},
         "dist": {"other": "Tensor", "p": "Number"}, "isclose": {"other": "Tensor"},
         "allclose": {"other": "Tensor"}, "equal": {"other": "Tensor"},
         "matmul": {"other": "Tensor"}, "kron": {"other": "Tensor"}, "dot": {"other": "Tensor"},
         "cdist": {"x2": "Tensor"}, "addmv": {"mat": "Tensor"},
         "multinomial": {"num_samples": "int", "replacement": "bool"},
         "movedim": {"source": "tuple of ints", "destination": "tuple of ints"},
         "moveaxis": {"source": "tuple of ints", "destination": "tuple of ints"},
         "repeat_interleave": {"repeats": "Tensor|int"}, "unflatten": {"dim": "int"},
         "tensordot": {"dims": "any"}, "searchsorted": {"input": "Tensor|Number"},
         "bucketize": {"input": "Tensor|Number"},
         "isin": {"elements": "Tensor|Number", "test_elements": "Tensor|Number"},
         "random": {"a": "int", "b": "int"}, "normal": {"mean": "float", "std": "float"},
         "uniform": {"a": "float", "b": "float"}, "exponential": {"lambd": "float"},
         "bernoulli": {"p": "Tensor|Number"}, "hardshrink": {"lambd": "Number"},
         "diff": {"n": "int", "dim": "int", "prepend": "Tensor", "append": "Tensor"},
         **dict.fromkeys(("hsplit", "vsplit", "dsplit"),
                         {"indices_or_sections": "tuple of ints"}),
         # (a number input or other: torch's parser takes it for these)
         "where": {"condition": "Tensor", "input": "Tensor|Number", "other": "Tensor|Number"},
         "add": {"input": "Tensor|Number"}, "sub": {"input": "Tensor|Number"},
         "mul": {"input": "Tensor|Number"}, "div": {"input": "Tensor|Number"},
         "index_put": {"indices": "any"}, "max": {"dim": "any"}, "min": {"dim": "any"},
         **dict.fromkeys(("std", "var", "std_mean", "var_mean"), {"dim": "tuple of ints|bool"}),
}

# flags checked on every call (a truthy value of another type would run silently: torch refuses
# any non-bool, np.bool_ and 0/1 included), and the overloaded functions whose error for them
# is the combination message (measured)
FLAGS = ("keepdim", "descending", "stable", "largest", "sorted", "unbiased", "invert",
         "assume_unique")
FLAG_COMBINATION = {"sort", "argsort", "var", "std", "isin"}

# kinds checked before every call (the others only when a call fails)
STRICT = {"Tensor", "int", "tuple of ints", "tuple of ints|bool", "Tensor|int", "Tensor|Number"}

# functions whose bindings have a schema the overload list does not show (a Scalar ``other``,
# an ``out=`` form): a call that leaves out a required argument gets the combination message
MISSING_IS_COMBINATION = set("""add sub rsub div addbmm addcdiv addcmul addmm addmv addr baddbmm
searchsorted where""".split())
MISSING_IS_COMBINATION_FUNCTION = {"mm", "bmm"}  # (their out= form; the methods have one schema)

# methods and functions torch writes in Python (``Tensor.split``, ``torch.cdist``): a missing
# argument is Python's own error
PYTHON_METHODS = {"split", "unflatten"}
PYTHON_FUNCTIONS = {"cdist", "tensordot"}

# reductions whose ``keepdim`` belongs to the overload that takes a dim: ``x.sum(keepdim=True)``
# matches none of torch's schemas (the one without a dim has no keepdim), so it is refused
KEEPDIM_NEEDS_DIM = {"sum", "mean", "prod", "max", "min"}

# explicit dims no schema of these functions takes, refused with the combination message:
# "none", an explicit ``dim=None`` (their dim is an int; ``sum``'s and ``amax``'s dim lists do
# take None: every dim); "bool", a bool dim (True is not dim 1); "keyword bool", a bool given as
# ``dim=`` (given by position it is std's and var's ``unbiased`` overload); "int or tensor":
# anything else (``max``'s and ``min``'s dim is one int, or their binary form's other tensor)
DIM_REFUSED = {"prod": {"none"}, "squeeze": {"none"}, "max": {"int or tensor"},
               "min": {"int or tensor"},
               **dict.fromkeys(("std", "var", "std_mean", "var_mean"), {"keyword bool"})}

# functions that check their own arguments with torch's messages
OWN_CHECKS = {"unique", "unique_consecutive", "bitwise_left_shift", "bitwise_right_shift"}

# functions whose binding has several schemas: a wrong argument is reported as a combination
OVERLOADED = set("""subtract multiply divide true_divide floor_divide pow float_power remainder
fmod lerp clamp clip clamp_min clamp_max eq ne not_equal lt less le less_equal gt greater ge
greater_equal bitwise_and bitwise_or bitwise_xor sum mean prod max min var std all any
count_nonzero sort argsort view squeeze movedim moveaxis narrow tensor_split repeat_interleave
scatter masked_fill index_fill xlogy bucketize random bernoulli copysign hsplit vsplit dsplit
isin fill""".split())


def _base(name):
    """The out-of-place name whose tables an in-place method (``add_``) shares."""
    return name[:-1] if name.endswith("_") and not name.endswith("__") else name


def _display(name):
    """torch's name for ``name`` in its messages (``split`` runs ``split_with_sizes``)."""
    base = _base(name)
    return DISPLAY.get(base, base) + name[len(base):]


def _kinds(name, sig):
    """(parameter, kind) for the parameters of ``sig`` whose kind is known."""
    name = _base(name)
    params = list(sig.parameters.values())
    out = {}
    first_after_input = params[1].name if len(params) > 1 else None
    for p in params:
        kind = BY_NAME.get(p.name)
        if p.name == "dim" and name in DIM_INT:
            kind = "int"
        if p.name == "input" and name in OVERLOADED:
            kind = "Tensor|Number"  # (pow(2, t), remainder(2, t): a Scalar-self overload)
        if p.name == first_after_input and name in SINGLE and kind != "Tensor|Number":
            kind = SINGLE[name]  # (a Tensor "other" still takes a number: a wrapped scalar)
        kind = EXTRA.get(name, {}).get(p.name, kind)  # (the per-function facts win)
        if kind is not None:
            out[p.name] = (kind, p.default is None, p.kind is p.VAR_POSITIONAL)
    return out


def _combination(name, args, kwargs):
    """torch's error when no overload of ``name`` takes the given arguments."""
    return TypeError(combination_message(name, args, kwargs))


def _arity_error(name, sig, args, method):
    """Python's error for too many positional arguments, counted as torch counts them (a
    method's ``self`` is not an argument; a method without arguments says so)."""
    params = [p for p in sig.parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind is p.VAR_POSITIONAL for p in sig.parameters.values()) or \
            len(args) <= len(params):
        return None
    skip = 1 if method else 0
    if _base(name) in OVERLOADED:
        return _combination(name, args[skip:], {})
    hi = len(params) - skip
    lo = sum(p.default is p.empty for p in params) - skip
    given = len(args) - skip
    if method and hi == 0:
        return TypeError(f"Tensor.{name}() takes no arguments ({given} given)")
    if lo == hi:
        return TypeError(f"{name}() takes {hi} positional argument{'s' if hi != 1 else ''} but "
                         f"{given} {'was' if given == 1 else 'were'} given")
    return TypeError(f"{name}() takes from {lo} to {hi} positional arguments but {given} were "
                     "given")


def _missing_error(name, missing, args, kwargs, method):
    """torch's TypeError for a call that leaves out required arguments: the combination
    message where the binding has several schemas (some hidden, such as ``add``'s Scalar one),
    Python's own words for the methods torch writes in Python, its parser's words otherwise."""
    base = _base(name)
    if base in OVERLOADED or base in MISSING_IS_COMBINATION or (
            not method and base in MISSING_IS_COMBINATION_FUNCTION):
        return _combination(name, args, kwargs)
    if not method and base in PYTHON_FUNCTIONS:
        return None
    if method and base in PYTHON_METHODS:
        quoted = [f"'{n}'" for n in missing]
        listed = quoted[0] if len(quoted) == 1 else (
            f"{quoted[0]} and {quoted[1]}" if len(quoted) == 2 else
            ", ".join(quoted[:-1]) + f", and {quoted[-1]}")
        return TypeError(f"Tensor.{name}() missing {len(missing)} required positional "
                         f"argument{'s' if len(missing) > 1 else ''}: {listed}")
    renamed = RENAMED.get(base, {})
    return TypeError(missing_message(_display(name), [renamed.get(n, n) for n in missing]))


def argument_error(name, sig, kinds, args, kwargs, method):
    """torch's TypeError for the first argument of a kind its schema does not take (None
    when every argument is of an accepted kind)."""
    try:
        bound = sig.bind_partial(*args, **kwargs)
    except TypeError:
        err = _arity_error(name, sig, args, method)
        unknown = [k for k in kwargs if k not in sig.parameters and k != "out" and
                   k not in _NUMPY_ALIASES]  # (out= and numpy's names: known to torch's parser)
        if err is None and unknown and _base(name) in OVERLOADED and not any(
                p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
            return _combination(name, args[1:] if method else args, kwargs)  # (a keyword no
            # overload has)
        return err
    missing = [n for n, p in sig.parameters.items()
               if p.default is p.empty and p.kind in _NAMED and n not in bound.arguments]
    if missing:
        return _missing_error(name, missing, args[1:] if method else args, kwargs, method)
    positions = {p: i for i, p in enumerate(sig.parameters)}
    for pname, value in bound.arguments.items():
        spec = kinds.get(pname)
        if spec is None:
            continue
        kind, optional, varargs = spec
        if value is None and optional:
            continue
        check, label = KINDS[kind]
        if varargs:  # ``view(2, "s")``: the sizes given one by one
            if len(value) == 1 and isinstance(value[0], (tuple, list)):
                value = value[0]
            elif len(value) > 1:
                bad = [i for i, v in enumerate(value) if not _is_int(v)]
                if bad:
                    tname = _display(name)
                    pname = RENAMED.get(_base(name), {}).get(pname, pname)
                    return TypeError(
                        f"{tname}(): argument '{pname}' failed to unpack the object at pos "
                        f"{bad[0] + 1} with error \"type must be tuple of ints,but got "
                        f"{type_name(value[bad[0]])}\"")
                continue
            else:
                value = value[0] if value else ()
        if check(value):
            continue
        if _base(name) in OVERLOADED:
            return _combination(name, args[1:] if method else args, kwargs)
        tname = _display(name)
        # (a keyword argument is named without a position)
        where = "" if pname in kwargs else f" (position {positions[pname] + (0 if method else 1)})"
        pname = RENAMED.get(_base(name), {}).get(pname, pname)
        return TypeError(f"{tname}(): argument '{pname}'{where} must be {label}, not "
                         f"{type_name(value)}")
    return None


_CAUGHT = (TypeError, ValueError, AttributeError, NotImplementedError, RuntimeError, IndexError,
           KeyError)


# ``torch.nn.functional``: the kinds of its parameters (its own table: ``weight`` there is a
# tensor, not lerp's number); only ``input`` is checked before the call
FUNCTIONAL = {
    "input": "Tensor", "weight": "Tensor", "bias": "Tensor", "target": "Tensor",
    "x1": "Tensor", "x2": "Tensor", "running_mean": "Tensor", "running_var": "Tensor",
    "alpha": "Python number", "negative_slope": "Python number", "lambd": "Python number",
    "min_val": "Python number", "max_val": "Python number", "threshold": "Python number",
    "log_input": "bool", "full": "bool"}
# checked before the call in ``nn.functional`` (a tensor alpha or a string flag would run)
FUNCTIONAL_STRICT = {"Tensor", "Python number", "bool"}


# torch's parser picks an overload by the arguments a call names, not by their values: an
# explicit ``dim=None`` is sum's and mean's dim overload, an explicit ``rounding_mode=None``
# div's mode overload, any ``stable=`` sort's stable one. Their graph nodes carry those
# overloads' names: (parameter, its position counting the input as 0 or None, the node name).
_NAMED_OVERLOADS = {"sum": ("dim", 1, "SumBackward1"), "mean": ("dim", 1, "MeanBackward1"),
                    "div": ("rounding_mode", None, "DivBackward2"),
                    "divide": ("rounding_mode", None, "DivBackward2"),
                    "sort": ("stable", None, "SortBackward1")}


def _named_overload(name, f):
    """``f`` whose result's node takes torch's name for the overload an explicitly named
    argument selects (``_NAMED_OVERLOADS``)."""
    pname, pos, node = _NAMED_OVERLOADS[name]

    @functools.wraps(f)  # (the signature stays f's: the parser reads it)
    def call(*args, **kwargs):
        out = f(*args, **kwargs)
        if pos is not None and len(args) > pos:
            given, value = True, args[pos]
        else:
            given, value = pname in kwargs, kwargs.get(pname)
        if given and (pname == "stable" or value is None):
            from .._autograd import torch_named
            torch_named(out, node, *args)
        return out
    return call


def parsed(name, f, method=False, functional=False):
    if name in _NAMED_OVERLOADS:
        f = _named_overload(name, f)
    return _parsed(name, f, method, functional)


def _holds_numpy_scalar(args, kwargs) -> bool:
    for a in args:
        if isinstance(a, np.generic):
            return True
    if kwargs:
        for v in kwargs.values():
            if isinstance(v, np.generic):
                return True
    return False


def _python_number(v):
    """A numpy scalar as the Python number torch's parser reads: numpy integers as int, numpy
    floats as float, and numpy's bool as a float too (the parser reads it as a double, so
    ``int32_tensor + np.bool_(True)`` is float32)."""
    if not isinstance(v, np.generic):
        return v
    return float(v) if isinstance(v, np.bool_) else v.item()


def _python_numbers(args, kwargs):
    return (tuple(_python_number(a) for a in args),
            {k: _python_number(v) for k, v in kwargs.items()})


def _parsed(name, f, method=False, functional=False):
    """``f`` whose failing calls report an argument of the wrong kind as torch does (see the
    module docstring); ``method``: called as ``Tensor.name`` (positions count after self);
    ``functional``: a function of ``torch.nn.functional`` (its table, see FUNCTIONAL)."""
    if _base(name) in OWN_CHECKS:
        return f
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return f
    if functional:  # (every argument but input may be None there: Optional[Tensor] and kin)
        kinds = {p.name: (FUNCTIONAL[p.name], p.name != "input", False)
                 for p in sig.parameters.values() if p.name in FUNCTIONAL and
                 p.kind in _NAMED}
    else:
        kinds = _kinds(name, sig)
    if not kinds:
        return f

    params = list(sig.parameters.values())
    flags = tuple((i, p.name) for i, p in enumerate(params)  # (None: a default "not given")
                  if p.name in FLAGS and (p.default is None or isinstance(p.default, bool)))

    def flag_error(args, kwargs):
        for i, pname in flags:
            if i < len(args):
                v, pos = args[i], i + (0 if method else 1)
            elif pname in kwargs:
                v, pos = kwargs[pname], None
            else:
                continue
            if type(v) is bool or (v is None and params[i].default is None):
                continue
            if _base(name) in FLAG_COMBINATION:
                return _combination(name, args[1:] if method else args, kwargs)
            where = "" if pos is None else f" (position {pos})"
            return TypeError(f"{_display(name)}(): argument '{pname}'{where} "
                             f"must be bool, not {type_name(v)}")
        return None

    # arguments of the strict kinds are checked before the call too: a float ``k`` or
    # ``diagonal`` would run (numpy truncates), a number ``other`` of an op without a Scalar
    # overload (``maximum(x, 1.5)``) would broadcast
    strict = tuple((i, p.name, KINDS[kinds[p.name][0]][0], p.default is None)
                   for i, p in enumerate(params)
                   if p.name in kinds and (i > 0 or not method) and
                   (kinds[p.name][0] in FUNCTIONAL_STRICT and (p.name == "input" or
                                                               kinds[p.name][0] != "Tensor")
                    if functional else kinds[p.name][0] in STRICT) and
                   p.kind in _NAMED)

    def strict_ok(args, kwargs):
        n = len(args)
        for i, pname, check, optional in strict:
            if i < n:
                v = args[i]
            elif pname in kwargs:
                v = kwargs[pname]
            else:
                continue
            if not ((v is None and optional) or check(v)):
                return False
        return True

    scalars = {i for i, p in enumerate(params)
               if functional and kinds.get(p.name, ("",))[0] == "Python number"}
    scalar_names = {params[i].name for i in scalars}
    dim_at = next((i for i, p in enumerate(params) if p.name == "dim"), None) \
        if _base(name) in KEEPDIM_NEEDS_DIM or _base(name) in DIM_REFUSED else None
    needs_dim, refused = _base(name) in KEEPDIM_NEEDS_DIM, DIM_REFUSED.get(_base(name), set())

    def dim_refused(args, kwargs):
        positional = len(args) > dim_at
        if not positional and "dim" not in kwargs:
            return needs_dim and "keepdim" in kwargs
        v = args[dim_at] if positional else kwargs["dim"]
        if "int or tensor" in refused:  # (max/min: one int dim, or the other tensor)
            return not (_is_int(v) or isinstance(v, Tensor))
        if v is None:
            return "none" in refused
        return isinstance(v, bool) and ("bool" in refused or (
            "keyword bool" in refused and not positional))

    @functools.wraps(f)
    def call(*args, **kwargs):
        if dim_at is not None and dim_refused(args, kwargs):
            raise _combination(name, args[1:] if method else args, kwargs)
        if flags:
            err = flag_error(args, kwargs)
            if err is not None:
                raise err
        if strict and not strict_ok(args, kwargs):
            err = argument_error(name, sig, kinds, args, kwargs, method)
            if err is not None:
                raise err
        if _holds_numpy_scalar(args, kwargs):
            args, kwargs = _python_numbers(args, kwargs)
        if scalars:  # (a 0-d tensor given as a Scalar argument: its number)
            args = tuple(a.item() if i in scalars and isinstance(a, Tensor) else a
                         for i, a in enumerate(args))
            kwargs = {k: v.item() if k in scalar_names and isinstance(v, Tensor) else v
                      for k, v in kwargs.items()}
        try:
            return f(*args, **kwargs)
        except _CAUGHT:
            err = argument_error(name, sig, kinds, args, kwargs, method)
            if err is None:
                raise
            raise err from None
    call.unparsed = f
    return call
