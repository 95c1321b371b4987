"""Graph capture and replay: how the emulated CSX backend runs a ``@trace`` step.

On the first step of an executor run the step body runs once under ``CaptureMode``: every
primitive op passing the dispatch point, and every array-level event of the autograd engine
(backward rules, un-broadcasting, gradient sums, ``.grad`` writes), is appended to a ``Tape``
while also running eagerly. Values are named by *slots*: the step's input tensors, and every
array an op or engine event produced. Tensors made before the step (parameters, optimizer state,
scheduler counters) are *externals*, read through the tensor object at replay time so in-place
updates carry over from step to step. Anything else (Python scalars, arrays not produced inside the
step) is a constant baked into the tape.

Every later step replays the tape on that step's batch without running Python: each entry calls the
same numpy forward/backward function the eager run called, in the same order, so results are
bit-identical to the CPU backend. The step's outputs and the tensors handed to step closures are
rebound to the new values after each replay.
"""
from __future__ import annotations

import numpy as np

from ..torch import _autograd, _dispatch
from ..torch._dispatch import Ctx, _copy_into
from ..torch._tensor import Tensor

__all__ = ["Tape", "CaptureMode", "ValueReadError", "capturing"]

_ACTIVE: list = []  # the CaptureMode currently recording, if any


def capturing():
    return _ACTIVE[-1] if _ACTIVE else None


class ValueReadError(RuntimeError):
    """A tensor's value was read inside a traced step on the emulated wafer."""


def value_read_guard(what):
    raise ValueReadError(
        f"Cannot read a tensor's value ({what}) inside a function decorated with cstorch.trace "
        "on the CSX backend: the step is compiled into a graph that runs on the wafer, and "
        "tensor values only exist once the step has run. Pass the tensor to a function "
        "decorated with @cstorch.step_closure and read it there.")


def check_explicit_alias(t, what):
    """Seed 001's limitation: an alias made directly from a lazily initialized weight in the step."""
    if t.__dict__.get("_lazy_initialized") and t._rg and _autograd.GradState.enabled:
        raise RuntimeError(
            f"Compile failure: the traced step applies an aliasing op ({what}) directly to a weight "
            f"of shape {list(t.shape)} that was initialized lazily. With lazy initialization, ops "
            "that create aliases of weights (transpose(), .T, view(), ...) or that are views and "
            "mutations (transpose_()) cannot be compiled. Apply the op implicitly instead, e.g. "
            "F.linear(x, self.fc.weight, self.fc.bias) rather than x @ self.fc.weight.T + "
            "self.fc.bias, or turn off cstorch.backends.csx.debug.lazy_initialization.")


class _ReplayCtx:
    """The ``ctx`` given to forward/backward rules at replay (fresh each step)."""


def _struct_refs(mode, v):
    """Reference a value held in op attributes: tensors and arrays become slot/external refs."""
    if isinstance(v, Tensor):
        return mode.ref_tensor(v)
    if isinstance(v, np.ndarray):
        return mode.ref_array(v)
    if isinstance(v, tuple) and any(isinstance(x, (np.ndarray, Tensor)) for x in v):
        return ("t", tuple(_struct_refs(mode, x) for x in v))
    return ("c", v)


def _resolve(env, ref):
    kind = ref[0]
    if kind == "s":
        return env[ref[1]]
    if kind == "x":
        return ref[1]._data
    if kind == "c":
        return ref[1]
    return tuple(_resolve(env, r) for r in ref[1])


def _has_dynamic(ref):
    if ref[0] in ("s", "x"):
        return True
    if ref[0] == "t":
        return any(_has_dynamic(r) for r in ref[1])
    return False


class Tape:
    """The recorded step: entries replayed in order over a slot environment."""

    def __init__(self):
        self.entries = []
        self.n_slots = 0
        self.input_slots = []
        self.input_sig = []
        self.input_meta = []  # (shape, numpy dtype) of each input, checked at every replay
        self.live = []  # (tensor, slot): rebound to the slot's value after each replay
        self.signature = []  # op names and shapes, for retrace comparison

    def drop_grad_writes(self, variables):
        """Remove ``.grad`` writes to ``variables`` (their grads are unset after each step anyway;
        the ops that use the gradient read it from its slot)."""
        ids = {id(v) for v in variables}
        self.entries = [e for e in self.entries if id(getattr(e, "var", None)) not in ids]

    def replay(self, input_arrays):
        env = [None] * self.n_slots
        for s, a in zip(self.input_slots, input_arrays):
            env[s] = a
        ctxs = {}
        for e in self.entries:
            e(env, ctxs)
        for t, s in self.live:
            t._data = env[s]
        return env


class CaptureMode(_autograd.Tracer):
    """Dispatch mode and engine tracer that records a step into a ``Tape``."""

    def __init__(self):
        self.tape = Tape()
        self.tensor_slot = {}
        self.array_slot = {}
        self.keep = []
        self.nodes = {}  # id(Node) -> key
        self.external_inplace = {}  # id(tensor) -> (tensor, saved copy) for compile-only restore
        self.externals_used = {}
        self.save_externals = False

    # -- naming values ---------------------------------------------------------------------------
    def _new_slot(self, arr):
        s = self.tape.n_slots
        self.tape.n_slots += 1
        self.array_slot[id(arr)] = s
        self.keep.append(arr)
        return s

    def bind_array(self, arr):
        s = self.array_slot.get(id(arr))
        return s if s is not None else self._new_slot(arr)

    def bind_tensor(self, t):
        s = self.bind_array(t._data)
        self.tensor_slot[id(t)] = s
        self.keep.append(t)
        return s

    def add_input(self, t):
        s = self._new_slot(t._data)
        self.tensor_slot[id(t)] = s
        self.keep.append(t)
        self.tape.input_slots.append(s)
        self.tape.input_sig.append((tuple(t.shape), t._dtype.name))
        self.tape.input_meta.append((t._data.shape, t._data.dtype))

    def ref_tensor(self, t):
        s = self.tensor_slot.get(id(t))
        if s is None:
            s = self.array_slot.get(id(t._data))
        if s is not None:
            return ("s", s)
        self.externals_used[id(t)] = t
        return ("x", t)

    def ref_array(self, a):
        s = self.array_slot.get(id(a))
        return ("s", s) if s is not None else ("c", a)

    def slot_of(self, t):
        s = self.tensor_slot.get(id(t))
        return s if s is not None else self.array_slot.get(id(t._data))

    # -- dispatch mode ---------------------------------------------------------------------------
    def check_inplace_view(self, t, what):
        if t.__dict__.get("_lazy_initialized"):
            raise RuntimeError(
                f"Compile failure: the traced step applies {what}, a view-and-mutation op, to a "
                f"weight of shape {list(t.shape)} that was initialized lazily. Such ops cannot be "
                "compiled with lazy initialization: use the out-of-place form implicitly (e.g. "
                "F.linear) or turn off cstorch.backends.csx.debug.lazy_initialization.")

    def dispatch(self, op, args, attrs, target):
        if op.is_view and args and isinstance(args[0], Tensor):
            check_explicit_alias(args[0], op.name)
        refs = [self.ref_tensor(a) if isinstance(a, Tensor) else
                (self.ref_array(a) if isinstance(a, np.ndarray) else ("c", a)) for a in args]
        arefs = {k: _struct_refs(self, v) for k, v in attrs.items()}
        if target is not None and self.save_externals and refs[0][0] == "x" and \
                id(target) not in self.external_inplace:
            self.external_inplace[id(target)] = (target, np.array(target._data, copy=True))
        before = target.grad_fn if target is not None else None
        res = _dispatch.redispatch(self, op, args, attrs, target)
        self.tape.signature.append((op.name, tuple(tuple(a.shape) for a in args
                                                   if isinstance(a, Tensor))))
        if target is not None:
            node = target.grad_fn if target.grad_fn is not before else None
            if node is not None and node.op is not op:
                raise NotImplementedError(
                    "in-place modification of a view of a tensor that requires grad is not "
                    "supported inside a traced step on the emulated CSX backend; use an "
                    "out-of-place op")
            fast = _fast_binary(op, args, attrs) if node is None else None
            self.tape.entries.append(_inplace_entry(op, refs, arefs, node, self._node_key(node),
                                                    fast))
            return res
        outs = res if isinstance(res, tuple) else (res,)
        node = outs[0].grad_fn if outs[0]._rg else None
        slots = []
        for o in outs:
            if self.array_slot.get(id(o._data)) is not None:
                # an op handed back an existing array (e.g. a no-op view): give it its own slot
                s = self._new_slot_forced(o._data)
            else:
                s = self._new_slot(o._data)
            self.tensor_slot[id(o)] = s
            self.keep.append(o)
            slots.append(s)
        fast = _fast_binary(op, args, attrs) if node is None else None
        self.tape.entries.append(_op_entry(op, refs, arefs, slots, node, self._node_key(node),
                                           isinstance(res, tuple), fast))
        return res

    def _new_slot_forced(self, arr):
        s = self.tape.n_slots
        self.tape.n_slots += 1
        self.array_slot[id(arr)] = s
        self.keep.append(arr)
        return s

    def _node_key(self, node):
        if node is None:
            return None
        key = self.nodes.get(id(node))
        if key is None:
            key = self.nodes[id(node)] = len(self.nodes)
            self.keep.append(node)
        return key

    # -- engine tracer ---------------------------------------------------------------------------
    def fn(self, func, inputs, kwargs, output):
        refs = [self.ref_array(a) if isinstance(a, np.ndarray) else ("c", a) for a in inputs]
        if any(r[0] == "s" for r in refs):
            s = self._new_slot_forced(output)
            self.tape.entries.append(_fn_entry(func, refs, kwargs, s))
        # otherwise the output is a constant of the step and stays unnamed

    def bwd(self, node, grads, in_grads):
        if getattr(node.op, "records_itself", False):
            return  # custom Functions: their backward ran through dispatch and was recorded
        key = self.nodes.get(id(node))
        if key is None:
            raise RuntimeError(
                "loss.backward() inside the traced step reached an op computed outside it. On the "
                "wafer the whole training step (forward, loss, backward, optimizer) must be inside "
                "the function decorated with cstorch.trace.")
        grefs = [None if g is None else self.ref_array(g) for g in grads]
        out_slots = [None if g is None else self._new_slot_forced(g) for g in in_grads]
        self.tape.entries.append(_bwd_entry(node.op, key, grefs, out_slots, node.n_outputs))

    def set_grad(self, var, g):
        entry = _setgrad_entry(var, self.ref_array(g))
        entry.var = var
        self.tape.entries.append(entry)

    def add_grad(self, var, g):
        self.tape.entries.append(_addgrad_entry(var, self.ref_array(g)))


def _make_ctx(node):
    ctx = _ReplayCtx()
    if node is not None:
        ctx.needs_input_grad = node.needs_input_grad
        ctx.in_meta = node.in_meta
        ctx.next = node.next
    else:
        ctx.needs_input_grad = ()
    return ctx


def _args_resolver(refs):
    """A function env -> list of argument values, specialised for the refs' kinds."""
    if all(r[0] in ("s", "x", "c") for r in refs):
        kinds = [(r[0], r[1]) for r in refs]

        def resolve(env):
            out = []
            for k, v in kinds:
                out.append(env[v] if k == "s" else (v._data if k == "x" else v))
            return out
        return resolve
    return lambda env: [_resolve(env, r) for r in refs]


def _attrs_resolver(arefs):
    static = {k: r[1] for k, r in arefs.items() if not _has_dynamic(r)}
    dynamic = {k: r for k, r in arefs.items() if _has_dynamic(r)}
    if not dynamic:
        return lambda env: static

    def resolve(env):
        d = dict(static)
        for k, r in dynamic.items():
            d[k] = _resolve(env, r)
        return d
    return resolve


_UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide}


def _fast_binary(op, args, attrs):
    """A plain ufunc for an elementwise op whose operands need no promotion (checked now, at
    capture; shapes and dtypes are the same at every replay), else None."""
    uf = _UFUNCS.get(op.name)
    if uf is None or len(args) != 2 or attrs.get("rounding_mode") is not None:
        return None
    a, b = (x._data if isinstance(x, Tensor) else x for x in args)
    if not isinstance(a, np.ndarray) or a.dtype.kind != "f":
        return None
    if isinstance(b, np.ndarray):
        if b.dtype != a.dtype:
            return None
    elif type(b) not in (int, float):
        return None
    alpha = attrs.get("alpha", 1)
    if type(alpha) not in (int, float):
        return None
    return uf, alpha


def _op_entry(op, refs, arefs, slots, node, key, multi, fast=None):
    get_args, get_attrs = _args_resolver(refs), _attrs_resolver(arefs)
    fwd = op.forward
    if fast is not None and len(refs) == 2 and not multi:
        uf, alpha = fast
        s0 = slots[0]
        ra, rb = refs

        def run_fast(env, ctxs):
            a = env[ra[1]] if ra[0] == "s" else (ra[1]._data if ra[0] == "x" else ra[1])
            b = env[rb[1]] if rb[0] == "s" else (rb[1]._data if rb[0] == "x" else rb[1])
            r = uf(a, b if alpha == 1 else b * alpha)
            env[s0] = r if type(r) is np.ndarray else np.asarray(r)
        return run_fast
    if node is None:
        if multi:
            def run(env, ctxs):
                outs = fwd(Ctx(), *get_args(env), **get_attrs(env))
                for s, o in zip(slots, outs):
                    env[s] = o
        else:
            s0 = slots[0]

            def run(env, ctxs):
                env[s0] = fwd(Ctx(), *get_args(env), **get_attrs(env))
        return run

    def run_grad(env, ctxs):
        ctx = _make_ctx(node)
        outs = fwd(ctx, *get_args(env), **get_attrs(env))
        ctxs[key] = ctx
        if multi:
            for s, o in zip(slots, outs):
                env[s] = o
        else:
            env[slots[0]] = outs
    return run_grad


def _inplace_entry(op, refs, arefs, node, key, fast=None):
    get_args, get_attrs = _args_resolver(refs), _attrs_resolver(arefs)
    fwd = op.forward
    if fast is not None and len(refs) == 2:
        uf, alpha = fast
        ra, rb = refs

        def run_fast(env, ctxs):
            dst = env[ra[1]] if ra[0] == "s" else ra[1]._data
            b = env[rb[1]] if rb[0] == "s" else (rb[1]._data if rb[0] == "x" else rb[1])
            uf(dst, b if alpha == 1 else b * alpha, out=dst)
        return run_fast
    if node is None:
        def run(env, ctxs):
            args = get_args(env)
            dst = args[0]
            out = fwd(Ctx(), *args, out=dst, **get_attrs(env))
            if out is not dst:
                _copy_into(dst, out)
        return run

    def run_grad(env, ctxs):
        ctx = _make_ctx(node)
        args = get_args(env)
        out = fwd(ctx, *args, **get_attrs(env))
        _copy_into(args[0], out)
        ctxs[key] = ctx
    return run_grad


def _fn_entry(func, refs, kwargs, slot):
    get_args = _args_resolver(refs)

    def run(env, ctxs):
        env[slot] = func(*get_args(env), **kwargs)
    return run


def _bwd_entry(op, key, grefs, out_slots, n_outputs):
    bwd = op.backward

    def run(env, ctxs):
        grads = [None if r is None else _resolve(env, r) for r in grefs]
        res = bwd(ctxs[key], grads[0] if n_outputs == 1 else grads)
        for s, g in zip(out_slots, res):
            if s is not None:
                env[s] = g
    return run


def _setgrad_entry(var, ref):
    def run(env, ctxs):  # tagged so a backend can drop writes nobody can observe
        g = _resolve(env, ref)
        if var.grad is None:
            var.grad = Tensor._wrap(g)
        else:
            var.grad._data = g
    return run


def _addgrad_entry(var, ref):
    def run(env, ctxs):
        var.grad._data += _resolve(env, ref)
    return run
