"""``cstorch.utils.data.DataLoader(input_fn, *args, **kwargs)``: a loader built by a factory.

The real stack runs ``input_fn`` on worker nodes, which is why it takes a factory rather than a
loader. Here the factory is called lazily on the first use, with deep copies of its arguments.
"""
from __future__ import annotations

import copy
from typing import Protocol, runtime_checkable

from ...backend import current_backend_impl

__all__ = ["DataLoader", "RestartableDataLoader"]


@runtime_checkable
class RestartableDataLoader(Protocol):
    """A loader whose position can be saved and restored (the real protocol's four methods)."""

    def state_dict(self): ...

    def load_state_dict(self, state_dict, strict=True): ...

    def aggregate_state_dict(self, worker_states): ...

    def deaggregate_state_dict(self, aggregated_state_dict, strict=True): ...


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
        self._pending_state = None
        self.batch_size = None

    @property
    def dataloader(self):
        """The inner loader, built on first access."""
        if self._loader is None:
            args, kwargs = copy.deepcopy(self.input_fn_params)
            loader = self.input_fn(*args, **kwargs)
            if getattr(loader, "num_workers", 0):
                loader.num_workers = 0  # the user node loads in-process, as the real one does
            self._loader = loader
        return self._loader

    def __len__(self) -> int:
        return len(self.dataloader)

    def __iter__(self):
        from .utils import infer_batch_size
        loader = self.dataloader
        if self._pending_state is not None:
            state, strict = self._pending_state
            self._pending_state = None
            loader.load_state_dict(loader.deaggregate_state_dict(state, strict=strict),
                                   strict=strict)
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
                "aggregate_state_dict and deaggregate_state_dict.")
        ctx = current_backend_impl().run_context
        if ctx is None or not (ctx.is_checkpoint_step or ctx.is_pre_initial_step or
                               ctx.is_final_step):
            raise RuntimeError(
                "DataLoader state can only be requested at a checkpoint step, before the first "
                "step, or at the final step of a run; call state_dict() inside a checkpoint "
                "closure.")
        loader = self.dataloader
        return loader.aggregate_state_dict([loader.state_dict()])

    def load_state_dict(self, state_dict, strict=True):
        """Restore the position; applied when the next executor run starts iterating."""
        if not self.is_restartable:
            raise RuntimeError("Cannot load state into a dataloader that is not restartable.")
        impl = current_backend_impl(raise_exception=False)
        if impl is not None and impl.executors and impl.run_context is not None and \
                not impl.run_context.is_pre_initial_step:
            raise RuntimeError("DataLoader state may only be loaded before iterating a "
                               "DataExecutor.")
        self._pending_state = (state_dict, strict)
