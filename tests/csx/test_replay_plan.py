"""The replay planner (``minitorch_cs.core.plan``): the planned replay of a captured step equals
the replay of its recorded entries bit for bit, owns no array Python can see, drops dead work and
shares buffers by lifetime."""
import importlib

import numpy as np
import pytest

import minitorch_cs as cstorch
import minitorch_cs.torch as torch
import minitorch_cs.torch.nn as nn
import minitorch_cs.torch.nn.functional as F

_backend_mod = importlib.import_module("minitorch_cs.backend")


def _fresh(tmp_path):
    _backend_mod._reset_for_tests()
    cstorch.backends.reset()
    return cstorch.backend("CSX", artifact_dir=tmp_path / "csx")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 16)
        self.fc2 = nn.Linear(16, 16)
        self.fc3 = nn.Linear(16, 4)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        unused = torch.tanh(h) * 3.0  # noqa: F841  (dead: nothing reads it)
        return self.fc3(F.relu(self.fc2(h)))


def _batches(n=6, seed=0):
    rng = np.random.default_rng(seed)
    return [(torch.from_numpy(rng.standard_normal((8, 12), dtype=np.float32)),
             torch.from_numpy(rng.integers(0, 4, 8))) for _ in range(n)]


def _run(tmp_path, planned, zero_first=False, keep=None, loss_fn=F.cross_entropy, targets=None):
    from minitorch_cs.backend import current_backend_impl
    from minitorch_cs.core import capture
    b = _fresh(tmp_path)
    torch.manual_seed(0)
    with b.device:
        model = Net()
    compiled = cstorch.compile(model, b)
    opt = cstorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    data = _batches()
    if targets is not None:
        data = [(x, torch.from_numpy(t)) for (x, _), t in zip(data, targets)]
    losses, seen = [], []

    @cstorch.step_closure
    def record(loss):
        losses.append(loss.item())

    @cstorch.trace
    def step(x, y):
        if zero_first:
            opt.zero_grad()
        loss = loss_fn(compiled(x), y)
        loss.backward()
        opt.step()
        if not zero_first:
            opt.zero_grad()
        record(loss)
        return loss

    original = capture.Tape.replay
    if not planned:
        capture.Tape.replay = capture.Tape.replay_entries
    try:
        for x, y in cstorch.utils.data.DataExecutor(
                cstorch.utils.data.DataLoader(lambda: data), num_steps=12):
            out = step(x, y)
            if keep is not None:
                keep.append((out, out.detach().numpy(force=True).copy(),
                             [None if p.grad is None else (p.grad, p.grad.numpy(force=True).copy())
                              for p in model.parameters()]))
            seen.append([p.grad is None for p in model.parameters()])
            plan = next(iter(current_backend_impl()._tapes.values())).tape.plan
    finally:
        capture.Tape.replay = original
    params = [p.detach().numpy(force=True).copy() for p in model.parameters()]
    return losses, params, seen, plan


def test_planned_replay_equals_recorded_replay(tmp_path):
    l1, p1, _, plan = _run(tmp_path, planned=True)
    l0, p0, _, _ = _run(tmp_path, planned=False)
    assert l1 == l0
    for a, b in zip(p1, p0):
        np.testing.assert_array_equal(a, b)
    assert plan is not None and plan.env is not None
    kernels = {f.__qualname__.split(".")[0] for f in plan.steps}
    assert {"_linear", "_relu", "_cross_entropy", "_inplace_group"} <= kernels
    assert plan.dropped >= 2  # tanh and the multiplication nobody reads
    # the relu writes over the linear output it reads, the linear backward into shared buffers
    assert len({id(b) for b in plan.buffers.values()}) < len(plan.buffers)


def test_values_python_sees_are_never_plan_buffers(tmp_path):
    keep = []
    l1, p1, _, plan = _run(tmp_path, planned=True, zero_first=True, keep=keep)
    l0, p0, _, _ = _run(tmp_path, planned=False, zero_first=True)
    assert l1 == l0
    for a, b in zip(p1, p0):
        np.testing.assert_array_equal(a, b)
    owned = {id(b) for b in plan.buffers.values()}
    # gradients stay set after each step (zero_grad first): each step's are its own arrays, and
    # what Python kept from an earlier step is unchanged by later replays
    for out, loss_then, grads in keep:
        for g in grads:
            assert g is not None and id(g[0]._data) not in owned
            np.testing.assert_array_equal(g[0].numpy(force=True), g[1])
    grads_by_step = [[g[0]._data for g in grads] for _, _, grads in keep]
    assert all(a is not b for a, b in zip(grads_by_step[-1], grads_by_step[-2]))


def test_plan_falls_back_for_unknown_ops(tmp_path):
    """A step of ops without a planned kernel replays through its recorded entries."""
    from minitorch_cs.backend import current_backend_impl
    b = _fresh(tmp_path)
    torch.manual_seed(0)
    with b.device:
        model = nn.Sequential(nn.Linear(12, 8), nn.Tanh(), nn.Linear(8, 4))
    compiled = cstorch.compile(model, b)
    opt = cstorch.optim.Adam(model.parameters(), lr=0.01)
    data = _batches()

    @cstorch.trace
    def step(x, y):
        loss = F.mse_loss(compiled(x).softmax(-1), F.one_hot(y, 4).float())
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    losses = []
    for x, y in cstorch.utils.data.DataExecutor(cstorch.utils.data.DataLoader(lambda: data),
                                                 num_steps=6):
        losses.append(step(x, y))
        plan = next(iter(current_backend_impl()._tapes.values())).tape.plan
    assert plan is not None and any(hasattr(f, "entry") for f in plan.steps)
    assert all(np.isfinite(float(v)) for v in losses)


@pytest.mark.parametrize("kw", [dict(), dict(reduction="sum"), dict(ignore_index=1),
                                dict(ignore_index=-100, reduction="sum")])
def test_planned_cross_entropy_equals_the_op(tmp_path, kw):
    """Ignored targets (some steps all of them but one, some none), sum and mean."""
    rng = np.random.default_rng(3)
    targets = [rng.integers(0, 4, 8) for _ in range(6)]
    targets[2][:] = 1
    targets[2][0] = 2
    targets[4][:3] = -100

    def loss_fn(out, y):
        return F.cross_entropy(out, y, **kw)
    if kw.get("ignore_index", -100) != -100:
        targets[4][:3] = 0
    l1, p1, _, plan = _run(tmp_path, planned=True, loss_fn=loss_fn, targets=targets)
    l0, p0, _, _ = _run(tmp_path, planned=False, loss_fn=loss_fn, targets=targets)
    assert any(f.__qualname__.startswith("_cross_entropy") for f in plan.steps)
    assert [np.float32(v).tobytes() for v in l1] == [np.float32(v).tobytes() for v in l0]
    for a, b in zip(p1, p0):
        np.testing.assert_array_equal(a, b)


def test_planned_cross_entropy_rejects_bad_targets(tmp_path):
    rng = np.random.default_rng(4)
    targets = [rng.integers(0, 4, 8) for _ in range(6)]
    targets[3][5] = 7
    with pytest.raises(IndexError, match="Target 7 is out of bounds"):
        _run(tmp_path, planned=True, targets=targets)


def test_elided_gradient_follows_a_grad_set_between_steps(tmp_path):
    """A .grad the step creates and unsets is not materialized at replay; when Python sets it
    between steps (so the step adds into it instead), the replay runs the recorded rule."""
    results = []
    for planned in (True, False):
        from minitorch_cs.core import capture
        b = _fresh(tmp_path)
        torch.manual_seed(0)
        with b.device:
            model = Net()
        compiled = cstorch.compile(model, b)
        opt = cstorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        data = _batches()

        @cstorch.trace
        def step(x, y):
            loss = F.cross_entropy(compiled(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            return loss

        original = capture.Tape.replay
        if not planned:
            capture.Tape.replay = capture.Tape.replay_entries
        try:
            for i, (x, y) in enumerate(cstorch.utils.data.DataExecutor(
                    cstorch.utils.data.DataLoader(lambda: data), num_steps=8)):
                step(x, y)
                if i == 3:
                    model.fc2.weight.grad = torch.full_like(model.fc2.weight, 0.5)
        finally:
            capture.Tape.replay = original
        results.append([p.detach().numpy(force=True).copy() for p in model.parameters()] +
                       [p.grad is None for p in model.parameters()])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_planned_kernels_keep_the_ops_rules_for_special_values(tmp_path, dtype):
    """NaN, infinities and signed zeros through the planned relu, linear and cross-entropy
    kernels: a relu gradient is an exact zero where the output is not positive, even against an
    infinite incoming gradient; a batch whose targets are all ignored has a zero cross-entropy
    gradient (mean over a total weight of zero). Gradients are compared bit for bit."""
    results = []
    for planned in (True, False):
        from minitorch_cs.core import capture
        b = _fresh(tmp_path)
        torch.manual_seed(0)
        with b.device:
            model = Net().to(torch.float64 if dtype == np.float64 else torch.float32)
        compiled = cstorch.compile(model, b)
        cstorch.optim.SGD(model.parameters(), lr=0.1)
        rng = np.random.default_rng(5)
        data = []
        for k in range(5):
            x = rng.standard_normal((8, 12)).astype(dtype)
            x[0, :3] = [np.inf, -np.inf, -0.0]
            if k == 3:
                x[1, 0] = np.nan
            y = rng.integers(0, 4, 8)
            if k == 2:
                y[:] = 3  # every target ignored
            data.append((torch.from_numpy(x), torch.from_numpy(y)))
        scale = torch.from_numpy(np.array([1.0, np.inf, -0.0, 2.0], dtype)).to(b.torch_device)

        @cstorch.trace
        def step(x, y):
            model.zero_grad()
            out = compiled(x)
            loss = F.cross_entropy(out, y, ignore_index=3) + (F.relu(out) * scale)[1:].sum()
            loss.backward()
            return loss

        original = capture.Tape.replay
        if not planned:
            capture.Tape.replay = capture.Tape.replay_entries
        seen = []
        try:
            for x, y in cstorch.utils.data.DataExecutor(
                    cstorch.utils.data.DataLoader(lambda: data), num_steps=5):
                loss = step(x, y)
                seen.append(loss.detach().numpy(force=True).tobytes())
                seen += [p.grad.numpy(force=True).tobytes() for p in model.parameters()]
        finally:
            capture.Tape.replay = original
        results.append(seen)
        assert any(np.isfinite(np.frombuffer(g, dtype)).any() for g in seen)
    assert results[0] == results[1]


def _replay_both(tmp_path, build, make_step, data, num_steps, observe):
    """Run the same traced step planned and as recorded; returns (observations, plan) of each."""
    from minitorch_cs.backend import current_backend_impl
    from minitorch_cs.core import capture
    out = []
    for planned in (True, False):
        b = _fresh(tmp_path)
        torch.manual_seed(0)
        with b.device:
            model = build()
        compiled = cstorch.compile(model, b)
        step = make_step(model, compiled)
        original = capture.Tape.replay
        if not planned:
            capture.Tape.replay = capture.Tape.replay_entries
        seen, plan = [], None
        try:
            for x, y in cstorch.utils.data.DataExecutor(
                    cstorch.utils.data.DataLoader(lambda: data), num_steps=num_steps):
                seen.append(observe(model, step(x, y)))
                plan = next(iter(current_backend_impl()._tapes.values())).tape.plan
        finally:
            capture.Tape.replay = original
        out.append((seen, plan))
    return out


def test_buffers_are_shared_only_by_values_whose_lifetimes_do_not_overlap(tmp_path):
    """Each planned buffer serves values one after another: the value that takes a buffer over
    is written no earlier than the last read of the one before (an elementwise kernel may write
    over the input it reads last)."""
    _, _, _, plan = _run(tmp_path, planned=True)
    by_buffer = {}
    for s, b in plan.buffers.items():
        by_buffer.setdefault(id(b), []).append(plan.lifetimes[s])
    shared = [sorted(v) for v in by_buffer.values() if len(v) > 1]
    assert shared, "no buffer serves two values"
    for spans in shared:
        for (d0, l0), (d1, _) in zip(spans, spans[1:]):
            assert l0 <= d1, spans
    # fewer bytes than one buffer per value
    assert sum(b.nbytes for b in {id(b): b for b in plan.buffers.values()}.values()) < \
        sum(b.nbytes for b in plan.buffers.values())


def test_dead_pure_ops_are_dropped_and_random_draws_kept(tmp_path):
    """A pure op nobody reads is dropped; a random draw nobody reads still advances the
    generator, so the dropout mask after it is the recorded one."""
    def make_step(model, compiled):
        opt = cstorch.optim.SGD(model.parameters(), lr=0.1)

        @cstorch.trace
        def step(x, y):
            h = compiled(x)
            torch.rand(5)  # unread, but it draws
            torch.exp(h)  # unread and pure
            loss = F.cross_entropy(F.dropout(h, 0.5, training=True), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            return loss
        return step

    (seen1, plan), (seen0, _) = _replay_both(
        tmp_path, Net, make_step, _batches(), 8,
        lambda model, loss: loss.detach().numpy(force=True).tobytes())
    assert seen1 == seen0
    dead = [e.op.name for e in plan.dead if e.kind == "op"]
    assert "exp" in dead and "tanh" in dead
    assert not any("rand" in name for name in dead)


def test_intermediate_values_returned_or_passed_to_closures_escape(tmp_path):
    """A hidden activation the step returns and hands to a step closure gets its own array each
    replay (the closure's tensor is rebound to it): an array Python kept from a step stays as it
    was after later replays."""
    kept = []

    def make_step(model, compiled):
        opt = cstorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

        @cstorch.step_closure
        def keep(h, loss):
            kept.append((h._data, h.numpy().copy(), loss.item()))

        @cstorch.trace
        def step(x, y):
            h = F.relu(model.fc1(x))
            loss = F.cross_entropy(model.fc3(F.relu(model.fc2(h))), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            keep(h, loss)
            return h
        return step

    def observe(model, h):
        return h.detach().numpy(force=True).tobytes()

    (seen1, plan), (seen0, _) = _replay_both(tmp_path, Net, make_step, _batches(), 8, observe)
    assert seen1 == seen0
    owned = {id(b) for b in plan.buffers.values()}
    half = len(kept) // 2  # the planned run's closures came first
    planned = kept[:half]
    assert all(id(a) not in owned for a, _, _ in planned)
    assert len({id(a) for a, _, _ in planned}) == len(planned)
    for a, then, _ in planned:
        np.testing.assert_array_equal(a, then)
    assert [v for _, _, v in planned] == [v for _, _, v in kept[half:]]


class _Strided(nn.Module):
    """A net whose relu, linear and cross-entropy inputs are non-contiguous views."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.fc2 = nn.Linear(8, 4)

    def forward(self, x):
        h = self.fc1(x[:, ::2])  # a strided input to linear
        h = F.relu(h.t()).t()  # relu of a transposed view
        out = self.fc2(h[:, 1::2])
        return torch.cat([out, out], 1)[:, :4]  # (N, 4) logits with row stride 8


def test_layouts_the_kernels_do_not_take_run_the_recorded_kernels(tmp_path):
    rng = np.random.default_rng(6)
    data = []
    for _ in range(4):
        x = rng.standard_normal((8, 12)).astype(np.float32)
        x[2, 4] = -0.0
        data.append((torch.from_numpy(x), torch.from_numpy(rng.integers(0, 4, 8))))

    def make_step(model, compiled):
        opt = cstorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

        @cstorch.trace
        def step(x, y):
            out = compiled(x)
            loss = F.cross_entropy(out, y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            return loss, out
        return step

    def observe(model, res):
        loss, out = res
        return (loss.detach().numpy(force=True).tobytes(), out.detach().numpy(force=True).tobytes(), out.stride(),
                [p.detach().numpy(force=True).tobytes() for p in model.parameters()])

    (seen1, plan), (seen0, _) = _replay_both(tmp_path, _Strided, make_step, data, 6, observe)
    assert seen1 == seen0
    kernels = {f.__qualname__.split(".")[0] for f in plan.steps}
    assert {"_linear", "_relu", "_cross_entropy"} <= kernels  # planned, falling back at run


class _Tokens(nn.Module):
    """Linear layers over (batch, tokens, features) inputs, as a transformer's."""

    def __init__(self):
        super().__init__()
        self.up = nn.Linear(6, 12)
        self.down = nn.Linear(12, 4, bias=False)

    def forward(self, x):
        return self.down(F.relu(self.up(x))).reshape(-1, 4)


def _sgd_step(model, compiled):
    """A traced SGD-momentum step of cross-entropy over the model's (flattened) logits."""
    opt = cstorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    @cstorch.trace
    def step(x, y):
        loss = F.cross_entropy(compiled(x), y.reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
    return step


def _observe(model, loss):
    return [loss.detach().numpy(force=True).tobytes()] + \
        [p.detach().numpy(force=True).tobytes() for p in model.parameters()]


def test_planned_linear_over_token_batches_equals_the_op(tmp_path):
    rng = np.random.default_rng(7)
    data = []
    for k in range(4):
        x = rng.standard_normal((3, 5, 6)).astype(np.float32)
        if k == 2:
            x[0, 1, :2] = [np.inf, -0.0]
        data.append((torch.from_numpy(x), torch.from_numpy(rng.integers(0, 4, (3, 5)))))

    (seen1, plan), (seen0, _) = _replay_both(tmp_path, _Tokens, _sgd_step, data, 6, _observe)
    assert seen1 == seen0
    kinds = [f.__qualname__.split(".")[0] for f in plan.steps]
    assert kinds.count("_linear") == 4  # both layers, forward and backward


class _Wide(nn.Module):
    """A few rows against a wide weight: the linear forward the kernels turn around."""

    def __init__(self):
        super().__init__()
        self.up = nn.Linear(64, 1024)
        self.down = nn.Linear(1024, 4)

    def forward(self, x):
        return self.down(F.relu(self.up(x)))


def test_wide_linear_forward_is_the_same_product_planned_recorded_and_eager(tmp_path):
    from minitorch_cs.torch._ops.linalg import wide_product
    rng = np.random.default_rng(3)
    data = [(torch.from_numpy(rng.standard_normal((8, 64)).astype(np.float32)),
             torch.from_numpy(rng.integers(0, 4, 8))) for _ in range(3)]
    x0, w = data[0][0].numpy(), rng.standard_normal((1024, 64)).astype(np.float32)
    assert wide_product(x0, w.T)  # the rule applies to this layer's forward ...
    assert not wide_product(x0[:2], w.T) and not wide_product(np.asfortranarray(x0), w.T)
    y = F.linear(data[0][0], torch.from_numpy(w)).numpy()
    assert y.flags.c_contiguous  # ... and its result keeps the op's layout
    np.testing.assert_allclose(y, x0 @ w.T, rtol=1e-5, atol=1e-5)

    initial = []

    def make_step(model, compiled):
        if not initial:
            initial.extend(p.detach().numpy(force=True).copy() for p in model.parameters())
        return _sgd_step(model, compiled)

    observe = _observe
    (seen1, plan), (seen0, _) = _replay_both(tmp_path, _Wide, make_step, data, 5, observe)
    assert seen1 == seen0
    assert [f.__qualname__.split(".")[0] for f in plan.steps].count("_linear") == 4
    # the eager CPU run of the same steps from the same weights (one kernel rule): bit for bit
    _backend_mod._reset_for_tests()
    cstorch.backends.reset()
    cstorch.backend("CPU", artifact_dir=tmp_path / "cpu")
    model = _Wide()
    with torch.no_grad():
        for p, a in zip(model.parameters(), initial):
            p.copy_(torch.from_numpy(a))
    step = make_step(model, cstorch.compile(model))
    seen = [observe(model, step(x, y)) for (x, y), _ in zip(
        cstorch.utils.data.DataExecutor(cstorch.utils.data.DataLoader(lambda: data),
                                        num_steps=5), range(5))]
    assert seen == seen1


class _Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.s = nn.Parameter(torch.ones(4))

    def forward(self, x):
        return x * self.s


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_planned_cross_entropy_sums_from_positive_zero(tmp_path, reduction):
    """Log-probabilities of exactly 0 (a certain prediction): every loss term is -0.0 and the
    op's sum starts from +0, so the loss is +0.0, planned, recorded and eager alike."""
    x = np.full((8, 4), -200.0, np.float32)
    x[:, 0] = 0.0
    data = [(torch.from_numpy(x), torch.from_numpy(np.zeros(8, np.int64)))] * 3

    def make_step(model, compiled):
        @cstorch.trace
        def step(x, y):
            model.zero_grad()
            loss = F.cross_entropy(compiled(x), y, reduction=reduction)
            loss.backward()
            return loss
        return step

    def observe(model, loss):
        return loss.detach().numpy(force=True).tobytes(), model.s.grad.numpy(force=True).tobytes()
    (planned, plan), (recorded, _) = _replay_both(tmp_path, _Scale, make_step, data, 3, observe)
    assert any(f.__qualname__.startswith("_cross_entropy") for f in plan.steps)
    eager = F.cross_entropy(torch.from_numpy(x), torch.from_numpy(np.zeros(8, np.int64)),
                            reduction=reduction)
    assert np.signbit(eager.numpy()) == False  # noqa: E712  (+0.0)
    assert planned == recorded
    assert all(loss == eager.numpy().tobytes() for loss, _ in planned)


def test_closure_snapshots_keep_values_and_layouts_planned_and_recorded(tmp_path):
    """A step closure's arguments are ``t.detach().clone()`` of the step's values; the plan runs
    the pair as an alias and a copy. Every layout a closure can receive (C-ordered, transposed,
    a 0-d loss, size-1 dims, a column slice, an empty tensor) arrives with the recorded
    replay's values and strides, in an array of its own that later steps leave as it was."""
    got = []

    def make_step(model, compiled):
        opt = cstorch.optim.SGD(model.parameters(), lr=0.1)

        @cstorch.step_closure
        def keep(*ts):
            got.append([(t._data, t.numpy().copy(), t.stride()) for t in ts])

        @cstorch.trace
        def step(x, y):
            h = model.fc1(x)
            loss = F.cross_entropy(model.fc3(F.relu(model.fc2(F.relu(h)))), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            col = h[:, :1]
            keep(loss, h, h.t(), col, col.t(), h[:, 3:7:2], h[:0], x.sum())
            return loss
        return step

    def observe(model, loss):
        return loss.detach().numpy(force=True).tobytes()

    (seen1, plan), (seen0, _) = _replay_both(tmp_path, Net, make_step, _batches(), 6, observe)
    assert seen1 == seen0
    half = len(got) // 2  # the planned run's closures came first
    planned, recorded = got[:half], got[half:]
    owned = {id(b) for b in plan.buffers.values()}
    for p_step, r_step in zip(planned, recorded):
        for (pa, pv, ps), (_, rv, rs) in zip(p_step, r_step):
            assert ps == rs and pv.tobytes() == rv.tobytes() and pv.dtype == rv.dtype
            assert id(pa) not in owned
            np.testing.assert_array_equal(pa, pv)  # later replays left it as it was
    arrays = [id(a) for s in planned for a, _, _ in s]
    assert len(set(arrays)) == len(arrays)
