"""``torch.utils.checkpoint``: activation checkpointing (recompute in backward).

``checkpoint(function, *args, use_reentrant=...)`` runs ``function`` without keeping the
activations its backward would need, and recomputes them when the gradient arrives:

* ``use_reentrant=True`` (torch's historical default): the forward runs under ``no_grad`` inside a
  custom ``autograd.Function`` (``CheckpointFunctionBackward``); its backward restores the RNG
  state of the forward (``preserve_rng_state``, so dropout draws the same mask), re-runs
  ``function`` on detached inputs with gradients enabled and back-propagates through that graph.
  As in torch it cannot be used with ``torch.autograd.grad`` or ``backward(inputs=...)``.
* ``use_reentrant=False``: the gradients (and the graph's node names) are those of running
  ``function`` directly; this implementation does run it directly (the activations are kept:
  SPEC §3.1 lists the difference in memory, none in values).

Without ``use_reentrant`` torch warns and uses ``True``; so do we. ``checkpoint_sequential``
splits a ``Sequential`` (or a list of modules) into ``segments`` checkpointed runs.
"""
from __future__ import annotations

from ..autograd import Function, _is_checkpoint_valid, backward as _backward
from .._autograd import enable_grad, is_grad_enabled, no_grad
from .._fpe import warn_user
from .._random import default_generator
from .._tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]

_NO_USE_REENTRANT = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting "
    "in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")


class CheckpointFunction(Function):
    """The reentrant checkpoint as a custom Function (torch's ``CheckpointFunction``)."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.rng_state = default_generator.get_state()
        ctx.inputs = [a.detach() if isinstance(a, Tensor) else a for a in args]
        ctx.input_requires_grad = [isinstance(a, Tensor) and a.requires_grad for a in args]
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                "passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        inputs = [a.detach().requires_grad_(r) if isinstance(a, Tensor) else a
                  for a, r in zip(ctx.inputs, ctx.input_requires_grad)]
        if ctx.preserve_rng_state:
            saved = default_generator.get_state()
            default_generator.set_state(ctx.rng_state)
        try:
            with enable_grad():
                outputs = ctx.run_function(*inputs)
        finally:
            if ctx.preserve_rng_state:
                default_generator.set_state(saved)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        _backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(a.grad if isinstance(a, Tensor) else None for a in inputs)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, early_stop=True, preserve_rng_state=True, **kwargs):
    """Run ``function(*args, **kwargs)`` and recompute it in backward (see the module doc).

    Raises:
        ValueError: keyword arguments with ``use_reentrant=True``, or a ``context_fn`` with it
            (torch's messages).
    """
    if use_reentrant is None:
        warn_user(_NO_USE_REENTRANT)
        use_reentrant = True
    if use_reentrant:
        if context_fn is not None or debug:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if is_grad_enabled() and not any(isinstance(a, Tensor) and a.requires_grad
                                         for a in args):
            warn_user("None of the inputs have requires_grad=True. Gradients will be None")
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run the modules of ``functions`` (a ``Sequential`` or a list) in ``segments`` checkpointed
    chunks; the last chunk runs normally, as in torch."""
    if use_reentrant is None:
        warn_user(_NO_USE_REENTRANT)
        use_reentrant = True
    fns = list(functions.children()) if hasattr(functions, "children") else list(functions)
    size = len(fns) // segments

    def run(start, end):
        def forward(x):
            for f in fns[start:end + 1]:
                x = f(x)
            return x
        return forward

    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, **kwargs)
    return run(end + 1, len(fns) - 1)(input)
