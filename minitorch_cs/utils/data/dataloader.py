"""``cstorch.utils.data.DataLoader(input_fn, *args, **kwargs)``: a loader built by a factory.

The real stack runs ``input_fn`` on worker nodes, which is why it takes a factory rather than a
loader. Here the factory is called lazily on the first use, with deep copies of its arguments.

As the real stack does on the user node (cstorch 2.10, ``DataLoader.dataloader``), a
``torch.utils.data.DataLoader`` returned by ``input_fn`` is switched to in-process loading:
``num_workers=0`` and ``persistent_workers=False``, and when it had workers and a
``worker_init_fn``, that function is called once with ``worker_id=0``. If that call raises,
the loader's settings are restored and the error is dropped (the real stack's behaviour), so the
loader then runs its worker processes.

Restartable loaders (the :class:`RestartableDataLoader` protocol) see a worker state
(``cstorch.distributed.get_worker_state()``: a :class:`DataLoaderCheckpoint` of one worker on
one CSX, ``samples_streamed = step * batch_size``) when ``state_dict`` is called at a checkpoint
step, as on the real CPU backend.
"""
from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass
from typing import Any, Dict, Protocol, runtime_checkable

from ...backend import current_backend_impl

__all__ = ["DataLoader", "RestartableDataLoader", "DataLoaderCheckpoint"]


@runtime_checkable
class RestartableDataLoader(Protocol):
    """A loader whose position can be saved and restored (the real protocol's four methods)."""

    def state_dict(self): ...

    def load_state_dict(self, state_dict, strict=True): ...

    def aggregate_state_dict(self, worker_states): ...

    def deaggregate_state_dict(self, aggregated_state_dict, strict=True): ...


@dataclass
class DataLoaderCheckpoint:
    """One CSX worker's position at a checkpoint step (what ``get_worker_state()`` returns)."""

    local_worker_id: int
    num_workers_per_csx: int
    num_csx: int
    wse_id: int
    appliance_step: int
    worker_step: int
    samples_streamed: int
    user_state_dict: Dict[str, Any]

    @property
    def global_worker_id(self) -> int:
        return self.wse_id * self.num_workers_per_csx + self.local_worker_id

    @property
    def total_num_workers(self) -> int:
        return self.num_workers_per_csx * self.num_csx


def _in_process(loader) -> None:
    """Switch a torch DataLoader to in-process loading (see the module docstring)."""
    from ...torch.utils.data import DataLoader as TorchDataLoader
    if not isinstance(loader, TorchDataLoader):
        return
    persistent, workers = loader.persistent_workers, loader.num_workers
    try:
        loader._DataLoader__initialized = False  # torch's guard on these attributes
        loader.persistent_workers = False
        loader.num_workers = 0
        if loader.worker_init_fn is not None and workers > 0:
            loader.worker_init_fn(0)
    except Exception:  # noqa: BLE001  (the real stack restores and carries on)
        loader.persistent_workers = persistent
        loader.num_workers = workers
    finally:
        loader._DataLoader__initialized = True


class DataLoader:
    """Wraps ``input_fn`` (returning a torch DataLoader or any iterable of tensor structures)."""

    _id_counter = 0

    def __init__(self, input_fn, *args, **kwargs):
        if not callable(input_fn):
            raise TypeError("Expected a callable that constructs and returns a "
                            "`torch.utils.data.DataLoader` or an iterable that returns a structure "
                            "containing torch tensors.")
        DataLoader._id_counter += 1
        self.id = DataLoader._id_counter
        self.input_fn = input_fn
        self.input_fn_params = copy.deepcopy((args, kwargs))
        self._loader = None
        self._pending_state = None  # kept for callers that reset it; loading is immediate
        self._strict_kwargs = {}
        self.batch_size = None

    @property
    def dataloader(self):
        """The inner loader, built on first access."""
        if self._loader is None:
            args, kwargs = copy.deepcopy(self.input_fn_params)
            loader = self.input_fn(*args, **kwargs)
            if isinstance(loader, RestartableDataLoader):
                has = ["strict" in inspect.signature(m).parameters
                       for m in (loader.load_state_dict, loader.deaggregate_state_dict)]
                if any(has) and not all(has):
                    raise TypeError("Either both or none of `load_state_dict` and "
                                    "`deaggregate_state_dict` should have the `strict` kwargs in "
                                    "their signature.")
                self._has_strict = all(has)
            _in_process(loader)
            self._loader = loader
        return self._loader

    def __len__(self) -> int:
        return len(self.dataloader)

    def _configure_worker_state(self, step: int) -> None:
        from ...distributed.worker_state import WorkerState
        WorkerState.configure(DataLoaderCheckpoint(
            local_worker_id=0, num_workers_per_csx=1, num_csx=1, wse_id=0, appliance_step=step,
            worker_step=step,
            samples_streamed=step * self.batch_size if step > 0 and self.batch_size else 0,
            user_state_dict=None))

    def __iter__(self):
        from .utils import infer_batch_size
        loader = self.dataloader
        self._configure_worker_state(0)
        strict = current_backend_impl(raise_exception=False) is not None and \
            current_backend_impl().is_csx
        for batch in loader:
            self.batch_size = infer_batch_size(batch, self.batch_size, strict=strict)
            yield batch

    @property
    def is_restartable(self) -> bool:
        return isinstance(self.dataloader, RestartableDataLoader)

    def state_dict(self):
        """The loader's aggregated state; legal only at checkpoint, pre-initial or final steps."""
        if not self.is_restartable:
            raise RuntimeError(
                "DataLoader state can only be requested from a restartable dataloader: the "
                "object returned by input_fn must implement state_dict, load_state_dict, "
                "aggregate_state_dict and deaggregate_state_dict (the RestartableDataLoader "
                "protocol).")
        ctx = current_backend_impl().run_context
        if ctx is None or not (ctx.is_checkpoint_step or ctx.is_pre_initial_step or
                               ctx.is_final_step):
            raise RuntimeError(
                "DataLoader state can only be requested at a checkpoint step. Please ensure that "
                "`state_dict` is called on the `cstorch.utils.DataLoader` at a checkpoint step. "
                "If you're calling it inside of a method, please decorate it with the "
                "`cstorch.checkpoint_closure` method decorator.")
        loader = self.dataloader
        self._configure_worker_state(ctx.user_iteration)
        return copy.deepcopy(loader.aggregate_state_dict([loader.state_dict()]))

    def load_state_dict(self, state_dict, strict=True):
        """Restore the position (before the executor that uses this loader starts)."""
        if not self.is_restartable:
            raise RuntimeError("Cannot load state into a dataloader that is not restartable: the "
                               "object returned by input_fn must implement the "
                               "RestartableDataLoader protocol.")
        impl = current_backend_impl(raise_exception=False)
        if impl is not None and impl.executors and impl.run_context is not None and \
                not impl.run_context.is_pre_initial_step:
            raise RuntimeError("DataLoader state can only be loaded onto before execution. Please "
                               "make sure to call `load_state_dict()` only before iterating the "
                               "data executor.")
        kwargs = {"strict": strict} if getattr(self, "_has_strict", False) else {}
        loader = self.dataloader
        self._configure_worker_state(0)
        loader.load_state_dict(loader.deaggregate_state_dict(state_dict, **kwargs), **kwargs)
