"""``torchvision.transforms``: ``Compose``, ``ToTensor``, ``Normalize``, ``Lambda``."""
from __future__ import annotations

from . import functional
from .transforms import Compose, Lambda, Normalize, ToTensor

__all__ = ["Compose", "ToTensor", "Normalize", "Lambda", "functional"]
