"""Adapters: how the conformance runner drives an implementation (see :mod:`.base`)."""
from .base import ALL_FAMILIES, ProgramAdapter, SubprocessAdapter, reusing_backend_factory

__all__ = ["ALL_FAMILIES", "ProgramAdapter", "SubprocessAdapter", "reusing_backend_factory"]
