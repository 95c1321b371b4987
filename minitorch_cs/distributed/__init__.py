"""``cstorch.distributed``: the cluster configuration and single-process streaming helpers.

On a laptop there is one process, which is both the only streamer and the only receiver.
"""
from __future__ import annotations

from .cluster_config import ClusterConfig

__all__ = ["ClusterConfig", "get_ordinal", "num_tasks", "num_streamers", "num_receivers",
           "is_master_ordinal", "is_streamer", "is_receiver", "get_streaming_rank",
           "get_streaming_batch_size", "get_world_size", "get_rank"]


def get_ordinal() -> int:
    return 0


def num_tasks() -> int:
    return 1


def num_streamers() -> int:
    return 1


def num_receivers() -> int:
    return 1


def is_master_ordinal() -> bool:
    return True


def is_streamer() -> bool:
    return True


def is_receiver() -> bool:
    return True


def get_streaming_rank() -> int:
    return 0


def get_streaming_batch_size(effective_batch_size: int) -> int:
    """The per-streamer batch size: the whole batch with one streamer."""
    if not isinstance(effective_batch_size, int) or effective_batch_size < 1:
        raise ValueError(f"Expected the effective batch size to be a positive integer, got "
                         f"{effective_batch_size!r}")
    return effective_batch_size


def get_world_size() -> int:
    return 1


def get_rank() -> int:
    return 0
