"""State and lifecycle shared by every backend implementation.

A backend owns: the device, the artifact directory, a stack of active DataExecutors, the compiled
models, registered optimizers (each with its schedulers) and grad scalers, the step-closure queue,
the train/eval mode and the tracing flag. The executor drives it through ``on_run_start``,
``on_batch_start``, ``on_batch_end`` and ``on_run_end``.
"""
from __future__ import annotations

import os
import weakref
from pathlib import Path

from .retention import CheckpointRetention

__all__ = ["BaseBackendImpl", "Mode", "NO_EXECUTOR"]

NO_EXECUTOR = (
    "Detected that a data executor was not used.\nPlease wrap your dataloader in a Cerebras "
    "DataExecutor:\n\n\texecutor = cstorch.utils.data.DataExecutor(dataloader, ...)\n\nWhich can "
    "be used in the execution loop as follows:\n\n\tfor i, batch in enumerate(executor):\n\t\t..."
    "\n\nFor more details, please see the documentation for cstorch.utils.data.DataExecutor.")


class Mode:
    TRAIN = "TRAIN"
    EVAL = "EVAL"


class BaseBackendImpl:
    def __init__(self, backend_type, device, artifact_dir=None, max_checkpoints=None):
        self.backend_type = backend_type
        self.device = device
        self._artifact_dir = Path(artifact_dir if artifact_dir is not None else "./")
        device.artifact_dir = self._artifact_dir
        self.executors = []
        self._executor_counter = 0
        self.models = []
        self._optimizers = []  # weak references: a discarded optimizer (and its parameters) is freed
        self.grad_scalers = []
        self.step_closures = []
        self.mode = Mode.TRAIN
        self._is_tracing = False
        self._step_model = None
        self.run_context = None
        # cstorch 2.0's max_checkpoints: cstorch.save keeps only the newest N files it wrote
        self.checkpoint_retention = CheckpointRetention(max_checkpoints)

    # -- properties -------------------------------------------------------------------------------
    @property
    def torch_device(self):
        return self.device.torch_device

    @property
    def artifact_dir(self):
        return self._artifact_dir

    @artifact_dir.setter
    def artifact_dir(self, value):
        # Differs from cstorch: a str is accepted (the real CPU backend stores it and then fails
        # with AttributeError on the next run; SPEC.md, Runtime).
        self._artifact_dir = Path(value)
        self.device.artifact_dir = self._artifact_dir

    @property
    def is_tracing(self) -> bool:
        return self._is_tracing

    @property
    def is_e2e_execution(self) -> bool:
        return True

    @property
    def cluster_config(self):
        return None

    @property
    def is_csx(self) -> bool:
        return self.backend_type.is_csx

    def to_cpu(self, tree):
        """``tree`` with every tensor on the wafer's lazy device replaced by a host copy."""
        from ..core.nest import map_lazy_tensors
        return map_lazy_tensors(lambda _, t: t.to("cpu"), tree)

    def shutdown(self):
        self.step_closures.clear()

    # -- registries ------------------------------------------------------------------------------
    def register_model(self, model) -> int:
        if any(m is model for m in self.models):
            return getattr(model, "_cstorch_model_id", 0)
        self.models.append(model)
        model._cstorch_model_id = len(self.models)
        return model._cstorch_model_id

    @property
    def optimizer_registry(self) -> list:
        """The registered optimizers still alive, in registration order."""
        live = [r() for r in self._optimizers]
        if any(o is None for o in live):
            self._optimizers = [r for r, o in zip(self._optimizers, live) if o is not None]
        return [o for o in live if o is not None]

    def register_optimizer(self, optimizer) -> None:
        if not any(o is optimizer for o in self.optimizer_registry):
            self._optimizers.append(weakref.ref(optimizer))

    def unregister_optimizer(self, optimizer) -> None:
        self._optimizers = [r for r in self._optimizers if r() is not optimizer and
                            r() is not None]

    def register_grad_scaler(self, scaler) -> None:
        self.grad_scalers.append(scaler)

    def new_executor_dir(self) -> Path:
        """``<artifact_dir>/executors/00000N`` with an ``executors/latest`` symlink."""
        self._executor_counter += 1
        base = Path(self._artifact_dir) / "executors"
        d = base / f"{self._executor_counter:06d}"
        while d.exists():
            self._executor_counter += 1
            d = base / f"{self._executor_counter:06d}"
        d.mkdir(parents=True)
        latest = base / "latest"
        try:
            if latest.is_symlink() or latest.exists():
                latest.unlink()
            os.symlink(d.name, latest)
        except OSError:
            pass
        return d

    # -- step closures ---------------------------------------------------------------------------
    def add_step_closure(self, closure, args, kwargs, repeat=False):
        from .closures import snapshot
        args, kwargs = snapshot(args, kwargs)
        self.step_closures.append((closure, args, kwargs, repeat))

    def run_step_closures(self):
        """Drain the queue in FIFO order; repeating closures are queued again afterwards."""
        queue, self.step_closures = self.step_closures, []
        again = []
        for closure, args, kwargs, repeat in queue:
            closure(*args, **kwargs)
            if repeat:
                again.append((closure, args, kwargs, repeat))
        self.step_closures = again + self.step_closures

    # -- compile/forward -------------------------------------------------------------------------
    def setup_model(self, model):
        """Prepare a model for this backend (move weights to the device)."""
        return model

    def forward(self, model, *args, **kwargs):
        return model(*args, **kwargs)

    def run_traced(self, step_fn, args, kwargs):
        """Run a ``@trace`` function (base behaviour: run the body every call, inside an executor)."""
        if not self.executors:
            raise RuntimeError(NO_EXECUTOR)
        return step_fn(*args, **kwargs)

    def set_step_model(self, model):
        if self._step_model is not None and self._step_model is not model:
            raise RuntimeError(
                "Only one compiled model may be used per traced step, but this step called two "
                "different compiled models. Combine them into one torch.nn.Module and compile that.")
        self._step_model = model

    # -- executor lifecycle ----------------------------------------------------------------------
    def on_run_start(self):
        self.run_step_closures()

    def on_batch_start(self, batch):
        """Move the batch to the device: a copy, so in-place changes never reach the loader."""
        from ..core.nest import map_tensors
        self._is_tracing = True
        self._step_model = None
        return map_tensors(lambda t: t.detach().clone(), batch)

    def on_batch_end(self):
        self._is_tracing = False
        self._step_model = None
        self.run_step_closures()

    def on_run_end(self):
        # The real backend's on_run_end resets its per-run state, the step-closure queue
        # included: a closure still queued when a run ends (queued by a closure during the last
        # drain, or a closure repeating every step on CSX) never runs.
        self.step_closures = []
        self._is_tracing = False
        self._step_model = None
