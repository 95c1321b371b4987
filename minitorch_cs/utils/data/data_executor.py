"""``DataExecutor``: one run of ``num_steps`` steps over a cstorch DataLoader, and its run context.

Iterating an executor: make the artifact dir, push the executor, enter the run context (step -1:
``on_run_start`` drains closures queued before the loop; then step 0), then per step yield the
batch (``on_batch_start``) and, when the loop body returns, ``on_batch_end`` (which drains the
step-closure queue). The loader is re-iterated from the start when exhausted (epochs wrap) until
``num_steps`` batches were produced. The real CSX backend reads only the first batch on the user
node (the real data streams from worker nodes); the emulated one reads every batch, which is what
its workers would have streamed, and replays the step on it (SPEC.md, CSX).
"""
from __future__ import annotations

import atexit
import copy
import math
import warnings
import weakref

from ...backend import current_backend_impl
from ...backend.base_backend import NO_EXECUTOR
from ..profiler import Profiler
from .dataloader import DataLoader
from .utils import Schedule

__all__ = ["DataExecutor", "RunContext", "current_executor"]



def _check_int(name, value, lower):
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f'Expected {name} to be have "int" or "None" type. Got: "{type(value)}"')
    if value < lower:
        raise RuntimeError(f'Expected {name} to be an integer >= {lower} or "None". Got: {value}')


class RunContext:
    """Step counters of one executor run (``step`` is -1 before the first batch)."""

    def __init__(self, dataloader, num_steps, checkpoint_schedule, activation_steps,
                 profiler_activities=None):
        if not isinstance(dataloader, DataLoader):
            raise TypeError(
                "Detected that dataloader was not wrapped using a cstorch.utils.data.DataLoader.\n"
                "Please wrap your dataloader in a Cerebras Dataloader:\n\n\tdataloader = "
                "cstorch.utils.data.DataLoader(input_fn, ...)\n\nwhere `input_fn` is a callable "
                "that returns a PyTorch dataloader. For more details, please see the "
                "documentation for cstorch.utils.data.DataLoader.")
        self.dataloader = dataloader
        self.num_steps = num_steps
        self.checkpoint_schedule = checkpoint_schedule
        self.activation_steps = activation_steps
        self.step = -1
        self.profiler = None
        self.profiler_activities = profiler_activities

    is_pre_initial_step = property(lambda self: self.step < 0)
    is_initial_step = property(lambda self: self.step == 0)
    is_final_step = property(lambda self: self.user_iteration >= self.num_steps)
    is_checkpoint_step = property(lambda self: self.checkpoint_schedule.match(self.step))
    iteration = property(lambda self: self.step)
    user_iteration = property(lambda self: self.step + 1)

    @property
    def is_activation_step(self) -> bool:
        return self.user_iteration % self.activation_steps == 0 or self.is_final_step

    def __len__(self) -> int:
        return self.num_steps


class DataExecutor:
    """Defines one run: ``DataExecutor(dataloader, num_steps=None, checkpoint_steps=None,
    activation_steps=None, profiler_activities=None)``."""

    def __init__(self, dataloader, num_steps=None, checkpoint_steps=None, activation_steps=None,
                 profiler_activities=None):
        self.dataloader = dataloader
        self.backend = current_backend_impl()
        self._artifact_dir = None
        if not self.backend.is_e2e_execution:
            if num_steps and num_steps > 1:
                warnings.warn("Specified num_steps > 1 when backend was configured for "
                              "compile/validate only. Setting num_steps to 1.")
            num_steps = 1
        elif num_steps is None:
            try:
                num_steps = len(dataloader)
            except TypeError:
                raise RuntimeError(
                    "Could not infer the number of steps as the length of the dataloader is not "
                    "known. Please provide num_steps to the data executor") from None
        elif num_steps < 1:
            raise RuntimeError(f"Expected num_steps >= 1, but got {num_steps}.")
        _check_int("activation_steps", activation_steps, 1)
        activation_steps = min(num_steps, activation_steps or 1) if num_steps else 1
        if isinstance(checkpoint_steps, int) and not isinstance(checkpoint_steps, bool):
            _check_int("checkpoint_steps", checkpoint_steps, 0)
            if checkpoint_steps:
                checkpoint_steps = Schedule([Schedule.Range(
                    start=min(checkpoint_steps - 1, num_steps - 1), end=num_steps,
                    step=checkpoint_steps, include_last=True)])
            else:
                checkpoint_steps = Schedule([])
        if isinstance(checkpoint_steps, Schedule):
            schedule = copy.deepcopy(checkpoint_steps)
            aligned = math.gcd(activation_steps, *[s + 1 for r in schedule.range() for s in r])
            if aligned != activation_steps:
                warnings.warn(f"Activation frequency was reduced from {activation_steps} to "
                              f"{aligned} because of the checkpoint schedule.")
                activation_steps = aligned
        elif checkpoint_steps is None:
            schedule = Schedule([])
        else:
            raise ValueError(f"checkpoint_steps must be None, integer, or a Schedule, but got "
                             f"{checkpoint_steps}.")
        self.run_context = RunContext(dataloader, num_steps, schedule, activation_steps,
                                      profiler_activities)

    def __len__(self) -> int:
        return self.run_context.num_steps

    iteration = property(lambda self: self.run_context.iteration)
    user_iteration = property(lambda self: self.run_context.user_iteration)
    is_initial_step = property(lambda self: self.run_context.is_initial_step)
    on_final_iteration = property(lambda self: self.run_context.is_final_step)
    profiler = property(lambda self: self.run_context.profiler)

    @property
    def artifact_dir(self):
        if self._artifact_dir is None:
            raise RuntimeError("DataExecutor must be iterated before having an artifact directory.")
        return self._artifact_dir

    def _batches(self):
        """Batches forever: the loader is re-iterated from the start when exhausted."""
        while True:
            it = iter(self.dataloader)
            try:
                first = next(it)
            except StopIteration:
                raise RuntimeError(
                    "Iterating the dataloader did not return any values. This is possibly because "
                    "the dataset is too small for the specified batch_size or drop_last settings. "
                    "Please make sure that the dataloader is able to generate at least one "
                    "batch.") from None
            yield first
            yield from it

    def __iter__(self):
        run = self._run()
        _UNFINISHED.add(run)
        return run

    def _run(self):
        backend = self.backend
        ctx = self.run_context
        self._artifact_dir = backend.new_executor_dir()
        backend.executors.append(self)
        prev_ctx = backend.run_context
        backend.run_context = ctx
        try:
            ctx.step = -1
            backend.on_run_start()
            ctx.step = 0
            if backend.is_e2e_execution:
                # cstorch 2.10: the rate tracker's clock starts in a step closure queued here
                ctx.profiler = Profiler(outdir=self._artifact_dir,
                                        activities=ctx.profiler_activities)
                ctx.profiler.__enter__()
            if ctx.num_steps > 0:
                for batch in self._batches():
                    yield backend.on_batch_start(batch)
                    # the step has run: count its samples before the step closures see them
                    if ctx.profiler is not None:
                        ctx.profiler.step(self.dataloader.batch_size)
                    backend.on_batch_end()
                    ctx.step += 1
                    if ctx.step >= ctx.num_steps:
                        break
        except BaseException as e:
            self._end_run(backend, ctx, prev_ctx, e)
            raise
        self._end_run(backend, ctx, prev_ctx, None)

    def _end_run(self, backend, ctx, prev_ctx, exc):
        try:
            backend.on_run_end()
        finally:
            backend.executors.pop()
            backend.run_context = prev_ctx if backend.executors else ctx
            if ctx.profiler is not None:
                ctx.profiler.__exit__(type(exc) if exc else None, exc, None)


# Runs a script left unfinished (a ``break`` out of the loop, an exception, a loop variable kept
# to the end) are ended when the interpreter exits, before it tears its modules down: the
# backend's run ends and the profiler writes ``performance.json``, as when the generator is
# closed earlier. (Left to the final garbage collection, the profiler found ``open`` gone and
# logged an error.)
_UNFINISHED: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _end_unfinished_runs() -> None:
    for run in list(_UNFINISHED):
        run.close()


def current_executor() -> DataExecutor:
    """The innermost active executor (RuntimeError if none)."""
    impl = current_backend_impl()
    if not impl.executors:
        raise RuntimeError(NO_EXECUTOR)
    return impl.executors[-1]
