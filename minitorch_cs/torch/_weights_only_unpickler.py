"""An allow-list unpickler: PyTorch 2.13's ``weights_only`` semantics, without torch.

``pickle`` runs code: a GLOBAL opcode imports any callable and REDUCE calls it. This unpickler
interprets the opcodes itself (on top of the pure-Python ``pickle._Unpickler``, whose dispatch table
is replaced by an allow-list of opcodes) and never imports anything:

* a GLOBAL / STACK_GLOBAL resolves only through the table the caller passes plus the globals the
  user allowed with ``torch.serialization.add_safe_globals`` / ``safe_globals``; the modules
  ``sys``, ``os``, ``posix`` and ``nt`` are refused even when allowed;
* REDUCE calls only allowed callables, NEWOBJ instantiates only allowed classes, BUILD sets state
  only on instances of allowed classes, SETITEM(S) only fills dicts, APPEND(S) only lists,
  ADDITEMS only sets; INST, OBJ and the EXT opcodes are refused;
* persistent ids are handed to the caller's ``persistent_load`` (tuples or ints only).

The error texts are PyTorch 2.13's (``torch/_weights_only_unpickler.py``). Every error is a
``pickle.UnpicklingError`` (``_pickle.UnpicklingError``).
"""
from __future__ import annotations

import _compat_pickle
import collections
import pickle
from collections.abc import Callable
from typing import Any

__all__ = ["Unpickler", "TorchUnpickler", "UnpicklingError", "BLOCKLISTED_MODULES"]

UnpicklingError = pickle.UnpicklingError

# modules that are never allowed, even when the user allow-lists a function from them (torch 2.13)
BLOCKLISTED_MODULES = ("sys", "os", "posix", "nt")

# -- the user's allow-list (torch.serialization.add_safe_globals and friends) ---------------------------
_marked_safe_globals: set = set()


def _add_safe_globals(safe_globals) -> None:
    global _marked_safe_globals
    _marked_safe_globals = _marked_safe_globals.union(set(safe_globals))


def _get_safe_globals() -> list:
    return list(_marked_safe_globals)


def _clear_safe_globals() -> None:
    global _marked_safe_globals
    _marked_safe_globals = set()


def _remove_safe_globals(globals_to_remove) -> None:
    global _marked_safe_globals
    _marked_safe_globals = _marked_safe_globals - set(globals_to_remove)


class _safe_globals:
    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        _add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):
        _remove_safe_globals(self.safe_globals)


def user_allowed_globals() -> dict:
    """``{"module.qualname": object}`` for every global the user marked safe."""
    rc = {}
    for f in _marked_safe_globals:
        if isinstance(f, tuple):
            if len(f) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full path), "
                                 f"but got tuple of length: {len(f)}")
            if type(f[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, "
                                f"but got: {type(f[1])}")
            f, name = f
            rc[name] = f
        else:
            rc[f"{f.__module__}.{f.__qualname__}"] = f
    return rc


def _display_name(full_path: str) -> str:
    """How torch names a refused global in its message (``builtins.print`` -> ``print``)."""
    if full_path.startswith("builtins"):
        rest = full_path[len("builtins"):]
        return rest[1:] if rest.startswith(".") else "builtins" + rest
    return full_path


def unsupported_global_message(full_path: str) -> str:
    name = _display_name(full_path)
    return (f"Unsupported global: GLOBAL {name} was not an allowed global by default. Please use "
            f"`torch.serialization.add_safe_globals([{name}])` or the "
            f"`torch.serialization.safe_globals([{name}])` context manager to allowlist this global "
            "if you trust this class/function.")


def find_allowed(module: str, name: str, allowed: dict, user: dict | None = None):
    """Resolve ``module.name`` through ``allowed`` and the user's safe globals, or raise torch's
    UnpicklingError (blocked module / not an allowed global). Never imports anything."""
    full_path = f"{module}.{name}"
    if module in BLOCKLISTED_MODULES:
        raise UnpicklingError(f"Trying to load unsupported GLOBAL {full_path} whose module "
                              f"{module} is blocked.")
    if full_path in allowed:
        return allowed[full_path]
    if user is None:
        user = user_allowed_globals()
    if full_path in user:
        return user[full_path]
    raise UnpicklingError(unsupported_global_message(full_path))


class _Dispatch(dict):
    def __missing__(self, key):
        raise UnpicklingError(f"Unsupported operand {key}")


_P = pickle._Unpickler
_SAFE_OPCODES = [
    # framing, protocol, stack and memo
    pickle.PROTO, pickle.FRAME, pickle.STOP, pickle.MARK, pickle.POP, pickle.POP_MARK, pickle.DUP,
    pickle.GET, pickle.BINGET, pickle.LONG_BINGET, pickle.PUT, pickle.BINPUT, pickle.LONG_BINPUT,
    pickle.MEMOIZE,
    # plain values
    pickle.NONE, pickle.NEWTRUE, pickle.NEWFALSE, pickle.INT, pickle.BININT, pickle.BININT1,
    pickle.BININT2, pickle.LONG, pickle.LONG1, pickle.LONG4, pickle.FLOAT, pickle.BINFLOAT,
    pickle.STRING, pickle.BINSTRING, pickle.SHORT_BINSTRING, pickle.UNICODE, pickle.BINUNICODE,
    pickle.SHORT_BINUNICODE, pickle.BINUNICODE8, pickle.BINBYTES, pickle.SHORT_BINBYTES,
    pickle.BINBYTES8, pickle.BYTEARRAY8, pickle.NEXT_BUFFER, pickle.READONLY_BUFFER,
    # containers built by the opcodes themselves
    pickle.EMPTY_TUPLE, pickle.TUPLE, pickle.TUPLE1, pickle.TUPLE2, pickle.TUPLE3,
    pickle.EMPTY_LIST, pickle.LIST, pickle.EMPTY_DICT, pickle.DICT, pickle.EMPTY_SET,
    pickle.FROZENSET,
]


class Unpickler(_P):
    """Unpickle ``file`` resolving globals only through ``allowed`` (+ the user's safe globals).

    ``allowed`` maps ``"module.name"`` to the object to use. ``persistent_load`` (optional) receives
    every persistent id. ``new_object`` (optional) maps a class to a factory used by NEWOBJ instead
    of ``cls.__new__`` (torch rebuilds ``nn.Parameter`` that way). ``check_build`` (optional) is
    called as ``check_build(inst, state)`` before BUILD sets the state of an allowed instance and may
    raise. ``build_types`` extends the classes whose instances BUILD accepts (checked with
    ``isinstance``). ``check_call`` (optional) is called as ``check_call(func, args)`` before REDUCE
    calls an allowed callable and may raise. An allowed callable with a true
    ``takes_unpickler`` attribute is called with the unpickler as its first argument.
    ``append_types``: the exact types APPEND/APPENDS may extend (torch: lists only).
    """

    dispatch = _Dispatch()

    def __init__(self, file, *, allowed: dict, persistent_load: Callable | None = None,
                 new_object: dict | None = None, check_build: Callable | None = None,
                 build_types: tuple = (), check_call: Callable | None = None,
                 append_types: tuple = (list,), encoding: str = "ASCII", errors: str = "strict"):
        super().__init__(file, fix_imports=True, encoding=encoding, errors=errors)
        self._allowed = dict(allowed)
        self._user = user_allowed_globals()
        values = list(self._allowed.values()) + list(self._user.values())
        self._allowed_ids = {id(v) for v in values}
        self._allowed_classes = {id(v) for v in values if isinstance(v, type)}
        self._new_object = new_object or {}
        self._check_build = check_build
        self._build_types = tuple(build_types)
        self._persistent_load = persistent_load
        self._check_call = check_call
        self._append_types = tuple(append_types)

    # -- globals ---------------------------------------------------------------------------------
    def find_class(self, module, name):
        if not isinstance(module, str) or not isinstance(name, str):
            raise UnpicklingError("STACK_GLOBAL requires str")
        if self.proto < 3:  # Python 2 names, as pickle (and torch) map them
            if (module, name) in _compat_pickle.NAME_MAPPING:
                module, name = _compat_pickle.NAME_MAPPING[(module, name)]
            elif module in _compat_pickle.IMPORT_MAPPING:
                module = _compat_pickle.IMPORT_MAPPING[module]
        return find_allowed(module, name, self._allowed, self._user)

    def _is_allowed(self, obj) -> bool:
        return id(obj) in self._allowed_ids

    # -- risky opcodes, checked -----------------------------------------------------------------
    def load_reduce(self):
        stack = self.stack
        args = stack.pop()
        func = stack[-1]
        if not self._is_allowed(func):
            msg = f"Trying to call reduce for unrecognized function {func}"
            if hasattr(func, "__self__"):
                msg += f" which belongs to {func.__self__}"
            raise UnpicklingError(msg)
        if type(args) is not tuple:
            raise UnpicklingError(f"REDUCE arguments must be a tuple, but got {type(args)}")
        if self._check_call is not None:
            self._check_call(func, args)
        if getattr(func, "takes_unpickler", False) is True:
            stack[-1] = func(self, *args)
        else:
            stack[-1] = func(*args)
    dispatch[pickle.REDUCE[0]] = load_reduce

    def _new(self, cls, args, kwargs):
        if type(args) is not tuple or type(kwargs) is not dict:
            raise UnpicklingError("NEWOBJ arguments must be a tuple (and keyword arguments a dict)")
        factory = self._new_object.get(cls) if isinstance(cls, type) else None
        if factory is not None:
            return factory(*args, **kwargs)
        if isinstance(cls, type) and id(cls) in self._allowed_classes:
            return cls.__new__(cls, *args, **kwargs)
        raise UnpicklingError("Can only create new object for nn.Parameter or classes allowlisted "
                              f"via `add_safe_globals` but got {cls}")

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        self.append(self._new(cls, args, {}))
    dispatch[pickle.NEWOBJ[0]] = load_newobj

    def load_newobj_ex(self):
        kwargs = self.stack.pop()
        args = self.stack.pop()
        cls = self.stack.pop()
        self.append(self._new(cls, args, kwargs))
    dispatch[pickle.NEWOBJ_EX[0]] = load_newobj_ex

    def load_build(self):
        inst = self.stack[-2]
        typ = type(inst)
        if not (id(typ) in self._allowed_classes or isinstance(inst, self._build_types)):
            raise UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types "
                                  f"allowlisted via `add_safe_globals`, but got {typ}")
        if self._check_build is not None:
            self._check_build(inst, self.stack[-1])
        state = self.stack.pop()
        setstate = None if typ is collections.OrderedDict else getattr(inst, "__setstate__", None)
        if setstate is not None:
            setstate(state)
            return
        # no __setstate__: the instance __dict__ and slots, as pickle does, but only plain names
        slotstate = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slotstate = state
        for part in (state, slotstate):
            if part and (not isinstance(part, dict) or any(
                    type(k) is not str or k.startswith("__") for k in part)):
                raise UnpicklingError(f"BUILD state of a {typ} must map plain attribute names")
        if state:
            inst.__dict__.update(state)
        if slotstate:
            for k, v in slotstate.items():
                setattr(inst, k, v)
    dispatch[pickle.BUILD[0]] = load_build

    def load_global(self):
        _P.load_global(self)
    dispatch[pickle.GLOBAL[0]] = load_global

    def load_stack_global(self):
        _P.load_stack_global(self)
    dispatch[pickle.STACK_GLOBAL[0]] = load_stack_global

    def _check_dict_target(self, opcode):
        if type(self.stack[-1]) not in (dict, collections.OrderedDict, collections.Counter,
                                         collections.defaultdict):
            raise UnpicklingError(f"Can only {opcode} for dict, collections.OrderedDict, "
                                  f"collections.Counter, but got {type(self.stack[-1])}")

    def load_setitem(self):
        value, key = self.stack.pop(), self.stack.pop()
        self._check_dict_target("SETITEM")
        self.stack[-1][key] = value
    dispatch[pickle.SETITEM[0]] = load_setitem

    def load_setitems(self):
        items = self.pop_mark()
        self._check_dict_target("SETITEMS")
        if len(items) % 2:  # (torch's loop fails on the last key, after setting the others)
            raise UnpicklingError(f"SETITEMS with an odd number of items ({len(items)}): a key "
                                  "without its value")
        d = self.stack[-1]
        for i in range(0, len(items), 2):
            d[items[i]] = items[i + 1]
    dispatch[pickle.SETITEMS[0]] = load_setitems

    def load_append(self):
        item = self.stack.pop()
        if type(self.stack[-1]) not in self._append_types:
            raise UnpicklingError(f"Can only append to lists, but got {type(self.stack[-1])}")
        self.stack[-1].append(item)
    dispatch[pickle.APPEND[0]] = load_append

    def load_appends(self):
        items = self.pop_mark()
        if type(self.stack[-1]) not in self._append_types:
            raise UnpicklingError(f"Can only extend lists, but got {type(self.stack[-1])}")
        self.stack[-1].extend(items)
    dispatch[pickle.APPENDS[0]] = load_appends

    def load_additems(self):
        items = self.pop_mark()
        if type(self.stack[-1]) is not set:
            raise UnpicklingError(f"Can only add items to sets, but got {type(self.stack[-1])}")
        self.stack[-1].update(items)
    dispatch[pickle.ADDITEMS[0]] = load_additems

    def _persistent(self, pid):
        if type(pid) is not tuple and type(pid) is not int:
            raise UnpicklingError(f"persistent_load id must be tuple or int, but got {type(pid)}")
        if self._persistent_load is None:
            raise UnpicklingError("unsupported persistent id encountered")
        return self._persistent_load(pid)

    def load_persid(self):
        try:
            pid = self.readline()[:-1].decode("ascii")
        except UnicodeDecodeError:
            raise UnpicklingError("persistent IDs in protocol 0 must be ASCII strings") from None
        self.append(self._persistent(pid))
    dispatch[pickle.PERSID[0]] = load_persid

    def load_binpersid(self):
        pid = self.stack.pop()
        self.append(self._persistent(pid))
    dispatch[pickle.BINPERSID[0]] = load_binpersid

    def load(self) -> Any:
        try:
            return super().load()
        except IndexError:  # popping an empty stack: a malformed pickle
            raise UnpicklingError("unpickling stack underflow") from None


for _op in _SAFE_OPCODES:
    Unpickler.dispatch[_op[0]] = _P.dispatch[_op[0]]
del _op

# the opcodes torch 2.13's weights-only unpickler implements (``torch.load``): protocol 2's,
# without FRAME, MEMOIZE, the BINBYTES family or SHORT_BINUNICODE, so a pickle of protocol 3 or
# more is refused there ("Unsupported operand 67") as in torch
_TORCH_OPCODES = [
    pickle.GLOBAL, pickle.NEWOBJ, pickle.REDUCE, pickle.BUILD, pickle.APPEND, pickle.APPENDS,
    pickle.SETITEM, pickle.SETITEMS, pickle.MARK, pickle.TUPLE, pickle.TUPLE1, pickle.TUPLE2,
    pickle.TUPLE3, pickle.NONE, pickle.NEWFALSE, pickle.NEWTRUE, pickle.EMPTY_TUPLE,
    pickle.EMPTY_LIST, pickle.EMPTY_DICT, pickle.EMPTY_SET, pickle.BININT, pickle.BININT1,
    pickle.BININT2, pickle.BINFLOAT, pickle.BINUNICODE, pickle.SHORT_BINSTRING, pickle.BINPERSID,
    pickle.BINGET, pickle.LONG_BINGET, pickle.BINPUT, pickle.LONG_BINPUT, pickle.LONG1,
    pickle.PROTO, pickle.STOP]


class TorchUnpickler(Unpickler):
    """:class:`Unpickler` with exactly the opcodes of torch 2.13's weights-only unpickler, and its
    PROTO: any protocol number is read (another than 2 with torch's warning); an opcode it does
    not implement is ``Unsupported operand N``."""

    dispatch = _Dispatch({op[0]: Unpickler.dispatch[op[0]] for op in _TORCH_OPCODES})

    def load_proto(self):
        self.proto = self.read(1)[0]
        if self.proto != 2:
            import warnings
            warnings.warn(f"Detected pickle protocol {self.proto} in the checkpoint, which was not "
                          "the default pickle protocol used by `torch.load` (2). The weights_only "
                          "Unpickler might not support all instructions implemented by this "
                          "protocol, please file an issue for adding support if you encounter "
                          "this.", stacklevel=2)
    dispatch[pickle.PROTO[0]] = load_proto
