"""The Model Zoo ``Trainer`` (mirrors ``cerebras.modelzoo.Trainer``).

Everything the trainer does is a callback. The constructor builds the core callbacks in a fixed
order (artifact dir, seed, backend, model, optimizer, schedulers, precision, loop, logging, ...),
appends the user's callbacks and loggers, moves the run schedule and the checkpoint callback to
the end, and calls ``pre_setup``, ``setup`` and ``post_setup`` on all of them.

``fit`` loads a checkpoint (the latest one in ``model_dir`` unless told otherwise), then runs the
train stages of the run schedule, each in its own ``DataExecutor``, validating after each stage.
``training_step`` and ``validation_step`` are ``@cstorch.trace`` functions: on the emulated CSX
backend their Python (including every hook they call) runs on the first step of a stage only,
and later steps replay the captured graph.
"""
from __future__ import annotations

import contextlib
import copy as _copy
import os
import warnings
from collections import Counter, OrderedDict
from pathlib import Path
from weakref import finalize

import minitorch_cs as cstorch
from minitorch_cs import torch

from .callbacks import (GLOBAL_CALLBACK_REGISTRY, ArtifactDirCallback, AutoRestart,
                        BackendCallback, Callback, Checkpoint, CoreCallback, DataLoaderCallback,
                        EarlyExit, GradientAccumulationCallback, Logging, LoopCallback,
                        LossAccumulationCallback, MetricsHistory, ModelCallback,
                        OptimizerCallback, Precision, Reproducibility, RunSchedule,
                        SchedulersCallback, SparsityCallback, TrainingLoop, ValidationCallback,
                        ValidationLoop)
from .loggers import Logger

__all__ = ["Trainer", "convert_output_to_dict"]


def convert_output_to_dict(output):
    """The model's output as a dict: a one-element tensor is ``{"loss"}``, another tensor
    ``{"output"}``, a pair ``{"loss", "logits"}``; a dict is kept."""
    if isinstance(output, torch.Tensor):
        return {"loss": output} if output.numel() == 1 else {"output": output}
    if isinstance(output, (list, tuple)):
        loss, logits = output
        return {"loss": loss, "logits": logits}
    if isinstance(output, dict):
        return output
    raise TypeError(f"Output must be a torch.Tensor or dict. Got: {type(output)}")


def _fresh(dataloader):
    """A copy of a cstorch DataLoader that builds its own inner loader, so every validation run
    iterates from the start (the real trainer's shallow copy makes the streamer start anew)."""
    dl = _copy.copy(dataloader)
    dl._loader = None
    dl._pending_state = None
    return dl


class Trainer:
    """Trains and validates a model with callbacks (see the module doc).

    Args:
        device: "CSX", "CPU" or "GPU" (exclusive with ``backend``).
        backend: a ``cstorch.backend(...)`` object (exclusive with ``device``).
        model_dir: where checkpoints, logs and summaries go (required).
        model: an ``nn.Module``, or a zero-argument callable returning one, called inside
            ``with backend.device:`` (required). A callable model needs a callable optimizer.
        optimizer: a ``cstorch.optim.Optimizer``, a callable ``(model) -> Optimizer``, or None.
        schedulers: a Scheduler, a callable ``(optimizer) -> Scheduler``, a list of them, or None.
        precision: a ``Precision`` callback (``MixedPrecision``), or None.
        sparsity: not supported (must be None).
        loop: a ``TrainingLoop`` (default ``TrainingLoop(num_epochs=1)``) or ``ValidationLoop``.
        checkpoint: a ``Checkpoint`` (default ``Checkpoint()``: autoload, no periodic saves).
        logging: a ``Logging`` (default ``Logging(log_steps=1, log_level="INFO")``).
        callbacks: user callbacks, called in this order after the core ones.
        loggers: ``Logger`` objects receiving ``log_metrics``.
        seed: ``torch.manual_seed(seed)`` before anything is built.
        autorestart: accepted for signature compatibility; only the disabled default works.
    """

    def __init__(self, device=None, backend=None, model_dir=..., model=..., optimizer=None,
                 schedulers=None, precision=None, sparsity=None, loop=None, checkpoint=None,
                 logging=None, callbacks=None, loggers=None, seed=None, autorestart=None):
        if model_dir is Ellipsis:
            raise ValueError("model_dir is a required argument")
        self.model_dir = Path(model_dir)
        if model is Ellipsis:
            raise ValueError("model is a required argument")
        if not isinstance(model, torch.nn.Module) and isinstance(optimizer,
                                                                 cstorch.optim.Optimizer):
            raise ValueError(f"Expected optimizer to be a callable that takes in a "
                             f"torch.nn.Module and returns a cstorch.optim.Optimizer. Got: "
                             f"{type(optimizer)}")
        self.executor = None
        self.activation_steps = None
        self.metadata = None
        if precision is not None and not isinstance(precision, Precision):
            raise TypeError(f"Expected precision to be an instance of Precision. Got: "
                            f"{type(precision)}")
        if loop is None:
            loop = TrainingLoop(num_epochs=1)
        elif not isinstance(loop, LoopCallback):
            raise TypeError(f"Expected loop to be an instance of LoopCallback.Got: {type(loop)}")
        if checkpoint is None:
            checkpoint = Checkpoint()
        elif not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"Expected checkpoint to be an instance of Checkpoint. Got: "
                            f"{type(checkpoint)}")
        if logging is None:
            logging = Logging(log_steps=1, log_level="INFO")
        elif not isinstance(logging, Logging):
            raise TypeError(f"Expected logging to be an instance of Logging. Got: "
                            f"{type(logging)}")
        if autorestart is None:
            autorestart = AutoRestart(max_num_restarts=None)
        elif not isinstance(autorestart, AutoRestart):
            raise TypeError(f"Expected autorestart to be an instance of AutoRestart. Got: "
                            f"{type(autorestart)}")

        # The order of the core callbacks matters and must not change.
        self.callbacks = OrderedDict({
            "autorestart": autorestart,
            "artifact_dir": ArtifactDirCallback(),
            "reproducibility": Reproducibility(seed),
            "backend": BackendCallback(backend, device),
            "model": ModelCallback(model),
            "dataloader": DataLoaderCallback(),
            "optimizer": OptimizerCallback(optimizer),
            "schedulers": SchedulersCallback(schedulers),
            "precision": precision,
            "sparsity": SparsityCallback(sparsity),
            "loop": loop,
            "logging": logging,
            "loss_accum": LossAccumulationCallback(),
            "grad_accum": GradientAccumulationCallback(),
            "run_schedule": RunSchedule(),
            "checkpoint": checkpoint,
            "early_exit": EarlyExit(),
            # Not in Model Zoo: keeps logged metrics for the end-of-fit plot.
            "metrics_history": MetricsHistory(),
        })
        user_callbacks = list(callbacks or [])
        for cb in user_callbacks:
            if isinstance(cb, Logger):
                warnings.warn(f"Passed logger {type(cb)} as a `callback`. It will not be used by "
                              f"trainer.log_metrics(). To use for logging metrics, pass it as a "
                              f"`logger` instead.")
        self.loggers = list(loggers or [])
        for lg in self.loggers:
            if not isinstance(lg, Logger):
                raise TypeError(f"logger must be an instance of Logger. Got: {type(lg)}")
        self._logger_destinations = {lg.name for lg in self.loggers}

        counter = Counter(self.callbacks.keys())
        for cb in user_callbacks + self.loggers:
            if isinstance(cb, CoreCallback):
                raise ValueError(f"Callback {type(cb).__name__} is a core callback and cannot be "
                                 f"overridden")
            if not isinstance(cb, Callback):
                raise TypeError(f"Expected callbacks to be instances of Callback. Got: "
                                f"{type(cb)}")
            name = type(cb).__name__
            counter[name] += 1
            self.callbacks[name if counter[name] == 1 else f"{name}_{counter[name]}"] = cb
        # The schedule reads state other callbacks update; checkpoints are slow: both go last.
        self.callbacks.move_to_end("run_schedule")
        self.callbacks.move_to_end("checkpoint")

        self.non_standard_hooks_whitelist = set()
        self._name_scope_stack = []
        self._val_dataloader_id_map = {}
        self._val_dataloader_id = 0

        self.call("pre_setup")
        self.call("setup")
        self.call("post_setup")
        self._finalizer = finalize(self, _finalize_callbacks, list(self.callbacks.values()))

    # -- callbacks --------------------------------------------------------------------------------
    @property
    def all_callbacks(self):
        yield from self.callbacks.values()
        yield from GLOBAL_CALLBACK_REGISTRY.values()

    def get_callbacks(self, callback_type):
        for cb in self.all_callbacks:
            if isinstance(cb, callback_type):
                yield cb

    def get_callback(self, callback_type):
        return next(self.get_callbacks(callback_type), None)

    def get_callback_name(self, callback) -> str:
        for name, cb in self.callbacks.items():
            if cb is callback:
                return name
        raise ValueError(f"Callback {type(callback).__name__} not found in the callback list")

    @property
    def validation_callbacks(self):
        return list(self.get_callbacks(ValidationCallback))

    def call(self, hook_name, *args, **kwargs):
        """Call ``hook_name(self, *args, **kwargs)`` on every callback in order.

        An exception is re-raised as RuntimeError naming the callback and hook (the original is
        its ``__cause__``). A callback without the hook raises AttributeError, unless the hook is
        a whitelisted non-standard validation hook.
        """
        seen = set()
        for cb in self.all_callbacks:
            if cb is None:
                continue
            if id(cb) in seen:
                warnings.warn(f"Duplicate callback found in the list: {cb}")
            seen.add(id(cb))
            hook = getattr(cb, hook_name, None)
            if hook:
                try:
                    hook(self, *args, **kwargs)
                except Exception as e:
                    raise RuntimeError(f"Encountered error when calling "
                                       f"{type(cb).__name__}.{hook_name}") from e
            elif hook_name not in self.non_standard_hooks_whitelist:
                raise AttributeError(f"Callback {type(cb)} does not implement {hook_name}")

    # -- named callbacks ----------------------------------------------------------------------
    precision = property(lambda self: self.callbacks["precision"])
    grad_accum = property(lambda self: self.callbacks["grad_accum"])
    autorestart = property(lambda self: self.callbacks["autorestart"])
    early_exit = property(lambda self: self.callbacks["early_exit"])
    schedule = property(lambda self: self.callbacks["run_schedule"])
    loop = property(lambda self: self.callbacks["loop"])
    checkpoint = property(lambda self: self.callbacks["checkpoint"])
    logging = property(lambda self: self.callbacks["logging"])
    metrics_history = property(lambda self: self.callbacks["metrics_history"])

    @property
    def should_run_optimizer_step(self) -> bool:
        """False on batches where gradients are only accumulated (CPU/GPU)."""
        return self.grad_accum.should_run_optimizer_step

    @property
    def logger(self):
        """The trainer's Python logger."""
        return self.logging.logger

    @property
    def is_log_step(self) -> bool:
        return self.logging.is_log_step(self)

    @property
    def is_first_iteration(self) -> bool:
        return bool(self.executor) and self.executor.iteration == 0

    @property
    def is_final_iteration(self) -> bool:
        return bool(self.executor) and self.executor.on_final_iteration

    @property
    def is_tracing(self) -> bool:
        return self.backend.is_tracing

    # -- metrics --------------------------------------------------------------------------------
    def remove_logger_destination(self, name: str):
        """Stop sending ``log_metrics`` to the logger named ``name`` by default."""
        self._logger_destinations -= {name}

    @cstorch.step_closure
    def log_metrics_in_step_closure(self, **kwargs):
        self.log_metrics_dict(**kwargs)

    def log_metrics(self, **kwargs):
        """Log ``name=value`` pairs to the loggers (deferred to a step closure while tracing)."""
        self.log_metrics_dict(metrics=kwargs)

    def log_metrics_dict(self, metrics, step=None, dest=None):
        if self.is_tracing:
            self.log_metrics_in_step_closure(metrics=metrics, step=step, dest=dest)
            return
        prefix = self.name_scope_path
        step = step if step is not None else self.global_step
        named = {f"{prefix}{k}": v for k, v in metrics.items()}
        self.metrics_history.record(named, step)
        if self.executor is not None and not self.is_log_step:
            return
        if not self.loggers:
            warnings.warn("No loggers are attached to the trainer. Call to trainer.log_metrics() "
                          "will be a no-op.")
            return
        if dest is not None:
            if isinstance(dest, str):
                dest = {dest}
            elif isinstance(dest, (list, tuple)):
                dest = set(dest)
            elif not isinstance(dest, set):
                raise TypeError(f"`dest` must be a string or a set of strings, got {type(dest)}")
            if not all(isinstance(d, str) for d in dest):
                raise TypeError("All elements in `dest` must be strings.")
        else:
            dest = self._logger_destinations
        matched = False
        for lg in self.loggers:
            if lg.name in dest:
                matched = True
                lg.log_metrics(dict(named), step=step)
        if not matched:
            warnings.warn(f"None of the loggers matched the given destinations: {dest}")

    @contextlib.contextmanager
    def name_scope(self, name: str):
        """Prefix metric names with ``name/`` inside the block."""
        self._name_scope_stack.append(name)
        try:
            yield name
        finally:
            self._name_scope_stack.pop()

    @property
    def name_scope_path(self) -> str:
        return os.path.join(*self._name_scope_stack, "") if self._name_scope_stack else ""

    def get_val_dataloader_scope(self, val_dataloader) -> str:
        if val_dataloader.id not in self._val_dataloader_id_map:
            self._val_dataloader_id_map[val_dataloader.id] = f"validate_{self._val_dataloader_id}"
            self._val_dataloader_id += 1
        return self._val_dataloader_id_map[val_dataloader.id]

    # -- the traced steps -----------------------------------------------------------------------
    @cstorch.trace
    def training_step(self, batch):
        """Forward, backward, optimizer step, zero_grad, scheduler steps; returns the outputs.

        Traced: on CSX its Python runs on the first step of each train stage only.
        """
        self.call("on_train_step_start", self.model, batch)
        outputs = self.forward(batch)
        self.backward(outputs)
        if self.optimizer and self.should_run_optimizer_step:
            self.optimizer_step()
            self.optimizer_zero_grad()
            self.schedulers_step()
        self.call("on_train_step_end", self.model, outputs, batch)
        return outputs

    def forward(self, batch):
        ctx = self.precision.autocast_context_manager() if self.precision else \
            contextlib.nullcontext()
        with ctx:
            args, kwargs = [batch], {}
            self.call("on_before_forward", self.model, batch, args, kwargs)
            outputs = convert_output_to_dict(self.compiled_model(*args, **kwargs))
            self.call("on_after_forward", self.model, outputs, batch)
            return outputs

    def backward(self, outputs):
        self.call("on_before_backward", self.model, outputs)
        loss = outputs["loss"]
        if self.precision:
            self.precision.backward(loss)
        else:
            loss.backward()
        self.call("on_after_backward", self.model, outputs)

    def optimizer_step(self):
        self.call("on_before_optimizer_step", self.model, self.optimizer)
        if self.precision:
            self.precision.clip_gradients(self.optimizer)
            self.precision.optimizer_step(self.optimizer)
        else:
            self.optimizer.step()
        self.call("on_after_optimizer_step", self.model, self.optimizer)

    def optimizer_zero_grad(self):
        self.call("on_before_optimizer_zero_grad", self.model, self.optimizer)
        self.optimizer.zero_grad()
        self.call("on_after_optimizer_zero_grad", self.model, self.optimizer)

    def schedulers_step(self):
        for scheduler in self.schedulers or []:
            self.call("on_before_scheduler_step", self.model, self.optimizer, scheduler)
            scheduler.step()
            self.call("on_after_scheduler_step", self.model, self.optimizer, scheduler)

    @cstorch.trace
    @torch.no_grad()
    def validation_step(self, batch, loop):
        """Forward pass under ``no_grad`` between the loop's step hooks (traced)."""
        self.call(loop.on_step_start_hook, self.model, batch)
        outputs = self.forward(batch)
        self.call(loop.on_step_end_hook, self.model, outputs, batch)
        return outputs

    @contextlib.contextmanager
    def on_exception(self, hook):
        """Call ``on_<hook>_exception`` on the callbacks if the block raises (then re-raise)."""
        try:
            yield
        except Exception as e:
            try:
                self.call(f"on_{hook}_exception", e)
            except Exception as e2:
                raise e2 from e
            raise

    # -- fit / validate -------------------------------------------------------------------------
    def fit(self, train_dataloader, val_dataloader=None, ckpt_path=...):
        """Train on ``train_dataloader``, validating on ``val_dataloader`` (one or a list) as the
        loop's ``eval_frequency`` says. ``ckpt_path``: a checkpoint to start from; ``...``
        (default) loads the latest in ``model_dir`` when autoloading; None loads nothing."""
        loop = self.loop
        if not isinstance(loop, TrainingLoop):
            raise TypeError(f"Expected loop to be an instance of TrainingLoop. Got: {type(loop)}")
        schedule = self.schedule
        with contextlib.ExitStack() as stack:
            self.call("on_enter_fit", stack, train_dataloader, val_dataloader, loop)
            self.load_checkpoint(ckpt_path)
            self.call("on_fit_start", train_dataloader, val_dataloader, loop)
            for loop_idx in range(schedule.epochs):
                if self.early_exit.should_exit:
                    break
                self._run_train(train_dataloader, loop, loop_idx)
                if loop.eval_frequency:
                    is_last = loop_idx == schedule.epochs - 1
                    self._validate_all(
                        val_dataloader, ckpt_paths=None, loop=None,
                        run_validation=lambda i=loop_idx, last=is_last: self.call(
                            "run_validation", loop_idx=i, is_last=last))
            self.call("on_fit_end", loop)
            self.metrics_history.write_fit_plot(self)

    def _run_train(self, train_dataloader, loop, loop_idx=0):
        with contextlib.ExitStack() as stack:
            self.call("on_enter_train", stack, train_dataloader, loop, loop_idx)
            self.call("on_train_start", self.model, train_dataloader, loop, loop_idx)
            self.executor = cstorch.utils.data.DataExecutor(
                train_dataloader, num_steps=self.schedule.train_steps,
                checkpoint_steps=self.schedule.checkpoint_steps,
                activation_steps=self.activation_steps, profiler_activities=[])
            for batch_idx, batch in enumerate(self.executor):
                if self.early_exit.should_exit:
                    break
                self.call("on_train_batch_start", self.model, batch, batch_idx)
                outputs = self.training_step(batch)
                self.call("on_train_batch_end", self.model, outputs, batch, batch_idx)
            self.call("on_train_end", self.model, loop, loop_idx)
        self.executor = None

    def validate(self, val_dataloader=None, ckpt_path=..., loop=None):
        """One validation run over ``val_dataloader`` (loads a checkpoint as ``fit`` does)."""
        if not isinstance(val_dataloader, cstorch.utils.data.DataLoader):
            raise TypeError(f"val_dataloader must be a cstorch.utils.data.DataLoader. Got "
                            f"{type(val_dataloader)}")
        if not loop:
            loop = self.loop
            if isinstance(loop, TrainingLoop):
                loop = loop.val_loop
        if not isinstance(loop, ValidationLoop):
            raise TypeError(f"Expected loop to be an instance of ValidationLoop. Got: "
                            f"{type(loop)}")
        with contextlib.ExitStack() as stack:
            stack.enter_context(self.name_scope(self.get_val_dataloader_scope(val_dataloader)))
            if loop not in list(self.all_callbacks):
                stack.enter_context(loop)
            self.call("on_enter_validate", stack, val_dataloader, loop)
            self.load_checkpoint(ckpt_path)
            self.call(loop.on_start_hook, self.model, val_dataloader, loop)
            self.executor = cstorch.utils.data.DataExecutor(
                _fresh(val_dataloader), num_steps=loop.eval_steps, profiler_activities=[])
            for batch_idx, batch in enumerate(self.executor):
                if self.early_exit.should_exit:
                    break
                self.call(loop.on_batch_start_hook, self.model, batch, batch_idx)
                outputs = self.validation_step(batch, loop)
                self.call(loop.on_batch_end_hook, self.model, outputs, batch, batch_idx)
            self.call(loop.on_end_hook, self.model, loop)
        self.executor = None

    def validate_all(self, val_dataloaders=None, ckpt_paths=..., loop=None):
        """For each checkpoint (paths or glob patterns; ``...``: the current state or the
        autoloaded one), validate on each dataloader, then run downstream validation."""
        self._validate_all(val_dataloaders, ckpt_paths, loop, run_validation=lambda: self.call(
            "run_validation", loop_idx=None, is_last=True))

    def _validate_all(self, val_dataloaders, ckpt_paths, loop, run_validation):
        if val_dataloaders is None:
            val_dataloaders = []
        elif not isinstance(val_dataloaders, (list, tuple)):
            val_dataloaders = [val_dataloaders]
        for i, dl in enumerate(val_dataloaders):
            if not isinstance(dl, cstorch.utils.data.DataLoader):
                raise TypeError(f"Expected val_dataloader to be an instance of DataLoader. Got "
                                f"{type(dl)} for element {i}")
        if self.early_exit.should_exit:
            return
        if ckpt_paths is Ellipsis or ckpt_paths is None:
            ckpt_paths = [ckpt_paths]
        else:
            if not isinstance(ckpt_paths, (list, tuple)):
                ckpt_paths = [ckpt_paths]
            for p in ckpt_paths:
                if not isinstance(p, (str, Path)):
                    raise ValueError(f"Expected ckpt_path to be a path to a checkpoint file, or a "
                                     f"glob pattern. Got: {p}")
                p = Path(p)
                if not any(p.parent.glob(p.name)):
                    raise FileNotFoundError(f"Checkpoint file(s) not found at: {p}")
            ckpt_paths = [f for p in map(Path, ckpt_paths) for f in sorted(p.parent.glob(p.name))]
        with contextlib.ExitStack() as stack:
            self.call("on_enter_validate_all", stack, val_dataloaders, loop, ckpt_paths)
            for ckpt_path in ckpt_paths:
                self.load_checkpoint(ckpt_path)
                for dl in val_dataloaders:
                    if self.early_exit.should_exit:
                        return
                    self.validate(dl, ckpt_path=None, loop=loop)
                if run_validation is not None:
                    run_validation()

    # -- checkpoints ----------------------------------------------------------------------------
    @cstorch.checkpoint_closure
    def save_checkpoint(self):
        """Save a checkpoint of the current global step (a checkpoint closure: it runs before
        the first step or on a checkpoint step of the executor)."""
        state_dict = {}
        self.call("on_save_checkpoint", state_dict)
        self.call("postprocess_checkpoint", state_dict)
        ckpt_path = self.checkpoint.get_checkpoint_path(self.global_step)
        cstorch.save(state_dict, ckpt_path)
        self.call("on_after_save_checkpoint", ckpt_path)

    def load_checkpoint(self, ckpt_path=None):
        """Load ``ckpt_path`` into every callback (``...`` with autoload: the latest one).
        Skipped in compile/validate-only runs."""
        if not self.backend.is_e2e_execution:
            return
        if ckpt_path is Ellipsis and self.checkpoint.autoload_last_checkpoint:
            ckpt_path = self.checkpoint.get_latest_checkpoint(self)
        if not ckpt_path or ckpt_path is Ellipsis:
            self.call("on_before_load_checkpoint", None)
            return
        self.call("on_before_load_checkpoint", ckpt_path)
        state_dict = cstorch.load(ckpt_path)
        self.call("preprocess_checkpoint", state_dict)
        self.call("on_load_checkpoint", state_dict)


def _finalize_callbacks(callbacks):
    for cb in callbacks:
        if cb is not None:
            cb.finalize()
