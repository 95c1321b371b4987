"""Every YAML validation error names the key path and the allowed values."""
from __future__ import annotations

import warnings

import pytest

import minitorch_cs as cstorch
from minitorch_cs.modelzoo.trainer.typecheck import ConfigError
from minitorch_cs.modelzoo.trainer.validate import validate_trainer_params

from .conftest import deep, fc_mnist_params


def _set(path, value):
    """A mutation setting ``trainer.<path>`` (dotted, ``[i]`` for list items)."""
    def mutate(p):
        node = p
        parts = ("trainer." + path).split(".")
        for part in parts[:-1]:
            node = node[int(part[1:-1])] if part.startswith("[") else node[part]
        last = parts[-1]
        if last.startswith("["):
            node[int(last[1:-1])] = value
        elif value is _DELETE:
            del node[last]
        else:
            node[last] = value
    return mutate


_DELETE = object()
_SEQ = "init.schedulers.[0].SequentialLR"

CASES = [
    # (mutation, key path in the message, fragment of the message)
    (lambda p: p.pop("trainer"), "trainer", "trainer configuration not found"),
    (lambda p: p.update(trainer=3), "trainer", "expected trainer to be a mapping"),
    (lambda p: p.update(trainer=[{"init": {}}]), "trainer[0]", "with a 'trainer' key"),
    (_set("init", _DELETE), "trainer.init", "must have an 'init'"),
    (_set("fitt", {}), "trainer.fitt", "Allowed keys: init, fit, validate, validate_all"),
    (_set("init.model", _DELETE), "trainer.init.model", "must have a 'model' key"),
    (_set("init.model.name", _DELETE), "trainer.init.model.name", "Allowed values: fc_mnist"),
    (_set("init.model.name", "resnet"), "trainer.init.model.name",
     "unknown model 'resnet'. Allowed models: fc_mnist"),
    (_set("init.model.model_name", "other"), "trainer.init.model.model_name",
     "conflicting model names"),
    (_set("init.model.depht", 2), "trainer.init.model.depht",
     "Allowed keys: activation_fn, compute_eval_metrics, depth,"),
    (_set("init.model.activation_fn", "tanh"), "trainer.init.model.activation_fn",
     "Input should be 'relu'"),
    (_set("init.model.dropout", 2.0), "trainer.init.model.dropout", "less than or equal to 1"),
    (_set("init.model.hidden_size", _DELETE), "trainer.init.model",
     "hidden_size and depth, or hidden_sizes must be provided"),
    (_set("init.modle_dir", "x"), "trainer.init.modle_dir",
     "unknown key 'modle_dir' (did you mean 'model_dir'?). Allowed keys: model, device,"),
    (_set("init.device", "TPU"), "trainer.init.device",
     "invalid device 'TPU'. Allowed values: CSX, CPU, GPU"),
    (_set("init.backend", {"backend_type": "CPU", "compile_only": True}),
     "trainer.init.backend.compile_only", "Allowed keys: artifact_dir, backend_type"),
    (_set("init.backend", {"backend_type": "CSX", "cluster_config": {"num_csx": "two"}}),
     "trainer.init.backend.cluster_config.num_csx", "expected an integer"),
    (_set("init.seed", "one"), "trainer.init.seed", "expected an integer or null"),
    (_set("init.optimizer", {"SGDX": {"lr": 0.1}}), "trainer.init.optimizer.SGDX",
     "unknown optimizer 'SGDX' (did you mean 'SGD'?). Allowed optimizers: ASGD, Adadelta,"),
    (_set("init.optimizer", {"SGD": {"lr": 0.1}, "Adam": {}}), "trainer.init.optimizer",
     "single key"),
    (_set("init.optimizer", ["SGD"]), "trainer.init.optimizer", "one-key mapping"),
    (_set("init.optimizer", {"SGD": {"lr": 0.1, "learning_rate": 0.2}}),
     "trainer.init.optimizer.SGD.learning_rate", "given twice"),
    (_set("init.optimizer", {"SGD": {"lr": "fast"}}), "trainer.init.optimizer.SGD.lr",
     "expected a number, got 'fast'"),
    (_set("init.optimizer", {"SGD": {"lr": 0.1, "params": 3}}),
     "trainer.init.optimizer.SGD.params", "filters"),
    (_set("init.schedulers", [{"LinearLRR": {}}]), "trainer.init.schedulers[0].LinearLRR",
     "unknown scheduler 'LinearLRR' (did you mean 'LinearLR'?). Allowed schedulers: ChainedLR, "
     "ChainedScheduler, ChainedWD, ConstantLR, ConstantWD, CosineAnnealingLR,"),
    (_set(f"{_SEQ}.schedulers.[0].LinearLR.total_iters", _DELETE),
     f"trainer.{_SEQ.replace('.[', '[')}.schedulers[0].LinearLR.total_iters",
     "missing required parameter of LinearLR"),
    (_set(f"{_SEQ}.milestones", [5]), f"trainer.{_SEQ.replace('.[', '[')}.milestones",
     "expected milestones [4] (the cumulative total_iters"),
    (_set(f"{_SEQ}.schedulers.[1].CosineDecayLR.warmup", 3),
     f"trainer.{_SEQ.replace('.[', '[')}.schedulers[1].CosineDecayLR.warmup",
     "unknown parameter 'warmup'. Allowed parameters: end_learning_rate,"),
    (_set(f"{_SEQ}.schedulers.[1]", {"ConstantWD": {"val": 0.0}}),
     f"trainer.{_SEQ.replace('.[', '[')}.schedulers[1].ConstantWD",
     "unknown lr scheduler 'ConstantWD'"),
    (_set(f"{_SEQ}.param_group_tags", "a"), None, None),  # valid shape; checked below
    (_set("init.loop", {"max_step": 3}), "trainer.init.loop.max_step",
     "unknown parameter 'max_step' (did you mean 'max_steps'?). Allowed parameters: "
     "eval_frequency, eval_steps,"),
    (_set("init.loop", {"max_steps": "ten"}), "trainer.init.loop.max_steps",
     "expected an integer or null, got 'ten'"),
    (_set("init.checkpoint", {"steps": 2, "keep": 1}), "trainer.init.checkpoint.keep",
     "Allowed parameters: autoload_last_checkpoint, checkpoint_name, checkpoint_root,"),
    (_set("init.logging", {"log_level": "INFO"}), "trainer.init.logging.log_steps",
     "missing required parameter of Logging"),
    (_set("init.precision", {"fp16_type": "float8"}), "trainer.init.precision.fp16_type",
     "expected one of 'float16', 'bfloat16', 'cbfloat16'"),
    (_set("init.callbacks", [{"Checkpoint": {}}]), "trainer.init.callbacks[0].Checkpoint",
     "Checkpoint is a core callback: configure it with trainer.init.checkpoint"),
    (_set("init.callbacks", [{"KeepNCheckpoints": {"m": 1}}]),
     "trainer.init.callbacks[0].KeepNCheckpoints.m", "Allowed parameters: n"),
    (_set("init.callbacks", {"CheckLoss": {}}), "trainer.init.callbacks", "expected a list"),
    (_set("init.loggers", [{"WandbLogger": {}}]), "trainer.init.loggers[0].WandbLogger",
     "unknown logger 'WandbLogger'. Allowed loggers: MetricsFileLogger,"),
    (_set("init.sparsity", {"sparsity": 0.5}), "trainer.init.sparsity", "not supported"),
    (_set("fit.train_dataloader", _DELETE), "trainer.fit.train_dataloader",
     "missing required key"),
    (_set("fit.train_dataloader.data_processor", "CIFARDataProcessor"),
     "trainer.fit.train_dataloader.data_processor",
     "unknown data processor 'CIFARDataProcessor' for model 'fc_mnist'. Allowed values: "
     "MNISTDataProcessor"),
    (_set("fit.train_dataloader.batch_size", _DELETE), "trainer.fit.train_dataloader.batch_size",
     "missing required key"),
    (_set("fit.train_dataloader.batch_size", 0), "trainer.fit.train_dataloader.batch_size",
     "greater than 0"),
    (_set("fit.train_dataloader.split", "test"), "trainer.fit.train_dataloader.split",
     "Input should be 'train' or 'val'"),
    (_set("fit.train_dataloader.shufle", True), "trainer.fit.train_dataloader.shufle",
     "Allowed keys: batch_size, data_dir, data_processor, drop_last, drop_last_batch,"),
    (_set("fit.val_dataloader", 3), "trainer.fit.val_dataloader",
     "expected a data processor configuration or a list"),
    (_set("fit.ckpt_path", 3), "trainer.fit.ckpt_path", "expected a checkpoint path"),
    (_set("fit.epochs", 3), "trainer.fit.epochs",
     "Allowed keys: train_dataloader, val_dataloader, ckpt_path"),
    (_set("validate.val_dataloader", _DELETE), "trainer.validate.val_dataloader",
     "missing required key"),
    (_set("validate_all.ckpt_paths", [1, 2]), "trainer.validate_all.ckpt_paths",
     "or a list of them"),
]


@pytest.mark.parametrize("mutate,path,fragment", [c for c in CASES if c[1] is not None],
                         ids=[c[1] + ":" + c[2][:30] for c in CASES if c[1] is not None])
def test_validation_error(tmp_path, mutate, path, fragment):
    params = fc_mnist_params(tmp_path)
    mutate(params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ConfigError) as info:
            validate_trainer_params(params)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    assert fragment in message, message
    assert info.value.path == path
    assert isinstance(info.value, ValueError)


def test_the_base_params_are_valid(tmp_path):
    (config,) = validate_trainer_params(fc_mnist_params(tmp_path))
    init = config.init
    assert init.optimizer.cls is cstorch.optim.SGD and init.optimizer.kwargs["lr"] == 0.05
    (seq,) = init.schedulers
    assert seq.cls is cstorch.optim.lr_scheduler.SequentialLR
    assert seq.kwargs["milestones"] == [4]  # computed from total_iters
    assert [c.name for c in seq.children] == ["LinearLR", "CosineDecayLR"]
    assert [c.name for c in init.callbacks] == [
        "CheckLoss", "LogOptimizerParamGroup", "ComputeNorm", "ModelEvalMetrics",
        "RateProfiler", "DurationProfiler", "ModelZooParamsMetadata"]
    assert [c.name for c in init.loggers][:2] == ["ProgressLogger", "MetricsFileLogger"]
    assert config.fit.val_dataloader[0].config.split == "val"
    assert config.fit.ckpt_path is Ellipsis and config.validate_all.ckpt_paths is Ellipsis


def test_names_match_case_insensitively_and_aliases(tmp_path):
    params = fc_mnist_params(tmp_path)
    init = params["trainer"]["init"]
    init["optimizer"] = {"adamw": {"learning_rate": "1e-3", "weight_decay": 0.1}}
    init["schedulers"] = [{"constantlr": {"lr": 0.5}}, {"CONSTANTWD": {"val": 0.01}}]
    init["callbacks"] = [{"checkloss": None}, {"keepncheckpoints": {"n": 2}}]
    init["loggers"] = [{"metricsfilelogger": None}]
    (config,) = validate_trainer_params(params)
    assert config.init.optimizer.cls is cstorch.optim.AdamW
    assert config.init.optimizer.kwargs == {"lr": 0.001, "weight_decay": 0.1}
    assert [s.kwargs for s in config.init.schedulers] == [{"learning_rate": 0.5},
                                                          {"val": 0.01}]
    names = [c.name for c in config.init.callbacks]
    assert "CheckLoss" not in names and names[0] == "KeepNCheckpoints"
    assert "MetricsFileLogger" not in [c.name for c in config.init.loggers]


def test_required_lr_defaults_to_0_1_and_extra_optimizer_args_warn(tmp_path):
    params = fc_mnist_params(tmp_path)
    params["trainer"]["init"]["optimizer"] = {"SGD": {"momentum": 0.5, "betas": [0.9, 0.9]}}
    params["trainer"]["init"]["schedulers"] = [{"ConstantLR": {}}]
    with pytest.warns(UserWarning, match="unexpected and unused parameter 'betas'"):
        (config,) = validate_trainer_params(params)
    assert config.init.optimizer.kwargs == {"momentum": 0.5, "lr": 0.1}
    assert config.init.schedulers[0].kwargs == {"learning_rate": 0.1}


def test_user_subclasses_are_found(tmp_path):
    class MyScaledSGD(cstorch.optim.SGD):
        def __init__(self, params, lr: float = 0.2, scale: float = 1.0):
            super().__init__(params, lr=lr * scale)

    params = fc_mnist_params(tmp_path)
    params["trainer"]["init"]["optimizer"] = {"myscaledsgd": {"scale": 0.5}}
    (config,) = validate_trainer_params(params)
    assert config.init.optimizer.cls is MyScaledSGD


def test_param_group_tags_are_pushed_down(tmp_path):
    params = fc_mnist_params(tmp_path)
    seq = params["trainer"]["init"]["schedulers"][0]["SequentialLR"]
    seq["param_group_tags"] = "dense"
    (config,) = validate_trainer_params(params)
    assert all(c.kwargs["param_group_tags"] == "dense" for c in config.init.schedulers[0].children)
    seq["schedulers"][0]["LinearLR"]["param_group_tags"] = "x"
    with pytest.raises(ConfigError, match="nested schedulers to have no `param_group_tags`"):
        validate_trainer_params(params)


def test_multi_phase_trainer_list(tmp_path):
    one = fc_mnist_params(tmp_path / "a")
    two = fc_mnist_params(tmp_path / "b")
    two["trainer"]["init"]["model"]["name"] = "nope"
    with pytest.raises(ConfigError) as info:
        validate_trainer_params({"trainer": [one, two]})
    assert info.value.path == "trainer[1].trainer.init.model.name"
    configs = validate_trainer_params({"trainer": [one, deep(one)]})
    assert len(configs) == 2


def test_model_name_is_a_deprecated_alias(tmp_path):
    params = fc_mnist_params(tmp_path)
    model = params["trainer"]["init"]["model"]
    model["model_name"] = model.pop("name")
    with pytest.warns(FutureWarning, match="model_name"):
        (config,) = validate_trainer_params(params)
    assert config.init.model.name == "fc_mnist"


@pytest.mark.parametrize("path", ["examples/fc_mnist.yaml",
                                  "minitorch_cs/modelzoo/models/vision/fc_mnist/configs/"
                                  "params.yaml"])
def test_shipped_yaml_files_validate(path):
    import yaml
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    params = yaml.safe_load((root / path).read_text())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (config,) = validate_trainer_params(params)
    assert config.init.model.name == "fc_mnist"
    assert config.fit is not None and config.validate_all is not None


_STRANGE = [None, 0, -1, 1.5, -2.5, 1e30, float("nan"), float("inf"), "x", "", "CPU", [], {},
            [1, 2], {"a": 1}, True, False, 2**70, [{"SGD": {"lr": 0.1}}], {"SGD": None}, [[1]],
            "relu", 10**6]


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


@pytest.mark.parametrize("example", ["fc_mnist.yaml", "gpt2_tiny.yaml"])
def test_damaged_yaml_is_a_config_error_or_valid(example):
    """Generated damage to the shipped YAML files (one to three values replaced by a value of
    another kind, keys deleted or added at random places): validation accepts the result or
    raises ConfigError -- never another exception (found this way: a list as data_processor
    raised TypeError, a depth of 2**70 OverflowError)."""
    import copy
    import random
    from pathlib import Path

    import yaml
    root = Path(__file__).resolve().parents[2]
    base = yaml.safe_load((root / "examples" / example).read_text())
    outcomes = {"ok": 0, "ConfigError": 0}
    for k in range(400):
        r = random.Random(f"{example}:{k}")
        params = copy.deepcopy(base)
        for _ in range(r.randint(1, 3)):
            paths = [p for p in _paths(params) if p]
            if not paths:
                break
            path = r.choice(paths)
            parent = params
            for p in path[:-1]:
                parent = parent[p]
            how = r.random()
            if how < 0.7:
                parent[path[-1]] = copy.deepcopy(r.choice(_STRANGE))
            elif isinstance(parent, dict) and how < 0.85:
                del parent[path[-1]]
            elif isinstance(parent, dict):
                parent[r.choice(["extra", "lr", "name", "max_steps"])] = r.choice(_STRANGE)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                validate_trainer_params(params)
                outcomes["ok"] += 1
            except ConfigError as e:
                assert str(e).strip() and "\n" not in str(e).strip(), str(e)
                outcomes["ConfigError"] += 1
    assert outcomes["ok"] and outcomes["ConfigError"]
