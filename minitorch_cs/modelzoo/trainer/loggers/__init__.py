"""Trainer loggers (mirrors ``cerebras.modelzoo.trainer.loggers``)."""
import importlib.util as _util

from .logger import Logger
from .metrics_file import MetricsFileLogger
from .progress import ProgressLogger

__all__ = ["Logger", "ProgressLogger", "MetricsFileLogger"]

try:  # the TensorBoard logger needs minitorch_cs.utils.tensorboard
    _HAS_TENSORBOARD = _util.find_spec("minitorch_cs.utils.tensorboard") is not None
except (ImportError, ValueError):
    _HAS_TENSORBOARD = False

if _HAS_TENSORBOARD:
    from .tensorboard import TensorBoardLogger  # noqa: F401
    __all__.append("TensorBoardLogger")
