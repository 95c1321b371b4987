"""``cstorch.amp.GradScaler`` (mirrors ``cerebras/pytorch/amp/grad_scaler.py``).

Static loss scaling (a fixed ``loss_scale``) or dynamic loss scaling (DLS, ``"dynamic"``): the
scale halves when the fraction of overflowing steps since the last rescale exceeds
``overflow_tolerance`` and doubles after more than ``steps_per_increase`` clean steps, clamped to
``[min_loss_scale, max_loss_scale]``. Under DLS ``step()`` is *conditional*: the global gradient
norm decides ``isfinite``, and when it is false the parameters, the optimizer state and (at their
next ``step()``) the schedulers' counters keep their previous values — all as tensor selections,
no Python branch on the value.

CPU backend behaviour (measured on the real stack): ``scale(loss)`` returns ``loss`` itself and
``state_dict()`` is ``{}``, yet ``unscale_`` still divides the gradients by the scale. The real
CPU backend then crashes in ``step()``/``update()`` (``AttributeError``); we run the documented
DLS semantics instead, so the emulated CSX backend can use the same code (SPEC, amp).
"""
from __future__ import annotations

import warnings
from enum import Enum, auto

import numpy as np

from .. import torch
from ..backend import current_backend_impl
from ._amp_state import _amp_state
from .conditional_update import ConditionalUpdateManager

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    """Where an optimizer is in the scale → unscale → step → update cycle."""

    READY = auto()
    SCALED = auto()
    UNSCALED = auto()
    STEPPED = auto()


class _AmpStash:
    """Per-optimizer amp bookkeeping (``optimizer._amp_stash``)."""

    _capture_recomputed = ("isfinite",)  # decided afresh by every step (see GradScaler)

    def __init__(self):
        self.dls_update_manager = ConditionalUpdateManager()
        self.state = OptState.READY
        self.isfinite = None


def _stash(optimizer) -> _AmpStash:
    stash = getattr(optimizer, "_amp_stash", None)
    if stash is None:
        stash = optimizer._amp_stash = _AmpStash()
    return stash


class GradScaler:
    """Loss scaling for mixed-precision training.

    Args:
        loss_scale: ``"dynamic"`` for dynamic loss scaling, else the static scale (default 1.0).
        init_scale: initial dynamic scale (default ``2**15``; ``2**31`` for cbfloat16).
        steps_per_increase: clean steps before the dynamic scale doubles (default 2000).
        min_loss_scale: lower bound of the dynamic scale (default and minimum ``2**-14``).
        max_loss_scale: upper bound of the dynamic scale (default as ``init_scale``).
        overflow_tolerance: tolerated fraction of overflowing steps (>= 0).
        max_gradient_norm: deprecated global-norm clipping inside the dynamic scaler.

    Raises:
        RuntimeError: no backend exists.
        ValueError: (dynamic only) ``min_loss_scale < 2**-14`` or ``overflow_tolerance < 0``.
    """

    # Values each step computes afresh before reading them (on the emulated wafer they are
    # refreshed after every replayed step).
    _capture_recomputed = ("_non_clamped_loss_scale", "global_norm", "isfinite",
                           "_squared_local_norms", "_unscaled")

    def __init__(self, loss_scale=None, init_scale=None, steps_per_increase=None,
                 min_loss_scale=None, max_loss_scale=None, overflow_tolerance: float = 0.0,
                 max_gradient_norm=None):
        default_max = 2.0 ** 31 if _amp_state.half_dtype_str == "cbfloat16" else 2.0 ** 15
        loss_scale = loss_scale if loss_scale else 1.0
        init_scale = init_scale if init_scale else default_max
        steps_per_increase = steps_per_increase if steps_per_increase else 2000
        min_loss_scale = min_loss_scale if min_loss_scale else 2.0 ** -14
        max_loss_scale = max_loss_scale if max_loss_scale else default_max

        self.loss_is_scaled = loss_scale != 1.0
        self.backend = current_backend_impl()
        if loss_scale == "dynamic":
            if min_loss_scale < 2.0 ** -14:
                raise ValueError("min_loss_scale too small")
            if overflow_tolerance < 0:
                raise ValueError("loss scaling counter threshold must be set >= 0")
            self.dynamic = True
            self._loss_scale = torch.tensor(min(max_loss_scale, init_scale), dtype=torch.float32)
            self._steps_since_rescale = torch.tensor(0, dtype=torch.int64)
            self._overflows_since_rescale = torch.tensor(0, dtype=torch.int64)
            self._num_skipped_steps = torch.tensor(0, dtype=torch.int64)
            self._overflow_tolerance = overflow_tolerance
            self._max_gradient_norm = max_gradient_norm
            if max_gradient_norm:
                warnings.warn("Using global gradient clipping built into GradScaler is "
                              "deprecated. Use torch.nn.utils.clip_grad_norm_")
            self._squared_local_norms = []
            self.isfinite = None
            self._non_clamped_loss_scale = None
        else:
            self.dynamic = False
            self._loss_scale = loss_scale
            self.isfinite = True
        self._unscaled = []  # optimizers unscaled since the last update (host bookkeeping)
        self._max_loss_scale = max_loss_scale
        self._min_loss_scale = min_loss_scale
        self._steps_per_increase = steps_per_increase
        self.global_norm = None

        self.backend.register_grad_scaler(self)
        for optimizer in self.backend.optimizer_registry:
            _stash(optimizer).state = OptState.READY

    # -- state -------------------------------------------------------------------------------
    def _static_one(self) -> bool:
        return not self.dynamic and self._loss_scale == 1.0

    def state_dict(self, destination=None) -> dict:
        """``{}`` off CSX; on CSX the scale (and the DLS counters)."""
        if not self.backend.backend_type.is_csx:
            return {}
        if self.dynamic:
            return {"loss_scale": self._loss_scale,
                    "steps_since_rescale": self._steps_since_rescale,
                    "overflows_since_rescale": self._overflows_since_rescale,
                    "num_skipped_steps": self._num_skipped_steps}
        return {"loss_scale": self._loss_scale}

    def load_state_dict(self, state_dict) -> None:
        """Restore the scale (and DLS counters); python values become tensors of the same dtype."""
        def load(current, name):
            if name not in state_dict:
                return current
            value = state_dict[name]
            if isinstance(current, torch.Tensor) and not isinstance(value, torch.Tensor):
                return torch.tensor(value, dtype=current.dtype)
            return value

        self._loss_scale = load(self._loss_scale, "loss_scale")
        if self.dynamic:
            self._steps_since_rescale = load(self._steps_since_rescale, "steps_since_rescale")
            self._overflows_since_rescale = load(self._overflows_since_rescale,
                                                 "overflows_since_rescale")
            self._num_skipped_steps = load(self._num_skipped_steps, "num_skipped_steps")

    def get_scale(self):
        """The loss scale: a Python number (static) or a float32 0-d tensor (dynamic)."""
        return self._loss_scale

    def get_non_clamped_scale(self):
        """The dynamic scale before the ``min_loss_scale`` clamp of the last update."""
        if self.dynamic and self._non_clamped_loss_scale is not None:
            return self._non_clamped_loss_scale
        return self._loss_scale

    def get_num_skipped_steps(self):
        """Optimizer steps skipped for non-finite gradients (an int64 tensor)."""
        if self.dynamic:
            return self._num_skipped_steps
        return torch.tensor(0, dtype=torch.int64)

    # -- the cycle ---------------------------------------------------------------------------
    def scale(self, loss):
        """``loss · scale`` on CSX; off CSX ``loss`` itself (like cstorch's CPU backend)."""
        if not self.backend.backend_type.is_csx:
            return loss
        if self._static_one():
            for optimizer in self.backend.optimizer_registry:
                _stash(optimizer).state = OptState.UNSCALED
            return loss.float()
        for optimizer in self.backend.optimizer_registry:
            stash = _stash(optimizer)
            if stash.state is OptState.READY:
                stash.state = OptState.SCALED
            elif stash.state is not OptState.SCALED:
                raise RuntimeError("Optimizer parameter gradients already scaled")
        return loss.float() * self._loss_scale

    def unscale_(self, optimizer) -> None:
        """Divide ``optimizer``'s gradients by the scale (once per step).

        Raises:
            RuntimeError: called after ``step()`` in the same iteration.
        """
        stash = _stash(optimizer)
        if stash.state is OptState.UNSCALED:
            return
        if stash.state is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        if self._static_one():
            stash.state = OptState.UNSCALED
            return
        if self.dynamic:
            inv_scale = torch.tensor(1.0, dtype=torch.float32) / self._loss_scale
        else:
            inv_scale = torch.tensor(1.0 / self._loss_scale, dtype=torch.float32)
        with torch.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.grad.mul_(inv_scale)
                    if self.dynamic:
                        self._squared_local_norms.append(torch.sum(p.grad * p.grad))
        stash.state = OptState.UNSCALED
        self._unscaled.append(optimizer)

    def _compute_isfinite(self):
        """``‖g‖ < inf`` over every unscaled gradient; applies the deprecated clipping."""
        if self._squared_local_norms:
            self.global_norm = torch.sqrt(torch.sum(torch.stack(
                [n.float() for n in self._squared_local_norms])))
        else:
            self.global_norm = torch.tensor(0.0, dtype=torch.float32)
        isfinite = self.global_norm < torch.tensor(float("inf"), dtype=torch.float32)
        if self._max_gradient_norm:
            coef = torch.tensor(float(self._max_gradient_norm), dtype=torch.float32) / (
                self.global_norm + 1e-6)
            coef = torch.where(coef < 1, coef, 1.0)
            with torch.no_grad():
                for optimizer in self._unscaled:
                    for group in optimizer.param_groups:
                        for p in group["params"]:
                            if p.grad is not None:
                                p.grad.mul_(coef)
        return isfinite

    def step_if_finite(self, optimizer, *args, **kwargs):
        """``optimizer.step()``, rolled back (parameters and state) where ``isfinite`` is false."""
        if not self.dynamic:
            return optimizer.step(*args, **kwargs)
        manager = _stash(optimizer).dls_update_manager
        manager.set_condition(self.isfinite)
        self._num_skipped_steps.add_(1 - self.isfinite.long())
        with manager:
            for group in optimizer.param_groups:
                for p in group["params"]:
                    manager.mark_tensor(p)
                    for value in optimizer.state[p].values():
                        if isinstance(value, torch.Tensor):
                            manager.mark_tensor(value)
            return optimizer.step(*args, **kwargs)

    def step(self, optimizer, *args, **kwargs):
        """Unscale (if not done yet), decide finiteness (DLS), and step ``optimizer``
        conditionally. Returns what ``optimizer.step`` returns.

        Raises:
            RuntimeError: a second ``step()`` for ``optimizer`` before ``update()``.
        """
        stash = _stash(optimizer)
        if stash.state is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        # A skipped (non-finite) step computes with inf/nan by design; numpy must not warn.
        with np.errstate(all="ignore"):
            # only the optimizer being stepped: the finiteness decision must not see the
            # gradients of another optimizer (one with a NaN gradient would skip this step)
            if stash.state in (OptState.READY, OptState.SCALED):
                self.unscale_(optimizer)
            if self.dynamic:
                if self.isfinite is None:
                    self.isfinite = self._compute_isfinite()
                stash.isfinite = self.isfinite
            result = self.step_if_finite(optimizer, *args, **kwargs)
        stash.state = OptState.STEPPED
        return result

    def update_scale(self, optimizers=None) -> None:
        """The dynamic-loss-scaling rule for one step (see the module doc)."""
        if not self.dynamic:
            return
        isfinite = self.isfinite if self.isfinite is not None else self._compute_isfinite()
        self._squared_local_norms = []
        self._unscaled = []
        overflow = 1 - isfinite.long()
        self._steps_since_rescale.add_(1)
        self._overflows_since_rescale.add_(overflow)
        ratio = self._overflows_since_rescale.float() / self._steps_since_rescale.float()
        exceeded = (torch.tensor(float(self._overflow_tolerance), dtype=torch.float32)
                    < ratio).long()
        self._loss_scale.div_((1 + exceeded).float())
        self._overflows_since_rescale.mul_(1 - exceeded)
        self._steps_since_rescale.mul_(1 - exceeded)
        increase = (torch.tensor(self._steps_per_increase, dtype=torch.int64)
                    < self._steps_since_rescale).long()
        self._loss_scale.mul_((1 + increase).float())
        self._overflows_since_rescale.mul_(1 - increase)
        self._steps_since_rescale.mul_(1 - increase)
        max_ls = torch.tensor(float(self._max_loss_scale), dtype=torch.float32)
        self._loss_scale.copy_(torch.where(self._loss_scale < max_ls, self._loss_scale, max_ls))
        self._non_clamped_loss_scale = self._loss_scale.detach().clone()
        min_ls = torch.tensor(float(self._min_loss_scale), dtype=torch.float32)
        self._loss_scale.copy_(torch.where(min_ls < self._loss_scale, self._loss_scale, min_ls))

    def update(self, new_scale=None) -> None:
        """Adjust the dynamic scale after all optimizers stepped; start the next iteration.

        Raises:
            ValueError: ``new_scale`` is given (not supported by cstorch).
        """
        if new_scale:
            raise ValueError("cstorch.amp.GradScaler does not support providing a `new_scale`")
        if self.dynamic or self._loss_scale != 1.0:
            self.update_scale(self.backend.optimizer_registry)
        self.isfinite = None if self.dynamic else True
        self._unscaled = []
        for optimizer in self.backend.optimizer_registry:
            _stash(optimizer).state = OptState.READY
