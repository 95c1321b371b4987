"""``torchvision.datasets``: ``MNIST`` (and the ``VisionDataset`` base it builds on)."""
from __future__ import annotations

from .mnist import MNIST
from .vision import StandardTransform, VisionDataset

__all__ = ["MNIST", "VisionDataset", "StandardTransform"]
