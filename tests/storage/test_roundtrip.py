"""save → load round trips of nested trees, tied tensors and every leaf kind."""
from __future__ import annotations

import collections
import json
import math
import pickle
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minitorch_cs.torch as torch
from minitorch_cs.storage import DeferredObject, DeferredTensor, load, save

from ._interop import TREE_NAMES, build_trees, describe


@pytest.fixture(scope="module")
def trees():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return build_trees(torch, np)


@pytest.mark.parametrize("mode", [None, "cache", "cpu"])
@pytest.mark.parametrize("name", TREE_NAMES)
def test_round_trip(trees, name, mode, tmp_path):
    p = tmp_path / f"{name}.mdl"
    save(trees[name], p)
    loaded = load(p, map_location=mode)
    assert json.dumps(describe(loaded, torch.Tensor)) == json.dumps(describe(trees[name], torch.Tensor))


def test_nested_tree_with_tied_weights(tmp_path):
    emb = torch.randn(5, 3)
    model = collections.OrderedDict([("embed.weight", emb), ("head.weight", emb),
                                     ("head.bias", torch.zeros(5))])
    sd = {"model": model, "optimizer": {"state": {0: {"exp_avg": torch.ones(5, 3)}},
                                        "param_groups": [{"lr": 0.1, "params": [0]}]},
          "schedulers": [{"last_epoch": torch.tensor(3)}], "global_step": 3,
          "also": [emb, {"again": emb}]}
    save(sd, tmp_path / "c.mdl")
    for mode in (None, "cache", "cpu"):
        out = load(tmp_path / "c.mdl", map_location=mode)
        w = out["model"]["embed.weight"]
        assert out["model"]["head.weight"] is w and out["also"][0] is w and out["also"][1]["again"] is w
        assert np.array_equal(w.numpy(), emb.numpy())
        w.add_(1.0)  # in-place updates are shared by all tied names
        assert np.array_equal(out["model"]["head.weight"].numpy(), emb.numpy() + 1)
        assert out["optimizer"]["state"][0]["exp_avg"].tolist() == [[1.0] * 3] * 5
        assert out["schedulers"][0]["last_epoch"].item() == 3
        assert out["global_step"] == 3


def test_tied_numpy_arrays_and_views(tmp_path):
    base = torch.arange(6.0).reshape(2, 3)
    arr = np.arange(3.0)
    save({"base": base, "row": base[1], "a": arr, "b": arr}, tmp_path / "x.mdl")
    out = load(tmp_path / "x.mdl")
    assert out["b"] is out["a"] and type(out["a"]) is np.ndarray
    assert out["row"] is not out["base"]  # views are stored as copies, like the real stack
    out["base"].add_(10)
    assert out["row"].tolist() == [3.0, 4.0, 5.0]


def test_dtypes_exact(tmp_path):
    vals = {"bool": [True, False], "uint8": [0, 255], "int16": [-32768, 32767],
            "int32": [-2**31, 2**31 - 1], "int64": [-2**63, 2**63 - 1],
            "float16": [65504.0, -6.103515625e-05], "bfloat16": [3.3895313892515355e38, -0.0],
            "float32": [3.4028234663852886e38, 1.401298464324817e-45],
            "float64": [1.7976931348623157e308, 5e-324]}
    sd = {k: torch.tensor(v, dtype=getattr(torch, k)) for k, v in vals.items()}
    sd.update({f"{k}_0d": torch.tensor(v[0], dtype=getattr(torch, k)) for k, v in vals.items()})
    sd.update({f"{k}_empty": torch.zeros(0, 2, dtype=getattr(torch, k)) for k in vals})
    save(sd, tmp_path / "x.mdl")
    out = load(tmp_path / "x.mdl")
    for k, v in vals.items():
        dt = getattr(torch, k)
        assert out[k].dtype is dt and out[k].tolist() == v, k
        assert out[f"{k}_0d"].dtype is dt and out[f"{k}_0d"].shape == () and out[f"{k}_0d"].item() == v[0]
        assert out[f"{k}_empty"].dtype is dt and tuple(out[f"{k}_empty"].shape) == (0, 2)


def test_non_contiguous_tensor(tmp_path):
    t = torch.arange(12.0).reshape(3, 4).t()
    save({"t": t, "s": t[::2]}, tmp_path / "x.mdl")
    out = load(tmp_path / "x.mdl")
    assert out["t"].tolist() == t.tolist() and out["s"].tolist() == t[::2].tolist()


def test_numpy_leaves(tmp_path):
    sd = {"f": np.arange(6, dtype=np.float32).reshape(2, 3).T, "z": np.array(1.5), "e": np.zeros((0,)),
          "b": np.array([True, False]), "bf": np.array([1.0, -2.5], dtype=ml_dtypes.bfloat16),
          "c": np.array([1 + 2j])}
    save(sd, tmp_path / "x.mdl")
    out = load(tmp_path / "x.mdl", map_location="cpu")
    for k, v in sd.items():
        assert type(out[k]) is np.ndarray and out[k].dtype == v.dtype and out[k].shape == v.shape, k
        assert np.array_equal(out[k], v), k
    assert out["f"].flags.writeable


def test_python_leaves(tmp_path):
    sd = {"i": 3, "big": -(10**40), "f": 0.1, "nan": math.nan, "ninf": -math.inf, "t": True,
          "s": "h\u00e9llo \"\\\n", "empty": "", "n": None, "np64": np.float64(0.25),
          "keys": {1: "a", 2.5: "b", False: "c", None: "d", "": "e", -7: "f"}}
    save(sd, tmp_path / "x.mdl")
    out = load(tmp_path / "x.mdl")
    assert out["i"] == 3 and out["big"] == -(10**40) and out["f"] == 0.1 and math.isnan(out["nan"])
    assert out["ninf"] == -math.inf and out["t"] is True and out["s"] == sd["s"] and out["empty"] == ""
    assert out["n"] is None and type(out["np64"]) is float and out["np64"] == 0.25
    assert list(out["keys"].items()) == list(sd["keys"].items())
    assert [type(k) for k in out["keys"]] == [int, float, bool, type(None), str, int]


def test_containers(tmp_path):
    dd = collections.defaultdict(list, {"a": 1, "b": [2]})
    sd = {"odict": collections.OrderedDict([("b", 1), ("a", 2)]), "tuple": (1, (2, [3])),
          "set": {1, 2, 3}, "deque": collections.deque([1, torch.ones(1)]), "dd": dd,
          "empty": [{}, [], (), set()], "list": [[[]]]}
    save(sd, tmp_path / "x.mdl")
    out = load(tmp_path / "x.mdl")
    assert type(out["odict"]) is collections.OrderedDict and list(out["odict"]) == ["b", "a"]
    assert out["tuple"] == (1, (2, [3])) and type(out["tuple"][1][1]) is list
    assert out["set"] == {1, 2, 3}
    assert type(out["deque"]) is collections.deque and out["deque"][0] == 1
    assert type(out["dd"]) is collections.defaultdict and out["dd"].default_factory is list
    assert dict(out["dd"]) == {"a": 1, "b": [2]}
    assert out["empty"] == [{}, [], (), set()] and out["list"] == [[[]]]


def test_objects(tmp_path):
    sd = {"f32": np.float32(1.5), "i64": np.int64(-3), "c": 1 - 2j, "dtype": torch.bfloat16,
          "dev": torch.device("cpu"), "cls": complex, "frozen": frozenset({1}), "bytes": b"\x00\xff"}
    save(sd, tmp_path / "x.mdl")
    for mode in (None, "cpu"):
        out = load(tmp_path / "x.mdl", map_location=mode)
        for k, v in sd.items():  # deferred, as in the real stack; `.value` unpickles a new copy
            assert type(out[k]) is DeferredObject, k
            assert type(out[k].value) is type(v) and out[k].value == v, k
        assert out["dtype"].value is torch.bfloat16
        assert out["c"].value is not out["c"].value
    # weights_only=True: unpickled now, through PyTorch's weights-only list (no numpy scalars)
    with pytest.raises(pickle.UnpicklingError, match="leaf 'f32'.*GLOBAL numpy"):
        load(tmp_path / "x.mdl", weights_only=True)
    del sd["f32"], sd["i64"], sd["cls"], sd["bytes"]
    save(sd, tmp_path / "y.mdl")
    out = load(tmp_path / "y.mdl", weights_only=True)
    assert out == sd and out["dtype"] is torch.bfloat16


def test_unloadable_pickle_stays_deferred_and_resaves(tmp_path):
    import h5py

    save({"x": np.float32(1)}, tmp_path / "x.mdl")
    bad = b"cno_such_mod\nX\n."  # GLOBAL of a module that does not exist
    with h5py.File(tmp_path / "x.mdl", "a") as f:
        f["x"].attrs["__BYTES__"] = np.frombuffer(bad, dtype="V1")
    out = load(tmp_path / "x.mdl")
    assert isinstance(out["x"], DeferredObject) and out["x"].data == bad
    with pytest.raises(pickle.UnpicklingError, match="leaf 'x': Unsupported global: GLOBAL "
                                                     "no_such_mod.X was not an allowed global"):
        out["x"].value
    assert repr(out["x"]).startswith("DeferredObject(<16 pickled bytes of leaf 'x', not "
                                     "unpicklable: UnpicklingError")
    save(out, tmp_path / "y.mdl")  # the raw pickle is preserved when saving again
    with h5py.File(tmp_path / "y.mdl", "r") as f:
        assert f["x"].attrs["__BYTES__"].tobytes() == bad


def test_resave_loaded_checkpoint_is_identical(tmp_path):
    import h5py

    from .test_real_files import DATA
    for name in ("optim_sgd.mdl", "containers_map.mdl", "tensors_half.mdl", "misc.mdl"):
        out = load(DATA / name)  # deferred tensors: saved by streaming them from the source file
        save(out, tmp_path / name)
        with h5py.File(tmp_path / name, "r") as a, h5py.File(DATA / name, "r") as b:
            assert {k: a.attrs[k] for k in a.attrs if k != "__SUCCESS__"} == \
                   {k: b.attrs[k] for k in b.attrs if k != "__SUCCESS__"}
        again = load(tmp_path / name)
        assert json.dumps(describe(again, torch.Tensor)) == json.dumps(describe(load(DATA / name),
                                                                               torch.Tensor))


def test_resave_does_not_materialize(tmp_path):
    save({"w": torch.ones(4)}, tmp_path / "a.mdl")
    out = load(tmp_path / "a.mdl")
    save(out, tmp_path / "b.mdl")
    assert type(out["w"]) is DeferredTensor
    assert load(tmp_path / "b.mdl")["w"].tolist() == [1.0] * 4


def test_path_types(tmp_path):
    save({"a": 1}, str(tmp_path / "s.mdl"))
    save({"a": 2}, tmp_path / "p.mdl")
    save({"a": 3}, bytes(tmp_path / "b.mdl"))
    assert load(str(tmp_path / "s.mdl")) == {"a": 1}
    assert load(tmp_path / "p.mdl") == {"a": 2}
    assert load(bytes(tmp_path / "b.mdl")) == {"a": 3}


# -- random trees ---------------------------------------------------------------------------------
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                     st.floats(allow_nan=False), st.text(max_size=8))
_keys = st.one_of(st.text(alphabet="abcxyz_", min_size=1, max_size=4), st.integers(-3, 50))
_arrays = st.builds(lambda n, dt: np.arange(n).astype(dt), st.integers(0, 5),
                    st.sampled_from(["float32", "int64", "bool", "float64", "uint8"]))
_tensors = st.builds(lambda a: torch.from_numpy(a), _arrays)
_leaves = st.one_of(_scalars, _arrays, _tensors)
_trees = st.recursive(_leaves, lambda ch: st.one_of(
    st.lists(ch, max_size=4), st.lists(ch, max_size=3).map(tuple),
    st.dictionaries(_keys, ch, max_size=4),
    st.dictionaries(_keys, ch, max_size=3).map(lambda d: collections.OrderedDict(d))), max_leaves=15)


@given(tree=_trees)
@pytest.mark.slow
def test_random_trees_round_trip(tree, tmp_path_factory):
    p = tmp_path_factory.mktemp("h") / "x.mdl"
    wrapped = {"root": tree}
    try:
        save(wrapped, p)
    except ValueError as e:  # colliding dotted keys ("1" vs 1) are refused
        assert "same checkpoint key" in str(e)
        return
    assert json.dumps(describe(load(p), torch.Tensor)) == json.dumps(describe(wrapped, torch.Tensor))
