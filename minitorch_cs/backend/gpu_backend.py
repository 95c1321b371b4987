"""The GPU backend: this machine has no CUDA, and neither does numpy."""
from __future__ import annotations

from .base_backend import BaseBackendImpl


class GpuBackendImpl(BaseBackendImpl):
    def __init__(self, backend_type, artifact_dir=None, enable_distributed=False,
                 main_process_id=0, dist_backend="nccl", init_method=None, sync_batchnorm=False):
        raise RuntimeError(
            "GPU was specified as the target device, but CUDA is not available. Please make sure "
            "you have a PyTorch installation with CUDA enabled to run on GPU")
