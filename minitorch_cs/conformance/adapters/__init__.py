"""Adapters: how the conformance runner drives an implementation (see :mod:`.base`)."""
from .base import ALL_FAMILIES, ProgramAdapter, SubprocessAdapter

__all__ = ["ALL_FAMILIES", "ProgramAdapter", "SubprocessAdapter"]
