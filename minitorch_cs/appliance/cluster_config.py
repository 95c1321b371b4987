"""``cerebras.appliance.cluster_config``: ``ClusterConfig`` is defined here in the real stack and
re-exported as ``cerebras.pytorch.distributed.ClusterConfig``; both names are one class here."""
from __future__ import annotations

from ..distributed.cluster_config import ClusterConfig, MountDir

__all__ = ["ClusterConfig", "MountDir"]
