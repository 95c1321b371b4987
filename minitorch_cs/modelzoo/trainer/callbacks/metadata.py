"""``ModelZooParamsMetadata``: the run's params in each checkpoint's ``__metadata__`` (the
version there is checked when the checkpoint is loaded)."""
from __future__ import annotations

import minitorch_cs as cstorch

from .callback import Callback

__all__ = ["ModelZooParamsMetadata"]


class ModelZooParamsMetadata(Callback):
    def __init__(self, params=None):
        self.params = params or {}

    def on_save_checkpoint(self, trainer, state_dict):
        state_dict["__metadata__"] = [{"version": cstorch.__version__,
                                       "model_name": type(trainer.model).__name__,
                                       "params": self.params}]

    def on_load_checkpoint(self, trainer, state_dict):
        trainer.metadata = state_dict.pop("__metadata__", None)
