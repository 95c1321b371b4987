"""The trainer YAML, validated into typed configs (mirrors Model Zoo's ``trainer/validate.py``).

File shape::

    trainer:
      init: {model: {name: fc_mnist, ...}, device: CPU, optimizer: {SGD: {...}}, ...}
      fit: {train_dataloader: {data_processor: ..., ...}, val_dataloader: ..., ckpt_path: ...}
      validate: {val_dataloader: ..., ckpt_path: ...}
      validate_all: {val_dataloaders: ..., ckpt_paths: ...}

or ``trainer:`` holding a list of ``{trainer: {...}}`` blocks run one after the other.

``optimizer``, each entry of ``schedulers``, ``callbacks`` and ``loggers`` is a one-key mapping
``{ClassName: {kwargs}}``; the name is matched case-insensitively against every subclass of
``cstorch.optim.Optimizer`` / the LR and weight-decay schedulers / ``Callback`` (core callbacks
excluded) / ``Logger`` defined when the YAML is validated, user subclasses included.
``lr`` and ``learning_rate`` are aliases. A ``SequentialLR`` without ``milestones`` gets the
cumulative ``total_iters`` of all its schedulers but the last; given milestones must equal them.
Every error is a ``ConfigError`` naming the key path and the allowed values.
"""
from __future__ import annotations

import copy
import inspect
import warnings
from typing import Optional

import minitorch_cs as cstorch

from .typecheck import (ConfigError, check_type, pydantic_error, short_repr,
                        unknown_key_message, validate_kwargs)
from .validate_configs import (ClassSpec, DataSpec, ModelSpec, TrainerConfig, TrainerFitConfig,
                               TrainerInitConfig, TrainerValidateAllConfig,
                               TrainerValidateConfig, _params)

__all__ = ["ConfigError", "ClassSpec", "DataSpec", "ModelSpec", "TrainerInitConfig",
           "TrainerFitConfig", "TrainerValidateConfig", "TrainerValidateAllConfig",
           "TrainerConfig", "validate_trainer_params", "DEFAULT_CALLBACKS", "DEFAULT_LOGGERS"]

# Callbacks and loggers every YAML run gets unless named (a null value removes one). Model Zoo's
# list also has FlopUtilization, SavePerformanceData, DumpAvailableTensorNames and
# SamplesStreamedInfo (cluster-only); TelemetryLogger likewise.
DEFAULT_CALLBACKS = {"CheckLoss": {}, "LogOptimizerParamGroup": {"keys": "lr"},
                     "ComputeNorm": {}, "ModelEvalMetrics": {}, "RateProfiler": {},
                     "DurationProfiler": {}, "ModelZooParamsMetadata": {}}
DEFAULT_LOGGERS = {"ProgressLogger": {}, "MetricsFileLogger": {}, "TensorBoardLogger": {}}

_TRAINER_KEYS = ("init", "fit", "validate", "validate_all")
_INIT_KEYS = ("model", "device", "backend", "model_dir", "optimizer", "schedulers", "precision",
              "sparsity", "loop", "checkpoint", "logging", "callbacks", "loggers", "seed",
              "autorestart")
_DEVICES = ("CSX", "CPU", "GPU")
# Core callbacks the YAML configures through their own init key.
_CORE_KEYS = {"checkpoint": "checkpoint", "trainingloop": "loop", "validationloop": "loop",
              "logging": "logging", "mixedprecision": "precision", "autorestart": "autorestart"}


# ----- class lookup ----------------------------------------------------------------------------
def _all_subclasses(base):
    out, todo = [], [base]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in out:
                out.append(sub)
                todo.append(sub)
    return out


def _concrete(classes):
    return [c for c in classes if not inspect.isabstract(c) and not c.__name__.startswith("_")]


def _choices(kind):
    """``{lowercase name: class}`` of the classes a class-keyed entry of ``kind`` may name."""
    from .callbacks import Callback, CoreCallback
    from .loggers import Logger
    if kind == "optimizer":
        classes = _concrete(_all_subclasses(cstorch.optim.Optimizer))
    elif kind == "lr scheduler":
        classes = _concrete(_all_subclasses(cstorch.optim.lr_scheduler.LRScheduler))
    elif kind == "weight decay scheduler":
        classes = _concrete(_all_subclasses(
            cstorch.optim.weight_decay_scheduler.WeightDecayScheduler))
    elif kind == "scheduler":
        return {**_choices("lr scheduler"), **_choices("weight decay scheduler")}
    elif kind == "callback":
        classes = [c for c in _concrete(_all_subclasses(Callback))
                   if not issubclass(c, CoreCallback)]
    elif kind == "logger":
        classes = _concrete(_all_subclasses(Logger))
    else:
        raise AssertionError(kind)
    return {c.__name__.lower(): c for c in classes}


def _unpack(entry, kind, path):
    """``{Name: kwargs}`` -> (class, kwargs, path of the kwargs)."""
    if not isinstance(entry, dict):
        raise ConfigError(path, f"expected a {kind} as a one-key mapping {{ClassName: "
                                f"{{arguments}}}}, got {short_repr(entry)}")
    if len(entry) != 1:
        raise ConfigError(path, f"expected {kind} to have a single key (the class name). Got: "
                                f"{sorted(map(str, entry))}")
    name, kwargs = next(iter(entry.items()))
    choices = _choices(kind)
    cls = choices.get(str(name).lower())
    core = _CORE_KEYS.get(str(name).lower())
    if cls is None and kind == "callback" and core is not None:
        raise ConfigError(f"{path}.{name}", f"{name} is a core callback: configure it with "
                                            f"trainer.init.{core}, not in callbacks")
    if cls is None:
        allowed = sorted(c.__name__ for c in choices.values())
        raise ConfigError(f"{path}.{name}", unknown_key_message(name, allowed, kind))
    if kwargs is None:
        kwargs = {}
    return cls, kwargs, f"{path}.{name}"


# ----- sections ----------------------------------------------------------------------------------
_LR_ALIASES = {"optimizer": {"learning_rate": "lr"}, "scheduler": {"lr": "learning_rate"}}


def _lr_default(cls, name):
    # Model Zoo's generated configs give a required float `lr`/`learning_rate` a default of 0.1.
    p = _params(cls).get(name)
    if p is not None and p.default is inspect.Parameter.empty:
        return {name: 0.1}
    return None


def _optimizer(entry, path):
    cls, kwargs, kpath = _unpack(entry, "optimizer", path)
    if not isinstance(kwargs, dict):
        raise ConfigError(kpath, f"expected a mapping of arguments, got {short_repr(kwargs)}")
    kwargs = dict(kwargs)
    filters = kwargs.pop("params", [])
    filters = [filters] if isinstance(filters, dict) else filters
    if not isinstance(filters, list):
        raise ConfigError(f"{kpath}.params", "expected a list of {params: <glob or list of "
                                             "globs>, tag: <name>} filters")
    for i, f in enumerate(filters):
        if not isinstance(f, dict) or set(f) != {"params", "tag"}:
            raise ConfigError(f"{kpath}.params[{i}]", "expected a mapping with exactly the keys "
                                                      "params and tag")
    kwargs.pop("adjust_learning_rate", None) and warnings.warn(
        f"{kpath}.adjust_learning_rate: muP learning-rate adjustment is not supported; ignored")
    out = validate_kwargs(cls, kwargs, kpath, injected=("params",),
                          aliases=_LR_ALIASES["optimizer"], extra="warn",
                          required_defaults=_lr_default(cls, "lr"))
    return ClassSpec(cls, out, kpath), filters


def _scheduler(entry, path, kind="scheduler"):
    cls, kwargs, kpath = _unpack(entry, kind, path)
    if not isinstance(kwargs, dict):
        raise ConfigError(kpath, f"expected a mapping of arguments, got {short_repr(kwargs)}")
    kwargs = dict(kwargs)
    params = _params(cls)
    children = []
    nested_key = "schedulers" if "schedulers" in params else (
        "scheduler" if "scheduler" in params else None)
    if nested_key is not None:
        family = ("lr scheduler" if issubclass(cls, cstorch.optim.lr_scheduler.LRScheduler)
                  else "weight decay scheduler")
        raw = kwargs.pop(nested_key, None)
        if raw is None:
            raise ConfigError(f"{kpath}.{nested_key}", f"missing required parameter of "
                                                       f"{cls.__name__}")
        items = [raw] if nested_key == "scheduler" else raw
        if not isinstance(items, list) or not items:
            raise ConfigError(f"{kpath}.{nested_key}", "expected a non-empty list of {Name: "
                                                       "{arguments}} schedulers")
        tags = kwargs.get("param_group_tags")
        if tags is not None:  # pushed down to the children, which must not set their own
            for i, child in enumerate(items):
                if isinstance(child, dict) and len(child) == 1:
                    cname, cargs = next(iter(child.items()))
                    if isinstance(cargs, dict) and "param_group_tags" in cargs:
                        raise ConfigError(
                            f"{kpath}.{nested_key}[{i}].{cname}.param_group_tags",
                            f"a {cls.__name__} expects its nested schedulers to have no "
                            f"`param_group_tags` (set it on the {cls.__name__} only)")
                    items[i] = {cname: {**(cargs or {}), "param_group_tags": tags}}
        suffix = "" if nested_key == "scheduler" else "[{}]"
        children = [_scheduler(c, f"{kpath}.{nested_key}{suffix.format(i)}", family)
                    for i, c in enumerate(items)]
        if issubclass(cls, cstorch.optim.scheduler.SequentialScheduler) and \
                not issubclass(cls, cstorch.optim.scheduler.PiecewiseConstantScheduler):
            _milestones(cls, kwargs, children, kpath)
    out = validate_kwargs(cls, kwargs, kpath, injected=("optimizer", nested_key),
                          aliases=_LR_ALIASES["scheduler"],
                          required_defaults=_lr_default(cls, "learning_rate"))
    return ClassSpec(cls, out, kpath, children)


def _milestones(cls, kwargs, children, path):
    totals = [c.kwargs.get("total_iters") for c in children[:-1]]
    if any(not isinstance(t, int) for t in totals):
        if "milestones" in kwargs:
            return  # cannot be checked; the given milestones are used
        bad = next(i for i, t in enumerate(totals) if not isinstance(t, int))
        raise ConfigError(f"{path}.schedulers[{bad}]",
                          f"{children[bad].name} needs total_iters so that the milestones of "
                          f"{cls.__name__} can be computed (or give milestones explicitly)")
    expected, acc = [], 0
    for t in totals:
        acc += t
        expected.append(acc)
    if "milestones" not in kwargs:
        kwargs["milestones"] = expected
    elif list(kwargs["milestones"] or []) != expected:
        raise ConfigError(f"{path}.milestones",
                          f"expected milestones {expected} (the cumulative total_iters of all "
                          f"schedulers but the last), got {kwargs['milestones']}")


def _callbacks(entries, path, kind, defaults):
    if entries is None:
        entries = []
    if not isinstance(entries, list):
        raise ConfigError(path, f"expected a list of {{{kind.capitalize()}Name: {{arguments}}}}, "
                                f"got {short_repr(entries)}")
    choices = _choices(kind)
    pending = {k.lower(): (k, v) for k, v in defaults.items() if k.lower() in choices}
    out = []
    for i, entry in enumerate(entries):
        if isinstance(entry, dict) and len(entry) == 1:
            name = str(next(iter(entry))).lower()
            pending.pop(name, None)
            if next(iter(entry.values())) is None and name in choices:
                continue  # `- CheckLoss: null` removes a default
        cls, kwargs, kpath = _unpack(entry, kind, f"{path}[{i}]")
        out.append(ClassSpec(cls, validate_kwargs(cls, kwargs, kpath), kpath))
    for name, kwargs in pending.values():
        cls = choices[name.lower()]
        out.append(ClassSpec(cls, validate_kwargs(cls, kwargs, f"{path}.<default {name}>"),
                             f"{path}.<default {name}>"))
    return out


def _single(cls, value, path):
    if value is None:
        return None
    return ClassSpec(cls, validate_kwargs(cls, value, path), path)


def _backend(init, path):
    backend = init.get("backend") or {}
    if not isinstance(backend, dict):
        raise ConfigError(f"{path}.backend", f"expected a mapping, got {short_repr(backend)}")
    backend = dict(backend)
    device = init.get("device")
    if device is not None:
        if not isinstance(device, str) or device.upper() not in _DEVICES:
            raise ConfigError(f"{path}.device", f"invalid device {short_repr(device)}. Allowed "
                                                f"values: {', '.join(_DEVICES)}")
        backend.setdefault("backend_type", device)
    btype = backend.get("backend_type")
    if btype is None:
        return backend
    bpath = f"{path}.device" if "backend_type" not in (init.get("backend") or {}) else \
        f"{path}.backend.backend_type"
    if not isinstance(btype, str) or btype.upper() not in _DEVICES:
        raise ConfigError(bpath, f"invalid backend type {short_repr(btype)}. Allowed values: "
                                 f"{', '.join(_DEVICES)}")
    if btype.upper() == "GPU":
        # cstorch.backend("GPU") raises the real stack's RuntimeError without CUDA, and
        # minitorch_cs never has CUDA: say so while the file is being checked.
        raise ConfigError(bpath, "GPU was specified as the target device, but CUDA is not "
                                 "available (minitorch_cs computes with numpy, without CUDA); "
                                 "use CPU, or CSX for the emulated wafer")
    allowed = {"backend_type", *_backend_args(btype.upper())}
    for key in backend:
        if key not in allowed:
            raise ConfigError(f"{path}.backend.{key}", unknown_key_message(key, sorted(allowed))
                              + f" (of the {btype.upper()} backend)")
    cc = backend.get("cluster_config")
    if isinstance(cc, dict):
        from minitorch_cs.distributed import ClusterConfig
        validate_kwargs(ClusterConfig, cc, f"{path}.backend.cluster_config")
    return backend


def _backend_args(btype):
    if btype == "CPU":
        return ("artifact_dir",)
    if btype == "CSX":
        return ("artifact_dir", "compile_dir", "compile_only", "validate_only", "cluster_config")
    return ("artifact_dir", "enable_distributed", "main_process_id", "dist_backend",
            "init_method", "sync_batchnorm")


def _model(model, path):
    from ..registry import registry
    if not isinstance(model, dict):
        raise ConfigError(path, f"expected trainer init model configuration to be a mapping, "
                                f"got {short_repr(model)}")
    model = dict(model)
    if "model_name" in model:
        warnings.warn("The \"model_name\" key is now deprecated and will be removed in future "
                      "releases. Please use \"name\" instead.", FutureWarning)
        if "name" in model and model["name"] != model["model_name"]:
            raise ConfigError(f"{path}.model_name", f"conflicting model names: model_name "
                                                    f"{short_repr(model['model_name'])}, "
                                                    f"name {short_repr(model['name'])}; use "
                                                    f"only \"name\"")
        model["name"] = model.pop("model_name")
    if "name" not in model:
        raise ConfigError(f"{path}.name", f"missing: model configuration must have a 'name' key. "
                                          f"Allowed values: {', '.join(registry.model_names())}")
    name = model["name"]
    if name not in registry.model_names():
        raise ConfigError(f"{path}.name", unknown_key_message(name, registry.model_names(),
                                                              "model"))
    return ModelSpec(name, registry.get_model_class(name),
                     _validate_config(registry.get_model_config_class(name), model, path))


def _validate_config(config_cls, data, path):
    try:
        import pydantic
    except ImportError:  # pragma: no cover - the config classes need pydantic
        pydantic = None
    if pydantic is not None and isinstance(config_cls, type) and \
            issubclass(config_cls, pydantic.BaseModel):
        try:
            return config_cls.model_validate(data)
        except pydantic.ValidationError as e:
            raise pydantic_error(e, path, config_cls) from None
        except (OverflowError, MemoryError) as e:  # (a size the config's own code multiplies)
            raise ConfigError(path, f"a value is too large to build this configuration "
                                    f"({e or type(e).__name__}); use smaller sizes") from None
    return config_cls(**validate_kwargs(config_cls, data, path))


def _data(entry, path, model_name):
    from ..registry import registry
    if not isinstance(entry, dict):
        raise ConfigError(path, f"expected a data processor configuration (a mapping), got "
                                f"{short_repr(entry)}")
    processors = registry.get_data_processors_map(model_name)
    names = ", ".join(sorted(processors))
    name = entry.get("data_processor")
    if name is None:
        if len(processors) != 1:
            raise ConfigError(f"{path}.data_processor", f"missing. Allowed values: {names}")
        name = next(iter(processors))
    if not isinstance(name, str) or name not in processors:
        raise ConfigError(f"{path}.data_processor", f"unknown data processor {short_repr(name)} "
                                                    f"for model {short_repr(model_name)}. "
                                                    f"Allowed values: "
                                                    f"{names}")
    proc_cls, config_cls = processors[name]
    data = {**entry, "data_processor": name}
    return DataSpec(name, proc_cls, _validate_config(config_cls, data, path), path)


def _data_list(value, path, model_name):
    if value is None:
        return None
    items = [value] if isinstance(value, dict) else value
    if not isinstance(items, list):
        raise ConfigError(path, f"expected a data processor configuration or a list of them, "
                                f"got {short_repr(value)}")
    return [_data(v, f"{path}[{i}]" if isinstance(value, list) else path, model_name)
            for i, v in enumerate(items)]


def _section(block, key, allowed, path):
    value = block.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConfigError(f"{path}.{key}", f"expected a mapping, got {short_repr(value)}")
    for k in value:
        if k not in allowed:
            raise ConfigError(f"{path}.{key}.{k}", unknown_key_message(k, allowed))
    return value


def _ckpt(value, path, many=False):
    if value is Ellipsis or value is None:
        return value
    ok = (str,) if not many else (str, list)
    if not isinstance(value, ok) or (isinstance(value, list) and
                                     not all(isinstance(v, str) for v in value)):
        raise ConfigError(path, f"expected a checkpoint path{' or a list of them' if many else ''}"
                                f" (or null), got {short_repr(value)}")
    return value


def _trainer_block(block, path) -> TrainerConfig:
    if not isinstance(block, dict):
        raise ConfigError(path, f"expected trainer configuration to be a mapping, got "
                                f"{short_repr(block)}")
    for key in block:
        if key not in _TRAINER_KEYS:
            raise ConfigError(f"{path}.{key}", unknown_key_message(key, _TRAINER_KEYS))
    init = block.get("init")
    if not isinstance(init, dict):
        raise ConfigError(f"{path}.init", "missing: trainer configuration must have an 'init' "
                                          "mapping" if init is None else
                          f"expected a mapping, got {short_repr(init)}")
    ipath = f"{path}.init"
    for key in init:
        if key not in _INIT_KEYS:
            raise ConfigError(f"{ipath}.{key}", unknown_key_message(key, _INIT_KEYS))
    if "model" not in init:
        raise ConfigError(f"{ipath}.model", "missing: trainer init configuration must have a "
                                            "'model' key")
    model = _model(init["model"], f"{ipath}.model")
    from . import callbacks as C
    cfg = TrainerInitConfig(model=model)
    cfg.backend = _backend(init, ipath)
    cfg.device = init.get("device")
    cfg.model_dir = check_type(init.get("model_dir", "./model_dir"), str, f"{ipath}.model_dir")
    cfg.seed = check_type(init.get("seed"), Optional[int], f"{ipath}.seed")
    if init.get("optimizer") is not None:
        cfg.optimizer, cfg.optimizer_params = _optimizer(init["optimizer"], f"{ipath}.optimizer")
    scheds = init.get("schedulers")
    if scheds is not None:
        items = scheds if isinstance(scheds, list) else [scheds]
        cfg.schedulers = [_scheduler(s, f"{ipath}.schedulers[{i}]") for i, s in enumerate(items)]
    if init.get("sparsity") is not None:
        raise ConfigError(f"{ipath}.sparsity", "sparsity is not supported by minitorch_cs")
    cfg.precision = _single(C.MixedPrecision, init.get("precision"), f"{ipath}.precision")
    cfg.loop = _single(C.TrainingLoop, init.get("loop"), f"{ipath}.loop")
    cfg.checkpoint = _single(C.Checkpoint, init.get("checkpoint"), f"{ipath}.checkpoint")
    cfg.logging = _single(C.Logging, init.get("logging"), f"{ipath}.logging")
    cfg.autorestart = _single(C.AutoRestart, init.get("autorestart"), f"{ipath}.autorestart")
    cfg.callbacks = _callbacks(init.get("callbacks"), f"{ipath}.callbacks", "callback",
                               DEFAULT_CALLBACKS)
    cfg.loggers = _callbacks(init.get("loggers"), f"{ipath}.loggers", "logger", DEFAULT_LOGGERS)
    out = TrainerConfig(init=cfg, params={"trainer": copy.deepcopy(block)})
    fit = _section(block, "fit", ("train_dataloader", "val_dataloader", "ckpt_path"), path)
    if fit is not None:
        if "train_dataloader" not in fit:
            raise ConfigError(f"{path}.fit.train_dataloader", "missing required key")
        out.fit = TrainerFitConfig(
            _data(fit["train_dataloader"], f"{path}.fit.train_dataloader", model.name),
            _data_list(fit.get("val_dataloader"), f"{path}.fit.val_dataloader", model.name),
            _ckpt(fit.get("ckpt_path", ...), f"{path}.fit.ckpt_path"))
    val = _section(block, "validate", ("val_dataloader", "ckpt_path"), path)
    if val is not None:
        if "val_dataloader" not in val:
            raise ConfigError(f"{path}.validate.val_dataloader", "missing required key")
        out.validate = TrainerValidateConfig(
            _data(val["val_dataloader"], f"{path}.validate.val_dataloader", model.name),
            _ckpt(val.get("ckpt_path", ...), f"{path}.validate.ckpt_path"))
    va = _section(block, "validate_all", ("val_dataloaders", "ckpt_paths"), path)
    if va is not None:
        out.validate_all = TrainerValidateAllConfig(
            _data_list(va.get("val_dataloaders"), f"{path}.validate_all.val_dataloaders",
                       model.name),
            _ckpt(va.get("ckpt_paths", ...), f"{path}.validate_all.ckpt_paths", many=True))
    return out


def validate_trainer_params(params) -> tuple:
    """Validate a parsed trainer YAML; returns one ``TrainerConfig`` per trainer block.

    Raises:
        ConfigError: the first problem found, with its key path and the allowed values.
    """
    if isinstance(params, TrainerConfig):
        return (params,)
    if isinstance(params, (list, tuple)) and all(isinstance(p, TrainerConfig) for p in params):
        return tuple(params)
    if not isinstance(params, dict):
        raise ConfigError("", f"expected the params to be a mapping with a 'trainer' key, got "
                              f"{type(params).__name__}")
    if "trainer" not in params:
        raise ConfigError("trainer", "missing: trainer configuration not found in params. "
                                     "Please ensure that the params contain a 'trainer' key "
                                     "(legacy train_input/model/runconfig params are not "
                                     "supported)")
    trainer = params["trainer"]
    if isinstance(trainer, dict):
        return (_trainer_block(trainer, "trainer"),)
    if isinstance(trainer, list):
        out = []
        for i, item in enumerate(trainer):
            if not isinstance(item, dict) or "trainer" not in item:
                raise ConfigError(f"trainer[{i}]", "expected a mapping with a 'trainer' key "
                                                   "(a multi-phase trainer lists {trainer: "
                                                   "{init: ...}} blocks)")
            extra = set(item) - {"trainer"}
            if extra:
                raise ConfigError(f"trainer[{i}].{sorted(extra)[0]}", "unknown key. Allowed "
                                                                      "keys: trainer")
            out.append(_trainer_block(item["trainer"], f"trainer[{i}].trainer"))
        return tuple(out)
    raise ConfigError("trainer", f"expected trainer to be a mapping, or a list of {{trainer: "
                                 f"...}} blocks. Got: {short_repr(trainer)}")
