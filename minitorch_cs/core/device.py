"""``backend.device``: the device a backend runs on, as a re-entrant context manager.

Entering a device (outermost entry only) installs the per-op RNG seeding of the real stack: every
random op called without an explicit generator gets a fresh generator seeded with one draw from
the global generator (``GeneratorContext`` in cstorch's ``core/device.py``). Subclasses add what
their backend needs (the CSX device moves or records weights).
"""
from __future__ import annotations

from ..torch._device import device as torch_device_cls

__all__ = ["Device", "CPUDevice", "GPUDevice"]


class Device:
    """Base device: ``type``, ``torch_device``, ``artifact_dir``, ``move_to_device``, context."""

    type = "cpu"

    def __init__(self, artifact_dir=None):
        self._depth = 0
        self.artifact_dir = artifact_dir

    @property
    def torch_device(self):
        return torch_device_cls(self.type, 0)

    def __str__(self) -> str:
        return self.type

    def __repr__(self) -> str:
        return f"device(type='{self.type}')"

    def move_to_device(self, tree):
        return tree

    def __enter__(self):
        self._depth += 1
        if self._depth == 1:
            self._enter()
        return self

    def __exit__(self, *exc):
        self._depth -= 1
        if self._depth == 0:
            self._exit()
        return False

    def _enter(self):
        from .rng import push_generator_context
        self._rng_ctx = push_generator_context()

    def _exit(self):
        from .rng import pop_generator_context
        pop_generator_context(self._rng_ctx)

    @property
    def is_active(self) -> bool:
        return self._depth > 0


class CPUDevice(Device):
    type = "cpu"


class GPUDevice(Device):
    type = "cuda"
