"""``TensorBoardLogger``: metrics as TensorBoard events through
``minitorch_cs.utils.tensorboard.SummaryWriter`` (the port of ``cstorch.utils.tensorboard``)."""
from __future__ import annotations

import warnings
from pathlib import Path

from .logger import Logger

__all__ = ["TensorBoardLogger"]


class TensorBoardLogger(Logger):
    """Args:
        summary_dir: where event files go (default: ``model_dir/events``).
        legacy_event_dirs: write ``model_dir/train`` and ``model_dir/eval`` event dirs instead
            (deprecated, as in Model Zoo).
    """

    def __init__(self, summary_dir=None, legacy_event_dirs: bool = False):
        self.summary_dir = Path(summary_dir) if summary_dir is not None else None
        if self.summary_dir is not None:
            self.summary_dir.mkdir(parents=True, exist_ok=True)
        self.legacy_event_dirs = legacy_event_dirs
        if legacy_event_dirs:
            warnings.warn("Passing legacy_event_dirs=True is deprecated")
        self.writers = {}
        self.writer = None

    def setup_writer(self, trainer, mode=None):
        from minitorch_cs.utils.tensorboard import SummaryWriter
        if self.legacy_event_dirs:
            if mode not in self.writers:
                self.writers[mode] = SummaryWriter(log_dir=str(trainer.model_dir / mode))
            self.writer = self.writers[mode]
            return
        if self.writer is None:
            if self.summary_dir is None:
                self.summary_dir = trainer.model_dir / "events"
            self.writer = SummaryWriter(log_dir=str(self.summary_dir.resolve()))

    def setup(self, trainer):
        if not self.legacy_event_dirs:
            self.setup_writer(trainer)

    def on_enter_train(self, trainer, stack, train_dataloader, loop, loop_idx):
        if self.legacy_event_dirs:
            self.setup_writer(trainer, "train")

    def on_enter_validate(self, trainer, stack, val_dataloader, loop):
        if self.legacy_event_dirs:
            self.setup_writer(trainer, "eval")

    def flush(self):
        for w in ([*self.writers.values()] if self.legacy_event_dirs else [self.writer]):
            if w is not None:
                w.flush()

    def log_metrics(self, metrics, step):
        from minitorch_cs import torch
        if self.writer is None:
            return
        for name, value in metrics.items():
            if isinstance(value, torch.Tensor):
                if value.numel() == 1 and value.ndim == 0:
                    self.writer.add_scalar(name, value.item(), step)
                elif hasattr(self.writer, "add_tensor"):
                    self.writer.add_tensor(name, value, step)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                self.writer.add_scalar(name, float(value), step)
            elif isinstance(value, str):
                if hasattr(self.writer, "add_text"):
                    self.writer.add_text(name, value, step)
            else:
                warnings.warn(f"Attempting to log a {type(value)} for {name}. TensorBoard Logger "
                              f"does not support logging {type(value)}")
