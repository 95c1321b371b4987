"""Pytree flattening, key naming and treespec JSON, as ``torch.utils._pytree`` + cstorch do them.

The checkpoint format stores the tree structure as ``torch.utils._pytree.treespec_dumps`` text
(protocol 1) and names every leaf by the dot-joined path that ``cstorch.utils.nest.recurse_spec``
computes from the treespec. This module reproduces both without torch (notes/checkpoint_format.md
§2 and §4):

* node types, matched by **exact** type like torch: ``dict``, ``OrderedDict``, ``list``, ``tuple``,
  ``set`` (registered by cstorch as ``builtins.set``), ``defaultdict``, ``deque`` and namedtuples
  (which cannot be serialized unless registered, so they are refused); everything else is a leaf;
* a path segment is ``str()`` of the dict key / position; ``defaultdict`` is special: recurse_spec
  zips the *context* ``[default_factory, keys]`` with the children, so its first child is named
  ``str(factory)`` and its second ``str(list_of_keys)`` (and a third child gets no name at all).
"""
from __future__ import annotations

import collections
import importlib
import json
from collections import OrderedDict, defaultdict, deque

__all__ = ["flatten", "skeleton_json", "spec_from_json", "leaf_keys", "unflatten", "LEAF_SCHEMA",
           "single_key_spec", "TreeFormatError"]

LEAF_SCHEMA = {"type": None, "context": None, "children_spec": []}

_DICT_TYPES = {dict: "builtins.dict", OrderedDict: "collections.OrderedDict"}
_SEQ_TYPES = {list: "builtins.list", tuple: "builtins.tuple", set: "builtins.set"}


class TreeFormatError(ValueError):
    """The tree (at save) or the stored treespec (at load) cannot be handled."""


def _is_namedtuple_instance(x) -> bool:
    typ = type(x)
    bases = typ.__bases__
    if len(bases) != 1 or bases[0] is not tuple:
        return False
    fields = getattr(typ, "_fields", None)
    return isinstance(fields, tuple) and all(type(f) is str for f in fields)


def _leaf():
    return {"type": None, "context": None, "children_spec": []}


def _dumps_context(keys):
    try:
        return json.dumps(keys)
    except TypeError as e:
        raise TypeError("Unable to serialize context. Please make the context json dump-able, or "
                        "register a custom serializer using _register_pytree_node.") from e


def flatten(tree):
    """Flatten ``tree`` → ``(leaves, keys, schema)``.

    ``leaves`` are the leaf objects in torch's flatten order, ``keys`` their dotted names (as the real
    stack computes them from its in-memory treespec), ``schema`` the treespec as the JSON-able dict that
    ``treespec_dumps`` writes. Raises the errors the real stack raises before writing anything.
    """
    leaves, keys = [], []
    schema = _flatten(tree, [], leaves, keys)
    return leaves, keys, schema


def _flatten(x, path, leaves, keys):
    typ = type(x)
    if typ in _DICT_TYPES or typ is defaultdict:
        ks = list(x.keys())
        children = [x[k] for k in ks]
        if typ is defaultdict:
            factory = x.default_factory
            try:
                ctx = {"default_factory_module": factory.__module__,
                       "default_factory_name": factory.__qualname__, "dict_context": ks}
            except AttributeError as e:
                raise TypeError(f"cannot save a collections.defaultdict whose default_factory is "
                                f"{factory!r}: the treespec format needs an importable factory") from e
            _check_factory_importable(factory, path)
            segs = [str(factory), str(ks)]
            if len(children) > 1 and str(json.loads(json.dumps(ks))) != segs[1]:
                raise TreeFormatError(
                    f"cannot save the collections.defaultdict at {'.'.join(path) or '<top level>'!r}: "
                    f"its keys {ks!r} do not survive the JSON round trip that names its leaves")
            if len(children) > 2:
                # torch/cstorch name only the first two children of a defaultdict (zip over the
                # 2-element context): the real stack writes the file but can never load it back.
                raise TreeFormatError(
                    f"cannot save a collections.defaultdict with {len(children)} entries at "
                    f"{'.'.join(path) or '<top level>'!r}: the cstorch 2.10 checkpoint format names "
                    "only the first two entries of a defaultdict (the real stack writes a file it "
                    "cannot load back). Convert it to a dict first.")
            segs = segs[:len(children)]
        else:
            ctx = _dumps_context(ks)
            segs = [str(k) for k in ks]
            for k, seg in zip(ks, segs):
                _check_key_round_trip(k, seg, path)
        kids = [_flatten(c, path + [s], leaves, keys) for c, s in zip(children, segs)]
        return {"type": _DICT_TYPES.get(typ, "collections.defaultdict"), "context": ctx,
                "children_spec": kids}
    if typ in _SEQ_TYPES or typ is deque:
        children = list(x)
        if typ is deque:
            if x.maxlen is not None and children:
                raise TypeError(f"cannot save a collections.deque with maxlen={x.maxlen}: cstorch "
                                "names its children from the maxlen context ('int' object is not "
                                "iterable in the real stack)")
            ctx = json.dumps(x.maxlen)
            name = "collections.deque"
        else:
            ctx = "null"
            name = _SEQ_TYPES[typ]
        kids = [_flatten(c, path + [str(i)], leaves, keys) for i, c in enumerate(children)]
        return {"type": name, "context": ctx, "children_spec": kids}
    if _is_namedtuple_instance(x):
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {typ} because we didn't register a "
            "serializated_type_name. Please register using `_register_namedtuple`.")
    if _is_torch_size(x):
        raise NotImplementedError(
            "No registered serialization name for <class 'torch.Size'> found. Please update your "
            "_register_pytree_node call with a `serialized_type_name` kwarg.")
    leaves.append(x)
    keys.append(".".join(path))
    return _leaf()


def _check_factory_importable(factory, path):
    try:
        obj = importlib.import_module(factory.__module__)
        for part in factory.__qualname__.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        obj = None
    if obj is not factory:
        raise TreeFormatError(
            f"cannot save the collections.defaultdict at {'.'.join(path) or '<top level>'!r}: its "
            f"default_factory {factory!r} cannot be imported back by name when loading")


def _is_torch_size(x) -> bool:
    from ..torch._tensor import Size
    return type(x) is Size


def _check_key_round_trip(key, seg, path):
    """The loader names leaves from the JSON-decoded keys: refuse keys whose name would change."""
    if type(key) is str:
        return
    back = json.loads(json.dumps(key))
    if str(back) != seg:
        where = ".".join(path) or "<top level>"
        raise TreeFormatError(
            f"cannot save dict key {key!r} (type {type(key).__name__}) at {where!r}: the checkpoint "
            f"format stores keys as JSON, the key comes back as {back!r} and its leaf name "
            f"{seg!r} would become {str(back)!r}, so the checkpoint could not be loaded (the real "
            "stack writes such a file and then fails to load it). Use str, int, float, bool or None "
            "keys.")


def skeleton_json(tree):
    """The tree with every leaf replaced by ``"*"``, or None when json cannot encode it."""
    sk = _skeleton(tree)
    try:
        json.dumps(sk)
    except (TypeError, ValueError):
        return None
    return sk


def _skeleton(x):
    typ = type(x)
    if typ in _DICT_TYPES or typ is defaultdict:
        if typ is defaultdict:
            return defaultdict(x.default_factory, ((k, _skeleton(v)) for k, v in x.items()))
        return typ((k, _skeleton(v)) for k, v in x.items())
    if typ is list or typ is tuple:
        return typ(_skeleton(v) for v in x)
    if typ is set:
        return {"*"} if x else set()  # json cannot encode sets: the whole skeleton becomes null
    if typ is deque:
        return deque(_skeleton(v) for v in x)
    return "*"


def single_key_spec(key: str) -> str:
    """``treespec_dumps`` of the one-entry dict ``{key: leaf}`` (per-leaf metadata ``__spec__``)."""
    return json.dumps([1, {"type": "builtins.dict", "context": json.dumps([key]),
                           "children_spec": [_leaf()]}])


# -- load side ---------------------------------------------------------------------------------------
class _Node:
    __slots__ = ("type", "context", "children", "num_leaves")

    def __init__(self, type_, context, children):
        self.type = type_
        self.context = context
        self.children = children
        self.num_leaves = 1 if type_ is None else sum(c.num_leaves for c in children)


_KNOWN = {"builtins.dict", "collections.OrderedDict", "builtins.list", "builtins.tuple",
          "builtins.set", "collections.defaultdict", "collections.deque"}


def spec_from_json(text: str) -> _Node:
    """Parse a ``treespec_dumps`` string (protocol 1)."""
    protocol, schema = json.loads(text)
    if protocol != 1:
        raise TreeFormatError(f"Unknown protocol {protocol}. Available protocols: [1]")
    return _parse(schema)


def _parse(s) -> _Node:
    if s["type"] is None and s["context"] is None and len(s["children_spec"]) == 0:
        return _Node(None, None, [])
    typ = s["type"]
    if typ not in _KNOWN:
        raise TreeFormatError(f"Deserializing {typ} in pytree is not registered.")
    children = [_parse(c) for c in s["children_spec"]]
    ctx = s["context"]
    if typ == "collections.defaultdict":
        if not isinstance(ctx, dict) or set(ctx) != {"default_factory_module",
                                                       "default_factory_name", "dict_context"}:
            raise TreeFormatError(f"malformed defaultdict context {ctx!r}")
        factory = _resolve_factory(ctx["default_factory_module"], ctx["default_factory_name"])
        context = [factory, ctx["dict_context"]]
    else:
        context = json.loads(ctx)
    return _Node(typ, context, children)


def _resolve_factory(module, name):
    """A defaultdict's ``default_factory`` named in the file: torch's treespec loader imports any
    module and takes any attribute; here the name must be on the object allow-list (builtins
    types, collections, numpy, ... or what ``torch.serialization.add_safe_globals`` allowed)."""
    import pickle

    from .serializers import resolve_global
    if type(module) is not str or type(name) is not str:
        raise TreeFormatError(f"malformed defaultdict default_factory {module!r}.{name!r}")
    try:
        return resolve_global(module, name)
    except pickle.UnpicklingError as e:
        raise TreeFormatError(f"the default_factory {module}.{name} of a collections.defaultdict "
                              f"is refused: {e}") from None


def leaf_keys(node: _Node, scope=None):
    """Dotted leaf names, exactly as ``cstorch.utils.nest.recurse_spec`` yields them."""
    out = []
    _recurse(node, scope or [], out)
    return [".".join(s) for s in out]


def _recurse(node, scope, out):
    if node.num_leaves == 0:
        return
    ctx = node.context
    if ctx:
        if isinstance(ctx, int) and not isinstance(ctx, bool):
            raise TypeError("'int' object is not iterable")
        for key, child in zip(ctx, node.children):
            _recurse(child, scope + [str(key)], out)
    elif not node.children:
        out.append(scope)
    else:
        for i, child in enumerate(node.children):
            _recurse(child, scope + [str(i)], out)


def unflatten(node: _Node, leaves):
    """Rebuild the tree from ``node`` and an iterable of leaves (consumed in order)."""
    it = iter(leaves)
    out = _build(node, it)
    for _ in it:
        raise TreeFormatError("more leaves than the treespec holds")
    return out


def _build(node, it):
    if node.type is None:
        try:
            return next(it)
        except StopIteration:
            raise TreeFormatError("fewer leaves than the treespec holds") from None
    vals = [_build(c, it) for c in node.children]
    t = node.type
    if t == "builtins.dict":
        return dict(zip(node.context, vals))
    if t == "collections.OrderedDict":
        return OrderedDict(zip(node.context, vals))
    if t == "builtins.list":
        return vals
    if t == "builtins.tuple":
        return tuple(vals)
    if t == "builtins.set":
        return set(vals)
    if t == "collections.defaultdict":
        factory, keys = node.context
        return defaultdict(factory, zip(keys, vals))
    return collections.deque(vals, maxlen=node.context)
