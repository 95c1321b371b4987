"""The backward pass that records a graph: ``backward(create_graph=True)`` and
``autograd.grad(..., create_graph=True)`` (gradients of gradients, Hessian-vector products,
gradient penalties).

The graph and the rules are the ones first-order backward uses (``_autograd.run_backward``).
What changes is what flows: gradients are tensors, and each node's rule runs with grad mode on
and with a :class:`GraphCtx` in place of the node. A rule reads its saved values through the
ctx and does its math through ``xp = ns(g)`` (``_ops._xp``), which for tensor gradients is the
namespace of our differentiable tensor ops, so every operation of the backward pass goes
through the dispatch point and is recorded like a forward op (a graph capture of the emulated
wafer sees it too). Un-broadcasting, casts, gradient sums and ``.grad`` accumulation are tensor
ops as well; a leaf's ``.grad`` becomes a copy of the gradient (``CloneBackward0``), then
``grad + new`` (out of place), as in torch.

What a rule's saved values become (:class:`GraphCtx`):

* an op's inputs (declared by ``Op.graph_inputs``, name -> position, or found as the array of
  a tensor the node saved) are those tensors, cast to the array's dtype when the forward read a
  cast copy (half precision computed in float32, promoted operands). The saved old value of the
  target of an in-place op is a tensor on the edge the op overwrote (torch's saved
  ``original_self``);
* ``y`` of an op that saves its output is the output tensor;
* ``Op.graph_aliases`` name arrays that are the data of index or mask tensors the op received:
  constant tensors sharing that array;
* any other array is an intermediate of the forward (an index a kernel computed, a mask): a
  constant. Rules recompute, in graph mode, the intermediates that depend differentiably on an
  input (a layer norm's normalized input, a fused loss's log-probabilities).
"""
from __future__ import annotations

import numpy as np

from ._autograd import (AccumulateGrad, Anomaly, GradState, Node, _toposort, anomaly_call,
                        freed_error, modified_error, versioned)
from ._dispatch import OPS, apply, apply_inplace
from ._layout import dense_layout, element_strides, strided_array


class TX:
    """The four tensor operations the engine itself records (a cast, a call of an op, zeros, a
    sum), through the op registry: the tensor core names ops, it never imports an op module."""

    @staticmethod
    def astype(x, dtype):
        dt = np.dtype(getattr(dtype, "np", dtype))
        return x if x._data.dtype == dt else apply(OPS["to_copy"], x, dtype=dt)

    @staticmethod
    def call(op, *args, **attrs):
        return apply(op, *args, **attrs)

    @staticmethod
    def zeros(shape, dtype=None):
        shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
        return apply(OPS["full"], shape=shape, value=0,
                     dtype=np.dtype(getattr(dtype, "np", dtype) or np.float64))

    @staticmethod
    def sum(x, axis=None, keepdims=False):
        if axis is not None and x.ndim == 0:
            return x
        nd = max(x.ndim, 1)
        if axis is not None:
            axis = tuple(sorted(a % nd for a in (axis if isinstance(axis, (tuple, list))
                                                 else (axis,)))) if x.ndim else None
        return apply(OPS["sum"], x, axis=axis, keepdim=keepdims)

__all__ = ["GraphCtx", "run_backward_graph", "accumulate_graph", "derived_outputs"]


def _tensor_cls():
    from ._tensor import Tensor
    return Tensor


def _alias(v):
    """A constant tensor sharing ``v``'s array (tuples of keys converted element by element)."""
    Tensor = _tensor_cls()
    if isinstance(v, np.ndarray):
        return Tensor._wrap(v)
    if isinstance(v, np.generic):  # numpy's reductions of 0-d arrays give scalars
        return Tensor._wrap(np.asarray(v))
    if isinstance(v, tuple):
        return tuple(_alias(x) for x in v)
    if isinstance(v, list):
        return [_alias(x) for x in v]
    return v


def _has_array(v) -> bool:
    if isinstance(v, (np.ndarray, np.generic)):
        return True
    if isinstance(v, (tuple, list)):
        return any(_has_array(x) for x in v)
    return False


_WAFER = ("create_graph=True inside a traced step reads a value the forward of {op} computed "
          "internally ({name}), which this version of the emulated wafer's capture cannot name "
          "for replay. Compute this part of the step outside create_graph, or run it on the "
          "CPU backend.")


def _saved_positions(node, first):
    """The input positions ``_dispatch`` saved for ``node`` (in order), from ``first`` on."""
    op = node.op
    reads = op.reads
    needs = node.needs_input_grad
    meta = node.in_meta
    return [i for i in op.saved if first <= i < len(meta) and meta[i] is not None and
            (reads is None or any(needs[j] for j in reads.get(i, ()) if j < len(needs)))]


class GraphCtx:
    """A node seen by its backward rule while a graph is recorded (module docstring)."""

    xp = TX

    def __init__(self, node, output=None, inner=False):
        d = self.__dict__
        d["_node"] = node
        d["needs_input_grad"] = node.needs_input_grad
        d["in_meta"] = node.in_meta
        d["next"] = node.next
        d["_output"] = output
        d["_inner"] = inner
        d["_map"] = None

    def __getattr__(self, name):
        node = self.__dict__["_node"]
        try:
            v = node.__dict__[name]
        except KeyError:
            raise AttributeError(name) from None
        v = self._convert(name, v)
        self.__dict__[name] = v
        return v

    # -- saved tensors ---------------------------------------------------------------------------
    def _saved(self):
        m = self.__dict__["_map"]
        if m is not None:
            return m
        node = self._node
        op = node.op
        sv = node.saved_versions or []
        n_out = node.n_outputs if op.saves_output and not self._inner else 0
        n_out = min(n_out, len(sv))
        # outputs a multi-output op saves for the version check only (max(dim)'s indices): last
        n_extra = min(len(getattr(op, "saved_outputs", ())), len(sv) - n_out)
        n_in = len(sv) - n_out - n_extra
        pos = _saved_positions(node, 0)
        inplace0 = False
        if len(pos) != n_in:
            pos = _saved_positions(node, 1)
            inplace0 = True
            if len(pos) != n_in:
                raise RuntimeError(f"internal error: cannot match the saved tensors of "
                                   f"{node.name()} to its inputs")
        outs = [t for t, _ in sv[n_in:len(sv) - n_extra]]
        if self._output is not None:
            outs = [self._output]
        m = ({p: sv[k][0] for k, p in enumerate(pos)}, inplace0, outs)
        self.__dict__["_map"] = m
        return m

    def _input(self, name, pos, arr):
        by_pos, inplace0, _ = self._saved()
        t = by_pos.get(pos)
        node = self._node
        if t is None:
            edge = node.next[pos] if pos < len(node.next) else None
            if edge is None:
                return self._intermediate(name, arr)  # no gradient flows into it: a constant
            if type(edge[0]) is AccumulateGrad:
                t = edge[0].variable
            elif pos == 0 and inplace0:
                # the in-place op's private copy of the value it overwrote, on the edge it had
                self._notify(name, arr)
                t = _on_edge(arr, edge, node.in_meta[0][1])
            else:
                raise RuntimeError(f"internal error: {node.name()} reads input {pos} "
                                   f"({name}) in backward but does not save it")
        if isinstance(arr, (np.ndarray, np.generic)) and t._data.dtype != arr.dtype:
            t = TX.astype(t, arr.dtype)
        return t

    def _out(self, arr, k=0):
        outs = self._saved()[2]
        if len(outs) <= k:
            raise RuntimeError(f"internal error: {self._node.name()} reads its output in "
                               "backward but does not save it")
        out = outs[k]
        if isinstance(arr, (np.ndarray, np.generic)) and out._data.dtype != arr.dtype:
            out = TX.astype(out, arr.dtype)
        return out

    def input(self, pos):
        """Input ``pos`` of the op as the tensor the node saved (a rule that recomputes a
        forward intermediate from it)."""
        t = self._saved()[0].get(pos)
        if t is None:
            raise RuntimeError(f"internal error: {self._node.name()} reads input {pos} in "
                               "backward but does not save it")
        return t

    def _notify(self, name, v):
        from ._dispatch import engine_observers
        for o in engine_observers():
            hook = getattr(o, "saved", None)
            if hook is None:
                raise RuntimeError(_WAFER.format(op=self._node.name(), name=name))
            hook(self._node, name, v)

    def _intermediate(self, name, v):
        self._notify(name, v)
        return _alias(v)

    def _convert(self, name, v):
        if not _has_array(v):
            return v
        op = self._node.op
        gi = getattr(op, "graph_inputs", None)
        if gi is not None and name in gi:
            p = gi[name]
            if p == "all":  # a tuple holding every input (einsum's operands)
                return tuple(self._input(name, i, a) for i, a in enumerate(v))
            if isinstance(p, tuple):  # ("out", k): output k
                return self._out(v, p[1])
            return self._input(name, p, v)
        if name == "y" and op.saves_output:
            return self._out(v)
        if isinstance(v, np.ndarray):
            by_pos = self._saved()[0]
            for t in by_pos.values():
                if t._data is v:
                    return t
        if name in getattr(op, "graph_aliases", ()):
            return _alias(v)
        return self._intermediate(name, v)


def _on_edge(arr, edge, dtype):
    """A tensor holding ``arr`` whose gradient flows into ``edge`` (torch's unpacked saved
    variable)."""
    Tensor = _tensor_cls()
    arr = np.asarray(arr)
    t = Tensor._wrap(arr if arr.dtype == dtype else arr.astype(dtype))
    t._rg = True
    t.grad_fn, t._output_nr = edge
    return t


def derived_outputs(ctx, op, inputs, outputs, **saved):
    """Tensors for values a fused forward computed on the way (``outputs``, arrays), as the
    outputs of a node of ``op`` whose inputs are the node's inputs at positions ``inputs``: the
    graph torch records for the unfused ops (``cross_entropy``'s log-probabilities are the
    output of a ``log_softmax`` of its input). ``saved`` become that node's ctx values."""
    node = ctx._node
    for k, a in enumerate(outputs):
        ctx._notify(f"{op.name} output {k}", a)
    n = Node(op, len(outputs))
    n.next = [node.next[p] for p in inputs]
    n.in_meta = [node.in_meta[p] for p in inputs]
    n.needs_input_grad = [e is not None for e in n.next]
    n.__dict__.update(saved)
    if len(outputs) > 1:
        n.out_meta = [(a.shape, a.dtype) for a in outputs]
    Tensor = _tensor_cls()
    outs = []
    for k, a in enumerate(outputs):
        t = Tensor._wrap(a)
        t._rg = any(n.needs_input_grad)
        t.grad_fn, t._output_nr = (n, k) if t._rg else (None, 0)
        outs.append(t)
    n.saved_versions = [(t, t._vc[0]) for t in outs] if op.saves_output else []
    if op.saves_output and len(outputs) == 1:
        n.y = outputs[0]
    return outs


# ----- nodes whose rule is not an op's ------------------------------------------------------------
def _copy_slices(node, g):
    """An in-place op on a view of a tensor in the graph (``_dispatch._CopySlices``)."""
    ViewSet, ViewTake = OPS["view_set"], OPS["view_take"]
    inner = node.inner
    gv = TX.call(ViewTake, g, view_fn=node.view_fn)
    out = node.saved_versions[-1][0] if inner.op.saves_output and node.saved_versions else None
    res = list(_rule(inner, gv, GraphCtx(inner, output=out, inner=True)))
    res += [None] * (len(node.next) - len(res))
    if node.needs_input_grad[0]:
        g0 = res[0]
        if g0 is None:
            g0 = TX.zeros(gv.shape, gv.dtype)
        else:
            g0 = _unbroadcast(g0, tuple(gv.shape))
            g0 = TX.astype(g0, gv.dtype)
        res[0] = TX.call(ViewSet, g, g0, view_fn=node.view_fn)
    else:
        res[0] = None
    return res


def _view_of(node, g):
    """The view an in-place op on a view rebased (``_dispatch._ViewOf``): its gradient placed
    in zeros of the base's shape."""
    ViewSet = OPS["view_set"]
    shape, dt = node.in_meta[0]
    return (TX.call(ViewSet, TX.zeros(shape, dt), g, view_fn=node.view_fn),)


def _special_rules():
    from ._dispatch import _CopySlices, _ViewOf
    return {_CopySlices: _copy_slices, _ViewOf: _view_of}


_SPECIAL = None


def _rule(node, g, ctx=None):
    """``node``'s backward rule on tensor gradients, recording a graph."""
    global _SPECIAL
    if _SPECIAL is None:
        _SPECIAL = _special_rules()
    op = node.op
    special = _SPECIAL.get(op)
    if special is not None:
        return special(node, g)
    graph_rule = getattr(op, "graph_backward", None)
    if graph_rule is not None:
        return graph_rule(node, g)
    return op.backward(ctx if ctx is not None else GraphCtx(node), g)


def _apply_rule(node, grads):
    if node.freed:
        raise freed_error()
    for t, v in versioned(node):
        if t._vc[0] != v:
            raise modified_error(t, v, node)
    g = grads[0] if node.n_outputs == 1 else grads
    res = _rule(node, g)
    Tensor = _tensor_cls()
    out = []
    for i, r in enumerate(res):
        if r is None or isinstance(r, Tensor):
            out.append(r)
        elif isinstance(r, (np.ndarray, np.generic, int, float)):
            raise RuntimeError(f"internal error: the backward rule of {node.name()} returned an "
                               f"array for input {i} while recording a graph")
        else:
            out.append(r)
    return out


def _unbroadcast(g, shape):
    """Sum the tensor ``g`` down to ``shape`` (undo broadcasting) with recorded ops."""
    if tuple(g.shape) == shape:
        return g
    nd = g.ndim - len(shape)
    if nd:
        g = TX.sum(g, axis=tuple(range(nd)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    if axes:
        g = TX.sum(g, axis=axes, keepdims=True)
    if tuple(g.shape) != shape:
        raise RuntimeError(f"internal error: gradient of shape {tuple(g.shape)} for input of "
                           f"shape {shape}")
    return g


def _zeros(shape, dt):
    return TX.zeros(shape, dt)


def accumulate_graph(acc, g) -> None:
    """A leaf's ``.grad`` while a graph is recorded: a copy of ``g`` when unset, else
    ``.grad + g`` (a new tensor, as torch's AccumulateGrad does in grad mode)."""
    from . import _dispatch
    var = acc.variable
    if g._data.dtype != var._data.dtype:
        g = TX.astype(g, var._data.dtype)
    if var._grad is None:
        # torch's clone_obey_contract: a dense variable's gradient is a new tensor with the
        # variable's strides that the gradient is copied into (a CopyBackwards node), any other
        # variable's a contiguous clone
        if g._data.size and dense_layout(var._data):
            new = type(g)._wrap(strided_array(var._data.shape, var._data.dtype,
                                              element_strides(var._data)))
            new = apply_inplace(OPS["copy_"], new, g)
        else:
            new = TX.call(OPS["clone"], g, contiguous=True)
    else:
        cur = var._grad
        if tuple(cur.shape) != tuple(g.shape):
            raise RuntimeError(f"grad of shape {list(cur.shape)} does not match the incoming "
                               f"gradient of shape {list(g.shape)}")
        new = cur + g
    _dispatch.set_grad(var, new)
    if acc.post_acc_hooks:
        for h in acc.post_acc_hooks:
            h(var)


def run_backward_graph(roots, root_grads, retain_graph=True, capture=None):
    """``_autograd.run_backward`` with tensor gradients, recording a graph (module docstring).

    ``roots`` are edges, ``root_grads`` tensors. With ``capture`` (a dict edge -> None) the
    gradients arriving at those edges are stored there (``autograd.grad``); leaves are left
    untouched.
    """
    deps = _toposort([e[0] for e in roots])
    buffers = {}
    prev = GradState.enabled
    GradState.enabled = True
    try:
        for (node, nr), g in zip(roots, root_grads):
            buf = buffers.setdefault(node, [None] * node.n_outputs)
            buf[nr] = g if buf[nr] is None else buf[nr] + g
        ready = list(dict.fromkeys(e[0] for e in roots if deps.get(e[0], 0) == 0))
        while ready:
            node = ready.pop()
            grads = buffers.pop(node, None)
            if grads is None:
                grads = [None] * node.n_outputs
            if node.pre_hooks:
                for nr, hooks in node.pre_hooks.items():
                    for h in hooks:
                        if grads[nr] is None:
                            continue
                        r = h(grads[nr])
                        if r is not None:
                            grads[nr] = r
            if capture is not None:
                for nr in range(node.n_outputs):
                    if (node, nr) in capture and grads[nr] is not None:
                        cur = capture[(node, nr)]
                        capture[(node, nr)] = grads[nr] if cur is None else cur + grads[nr]
            if type(node) is AccumulateGrad:
                if capture is None and grads[0] is not None:
                    accumulate_graph(node, grads[0])
                continue
            if all(g is None for g in grads):
                in_grads = (None,) * len(node.next)
            else:
                if node.n_outputs > 1 and not node.__dict__.get("keep_undefined"):
                    grads = [g if g is not None else _zeros(shape, dt)
                             for g, (shape, dt) in zip(grads, node.out_meta)]
                if Anomaly.enabled:
                    in_grads = anomaly_call(node, lambda: _apply_rule(node, grads))
                else:
                    in_grads = _apply_rule(node, grads)
                if not retain_graph:
                    node.release()
            for e, g, meta in zip(node.next, in_grads, node.in_meta):
                if e is None:
                    continue
                m = e[0]
                if g is not None:
                    shape, dt = meta
                    if tuple(g.shape) != shape:
                        g = _unbroadcast(g, shape)
                    if g._data.dtype != dt:
                        g = TX.astype(g, dt)
                    buf = buffers.setdefault(m, [None] * m.n_outputs)
                    nr = e[1]
                    buf[nr] = g if buf[nr] is None else buf[nr] + g
                deps[m] -= 1
                if deps[m] == 0:
                    ready.append(m)
    finally:
        GradState.enabled = prev
