"""The smaller mirrored modules scripts call: ``modelzoo.config`` on pydantic, ``utils.nest``,
``distributed`` (single-process answers measured on the real stack), cstorch's
``DistributedSampler``, and the common tensor idioms."""
from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from typing import List, Literal, Optional

import numpy as np
import pytest
from pydantic import Field, ValidationError

import minitorch_cs as cstorch
import minitorch_cs.distributed as dist
import minitorch_cs.torch as torch
import minitorch_cs.torch.nn.functional as F
from minitorch_cs.modelzoo.config import (BaseConfig, DataConfig, ModelConfig, NamedConfig,
                                          create_config_class, describe_fields)
from minitorch_cs.utils import nest


# ----------------------------------------------------------------------------- modelzoo.config
class MLPConfig(ModelConfig):
    name: Literal["probe_mlp", "probe_mlp_alias"]
    """Name of the model."""

    hidden_sizes: Optional[List[int]] = None
    """Hidden layer sizes."""

    depth: Optional[int] = None
    hidden_size: Optional[int] = None
    old_knob: Optional[int] = Field(default=None, deprecated=True)

    def post_init(self, context):
        if self.hidden_sizes is None:
            if self.hidden_size is None or self.depth is None:
                raise ValueError("hidden_size and depth, or hidden_sizes must be provided")
            self.hidden_sizes = [self.hidden_size] * self.depth

    @property
    def __model_cls__(self):
        return MLP


class MLP(torch.nn.Module):
    def __init__(self, config: MLPConfig):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(4, h) for h in config.hidden_sizes)


def test_model_config_defaults_discriminator_and_post_init():
    cfg = MLPConfig(depth=2, hidden_size=3)
    assert cfg.name == "probe_mlp" and cfg.discriminator_value == "probe_mlp"
    assert cfg.hidden_sizes == [3, 3]
    assert "name=" not in repr(cfg)  # the discriminator is hidden from the repr
    assert MLPConfig(name="probe_mlp_alias", hidden_sizes=[1]).name == "probe_mlp_alias"
    with pytest.raises(ValidationError):
        MLPConfig(name="other", hidden_sizes=[1])


def test_model_config_is_frozen_and_strict():
    cfg = MLPConfig(hidden_sizes=[2])
    with pytest.raises(ValidationError, match="frozen"):
        cfg.depth = 3
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        MLPConfig(hidden_sizes=[2], hiden_sizes=[3])
    with pytest.raises(ValidationError, match="hidden_size and depth"):
        MLPConfig(depth=2)
    with pytest.raises(ValidationError):
        MLPConfig(hidden_sizes="wide")


def test_deprecated_fields_warn():
    with pytest.warns(FutureWarning, match=r"deprecated fields for MLPConfig: \['old_knob'\]"):
        MLPConfig(hidden_sizes=[1], old_knob=3)


def test_calling_a_model_config_builds_the_model():
    model = MLPConfig(depth=3, hidden_size=5)()
    assert isinstance(model, MLP) and len(model.layers) == 3


def test_copy_validates_and_model_copy_warns():
    cfg = MLPConfig(hidden_sizes=[2])
    with pytest.raises(ValidationError):
        cfg.copy(update={"hidden_sizes": "x"})
    assert cfg.copy(update={"depth": 7}).depth == 7
    with pytest.warns(UserWarning, match="does not validate"):
        cfg.model_copy(update={"depth": 1})


def test_data_config():
    class LoaderConfig(DataConfig):
        data_processor: Literal["ProbeProcessor"]
        batch_size: int
        drop_last: bool = Field(True, validation_alias="drop_last_batch")

    cfg = LoaderConfig(batch_size=8, drop_last_batch=False)
    assert cfg.data_processor == "ProbeProcessor" and cfg.drop_last is False
    assert LoaderConfig.model_validate({"batch_size": 2, "drop_last": False}).drop_last is False
    with pytest.raises(RuntimeError, match="DataConfig should not be directly called."):
        cfg()


def test_named_config_needs_a_literal_discriminator():
    class NoLiteral(NamedConfig):
        name: str

    with pytest.raises(TypeError, match="to be a Literal"):
        NoLiteral(name="x")


def test_create_config_class_from_a_signature():
    class Head:
        def __init__(self, width: int, act: str = "relu", **extra):
            self.width, self.act, self.extra = width, act, extra

    Cfg = create_config_class(Head)
    cfg = Cfg(width=3, bias=False)
    head = cfg()
    assert (head.width, head.act, head.extra) == (3, "relu", {"bias": False})
    with pytest.raises(ValidationError):
        Cfg(width="wide")
    assert issubclass(Cfg, BaseConfig) and Cfg.get_orig_class() is Head


def test_describe_fields():
    rows = {r["Name"]: r for r in describe_fields(MLPConfig)}
    assert rows["hidden_sizes"]["Description"] == "Hidden layer sizes."
    assert rows["depth"]["Default"] == "None" and "old_knob" not in rows


# ----------------------------------------------------------------------------- utils.nest
def test_nest_visit_and_map():
    P = namedtuple("P", "a b")
    data = {"x": [torch.ones(1), 2], "y": P(torch.zeros(2), "k"),
            "z": OrderedDict(q=torch.ones(3))}
    scopes = [s for s, _ in nest.visit_torch_tensors(data)]
    assert scopes == [["x", "0"], ["y", "0"], ["z", "q"]]
    mapped = nest.map_torch_tensors(lambda s, t: ".".join(s), data)
    assert mapped == {"x": ["x.0", 2], "y": P("y.0", "k"), "z": OrderedDict(q="z.q")}
    assert type(mapped["z"]) is OrderedDict and type(mapped["y"]) is P
    with pytest.raises(ValueError, match="Unknown data structure"):
        list(nest.visit_torch_tensors({"a": 1}, strict=True))
    assert list(nest.visit_torch_tensors([torch.ones(1)], scope=["batch"]))[0][0] == ["batch", "0"]
    assert [s for s, _ in nest.visit_device_tensors(data, "cpu")] == scopes


def test_nest_register_visit_fn_and_diff():
    class Pair:
        def __init__(self, left, right):
            self.left, self.right = left, right

    @nest.register_visit_fn(Pair)
    def visit_pair(p):
        yield ["left"], p.left
        yield ["right"], p.right

    try:
        found = [s for s, _ in nest.visit_torch_tensors(Pair(torch.ones(1), [torch.ones(1)]))]
        assert found == [["left"], ["right", "0"]]
    finally:
        nest.unregister_visit_fn(Pair)
    assert nest.find_visit_fn(Pair(1, 2)) is None
    diffs = list(nest.diff({"a": 1, "b": torch.ones(2)}, {"a": 2, "c": 3, "b": torch.ones(2)}))
    assert "Keys only in data structure 2: ['c']" in diffs[0]
    assert diffs[1] == "Found mismatching values for a: 1 != 2"


# ----------------------------------------------------------------------------- distributed
def test_distributed_answers_as_the_real_user_node():
    """Measured with cerebras-pytorch 2.10 on CPU (one process, the user node)."""
    assert (dist.num_tasks(), dist.num_streamers(), dist.num_receivers(), dist.get_ordinal()) == \
        (1, 0, 1, 0)
    assert dist.is_master_ordinal() and dist.is_receiver() and not dist.is_streamer()
    with pytest.raises(AssertionError, match="Ordinal 0 is not a streamer."):
        dist.get_streaming_rank()
    assert dist.get_streaming_batch_size(4) == 4
    with pytest.raises(ValueError, match="positive integer, but got value 0"):
        dist.get_streaming_batch_size(0)
    with pytest.raises(TypeError, match="to be an integer, but got type <class 'float'>"):
        dist.get_streaming_batch_size(2.0)
    dist.WorkerState._state = None  # an earlier DataLoader iteration leaves one readable state
    with pytest.raises(RuntimeError, match="Unable to fetch CSX Worker state"):
        dist.get_worker_state()
    assert repr(dist.ClusterConfig()).startswith("ClusterConfig(mgmt_address=None")


class _Ten(torch.utils.data.Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        return torch.tensor(i)


def test_cstorch_distributed_sampler_batches_and_carries_leftovers():
    s = cstorch.utils.data.DistributedSampler(_Ten(), shuffle=True, seed=3, batch_size=4)
    first, second = list(s), list(s)
    assert len(first) == 2 and all(len(b) == 4 for b in first)
    # the 2 samples left over from epoch 0 start epoch 1: 2 + 10 = 12 -> 3 batches
    assert len(second) == 3
    epoch0 = [i for b in first for i in b]
    assert len(set(epoch0)) == 8 and set(epoch0) < set(range(10))
    again = cstorch.utils.data.DistributedSampler(_Ten(), shuffle=True, seed=3, batch_size=4)
    assert list(again) == first  # seeded by seed + epoch


def test_cstorch_distributed_sampler_options():
    D = cstorch.utils.data.DistributedSampler
    from minitorch_cs.utils.data.sampler import pad_index
    padded = list(D(_Ten(), shuffle=False, batch_size=4, drop_last=False, pad_last=True))
    assert padded[:2] == [[0, 1, 2, 3], [4, 5, 6, 7]] and padded[2][:2] == [8, 9]
    assert padded[2][2] is pad_index and padded[2][3] is pad_index
    assert list(D(_Ten(), shuffle=False, batch_size=4, drop_last=False)) == \
        [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert list(D(_Ten(), shuffle=False, num_samples=13)) == list(range(10)) + [0, 1, 2]
    assert list(D(_Ten(), shuffle=False, start_index=13, batch_size=3)) == [[3, 4, 5], [6, 7, 8]]
    extended = list(D(_Ten(), shuffle=True, seed=1, num_samples=13))
    assert len(extended) == 13 and set(extended) == set(range(10))
    with pytest.raises(TypeError):  # shuffle without a seed fails when iterated, as in cstorch
        list(D(_Ten(), shuffle=True))
    loader = torch.utils.data.DataLoader(_Ten(), batch_sampler=D(_Ten(), shuffle=False,
                                                                 batch_size=3))
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]


def test_cstorch_distributed_sampler_on_csx_needs_equal_batches():
    cstorch.backend("CSX")
    with pytest.raises(ValueError, match="requires all batches to have the same batch size"):
        cstorch.utils.data.DistributedSampler(_Ten(), batch_size=4, drop_last=False)
    with pytest.raises(ValueError, match="batch_size must be the global batch size"):
        cstorch.utils.data.DistributedSampler(_Ten(), seed=0)


def test_torch_distributed_sampler_single_process():
    s = torch.utils.data.distributed.DistributedSampler(_Ten(), shuffle=False)
    assert (s.num_replicas, s.rank, list(s)) == (1, 0, list(range(10)))
    two = [list(torch.utils.data.distributed.DistributedSampler(_Ten(), num_replicas=2, rank=r,
                                                                shuffle=False)) for r in (0, 1)]
    assert two == [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]


# ----------------------------------------------------------------------------- tensor idioms
def test_tensor_idioms():
    arr = np.arange(4, dtype=np.float32)
    t = torch.as_tensor(arr)
    arr[0] = 7  # as_tensor shares memory with a matching ndarray
    assert t[0].item() == 7
    assert torch.as_tensor(3, dtype=torch.int32).dtype == torch.int32
    assert tuple(torch.broadcast_to(torch.ones(3), (2, 3)).shape) == (2, 3)
    x = torch.tensor([1.0, float("nan"), float("inf"), -float("inf")])
    assert torch.isnan(x).tolist() == [False, True, False, False]
    assert torch.isinf(x).tolist() == [False, False, True, True]
    assert np.isnan(torch.nan) and torch.inf == float("inf")
    f = torch.tensor([1.7, -2.5])
    assert f.int().dtype == torch.int32 and f.int().tolist() == [1, -2]
    assert f.long().dtype == torch.int64 and torch.tensor([1, 2]).float().dtype == torch.float32
    assert torch.cuda.is_available() is False and torch.cuda.device_count() == 0
    assert str(torch.device("cuda" if torch.cuda.is_available() else "cpu")) == "cpu"


def test_no_grad_as_decorator_with_and_without_call():
    w = torch.ones(2, requires_grad=True)

    @torch.no_grad()
    def called(x):
        return x * 2

    @torch.no_grad
    def bare(x):
        return x * 2

    assert not called(w).requires_grad and not bare(w).requires_grad
    assert (w * 2).requires_grad


def test_fstring_formatting_like_torch():
    loss = torch.tensor(0.123456)
    assert f"{loss:.4f}" == "0.1235" and f"{loss}" == str(loss.item())
    assert f"{torch.tensor(3):d}" == "3" and f"{torch.tensor(True)}" == "True"
    v = torch.tensor([1.5, 2.5])
    assert f"{v}" == repr(v) == "tensor([1.5000, 2.5000])"
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        f"{v:.2f}"
    p = torch.nn.Parameter(torch.tensor(0.5))
    with pytest.raises(TypeError, match="unsupported format string"):  # torch: only exact Tensors
        f"{p:.2f}"


def test_int32_class_targets_are_refused_as_torch_does():
    logits, target = torch.randn(5, 4), torch.tensor([0, 3, 1, 1, 2], dtype=torch.int32)
    for loss in (F.cross_entropy, F.nll_loss):
        with pytest.raises(RuntimeError, match="^expected target dtype to be Long or Byte, but "
                                               "got Int$"):
            loss(logits, target)


@pytest.mark.parametrize("dtype", ["int64", "uint8"])
def test_class_targets_and_reduction_none(dtype):
    torch.manual_seed(0)
    logits = torch.randn(5, 4)
    target = torch.tensor([0, 3, 1, 1, 2], dtype=getattr(torch, dtype))
    ref = F.cross_entropy(logits, target.long(), reduction="none")
    per = F.cross_entropy(logits, target, reduction="none")
    assert tuple(per.shape) == (5,)
    np.testing.assert_allclose(per.numpy(), ref.numpy())
    np.testing.assert_allclose(F.cross_entropy(logits, target).item(), ref.mean().item(),
                               rtol=1e-6)
    lp = F.log_softmax(logits, dim=1)
    np.testing.assert_allclose(F.nll_loss(lp, target, reduction="none").numpy(), ref.numpy(),
                               rtol=1e-6)
    assert F.nll_loss(lp, target, reduction="sum").item() == pytest.approx(ref.sum().item(),
                                                                            rel=1e-6)


def test_idioms_against_torch():
    real = pytest.importorskip("torch")
    for ours, theirs in ((torch, real),):
        for name in ("as_tensor", "broadcast_to", "isnan", "isinf", "no_grad", "flatten"):
            assert callable(getattr(ours, name)) and callable(getattr(theirs, name))
    a = np.array([[1.5, np.nan], [np.inf, -2.0]], dtype=np.float32)
    for fn in ("isnan", "isinf"):
        assert getattr(torch, fn)(torch.as_tensor(a)).tolist() == \
            getattr(real, fn)(real.as_tensor(a)).tolist()
    assert torch.as_tensor(a[:1, :1]).int().item() == real.as_tensor(a[:1, :1]).int().item()
    loss_ours, loss_real = torch.tensor(2.0 / 3.0), real.tensor(2.0 / 3.0)
    for spec in (".4f", "", ".2e", ">10.3f"):
        assert format(loss_ours, spec) == format(loss_real, spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert f"{torch.tensor([1.0, 2.0])}" == f"{real.tensor([1.0, 2.0])}"
