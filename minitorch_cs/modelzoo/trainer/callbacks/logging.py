"""``Logging``: the trainer's Python logger (console + ``run.log``) and the logging cadence."""
from __future__ import annotations

import contextlib
import logging
import os
import sys
from math import gcd
from typing import Optional, Union

from .callback import CoreCallback

__all__ = ["Logging", "TRAINER_LOGGER_NAME"]

TRAINER_LOGGER_NAME = "minitorch_cs.modelzoo"
_FORMAT = "%(asctime)s %(levelname)s:   %(message)s"


def _level(name):
    if isinstance(name, int):
        return name
    value = logging.getLevelName(str(name).upper())
    if not isinstance(value, int):
        raise ValueError(f"Invalid log level: {name!r}. Expected one of DEBUG, INFO, WARNING, "
                         f"ERROR, CRITICAL or an integer.")
    return value


def _symlink(link, target):
    try:
        if os.path.islink(link) or os.path.exists(link):
            os.unlink(link)
        os.symlink(target, link)
    except OSError:
        pass


class Logging(CoreCallback):
    """Sets up logging and decides which steps are log steps.

    Args:
        log_steps: log every ``log_steps`` steps (and on the final step); 0 or None: final only.
        log_level: level of the trainer's logger.
        wsc_log_level: per-server log levels of the cluster (accepted; no cluster here).
        enable_act_frequency: fetch activations only on log steps (sets the executor's
            ``activation_steps``).
    """

    def __init__(self, log_steps: Optional[int], log_level: Union[str, int] = "INFO",
                 wsc_log_level: Optional[dict] = None, enable_act_frequency: bool = False):
        super().__init__()
        self.log_steps = log_steps
        self.log_level = log_level
        self.wsc_log_level = wsc_log_level or {}
        if not isinstance(self.wsc_log_level, dict):
            raise ValueError("Invalid log levels. Input must be a dict.")
        self.enable_act_frequency = enable_act_frequency
        self.initial_global_step = 0
        self.total_steps = 0
        self.is_training = True
        self.logger = logging.getLogger(TRAINER_LOGGER_NAME)

    def pre_setup(self, trainer):
        self.setup_logging(trainer)

    def setup_logging(self, trainer):
        # Differs from Model Zoo: only the trainer's named logger is configured (the real
        # callback clears and reconfigures the root logger of the process).
        logger = self.logger
        logger.setLevel(_level(self.log_level))
        logger.propagate = False
        for handler in list(logger.handlers):
            if getattr(handler, "_minitorch_cs_trainer", False):
                logger.removeHandler(handler)
                handler.close()
        console = logging.StreamHandler(sys.stdout)
        console.setFormatter(logging.Formatter(_FORMAT))
        log_file = trainer.artifact_dir / "run.log"
        file = logging.FileHandler(log_file)
        file.setFormatter(logging.Formatter(_FORMAT))
        for handler in (console, file):
            handler._minitorch_cs_trainer = True
            logger.addHandler(handler)
        _symlink(trainer.summary_dir / "run.log", os.path.relpath(log_file, trainer.summary_dir))
        _symlink(trainer.model_dir / "latest_run.log",
                 os.path.relpath(log_file, trainer.model_dir))
        logger.debug(f"Current Working Directory: {os.getcwd()}")
        logger.debug(f"Running command: {' '.join(sys.argv)}")

    def finalize(self):
        for handler in list(self.logger.handlers):
            if getattr(handler, "_minitorch_cs_trainer", False) and \
                    isinstance(handler, logging.FileHandler):
                handler.flush()

    @contextlib.contextmanager
    def flush_logs(self, trainer):
        try:
            yield
        finally:
            for logger in trainer.loggers:
                logger.flush()

    def on_enter_fit(self, trainer, stack, train_dataloader, val_dataloader, loop):
        stack.enter_context(self.flush_logs(trainer))

    def on_fit_start(self, trainer, train_dataloader, val_dataloader, loop):
        self.initial_global_step = trainer.global_step
        self.total_steps = loop.total_steps

    def on_enter_train(self, trainer, stack, train_dataloader, loop, loop_idx):
        self.is_training = True
        stack.enter_context(self.flush_logs(trainer))

    def on_train_start(self, trainer, model, train_dataloader, loop, loop_idx):
        if self.log_steps and self.enable_act_frequency:
            freq = loop.eval_frequency
            if freq and isinstance(freq, int) and freq % self.log_steps != 0 and \
                    self.log_steps % freq != 0:
                raise ValueError(f"When activation frequency is enabled, log steps "
                                 f"({self.log_steps}) must be a multiple or factor of eval "
                                 f"frequency ({freq}).")
            steps = trainer.activation_steps
            steps = gcd(steps, self.log_steps) if steps is not None else self.log_steps
            trainer.activation_steps = min(steps, trainer.schedule.train_steps)
        else:
            trainer.activation_steps = None

    def on_train_end(self, trainer, model, loop, loop_idx):
        if self.log_steps:
            trainer.activation_steps = None

    def on_enter_validate(self, trainer, stack, val_dataloader, loop):
        self.is_training = False
        stack.enter_context(self.flush_logs(trainer))

    def is_log_step(self, trainer) -> bool:
        """Training: every ``log_steps`` steps since ``fit`` started and the final step.
        Validation: every ``log_steps`` batches and the final batch."""
        if self.is_training:
            done = trainer.global_step - self.initial_global_step
            return done >= self.total_steps or bool(self.log_steps and
                                                    done % self.log_steps == 0)
        return bool(trainer.is_final_iteration or (
            self.log_steps and trainer.executor and
            trainer.executor.user_iteration % self.log_steps == 0))
