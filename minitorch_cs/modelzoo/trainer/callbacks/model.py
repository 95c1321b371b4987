"""``ModelCallback``: builds the model (a callable inside ``backend.device``) and compiles it."""
from __future__ import annotations

import warnings

import minitorch_cs as cstorch
from minitorch_cs.torch import nn

from ...config.errors import CheckpointMismatchError
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
        target = trainer.model
        # Checkpoints from before Model Zoo 2.0 hold the inner `model.model` keys unprefixed.
        if hasattr(trainer.model, "model") and not all(k.startswith("model.")
                                                       for k in model_sd.keys()):
            target = trainer.model.model
        if strict:
            problem = _mismatch(target.state_dict(), model_sd, type(trainer.model).__name__)
            if problem:
                path = getattr(trainer.checkpoint, "loading_checkpoint", None)
                raise CheckpointMismatchError(
                    f"checkpoint {path or '(given)'} holds the weights of another model "
                    f"({_writer(state_dict)}): {problem}; load a checkpoint of this model "
                    f"(ckpt_path / --checkpoint_path), or give this run its own model_dir")
        target.load_state_dict(model_sd, strict=strict)
        trainer.logger.info("Model state found in checkpoint and loaded successfully.")


def _first(keys, n=2) -> str:
    keys = sorted(keys)
    shown = ", ".join(repr(k) for k in keys[:n])
    return shown + (", ..." if len(keys) > n else "")


def _mismatch(expected_sd, got_sd, model_name):
    """One clause describing how the checkpoint's model keys differ from the model's, or ''."""
    expected, got = set(expected_sd.keys()), set(got_sd.keys())
    unexpected, missing = got - expected, expected - got
    if unexpected or missing:
        parts = []
        if unexpected:
            parts.append(f"{len(unexpected)} of its keys are not in {model_name} "
                         f"({_first(unexpected)})")
        if missing:
            parts.append(f"{len(missing)} keys of {model_name} are not in it "
                         f"({_first(missing)})")
        return " and ".join(parts)
    for key in expected_sd.keys():
        a, b = getattr(expected_sd[key], "shape", None), getattr(got_sd[key], "shape", None)
        if a is not None and b is not None and tuple(a) != tuple(b):
            return (f"the keys match but {key!r} is {tuple(b)} in the checkpoint and {tuple(a)} "
                    f"in {model_name}")
    return ""


def _writer(state_dict) -> str:
    meta = state_dict.get("__metadata__")
    if isinstance(meta, (list, tuple)) and meta and isinstance(meta[-1], dict):
        entry = meta[-1]
        params = entry.get("params") or {}
        name = None
        try:
            name = params["trainer"]["init"]["model"]["name"]
        except (KeyError, TypeError):
            pass
        cls = entry.get("model_name")
        what = " ".join(x for x in (f"model {name!r}" if name else "", f"({cls})" if cls else "")
                        if x)
        return f"written by the Trainer for {what or 'an unnamed model'}"
    return "no Model Zoo metadata: not written by the Trainer, e.g. by a custom training loop"
