"""Reverse-mode autograd: graph nodes, the backward engine, and grad-mode switches.

Mirrors the behaviour of ``torch.autograd``: a node per differentiable op call, edges to the nodes
that produced its inputs (or to an ``AccumulateGrad`` for a leaf), topological execution, gradients
summed over uses, broadcasting undone in one place, saved-tensor version checks, graph freeing.
"""
from __future__ import annotations

import functools
import heapq
import itertools
import os
import re

import numpy as np

from ._layout import dense_layout, element_strides, laid_out

__all__ = ["Node", "AccumulateGrad", "run_backward", "no_grad", "enable_grad", "set_grad_enabled",
           "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "GradState",
           "Anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled"]


class GradState:
    enabled = True
    inference = False


class Anomaly:
    """Anomaly detection (``torch.autograd.detect_anomaly``). Off by default; while it is off the
    engine pays one flag test per recorded node and per backward call, nothing more."""

    enabled = False
    check_nan = True


def is_anomaly_enabled() -> bool:
    """``torch.is_anomaly_enabled()``: whether anomaly detection is on."""
    return Anomaly.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """``torch.is_anomaly_check_nan_enabled()``: whether anomaly mode also checks for NaN."""
    return Anomaly.check_nan


def set_anomaly_enabled(enabled, check_nan=True) -> None:
    """``torch.set_anomaly_enabled(enabled, check_nan=True)``: switch anomaly detection on or off.

    With it on, every node records the stack of the forward call that made it; a backward rule
    that raises first warns ``Error detected in XBackward0. Traceback of forward call that caused
    the error: ...``, and (with ``check_nan``) a rule that returns NaN in any input gradient raises
    ``RuntimeError("Function 'XBackward0' returned nan values in its 0th output.")``.

    Raises:
        TypeError: ``enabled`` or ``check_nan`` is not a bool (torch's argument parser).
    """
    for i, (name, v) in enumerate((("enabled", enabled), ("check_nan", check_nan))):
        if type(v) is not bool:
            raise TypeError(f"set_anomaly_enabled(): argument '{name}' (position {i + 1}) must be "
                            f"bool, not {type(v).__name__}")
    Anomaly.enabled = enabled
    Anomaly.check_nan = check_nan


def is_grad_enabled() -> bool:
    return GradState.enabled


def is_inference_mode_enabled() -> bool:
    return GradState.inference


class _GradModeContext:
    """Base of the grad-mode context managers; each instance also works as a decorator."""

    _target = True

    def _clone(self):
        return type(self)()

    def __enter__(self):
        self._prev = GradState.enabled
        GradState.enabled = self._target
        return self

    def __exit__(self, *exc):
        GradState.enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self._clone():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeContext):
    """Disable gradient recording (context manager, ``@no_grad()`` or bare ``@no_grad``)."""

    _target = False

    def __new__(cls, orig_func=None):
        self = super().__new__(cls)
        if orig_func is not None:  # bare decorator form
            return self(orig_func)
        return self

    def __init__(self, orig_func=None):
        self._prev = False  # (torch's: an ``__exit__`` without its ``__enter__`` turns recording off)


class enable_grad(no_grad):
    """Enable gradient recording inside a ``no_grad`` region."""

    _target = True


class set_grad_enabled(_GradModeContext):
    """Set gradient recording on or off; takes effect at construction, like torch's."""

    def __init__(self, mode: bool):
        self._prev = GradState.enabled
        self._target = bool(mode)
        GradState.enabled = self._target

    def _clone(self):
        c = object.__new__(set_grad_enabled)
        c._target = self._target
        return c

    def __call__(self, fn):
        GradState.enabled = self._prev  # decorating must not change the mode
        return super().__call__(fn)

    def __enter__(self):
        if not hasattr(self, "_prev"):
            self._prev = GradState.enabled
        GradState.enabled = self._target
        return self


class inference_mode(_GradModeContext):
    """Like ``no_grad`` (SPEC: tensors made inside are ordinary tensors, not inference tensors)."""

    def __new__(cls, mode=True):
        self = super().__new__(cls)
        if callable(mode):  # bare decorator form
            self._mode = True
            self._target = False
            return self(mode)
        return self

    def __init__(self, mode: bool = True):
        self._mode = bool(mode)
        self._target = not self._mode if self._mode else GradState.enabled

    def _clone(self):
        return inference_mode(self._mode)

    def __enter__(self):
        self._prev_inf = GradState.inference
        GradState.inference = self._mode
        if not self._mode:
            self._target = GradState.enabled
        return super().__enter__()

    def __exit__(self, *exc):
        GradState.inference = self._prev_inf
        return super().__exit__(*exc)


# ops whose torch node has another name than the CamelCase of ours (torch's decomposition)
_TORCH_NODE_NAMES = {"cross_entropy": "NllLoss", "max_dim": "Max", "linear": "Addmm",
                     "matmul": "Mm", "log1p": "Log1P", "avg_pool2d": "AvgPool2D",
                     "adaptive_avg_pool2d": "AdaptiveAvgPool2D",
                     "max_pool2d": "MaxPool2DWithIndices",
                     "max_pool2d_with_indices": "MaxPool2DWithIndices",
                     "layer_norm": "NativeLayerNorm", "batch_norm": "NativeBatchNorm",
                     "gelu_tanh": "Gelu", "deg2rad": "Deg2Rad", "rad2deg": "Rad2Deg"}


# Every node takes the next number when it is made, as torch's nodes take a sequence number;
# the engine runs, of the nodes ready, the newest first (torch's ready queue), which decides the
# order in which a tensor's gradient contributions are summed
_sequence = itertools.count()
_ACCUMULATE_FIRST = 1 << 62


class Node:
    """One recorded op call. ``next`` holds one edge ``(node, output_nr)`` or ``None`` per input;
    ``seq`` is its creation number."""

    __slots__ = ("op", "next", "in_meta", "saved_versions", "n_outputs", "pre_hooks", "freed",
                 "needs_input_grad", "seq", "__dict__")

    def __init__(self, op, n_outputs=1):
        self.seq = next(_sequence)
        self.op = op
        self.n_outputs = n_outputs
        self.pre_hooks = None
        self.freed = False

    def name(self) -> str:
        fixed = self.__dict__.get("torch_node")  # a call that names its node (squeeze's)
        if fixed is None:  # an op that names its node (MedianBackward1)
            fixed = getattr(self.op, "node_name", None)
        if fixed is not None:
            return fixed
        fn_cls = self.__dict__.get("fn_cls")  # a custom autograd.Function: "MyFnBackward"
        if fn_cls is not None:
            return f"{fn_cls.__name__}Backward"
        base = _TORCH_NODE_NAMES.get(self.op.name)
        if base is None:  # torch's spelling: log_softmax -> LogSoftmaxBackward0
            base = "".join(part.capitalize() for part in self.op.name.split("_"))
        return f"{base}Backward0"

    def __repr__(self) -> str:  # (torch's hand-written nodes print without their namespace)
        return f"<{self.name().rsplit('::', 1)[-1]} object>"

    @property
    def next_functions(self):
        return tuple((e[0], e[1]) if e is not None else (None, 0) for e in self.next)

    def register_hook(self, fn):
        raise NotImplementedError("hooks on graph nodes are not supported; use Tensor.register_hook")

    def apply_backward(self, grads):
        if self.freed:
            raise freed_error()
        for pairs in (self.saved_versions, self.__dict__.get("checked_versions")):
            if pairs:
                for t, v in pairs:
                    if t._vc[0] != v:
                        raise modified_error(t, v, self)
        g = grads[0] if self.n_outputs == 1 else grads
        return self.op.backward(self, g)

    def release(self):
        self.freed = True
        d = self.__dict__
        if d:
            keep = {k: d[k] for k in ("fn_cls", "torch_node") if k in d}  # (its name)
            d.clear()  # the values the forward saved
            d.update(keep)
        self.saved_versions = None


def also_checked(out, *tensors, versions=None):
    """``out``'s node refuses to run backward once one of ``tensors`` has changed in place, as
    torch's node for the op does because it saves them (our composition's node saved promoted
    copies or intermediates instead). Kept apart from ``saved_versions``, which lists what the
    node's backward reads, in the op's order. No-op when ``out`` records no node.
    ``versions``: ``(tensor, version)`` pairs taken before an in-place op wrote (its target's
    write bumps the version of every tensor sharing its storage, as torch's saved variables
    see), instead of ``tensors``' versions now."""
    node = out.grad_fn
    if node is not None:
        node.__dict__.setdefault("checked_versions", []).extend(
            versions if versions is not None else
            [(t, t._vc[0]) for t in tensors if t is not None])
    return out


def torch_named(out, name, *inputs):
    """Give the node that made ``out`` (a tensor, or each tensor of a tuple or list) torch's
    name for the node of the function the user called (``SplitBackward0``, ``MaxBackward1``):
    the name a printed tensor shows as ``grad_fn=<...>``, when our composition's last op or our
    kernel's own name is another. A node that one of ``inputs`` already carries is not
    renamed (the function returned an input, or a view of it without a node of its own).
    Returns ``out``."""
    taken = {id(t.grad_fn) for t in inputs if getattr(t, "grad_fn", None) is not None}
    for t in (out if isinstance(out, (tuple, list)) else (out,)):
        fn = getattr(t, "grad_fn", None)
        if isinstance(fn, Node) and id(fn) not in taken:
            fn.__dict__["torch_node"] = name
    return out


def torch_named_inplace(target, prev, name):
    """``target`` after an in-place op, ``prev`` its node before: the node the op recorded, if
    any, named ``name`` (torch's in-place overload, ``PowBackward0``, ``CeluBackward1``). A view
    keeps its node's name: torch regenerates it as the view's, the op's own node sits under
    CopySlices. Returns ``target``."""
    if target.grad_fn is not prev and target._base is None:
        torch_named(target, name)
    return target


def versioned(node) -> list:
    """The (tensor, version) pairs a node checks before its backward: what it saved, and what
    ``also_checked`` added (none for a leaf's AccumulateGrad)."""
    d = getattr(node, "__dict__", None) or {}
    return list(getattr(node, "saved_versions", None) or ()) + d.get("checked_versions", [])


def freed_error() -> RuntimeError:
    """torch's error for a backward through a node whose saved values were freed."""
    return RuntimeError(
        "Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed). Saved intermediate values of the graph "
        "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
        "you need to backward through the graph a second time or if you need to access saved "
        "tensors after calling backward.")


def modified_error(t, v, node=None) -> RuntimeError:
    """torch 2.13's error for a tensor ``node`` saved (at version ``v``) and that was changed in
    place since. It names the op that made the tensor: ``node`` itself when the tensor is the
    node's saved output (its in-place changes chain back to it), else the tensor's current
    ``grad_fn`` (none for a tensor outside the graph); torch prints an op as its node's name
    without ``Backward<n>`` (``Sigmoid``, ``Add``). A hidden intermediate that a returned tensor
    stands for (``_shown_as``: a weak reference) is reported as that tensor."""
    shown = t.__dict__.get("_shown_as")
    if shown is not None and shown() is not None:
        t, node = shown(), None
    fn = t.grad_fn
    f, hops = fn, 0
    while f is not None and f is not node and hops < 64:  # in-place nodes chain on edge 0
        nxt = getattr(f, "next", ())
        f = nxt[0][0] if nxt and nxt[0] is not None else None
        hops += 1
    if node is not None and f is node:
        fn = node
    made = ""
    if fn is not None:
        name = re.sub(r'Backward[0-9]*$', '', fn.name())
        if fn is t.grad_fn and t._base is not None and getattr(getattr(fn, "op", None), "is_view",
                                                               False):
            # a view whose base changed in place after it was made: torch regenerates its
            # node as an as_strided of the base when it is read
            name = "AsStrided"
        made = f", which is output {t._output_nr} of {name},"
    hint = ("the backtrace further above shows the operation that failed to compute its "
            "gradient. The variable in question was changed in there or anywhere later. Good "
            "luck!") if Anomaly.enabled else (
        "enable anomaly detection to find the operation that failed to compute its gradient, "
        "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{t._type_name()} {list(t.shape)}]{made} is at version {t._vc[0]}; "
        f"expected version {v} instead. Hint: {hint}")


class AccumulateGrad:
    """Terminal node of a leaf tensor that requires grad: adds incoming gradients to ``.grad``."""

    __slots__ = ("variable", "pre_hooks", "n_outputs", "next", "post_acc_hooks", "seq")

    def __init__(self, variable):
        self.seq = _ACCUMULATE_FIRST + next(_sequence)  # torch: the highest number (runs first)
        self.variable = variable
        self.pre_hooks = None
        self.post_acc_hooks = None
        self.n_outputs = 1
        self.next = ()

    def name(self) -> str:
        return "AccumulateGrad"

    def __repr__(self) -> str:
        return "<AccumulateGrad object>"

    @property
    def next_functions(self):
        return ()


def _unbroadcast(g: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum ``g`` down to ``shape`` (undo broadcasting)."""
    if g.shape == shape:
        return g
    nd = g.ndim - len(shape)
    dt = g.dtype
    # float16/bfloat16 sum in float32 and round once, as torch's sum_to_size does
    acc = np.float32 if dt.itemsize == 2 and dt.kind in "fV" else None
    # (the ufunc's reduce, not ``ndarray.sum``: numpy's Python wrapper of the method would own
    # the frame of an inf - inf warning, which our filter of this package's frames then misses)
    if nd:
        g = np.add.reduce(g, axis=tuple(range(nd)), dtype=acc)
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    if axes:
        g = np.add.reduce(g, axis=axes, keepdims=True, dtype=acc)
    if acc is not None:
        g = np.asarray(g).astype(dt)
    if g.shape != shape:
        raise RuntimeError(f"internal error: gradient of shape {g.shape} for input of shape {shape}")
    return g if type(g) is np.ndarray else np.asarray(g)  # a sum to 0-d gives a numpy scalar


def _toposort(roots):
    """Nodes reachable from ``roots`` with their dependency counts (consumers per node)."""
    deps = {}
    stack = []
    for r in roots:
        if r is not None and r not in deps:
            deps[r] = 0
            stack.append(r)
    while stack:  # a node enters the stack once: when first reached (or as a root)
        for e in stack.pop().next:
            if e is None:
                continue
            m = e[0]
            c = deps.get(m)
            if c is None:
                deps[m] = 1
                stack.append(m)
            else:
                deps[m] = c + 1
    return deps


def _rec(obs, func, inputs, kwargs, output):
    """``output = func(*inputs, **kwargs)`` was computed by the engine: tell the observers."""
    for o in obs:
        o.fn(func, inputs, kwargs, output)
    return output


def _add(obs, a, b):
    return _rec(obs, np.add, (a, b), {}, a + b) if obs else a + b


def _astype(g, dt):
    return g.astype(dt)


def _copy_as(g, dt):
    return np.array(g, dtype=dt, copy=True)


def grad_array(g):
    """A backward rule's result as an ndarray (numpy hands back scalars for 0-d results)."""
    return g if type(g) is np.ndarray or g is None else np.asarray(g)


def run_backward(roots, root_grads, retain_graph=False, capture=None):
    """Propagate ``root_grads`` from ``roots``; see ``_run_backward``. The whole pass runs with
    numpy's floating-point warnings off (torch's backward is silent): our warnings filter only
    catches those raised from this package's frames, and a backward rule may reach numpy's own
    Python code (``ndarray.sum``), whose frame it is."""
    with np.errstate(all="ignore"):
        return _run_backward(roots, root_grads, retain_graph, capture)


def _run_backward(roots, root_grads, retain_graph=False, capture=None):
    """Propagate ``root_grads`` (ndarrays) from ``roots`` (edges) through the graph.

    With ``capture`` (a dict edge -> None), gradients arriving at those edges are stored there
    instead of being accumulated into leaves (``torch.autograd.grad``); leaves are left untouched.

    A leaf's ``AccumulateGrad`` without hooks runs as soon as its last gradient arrives (it
    computes nothing further, so only the order of leaves' accumulations differs from queueing
    it); every other node waits until all its consumers have run, and of the nodes ready the
    newest runs first, as in torch's engine.
    """
    obs = _engine_observers()
    deps = _toposort([e[0] for e in roots])
    buffers = {}
    for (node, nr), g in zip(roots, root_grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node.n_outputs
        buf[nr] = g if buf[nr] is None else _add(obs, buf[nr], g)
    # the ready nodes, newest first: a heap of (-seq, node) (seq is unique, nodes never compare)
    ready = [(-n.seq, n) for n in dict.fromkeys(e[0] for e in roots if deps.get(e[0], 0) == 0)]
    heapq.heapify(ready)
    push, pop = heapq.heappush, heapq.heappop
    stored = set()
    ndarray = np.ndarray
    inline = capture is None  # leaves accumulate on arrival (see above)
    while ready:
        node = pop(ready)[1]
        grads = buffers.pop(node, None)
        if grads is None:
            grads = [None] * node.n_outputs
        if node.pre_hooks:
            _run_pre_hooks(node, grads)
        if capture is not None:
            for nr in range(node.n_outputs):
                if (node, nr) in capture and grads[nr] is not None:
                    capture[(node, nr)] = grads[nr] if capture[(node, nr)] is None else \
                        _add(obs, capture[(node, nr)], grads[nr])
        if type(node) is AccumulateGrad:
            if capture is None and grads[0] is not None:
                _accumulate(node, grads[0], stored, obs)
            continue
        if grads[0] is None and (node.n_outputs == 1 or all(g is None for g in grads)):
            in_grads = (None,) * len(node.next)  # nothing flows on (consumers still counted)
        else:
            if node.n_outputs > 1 and not node.__dict__.get("keep_undefined"):
                # (a custom Function that set_materialize_grads(False) sees None instead)
                grads = [g if g is not None else np.zeros(shape, dt)
                         for g, (shape, dt) in zip(grads, node.out_meta)]
            if Anomaly.enabled:
                in_grads = anomaly_call(node, lambda: node.apply_backward(grads))
            else:
                in_grads = node.apply_backward(grads)
            if obs:
                in_grads = [g if g is None or type(g) is ndarray else np.asarray(g)
                            for g in in_grads]
                for o in obs:
                    o.bwd(node, grads, in_grads)
            if not retain_graph:
                node.release()
        for e, g, meta in zip(node.next, in_grads, node.in_meta):
            if e is None:
                continue
            m = e[0]
            if g is not None:
                if type(g) is not ndarray:
                    g = np.asarray(g)
                shape, dt = meta
                if g.shape != shape:
                    g = _rec(obs, _unbroadcast, (g, shape), {}, _unbroadcast(g, shape))
                if g.dtype != dt:
                    _differentiable_grad(dt)
                    g = _rec(obs, _astype, (g, dt), {}, g.astype(dt))
            left = deps[m] - 1
            deps[m] = left
            if left == 0 and inline and type(m) is AccumulateGrad and m.pre_hooks is None:
                buf = buffers.pop(m, None)
                if buf is not None:  # gradients from other consumers
                    g = buf[0] if g is None else _add(obs, buf[0], g)
                if g is not None:
                    _accumulate(m, g, stored, obs)
                continue
            if g is not None:
                buf = buffers.get(m)
                if buf is None:
                    buf = buffers[m] = [None] * m.n_outputs
                nr = e[1]
                buf[nr] = g if buf[nr] is None else _add(obs, buf[nr], g)
            if left == 0:
                push(ready, (-m.seq, m))


def _run_pre_hooks(node, grads):
    """A node's tensor hooks (``register_hook`` of the tensor it made) on its incoming grads;
    a hook's replacement must be a tensor of the same size and type (torch's checks)."""
    for nr, hooks in node.pre_hooks.items():
        for h in hooks:
            if grads[nr] is None:
                continue
            g = grads[nr]
            r = h(_hook_tensor(g))
            if r is None:
                continue
            name = getattr(h, "__name__", type(h).__name__)
            if not isinstance(r, _tensor_class()):
                raise TypeError(f"expected Variable, but hook returned '{type(r).__name__}'")
            if r._data.dtype != g.dtype:
                from ._tensor import type_name
                from ._dtype import _BY_NP
                raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                                   f"{type_name(_BY_NP[np.dtype(g.dtype)])} got "
                                   f"{type_name(r._dtype)})")
            if r._data.shape != g.shape:
                raise RuntimeError(f"hook '{name}' has changed the size of value")
            grads[nr] = r._data


def _engine_observers():
    global _engine_observers
    from ._dispatch import engine_observers
    _engine_observers = engine_observers  # resolved once (the dispatch module imports this one)
    return engine_observers()
def _differentiable_grad(dt) -> None:
    """torch's engine (validate_outputs) asserts that every gradient it passes on has a
    differentiable dtype: a gradient for an integer tensor that requires grad (left by an
    in-place op with a floating value) stops the backward with a RuntimeError."""
    if np.dtype(dt).kind in "biu":
        raise RuntimeError("isDifferentiableType(grad.scalar_type()) INTERNAL ASSERT FAILED: a "
                           f"gradient of dtype {np.dtype(dt).name} reached the autograd engine "
                           "(only floating tensors can carry gradients); make the tensor that "
                           "requires grad floating")


def record_forward_stack(node) -> None:
    """Anomaly mode: keep the stack of the forward call that recorded ``node`` (torch prints it
    when the node's backward fails)."""
    import traceback
    stack = traceback.extract_stack()
    while stack and stack[-1].filename.startswith(_PACKAGE_DIR + os.sep):  # drop our own frames
        stack.pop()
    node.__dict__["forward_stack"] = "".join(traceback.format_list(stack))


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../minitorch_cs


def _is_float(a) -> bool:
    from ._dtype import _BY_NP
    dt = _BY_NP.get(np.asarray(a).dtype)
    return dt is not None and dt.is_floating_point


def anomaly_call(node, run):
    """``run()`` (a node's backward rule, on arrays or on recorded tensors) with torch's anomaly
    checks: a failing rule first warns where its forward call was made; a NaN in any returned
    gradient raises (when ``check_nan``)."""
    try:
        in_grads = run()
        if Anomaly.check_nan:
            for i, g in enumerate(in_grads):
                a = getattr(g, "_data", g)  # a tensor's array (create_graph) or the array itself
                if g is not None and _is_float(a) and np.isnan(a).any():
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its "
                                       f"{i}th output.")
    except Exception:
        stack = node.__dict__.get("forward_stack")
        if stack is not None:
            from ._fpe import warn_user
            warn_user(f"Error detected in {node.name()}. Traceback of forward call that caused "
                      f"the error:\n{stack}")
        raise
    return in_grads


def _accumulate(acc: AccumulateGrad, g: np.ndarray, stored: set, obs=()) -> None:
    """Add ``g`` into the leaf's ``.grad`` (creating it when unset), as torch's AccumulateGrad."""
    var = acc.variable
    if var.grad_fn is not None:  # a leaf view whose base took a gradient-carrying value in place
        raise RuntimeError("leaf variable has been moved into the graph interior")
    _, created = accumulate_grad(var, g, stored)
    for o in obs:
        o.accumulate(var, g, created)
    if acc.post_acc_hooks:
        for h in acc.post_acc_hooks:
            h(var)


def accumulate_grad(var, g, stored=None):
    """The array rule of gradient accumulation, shared by eager backward and graph replay: with
    no ``.grad`` yet, ``.grad`` becomes ``g`` (a private copy when ``g`` is shared, read-only or of
    another dtype); otherwise ``g`` is added into ``.grad`` in place. Returns the array used and
    whether ``.grad`` was created."""
    if var._grad is None:
        Tensor = _tensor_class()
        if not g.flags.writeable or g.base is not None or (stored is not None and id(g) in stored) \
                or g.dtype != var._data.dtype or not _obeys_layout(g, var._data):
            g = _grad_copy(g, var._data)
        if stored is not None:
            stored.add(id(g))
        var._grad = Tensor._wrap(g)
        if var._lazydev:  # a gradient lives on its variable's device
            var._grad._lazydev = True
        return g, True
    gd = var._grad._data
    if gd.shape != g.shape:
        raise RuntimeError(f"grad of shape {list(gd.shape)} does not match the incoming gradient "
                           f"of shape {list(g.shape)}")
    gd += g
    var._grad._vc[0] += 1
    return g, False


def _obeys_layout(g, x) -> bool:
    """torch's gradient layout contract for a new ``.grad``: a dense variable's strides on every
    dim of size above 1 (no zero stride on the others), or C order for any other variable."""
    if not dense_layout(x):
        return g.flags.c_contiguous
    return all((gs == xs) if n != 1 else gs != 0
               for n, gs, xs in zip(g.shape, g.strides, x.strides))


def _grad_copy(g, x):
    """A new ``.grad`` from ``g`` for variable ``x`` (torch's ``clone_obey_contract``): ``x``'s
    own strides when ``x`` is dense, otherwise C order; in ``x``'s dtype."""
    if g.size and dense_layout(x):
        return laid_out(g.astype(x.dtype, copy=False), element_strides(x))
    return np.array(g, dtype=x.dtype, copy=True, order="C")


def _hook_tensor(g):
    return _tensor_class()._wrap(g)


def _tensor_class():
    """The Tensor class (imported on first use: the tensor module imports this one)."""
    global _tensor_class
    from ._tensor import Tensor

    def _tensor_class():
        return Tensor
    return Tensor
