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
``weights_only=True`` (torch's default since 2.6) refuses every other global, as torch does.
Differences (SPEC §3.1): each tensor gets its own storage (views of one tensor do not share memory
after loading); ``map_location`` accepts only CPU targets.
"""
from __future__ import annotations

import collections
import io
import os
import pickle
import tempfile
import zipfile

import numpy as np

from . import _dtype as D

__all__ = ["save", "load"]

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


class _Pickler(pickle._Pickler):  # the pure-Python pickler: save_global can be overridden
    def __init__(self, file, storages):
        super().__init__(file, protocol=2)
        self.storages = storages
        self._globals = {}

    def persistent_id(self, obj):
        if isinstance(obj, _Storage):
            name = _STORAGE[D._BY_NP[obj.array.dtype].name]
            return ("storage", self._global("torch", name), obj.key, "cpu", obj.array.size)
        return None

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
            arr = np.ascontiguousarray(obj.detach()._data)
            storage = _Storage(str(len(self.storages)), arr)
            self.storages.append(storage)
            stride = tuple(s // arr.itemsize for s in arr.strides) if arr.size else \
                tuple(int(np.prod(arr.shape[i + 1:])) for i in range(arr.ndim))
            return _REBUILD_TENSOR, (storage, 0, tuple(arr.shape), stride, obj.requires_grad,
                                     _ORDERED_DICT())
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
    _Pickler(buf, storages).dump(obj)
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
def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    from ._tensor import Tensor
    itemsize = storage.dtype.itemsize
    arr = np.lib.stride_tricks.as_strided(storage[storage_offset:], shape=tuple(size),
                                          strides=tuple(s * itemsize for s in stride))
    t = Tensor._wrap(np.array(arr))  # a private, writeable copy
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from .nn.parameter import Parameter
    return Parameter(data, requires_grad)


def _torch_globals():
    from . import _dtype
    from ._device import device
    from ._tensor import Size
    allowed = {("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
               ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
               ("collections", "OrderedDict"): collections.OrderedDict,
               ("torch", "Size"): Size, ("torch", "device"): device}
    for name in _STORAGE_DTYPE:
        allowed[("torch", name)] = name
    for name in _STORAGE:
        allowed[("torch", name)] = getattr(_dtype, name)
    return allowed


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, zf, prefix, weights_only):
        super().__init__(file)
        self.zf, self.prefix, self.weights_only = zf, prefix, weights_only
        self.allowed = _torch_globals()
        self.loaded = {}

    def find_class(self, module, name):
        if (module, name) in self.allowed:
            return self.allowed[(module, name)]
        if self.weights_only:
            raise pickle.UnpicklingError(
                f"Weights only load failed. Unsupported global: GLOBAL {module}.{name} was not "
                "an allowed global by default. Only load the file with weights_only=False if you "
                "trust its source.")
        if module == "torch" or module.startswith("torch."):
            import importlib
            ours = importlib.import_module("minitorch_cs." + module)
            return getattr(ours, name)
        return super().find_class(module, name)

    def persistent_load(self, pid):
        kind, storage_type, key, location, numel = pid[:5]
        if kind != "storage":
            raise pickle.UnpicklingError(f"unknown persistent id {kind!r}")
        if key not in self.loaded:
            np_dtype = getattr(D, _STORAGE_DTYPE[storage_type]).np
            raw = self.zf.read(f"{self.prefix}/data/{key}")
            self.loaded[key] = np.frombuffer(raw, dtype=np.dtype(np_dtype).newbyteorder("<"))
        return self.loaded[key]


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
    weights_only = True if weights_only is None else weights_only
    if isinstance(f, (str, os.PathLike)) and not os.path.exists(f):
        raise FileNotFoundError(f"[Errno 2] No such file or directory: '{os.fspath(f)}'")
    if not zipfile.is_zipfile(f):
        raise RuntimeError("minitorch_cs.torch.load reads PyTorch's zip format (torch >= 1.6); "
                           "this file is not a zip archive (a legacy torch file, or not a torch "
                           "file at all).")
    with zipfile.ZipFile(f) as zf:
        names = zf.namelist()
        pkl = next((n for n in names if n.endswith("/data.pkl") and n.count("/") == 1), None)
        if pkl is None:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
        prefix = pkl.split("/", 1)[0]
        return _Unpickler(io.BytesIO(zf.read(pkl)), zf, prefix, weights_only).load()
