"""Efficient and lazy weight initialization (issue 8; docs: "Efficient Weight Initialization",
"Defer Weight Initialization").

The two examples of the cstorch 2.10 docs page "Efficient Weight Initialization" are written as
on that page, with the porting rule's imports.
"""
import importlib
import tempfile

import numpy as np
import pytest

import minitorch_cs as cstorch
import minitorch_cs.torch as torch
import minitorch_cs.torch.nn.functional as F
from minitorch_cs.core import lazy_init

_backend_mod = importlib.import_module("minitorch_cs.backend")


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

        self.w1 = torch.nn.Parameter(torch.empty(2, 2))
        self.w2 = torch.nn.Parameter(torch.empty(2, 2))

        self.reset_parameters()

    def reset_parameters(self):
        self.w1.data.uniform_(-1, 1)
        self.w2.data.normal_()



# (a directory of this run's own: two test runs on one machine must not meet in a shared one)
_ARTIFACTS = tempfile.mkdtemp(prefix="minitorch_cs_lazy_test_")

def init_weights(model):
    if isinstance(model, Model):
        torch.nn.init.kaiming_uniform_(model.w1)
        torch.nn.init.kaiming_normal_(model.w2)


@pytest.fixture
def csx(tmp_path):
    b = cstorch.backend("CSX", artifact_dir=tmp_path)
    b.device.config.lazy_initialization = True
    return b


def test_construction_allocates_nothing_and_records_per_weight(csx):
    with csx.device:
        model = Model()
    assert lazy_init.is_lazy(model.w1) and lazy_init.is_lazy(model.w2)
    assert model.w1.shape == (2, 2) and model.w1.numel() == 4 and model.w1.dim() == 2
    assert isinstance(model.w1, torch.nn.Parameter) and model.w1.requires_grad
    st = model.w1.__dict__["_lazy"]
    assert st.array is None and [e[1].name for e in st.recipe] == ["full", "random_fill"]
    model.apply(init_weights)  # after the with block: still recorded, grouped per weight
    assert [e[1].name for e in st.recipe] == ["full", "random_fill"]  # uniform_ pruned
    with csx.device:
        huge = torch.nn.Linear(100_000, 100_000)  # 10 billion parameters, nothing allocated
    assert lazy_init.is_lazy(huge.weight) and huge.weight.shape == (100_000, 100_000)


def test_seed001_grouped_order_without_optimization(csx):
    """optimize_initialization off: the global stream is consumed in the grouped order."""
    cstorch.backends.csx.debug.optimize_initialization = False
    torch.manual_seed(2024)
    with csx.device:
        model = Model()
    model.apply(init_weights)
    cstorch.compile(model, csx)  # weights are needed: the grouped recipes run
    lazy_w1, lazy_w2 = model.w1.detach().cpu().numpy(), model.w2.detach().cpu().numpy()

    # what effectively runs (cstorch 2.10 docs, "Efficient Weight Initialization"): each weight's ops together, on the global generator
    torch.manual_seed(2024)
    w1, w2 = torch.empty(2, 2), torch.empty(2, 2)
    w1.uniform_(-1, 1)
    torch.nn.init.kaiming_uniform_(w1)
    w2.normal_()
    torch.nn.init.kaiming_normal_(w2)
    assert np.array_equal(lazy_w1, w1.numpy()) and np.array_equal(lazy_w2, w2.numpy())

    # the eager program order consumes the stream differently
    torch.manual_seed(2024)
    eager = Model()
    eager.apply(init_weights)
    assert not torch.allclose(eager.w1, torch.from_numpy(lazy_w1))


def test_seed001_allclose_fails(csx):
    cstorch.backends.csx.debug.optimize_initialization = False
    torch.manual_seed(0)
    cpu_model = Model()
    cpu_model.reset_parameters()

    with csx.device:
        model = Model()
        model.reset_parameters()

    # This assert would fail (the same docs page): the values differ...
    assert not torch.allclose(cpu_model.w1, model.w1.to("cpu"))
    assert not lazy_init.is_lazy(model.w1)  # reading materialized it


def test_optimized_init_seeds_each_op_at_record_time_and_prunes(csx):
    torch.manual_seed(7)
    with csx.device:
        model = Model()
    model.apply(init_weights)
    cstorch.compile(model, csx)
    # per-op seeds drawn in program order: uniform_ w1, normal_ w2, kaiming w1, kaiming w2
    from minitorch_cs.core.rng import draw_seed
    torch.manual_seed(7)
    seeds = [draw_seed() for _ in range(4)]
    w1, w2 = torch.empty(2, 2), torch.empty(2, 2)
    torch.nn.init.kaiming_uniform_(w1, generator=torch.Generator().manual_seed(seeds[2]))
    torch.nn.init.kaiming_normal_(w2, generator=torch.Generator().manual_seed(seeds[3]))
    assert torch.equal(model.w1.detach(), w1) and torch.equal(model.w2.detach(), w2)


def _lazy_values(seed, prune=True):
    _backend_mod._reset_for_tests()
    b = cstorch.backend("CSX", artifact_dir=_ARTIFACTS)
    old = lazy_init._PRUNE
    lazy_init._PRUNE = prune
    try:
        torch.manual_seed(seed)
        with b.device:
            model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(), torch.nn.Linear(5, 3))
        model.apply(lambda m: torch.nn.init.xavier_uniform_(m.weight)
                    if isinstance(m, torch.nn.Linear) else None)
        cstorch.compile(model, b)
    finally:
        lazy_init._PRUNE = old
    return [p.detach().cpu().numpy().copy() for p in model.parameters()]


def test_determinism_across_runs_and_pruning():
    a, b, c = _lazy_values(3), _lazy_values(3), _lazy_values(3, prune=False)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert all(np.array_equal(x, y) for x, y in zip(a, c))
    d = _lazy_values(4)
    assert not np.array_equal(a[0], d[0])


def test_distributions_match_eager(csx):
    """Lazy values differ from eager ones but are samples of the same distribution."""
    n = 300
    torch.manual_seed(1)
    with csx.device:
        lazy = torch.nn.Linear(n, n)
    eager = torch.nn.Linear(n, n)
    bound = 1 / np.sqrt(n)  # kaiming_uniform(a=√5) on Linear gives U(±1/√fan_in)
    for w in (lazy.weight.detach().cpu().numpy(), eager.weight.detach().cpu().numpy()):
        assert np.abs(w).max() <= bound
        # the mean of n² uniforms has std bound/√(3n²); allow 5 standard errors
        assert abs(w.mean()) < 5 * bound / np.sqrt(3 * n * n)
        var = bound ** 2 / 3  # variance of U(±b); the sample variance's std is ~√(4/5)·var/n
        assert abs(w.var() - var) < 5 * np.sqrt(0.8) * var / n
    assert not np.allclose(lazy.weight.detach().cpu().numpy(), eager.weight.detach().cpu().numpy())


def test_read_materializes_only_that_weight(csx):
    with csx.device:
        model = Model()
    v = model.w2.detach().cpu().numpy()
    assert v.shape == (2, 2) and np.isfinite(v).all()
    assert not lazy_init.is_lazy(model.w2) and lazy_init.is_lazy(model.w1)
    sd = model.state_dict()
    assert set(sd) == {"w1", "w2"} and sd["w1"].shape == (2, 2)
    assert np.isfinite(sd["w1"].cpu().numpy()).all()


@pytest.mark.parametrize("flag", ["skip_weight_init", "drop_data"])
def test_skip_weight_init_and_drop_data_give_zeros(csx, flag):
    setattr(cstorch.backends.csx.debug, flag, True)
    with csx.device:
        model = Model()
    assert np.array_equal(model.w1.detach().cpu().numpy(), np.zeros((2, 2), np.float32))


class Explicit(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 2)

    def forward(self, x):
        return x @ self.fc1.weight.T + self.fc1.bias


class Implicit(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 2)

    def forward(self, x):
        return F.linear(x, self.fc1.weight, self.fc1.bias)


def _train_two_steps(backend, model_cls):
    with backend.device:
        model = model_cls()
    compiled = cstorch.compile(model, backend)
    optimizer = cstorch.optim.SGD(model.parameters(), lr=0.1)
    data = [(torch.ones(3, 4), torch.zeros(3, dtype=torch.int64))] * 2
    loader = cstorch.utils.data.DataLoader(lambda: data)

    @cstorch.trace
    def step(x, y):
        loss = F.cross_entropy(compiled(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        return loss

    for x, y in cstorch.utils.data.DataExecutor(loader, num_steps=2):
        step(x, y)
    return model


def test_seed001_explicit_alias_fails_to_compile(csx):
    with pytest.raises(RuntimeError, match=r"Compile failure.*F\.linear"):
        _train_two_steps(csx, Explicit)


def test_seed001_implicit_form_compiles(csx):
    _train_two_steps(csx, Implicit)


def test_explicit_alias_is_fine_without_lazy_init(tmp_path):
    b = cstorch.backend("CSX", artifact_dir=tmp_path)
    b.device.config.lazy_initialization = False
    _train_two_steps(b, Explicit)


def test_efficient_init_moves_weights_to_the_file_store(tmp_path):
    b = cstorch.backend("CSX", artifact_dir=tmp_path)
    cstorch.backends.csx.debug.lazy_initialization = False
    torch.manual_seed(5)
    with b.device:
        model = torch.nn.Sequential(torch.nn.Linear(8, 6), torch.nn.Linear(6, 2))
    stored = [p for p in model.parameters() if isinstance(p._data, np.memmap)]
    assert len(stored) == 4 and len(list((tmp_path / "device_store").iterdir())) == 4
    # same values as the CPU backend's device context (same per-op seeding)
    _backend_mod._reset_for_tests()
    cpu = cstorch.backend("CPU", artifact_dir=tmp_path / "cpu")
    torch.manual_seed(5)
    with cpu.device:
        ref = torch.nn.Sequential(torch.nn.Linear(8, 6), torch.nn.Linear(6, 2))
    for p, q in zip(model.parameters(), ref.parameters()):
        assert np.array_equal(np.asarray(p.detach().cpu().numpy()), q.detach().cpu().numpy())


_RSS_SCRIPT = r"""
import resource, sys
import minitorch_cs as cstorch, minitorch_cs.torch as torch
mode = sys.argv[1]
b = cstorch.backend("CSX", artifact_dir=sys.argv[2])
cstorch.backends.csx.debug.lazy_initialization = (mode == "lazy")
def status_kb(field):
    return int(open("/proc/self/status").read().split(field + ":")[1].split()[0])
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # reset the peak (VmHWM) so import-time peaks do not count
base = status_kb("VmRSS")
if mode == "eager":
    model = torch.nn.Sequential(*[torch.nn.Linear(2048, 2048) for _ in range(12)])
else:
    with b.device:
        model = torch.nn.Sequential(*[torch.nn.Linear(2048, 2048) for _ in range(12)])
print((status_kb("VmHWM") - base) * 1024)
"""


@pytest.mark.parametrize("mode", ["efficient", "lazy"])
@pytest.mark.slow
def test_device_construction_keeps_host_memory_low(tmp_path, mode):
    """RSS of a subprocess building a 50M-parameter (200 MB) model."""
    import subprocess
    import sys
    model_bytes = 12 * 2048 * 2049 * 4
    out = subprocess.run([sys.executable, "-c", _RSS_SCRIPT, mode, str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    grew = int(out.stdout.split()[-1])
    eager = subprocess.run([sys.executable, "-c", _RSS_SCRIPT, "eager", str(tmp_path)],
                           capture_output=True, text=True, timeout=300)
    eager_grew = int(eager.stdout.split()[-1])
    assert eager_grew > 0.9 * model_bytes
    limit = 0.25 if mode == "efficient" else 0.05
    assert grew < limit * model_bytes, (grew, model_bytes)


def test_uses_outside_the_block_run_eagerly(csx):
    """Optimizer state made lazily in preinitialize is materialized by its first real use."""
    from minitorch_cs.torch import _dispatch
    model = torch.nn.Linear(3, 2)
    opt = cstorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    buf = opt.state[model.weight]["momentum_buffer"]
    assert lazy_init.is_lazy(buf)
    F.mse_loss(model(torch.ones(4, 3)), torch.zeros(4, 2)).backward()
    opt.step()
    assert not lazy_init.is_lazy(buf) and np.abs(buf.numpy()).sum() > 0
    assert not any(isinstance(m, lazy_init.LazyInitMode) for m in _dispatch.modes())
