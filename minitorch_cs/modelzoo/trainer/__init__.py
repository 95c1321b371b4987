"""``minitorch_cs.modelzoo.trainer`` (mirrors ``cerebras.modelzoo.trainer``)."""
from .trainer import Trainer

__all__ = ["Trainer"]
