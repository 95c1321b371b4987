"""``Reproducibility``: seeds the global generator before anything is built."""
from __future__ import annotations

import warnings

from minitorch_cs import torch

from .callback import CoreCallback

__all__ = ["Reproducibility"]


class Reproducibility(CoreCallback):
    def __init__(self, seed=None):
        self._seed = seed

    def pre_setup(self, trainer):
        if self._seed is not None:
            torch.manual_seed(self._seed)
        else:
            warnings.warn("RNG seed was not set. This affects determinism of the model and can "
                          "cause missed cached compile when running the same model again. ")
