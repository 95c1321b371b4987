"""What ``import cerebras.pytorch`` binds to ``cerebras`` after porting: a namespace whose
``pytorch`` is :mod:`minitorch_cs`, ``modelzoo`` is :mod:`minitorch_cs.modelzoo` and ``appliance``
is :mod:`minitorch_cs.appliance`, so ``cerebras.pytorch.utils.tensorboard.SummaryWriter`` keeps
working in a ported script (``from cerebras import pytorch`` becomes
``from minitorch_cs.tools.cerebras import pytorch``)."""
from __future__ import annotations

import importlib

__all__ = ["pytorch", "modelzoo", "appliance"]


def __getattr__(name):
    if name == "pytorch":
        return importlib.import_module("minitorch_cs")
    if name == "modelzoo":
        return importlib.import_module("minitorch_cs.modelzoo")
    if name == "appliance":
        return importlib.import_module("minitorch_cs.appliance")
    raise AttributeError(f"minitorch_cs mirrors cerebras.pytorch, cerebras.modelzoo and the "
                         f"logger and errors of cerebras.appliance only; 'cerebras.{name}' has no "
                         "counterpart")
