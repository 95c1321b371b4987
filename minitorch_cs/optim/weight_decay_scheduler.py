"""``cstorch.optim.weight_decay_scheduler``: weight-decay schedulers (mirrors
``cerebras/pytorch/optim/weight_decay_scheduler.py``).

The same closed forms as the learning-rate schedulers, applied to the ``"weight_decay"`` entry,
with the generic argument names (``val``, ``initial_val``, ``end_val``, ``base_val``, ...).
"""
from __future__ import annotations

from . import scheduler as S
from .scheduler import (  # noqa: F401  (the generic classes, as cstorch's module has them)
    ChainedScheduler, ConstantScheduler, CosineAnnealingScheduler,
    CosineAnnealingWarmRestartsScheduler, CosineDecayScheduler, CyclicScheduler,
    ExponentialScheduler, InverseExponentialTimeDecayScheduler, InverseSquareRootDecayScheduler,
    LambdaScheduler, LinearScheduler, MultiStepScheduler, MultiplicativeScheduler,
    OneCycleScheduler, PiecewiseConstantScheduler, PolynomialScheduler, ScalePerParamScheduler,
    Scheduler, SequentialScheduler, StepScheduler)

__all__ = ["WeightDecayScheduler", "ConstantWD", "PolynomialWD", "LinearWD", "ExponentialWD",
           "InverseExponentialTimeDecayWD", "InverseSquareRootDecayWD", "CosineDecayWD",
           "SequentialWD", "PiecewiseConstantWD", "MultiStepWD", "StepWD", "CosineAnnealingWD",
           "LambdaWD", "CosineAnnealingWarmRestartsWD", "MultiplicativeWD", "ChainedWD",
           "CyclicWD", "OneCycleWD", "ScalePerParamWD"]


class WeightDecayScheduler(S.Scheduler):
    """Base of the weight-decay schedulers (``param_group_key == "weight_decay"``)."""

    @property
    def param_group_key(self):
        return "weight_decay"


class ConstantWD(WeightDecayScheduler, S.ConstantScheduler):
    """Constant weight decay ``val``."""


class PolynomialWD(WeightDecayScheduler, S.PolynomialScheduler):
    """Polynomial decay from ``initial_val`` to ``end_val``."""


class LinearWD(WeightDecayScheduler, S.LinearScheduler):
    """Linear interpolation from ``initial_val`` to ``end_val``."""


class ExponentialWD(WeightDecayScheduler, S.ExponentialScheduler):
    """``initial_val · decay_rate^(t/total_iters)``."""


class InverseExponentialTimeDecayWD(WeightDecayScheduler,
                                    S.InverseExponentialTimeDecayScheduler):
    """``initial_val / (1 + decay_rate · t^step_exponent / total_iters)``."""


class InverseSquareRootDecayWD(WeightDecayScheduler, S.InverseSquareRootDecayScheduler):
    """``initial_val · scale / √max(t, warmup_steps)``."""


class CosineDecayWD(WeightDecayScheduler, S.CosineDecayScheduler):
    """Half-cosine decay from ``initial_val`` to ``end_val``."""


class SequentialWD(WeightDecayScheduler, S.SequentialScheduler):
    """Weight-decay schedulers run one after the other at ``milestones``."""


class PiecewiseConstantWD(WeightDecayScheduler, S.PiecewiseConstantScheduler):
    """``vals[j]`` between ``milestones[j-1]`` and ``milestones[j]``."""

    def __init__(self, optimizer, vals, milestones, param_group_tags=None):
        super().__init__(optimizer, ConstantWD, vals=vals, milestones=milestones,
                         param_group_tags=param_group_tags)


class MultiStepWD(WeightDecayScheduler, S.MultiStepScheduler):
    """``initial_val · gamma^(milestones passed)``."""


class StepWD(WeightDecayScheduler, S.StepScheduler):
    """``initial_val · gamma^⌊t/step_size⌋``."""


class CosineAnnealingWD(WeightDecayScheduler, S.CosineAnnealingScheduler):
    """Cosine annealing with period ``2·T_max``."""


class LambdaWD(WeightDecayScheduler, S.LambdaScheduler):
    """``Π_k initial_val·λ_k(t)``."""


class CosineAnnealingWarmRestartsWD(WeightDecayScheduler,
                                    S.CosineAnnealingWarmRestartsScheduler):
    """Cosine annealing over ``T_0`` steps, then cstorch's square wave."""


class MultiplicativeWD(WeightDecayScheduler, S.MultiplicativeScheduler):
    """``initial_val · coefficient^t``."""


class ChainedWD(WeightDecayScheduler, S.ChainedScheduler):
    """Product of weight-decay schedulers sharing one step count."""


class CyclicWD(WeightDecayScheduler, S.CyclicScheduler):
    """Cyclical weight decay between ``base_val`` and ``max_val``."""


class OneCycleWD(WeightDecayScheduler, S.OneCycleScheduler):
    """The 1cycle policy applied to weight decay."""


class ScalePerParamWD(WeightDecayScheduler, S.ScalePerParamScheduler):
    """Scales a wrapped scheduler's value per group by the group's ``adjust_val``."""
