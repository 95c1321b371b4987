"""``ModelConfig``: the config of a registered model, discriminated by ``name``."""
from __future__ import annotations

from typing import ClassVar

from .named_config import NamedConfig
from .utils import create_config_class

__all__ = ["ModelConfig"]


class ModelConfig(NamedConfig):
    """Calling the config builds the model: ``MyModelConfig(...)()``.

    The model class is ``__model_cls__``: by default the model registered under this config's
    ``name`` (``minitorch_cs.modelzoo.registry``); subclasses may return their class directly.
    """

    discriminator: ClassVar[str] = "name"

    @property
    def __model_cls__(self):
        try:
            from ..registry import registry
        except ImportError as e:
            raise RuntimeError(f"no model registry to look up model {self.discriminator_value!r}"
                               f" ({e}); define __model_cls__ on {type(self).__name__}") from e
        return registry.get_model_class(self.discriminator_value)

    def __call__(self, **kwargs):
        if self.__orig_class__ is None:
            return create_config_class(self.__model_cls__).model_validate(self)()
        return super().__call__(**kwargs)
