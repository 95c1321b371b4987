"""``OptimizerCallback`` (builds the optimizer) and ``LogOptimizerParamGroup``."""
from __future__ import annotations

from collections.abc import Iterable

import minitorch_cs as cstorch

from .callback import Callback, CoreCallback

__all__ = ["OptimizerCallback", "LogOptimizerParamGroup"]


class OptimizerCallback(CoreCallback):
    """``optimizer`` is a ``cstorch.optim.Optimizer``, a callable ``(model) -> Optimizer``, or
    None (validation only: ``fit`` then raises)."""

    def __init__(self, optimizer=None):
        self.optimizer = optimizer

    def setup(self, trainer):
        if self.optimizer is None:
            trainer.optimizer = None
        elif isinstance(self.optimizer, cstorch.optim.Optimizer):
            trainer.optimizer = self.optimizer
        elif callable(self.optimizer):
            trainer.optimizer = self.optimizer(trainer.model)
            if trainer.optimizer is not None and \
                    not isinstance(trainer.optimizer, cstorch.optim.Optimizer):
                raise TypeError(f"Expected the optimizer callable to return a "
                                f"cstorch.optim.Optimizer, got {type(trainer.optimizer)}")
        else:
            raise TypeError(f"Expected optimizer to be a cstorch.optim.Optimizer or a callable "
                            f"that takes the model and returns one. Got: {type(self.optimizer)}")

    def on_fit_start(self, trainer, train_dataloader, val_dataloader, loop):
        if trainer.optimizer is None:
            raise RuntimeError("Optimizer is not defined. Please provide an optimizer to the "
                               "Trainer in order to run fit.")

    def on_save_checkpoint(self, trainer, state_dict):
        if trainer.optimizer:
            state_dict["optimizer"] = trainer.optimizer.state_dict()

    def on_load_checkpoint(self, trainer, state_dict):
        if not trainer.optimizer:
            return
        if "optimizer" in state_dict:
            trainer.optimizer.load_state_dict(state_dict["optimizer"])
            trainer.logger.info("Optimizer state found in checkpoint and loaded successfully.")
        else:
            trainer.logger.info("optimizer state not found in the checkpoint. Using default "
                                "preinitialized state.")


class LogOptimizerParamGroup(Callback):
    """Log param-group entries after each optimizer step, as ``<key>/<group index>``."""

    def __init__(self, keys):
        if isinstance(keys, str):
            self.keys = [keys]
        elif isinstance(keys, Iterable):
            keys = list(keys)
            for key in keys:
                if not isinstance(key, str):
                    raise ValueError(f"Invalid value for key in `keys`. Expected a string, got "
                                     f"{type(key)}")
            self.keys = keys
        else:
            raise ValueError(f"Invalid value for `keys`. Expected a string or Iterable, got "
                             f"{type(keys)}")

    def setup(self, trainer):
        if trainer.optimizer is None:
            return
        for key in self.keys:
            for group in trainer.optimizer.param_groups:
                if key not in group:
                    raise ValueError(f"Key {key} not found in optimizer param_groups.")

    def on_after_optimizer_step(self, trainer, model, optimizer):
        for key in self.keys:
            trainer.log_metrics(**{f"{key}/{i}": group[key]
                                   for i, group in enumerate(optimizer.param_groups)})
