"""``minitorch_cs.modelzoo.trainer`` (mirrors ``cerebras.modelzoo.trainer``): the Trainer, its
callbacks and loggers, and ``utils.run_trainer``."""
from . import callbacks, loggers, utils  # noqa: F401
from .trainer import Trainer

__all__ = ["Trainer", "callbacks", "loggers", "utils"]
