"""Shared by minitorch_cs and the real cstorch stack (this file must run under both).

``build_trees(torch, np)`` builds the same checkpoint trees with either ``torch`` module (the real
one or ``minitorch_cs.torch``); ``describe(tree, tensor_type)`` turns a loaded tree into JSON-able
text that is equal on both sides when the values, types, container kinds, key types and ties are.

Run as a script under the reference interpreter::

    python _interop.py save OUT_DIR          # real cstorch.save of every tree -> OUT_DIR/<name>.mdl
    python _interop.py load FILE [FILE...]   # real cstorch.load -> JSON {file: description}
"""
from __future__ import annotations

import collections
import json
import math
import sys

# trees whose real save and real load both work (ml_dtypes bf16 numpy arrays are excluded:
# the real stack stores them as opaque bytes that do not load back)
TREE_NAMES = ["nested", "dtypes", "ties", "numpy", "scalars", "containers", "objects", "big",
              "toplevel_scalar", "toplevel_list"]


def build_trees(torch, np):
    rng = np.random.default_rng(1234)
    randn = lambda *s: torch.from_numpy(rng.standard_normal(s).astype(np.float32))  # noqa: E731
    trees = {}

    trees["nested"] = {
        "model": collections.OrderedDict([("fc.weight", randn(3, 4)), ("fc.bias", torch.zeros(4)),
                                          ("bn.num_batches_tracked", torch.tensor(7))]),
        "optimizer": {
            "state": {0: {"momentum_buffer": randn(3, 4), "step": torch.tensor(3.0)},
                      1: {"momentum_buffer": randn(4)}},
            "param_groups": [{"lr": 0.1, "momentum": 0.9, "betas": (0.9, 0.999),
                              "nesterov": False, "params": [0, 1]}],
        },
        "global_step": 10,
        "name": "run-\u03b1 \"quoted\" \\ /slash",
        "nothing": None,
    }

    def each(shape):
        return collections.OrderedDict([
            ("bool", torch.tensor(np.arange(math.prod(shape)).reshape(shape) % 3 == 0)),
            ("uint8", torch.from_numpy((np.arange(math.prod(shape)) * 37 % 256).astype(np.uint8).reshape(shape))),
            ("int16", torch.from_numpy((np.arange(math.prod(shape)) * -1000).astype(np.int16).reshape(shape))),
            ("int32", torch.from_numpy((np.arange(math.prod(shape)) * 100003 - 7).astype(np.int32).reshape(shape))),
            ("int64", torch.from_numpy((np.arange(math.prod(shape), dtype=np.int64) * 2**40 - 5).reshape(shape))),
            ("float16", torch.from_numpy((np.arange(math.prod(shape)) / 8 - 0.5).astype(np.float16).reshape(shape))),
            ("bfloat16", torch.from_numpy((np.arange(math.prod(shape)) / 4 - 1.0).astype(np.float32).reshape(shape)).to(torch.bfloat16)),
            ("float32", torch.from_numpy((np.arange(math.prod(shape)) / 3).astype(np.float32).reshape(shape))),
            ("float64", torch.from_numpy((np.arange(math.prod(shape)) / 7).astype(np.float64).reshape(shape))),
        ])

    trees["dtypes"] = {"2x3": each((2, 3)), "0d": each(()), "empty": each((0,)),
                       "empty3d": each((2, 0, 3)),
                       "special": torch.tensor([float("inf"), float("-inf"), float("nan"), -0.0])}

    w = randn(2, 2)
    arr = np.arange(4.0)
    trees["ties"] = {"a": w, "b": {"c": w}, "l": [w, (w,)], "np": arr, "np2": arr,
                     "view": w[0], "other": w.clone()}

    trees["numpy"] = {"f32": np.arange(6, dtype=np.float32).reshape(2, 3), "f64": np.array([0.1, -2.5]),
                      "i64": np.array([1, -2, 3], dtype=np.int64), "u8": np.array([0, 255], dtype=np.uint8),
                      "bool": np.array([True, False]), "zero_d": np.array(3.25), "empty": np.zeros((0, 2)),
                      "i16": np.array([[-1, 2]], dtype=np.int16)}

    trees["scalars"] = {
        "ints": [0, 1, -1, 256, 257, -6, 2**40, -(2**63), 10**30],
        "floats": [0.0, -0.0, 0.1, 1e300, -1e-300, float("inf"), float("-inf"), float("nan")],
        "bools": [True, False, True],
        "strings": ["", "a", "x" * 300, "\u00e9\u4e2d\U0001f600", "tab\tnew\nline"],
        "none": [None, None],
        "keys": {0: "int", -3: "neg", 1.5: "float", True: "bool", None: "none", "s": "str", 10**20: "big"},
        "np_float64": np.float64(2.5),
    }

    trees["containers"] = {
        "list_of_tuples": [(1, 2), (3, (4, [5]))],
        "empties": {"d": {}, "l": [], "t": (), "nested": [[], {}, ((),)]},
        "set": {3, 1, 2},
        "deque": collections.deque([torch.ones(2), "q"]),
        "dd1": collections.defaultdict(list, {"a": torch.ones(1)}),
        "dd2": collections.defaultdict(int, {"x": 1, "y": torch.zeros(2)}),
        "odict": collections.OrderedDict([("z", 1), ("a", 2)]),
        "deep": {"a": {"b": {"c": {"d": {"e": [torch.tensor([1.0])]}}}}},
    }

    trees["objects"] = {"np_float32": np.float32(1.5), "np_int64": np.int64(-7), "np_bool": np.bool_(True),
                        "complex": complex(1, -2), "dtype": torch.float32, "bf16_dtype": torch.bfloat16,
                        "device": torch.device("cpu")}

    # big enough for several HDF5 chunks (the real stack's LZ4 actually compresses zeros/patterns)
    pattern = np.tile(np.arange(100, dtype=np.int64), 70)
    trees["big"] = {"zeros": torch.zeros(300000), "pattern": torch.from_numpy(pattern),
                    "random": randn(50, 70), "bf16": torch.zeros(3000, 7).to(torch.bfloat16),
                    "mask": torch.tensor(np.arange(9000) % 5 == 0)}

    trees["toplevel_scalar"] = 2.5
    trees["toplevel_list"] = [torch.arange(3), {"k": "v"}]
    return trees


# -- description ------------------------------------------------------------------------------------
def _num(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, float):
        return "f:" + repr(v)
    if isinstance(v, int):
        return v
    if isinstance(v, list):
        return [_num(x) for x in v]
    if isinstance(v, bytes):
        return "b:" + v.hex()
    return v


def _key(k):
    return [type(k).__name__, repr(k) if not isinstance(k, float) else "f:" + repr(k)]


def describe(tree, tensor_type):
    """JSON-able description; tensors/arrays tied by identity are reported as {"tie": first_path}."""
    seen = {}

    def d(x, path):
        is_tensor = isinstance(x, tensor_type)
        if is_tensor or type(x).__name__ in ("ndarray", "DeferredNumpyArray"):
            if id(x) in seen:
                return {"tie": seen[id(x)]}
            seen[id(x)] = path
            if is_tensor:
                return {"tensor": str(x.dtype), "shape": list(x.shape), "values": _num(x.tolist())}
            import numpy as np
            a = np.asarray(x)
            return {"ndarray": a.dtype.str, "shape": list(a.shape), "values": _num(a.tolist())}
        if type(x).__name__ == "DeferredObject":
            x = x.value
        if isinstance(x, (dict,)):
            return {"dict": type(x).__name__,
                    "factory": getattr(getattr(x, "default_factory", None), "__name__", None),
                    "items": [[_key(k), d(v, f"{path}.{k}")] for k, v in x.items()]}
        if isinstance(x, collections.deque):
            return {"deque": [d(v, f"{path}.{i}") for i, v in enumerate(x)]}
        if isinstance(x, (list, tuple)) and type(x) in (list, tuple):
            return {type(x).__name__: [d(v, f"{path}.{i}") for i, v in enumerate(x)]}
        if isinstance(x, (set, frozenset)):
            return {"set": sorted(json.dumps(d(v, path)) for v in x)}
        if x is None or type(x) in (bool, int, str):
            return {"py": type(x).__name__, "v": x}
        if type(x) is float:
            return {"py": "float", "v": "f:" + repr(x)}
        if isinstance(x, float):  # float subclass (np.float64) -> loads back as float
            return {"py": "float", "v": "f:" + repr(float(x))}
        return {"object": type(x).__name__.rstrip("_"), "str": str(x)}

    return d(tree, "")


def _main(argv):
    import numpy as np
    import torch

    import cerebras.pytorch as cstorch

    if argv[0] == "save":
        out = argv[1]
        names = argv[2:] or TREE_NAMES
        trees = build_trees(torch, np)
        for name in names:
            cstorch.save(trees[name], f"{out}/{name}.mdl")
        print(json.dumps({n: describe(trees[n], torch.Tensor) for n in names}))
    elif argv[0] == "load":
        res = {}
        for p in argv[1:]:
            try:
                res[p] = {"ok": describe(cstorch.load(p), torch.Tensor)}
            except Exception as e:  # noqa: BLE001
                res[p] = {"error": type(e).__name__, "message": str(e)}
        print(json.dumps(res))
    else:
        raise SystemExit(f"unknown command {argv[0]}")


if __name__ == "__main__":
    _main(sys.argv[1:])
