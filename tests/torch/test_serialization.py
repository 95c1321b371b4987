"""torch.save / torch.load in PyTorch's zip format: round trips, files exchanged with real PyTorch
in both directions (when torch is importable), weights_only, atomic writes and the errors."""
from __future__ import annotations

import collections
import fractions
import io
import os
import pickle

import numpy as np
import pytest

from minitorch_cs import torch


def _tree():
    w = torch.arange(6.0).reshape(2, 3)
    return {"model": collections.OrderedDict(w=w, b=torch.tensor([1, 2]),
                                             h=torch.ones(2, dtype=torch.bfloat16),
                                             t=torch.arange(12.0).reshape(3, 4).t()),
            "step": 3, "lr": 0.1, "p": torch.nn.Parameter(torch.ones(2)),
            "size": torch.Size([2, 3]), "dtype": torch.float16, "device": torch.device("cpu"),
            "tied": [w, w], "nested": (1, "a", None, True), "empty": torch.zeros(0, 3)}


def _check(tree):
    m = tree["model"]
    assert isinstance(m, collections.OrderedDict) and list(m) == ["w", "b", "h", "t"]
    assert m["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert m["b"].dtype is torch.int64 and m["h"].dtype is torch.bfloat16
    assert m["t"].tolist() == torch.arange(12.0).reshape(3, 4).t().tolist()  # a strided view
    assert isinstance(tree["p"], torch.nn.Parameter) and tree["p"].requires_grad
    assert tree["size"] == torch.Size([2, 3]) and isinstance(tree["size"], torch.Size)
    assert tree["dtype"] is torch.float16 and tree["device"] == torch.device("cpu")
    assert tree["tied"][0] is tree["tied"][1]
    assert tree["nested"] == (1, "a", None, True) and tree["empty"].shape == (0, 3)


def test_round_trip_through_a_path_and_a_buffer(tmp_path):
    path = tmp_path / "ckpt.pt"
    torch.save(_tree(), path)
    _check(torch.load(path))
    assert sorted(os.listdir(tmp_path)) == ["ckpt.pt"]  # the temporary file was renamed into place
    buf = io.BytesIO()
    torch.save(_tree(), buf)
    buf.seek(0)
    _check(torch.load(buf))


def test_a_model_state_dict_round_trip_restores_the_model(tmp_path):
    torch.manual_seed(0)
    a = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    torch.save(a.state_dict(), tmp_path / "m.pt")
    b = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    b.load_state_dict(torch.load(tmp_path / "m.pt"))
    x = torch.randn(5, 3)
    assert a(x).tolist() == b(x).tolist()


def test_weights_only_refuses_other_globals(tmp_path):
    torch.save({"q": fractions.Fraction(1, 3), "c": collections.Counter("ab")}, tmp_path / "c.pt")
    with pytest.raises(pickle.UnpicklingError) as ei:
        torch.load(tmp_path / "c.pt")
    msg = str(ei.value)
    assert type(ei.value).__module__ == "_pickle"
    assert msg.startswith("Weights only load failed. This file can still be loaded, to do so you "
                          "have two options, \033[1mdo those steps only if you trust the source of "
                          "the checkpoint\033[0m. ")
    assert ("WeightsUnpickler error: Unsupported global: GLOBAL fractions.Fraction was not an allowed "
            "global by default. Please use `torch.serialization.add_safe_globals("
            "[fractions.Fraction])` or the `torch.serialization.safe_globals([fractions.Fraction])` "
            "context manager to allowlist this global if you trust this class/function.") in msg
    assert torch.load(tmp_path / "c.pt", weights_only=False)["q"] == fractions.Fraction(1, 3)
    with torch.serialization.safe_globals([fractions.Fraction]):  # torch 2.13's allow-list API
        out = torch.load(tmp_path / "c.pt")
    assert out["q"] == fractions.Fraction(1, 3) and out["c"] == collections.Counter("ab")
    assert torch.serialization.get_safe_globals() == []


def test_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        torch.load(tmp_path / "missing.pt")
    (tmp_path / "junk.pt").write_bytes(b"not a zip file")
    with pytest.raises(RuntimeError, match="not a zip archive"):
        torch.load(tmp_path / "junk.pt")
    torch.save({"x": torch.ones(1)}, tmp_path / "ok.pt")
    with pytest.raises(RuntimeError, match="only the CPU device"):
        torch.load(tmp_path / "ok.pt", map_location="cuda:0")
    assert torch.load(tmp_path / "ok.pt", map_location="cpu")["x"].tolist() == [1.0]
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        torch.save({"f": lambda: 1}, tmp_path / "bad.pt")
    assert sorted(os.listdir(tmp_path)) == ["junk.pt", "ok.pt"]  # nothing half-written is left


@pytest.mark.slow
def test_files_move_both_ways_with_pytorch(tmp_path):
    real = pytest.importorskip("torch")
    torch.save(_tree(), tmp_path / "ours.pt")
    r = real.load(tmp_path / "ours.pt")  # real torch, weights_only=True (its default)
    assert r["model"]["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert r["model"]["h"].dtype is real.bfloat16 and isinstance(r["p"], real.nn.Parameter)
    assert r["size"] == real.Size([2, 3]) and r["dtype"] is real.float16
    assert r["tied"][0] is r["tied"][1] and r["model"]["t"].tolist() == \
        real.arange(12.0).reshape(3, 4).t().tolist()
    m = real.nn.Linear(3, 2)
    opt = real.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    m(real.ones(1, 3)).sum().backward()
    opt.step()
    real.save({"model": m.state_dict(), "opt": opt.state_dict(), "view": real.arange(10)[2:8:2],
               "dtype": real.bfloat16}, tmp_path / "real.pt")
    o = torch.load(tmp_path / "real.pt")
    np.testing.assert_array_equal(o["model"]["weight"].numpy(), m.weight.detach().numpy())
    assert o["opt"]["state"][0]["momentum_buffer"].shape == (2, 3)
    assert o["view"].tolist() == [2, 4, 6] and o["dtype"] is torch.bfloat16


def _views():
    base = torch.arange(12.0).reshape(3, 4)
    return {"base": base, "rows": base[1:], "cols": base[:, ::2], "t": base.t(),
            "own": torch.ones(3)}


def _check_shared(d, write):
    """Views saved together come back sharing one storage: a write through one shows in all."""
    assert d["cols"].tolist() == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]
    write(d["base"])
    assert d["rows"][0, 0].item() == 100.0 and d["cols"][1, 0].item() == 100.0
    assert d["t"][0, 1].item() == 100.0 and d["own"].tolist() == [1.0, 1.0, 1.0]


def test_tensors_viewing_one_array_share_one_storage_after_loading():
    buf = io.BytesIO()
    torch.save(_views(), buf)
    buf.seek(0)
    d = torch.load(buf)
    _check_shared(d, lambda b: b.__setitem__((1, 0), 100.0))
    d["rows"].add_(1.0)  # the loaded views are writable views, not copies
    assert d["base"][2, 3].item() == 12.0


def test_shared_storages_move_both_ways_with_pytorch(tmp_path):
    real = pytest.importorskip("torch")
    torch.save(_views(), tmp_path / "ours.pt")
    r = real.load(tmp_path / "ours.pt")
    assert r["rows"].untyped_storage().data_ptr() == r["base"].untyped_storage().data_ptr()
    _check_shared(r, lambda b: b.__setitem__((1, 0), 100.0))
    base = real.arange(12.0).reshape(3, 4)
    real.save({"base": base, "rows": base[1:], "cols": base[:, ::2], "t": base.t(),
               "own": real.ones(3)}, tmp_path / "real.pt")
    _check_shared(torch.load(tmp_path / "real.pt"), lambda b: b.__setitem__((1, 0), 100.0))
