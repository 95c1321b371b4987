"""``ClusterConfig``: where a CSX job would run. Only ``num_csx`` affects the emulation (checked)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

__all__ = ["ClusterConfig"]


@dataclass
class ClusterConfig:
    mgmt_address: Optional[str] = None
    mgmt_namespace: Optional[str] = None
    credentials_path: Optional[str] = None
    num_csx: int = 1
    max_wgt_servers: int = 0
    max_act_per_csx: int = 0
    num_workers_per_csx: int = 1
    cbcore_image: Optional[str] = None
    job_labels: List[str] = field(default_factory=list)
    job_priority: int = 3
    job_time_sec: Optional[int] = None
    mount_dirs: List[str] = field(default_factory=list)
    python_paths: List[str] = field(default_factory=list)
    automount: bool = True
    mount_all: bool = True
    disable_mount_check: bool = True
    disable_version_check: bool = False
    workflow_id: Optional[str] = None
    notifications: list = field(default_factory=list)

    def validate(self) -> None:
        if not isinstance(self.num_csx, int) or isinstance(self.num_csx, bool) or self.num_csx <= 0:
            raise ValueError(f"num_csx in the cluster config must be a positive integer, got "
                             f"{self.num_csx}")
