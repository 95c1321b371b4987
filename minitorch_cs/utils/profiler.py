"""``cstorch.utils.profiler``: what ``executor.profiler`` tracks during a run (cstorch 2.10).

A :class:`DataExecutor` of an end-to-end run (not compile/validate-only) creates a
:class:`Profiler` when it starts iterating (``executor.profiler`` is None before, and stays set
after the run). After every step, before the step closures run, the profiler adds the step's
batch size to each activity. An activity is read as an attribute named after it:
``executor.profiler.rate_tracker`` computes and returns the :class:`RateTrackerActivity`, whose
``total_samples`` (a float), ``total_time`` (seconds), ``rate`` (smoothed samples/s since the
previous read), ``global_rate`` and ``samples_per_sec`` (unsmoothed, since the start) and
``flops_utilization`` (None: there is no wafer to measure) are the values computed at that read.
Its clock starts in a step closure queued when the run starts, so it starts after the first step
(on the wafer: after compilation). When the run ends, the computed values are written to
``<executor artifact dir>/performance.json``.

``DataExecutor(profiler_activities=[...])`` replaces the default ``[RateTrackerActivity]`` with
other :class:`Activity` subclasses (an empty list tracks nothing).
"""
from __future__ import annotations

import copy
import json
import logging
import os
from abc import ABC, abstractmethod
from typing import Any

from .step_closures import step_closure
from .tracker import RateTracker

__all__ = ["Profiler", "Activity", "RateTrackerActivity"]


class Profiler:
    """Tracks activities during one executor run; read them as attributes (see the module doc).

    Raises:
        TypeError: an activity that is not an :class:`Activity` subclass.
        ValueError: an activity without a name, two with one name, or a reserved name.
    """

    def __init__(self, outdir, activities=None):
        self.outdir = outdir
        self._activity_classes = activities if activities is not None else [RateTrackerActivity]
        self._activities = None
        names = set()
        for activity in self._activity_classes:
            if not (isinstance(activity, type) and issubclass(activity, Activity)):
                raise TypeError(f"Expected activity to be a subclass of Activity, got "
                                f"{type(activity)}")
            name = activity.name() if callable(getattr(activity, "name", None)) else None
            if not name:
                raise ValueError(f"Activity {activity} does not have a name")
            if name in names:
                raise ValueError(f'Activity with name "{name}" already exists.')
            if name in self.__dict__:
                raise ValueError(f'"{name}" is a reserved keyword. Please use a different name '
                                 "for the activity.")
            names.add(name)

    def __enter__(self):
        self._activities = {a.name(): a() for a in self._activity_classes}
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        try:
            self._save_perf()
        except Exception as e:  # noqa: BLE001
            logging.error(f"Failed to save performance data:\n{e}")
            if exc_type is None:
                raise

    def __getattr__(self, name):
        activities = self.__dict__.get("_activities")
        if activities and name in activities:
            activity = activities[name]
            activity()
            return activity
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def step(self, batch_size) -> None:
        """Add one step's ``batch_size`` to every activity."""
        if self._activities is None:
            raise RuntimeError("Attempting to step the profiler when it has not been started. ")
        for activity in self._activities.values():
            activity.update(batch_size)

    def _save_perf(self) -> None:
        if len(self._activities) == 1:
            data = next(iter(self._activities.values()))()
        else:
            data = {name: activity() for name, activity in self._activities.items()}
        os.makedirs(self.outdir, exist_ok=True)
        with open(os.path.join(self.outdir, "performance.json"), "w") as f:
            json.dump(data, f, sort_keys=True, indent=4)


class Activity(ABC):
    """One thing a :class:`Profiler` tracks: ``name()``, ``update(batch_size)``, ``compute()``;
    calling the activity computes it."""

    @classmethod
    @abstractmethod
    def name(cls) -> str:
        """The attribute name of this activity on the profiler."""

    @abstractmethod
    def update(self, batch_size) -> None:
        """Account for one step of ``batch_size`` samples."""

    @abstractmethod
    def compute(self) -> Any:
        """The activity's current value."""

    def __call__(self) -> Any:
        return self.compute()

    def __str__(self) -> str:
        return str(self.compute())


def _computed(key):
    return property(lambda self: self._compute_property(key))


class RateTrackerActivity(Activity):
    """Samples and rates of the run (``executor.profiler.rate_tracker``)."""

    total_samples = _computed("total_samples")
    total_time = _computed("total_time")
    rate = _computed("rate")
    global_rate = _computed("global_rate")
    samples_per_sec = _computed("samples_per_sec")
    flops_utilization = _computed("flops_utilization")

    def __init__(self):
        self._tracker = RateTracker()
        self._cached_result = None
        self.reset_time()

    def _compute_property(self, key):
        if self._cached_result is None:
            raise RuntimeError(
                f'Attempting to access "{key}" from {type(self).__name__} before it\'s computed. '
                "You can compute the activity by calling it (i.e., `activity()`), or by "
                "registering it to a profiler object which will automatically call the activity "
                "when appropriate.")
        return self._cached_result[key]

    @classmethod
    def name(cls) -> str:
        return "rate_tracker"

    @step_closure
    def reset_time(self) -> None:
        """Restart the clock (in a step closure: after the first step, i.e. after compile)."""
        self._tracker.reset_time(offset=0)

    def update(self, batch_size) -> None:
        if batch_size:
            self._tracker.add(batch_size)
        self._cached_result = None

    def compute(self) -> dict:
        if self._cached_result is None:
            global_rate = self._tracker.global_rate()
            self._cached_result = {
                "total_samples": self._tracker.total_count,
                "total_time": self._tracker.elapsed_seconds(),
                "rate": self._tracker.rate(),
                "global_rate": global_rate,
                "samples_per_sec": global_rate,
                "flops_utilization": None,
            }
        return copy.deepcopy(self._cached_result)
