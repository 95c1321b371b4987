"""``DataLoaderCallback``: the train loader's position in checkpoints (restartable loaders)."""
from __future__ import annotations

import contextlib

from .callback import CoreCallback

__all__ = ["DataLoaderCallback"]


class DataLoaderCallback(CoreCallback):
    """Saves ``dataloader.state_dict()`` of a restartable train loader, and restores it, so a
    resumed ``fit`` sees the batches the uninterrupted one would have seen."""

    def __init__(self):
        self.dataloader = None

    def on_enter_fit(self, trainer, stack, train_dataloader, val_dataloader, loop):
        @contextlib.contextmanager
        def store():
            self.dataloader = train_dataloader
            try:
                yield
            finally:
                self.dataloader = None

        stack.enter_context(store())

    def on_save_checkpoint(self, trainer, state_dict):
        if self.dataloader is not None and self.dataloader.is_restartable:
            state_dict["dataloader"] = self.dataloader.state_dict()

    def on_load_checkpoint(self, trainer, state_dict):
        if self.dataloader is None or not self.dataloader.is_restartable:
            return
        if "dataloader" in state_dict:
            self.dataloader.load_state_dict(
                state_dict["dataloader"],
                strict=not trainer.checkpoint.disable_strict_checkpoint_loading)
            trainer.logger.info("Dataloader state found in checkpoint and loaded successfully.")
        else:
            trainer.logger.info("Dataloader state not found in the checkpoint. DataLoaders will "
                                "yield samples from the beginning.")
