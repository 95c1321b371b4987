"""On the emulated CSX backend the optimizer, the scheduler and dynamic loss scaling are
captured once and replayed: the replayed run must equal the CPU run bit for bit, skipped
(non-finite) steps and their rollback included."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import minitorch_cs as cstorch
import minitorch_cs.optim as optim
import minitorch_cs.torch as torch
from minitorch_cs import amp
from minitorch_cs.optim import lr_scheduler as LRS
from minitorch_cs.utils.data import DataExecutor, DataLoader


def _run(kind, tmp_path, make_opt):
    importlib.import_module("minitorch_cs.backend")._reset_for_tests()
    backend = cstorch.backend(kind, artifact_dir=tmp_path / kind)
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    compiled = cstorch.compile(model, backend)
    opt = make_opt(model.parameters())
    sched = LRS.SequentialLR(opt, [LRS.LinearLR(opt, 0.0, 0.1, 3),
                                   LRS.CosineDecayLR(opt, 0.1, 0.01, 4)], milestones=[3])
    scaler = amp.GradScaler("dynamic", init_scale=8.0, steps_per_increase=2)
    seen = []

    @cstorch.step_closure
    def record(lr, scale, skipped, epoch):
        seen.append((float(lr), float(scale), int(skipped), int(epoch)))

    @cstorch.trace
    def step(x):
        loss = compiled(x).square().sum()
        # the loss is scaled explicitly: off CSX GradScaler.scale() is the identity
        (loss * scaler.get_scale()).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        sched.step()
        record(opt.param_groups[0]["lr"], scaler.get_scale(), scaler.get_num_skipped_steps(),
               sched.last_epoch)
        return loss

    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    batches = [torch.tensor(x * (k + 1)) for k in range(8)]
    batches[3] = torch.full((2, 3), float("inf"))
    batches[6] = torch.full((2, 3), float("nan"))
    with np.errstate(all="ignore"):
        for batch in DataExecutor(DataLoader(lambda: batches), num_steps=8):
            step(batch)
    return seen, [p.detach().cpu().numpy().copy() for p in model.parameters()]


@pytest.mark.parametrize("make_opt", [lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9),
                                      lambda ps: optim.AdamW(ps, weight_decay=0.1)],
                         ids=["SGD", "AdamW"])
def test_csx_replay_equals_cpu(make_opt, tmp_path):
    cpu_seen, cpu_params = _run("CPU", tmp_path, make_opt)
    csx_seen, csx_params = _run("CSX", tmp_path, make_opt)
    assert [s[2] for s in cpu_seen] == [0, 0, 0, 1, 1, 1, 2, 2]  # two skipped steps
    assert csx_seen == cpu_seen
    for a, b in zip(cpu_params, csx_params):
        np.testing.assert_array_equal(a, b)
