"""``create_config_class`` (a config class from a signature) and ``describe_fields``."""
from __future__ import annotations

import inspect
import re
from typing import Any, ClassVar, Optional

from pydantic import create_model, model_serializer, model_validator

from .base_config import BaseConfig

__all__ = ["create_config_class", "describe_fields"]


def _signature(obj):
    target = obj.__init__ if isinstance(obj, type) else obj
    try:
        return inspect.signature(target, eval_str=True)
    except (NameError, TypeError):  # an annotation that cannot be resolved stays a string
        return inspect.signature(target)


def _is_config_class(annotation) -> bool:
    return inspect.isclass(annotation) and issubclass(annotation, BaseConfig)


def create_config_class(cls, custom_type_mapping: Optional[dict] = None, **kwargs):
    """A ``BaseConfig`` subclass whose fields are the parameters of ``cls`` (or its ``__init__``).

    A parameter's annotation becomes the field type (``Any`` when absent; ``custom_type_mapping``
    may replace annotations, keyed by annotation or ``(annotation, name)``) and its default the
    field default. ``**kwargs`` makes the config accept extra keys; ``*args`` is ignored. The
    class is bound to ``cls``: calling a config instance constructs ``cls(**fields)``. When the
    only parameter is itself a config (``def __init__(self, config: MyModelConfig)``), the
    config accepts that inner config (or its fields) directly.

    Raises:
        ValueError: if a parameter is named ``model_config`` (reserved by pydantic).
    """
    mapping = custom_type_mapping or {}
    fields, config = {}, {}
    params = dict(_signature(cls).parameters)
    if isinstance(cls, type):
        params.pop("self", None)
    for name, param in params.items():
        if param.kind is param.VAR_POSITIONAL:
            continue
        if param.kind is param.VAR_KEYWORD:
            config["extra"] = "allow"
            continue
        if name == "model_config":
            raise ValueError(f"`model_config` is a reserved name. Please use a different "
                             f"argument name in {cls}.")
        annotation = Any if param.annotation is inspect.Parameter.empty else param.annotation
        try:
            annotation = mapping.get((annotation, name), mapping.get(annotation, annotation))
        except TypeError:  # unhashable annotation
            pass
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[name] = (annotation, default)

    base = kwargs.pop("__base__", BaseConfig)

    class _SignatureConfig(base):
        model_config = config

        @model_validator(mode="before")
        @classmethod
        def wrap_config(cls_, data):
            names = list(cls_.model_fields)
            if len(names) == 1 and _is_config_class(cls_.model_fields[names[0]].annotation):
                if isinstance(data, BaseConfig) or (
                        isinstance(data, dict) and (len(data) != 1 or names[0] not in data)):
                    return {names[0]: data}
            return data

        @model_serializer(mode="wrap")
        def serialize_config(self, handler):
            out = handler(self)
            names = list(type(self).model_fields)
            if (len(names) == 1 and _is_config_class(type(self).model_fields[names[0]].annotation)
                    and set(out) == set(names)):
                return out[names[0]]
            return out

    name = kwargs.pop("__name__", "{name}").format(name=cls.__name__)
    kwargs.setdefault("__module__", cls.__module__)
    return create_model(name, __base__=_SignatureConfig, __orig_class__=(ClassVar, cls),
                        **fields, **kwargs)


def _type_name(t) -> str:
    from typing import get_args, get_origin
    if isinstance(t, str):
        return f"'{t}'"
    if get_origin(t) is list:
        return f"List[{', '.join(map(_type_name, get_args(t)))}]"
    if isinstance(t, type):
        return t.__name__
    return "\n".join(map(_type_name, get_args(t))) or str(t)


def describe_fields(cfg, show_deprecated: bool = False) -> list:
    """One ``{"Name", "Type", "Default", "Description"}`` dict per field of a config class."""
    rows = []
    for name, field in cfg.model_fields.items():
        if field.deprecated and not show_deprecated:
            continue
        if field.is_required():
            default = ""
        else:
            default = field.get_default()
            if isinstance(default, str):
                default = f"'{default}'"
            if default is None:
                default = getattr(field.default_factory, "__name__", "None")
        description = field.description
        if description:
            description = re.sub(r"\[(.*)\]\(.*\)", r"\g<1>", description)
        rows.append({"Name": name, "Type": _type_name(field.annotation), "Default": default,
                     "Description": description})
    return rows
