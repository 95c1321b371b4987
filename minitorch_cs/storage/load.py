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

Numpy leaves are always read at load time and come back as ``np.ndarray``. Pickled leaves come
back as :class:`~.serializers.DeferredObject` (nothing is unpickled at load time); with
``weights_only=True`` they are unpickled now through PyTorch's weights-only allow-list instead.

Nothing in the file is trusted (SPEC "Threat model"): every dataset is reached through hard links
only, its raw data must live in this file (no external storage, no virtual dataset), and the data it
declares must be backed by bytes actually stored (contiguous: exactly; chunked: every chunk present,
each no larger than its filters can legitimately decode) before anything is allocated.
"""
from __future__ import annotations

import json
import math
import os
import pickle
import threading
import weakref

import ml_dtypes
import numpy as np

from ..torch import _dtype as D
from ..torch._device import device as _Device
from ..torch._tensor import Tensor
from . import _heap, _lz4, _tree
from . import serializers as S

__all__ = ["load"]

_LAZY = object()


def load(ckpt_path, map_location=None, **kwargs):
    """Load a checkpoint written by :func:`save` or by the real ``cstorch.save``.

    Raises ``FileNotFoundError`` for a missing path, ``RuntimeError`` for a partially written
    checkpoint, for files that are not cstorch checkpoints, for legacy (< 0.5) checkpoints and for
    data the loader refuses to read (links, external or virtual storage, sizes the stored bytes do
    not back). ``weights_only`` (keyword; default None, as the real stack, which ignores it for
    cstorch files): when true, pickled leaves are unpickled at load time through PyTorch's
    weights-only allow-list (``pickle.UnpicklingError`` otherwise); when None or False they come
    back as ``DeferredObject``. Other ``kwargs`` are accepted for signature compatibility (the real
    stack hands them to ``torch.load`` for non-cstorch files) and ignored.
    """
    weights_only = bool(kwargs.pop("weights_only", None))
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
    bad = _heap.malformed_heap(path, f.id.get_create_plist().get_sizes()[1])
    if bad is not None:  # (libhdf5 would loop forever reading its strings)
        f.close()
        raise _malformed(ckpt_path, f"{bad}: the file is damaged (or crafted); nothing in it "
                                    "was read")

    source = _H5Source(path, f)
    try:
        tree, lazy = _load_tree(source, f, ckpt_path, target, weights_only)
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


def _load_tree(source, f, ckpt_path, target, weights_only=False):
    try:
        attrs = _read_attrs(f.id, "the root group")
    except Refused as e:
        raise _malformed(ckpt_path, str(e), e) from e
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
    except _tree.TreeFormatError as e:
        raise _malformed(ckpt_path, f"its `__spec__` treespec cannot be decoded: {e}", e) from e
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
            value, is_lazy = _deserialize(source, key, md, target, weights_only, ckpt_path)
        except _LinkMarker as link:
            links[key] = link.target
            values[key] = None
            continue
        except Refused as e:
            raise _malformed(ckpt_path, f"leaf {key!r} is refused: {e}", e) from e
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


def _deserialize(source, key, md, target, weights_only=False, ckpt_path=None):
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
        if any(s < 0 for s in shape):
            raise ValueError(f"negative dimension in shape {list(shape)}")
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
        if not weights_only:
            return S.DeferredObject(key, data), False  # unpickled only on `.value`
        try:
            return S.unpickle_restricted(data, weights_only=True), False
        except pickle.UnpicklingError as e:
            raise pickle.UnpicklingError(
                f"Weights only load failed. Checkpoint leaf {key!r} of `{ckpt_path}` is a pickled "
                f"object that weights_only=True may not unpickle: {e}\nWithout weights_only=True "
                "it loads as a DeferredObject (nothing is unpickled until `.value`, which uses a "
                "wider allow-list); if you trust the file, allow the global with "
                "`torch.serialization.add_safe_globals([...])`.") from None
    raise ValueError(f"No serializer registered with name {typ}.")


def _as_bf16(arr):
    if arr.dtype == ml_dtypes.bfloat16:
        return arr
    if arr.dtype in (np.int16, np.uint16):
        return arr.view(ml_dtypes.bfloat16)
    return arr.astype(ml_dtypes.bfloat16)


class Refused(ValueError):
    """Data in the file the loader does not read (it would leave the file or exhaust memory)."""


_OUTSIDE = "minitorch_cs reads data only from the checkpoint file itself"

# The most a filter can expand the bytes it decodes (None: refused, its ratio is unbounded or it is
# not a filter the real stack writes). deflate: zlib's 1032:1; LZ4 block format: a match length
# byte adds at most 255 bytes; LZF: a 3-byte back reference copies at most 264 bytes.
_FILTER_RATIO = {1: 1032, 2: 1, 3: 1, 32000: 89, _lz4.LZ4_FILTER_ID: 256}
_FILTER_NAME = {1: "deflate", 2: "shuffle", 3: "fletcher32", 4: "szip", 5: "nbit",
                6: "scaleoffset", 32000: "lzf", _lz4.LZ4_FILTER_ID: "lz4"}


def _hard_linked(gid, key, path):
    """The object at ``key``, reached through hard links only (the final link too)."""
    import h5py
    parts = [p for p in key.split("/") if p]
    if not parts:
        raise KeyError(f"dataset {key!r} is missing from {path}")
    for i, part in enumerate(parts):
        name = part.encode("utf-8")
        where = "/".join(parts[:i + 1])
        try:
            info = gid.links.get_info(name)
        except (KeyError, ValueError, RuntimeError):
            raise KeyError(f"dataset {key!r} is missing from {path}") from None
        if info.type == h5py.h5l.TYPE_SOFT:
            target = gid.links.get_val(name).decode("utf-8", "replace")
            raise Refused(f"{where!r} is a soft link to {target!r}; checkpoint datasets are read "
                          "only through hard links")
        if info.type == h5py.h5l.TYPE_EXTERNAL:
            fname, oname = gid.links.get_val(name)
            raise Refused(f"{where!r} is an external link to {oname.decode('utf-8', 'replace')!r} "
                          f"in the file {fname.decode('utf-8', 'replace')!r}; {_OUTSIDE}")
        if info.type != h5py.h5l.TYPE_HARD:
            raise Refused(f"{where!r} is a user-defined link (type {info.type}); {_OUTSIDE}")
        obj = h5py.h5o.open(gid, name)
        if i < len(parts) - 1:
            if not isinstance(obj, h5py.h5g.GroupID):
                raise KeyError(f"dataset {key!r} is missing from {path}")
            gid = obj
    if not isinstance(obj, h5py.h5d.DatasetID):
        raise KeyError(f"{key!r} in {path} is not a dataset")
    return obj


def _check_attr(aid, what):
    import h5py
    tid = aid.get_type()
    if tid.get_class() in (h5py.h5t.VLEN, h5py.h5t.REFERENCE) or (
            tid.get_class() == h5py.h5t.STRING and tid.is_variable_str()):
        return  # variable-length data: read from the file's heap by HDF5, bounded by the file
    shape = aid.shape
    declared = math.prod(shape or ()) * tid.get_size()
    if aid.get_storage_size() != declared:
        raise Refused(f"attribute {aid.name.decode('utf-8', 'replace')!r} of {what} declares "
                      f"{declared} bytes but stores {aid.get_storage_size()}")


def _read_attrs(oid, what) -> dict:
    """All attributes of an object, each checked against its stored size before it is read."""
    import h5py
    out = {}
    for i in range(h5py.h5a.get_num_attrs(oid)):
        aid = h5py.h5a.open(oid, index=i)
        _check_attr(aid, what)
        name = aid.name.decode("utf-8", "replace")
        out[name] = h5py.AttributeManager(h5py.Group(oid) if isinstance(oid, h5py.h5g.GroupID)
                                          else h5py.Dataset(oid))[name]
    return out


def check_dataset(did, key, path, shape=None) -> int:
    """Every check before a dataset is read; returns its size in bytes. ``shape``: the shape the
    leaf metadata declares (the dataset must hold that many elements)."""
    import h5py
    dcpl = did.get_create_plist()
    layout = dcpl.get_layout()
    if layout == h5py.h5d.VIRTUAL:
        srcs = sorted({(dcpl.get_virtual_filename(i), dcpl.get_virtual_dsetname(i))
                       for i in range(dcpl.get_virtual_count())})
        raise Refused(f"dataset {key!r} is a virtual dataset mapping "
                      f"{', '.join(f'{d!r} of file {f!r}' for f, d in srcs[:3])}; {_OUTSIDE}")
    if dcpl.get_external_count():
        files = [dcpl.get_external(i)[0].decode("utf-8", "replace")
                 for i in range(dcpl.get_external_count())]
        raise Refused(f"dataset {key!r} keeps its raw data in the external file(s) {files}; "
                      f"{_OUTSIDE}")
    tid = did.get_type()
    if tid.get_class() in (h5py.h5t.VLEN, h5py.h5t.REFERENCE) or (
            tid.get_class() == h5py.h5t.STRING and tid.is_variable_str()):
        raise Refused(f"dataset {key!r} holds variable-length or reference data, not an array")
    dshape = did.shape
    if dshape is None:
        return 0
    numel = math.prod(dshape)
    if shape is not None and numel != math.prod(shape):
        raise ValueError(f"dataset {key!r} has shape {dshape}, its metadata says {shape}")
    itemsize = tid.get_size()
    nbytes = numel * itemsize
    if numel == 0:
        return 0
    what = f"dataset {key!r} declares {nbytes} bytes (shape {tuple(dshape)}, {itemsize}-byte items)"
    if layout in (h5py.h5d.COMPACT, h5py.h5d.CONTIGUOUS):
        stored = did.get_storage_size()
        if stored != nbytes:
            raise Refused(f"{what} but the file stores {stored} bytes of data for it")
        return nbytes
    # chunked: every chunk stored, each no larger than its filters can legitimately decode
    filters = _filters_of(dcpl)
    bad = [f for f in filters if _FILTER_RATIO.get(f) is None]
    if bad:
        raise Refused(f"dataset {key!r} uses the HDF5 filter(s) "
                      f"{[_FILTER_NAME.get(f, f) for f in bad]}, which minitorch_cs does not decode "
                      "(it reads deflate, shuffle, fletcher32, lzf and lz4)")
    chunks = dcpl.get_chunk()
    chunk_bytes = math.prod(chunks) * itemsize
    expected = math.prod(-(-s // c) for s, c in zip(dshape, chunks))
    have = did.get_num_chunks()
    if have != expected:
        raise Refused(f"{what} in {expected} chunks, but the file stores {have} of them (the "
                      "others would read as fill values)")
    infos = []
    if hasattr(did, "chunk_iter"):
        did.chunk_iter(infos.append)
    else:
        infos = [did.get_chunk_info(i) for i in range(have)]
    for info in infos:
        ratio = 1
        for i, f in enumerate(filters):
            if not info.filter_mask & (1 << i):
                ratio *= _FILTER_RATIO[f]
        if chunk_bytes > info.size * ratio + 1024:
            names = "+".join(_FILTER_NAME.get(f, str(f)) for f in filters) or "no filter"
            raise Refused(f"{what}: its chunk at {info.chunk_offset} stores {info.size} bytes, "
                          f"which {names} cannot decode to the chunk's {chunk_bytes} bytes")
    return nbytes


def _filters_of(dcpl):
    return [dcpl.get_filter(i)[0] for i in range(dcpl.get_nfilters())]


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
        import h5py
        if not self._f:
            raise RuntimeError(f"the checkpoint file {self.path} has been closed")
        return h5py.Dataset(_hard_linked(self._f.id, key, self.path))

    def read_array(self, key, shape=None) -> np.ndarray:
        """The dataset's array, after every check of :func:`check_dataset` (``shape``: the shape
        the leaf metadata declares)."""
        from ..torch.serialization import _check_allocation
        with self._lock:
            dset = self._dataset(key)
            if dset.shape is None:
                raise ValueError(f"dataset {key!r} holds no array")
            nbytes = check_dataset(dset.id, key, self.path, shape)
            _check_allocation(nbytes, f"dataset {key!r} of {self.path}")
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
        try:
            arr = self.read_array(key, shape)
        except Refused as e:  # a deferred tensor read later fails as the eager load would
            raise _malformed(self.path, f"leaf {key!r} is refused: {e}", e) from e
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
            raw = _read_attrs(dset.id, f"dataset {key!r}").get("__BYTES__")
        if raw is None:
            raise ValueError(f"dataset {key!r} has no __BYTES__ attribute")
        return np.asarray(raw).tobytes()


def _close_quietly(f):
    try:
        f.close()
    except Exception:  # noqa: BLE001
        pass


def _filters(dset):
    return _filters_of(dset.id.get_create_plist())


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
