"""``torch.autograd``: ``backward``, ``grad``, grad-mode switches, anomaly mode, custom
``Function``s, ``gradcheck``/``gradgradcheck`` and the ``functional`` API (Jacobians, Hessians
and their products with vectors)."""

import numpy as np

from .. import _dispatch
from .._autograd import (_differentiable_grad, _copy_as, _rec, enable_grad, inference_mode,
                         no_grad, set_grad_enabled)
from .._autograd import run_backward as _run_backward
from .._autograd_graph import accumulate_graph as _accumulate_graph
from .._autograd_graph import run_backward_graph as _run_backward_graph
from .._tensor import Tensor as _Tensor
from . import anomaly_mode
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "Function", "detect_anomaly", "set_detect_anomaly", "gradcheck",
           "gradgradcheck"]


def _as_list(x):
    if x is None:
        return None
    if isinstance(x, _Tensor):
        return [x]
    return list(x)


def _shape_mismatch(i, grad_shape, out_shape):
    return RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                        f"torch.Size({list(grad_shape)}) and output[{i}] has a shape of "
                        f"torch.Size({list(out_shape)}).")


def _root_grads(outputs, grad_tensors):
    grads = []
    for i, out in enumerate(outputs):
        g = grad_tensors[i] if grad_tensors is not None and i < len(grad_tensors) else None
        if g is None:
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = np.ones(out._data.shape, out._data.dtype)
        else:
            g = g._data if isinstance(g, _Tensor) else np.asarray(g, out._data.dtype)
            if g.shape != out._data.shape:
                raise _shape_mismatch(i, g.shape, out._data.shape)
        if out._rg:
            _differentiable_grad(out._data.dtype)  # (torch casts the gradient to the output's)
        grads.append(g)
    return grads


def _graph_root_grads(outputs, grad_tensors):
    """The seeds of a backward that records a graph: the given tensors as they are (a gradient
    may itself require grad), ones for scalar outputs."""
    from .._creation import ones_like
    grads = []
    for i, out in enumerate(outputs):
        g = grad_tensors[i] if grad_tensors is not None and i < len(grad_tensors) else None
        if g is None:
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = ones_like(out)
        else:
            if not isinstance(g, _Tensor):
                from .._creation import tensor
                g = tensor(g, dtype=out.dtype)
            if tuple(g.shape) != tuple(out.shape):
                raise _shape_mismatch(i, g.shape, out.shape)
        grads.append(g)
    return grads


_WARNED_CYCLE = []


def _warn_cycle():
    """torch's one-time warning for ``backward(create_graph=True)`` (its engine warns once per
    process): the parameter's ``.grad`` now refers back to the parameter."""
    if not _WARNED_CYCLE:
        _WARNED_CYCLE.append(True)
        from .._fpe import warn_user
        warn_user("Using backward() with create_graph=True will create a reference cycle between "
                  "the parameter and its gradient which can cause a memory leak. We recommend "
                  "using autograd.grad when creating the graph to avoid this. If you have to use "
                  "this function, make sure to reset the .grad fields of your parameters to None "
                  "after use to break the cycle and avoid the leak.")


def _check_outputs(outputs):
    for i, out in enumerate(outputs):
        if not isinstance(out, _Tensor):
            raise TypeError(f"backward(): argument 'tensors' must be a sequence of Tensors, but "
                            f"element {i} is {type(out).__name__}")
        if not out._rg:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn")


# Whether the backward pass now running may re-enter a reentrant checkpoint: not while
# ``grad()`` or ``backward(inputs=...)`` runs (torch's ``_is_checkpoint_valid``); passes nest.
_CHECKPOINT_VALID = [True]


def _is_checkpoint_valid() -> bool:
    return _CHECKPOINT_VALID[-1]


class _Pass:
    """One engine pass: ``valid`` says whether a reentrant checkpoint may run inside it."""

    def __init__(self, valid):
        self.valid = valid

    def __enter__(self):
        _CHECKPOINT_VALID.append(self.valid)

    def __exit__(self, *exc):
        _CHECKPOINT_VALID.pop()
        return False


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate gradients of ``tensors`` into the ``.grad`` of the leaves they depend on.

    With ``create_graph=True`` the backward pass is recorded, so the gradients it produces can be
    differentiated again (``retain_graph`` then defaults to True, as in torch).
    """
    outputs = _as_list(tensors)
    grad_tensors = _as_list(grad_tensors)
    if inputs is not None and not _as_list(inputs):
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    _check_outputs(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    roots = [out._edge() for out in outputs]
    if create_graph:
        _warn_cycle()
        grads = _graph_root_grads(outputs, grad_tensors)
        if inputs is not None:
            inputs = _as_list(inputs)
            capture = {t._edge(): None for t in inputs}
            with _Pass(False):
                _run_backward_graph(roots, grads, retain_graph=bool(retain_graph),
                                   capture=capture)
            for t in inputs:
                g = capture[t._edge()]
                if g is None:
                    continue
                if t.grad_fn is None:
                    _accumulate_graph(t._edge()[0], g)
                else:
                    t.grad = g if t.grad is None else t.grad + g
            return
        with _Pass(True):
            _run_backward_graph(roots, grads, retain_graph=bool(retain_graph))
        return
    grads = _root_grads(outputs, grad_tensors)
    if inputs is not None:
        inputs = _as_list(inputs)
        capture = {t._edge(): None for t in inputs}
        with _Pass(False):
            _run_backward(roots, grads, retain_graph=bool(retain_graph), capture=capture)
        from .._autograd import _accumulate
        obs = _dispatch.engine_observers()
        for t in inputs:
            g = capture[t._edge()]
            if g is None:
                continue
            if t.grad_fn is None:
                _accumulate(t._edge()[0], g, set(), obs)
            elif t.grad is None:  # a non-leaf named in ``inputs``: its grad is set, not hooked
                t.grad = _Tensor._wrap(_rec(obs, _copy_as, (g, g.dtype), {}, np.array(g)))
            else:
                t.grad = t.grad + _Tensor._wrap(g)
        return
    with _Pass(True):
        _run_backward(roots, grads, retain_graph=bool(retain_graph))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return d(outputs)/d(inputs) without touching ``.grad``.

    With ``create_graph=True`` the returned gradients carry a graph (they can be differentiated
    again); ``retain_graph`` then defaults to True, as in torch.
    """
    outputs = _as_list(outputs)
    inputs = _as_list(inputs)
    for t in inputs:
        if not t._rg:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if is_grads_batched:
        return _batched_grad(outputs, inputs, _as_list(grad_outputs), retain_graph, create_graph,
                             allow_unused, materialize_grads)
    _check_outputs(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    capture = {t._edge(): None for t in inputs}
    roots = [o._edge() for o in outputs]
    with _Pass(False):
        if create_graph:
            grads = _graph_root_grads(outputs, _as_list(grad_outputs))
            _run_backward_graph(roots, grads, retain_graph=bool(retain_graph), capture=capture)
        else:
            grads = _root_grads(outputs, _as_list(grad_outputs))
            _run_backward(roots, grads, retain_graph=bool(retain_graph), capture=capture)
    obs = _dispatch.engine_observers()
    res = []
    for i, t in enumerate(inputs):
        g = capture[t._edge()]
        if g is None:
            if materialize_grads:
                if create_graph:
                    from .._creation import zeros_like
                    res.append(zeros_like(t))
                    continue
                g = np.zeros(t._data.shape, t._data.dtype)  # a constant of the step
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
        if g is None:
            res.append(None)
        elif create_graph:
            res.append(g if g._data.dtype == t._data.dtype else g.to(t.dtype))
        else:
            g = _rec(obs, _copy_as, (g, t._data.dtype), {}, np.array(g, dtype=t._data.dtype))
            res.append(_Tensor._wrap(g))
    return tuple(res)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                  materialize_grads):
    """``grad(..., is_grads_batched=True)``: the first dim of each grad output is a batch of
    vectors; the result stacks one vector-Jacobian product per vector (torch maps them with
    vmap; the values are the same)."""
    n = grad_outputs[0].shape[0] if grad_outputs and grad_outputs[0] is not None else 0
    if any(go is not None and go.shape[0] != n for go in grad_outputs):
        raise RuntimeError("If `is_grads_batched=True`, we interpret the first dimension of each "
                           "grad_output as the batch dimension. The sizes of the batch "
                           "dimensions must match.")
    per = []
    for b in range(n):
        keep = True if b < n - 1 else retain_graph
        per.append(grad(outputs, inputs, [None if go is None else go[b] for go in grad_outputs],
                        retain_graph=keep, create_graph=create_graph, allow_unused=allow_unused,
                        materialize_grads=materialize_grads))
    return tuple(None if any(p[i] is None for p in per) else _stacked([p[i] for p in per])
                 for i in range(len(inputs)))


def _stacked(parts):
    """``parts`` stacked along a new first dim, by indexed writes into a new tensor (recorded:
    a graph of the parts stays differentiable)."""
    out = parts[0].new_zeros((len(parts),) + tuple(parts[0].shape))
    for b, part in enumerate(parts):
        out[b] = part
    return out


# imported last: they call ``grad`` above. As in torch, the name ``gradcheck`` is the function
# (the module stays importable: ``from torch.autograd.gradcheck import GradcheckError``).
from . import functional  # noqa: E402
from .gradcheck import gradcheck, gradgradcheck  # noqa: E402
