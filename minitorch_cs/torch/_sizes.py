"""Size arguments torch takes either one by one or as one sequence: ``zeros(2, 3)``,
``zeros((2, 3))`` and ``zeros(size=(2, 3))`` are the same call, and a call that gives none
(``zeros()``, ``x.view()``, ``x.tile()``) is a TypeError, not an empty shape (torch's argument
parser: the ``int[] size`` of these schemas is required and has no default; PyTorch 2.x).

The wording of torch's argument-parser errors lives here too (a value's type name, a missing
argument, no matching overload), shared by the size arguments of the core's creation functions
and by the argument parser of the functions (``_functions/_parser.py``).
"""
from __future__ import annotations

import functools

import numpy as np

from ._dtype import bool as _bool, dtype
from ._tensor import Tensor


def type_name(v) -> str:
    """How torch's parser names a Python value's type (its C type name: ``str``, ``list``,
    ``numpy.ndarray``, ``Tensor``, ``torch.dtype``)."""
    t = type(v)
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, dtype):
        return "torch.dtype"
    mod = t.__module__
    return t.__name__ if mod == "builtins" else f"{mod.split('.')[0]}.{t.__name__}"


def missing_message(fname: str, names) -> str:
    """torch's parser's words for required arguments a call left out (its grammar: the plural
    "arguments" for one missing argument, the singular for several)."""
    quoted = ", ".join(f'"{n}"' for n in names)
    if len(names) == 1:
        return f"{fname}() missing 1 required positional arguments: {quoted}"
    return f"{fname}() missing {len(names)} required positional argument: {quoted}"


def combination_message(fname: str, args, kwargs) -> str:
    """torch's parser's words when no overload of ``fname`` takes the call's arguments."""
    named = [f"{k}={type_name(v)}" for k, v in kwargs.items()]
    if args or not named:
        got = ", ".join([type_name(a) for a in args] + named)
    else:  # (torch's wording when only keywords were given: each one followed by ", ")
        got = "".join(f"{n}, " for n in named)
    return (f"{fname}() received an invalid combination of arguments - got ({got}), "
            "but expected one of:")


def _int_like(v) -> bool:
    """An int torch takes as a size: not a bool, not a float; a one-element integer tensor."""
    if isinstance(v, Tensor):
        return v.numel() == 1 and not v.dtype.is_floating_point and v.dtype is not _bool
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _check_ints(fname, pname, given, position):
    """torch's TypeError for sizes that are not ints (one value; or several, one by one or in
    one sequence)."""
    items = given[0] if len(given) == 1 and isinstance(given[0], (tuple, list)) else given
    for v in items:
        if type(v) is not int:
            break
    else:
        return  # (plain ints: the common call, checked cheaply)
    bad = [i for i, v in enumerate(items) if not _int_like(v)]
    if not bad:
        return
    if len(given) == 1 and not isinstance(given[0], (tuple, list)):
        raise TypeError(f"{fname}(): argument '{pname}' (position {position}) must be tuple of "
                        f"ints, not {type_name(given[0])}")
    raise TypeError(f"{fname}(): argument '{pname}' failed to unpack the object at pos "
                    f"{bad[0] + 1} with error \"type must be tuple of ints,but got "
                    f"{type_name(items[bad[0]])}\"")


def sizes(fname: str, pname: str, lead: int = 0, overloaded: bool = False):
    """Decorate ``f(<lead positional arguments>, *sizes, ...)`` so that its sizes may also be
    given by keyword ``pname`` (torch's name for them) and a call without them raises torch's
    TypeError (the combination message for ``overloaded`` functions, whose schemas are several).
    ``lead`` counts the positional arguments before the sizes (``self`` for a method). Sizes
    that are not ints are refused with torch's messages (as positioned for a function: the
    argument parser renumbers them for a method)."""
    def decorate(f):
        @functools.wraps(f)
        def call(*args, **kwargs):
            if pname in kwargs:
                if len(args) > lead:
                    raise TypeError(f"{fname}() got multiple values for argument '{pname}'")
                args = args + (kwargs.pop(pname),)
            elif len(args) <= lead:
                if overloaded:
                    raise TypeError(combination_message(fname, args[1:] if lead else args,
                                                        kwargs))
                raise TypeError(missing_message(fname, [pname]))
            _check_ints(fname, pname, args[lead:], lead + 1)
            return f(*args, **kwargs)
        return call
    return decorate
