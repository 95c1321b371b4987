"""``cerebras.modelzoo.config``: pydantic base classes of Model Zoo's model and data configs.

Porting rule: ``from cerebras.modelzoo.config import ModelConfig`` becomes
``from minitorch_cs.modelzoo.config import ModelConfig``.

* :class:`BaseConfig` — a frozen pydantic model that forbids unknown keys, validates defaults and
  assignments, takes field descriptions from attribute docstrings, and runs ``post_init``.
* :class:`NamedConfig` — a config selected by a ``Literal`` discriminator field.
* :class:`ModelConfig` (discriminator ``name``) and :class:`DataConfig` (``data_processor``).
* :func:`create_config_class` — a config class generated from a class's ``__init__`` signature.
"""
from __future__ import annotations

from .base_config import BaseConfig
from .data_config import DataConfig
from .model_config import ModelConfig
from .named_config import NamedConfig
from .utils import create_config_class, describe_fields

__all__ = ["BaseConfig", "NamedConfig", "ModelConfig", "DataConfig", "create_config_class",
           "describe_fields"]
