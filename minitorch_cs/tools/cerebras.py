"""What ``import cerebras.pytorch`` binds to ``cerebras`` after porting: a namespace whose
``pytorch`` is :mod:`minitorch_cs` and whose ``modelzoo`` is :mod:`minitorch_cs.modelzoo`, so
``cerebras.pytorch.utils.tensorboard.SummaryWriter`` keeps working in a ported script."""
from __future__ import annotations

import importlib

__all__ = ["pytorch", "modelzoo"]


def __getattr__(name):
    if name == "pytorch":
        return importlib.import_module("minitorch_cs")
    if name == "modelzoo":
        return importlib.import_module("minitorch_cs.modelzoo")
    raise AttributeError(f"minitorch_cs mirrors cerebras.pytorch and cerebras.modelzoo only; "
                         f"'cerebras.{name}' has no counterpart")
