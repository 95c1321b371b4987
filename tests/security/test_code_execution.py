"""Attack 1: a crafted checkpoint must never run code.

Every payload would create a marker file if it were unpickled by ``pickle``; none ever is: not at
load (pickled leaves are DeferredObject), not on ``.value``/``repr``/attribute access (allow-list
unpickler), not with ``weights_only=True`` (refused at load), not through the treespec's
defaultdict factory, not through ``torch.load``.
"""
from __future__ import annotations

import collections
import json
import pickle

import h5py
import numpy as np
import pytest

import minitorch_cs.torch as torch
from minitorch_cs.storage import DeferredObject, load, save

from ._craft import mdl_with_object_bytes, payloads, torch_zip, view_pickle

WHERE = ["leaf", "list", "tuple", "set", "deque", "odict", "defaultdict"]
PAYLOADS = sorted(payloads("M"))

# the message each technique gets from the allow-list unpickler (after "checkpoint leaf '<key>': ")
REFUSAL = {
    **{f"reduce_open_p{p}": "Unsupported global: GLOBAL io.open was not an allowed global by "
                            "default. Please use `torch.serialization.add_safe_globals([io.open])` "
                            "or the `torch.serialization.safe_globals([io.open])` context manager "
                            "to allowlist this global if you trust this class/function."
       for p in range(6)},
    "reduce_os_system": "Trying to load unsupported GLOBAL posix.system whose module posix is "
                        "blocked.",
    "eval": "Unsupported global: GLOBAL eval was not an allowed global by default.",
    "inst": "Unsupported operand 105",
    "obj": "Unsupported global: GLOBAL open was not an allowed global by default.",
    "import_module_getattr": "Trying to load unsupported GLOBAL os.system whose module os is "
                             "blocked.",
    "newobj_type": "Unsupported global: GLOBAL type was not an allowed global by default.",
    "ext1": "Unsupported operand 130",
    "dill_create_function": "Unsupported global: GLOBAL dill._dill._create_function was not an "
                            "allowed global by default.",
}


# torch.load's unpickler has torch 2.13's opcodes only (protocol 2): pickles of protocol 4 and
# more stop at their FRAME opcode, INST and the STACK_GLOBAL of protocol 4 are unsupported
# operands, before any global is looked up (measured on torch 2.13: the same messages)
TORCH_REFUSAL = {
    "reduce_open_p4": "Unsupported operand 149", "reduce_open_p5": "Unsupported operand 149",
    "reduce_os_system": "Unsupported operand 149", "inst": "Unsupported operand 86",
    "import_module_getattr": "Unsupported global: GLOBAL getattr was not an allowed global by "
                             "default.",
    "dill_create_function": "Unsupported operand 140",
}


def _leaf(tree, where):
    return {"leaf": lambda t: t["obj"], "list": lambda t: t["l"][1], "tuple": lambda t: t["t"][0],
            "set": lambda t: next(iter(t["s"])), "deque": lambda t: t["q"][0],
            "odict": lambda t: t["o"]["x"], "defaultdict": lambda t: t["d"]["x"]}[where](tree)


@pytest.mark.parametrize("name", PAYLOADS)
@pytest.mark.parametrize("where", WHERE)
def test_pickle_payload_in_every_object_field_never_runs(tmp_path, where, name):
    marker = tmp_path / "MARKER"
    data = payloads(marker)[name]
    key = mdl_with_object_bytes(tmp_path / "c.mdl", data, where)
    for mode in (None, "cache", "cpu"):
        out = load(tmp_path / "c.mdl", map_location=mode)  # nothing is unpickled at load
        leaf = _leaf(out, where)
        assert type(leaf) is DeferredObject and leaf.data == data
        with pytest.raises(pickle.UnpicklingError) as ei:
            leaf.value
        assert type(ei.value).__module__ == "_pickle"
        assert str(ei.value).startswith(f"checkpoint leaf {key!r}: {REFUSAL[name]}")
        for use in (lambda v: v.anything, lambda v: v[0], lambda v: v(), lambda v: len(v),
                    lambda v: list(v), lambda v: 1 in v, str):
            with pytest.raises(pickle.UnpicklingError):
                use(leaf)
        assert repr(leaf).startswith(f"DeferredObject(<{len(data)} pickled bytes of leaf {key!r}, "
                                     "not unpicklable: UnpicklingError: ")
    with pytest.raises(pickle.UnpicklingError) as ei:
        load(tmp_path / "c.mdl", weights_only=True)
    assert str(ei.value).startswith(
        f"Weights only load failed. Checkpoint leaf {key!r} of `{tmp_path / 'c.mdl'}` is a pickled "
        f"object that weights_only=True may not unpickle: {REFUSAL[name]}")
    # saving the loaded tree again copies the raw pickle, still without running it
    save(load(tmp_path / "c.mdl"), tmp_path / "again.mdl")
    assert _leaf(load(tmp_path / "again.mdl"), where).data == data
    assert not marker.exists()


def test_linked_leaf_to_a_payload_is_the_same_deferred_object(tmp_path):
    marker = tmp_path / "MARKER"
    obj = np.float32(0.0)
    save({"a": obj, "b": obj}, tmp_path / "c.mdl")  # "b" is stored as a link to "a"
    with h5py.File(tmp_path / "c.mdl", "a") as f:
        f["a"].attrs["__BYTES__"] = np.frombuffer(payloads(marker)["reduce_open_p4"], dtype="V1")
    out = load(tmp_path / "c.mdl")
    assert out["a"] is out["b"] and type(out["a"]) is DeferredObject
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL io.open"):
        out["b"].value
    assert not marker.exists()


def test_weights_only_both_ways(tmp_path):
    sd = {"w": torch.ones(2), "n": 3, "s": "x", "c": 1 + 2j, "set": {1, 2}, "np": np.float32(1.5),
          "dtype": torch.bfloat16, "dev": torch.device("cpu"), "odict": collections.OrderedDict(a=1)}
    save(sd, tmp_path / "c.mdl")
    lazy = load(tmp_path / "c.mdl")  # default (the real stack ignores weights_only): deferred
    assert type(lazy["c"]) is DeferredObject and lazy["c"].value == 1 + 2j
    assert lazy["np"].value == np.float32(1.5) and lazy["dev"].value == torch.device("cpu")
    assert type(load(tmp_path / "c.mdl", weights_only=False)["c"]) is DeferredObject
    # weights_only=True: torch's weights-only list, unpickled at load; numpy scalars are refused
    with pytest.raises(pickle.UnpicklingError) as ei:
        load(tmp_path / "c.mdl", weights_only=True)
    assert "Checkpoint leaf 'np'" in str(ei.value)
    assert "Unsupported global: GLOBAL numpy.core.multiarray.scalar was not an allowed global" \
        in str(ei.value)
    # the user's allow-list (torch.serialization.safe_globals) reaches cstorch leaves too
    scalar = np.float32(0).__reduce__()[0]
    with torch.serialization.safe_globals([(scalar, "numpy.core.multiarray.scalar"), np.dtype,
                                           type(np.dtype("float32"))]):
        out = load(tmp_path / "c.mdl", weights_only=True)
    assert torch.serialization.get_safe_globals() == []
    assert type(out["np"]) is np.float32 and out["np"] == 1.5
    assert out["c"] == 1 + 2j and out["dtype"] is torch.bfloat16 and out["dev"] == "cpu"
    assert out["w"].tolist() == [1.0, 1.0] and out["set"] == {1, 2}
    assert type(out["odict"]) is collections.OrderedDict


def test_defaultdict_factory_in_the_treespec_is_not_imported(tmp_path):
    save({"d": collections.defaultdict(list, {"x": 1})}, tmp_path / "c.mdl")
    with h5py.File(tmp_path / "c.mdl", "a") as f:
        skeleton, spec = json.loads(f.attrs["__spec__"])
        spec = spec.replace('"default_factory_module": "builtins"', '"default_factory_module": "os"')
        spec = spec.replace('"default_factory_name": "list"', '"default_factory_name": "system"')
        assert "os" in spec and "system" in spec
        f.attrs["__spec__"] = json.dumps([skeleton, spec])
    with pytest.raises(RuntimeError) as ei:
        load(tmp_path / "c.mdl")
    assert str(ei.value) == (
        f"Failed to load checkpoint file `{tmp_path / 'c.mdl'}`: its `__spec__` treespec cannot be "
        "decoded: the default_factory os.system of a collections.defaultdict is refused: Trying to "
        "load unsupported GLOBAL os.system whose module os is blocked.")


def test_defaultdict_factory_module_is_never_imported(tmp_path, monkeypatch):
    # a module that exists next to the checkpoint would run on import; it is never imported
    marker = tmp_path / "MARKER"
    (tmp_path / "evil_factory_mod.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    save({"d": collections.defaultdict(list, {"x": 1})}, tmp_path / "c.mdl")
    with h5py.File(tmp_path / "c.mdl", "a") as f:
        f.attrs["__spec__"] = f.attrs["__spec__"].replace(
            '\\"default_factory_module\\": \\"builtins\\"',
            '\\"default_factory_module\\": \\"evil_factory_mod\\"')
        assert "evil_factory_mod" in f.attrs["__spec__"]
    with pytest.raises(RuntimeError, match="GLOBAL evil_factory_mod.list was not an allowed"):
        load(tmp_path / "c.mdl")
    assert not marker.exists()


@pytest.mark.parametrize("name", PAYLOADS)
def test_torch_load_payloads(tmp_path, name):
    marker = tmp_path / "MARKER"
    pkl = payloads(marker)[name]
    torch_zip(tmp_path / "x.pt", pkl, {})
    with pytest.raises(pickle.UnpicklingError) as ei:
        torch.load(tmp_path / "x.pt")  # weights_only=True is the default, as in torch 2.6+
    assert str(ei.value).startswith("Weights only load failed.")
    expected = TORCH_REFUSAL.get(name, REFUSAL[name])
    assert expected.split(" Please use")[0] in str(ei.value)
    assert not marker.exists()


def test_torch_load_rebuild_functions_get_no_foreign_objects(tmp_path):
    # an allowed rebuild function fed something that is not a storage fails with torch's TypeError
    pkl, _ = view_pickle(np.arange(4, dtype=np.float32), 0, (2,), (1,))
    pkl = pkl.replace(b"Q", b"N", 1)  # the BINPERSID storage becomes None
    torch_zip(tmp_path / "x.pt", pkl, {"data/0": np.arange(4, dtype=np.float32).tobytes()})
    with pytest.raises((TypeError, pickle.UnpicklingError)):
        torch.load(tmp_path / "x.pt")


def test_pickle_memory_bombs_are_refused_before_allocating():
    from minitorch_cs.storage.serializers import unpickle_restricted
    bombs = {
        # bytearray(2**40) / bytes(2**40): an allocation sized by the pickle
        "bytearray": b"\x80\x04cbuiltins\nbytearray\n\x8a\x06\x00\x00\x00\x00\x00\x01\x85R.",
        "bytes": b"\x80\x04cbuiltins\nbytes\n\x8a\x06\x00\x00\x00\x00\x00\x01\x85R.",
        # numpy _reconstruct with a huge initial shape
        "reconstruct": b"\x80\x04cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\n"
                       b"\x8a\x06\x00\x00\x00\x00\x00\x01\x85C\x01b\x87R.",
    }
    for name, data in bombs.items():
        with pytest.raises(pickle.UnpicklingError, match="refusing|not how numpy pickles"):
            unpickle_restricted(data)
    # an array whose state declares 2**40 elements but carries 8 bytes (numpy would allocate the
    # declared shape before noticing); and an object array declaring 2**40 items with 2
    reconstruct = np.zeros(1).__reduce__()[0]

    class HugeState:
        def __init__(self, state):
            self.state = state

        def __reduce__(self):
            return (reconstruct, (np.ndarray, (0,), b"b"), self.state)

    for state in [(1, (2**40,), np.dtype("f4"), False, b"\0" * 8),
                  (1, (2**40,), np.dtype("O"), False, [1, 2])]:
        with pytest.raises(pickle.UnpicklingError, match=r"declares shape \(1099511627776,\)"):
            unpickle_restricted(pickle.dumps(HugeState(state), protocol=4))
