"""``cstorch.load``: read a cstorch checkpoint (format 0.5), ours or the real stack's.

Only what the real loader relies on is required (notes/checkpoint_format.md §8): the root attributes
``__version__``, ``__SUCCESS__``, ``__spec__`` (its treespec string) and ``"<key>.__metadata__"``
for every leaf, plus the datasets of tensor / array / pickled leaves. Datasets compressed with the
HDF5 LZ4 filter (what the real stack writes) are read through ``hdf5plugin`` when it is importable,
otherwise with the pure-Python decoder in :mod:`._lz4`.

``map_location``:

* ``None`` – tensors are :class:`~.serializers.DeferredTensor`: nothing is read until the data is first
  used, then the tensor keeps its data (and becomes a plain Tensor);
* ``"cache"`` – the same (the real stack re-reads uncached deferred tensors on every access; here a
  tensor always keeps its data once read);
* ``"cpu"``, another device string, a ``torch.device`` or a cstorch device – every tensor is read
  now and moved there with ``.to()``.

Numpy leaves are always read at load time and come back as ``np.ndarray``.
"""
from __future__ import annotations

import json
import math
import os
import threading
import warnings
import weakref

import ml_dtypes
import numpy as np

from ..torch import _dtype as D
from ..torch._device import device as _Device
from ..torch._tensor import Tensor
from . import _lz4, _tree
from . import serializers as S

__all__ = ["load"]

_LAZY = object()


def load(ckpt_path, map_location=None, **kwargs):
    """Load a checkpoint written by :func:`save` or by the real ``cstorch.save``.

    Raises ``FileNotFoundError`` for a missing path, ``RuntimeError`` for a partially written
    checkpoint, for files that are not cstorch checkpoints, and for legacy (< 0.5) checkpoints.
    ``kwargs`` are accepted for signature compatibility (the real stack hands them to
    ``torch.load`` for non-cstorch files) and ignored.
    """
    if not isinstance(ckpt_path, (str, bytes, os.PathLike)):
        raise RuntimeError(f"Failed to load checkpoint file `{ckpt_path}`.") from TypeError(
            "minitorch_cs loads checkpoints from a path only (the real stack hands file objects "
            "to torch.load, which minitorch_cs does not have)")
    path = os.fsdecode(ckpt_path) if not isinstance(ckpt_path, str) else ckpt_path
    target = _resolve_map_location(map_location)

    if not os.path.exists(path):
        raise FileNotFoundError(f"{ckpt_path} does not exist")

    import h5py

    if not h5py.is_hdf5(path):
        raise RuntimeError(f"Failed to load checkpoint file `{ckpt_path}`.") from ValueError(
            f"{ckpt_path} is not an HDF5 file (and minitorch_cs has no torch.load/safetensors "
            "fallback)")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise RuntimeError(f"Failed to load checkpoint file `{ckpt_path}`.") from e

    source = _H5Source(path, f)
    try:
        tree, lazy = _load_tree(source, f, ckpt_path, target)
    except BaseException:
        source.close()
        raise
    if not lazy:
        source.close()
    return tree


def _resolve_map_location(map_location):
    if map_location is None or (isinstance(map_location, str) and map_location == "cache"):
        return _LAZY
    if isinstance(map_location, (str, _Device)):
        return _Device(map_location)
    dev = getattr(map_location, "torch_device", None)  # a cstorch backend device
    if isinstance(dev, _Device):
        return dev
    raise TypeError(f"map_location must be None, 'cache', a device string or a torch.device, got "
                    f"{type(map_location).__name__} (dict and callable map_locations are only "
                    "supported by torch.load)")


def _text(v):
    return v.decode("utf-8") if isinstance(v, (bytes, np.bytes_)) else v


def _malformed(ckpt_path, what, cause=None):
    err = RuntimeError(f"Failed to load checkpoint file `{ckpt_path}`: {what}")
    err.__cause__ = cause
    return err


def _load_tree(source, f, ckpt_path, target):
    try:
        attrs = {k: f.attrs[k] for k in f.attrs}
    except Exception as e:  # noqa: BLE001  (unreadable attribute types)
        raise _malformed(ckpt_path, "its root attributes cannot be read", e) from e

    if "__version__" not in attrs:
        raise _malformed(ckpt_path, "it is an HDF5 file but not a cstorch checkpoint (it has no "
                                    "`__version__` attribute)", KeyError("__version__"))
    try:
        version = float(np.asarray(attrs["__version__"]).reshape(()))
    except (TypeError, ValueError) as e:
        raise _malformed(ckpt_path, f"its `__version__` {attrs['__version__']!r} is not a "
                                    "number", e) from e
    if version < 0.5:
        raise RuntimeError(
            f"Cannot load checkpoint at {ckpt_path}: it uses the legacy cstorch checkpoint format "
            f"{version} (cstorch 1.7-2.0), which minitorch_cs does not read. Convert it with the "
            "real stack: cstorch.save(cstorch.load(old_path), new_path).")

    if not attrs.get("__SUCCESS__", False):
        raise RuntimeError(f"Cannot load partially written checkpoint at {ckpt_path}.")

    try:
        spec_pair = json.loads(_text(attrs["__spec__"]))
        spec = _tree.spec_from_json(spec_pair[1])
        keys = _tree.leaf_keys(spec)
    except Exception as e:  # noqa: BLE001
        raise _malformed(ckpt_path, "its `__spec__` treespec cannot be decoded", e) from e

    values = {}
    links = {}
    lazy = False
    for key in keys:
        name = f"{key}.__metadata__"
        if name not in attrs:
            raise _malformed(ckpt_path, f"the metadata attribute {name!r} of leaf {key!r} is "
                                        "missing", KeyError(name))
        try:
            blob = json.loads(_text(attrs[name]))
            md = blob[name]
        except Exception as e:  # noqa: BLE001
            raise _malformed(ckpt_path, f"the metadata of leaf {key!r} cannot be decoded", e) from e
        if key not in blob.get("__objects__", [key]):
            raise _malformed(ckpt_path, f"leaf {key!r} is a nested serialized object, which "
                                        "minitorch_cs does not support")
        try:
            value, is_lazy = _deserialize(source, key, md, target)
        except _LinkMarker as link:
            links[key] = link.target
            values[key] = None
            continue
        except (KeyError, ValueError, TypeError, OSError) as e:
            raise _malformed(ckpt_path, f"leaf {key!r} cannot be read ({type(e).__name__}: {e})",
                             e) from e
        lazy |= is_lazy
        values[key] = value

    for key, tgt in links.items():
        if tgt not in values or tgt in links:
            raise _malformed(ckpt_path, f"leaf {key!r} links to {tgt!r}, which is not a stored leaf")
        values[key] = values[tgt]
    try:
        return _tree.unflatten(spec, (values[k] for k in keys)), lazy
    except _tree.TreeFormatError as e:
        raise _malformed(ckpt_path, str(e), e) from e


class _LinkMarker(Exception):
    def __init__(self, target):
        super().__init__(target)
        self.target = target


def _flag(md, name) -> bool:
    v = md.get(name, False)
    return bool(np.asarray(v).any()) if isinstance(v, np.ndarray) else bool(v)


def _deserialize(source, key, md, target):
    """One leaf from its metadata object → (value, is_lazy)."""
    typ = _text(md.get("__TYPE__"))
    if typ is None:
        raise ValueError(f"Missing __TYPE__ in metadata for {key}: {md}")
    if _flag(md, "__NONE__"):
        if typ == "ScalarSerializer":
            return md["scalar_value"], False
        if typ == "StringSerializer":
            return md["string_value"], False
        if typ == "NoneSerializer":
            return None, False
        if typ == "LinkedObject":
            raise _LinkMarker(md["key"])
        raise ValueError(f"No serializer registered with name {typ}.")
    if typ == "TorchTensorSerializer":
        dtype_name = md["dtypes"][0].split(".", 1)[-1]
        try:
            dtype = D.to_dtype(dtype_name)
        except TypeError:
            raise ValueError(f"tensor dtype torch.{dtype_name} is not supported by minitorch_cs") \
                from None
        shape = tuple(int(s) for s in md["shapes"][0])
        if target is _LAZY:
            return S.DeferredTensor(source, key, shape, dtype), True
        t = Tensor._wrap(source.read_tensor(key, dtype, shape))
        return t.to(target), False
    if typ == "NumpyArraySerializer":
        arr = source.read_array(key)
        if _flag(md, "is_bfloat16"):
            arr = _as_bf16(arr)
        return arr, False
    if typ == "ObjectSerializer":
        data = source.read_bytes(key)
        try:
            return S.loads_object(data), False
        except Exception as e:  # noqa: BLE001  (keep loading; the leaf stays inspectable)
            warnings.warn(f"checkpoint leaf {key!r} could not be unpickled ({type(e).__name__}: {e});"
                          " it is returned as a DeferredObject", RuntimeWarning, stacklevel=4)
            return S.DeferredObject(key, data, e), False
    raise ValueError(f"No serializer registered with name {typ}.")


def _as_bf16(arr):
    if arr.dtype == ml_dtypes.bfloat16:
        return arr
    if arr.dtype in (np.int16, np.uint16):
        return arr.view(ml_dtypes.bfloat16)
    return arr.astype(ml_dtypes.bfloat16)


class _H5Source:
    """The open checkpoint file that deferred tensors read from (closed when they are all gone)."""

    _plugin_checked = False

    def __init__(self, path, f):
        self.path = path
        self._f = f
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _close_quietly, f)

    def close(self):
        self._finalizer()

    def _dataset(self, key):
        if not self._f:
            raise RuntimeError(f"the checkpoint file {self.path} has been closed")
        try:
            return self._f[key]
        except KeyError:
            raise KeyError(f"dataset {key!r} is missing from {self.path}") from None

    def read_array(self, key) -> np.ndarray:
        with self._lock:
            dset = self._dataset(key)
            if dset.shape is None:
                raise ValueError(f"dataset {key!r} holds no array")
            filters = _filters(dset)
            if _lz4.LZ4_FILTER_ID in filters and not _lz4_plugin_available():
                if filters != [_lz4.LZ4_FILTER_ID]:
                    raise OSError(f"dataset {key!r} uses HDF5 filters {filters}; without hdf5plugin "
                                  "only the LZ4 filter alone can be decoded")
                arr = _lz4.read_lz4_dataset(dset)
            else:
                arr = np.asarray(dset[...])
        if not arr.flags.writeable or not arr.flags.owndata and arr.base is not None:
            arr = arr.copy()
        return arr

    def read_tensor(self, key, dtype, shape) -> np.ndarray:
        arr = self.read_array(key)
        if dtype is D.bfloat16:
            arr = _as_bf16(arr)
        elif arr.dtype != dtype.np:
            arr = arr.astype(dtype.np)
        if arr.shape != shape:
            if arr.size != math.prod(shape):
                raise ValueError(f"dataset {key!r} has shape {arr.shape}, its metadata says {shape}")
            arr = arr.reshape(shape)
        return arr

    def read_bytes(self, key) -> bytes:
        with self._lock:
            dset = self._dataset(key)
            raw = dset.attrs.get("__BYTES__")
        if raw is None:
            raise ValueError(f"dataset {key!r} has no __BYTES__ attribute")
        return np.asarray(raw).tobytes()


def _close_quietly(f):
    try:
        f.close()
    except Exception:  # noqa: BLE001
        pass


def _filters(dset):
    plist = dset.id.get_create_plist()
    return [plist.get_filter(i)[0] for i in range(plist.get_nfilters())]


_PLUGIN = []


def _lz4_plugin_available() -> bool:
    """True when the HDF5 LZ4 filter is registered (importing ``hdf5plugin`` registers it)."""
    if not _PLUGIN:
        import h5py
        if not h5py.h5z.filter_avail(_lz4.LZ4_FILTER_ID):
            try:
                import hdf5plugin  # noqa: F401
            except Exception:  # noqa: BLE001
                pass
        _PLUGIN.append(bool(h5py.h5z.filter_avail(_lz4.LZ4_FILTER_ID)))
    return _PLUGIN[0]
