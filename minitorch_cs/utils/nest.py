"""Walking nested structures (dict/list/tuple/namedtuple) of tensors (``cstorch.utils.nest``)."""
from __future__ import annotations

from ..torch._tensor import Tensor

__all__ = ["visit_structure", "visit_torch_tensors", "map_tensors", "recurse_spec"]


def visit_structure(data, select_fn, strict=False, scope=None):
    """Yield ``(scope, leaf)`` for every leaf accepted by ``select_fn``, depth first."""
    scope = scope or []
    if isinstance(data, (list, tuple)):
        for i, item in enumerate(data):
            yield from visit_structure(item, select_fn, strict, scope + [str(i)])
    elif isinstance(data, dict):
        for k, v in data.items():
            yield from visit_structure(v, select_fn, strict, scope + [str(k)])
    elif select_fn(data):
        yield scope, data
    elif strict:
        raise ValueError(f"Unknown data structure: {data}")


def visit_torch_tensors(data, scope=None):
    """Yield ``(scope, tensor)`` for every tensor in a nested structure."""
    yield from visit_structure(data, lambda x: isinstance(x, Tensor), scope=scope)


def recurse_spec(data, scope=None):
    yield from visit_structure(data, lambda x: True, scope=scope)


def map_tensors(fn, data):
    """A copy of ``data`` with every tensor replaced by ``fn(tensor)`` (structure preserved)."""
    if isinstance(data, Tensor):
        return fn(data)
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(map_tensors(fn, x) for x in data))
    if isinstance(data, (list, tuple)):
        return type(data)(map_tensors(fn, x) for x in data)
    if isinstance(data, dict):
        out = {k: map_tensors(fn, v) for k, v in data.items()}
        try:
            return type(data)(out)
        except TypeError:
            return out
    return data
