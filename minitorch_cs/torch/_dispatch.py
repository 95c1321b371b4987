"""The single dispatch point: every tensor operation passes here, and modes observe it.

``apply(op, *args, **attrs)`` runs a primitive op and ``apply_inplace(op, target, ...)`` writes
one into ``target``. Both run eagerly (recording an autograd node when needed) unless a *mode* is
active. A mode is an instance of :class:`Mode`; it is pushed with ``mode.enter()`` (or ``with
mode:``) and popped with ``mode.exit()``, and the stack itself is private to this module. While
active, a mode sees, through one method each:

* ``dispatch(op, args, attrs, target)`` -- every primitive op (creation, math, views, in-place
  writes, conversions, random draws, generator state changes);
* ``on_read(tensor, what)`` -- Python about to read a tensor's values (``item``, ``bool``,
  ``tolist``, ``numpy``, ``__array__``, ``repr``, ``allclose``/``equal``);
* ``on_set_data(tensor, source)`` -- ``tensor.data = source`` and ``out=`` resizes: a tensor's
  storage replaced by another tensor's;
* ``on_set_grad(tensor, value)`` -- ``tensor.grad = value``; ``on_zero_grad(tensor,
  set_to_none)`` -- ``zero_grad`` of one parameter; ``on_read_grad(tensor)`` -- Python reads
  ``tensor.grad`` (whether a gradient exists is state Python can branch on);
* ``on_become(tensor, result)`` -- in-place view ops (``t_``, ``transpose_``, ``squeeze_``,
  ``unsqueeze_``): a tensor taking over the storage and graph position of a view of itself;
* ``engine()`` -- an :class:`EngineObserver` for the autograd engine's array-level work during
  ``backward``/``autograd.grad`` (backward rules, un-broadcasting, gradient sums, ``.grad``
  writes), or ``None``.

``redispatch(mode, ...)`` continues an op below ``mode`` (the next mode down, or eager). Which
modes exist: graph capture for the emulated wafer (``core.capture``), lazy-initialization
recording (``core.lazy_init``), per-op generator seeding inside a device context (``core.rng``).
Meta tensors (shape and dtype only) are handled by the eager path itself.
"""
from __future__ import annotations

import weakref

import numpy as np

from ._autograd import Anomaly, GradState, Node, record_forward_stack
from ._errors import translate
from ._layout import dense_layout
from ._views import (DIRECT, MARKED, check_marked, dim_order, made_without_grad,
                     mark_message, multi_message, VIA_NO_GRAD_VIEW, view_target)

__all__ = ["Op", "Mode", "EngineObserver", "apply", "apply_inplace", "redispatch", "OPS", "Ctx",
           "read_value", "values_hidden", "wafer_dtypes", "set_data", "set_grad", "read_grad", "zero_grad",
           "become", "engine_observers",
           "modes"]

OPS: dict[str, type] = {}
_stack: list = []  # the active modes, innermost last; only Mode.enter/exit change it


class Op:
    """A primitive op: a numpy forward and its backward rule, declared side by side.

    ``forward(ctx, *arrays, **attrs)`` receives ndarrays (or Python scalars where the caller passed
    them) and returns an ndarray (or a tuple for ``n_outputs > 1``); values needed later are stored
    on ``ctx``. ``backward(ctx, grad)`` returns one gradient (or ``None``) per positional input,
    for same-shaped operands: the engine undoes broadcasting. ``saved`` lists the input positions
    whose values backward reads (their in-place modification is detected); ``saves_output`` says
    backward reads the output. ``reads`` (optional) maps a saved position to the inputs whose
    gradients need it, so a value that no needed gradient reads is not checked (torch's
    ``x * 3`` saves nothing of ``x``).

    ``tensor_attrs`` names the keyword attributes that may hold tensors (index tensors, keys of
    advanced indexing, possibly nested in tuples): the dispatch point hands their arrays to
    ``forward`` and modes see the tensors. No attribute ever holds a raw ndarray.
    ``data_dependent_shape`` marks ops whose output shape depends on input values (``nonzero``,
    ``unique``): a compiled graph cannot hold them. ``alias`` marks ops whose output shares the
    input's storage without being an autograd view (``detach``, ``.data``).
    """

    name = "op"
    saved: tuple = ()
    reads: dict | None = None
    saves_output = False
    inplace_saves_output = False  # the in-place form's backward reads the written result
    saved_outputs: tuple = ()  # outputs of a multi-output op that backward reads (indices)
    differentiable = True
    is_view = False
    alias = False
    shares_version = False
    n_outputs = 1
    nondiff_outputs: tuple = ()
    tensor_attrs: tuple = ()
    data_dependent_shape = False
    # torch's memory-overlap check of the written tensor against the inputs (see check_overlap):
    # "partial" (TensorIterator ops, copy_), "any" (index_add_, index_copy_, scatter_), or None
    overlap = None

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if "name" in cls.__dict__:
            OPS[cls.name] = cls

    @staticmethod
    def forward(ctx, *arrays, **attrs):
        raise NotImplementedError

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for this op is not implemented")


class Ctx:
    """Scratch space handed to ``forward`` when no autograd node is recorded."""

    needs_input_grad = ()


class EngineObserver:
    """Receives the autograd engine's array-level events (one per event kind).

    ``fn(func, inputs, kwargs, output)``: ``output = func(*inputs, **kwargs)`` was computed;
    ``bwd(node, grads, in_grads)``: a node's backward rule ran; ``accumulate(var, g, created)``: a
    leaf's ``.grad`` was created from (``created``) or increased by ``g``
    (``_autograd.accumulate_grad`` is the rule).
    """

    def fn(self, func, inputs, kwargs, output):
        pass

    def bwd(self, node, grads, in_grads):
        pass

    def accumulate(self, var, g, created):
        pass


class Mode:
    """A dispatch mode: sees every tensor operation while it is on the stack (module docstring).

    Subclasses override the hooks they need; the defaults pass everything through.
    """

    hides_values = False  # repr() shows no values while this mode is active (a traced step)
    # An innermost mode sees ops after every other mode transformed them (a graph capture must
    # record what actually runs): it enters below the modes already active.
    innermost = False
    # The wafer compiler's dtype rules instead of torch's eager ones (a compile-only capture):
    # matmul-type ops promote mixed floating inputs, class-label losses take any integer labels.
    wafer_dtypes = False

    def dispatch(self, op, args, attrs, target):
        return redispatch(self, op, args, attrs, target)

    def on_read(self, tensor, what) -> None:
        pass

    def on_set_data(self, tensor, source) -> None:
        pass

    def on_become(self, tensor, result) -> None:
        pass

    def on_set_grad(self, tensor, value) -> None:
        pass

    def on_read_grad(self, tensor) -> None:
        pass

    def on_zero_grad(self, tensor, set_to_none) -> None:
        pass

    def engine(self):
        return None

    # -- the stack --------------------------------------------------------------------------------
    def enter(self):
        """Push this mode (innermost)."""
        if self in _stack:
            raise RuntimeError(f"{type(self).__name__} is already active")
        if self.innermost:
            _stack.insert(0, self)
        else:
            _stack.append(self)
        return self

    def exit(self) -> None:
        """Pop this mode (modes may leave out of order)."""
        if self in _stack:
            _stack.remove(self)

    @property
    def active(self) -> bool:
        return self in _stack

    def __enter__(self):
        return self.enter()

    def __exit__(self, *exc):
        self.exit()
        return False


def modes() -> tuple:
    """The active modes, outermost first (read-only view of the stack)."""
    return tuple(_stack)


def apply(op, *args, **attrs):
    """Run a primitive op on tensors (and scalars): the one entry point of every op."""
    try:
        if _stack:
            return _stack[-1].dispatch(op, args, attrs, None)
        return eager(op, args, attrs)
    except _NUMPY_ERRORS as e:
        mapped = translate(e, op, args, attrs)
        if mapped is e:
            raise
        raise mapped from None


def apply_inplace(op, target, *args, **attrs):
    """Run ``op(target, *args)`` and write the result into ``target`` (a tensor); returns target."""
    try:
        if _stack:
            return _stack[-1].dispatch(op, (target,) + args, attrs, target)
        return eager_inplace(op, target, args, attrs)
    except _NUMPY_ERRORS as e:
        mapped = translate(e, op, (target,) + args, attrs)
        if mapped is e:
            raise
        raise mapped from None


# exception classes numpy raises from kernels (its AxisError, UFuncTypeError and
# DTypePromotionError derive from these; an allocation it cannot make is a MemoryError);
# ``_errors.translate`` maps them to torch's
_NUMPY_ERRORS = (ValueError, TypeError, IndexError, ArithmeticError, MemoryError)


def redispatch(mode, op, args, attrs, target):
    """Continue an op call below ``mode``: the next mode down the stack, or eager execution."""
    i = _stack.index(mode)
    if i > 0:
        return _stack[i - 1].dispatch(op, args, attrs, target)
    if target is None:
        return eager(op, args, attrs)
    return eager_inplace(op, target, args[1:], attrs)


# ----- events that are not ops ----------------------------------------------------------------------
def read_value(t, what) -> None:
    """Python is about to read ``t``'s values (``what``: "item", "bool", "numpy", ...)."""
    for m in reversed(_stack):
        m.on_read(t, what)


def wafer_dtypes() -> bool:
    """True while a mode applies the wafer compiler's dtype rules (``Mode.wafer_dtypes``)."""
    return any(m.wafer_dtypes for m in _stack)


def values_hidden() -> bool:
    """True while a mode hides tensor values (repr shows a placeholder)."""
    return any(m.hides_values for m in _stack)


def set_data(t, source) -> None:
    """``t.data = source``: ``t`` now uses ``source``'s storage, shape and dtype (torch's
    ``set_data``; ``t`` keeps its identity, autograd state and hooks)."""
    for m in reversed(_stack):
        m.on_set_data(t, source)
    t._data = source._data
    t._dtype = source._dtype
    t._meta = source._meta
    t._lazydev = source._lazydev
    t._vc = source._vc


def set_grad(t, value) -> None:
    """``t.grad = value`` (a tensor or None), e.g. ``zero_grad(set_to_none=True)``."""
    for m in reversed(_stack):
        m.on_set_grad(t, value)
    t._grad = value


def read_grad(t) -> None:
    """Python reads ``t.grad`` (whether it is None is Python-visible state)."""
    for m in _stack:
        m.on_read_grad(t)


def zero_grad(t, set_to_none=True) -> None:
    """``zero_grad`` for one parameter: its ``.grad`` unset (``set_to_none``) or zero-filled in
    place, whichever gradient it has when this runs (none: nothing to do)."""
    for m in reversed(_stack):
        m.on_zero_grad(t, set_to_none)
    zero_grad_now(t, set_to_none)


def zero_grad_now(t, set_to_none) -> None:
    """The rule of :func:`zero_grad` on the current state (eager execution and replay)."""
    g = t._grad
    if g is None:
        return
    if set_to_none:
        t._grad = None
        return
    if g.grad_fn is not None:
        g.grad_fn = None
    g._rg = False
    g._data[...] = 0
    g._vc[0] += 1


def become(t, result) -> None:
    """An in-place view op: ``t`` takes over ``result`` (a view of ``t`` computed through
    ``apply``): its array, its place in the autograd graph, and its version counter. torch
    refuses this on a leaf that requires grad, and counts it as an in-place modification."""
    if t._rg and t.grad_fn is None and GradState.enabled:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    for m in reversed(_stack):
        m.on_become(t, result)
    t._data = result._data
    t.grad_fn = result.grad_fn
    t._output_nr = result._output_nr
    t._rg = result._rg
    base = result._base
    if base is t:  # t was a base: it stays one (its storage is now seen through new strides)
        t._base = None
        t._view_fn = None
    else:
        t._base = base
        t._view_fn = result._view_fn
    t._vc[0] += 1


def engine_observers() -> list:
    """The engine observers of the active modes (empty outside a capture)."""
    if not _stack:
        return []
    return [o for o in (m.engine() for m in _stack) if o is not None]


def unwrap_attrs(op, attrs):
    """``attrs`` with every tensor in ``op.tensor_attrs`` replaced by its array."""
    if not op.tensor_attrs:
        return attrs
    out = dict(attrs)
    for k in op.tensor_attrs:
        if k in out:
            out[k] = _unwrap(out[k])
    return out


def _unwrap(v):
    if isinstance(v, Tensor):
        return v._data
    if isinstance(v, (tuple, list)):
        return type(v)(_unwrap(x) for x in v)
    return v


def _needs_grad(op, args):
    if not (GradState.enabled and op.differentiable):
        return False
    for a in args:
        if isinstance(a, Tensor) and a._rg:
            return True
    return False


def _make_node(op, args):
    if MARKED[0]:
        check_marked(args)
    node = Node(op, op.n_outputs)
    nxt = []
    meta = []
    needs = []
    for a in args:
        if isinstance(a, Tensor):
            d = a._data
            meta.append((d.shape, d.dtype))
            if a._rg:
                fn = a.grad_fn
                e = (fn, a._output_nr) if fn is not None else a._edge()
                if e is not None:  # (None: a view made in no_grad mode, see made_without_grad)
                    nxt.append(e)
                    needs.append(True)
                    continue
        else:
            meta.append(None)
        nxt.append(None)
        needs.append(False)
    node.next = nxt
    node.in_meta = meta
    node.needs_input_grad = needs
    node.saved_versions = _saved_versions(op, args, needs, 0) if op.saved else []
    if Anomaly.enabled:
        record_forward_stack(node)
    return node


def _saved_versions(op, args, needs, first):
    """(tensor, version) for each saved input from position ``first`` that a needed gradient reads."""
    reads = op.reads
    n, nn = len(args), len(needs)
    out = []
    for i in op.saved:
        if i < first or i >= n:
            continue
        a = args[i]
        if not isinstance(a, Tensor):
            continue
        if reads is not None:
            for j in reads.get(i, ()):
                if j < nn and needs[j]:
                    break
            else:
                continue  # no needed gradient reads it
        if a.__dict__.get("_inference") is True:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors "
                "created in inference mode in computation tracked by autograd. To work around "
                "this, you can make a clone to get a normal tensor and use it in autograd.")
        out.append((a, a._vc[0]))
    return out


def eager(op, args, attrs):
    # one pass over the arguments: their arrays, whether any is a meta tensor or on the wafer's
    # lazy device (or all are internal constants of no device), whether any requires grad
    arrays = []
    meta = lazy = rg = False
    neutral = True
    for a in args:
        if isinstance(a, Tensor):
            arrays.append(a._data)
            if a._meta:
                meta = True
            elif a._lazydev:
                lazy = True
            elif a._lazydev is False:
                neutral = False
            if a._rg:
                rg = True
        else:
            arrays.append(a)
    res = _eager(op, args, attrs, arrays, rg and GradState.enabled and op.differentiable)
    if meta or lazy:
        _place(op, args, res, meta)
    elif neutral:  # made from attributes (a constant, a random draw) or internal constants only:
        for t in (res if isinstance(res, tuple) else (res,)):  # no device of its own; the
            if isinstance(t, Tensor):  # public creation functions place theirs (_creation.place)
                t._lazydev = None
    return res


def check_same_device(op, args):
    """The lazy device takes host tensors only as 0-d values (torch's wrapped numbers): any
    other host operand is refused, as cstorch's lazy tensor backend refuses it."""
    for a in args:
        if isinstance(a, Tensor) and a._lazydev is False and not a._meta and a._data.ndim:
            raise RuntimeError(
                f"Detected tensor arguments with incompatible devices in a call of {op.name}: a "
                f"{a.type()} of shape {list(a.shape)} on the host (cpu) with tensors on the "
                "wafer (lazy:0). Create it on the device (device=x.device, or inside `with "
                "backend.device:`), move it with .to(backend.torch_device), or compile its "
                "model with cstorch.compile.")


def _place(op, args, res, meta):
    """Device propagation: any meta input (``meta``) makes the outputs meta tensors; otherwise
    an input on the wafer's lazy device puts the outputs there."""
    if not meta:
        check_same_device(op, args)
    for t in (res if isinstance(res, tuple) else (res,)):
        if not isinstance(t, Tensor):
            continue
        if meta:
            t._meta = True
            if not (op.is_view or op.alias):  # keep shape and dtype only
                t._data = _meta_array(t._data.shape, t._data.dtype)
        else:
            t._lazydev = True


def _eager(op, args, attrs, arrays=None, grad=None):
    if arrays is None:
        arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    if grad is None:
        grad = _needs_grad(op, args)
    if op.tensor_attrs:
        attrs = unwrap_attrs(op, attrs)
    if grad:
        node = _make_node(op, args)
        out = op.forward(node, *arrays, **attrs)
        if op.n_outputs == 1:
            res = _wrap_out(op, out, args, node, 0)
            if op.is_view:
                _set_view_fn(res, op, args[0], arrays[1:], attrs)
                _register_view(res)
            if op.saves_output:
                node.saved_versions.append((res, res._vc[0]))
            return res
        node.out_meta = [(o.shape, o.dtype) for o in out]
        res = tuple(_wrap_out(op, o, args, None if i in op.nondiff_outputs else node, i)
                    for i, o in enumerate(out))
        for i in op.saved_outputs:  # e.g. the indices of max(dim): changing them in place is
            node.saved_versions.append((res[i], res[i]._vc[0]))  # refused at backward (torch)
        return res
    out = op.forward(Ctx(), *arrays, **attrs)
    if op.n_outputs == 1:
        res = _wrap_out(op, out, args, None, 0)
        if op.is_view:
            _set_view_fn(res, op, args[0], arrays[1:], attrs)
            if not GradState.enabled:
                made_without_grad(res, args[0])
            _register_view(res)
        return res
    if op.n_outputs == 0:
        return None
    return tuple(_wrap_out(op, o, args, None, i) for i, o in enumerate(out))


def output_array(op, out):
    """A kernel's result as the array a tensor holds: numpy scalars (0-d results of numpy
    reductions and ufuncs) become 0-d arrays, and read-only results of ops that are not views
    become writeable copies, so every op's output accepts in-place writes (as torch's do)."""
    if type(out) is not np.ndarray:
        return np.asarray(out) if not isinstance(out, np.ndarray) else out
    if not out.flags.writeable and not (op.is_view or op.alias):
        return out.copy()
    return out


def _set_view_fn(t, op, src, rest, attrs):
    parent = src._view_fn if src._base is not None else None
    if src._base is not None and parent is None:
        t._view_fn = None
        return

    def view_fn(a, parent=parent):
        if parent is not None:
            a = parent(a)
        return op.forward(Ctx(), a, *rest, **attrs)
    # the root base's memory order: a replay on a copy must lay the copy out the same way (a
    # reshape that viewed the base may not view a C-ordered copy)
    view_fn.base_order = parent.base_order if parent is not None else dim_order(src._data)
    t._view_fn = view_fn


def also_saved(out, *tensors):
    """Record that ``out``'s node saves ``tensors`` as well (torch's node for the op saves them
    even where our composition's last node does not read them): changing one in place before
    backward is then refused, as in torch. No-op when ``out`` records no node."""
    node = out.grad_fn
    if node is not None:
        node.saved_versions.extend((t, t._vc[0]) for t in tensors if t is not None)
    return out


def _wrap_out(op, arr, args, node, nr):
    if type(arr) is not np.ndarray or not arr.flags.writeable:
        arr = output_array(op, arr)
    t = _new_tensor(Tensor)  # (Tensor.__new__ does only this)
    t._data = arr
    dt = t._dtype = _BY_NP[arr.dtype]
    if node is not None and not dt.is_floating_point:
        # torch's set_history: a recorded op's output must be of a differentiable dtype (an
        # integer tensor that requires grad -- left by an in-place op -- cannot flow further)
        raise RuntimeError(f"Autograd not support dtype: {scalar_name(dt)}")
    t._rg = node is not None
    t.grad_fn = node
    t._output_nr = nr
    t._grad = t._acc = t._hooks = t._view_fn = None
    t._retains = t._meta = False
    if op.is_view:
        src = args[0]
        t._vc = src._vc
        t._base = src._base if src._base is not None else src
        if src.__dict__.get("_inference") is True:  # (a view is one when its base is one)
            t.__dict__["_inference"] = True
        if src._base is not None:
            mark = src.__dict__.get("_cmeta")
            if mark is not None:  # (torch propagates a view's creation mark to views of it)
                t.__dict__["_cmeta"] = (VIA_NO_GRAD_VIEW if node is not None else mark[0],
                                        t._vc[0], node)
    elif op.alias:  # same storage, not an autograd view (detach shares the version counter)
        t._vc = args[0]._vc if op.shares_version else [0]
        t._base = None
        if "_inference" in args[0].__dict__:
            t.__dict__["_inference"] = "alias"  # (torch: reports is_inference, takes writes)
    else:
        t._vc = [0]
        t._base = None
        if GradState.inference:  # torch: new memory made in inference mode is an inference
            t.__dict__["_inference"] = True  # tensor
    return t


_new_tensor = object.__new__


_UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide}
_PLAIN_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def fast_binary(op, args, attrs, inplace=False):
    """``(ufunc, alpha)`` when an elementwise ``add``/``sub``/``mul``/``div`` is exactly
    ``ufunc(a, b * alpha)`` on its arrays (:func:`_plain_operands`; ``inplace``: ``a`` is the
    target), else None. Eager in-place ops and graph replay use it to skip the general
    promotion path; the result is the op kernel's, bit for bit."""
    uf = _UFUNCS.get(op.name)
    if uf is None or len(args) != 2:
        return None
    a, b = args
    if type(a) in (int, float) and not inplace:  # a number first (``1 - t``): numpy's
        # weak-scalar rule is torch's there too; the operands' rule read the other way round,
        # with no alpha
        if isinstance(b, Tensor):
            b = None if b._meta else b._data
        plain = _plain_operands(b, a, attrs) if type(b) is np.ndarray else None
        return (uf, 1) if plain is not None and plain[1] == 1 else None
    if type(a) is not np.ndarray:
        if not isinstance(a, Tensor) or a._meta:
            return None
        a = a._data
    plain = _plain_operands(a, b, attrs)
    return None if plain is None else (uf, plain[1])


def _plain_operands(a, b, attrs):
    """``(b's array or number, alpha)`` when ``a op b * alpha`` is the plain ufunc: ``a`` a
    float32/float64 array (0-d too: out of place, numpy then returns a scalar, which the caller
    turns into a 0-d array, as ``output_array`` does), ``b`` a tensor or array of that dtype (0-d
    too: of one dtype no promotion rule differs) or a Python number, ``alpha`` a Python number
    and no rounding mode; else None."""
    if a.dtype not in _PLAIN_FLOATS:
        return None
    alpha = 1
    if attrs:
        if len(attrs) > 1 or attrs.get("rounding_mode") is not None or \
                ("alpha" not in attrs and "rounding_mode" not in attrs):
            return None
        alpha = attrs.get("alpha", 1)
        if type(alpha) not in (int, float):
            return None
    if isinstance(b, Tensor):
        if b._meta:
            return None
        b = b._data
    if type(b) is np.ndarray:
        if b.dtype != a.dtype:
            return None
    elif type(b) not in (int, float):
        return None
    return b, alpha


def check_overlap(target, args, full_ok=True):
    """torch's memory-overlap check before an op writes ``target``: an input sharing memory
    with it must be the very same view (same start, extent and strides; TensorIterator's
    ``assert_no_partial_overlap``), or, with ``full_ok=False`` (index and concatenation ops'
    ``assert_no_overlap``), must not overlap it at all. Inputs that are not dense and
    non-overlapping are not judged (torch's "too hard")."""
    dst = target._data
    for a in args:
        if not isinstance(a, Tensor) or (a is target and full_ok) or a._meta:
            continue
        src = a._data
        if src.size == 0 or dst.size == 0 or not np.may_share_memory(dst, src):
            continue
        if not (dense_layout(dst) and dense_layout(src)):
            continue
        d0, s0 = dst.__array_interface__["data"][0], src.__array_interface__["data"][0]
        d1, s1 = d0 + dst.nbytes, s0 + src.nbytes
        if d1 <= s0 or s1 <= d0 or (full_ok and d0 == s0 and d1 == s1
                                     and target.stride() == a.stride()):
            continue
        raise RuntimeError("unsupported operation: some elements of the input tensor and the "
                           "written-to tensor refer to a single memory location. Please clone() "
                           "the tensor before performing the operation.")


def _inplace_ufunc(uf, target, b, attrs):
    """``target op= b * alpha`` by the ufunc directly when that is exactly the op's kernel
    (:func:`_plain_operands`), no gradient is recorded and ``b`` does not overlap the target;
    None to take the general path (which judges overlaps). The optimizers' updates take it."""
    dst = target._data
    if target._meta or not dst.flags.writeable or (GradState.enabled and (
            target._rg or (isinstance(b, Tensor) and b._rg))):
        return None
    plain = _plain_operands(dst, b, attrs)
    if plain is None:
        return None
    src, alpha = plain
    if type(src) is np.ndarray and b is not target and np.may_share_memory(dst, src):
        return None
    try:
        uf(dst, src if alpha == 1 else src * alpha, out=dst)
    except ValueError:
        return None  # a broadcast error: the general path raises torch's
    target._vc[0] += 1
    return target


_INFERENCE_INPLACE = ("Inplace update to inference tensor outside InferenceMode is not allowed."
                      "You can make a clone to get a normal tensor before doing inplace update."
                      "See https://github.com/pytorch/rfcs/pull/17 for more details.")


def eager_inplace(op, target, args, attrs):
    if target.__dict__.get("_inference") is True and not GradState.inference:
        raise RuntimeError(_INFERENCE_INPLACE)
    if target._lazydev and op.name != "copy_":  # copy_ moves values across devices (torch)
        check_same_device(op, args)
    if len(args) == 1:
        uf = _UFUNCS.get(op.name)
        if uf is not None and _inplace_ufunc(uf, target, args[0], attrs) is not None:
            return target
    if op.overlap is not None:
        full_ok = op.overlap == "partial"
        check_overlap(target, args, full_ok)
        if op.tensor_attrs:  # tensor operands passed as attributes (clamp's bounds, indices)
            check_overlap(target, [attrs.get(k) for k in op.tensor_attrs], full_ok)
    full = (target,) + args
    if GradState.enabled and op.differentiable and any(
            isinstance(a, Tensor) and a._rg for a in full):
        return _inplace_with_grad(op, target, full, attrs)
    if target._meta:  # a meta tensor has no data: in-place ops (e.g. nn.init) are no-ops, as in torch
        target._vc[0] += 1
        return target
    if not target._data.flags.writeable:
        _not_writable(target)
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    try:
        inplace_forward(op, Ctx(), target._data, arrays, unwrap_attrs(op, attrs))
    except ValueError:
        _broadcast_error(target, arrays)
        raise
    target._vc[0] += 1
    return target


def inplace_forward(op, ctx, dst, arrays, attrs):
    """The kernel of an in-place op that records no node: computes into ``dst``."""
    out = op.forward(ctx, dst, *arrays, out=dst, **attrs)
    if out is not dst:
        _copy_into(dst, out)


def inplace_forward_grad(op, ctx, dst, arrays, attrs):
    """The kernel of an in-place op that records a node (``ctx``): when backward reads input 0,
    that is the value the op overwrites, so the kernel sees a private copy of it (torch saves
    ``original_self`` the same way). Eager execution and graph replay both call this."""
    first = dst.copy() if 0 in op.saved else dst
    ctx.inplace_target = dst  # (a kernel that checks the result's cast before its own checks)
    _copy_into(dst, op.forward(ctx, first, *arrays, **attrs))


def _broadcast_error(target, arrays):
    """torch's error when an in-place op's operands broadcast beyond the target's shape."""
    try:
        shape = np.broadcast_shapes(target._data.shape,
                                    *(a.shape for a in arrays if isinstance(a, np.ndarray)))
    except ValueError:
        return
    if shape != target._data.shape:
        raise RuntimeError(f"output with shape {list(target._data.shape)} doesn't match the "
                           f"broadcast shape {list(shape)}") from None


def _not_writable(target):
    arr = target._data
    if any(st == 0 and n > 1 for st, n in zip(arr.strides, arr.shape)):  # e.g. expand()
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor "
                           "refers to a single memory location. Please clone() the tensor before "
                           "performing the operation.")
    raise RuntimeError("in-place operation on a tensor whose memory is read-only (a view of an "
                       "expanded tensor, or a read-only numpy array given to from_numpy); "
                       "clone() it first")


def _copy_into(dst, src):
    if src.shape != dst.shape and src.ndim > dst.ndim:  # numpy would drop leading 1s silently
        raise RuntimeError(f"output with shape {list(dst.shape)} doesn't match the broadcast "
                           f"shape {list(np.broadcast_shapes(src.shape, dst.shape))}")
    if src.dtype != dst.dtype and not can_cast(_BY_NP[src.dtype], _BY_NP[dst.dtype]):
        raise RuntimeError(f"result type {scalar_name(_BY_NP[src.dtype])} can't be cast to the "
                           f"desired output type {scalar_name(_BY_NP[dst.dtype])}")
    np.copyto(dst, src, casting="unsafe")


def _is_copy(op, full, attrs):
    """torch's copy_ paths: ``copy_`` and ``t[basic key] = value`` with a value that has dims
    (a 0-d value is ``fill_``; an advanced key is ``index_put_``)."""
    if op.name == "copy_":
        return True
    if op.name != "index_put" or len(full) < 2 or not isinstance(full[1], Tensor):
        return False
    key = attrs.get("key", ())
    if any(isinstance(k, (Tensor, np.ndarray)) for k in key):
        return False
    # torch's copy_to: copy_ when the value has the slice's shape or has dims, else fill_
    return full[1].ndim > 0 or full[0]._data[key].shape == full[1]._data.shape


def _inplace_with_grad(op, target, full, attrs):
    # torch's check_inplace, in its order: an output of split/chunk/unbind (set by those
    # functions), then a view that requires grad whose base is a leaf (made by no op, requiring
    # grad or not: ``t[::2].requires_grad_()``), then a leaf that requires grad
    multi = target.__dict__.get("_multi_view")
    if multi is not None:
        raise RuntimeError(multi_message(multi, DIRECT))
    base = target._base
    if base is not None:
        mark = target.__dict__.get("_cmeta")
        if mark is not None:
            raise RuntimeError(mark_message(mark, DIRECT))
    if base is not None and base.grad_fn is None and (base._rg or target._rg):
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    if target.grad_fn is None and target._rg:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if not target._data.flags.writeable and not target._meta:
        _not_writable(target)
    if not target._dtype.is_floating_point and _is_copy(op, full, attrs):  # torch: copy_ into
        # an integer/bool tensor gives no grad (fill_/masked_fill_/index_fill_ do, as in torch)
        GradState.enabled = False
        try:
            return eager_inplace(op, target, full[1:], attrs)
        finally:
            GradState.enabled = True
    if base is not None:  # the base's history is rebased, whichever input brings the gradient
        return _inplace_on_view(op, target, full, attrs)
    node = _make_node(op, full)
    arrays = _inplace_arrays(op, full, node)
    try:
        inplace_forward_grad(op, node, target._data, arrays[1:], unwrap_attrs(op, attrs))
    except ValueError:
        _broadcast_error(target, arrays[1:])
        raise
    target._vc[0] += 1
    target.grad_fn = node
    target._output_nr = 0
    target._rg = True
    if op.saves_output or op.inplace_saves_output:
        node.saved_versions.append((target, target._vc[0]))
    _refresh_views(target)
    return target


def _register_view(t):
    """Remember ``t`` among its base's views (weakly), so an in-place change of the base
    through another view, or of the base itself, reaches ``t``'s gradient (``_refresh_views``)."""
    views = t._base.__dict__.get("_views")
    if views is None:
        views = t._base.__dict__["_views"] = weakref.WeakSet()
    views.add(t)


def _refresh_views(base, skip=None):
    """After an in-place op rebased ``base``'s history, every live view of it reads its gradient
    through the new history (torch regenerates a view's grad_fn, AsStridedBackward0, when the
    version it was made at is stale); ``skip`` is the view the op wrote through (already done).
    Expanded (read-only) views keep their node."""
    views = base.__dict__.get("_views")
    if not views or not base._rg:
        return
    edge = base._edge()
    for v in list(views):
        if v is skip or v._base is not base:
            continue
        # torch: a view with a creation mark now requires grad but cannot take part in
        # autograd any more (check_marked refuses it: its version moved on)
        if "_multi_view" in v.__dict__ or "_cmeta" in v.__dict__:
            if v._dtype.is_floating_point:
                v._rg = True
            continue
        if v._view_fn is None or not v._data.flags.writeable:
            continue
        node = Node(_ViewOf)
        node.view_fn = v._view_fn
        node.next = [edge]
        node.in_meta = [(base._data.shape, base._data.dtype)]
        node.needs_input_grad = [True]
        node.saved_versions = []
        v.grad_fn = node
        v._output_nr = 0
        v._rg = True


def _inplace_arrays(op, full, node):
    """Input arrays of an in-place op that records ``node``. When backward reads input 0 the
    kernel gets a private copy of it (``inplace_forward_grad``), which needs no version check."""
    arrays = [a._data if isinstance(a, Tensor) else a for a in full]
    if 0 in op.saved:
        node.saved_versions = _saved_versions(op, full, node.needs_input_grad, 1)
    return arrays


class _CopySlices(Op):
    """Gradient bookkeeping for an in-place op applied to a view of a tensor in the graph."""

    name = "copy_slices"
    node_name = "torch::autograd::CopySlices"

    @staticmethod
    def backward(ctx, g):
        g = view_target(ctx.view_fn, g)
        gv = ctx.view_fn(g)
        inner = ctx.inner.op.backward(ctx.inner, np.array(gv, copy=True))
        res = [None] * len(ctx.next)
        if ctx.needs_input_grad[0]:
            gv[...] = 0 if inner[0] is None else _unb(inner[0], gv.shape)
            res[0] = g
        for i in range(1, len(inner)):
            res[i] = inner[i]
        return res


def _unb(g, shape):
    from ._autograd import _unbroadcast
    return _unbroadcast(g, shape)


def _inplace_on_view(op, target, full, attrs):
    base = target._base
    view_fn = target._view_fn
    if view_fn is None:
        raise RuntimeError("in-place modification of this view of a tensor that requires grad is not "
                           "supported; use an out-of-place op")
    inner = _make_node(op, full)
    arrays = _inplace_arrays(op, full, inner)
    node = Node(_CopySlices)
    node.inner = inner
    node.view_fn = view_fn
    node.next = [base._edge() if base._rg else None] + list(inner.next[1:])
    node.in_meta = [(base._data.shape, base._data.dtype)] + list(inner.in_meta[1:])
    node.needs_input_grad = [e is not None for e in node.next]
    node.saved_versions = inner.saved_versions
    if Anomaly.enabled:
        node.__dict__["forward_stack"] = inner.__dict__.get("forward_stack")
    inplace_forward_grad(op, inner, target._data, arrays[1:], unwrap_attrs(op, attrs))
    target._vc[0] += 1
    if op.saves_output or op.inplace_saves_output:
        node.saved_versions = node.saved_versions + [(target, target._vc[0])]
    base.grad_fn = node
    base._output_nr = 0
    base._rg = True
    # the view now reads its gradient through the rebased base
    vnode = Node(_ViewOf)
    vnode.view_fn = view_fn
    vnode.next = [(node, 0)]
    vnode.in_meta = [(base._data.shape, base._data.dtype)]
    vnode.needs_input_grad = [True]
    vnode.saved_versions = []
    target.grad_fn = vnode
    target._output_nr = 0
    target._rg = True
    _refresh_views(base, skip=target)
    return target


class Detach(Op):
    """``t.detach()``: the same storage and version counter, no autograd history."""

    name = "detach"
    alias = True
    shares_version = True
    differentiable = False

    @staticmethod
    def forward(ctx, x):
        return x


class DataAlias(Op):
    """``t.data``: the same storage, its own version counter, no autograd history."""

    name = "data"
    alias = True
    differentiable = False

    @staticmethod
    def forward(ctx, x):
        return x


class _ViewOf(Op):
    name = "as_strided"

    @staticmethod
    def backward(ctx, g):
        full = view_target(ctx.view_fn, np.zeros(ctx.in_meta[0][0], ctx.in_meta[0][1]))
        ctx.view_fn(full)[...] = g
        return (full,)


from ._tensor import Tensor, _meta_array  # noqa: E402  (Tensor needs Op/apply at class creation)
from ._dtype import _BY_NP, can_cast, scalar_name  # noqa: E402
