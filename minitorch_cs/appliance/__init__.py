"""``cerebras.appliance`` (mirrored part): the package logger, the error types and the cluster
configuration that user scripts and install checks import.

Porting rule: ``from cerebras.appliance import logger`` (2.0: ``cerebras_appliance``) becomes
``from minitorch_cs.appliance import logger``. Nothing here talks to a cluster: the appliance
client, job submission and the gRPC layer are not mirrored (SPEC.md §8).
"""
from __future__ import annotations

from . import errors, log  # noqa: F401
from .log import logger

__all__ = ["__version__", "logger", "DEFAULT_COMPILE_DIR", "errors", "log"]

__version__ = "2.10.0"  # the cerebras-appliance release whose API this mirrors

#: Default compile-cache directory of a CSX backend (``backend("CSX", compile_dir=...)``).
DEFAULT_COMPILE_DIR = "cached_compile"
