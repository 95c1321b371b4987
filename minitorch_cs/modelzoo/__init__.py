"""``minitorch_cs.modelzoo``: the Model Zoo Trainer on minitorch_cs (mirrors ``cerebras.modelzoo``).

Porting rule: ``from cerebras.modelzoo import Trainer`` becomes
``from minitorch_cs.modelzoo import Trainer``. ``minitorch_cs`` itself never imports this package.
"""
from .trainer import Trainer

__all__ = ["Trainer"]
