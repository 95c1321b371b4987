"""Loop callbacks: how many steps to train and validate, and the owner of ``global_step``.

``TrainingLoop`` sizes a ``fit`` (``compute_num_steps`` from the loaded ``global_step``) and
says how often to validate; ``ValidationLoop`` sizes one validation run and names its hooks.
"""
from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from contextlib import contextmanager
from typing import Optional, Union

import minitorch_cs as cstorch

from ...config.errors import TrainingCompleteError
from .callback import CoreCallback

__all__ = ["LoopCallback", "TrainingLoop", "ValidationLoop", "training_complete_message"]

_MAX_SUPPORTED_STEPS = (1 << 31) - 1  # the wafer's step counters are signed 32-bit integers


def training_complete_message(model_dir, global_step, max_steps, checkpoint=None) -> str:
    """One line for a ``fit`` that has nothing left to train: the job in ``model_dir`` is at
    ``global_step`` and its loop stops at ``max_steps``."""
    ckpt = f"last checkpoint {checkpoint}" if checkpoint else "no checkpoint loaded"
    fix = (f"to train further, raise max_steps (trainer.init.loop.max_steps) above {global_step}, "
           f"or use a new model_dir")
    if global_step == max_steps:
        return (f"the job in {model_dir} is already complete at step {global_step} "
                f"(max_steps={max_steps}, {ckpt}); {fix}")
    return (f"the job in {model_dir} is at global step {global_step} ({ckpt}), which exceeds "
            f"max_steps={max_steps}; {fix}")


def _validate_num_steps(value, name):
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"`{name}` must be an integer in the loop config, got {value!r}")
    if value <= 0:
        raise ValueError(f"`{name}` must be greater than 0 in the loop config, got {value}")
    if cstorch.use_cs() and value > _MAX_SUPPORTED_STEPS:
        raise ValueError(f"`{name}` must be at most {_MAX_SUPPORTED_STEPS} for CSX runs, got "
                         f"{value}")


class LoopCallback(CoreCallback, ABC):
    """Base of the loop callbacks; owns ``trainer.global_step`` (optimizer steps taken)."""

    @abstractmethod
    def __init__(self):
        pass

    def setup(self, trainer):
        trainer.global_step = 0

    def on_train_batch_end(self, trainer, model, outputs, batch, batch_idx):
        if trainer.should_run_optimizer_step:
            trainer.global_step += 1

    def on_save_checkpoint(self, trainer, state_dict):
        state_dict["global_step"] = trainer.global_step

    def on_load_checkpoint(self, trainer, state_dict):
        if "global_step" in state_dict:
            trainer.global_step = int(state_dict["global_step"])


class TrainingLoop(LoopCallback):
    """The training budget and the validation cadence of ``fit``.

    Args:
        num_steps: steps to train in this ``fit`` (takes precedence over ``max_steps``).
        max_steps: train until ``global_step`` reaches this (counts the loaded global step).
        num_epochs: epochs of the train loader (exclusive with ``num_steps``).
        steps_per_epoch: steps in one epoch (default: the loader's length).
        eval_frequency: an int validates every N train steps; a float in (0, 1] validates after
            each such fraction of the run; None or 0 never validates during ``fit``.
        eval_steps: steps of each validation (default: one epoch of the validation loader).
        grad_accum_steps: batches per optimizer step (CPU/GPU only; CSX ignores it).
    """

    def __init__(self, num_steps: Optional[int] = None, max_steps: Optional[int] = None,
                 num_epochs: Optional[int] = None, steps_per_epoch: Optional[int] = None,
                 eval_frequency: Union[int, float, None] = 1.0,
                 eval_steps: Optional[int] = None, grad_accum_steps: int = 1):
        super().__init__()
        _validate_num_steps(num_steps, "num_steps")
        _validate_num_steps(max_steps, "max_steps")
        _validate_num_steps(steps_per_epoch, "steps_per_epoch")
        self.num_steps = num_steps
        self.max_steps = max_steps
        self.num_epochs = num_epochs
        self.steps_per_epoch = steps_per_epoch
        self.eval_frequency = eval_frequency
        self.grad_accum_steps = grad_accum_steps
        self.total_steps = None
        self.schedule = None
        self.val_loop = ValidationLoop(eval_steps)

    def on_enter_fit(self, trainer, stack, train_dataloader, val_dataloader, loop):
        if loop is self:
            stack.enter_context(trainer.on_exception("fit"))
        self.schedule = trainer.schedule

    def on_fit_start(self, trainer, train_dataloader, val_dataloader, loop):
        if loop is not self:
            return
        if not isinstance(train_dataloader, cstorch.utils.data.DataLoader):
            raise TypeError(f"train_dataloader must be an instance of "
                            f"cstorch.utils.data.DataLoader. Got {type(train_dataloader)}")
        if not trainer.backend.is_e2e_execution:
            self.total_steps = 1
            return
        if self.num_steps is None and self.max_steps is not None and \
                trainer.global_step >= self.max_steps:
            # compute_num_steps would raise "Initial global step ... already exceeds max step";
            # the same RuntimeError type, with the job's state and the fix.
            raise TrainingCompleteError(training_complete_message(
                trainer.model_dir, trainer.global_step, self.max_steps,
                getattr(trainer.checkpoint, "loading_checkpoint", None)))
        self.total_steps = cstorch.utils.data.compute_num_steps(
            train_dataloader, initial_step=trainer.global_step, num_steps=self.num_steps,
            max_steps=self.max_steps, num_epochs=self.num_epochs,
            steps_per_epoch=self.steps_per_epoch, grad_accum_steps=self.grad_accum_steps)

    def on_enter_train(self, trainer, stack, train_dataloader, loop, loop_idx):
        if loop is self:
            stack.enter_context(trainer.on_exception("train"))

    @property
    def train_only(self) -> bool:
        """True if ``fit`` runs no validation."""
        return not bool(self.eval_frequency)

    @property
    def train_steps(self):
        warnings.warn("TrainingLoop.train_steps is deprecated; use trainer.schedule.train_steps",
                      FutureWarning)
        return self.schedule.train_steps


class ValidationLoop(LoopCallback):
    """One validation run: ``eval_steps`` steps (default: one epoch), hooks named after ``hook``.

    With ``hook="validate"`` the trainer calls ``on_validate_start``, ``on_validate_batch_start``
    and so on; another base name calls ``on_<hook>_start`` ... (non-standard hooks, allowed
    only while that validation runs).
    """

    def __init__(self, eval_steps: Optional[int] = None, hook: str = "validate"):
        super().__init__()
        _validate_num_steps(eval_steps, "eval_steps")
        self._eval_steps = None
        self._max_eval_steps = eval_steps
        self.on_start_hook = f"on_{hook}_start"
        self.on_end_hook = f"on_{hook}_end"
        self.on_step_start_hook = f"on_{hook}_step_start"
        self.on_step_end_hook = f"on_{hook}_step_end"
        self.on_batch_start_hook = f"on_{hook}_batch_start"
        self.on_batch_end_hook = f"on_{hook}_batch_end"

    def on_enter_validate(self, trainer, stack, val_dataloader, loop):
        if loop is not self:
            return
        stack.enter_context(trainer.on_exception("validate"))
        hooks = {self.on_start_hook, self.on_end_hook, self.on_step_start_hook,
                 self.on_step_end_hook, self.on_batch_start_hook, self.on_batch_end_hook}
        new = hooks - trainer.non_standard_hooks_whitelist

        @contextmanager
        def whitelist():
            trainer.non_standard_hooks_whitelist |= new
            try:
                yield
            finally:
                trainer.non_standard_hooks_whitelist -= new

        stack.enter_context(whitelist())

    @property
    def eval_steps(self) -> int:
        if self._eval_steps is None:
            raise RuntimeError(f"Detected that {type(self).__name__}.on_validate_start was not "
                               f"called.")
        return self._eval_steps

    def on_validate_start(self, trainer, model, val_dataloader, loop):
        if loop is not self:
            return
        if not trainer.backend.is_e2e_execution:
            self._eval_steps = 1
        else:
            self._eval_steps = cstorch.utils.data.compute_num_steps(
                val_dataloader, num_steps=self._max_eval_steps,
                num_epochs=1 if self._max_eval_steps is None else None)
