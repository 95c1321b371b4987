"""``ModelCallback``: builds the model (a callable inside ``backend.device``) and compiles it."""
from __future__ import annotations

import warnings

import minitorch_cs as cstorch
from minitorch_cs.torch import nn

from .callback import CoreCallback

__all__ = ["ModelCallback"]


class ModelCallback(CoreCallback):
    """``model`` is an ``nn.Module``, or a zero-argument callable returning one; a callable is
    called inside ``with trainer.backend.device:`` so its weights are created on the device
    (deferred, lazily initialized on CSX)."""

    def __init__(self, model):
        self.model = model

    def setup(self, trainer):
        if isinstance(self.model, nn.Module):
            trainer.model = self.model
        elif callable(self.model):
            with trainer.backend.device:
                trainer.model = self.model()
            if not isinstance(trainer.model, nn.Module):
                raise TypeError(f"Expected the model callable to return a torch.nn.Module, but "
                                f"got {type(trainer.model)}.")
        else:
            raise ValueError(f"Expected model to be a torch.nn.Module or a callable that returns "
                             f"a torch.nn.Module, but got {type(self.model)}.")
        trainer.compiled_model = cstorch.compile(trainer.model, trainer.backend)

    def on_train_start(self, trainer, model, train_dataloader, loop, loop_idx):
        model.train()

    def on_validate_start(self, trainer, model, val_dataloader, loop):
        model.eval()

    def on_before_backward(self, trainer, model, outputs):
        if "loss" not in outputs:
            raise ValueError(f"Expected the {type(model).__name__}'s forward call to return a "
                             f"dictionary with a 'loss' key. Got: {sorted(outputs.keys())}")

    def on_save_checkpoint(self, trainer, state_dict):
        state_dict["model"] = trainer.model.state_dict()

    def on_load_checkpoint(self, trainer, state_dict):
        if "model" not in state_dict:
            warnings.warn("Checkpoint does not contain a model state dict. Model state was not "
                          "loaded")
            return
        strict = not trainer.checkpoint.disable_strict_checkpoint_loading
        model_sd = state_dict["model"]
        # Checkpoints from before Model Zoo 2.0 hold the inner `model.model` keys unprefixed.
        if hasattr(trainer.model, "model") and not all(k.startswith("model.")
                                                       for k in model_sd.keys()):
            trainer.model.model.load_state_dict(model_sd, strict=strict)
        else:
            trainer.model.load_state_dict(model_sd, strict=strict)
        trainer.logger.info("Model state found in checkpoint and loaded successfully.")
