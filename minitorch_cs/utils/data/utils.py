"""``Schedule`` (0-based step sets), ``compute_num_steps`` and batch-size inference."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

from ...torch import Tensor

__all__ = ["Schedule", "compute_num_steps", "infer_batch_size"]


@dataclass
class Schedule:
    """A set of 0-based steps made of non-overlapping ``Range`` intervals."""

    @dataclass
    class Range:
        """Steps ``start, start+step, ... < end`` plus ``end-1`` when ``include_last``."""

        start: int
        end: int
        step: int = 1
        include_last: bool = False

        def __post_init__(self):
            if not isinstance(self.start, int) or isinstance(self.start, bool) or self.start < 0:
                raise ValueError(f"start ({self.start}) must an integer >= 0.")
            if not isinstance(self.end, int) or self.end <= self.start:
                raise ValueError(f"end ({self.end}) must be an integer greater than start "
                                 f"{self.start}.")
            if not isinstance(self.step, int) or self.step < 1:
                raise ValueError(f"step ({self.step}) must be an integer greater than zero.")
            if not isinstance(self.include_last, bool):
                raise ValueError(f"include_last must be a bool, got {type(self.include_last)}")

        def match(self, index: int) -> bool:
            if not self.start <= index < self.end:
                return False
            return (index - self.start) % self.step == 0 or (self.include_last and
                                                              index == self.end - 1)

        def range(self):
            return range(self.start, self.end, self.step)

        def __iter__(self):
            yield from self.range()
            if self.include_last and (self.end - 1 - self.start) % self.step:
                yield self.end - 1

        def __len__(self) -> int:
            n = len(self.range())
            return n + 1 if self.include_last and (self.end - 1 - self.start) % self.step else n

        @property
        def final_step(self) -> int:
            return self.end - 1 if self.include_last else self.range()[-1]

        def next_immediate_step(self, target: int) -> int:
            if target > self.final_step:
                raise ValueError(f"Target {target} exceeds the last interval step {self.final_step}")
            if target <= self.start:
                return self.start
            k = -(-(target - self.start) // self.step)
            return min(self.start + k * self.step, self.final_step)

    intervals: list = field(default_factory=list)

    def __post_init__(self):
        if any(not isinstance(i, Schedule.Range) for i in self.intervals):
            raise ValueError(f"interval must of type {Schedule.Range}")
        for a, b in zip(self.intervals, self.intervals[1:]):
            if b.start < a.end:
                raise ValueError(f"Intervals must be non-overlapping ranges, but got "
                                 f"{self.intervals}.")

    def match(self, index: int) -> bool:
        return any(i.match(index) for i in self.intervals)

    def __iter__(self):
        for i in self.intervals:
            yield from i

    def range(self):
        return [i.range() for i in self.intervals]

    def __len__(self) -> int:
        return sum(len(i) for i in self.intervals)

    @property
    def start(self):
        return self.intervals[0].start if self.intervals else None

    @property
    def final_step(self):
        return self.intervals[-1].final_step if self.intervals else None

    def next_immediate_step(self, target: int):
        if not self.intervals:
            return None
        if target > self.final_step:
            raise ValueError(f"Target {target} exceeds the last interval step {self.final_step}")
        for i in self.intervals:
            if target <= i.final_step:
                return i.next_immediate_step(target)
        return None


def _check_steps(name, value, allow_none=False, allow_zero=False):
    if value is None:
        if not allow_none:
            raise ValueError(f"`{name}` cannot be None.")
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"`{name}` must be an integer, but got {type(value)}.")
    if value == 0 and not allow_zero:
        raise ValueError(f"`{name}` must be greater than zero.")
    if value < 0:
        raise ValueError(f"`{name}` cannot be negative, but got {value}.")


def compute_num_steps(dataloader, initial_step=0, num_steps=None, max_steps=None, num_epochs=None,
                      steps_per_epoch=None, grad_accum_steps=1) -> int:
    """How many steps to run: the smallest of the epoch, step and max-step limits given."""
    if num_epochs is not None and num_steps is not None:
        raise ValueError("Only one of `num_epochs` or `num_steps` can be specified.")
    _check_steps("initial_step", initial_step, allow_zero=True)
    _check_steps("num_steps", num_steps, allow_none=True)
    _check_steps("max_steps", max_steps, allow_none=True)
    _check_steps("num_epochs", num_epochs, allow_none=True)
    _check_steps("steps_per_epoch", steps_per_epoch, allow_none=True)
    _check_steps("grad_accum_steps", grad_accum_steps)
    try:
        size = len(dataloader)
    except TypeError:
        if num_epochs is not None:
            raise ValueError("Specifying num_epochs for datasets with unknown length is not "
                             "allowed. Please control training behavior through number of steps "
                             "instead.") from None
        steps_per_epoch = 1
    else:
        if size <= 0:
            raise AssertionError("Dataloader does not generate any batches.")
        if steps_per_epoch is not None:
            if steps_per_epoch > size:
                raise ValueError(f"The requested steps per epoch of {steps_per_epoch} exceeds "
                                 f"total steps in an epoch, which is {size}.")
        else:
            steps_per_epoch = size
        if grad_accum_steps > steps_per_epoch:
            raise ValueError(f"Gradient accumulation steps of {grad_accum_steps} is greater than "
                             f"batches per epoch of {steps_per_epoch}.")
        steps_per_epoch //= grad_accum_steps
    total = math.inf
    if num_epochs is not None:
        total = min(total, num_epochs * steps_per_epoch)
    if num_steps is not None:
        total = min(total, num_steps)
    if max_steps is not None:
        remaining = max_steps - initial_step
        if remaining <= 0:
            raise RuntimeError(f"Initial global step {initial_step} already exceeds max step "
                               f"{max_steps}.")
        total = min(total, remaining)
    if math.isinf(total):
        raise ValueError("One of num_epochs, num_steps, or max_steps must be provided")
    return total


def infer_batch_size(data, batch_size=None, strict=False):
    """The common leading dimension of every tensor in a batch (None if they disagree)."""
    if type(data) in (tuple, list) and data and all(type(t) is Tensor for t in data):
        tensors = data  # the common batch, a flat tuple of tensors: no structure walk
    else:
        from ..nest import visit_torch_tensors
        tensors = [t for _, t in visit_torch_tensors(data)]
    sizes = {t._data.shape[0] if t._data.ndim else 1 for t in tensors}
    if not sizes:
        raise RuntimeError(
            "We could not detect any torch tensors in the input data returned by the dataloader. "
            "We expect the dataloader to return a nested dict/list/tuple of tensors.")
    if len(sizes) > 1:
        if strict:
            raise RuntimeError(f"Only uniform batch sizes are supported in CS runs, but the "
                               f"dataloader returned a batch with batch sizes {sizes}. ")
        warnings.warn(f"Detected non-uniform batch sizes within the same batch: {sizes}. While "
                      "this is allowed in non-CSX runs, it may throw off metrics such as rate "
                      "profiling. The run will proceed assuming no batch size.")
        return None
    size = sizes.pop()
    if batch_size is not None and size != batch_size:
        if strict:
            raise RuntimeError(f"Only uniform batch sizes are supported in CS runs, but the "
                               f"dataloader returned two different batches with batch sizes "
                               f"{batch_size} and {size}. Make sure to set `drop_last=True` in "
                               "the dataloader.")
        warnings.warn(f"Detected non-uniform batch sizes between batches ({batch_size} vs {size}). "
                      "While this is allowed in non-CSX runs, it may throw off metrics such as "
                      "rate profiling. ")
    return size
