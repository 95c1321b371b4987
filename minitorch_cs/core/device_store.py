"""The emulated device's weight store: file-backed arrays under ``<artifact_dir>/device_store``.

Efficient (non-lazy) initialization moves every parameter and buffer here: each one registered
earlier is moved (and its pages released from this process) when the next one is registered, and
the rest when the ``with backend.device:`` block ends. A tensor keeps working, backed by a memory
map of its file, so host memory holds about one module's weights at a time, not the whole model.
"""
from __future__ import annotations

import mmap
import os
from pathlib import Path

import numpy as np

from ..torch._tensor import Tensor

__all__ = ["DeviceStore"]


class DeviceStore:
    def __init__(self, artifact_dir):
        self.root = Path(artifact_dir) / "device_store"
        self.count = 0
        self.nbytes = 0

    def holds(self, t) -> bool:
        return isinstance(t._data, np.memmap)

    def move(self, t: Tensor) -> None:
        """Write ``t``'s values to a file and back ``t`` with a memory map of it."""
        if getattr(type(t), "_is_lazy", False) or t._meta:
            return
        arr = t._data
        if isinstance(arr, np.memmap) or arr.size == 0:
            return
        self.root.mkdir(parents=True, exist_ok=True)
        self.count += 1
        path = self.root / f"{os.getpid()}_{self.count:07d}.bin"
        np.ascontiguousarray(arr).tofile(path)
        t._data = np.memmap(path, dtype=arr.dtype, mode="r+", shape=arr.shape)
        self.nbytes += arr.nbytes

    def release(self, t: Tensor) -> None:
        """Drop ``t``'s pages from this process (they stay in the file; reads fault them back)."""
        arr = t._data if not getattr(type(t), "_is_lazy", False) else None
        mm = getattr(arr, "_mmap", None)
        if mm is not None and hasattr(mm, "madvise"):
            mm.madvise(mmap.MADV_DONTNEED)
