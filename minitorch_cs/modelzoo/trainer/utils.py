"""``run_trainer(mode, params)``: build Trainers from validated YAML params and run them
(mirrors ``cerebras.modelzoo.trainer.utils``).

Modes: ``"train"`` (fit without validation), ``"train_and_eval"`` (fit, validating on the fit
section's ``val_dataloader``), ``"eval"`` (``validate``), ``"eval_all"`` (``validate_all``; without
``ckpt_paths`` every checkpoint in ``model_dir``).
"""
from __future__ import annotations

import copy
import fnmatch
import re
import warnings
from collections.abc import Iterable
from pathlib import Path

import yaml

import minitorch_cs as cstorch
from minitorch_cs.torch import nn

from .validate import TrainerConfig, validate_trainer_params

__all__ = ["run_trainer", "configure_trainer_from_config", "create_dataloader_from_config",
           "create_backend_from_config", "configure_param_groups", "check_not_complete", "MODES"]

MODES = ("train", "train_and_eval", "eval", "eval_all")


def create_dataloader_from_config(spec):
    """A ``cstorch.utils.data.DataLoader`` whose ``input_fn`` builds the data processor and calls
    its ``create_dataloader()`` (or uses it directly if it is iterable)."""

    def data_processor_fn(proc_cls, config):
        processor = proc_cls(config)
        if hasattr(processor, "create_dataloader"):
            return processor.create_dataloader()
        if isinstance(processor, Iterable):
            return processor
        raise TypeError("Expected dataprocessor to be an iterable (e.g., torch dataloader) or "
                        "have a `create_dataloader()` method that returns an iterable for "
                        "generating input data.")

    return cstorch.utils.data.DataLoader(data_processor_fn, spec.processor_cls, spec.config)


def create_backend_from_config(init):
    """The backend of ``init.backend`` (``device`` fills ``backend_type``); an existing backend
    of the same type is reused (its compile/validate-only settings must match)."""
    params = dict(init.backend)
    btype = params.pop("backend_type", None)
    if btype is None:
        raise ValueError("No device specified. Please specify a device using the 'device' key "
                         "inside the 'init' key of the trainer params or through the CLI with "
                         "the target_device flag (e.g. --target_device=CSX).")
    btype = btype.upper()
    if "artifact_dir" in params:
        warnings.warn("artifact_dir was specified for backend, but will not be used. The "
                      "Trainer's artifact directory will be used instead.")
        params.pop("artifact_dir")
    if btype == "CSX":
        from minitorch_cs.distributed import ClusterConfig
        cc = params.get("cluster_config") or {}
        params["cluster_config"] = ClusterConfig(**cc) if isinstance(cc, dict) else cc
    existing = cstorch.current_backend(raise_exception=False)
    if existing is not None and existing.backend_type.name == btype:
        impl = existing._impl
        mismatch = [f"\t{k}: {getattr(impl, k)} != {v}" for k, v in params.items()
                    if k in ("compile_only", "validate_only") and getattr(impl, k) != v]
        if mismatch:
            raise RuntimeError(f"Detected mismatching arguments for {btype} backend:\n" +
                               "\n".join(mismatch) + "\nCurrently, only cluster_config may be "
                               "modified across different trainers.")
        return existing
    return cstorch.backend(btype, **params)


def _glob_regex(pattern):
    return re.compile(fnmatch.translate(pattern).replace(r"\Z", "").rstrip("$"))


_NORM_LAYERS = ("LayerNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm",
                "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "SyncBatchNorm", "RMSNorm")


def _no_weight_decay(model, name):
    norms = tuple(getattr(nn, n) for n in _NORM_LAYERS if hasattr(nn, n))
    if "bias" in name:
        return True
    return any(mname and mname in name and isinstance(m, norms)
               for mname, m in model.named_modules())


def configure_param_groups(model, weight_decay=0.0, filters=()):
    """Model Zoo's param groups: params are grouped by the tags of the ``filters``
    (``[{params: glob, tag: name}]``), then each group is split in two: with ``weight_decay``,
    and with 0.0 for biases and normalization-layer params."""
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    tags_of = {n: [] for n, _ in named}
    for f in filters:
        patterns = f["params"] if isinstance(f["params"], list) else [f["params"]]
        regexes = [_glob_regex(p) for p in patterns]
        hits = [n for n, _ in named if any(r.search(n) for r in regexes)]
        if not hits:
            raise ValueError(f"Param filter {f['tag']} with patterns {patterns} did not match "
                             f"any params.")
        for n in hits:
            tags_of[n].append(f["tag"])
    grouped = {}
    for n, p in named:
        grouped.setdefault(frozenset(tags_of[n]), []).append((n, p))
    groups = []
    for tags, params in grouped.items():
        with_wd = {"params": [p for n, p in params if not _no_weight_decay(model, n)],
                   "weight_decay": weight_decay}
        without = {"params": [p for n, p in params if _no_weight_decay(model, n)],
                   "weight_decay": 0.0}
        for g in (with_wd, without):
            if tags:
                g["tags"] = set(tags)
            groups.append(g)
    if any("tags" in g for g in groups):
        groups = [g for g in groups if g["params"]]
    return groups


def configure_trainer_from_config(config: TrainerConfig, mode=None):
    """A ``Trainer`` built from one validated trainer block."""
    from . import callbacks as C
    from .trainer import Trainer
    init = config.init
    evaluating = mode in ("eval", "eval_all")

    def model_fn():
        return init.model.build()

    def optimizer_fn(model):
        if evaluating or init.optimizer is None:
            return None
        wd = init.optimizer.kwargs.get("weight_decay", 0.0)
        groups = configure_param_groups(model, wd, init.optimizer_params)
        return init.optimizer.build(params=groups)

    schedulers = None
    if not evaluating and init.schedulers:
        schedulers = [lambda opt, s=s: s.build(optimizer=opt) for s in init.schedulers]

    def build(spec):
        return spec.build() if spec is not None else None

    callbacks = []
    for spec in init.callbacks:
        if spec.cls is C.ModelZooParamsMetadata and "params" not in spec.kwargs:
            callbacks.append(spec.build(params=copy.deepcopy(config.params)))
        else:
            callbacks.append(spec.build())

    class SaveTrainerParams(C.Callback):
        """Writes the trainer params next to the run's logs."""

        def pre_setup(self, trainer):
            for d in (trainer.artifact_dir, trainer.summary_dir):
                with open(d / "trainer_params.yaml", "w") as f:
                    yaml.safe_dump(config.params, f, sort_keys=False)

    with SaveTrainerParams():
        return Trainer(backend=create_backend_from_config(init), model_dir=init.model_dir,
                       model=model_fn, optimizer=optimizer_fn, schedulers=schedulers,
                       precision=build(init.precision), loop=build(init.loop),
                       checkpoint=build(init.checkpoint), logging=build(init.logging),
                       callbacks=callbacks, loggers=[s.build() for s in init.loggers],
                       seed=init.seed, autorestart=build(init.autorestart))


def _latest_global_step(config):
    """``(global step, checkpoint)`` that ``fit`` would start from, read without building
    anything or writing to ``model_dir``; ``(None, None)`` when it starts fresh or cannot tell."""
    from .callbacks import Checkpoint
    ckpt_path = config.fit.ckpt_path
    spec = config.init.checkpoint
    kwargs = dict(spec.kwargs) if spec is not None else {}
    backend = config.init.backend or {}
    if backend.get("compile_only") or backend.get("validate_only") or ckpt_path is None:
        return None, None
    if ckpt_path is Ellipsis:
        if not kwargs.get("autoload_last_checkpoint", True):
            return None, None
        cb = Checkpoint(**kwargs)
        cb.checkpoint_root = cb.checkpoint_root or config.init.model_dir
        found = cb._indexed(config.init.model_dir)
        ckpt_path = found[-1] if found else None
    if not ckpt_path or not Path(ckpt_path).is_file():
        return None, None  # the Trainer reports a missing checkpoint itself
    try:
        step = cstorch.load(str(ckpt_path)).get("global_step")
    except Exception:  # noqa: BLE001 - an unreadable checkpoint is reported when it is loaded
        return None, None
    return (int(step), str(ckpt_path)) if step is not None else (None, None)


def check_not_complete(config):
    """Raise TrainingCompleteError (a RuntimeError) if ``fit`` of this trainer block would
    start at or past its ``max_steps``: the job is finished. Checked before the Trainer is
    built, so a re-run of a finished job changes nothing in ``model_dir``."""
    from ..config.errors import TrainingCompleteError
    from .callbacks.loop import training_complete_message
    loop = config.init.loop.kwargs if config.init.loop is not None else {}
    max_steps = loop.get("max_steps")
    if loop.get("num_steps") is not None or max_steps is None or config.fit is None:
        return
    step, ckpt = _latest_global_step(config)
    if step is not None and step >= max_steps:
        raise TrainingCompleteError(training_complete_message(config.init.model_dir, step,
                                                              max_steps, ckpt))


def run_trainer(mode, params):
    """Validate ``params`` (a parsed trainer YAML) and run each trainer block in ``mode``.

    Returns the list of Trainers that ran.
    """
    if mode not in MODES:
        raise ValueError(f"Invalid mode \"{mode}\". Expected one of: {', '.join(MODES)}.")
    trainers = []
    for config in validate_trainer_params(params):
        if mode in ("train", "train_and_eval"):
            check_not_complete(config)
        trainer = configure_trainer_from_config(config, mode)
        trainers.append(trainer)
        if mode == "eval":
            if not config.validate:
                raise RuntimeError("Validation requested but config is missing `validate` "
                                   "section. Please add a `validate` section to your trainer "
                                   "configuration.")
            trainer.validate(val_dataloader=create_dataloader_from_config(
                config.validate.val_dataloader), ckpt_path=config.validate.ckpt_path)
        elif mode == "eval_all":
            if not config.validate_all:
                raise RuntimeError("Validation requested but config is missing `validate_all` "
                                   "section. Please add a `validate_all` section to your "
                                   "trainer configuration.")
            loaders = [create_dataloader_from_config(s)
                       for s in config.validate_all.val_dataloaders or []]
            ckpt_paths = config.validate_all.ckpt_paths
            if ckpt_paths is Ellipsis:
                found = trainer.checkpoint.get_all_checkpoints(trainer.model_dir) \
                    if trainer.checkpoint.autoload_last_checkpoint else []
                if not found:
                    raise FileNotFoundError(
                        f"No checkpoints were found for evaluation. Please pass in at least one "
                        f"checkpoint via ckpt_paths or set `autoload_last_checkpoint` to True "
                        f"and ensure that the model directory \"{trainer.model_dir}\" contains "
                        f"at least one checkpoint whose name matches the expected format of: "
                        f"{trainer.checkpoint.checkpoint_name}")
                ckpt_paths = found
            trainer.validate_all(val_dataloaders=loaders, ckpt_paths=ckpt_paths)
        else:
            if not config.fit:
                raise RuntimeError("Fit requested but config is missing `fit` section. Please "
                                   "add a `fit` section to your trainer configuration.")
            train = create_dataloader_from_config(config.fit.train_dataloader)
            val = None
            if mode == "train":
                trainer.loop.eval_frequency = None
            elif config.fit.val_dataloader is not None:
                val = [create_dataloader_from_config(s) for s in config.fit.val_dataloader]
            trainer.fit(train, val, config.fit.ckpt_path)
    return trainers
