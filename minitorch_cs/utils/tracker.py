"""``cstorch.utils.tracker.RateTracker``: samples per second, smoothed and global.

``add(n)`` counts samples. ``rate()`` is the rate of the samples added since the previous
``rate()`` call, exponentially smoothed with the previous reported rate
(``(1 - s) * current + s * previous``, ``s = 0.4`` by default; the first report is unsmoothed);
``global_rate()`` is ``total_count / elapsed_seconds()`` without smoothing. Times come from
``time.perf_counter_ns``; a zero interval reports 0.0. (cstorch 2.10's tracker, itself an
adaptation of torch_xla's.)
"""
from __future__ import annotations

import time

__all__ = ["RateTracker"]


class RateTracker:
    def __init__(self, smooth_factor=None):
        self._smooth_factor = 0.4 if smooth_factor is None else smooth_factor
        self.reset()

    def reset(self) -> None:
        """Forget every sample and restart the clock."""
        self.reset_time()
        self._partial_count = 0.0
        self._partial_rate = None
        self._count = 0.0

    def reset_time(self, offset: float = 0) -> None:
        """Restart the clock, ``offset`` seconds in the past."""
        self._start_time = time.perf_counter_ns() - offset * 1e9
        self._partial_time = self._start_time

    def add(self, count) -> None:
        """Count ``count`` more samples."""
        self._count += count

    @property
    def total_count(self) -> float:
        """Samples counted since the last reset."""
        return self._partial_count + self._count

    def rate(self) -> float:
        """Smoothed samples/second of the samples added since the previous call."""
        now = time.perf_counter_ns()
        delta = (now - self._partial_time) / 1e9
        if delta <= 0:
            return 0.0
        current = self._count / delta
        rate = current if self._partial_rate is None else (
            (1 - self._smooth_factor) * current + self._smooth_factor * self._partial_rate)
        self._partial_count += self._count
        self._count = 0.0
        self._partial_time = now
        self._partial_rate = rate
        return rate

    def global_rate(self) -> float:
        """Samples/second since the last reset (not smoothed)."""
        delta = self.elapsed_seconds()
        return self.total_count / delta if delta > 0 else 0.0

    def elapsed_seconds(self) -> float:
        """Seconds since the last reset."""
        return (time.perf_counter_ns() - self._start_time) / 1e9
