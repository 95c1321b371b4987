"""The adapter for the real ``cerebras.pytorch`` 2.10 CPU backend, run in its own interpreter.

``--impl minitorch_cs.conformance.adapters.real_cpu`` (alias ``--impl cerebras.pytorch``).
The interpreter is ``$MINITORCH_CS_REFERENCE_PYTHON`` (a Python with ``cerebras-pytorch==2.10.0``
installed, e.g. a virtual environment with ``pip install cerebras-pytorch==2.10.0``). It runs
:mod:`._real_driver`, which loads the scenario programs by
path and runs them with ``cerebras.pytorch`` and ``torch``. The real backend is a process-wide
singleton that cannot be reset, so every CPU scenario shares one CPU backend; its CSX backend
needs a Wafer-Scale Cluster, so CSX scenarios are unsupported.
"""
from __future__ import annotations

import os
from pathlib import Path

from .base import ALL_FAMILIES, SubprocessAdapter, python_command

__all__ = ["ADAPTER", "RealCpuAdapter", "ENV_VAR"]

ENV_VAR = "MINITORCH_CS_REFERENCE_PYTHON"
DRIVER = Path(__file__).resolve().with_name("_real_driver.py")


class RealCpuAdapter(SubprocessAdapter):
    def __init__(self, python=None):
        python = python or os.environ.get(ENV_VAR)
        if not python:
            raise RuntimeError(f"set {ENV_VAR} to a Python interpreter with cerebras-pytorch "
                               "2.10 installed to check against the real stack")
        super().__init__("cerebras.pytorch 2.10 (CPU)", python_command(python, DRIVER),
                         ALL_FAMILIES | {"backend:CPU"})
        self.id = "real-cpu"


def ADAPTER():
    return RealCpuAdapter()
