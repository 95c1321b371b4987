"""cstorch's ``SummaryWriter`` and ``SummaryReader`` over real TensorBoard event files.

``SummaryWriter(*args, base_step=1, **kwargs)`` is torch's writer (here over tensorboardX) plus
``base_step`` and ``add_tensor(name, tensor, step)``, which stores whole tensors beside the event
file in ``events.out.csevents.<suffix>/tensors/<name>/<step>.<time>.mdl`` (with a ``__metadata__``
version file), as cstorch does. ``SummaryReader`` reads both back.

Differs from cstorch (SPEC "tensorboard"): tensor summaries are written with ``cstorch.save``
(the HDF5 checkpoint format, readable by the real ``cstorch.load``) instead of ``torch.save``,
hence ``.mdl`` rather than ``.pt``; ``SummaryReader`` reads scalars with its own TFRecord reader
(no ``tensorboard`` package) and does not read text summaries.
"""
from __future__ import annotations

import fnmatch
import json
import os
import struct
import time
import warnings
import weakref
from collections import defaultdict, namedtuple
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Optional

from ...torch.utils.tensorboard.writer import SummaryWriter as _TorchSummaryWriter
from ...torch.utils.tensorboard.writer import import_tensorboardx

__all__ = ["SummaryWriter", "SummaryReader", "TensorDescriptor", "ScalarEvent", "read_events"]

_METADATA = "__metadata__"
_VERSION_KEY = "__version__"
_VERSION = 1.1

#: One scalar as TensorBoard's event accumulator reports it.
ScalarEvent = namedtuple("ScalarEvent", ["wall_time", "step", "value"])


@dataclass(frozen=True)
class TensorDescriptor:
    """A summarized tensor: the step, the time (ns since the epoch) and the tensor."""

    step: int
    ns_since_epoch: int
    tensor: Any

    @property
    def utctime(self) -> datetime:
        return datetime.utcfromtimestamp(float(self.ns_since_epoch) / 1e9)

    def to_dict(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_dict(values) -> "TensorDescriptor":
        return TensorDescriptor(**values)


class SummaryWriter(_TorchSummaryWriter):
    """torch's ``SummaryWriter`` plus ``base_step`` and file-backed tensor summaries.

    Args:
        base_step: The step offset callers add to the executor's iteration (kept as an attribute).
        *args, **kwargs: torch's ``SummaryWriter`` arguments (``log_dir=``, ``comment=``, ...).
    """

    def __init__(self, *args, base_step: int = 1, **kwargs):
        super().__init__(*args, **kwargs)
        self.base_step = base_step
        events_file = Path(self.file_writer.event_writer._ev_writer._file_name)
        name = events_file.name.replace("events.out.tfevents.", "events.out.csevents.")
        self.cs_events_dir = events_file.parent / name
        self.cs_events_dir.mkdir(parents=True, exist_ok=True)
        self.log_dir = str(self.cs_events_dir.parent)
        metadata = self.cs_events_dir / _METADATA
        if not metadata.exists():
            metadata.write_text(json.dumps({_VERSION_KEY: _VERSION}))

        def close(writers):
            for writer in list((writers or {}).values()):
                writer.flush()
                writer.close()

        self._finalizer = weakref.finalize(self, close, self.all_writers)

    def add_tensor(self, name: str, tensor, step: int) -> None:
        """Store ``tensor`` for ``step`` under ``tensors/<name>/`` (read it with SummaryReader)."""
        from ...storage import save
        tensor_dir = self.cs_events_dir / "tensors" / name
        tensor_dir.mkdir(parents=True, exist_ok=True)
        now = time.time_ns()
        path = tensor_dir / f"{int(step)}.{datetime.fromtimestamp(now / 1e9):%Y-%m-%dT%H:%M:%S.%f}.mdl"
        save(TensorDescriptor(step=int(step), ns_since_epoch=now,
                              tensor=tensor.detach().clone()).to_dict(), str(path))

    def close(self) -> None:
        writers = self.all_writers
        super().close()
        if writers:
            writers.clear()


# ----------------------------------------------------------------------------- reading
def _records(path):
    """The payloads of a TFRecord file (length, masked crc, data, masked crc), crc-checked."""
    crc32c = import_tensorboardx().crc32c.crc32c

    def masked(data):
        x = crc32c(data)
        return (((x >> 15) | (x << 17)) + 0xA282EAD8) & 0xFFFFFFFF

    with open(path, "rb") as f:
        while True:
            header = f.read(12)
            if len(header) < 12:
                return  # end of file (or a record still being written)
            (length,), (hcrc,) = struct.unpack("<Q", header[:8]), struct.unpack("<I", header[8:])
            if masked(header[:8]) != hcrc:
                raise ValueError(f"{path}: corrupt record header")
            data, footer = f.read(length), f.read(4)
            if len(data) < length or len(footer) < 4:
                return
            if masked(data) != struct.unpack("<I", footer)[0]:
                raise ValueError(f"{path}: corrupt record data")
            yield data


def read_events(path):
    """Yield every ``Event`` protobuf of one ``events.out.tfevents.*`` file."""
    from tensorboardX.proto.event_pb2 import Event
    for data in _records(path):
        yield Event.FromString(data)


class SummaryReader:
    """Read what a ``SummaryWriter`` wrote: scalars from the event files, tensors from disk.

    Args:
        log_dirs: A directory (searched recursively) or event file, or a list of them.
        filter: Keep only names in groups starting with this string (``filter*/*``).
    """

    def __init__(self, log_dirs, filter: Optional[str] = None, **kwargs):
        self.filter = filter
        if not isinstance(log_dirs, (list, tuple, set)):
            log_dirs = [log_dirs]
        self.event_files = sorted(
            str(p) for d in map(Path, log_dirs)
            for p in (d.rglob("events.out.tfevents.*") if d.is_dir() else [d]))
        if not self.event_files:
            raise RuntimeError(f"No event files found under {log_dirs}")
        self.summary_dirs = []
        for d in map(Path, log_dirs):
            roots = [d] if fnmatch.fnmatch(str(d), "*/events.out.csevents.*") else \
                d.rglob("events.out.csevents.*")
            for root in roots:
                if not root.is_dir():
                    continue
                metadata = root / _METADATA
                if not metadata.exists():
                    raise FileNotFoundError(f"Could not detect version of Cerebras summaries at "
                                            f"directory {root}. This may lead to unexpected "
                                            "behavior.")
                if json.loads(metadata.read_text())[_VERSION_KEY] != _VERSION:
                    warnings.warn(f"Unknown version for Cerebras summaries at {root}; skipped")
                    continue
                if (root / "tensors").exists():
                    self.summary_dirs.append(root / "tensors")
        self._scalars = None

    def reload(self) -> None:
        """Re-read the event files."""
        scalars = defaultdict(list)
        for path in self.event_files:
            for event in read_events(path):
                for v in event.summary.value:
                    if v.WhichOneof("value") == "simple_value":
                        scalars[v.tag].append(ScalarEvent(event.wall_time, event.step,
                                                          v.simple_value))
        self._scalars = dict(scalars)

    def _match(self, name):
        self.reload()
        pattern = os.path.join(f"{self.filter}*", name) if self.filter else name
        return [tag for tag in self._scalars if fnmatch.fnmatch(tag, pattern)]

    def scalar_names(self) -> set:
        return set(self._match("*"))

    def scalar_groups(self) -> set:
        return {name.partition("/")[0] for name in self.scalar_names()}

    def read_scalar(self, name: str, step: Optional[int] = None):
        """All ``ScalarEvent``s of ``name`` (a glob), or the one at ``step``."""
        tags = self._match(name)
        if not tags:
            raise RuntimeError(f"Could not find scalar {name}. Valid scalar names:\n"
                               f"{sorted(self.scalar_names())}")
        events = [e for tag in tags for e in self._scalars[tag]]
        if step is None:
            return events
        for e in events:
            if e.step == step:
                return e
        raise KeyError(f"Could not find scalar {name} at step {step}")

    Scalars = read_scalar

    def Tags(self) -> dict:
        self.reload()
        return {"scalars": sorted(self._scalars)}

    def tensor_names(self) -> set:
        pattern = f"{self.filter}*/**" if self.filter else "**"
        return {str(sub.relative_to(d)) for d in self.summary_dirs for sub in d.glob(pattern)
                if sub.is_dir() and not any(x.is_dir() for x in sub.glob("*"))}

    def read_tensor(self, name: str, step: Optional[int] = None, latest_only: bool = True):
        """The ``TensorDescriptor``(s) of ``name``: at ``step``, or a dict step -> descriptor(s)."""
        from ...storage import load
        pattern = os.path.join(f"{self.filter}*", name) if self.filter else name
        pattern = os.path.join(pattern, f"{step}.*" if step is not None else "*")
        found = defaultdict(list)
        for d in self.summary_dirs:
            for path in d.glob(pattern):
                content = load(str(path), map_location="cpu")
                desc = TensorDescriptor.from_dict(dict(content))
                found[desc.step].append(desc)
        if not found:
            warnings.warn(f"No tensor with name {name} has been summarized"
                          + (f" at step {step}" if step is not None else ""))
            return None

        def pick(descs):
            if not latest_only:
                return sorted(descs, key=lambda x: x.ns_since_epoch)
            return max(descs, key=lambda x: x.ns_since_epoch)
        if step is not None:
            return pick(found[step])
        return {s: pick(descs) for s, descs in found.items()}
