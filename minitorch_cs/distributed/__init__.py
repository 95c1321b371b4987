"""``cstorch.distributed``: the cluster configuration and the task-role helpers.

A script runs on the *user node*; on a wafer cluster its ``input_fn`` also runs on worker tasks
that stream data. Here everything runs in one process, which answers as the real stack answers
on the user node (measured with cerebras-pytorch 2.10 on CPU): one task, ordinal 0, the master
and a receiver, **not a streamer** (``num_streamers() == 0``, ``get_streaming_rank()`` fails),
and ``get_streaming_batch_size(n) == n``. ``get_worker_state()`` answers inside a restartable
loader's ``state_dict``, as on the real CPU backend. Scripts written for a cluster
(``num_streamers() if is_streamer() else 1``) therefore take their single-process branch.
"""
from __future__ import annotations

from typing import Optional

from .cluster_config import ClusterConfig
from .worker_state import WorkerState

__all__ = ["ClusterConfig", "get_ordinal", "num_tasks", "num_streamers", "num_receivers",
           "is_master_ordinal", "is_streamer", "is_receiver", "get_streaming_rank",
           "get_streaming_batch_size", "get_worker_state", "get_world_size", "get_rank"]


def num_tasks() -> int:
    """Total number of tasks in the cluster: 1."""
    return 1


def num_streamers() -> int:
    """Number of tasks streaming inputs: 0 (the user node streams nothing)."""
    return 0


def num_receivers() -> int:
    """Number of tasks receiving outputs: 1 (this one)."""
    return 1


def get_ordinal() -> int:
    """Ordinal of this task: 0."""
    return 0


def is_master_ordinal(local: bool = False) -> bool:
    return True


def is_streamer() -> bool:
    return False


def is_receiver() -> bool:
    return True


def get_streaming_rank() -> int:
    """The rank among streamers; fails here, as on the real user node (no streamer)."""
    raise AssertionError(f"Ordinal {get_ordinal()} is not a streamer.")


def get_streaming_batch_size(effective_batch_size: int, global_rank: Optional[int] = None) -> int:
    """The batch one task streams; on the user node the effective batch size itself.

    Raises:
        TypeError: if ``effective_batch_size`` is not an int.
        ValueError: if it is not positive.
    """
    if not isinstance(effective_batch_size, int):
        raise TypeError(f"Expected effective batch size to be an integer, but got type "
                        f"{type(effective_batch_size)} with value {effective_batch_size}.")
    if effective_batch_size <= 0:
        raise ValueError(f"Expected effective batch size to be a positive integer, but got "
                         f"value {effective_batch_size}.")
    return effective_batch_size


def get_worker_state():
    """The calling worker's :class:`DataLoaderCheckpoint` (position at this checkpoint step).

    Well defined only inside a restartable loader's ``state_dict``, where the cstorch DataLoader
    has just set it (one worker on one CSX, ``samples_streamed = step * batch_size``); it can be
    read once. Anywhere else it raises the real RuntimeError.
    """
    return WorkerState.get_worker_state()


# Not in cstorch.distributed (torch.distributed-style conveniences kept for existing callers).
def get_world_size() -> int:
    return 1


def get_rank() -> int:
    return 0
