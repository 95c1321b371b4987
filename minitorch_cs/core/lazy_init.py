"""Lazy weight initialization on the emulated CSX device (the cstorch 2.10 documentation pages
"Efficient weight initialization" and "Defer weight initialization"; SPEC §6).

With ``backend.device.config.lazy_initialization`` on, tensors created inside ``with
backend.device:`` allocate nothing. Each is a *lazy tensor* backed by a ``LazyStorage`` holding its
shape, dtype and a *recipe*: the creation op and every later in-place op on it (``uniform_``,
``normal_``, ``fill_``, ``mul_``, ``copy_``, ... including ``model.apply(init_fn)`` after the
``with`` block). Recipes are per weight, so running them is grouped per weight. They run when the
weights are first needed (``cstorch.compile``) or when a value is read.

Random numbers:

Outside the ``with`` block, an in-place op on a lazy weight whose other tensor operands are lazy
too (``model.apply(init_fn)``, ``copy_`` between lazy weights) is still recorded; any other use
runs eagerly on the materialized values.

* ``optimize_initialization`` on (the default): every random op draws one seed from the global
  generator *when it is recorded* and runs on its own generator. Values then depend only on the
  order of the calls, so ops whose result a later op fully overwrites can be pruned without
  changing anything else.
* off: random ops draw from the global generator *when they run*, in the grouped order. The global
  generator is set to its state at the first recorded op, the recipes run weight by weight, and the
  state is put back. That is why lazily initialized weights differ from eager ones (the documentation's example) while
  being samples of the same distributions.

``skip_weight_init`` and ``drop_data`` materialize zeros without running any recipe.

A lazy tensor is an instance of a generated subclass of its class whose ``_data`` attribute is a
property: any raw access materializes the storage, after which the tensor's class is restored and
it is an ordinary tensor again.
"""
from __future__ import annotations

import os
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .. import backends as _flags
from ..torch import _dispatch
from ..torch._dispatch import Ctx, _copy_into
from ..torch._random import default_generator
from ..torch._tensor import Size, Tensor, _wrap_dim

__all__ = ["LazyStorage", "LazyInitMode", "is_lazy", "materialize_all", "pending"]

_SLOT = Tensor.__dict__["_data"]
_CREATION = {"full", "random_new", "arange", "eye", "linspace"}
_RANDOM = {"random_fill", "random_new", "bernoulli", "multinomial"}
_FULL_OVERWRITE = {"fill_", "random_fill", "copy_"}
_LAZY_CLASSES: dict = {}
_pending = weakref.WeakValueDictionary()  # index -> live LazyStorage not yet materialized
_PRUNE = True  # tests switch pruning off to show it never changes values
_bulk = [False]  # set while materialize_all runs recipes (possibly on several threads)
_counter = [0]


def is_lazy(t) -> bool:
    return getattr(type(t), "_is_lazy", False)


def pending():
    """Live base storages not yet materialized, in creation order."""
    return [s for _, s in sorted(_pending.items()) if s.array is None]


class LazyStorage:
    """The deferred value of one tensor: shape, dtype and the ops that produce it."""

    def __init__(self, shape, npdtype, base=None, view=None):
        self.shape = tuple(shape)
        self.npdtype = np.dtype(npdtype)
        self.recipe = []
        self.array = None
        self.base = base
        self.view = view  # (op, args, attrs) applied to the base's array
        self.tensors = weakref.WeakSet()
        self.session = LazyInitMode.current
        self.lock = threading.Lock()
        _counter[0] += 1
        self.index = _counter[0]
        if base is None:
            _pending[self.index] = self

    def materialize(self):
        if self.array is not None:
            return self.array
        with self.lock:
            if self.array is None:
                self._materialize_locked()
        return self.array

    def _materialize_locked(self):
        if self.base is not None:
            op, args, attrs = self.view
            arr = op.forward(Ctx(), self.base.materialize(), *[_value(a) for a in args], **attrs)
        else:
            mode = self.session
            if mode is not None and mode.needs_rng_replay:
                with mode.rng_replay():
                    arr = self._run()
            else:
                arr = self._run()
        self._set(arr)

    def _run(self):
        if _flags.csx.debug.skip_weight_init or _flags.csx.debug.drop_data:
            return np.zeros(self.shape, self.npdtype)
        arr = None
        recipe = self.recipe
        overwritten = len(recipe) > 1 and recipe[0][1].name == "full" and \
            recipe[1][1].name in ("random_fill", "fill_") and recipe[1][4] is None
        for i, (kind, op, args, attrs, view_chain) in enumerate(recipe):
            vals = [_value(a) for a in args]
            if kind == "new" and i == 0 and overwritten:
                arr = np.empty(self.shape, self.npdtype)  # the next op writes every element
            elif kind == "new":
                arr = op.forward(Ctx(), *vals, **attrs)
                if not arr.flags.writeable:
                    arr = np.array(arr)
            else:
                dst = arr if view_chain is None else _apply_views(arr, view_chain)
                out = op.forward(Ctx(), dst, *vals, out=dst, **attrs)
                if out is not dst:
                    _copy_into(dst, out)
        return arr

    def _set(self, arr):
        self.array = arr
        for t in list(self.tensors):
            _unlazy(t, arr)
        self.tensors.clear()
        if self.base is None and self.session is not None and not _bulk[0]:
            self.session.finish_if_done()

    def overwrite(self):
        """Prune: a full overwrite makes every earlier in-place op dead (keep the creation op)."""
        self.recipe = [e for e in self.recipe if e[0] == "new"]


def _apply_views(arr, chain):
    for op, args, attrs in chain:
        arr = op.forward(Ctx(), arr, *[_value(a) for a in args], **attrs)
    return arr


def _value(a):
    if isinstance(a, _LazyRef):
        return a.storage.materialize()
    if isinstance(a, Tensor):
        return a._data
    return a


class _LazyRef:
    __slots__ = ("storage",)

    def __init__(self, storage):
        self.storage = storage


# ----- lazy tensor classes ------------------------------------------------------------------------
def _get_data(self):
    return self.__dict__["_lazy"].materialize()


def _set_data(self, value):
    # ``t.data = other`` or Tensor._init on a lazy tensor: becomes an ordinary tensor holding value
    _unlazy(self, value)


def _unlazy(t, arr):
    st = t.__dict__.pop("_lazy", None)
    if type(t).__dict__.get("_is_lazy"):
        t.__class__ = type(t).__bases__[0]
    _SLOT.__set__(t, arr)
    if st is not None and st.base is None:
        t.__dict__["_lazy_initialized"] = True


def _lazy_shape(self):
    return Size(self.__dict__["_lazy"].shape)


def _lazy_size(self, dim=None):
    shape = self.__dict__["_lazy"].shape
    return Size(shape) if dim is None else shape[_wrap_dim(dim, len(shape))]


def _lazy_numel(self):
    n = 1
    for s in self.__dict__["_lazy"].shape:
        n *= s
    return n


def _lazy_len(self):
    shape = self.__dict__["_lazy"].shape
    if not shape:
        raise TypeError("len() of a 0-d tensor")
    return shape[0]


def _lazy_alias(self):
    """``.data`` / ``.detach()`` of a lazy tensor: another lazy tensor on the same storage."""
    return make_lazy(Tensor, self.__dict__["_lazy"], self._dtype)


def _lazy_repr(self):
    st = self.__dict__["_lazy"]
    return (f"tensor(<lazily initialized: {len(st.recipe) if st.base is None else 'view'} "
            f"recorded ops>, size={st.shape}, dtype={self._dtype!r})")


def lazy_class(cls):
    lc = _LAZY_CLASSES.get(cls)
    if lc is None:
        lc = type("Lazy" + cls.__name__, (cls,), {
            "__slots__": (), "_is_lazy": True, "_data": property(_get_data, _set_data),
            "shape": property(_lazy_shape), "size": _lazy_size, "numel": _lazy_numel,
            "nelement": _lazy_numel, "__len__": _lazy_len,
            "ndim": property(lambda self: len(self.__dict__["_lazy"].shape)),
            "dim": lambda self: len(self.__dict__["_lazy"].shape),
            "data": property(_lazy_alias, Tensor.data.fset), "detach": _lazy_alias,
            "__repr__": _lazy_repr,
            "_lazy_make_parameter": lambda self, cls, rg: make_lazy(cls, self.__dict__["_lazy"],
                                                                    self._dtype, rg),
        })
        _LAZY_CLASSES[cls] = lc
    return lc


def make_lazy(cls, storage, dtype, requires_grad=False):
    """A new lazy tensor of class ``cls`` whose value is ``storage``."""
    t = object.__new__(lazy_class(cls))
    t._dtype = dtype
    t._init_state()
    t.__dict__["_lazy"] = storage
    t._lazydev = True  # recorded under the CSX device: on the wafer's lazy device
    storage.tensors.add(t)
    if requires_grad:
        t.requires_grad = True
    return t


# ----- the recording mode -------------------------------------------------------------------------
class LazyInitMode(_dispatch.Mode):
    """Dispatch mode recording init ops on lazy tensors (and creating them inside the context)."""

    current = None

    def __init__(self, optimize):
        self.optimize = optimize
        self.in_context = False
        self.rng_state = None  # global generator state at the first recorded op (optimize off)
        self._replay_depth = 0
        LazyInitMode.current = self

    @property
    def needs_rng_replay(self):
        return not self.optimize and self.rng_state is not None

    def rng_replay(self):
        """Run recipes on the global generator's stream as it was when recording began."""
        mode = self

        class _Ctx:
            def __enter__(self):
                if mode._replay_depth == 0:
                    self.saved = default_generator._state_array()
                    default_generator._set_state_array(mode.rng_state)
                mode._replay_depth += 1

            def __exit__(self, *exc):
                mode._replay_depth -= 1
                if mode._replay_depth == 0:
                    mode.rng_state = default_generator._state_array()
                    default_generator._set_state_array(self.saved)
        return _Ctx()

    def finish_if_done(self):
        """Leave the dispatch stack once nothing is pending and the device context is closed."""
        if not self.in_context and not pending() and self.active:
            self.exit()
            if LazyInitMode.current is self:
                LazyInitMode.current = None

    def _note_first(self):
        if self.rng_state is None:
            self.rng_state = default_generator._state_array()

    def _ref(self, a):
        if is_lazy(a):
            return _LazyRef(a.__dict__["_lazy"])
        return a

    def _seed(self, op, attrs):
        if op.name in _RANDOM and attrs.get("generator") is None and self.optimize:
            from .rng import seeded_generator
            attrs = dict(attrs, generator=seeded_generator())
        return attrs

    def dispatch(self, op, args, attrs, target):
        # Inside the device block everything touching a lazy tensor is initialization. After it,
        # only in-place ops on a lazy weight whose other tensor operands are lazy too (e.g.
        # ``model.apply(init_fn)``) are; any other use runs eagerly, and reading ``_data``
        # materializes the weights it needs.
        if target is not None and is_lazy(target):
            if self.in_context or all(is_lazy(a) for a in args[1:] if isinstance(a, Tensor)):
                return self._record_inplace(op, target, args[1:], attrs)
        elif self.in_context:
            if any(is_lazy(a) for a in args):
                return self._record_compute(op, args, attrs)
            if target is None and op.name in _CREATION:
                return self._record_creation(op, attrs)
        return _dispatch.redispatch(self, op, args, attrs, target)

    def _record_creation(self, op, attrs):
        self._note_first()
        attrs = self._seed(op, attrs)
        shape, dt = _creation_meta(op, attrs)
        st = LazyStorage(shape, dt)
        st.recipe.append(("new", op, (), attrs, None))
        return make_lazy(Tensor, st, _dtype_of(dt))

    def _record_inplace(self, op, target, args, attrs):
        self._note_first()
        attrs = self._seed(op, attrs)
        st = target.__dict__["_lazy"]
        chain = []
        while st.base is not None:
            chain.insert(0, st.view)
            st = st.base
        refs = tuple(self._ref(a) for a in args)
        if self.optimize and _PRUNE and not chain and op.name in _FULL_OVERWRITE and \
                _covers(op, args, st):
            st.overwrite()
        st.recipe.append(("inplace", op, refs, attrs, chain or None))
        target._vc[0] += 1
        return target

    def _record_compute(self, op, args, attrs):
        self._note_first()
        attrs = self._seed(op, attrs)
        if op.is_view and is_lazy(args[0]):
            base = args[0].__dict__["_lazy"]
            rest = tuple(self._ref(a) for a in args[1:])
            dummy = op.forward(Ctx(), _dummy(base.shape, base.npdtype),
                               *[_dummy_value(a) for a in rest], **attrs)
            st = LazyStorage(dummy.shape, dummy.dtype, base=base, view=(op, rest, attrs))
            return make_lazy(Tensor, st, _dtype_of(dummy.dtype))
        refs = tuple(self._ref(a) for a in args)
        out = op.forward(Ctx(), *[_dummy_value(a) for a in refs], **attrs)
        outs = out if isinstance(out, tuple) else (out,)
        results = []
        for i, o in enumerate(outs):
            st = LazyStorage(o.shape, o.dtype)
            pick = _Pick(op, i) if isinstance(out, tuple) else op
            st.recipe.append(("new", pick, refs, attrs, None))
            results.append(make_lazy(Tensor, st, _dtype_of(o.dtype)))
        return tuple(results) if isinstance(out, tuple) else results[0]


class _Pick:
    """Output ``i`` of a multi-output op, as a single-output forward."""

    def __init__(self, op, i):
        self.op, self.i, self.name = op, i, op.name

    def forward(self, ctx, *args, **attrs):
        return self.op.forward(ctx, *args, **attrs)[self.i]


def _covers(op, args, st):
    if op.name != "copy_":
        return True
    src = args[0]
    shape = src.__dict__["_lazy"].shape if is_lazy(src) else tuple(getattr(src, "shape", ()))
    return np.broadcast_shapes(shape, st.shape) == st.shape


def _dummy(shape, npdtype):
    return np.broadcast_to(np.zeros((), npdtype), shape)


def _dummy_value(a):
    if isinstance(a, _LazyRef):
        return _dummy(a.storage.shape, a.storage.npdtype)
    if isinstance(a, Tensor):
        return a._data
    return a


def _dtype_of(npdtype):
    from ..torch import _dtype as D
    return D._BY_NP[np.dtype(npdtype)]


def _creation_meta(op, attrs):
    name = op.name
    if name == "full":
        return attrs["shape"], attrs["dtype"]
    if name == "random_new":
        if attrs.get("kind") == "perm":
            return (int(attrs["a"]),), attrs["dtype"]
        return attrs["shape"], attrs["dtype"]
    if name == "eye":
        return (attrs["n"], attrs["m"]), attrs["dtype"]
    if name == "linspace":
        return (attrs["steps"],), attrs["dtype"]
    if name == "arange":
        n = int(np.ceil((attrs["end"] - attrs["start"]) / attrs["step"]))
        return (max(n, 0),), attrs["dtype"]
    raise AssertionError(name)


def materialize_all():
    """Run every pending recipe, weight by weight (compile time).

    With record-time seeding (``optimize_initialization``) a weight's values do not depend on when
    its recipe runs, so recipes run on a thread per core (numpy's fills release the GIL), as the
    wafer initializes weights in parallel. Otherwise they run one by one in creation order.
    """
    todo = pending()
    mode = LazyInitMode.current
    workers = min(len(todo), os.cpu_count() or 1)
    _bulk[0] = True
    try:
        if workers > 1 and mode is not None and not mode.needs_rng_replay:
            with ThreadPoolExecutor(workers) as pool:
                list(pool.map(LazyStorage.materialize, todo))
        else:
            for st in todo:
                st.materialize()
    finally:
        _bulk[0] = False
    _pending.clear()
    mode = LazyInitMode.current
    if mode is not None:
        mode.finish_if_done()


def enter_context(optimize):
    """The session for a ``with backend.device:`` block (reused while weights are pending)."""
    mode = LazyInitMode.current
    if mode is None or not mode.active:
        mode = LazyInitMode(optimize).enter()
    mode.in_context = True
    return mode


def exit_context(mode):
    mode.in_context = False
    mode.finish_if_done()


def reset() -> None:
    """Forget every pending recipe and leave the dispatch stack (a new backend starts clean)."""
    _pending.clear()
    mode = LazyInitMode.current
    if mode is not None:
        mode.exit()
        LazyInitMode.current = None
