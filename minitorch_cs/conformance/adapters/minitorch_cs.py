"""The adapter for minitorch_cs itself (the implementation the goldens come from).

``--impl minitorch_cs`` or ``--impl minitorch_cs.conformance.adapters.minitorch_cs``.
Every scenario gets a fresh backend: the process-wide singleton is dropped and the
``cstorch.backends`` flags and the global seed are reset (something the real stack cannot do).
"""
from __future__ import annotations

import importlib

from .base import ALL_FAMILIES, ProgramAdapter

__all__ = ["ADAPTER", "MinitorchCsAdapter"]

FEATURES = ALL_FAMILIES | {"backend:CPU", "backend:CSX", "rng:minitorch_cs"}


def _reset():
    import minitorch_cs
    from minitorch_cs import torch
    importlib.import_module("minitorch_cs.backend")._reset_for_tests()
    minitorch_cs.backends.reset()
    torch.manual_seed(0)


def _factory(kind, artifact_dir):
    import minitorch_cs
    _reset()
    return minitorch_cs.backend(kind, artifact_dir=artifact_dir)


class MinitorchCsAdapter(ProgramAdapter):
    def __init__(self):
        import minitorch_cs
        from minitorch_cs import torch
        super().__init__("minitorch_cs", minitorch_cs, torch, _factory, FEATURES, cleanup=_reset)
        self.id = "minitorch_cs"


def ADAPTER():
    return MinitorchCsAdapter()
