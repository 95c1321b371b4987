"""``torch.autograd.Function``: user-defined ops with a hand-written backward.

A Function's backward is the user's Python over tensor ops, so a backward that records a graph
(``create_graph=True``) runs it with grad mode on and gets gradients that can be differentiated
again; ``@once_differentiable`` marks a backward that cannot (torch's decorator and error).
"""
from __future__ import annotations

import functools

from .. import _dispatch, _views
from .._autograd import Anomaly, GradState, Node, no_grad, record_forward_stack
from .._tensor import Tensor

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The ``ctx`` a custom Function's forward/backward share."""

    def __init__(self):
        self.saved_tensors = ()
        self.needs_input_grad = ()
        self._non_diff = set()
        self._materialize = True

    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_diff.update(id(t) for t in tensors)

    def mark_dirty(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        """False: ``backward`` receives None for an output no gradient reached (not zeros)."""
        self._materialize = bool(value)


class _CustomOp(_dispatch.Op):
    """The graph node of a custom Function. Its forward and backward are the user's Python code
    over tensor ops, each of which passes the dispatch point on its own (so a graph capture
    records them, not this node)."""

    name = "custom_function"
    records_itself = True

    @staticmethod
    def backward(node, g):
        grads = node.fn_cls.backward(node.fctx, *[None if x is None else Tensor._wrap(x) for x in
                                                 (g if isinstance(g, list) else [g])])
        if not isinstance(grads, tuple):
            grads = (grads,)
        out = []
        for a, gr in zip(node.args, grads):
            out.append(gr._data if isinstance(gr, Tensor) and isinstance(a, Tensor) else None)
        return tuple(out)

    @staticmethod
    def graph_backward(node, g):
        """The user's backward on tensor gradients with grad mode on (``create_graph=True``)."""
        grads = node.fn_cls.backward(node.fctx, *(g if isinstance(g, list) else [g]))
        if not isinstance(grads, tuple):
            grads = (grads,)
        return tuple(gr if isinstance(gr, Tensor) and isinstance(a, Tensor) else None
                     for a, gr in zip(node.args, grads))


class _DelayedError(_dispatch.Op):
    """The node behind the outputs of a ``@once_differentiable`` backward: differentiating
    them raises (torch's ``DelayedError``)."""

    name = "delayed_error"
    node_name = "DelayedError"

    @staticmethod
    def backward(node, g):
        raise RuntimeError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable")

    graph_backward = backward


def once_differentiable(fn):
    """Decorate a custom Function's ``backward`` that is not itself differentiable: it runs
    under ``no_grad``, and when a graph is being recorded and a gradient it received requires
    grad, its results require grad through a node that raises torch's error if a later backward
    reaches it ("trying to differentiate twice a function that was marked with
    @once_differentiable")."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not GradState.enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        node = Node(_DelayedError, len(outs))
        node.next = [None] * len(outs)
        node.in_meta = [None] * len(outs)
        node.needs_input_grad = [False] * len(outs)
        node.saved_versions = []
        node.out_meta = [(o._data.shape, o._data.dtype) if isinstance(o, Tensor) else None
                         for o in outs]
        res = []
        for i, o in enumerate(outs):
            if isinstance(o, Tensor):
                t = Tensor._wrap(o._data)
                t._rg, t.grad_fn, t._output_nr = True, node, i
                o = t
            res.append(o)
        return res[0] if single else tuple(res)
    return wrapper


def _view_of_input(t, o, args, name, i, several):
    """torch's rule for an output ``o`` of a custom Function that is one of its inputs or a view
    of one: the output ``t`` stays a view of that input's base (sharing its version counter),
    marked so that an in-place change of it, or of its base before it is used, is refused --
    the custom backward would be overridden otherwise (several outputs: torch's multi-output
    mark)."""
    bases = {id(a._base if a._base is not None else a): a for a in args if isinstance(a, Tensor)}
    root = o._base if o._base is not None else o
    if id(root) not in bases:
        return
    base = bases[id(root)]
    base = base._base if base._base is not None else base
    t._base, t._vc, t._view_fn = base, o._vc, o._view_fn if o._base is not None else None
    if several:
        t.__dict__["_multi_view"] = (name, i, t._vc[0])
    else:
        t.__dict__["_cmeta"] = (_views.CUSTOM_FUNCTION_VIEW, t._vc[0], (name, i))
    _views.MARKED[0] = True
    _dispatch._register_view(t)


class Function:
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``; call
    ``MyFn.apply(*args)``."""

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        prev = GradState.enabled
        GradState.enabled = False
        try:
            out = cls.forward(ctx, *args, **kwargs)
        finally:
            GradState.enabled = prev
        if not (prev and any(ctx.needs_input_grad)):
            return out
        outs = out if isinstance(out, tuple) else (out,)
        node = Node(_CustomOp, len(outs))
        node.fn_cls, node.fctx, node.args = cls, ctx, args
        if not ctx._materialize:
            node.keep_undefined = True
        node.next = [a._edge() if isinstance(a, Tensor) and a._rg else None for a in args]
        node.in_meta = [(a._data.shape, a._data.dtype) if isinstance(a, Tensor) else None
                        for a in args]
        node.needs_input_grad = [e is not None for e in node.next]
        node.saved_versions = []
        node.out_meta = [(o._data.shape, o._data.dtype) for o in outs]
        if Anomaly.enabled:
            record_forward_stack(node)
        res = []
        for i, o in enumerate(outs):
            if id(o) in ctx._non_diff or not o._dtype.is_floating_point:
                res.append(o)
                continue
            t = Tensor._wrap(o._data)
            t._rg, t.grad_fn, t._output_nr = True, node, i
            _view_of_input(t, o, args, cls.__name__, i, len(outs) > 1)
            res.append(t)
        return tuple(res) if isinstance(out, tuple) else res[0]

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")
