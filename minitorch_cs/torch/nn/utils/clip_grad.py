"""``torch.nn.utils.clip_grad``: clip gradients by their total norm or by value, in place."""
from __future__ import annotations

import functools
import types
import warnings

from ... import _creation as C
from ... import _functions as T
from ..._autograd import no_grad
from ..._tensor import Tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm"]


def _no_grad(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)
    return wrapper


def _check_foreach(foreach):
    # Differs from torch: there is no fused foreach path; foreach=True is accepted and ignored on
    # CPU (torch raises only for devices without foreach support; CPU has it).
    return foreach


@_no_grad
def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:
    """The ``norm_type``-norm of the norms of ``tensors`` (as if concatenated into one vector).

    Raises:
        RuntimeError: the norm is nan or inf and ``error_if_nonfinite``.
    """
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return C.tensor(0.0)
    _check_foreach(foreach)
    norms = [T.norm(g, norm_type) for g in tensors]
    total = T.norm(T.stack(norms), norm_type)
    if error_if_nonfinite and bool(T.logical_or(total.isnan(), total.isinf())):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` "
                           "is non-finite, so it cannot be clipped. To disable this error and scale "
                           "the gradients by the non-finite norm anyway, set "
                           "`error_if_nonfinite=False`")
    return total


@_no_grad
def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach=None) -> None:
    """Scale every gradient by min(1, max_norm / (total_norm + 1e-6)), in place."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    _check_foreach(foreach)
    clip_coef = max_norm / (total_norm + 1e-6)
    clip_coef_clamped = T.clamp(clip_coef, max=1.0)
    for g in grads:
        g.mul_(clip_coef_clamped)


@_no_grad
def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Clip the gradients of ``parameters`` so their total norm is at most ``max_norm``.

    The scale is min(1, max_norm / (total_norm + 1e-6)), applied in place to every ``.grad``.

    Returns:
        The total norm of the gradients before clipping (a 0-d tensor).

    Example:
        >>> import minitorch_cs.torch as torch
        >>> p = torch.nn.Parameter(torch.zeros(2)); p.grad = torch.tensor([3.0, 4.0])
        >>> torch.nn.utils.clip_grad_norm_([p], 1.0)
        tensor(5.)
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Deprecated alias of :func:`clip_grad_norm_`."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient to [-clip_value, clip_value], in place."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    _check_foreach(foreach)
    for p in parameters:
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)
