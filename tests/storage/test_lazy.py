"""map_location modes: None / "cache" read tensors on first access, "cpu" reads everything at load."""
from __future__ import annotations

import copy
import gc
import pickle
import sys
import threading

import h5py
import numpy as np
import pytest

import minitorch_cs.torch as torch
from minitorch_cs.storage import DeferredTensor, load, save

LOAD = sys.modules["minitorch_cs.storage.load"]


@pytest.fixture
def reads(monkeypatch):
    """Every dataset read, by key."""
    log = []
    real = LOAD._H5Source.read_array

    def counting(self, key, *args):
        log.append(key)
        return real(self, key, *args)

    monkeypatch.setattr(LOAD._H5Source, "read_array", counting)
    return log


@pytest.fixture
def ckpt(tmp_path):
    w = torch.arange(12.0).reshape(3, 4)
    p = tmp_path / "c.mdl"
    save({"w": w, "tied": w, "b": torch.tensor([1, 2], dtype=torch.int64), "s": torch.tensor(2.5),
          "h": torch.tensor([1.5, -2.0], dtype=torch.bfloat16), "np": np.arange(3), "step": 4}, p)
    return p


@pytest.mark.parametrize("mode", [None, "cache"])
def test_nothing_is_read_until_access(ckpt, reads, mode):
    sd = load(ckpt, map_location=mode)
    assert reads == ["np"]  # numpy leaves are read at load (they come back as np.ndarray)
    w = sd["w"]
    assert type(w) is DeferredTensor and isinstance(w, torch.Tensor)
    assert sd["tied"] is w
    # metadata without reading
    assert w.shape == (3, 4) and w.size() == (3, 4) and w.size(1) == 4 and w.size(-2) == 3
    assert w.dtype is torch.float32 and w.ndim == 2 and w.dim() == 2 and w.numel() == 12
    assert len(w) == 3 and w.stride() == (4, 1) and w.is_contiguous() and not w.requires_grad
    assert w.device == torch.device("cpu") and w.element_size() == 4 and w.is_floating_point()
    assert sd["s"].shape == () and sd["h"].dtype is torch.bfloat16
    assert reads == ["np"]
    # first use reads that tensor only, once
    assert (w * 2).sum().item() == 132.0
    assert reads == ["np", "w"]
    assert type(w) is torch.Tensor and type(sd["b"]) is DeferredTensor
    assert w.tolist()[2] == [8.0, 9.0, 10.0, 11.0] and sd["tied"].sum().item() == 66.0
    assert reads == ["np", "w"]
    assert sd["b"].tolist() == [1, 2] and sd["h"].tolist() == [1.5, -2.0] and sd["s"].item() == 2.5
    assert sorted(reads) == ["b", "h", "np", "s", "w"]


def test_cpu_reads_everything_at_load(ckpt, reads):
    sd = load(ckpt, map_location="cpu")
    assert sorted(reads) == ["b", "h", "np", "s", "w"]
    assert all(type(sd[k]) is torch.Tensor for k in ("w", "b", "s", "h"))
    assert sd["tied"] is sd["w"]
    for loc in (torch.device("cpu"), "cpu:0"):
        assert type(load(ckpt, map_location=loc)["w"]) is torch.Tensor


def test_cstorch_device_as_map_location(ckpt, cpu_backend):
    sd = load(ckpt, map_location=cpu_backend.device)
    assert type(sd["w"]) is torch.Tensor


def test_in_place_updates_persist(ckpt):
    sd = load(ckpt)
    sd["w"].add_(1.0)
    sd["w"].mul_(2.0)
    assert sd["tied"][0].tolist() == [2.0, 4.0, 6.0, 8.0]
    b = sd["b"]
    b.zero_()
    assert b.tolist() == [0, 0]
    sd["s"].copy_(torch.tensor(7.0))
    assert sd["s"].item() == 7.0


def test_mixed_ops_and_autograd(ckpt):
    sd = load(ckpt)
    w = sd["w"].requires_grad_()
    assert type(w) is DeferredTensor and w.requires_grad
    y = (w * torch.ones(3, 4)).sum()
    y.backward()
    assert w.grad.tolist() == [[1.0] * 4] * 3
    assert type(w) is torch.Tensor


def test_numpy_and_repr_materialize(ckpt):
    sd = load(ckpt)
    a = sd["w"].numpy()
    assert a.flags.writeable and a.dtype == np.float32
    a[0, 0] = 100  # numpy() shares memory with the (now materialized) tensor
    assert sd["tied"][0, 0].item() == 100.0
    assert "2.5" in repr(sd["s"])
    assert torch.from_numpy(sd["b"].numpy()).tolist() == [1, 2]


def test_clone_and_deepcopy_do_not_read(ckpt, reads):
    sd = load(ckpt)
    c = sd["w"].clone()
    d = copy.deepcopy(sd)
    assert type(c) is DeferredTensor and type(d["w"]) is DeferredTensor
    assert d["tied"] is d["w"] and d["w"] is not sd["w"]
    assert reads == ["np"]
    c.add_(1.0)
    assert sd["w"][0, 0].item() == 0.0 and c[0, 0].item() == 1.0 and d["w"][0, 0].item() == 0.0


def test_pickle_materializes(ckpt):
    sd = load(ckpt)
    back = pickle.loads(pickle.dumps(sd["w"]))
    assert type(back) is torch.Tensor and back.tolist() == sd["w"].tolist()


def test_reads_still_work_after_the_file_is_deleted(ckpt):
    sd = load(ckpt)
    ckpt.unlink()
    assert sd["w"].sum().item() == 66.0  # the file stays open while deferred tensors need it


def test_file_is_closed_when_no_deferred_tensor_needs_it(ckpt):
    sd = load(ckpt)
    for k in ("w", "b", "s", "h"):
        sd[k].tolist()
    gc.collect()
    with h5py.File(ckpt, "a"):  # fails while a read-only handle is open in this process
        pass
    sd = load(ckpt)
    del sd
    gc.collect()
    with h5py.File(ckpt, "a"):
        pass


def test_concurrent_first_access_reads_once(ckpt, reads):
    sd = load(ckpt)
    w = sd["w"]
    results = []
    threads = [threading.Thread(target=lambda: results.append(w.sum().item())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [66.0] * 8 and reads.count("w") == 1


def test_load_of_a_large_file_reads_nothing(tmp_path, reads):
    sd = {f"layer{i}.weight": torch.zeros(256, 256) for i in range(40)}  # 10 MB
    save(sd, tmp_path / "big.mdl")
    out = load(tmp_path / "big.mdl")
    assert reads == [] and all(type(v) is DeferredTensor for v in out.values())
    out["layer7.weight"].add_(1)
    assert reads == ["layer7.weight"]


def test_load_state_dict_into_module(ckpt, tmp_path):
    nn = pytest.importorskip("minitorch_cs.torch.nn")
    if not hasattr(nn, "Linear"):
        pytest.skip("nn.Linear not available yet")
    m = nn.Linear(4, 3)
    save({"model": {k: v.detach() for k, v in m.state_dict().items()}}, tmp_path / "m.mdl")
    m2 = nn.Linear(4, 3)
    m2.load_state_dict(load(tmp_path / "m.mdl")["model"])
    for (k, a), b in zip(m.state_dict().items(), m2.state_dict().values()):
        assert a.tolist() == b.tolist(), k
