"""``Metric``: a module whose (non-persistent by default) buffers accumulate a statistic.

Calling a metric updates it and returns ``compute()``. The computed value is cached until the next
``update``; the cache is refreshed by a step closure, so after a step it holds real values (on the
emulated wafer it is the step's output handle). ``float(metric)`` gives the current value.
"""
from __future__ import annotations

import abc
import functools
from collections import defaultdict

from ..torch.nn import Module
from ..utils.step_closures import step_closure

__all__ = ["Metric", "get_all_metrics"]

_EMPTY = object()


class Metric(Module, abc.ABC):
    """Subclasses implement ``reset`` (registering state), ``update`` and ``compute``."""

    registry = defaultdict(list)
    # On the emulated wafer the cached result a traced step computes is refreshed after every
    # replayed step (the step closure compute() queues does the same with the values).
    _capture_recomputed = ("_cached_result",)
    # Host bookkeeping: the traced step body runs once on the wafer, so it counts that run.
    _capture_host_state = ("_num_updates",)

    def __init__(self, name: str):
        super().__init__()
        self.name = name
        self._num_updates = 0
        self._cached_result = _EMPTY
        Metric.registry[name].append(self)
        self._wrap_methods()
        self.reset()

    @property
    def num_updates(self) -> int:
        return self._num_updates

    @abc.abstractmethod
    def reset(self) -> None:
        """Reset the accumulated state."""

    @abc.abstractmethod
    def update(self, *args, **kwargs) -> None:
        """Accumulate a batch."""

    @abc.abstractmethod
    def compute(self):
        """The metric value from the accumulated state."""

    def register_state(self, name: str, tensor, persistent: bool = False) -> None:
        """Register ``tensor`` as state (a buffer; in ``state_dict`` only if ``persistent``)."""
        self.register_buffer(name, tensor, persistent=persistent)

    def forward(self, *args, **kwargs):
        self.update(*args, **kwargs)
        return self.compute()

    def _wrap_methods(self):
        reset, update, compute = self.reset, self.update, self.compute

        @functools.wraps(reset)
        def wrapped_reset(*args, **kwargs):
            r = reset(*args, **kwargs)
            self._num_updates = 0
            self._cached_result = _EMPTY
            return r

        @functools.wraps(update)
        def wrapped_update(*args, **kwargs):
            self._cached_result = _EMPTY
            r = update(*args, **kwargs)
            self._num_updates += 1
            return r

        @functools.wraps(compute)
        def wrapped_compute():
            from ..backend import use_cs
            if self._num_updates == 0 and use_cs():
                raise RuntimeError(f"Trying to compute metric `{self.name}`, but the metric has not "
                                   "been updated. This is currently not supported when running on "
                                   "CSX. ")
            if self._cached_result is not _EMPTY:
                return self._cached_result
            self._cached_result = compute()

            @step_closure
            def cache_result(result):
                self._cached_result = result
            cache_result(self._cached_result)
            return self._cached_result

        object.__setattr__(self, "reset", wrapped_reset)
        object.__setattr__(self, "update", wrapped_update)
        object.__setattr__(self, "compute", wrapped_compute)

    def __float__(self) -> float:
        return float(self.compute())


def get_all_metrics():
    """Yield ``(name, metric)`` for every metric created, suffixing ``.i`` for repeated names."""
    for name, metrics in Metric.registry.items():
        for i, m in enumerate(metrics):
            yield (f"{name}.{i}" if len(metrics) > 1 else name), m
