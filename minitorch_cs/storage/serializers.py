"""Leaf serializers of the cstorch checkpoint format, and the deferred (lazily read) tensor.

Every flattened leaf is described by a metadata object whose keys and key order follow the real
``cerebras.appliance.storage`` serializers (notes/checkpoint_format.md §5):

=========================  =========================================================  ==========
leaf                       metadata (order as written)                                 dataset
=========================  =========================================================  ==========
Tensor (any subclass)      __TORCH__, shapes, dtypes, rtfx_dtypes, __TYPE__,           array
                           __NUMPY__, compressed
np.ndarray                 is_bfloat16, __TYPE__, __NUMPY__, compressed                array
bool/int/float (+subcls)   scalar_value, __TYPE__, __NONE__                            none
str (+subclasses)          string_value, __TYPE__, __NONE__                            none
None                       __TYPE__, __NONE__                                          none
repeat of an earlier leaf  key, __LINKED__, __TYPE__, __NONE__                         none
anything else              __TYPE__, __BYTES__, compressed                             pickle
=========================  =========================================================  ==========

The serializer is chosen by exact type first, then along the MRO, like the real registry.
"""
from __future__ import annotations

import builtins
import functools
import importlib
import io
import operator
import pickle
import threading
import types

import ml_dtypes
import numpy as np

from ..torch import _dtype as D
from ..torch._device import device as _Device
from ..torch._tensor import Size, Tensor

__all__ = ["DeferredTensor", "DeferredObject", "RTFX_DTYPES", "CEREBRAS_BF16", "is_cerebras_bf16",
           "serializer_kind", "tensor_metadata", "numpy_metadata", "scalar_metadata",
           "string_metadata", "none_metadata", "linked_metadata", "object_metadata",
           "tensor_array", "numpy_array", "dumps_object", "loads_object"]

# torch dtype -> RtFxProto dtype code (cerebras.pytorch.storage.utils.torch_to_rtfx_dtype)
RTFX_DTYPES = {"bool": 1, "int16": 3, "int32": 4, "int64": 5, "uint8": 6, "uint16": 7,
               "uint32": 8, "uint64": 9, "float16": 10, "float32": 11, "float64": 12, "bfloat16": 15}

# cerebras.appliance.data.dtypes.bf16: int16 carrying dtype metadata that marks bfloat16 bits
CEREBRAS_BF16 = np.dtype(np.int16, metadata={"is_bfloat16": True, "is_cerebras": True})


def is_cerebras_bf16(dtype) -> bool:
    """``cerebras.appliance.data.dtypes.is_bf16``: int16/uint16 with the bf16 marker metadata."""
    dtype = np.dtype(dtype)
    md = dtype.metadata
    return bool((dtype == np.int16 or dtype == np.uint16) and md is not None
                and all(md.get(k) == v for k, v in CEREBRAS_BF16.metadata.items()))


# -- serializer choice ---------------------------------------------------------------------------------
class DeferredObject:
    """A pickled leaf that could not be unpickled here (e.g. it needs ``dill`` or torch internals).

    Mirrors the real ``DeferredObject``: ``.value`` unpickles (and raises the original error when that
    is impossible); the raw pickle is kept in ``.data`` so saving the tree again preserves it.
    """

    def __init__(self, key: str, data: bytes, error: BaseException | None = None):
        self._key = key
        self.data = bytes(data)
        self._error = error

    @property
    def value(self):
        return loads_object(self.data)

    def __repr__(self) -> str:
        return f"DeferredObject(key={self._key!r}, {len(self.data)} pickled bytes)"


_REGISTRY = {Tensor: "tensor", np.ndarray: "numpy", bool: "scalar", int: "scalar", float: "scalar",
             str: "string", type(None): "none", type: "object", DeferredObject: "deferred_object"}


def serializer_kind(value) -> str:
    """Which serializer the real registry picks for ``value``."""
    tv = type(value)
    kind = _REGISTRY.get(tv)
    if kind is None:
        for t in getattr(tv, "__mro__", ()):
            kind = _REGISTRY.get(t)
            if kind is not None:
                break
        else:
            kind = "object"
    return kind


# -- metadata ------------------------------------------------------------------------------------------
def tensor_metadata(t: Tensor, compressed: bool) -> dict:
    name = t._dtype.name
    if name not in RTFX_DTYPES:
        raise ValueError(f"Cannot convert np.dtype '{name}' to RtFxProto dtype")
    return {"__TORCH__": True, "shapes": [tuple(t.shape)], "dtypes": [f"torch.{name}"],
            "rtfx_dtypes": [RTFX_DTYPES[name]], "__TYPE__": "TorchTensorSerializer",
            "__NUMPY__": True, "compressed": compressed}


def numpy_metadata(arr: np.ndarray, compressed: bool) -> dict:
    bf16 = is_cerebras_bf16(arr.dtype) or arr.dtype == ml_dtypes.bfloat16
    return {"is_bfloat16": bf16, "__TYPE__": "NumpyArraySerializer", "__NUMPY__": True,
            "compressed": compressed}


def scalar_metadata(v) -> dict:
    return {"scalar_value": v, "__TYPE__": "ScalarSerializer", "__NONE__": True}


def string_metadata(s) -> dict:
    return {"string_value": s, "__TYPE__": "StringSerializer", "__NONE__": True}


def none_metadata() -> dict:
    return {"__TYPE__": "NoneSerializer", "__NONE__": True}


def linked_metadata(target_key: str) -> dict:
    return {"key": target_key, "__LINKED__": True, "__TYPE__": "LinkedObject", "__NONE__": True}


def object_metadata(compressed: bool) -> dict:
    return {"__TYPE__": "ObjectSerializer", "__BYTES__": True, "compressed": compressed}


# -- data ----------------------------------------------------------------------------------------------
def tensor_array(t: Tensor) -> np.ndarray:
    """What the real stack writes for a tensor: ``tensor.numpy()``, bf16 as raw int16 bits.

    Raises the real errors for tensors that require grad and for meta tensors. A deferred tensor is
    read from its checkpoint without being materialized (the real stack does not cache it either).
    """
    if t._rg:
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                           "tensor.detach().numpy() instead.")
    if type(t) is DeferredTensor:
        arr = t._peek()
    else:
        t._check_readable("numpy")
        arr = t._data
    if arr.dtype == ml_dtypes.bfloat16:
        arr = arr.view(np.int16)
    return arr


def numpy_array(arr: np.ndarray) -> np.ndarray:
    """What goes into the dataset of a numpy leaf.

    A bfloat16 array (ml_dtypes, or Cerebras' int16 marker dtype) is stored as int16 bits with
    ``is_bfloat16`` true, which the real loader turns into its own bf16 marker array. (The real stack
    writes ml_dtypes bfloat16 as an opaque 2-byte type that does not load back; we fix that.)
    """
    if arr.dtype == ml_dtypes.bfloat16 or is_cerebras_bf16(arr.dtype):
        return np.asarray(arr).view(np.int16)
    return np.asarray(arr)


# -- pickling (the real stack uses dill; the bytes here are plain pickles that dill reads) -------------
class _ModuleRef:
    """Pickles as ``importlib.import_module(name)``."""

    def __init__(self, name):
        self.name = name


class _AttrRef:
    """Pickles as ``getattr(import_module(module), name)``."""

    def __init__(self, module, name):
        self.module = module
        self.name = name

    def __call__(self, *args, **kwargs):  # pickle requires the reduce callable to be callable
        return getattr(importlib.import_module(self.module), self.name)(*args, **kwargs)


_NUMPY2 = int(np.__version__.split(".")[0]) >= 2


class _Pickler(pickle.Pickler):
    """Pickles minitorch_cs dtypes/devices/Sizes as their ``torch`` counterparts, and numpy objects
    through ``numpy.core`` (the real stack runs numpy 1.x, which has no ``numpy._core``)."""

    def reducer_override(self, obj):
        t = type(obj)
        if t is _ModuleRef:
            return (importlib.import_module, (obj.name,))
        if t is _AttrRef:
            return (getattr, (_ModuleRef(obj.module), obj.name))
        if t is D.dtype:
            return (getattr, (_ModuleRef("torch"), obj.name))
        if t is _Device:
            return (_AttrRef("torch", "device"), (str(obj),))
        if t is Size:
            return (_AttrRef("torch", "Size"), (tuple(obj),))
        if _NUMPY2 and isinstance(obj, (np.ndarray, np.generic)):
            rv = obj.__reduce_ex__(4)
            fn = rv[0]
            mod = getattr(fn, "__module__", None) or ""
            if mod.startswith("numpy._core"):
                return (_AttrRef("numpy.core" + mod[len("numpy._core"):], fn.__name__),) + rv[1:]
            return rv
        return NotImplemented


def dumps_object(obj) -> bytes:
    buf = io.BytesIO()
    _Pickler(buf, protocol=4).dump(obj)
    return buf.getvalue()


def _dill_types():
    m = {}
    for name in dir(builtins):
        v = getattr(builtins, name)
        if isinstance(v, type):
            m[name] = v
    for name in dir(types):
        v = getattr(types, name)
        if name.endswith("Type") and isinstance(v, type):
            m[name] = v
    m.update({"PartialType": functools.partial, "SuperType": super, "NoneType": type(None),
              "ItemGetterType": operator.itemgetter, "AttrGetterType": operator.attrgetter,
              "EllipsisType": type(Ellipsis), "NotImplementedType": type(NotImplemented),
              "FileType": io.FileIO, "BufferedRandomType": io.BufferedRandom,
              "BufferedReaderType": io.BufferedReader, "BufferedWriterType": io.BufferedWriter,
              "TextWrapperType": io.TextIOWrapper, "DictKeysType": type({}.keys()),
              "DictValuesType": type({}.values()), "DictItemsType": type({}.items())})
    return m


_DILL_TYPES = None


def _dill_load_type(name):
    global _DILL_TYPES
    if _DILL_TYPES is None:
        _DILL_TYPES = _dill_types()
    try:
        return _DILL_TYPES[name]
    except KeyError:
        raise pickle.UnpicklingError(f"unknown dill type {name!r}") from None


def _map_module(name: str):
    """Module name as seen by the pickle -> the module to use here."""
    if name == "torch" or name.startswith("torch."):
        ours = "minitorch_cs.torch" + name[len("torch"):]
        try:
            return importlib.import_module(ours)
        except ImportError:
            raise pickle.UnpicklingError(f"the pickle refers to {name}, which minitorch_cs does not "
                                         "provide") from None
    if _NUMPY2 and (name == "numpy.core" or name.startswith("numpy.core.")):
        name = "numpy._core" + name[len("numpy.core"):]
    return importlib.import_module(name)


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if module == "dill._dill" or module == "dill":
            if name == "_load_type":
                return _dill_load_type
            raise pickle.UnpicklingError(f"the pickle needs dill ({module}.{name}), which "
                                         "minitorch_cs does not emulate")
        if module == "importlib" and name == "import_module":
            return _map_module
        if module == "torch" or module.startswith("torch.") or (
                _NUMPY2 and module.startswith("numpy.core")):
            obj = _map_module(module)
            try:
                for part in name.split("."):
                    obj = getattr(obj, part)
            except AttributeError:
                raise pickle.UnpicklingError(f"the pickle refers to {module}.{name}, which "
                                             "minitorch_cs does not provide") from None
            return obj
        return super().find_class(module, name)


def loads_object(data: bytes):
    """Unpickle an ``ObjectSerializer`` payload (a dill pickle from the real stack, or ours)."""
    return _Unpickler(io.BytesIO(data)).load()


# -- deferred tensors ----------------------------------------------------------------------------------
_DATA_SLOT = Tensor.__dict__["_data"]  # the member descriptor of Tensor's ``_data`` slot
_MATERIALIZE_LOCK = threading.RLock()


class DeferredTensor(Tensor):
    """A tensor loaded from a checkpoint whose data is read from the file on first access.

    Shape, dtype, ``requires_grad`` and the other metadata are available without reading. The first
    access to the data (any op, ``.numpy()``, ``repr``, …) reads the dataset, and the object then
    *becomes* a plain :class:`Tensor` (its class is switched; it has no extra slots), so it costs
    nothing afterwards and in-place updates persist. ``clone()``/``deepcopy`` of a tensor that was not
    read yet give another deferred tensor on the same data, without reading. Saving a deferred tensor
    copies its data from the source file without keeping it in memory.
    """

    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, source, key: str, shape, dtype):
        self._dtype = D.to_dtype(dtype)
        self._init_state()
        self.__dict__["_deferred"] = (source, key, tuple(int(s) for s in shape))

    # -- materialization -------------------------------------------------------------------------
    @property
    def _data(self):
        with _MATERIALIZE_LOCK:
            if type(self) is not DeferredTensor:  # another thread got here first
                return _DATA_SLOT.__get__(self, Tensor)
            source, key, shape = self.__dict__["_deferred"]
            arr = source.read_tensor(key, self._dtype, shape)
            self._become_tensor(arr)
            return arr

    @_data.setter
    def _data(self, arr):
        with _MATERIALIZE_LOCK:
            self._become_tensor(arr)

    def _become_tensor(self, arr):
        _DATA_SLOT.__set__(self, arr)
        self.__dict__.pop("_deferred", None)
        self.__class__ = Tensor

    def _peek(self) -> np.ndarray:
        """The stored data, read now and not kept (the tensor stays deferred)."""
        with _MATERIALIZE_LOCK:
            if type(self) is not DeferredTensor:
                return _DATA_SLOT.__get__(self, Tensor)
            source, key, shape = self.__dict__["_deferred"]
            return source.read_tensor(key, self._dtype, shape)

    # -- metadata without reading ----------------------------------------------------------------
    @property
    def _shape(self):
        return self.__dict__["_deferred"][2]

    @property
    def shape(self):
        return Size(self._shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._shape)
        from ..torch._tensor import _wrap_dim
        return self._shape[_wrap_dim(dim, len(self._shape))]

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    def numel(self) -> int:
        n = 1
        for s in self._shape:
            n *= s
        return n

    nelement = numel

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def is_contiguous(self, memory_format=None) -> bool:
        return True

    def stride(self, dim=None):
        st, acc = [], 1
        for s in reversed(self._shape):
            st.append(acc)
            acc *= max(s, 1)
        st = tuple(reversed(st))
        if dim is None:
            return st
        from ..torch._tensor import _wrap_dim
        return st[_wrap_dim(dim, len(self._shape))]

    # -- copies that need not read ---------------------------------------------------------------
    def _deferred_copy(self):
        source, key, shape = self.__dict__["_deferred"]
        return DeferredTensor(source, key, shape, self._dtype)

    def clone(self, *args, **kwargs):
        with _MATERIALIZE_LOCK:
            if type(self) is DeferredTensor and not self._rg and not args and not kwargs:
                return self._deferred_copy()
        return Tensor.clone(self, *args, **kwargs)

    def __deepcopy__(self, memo):
        with _MATERIALIZE_LOCK:
            if type(self) is DeferredTensor and not self._rg and self.grad is None:
                if id(self) not in memo:
                    memo[id(self)] = self._deferred_copy()
                return memo[id(self)]
        return Tensor.__deepcopy__(self, memo)
