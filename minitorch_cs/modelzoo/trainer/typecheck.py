"""Checks for YAML values: types from annotations, and class kwargs against signatures.

Model Zoo generates pydantic models from class signatures to validate its YAML. The trainer
config here checks the same things directly: :func:`check_type` checks (and converts) a value
against a type annotation, :func:`validate_kwargs` checks a class-keyed entry's arguments
(``{SGD: {lr: 0.1}}``) against the class's ``__init__`` signature. Every error is a
:class:`ConfigError` (a ``ValueError``) whose message starts with the key path
(``trainer.init.loop.max_steps``) and says what is allowed.
"""
from __future__ import annotations

import difflib
import inspect
import numbers
import typing
import warnings
from typing import Any, Literal, Union

from ..config.errors import UserError, short_repr

__all__ = ["ConfigError", "check_type", "validate_kwargs", "describe", "pydantic_error",
           "unknown_key_message", "short_repr"]

_MAX_MESSAGE = 2000


class ConfigError(UserError, ValueError):
    """A configuration error; ``path`` is the dotted key path of the offending value and
    ``message`` says what is wrong and what is allowed (values in it are shortened, so a huge
    value never makes a huge message)."""

    def __init__(self, path: str, message: str):
        if len(message) > _MAX_MESSAGE:
            message = message[:_MAX_MESSAGE - 3] + "..."
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)


def unknown_key_message(key, allowed, what="key") -> str:
    """``unknown key 'batchsize' (did you mean 'batch_size'?). Allowed keys: ...``"""
    allowed = [str(a) for a in allowed]
    close = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6)
    if not close:  # a case or separator slip: SGD/sgd, batch-size/batch_size
        norm = {a.lower().replace("-", "_"): a for a in allowed}
        hit = norm.get(str(key).lower().replace("-", "_"))
        close = [hit] if hit else []
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return (f"unknown {what} {short_repr(key)}{hint}. Allowed {what}s: "
            f"{', '.join(allowed) or '(none)'}")


def describe(annotation) -> str:
    """A readable name for a type annotation (``int``, ``one of 'relu'``, ``list of int``)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is Any or annotation is inspect.Parameter.empty:
        return "any value"
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin is Union:
        return " or ".join(describe(a) for a in args)
    if origin in (list, typing.List):
        return f"a list of {describe(args[0])}" if args else "a list"
    if origin in (tuple, typing.Tuple):
        return "a list/tuple"
    if origin in (dict, typing.Dict):
        return "a mapping"
    if annotation is type(None):
        return "null"
    if annotation is float:
        return "a number"
    if isinstance(annotation, type):
        return {"int": "an integer", "bool": "true/false", "str": "a string"}.get(
            annotation.__name__, annotation.__name__)
    return str(annotation)


def _to_float(value):
    # PyYAML reads "1e-3" (no dot) as a string; pydantic's lax mode reads it as a float.
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    return None


_NO = object()


def _convert(value, annotation):
    """``value`` converted to ``annotation``, or ``_NO``."""
    if annotation is Any or annotation is inspect.Parameter.empty or annotation is object:
        return value
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Literal:
        return value if value in args else _NO
    if origin is Union:
        for a in args:
            if a is type(None):
                if value is None:
                    return None
                continue
        for a in args:  # exact types first, so 1 stays an int in Union[int, float]
            if a is not type(None) and isinstance(a, type) and type(value) is a:
                return value
        for a in args:
            if a is type(None):
                continue
            out = _convert(value, a)
            if out is not _NO:
                return out
        return _NO
    if annotation is type(None):
        return None if value is None else _NO
    if origin in (list, typing.List, tuple, typing.Tuple, set):
        if not isinstance(value, (list, tuple)):
            return _NO
        if origin in (tuple, typing.Tuple) and args and args[-1] is not Ellipsis:
            if len(args) != len(value):
                return _NO
            out = [_convert(v, a) for v, a in zip(value, args)]
        else:
            item = args[0] if args else Any
            out = [_convert(v, item) for v in value]
        if any(o is _NO for o in out):
            return _NO
        return tuple(out) if origin in (tuple, typing.Tuple) else out
    if origin in (dict, typing.Dict):
        return value if isinstance(value, dict) else _NO
    if annotation is bool:
        return value if isinstance(value, bool) else _NO
    if annotation is int:
        return value if isinstance(value, int) and not isinstance(value, bool) else _NO
    if annotation is float:
        out = _to_float(value)
        return _NO if out is None else out
    if annotation is str:
        return value if isinstance(value, str) else _NO
    if isinstance(annotation, type):
        return value if isinstance(value, annotation) else _NO
    return value  # an annotation we do not check (forward references, protocols, ...)


def check_type(value, annotation, path: str):
    """Return ``value`` converted to ``annotation`` or raise ConfigError naming ``path``."""
    out = _convert(value, annotation)
    if out is _NO:
        raise ConfigError(path, f"expected {describe(annotation)}, got {short_repr(value)}")
    return out


def _hints(fn) -> dict:
    try:
        return typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - unresolvable annotations are simply not checked
        return {}


def _param_annotation(param, hints):
    ann = hints.get(param.name, inspect.Parameter.empty)
    if ann is inspect.Parameter.empty and param.default not in (inspect.Parameter.empty, None):
        d = param.default
        if isinstance(d, bool):
            return bool
        if isinstance(d, float):
            return Union[int, float]
        if isinstance(d, int):
            return int
    return ann


def validate_kwargs(cls, kwargs: dict, path: str, *, injected=(), aliases=None,
                    extra="forbid", required_defaults=None) -> dict:
    """Check ``kwargs`` for ``cls(**kwargs)`` against its signature.

    Args:
        injected: parameter names the caller supplies (``params``, ``optimizer``): neither
            required nor allowed in the config.
        aliases: ``{alias: parameter}`` (``learning_rate`` -> ``lr``); giving both is an error.
        extra: ``"forbid"`` (unknown keys raise) or ``"warn"`` (dropped with a warning).
        required_defaults: ``{parameter: default}`` for required parameters the config may omit.

    Returns:
        the checked keyword arguments (values converted, e.g. ``"1e-3"`` to ``0.001``).
    """
    if not isinstance(kwargs, dict):
        raise ConfigError(path, f"expected a mapping of arguments for {cls.__name__}, got "
                                f"{short_repr(kwargs)}")
    sig = inspect.signature(cls.__init__ if isinstance(cls, type) else cls)
    hints = _hints(cls.__init__ if isinstance(cls, type) else cls)
    params = {n: p for n, p in sig.parameters.items()
              if n != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    var_kw = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    aliases = {a: t for a, t in (aliases or {}).items() if t in params and a not in params}
    allowed = sorted((set(params) - set(injected)) | set(aliases))
    out = {}
    for key, value in kwargs.items():
        name = aliases.get(key, key)
        if name in injected:
            raise ConfigError(f"{path}.{key}", "is set by the trainer and cannot be given in "
                                               "the config")
        if name not in params:
            if var_kw:
                out[key] = value
                continue
            if extra == "warn":
                warnings.warn(f"{cls.__name__} got an unexpected and unused parameter {key!r} "
                              f"({path}.{key}); allowed parameters: {', '.join(allowed)}. "
                              f"Passing unused parameters is deprecated.")
                continue
            raise ConfigError(f"{path}.{key}", unknown_key_message(key, allowed, "parameter")
                              + f" (of {cls.__name__})")
        if name in out:
            raise ConfigError(f"{path}.{key}", f"{name!r} is given twice (as {name!r} and its "
                                               f"alias {key!r}); give only one of them")
        out[name] = check_type(value, _param_annotation(params[name], hints), f"{path}.{key}")
    for name, p in params.items():
        if name in out or name in injected or p.default is not inspect.Parameter.empty:
            continue
        if required_defaults and name in required_defaults:
            out[name] = required_defaults[name]
            continue
        alias = [a for a, t in aliases.items() if t == name]
        also = f" (or its alias {alias[0]!r})" if alias else ""
        raise ConfigError(f"{path}.{name}", f"missing required parameter{also} of "
                                            f"{cls.__name__}")
    return out


def pydantic_error(error, path: str, model_cls=None) -> ConfigError:
    """A ConfigError for the most useful error of a pydantic ``ValidationError``, with its key
    path: an unknown key comes first (a misspelled key also makes the real key "missing"; the
    misspelling is what to fix), with the closest allowed key suggested."""
    errors = error.errors()
    first = next((e for e in errors if e.get("type") == "extra_forbidden"), errors[0])
    loc = ".".join(str(p) for p in first.get("loc", ()))
    where = f"{path}.{loc}" if loc else path
    msg = first.get("msg", str(error))
    if first.get("type") == "extra_forbidden" and model_cls is not None:
        keys = set()
        for name, f in model_cls.model_fields.items():
            keys.add(name)
            if isinstance(f.validation_alias, str):
                keys.add(f.validation_alias)
        key = first.get("loc", ("?",))[-1]
        msg = unknown_key_message(key, sorted(keys)) + f" (of {model_cls.__name__})"
    elif first.get("type") == "missing":
        msg = "missing required key"
    elif first.get("type") == "value_error" and msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    if "input" in first and first.get("type") not in ("missing", "extra_forbidden",
                                                         "value_error"):
        msg += f" (got {short_repr(first['input'])})"
    return ConfigError(where, msg)
