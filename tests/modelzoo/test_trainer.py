"""Trainer construction, the callback hook sequence, outputs, loops and checkpoints."""
from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch_cs as cstorch
import minitorch_cs.torch as torch
import minitorch_cs.torch.nn as nn
from minitorch_cs.modelzoo import Trainer
from minitorch_cs.modelzoo.trainer.callbacks import (Callback, Checkpoint, Logging,
                                                     TrainingLoop, ValidationLoop)
from minitorch_cs.modelzoo.trainer.loggers import Logger, ProgressLogger
from minitorch_cs.modelzoo.trainer.trainer import convert_output_to_dict

from .conftest import TinyModel, tiny_loader


def _trainer(tmp_path, device="CPU", **kw):
    kw.setdefault("model", lambda: TinyModel())
    kw.setdefault("optimizer", lambda m: cstorch.optim.SGD(m.parameters(), lr=0.1))
    kw.setdefault("logging", Logging(log_steps=1))
    return Trainer(device=device, model_dir=tmp_path, seed=0, **kw)


def _cause(info):
    return info.value.__cause__


# ----- construction ------------------------------------------------------------------------------
def test_constructor_errors(tmp_path):
    model = lambda: TinyModel()  # noqa: E731
    with pytest.raises(ValueError, match="model_dir is a required argument"):
        Trainer(device="CPU", model=model)
    with pytest.raises(ValueError, match="model is a required argument"):
        Trainer(device="CPU", model_dir=tmp_path)
    with pytest.raises(TypeError, match="precision to be an instance of Precision"):
        Trainer(device="CPU", model_dir=tmp_path, model=model, precision=object())
    with pytest.raises(TypeError, match="loop to be an instance of LoopCallback"):
        Trainer(device="CPU", model_dir=tmp_path, model=model, loop=3)
    with pytest.raises(TypeError, match="checkpoint to be an instance of Checkpoint"):
        Trainer(device="CPU", model_dir=tmp_path, model=model, checkpoint={})
    with pytest.raises(TypeError, match="logging to be an instance of Logging"):
        Trainer(device="CPU", model_dir=tmp_path, model=model, logging=1)
    with pytest.raises(TypeError, match="logger must be an instance of Logger"):
        Trainer(device="CPU", model_dir=tmp_path, model=model, loggers=[Callback()])
    with pytest.raises(ValueError, match="Checkpoint is a core callback"):
        Trainer(device="CPU", model_dir=tmp_path, model=model, callbacks=[Checkpoint()])
    with pytest.raises(NotImplementedError, match="Sparsity"):
        Trainer(device="CPU", model_dir=tmp_path, model=model, sparsity=object())
    for kwargs, exc, text in (
            ({"device": "TPU"}, ValueError, "Invalid device type: TPU"),
            ({}, RuntimeError, "expected a backend object or a device string"),
            ({"backend": "CPU"}, TypeError, "Expected backend to be a cstorch.Backend")):
        with pytest.raises(RuntimeError, match="BackendCallback.pre_setup") as info:
            Trainer(model_dir=tmp_path, model=model, **kwargs)
        assert isinstance(_cause(info), exc) and text in str(_cause(info))
    backend = cstorch.backend("CPU")
    with pytest.raises(RuntimeError) as info:
        Trainer(device="CPU", backend=backend, model_dir=tmp_path, model=model)
    assert "mutually exclusive" in str(_cause(info))
    with pytest.raises(RuntimeError) as info:
        Trainer(device="CSX", model_dir=tmp_path, model=model)
    assert "different device types" in str(_cause(info))
    t = Trainer(device="cpu", model_dir=tmp_path, model=model)  # reuses the backend
    assert t.backend is backend and t.backend.artifact_dir == t.artifact_dir
    with pytest.raises(RuntimeError) as info:
        t.fit(tiny_loader())
    assert "Optimizer is not defined" in str(_cause(info))
    with pytest.raises(RuntimeError) as info:
        Trainer(device="CPU", model_dir=tmp_path, model=lambda: 3)
    assert "torch.nn.Module" in str(_cause(info))


def test_directories_and_attributes(tmp_path):
    t = _trainer(tmp_path)
    logs = tmp_path / "cerebras_logs"
    assert t.artifact_dir.parent == logs and re.fullmatch(r"\d{8}_\d{6}(_\d+)?",
                                                          t.artifact_dir.name)
    assert (logs / "latest").resolve() == t.artifact_dir.resolve()
    assert t.summary_dir == tmp_path / t.artifact_dir.name and t.summary_dir.is_dir()
    assert (t.artifact_dir / "run.log").exists()
    t2 = _trainer(tmp_path)  # same second: a distinct directory
    assert t2.artifact_dir != t.artifact_dir
    assert t.global_step == 0 and t.executor is None
    assert list(t.callbacks)[:5] == ["autorestart", "artifact_dir", "reproducibility", "backend",
                                     "model"]
    assert list(t.callbacks)[-2:] == ["run_schedule", "checkpoint"]


# ----- hooks -------------------------------------------------------------------------------------
class Recorder(Callback):
    """Records the hooks called (step-level hooks once per call)."""

    def __init__(self):
        self.calls = []

    def __getattribute__(self, name):
        attr = object.__getattribute__(self, name)
        if (name.startswith("on_") or name in ("pre_setup", "setup", "post_setup",
                                                "run_validation", "postprocess_checkpoint",
                                                "preprocess_checkpoint")) and callable(attr):
            calls = object.__getattribute__(self, "calls")

            def record(*args, **kwargs):
                calls.append(name)
                return attr(*args, **kwargs)
            return record
        return attr


EXPECTED_STEP = ["on_train_batch_start", "on_train_step_start", "on_before_forward",
                 "on_after_forward", "on_before_backward", "on_after_backward",
                 "on_before_optimizer_step", "on_after_optimizer_step",
                 "on_before_optimizer_zero_grad", "on_after_optimizer_zero_grad",
                 "on_before_scheduler_step", "on_after_scheduler_step", "on_train_step_end",
                 "on_train_batch_end"]
EXPECTED_VAL_STEP = ["on_validate_batch_start", "on_validate_step_start", "on_before_forward",
                     "on_after_forward", "on_validate_step_end", "on_validate_batch_end"]


def _expected(train_steps_per_stage, traced_once):
    out = ["pre_setup", "setup", "post_setup", "on_enter_fit", "on_before_load_checkpoint",
           "on_fit_start"]
    for i, n in enumerate(train_steps_per_stage):
        out += ["on_enter_train", "on_train_start"]
        for k in range(n):
            step = EXPECTED_STEP if (k == 0 or not traced_once) else \
                ["on_train_batch_start", "on_train_batch_end"]
            out += step
            if k == n - 1:  # checkpoint on the stage's last step (steps=2 divides both)
                out += ["on_save_checkpoint", "postprocess_checkpoint",
                        "on_after_save_checkpoint"]
        # validation inside fit loads no checkpoint (ckpt_path None): the hook still runs
        out += ["on_train_end", "on_enter_validate_all", "on_before_load_checkpoint",
                "on_enter_validate", "on_before_load_checkpoint", "on_validate_start"]
        for k in range(2):
            out += EXPECTED_VAL_STEP if (k == 0 or not traced_once) else \
                ["on_validate_batch_start", "on_validate_batch_end"]
        out += ["on_validate_end", "run_validation"]
    return out + ["on_fit_end"]


@pytest.mark.parametrize("device", ["CPU", "CSX"])
def test_hook_order(tmp_path, device):
    rec = Recorder()
    t = _trainer(tmp_path, device, callbacks=[rec],
                 schedulers=lambda o: cstorch.optim.lr_scheduler.ConstantLR(o, 0.1),
                 loop=TrainingLoop(num_steps=4, eval_frequency=2, eval_steps=2),
                 checkpoint=Checkpoint(steps=2))
    t.fit(tiny_loader(), tiny_loader(3, seed=1))
    # On CSX the traced steps' hooks run on the first step of each executor run only.
    assert rec.calls == _expected([2, 2], traced_once=device == "CSX")
    assert t.global_step == 4


def test_exceptions_are_wrapped_and_exception_hooks_run(tmp_path):
    class Boom(Callback):
        def __init__(self):
            self.seen = []

        def on_train_batch_end(self, trainer, model, outputs, batch, batch_idx):
            raise ValueError("boom")

        def on_train_exception(self, trainer, exception):
            self.seen.append(("train", type(exception).__name__))

        def on_fit_exception(self, trainer, exception):
            self.seen.append(("fit", type(exception).__name__))

    boom = Boom()
    t = _trainer(tmp_path, callbacks=[boom], loop=TrainingLoop(num_steps=2))
    with pytest.raises(RuntimeError, match="Encountered error when calling "
                                           "Boom.on_train_batch_end") as info:
        t.fit(tiny_loader())
    assert isinstance(_cause(info), ValueError)
    assert boom.seen == [("train", "RuntimeError"), ("fit", "RuntimeError")]

    class NoHook:
        pass
    with pytest.raises(AttributeError, match="does not implement on_fit_end"):
        t.callbacks["x"] = NoHook()
        t.call("on_fit_end", t.loop)


def test_global_callbacks_and_non_standard_validation_hooks(tmp_path):
    class Global(Callback):
        def __init__(self):
            self.n = 0

        def on_train_batch_end(self, trainer, model, outputs, batch, batch_idx):
            self.n += 1

    class HarnessLoop(ValidationLoop):
        # as Model Zoo's EleutherEvalHarnessLoop: the loop answers its own start hook
        def __init__(self):
            super().__init__(eval_steps=2, hook="eval_harness")

        def on_eval_harness_start(self, trainer, model, val_dataloader, loop):
            model.eval()
            self.on_validate_start(trainer, model, val_dataloader, loop)

    class Custom(Callback):
        def __init__(self):
            self.hooks = []

        def on_eval_harness_start(self, trainer, model, val_dataloader, loop):
            self.hooks.append("start")

        def on_eval_harness_batch_end(self, trainer, model, outputs, batch, batch_idx):
            self.hooks.append("batch")

    g, custom = Global(), Custom()
    with g:
        t = _trainer(tmp_path, callbacks=[custom], loop=TrainingLoop(num_steps=3))
        t.fit(tiny_loader())
    assert g.n == 3
    t.validate(tiny_loader(3), loop=HarnessLoop())
    assert custom.hooks == ["start", "batch", "batch"]


# ----- outputs -----------------------------------------------------------------------------------
def test_output_normalisation():
    loss, logits = torch.tensor(1.0), torch.ones(2, 3)
    assert convert_output_to_dict(loss) == {"loss": loss}
    assert convert_output_to_dict(torch.ones(1)).keys() == {"loss"}
    assert convert_output_to_dict(logits) == {"output": logits}
    assert convert_output_to_dict((loss, logits)) == {"loss": loss, "logits": logits}
    d = {"loss": loss, "acc": 3}
    assert convert_output_to_dict(d) is d
    with pytest.raises(TypeError, match="Output must be a torch.Tensor or dict"):
        convert_output_to_dict(3.0)


def test_model_without_a_loss_output(tmp_path):
    class Logits(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, batch):
            return self.fc(batch[0])

    t = _trainer(tmp_path, model=lambda: Logits(), loop=TrainingLoop(num_steps=1))
    with pytest.raises(RuntimeError) as info:
        t.fit(tiny_loader())
    assert "return a dictionary with a 'loss' key. Got: ['output']" in str(_cause(info))


# ----- loops -------------------------------------------------------------------------------------
@pytest.mark.slow
def test_stages_and_eval_frequency(tmp_path):
    def stages(**loop):
        t = _trainer(tmp_path, loop=TrainingLoop(**loop), logging=Logging(log_steps=None))
        t.fit(tiny_loader(), tiny_loader(2))
        return t.stages_at_start

    class Stages(Callback):
        def on_fit_start(self, trainer, train_dataloader, val_dataloader, loop):
            trainer.stages_at_start = [(s.type.name[:3], s.steps)
                                       for s in trainer.schedule.stages]

    with Stages():
        assert stages(num_steps=5, eval_frequency=2) == [("TRA", 2), ("VAL", None),
                                                         ("TRA", 2), ("VAL", None),
                                                         ("TRA", 1), ("VAL", None)]
        assert stages(num_steps=5, eval_frequency=0.5) == [("TRA", 3), ("VAL", None),
                                                           ("TRA", 2), ("VAL", None)]
        assert stages(num_steps=5, eval_frequency=None) == [("TRA", 5)]
        assert stages(num_epochs=2) == [("TRA", 12), ("VAL", None)]  # 1.0: once, at the end
        assert stages(num_epochs=2, eval_frequency=6) == [("TRA", 6), ("VAL", None),
                                                          ("TRA", 6), ("VAL", None)]


def test_loop_validation():
    with pytest.raises(ValueError, match="`max_steps` must be greater than 0"):
        TrainingLoop(max_steps=0)
    with pytest.raises(ValueError, match="`eval_steps` must be greater than 0"):
        ValidationLoop(eval_steps=-1)


def test_gradient_accumulation_on_cpu(tmp_path):
    t = _trainer(tmp_path, loop=TrainingLoop(num_epochs=1, grad_accum_steps=2,
                                             eval_frequency=None))
    t.fit(tiny_loader(6))
    # 6 batches per epoch // 2 = 3 steps of the executor; 1 optimizer step per 2 batches
    assert t.loop.total_steps == 3
    assert t.global_step == 1


# ----- checkpoints -------------------------------------------------------------------------------
def test_checkpoint_contents_naming_and_index(tmp_path):
    t = _trainer(tmp_path, schedulers=lambda o: cstorch.optim.lr_scheduler.ConstantLR(o, 0.1),
                 loop=TrainingLoop(num_steps=5), checkpoint=Checkpoint(steps=2))
    t.fit(tiny_loader())
    names = sorted(p.name for p in tmp_path.glob("checkpoint_*.mdl"))
    assert names == ["checkpoint_2.mdl", "checkpoint_4.mdl", "checkpoint_5.mdl"]
    sd = cstorch.load(tmp_path / "checkpoint_4.mdl")
    assert set(sd) == {"model", "optimizer", "schedulers", "global_step", "dataloader"}
    assert sd["global_step"] == 4 and sd["dataloader"] == {"position": 4}
    assert t.checkpoint.get_all_checkpoints(tmp_path) == [str(tmp_path / n) for n in names]
    # a second save of step 5 gets a timestamp suffix and becomes the latest
    p = t.checkpoint.get_checkpoint_path(5)
    assert re.fullmatch(r"checkpoint_5_\d{8}_\d{6}\.mdl", p.name)
    with pytest.raises(ValueError, match="Expected keys: {'step'}"):
        Checkpoint(checkpoint_name="ckpt.mdl")
    with pytest.raises(ValueError, match="non-negative integer"):
        Checkpoint(steps=-1)


def test_save_initial_checkpoint_and_keep_n(tmp_path):
    from minitorch_cs.modelzoo.trainer.callbacks import KeepNCheckpoints
    t = _trainer(tmp_path, loop=TrainingLoop(num_steps=6),
                 checkpoint=Checkpoint(steps=1, save_initial_checkpoint=True),
                 callbacks=[KeepNCheckpoints(n=2)])
    t.fit(tiny_loader())
    assert sorted(p.name for p in tmp_path.glob("checkpoint_*.mdl")) == [
        "checkpoint_5.mdl", "checkpoint_6.mdl"]
    assert [p.rsplit("/", 1)[-1] for p in t.checkpoint.checkpoint_index.list()] == [
        "checkpoint_5.mdl", "checkpoint_6.mdl"]


def test_strict_loading_and_load_checkpoint_states(tmp_path):
    from minitorch_cs.modelzoo.trainer.callbacks import LoadCheckpointStates
    t = _trainer(tmp_path / "a", loop=TrainingLoop(num_steps=2), checkpoint=Checkpoint(steps=2))
    t.fit(tiny_loader())
    ckpt = tmp_path / "a" / "checkpoint_2.mdl"

    class Bigger(TinyModel):
        def __init__(self):
            super().__init__()
            self.extra = nn.Linear(2, 2)

    t = _trainer(tmp_path / "b", model=lambda: Bigger(), loop=TrainingLoop(num_steps=1))
    with pytest.raises(RuntimeError) as info:
        t.fit(tiny_loader(), ckpt_path=ckpt)
    assert "Missing key(s)" in str(_cause(info)) or "extra" in str(_cause(info))
    t = _trainer(tmp_path / "c", model=lambda: Bigger(), loop=TrainingLoop(num_steps=1),
                 checkpoint=Checkpoint(disable_strict_checkpoint_loading=True),
                 callbacks=[LoadCheckpointStates("model,global_step")])
    t.fit(tiny_loader(), ckpt_path=ckpt)
    assert t.global_step == 3
    t = _trainer(tmp_path / "d", loop=TrainingLoop(num_steps=1),
                 callbacks=[LoadCheckpointStates("model")])
    t.fit(tiny_loader(), ckpt_path=ckpt)
    assert t.global_step == 1  # global_step was not loaded
    with pytest.raises(TypeError, match="load_checkpoint_states"):
        LoadCheckpointStates(3)


def test_version_check(tmp_path):
    from minitorch_cs.modelzoo.trainer.callbacks import Checkpoint as C
    C.check_compatibility({"__metadata__": [{"version": "2.10.3"}]})
    with pytest.raises(ValueError, match="incompatible"):
        C.check_compatibility({"__metadata__": [{"version": "2.9.0"}]})
    with pytest.warns(UserWarning, match="incompatible"):
        C.check_compatibility({"__metadata__": [{"version": "1.9.0"}]}, strict_version=False)


def test_compile_only_fit_runs_one_step_and_saves_nothing(tmp_path):
    backend = cstorch.backend("CSX", compile_only=True)
    t = Trainer(backend=backend, model_dir=tmp_path, model=lambda: TinyModel(),
                optimizer=lambda m: cstorch.optim.SGD(m.parameters(), lr=0.1),
                loop=TrainingLoop(num_steps=5), checkpoint=Checkpoint(steps=1))
    before = {k: v.cpu().numpy().copy() for k, v in t.model.state_dict().items()}
    t.fit(tiny_loader(), tiny_loader(2))
    assert t.loop.total_steps == 1 and t.global_step == 1
    assert not list(tmp_path.glob("checkpoint_*.mdl"))
    after = t.model.state_dict()
    assert all(np.array_equal(before[k], after[k].cpu().numpy()) for k in before)


# ----- early exit, metrics ------------------------------------------------------------------------
def test_early_exit(tmp_path):
    t = _trainer(tmp_path, loop=TrainingLoop(num_steps=6))
    t.early_exit.register(lambda: t.global_step >= 2)
    t.fit(tiny_loader())
    assert t.global_step == 2
    with pytest.raises(TypeError, match="must be callable"):
        t.early_exit.register(3)


def test_log_metrics_destinations(tmp_path):
    class Sink(Logger):
        def __init__(self):
            self.got = []

        def log_metrics(self, metrics, step):
            self.got.append((step, dict(metrics)))

    class Other(Sink):
        pass

    sink, other = Sink(), Other()
    t = _trainer(tmp_path, loggers=[sink, other])
    t.log_metrics(a=1)
    t.log_metrics_dict({"b": 2}, step=7, dest="Other")
    assert sink.got == [(0, {"a": 1})] and other.got == [(0, {"a": 1}), (7, {"b": 2})]
    with pytest.warns(UserWarning, match="None of the loggers matched"):
        t.log_metrics_dict({"c": 3}, dest={"Nope"})
    with pytest.raises(TypeError, match="must be a string or a set"):
        t.log_metrics_dict({"c": 3}, dest=3)
    with t.name_scope("scope"):
        t.log_metrics(d=4)
    assert sink.got[-1] == (0, {"scope/d": 4})
    t.remove_logger_destination("Sink")
    t.log_metrics(e=5)
    assert sink.got[-1] == (0, {"scope/d": 4})
    bare = _trainer(tmp_path / "bare")
    with pytest.warns(UserWarning, match="No loggers are attached"):
        bare.log_metrics(x=1)


def test_progress_logger_bar_and_lines(tmp_path, capsys):
    t = _trainer(tmp_path, loop=TrainingLoop(num_steps=4, eval_frequency=4, eval_steps=2),
                 logging=Logging(log_steps=2), loggers=[ProgressLogger(progress_bar=True)])
    t.fit(tiny_loader(), tiny_loader(2))
    out = capsys.readouterr()
    assert "| Train Device=cpu, Step=2, Loss=" in out.out
    assert "| Train Device=cpu, Step=4, Loss=" in out.out
    assert "| Eval Device=cpu, GlobalStep=4, Batch=2, Loss=" in out.out
    assert "train 1/1: 100%" in out.err and "4/4" in out.err and "samples/s" in out.err
    assert "validate_0: 100%" in out.err
    assert "Processed 20 training sample(s)" in out.out
