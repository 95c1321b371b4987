"""compile, creation helpers, SyntheticDataset, metrics, restartable loaders (cstorch 2.10 `core/compile.py`, `utils/data/`, `metrics/`)."""
import numpy as np
import pytest

import minitorch_cs as cstorch
import minitorch_cs.torch as torch
import minitorch_cs.torch.nn as nn


def test_compile_returns_a_function_carrying_the_model_methods(cpu_backend):
    model = nn.Linear(3, 2)
    compiled = cstorch.compile(model)
    assert not isinstance(compiled, nn.Module) and callable(compiled)
    for name in ("parameters", "named_parameters", "state_dict", "load_state_dict", "train",
                 "eval", "zero_grad", "modules", "to"):
        assert callable(getattr(compiled, name))
    assert str(compiled.device) == "cpu:0"
    compiled.eval()
    assert model.training is False  # real
    x = torch.ones(4, 3)
    assert torch.equal(compiled(x), model(x))


def test_compile_creates_a_cpu_backend_when_none_exists():
    cstorch.compile(nn.Linear(2, 2))
    assert cstorch.current_backend().is_cpu


def test_compile_errors(cpu_backend):
    with pytest.raises(RuntimeError, match="Cannot instantiate multiple backends"):
        cstorch.compile(nn.Linear(2, 2), "CPU")  # real: a string always creates a backend
    with pytest.raises(TypeError):
        cstorch.compile(nn.Linear(2, 2), backend=3)
    with pytest.raises(TypeError, match="torch.nn.Module"):
        cstorch.compile(lambda x: x)


def test_creation_helpers_and_numpy_bridges():
    t = cstorch.full((2, 3), 1.5)
    assert t.dtype == torch.float32 and t.shape == (2, 3) and float(t[0, 0]) == 1.5
    assert torch.equal(cstorch.zeros_like(t), torch.zeros(2, 3))
    assert torch.equal(cstorch.ones(4, dtype=torch.int64), torch.ones(4, dtype=torch.int64))
    assert cstorch.full_like(t, 7, dtype=torch.int32).dtype == torch.int32
    import ml_dtypes
    a = np.arange(4, dtype=ml_dtypes.bfloat16)
    b = cstorch.from_numpy(a)
    assert b.dtype == torch.bfloat16
    back = cstorch.to_numpy(b)
    assert back.dtype == ml_dtypes.bfloat16 and np.array_equal(back, a)
    back[0] = 9  # to_numpy copies
    assert float(b[0]) == 0.0


def test_synthetic_dataset():
    from minitorch_cs.utils.data import SyntheticDataset
    ds = SyntheticDataset({"x": torch.ones(3), "i": lambda i: torch.tensor(i)}, num_samples=4)
    samples = list(ds)
    assert len(ds) == 4 and len(samples) == 4
    assert [int(s["i"]) for s in samples] == [0, 1, 2, 3]
    samples[0]["x"].add_(1)  # tensors are copies
    assert float(next(iter(ds))["x"][0]) == 1.0
    with pytest.raises(ValueError, match="num_samples"):
        SyntheticDataset({"x": torch.ones(1)}, num_samples=0)
    with pytest.raises(TypeError, match="tensors or callables"):
        SyntheticDataset({"x": 3})
    loader = torch.utils.data.DataLoader(ds, batch_size=2)
    assert [tuple(b["x"].shape) for b in loader] == [(2, 3), (2, 3)]


def test_metrics_accuracy_mean_perplexity(cpu_backend):
    acc = cstorch.metrics.AccuracyMetric("acc")
    acc(labels=torch.tensor([1, 2, 3, 4]), predictions=torch.tensor([1, 0, 3, 0]))
    acc.update(labels=torch.tensor([1, 1]), predictions=torch.tensor([1, 1]))
    assert float(acc) == pytest.approx(4 / 6)
    assert acc.num_updates == 2 and acc.state_dict() == {}  # state is non-persistent
    acc.reset()
    assert acc.num_updates == 0 and float(acc.total_num_tokens) == 0
    weighted = cstorch.metrics.AccuracyMetric("w")
    weighted(labels=torch.tensor([1, 2]), predictions=torch.tensor([1, 0]),
             weights=torch.tensor([1.0, 0.0]))
    assert float(weighted) == 1.0
    mean = cstorch.metrics.MeanMetric("m")
    mean.update(torch.tensor([1.0, 2.0, 3.0]))
    mean.update(10.0, weight=2.0)
    assert float(mean) == pytest.approx((6 + 20) / 5)
    ppl = cstorch.metrics.PerplexityMetric("p")
    ppl.update(labels=torch.zeros(4), loss=torch.tensor(4.0))
    assert float(ppl) == pytest.approx(np.exp(1.0))
    names = dict(cstorch.metrics.get_all_metrics())
    assert names["acc"] is acc or any(m is acc for m in names.values())


def test_metric_inside_executor_and_csx_requires_update(tmp_path):
    b = cstorch.backend("CSX", artifact_dir=tmp_path)
    acc = cstorch.metrics.AccuracyMetric("acc_csx")
    with pytest.raises(RuntimeError, match="has not been updated"):
        acc.compute()
    data = [(torch.tensor([1, 2]), torch.tensor([1, 0])), (torch.tensor([3, 3]), torch.tensor([3, 3]))]
    loader = cstorch.utils.data.DataLoader(lambda: data)
    step = cstorch.trace(lambda l, p: acc(labels=l, predictions=p))
    for labels, preds in cstorch.utils.data.DataExecutor(loader, num_steps=2):
        step(labels, preds)
    assert float(acc) == pytest.approx(3 / 4)


class Restartable:
    def __init__(self, n):
        self.n, self.pos = n, 0

    def __len__(self):
        return self.n

    def __iter__(self):
        while self.pos < self.n:
            self.pos += 1
            yield (torch.tensor([float(self.pos)]),)
        self.pos = 0

    def state_dict(self):
        return {"pos": self.pos}

    def load_state_dict(self, sd, strict=True):
        self.pos = sd["pos"]

    def aggregate_state_dict(self, states):
        return states[0]

    def deaggregate_state_dict(self, agg, strict=True):
        return agg


def test_restartable_dataloader_state(cpu_backend):
    loader = cstorch.utils.data.DataLoader(Restartable, 5)
    assert loader.is_restartable
    saved = []
    ck = cstorch.checkpoint_closure(lambda: saved.append(loader.state_dict()))
    for i, _ in enumerate(cstorch.utils.data.DataExecutor(loader, num_steps=3, checkpoint_steps=2)):
        ck()
        if i == 0:
            with pytest.raises(RuntimeError, match="checkpoint step"):
                loader.state_dict()
    assert saved == [{"pos": 2}, {"pos": 3}]
    fresh = cstorch.utils.data.DataLoader(Restartable, 5)
    fresh.load_state_dict(saved[0])
    got = [float(x) for (x,) in cstorch.utils.data.DataExecutor(fresh, num_steps=3)]
    assert got == [3.0, 4.0, 5.0]
    plain = cstorch.utils.data.DataLoader(lambda: [(torch.zeros(1),)])
    assert not plain.is_restartable
    with pytest.raises(RuntimeError, match="restartable"):
        plain.state_dict()
