"""``SchedulersCallback``: builds the schedulers and checks they do not fight over a group."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from itertools import combinations

import minitorch_cs as cstorch

from .callback import CoreCallback

__all__ = ["SchedulersCallback"]


class SchedulersCallback(CoreCallback):
    """``schedulers``: a Scheduler, a callable ``(optimizer) -> Scheduler``, a list of these, or
    None. Callables are called on the trainer's optimizer, in order."""

    def __init__(self, schedulers=None):
        if schedulers is None:
            self.schedulers = []
        elif isinstance(schedulers, Iterable) and not isinstance(
                schedulers, cstorch.optim.scheduler.Scheduler):
            self.schedulers = list(schedulers)
        else:
            self.schedulers = [schedulers]

    def setup(self, trainer):
        trainer.schedulers = []
        if trainer.optimizer is None:
            return
        for scheduler in self.schedulers:
            if not isinstance(scheduler, cstorch.optim.scheduler.Scheduler):
                if not callable(scheduler):
                    raise TypeError(f"Expected a scheduler to be a cstorch Scheduler or a "
                                    f"callable that takes the optimizer, got {type(scheduler)}")
                scheduler = scheduler(trainer.optimizer)
            trainer.schedulers.append(scheduler)
        for s1, s2 in combinations(trainer.schedulers, 2):
            if s1.param_group_key != s2.param_group_key:
                continue
            if s1.param_group_tags is None or s2.param_group_tags is None:
                raise RuntimeError(
                    f"Schedulers with the same `param_group_key` cannot share `param_group_tags`. "
                    f"But got at least one scheduler for param group key {s1.param_group_key} "
                    f"that targets all param group tags.")
            shared = s1.param_group_tags & s2.param_group_tags
            if shared:
                raise RuntimeError(
                    f"Schedulers with the same `param_group_key` cannot share `param_group_tags`. "
                    f"But got two schedulers targeting param group key {s1.param_group_key} "
                    f"which share the following param group tags: {shared}.")
        for group in trainer.optimizer.param_groups:
            matches = defaultdict(int)
            for s in trainer.schedulers:
                tags = group.get("tags")
                if tags and (s.param_group_tags is None or s.param_group_tags & set(tags)):
                    matches[s.param_group_key] += 1
            for key, count in matches.items():
                if count > 1:
                    raise RuntimeError(
                        f"Multiple schedulers are targeting the same param group with key {key}. "
                        f"Schedulers that update the same param group must have a different "
                        f"`param_group_key`, otherwise the behavior is unexpected.")

    def on_save_checkpoint(self, trainer, state_dict):
        if trainer.schedulers:
            state_dict["schedulers"] = [s.state_dict() for s in trainer.schedulers]

    def on_load_checkpoint(self, trainer, state_dict):
        if not trainer.schedulers:
            return
        if "schedulers" in state_dict:
            if "lr_scheduler" in state_dict:
                raise RuntimeError("Only one of `schedulers` and `lr_scheduler` should be in "
                                   "`state_dict`. Multiple schedulers are now supported so new "
                                   "checkpoints should only contain the `schedulers` key.")
            for sd, scheduler in zip(state_dict["schedulers"], trainer.schedulers):
                scheduler.load_state_dict(sd)
            trainer.logger.info("Scheduler state found in checkpoint and loaded successfully.")
        elif "lr_scheduler" in state_dict:
            lr = [s for s in trainer.schedulers
                  if isinstance(s, cstorch.optim.lr_scheduler.LRScheduler)]
            if len(lr) > 1:
                raise RuntimeError("Multiple LR schedulers found in the trainer but only one "
                                   "found in the checkpoint. The checkpoint has the "
                                   "`lr_scheduler` key which means it is from when only a "
                                   "single scheduler was supported.")
            for s in lr:
                s.load_state_dict(state_dict["lr_scheduler"])
                trainer.logger.info("Scheduler state found in checkpoint and loaded "
                                    "successfully.")
        else:
            trainer.logger.info("Scheduler state not found in the checkpoint. Using default "
                                "initialized state.")
