"""``ClusterConfig``: where a CSX job would run (``cerebras.appliance.cluster_config`` in the
real stack, re-exported as ``cstorch.distributed.ClusterConfig``).

Only ``num_csx`` affects the emulation; every field is still validated as the real 2.10 class
validates it, at construction and on assignment (the real class uses descriptors), with the real
messages: ``mount_dirs`` and ``python_paths`` must exist on this machine (``ValueError("Mount
dir /abs/path does not exist")``, ``ValueError("/abs/path does not exist")``), counts are
non-negative integers (``None`` restores the default), ``job_time_sec`` is positive,
``job_labels`` are ``key=value`` pairs of label-safe tokens, ``job_priority`` is one of "p1",
"p2", "p3" (stored as the cluster's numeric priority: 2, 3, 4), ``mgmt_address`` is
``<name>:<port>``. ``num_csx=0`` is accepted here and refused when a CSX backend is created
(real).

Differs: duplicate ``mount_dirs``/``python_paths`` are dropped keeping the first occurrence in
order (the real class goes through a set, so its order is arbitrary); the cluster-defaults file
named by ``CEREBRAS_WAFER_SCALE_CLUSTER_DEFAULTS`` is not read.
"""
from __future__ import annotations

import re
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import List, NamedTuple, Optional, Union

__all__ = ["ClusterConfig", "MountDir"]


class MountDir(NamedTuple):
    """A directory mounted into the cluster's containers (``container_path`` defaults to the same
    path)."""
    path: str
    container_path: str


_LABEL = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$")
_ADDRESS = re.compile(r".+:[0-9]+")
_PRIORITIES = {"p1": 2, "p2": 3, "p3": 4}


def _non_negative(name, value, default):
    if value is None:
        return default
    if not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer or None. Got {value}")
    return value


def _positive(name, value, default):
    if value is None:
        return default
    if not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer or None. Got {value}")
    return value


def _labels(value):
    labels = value or []
    for pair in labels:
        tokens = pair.split("=")
        if len(tokens) != 2:
            raise ValueError(f"'{pair}' is an invalid label. Expecting the label key and the label "
                             "value to be separated by a single equal sign(=) character.")
        for token in tokens:
            if _LABEL.match(token) is None:
                raise ValueError(f"'{pair}' is an invalid label. Expecting the label key and the "
                                 f"label value to match regex '{_LABEL.pattern}'.")
    return labels


def _priority(value):
    if value in _PRIORITIES:
        return _PRIORITIES[value]
    if value in _PRIORITIES.values() and not isinstance(value, bool):
        return value
    raise ValueError(f"Invalid job priority value: {value} (should be one of "
                     f"{list(_PRIORITIES)})")


def _mount_dirs(value):
    out = []
    for md in (value or []) + []:  # ``+ []``: a str raises TypeError, as in the real class
        if isinstance(md, (str, Path)):
            resolved = Path(md).resolve()
            if not resolved.exists():
                raise ValueError(f"Mount dir {resolved} does not exist")
            md = MountDir(path=md, container_path=md)
        if md not in out:
            out.append(md)
    return out


def _python_paths(value):
    out = []
    for p in (value or []) + []:
        resolved = Path(p).resolve()
        if not resolved.exists():
            raise ValueError(f"{resolved} does not exist")
        if str(resolved) not in out:
            out.append(str(resolved))
    return out


def _mgmt_address(value):
    if value is not None and _ADDRESS.match(value) is None:
        raise ValueError(f"mgmt_address '{value}' should be in the form of '<name>:<port>'")
    return value


_SANITIZE = {
    "mgmt_address": _mgmt_address,
    "num_csx": lambda v: _non_negative("num_csx", v, 1),
    "max_wgt_servers": lambda v: _non_negative("max_wgt_servers", v, 0),
    "max_act_per_csx": lambda v: _non_negative("max_act_per_csx", v, 0),
    "num_workers_per_csx": lambda v: _non_negative("num_workers_per_csx", v, 1),
    "job_labels": _labels,
    "job_priority": _priority,
    "job_time_sec": lambda v: _positive("job_time_sec", v, None),
    "mount_dirs": _mount_dirs,
    "python_paths": _python_paths,
}


@dataclass
class ClusterConfig:
    """The cluster a CSX run would use: ``ClusterConfig(mgmt_address=None, mgmt_namespace=None,
    credentials_path=None, num_csx=1, max_wgt_servers=0, max_act_per_csx=0,
    num_workers_per_csx=1, cbcore_image=None, job_labels=[], job_priority="p2",
    job_time_sec=None, mount_dirs=[], python_paths=[], automount=True, mount_all=True,
    disable_mount_check=True, disable_version_check=False, workflow_id=None, notifications=[])``.

    Raises:
        ValueError: a field fails the real class's validation (see the module docstring).
    """

    DEFAULT = object()

    mgmt_address: Optional[str] = None
    mgmt_namespace: Optional[str] = None
    credentials_path: Optional[str] = None
    num_csx: int = 1
    max_wgt_servers: int = 0
    max_act_per_csx: int = 0
    num_workers_per_csx: int = 1
    cbcore_image: Optional[str] = None
    job_labels: List[str] = field(default_factory=list)
    job_priority: Union[str, int] = 3
    job_time_sec: Optional[int] = None
    mount_dirs: List[Union[str, MountDir]] = field(default_factory=list)
    python_paths: List[str] = field(default_factory=list)
    automount: bool = True
    mount_all: bool = True
    disable_mount_check: bool = True
    disable_version_check: bool = False
    workflow_id: Optional[str] = None
    notifications: list = field(default_factory=list)

    def __setattr__(self, key, value):
        if value is ClusterConfig.DEFAULT:
            value = self.get_default(key)
        if key in _SANITIZE:
            value = _SANITIZE[key](value)
        super().__setattr__(key, value)

    def __hash__(self):
        return hash(tuple(tuple(v) if isinstance(v, list) else v
                          for f in fields(self) if (v := getattr(self, f.name, None))))

    @classmethod
    def get_default(cls, key: str):
        """The default value of field ``key`` (AttributeError for an unknown field)."""
        for f in fields(cls):
            if f.name == key:
                if f.default is not MISSING:
                    return f.default
                return f.default_factory()
        raise AttributeError(f"Field {key} not found in ClusterConfig")

    def validate(self) -> None:
        """What a CSX backend checks when it is created (real message)."""
        if not isinstance(self.num_csx, int) or isinstance(self.num_csx, bool) or self.num_csx <= 0:
            raise ValueError(f"num_csx in the cluster config must be a positive integer, got "
                             f"{self.num_csx}")
