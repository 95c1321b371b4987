"""``NamedConfig``: a config chosen by the value of a ``Literal`` discriminator field."""
from __future__ import annotations

from inspect import isabstract
from typing import ClassVar, Literal, get_args, get_origin

from pydantic import model_validator

from .base_config import BaseConfig

__all__ = ["NamedConfig"]


class NamedConfig(BaseConfig):
    """Subclasses declare the discriminator field as a ``Literal`` (e.g. ``name:
    Literal["fc_mnist"]``); when it is omitted it defaults to the first literal value."""

    discriminator: ClassVar[str] = "name"

    @model_validator(mode="before")
    @classmethod
    def check_literal_discriminator_field(cls, data):
        if isabstract(cls):
            return data
        field = cls.model_fields.get(cls.discriminator)
        if field is None:
            raise TypeError(f"Expected {cls} to have a `{cls.discriminator}` field, but found "
                            "none.")
        if get_origin(field.annotation) is not Literal:
            raise TypeError(f"Expected {cls}.{cls.discriminator} to be a Literal. Got: "
                            f"{field.annotation}")
        values = get_args(field.annotation)
        if not values:
            raise TypeError(f"Expected {cls}.{cls.discriminator} to have at least one valid "
                            "literal value, but found none.")
        if isinstance(data, dict) and field.is_required() and cls.discriminator not in data:
            data = {**data, cls.discriminator: values[0]}
        field.repr = False
        return data

    @property
    def discriminator_value(self):
        return getattr(self, self.discriminator)
