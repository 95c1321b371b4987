"""``torch.autograd``: ``backward``, ``grad``, grad-mode switches, anomaly mode and custom
``Function``s."""
from __future__ import annotations

import numpy as np

from .. import _dispatch
from .._autograd import (_differentiable_grad, _copy_as, _rec, enable_grad, inference_mode,
                         is_grad_enabled, no_grad, run_backward, set_grad_enabled)
from .._tensor import Tensor
from . import anomaly_mode
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "Function", "detect_anomaly", "set_detect_anomaly"]


def _as_list(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def _root_grads(outputs, grad_tensors):
    grads = []
    for i, out in enumerate(outputs):
        g = grad_tensors[i] if grad_tensors is not None and i < len(grad_tensors) else None
        if g is None:
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = np.ones(out._data.shape, out._data.dtype)
        else:
            g = g._data if isinstance(g, Tensor) else np.asarray(g, out._data.dtype)
            if g.shape != out._data.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{list(g.shape)} and output[{i}] has a shape of "
                                   f"{list(out._data.shape)}.")
        if out._rg:
            _differentiable_grad(out._data.dtype)  # (torch casts the gradient to the output's)
        grads.append(g)
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate gradients of ``tensors`` into the ``.grad`` of the leaves they depend on."""
    if create_graph:
        raise NotImplementedError("create_graph=True (higher-order gradients) is not supported: "
                                  "backward rules run on numpy arrays (SPEC.md, Autograd)")
    outputs = _as_list(tensors)
    grad_tensors = _as_list(grad_tensors)
    for out in outputs:
        if not out._rg:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a "
                               "grad_fn")
    grads = _root_grads(outputs, grad_tensors)
    roots = [out._edge() for out in outputs]
    if inputs is not None:
        inputs = _as_list(inputs)
        capture = {t._edge(): None for t in inputs}
        run_backward(roots, grads, retain_graph=bool(retain_graph), capture=capture)
        from .._autograd import _accumulate
        obs = _dispatch.engine_observers()
        for t in inputs:
            g = capture[t._edge()]
            if g is None:
                continue
            if t.grad_fn is None:
                _accumulate(t._edge()[0], g, set(), obs)
            elif t.grad is None:  # a non-leaf named in ``inputs``: its grad is set, not hooked
                t.grad = Tensor._wrap(_rec(obs, _copy_as, (g, g.dtype), {}, np.array(g)))
            else:
                t.grad = t.grad + Tensor._wrap(g)
        return
    run_backward(roots, grads, retain_graph=bool(retain_graph))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return d(outputs)/d(inputs) without touching ``.grad``."""
    if create_graph:
        raise NotImplementedError("create_graph=True (higher-order gradients) is not supported: "
                                  "backward rules run on numpy arrays (SPEC.md, Autograd)")
    outputs = _as_list(outputs)
    single = isinstance(inputs, Tensor)
    inputs = _as_list(inputs)
    for t in inputs:
        if not t._rg:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    for out in outputs:
        if not out._rg:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a "
                               "grad_fn")
    grads = _root_grads(outputs, _as_list(grad_outputs))
    capture = {t._edge(): None for t in inputs}
    run_backward([o._edge() for o in outputs], grads, retain_graph=bool(retain_graph),
                 capture=capture)
    obs = _dispatch.engine_observers()
    res = []
    for t in inputs:
        g = capture[t._edge()]
        if g is None:
            if materialize_grads:
                g = np.zeros(t._data.shape, t._data.dtype)  # a constant of the step
            elif not allow_unused:
                raise RuntimeError("One of the differentiated Tensors appears to not have been used "
                                   "in the graph. Set allow_unused=True if this is the desired "
                                   "behavior.")
        if g is not None:
            g = _rec(obs, _copy_as, (g, t._data.dtype), {}, np.array(g, dtype=t._data.dtype))
        res.append(None if g is None else Tensor._wrap(g))
    return tuple(res)
