"""``BackendCallback``: the trainer's backend, from a ``device`` string or a Backend object."""
from __future__ import annotations

import minitorch_cs as cstorch
from minitorch_cs.backend import Backend

from .callback import CoreCallback

__all__ = ["BackendCallback"]


class BackendCallback(CoreCallback):
    """``device`` ("CSX", "CPU", "GPU", any case) creates the backend, or reuses the existing one
    when its type matches; ``backend`` uses that Backend. Exactly one of them must be given. The
    backend's artifact dir becomes the trainer's."""

    def __init__(self, backend, device):
        self.backend = backend
        self.device = device

    def pre_setup(self, trainer):
        if self.backend is None:
            if not isinstance(self.device, str):
                raise RuntimeError("Trainer expected a backend object or a device string")
            accepted = {"CSX", "CPU", "GPU"}
            if self.device.upper() not in accepted:
                raise ValueError(f"Invalid device type: {self.device}. Expected one of "
                                 f"{accepted}.")
            existing = cstorch.current_backend(raise_exception=False, raise_warning=False)
            if existing is None:
                trainer.backend = cstorch.backend(self.device, artifact_dir=trainer.artifact_dir)
            else:
                if existing.backend_type.name.lower() != self.device.lower():
                    raise ValueError("Cannot instantiate multiple trainers with different device "
                                     "types")
                trainer.backend = existing
                trainer.backend.artifact_dir = trainer.artifact_dir
        else:
            if not isinstance(self.backend, Backend):
                raise TypeError(f"Expected backend to be a cstorch.Backend object. Got: "
                                f"{type(self.backend)}")
            if self.device is not None:
                raise ValueError("backend and device are mutually exclusive arguments of Trainer. "
                                 "Please only provide one or the other")
            trainer.backend = self.backend
            trainer.backend.artifact_dir = trainer.artifact_dir
