"""Walking nested structures of tensors (``cstorch.utils.nest``).

A structure is visited through registered *visit functions*: dicts (and ``UserDict``) yield
``([str(key)], value)``, lists and tuples ``([str(index)], item)``; everything else is a leaf.
Scopes are lists of those path segments, e.g. ``["model", "fc", "weight"]``.
``register_visit_fn(*types)`` adds a container type. The ``map_*`` functions rebuild
dicts (keeping their type), lists, tuples and namedtuples around the mapped leaves.
"""
from __future__ import annotations

from collections import UserDict
from inspect import isclass
from typing import Any, Callable, Generator, List, Optional, Tuple
from warnings import warn

from ..torch._tensor import Tensor

__all__ = ["register_visit_fn", "unregister_visit_fn", "find_visit_fn", "visit_structure",
           "visit_torch_tensors", "visit_device_tensors", "visit_lazy_tensors", "map_structure",
           "map_torch_tensors", "map_lazy_tensors", "map_tensors", "recurse_spec", "diff"]

TScope = List[str]
_visit_fns: dict = {}


def register_visit_fn(*types):
    """Decorator: ``fn(struct)`` yields ``(scope_segments, item)`` for containers of ``types``."""
    for t in types:
        if not isclass(t):
            raise TypeError(f"Expected a type, got {t}")
    key = tuple(frozenset(types))

    def decorator(fn):
        if key in _visit_fns and _visit_fns[key] is not fn:
            warn(f"Visit function for {key} was previously registered to\n{_visit_fns[key]}\n"
                 f"Overwriting with\n{fn}.")
        _visit_fns[key] = fn
        return fn
    return decorator


def unregister_visit_fn(*types) -> None:
    """Forget the visit function registered for exactly ``types``."""
    _visit_fns.pop(tuple(frozenset(types)), None)
    for t in types:  # cstorch pops the single types too
        _visit_fns.pop(t, None)


def find_visit_fn(struct) -> Optional[Callable]:
    for types, fn in _visit_fns.items():
        if isinstance(struct, types):
            return fn
    return None


@register_visit_fn(dict, UserDict)
def visit_dict(struct):
    for k, v in struct.items():
        yield [str(k)], v


@register_visit_fn(list, tuple)
def visit_list_tuple(struct):
    for i, v in enumerate(struct):
        yield [str(i)], v


def visit_structure(data_structure, select_fn: Callable[[Any], bool], strict: bool = False,
                    scope: Optional[TScope] = None) -> Generator[Tuple[TScope, Any], None, None]:
    """Yield ``(scope, item)`` for every leaf accepted by ``select_fn``, depth first.

    Raises:
        ValueError: with ``strict``, for a leaf that ``select_fn`` rejects.
        TypeError/ValueError: when a visit function yields something other than pairs.
    """
    scope = scope or []
    visit = find_visit_fn(data_structure)
    if visit:
        for pair in visit(data_structure):
            if not isinstance(pair, (list, tuple)):
                raise TypeError(f"Expected visit function to return a list or tuple, got "
                                f"{type(pair)}")
            if len(pair) != 2:
                raise ValueError(f"Expected visit function to return a list or tuple of length "
                                 f"2, got {len(pair)}")
            segments, value = pair
            yield from visit_structure(value, select_fn, strict, scope + list(segments))
    elif select_fn(data_structure):
        yield scope, data_structure
    elif strict:
        raise ValueError(f"Unknown data structure: {data_structure}")


def visit_torch_tensors(data_structure, strict: bool = False, scope: Optional[TScope] = None):
    """Yield ``(scope, tensor)`` for every tensor in a nested structure."""
    yield from visit_structure(data_structure, lambda x: isinstance(x, Tensor), strict, scope)


def visit_device_tensors(data_structure, device_type: str, strict: bool = False,
                         scope: Optional[TScope] = None):
    """Yield ``(scope, tensor)`` for the tensors whose ``device.type`` is ``device_type``."""
    for s, t in visit_torch_tensors(data_structure, strict, scope):
        if t.device.type == device_type:
            yield s, t


def visit_lazy_tensors(data_structure, strict: bool = False, scope: Optional[TScope] = None):
    """Yield ``(scope, tensor)`` for tensors on the ``lazy`` (wafer) device."""
    yield from visit_structure(
        data_structure, lambda x: isinstance(x, Tensor) and x.device.type == "lazy", strict, scope)


def _map(fn, data, select_fn, scope):
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_map(fn, v, select_fn, scope + [str(i)]) for i, v in enumerate(data)))
    if isinstance(data, (list, tuple)):
        return type(data)(_map(fn, v, select_fn, scope + [str(i)]) for i, v in enumerate(data))
    if isinstance(data, dict):
        out = {k: _map(fn, v, select_fn, scope + [str(k)]) for k, v in data.items()}
        try:
            return type(data)(out)
        except TypeError:
            pass
        if hasattr(data, "default_factory"):  # defaultdict: keep its factory
            return type(data)(data.default_factory, out)
        return out
    return fn(scope, data) if select_fn(data) else data


def map_structure(map_fn: Callable, data_structure, select_fn: Callable[[Any], bool],
                  scope: Optional[TScope] = None):
    """A copy of the structure with every selected leaf replaced by ``map_fn(scope, leaf)``."""
    return _map(map_fn, data_structure, select_fn, list(scope or []))


def map_torch_tensors(map_fn: Callable, data_structure, scope: Optional[TScope] = None):
    """``map_structure`` over the tensors: ``map_fn(scope, tensor)``."""
    return map_structure(map_fn, data_structure, lambda x: isinstance(x, Tensor), scope)


def map_lazy_tensors(map_fn: Callable, data_structure, scope: Optional[TScope] = None):
    return map_structure(map_fn, data_structure,
                         lambda x: isinstance(x, Tensor) and x.device.type == "lazy", scope)


def map_tensors(fn, data):
    """A copy of ``data`` with every tensor replaced by ``fn(tensor)`` (no scope argument)."""
    return map_torch_tensors(lambda _, t: fn(t), data)


def recurse_spec(data, scope=None):
    """Yield the scope of every leaf of ``data`` (cstorch computes it from a pytree spec)."""
    for s, _ in visit_structure(data, lambda x: True, scope=scope):
        yield s


def diff(data_structure_1, data_structure_2):
    """Yield a message for differing key sets and for every key whose values differ."""
    flat1 = {".".join(s): v for s, v in visit_structure(data_structure_1, lambda x: True)}
    flat2 = {".".join(s): v for s, v in visit_structure(data_structure_2, lambda x: True)}
    if set(flat1) != set(flat2):
        yield (f"Data structures have differing keys.\nKeys only in data structure 1: "
               f"{sorted(set(flat1) - set(flat2))}\nKeys only in data structure 2: "
               f"{sorted(set(flat2) - set(flat1))}\n")
    for key, v1 in flat1.items():
        if key not in flat2:
            continue
        v2 = flat2[key]
        same = (isinstance(v1, Tensor) and isinstance(v2, Tensor) and v1.shape == v2.shape
                and bool((v1 == v2).all())) if isinstance(v1, Tensor) else v1 == v2
        if not same:
            yield f"Found mismatching values for {key}: {v1} != {v2}"
