"""A traced step that ends with ``zero_grad()`` runs the same on CSX in every executor run."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs as cstorch
import minitorch_cs.torch as torch
import minitorch_cs.torch.nn as nn


class _Batches:
    def __len__(self):
        return 4

    def __iter__(self):
        rng = np.random.default_rng(0)
        for _ in range(4):
            yield torch.from_numpy(rng.standard_normal((5, 4)).astype(np.float32))


def _losses(device, tmp_path):
    backend = cstorch.backend(device, artifact_dir=tmp_path / device)
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    compiled = cstorch.compile(model, backend)
    opt = cstorch.optim.SGD(model.parameters(), lr=0.1)

    @cstorch.trace
    def step(x):
        loss = (compiled(x) ** 2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    out = []

    @cstorch.step_closure
    def record(loss):
        out.append(loss.item())

    loader = cstorch.utils.data.DataLoader(_Batches)
    for _ in range(3):  # three runs: each CSX run captures anew, then replays
        for x in cstorch.utils.data.DataExecutor(loader, num_steps=3):
            record(step(x))
        assert model.weight.grad is None  # as after an eager step ending in zero_grad()
    return out


@pytest.mark.parametrize("device", ["CPU", "CSX"])
def test_gradients_unset_after_every_step(device, tmp_path):
    import importlib
    B = importlib.import_module("minitorch_cs.backend")
    losses = _losses(device, tmp_path)
    B._reset_for_tests()
    other = _losses("CPU" if device == "CSX" else "CSX", tmp_path / "other")
    assert losses == other


def test_repeating_closures_end_with_their_run(tmp_path):
    """Closures queued while tracing repeat every step of *their* run only (cstorch's CSX
    backend empties the closure queue at the end of a run)."""
    backend = cstorch.backend("CSX", artifact_dir=tmp_path)
    model = nn.Linear(4, 3)
    compiled = cstorch.compile(model, backend)
    seen = []

    @cstorch.step_closure
    def record(tag, loss):
        seen.append(tag)

    def make_step(tag):
        @cstorch.trace
        def step(x):
            loss = compiled(x).sum()
            record(tag, loss)
            return loss
        return step

    loader = cstorch.utils.data.DataLoader(_Batches)
    for tag in ("a", "b"):
        step = make_step(tag)
        for x in cstorch.utils.data.DataExecutor(loader, num_steps=3):
            step(x)
    assert seen == ["a"] * 3 + ["b"] * 3


def test_closures_run_on_activation_steps_only(tmp_path):
    backend = cstorch.backend("CSX", artifact_dir=tmp_path)
    compiled = cstorch.compile(nn.Linear(4, 3), backend)
    seen = []

    @cstorch.step_closure
    def record(step, loss):
        seen.append(step)

    @cstorch.trace
    def step(x):
        loss = compiled(x).sum()
        return loss

    loader = cstorch.utils.data.DataLoader(_Batches)
    executor = cstorch.utils.data.DataExecutor(loader, num_steps=4, activation_steps=2)
    for i, x in enumerate(executor, start=1):
        record(i, step(x))
    assert seen == [2, 4]


def test_no_closure_runs_in_compile_only_runs(tmp_path):
    backend = cstorch.backend("CSX", artifact_dir=tmp_path, compile_only=True)
    compiled = cstorch.compile(nn.Linear(4, 3), backend)
    seen = []

    @cstorch.step_closure
    def record(loss):
        seen.append(loss)

    @cstorch.checkpoint_closure
    def save():
        seen.append("checkpoint")

    @cstorch.trace
    def step(x):
        return compiled(x).sum()

    loader = cstorch.utils.data.DataLoader(_Batches)
    for x in cstorch.utils.data.DataExecutor(loader, num_steps=1, checkpoint_steps=1):
        record(step(x))
        save()
    assert seen == []
