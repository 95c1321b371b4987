"""``EarlyExit``: stop ``fit``/``validate`` once any registered function returns True."""
from __future__ import annotations

from collections import OrderedDict

from .callback import CoreCallback, RemovableHandle

__all__ = ["EarlyExit"]


class EarlyExit(CoreCallback):
    """A core callback: ``trainer.early_exit.register(fn, *args)`` adds a stop condition checked
    before every batch; the functions are cleared when the outermost ``fit``/``validate``/
    ``validate_all`` returns."""

    def __init__(self):
        self._early_exit_fns = OrderedDict()
        self._should_exit = False
        self._cleanup_registered = False

    def reset_exit_fns(self):
        self._should_exit = False
        self._early_exit_fns.clear()
        self._cleanup_registered = False

    def register(self, fn, *args, **kwargs) -> RemovableHandle:
        if not callable(fn):
            raise TypeError(f"Early exit function must be callable, got {type(fn)}")
        handle = RemovableHandle(self._early_exit_fns)
        self._early_exit_fns[handle.id] = (fn, args, kwargs)
        return handle

    @property
    def should_exit(self) -> bool:
        if not self._should_exit:
            self._should_exit = any(fn(*a, **k) for fn, a, k in self._early_exit_fns.values())
        return self._should_exit

    def _register_cleanup(self, stack):
        if not self._cleanup_registered:
            stack.callback(self.reset_exit_fns)
            self._cleanup_registered = True

    def on_enter_fit(self, trainer, stack, train_dataloader, val_dataloader, loop):
        self._register_cleanup(stack)

    def on_enter_validate(self, trainer, stack, val_dataloader, loop):
        self._register_cleanup(stack)

    def on_enter_validate_all(self, trainer, stack, val_dataloaders, loop, ckpt_paths):
        self._register_cleanup(stack)
