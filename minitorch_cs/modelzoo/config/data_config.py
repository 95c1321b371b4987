"""``DataConfig``: the config of a data processor, discriminated by ``data_processor``."""
from __future__ import annotations

from typing import ClassVar

from .named_config import NamedConfig

__all__ = ["DataConfig"]


class DataConfig(NamedConfig):
    """The Trainer builds the data processor from it; the config itself is not callable."""

    discriminator: ClassVar[str] = "data_processor"

    def __call__(self, *args, **kwargs):
        raise RuntimeError("DataConfig should not be directly called.")
