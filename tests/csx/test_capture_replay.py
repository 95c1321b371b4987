"""The emulated CSX backend: trace once, replay, the wafer's rules (issue 7; cstorch 2.10 `core/compile.py`, `utils/data/data_executor.py`)."""
import importlib
import warnings

import numpy as np
import pytest

import minitorch_cs as cstorch
import minitorch_cs.torch as torch
import minitorch_cs.torch.nn as nn
import minitorch_cs.torch.nn.functional as F

_backend_mod = importlib.import_module("minitorch_cs.backend")


def _fresh(kind, tmp_path, **kw):
    _backend_mod._reset_for_tests()
    cstorch.backends.reset()
    return cstorch.backend(kind, artifact_dir=tmp_path / kind, **kw)


def _data(n_batches=6, batch=8, d_in=12, n_cls=4, seed=0, image=False):
    rng = np.random.default_rng(seed)
    shape = (batch, 1, 6, 6) if image else (batch, d_in)
    return [(torch.from_numpy(rng.standard_normal(shape, dtype=np.float32)),
             torch.from_numpy(rng.integers(0, n_cls, batch))) for _ in range(n_batches)]


class MLP(nn.Module):
    def __init__(self, d_in=12, hidden=16, n_cls=4):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, n_cls)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class CNN(nn.Module):
    def __init__(self, n_cls=4):
        super().__init__()
        self.conv = nn.Conv2d(1, 3, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(3 * 3 * 3, n_cls)

    def forward(self, x):
        return self.fc(self.pool(F.relu(self.conv(x))).flatten(1))


def _train(kind, tmp_path, model_cls=MLP, opt="sgd", steps=30, sched=False, image=False,
           ckpt_every=None):
    b = _fresh(kind, tmp_path)
    torch.manual_seed(0)
    with b.device:
        model = model_cls()
    compiled = cstorch.compile(model, b)
    if opt == "sgd":
        optimizer = cstorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    else:
        optimizer = cstorch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)
    scheduler = None
    if sched:
        LR = cstorch.optim.lr_scheduler
        scheduler = LR.SequentialLR(optimizer, [
            LR.LinearLR(optimizer, initial_learning_rate=0.1, end_learning_rate=0.01,
                        total_iters=10),
            LR.CosineDecayLR(optimizer, initial_learning_rate=0.01, end_learning_rate=0.001,
                             total_iters=20)], milestones=[10])
    data = _data(image=image)
    loader = cstorch.utils.data.DataLoader(lambda: data)
    body_runs = [0]

    @cstorch.trace
    def step(x, y):
        body_runs[0] += 1
        loss = F.cross_entropy(compiled(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if scheduler is not None:
            scheduler.step()
        return loss

    losses, lrs = [], []

    @cstorch.step_closure
    def record(loss, lr):
        losses.append(loss.item())
        lrs.append(float(lr))

    for x, y in cstorch.utils.data.DataExecutor(loader, num_steps=steps,
                                                checkpoint_steps=ckpt_every):
        loss = step(x, y)
        record(loss, optimizer.param_groups[0]["lr"])
    weights = [p.detach().cpu().numpy().copy() for p in model.parameters()]
    return losses, weights, body_runs[0], lrs


@pytest.mark.parametrize("model_cls,image,opt,sched", [
    (MLP, False, "sgd", False), (MLP, False, "adamw", True), (CNN, True, "sgd", True),
    (CNN, True, "adamw", False)])
def test_csx_equals_cpu_bit_for_bit(tmp_path, model_cls, image, opt, sched):
    lc, wc, rc, lrc = _train("CPU", tmp_path, model_cls, opt, steps=40, sched=sched, image=image)
    lx, wx, rx, lrx = _train("CSX", tmp_path, model_cls, opt, steps=40, sched=sched, image=image)
    assert rc == 40 and rx == 1
    assert lc == lx
    assert all(np.array_equal(a, b) for a, b in zip(wc, wx))
    assert len(set(lx)) > 30  # losses change every step although the body ran once
    if sched:
        assert lrc == lrx and lrx[0] != lrx[-1]


def test_body_runs_once_per_executor_run(tmp_path):
    b = _fresh("CSX", tmp_path)
    model = MLP()
    compiled = cstorch.compile(model, b)
    counter = {"n": 0, "printed": []}
    loader = cstorch.utils.data.DataLoader(lambda: _data())

    @cstorch.trace
    def step(x, y):
        counter["n"] += 1
        counter["printed"].append("side effect")
        return compiled(x).sum()

    seen = []
    record = cstorch.step_closure(lambda v: seen.append(v.item()))
    for x, y in cstorch.utils.data.DataExecutor(loader, num_steps=100):
        record(step(x, y))
    assert counter["n"] == 1 and counter["printed"] == ["side effect"]
    assert len(seen) == 100 and len(set(seen)) == 6  # six distinct batches, cycled
    for x, y in cstorch.utils.data.DataExecutor(loader, num_steps=3):
        step(x, y)
    assert counter["n"] == 2  # a new run traces again


def test_closures_inside_trace_repeat_with_real_values(tmp_path):
    b = _fresh("CSX", tmp_path)
    model = MLP()
    compiled = cstorch.compile(model, b)
    loader = cstorch.utils.data.DataLoader(lambda: _data())
    inside = []

    @cstorch.trace
    def step(x, y):
        out = compiled(x).sum()
        cstorch.step_closure(lambda v, s: inside.append((v.item(), s)))(out, "traced")
        return out

    outside = []
    for i, (x, y) in enumerate(cstorch.utils.data.DataExecutor(loader, num_steps=8)):
        out = step(x, y)
        assert len(inside) == i  # closures run at the end of the step, not during it
        cstorch.step_closure(lambda v: outside.append(v.item()))(out)
    expected = [compiled(x.to(b.torch_device)).sum().item() for x, _ in (_data() * 2)[:8]]
    assert [v for v, _ in inside] == pytest.approx(expected, rel=1e-6)
    assert outside == [v for v, _ in inside]


@pytest.mark.parametrize("read", [
    lambda t: t.item(), lambda t: t.tolist(), lambda t: t.numpy(), lambda t: bool(t.sum() > 0),
    lambda t: float(t.sum()), lambda t: 1 if t.sum() else 0, lambda t: f"{t.sum():.3f}"])
def test_reading_values_inside_trace_raises(tmp_path, read):
    b = _fresh("CSX", tmp_path)
    model = MLP()
    compiled = cstorch.compile(model, b)
    loader = cstorch.utils.data.DataLoader(lambda: _data())

    @cstorch.trace
    def step(x, y):
        out = compiled(x).detach()
        read(out)
        return out

    with pytest.raises(RuntimeError, match="step_closure"):
        for x, y in cstorch.utils.data.DataExecutor(loader, num_steps=2):
            step(x, y)
    # the guard is lifted after the failed trace
    assert torch.ones(1).item() == 1.0


def test_repr_inside_trace_does_not_read(tmp_path):
    b = _fresh("CSX", tmp_path)
    compiled = cstorch.compile(MLP(), b)
    loader = cstorch.utils.data.DataLoader(lambda: _data())
    reprs = []

    @cstorch.trace
    def step(x, y):
        out = compiled(x)
        reprs.append(repr(out))
        return out

    for x, y in cstorch.utils.data.DataExecutor(loader, num_steps=2):
        step(x, y)
    assert "read it in a step closure" in reprs[0] and "device='lazy'" in reprs[0]


def test_retrace_every_iteration(tmp_path):
    b = _fresh("CSX", tmp_path)
    cstorch.backends.csx.debug.retrace_every_iteration = True
    compiled = cstorch.compile(MLP(), b)
    loader = cstorch.utils.data.DataLoader(lambda: _data())
    runs = [0]

    @cstorch.trace
    def same(x, y):
        runs[0] += 1
        return compiled(x).sum()

    for x, y in cstorch.utils.data.DataExecutor(loader, num_steps=4):
        same(x, y)
    assert runs[0] == 4
    calls = [0]

    @cstorch.trace
    def changing(x, y):
        calls[0] += 1
        out = compiled(x)
        if calls[0] == 3:  # Python control flow that changes between steps
            out = out * 2
        return out.sum()

    with pytest.raises(RuntimeError, match="different sequence of ops on step 3"):
        for x, y in cstorch.utils.data.DataExecutor(loader, num_steps=4):
            changing(x, y)


def test_frozen_control_flow_without_retrace(tmp_path):
    b = _fresh("CSX", tmp_path)
    compiled = cstorch.compile(MLP(), b)
    loader = cstorch.utils.data.DataLoader(lambda: _data())
    calls = [0]
    vals = []

    @cstorch.trace
    def step(x, y):
        calls[0] += 1
        out = compiled(x).sum()
        return out * 2 if calls[0] == 1 else out  # frozen: always the first branch

    for x, y in cstorch.utils.data.DataExecutor(loader, num_steps=3):
        cstorch.step_closure(lambda v: vals.append(v.item()))(step(x, y))
    expected = [2 * compiled(x.to(b.torch_device)).sum().item() for x, _ in _data()[:3]]
    assert vals == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("flag", ["compile_only", "validate_only"])
def test_compile_only_captures_without_running(tmp_path, flag):
    b = _fresh("CSX", tmp_path, **{flag: True})
    assert not b.is_e2e_execution and cstorch.backends.csx.debug.drop_data
    model = MLP()
    before = [p.detach().cpu().numpy().copy() for p in model.parameters()]
    compiled = cstorch.compile(model, b)
    optimizer = cstorch.optim.SGD(model.parameters(), lr=0.1)
    loader = cstorch.utils.data.DataLoader(lambda: _data())
    runs, seen = [0], []

    @cstorch.trace
    def step(x, y):
        runs[0] += 1
        loss = F.cross_entropy(compiled(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        return loss

    with pytest.warns(UserWarning, match="Setting num_steps to 1"):
        executor = cstorch.utils.data.DataExecutor(loader, num_steps=10)
    assert len(executor) == 1
    for x, y in executor:
        cstorch.step_closure(lambda v: seen.append(v))(step(x, y))
    assert runs[0] == 1
    after = [p.detach().cpu().numpy() for p in model.parameters()]
    assert all(np.array_equal(a, c) for a, c in zip(before, after))


def test_optimizer_state_created_outside_preinitialize(tmp_path):
    b = _fresh("CSX", tmp_path)
    model = MLP()
    compiled = cstorch.compile(model, b)

    class Lazy(cstorch.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 0.1})

        def preinitialize(self):
            pass

        @torch.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if "buf" not in self.state[p]:
                        self.state[p]["buf"] = torch.zeros_like(p)  # too late on the wafer
                    self.state[p]["buf"].add_(p.grad)
                    p.sub_(self.state[p]["buf"] * group["lr"])

    optimizer = Lazy(model.parameters())
    loader = cstorch.utils.data.DataLoader(lambda: _data())

    @cstorch.trace
    def step(x, y):
        F.cross_entropy(compiled(x), y).backward()
        optimizer.step()

    with pytest.raises(RuntimeError, match="preinitialize"):
        for x, y in cstorch.utils.data.DataExecutor(loader, num_steps=2):
            step(x, y)


def test_two_compiled_models_in_one_step(tmp_path):
    b = _fresh("CSX", tmp_path)
    m1, m2 = cstorch.compile(MLP(), b), cstorch.compile(MLP(), b)
    loader = cstorch.utils.data.DataLoader(lambda: _data())

    @cstorch.trace
    def step(x, y):
        return m1(x).sum() + m2(x).sum()

    with pytest.raises(RuntimeError, match="Only one compiled model"):
        for x, y in cstorch.utils.data.DataExecutor(loader, num_steps=2):
            step(x, y)


def test_model_used_without_compile(tmp_path):
    _fresh("CSX", tmp_path)
    model = MLP()
    loader = cstorch.utils.data.DataLoader(lambda: _data())

    @cstorch.trace
    def step(x, y):
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="cstorch.compile"):
        for x, y in cstorch.utils.data.DataExecutor(loader, num_steps=2):
            step(x, y)


def test_batch_shape_change_is_rejected(tmp_path):
    b = _fresh("CSX", tmp_path)
    compiled = cstorch.compile(MLP(), b)
    data = _data(2) + [(torch.zeros(5, 12), torch.zeros(5, dtype=torch.int64))]
    loader = cstorch.utils.data.DataLoader(lambda: data)
    step = cstorch.trace(lambda x, y: compiled(x).sum())
    with pytest.raises(RuntimeError, match="drop_last=True"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for x, y in cstorch.utils.data.DataExecutor(loader, num_steps=3):
                step(x, y)


def test_csx_backend_construction(tmp_path):
    with pytest.raises(ValueError, match="num_csx in the cluster config must be a positive integer"):
        cstorch.backend("CSX", cluster_config=cstorch.distributed.ClusterConfig(num_csx=0))
    b = cstorch.backend("CSX", artifact_dir=tmp_path,
                        cluster_config=cstorch.distributed.ClusterConfig(num_csx=2))
    assert b.is_csx and cstorch.use_cs() and b.cluster_config.num_csx == 2
    assert str(b.device) == "CSX" and str(b.torch_device) == "lazy:0"
    assert b.is_e2e_execution
    b.device.config.lazy_initialization = False
    assert cstorch.backends.csx.debug.lazy_initialization is False
    assert b.device.config.enabled is True


def test_default_artifact_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    b = cstorch.backend("CSX")
    assert str(b.artifact_dir) == "cerebras_logs"


def test_checkpoint_resume_on_csx_matches_uninterrupted(tmp_path):
    """Save at step 10 from a checkpoint closure, resume in a fresh backend, equal to 20 steps."""
    def run(steps, resume=None, save_at=None):
        b = _fresh("CSX", tmp_path)
        torch.manual_seed(0)
        with b.device:
            model = MLP()
        compiled = cstorch.compile(model, b)
        optimizer = cstorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        if resume:
            state = cstorch.load(resume)
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
        data = _data(20)
        start = 10 if resume else 0
        loader = cstorch.utils.data.DataLoader(lambda: data[start:])

        @cstorch.trace
        def step(x, y):
            loss = F.cross_entropy(compiled(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            return loss

        @cstorch.checkpoint_closure
        def save(i):
            if i == save_at:
                cstorch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()},
                             tmp_path / f"ck_{i}.mdl")

        for i, (x, y) in enumerate(cstorch.utils.data.DataExecutor(
                loader, num_steps=steps, checkpoint_steps=save_at or 0), start=1):
            step(x, y)
            save(i)
        return [p.detach().cpu().numpy().copy() for p in model.parameters()]

    full = run(20)
    run(10, save_at=10)
    resumed = run(10, resume=tmp_path / "ck_10.mdl")
    assert all(np.array_equal(a, b) for a, b in zip(full, resumed))
