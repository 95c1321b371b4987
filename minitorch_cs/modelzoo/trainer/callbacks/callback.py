"""``Callback``: every hook the Trainer calls, as no-ops (mirrors Model Zoo's ``callback.py``).

A callback overrides the hooks it needs. Hooks receive the trainer first. The Trainer calls each
hook on its callbacks in order (core callbacks, then user callbacks and loggers, then the run
schedule and the checkpoint callback), then on the globally registered callbacks: ``with cb:``
registers ``cb`` for every trainer while the block runs.

Hooks that run inside ``training_step``/``validation_step`` (``on_*_step_*``, ``on_before_*``,
``on_after_*``) are traced: on the emulated CSX backend their Python runs once per executor run,
so a callback that needs values every step must read them in a ``cstorch.step_closure``.
"""
from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections import OrderedDict

__all__ = ["Callback", "CoreCallback", "ValidationCallback", "GLOBAL_CALLBACK_REGISTRY",
           "register_global_callback", "RemovableHandle"]


class Callback:
    """Base class of all callbacks: each method is one hook, a no-op here."""

    # -- construction -----------------------------------------------------------------------------
    def pre_setup(self, trainer):
        """Before anything is set up (the seed, backend and artifact dir come first)."""

    def setup(self, trainer):
        """Set up (the core callbacks build the model, optimizer and schedulers here)."""

    def post_setup(self, trainer):
        """After every callback's ``setup``."""

    def finalize(self):
        """When the trainer is garbage collected."""

    # -- fit ----------------------------------------------------------------------------------------
    def on_enter_fit(self, trainer, stack, train_dataloader, val_dataloader, loop):
        """Entering ``fit``; ``stack`` is an ExitStack closed when ``fit`` returns."""

    def on_fit_start(self, trainer, train_dataloader, val_dataloader, loop):
        """After the checkpoint was loaded, before the first train stage."""

    def on_fit_end(self, trainer, loop):
        """After the last stage of ``fit``."""

    def on_fit_exception(self, trainer, exception):
        """``fit`` raised ``exception`` (re-raised afterwards)."""

    # -- train ------------------------------------------------------------------------------------
    def on_enter_train(self, trainer, stack, train_dataloader, loop, loop_idx):
        """Entering train stage ``loop_idx``."""

    def on_train_start(self, trainer, model, train_dataloader, loop, loop_idx):
        """Before the stage's DataExecutor is built."""

    def on_train_end(self, trainer, model, loop, loop_idx):
        """After the stage's last batch."""

    def on_train_exception(self, trainer, exception):
        """A train stage raised ``exception``."""

    def on_train_step_start(self, trainer, model, batch):
        """First thing in the traced ``training_step``."""

    def on_train_step_end(self, trainer, model, outputs, batch):
        """Last thing in the traced ``training_step``."""

    def on_train_batch_start(self, trainer, model, batch, batch_idx):
        """Before ``training_step`` (outside the trace: runs every batch)."""

    def on_train_batch_end(self, trainer, model, outputs, batch, batch_idx):
        """After ``training_step`` (outside the trace: runs every batch)."""

    # -- validate -----------------------------------------------------------------------------------
    def run_validation(self, trainer, loop_idx, is_last):
        """Downstream validation after the upstream validation of a stage."""

    def on_enter_validate(self, trainer, stack, val_dataloader, loop):
        """Entering ``validate``."""

    def on_validate_start(self, trainer, model, val_dataloader, loop):
        """Before the validation executor is built."""

    def on_validate_end(self, trainer, model, loop):
        """After the last validation batch."""

    def on_validate_exception(self, trainer, exception):
        """``validate`` raised ``exception``."""

    def on_validate_step_start(self, trainer, model, batch):
        """First thing in the traced ``validation_step``."""

    def on_validate_step_end(self, trainer, model, outputs, batch):
        """Last thing in the traced ``validation_step``."""

    def on_validate_batch_start(self, trainer, model, batch, batch_idx):
        """Before ``validation_step``."""

    def on_validate_batch_end(self, trainer, model, outputs, batch, batch_idx):
        """After ``validation_step``."""

    def on_enter_validate_all(self, trainer, stack, val_dataloaders, loop, ckpt_paths):
        """Entering ``validate_all`` (also used by ``fit`` between stages)."""

    # -- inside the traced step -------------------------------------------------------------------
    def on_before_forward(self, trainer, model, batch, args, kwargs):
        """Before ``compiled_model(*args, **kwargs)``; may edit ``args``/``kwargs`` in place."""

    def on_after_forward(self, trainer, model, outputs, batch):
        """After the forward pass; ``outputs`` is the normalized dict."""

    def on_before_backward(self, trainer, model, outputs):
        """Before ``loss.backward()``."""

    def on_after_backward(self, trainer, model, outputs):
        """After ``loss.backward()``."""

    def on_before_optimizer_step(self, trainer, model, optimizer):
        """Before ``optimizer.step()`` (gradients exist)."""

    def on_after_optimizer_step(self, trainer, model, optimizer):
        """After ``optimizer.step()``."""

    def on_before_optimizer_zero_grad(self, trainer, model, optimizer):
        """Before ``optimizer.zero_grad()``."""

    def on_after_optimizer_zero_grad(self, trainer, model, optimizer):
        """After ``optimizer.zero_grad()``."""

    def on_before_scheduler_step(self, trainer, model, optimizer, scheduler):
        """Before each ``scheduler.step()``."""

    def on_after_scheduler_step(self, trainer, model, optimizer, scheduler):
        """After each ``scheduler.step()``."""

    # -- checkpoints --------------------------------------------------------------------------------
    def on_save_checkpoint(self, trainer, state_dict):
        """Add this callback's state to the checkpoint ``state_dict``."""

    def on_save_trainer_state(self, trainer, state_dict):
        """Add this callback's state to the trainer state (autorestart)."""

    def on_after_save_trainer_state(self, trainer, trainer_state_file):
        """After the trainer state was written."""

    def postprocess_checkpoint(self, trainer, state_dict):
        """Edit the assembled checkpoint before it is saved."""

    def on_after_save_checkpoint(self, trainer, ckpt_path):
        """After the checkpoint file was written."""

    def on_before_load_checkpoint(self, trainer, ckpt_path):
        """Before loading ``ckpt_path`` (None: no checkpoint will be loaded)."""

    def preprocess_checkpoint(self, trainer, state_dict):
        """Edit a loaded checkpoint before ``on_load_checkpoint``."""

    def on_load_checkpoint(self, trainer, state_dict):
        """Restore this callback's state from a loaded checkpoint."""

    def on_load_trainer_state(self, trainer, state_dict):
        """Restore this callback's state from the trainer state."""

    # -- global registration ------------------------------------------------------------------------
    def __enter__(self):
        if getattr(self, "_global_handle", None) is None:
            self._global_handle = register_global_callback(self)
        return self

    def __exit__(self, *exc):
        handle = getattr(self, "_global_handle", None)
        if handle is not None:
            handle.remove()
            self._global_handle = None
        return False


class CoreCallback(Callback):
    """Marks the Trainer's built-in callbacks; users cannot pass these as ``callbacks``."""


class ValidationCallback(Callback, ABC):
    """Base of downstream evaluators run after upstream validation (``run_validation``)."""

    @property
    @abstractmethod
    def name_scope(self) -> str:
        """The metric name scope of this validation."""

    @property
    def every_n_vals(self) -> int:
        """Run on every N-th validation of ``fit`` (and always after the last stage)."""
        return 1

    @property
    def num_validate_loops(self) -> int:
        """How many validation loops one ``run_validation`` performs."""
        return 1

    @abstractmethod
    def run_validation(self, trainer, loop_idx, is_last):
        """Run the downstream validation."""


GLOBAL_CALLBACK_REGISTRY: "OrderedDict[int, Callback]" = OrderedDict()
_handle_ids = itertools.count()


class RemovableHandle:
    """Removes its entry from a registry on ``remove()``."""

    def __init__(self, registry):
        self.registry = registry
        self.id = next(_handle_ids)

    def remove(self):
        self.registry.pop(self.id, None)


def register_global_callback(callback):
    """Register ``callback`` (an instance, or a class to instantiate) for every trainer."""
    if isinstance(callback, type):
        callback = callback()
    if not isinstance(callback, Callback):
        raise TypeError(f"Expected a Callback, got {type(callback)}")
    handle = RemovableHandle(GLOBAL_CALLBACK_REGISTRY)
    GLOBAL_CALLBACK_REGISTRY[handle.id] = callback
    return handle
