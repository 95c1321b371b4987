"""The optional callbacks, precision, loggers and the end-of-fit plot."""
from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

import minitorch_cs as cstorch
import minitorch_cs.torch as torch
from minitorch_cs.modelzoo import Trainer
from minitorch_cs.modelzoo.trainer.callbacks import (CheckLoss, ComputeNorm, CountParams,
                                                     DurationProfiler, GlobalFlags,
                                                     LogOptimizerParamGroup, Logging,
                                                     MixedPrecision, ModelEvalMetrics,
                                                     RateProfiler, ScopedTrainFlags,
                                                     ScopedValidateFlags, TrainingLoop)
from minitorch_cs.modelzoo.trainer.loggers import MetricsFileLogger

from .conftest import TinyModel, tiny_loader


def _fit(tmp_path, device="CPU", steps=3, val=None, **kw):
    kw.setdefault("logging", Logging(log_steps=1))
    t = Trainer(device=device, model_dir=tmp_path, seed=0, model=kw.pop("model", TinyModel),
                optimizer=lambda m: cstorch.optim.SGD(m.parameters(), lr=0.1),
                loop=TrainingLoop(num_steps=steps, eval_frequency=steps if val else None,
                                  eval_steps=2), **kw)
    t.fit(tiny_loader(), val)
    return t


def test_check_loss_finds_nan_and_non_scalar(tmp_path):
    class NaNModel(TinyModel):
        def forward(self, batch):
            return super().forward(batch) * float("nan")

    with pytest.raises(RuntimeError, match="NaN loss detected"):
        _fit(tmp_path / "a", model=NaNModel, callbacks=[CheckLoss()])

    class VectorLoss(TinyModel):
        def forward(self, batch):
            return {"loss": torch.ones(2) * super().forward(batch)}

    with pytest.raises(RuntimeError) as info:
        _fit(tmp_path / "b", model=VectorLoss, callbacks=[CheckLoss()])
    assert "Expected loss to be a scalar torch.Tensor" in str(info.value.__cause__)


@pytest.mark.parametrize("device", ["CPU", "CSX"])
def test_compute_norm_and_param_group_logging(tmp_path, device):
    t = _fit(tmp_path, device, steps=2, callbacks=[ComputeNorm(), LogOptimizerParamGroup("lr")])
    h = t.metrics_history
    # logged from inside the traced step, i.e. in a step closure: after global_step += 1
    assert [s for s, _ in h.series("lr/0")] == [1, 2]
    assert all(v == pytest.approx(0.1) for _, v in h.series("lr/0"))
    # the parameter norm at the last step equals the norm of the weights before that update
    norms = [v for _, v in h.series("model_wise_params_norm")]
    assert len(norms) == 2 and all(v > 0 for v in norms)
    assert len(h.series("model_wise_grad_norm")) == 2
    with pytest.raises(RuntimeError) as info:
        _fit(tmp_path / "bad", device, callbacks=[LogOptimizerParamGroup("nope")])
    assert "Key nope not found" in str(info.value.__cause__)


def test_compute_norm_value(tmp_path):
    t = _fit(tmp_path, steps=1, callbacks=[ComputeNorm()])
    start = Trainer(device="CPU", model_dir=tmp_path / "x", seed=0, model=TinyModel).model
    expected = math.sqrt(sum(float((p.detach().numpy().astype(np.float64) ** 2).sum())
                             for p in start.parameters()))
    (_, got), = t.metrics_history.series("model_wise_params_norm")
    assert got == pytest.approx(expected, rel=1e-6)


def test_rate_and_duration_profilers(tmp_path):
    t = _fit(tmp_path, steps=4, callbacks=[RateProfiler(), DurationProfiler()])
    h = t.metrics_history
    rates = [v for _, v in h.series("avg_samples_per_sec")]
    assert len(rates) == 4 and all(r >= 0 for r in rates[1:])
    assert [v for _, v in h.series("avg_steps_per_sec")]
    remaining = [v for _, v in h.series("loop_time_remaining")]
    assert remaining[-1] == 0


def test_count_params(tmp_path, caplog):
    cp = CountParams(search_and_replace=[[r"fc\d", "fc_grouped"]], order_by="# Elements")
    t = Trainer(device="CPU", model_dir=tmp_path, model=TinyModel, callbacks=[cp])
    text, rows = cp.get_table(t.model)
    assert "Total Params (including frozen): 67" in text  # 4*8 + 8 + 8*3 + 3
    assert rows[0][:2] == ["group", "fc_grouped.bias"]
    with pytest.raises(ValueError, match="Invalid order_by column"):
        CountParams(order_by="Elements")


def test_flags(tmp_path):
    flags = cstorch.backends.csx.debug
    assert flags.retrace_every_iteration is False
    seen = {}

    class Spy(ScopedValidateFlags):
        def on_validate_end(self, trainer, model, loop):
            seen["val"] = cstorch.backends.csx.performance.transfer_processes
            super().on_validate_end(trainer, model, loop)

    class TrainSpy(ScopedTrainFlags):
        def on_train_end(self, trainer, model, loop, loop_idx):
            seen["train"] = flags.log_initialization
            super().on_train_end(trainer, model, loop, loop_idx)

    _fit(tmp_path, steps=2, val=tiny_loader(2), callbacks=[
        GlobalFlags(**{"csx.debug.retrace_every_iteration": True}),
        TrainSpy(**{"csx.debug.log_initialization": False}),
        Spy(**{"csx.performance.transfer_processes": 2})])
    assert seen == {"train": False, "val": 2}
    assert flags.retrace_every_iteration is True  # global: stays set
    assert flags.log_initialization is True  # scoped: restored
    assert cstorch.backends.csx.performance.transfer_processes == 5


def test_model_eval_metrics(tmp_path):
    from minitorch_cs.modelzoo.models.vision.fc_mnist import MNISTModel, MNISTModelConfig
    from minitorch_cs.modelzoo.models.vision.fc_mnist.data import MNISTBatches
    rng = np.random.default_rng(0)
    x = rng.standard_normal((40, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, 40)

    def loader():
        return MNISTBatches(x, y, 10, False, True, 0, torch.int64)

    cfg = MNISTModelConfig(name="fc_mnist", depth=1, hidden_size=4, compute_eval_metrics=True)
    t = Trainer(device="CPU", model_dir=tmp_path, model=lambda: MNISTModel(cfg),
                callbacks=[ModelEvalMetrics()])
    t.validate(cstorch.utils.data.DataLoader(loader))
    (_, acc), = t.metrics_history.series("validate_0/accuracy")
    model = t.model.eval()
    with torch.no_grad():
        pred = model.model(torch.from_numpy(x)).argmax(-1).numpy()
    assert acc == pytest.approx(float((pred == y).mean()))


def test_mixed_precision_on_cpu_uses_bfloat16(tmp_path):
    seen = {}

    class Spy(TinyModel):
        def forward(self, batch):
            x, y = batch
            h = self.fc1(x)
            seen["dtype"] = h.dtype
            return self.loss(self.fc2(torch.relu(h)).float(), y)

    with pytest.warns(UserWarning, match="only supported with bfloat16"):
        t = _fit(tmp_path, model=Spy, precision=MixedPrecision(fp16_type="float16",
                                                               max_gradient_norm=1.0))
    assert seen["dtype"] is torch.bfloat16
    assert t.precision.scaler is None and t.global_step == 3
    with pytest.raises(RuntimeError) as info:
        _fit(tmp_path / "b", precision=MixedPrecision(max_gradient_norm=1.0,
                                                      max_gradient_value=1.0))
    assert "not both" in str(info.value.__cause__)
    with pytest.raises(ValueError, match="loss_scaling_factor"):
        MixedPrecision(loss_scaling_factor="auto")


def test_mixed_precision_on_csx_uses_the_grad_scaler(tmp_path):
    t = _fit(tmp_path, "CSX", precision=MixedPrecision(fp16_type="float16",
                                                       loss_scaling_factor="dynamic"))
    assert isinstance(t.precision.scaler, cstorch.amp.GradScaler)
    assert len(t.metrics_history.series("loss_scale")) == 3
    sd = cstorch.load(next(tmp_path.glob("checkpoint_*.mdl"))) if list(
        tmp_path.glob("checkpoint_*.mdl")) else None
    assert sd is None  # no checkpoint cadence given


def test_metrics_file_logger_and_plot(tmp_path):
    logger = MetricsFileLogger()
    t = _fit(tmp_path, steps=4, val=tiny_loader(2), loggers=[logger])
    with logger.csv_path.open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["step"], r["name"]) for r in rows if r["name"] == "loss"] == [
        (str(s), "loss") for s in (1, 2, 3, 4)]
    train = [float(r["value"]) for r in rows if r["name"] == "loss"]
    assert train == [v for _, v in t.metrics_history.series("loss")]
    lines = [json.loads(x) for x in logger.jsonl_path.read_text().splitlines()]
    assert {"step": 4, "validate_0/loss": pytest.approx(
        t.metrics_history.series("validate_0/loss")[0][1])} in lines
    png = t.summary_dir / "training_curves.png"
    pytest.importorskip("matplotlib")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert t.metrics_history.plot_path == png


def test_tensorboard_logger_when_available(tmp_path):
    import minitorch_cs.modelzoo.trainer.loggers as L
    if not hasattr(L, "TensorBoardLogger"):
        pytest.skip("minitorch_cs.utils.tensorboard is not available")
    from minitorch_cs.utils.tensorboard import SummaryReader
    tb = L.TensorBoardLogger()
    t = _fit(tmp_path, steps=3, loggers=[tb])
    tb.flush()
    events = SummaryReader(str(tmp_path / "events")).read_scalar("loss")
    assert [(e.step, pytest.approx(e.value)) for e in events] == \
        [(s, pytest.approx(v)) for s, v in t.metrics_history.series("loss")]


def test_plot_without_matplotlib_is_logged_not_silent(tmp_path, monkeypatch, caplog):
    import builtins
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ModuleNotFoundError("No module named 'matplotlib'", name="matplotlib")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with caplog.at_level("INFO", logger="minitorch_cs.modelzoo"):
        t = _fit(tmp_path, steps=2)
    png = t.summary_dir / "training_curves.png"
    assert not png.exists() and t.metrics_history.plot_path is None
    assert (f"Skipped {png}: matplotlib is not installed (No module named 'matplotlib'); pip "
            f"install 'minitorch-cs[plot]' to get the loss/accuracy plot") in caplog.text
