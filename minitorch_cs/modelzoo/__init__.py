"""``minitorch_cs.modelzoo``: the Model Zoo Trainer on minitorch_cs (mirrors ``cerebras.modelzoo``).

Porting rule: ``from cerebras.modelzoo import Trainer`` becomes
``from minitorch_cs.modelzoo import Trainer``. ``minitorch_cs`` itself never imports this package,
and, as in Model Zoo, ``Trainer`` is imported on first access only.
"""


def __getattr__(name):
    if name == "Trainer":
        from .trainer import Trainer
        return Trainer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
