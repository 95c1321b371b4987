"""The worker state ``cstorch.distributed.get_worker_state()`` returns: set by the cstorch
DataLoader just before it calls a restartable loader's ``state_dict`` (and before iterating and
loading state), and readable exactly once."""
from __future__ import annotations

__all__ = ["WorkerState"]


class WorkerState:
    """Holds the :class:`~minitorch_cs.utils.data.dataloader.DataLoaderCheckpoint` of the one
    in-process worker."""

    _state = None

    @classmethod
    def configure(cls, worker_ckpt) -> None:
        # (checked by class name: the data loaders sit above this package)
        assert type(worker_ckpt).__name__ == "DataLoaderCheckpoint", (
            f"Expected `worker_ckpt` to be of type `DataLoaderCheckpoint`, got "
            f"{type(worker_ckpt)}.")
        cls._state = worker_ckpt

    @classmethod
    def get_worker_state(cls):
        try:
            if cls._state is None:
                raise RuntimeError(
                    "Unable to fetch CSX Worker state: `cstorch.distributed.get_worker_state()` "
                    "must only be called once inside your dataloader's implementation of "
                    "`state_dict`.")
            return cls._state
        finally:
            cls._state = None
