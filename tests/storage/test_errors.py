"""save refusals and load errors (messages as the real stack's where it has one)."""
from __future__ import annotations

import collections
import os
from pathlib import Path

import h5py
import numpy as np
import pytest

import minitorch_cs.torch as torch
from minitorch_cs.storage import load, save

DATA = Path(__file__).resolve().parents[1] / "data" / "real_ckpt"


def _files(d):
    return sorted(p.name for p in Path(d).iterdir())


# -- save ---------------------------------------------------------------------------------------------
def test_refuses_to_overwrite(tmp_path):
    p = tmp_path / "c.mdl"
    save({"a": torch.ones(2)}, p)
    before = p.read_bytes()
    with pytest.raises(FileExistsError) as ei:
        save({"a": torch.zeros(2)}, p)
    assert str(ei.value) == (f"Checkpoint at '{p}' already exists. Please delete the checkpoint "
                             "and run again.")
    assert p.read_bytes() == before and _files(tmp_path) == ["c.mdl"]
    (tmp_path / "d").mkdir()
    with pytest.raises(FileExistsError):  # any existing path, like the real os.path.exists check
        save({}, tmp_path / "d")


def test_requires_grad_refused_without_leftovers(tmp_path):
    w = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError) as ei:
        save({"a": torch.arange(3.0), "w": w}, tmp_path / "c.mdl")
    assert str(ei.value) == ("Can't call numpy() on Tensor that requires grad. Use "
                             "tensor.detach().numpy() instead.")
    assert _files(tmp_path) == []  # real stack: leaves c.mdl.<hex>.tmp behind
    with pytest.raises(RuntimeError, match="requires grad"):
        save({"y": w * 2}, tmp_path / "c.mdl")  # non-leaf tensors too
    save({"w": w.detach()}, tmp_path / "c.mdl")
    assert load(tmp_path / "c.mdl")["w"].tolist() == [1.0, 1.0]


def test_parameter_refused(tmp_path):
    nn = pytest.importorskip("minitorch_cs.torch.nn")
    if not hasattr(nn, "Parameter"):
        pytest.skip("nn.Parameter not available yet")
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        save({"p": nn.Parameter(torch.ones(2))}, tmp_path / "c.mdl")
    assert _files(tmp_path) == []


def test_int8_refused(tmp_path):
    with pytest.raises(ValueError, match="Cannot convert np.dtype 'int8' to RtFxProto dtype"):
        save({"a": torch.ones(2, dtype=torch.int8)}, tmp_path / "c.mdl")
    assert _files(tmp_path) == []


def test_meta_tensor_refused(tmp_path):
    with pytest.raises(NotImplementedError, match="meta"):
        save({"a": torch.ones(2).to("meta")}, tmp_path / "c.mdl")
    assert _files(tmp_path) == []


def test_toplevel_tensor_refused(tmp_path):
    for leaf in (torch.ones(2), np.ones(2), np.float32(1), {"": torch.ones(1)}):
        with pytest.raises(TypeError, match="empty name"):
            save(leaf, tmp_path / "c.mdl")
    assert _files(tmp_path) == []
    save(7, tmp_path / "i.mdl")  # a top-level scalar works (key "")
    assert load(tmp_path / "i.mdl") == 7


def test_colliding_keys_refused(tmp_path):
    for tree in ({"a.b": torch.ones(1), "a": {"b": torch.zeros(1)}}, {1: "x", "1": "y"}):
        with pytest.raises(ValueError, match="same checkpoint key"):
            save(tree, tmp_path / "c.mdl")
    assert _files(tmp_path) == []


def test_keys_that_change_through_json_refused(tmp_path):
    with pytest.raises(ValueError, match="cannot save dict key \\(1, 2\\)"):
        save({(1, 2): 3}, tmp_path / "c.mdl")
    with pytest.raises(TypeError, match="Unable to serialize context"):
        save({frozenset({1}): 3}, tmp_path / "c.mdl")
    assert _files(tmp_path) == []


def test_namedtuple_refused(tmp_path):
    P = collections.namedtuple("P", ["x"])
    with pytest.raises(NotImplementedError, match="Can't serialize TreeSpec of namedtuple class"):
        save({"p": P(1)}, tmp_path / "c.mdl")
    with pytest.raises(NotImplementedError, match="torch.Size"):
        save({"s": torch.ones(2, 3).shape}, tmp_path / "c.mdl")
    assert _files(tmp_path) == []


def test_unsupported_deque_and_defaultdict(tmp_path):
    with pytest.raises(TypeError, match="maxlen"):
        save({"q": collections.deque([1], maxlen=3)}, tmp_path / "c.mdl")
    with pytest.raises(ValueError, match="defaultdict with 3 entries"):
        save({"d": collections.defaultdict(list, a=1, b=2, c=3)}, tmp_path / "c.mdl")
    with pytest.raises(ValueError, match="cannot be imported back"):
        save({"d": collections.defaultdict(lambda: 0, a=1)}, tmp_path / "c.mdl")
    assert _files(tmp_path) == []


def test_unpicklable_leaf_refused(tmp_path):
    with pytest.raises(Exception):
        save({"f": lambda: 0}, tmp_path / "c.mdl")
    assert _files(tmp_path) == []


def test_h5py_write_failure_removes_tmp(tmp_path):
    with pytest.raises(TypeError):  # h5py cannot store object arrays
        save({"a": torch.ones(1), "o": np.array([object()])}, tmp_path / "c.mdl")
    assert _files(tmp_path) == []


def test_missing_directory(tmp_path):
    with pytest.raises((FileNotFoundError, OSError)):
        save({"a": 1}, tmp_path / "nope" / "c.mdl")


# -- load ---------------------------------------------------------------------------------------------
def test_missing_file(tmp_path):
    p = tmp_path / "none.mdl"
    with pytest.raises(FileNotFoundError) as ei:
        load(p)
    assert str(ei.value) == f"{p} does not exist"


def test_partial_file_message():
    p = str(DATA / "partial.mdl")
    with pytest.raises(RuntimeError) as ei:
        load(p)
    assert str(ei.value) == f"Cannot load partially written checkpoint at {p}."


def test_text_file(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("hello")
    with pytest.raises(RuntimeError) as ei:
        load(p)
    assert str(ei.value) == f"Failed to load checkpoint file `{p}`."
    assert isinstance(ei.value.__cause__, ValueError) and "is not an HDF5 file" in str(ei.value.__cause__)


def test_directory(tmp_path):
    with pytest.raises(RuntimeError, match="Failed to load checkpoint file"):
        load(tmp_path)


def test_foreign_hdf5(tmp_path):
    p = tmp_path / "data.h5"
    with h5py.File(p, "w") as f:
        f["x"] = np.arange(3)
        f.attrs["something"] = 1
    with pytest.raises(RuntimeError, match="not a cstorch checkpoint") as ei:
        load(p)
    assert isinstance(ei.value.__cause__, KeyError)


def test_truncated_file(tmp_path):
    save({"a": torch.ones(1000)}, tmp_path / "c.mdl")
    data = (tmp_path / "c.mdl").read_bytes()
    (tmp_path / "t.mdl").write_bytes(data[: len(data) // 2])
    with pytest.raises(RuntimeError, match="Failed to load checkpoint file"):
        load(tmp_path / "t.mdl")


def test_legacy_version(tmp_path):
    p = tmp_path / "old.mdl"
    with h5py.File(p, "w") as f:
        f.attrs["__version__"] = 0.4
        f.attrs["__spec__"] = "80049500"
    with pytest.raises(RuntimeError, match="legacy cstorch checkpoint format 0.4"):
        load(p)


def _patched(tmp_path, fn):
    p = tmp_path / "c.mdl"
    save({"a": torch.ones(2), "b": 3}, p)
    with h5py.File(p, "a") as f:
        fn(f)
    return p


def test_missing_leaf_metadata(tmp_path):
    p = _patched(tmp_path, lambda f: f.attrs.__delitem__("b.__metadata__"))
    with pytest.raises(RuntimeError, match="'b.__metadata__' of leaf 'b' is missing"):
        load(p)


def test_bad_json(tmp_path):
    p = _patched(tmp_path, lambda f: f.attrs.__setitem__("__spec__", "{not json"))
    with pytest.raises(RuntimeError, match="treespec cannot be decoded"):
        load(p)


def test_unknown_serializer(tmp_path):
    def fn(f):
        f.attrs["b.__metadata__"] = f.attrs["b.__metadata__"].replace("ScalarSerializer", "Nope")
    with pytest.raises(RuntimeError, match="No serializer registered with name Nope"):
        load(_patched(tmp_path, fn))


def test_missing_dataset(tmp_path):
    p = _patched(tmp_path, lambda f: f.__delitem__("a"))
    with pytest.raises(RuntimeError, match="cannot be read"):
        load(p, map_location="cpu")
    t = load(p)["a"]  # lazily: the error comes on first access
    with pytest.raises(KeyError, match="missing"):
        t.tolist()


def test_bad_map_location(tmp_path):
    save({"a": 1}, tmp_path / "c.mdl")
    with pytest.raises(TypeError, match="map_location"):
        load(tmp_path / "c.mdl", map_location={"cuda:0": "cpu"})
    with pytest.raises(RuntimeError, match="Expected one of"):
        load(tmp_path / "c.mdl", map_location="tpu")


def test_file_object_refused(tmp_path):
    save({"a": 1}, tmp_path / "c.mdl")
    with open(tmp_path / "c.mdl", "rb") as fh:
        with pytest.raises(RuntimeError, match="Failed to load checkpoint file"):
            load(fh)


def test_fixed_length_string_attributes_are_accepted(tmp_path):
    # the real loader rejects np.bytes_ attributes; we decode them
    def fn(f):
        for k in list(f.attrs):
            v = f.attrs[k]
            if isinstance(v, str):
                f.attrs[k] = np.bytes_(v.encode())
    assert load(_patched(tmp_path, fn), map_location="cpu")["b"] == 3


def test_no_leftover_open_file_after_cpu_load(tmp_path):
    save({"a": torch.ones(2)}, tmp_path / "c.mdl")
    load(tmp_path / "c.mdl", map_location="cpu")
    with h5py.File(tmp_path / "c.mdl", "a"):  # would fail if a read-only handle were still open
        pass
    os.remove(tmp_path / "c.mdl")
