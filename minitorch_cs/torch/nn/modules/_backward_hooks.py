"""Module backward hooks (``register_full_backward_hook``/``register_full_backward_pre_hook``),
built as torch builds them: the module's tensor inputs and its tensor outputs each pass through
one identity node of the autograd graph. When the gradient of the outputs arrives, the
backward pre-hooks see it (``hook(module, grad_output)``; a returned tuple replaces it); when
the gradient of the inputs is complete, the full hooks see both (``hook(module, grad_input,
grad_output)``; a returned tuple replaces ``grad_input``). ``grad_input`` has one entry per
tensor input (zeros for one that does not require grad) and ``grad_output`` one per output that
requires grad (None for one no gradient reached); when no input requires grad the full hooks
run with the outputs' gradient, with ``grad_input`` all None (PyTorch 2.x
``torch.utils.hooks.BackwardHook``).
"""
from __future__ import annotations

import warnings

from ...autograd.function import Function
from ..._tensor import Tensor


class _State:
    """What one call of a hooked module shares between its two identity nodes."""

    def __init__(self, module, inputs_require_grad):
        self.module = module
        self.mask = inputs_require_grad  # (one entry per tensor input)
        self.grad_output = None


class _Identity(Function):
    """The identity node; its backward hands the gradients to ``on_grad`` (which may replace
    them)."""

    @staticmethod
    def forward(ctx, on_grad, *tensors):
        ctx.on_grad = on_grad
        ctx.set_materialize_grads(False)  # (an output no gradient reached shows None)
        outs = tuple(t.view_as(t) for t in tensors)
        ctx.mark_non_differentiable(*[o for o, t in zip(outs, tensors) if not t.requires_grad])
        return outs

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.on_grad(grads))


def _check_replacement(new, old, what):
    if not isinstance(new, tuple):
        new = tuple(new) if isinstance(new, list) else (new,)
    if len(new) != len(old):
        raise RuntimeError(f"Backward hook returned an invalid number of {what} - got "
                           f"{len(new)}, but expected {len(old)}")
    return new


def _run_full_hooks(state, grad_input):
    module = state.module
    for hook in module._backward_hooks.values():
        r = hook(module, grad_input, state.grad_output)
        if r is not None:
            grad_input = _check_replacement(r, grad_input, "grad_input")
    return grad_input


def wrap_inputs(module, args):
    """``args`` with the module's tensor inputs passed through the input identity node (when
    any requires grad), and the call's shared state."""
    idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    if any(args[i]._lazydev for i in idx) or any(p._lazydev for p in module.parameters()):
        raise RuntimeError(
            f"{type(module).__name__} has a backward hook: hooks run Python during the backward "
            "pass, which a step compiled for the wafer cannot call back into (it would run once, "
            "at trace time). Remove the hook for the compiled run, or run the model on the CPU "
            "backend.")
    mask = tuple(args[i].requires_grad for i in idx)
    state = _State(module, mask)
    if not any(mask) or not module._backward_hooks:
        return args, state

    def on_grad(grads):
        # (an input that does not require grad shows zeros, as torch's node materializes its
        # undefined gradient)
        grad_input = tuple(g if g is not None else t.new_zeros(t.shape)
                           for g, t in zip(grads, tensors))
        return _run_full_hooks(state, grad_input)

    tensors = [args[i] for i in idx]
    return _pass_through(args, idx, on_grad), state


def _pass_through(values, idx, on_grad):
    """``values`` (a tuple) with its tensors at ``idx`` replaced by their pass through one
    identity node whose backward calls ``on_grad``."""
    passed = _Identity.apply(on_grad, *[values[i] for i in idx])
    passed = passed if isinstance(passed, tuple) else (passed,)
    values = list(values)
    for i, t in zip(idx, passed):
        values[i] = t
    return tuple(values)


def wrap_outputs(state, result):
    """``result`` (a tensor or a tuple of them) with its tensors passed through the output
    identity node, which runs the pre-hooks (and the full hooks when no input requires
    grad)."""
    single = isinstance(result, Tensor)
    outs = (result,) if single else result
    if not isinstance(outs, tuple):
        return result
    idx = [i for i, o in enumerate(outs) if isinstance(o, Tensor) and o.requires_grad]
    if not idx:
        return result
    module = state.module

    def on_grad(grads):
        for hook in module._backward_pre_hooks.values():
            r = hook(module, grads)
            if r is not None:
                grads = _check_replacement(r, grads, "grad_output")
        state.grad_output = grads
        if not any(state.mask) and module._backward_hooks:
            warnings.warn("Full backward hook is firing when gradients are computed with respect "
                          "to module outputs since no inputs require gradients.", UserWarning,
                          stacklevel=2)
            _run_full_hooks(state, (None,) * len(state.mask))
        return grads

    outs = _pass_through(outs, idx, on_grad)
    return outs[0] if single else outs
