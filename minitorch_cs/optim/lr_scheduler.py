"""``cstorch.optim.lr_scheduler``: learning-rate schedulers (mirrors
``cerebras/pytorch/optim/lr_scheduler.py``).

Each class is the generic closed form of :mod:`.scheduler` applied to the ``"lr"`` entry, with
cstorch's learning-rate argument names (``initial_learning_rate``, ``end_learning_rate``,
``base_lr``, ...). Their state dicts use those names, like cstorch's.

Example:
    >>> import minitorch_cs as cstorch, minitorch_cs.torch as torch
    >>> from minitorch_cs.optim import SGD, lr_scheduler
    >>> _ = cstorch.current_backend(raise_exception=False) or cstorch.backend("CPU")
    >>> opt = SGD([torch.zeros(2, requires_grad=True)], lr=0.1)
    >>> sched = lr_scheduler.LinearLR(opt, initial_learning_rate=0.0, end_learning_rate=1e-3,
    ...                               total_iters=10)
    >>> [round(float(sched.value_at(t)), 6) for t in (0, 5, 10, 20)]
    [0.0, 0.0005, 0.001, 0.001]
"""
from __future__ import annotations

from . import scheduler as S
from .scheduler import ChainedScheduler as BaseChainedScheduler  # noqa: F401
from .scheduler import (  # noqa: F401  (the generic classes, as cstorch's module has them)
    ConstantScheduler, CosineAnnealingScheduler, CosineAnnealingWarmRestartsScheduler,
    CosineDecayScheduler, CyclicScheduler, ExponentialScheduler,
    InverseExponentialTimeDecayScheduler, InverseSquareRootDecayScheduler, LambdaScheduler,
    LinearScheduler, MultiStepScheduler, MultiplicativeScheduler, OneCycleScheduler,
    PiecewiseConstantScheduler, PolynomialScheduler, ScalePerParamScheduler, Scheduler,
    SequentialScheduler, StepScheduler)

__all__ = ["LRScheduler", "ConstantLR", "PolynomialLR", "LinearLR", "ExponentialLR",
           "InverseExponentialTimeDecayLR", "InverseSquareRootDecayLR", "CosineDecayLR",
           "SequentialLR", "PiecewiseConstantLR", "MultiStepLR", "StepLR", "CosineAnnealingLR",
           "LambdaLR", "CosineAnnealingWarmRestarts", "MultiplicativeLR", "ChainedLR",
           "ChainedScheduler", "CyclicLR", "OneCycleLR", "ScalePerParamLR"]


def _alias(name):
    """A property storing a generic scheduler attribute under its learning-rate name."""
    return property(lambda self: getattr(self, name),
                    lambda self, value: setattr(self, name, value))


class LRScheduler(S.Scheduler):
    """Base of the learning-rate schedulers (``param_group_key == "lr"``)."""

    @property
    def param_group_key(self):
        return "lr"

    def get_last_lr(self):
        """The learning rates last written into the param groups."""
        return self.get_last_value()

    def get_lr(self):
        """The learning rates for the current ``last_epoch``."""
        return self.get()


class ConstantLR(LRScheduler, S.ConstantScheduler):
    """``lr = learning_rate`` (``total_iters`` only matters inside SequentialLR)."""

    val = _alias("learning_rate")

    def __init__(self, optimizer, learning_rate: float, total_iters=None, param_group_tags=None):
        super().__init__(optimizer, val=learning_rate, total_iters=total_iters,
                         param_group_tags=param_group_tags)


class PolynomialLR(LRScheduler, S.PolynomialScheduler):
    """Polynomial decay from ``initial_learning_rate`` to ``end_learning_rate`` over
    ``total_iters`` steps, then constant (``cycle`` has no effect, like cstorch)."""

    initial_val = _alias("initial_learning_rate")
    end_val = _alias("end_learning_rate")

    def __init__(self, optimizer, initial_learning_rate: float, end_learning_rate: float,
                 total_iters: int, power: float = 1.0, cycle: bool = False,
                 param_group_tags=None):
        super().__init__(optimizer, initial_val=initial_learning_rate,
                         end_val=end_learning_rate, total_iters=total_iters, power=power,
                         cycle=cycle, param_group_tags=param_group_tags)


class LinearLR(LRScheduler, S.LinearScheduler):
    """Linear interpolation over ``total_iters`` steps, then ``end_learning_rate``."""

    initial_val = _alias("initial_learning_rate")
    end_val = _alias("end_learning_rate")

    def __init__(self, optimizer, initial_learning_rate: float, end_learning_rate: float,
                 total_iters: int, cycle: bool = False, param_group_tags=None):
        super().__init__(optimizer, initial_val=initial_learning_rate,
                         end_val=end_learning_rate, total_iters=total_iters, cycle=cycle,
                         param_group_tags=param_group_tags)


class ExponentialLR(LRScheduler, S.ExponentialScheduler):
    """``lr = initial_learning_rate · decay_rate^(t/total_iters)``."""

    initial_val = _alias("initial_learning_rate")

    def __init__(self, optimizer, initial_learning_rate: float, total_iters: int,
                 decay_rate: float, staircase: bool = False, param_group_tags=None):
        super().__init__(optimizer, initial_val=initial_learning_rate, total_iters=total_iters,
                         decay_rate=decay_rate, staircase=staircase,
                         param_group_tags=param_group_tags)


class InverseExponentialTimeDecayLR(LRScheduler, S.InverseExponentialTimeDecayScheduler):
    """``lr = initial_learning_rate / (1 + decay_rate · t^step_exponent / total_iters)``."""

    initial_val = _alias("initial_learning_rate")

    def __init__(self, optimizer, initial_learning_rate: float, step_exponent: int,
                 total_iters: int, decay_rate: float, staircase: bool = False,
                 param_group_tags=None):
        super().__init__(optimizer, initial_val=initial_learning_rate,
                         step_exponent=step_exponent, total_iters=total_iters,
                         decay_rate=decay_rate, staircase=staircase,
                         param_group_tags=param_group_tags)


class InverseSquareRootDecayLR(LRScheduler, S.InverseSquareRootDecayScheduler):
    """``lr = initial_learning_rate · scale / √max(t, warmup_steps)``."""

    initial_val = _alias("initial_learning_rate")

    def __init__(self, optimizer, initial_learning_rate: float = 1.0, scale: float = 1.0,
                 warmup_steps: int = 1.0, param_group_tags=None):
        super().__init__(optimizer, initial_val=initial_learning_rate, scale=scale,
                         warmup_steps=warmup_steps, param_group_tags=param_group_tags)


class CosineDecayLR(LRScheduler, S.CosineDecayScheduler):
    """Half-cosine decay over ``total_iters`` steps, then ``end_learning_rate``."""

    initial_val = _alias("initial_learning_rate")
    end_val = _alias("end_learning_rate")

    def __init__(self, optimizer, initial_learning_rate: float, end_learning_rate: float,
                 total_iters: int, param_group_tags=None):
        super().__init__(optimizer, initial_val=initial_learning_rate,
                         end_val=end_learning_rate, total_iters=total_iters,
                         param_group_tags=param_group_tags)


class SequentialLR(LRScheduler, S.SequentialScheduler):
    """``schedulers[j]`` runs from ``milestones[j-1]`` on (its own step count restarting at 0).

    Sub-schedulers may also be given as ``lambda optimizer: ...`` callables, and ``milestones``
    left out: they are then the cumulative ``total_iters`` of all but the last scheduler.
    """

    def __init__(self, optimizer, schedulers, milestones=None, last_epoch: int = -1,
                 param_group_tags=None):
        super().__init__(optimizer, schedulers=schedulers, milestones=milestones,
                         last_epoch=last_epoch, param_group_tags=param_group_tags)


class PiecewiseConstantLR(LRScheduler, S.PiecewiseConstantScheduler):
    """``learning_rates[j]`` between ``milestones[j-1]`` and ``milestones[j]``."""

    def __init__(self, optimizer, learning_rates, milestones, param_group_tags=None):
        super().__init__(optimizer, ConstantLR, vals=learning_rates, milestones=milestones,
                         param_group_tags=param_group_tags)


class MultiStepLR(LRScheduler, S.MultiStepScheduler):
    """``lr = initial_learning_rate · gamma^(milestones passed)``."""

    initial_val = _alias("initial_learning_rate")

    def __init__(self, optimizer, initial_learning_rate: float, gamma: float, milestones,
                 param_group_tags=None):
        super().__init__(optimizer, initial_val=initial_learning_rate, gamma=gamma,
                         milestones=milestones, param_group_tags=param_group_tags)


class StepLR(LRScheduler, S.StepScheduler):
    """``lr = initial_learning_rate · gamma^⌊t/step_size⌋``."""

    initial_val = _alias("initial_learning_rate")

    def __init__(self, optimizer, initial_learning_rate: float, step_size: int, gamma: float,
                 param_group_tags=None):
        super().__init__(optimizer, initial_val=initial_learning_rate, step_size=step_size,
                         gamma=gamma, param_group_tags=param_group_tags)


class CosineAnnealingLR(LRScheduler, S.CosineAnnealingScheduler):
    """Cosine annealing with period ``2·T_max`` (not clamped after ``T_max``)."""

    initial_val = _alias("initial_learning_rate")

    def __init__(self, optimizer, initial_learning_rate: float, T_max: int,
                 eta_min: float = 0.0, param_group_tags=None):
        super().__init__(optimizer, initial_val=initial_learning_rate, T_max=T_max,
                         eta_min=eta_min, param_group_tags=param_group_tags)


class LambdaLR(LRScheduler, S.LambdaScheduler):
    """``lr = Π_k initial_learning_rate·λ_k(t)`` (cstorch's placeholder lambdas by default)."""

    initial_val = _alias("initial_learning_rate")

    def __init__(self, optimizer, initial_learning_rate: float, param_group_tags=None):
        super().__init__(optimizer, initial_val=initial_learning_rate,
                         param_group_tags=param_group_tags)


class CosineAnnealingWarmRestarts(LRScheduler, S.CosineAnnealingWarmRestartsScheduler):
    """Cosine annealing over ``T_0`` steps, then cstorch's square wave (``T_mult`` must be 1)."""

    initial_val = _alias("initial_learning_rate")

    def __init__(self, optimizer, initial_learning_rate: float, T_0: int, T_mult: int = 1,
                 eta_min: float = 0.0, param_group_tags=None):
        super().__init__(optimizer, initial_val=initial_learning_rate, T_0=T_0, T_mult=T_mult,
                         eta_min=eta_min, param_group_tags=param_group_tags)


class MultiplicativeLR(LRScheduler, S.MultiplicativeScheduler):
    """``lr = initial_learning_rate · coefficient^t``."""

    initial_val = _alias("initial_learning_rate")

    def __init__(self, optimizer, initial_learning_rate: float, coefficient: float,
                 param_group_tags=None):
        super().__init__(optimizer, initial_val=initial_learning_rate, coefficient=coefficient,
                         param_group_tags=param_group_tags)


class ChainedLR(LRScheduler, S.ChainedScheduler):
    """Product of learning-rate schedulers sharing one step count (no optimizer argument)."""

    def __init__(self, schedulers, param_group_tags=None):
        super().__init__(schedulers=schedulers, param_group_tags=param_group_tags)


class ChainedScheduler(ChainedLR):
    """Alias of :class:`ChainedLR`."""


class CyclicLR(LRScheduler, S.CyclicScheduler):
    """Cyclical learning rate between ``base_lr`` and ``max_lr``."""

    base_val = _alias("base_lr")
    max_val = _alias("max_lr")

    def __init__(self, optimizer, base_lr: float, max_lr: float, step_size_up: int = 2000,
                 step_size_down=None, mode: str = "triangular", gamma: float = 1.0,
                 scale_mode: str = "cycle", param_group_tags=None):
        super().__init__(optimizer, base_val=base_lr, max_val=max_lr, step_size_up=step_size_up,
                         step_size_down=step_size_down, mode=mode, gamma=gamma,
                         scale_mode=scale_mode, param_group_tags=param_group_tags)


class OneCycleLR(LRScheduler, S.OneCycleScheduler):
    """The 1cycle policy; ``initial_learning_rate`` is torch's ``max_lr/div_factor``."""

    initial_val = _alias("initial_learning_rate")
    max_val = _alias("max_lr")

    def __init__(self, optimizer, initial_learning_rate: float, max_lr: float,
                 total_steps: int = 1000, pct_start: float = 0.3, final_div_factor: float = 1e4,
                 three_phase: bool = False, anneal_strategy: str = "cos", param_group_tags=None):
        super().__init__(optimizer, initial_val=initial_learning_rate, max_val=max_lr,
                         total_steps=total_steps, pct_start=pct_start,
                         final_div_factor=final_div_factor, three_phase=three_phase,
                         anneal_strategy=anneal_strategy, param_group_tags=param_group_tags)


class ScalePerParamLR(LRScheduler, S.ScalePerParamScheduler):
    """Scales a wrapped scheduler's lr per group by the group's ``adjust_learning_rate``."""

    adjustment_scalars = _alias("lr_adjustment_scalars")

    def __init__(self, optimizer, scheduler, param_group_tags=None):
        super().__init__(optimizer, scheduler=scheduler, param_group_tags=param_group_tags)
