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

import collections
import datetime
import importlib
import io
import math
import pickle
import threading

import ml_dtypes
import numpy as np
from numpy.random import _pickle as np_random_pickle

try:  # numpy 2
    from numpy._core import multiarray as np_multiarray
except ImportError:  # numpy 1
    from numpy.core import multiarray as np_multiarray

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
    """A pickled leaf of a checkpoint, unpickled only when asked for (the real ``DeferredObject``).

    ``cstorch.load`` never unpickles: every ``ObjectSerializer`` leaf comes back as a
    ``DeferredObject`` holding the raw pickle (``.data``). ``.value`` unpickles it, a new object on
    every access as in the real stack, through the allow-list unpickler (:data:`OBJECT_GLOBALS` plus
    what ``torch.serialization.add_safe_globals`` allowed), so a crafted checkpoint cannot run code;
    a refused global raises ``pickle.UnpicklingError`` naming it. Attribute access, indexing, calls,
    iteration, ``len``, ``in`` and ``str`` go to ``.value``, as in the real class. Saving the tree
    again writes ``.data`` back unchanged.
    """

    def __init__(self, key: str, data: bytes):
        self._key = key
        self.data = bytes(data)

    @property
    def value(self):
        return loads_object(self.data, self._key)

    # the real class forwards these to the value
    def __getattr__(self, name):
        if not name.startswith("_") and name != "value":
            return getattr(self.value, name)
        raise AttributeError(f"'DeferredObject' object has no attribute '{name}'")

    def __getitem__(self, key):
        return self.value[key]

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)

    def __iter__(self):
        return iter(self.value)

    def __len__(self):
        return len(self.value)

    def __contains__(self, item):
        return item in self.value

    def __str__(self):
        return str(self.value)

    def __repr__(self) -> str:
        try:
            return f"DeferredObject({self.value!r})"
        except Exception as e:  # noqa: BLE001  (repr never raises: printing a state dict must work)
            return (f"DeferredObject(<{len(self.data)} pickled bytes of leaf {self._key!r}, not "
                    f"unpicklable: {type(e).__name__}: {str(e).splitlines()[0][:200]}>)")

    def __reduce__(self):
        return (DeferredObject, (self._key, self.data))

    def __deepcopy__(self, memo):
        return DeferredObject(self._key, self.data)


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


# -- unpickling, through an allow-list only -----------------------------------------------------------
class _ModuleToken:
    """What ``importlib.import_module(name)`` gives inside an object pickle: a name, nothing imported.
    ``getattr(token, attr)`` then resolves ``name.attr`` through the same allow-list as a GLOBAL."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


def _import_module_token(name, package=None):
    if type(name) is not str or package is not None:
        raise pickle.UnpicklingError("importlib.import_module is only allowed with a module name")
    return _ModuleToken(name)


def _getattr_token(unpickler, obj, name, *default):
    if type(obj) is not _ModuleToken or type(name) is not str or default:
        raise pickle.UnpicklingError(f"getattr is only allowed on a module named in the pickle "
                                     f"(got getattr({type(obj).__name__}, {name!r}))")
    return unpickler.find_class(obj.name, name)


_getattr_token.takes_unpickler = True

# dill's ``_load_type(name)``: the builtin data types it may name (never code, module or file types)
_DILL_TYPES = {t.__name__: t for t in (complex, set, frozenset, bytes, bytearray, slice, int, float,
                                       str, bool, tuple, list, dict)}
_DILL_TYPES.update({"NoneType": type(None), "EllipsisType": type(Ellipsis),
                    "NotImplementedType": type(NotImplemented)})


def _dill_load_type(name, _allowed=_DILL_TYPES):
    try:
        return _allowed[name]
    except (KeyError, TypeError):
        raise pickle.UnpicklingError(f"dill type {name!r} is not an allowed type (allowed: "
                                     f"{sorted(_allowed)})") from None


# under weights_only: the builtin types PyTorch's weights-only list allows
_DILL_WO_TYPES = {n: _DILL_TYPES[n] for n in ("complex", "set", "bytearray", "NoneType")}


def _dill_load_type_wo(name):
    return _dill_load_type(name, _DILL_WO_TYPES)


def _safe_reconstruct(subtype, shape, dtype):
    """``numpy.core.multiarray._reconstruct``: numpy always pickles the empty shape ``(0,)`` and sets
    the real shape with the data afterwards (BUILD, checked by :func:`_check_build`)."""
    if subtype is not np.ndarray or math.prod(shape) != 0:
        raise pickle.UnpicklingError(f"numpy _reconstruct({subtype}, {shape!r}) is not how numpy "
                                     "pickles an array")
    return np.ndarray.__new__(np.ndarray, shape, dtype)


def _weights_only_object_globals() -> dict:
    from ..torch import serialization as TS
    allowed = {k: v for k, v in TS._weights_only_globals().items() if not k.startswith("torch._utils")
               and k != "torch.nn.parameter.Parameter" and not k.endswith("Storage")}
    # the module/attribute pair our own pickles use to name dtypes, devices and Sizes: it grants
    # nothing beyond the table (getattr resolves through it)
    allowed.update({"importlib.import_module": _import_module_token,
                    "builtins.getattr": _getattr_token,
                    "dill._dill._load_type": _dill_load_type_wo})
    return allowed


def _object_globals() -> dict:
    allowed = _weights_only_object_globals()
    allowed["dill._dill._load_type"] = _dill_load_type
    for t in (complex, set, frozenset, bytes, bytearray, slice, int, float, bool, tuple, list, dict):
        allowed[f"builtins.{t.__name__}"] = t
    for t in (collections.OrderedDict, collections.Counter, collections.defaultdict,
              collections.deque):
        allowed[f"collections.{t.__name__}"] = t
    for t in (datetime.date, datetime.time, datetime.datetime, datetime.timedelta,
              datetime.timezone):
        allowed[f"datetime.{t.__name__}"] = t
    # numpy scalars, dtypes and arrays, under numpy 1's and numpy 2's module names
    for core in ("numpy.core.multiarray", "numpy._core.multiarray"):
        allowed[f"{core}.scalar"] = np_multiarray.scalar
        allowed[f"{core}._reconstruct"] = _safe_reconstruct
    allowed["numpy.dtype"] = np.dtype
    allowed["numpy.ndarray"] = np.ndarray
    for name in ("__randomstate_ctor", "__generator_ctor", "__bit_generator_ctor"):
        allowed[f"numpy.random._pickle.{name}"] = getattr(np_random_pickle, name)
    for mod, cls in (("_mt19937", "MT19937"), ("_pcg64", "PCG64"), ("_pcg64", "PCG64DXSM"),
                     ("_philox", "Philox"), ("_sfc64", "SFC64"), ("mtrand", "RandomState"),
                     ("_generator", "Generator")):
        allowed[f"numpy.random.{mod}.{cls}"] = getattr(np.random, cls)
    from numpy.random import bit_generator
    allowed["numpy.random.bit_generator.SeedSequence"] = np.random.SeedSequence
    ctor = getattr(bit_generator, "__pyx_unpickle_SeedSequence", None)  # Cython's checked rebuild
    if ctor is not None:
        allowed["numpy.random.bit_generator.__pyx_unpickle_SeedSequence"] = ctor
    return allowed


def _check_build(inst, state):
    """Array state must hold exactly the elements its shape declares (numpy would allocate the
    declared shape first, so a huge shape with a short payload is a memory bomb)."""
    if type(inst) is np.ndarray:
        st = state[1:] if isinstance(state, tuple) and len(state) == 5 else state
        try:
            shape, dtype, _, data = st
            n = math.prod(int(s) for s in shape)
            dtype = np.dtype(dtype)
        except Exception as e:  # noqa: BLE001
            raise pickle.UnpicklingError(f"malformed numpy array state ({e})") from None
        have = len(data) if isinstance(data, list) else (
            len(data) // max(dtype.itemsize, 1) if isinstance(data, (bytes, bytearray)) else -1)
        if have != n or (isinstance(data, (bytes, bytearray)) and len(data) != n * dtype.itemsize):
            raise pickle.UnpicklingError(f"numpy array state declares shape {tuple(shape)} but "
                                         f"holds {len(data)} items/bytes")


_OBJECT_GLOBALS = None
_WEIGHTS_ONLY_OBJECT_GLOBALS = None


def object_globals(weights_only: bool = False) -> dict:
    """The globals an object leaf may name: with ``weights_only``, PyTorch 2.13's weights-only
    allow-list (plus the module/attribute pair our own pickles use to name dtypes, which grants
    nothing beyond that list); otherwise also numpy scalars/dtypes/arrays/random states, builtin
    data types, ``collections``, ``datetime``, ``fractions``, ``decimal`` and dill's builtin
    types."""
    global _OBJECT_GLOBALS, _WEIGHTS_ONLY_OBJECT_GLOBALS
    if _OBJECT_GLOBALS is None:
        _OBJECT_GLOBALS = _object_globals()
        _WEIGHTS_ONLY_OBJECT_GLOBALS = _weights_only_object_globals()
    return _WEIGHTS_ONLY_OBJECT_GLOBALS if weights_only else _OBJECT_GLOBALS


def resolve_global(module: str, name: str):
    """``module.name`` through the object allow-list (plus the user's safe globals), never
    imported; ``pickle.UnpicklingError`` when refused."""
    from ..torch import _weights_only_unpickler as W
    return W.find_allowed(module, name, object_globals())


def unpickle_restricted(data: bytes, weights_only: bool = False):
    """Unpickle through the allow-list unpickler (``pickle.UnpicklingError`` when refused)."""
    from ..torch import _weights_only_unpickler as W
    from ..torch import serialization as TS
    return W.Unpickler(io.BytesIO(data), allowed=object_globals(weights_only),
                       check_build=_check_build, check_call=TS._check_call,
                       build_types=() if weights_only else (np.dtype,),
                       append_types=(list,) if weights_only else (list, collections.deque)).load()


def loads_object(data: bytes, key: str = "<object>", weights_only: bool = False):
    """Unpickle an ``ObjectSerializer`` payload (a dill pickle from the real stack, or ours) through
    the allow-list unpickler; ``pickle.UnpicklingError`` names the leaf and the refused global."""
    try:
        return unpickle_restricted(data, weights_only)
    except pickle.UnpicklingError as e:
        raise pickle.UnpicklingError(f"checkpoint leaf {key!r}: {e}") from None


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
