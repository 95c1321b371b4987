"""``cstorch.save``: write a pytree to the cstorch 2.10 checkpoint format (version 0.5).

The file is one flat HDF5 file (notes/checkpoint_format.md): one dataset per tensor / array /
pickled leaf named by its dotted key, root attributes ``__spec__``, ``__version__`` (0.5),
``__cstorch_version__``, one ``"<key>.__metadata__"`` JSON per flattened leaf and ``__SUCCESS__``.
All JSON texts are byte-identical to the real stack's; datasets are stored uncompressed
(contiguous), which the real loader reads like its own LZ4-chunked ones.

Atomicity: everything is written to ``"<path>.<8 hex>.<host tag>-<pid>.tmp"`` in the same directory
(created exclusively and ``flock``-ed by the writer until published), the per-leaf metadata and
``__SUCCESS__`` last, the file is fsync'ed and then moved to ``<path>`` in one step that never
replaces an existing file. Every error that can be detected from the tree (requires-grad tensors,
unsupported dtypes, trees the format cannot name) is raised before any file is created, and any
later failure removes the temporary file (the real stack leaves it behind). A writer killed outright
leaves its temporary file; the next save in that directory removes it (rules in
:mod:`._tempfiles`). When the current backend has a ``checkpoint_retention``
(:class:`~.retention.CheckpointRetention`, ``max_checkpoints``), every published checkpoint is
reported to it.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

from ..torch._tensor import Tensor
from . import _tempfiles, _tree
from . import serializers as S

__all__ = ["save", "CURRENT_CKPT_FORMAT_VERSION"]

CURRENT_CKPT_FORMAT_VERSION = 0.5
_CSTORCH_VERSION = "2.10.0"  # the cerebras.pytorch release whose format this is


def _compress_flag() -> bool:
    try:
        from .. import backends
        return bool(backends.csx.performance.compress_weights)
    except Exception:  # noqa: BLE001  (flag tree not importable: use the real default)
        return False


def _check_path(ckpt_path) -> str:
    if isinstance(ckpt_path, (bytes, os.PathLike)):
        path = os.fsdecode(ckpt_path)
    elif isinstance(ckpt_path, str):
        path = ckpt_path
    else:
        raise TypeError(f"ckpt_path must be a str or os.PathLike, got {type(ckpt_path).__name__}")
    if "://" in path:
        raise NotImplementedError(f"Could not save to {path}: only local file paths are supported "
                                  "(the real stack also writes s3:// checkpoints)")
    return path


def save(state_dict, ckpt_path) -> None:
    """Save ``state_dict`` (any pytree of dicts/lists/tuples/... with tensors, numpy arrays, Python
    scalars, strings, None and picklable objects) to ``ckpt_path`` in the cstorch format.

    Raises ``FileExistsError`` if ``ckpt_path`` exists (checkpoints are never overwritten).
    """
    path = _check_path(ckpt_path)
    if os.path.exists(path):
        raise FileExistsError(f"Checkpoint at '{ckpt_path}' already exists. "
                              "Please delete the checkpoint and run again.")

    # -- everything that can fail on the tree itself, before touching the disk -----------------------
    leaves, keys, schema = _tree.flatten(state_dict)
    _check_unique(keys)
    spec_text = json.dumps([_tree.skeleton_json(state_dict), json.dumps([1, schema])], indent=4)
    compressed = _compress_flag()

    seen = {}
    metadata = {}  # key -> metadata object
    writes = []  # (key, kind, value) for leaves with a dataset; tensors go last, as in the real stack
    tensor_writes = []
    for key, val in zip(keys, leaves):
        first = seen.get(id(val))
        if first is not None:
            metadata[key] = S.linked_metadata(first)
            continue
        seen[id(val)] = key
        kind = S.serializer_kind(val)
        if kind == "tensor":
            md = S.tensor_metadata(val, compressed)
            if val._rg:
                raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                                   "tensor.detach().numpy() instead.")
            if val._meta:
                raise NotImplementedError("Cannot copy out of meta tensor; no data!")
            tensor_writes.append((key, kind, val))
        elif kind == "numpy":
            md = S.numpy_metadata(val, compressed)
            writes.append((key, kind, val))
        elif kind == "scalar":
            md = S.scalar_metadata(val)
        elif kind == "string":
            md = S.string_metadata(val)
        elif kind == "none":
            md = S.none_metadata()
        elif kind == "deferred_object":
            md = S.object_metadata(compressed)
            writes.append((key, kind, val.data))
        else:
            md = S.object_metadata(compressed)
            writes.append((key, kind, S.dumps_object(val)))
        if key == "" and kind in ("tensor", "numpy", "object", "deferred_object"):
            raise TypeError("cannot save a top-level tensor, array or object: its HDF5 dataset "
                            "would have an empty name (the real stack fails with 'expected bytes, "
                            "str found'). Wrap it in a dict.")
        metadata[key] = md
    writes.extend(tensor_writes)

    root_metadata = {}
    for key in keys:
        blob = {"__spec__": [{key: "*"}, _tree.single_key_spec(key)],
                "__objects__": [key],
                f"{key}.__metadata__": metadata[key]}
        try:
            root_metadata[f"{key}.__metadata__"] = json.dumps(blob, indent=4)
        except TypeError as e:
            raise TypeError("Metadata must be JSON serializable") from e

    # -- write ---------------------------------------------------------------------------------------
    import h5py

    directory = os.path.dirname(os.path.abspath(path))
    _tempfiles.clean_stale_temp_files(directory)
    tmpf = _tempfiles.TempCheckpointFile(path)  # created, and locked until published
    tmp = tmpf.path
    progress = _progress(len(leaves))
    try:
        # HDF5 writes through our descriptor: it never opens (or locks) the path itself
        with h5py.File(tmpf.file, "w") as f:
            f.attrs.update({"__spec__": spec_text, "__version__": CURRENT_CKPT_FORMAT_VERSION,
                            "__cstorch_version__": _CSTORCH_VERSION})
            _flush(f, tmpf)
            for key, kind, val in writes:
                _write_dataset(f, key, kind, val, metadata[key])
                # flushed after every dataset, so that a killed save leaves a readable file that
                # loads as "partially written" (like the real stack's, which reopens the file per write)
                _flush(f, tmpf)
                if progress is not None:
                    progress.update(1)
            f.attrs.update(root_metadata)
            f.attrs["__SUCCESS__"] = True
        tmpf.file.flush()
        _fsync(tmp)
        _publish(tmp, path, ckpt_path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    finally:
        tmpf.close()
        if progress is not None:
            progress.close()
    _fsync_dir(directory)
    retention = _retention()
    if retention is not None:
        retention.saved(path)


def _flush(f, tmpf):
    f.flush()
    tmpf.file.flush()


def _retention():
    """The current backend's :class:`~.retention.CheckpointRetention` (``max_checkpoints``), if
    it has one."""
    try:
        from ..backend import current_backend_impl
        impl = current_backend_impl(raise_exception=False)
    except Exception:  # noqa: BLE001  (no backend machinery importable: nothing to apply)
        return None
    return getattr(impl, "checkpoint_retention", None)


def _check_unique(keys):
    if len(set(keys)) != len(keys):
        seen, dups = set(), []
        for k in keys:
            if k in seen:
                dups.append(k)
            seen.add(k)
        raise _tree.TreeFormatError(
            f"cannot save: several leaves get the same checkpoint key {sorted(set(dups))!r} once "
            "their paths are joined with '.' (the real stack writes such a file and then fails to "
            "load it). Rename the colliding keys.")


def _write_dataset(f, key, kind, val, md):
    import h5py
    if kind == "tensor":
        arr = S.tensor_array(val)
        d = f.create_dataset(key, data=arr)
        d.attrs.update(md)
        d.attrs["__NUMPY__"] = True
    elif kind == "numpy":
        d = f.create_dataset(key, data=S.numpy_array(val))
        d.attrs.update(md)
        d.attrs["__NUMPY__"] = True
    else:
        d = f.create_dataset(key, data=h5py.Empty("f"), track_order=True)
        d.attrs.update(md)
        d.attrs["__BYTES__"] = np.frombuffer(val, dtype="V1")  # opaque 1-byte array, as real


def _progress(total):
    try:
        if not sys.stdout.isatty():
            return None
        from tqdm import tqdm
    except Exception:  # noqa: BLE001
        return None
    return tqdm(total=total, desc="Saving checkpoint", dynamic_ncols=True, unit=" tensors",
                file=sys.stdout)


def _fsync(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(dirname):
    try:
        fd = os.open(dirname, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _publish(tmp, path, shown):
    """Move the finished file into place without ever replacing an existing checkpoint."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise FileExistsError(f"Checkpoint at '{shown}' already exists. "
                              "Please delete the checkpoint and run again.") from None
    except OSError:  # no hard links on this filesystem: plain rename (what the real stack does)
        os.rename(tmp, path)
        return
    os.unlink(tmp)
