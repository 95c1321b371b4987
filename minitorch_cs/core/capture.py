"""Graph capture and replay: how the emulated CSX backend runs a ``@trace`` step.

On the first step of an executor run the step body runs once with a :class:`CaptureMode` on the
dispatch stack. The mode sees every tensor operation through the dispatch protocol
(``torch._dispatch``): each primitive op, each in-place write, each storage rebinding (``.data =``,
``t_()``, ``out=`` resizes), each ``.grad`` assignment, and every array-level event of the autograd
engine (backward rules, un-broadcasting, gradient sums and accumulation). It appends each to a
:class:`Tape` while the op also runs eagerly, so the first step computes exactly what the CPU
backend computes.

Values are named by *references*:

* ``("s", k)``: slot ``k`` of the replay environment -- the step's inputs and every array an op
  or engine event produced during the step;
* ``("x", t)``: an *external* tensor made before the step (a parameter, optimizer state, a
  scheduler counter, a constant), read through the tensor object at replay time, so in-place
  updates and rebindings carry over from step to step;
* ``("g", p)``: the current ``.grad`` of leaf ``p`` (it may be created, accumulated into or unset
  during the step);
* ``("c", v)``: a constant (Python values, generators, slices);
* ``("t", (refs...), type)``: a tuple or list of references (advanced-indexing keys).

Every later step replays the tape on that step's batch without running Python: each entry calls
the same numpy kernel, through the same helper functions, as the eager run, in the same order --
so results are bit-identical to the CPU backend. Outputs, closure arguments and rebound state are
updated after each replay. Each entry carries an :class:`Entry` describing it; on the first replay
``core.plan`` turns the finished tape into a plan (buffers allocated once, planned kernels that
write into them with the ops' own sequence of float operations, dead entries dropped) and later
replays run the plan; :meth:`Tape.replay_entries` runs the entries as recorded.

What replay cannot reproduce is refused while capturing, with the wafer rule and the fix: value
reads (``ValueReadError``), ops whose output shape depends on values, and (checked by the backend
at the end of the first step) Python state the step changed.
"""
from __future__ import annotations

import os
import sys
import weakref

import numpy as np

from ..torch import _autograd, _dispatch
from ..torch._dispatch import Ctx, inplace_forward, inplace_forward_grad, output_array
from ..torch._ops._kernel import preserve_format
from ..torch._ops._xp import NP
from ..torch._ops.binary import _addc
from ..torch._ops.reduce import two_norm
from ..torch._tensor import Tensor

__all__ = ["Tape", "CaptureMode", "ValueReadError", "WaferRuleError", "TapeRef", "creation_site"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class WaferRuleError(RuntimeError):
    """The traced step does something the wafer's compiled graph cannot do (the message names the
    rule and the fix)."""


class ValueReadError(WaferRuleError):
    """A tensor's value was read inside a traced step on the emulated wafer."""


def creation_site(depth=2) -> str:
    """``file:line in function`` of the first caller outside this package (user code)."""
    f = sys._getframe(depth)
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE):
        f = f.f_back
    if f is None:
        return "<minitorch_cs internals>"
    return f"{os.path.basename(f.f_code.co_filename)}:{f.f_lineno} in {f.f_code.co_name}()"


_TENSOR_API = tuple(os.path.join(_PACKAGE, "torch", f) for f in (
    "_methods.py", "_tensor.py", "_sizes.py", os.path.join("_functions", "shape.py"),
    os.path.join("_functions", "_common.py"), os.path.join("_functions", "_parser.py")))


_TORCH_LIB = os.path.join(_PACKAGE, "torch") + os.sep
_CORE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _requested_by_user():
    """Whether the op being dispatched was asked for directly through the tensor API (``w.T``,
    ``w.view(...)``, ``torch.transpose(w, ...)``) by code outside the torch library, rather than
    inside a library function such as ``F.batch_norm``."""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename not in _TENSOR_API and \
            f.f_code.co_filename.startswith((_TORCH_LIB, _CORE)):
        f = f.f_back  # the dispatch point and the mode itself
    if f is None or f.f_code.co_filename not in _TENSOR_API:
        return False
    while f is not None and f.f_code.co_filename in _TENSOR_API:
        f = f.f_back
    return f is not None and not f.f_code.co_filename.startswith(_TORCH_LIB)


def check_explicit_alias(t, what):
    """A lazily initialized weight must not be aliased explicitly in the step (the wafer rule
    the seed documentation states for lazy initialization)."""
    if t.__dict__.get("_lazy_initialized") and t._rg and _autograd.GradState.enabled and \
            _requested_by_user():
        raise WaferRuleError(
            f"Compile failure: the traced step applies an aliasing op ({what}) directly to a weight "
            f"of shape {list(t.shape)} that was initialized lazily. With lazy initialization, ops "
            "that create aliases of weights (transpose(), .T, view(), ...) or that are views and "
            "mutations (transpose_()) cannot be compiled. Apply the op implicitly instead, e.g. "
            "F.linear(x, self.fc.weight, self.fc.bias) rather than x @ self.fc.weight.T + "
            "self.fc.bias, or turn off cstorch.backends.csx.debug.lazy_initialization.")


# ----- references ---------------------------------------------------------------------------------
def _resolve(env, ref):
    kind = ref[0]
    if kind == "s":
        return env[ref[1]]
    if kind == "x":
        return ref[1]._data
    if kind == "g":
        return ref[1]._grad._data
    if kind == "c":
        return ref[1]
    return ref[2](_resolve(env, r) for r in ref[1])


def _is_static(ref):
    if ref[0] == "c":
        return True
    if ref[0] == "t":
        return all(_is_static(r) for r in ref[1])
    return False


class _ReplayCtx:
    """The ``ctx`` handed to forward/backward rules at replay (a fresh one per step), carrying
    the static fields of the node the eager run recorded."""

    def __init__(self, info):
        self.needs_input_grad, self.in_meta, self.next = info


class TapeRef:
    """The tape's own reference to a tensor the step made (the target of a ``.grad`` event): the
    check for tensors kept alive after the step ignores references of this type."""

    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor

    def __call__(self):
        return self.tensor


def _holder(t, made_in_step):
    """A callable returning ``t`` (a :class:`TapeRef` for a tensor the step made)."""
    if made_in_step:
        return TapeRef(t)
    return lambda: t


def _node_info(node):
    # ``next`` only by its length (CopySlices): holding the edges would keep the graph alive
    return (list(node.needs_input_grad), list(node.in_meta), [None] * len(node.next))


# ----- the tape -----------------------------------------------------------------------------------
class Tape:
    """The recorded step: entries replayed in order over a slot environment."""

    def __init__(self):
        self.entries = []
        self.n_slots = 0
        self.input_slots = []
        self.input_sig = []
        self.input_meta = []  # (shape, numpy dtype) of each input, checked at every replay
        self.live = []  # (tensor, ref): tensor._data = resolve(ref) after each replay
        self.externals = []  # (tensor, shape, dtype): must be unchanged at every replay
        self.grads_read = []  # (leaf, shape): .grad read before the step defines it
        self.grad_presence = []  # (leaf, was None): .grad seen by Python before the step set it
        self.signature = []  # op names and shapes, for retrace comparison
        self.slot_meta = {}  # slot -> (shape, numpy dtype) of the value it held at capture
        self.plan = None  # the replay plan (core.plan), made on the first replay

    def replay(self, input_arrays):
        """Run the step on ``input_arrays``: through its plan (``core.plan``: buffers allocated
        once, planned kernels, dead entries dropped), made on the first replay, when the tape is
        complete."""
        plan = self.plan
        if plan is None:
            from .plan import make_plan
            plan = self.plan = make_plan(self)
        return plan.run(input_arrays)

    def replay_entries(self, input_arrays):
        """Run every recorded entry as captured (the unplanned replay; the planner's reference)."""
        env = [None] * self.n_slots
        for s, a in zip(self.input_slots, input_arrays):
            env[s] = a
        ctxs = {"stored": set()}
        for e in self.entries:
            e(env, ctxs)
        for t, ref in self.live:
            t._data = _resolve(env, ref)
        return env


class CaptureMode(_dispatch.Mode, _dispatch.EngineObserver):
    """The dispatch mode (and engine observer) that records a step into a ``Tape``."""

    hides_values = True
    innermost = True  # record ops as they run, after autocast or seeding modes changed them

    def __init__(self):
        self.tape = Tape()
        self.tensor_slot = {}  # id(tensor) -> slot
        self.array_slot = {}  # id(array) -> slot
        self.keep = []  # keeps every named object alive while capturing (ids stay unique)
        self.grad_owner = {}  # id(grad tensor) -> the leaf whose .grad it is
        self.grad_defined = set()  # leaves whose .grad the step has created or set so far
        self.grad_checked = set()  # leaves whose .grad Python read before the step defined it
        self.nodes = {}  # id(Node) -> key
        self.externals = {}  # id(tensor) -> tensor
        self.created = []  # (weakref to a tensor an op of the step made, creation site, slot)

    # -- naming values ---------------------------------------------------------------------------
    def _new_slot(self, arr):
        s = self.tape.n_slots
        self.tape.n_slots += 1
        self.array_slot[id(arr)] = s
        self.keep.append(arr)
        self.tape.slot_meta[s] = (getattr(arr, "shape", None), getattr(arr, "dtype", None))
        return s

    def add_input(self, t):
        s = self._new_slot(t._data)
        self.tensor_slot[id(t)] = s
        self.keep.append(t)
        self.tape.input_slots.append(s)
        self.tape.input_sig.append((tuple(t.shape), t._dtype.name))
        self.tape.input_meta.append((t._data.shape, t._data.dtype))

    def note_grads(self, leaves):
        """Leaves whose ``.grad`` exists when the step starts: reads of it are ("g", leaf)."""
        for p in leaves:
            if p._grad is not None:
                self.grad_owner[id(p._grad)] = p
                self.keep.append(p._grad)

    def ref_tensor(self, t):
        s = self.tensor_slot.get(id(t))
        if s is not None:
            return ("s", s)
        owner = self.grad_owner.get(id(t))
        if owner is not None and owner._grad is t:
            if owner not in self.grad_defined and all(p is not owner for p, _ in
                                                      self.tape.grads_read):
                self.tape.grads_read.append((owner, t._data.shape))
            return ("g", owner)
        s = self.array_slot.get(id(t._data))
        if s is not None:
            return ("s", s)
        if id(t) not in self.externals:
            self.externals[id(t)] = t
            self.tape.externals.append((t, t._data.shape, t._data.dtype))
        return ("x", t)

    def ref(self, v):
        """The reference for any value an op receives (tensors, arrays, containers, constants)."""
        if isinstance(v, Tensor):
            return self.ref_tensor(v)
        if isinstance(v, (np.ndarray, np.generic)):
            s = self.array_slot.get(id(v))
            return ("s", s) if s is not None else ("c", v)
        if isinstance(v, (tuple, list)) and not hasattr(v, "_fields"):
            refs = tuple(self.ref(x) for x in v)
            if all(r[0] == "c" for r in refs):
                return ("c", v)
            return ("t", refs, type(v))
        return ("c", v)

    def slot_of(self, t):
        s = self.tensor_slot.get(id(t))
        return s if s is not None else self.array_slot.get(id(t._data))

    def _bind_output(self, t, site):
        arr = t._data
        s = self.tape.n_slots  # every output gets its own slot (a view may reuse an array object)
        self.tape.n_slots += 1
        self.tape.slot_meta[s] = (arr.shape, arr.dtype)
        self.array_slot[id(arr)] = s
        self.tensor_slot[id(t)] = s
        self.keep.append(arr)
        self.keep.append(t)
        self.created.append((weakref.ref(t), site, s))
        return s

    def _node_key(self, node):
        if node is None:
            return None
        key = self.nodes.get(id(node))
        if key is None:
            key = self.nodes[id(node)] = len(self.nodes)
            self.keep.append(node)
        return key

    # -- the dispatch protocol -------------------------------------------------------------------
    def on_read(self, tensor, what):
        raise ValueReadError(
            f"Cannot read a tensor's value ({what}) inside a function decorated with cstorch.trace "
            "on the CSX backend: the step is compiled into a graph that runs on the wafer, and "
            "tensor values only exist once the step has run. Pass the tensor to a function "
            "decorated with @cstorch.step_closure and read it there (or express the logic with "
            "tensor ops, e.g. torch.where instead of an if on a value).")

    def on_set_data(self, tensor, source):
        ref = self.ref_tensor(source)
        self._rebind(tensor, ref)

    def on_become(self, tensor, result):
        self._rebind(tensor, ("s", self.slot_of(result)))

    def _rebind(self, tensor, ref):
        """``tensor`` holds the value of ``ref`` from now on."""
        external = id(tensor) in self.externals or self.slot_of(tensor) is None
        if ref[0] == "s":
            self.tensor_slot[id(tensor)] = ref[1]
            self.keep.append(tensor)
        if external or ref[0] != "s":
            # a tensor read through its object: the replay rebinds it at this point
            self.tape.entries.append(_rebind_entry(tensor, ref))

    def _var(self, t):
        return _holder(t, id(t) in self.tensor_slot and id(t) not in self.externals)

    def on_set_grad(self, tensor, value):
        ref = None if value is None else self.ref_tensor(value)
        self.tape.entries.append(_set_grad_entry(self._var(tensor), ref))
        self.grad_defined.add(tensor)
        if value is not None:
            self.grad_owner[id(value)] = tensor
            self.keep.append(value)

    def on_zero_grad(self, tensor, set_to_none):
        self.tape.entries.append(_zero_grad_entry(self._var(tensor), set_to_none))
        if tensor._grad is not None and not set_to_none:
            self.grad_defined.add(tensor)

    def on_read_grad(self, tensor):
        if tensor not in self.grad_defined and tensor not in self.grad_checked:
            self.grad_checked.add(tensor)
            self.tape.grad_presence.append((tensor, tensor._grad is None))

    def engine(self):
        return self

    def dispatch(self, op, args, attrs, target):
        if op.is_view and args and isinstance(args[0], Tensor):
            check_explicit_alias(args[0], op.name)
        dynamic = getattr(op, "dynamic_shape", None)
        if op.data_dependent_shape or (dynamic is not None and dynamic(args, attrs)):
            raise WaferRuleError(
                f"Compile failure: {op.name} produces a tensor whose shape depends on the values "
                "of its input, and the wafer compiles a graph in which every shape is fixed "
                "before the step runs. Keep shapes static inside the traced step: use masks "
                "(torch.where(mask, x, 0), x * mask) instead of selecting elements, or do the "
                "data-dependent part in a step closure.")
        if self.wafer_dtypes and target is None and op.name in _MIXED_PRECISION_OPS:
            args = _promote_floating(args)
        refs = [self.ref(a) for a in args]
        arefs = {k: self.ref(v) for k, v in attrs.items()}
        before = target.grad_fn if target is not None else None
        res = _dispatch.redispatch(self, op, args, attrs, target)
        self.tape.signature.append((op.name, tuple(tuple(a.shape) for a in args
                                                   if isinstance(a, Tensor))))
        if target is not None:
            node = target.grad_fn if target.grad_fn is not before else None
            self._record_inplace(op, refs, arefs, node, target,
                                 _fast_binary(op, args, attrs, True) if node is None else None)
            return res
        site = creation_site()
        outs = () if res is None else (res if isinstance(res, tuple) else (res,))
        node = outs[0].grad_fn if outs and outs[0]._rg else None
        slots = [self._bind_output(o, site) for o in outs]
        fast = _fast_binary(op, args, attrs) if node is None else None
        info = _node_info(node) if node is not None else None
        self.tape.entries.append(_op_entry(op, refs, arefs, slots, info, self._node_key(node),
                                           isinstance(res, tuple), fast))
        return res

    def _record_inplace(self, op, refs, arefs, node, target, fast):
        if node is None:
            self.tape.entries.append(_inplace_entry(op, refs, arefs, fast))
            return
        if node.op is op:  # an in-place op on a tensor in the graph
            self.tape.entries.append(_inplace_grad_entry(op, refs, arefs, _node_info(node),
                                                         self._node_key(node)))
            return
        # an in-place op on a view of a tensor in the graph: the base is rebased onto a
        # CopySlices node wrapping the op's node, and the view reads through an as_strided node
        copy = target._base.grad_fn
        inner = copy.inner
        self.tape.entries.append(_copy_slices_entry(
            op, refs, arefs, _node_info(inner), _node_info(copy), copy.view_fn,
            self._node_key(copy)))
        self.nodes[id(node)] = key = len(self.nodes)
        self.keep.append(node)
        self.tape.entries.append(_static_ctx_entry(key, _node_info(node), node.view_fn))

    # -- engine observer -------------------------------------------------------------------------
    def fn(self, func, inputs, kwargs, output):
        refs = [self.ref(a) for a in inputs]
        if any(not _is_static(r) for r in refs):
            s = self._new_slot(output)
            self.tape.entries.append(_fn_entry(func, refs, kwargs, s))
        # otherwise the output is a constant of the step and stays unnamed

    def bwd(self, node, grads, in_grads):
        if getattr(node.op, "records_itself", False):
            return  # custom Functions: their backward ran through dispatch and was recorded
        key = self.nodes.get(id(node))
        if key is None:
            raise WaferRuleError(
                "loss.backward() inside the traced step reached an op computed outside it. On the "
                "wafer the whole training step (forward, loss, backward, optimizer) must be inside "
                "the function decorated with cstorch.trace: compute every tensor the loss depends "
                "on inside the step (or detach() it first).")
        grefs = [None if g is None else self.ref(g) for g in grads]
        out_slots = [None if g is None else self._new_slot(g) for g in in_grads]
        self.tape.entries.append(_bwd_entry(node.op, key, grefs, out_slots, node.n_outputs))

    def accumulate(self, var, g, created):
        # the .grad array (g itself, a private copy of it, or the accumulated one) gets a slot:
        # code that reads it as an array (a custom Function's backward) then reads this step's
        ref = self.ref(g)
        s = self._new_slot(var._grad._data)
        self.tape.entries.append(_accumulate_entry(self._var(var), ref, s, created))
        self.grad_defined.add(var)
        self.grad_owner[id(var._grad)] = var
        self.keep.append(var._grad)

    # -- after the step --------------------------------------------------------------------------
    def finish(self):
        """Drop the capture's own references (what stays alive now is held by user code)."""
        self.keep = []
        self.tensor_slot = {}
        self.array_slot = {}
        self.grad_owner = {}
        self.grad_defined = set()
        self.grad_checked = set()
        self.nodes = {}
        self.externals = {}


# The ops the wafer compiler accepts with mixed floating input dtypes (it inserts the casts).
_MIXED_PRECISION_OPS = frozenset({"matmul", "linear", "addmm", "convolution", "conv_transpose"})


def _promote_floating(args):
    """``args`` with their floating tensors cast to the dtype torch's promotion gives them all."""
    from ..torch import _dtype as D
    floats = [a for a in args if isinstance(a, Tensor) and a._dtype.is_floating_point]
    if len({a._dtype for a in floats}) < 2:
        return args
    dt = floats[0]._dtype
    for a in floats[1:]:
        dt = D.promote_types(dt, a._dtype)
    return tuple(_dispatch.apply(_dispatch.OPS["to_copy"], a, dtype=dt.np)
                 if isinstance(a, Tensor) and a._dtype.is_floating_point and a._dtype is not dt
                 else a for a in args)


# ----- entries ------------------------------------------------------------------------------------
class Entry:
    """What one tape entry does, for the replay planner (``core.plan``): its ``kind`` ("op",
    "inplace", "inplace_grad", "copy_slices", "static_ctx", "fn", "bwd", "accumulate",
    "set_grad", "zero_grad", "rebind"), the references it reads (``refs``), the slots it writes
    (``slots``) and the fields of its kind. ``run(env, ctxs)`` is the recorded closure."""

    __slots__ = ("kind", "run", "fields", "refs", "slots")

    def __init__(self, kind, refs=(), slots=(), **fields):
        self.kind, self.refs, self.slots, self.fields = kind, list(refs), list(slots), fields
        self.run = None

    def __getattr__(self, name):
        try:
            return self.fields[name]
        except KeyError:
            raise AttributeError(name) from None

    def bind(self, run):
        self.run = run
        run.entry = self
        return run


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
    static = {k: r[1] for k, r in arefs.items() if r[0] == "c"}
    dynamic = {k: r for k, r in arefs.items() if r[0] != "c"}
    if not dynamic:
        return lambda env: static

    def resolve(env):
        d = dict(static)
        for k, r in dynamic.items():
            d[k] = _resolve(env, r)
        return d
    return resolve


def _fast_binary(op, args, attrs, inplace=False):
    """A plain ufunc for an elementwise op whose operands need no promotion (checked now, at
    capture; shapes and dtypes are the same at every replay), else None."""
    if len(args) == 1 and not inplace:
        return _fast_unary(op, args, attrs)
    if inplace and op.name == "addcmul":
        return _fast_addcmul(args, attrs)
    return _dispatch.fast_binary(op, args, attrs, inplace)


def _fast_addcmul(args, attrs):
    """``(kernel, value)`` for an in-place ``addcmul`` (Adam's second moment) whose operands are
    float32/float64 arrays of the target's dtype and shape and whose value is a Python number:
    the replay calls the kernel's array function (``_ops.binary._addc``: ``dst += (value * t1) *
    t2`` in that dtype) without the op's dispatch and checks."""
    value = attrs.get("value", 1)
    if len(args) != 3 or set(attrs) - {"value"} or type(value) not in (int, float) or \
            any(not isinstance(a, Tensor) or a._meta for a in args):
        return None
    d, t1, t2 = (a._data for a in args)
    if d.dtype not in _dispatch._PLAIN_FLOATS or any(a.dtype != d.dtype or a.shape != d.shape
                                                     for a in (t1, t2)):
        return None
    return (_addc, value)


def _alias(a):
    return a  # detach: the same array (its storage), as the op's kernel returns


def _copy(a):
    # clone of a C-ordered or 0-d array: a C-ordered copy, unless the source's size-1 dims
    # carry other strides (the kernel's layout rule keeps them)
    r = np.array(a, copy=True)
    return r if r.strides == a.strides else preserve_format(a, r)


#: unary kernels that are exactly these functions on a float32/float64 array (no attributes; a
#: C-ordered or 0-d operand, whose result layout the function keeps as the kernel does). ``exp``
#: is the kernel's own wide-precision function (``_xp.wide32``). detach and clone are the step
#: closures' snapshot of their tensor arguments (``t.detach().clone()``)
_UNARY = {"sqrt": np.sqrt, "exp": NP.exp, "neg": np.negative, "detach": _alias, "clone": _copy}


def _fast_unary(op, args, attrs):
    a = args[0]
    if not isinstance(a, Tensor) or a._meta or a._data.dtype not in _dispatch._PLAIN_FLOATS:
        return None
    if op.name == "norm":  # clip_grad_norm_'s norms of the gradients: the kernel's 2-norm of
        # a whole tensor of more than one element (one element: |x| exactly)
        return (two_norm, 1) if attrs == {"p": 2.0, "axis": None, "keepdim": False} and \
            a._data.size > 1 else None
    if op.name == "clone" and a._data.size == 0:
        return None  # (an empty copy's strides follow the kernel's layout rule)
    uf = _UNARY.get(op.name)
    return (uf, 1) if uf is not None and not attrs else None


def _op_entry(op, refs, arefs, slots, info, key, multi, fast=None):
    get_args, get_attrs = _args_resolver(refs), _attrs_resolver(arefs)
    fwd = op.forward
    desc = Entry("op", op=op, refs=refs, arefs=arefs, slots=slots, info=info, key=key,
                 multi=multi, fast=fast)

    def store(env, outs):
        if multi:
            for s, o in zip(slots, outs):
                env[s] = output_array(op, o)
        elif slots:
            env[slots[0]] = output_array(op, outs)

    def run(env, ctxs):
        store(env, fwd(Ctx(), *get_args(env), **get_attrs(env)))

    if fast is not None and len(refs) == 1 and not multi:  # a plain unary ufunc
        uf, s0, ra = fast[0], slots[0], refs[0]

        def run_unary(env, ctxs):
            a = env[ra[1]] if ra[0] == "s" else _resolve(env, ra)
            if a.ndim and not a.flags.c_contiguous:
                return run(env, ctxs)  # another layout: the kernel decides the result's
            r = uf(a)
            env[s0] = r if type(r) is np.ndarray else np.asarray(r)  # (0-d: a scalar)
        return desc.bind(run_unary)
    if fast is not None and len(refs) == 2 and not multi:
        uf, alpha = fast
        s0 = slots[0]
        ra, rb = refs

        def run_fast(env, ctxs):
            a = env[ra[1]] if ra[0] == "s" else _resolve(env, ra)
            b = env[rb[1]] if rb[0] == "s" else _resolve(env, rb)
            r = uf(a, b if alpha == 1 else b * alpha)
            env[s0] = r if type(r) is np.ndarray else np.asarray(r)  # (a 0-d result: a scalar)
        return desc.bind(run_fast)
    if info is None:
        return desc.bind(run)

    def run_grad(env, ctxs):
        ctx = _ReplayCtx(info)
        store(env, fwd(ctx, *get_args(env), **get_attrs(env)))
        ctxs[key] = ctx
    return desc.bind(run_grad)


def _inplace_entry(op, refs, arefs, fast=None):
    get_args, get_attrs = _args_resolver(refs), _attrs_resolver(arefs)
    desc = Entry("inplace", op=op, refs=refs, arefs=arefs, fast=fast)
    if fast is not None and len(refs) == 2 and refs[0][0] in ("s", "x", "g"):
        uf, alpha = fast
        ra, rb = refs

        def run_fast(env, ctxs):
            dst = _resolve(env, ra)
            b = env[rb[1]] if rb[0] == "s" else _resolve(env, rb)
            uf(dst, b if alpha == 1 else b * alpha, out=dst)
        return desc.bind(run_fast)

    if fast is not None and len(refs) == 3 and refs[0][0] in ("s", "x", "g"):  # addcmul
        addc, value = fast
        ra, r1, r2 = refs

        def run_addc(env, ctxs):
            dst = _resolve(env, ra)
            addc(dst, _resolve(env, r1), _resolve(env, r2), value, np.multiply, dst)
        return desc.bind(run_addc)

    def run(env, ctxs):
        args = get_args(env)
        inplace_forward(op, Ctx(), args[0], args[1:], get_attrs(env))
    return desc.bind(run)


def _inplace_grad_entry(op, refs, arefs, info, key):
    get_args, get_attrs = _args_resolver(refs), _attrs_resolver(arefs)

    def run(env, ctxs):
        ctx = _ReplayCtx(info)
        args = get_args(env)
        inplace_forward_grad(op, ctx, args[0], args[1:], get_attrs(env))
        ctxs[key] = ctx
    return Entry("inplace_grad", op=op, refs=refs, arefs=arefs, key=key).bind(run)


def _copy_slices_entry(op, refs, arefs, inner_info, info, view_fn, key):
    get_args, get_attrs = _args_resolver(refs), _attrs_resolver(arefs)

    def run(env, ctxs):
        inner = _ReplayCtx(inner_info)
        inner.op = op
        args = get_args(env)
        inplace_forward_grad(op, inner, args[0], args[1:], get_attrs(env))
        ctx = _ReplayCtx(info)
        ctx.inner, ctx.view_fn = inner, view_fn
        ctxs[key] = ctx
    return Entry("copy_slices", op=op, refs=refs, arefs=arefs, key=key).bind(run)


def _static_ctx_entry(key, info, view_fn):
    def run(env, ctxs):
        ctx = _ReplayCtx(info)
        ctx.view_fn = view_fn
        ctxs[key] = ctx
    return Entry("static_ctx", refs=[], key=key).bind(run)


def _fn_entry(func, refs, kwargs, slot):
    get_args = _args_resolver(refs)

    def run(env, ctxs):
        env[slot] = func(*get_args(env), **kwargs)
    return Entry("fn", func=func, refs=refs, kwargs=kwargs, slots=[slot]).bind(run)


def _bwd_entry(op, key, grefs, out_slots, n_outputs):
    bwd = op.backward

    def run(env, ctxs):
        grads = [None if r is None else _resolve(env, r) for r in grefs]
        res = bwd(ctxs[key], grads[0] if n_outputs == 1 else grads)
        for s, g in zip(out_slots, res):
            if s is not None:
                env[s] = _autograd.grad_array(g)
    return Entry("bwd", op=op, key=key, refs=[r for r in grefs if r is not None], grefs=grefs,
                 slots=[s for s in out_slots if s is not None], out_slots=out_slots,
                 n_outputs=n_outputs).bind(run)


def _accumulate_entry(var, ref, slot, created=None):
    def run(env, ctxs):
        v = var()
        if v is not None:
            _autograd.accumulate_grad(v, _resolve(env, ref), ctxs["stored"])
            env[slot] = v._grad._data
    return Entry("accumulate", var=var, refs=[ref], slots=[slot], created=created).bind(run)


def _set_grad_entry(var, ref):
    if ref is None:
        def unset(env, ctxs):
            v = var()
            if v is not None:
                v._grad = None
        return Entry("set_grad", var=var, refs=[], value=None).bind(unset)

    def run(env, ctxs):
        v = var()
        if v is None:
            return
        arr = _resolve(env, ref)
        g = v._grad
        if g is not None and g._data is arr:
            return
        v._grad = Tensor._wrap(arr)
    return Entry("set_grad", var=var, refs=[ref], value=ref).bind(run)


def _zero_grad_entry(var, set_to_none):
    def run(env, ctxs):
        v = var()
        if v is not None:
            _dispatch.zero_grad_now(v, set_to_none)
    return Entry("zero_grad", var=var, refs=[], set_to_none=set_to_none).bind(run)


def _rebind_entry(tensor, ref):
    def run(env, ctxs):
        tensor._data = _resolve(env, ref)
    return Entry("rebind", tensor=tensor, refs=[ref]).bind(run)
