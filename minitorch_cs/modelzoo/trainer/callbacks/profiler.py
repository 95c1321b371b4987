"""Throughput and time-remaining callbacks: ``RateProfiler`` and ``DurationProfiler``.

Both measure on the host, in step closures, i.e. when a step's values are available (the same
place the real ones measure on the user node).
"""
from __future__ import annotations

import time
from collections import defaultdict, deque

import minitorch_cs as cstorch
from minitorch_cs.utils.data import infer_batch_size

from .callback import Callback

__all__ = ["RateTracker", "Profiler", "RateProfiler", "DurationProfiler", "TimeRemaining"]


class RateTracker:
    """Samples per second: a smoothed recent rate and the global rate since ``reset``."""

    def __init__(self, smoothing: float = 0.4):
        self.smoothing = smoothing
        self.reset()

    def reset(self):
        self.start = time.perf_counter()
        self._last = self.start
        self.total_count = 0
        self._rate = None
        self._adds = 0

    def add(self, count):
        now = time.perf_counter()
        dt = now - self._last
        self._last = now
        self.total_count += count
        self._adds += 1
        # The first add after a reset only marks the time: right after a reset its interval
        # is ~0 and would dominate the smoothed rate.
        if dt > 0 and self._adds > 1:
            inst = count / dt
            self._rate = inst if self._rate is None else (
                self.smoothing * inst + (1 - self.smoothing) * self._rate)

    def rate(self) -> float:
        return self._rate or 0.0

    def global_rate(self) -> float:
        dt = self.elapsed_seconds()
        return self.total_count / dt if dt > 0 else 0.0

    def elapsed_seconds(self) -> float:
        return self._last - self.start


class Profiler(Callback):
    """Base of profilers: ``perf_metrics`` summarizes what was measured."""

    @property
    def perf_metrics(self) -> dict:
        return {}


class RateProfiler(Profiler):
    """Logs ``local_samples_per_sec``, ``avg_samples_per_sec`` and ``avg_steps_per_sec``."""

    def __init__(self):
        self.rate_tracker = RateTracker()

    @property
    def rate(self) -> float:
        return self.rate_tracker.rate()

    @property
    def global_rate(self) -> float:
        return self.rate_tracker.global_rate()

    @property
    def elapsed_seconds(self) -> float:
        return self.rate_tracker.elapsed_seconds()

    @property
    def total_count(self) -> int:
        return self.rate_tracker.total_count

    @property
    def perf_metrics(self):
        return {"total_samples": self.total_count, "total_time": self.elapsed_seconds,
                "rate": self.rate, "global_rate": self.global_rate,
                "samples_per_sec": self.global_rate}

    @cstorch.step_closure
    def conditional_reset(self, trainer):
        # Reset on the first step's values, so the rate excludes compile/setup time.
        if trainer.is_first_iteration:
            self.rate_tracker.reset()

    @cstorch.step_closure
    def update(self, count):
        if count is not None:
            self.rate_tracker.add(count)

    def on_enter_validate(self, trainer, stack, val_dataloader, loop):
        setattr(self, loop.on_batch_end_hook, self.on_validate_batch_end)

    def on_before_forward(self, trainer, model, batch, args, kwargs):
        self.conditional_reset(trainer)
        self.update(infer_batch_size(batch))

    def on_train_batch_end(self, trainer, model, outputs, batch, batch_idx):
        self.on_batch_end(trainer, infer_batch_size(batch))

    def on_validate_batch_end(self, trainer, model, outputs, batch, batch_idx):
        self.on_batch_end(trainer, infer_batch_size(batch))

    @cstorch.step_closure
    def on_batch_end(self, trainer, batch_size):
        metrics = {"local_samples_per_sec": self.rate, "avg_samples_per_sec": self.global_rate}
        if batch_size:
            metrics["avg_steps_per_sec"] = metrics["avg_samples_per_sec"] / batch_size
        trainer.log_metrics(**metrics)


class TimeRemaining(float):
    """Seconds, printed as ``H:MM:SS``; ``stages_missing_duration`` marks a lower bound."""

    def __new__(cls, value, stages_missing_duration=False):
        obj = super().__new__(cls, value)
        obj.stages_missing_duration = stages_missing_duration
        return obj

    def __str__(self):
        s = int(round(float(self)))
        return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


class DurationProfiler(Callback):
    """Logs ``loop_time_remaining`` (the current stage) and ``time_remaining`` (the run): the
    mean duration of the last 100 batches of each stage times the batches still to run. Stages
    not run yet count as unknown, making ``time_remaining`` a lower bound."""

    def __init__(self):
        self.schedule = None
        self.batch_durations = defaultdict(lambda: deque(maxlen=100))
        self._last = None

    def pre_setup(self, trainer):
        self.schedule = trainer.schedule

    def on_train_start(self, trainer, model, train_dataloader, loop, loop_idx):
        self._last = None

    def on_validate_start(self, trainer, model, val_dataloader, loop):
        self._last = None

    def on_enter_validate(self, trainer, stack, val_dataloader, loop):
        setattr(self, loop.on_start_hook, self.on_validate_start)
        setattr(self, loop.on_batch_end_hook, self.on_validate_batch_end)

    def on_train_batch_end(self, trainer, model, outputs, batch, batch_idx):
        self.on_batch_end(trainer)

    def on_validate_batch_end(self, trainer, model, outputs, batch, batch_idx):
        self.on_batch_end(trainer)

    @cstorch.step_closure
    def on_batch_end(self, trainer):
        now = time.perf_counter()
        stage = self.schedule.current_stage
        if self._last is not None:
            self.batch_durations[stage.name].append(now - self._last)
        self._last = now
        trainer.log_metrics(loop_time_remaining=self.loop_time_remaining(),
                            time_remaining=self.time_remaining())

    def _mean(self, name):
        d = self.batch_durations.get(name)
        return sum(d) / len(d) if d else None

    def loop_time_remaining(self):
        mean = self._mean(self.schedule.current_stage.name)
        if mean is None or self.schedule.batch_idx is None:
            return None
        return TimeRemaining(mean * self.schedule.batches_remaining)

    def time_remaining(self):
        current = self.loop_time_remaining()
        if current is None:
            return None
        total, missing = float(current), False
        for stage in self.schedule.stages_remaining:
            mean = self._mean(stage.name)
            if mean is None or not stage.steps:
                missing = True
                continue
            total += mean * stage.steps
        return TimeRemaining(total, stages_missing_duration=missing)
