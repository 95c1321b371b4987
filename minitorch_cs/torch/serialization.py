"""``torch.save`` / ``torch.load`` in PyTorch's own file format, so files move both ways.

The format (torch ≥ 1.6, "zipfile serialization"): an uncompressed zip whose entries sit under one
directory (the file's base name, or ``archive``): ``data.pkl`` — the object pickled with protocol
2, every tensor reduced to ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
requires_grad, hooks)`` and every storage written as a persistent id ``("storage",
torch.<Type>Storage, key, "cpu", numel)`` — then ``data/<key>`` with each storage's raw little-endian
bytes, and the records ``version`` (3), ``byteorder``, ``.format_version``, ``.storage_alignment``.
Parameters use ``_rebuild_parameter``; ``torch.Size``, ``torch.device`` and dtypes are globals.

We write those references by name without importing torch (a pure-Python pickler that emits the
GLOBAL opcodes itself) and read them back through an unpickler that maps them to our classes.
``weights_only=True`` (torch's default since 2.6) interprets the pickle with the allow-list
unpickler of :mod:`._weights_only_unpickler` (torch 2.13's semantics and messages, and its
``add_safe_globals`` API). Whatever ``weights_only``, the zip directory, every record and every
tensor view are checked before anything is read or allocated (SPEC "Threat model").
Tensors that view one array are written as views of one storage (offset and strides), and come
back as views sharing it (tied or sliced weights stay tied). Differences (SPEC §3.1): tensors whose
elements overlap in memory (stride 0) come back as private copies; ``map_location`` accepts only CPU
targets.
"""

import codecs
import collections
import importlib
import io
import math
import os
import pickle
import re
import sys
import tempfile
import warnings
import zipfile
import zlib

import numpy as np

from . import _dtype as D
from . import _weights_only_unpickler as _wou

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals"]

_STORAGE = {"float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
            "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
            "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage",
            "bool": "BoolStorage"}
_STORAGE_DTYPE = {v: k for k, v in _STORAGE.items()}


class _Global:
    """A reference written as ``GLOBAL module name`` (the object itself is never imported)."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle requires a callable reducer; it is only ever written
        raise TypeError(f"{self.module}.{self.name} is a reference for the file format")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_ORDERED_DICT = collections.OrderedDict


class _Storage:
    def __init__(self, key, array):
        self.key, self.array = key, array


def _view_in(arr, root):
    """``(element offset, element strides)`` of ``arr`` inside the C-contiguous ``root`` it views,
    or None when it cannot be described so (another dtype, misaligned, negative strides, not
    inside, an empty array)."""
    if arr.dtype != root.dtype or not root.flags.c_contiguous or arr.size == 0 or \
            root.dtype.byteorder == ">":
        return None
    itemsize = arr.itemsize
    start = arr.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if start < 0 or start % itemsize or any(st < 0 or st % itemsize for st in arr.strides):
        return None
    offset = start // itemsize
    strides = tuple(st // itemsize for st in arr.strides)
    last = offset + sum((n - 1) * st for n, st in zip(arr.shape, strides))
    if last >= root.size:
        return None
    return offset, strides


class _Pickler(pickle._Pickler):  # the pure-Python pickler: save_global can be overridden
    def __init__(self, file, storages, protocol=2):
        super().__init__(file, protocol=protocol)
        self.storages = storages
        self._globals = {}
        self._roots = {}  # id(root array) -> (its storage, the root, kept alive while saving)

    def persistent_id(self, obj):
        if isinstance(obj, _Storage):
            name = _STORAGE[D._BY_NP[obj.array.dtype].name]
            return ("storage", self._global("torch", name), obj.key, "cpu", obj.array.size)
        return None

    def _storage_of(self, arr):
        """The storage a tensor's array lives in, with its element offset and strides: tensors
        viewing one C-contiguous root array share one storage, as in torch's files; any other
        array (a broadcast, a reversed or misaligned view) gets a contiguous storage of its own."""
        root = arr
        while isinstance(root.base, np.ndarray):
            root = root.base
        itemsize = arr.itemsize
        view = _view_in(arr, root)
        if view is not None:
            entry = self._roots.get(id(root))
            if entry is None:
                entry = self._roots[id(root)] = (_Storage(str(len(self.storages)), root), root)
                self.storages.append(entry[0])
            return entry[0], view[0], view[1]
        own = np.ascontiguousarray(arr)
        storage = _Storage(str(len(self.storages)), own)
        self.storages.append(storage)
        stride = tuple(s // itemsize for s in own.strides) if own.size else \
            tuple(int(np.prod(own.shape[i + 1:])) for i in range(own.ndim))
        return storage, 0, stride

    def _global(self, module, name):
        key = (module, name)
        if key not in self._globals:
            self._globals[key] = _Global(module, name)
        return self._globals[key]

    def reducer_override(self, obj):
        from ._device import device
        from ._tensor import Size, Tensor
        from .nn.parameter import Parameter
        if isinstance(obj, Parameter):
            data = Tensor._wrap(obj.detach()._data)
            return _REBUILD_PARAMETER, (data, obj.requires_grad, _ORDERED_DICT())
        if isinstance(obj, Tensor):
            obj._check_readable("torch.save")
            storage, offset, stride = self._storage_of(obj.detach()._data)
            return _REBUILD_TENSOR, (storage, offset, tuple(obj.shape), stride,
                                     obj.requires_grad, _ORDERED_DICT())
        if isinstance(obj, Size):
            return self._global("torch", "Size"), (tuple(obj),)
        if isinstance(obj, device):
            args = (obj.type,) if obj.index is None else (obj.type, obj.index)
            return self._global("torch", "device"), args
        if isinstance(obj, (D.dtype, _Global)):
            return obj.name  # a string: pickle saves the object as a global (save_global below)
        return NotImplemented

    def save_global(self, obj, name=None):
        if isinstance(obj, (_Global, D.dtype)):
            module, name = (obj.module, obj.name) if isinstance(obj, _Global) else ("torch",
                                                                                   obj.name)
            self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode())
            self.memoize(obj)
            return
        super().save_global(obj, name)


def _archive_name(f) -> str:
    if isinstance(f, (str, os.PathLike)):
        return os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
    return "archive"


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save ``obj`` (tensors, state dicts, nested containers of Python values) to the path or
    binary file ``f`` in PyTorch's format. A path is written atomically (a temporary file in the
    same directory, renamed into place)."""
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("torch.save: the legacy (pre-1.6) format is not supported; "
                                  "leave _use_new_zipfile_serialization=True")
    storages = []
    buf = io.BytesIO()
    _Pickler(buf, storages, pickle_protocol).dump(obj)
    prefix = _archive_name(f)

    def write(target):
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_STORED) as z:
            z.writestr(f"{prefix}/data.pkl", buf.getvalue())
            z.writestr(f"{prefix}/.format_version", "1")
            z.writestr(f"{prefix}/.storage_alignment", "64")
            if not _disable_byteorder_record:
                z.writestr(f"{prefix}/byteorder", "little")
            for s in storages:
                z.writestr(f"{prefix}/data/{s.key}", s.array.astype(
                    s.array.dtype.newbyteorder("<"), copy=False).tobytes())
            z.writestr(f"{prefix}/version", "3\n")

    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp",
                                   dir=os.path.dirname(os.path.abspath(path)))
        try:
            with os.fdopen(fd, "wb") as fh:
                write(fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    else:
        write(f)


# ----- load ---------------------------------------------------------------------------------------
# What torch.load trusts and what it refuses (SPEC "Threat model"): the zip directory is checked
# before any record is read (entries may not overlap, records are stored or deflated and never
# declare more bytes than their compressed data can produce), each storage record must hold exactly
# the bytes its persistent id declares, and every tensor view must lie inside its storage (PyTorch
# 2.13's checks and messages). ``weights_only=True`` unpickles through the allow-list unpickler.

_MINIZ_SUFFIX = (" This is an internal miniz error. If you are seeing this error, there is a high "
                 "likelihood that your checkpoint file is corrupted. This can happen if the "
                 "checkpoint was not saved properly, was transferred incorrectly, or the file was "
                 "modified after saving.")
# zlib's deflate format cannot expand data by more than 1032:1 (zlib technical details): a record
# declaring more than that many bytes per compressed byte is a zip bomb or a corrupted entry.
_DEFLATE_MAX_RATIO = 1032
_INT64_MAX = 2**63 - 1
_UINT64 = 2**64

_UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely "
    "succeed, but it can result in arbitrary code execution. Do it only if you got the file from a "
    "trusted source.")
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
    "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


def _wo_message(message: str) -> str:
    """PyTorch 2.13's wrapping of a weights-only unpickling error (torch.serialization.load)."""
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return ("Weights only load failed. This file can still be loaded, to do so you have two "
                "options, \033[1mdo those steps only if you trust the source of the checkpoint"
                f"\033[0m. \n\t(1) {_UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with "
                "`weights_only=True` please check the recommended steps in the following error "
                "message.\n\tWeightsUnpickler error: " + message + _DOCS_MESSAGE)
    if re.search(r"(\S+) must be (\S+) to load", message):
        return f"Weights only load failed. {message}\n {_UNSAFE_MESSAGE}\n"
    updated = f"Weights only load failed. {_UNSAFE_MESSAGE}\n"
    if re.search(r"whose module (\S+) is blocked", message) is None:
        updated += ("Please file an issue with the following so that we can make `weights_only=True` "
                    "compatible with your use case: WeightsUnpickler error: ")
    return updated + "\n\n" + message + _DOCS_MESSAGE


# -- the user's allow-list (torch.serialization's public API) ------------------------------------------
def clear_safe_globals() -> None:
    """Clear the list of globals that are safe for ``weights_only`` load."""
    _wou._clear_safe_globals()


def get_safe_globals() -> list:
    """The list of user-added globals that are safe for ``weights_only`` load."""
    return _wou._get_safe_globals()


def add_safe_globals(safe_globals: list) -> None:
    """Mark globals (classes or functions, or ``(object, "module.qualname")`` pairs) as safe for
    ``weights_only`` load, as ``torch.serialization.add_safe_globals`` does. The same list extends
    what ``DeferredObject.value`` may unpickle in cstorch checkpoints."""
    _wou._add_safe_globals(safe_globals)


class safe_globals(_wou._safe_globals):
    """Context manager adding globals as safe for ``weights_only`` load while it is active."""


# -- available memory (a refused allocation is a clear error, not the OOM killer) ----------------------
def _available_memory():
    """Bytes of memory the process can still get (MemAvailable), or None when unknown."""
    try:
        with open("/proc/meminfo", "rb") as fh:
            for line in fh:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _check_allocation(nbytes: int, what: str) -> None:
    """Refuse (RuntimeError, PyTorch's CPU allocator message) to allocate more than is available."""
    avail = _available_memory()
    if avail is not None and nbytes > avail:
        raise RuntimeError(f"DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                           f"{nbytes} bytes for {what}, but only {avail} bytes are available. "
                           "Error code 12 (Cannot allocate memory)")


# -- the archive -----------------------------------------------------------------------------------
# what Python's zipfile raises on a damaged archive (a bad signature or CRC, a truncated record, a
# version or encryption flag it does not implement, a name that is not UTF-8)
_DIRECTORY_ERRORS = (zipfile.BadZipFile, EOFError, NotImplementedError, UnicodeDecodeError,
                     ValueError)
_ZIP_ERRORS = _DIRECTORY_ERRORS + (zlib.error, OSError)

class _Archive:
    """A torch zip archive whose directory has been checked before any record is read."""

    def __init__(self, f):
        try:
            self.zf = zipfile.ZipFile(f)
        except _DIRECTORY_ERRORS as e:  # a damaged directory: torch's reader fails in miniz
            raise RuntimeError(f"PytorchStreamReader failed reading zip archive: failed finding "
                               f"central directory ({e}).") from None
        try:
            fp = self.zf.fp
            pos = fp.tell()
            fp.seek(0, io.SEEK_END)
            size = fp.tell()
            fp.seek(pos)
            infos = self.zf.infolist()
            declared = sum(i.compress_size for i in infos)
            if declared > size:
                raise RuntimeError(
                    f"PytorchStreamReader failed reading zip archive: its {len(infos)} entries declare "
                    f"{declared} bytes of data in a {size}-byte file, so entries overlap (a zip bomb "
                    "or a corrupted file).")
            names = [n for n in self.zf.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
            if not names:
                raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
            self.prefix = names[0].split("/", 1)[0]
            order = self._optional("byteorder")
            self.byteorder = order.decode("ascii", "replace").strip() if order is not None \
                else "little"
            if self.byteorder not in ("little", "big"):
                raise RuntimeError(f"Unknown endianness type: {self.byteorder}")
        except BaseException:
            self.zf.close()
            raise

    def close(self):
        self.zf.close()

    def _optional(self, name):
        try:
            self.zf.getinfo(f"{self.prefix}/{name}")
        except KeyError:
            return None
        return self.record(name)

    def record(self, name: str, expected: int | None = None) -> bytes:
        """The bytes of ``<prefix>/<name>``; ``expected``: the size the pickle declared for it."""
        try:
            info = self.zf.getinfo(f"{self.prefix}/{name}")
        except KeyError:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not found."
                               + _MINIZ_SUFFIX) from None
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise RuntimeError(f"PytorchStreamReader failed retrieving file meta-data for {name}: "
                               "unsupported method." + _MINIZ_SUFFIX)
        if expected is not None and info.file_size != expected:
            raise RuntimeError(f"record size ({info.file_size} bytes) does not match expected size "
                               f"({expected} bytes = {expected} elements * 1 bytes/element) for "
                               "dtype Byte")
        _check_allocation(info.file_size, f"record {name}")
        limit = info.compress_size if info.compress_type == zipfile.ZIP_STORED else \
            info.compress_size * _DEFLATE_MAX_RATIO + 64
        if info.file_size > limit:
            raise RuntimeError(
                f"PytorchStreamReader failed reading file {name}: the record declares "
                f"{info.file_size} bytes, more than its {info.compress_size} stored bytes can hold "
                "(a zip bomb or a corrupted file)." + _MINIZ_SUFFIX)
        try:
            data = self.zf.read(info)  # stops at file_size and checks the CRC
        except _ZIP_ERRORS as e:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: {e}."
                               + _MINIZ_SUFFIX) from None
        if len(data) != info.file_size:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: it holds "
                               f"{len(data)} bytes, its header says {info.file_size}."
                               + _MINIZ_SUFFIX)
        return data


class _StorageType:
    """``torch.<Type>Storage`` as a global in a pickle: names a dtype, does nothing else."""

    def __init__(self, name):
        self.name = name
        self.dtype = getattr(D, _STORAGE_DTYPE[name])

    def __repr__(self):
        return f"torch.{self.name}"


class _LoadedStorage:
    """One storage record: a flat native-order array and the loader's allocation budget; the
    tensors viewing it share one writeable copy of it (``writable``)."""

    __slots__ = ("array", "dtype", "budget", "_own")

    def __init__(self, array, dtype, budget):
        self.array, self.dtype, self.budget = array, dtype, budget
        self._own = None

    def writable(self):
        if self._own is None:
            self._own = self.array if self.array.flags.writeable else np.array(self.array)
        return self._own


class _Budget:
    """Bytes read from storage records vs bytes copied into tensors: copies beyond what was read
    (overlapping views, many views of one storage) are checked against the available memory."""

    def __init__(self):
        self.read = 0
        self.copied = 0

    def reserve(self, nbytes: int, what: str):
        if self.copied + nbytes > self.read:
            _check_allocation(nbytes, what)
        self.copied += nbytes


def _set_signature_error(storage, offset, size, stride):
    def tname(v):
        if isinstance(v, _LoadedStorage):
            return "torch.storage.UntypedStorage"
        return type(v).__name__
    got = ", ".join(tname(v) for v in (storage, offset, size, stride))
    return TypeError(f"set_() received an invalid combination of arguments - got ({got}), but "
                     "expected one of:\n * (torch.Storage source, int storage_offset, tuple of ints "
                     "size, tuple of ints stride = None)")


def _int_list(v):
    if isinstance(v, (tuple, list)) and all(type(x) is int for x in v):
        return list(v)
    return None


def _checked_view(storage, storage_offset, size, stride):
    """PyTorch 2.13's checks of ``Tensor.set_(storage, offset, size, stride)``, in its order and
    with its messages; returns ``(offset, size, stride)`` as lists of Python ints."""
    sizes = _int_list(size)
    strides = _int_list(stride) if stride is not None else None
    if (not isinstance(storage, _LoadedStorage) or type(storage_offset) is not int
            or sizes is None or (stride is not None and strides is None)):
        raise _set_signature_error(storage, storage_offset, size, stride)
    for arg, vals in (("size", sizes), ("stride", strides or [])):
        for i, v in enumerate(vals):
            if not -2**63 <= v <= _INT64_MAX:
                raise TypeError(f"set_(): argument '{arg}' failed to unpack the object at pos "
                                f"{i + 1} with error \"Overflow when unpacking long long\n\"")
    if not -2**63 <= storage_offset <= _INT64_MAX:
        raise TypeError("set_(): argument 'storage_offset' must be int, not a number outside int64")
    if strides is None:
        strides, acc = [], 1
        for s in reversed(sizes):
            strides.insert(0, acc)
            acc *= max(s, 1)
    if len(sizes) != len(strides):
        raise RuntimeError(f"unequal size length ({len(sizes)}) and stride length ({len(strides)})")
    if storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    # numel: the sizes multiplied as unsigned 64-bit integers must stay within int64 (c10's
    # safe_compute_numel). A negative size is refused here too: torch accepts it in an empty
    # tensor (sizes [0, -1]), which no array can represent.
    n, overflow = 1, False
    for s in sizes:
        n *= s % _UINT64
        if n >= _UINT64:
            overflow = True
            n %= _UINT64
    if overflow or n > _INT64_MAX or any(s < 0 for s in sizes):
        raise RuntimeError("numel: integer multiplication overflow")
    itemsize = storage.array.dtype.itemsize
    if 0 not in sizes:
        # bytes needed: (offset + 1 + sum(stride * (size - 1))) * itemsize, each step checked for
        # unsigned 64-bit overflow, the total for int64 (c10's computeStorageNbytes)
        needed, overflow = storage_offset + 1, False
        for s, st in zip(sizes, strides):
            prod = st * (s - 1)
            if prod < 0 or prod >= _UINT64:
                overflow = True
            needed += prod
        needed *= itemsize
        if overflow or needed > _INT64_MAX:
            raise RuntimeError(f"Storage size calculation overflowed with sizes={sizes} and "
                               f"strides={strides}")
        if needed > storage.array.size * itemsize:
            raise RuntimeError("Trying to resize storage that is not resizable")
    return storage_offset, sizes, strides


def _tensor_from_storage(storage, storage_offset, size, stride):
    from ._tensor import Tensor
    offset, sizes, strides = _checked_view(storage, storage_offset, size, stride)
    arr = storage.array
    itemsize = arr.dtype.itemsize
    numel = math.prod(sizes)
    if numel == 0:
        return Tensor._wrap(np.empty(sizes, dtype=arr.dtype))
    # dims of size 1 never move: their stride may be anything (torch accepts a negative one)
    strides = [0 if s == 1 else st for s, st in zip(sizes, strides)]
    if _no_overlap(sizes, strides):  # a view of the storage: tensors saved sharing it share it
        base = storage.writable()
        return Tensor._wrap(np.lib.stride_tricks.as_strided(
            base[offset:], shape=tuple(sizes), strides=tuple(st * itemsize for st in strides)))
    storage.budget.reserve(numel * itemsize, f"a tensor of size {sizes}")
    view = np.lib.stride_tricks.as_strided(arr[offset:], shape=tuple(sizes),
                                           strides=tuple(st * itemsize for st in strides),
                                           writeable=False)
    return Tensor._wrap(np.array(view))  # overlapping elements: a private, writeable copy


def _no_overlap(sizes, strides):
    """Whether no two elements of the view share memory (strides positive and each at least the
    extent of the faster-moving dims it encloses)."""
    dims = sorted((st, n) for n, st in zip(sizes, strides) if n > 1)
    extent = 1
    for st, n in dims:
        if st < extent:
            return False
        extent = st * (n - 1) + extent
    return True


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _tensor_from_storage(storage, storage_offset, size, stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    t = _tensor_from_storage(storage, storage_offset, size, stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from ._tensor import Tensor
    from .nn.parameter import Parameter
    if not isinstance(data, Tensor):
        raise TypeError(f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}")
    return Parameter(data, requires_grad)


def _codecs_encode(obj, encoding="utf-8", errors="strict"):
    """``_codecs.encode`` as protocol-2 pickles use it for bytes: str -> bytes in a fixed codec."""
    if type(obj) is not str or encoding not in ("latin1", "latin-1", "utf-8", "utf8", "ascii"):
        raise pickle.UnpicklingError("_codecs.encode is only allowed to encode a str with latin1, "
                                     "utf-8 or ascii")
    return codecs.encode(obj, encoding, errors)


def _weights_only_globals() -> dict:
    """The globals ``torch.load(weights_only=True)`` resolves by default (PyTorch 2.13's
    ``_get_allowed_globals``, the ones this package can rebuild), mapped to our objects."""
    from ._device import device
    from ._tensor import Size
    from .nn.parameter import Parameter
    allowed = {"collections.OrderedDict": collections.OrderedDict,
               "collections.Counter": collections.Counter,
               "torch.nn.parameter.Parameter": Parameter,
               "torch.Size": Size, "torch.device": device,
               "_codecs.encode": _codecs_encode,
               "builtins.bytearray": bytearray, "builtins.set": set, "builtins.complex": complex,
               "torch._utils._rebuild_tensor": _rebuild_tensor,
               "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
               "torch._utils._rebuild_parameter": _rebuild_parameter}
    for name in _STORAGE_DTYPE:
        allowed[f"torch.{name}"] = _STORAGE_TYPES[name]
    for name in _STORAGE:
        allowed[f"torch.{name}"] = getattr(D, name)
    return allowed


def _check_call(func, args):
    """Calls an allowed global may not make: ones that allocate from an integer argument."""
    if func in (bytearray, bytes) and any(isinstance(a, int) for a in args):
        raise pickle.UnpicklingError(f"refusing {func.__name__}({args[0]!r}): an allocation sized "
                                     "by the pickle")


_STORAGE_TYPES = {name: _StorageType(name) for name in _STORAGE_DTYPE}


def _new_parameter(data=None, requires_grad=True):
    from .nn.parameter import Parameter
    return Parameter() if data is None else _rebuild_parameter(data, requires_grad, None)


class _Loader:
    """The persistent-id side of one ``load``: storages read from the archive, checked."""

    def __init__(self, archive, map_location=None):
        self.archive = archive
        self.loaded = {}
        self.budget = _Budget()
        self.map_location = map_location

    def persistent_load(self, pid):
        if type(pid) is not tuple or len(pid) < 5 or pid[0] not in ("storage", b"storage"):
            typ = type(pid[0]) if type(pid) is tuple and pid else type(pid)
            raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but got {typ}")
        _, storage_type, key, location, numel = pid[:5]
        if not isinstance(storage_type, _StorageType):
            raise pickle.UnpicklingError(f"persistent id names storage type {storage_type!r}, "
                                         "which is not a torch.<Type>Storage")
        if type(key) is not str or type(numel) is not int or numel < 0:
            raise pickle.UnpicklingError(f"malformed storage persistent id (key {key!r}, numel "
                                         f"{numel!r})")
        if key in self.loaded:
            return self.loaded[key]
        _restore_location(location, self.map_location)
        dt = storage_type.dtype
        itemsize = np.dtype(dt.np).itemsize
        raw = self.archive.record(f"data/{key}", expected=numel * itemsize)
        self.budget.read += len(raw)
        arr = np.frombuffer(raw, dtype=np.dtype(f"u{itemsize}"))
        if self.archive.byteorder != sys.byteorder and itemsize > 1:
            arr = arr.byteswap()
        storage = _LoadedStorage(arr.view(dt.np), dt, self.budget)
        self.loaded[key] = storage
        return storage


_CPU_ONLY = ("If you are running on a CPU-only machine, please use torch.load with "
             "map_location=torch.device('cpu') to map your storages to the CPU.")


def _restore_location(location, map_location) -> None:
    """torch's ``default_restore_location`` on a machine with only the CPU: a storage tagged
    ``cpu`` loads; another tag raises torch's error for it (an accelerator this machine lacks, a
    tag no deserializer knows) unless ``map_location`` (a device, or a dict that maps the tag to
    ``cpu``) says where the storage goes. ``meta`` storages load as CPU data (SPEC §3.1)."""
    if isinstance(map_location, dict):
        location = map_location.get(location, location)
    elif map_location is not None:
        return  # a CPU device (checked by load) or a callable: the caller decides
    if location in ("cpu", "meta"):
        return
    loc = str(location)
    for backend in ("cuda", "xpu"):
        if loc == backend or re.match(f"{backend}(:|[0-9]+)", loc):
            if not re.fullmatch(f"{backend}(:[0-9]+)?", loc):
                raise RuntimeError(f"Invalid device string: '{loc}'")
            raise RuntimeError(f"Attempting to deserialize object on a {backend.upper()} device "
                               f"but torch.{backend}.is_available() is False. {_CPU_ONLY}")
    for backend in ("hpu", "privateuseone"):
        if loc == backend or re.match(f"{backend}(:|[0-9]+)", loc):
            raise RuntimeError(f"The {backend.upper()} device module is not registered. "
                               f"{_CPU_ONLY}")
    if loc.startswith("mps"):
        raise RuntimeError("torch.UntypedStorage(): Storage device not recognized: mps")
    raise RuntimeError("don't know how to restore data location of "
                       f"torch.storage.UntypedStorage (tagged with {loc})")


class _FullUnpickler(pickle.Unpickler):
    """``weights_only=False``: any global; ``torch.*`` names resolve to minitorch_cs's objects."""

    def __init__(self, file, loader, **kwargs):
        super().__init__(file, **kwargs)
        self.allowed = _weights_only_globals()
        self.loader = loader

    def find_class(self, module, name):
        if f"{module}.{name}" in self.allowed:
            return self.allowed[f"{module}.{name}"]
        if module == "torch" or module.startswith("torch."):
            ours = importlib.import_module("minitorch_cs." + module)
            return getattr(ours, name)
        return super().find_class(module, name)

    def persistent_load(self, pid):
        return self.loader.persistent_load(pid)


def _check_build(inst, state):
    from ._tensor import Tensor
    if isinstance(inst, Tensor):
        raise pickle.UnpicklingError("legacy Tensor.set_() state in a pickle is not supported")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load what :func:`save` (ours or PyTorch's) wrote. ``weights_only`` defaults to True, as
    in torch 2.6+: only tensors, containers and plain Python values are rebuilt."""
    from ._device import device
    if map_location is not None and not callable(map_location) and not isinstance(map_location,
                                                                                   dict):
        dev = device(map_location) if isinstance(map_location, str) else map_location
        if getattr(dev, "type", "cpu") != "cpu":
            raise RuntimeError(f"Attempting to deserialize object on {dev}, but minitorch_cs has "
                               "only the CPU device. Use map_location='cpu'.")
    weights_only_not_set = weights_only is None
    if weights_only_not_set:
        weights_only = True
    true_values = ("1", "y", "yes", "true")
    force_wo = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    force_no_wo = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    if force_wo and force_no_wo:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or "
                           "`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should be set, but both were set.")
    if force_wo:
        weights_only = True
    elif force_no_wo and weights_only_not_set:
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the"
                      "`weights_only` argument was not explicitly passed to `torch.load`, forcing "
                      "weights_only=False.", UserWarning, stacklevel=2)
        weights_only = False
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    if isinstance(f, (str, os.PathLike)) and not os.path.exists(f):
        raise FileNotFoundError(f"[Errno 2] No such file or directory: '{os.fspath(f)}'")
    if not zipfile.is_zipfile(f):
        raise RuntimeError("minitorch_cs.torch.load reads PyTorch's zip format (torch >= 1.6); "
                           "this file is not a zip archive (a legacy torch file, or not a torch "
                           "file at all).")
    archive = _Archive(f)
    try:
        loader = _Loader(archive, map_location)
        data = io.BytesIO(archive.record("data.pkl"))
        if weights_only:
            try:
                return _wou.TorchUnpickler(
                    data, allowed=_weights_only_globals(), persistent_load=loader.persistent_load,
                    new_object=_parameter_factory(), check_build=_check_build,
                    check_call=_check_call, encoding="utf-8").load()
            except pickle.UnpicklingError as e:
                raise pickle.UnpicklingError(_wo_message(str(e))) from None
        kwargs = {"encoding": "utf-8", **pickle_load_args}
        return _FullUnpickler(data, loader, **kwargs).load()
    finally:
        archive.close()


def _parameter_factory():
    from .nn.parameter import Parameter
    return {Parameter: _new_parameter}
