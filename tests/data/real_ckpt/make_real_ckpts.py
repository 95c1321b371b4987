"""Write small checkpoints with the REAL cerebras-pytorch 2.10 stack (CPU backend).

Run with the real stack's interpreter, e.g.::

    /tmp/cs/bin/python tests/data/real_ckpt/make_real_ckpts.py [OUT_DIR] [--force]
    /tmp/cs/bin/python tests/data/real_ckpt/make_real_ckpts.py --mimic

Default OUT_DIR is the directory of this script.  ``cstorch.save`` refuses to
overwrite, so ``--force`` deletes the ``*.mdl`` files it is about to write.

``--mimic`` runs the "foreign writer" experiment instead: a subprocess that
imports only h5py/numpy/json (no torch, no cerebras, no hdf5plugin) writes
checkpoints that imitate the layout, then this process loads them with the real
``cstorch.load`` and checks the values, and compares every root attribute /
dataset attribute of the full imitation with a file written by ``cstorch.save``
for the same tree.  Nothing is written to OUT_DIR in that mode.

The trees saved here are documented (with exact values) in README.md next to
this script; ``--describe`` prints the loaded contents of every file.
"""

import glob
import json
import os
import subprocess
import sys
import tempfile
from collections import OrderedDict
from pathlib import Path

HERE = Path(__file__).resolve().parent


# --------------------------------------------------------------------------
# Trees (need torch; only built in the main process)
# --------------------------------------------------------------------------
def build_trees():
    import ml_dtypes  # noqa: F401  (only used for misc.mdl)
    import numpy as np
    import torch
    from cerebras.appliance.data.dtypes import bf16 as cs_bf16

    trees = {}

    trees["simple.mdl"] = {
        "w": torch.arange(6, dtype=torch.float32).reshape(2, 3),
        "step": 3,
    }

    trees["tensors_float.mdl"] = {
        "f32": torch.arange(12, dtype=torch.float32).reshape(3, 4) / 4,
        "f64": torch.arange(5, dtype=torch.float64) * 0.1,
        "scalar_f32": torch.tensor(2.5),
    }
    trees["tensors_half.mdl"] = {
        "bf16": torch.tensor([1.0, -2.5, 0.15625, 65536.0], dtype=torch.bfloat16),
        "f16": torch.tensor([0.5, -1.25, 1024.0], dtype=torch.float16),
        "empty_f32": torch.zeros(0),
    }
    trees["tensors_int.mdl"] = {
        "i64": torch.arange(-3, 3, dtype=torch.int64),
        "i32": torch.tensor([[1, -2], [3, -4]], dtype=torch.int32),
        "u8": torch.tensor([0, 7, 255], dtype=torch.uint8),
    }
    trees["tensors_misc.mdl"] = {
        "bool": torch.tensor([True, False, True]),
        "scalar_i64": torch.tensor(7),
        "empty_i32_2x0": torch.zeros(2, 0, dtype=torch.int32),
    }
    trees["numpy_arrays.mdl"] = {
        "f32": np.arange(6, dtype=np.float32).reshape(2, 3),
        "f64": np.array([0.25, -1.5]),
        "i64": np.array([1, 2, 3], dtype=np.int64),
        # Cerebras' own bf16 view dtype (int16 + dtype metadata):
        # raw bits 0x3F80 = 1.0, 0x4020 = 2.5
        "bf16_cs": np.array([0x3F80, 0x4020], dtype=np.int16).view(cs_bf16),
    }
    trees["py_leaves.mdl"] = {
        "int": 42,
        "neg_int": -7,
        "big_int": 2**40,
        "float": 0.1,
        "true": True,
        "false": False,
        "str": "hello",
        "none": None,
    }
    trees["containers_seq.mdl"] = {
        "list": [torch.ones(2), [1.5, "x"], (3, None)],
        "tuple": (torch.full((2,), 3.0), ("nested", 300)),
        "empty": {"d": {}, "l": [], "t": ()},
    }
    tied = torch.arange(4, dtype=torch.float32).reshape(2, 2) + 0.5
    trees["containers_map.mdl"] = {
        "odict": OrderedDict([("z", torch.tensor([1.0])), ("a", 2), ("m", "third")]),
        "intkeys": {0: torch.tensor([0.0]), 1: "one", 10: 10.0},
        "tied": {"first": tied, "second": tied},
    }

    trees["misc.mdl"] = {
        # set is a registered pytree node (cstorch) -> skeleton in __spec__ is null
        "set": {1, 2},
        # not int/float/bool/str/None/ndarray/Tensor -> dill-pickled bytes
        "np_float32_scalar": np.float32(1.5),
        "complex": complex(1, 2),
        # np.float64 is a float subclass -> ScalarSerializer
        "np_float64_scalar": np.float64(2.5),
        # ml_dtypes bfloat16 arrays are NOT recognised (stored as opaque |V2)
        "np_bf16_ml_dtypes": np.array([1.0, 2.5], dtype=ml_dtypes.bfloat16),
        "inf": float("inf"),
        "nan": float("nan"),
        "huge_int": 10**20,
        5: "int key five",
    }

    trees["toplevel_int.mdl"] = 7
    return trees


def build_optim_trees():
    """Tiny bias-free Linear(3, 2), one SGD-momentum step (+LinearLR), one AdamW step."""
    import torch
    import cerebras.pytorch as cstorch

    out = {}

    def make_model():
        model = torch.nn.Linear(3, 2, bias=False)
        with torch.no_grad():
            model.weight.copy_(torch.arange(6, dtype=torch.float32).reshape(2, 3) / 10)
        return model

    x = torch.arange(6, dtype=torch.float32).reshape(2, 3) / 10

    def one_step(model, opt, sched):
        loss = model(x).pow(2).sum()
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()
        opt.zero_grad()

    model = make_model()
    opt = cstorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = cstorch.optim.lr_scheduler.LinearLR(
        opt, initial_learning_rate=0.1, end_learning_rate=0.01, total_iters=10
    )
    one_step(model, opt, sched)
    out["optim_sgd.mdl"] = {
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),
        "global_step": 1,
    }
    out["sched_linear.mdl"] = {"schedulers": [sched.state_dict()]}

    model = make_model()
    opt = cstorch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1)
    one_step(model, opt, None)
    out["optim_adamw.mdl"] = {"optimizer": opt.state_dict()}

    return out


# --------------------------------------------------------------------------
# Partial file: a save that fails on a requires-grad tensor leaves the tmp file
# --------------------------------------------------------------------------
def make_partial(out_dir):
    import torch
    import cerebras.pytorch as cstorch

    target = out_dir / "partial.mdl"
    try:
        cstorch.save(
            {"a": torch.arange(3, dtype=torch.float32),
             "w": torch.nn.Parameter(torch.ones(2))},
            str(target),
        )
    except RuntimeError as e:
        print(f"partial.mdl: save failed as expected: {type(e).__name__}: {e}")
    tmps = glob.glob(str(target) + ".*.tmp")
    assert len(tmps) == 1, tmps
    os.rename(tmps[0], target)


# --------------------------------------------------------------------------
# Describe loaded contents (used to write README.md)
# --------------------------------------------------------------------------
def describe(path):
    import numpy as np
    import torch
    import cerebras.pytorch as cstorch

    obj = cstorch.load(str(path))
    lines = []

    def walk(prefix, v):
        if isinstance(v, (dict, OrderedDict)):
            lines.append(f"{prefix or '<root>'}: {type(v).__name__} keys={list(v.keys())!r}")
            for k, x in v.items():
                walk(f"{prefix}.{k}" if prefix else str(k), x)
        elif isinstance(v, (list, tuple, set)):
            lines.append(f"{prefix or '<root>'}: {type(v).__name__} len={len(v)}")
            for i, x in enumerate(v):
                walk(f"{prefix}.{i}" if prefix else str(i), x)
        elif isinstance(v, torch.Tensor):
            t = v.detach().clone()
            vals = t.float().tolist() if t.dtype == torch.bfloat16 else t.tolist()
            lines.append(f"{prefix}: Tensor {str(t.dtype)} shape={list(t.shape)} values={vals!r}")
        elif hasattr(v, "__array__") and not isinstance(v, (int, float, str)):
            a = np.asarray(v)
            lines.append(f"{prefix}: {type(v).__name__} dtype={a.dtype} shape={list(a.shape)} values={a.tolist()!r}")
        else:
            lines.append(f"{prefix}: {type(v).__name__} {v!r}")

    walk("", obj)
    return lines


# --------------------------------------------------------------------------
# h5py-only imitation (runs in a subprocess that must not import torch/cerebras)
# --------------------------------------------------------------------------
MIMIC_WRITER = r'''
import json, sys, struct
from collections import OrderedDict
import numpy as np
import h5py
assert "hdf5plugin" not in sys.modules and "torch" not in sys.modules

class T:                       # marks "this leaf is a torch tensor"
    def __init__(self, array, torch_dtype):
        self.array, self.torch_dtype = array, torch_dtype

RTFX = {"torch.bool": 1, "torch.int16": 3, "torch.int32": 4, "torch.int64": 5,
        "torch.uint8": 6, "torch.float16": 10, "torch.float32": 11,
        "torch.float64": 12, "torch.bfloat16": 15}

LEAF = {"type": None, "context": None, "children_spec": []}

def node_kind(x):
    if isinstance(x, OrderedDict): return "collections.OrderedDict"
    if isinstance(x, dict): return "builtins.dict"
    if isinstance(x, list): return "builtins.list"
    if isinstance(x, tuple): return "builtins.tuple"
    return None

def flatten(x, path, leaves):
    kind = node_kind(x)
    if kind is None:
        leaves.append((".".join(path), x)); return dict(LEAF)
    if kind in ("builtins.dict", "collections.OrderedDict"):
        keys = list(x.keys())
        ctx = json.dumps(keys)
        kids = [flatten(x[k], path + [str(k)], leaves) for k in keys]
    else:
        ctx = json.dumps(None)
        kids = [flatten(v, path + [str(i)], leaves) for i, v in enumerate(x)]
    return {"type": kind, "context": ctx, "children_spec": kids}

def skeleton(x):
    kind = node_kind(x)
    if kind is None: return "*"
    if kind in ("builtins.dict", "collections.OrderedDict"):
        return {k: skeleton(v) for k, v in x.items()}
    return [skeleton(v) for v in x]

def spec_pair(tree, schema):
    try:
        sk = skeleton(tree); json.dumps(sk)
    except TypeError:
        sk = None
    return [sk, json.dumps([1, schema])]

def lz4_raw_chunk(raw):
    # HDF5 LZ4 filter (id 32004) framing with one block stored uncompressed:
    # >Q total size, >I block size, then per block >I stored size + bytes;
    # stored size == block size means "not compressed".
    n = len(raw)
    return struct.pack(">QI", n, n) + struct.pack(">I", n) + raw

def write(path, tree, variant):
    leaves = []
    schema = flatten(tree, [], leaves)
    with h5py.File(path, "w") as f:
        root_spec = json.dumps(spec_pair(tree, schema), indent=4)
        if variant != "no_version":
            f.attrs["__version__"] = 0.5
        if variant not in ("minimal",):
            f.attrs["__cstorch_version__"] = "2.10.0"
        f.attrs["__spec__"] = root_spec
        seen = {}
        for key, val in leaves:
            if id(val) in seen:
                md = {"key": seen[id(val)], "__LINKED__": True,
                      "__TYPE__": "LinkedObject", "__NONE__": True}
            else:
                seen[id(val)] = key
                if isinstance(val, T):
                    arr = val.array
                    md = {"__TORCH__": True, "shapes": [list(arr.shape)],
                          "dtypes": [val.torch_dtype],
                          "rtfx_dtypes": [RTFX[val.torch_dtype]],
                          "__TYPE__": "TorchTensorSerializer", "__NUMPY__": True,
                          "compressed": False}
                elif isinstance(val, np.ndarray):
                    arr = val
                    md = {"is_bfloat16": False, "__TYPE__": "NumpyArraySerializer",
                          "__NUMPY__": True, "compressed": False}
                elif val is None:
                    md = {"__TYPE__": "NoneSerializer", "__NONE__": True}
                elif isinstance(val, str):
                    md = {"string_value": val, "__TYPE__": "StringSerializer", "__NONE__": True}
                else:
                    md = {"scalar_value": val, "__TYPE__": "ScalarSerializer", "__NONE__": True}
                if md.get("__NUMPY__"):
                    if variant == "lz4raw" and arr.ndim and arr.size:
                        d = f.create_dataset(key, shape=arr.shape, dtype=arr.dtype,
                                             chunks=arr.shape, compression=32004,
                                             compression_opts=(0,),
                                             allow_unknown_filter=True)
                        d.id.write_direct_chunk((0,) * arr.ndim,
                                                lz4_raw_chunk(np.ascontiguousarray(arr).tobytes()))
                    else:
                        d = f.create_dataset(key, data=arr)
                    if variant == "minimal":
                        d.attrs["__NUMPY__"] = True
                    elif variant == "bytes_attrs":
                        for k, v in md.items():
                            d.attrs[k] = np.bytes_(v) if isinstance(v, str) else v
                    elif variant == "no_numpy_attr":
                        for k, v in md.items():
                            if k != "__NUMPY__":
                                d.attrs[k] = v
                    else:
                        for k, v in md.items():
                            d.attrs[k] = v
            leaf_schema = {"type": "builtins.dict", "context": json.dumps([key]),
                           "children_spec": [dict(LEAF)]}
            blob = {"__spec__": [{key: "*"}, json.dumps([1, leaf_schema])],
                    "__objects__": [key], key + ".__metadata__": md}
            text = json.dumps(blob, indent=4)
            f.attrs[key + ".__metadata__"] = np.bytes_(text) if variant == "bytes_attrs" else text
        if variant != "no_success":
            f.attrs["__SUCCESS__"] = True

def make_tree():
    w = T(np.arange(6, dtype=np.float32).reshape(2, 3), "torch.float32")
    return {
        "model": OrderedDict([("w", w),
                              ("b", T(np.array([0.5, -0.5], dtype=np.float32), "torch.float32"))]),
        "tied": w,
        "i64": T(np.arange(4, dtype=np.int64), "torch.int64"),
        "bf16": T(np.array([0x3F80, 0x4020], dtype=np.int16), "torch.bfloat16"),
        "flag": T(np.array([True, False]), "torch.bool"),
        "s0": T(np.array(2.5, dtype=np.float32), "torch.float32"),
        "np": np.arange(3, dtype=np.float64),
        "intkeys": {0: 1.5, 3: "three"},
        "seq": [1, None, (True, "x")],
        "step": 12,
    }

out_dir = sys.argv[1]
for variant in sys.argv[2:]:
    write(f"{out_dir}/{variant}.h5", make_tree(), variant)
print("wrote", sys.argv[2:])
'''

MIMIC_VARIANTS = ["full", "lz4raw", "minimal", "bytes_attrs", "no_numpy_attr",
                  "no_success", "no_version"]


def equivalent_real_tree():
    import numpy as np
    import torch

    w = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    return {
        "model": OrderedDict([("w", w), ("b", torch.tensor([0.5, -0.5]))]),
        "tied": w,
        "i64": torch.arange(4, dtype=torch.int64),
        "bf16": torch.tensor([1.0, 2.5], dtype=torch.bfloat16),
        "flag": torch.tensor([True, False]),
        "s0": torch.tensor(2.5),
        "np": np.arange(3, dtype=np.float64),
        "intkeys": {0: 1.5, 3: "three"},
        "seq": [1, None, (True, "x")],
        "step": 12,
    }


def run_mimic():
    import h5py
    import numpy as np
    import torch
    import cerebras.pytorch as cstorch

    tmp = Path(tempfile.mkdtemp(prefix="cs_mimic_"))
    cstorch.backend("CPU", artifact_dir=tmp / "artifacts")
    subprocess.run([sys.executable, "-c", MIMIC_WRITER, str(tmp), *MIMIC_VARIANTS], check=True)

    def check(loaded):
        assert list(loaded.keys()) == ["model", "tied", "i64", "bf16", "flag", "s0", "np", "intkeys", "seq", "step"]
        assert type(loaded["model"]) is OrderedDict and list(loaded["model"]) == ["w", "b"]
        assert torch.equal(loaded["model"]["w"], torch.arange(6, dtype=torch.float32).reshape(2, 3))
        assert loaded["tied"] is loaded["model"]["w"]
        assert loaded["i64"].dtype == torch.int64 and loaded["i64"].tolist() == [0, 1, 2, 3]
        assert loaded["bf16"].dtype == torch.bfloat16 and loaded["bf16"].float().tolist() == [1.0, 2.5]
        assert loaded["flag"].dtype == torch.bool and loaded["flag"].tolist() == [True, False]
        assert loaded["s0"].shape == () and float(loaded["s0"]) == 2.5
        assert np.asarray(loaded["np"]).tolist() == [0.0, 1.0, 2.0]
        assert loaded["intkeys"] == {0: 1.5, 3: "three"}
        assert loaded["seq"] == [1, None, (True, "x")] and isinstance(loaded["seq"][2], tuple)
        assert loaded["step"] == 12

    for variant in MIMIC_VARIANTS:
        p = tmp / f"{variant}.h5"
        try:
            loaded = cstorch.load(str(p))
            check(loaded)
            print(f"mimic {variant:14s}: loaded and values correct")
        except Exception as e:  # record, do not stop
            print(f"mimic {variant:14s}: {type(e).__name__}: {e}")

    # Compare the full imitation with what cstorch.save writes for the same tree
    real = tmp / "real.h5"
    cstorch.save(equivalent_real_tree(), str(real))
    with h5py.File(real) as a, h5py.File(tmp / "full.h5") as b:
        same = True
        if sorted(a.attrs) != sorted(b.attrs):
            same = False
            print("root attr names differ:", sorted(set(a.attrs) ^ set(b.attrs)))
        for k in a.attrs:
            if k in b.attrs and not np.array_equal(a.attrs[k], b.attrs[k]):
                same = False
                print("root attr differs:", k)
        if sorted(a) != sorted(b):
            same = False
            print("dataset names differ:", sorted(a), sorted(b))
        for k in a:
            da, db = a[k], b[k]
            if da.dtype != db.dtype or da.shape != db.shape or not np.array_equal(da[()], db[()]):
                same = False
                print("dataset differs:", k, da.dtype, db.dtype)
            for ak in da.attrs:
                va, vb = da.attrs[ak], db.attrs.get(ak)
                if vb is None or type(va) is not type(vb) or not np.array_equal(va, vb) or \
                        getattr(va, "dtype", None) != getattr(vb, "dtype", None):
                    same = False
                    print("dataset attr differs:", k, ak, repr(va), repr(vb))
        print("full imitation identical to cstorch.save output (attrs, JSON text, data):", same)
        print("(filters: real", {k: a[k]._filters for k in a}, ")")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--mimic" in sys.argv:
        run_mimic()
        return

    import torch
    import cerebras.pytorch as cstorch

    out_dir = Path(args[0]) if args else HERE
    out_dir.mkdir(parents=True, exist_ok=True)

    if "--describe" in sys.argv:
        cstorch.backend("CPU", artifact_dir=Path(tempfile.mkdtemp(prefix="cs_art_")))
        for p in sorted(out_dir.glob("*.mdl")):
            print(f"## {p.name}")
            try:
                for line in describe(p):
                    print("    " + line)
            except Exception as e:
                print(f"    load raises {type(e).__name__}: {e}")
        return

    cstorch.backend("CPU", artifact_dir=Path(tempfile.mkdtemp(prefix="cs_art_")))
    torch.manual_seed(0)

    trees = build_trees()
    trees.update(build_optim_trees())
    names = list(trees) + ["partial.mdl"]
    if "--force" in sys.argv:
        for n in names:
            (out_dir / n).unlink(missing_ok=True)

    for name, tree in trees.items():
        cstorch.save(tree, str(out_dir / name))
        print("wrote", name, (out_dir / name).stat().st_size, "bytes")
    make_partial(out_dir)


if __name__ == "__main__":
    main()
