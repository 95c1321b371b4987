"""``torch.Tensor``: an ndarray plus autograd state. Math methods are attached by ``_methods``."""
from __future__ import annotations

import builtins
import importlib
import sys

import numpy as np

from . import _dtype as D
from ._autograd import AccumulateGrad, GradState, run_backward
from ._device import CPU, LAZY, META, device

__all__ = ["Tensor"]

_AUTOGRAD = __package__ + ".autograd"

class Tensor:
    """A multi-dimensional array with autograd, mirroring ``torch.Tensor``.

    ``_data`` is the ndarray (views share memory with their base); ``_vc`` is the version counter
    shared by a tensor and all its views; ``grad_fn``/``_output_nr`` name the graph node that made it.
    """

    __slots__ = ("_data", "_dtype", "_rg", "grad_fn", "_output_nr", "_grad", "_acc", "_hooks",
                 "_retains", "_vc", "_base", "_view_fn", "_meta", "__dict__", "__weakref__")
    # on the wafer's lazy device (True), the host (False), or an internal constant made by
    # ``_wrap`` that mixes with either (None); set per instance, read by ``device``
    _lazydev = False

    # -- construction ---------------------------------------------------------------------------
    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, *args, dtype=None, device=None, requires_grad=False):
        # Legacy constructor: torch.Tensor(data) or torch.Tensor(*sizes) -> float tensor.
        # (the value comes from an op at the dispatch point, like every tensor value)
        from ._autograd import no_grad
        from ._creation import Constant, Full
        dt = D.to_dtype(dtype) if dtype is not None else D.get_default_dtype()
        with no_grad():
            if len(args) == 1 and isinstance(args[0], Tensor):
                src = args[0]
                made = _dispatch.apply(_dispatch.OPS["to_copy"], src, dtype=dt.np) \
                    if src._dtype is not dt else _dispatch.apply(_dispatch.OPS["clone"], src)
            elif len(args) == 1 and not isinstance(args[0], (builtins.int, np.integer)):
                made = _dispatch.apply(Constant, value=np.array(args[0], dtype=dt.np))
            else:
                shape = tuple(args[0]) if len(args) == 1 and not isinstance(args[0], builtins.int) \
                    else tuple(args)
                made = _dispatch.apply(Full, shape=shape, value=0, dtype=dt.np)
        self._init(made._data, requires_grad)

    def _init(self, arr, requires_grad=False):
        self._data = arr
        self._dtype = D._BY_NP[arr.dtype]
        self._init_state()
        if requires_grad:
            self.requires_grad = True

    def _init_state(self):
        """Every field but ``_data``/``_dtype``: a fresh leaf (also used by deferred tensors)."""
        self._rg = False
        self.grad_fn = None
        self._output_nr = 0
        self._grad = None
        self._acc = None
        self._hooks = None
        self._retains = False
        self._vc = [0]
        self._base = None
        self._view_fn = None
        self._meta = False

    @classmethod
    def _wrap(cls, arr: np.ndarray, requires_grad=False) -> "Tensor":
        t = object.__new__(Tensor)
        t._init(arr, requires_grad)
        t._lazydev = None  # an internal constant: on no device in particular (mixes with any)
        return t

    # -- basic properties -----------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._data.shape)

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        """``cpu``; ``meta`` for shape-only tensors; ``lazy:0`` for tensors on the emulated wafer
        (parameters of a model compiled for CSX, batches of a CSX run, tensors made under
        ``backend.device`` and everything computed from them)."""
        return META if self._meta else LAZY if self._lazydev else CPU

    @property
    def is_meta(self) -> bool:
        return self._meta

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        if not isinstance(dim, (builtins.int, np.integer)) or isinstance(dim, builtins.bool):
            raise TypeError(f"size(): argument 'dim' (position 1) must be int, not "
                            f"{type(dim).__name__}")
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    def ndimension(self) -> int:
        return self._data.ndim

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """The bytes of the elements the tensor spans (numel times the element size)."""
        return builtins.int(self._data.size) * self._dtype.itemsize

    def storage_offset(self) -> int:
        """The first element's offset, in elements, from the start of the storage the tensor
        views (0 for a tensor that owns its memory)."""
        root = self._data
        while isinstance(root.base, np.ndarray):
            root = root.base
        if root is self._data or not self._data.size:
            return 0
        here = self._data.__array_interface__["data"][0]
        start = root.__array_interface__["data"][0]
        return (here - start) // self._dtype.itemsize

    def numel(self) -> int:
        return builtins.int(self._data.size)

    nelement = numel

    def element_size(self) -> int:
        return self._dtype.itemsize

    def stride(self, dim=None):
        st = tuple(s // self._dtype.itemsize for s in self._data.strides)
        return st if dim is None else st[_wrap_dim(dim, self._data.ndim)]

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def data_ptr(self) -> int:
        return self._data.__array_interface__["data"][0]

    @property
    def _version(self) -> int:
        if self.__dict__.get("_inference") is True:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc[0]

    def is_inference(self) -> bool:
        return "_inference" in self.__dict__

    # -- autograd state -------------------------------------------------------------------------
    @property
    def grad(self):
        """The accumulated gradient (``None`` until a backward reaches this leaf)."""
        _dispatch.read_grad(self)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                            f"{type(value).__name__}")
        if value is not None:  # (torch's checks: the tensor's size, and its dtype)
            if tuple(value.shape) != tuple(self.shape):
                raise RuntimeError(f"attempting to assign a gradient of size "
                                   f"'{list(value.shape)}' to a tensor of size "
                                   f"'{list(self.shape)}'. Please ensure that the gradient and "
                                   "the tensor are the same size")
            if value._dtype is not self._dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{D.cpp_name(value._dtype)}' "
                    f"to a tensor with grad_dtype '{D.scalar_name(self._dtype)}'. The gradient "
                    "must match the tensor's grad_dtype (defaults to the tensor's dtype).")
        _dispatch.set_grad(self, value)

    @grad.deleter
    def grad(self):
        _dispatch.set_grad(self, None)

    @property
    def requires_grad(self) -> bool:
        return self._rg

    @requires_grad.setter
    def requires_grad(self, value):
        value = builtins.bool(value)
        if self.grad_fn is not None and not value:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want "
                               "to use a computed variable in a subgraph that doesn't require "
                               "differentiation use var_no_grad = var.detach().")
        if value and not self._dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        if value and self.__dict__.get("_inference") is True and not GradState.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        self._rg = value
        if value and self.grad_fn is None and self._base is None:
            # torch: the views made of it before now require grad too, as leaves whose gradient
            # reaches nothing (their history was recorded without it)
            for v in list(self.__dict__.get("_views", ())):
                if v._base is self and v.grad_fn is None and v._dtype.is_floating_point:
                    v._rg = True
                    v.__dict__["_no_edge"] = True

    def requires_grad_(self, requires_grad=True):
        if type(requires_grad) is not bool:  # torch's schema: a bool only
            raise TypeError("requires_grad_(): argument 'requires_grad' (position 1) must be "
                            f"bool, not {type(requires_grad).__name__}")
        if requires_grad and not self._dtype.is_floating_point:  # (this method's own words)
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def data(self):
        """The same storage without autograd history (its own version counter, as in torch)."""
        return _dispatch.apply(_dispatch.DataAlias, self)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        _dispatch.set_data(self, value)

    def _edge(self):
        if self.grad_fn is not None:
            return (self.grad_fn, self._output_nr)
        acc = self._acc
        if acc is None:
            if self._base is not None and ("_cmeta" in self.__dict__ or
                                           "_no_edge" in self.__dict__):
                return None  # (a view made in no_grad mode, or before its base required grad:
                # no gradient reaches anything)
            acc = self._acc = AccumulateGrad(self)
            if self._hooks:
                acc.pre_hooks = {0: list(self._hooks)}
        return (acc, 0)

    def detach(self) -> "Tensor":
        """The same storage and version counter, cut from the autograd graph."""
        return _dispatch.apply(_dispatch.Detach, self)

    def detach_(self) -> "Tensor":
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self._rg = False
        return self

    def retain_grad(self) -> None:
        if not self._rg:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None:
            return
        if self._retains:
            return
        self._retains = True
        import weakref
        ref = weakref.ref(self)

        def keep(g):
            t = ref()
            if t is not None:
                t.grad = g.clone() if t._grad is None else t._grad + g
        self._register_node_hook(keep)

    @property
    def retains_grad(self) -> bool:
        return self._retains

    def _register_node_hook(self, fn):
        node = self.grad_fn
        if node.pre_hooks is None:
            node.pre_hooks = {}
        node.pre_hooks.setdefault(self._output_nr, []).append(fn)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when the gradient for this tensor is computed; it may return a new grad."""
        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            self._register_node_hook(hook)
            lst = self.grad_fn.pre_hooks[self._output_nr]
        else:
            if self._hooks is None:
                self._hooks = []
            self._hooks.append(hook)
            lst = self._hooks
            if self._acc is not None:
                if self._acc.pre_hooks is None:
                    self._acc.pre_hooks = {0: []}
                self._acc.pre_hooks[0].append(hook)
        return _RemovableHandle(lambda: _remove_hook(self, hook, lst))

    def register_post_accumulate_grad_hook(self, hook):
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        acc = self._edge()[0]
        if acc.post_acc_hooks is None:
            acc.post_acc_hooks = []
        acc.post_acc_hooks.append(hook)
        return _RemovableHandle(lambda: acc.post_acc_hooks.remove(hook))

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad`` (see torch.Tensor.backward)."""
        # (the module by name: an import statement here would cost a microsecond per call)
        autograd = sys.modules.get(_AUTOGRAD) or importlib.import_module(_AUTOGRAD)
        autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # -- conversion -----------------------------------------------------------------------------
    def _check_readable(self, what):
        _dispatch.read_value(self, what)
        if self._meta:  # torch's error classes and wording for each way of reading
            if what in ("item", "bool"):
                raise RuntimeError("Tensor.item() cannot be called on meta tensors")
            if what == "numpy":
                raise TypeError("can't convert meta device type tensor to numpy. Use Tensor.cpu() "
                                "to copy the tensor to host memory first.")
            raise NotImplementedError(f"Cannot copy out of meta tensor; no data! ({what})")

    def _host_only(self):
        """numpy views need host memory: a tensor on the wafer's device is copied first (torch)."""
        raise TypeError(f"can't convert {self.device} device type tensor to numpy. Use "
                        "Tensor.cpu() to copy the tensor to host memory first.")

    def item(self):
        self._check_readable("item")
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        v = self._data.reshape(()).item() if self._dtype is not D.bfloat16 else \
            builtins.float(self._data.reshape(()))
        return v

    def tolist(self):
        self._check_readable("tolist")
        if self._dtype in (D.bfloat16,):
            return self._data.astype(np.float32).tolist()
        return self._data.tolist()

    def numpy(self, *, force=False) -> np.ndarray:
        self._check_readable("numpy")
        if self._lazydev and not force:
            self._host_only()
        if self._rg and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._data

    # numpy defers its operators to ours (``np.float32(2) * t`` is a Tensor, as in torch)
    __array_priority__ = 1000

    def __array__(self, dtype=None, copy=None):
        self._check_readable("__array__")
        if self._lazydev:
            self._host_only()
        if self._rg:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._data if dtype is None else self._data.astype(dtype)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        self._check_readable("bool")
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous"
                               if not self._data.size else
                               "Boolean value of Tensor with more than one value is ambiguous")
        return builtins.bool(self._data.reshape(()))

    def _one_element(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __int__(self) -> int:
        return builtins.int(self._one_element())

    def __float__(self) -> float:
        return builtins.float(self._one_element())

    def __complex__(self) -> complex:
        return builtins.complex(self._one_element())

    def __index__(self) -> int:
        if self._dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return builtins.int(self.item())

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        from ._format import tensor_repr
        return tensor_repr(self)

    def __format__(self, spec) -> str:
        # torch formats only exact 0-d Tensors as numbers (a 0-d Parameter formats like object)
        if self._data.ndim == 0 and not self._meta and type(self) is Tensor:
            return self.item().__format__(spec)
        return object.__format__(self, spec) if spec else repr(self)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        new = type(self).__new__(type(self))
        from ._autograd import no_grad
        with no_grad():  # the copy is an op at the dispatch point
            copy_ = _dispatch.apply(_dispatch.OPS["clone"], self) if not self._meta else self
        Tensor._init(new, copy_._data if not self._meta else self._data, False)
        new._meta = self._meta
        new._lazydev = self._lazydev
        new._rg = self._rg
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        for k, v in self.__dict__.items():
            import copy
            new.__dict__[k] = copy.deepcopy(v, memo)
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, proto):
        self._check_readable("pickle")
        return (_rebuild, (np.array(self._data), self._rg, type(self)))

    def __getstate__(self):
        self._check_readable("pickle")
        return None

    def __setstate__(self, state):
        pass

    # -- device (metadata only: every tensor lives in host memory) -----------------------------
    def _type_name(self):
        return type_name(self._dtype)


    def cpu(self):
        """A host copy of a tensor on the wafer's (lazy) device; any other tensor itself."""
        return self.to("cpu") if self._lazydev else self


    def cuda(self, *a, **k):
        _no_cuda()


    def pin_memory(self):
        return self


    def share_memory_(self):
        return self


def type_name(dt) -> str:
    """torch's legacy type name of a tensor of dtype ``dt`` (``torch.FloatTensor``)."""
    return f"torch.{_TYPE_NAMES.get(dt.name, dt.name)}"


_TYPE_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
               "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor",
               "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor",
               "bool": "BoolTensor"}


class Size(tuple):
    """``torch.Size``: a tuple of ints that prints as ``torch.Size([...])``."""

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):  # (a Size joined with a tuple is a Size, either way round)
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to "
                            "torch.Size")
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__


class _RemovableHandle:
    def __init__(self, fn):
        self._fn = fn

    def remove(self):
        if self._fn is not None:
            self._fn()
            self._fn = None


def _remove_hook(t, hook, lst):
    if hook in lst:
        lst.remove(hook)
    if t._acc is not None and t._acc.pre_hooks:
        hooks = t._acc.pre_hooks.get(0, [])
        if hook in hooks:
            hooks.remove(hook)


def _no_cuda():
    raise AssertionError("Torch not compiled with CUDA enabled")


def _wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n if ndim else 0


def _size(t, d):
    """``t.size(d)`` with torch's errors (the order in which torch's kernels ask for sizes
    decides which error a malformed call gets): a 0-d tensor has no dimension to ask for."""
    if t.ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return t.shape[_wrap_dim(d, t.ndim)]


def _to_meta(t):
    out = Tensor._wrap(_meta_array(t._data.shape, t._data.dtype))
    out._meta = True
    return out


def _meta_array(shape, npdtype):
    return np.broadcast_to(np.zeros((), dtype=npdtype), tuple(shape))


def _rebuild(arr, rg, cls):
    t = cls.__new__(cls)
    Tensor._init(t, arr, False)
    t._rg = rg
    return t


from . import _dispatch  # noqa: E402  (_dispatch needs Tensor; see its last lines)
