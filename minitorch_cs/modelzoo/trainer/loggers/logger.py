"""``Logger``: a callback that also receives ``trainer.log_metrics(...)`` calls."""
from __future__ import annotations

from abc import ABC, abstractmethod

from ..callbacks import Callback

__all__ = ["Logger"]


class Logger(Callback, ABC):
    """Subclasses implement ``log_metrics(metrics, step)``; ``name`` selects a destination."""

    @property
    def name(self) -> str:
        return type(self).__name__

    def flush(self):
        """Write out anything buffered."""

    @abstractmethod
    def log_metrics(self, metrics: dict, step: int):
        """Log ``metrics`` (name -> value) at global step ``step``."""
