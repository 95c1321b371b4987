"""``cstorch.optim.SGD`` (mirrors ``cerebras/pytorch/optim/SGD.py``).

Differs from ``torch.optim.SGD`` on purpose, like cstorch: the momentum buffer is preinitialized to
zeros, so dampening already applies on the first step (torch seeds the buffer with the gradient).
"""
from __future__ import annotations

import numpy as np

from .. import torch
from ..core.creation import zeros_like
from ._functional import direct_arrays, direct_ok, is_zero, run_closure, scale_sub_
from .optimizer import Optimizer

__all__ = ["SGD", "sgd_update"]


def sgd_update(param, grad, momentum_buffer, *, lr, momentum=0.0, dampening=0.0,
               weight_decay=0.0, nesterov=False, maximize=False) -> None:
    """One SGD step for one parameter, in place (``momentum_buffer`` may be None if momentum=0).

    ``g ← ±grad + wd·p``; with momentum ``buf ← m·buf + (1−dampening)·g`` and
    ``g ← g + m·buf`` (nesterov) or ``g ← buf``; then ``p ← p − lr·g``.
    ``lr`` and ``weight_decay`` may be Python numbers or 0-d tensors (scheduled values).
    """
    if maximize:
        grad = -grad
    if not is_zero(weight_decay):
        grad = grad + param * weight_decay
    if momentum != 0:
        momentum_buffer.mul_(momentum).add_(grad, alpha=1.0 - dampening)
        if nesterov:
            grad = grad.add(momentum_buffer, alpha=momentum)
        else:
            grad = momentum_buffer
    scale_sub_(param, grad, lr)


def _direct_group(params, state, *, lr, momentum, dampening, weight_decay, nesterov,
                  maximize) -> None:
    """:func:`sgd_update` of a parameter group on the arrays by numpy's ufuncs, for each parameter
    where that is exactly what the tensor ops compute (``direct_arrays``: the same float
    operations in the same order, bit for bit). The caller checked ``direct_ok``. The
    hyper-parameters become numpy scalars of the arrays'
    dtype once per group (the values numpy's weak-scalar rule would convert them to per ufunc);
    a parameter they cannot take is updated by the tensor ops in its turn (the group's order)."""
    with_buf = momentum != 0
    alpha = 1.0 - dampening
    scalars = {}  # dtype -> (momentum, alpha, -lr, weight_decay) as that dtype's scalars
    for p in params:
        grad = p._grad  # (direct: no mode observes the read)
        if grad is None:
            continue
        buf = state[p]["momentum_buffer"] if with_buf else None
        arrays = direct_arrays(p, grad, buf) if with_buf else direct_arrays(p, grad)
        if arrays is None:
            sgd_update(p, grad, buf, lr=lr, momentum=momentum, dampening=dampening,
                       weight_decay=weight_decay, nesterov=nesterov, maximize=maximize)
            continue
        a, g = arrays[0], arrays[1]
        num = scalars.get(a.dtype)
        if num is None:
            t = a.dtype.type
            num = scalars[a.dtype] = (t(momentum), t(alpha), t(-lr), t(weight_decay))
        if maximize:
            g = np.negative(g)
        if weight_decay != 0:
            g = g + a * num[3]
        if with_buf:
            v = arrays[2]
            np.multiply(v, num[0], v)
            np.add(v, g if alpha == 1 else g * num[1], v)
            buf._vc[0] += 2
            g = g + v * num[0] if nesterov else v
        np.add(a, g * num[2], a)
        p._vc[0] += 1


class SGD(Optimizer):
    """Stochastic gradient descent with optional (Nesterov) momentum and L2 weight decay.

    Args:
        params: parameters or parameter groups.
        lr: learning rate (required).
        momentum: momentum factor.
        dampening: dampening of the momentum.
        weight_decay: L2 penalty added to the gradient.
        nesterov: Nesterov momentum (needs ``momentum > 0`` and ``dampening == 0``).
        maximize: ascend instead of descend.

    Raises:
        ValueError: negative lr, momentum or weight_decay; invalid nesterov settings.

    Example:
        >>> import minitorch_cs as cstorch, minitorch_cs.torch as torch
        >>> from minitorch_cs.optim import SGD
        >>> _ = cstorch.current_backend(raise_exception=False) or cstorch.backend("CPU")
        >>> p = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> opt = SGD([p], lr=0.5, momentum=0.9)
        >>> p.grad = torch.tensor([1.0, 1.0])
        >>> opt.step()
        >>> p
        tensor([0.5000, 1.5000], requires_grad=True)
    """

    def __init__(self, params, lr: float, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, maximize: bool = False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError(f"Nesterov momentum requires a `momentum` and zero `dampening`. "
                             f"`momentum` was {momentum} and `dampening` was {dampening}.")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize)
        super().__init__(params, defaults)

    def preinitialize(self):
        for group in self.param_groups:
            for p in group["params"]:
                if group["momentum"] != 0:
                    self.state[p]["momentum_buffer"] = zeros_like(p)

    def step(self, closure=None):
        loss = run_closure(closure)
        with torch.no_grad():
            for group in self.param_groups:
                kw = dict(lr=group["lr"], momentum=group["momentum"],
                          dampening=group["dampening"], weight_decay=group["weight_decay"],
                          nesterov=group["nesterov"], maximize=group["maximize"])
                if direct_ok(kw["lr"], kw["momentum"], kw["dampening"], kw["weight_decay"]):
                    _direct_group(group["params"], self.state, **kw)
                    continue
                for p in group["params"]:
                    grad = p.grad
                    if grad is None:
                        continue
                    # read the buffer without touching ``self.state[p]``: the state is a
                    # defaultdict, and without momentum the real SGD keeps no entry per parameter
                    # (``state_dict()["state"] == {}``)
                    buf = self.state[p]["momentum_buffer"] if group["momentum"] != 0 else None
                    sgd_update(p, grad, buf, **kw)
        return loss
