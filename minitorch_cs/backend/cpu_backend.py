"""The CPU backend: eager execution; ``trace`` runs the step body on every call."""
from __future__ import annotations

from ..core.device import CPUDevice
from .base_backend import BaseBackendImpl


class CpuBackendImpl(BaseBackendImpl):
    def __init__(self, backend_type, artifact_dir=None, max_checkpoints=None, **kwargs):
        if "mixed_precision" in kwargs:
            raise ValueError("Passing mixed_precision to the CPU backend is no longer allowed. "
                             "Please use the cstorch.amp.autocast() context manager instead.")
        if kwargs:
            raise TypeError(f"CPU backend got unexpected keyword arguments: {sorted(kwargs)}")
        super().__init__(backend_type, CPUDevice(), artifact_dir, max_checkpoints)
