"""Model Zoo 2.10 docs, "Defer Weight Initialization": a model (and optimizer, schedulers) given
as callables is built by the Trainer inside ``backend.device`` and trains exactly as the same
objects built by hand there."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs as cstorch
import minitorch_cs.torch as torch
from minitorch_cs.modelzoo import Trainer
from minitorch_cs.modelzoo.trainer.callbacks import Logging, TrainingLoop

from .conftest import TinyModel, tiny_loader


def _run(tmp_path, device, callable_form, name):
    backend = cstorch.current_backend(raise_exception=False) or cstorch.backend(device)
    if callable_form:
        kwargs = dict(
            model=lambda: TinyModel(),
            optimizer=lambda model: cstorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5),
            schedulers=lambda optimizer: cstorch.optim.lr_scheduler.LinearLR(
                optimizer, initial_learning_rate=0.1, end_learning_rate=0.01, total_iters=6))
    else:
        torch.manual_seed(7)
        with backend.device:
            model = TinyModel()
        optimizer = cstorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
        kwargs = dict(model=model, optimizer=optimizer,
                      schedulers=[cstorch.optim.lr_scheduler.LinearLR(
                          optimizer, initial_learning_rate=0.1, end_learning_rate=0.01,
                          total_iters=6)])
    trainer = Trainer(backend=backend, model_dir=tmp_path / name, seed=7,
                      loop=TrainingLoop(num_steps=8), logging=Logging(log_steps=100), **kwargs)
    trainer.fit(tiny_loader())
    return trainer


@pytest.mark.parametrize("device", ["CPU", "CSX"])
def test_callable_form_equals_object_form(tmp_path, device):
    a = _run(tmp_path, device, True, "callable")
    b = _run(tmp_path, device, False, "object")
    assert a.global_step == b.global_step == 8
    assert a.metrics_history.series("loss") == b.metrics_history.series("loss")
    sa, sb = a.model.state_dict(), b.model.state_dict()
    assert sorted(sa) == sorted(sb)
    for k in sa:
        assert np.array_equal(sa[k].cpu().numpy(), sb[k].cpu().numpy()), k


def test_callable_model_is_built_inside_the_device_context(tmp_path):
    backend = cstorch.backend("CSX")
    seen = []

    def build():
        seen.append(backend.device.is_active)
        return TinyModel()

    Trainer(backend=backend, model_dir=tmp_path, model=build,
            optimizer=lambda m: cstorch.optim.SGD(m.parameters(), lr=0.1))
    assert seen == [True]
    assert not backend.device.is_active


def test_callable_model_needs_callable_optimizer(tmp_path):
    cstorch.backend("CPU")
    model = TinyModel()
    optimizer = cstorch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="Expected optimizer to be a callable"):
        Trainer(device="CPU", model_dir=tmp_path, model=lambda: TinyModel(), optimizer=optimizer)


def test_schedulers_accept_object_callable_and_list(tmp_path):
    backend = cstorch.backend("CPU")
    model = TinyModel()
    opt = cstorch.optim.SGD(model.parameters(), lr=0.1)
    lr = cstorch.optim.lr_scheduler.ConstantLR(opt, learning_rate=0.1)
    t = Trainer(backend=backend, model_dir=tmp_path / "a", model=model, optimizer=opt,
                schedulers=lr)
    assert t.schedulers == [lr]
    t = Trainer(backend=backend, model_dir=tmp_path / "b", model=lambda: TinyModel(),
                optimizer=lambda m: cstorch.optim.SGD(m.parameters(), lr=0.1),
                schedulers=[lambda o: cstorch.optim.lr_scheduler.ConstantLR(o, 0.1),
                            lambda o: cstorch.optim.weight_decay_scheduler.ConstantWD(o, 0.0)])
    assert [type(s).__name__ for s in t.schedulers] == ["ConstantLR", "ConstantWD"]
    with pytest.raises(RuntimeError, match="SchedulersCallback.setup") as info:
        Trainer(backend=backend, model_dir=tmp_path / "c", model=lambda: TinyModel(),
                optimizer=lambda m: cstorch.optim.SGD(m.parameters(), lr=0.1),
                schedulers=[lambda o: cstorch.optim.lr_scheduler.ConstantLR(o, 0.1),
                            lambda o: cstorch.optim.lr_scheduler.ConstantLR(o, 0.2)])
    assert "cannot share `param_group_tags`" in str(info.value.__cause__)
