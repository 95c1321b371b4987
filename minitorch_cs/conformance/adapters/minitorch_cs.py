"""The adapter for minitorch_cs itself (the implementation the goldens come from).

``--impl minitorch_cs`` or ``--impl minitorch_cs.conformance.adapters.minitorch_cs``.
Every scenario gets a fresh backend: :func:`reset` drops the process-wide singleton and
resets the ``cstorch.backends`` flags and the global seed (something the real stack cannot do).
An adapter for a stack built on minitorch_cs passes it as ``ProgramAdapter(..., reset=reset)``.
"""
from __future__ import annotations

import importlib

from .base import ALL_FAMILIES, ProgramAdapter

__all__ = ["ADAPTER", "MinitorchCsAdapter", "reset"]

FEATURES = ALL_FAMILIES | {"backend:CPU", "backend:CSX", "rng:minitorch_cs"}


def reset():
    """Drop minitorch_cs's backend, reset ``cstorch.backends`` flags and seed the global
    generator with 0: the state of a fresh process, for the next scenario."""
    import minitorch_cs
    from minitorch_cs import torch
    importlib.import_module("minitorch_cs.backend")._reset_for_tests()
    minitorch_cs.backends.reset()
    torch.manual_seed(0)


_reset = reset  # the former private name


def _factory(kind, artifact_dir):
    import minitorch_cs
    reset()
    return minitorch_cs.backend(kind, artifact_dir=artifact_dir)


class MinitorchCsAdapter(ProgramAdapter):
    def __init__(self):
        import minitorch_cs
        from minitorch_cs import torch
        super().__init__("minitorch_cs", minitorch_cs, torch, features=FEATURES, reset=reset)
        self.id = "minitorch_cs"


def ADAPTER():
    return MinitorchCsAdapter()
