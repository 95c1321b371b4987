"""Callbacks that set ``cstorch.backends`` flags by dotted path (``"csx.debug.drop_data"``):
for the whole process (``GlobalFlags``) or only while training / validating (``Scoped*``)."""
from __future__ import annotations

from copy import deepcopy

import minitorch_cs as cstorch

from .callback import Callback

__all__ = ["GlobalFlags", "ScopedTrainFlags", "ScopedValidateFlags"]


def _resolve(flag):
    owner = cstorch.backends
    scope, _, attr = flag.rpartition(".")
    for part in scope.split(".") if scope else []:
        owner = getattr(owner, part)
    return owner, attr


def get_flag(flag):
    owner, attr = _resolve(flag)
    return getattr(owner, attr)


def set_flag(flag, value):
    owner, attr = _resolve(flag)
    setattr(owner, attr, value)


class GlobalFlags(Callback):
    """Set flags before setup; they stay set (a side effect on every later run)."""

    def __init__(self, **flags):
        self.flags = deepcopy(flags)

    def pre_setup(self, trainer):
        for k, v in self.flags.items():
            set_flag(k, v)


class _ScopedFlags(Callback):
    def __init__(self, **flags):
        self.flags = deepcopy(flags)
        self.original_flags = {}

    def _set_all_flags(self):
        if self.original_flags:
            return
        for k, v in self.flags.items():
            self.original_flags[k] = get_flag(k)
            set_flag(k, v)

    def _restore_all_flags(self):
        for k, v in self.original_flags.items():
            set_flag(k, v)
        self.original_flags.clear()


class ScopedTrainFlags(_ScopedFlags):
    """Set flags for each train stage, restoring the previous values after it."""

    def on_train_start(self, trainer, model, train_dataloader, loop, loop_idx):
        self._set_all_flags()

    def on_train_end(self, trainer, model, loop, loop_idx):
        self._restore_all_flags()


class ScopedValidateFlags(_ScopedFlags):
    """Set flags for each validation, restoring the previous values after it."""

    def on_validate_start(self, trainer, model, val_dataloader, loop):
        self._set_all_flags()

    def on_validate_end(self, trainer, model, loop):
        self._restore_all_flags()
