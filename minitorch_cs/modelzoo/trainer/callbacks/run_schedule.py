"""``RunSchedule``: the stages of a run (train stages interleaved with validations) and the
checkpoint schedule of each train stage.

A ``fit`` of ``T`` steps with ``eval_frequency`` ``f`` is split into train stages of
``min(f, T)`` steps (int ``f``) or ``ceil(f * T)`` steps (float ``f``); the last stage takes the
remainder, and each stage is followed by one validation per validation dataloader. Checkpoints
are taken every ``checkpoint.steps`` global steps counted from the step ``fit`` started at, plus
the final step; each stage's executor gets the part of that schedule that falls inside it.
"""
from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import List, Optional

from minitorch_cs.utils.data import Schedule

from .callback import CoreCallback

__all__ = ["RunSchedule", "Stage", "StageType"]

_log = logging.getLogger("minitorch_cs.modelzoo")


class StageType(Enum):
    TRAIN_DATALOADER = auto()
    VAL_DATALOADER = auto()
    VAL_CALLBACK = auto()


@dataclass
class Stage:
    """One loop of the run (a train stage, or one validation)."""

    type: StageType
    start_step: int
    name: str = field(default="", compare=False)
    steps: Optional[int] = None
    every_n_vals: Optional[int] = None


class RunSchedule(CoreCallback):
    """Builds the stage list at ``on_fit_start`` (or ``on_enter_validate[_all]``) and hands the
    trainer the step count and checkpoint schedule of the current train stage."""

    def __init__(self):
        self.trainer = None
        self.reset_schedule()

    def reset_schedule(self):
        self.stages: Optional[List[Stage]] = None
        self.epochs: Optional[int] = None
        self.initial_global_step: Optional[int] = None
        self.global_step: Optional[int] = None
        self.stage_idx: Optional[int] = None
        self.loop_idx: Optional[int] = None
        self.val_loop = None
        self.batch_idx: Optional[int] = None
        self.checkpoint_schedule = None
        self.checkpoint_steps = None

    def setup(self, trainer):
        self.trainer = trainer

    # -- building the schedule ----------------------------------------------------------------------
    def on_enter_fit(self, trainer, stack, train_dataloader, val_dataloader, loop):
        stack.callback(self.reset_schedule)

    def on_fit_start(self, trainer, train_dataloader, val_dataloader, loop):
        if self.stages is not None:
            return
        self.stage_idx = 0
        self.initial_global_step = trainer.global_step
        self.stages = _build_train_schedule(self.initial_global_step, loop.total_steps,
                                            loop.eval_frequency, val_dataloader,
                                            trainer.validation_callbacks)
        self.epochs = self.epochs_remaining
        ckpt_steps = trainer.checkpoint.steps
        if ckpt_steps:
            ckpt_steps = min(ckpt_steps, loop.total_steps)
            self.checkpoint_schedule = Schedule.Range(
                start=self.initial_global_step + ckpt_steps - 1, step=ckpt_steps,
                end=self.initial_global_step + loop.total_steps, include_last=True)
        self._log_fit_summary()

    def on_enter_validate_all(self, trainer, stack, val_dataloaders, loop, ckpt_paths):
        if self.stages is not None:
            return
        stack.callback(self.reset_schedule)
        self.stage_idx = 0
        self.stages = _build_val_schedule(trainer.global_step, val_dataloaders,
                                          trainer.validation_callbacks, len(ckpt_paths))
        self.epochs = 1

    def on_enter_validate(self, trainer, stack, val_dataloader, loop):
        # The validation hooks may have another base name: answer those too.
        setattr(self, loop.on_start_hook, self.on_validate_start)
        setattr(self, loop.on_end_hook, self.on_validate_end)
        setattr(self, loop.on_batch_start_hook, self.on_validate_batch_start)
        if self.stages is not None:
            return
        stack.callback(self.reset_schedule)
        self.stage_idx = 0
        self.stages = _build_val_schedule(trainer.global_step, val_dataloader, None, 1)
        self.epochs = 1

    # -- following it -------------------------------------------------------------------------------
    def on_train_start(self, trainer, model, train_dataloader, loop, loop_idx):
        if loop_idx >= self.epochs:
            raise RuntimeError(f"Number of training runs {loop_idx + 1} exceeds the number of "
                               f"expected runs {self.epochs}.")
        self.loop_idx = loop_idx
        _log.info(f"Starting train loop {loop_idx + 1} of {self.epochs}, from global step "
                  f"{trainer.global_step + 1} to {trainer.global_step + self.train_steps} "
                  f"({_plural(self.train_steps, 'step')})")
        self.checkpoint_steps = None
        if self.checkpoint_schedule is None:
            return
        every = self.checkpoint_schedule.step
        elapsed = trainer.global_step - self.initial_global_step
        start = (every - elapsed % every) - 1
        end = self.train_steps
        is_final_loop = loop_idx == self.epochs - 1
        if start < end:
            self.checkpoint_steps = Schedule([Schedule.Range(
                start=start, step=every, end=end, include_last=is_final_loop)])
        elif is_final_loop:
            self.checkpoint_steps = end  # always a checkpoint on the final step

    def on_validate_start(self, trainer, model, val_dataloader, loop):
        self.val_loop = loop
        if self.loop_idx is None:
            self.loop_idx = 0

    def on_train_end(self, trainer, model, loop, loop_idx):
        self.stage_idx += 1

    def on_validate_end(self, trainer, model, loop):
        self.stage_idx += 1

    def on_train_batch_start(self, trainer, model, batch, batch_idx):
        self.global_step = trainer.global_step
        self.batch_idx = batch_idx

    def on_validate_batch_start(self, trainer, model, batch, batch_idx):
        self.global_step = trainer.global_step
        self.batch_idx = batch_idx
        if batch_idx > 0:
            return
        for stage in self.stages:
            if stage.name == self.current_stage.name:
                if stage.steps:
                    break
                stage.steps = self.val_loop.eval_steps

    def on_load_checkpoint(self, trainer, state_dict):
        # Only a restored schedule (autorestart) needs to find its place again.
        if self.stages is None or self.stage_idx is not None:
            return
        corrected = trainer.global_step - self.initial_global_step
        steps = 0
        for idx, stage in enumerate(self.stages):
            if stage.type != StageType.TRAIN_DATALOADER:
                continue
            if corrected < steps + stage.steps:
                self.stage_idx = idx
                stage.steps = steps + stage.steps - corrected
                break
            steps += stage.steps
        else:
            raise RuntimeError(f"Loaded global step {trainer.global_step} exceeds total number of "
                               f"training steps {steps}.")
        self.epochs = self.epochs_remaining

    # -- views ----------------------------------------------------------------------------------
    def _require(self):
        if self.stages is None or self.stage_idx is None:
            raise RuntimeError("The run schedule has not been built yet.")

    @property
    def epochs_remaining(self) -> int:
        """Train stages left in the run (the current one included)."""
        self._require()
        return sum(s.type == StageType.TRAIN_DATALOADER for s in self.stages[self.stage_idx:])

    @property
    def stages_remaining(self) -> List[Stage]:
        self._require()
        return self.stages[self.stage_idx + 1:]

    @property
    def current_stage(self) -> Stage:
        self._require()
        return self.stages[self.stage_idx]

    @property
    def train_steps(self) -> int:
        """Steps of the current train stage."""
        if self.current_stage.type != StageType.TRAIN_DATALOADER:
            raise RuntimeError("train_steps is only available during training.")
        return self.current_stage.steps

    @property
    def batches_remaining(self) -> int:
        self._require()
        return self.current_stage.steps - self.batch_idx - 1

    def _log_fit_summary(self):
        trains = [s.steps for s in self.stages if s.type == StageType.TRAIN_DATALOADER]
        vals = sorted({s.name for s in self.stages if s.type != StageType.TRAIN_DATALOADER})
        _log.info(f"Trainer will run {_plural(len(trains), 'train loop')} "
                  f"({', '.join(map(str, trains))} steps)"
                  + (f", each followed by {', '.join(vals)}" if vals else "")
                  + f", for a total of {_plural(sum(trains), 'train step')}.")
        if self.checkpoint_schedule is not None:
            _log.info(f"Checkpoints will be taken every "
                      f"{_plural(self.checkpoint_schedule.step, 'step')} and on the last step.")


def _build_train_schedule(start_step, total_steps, eval_frequency, val_dataloaders,
                          val_callbacks) -> List[Stage]:
    if not eval_frequency or (val_dataloaders is None and not val_callbacks):
        if val_dataloaders:
            _log.warning(f"A validation dataloader was provided but `eval_frequency` is "
                         f"{eval_frequency}. The trainer will not run validation during "
                         f"training.")
        return [Stage(StageType.TRAIN_DATALOADER, start_step, "train", total_steps)]
    error = (f"`eval_frequency` must be a positive integer or a float in the range (0.0, 1.0]. "
             f"Got {eval_frequency} with type {type(eval_frequency)}. To disable validation "
             f"during training, set `eval_frequency` to None")
    if isinstance(eval_frequency, float):
        if not 0.0 < eval_frequency <= 1.0:
            raise ValueError(error)
        train_steps = math.ceil(eval_frequency * total_steps)
    elif isinstance(eval_frequency, int) and not isinstance(eval_frequency, bool):
        if eval_frequency <= 0:
            raise ValueError(error)
        train_steps = min(eval_frequency, total_steps)
    else:
        raise TypeError(error)
    stages = []
    epochs = math.ceil(total_steps / train_steps)
    for epoch in range(epochs):
        last = epoch == epochs - 1
        steps = train_steps if not last else total_steps - epoch * train_steps
        stages.append(Stage(StageType.TRAIN_DATALOADER, start_step, "train", steps))
        start_step += steps
        _add_val_dataloaders(stages, val_dataloaders, start_step)
        _add_val_callbacks(stages, val_callbacks, epoch, last, start_step)
    return stages


def _build_val_schedule(start_step, val_dataloaders, val_callbacks, iterations) -> List[Stage]:
    stages = []
    for _ in range(iterations):
        _add_val_dataloaders(stages, val_dataloaders, start_step)
        _add_val_callbacks(stages, val_callbacks, 0, True, start_step)
    return stages


def _add_val_callbacks(stages, val_callbacks, epoch, is_last, start_step):
    stages.extend(
        Stage(StageType.VAL_CALLBACK, start_step, f"val_callback_{cb.name_scope}_{i}",
              every_n_vals=cb.every_n_vals)
        for cb in val_callbacks or []
        if is_last or (epoch + 1) % cb.every_n_vals == 0
        for i in range(cb.num_validate_loops))


def _add_val_dataloaders(stages, val_dataloaders, start_step):
    if val_dataloaders is None:
        return
    if not isinstance(val_dataloaders, (list, tuple)):
        val_dataloaders = [val_dataloaders]
    stages.extend(Stage(StageType.VAL_DATALOADER, start_step, f"val_dataloader_{d.id}")
                  for d in val_dataloaders)


def _plural(n, word):
    return f"{n} {word}{'s' if n != 1 else ''}"
