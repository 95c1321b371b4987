"""``BaseConfig``: the pydantic model every Model Zoo config derives from."""
from __future__ import annotations

import warnings
from typing import ClassVar, final

from pydantic import BaseModel, ConfigDict, model_validator

__all__ = ["BaseConfig"]


class BaseConfig(BaseModel):
    """A frozen pydantic model with Model Zoo's settings.

    Unknown keys are rejected (``extra="forbid"``); instances are immutable except inside
    :meth:`post_init`; defaults and assignments are validated; a field's description is the
    docstring written under it; fields can be filled by name or alias. Fields marked
    ``deprecated`` warn (``FutureWarning``) when given. A config bound to a class through
    ``__orig_class__`` (see :func:`create_config_class`) builds it when called.
    """

    __orig_class__: ClassVar = None

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        arbitrary_types_allowed=True,
        revalidate_instances="always",
        validate_default=True,
        validate_return=True,
        validate_assignment=True,
        use_attribute_docstrings=True,
        populate_by_name=True,
    )

    def __call__(self, **kwargs):
        """Construct ``__orig_class__`` from this config's fields (``kwargs`` override them)."""
        if self.__orig_class__ is None:
            raise TypeError(f"{self.__class__.__name__} has no original class associated with "
                            "it. ")
        return self.__orig_class__(**self.get_orig_class_args(**kwargs))

    @classmethod
    def get_orig_class(cls):
        return cls.__orig_class__

    def get_orig_class_args(self, **kwargs) -> dict:
        args = {name: kwargs.get(name, getattr(self, name)) for name in type(self).model_fields}
        if self.model_extra and self.model_config.get("include_extra", True):
            args.update(self.model_extra)
        return args

    def copy(self, *, validate: bool = True, **kwargs):
        """A copy; with ``update=`` it is validated again unless ``validate=False``."""
        new = super().model_copy(**kwargs)
        if "update" in kwargs and validate:
            return self.model_validate(new)
        return new

    def model_copy(self, **kwargs):
        if kwargs.get("update"):
            warnings.warn("model_copy() does not validate the data before creating the new "
                          "model. If you trust this data, then ignore this warning. Otherwise, "
                          "please call copy() instead.")
        return super().model_copy(**kwargs)

    @model_validator(mode="before")
    @classmethod
    def check_for_deprecated_fields(cls, data):
        if isinstance(data, dict):
            # Differs from Model Zoo: a deprecated field still at its default does not warn
            # (pydantic passes every field here when post_init assigns one).
            given = sorted(name for name, field in cls.model_fields.items()
                           if field.deprecated and name in data
                           and data[name] is not field.default)
            if given:
                warnings.warn(f"Found deprecated fields for {cls.__name__}: {given}\nSupport for "
                              "passing these fields in will be removed in the future.",
                              category=FutureWarning)
        return data

    def post_init(self, context) -> None:
        """Override to derive fields after validation; assignments are allowed here."""

    @final
    def model_post_init(self, context) -> None:
        config = type(self).model_config
        frozen = config["frozen"]
        try:
            config["frozen"] = False
            self.post_init({} if context is None else context)
        finally:
            config["frozen"] = frozen
