"""Checkpoints move both ways between minitorch_cs and the real cstorch 2.10 stack.

Needs MINITORCH_CS_REFERENCE_PYTHON (skips otherwise). Each direction runs the reference interpreter
once per module (cached): ``tests/storage/_interop.py`` builds the same trees with the real torch.
"""
from __future__ import annotations

import functools
import json
import subprocess
import tempfile
import warnings
from collections import OrderedDict
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import minitorch_cs.torch as torch
from minitorch_cs.storage import load, save

from ._interop import TREE_NAMES, build_trees, describe

SCRIPT = Path(__file__).with_name("_interop.py")

pytestmark = pytest.mark.reference


def _run(python, *args):
    r = subprocess.run([python, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def _ours(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return build_trees(torch, np)[name]


@functools.lru_cache(maxsize=None)
def _real_saved(python):
    """The real stack saves every tree; returns (dir, the real stack's description of its trees)."""
    d = Path(tempfile.mkdtemp(prefix="cs_real_saved_"))
    desc = _run(python, "save", d)
    return d, desc


@functools.lru_cache(maxsize=None)
def _real_loads_ours(python):
    """We save every tree; the real stack loads each file; returns its descriptions."""
    d = Path(tempfile.mkdtemp(prefix="cs_ours_saved_"))
    for name in TREE_NAMES:
        save(_ours(name), d / f"{name}.mdl")
    extra = _extra_trees()
    for name, tree in extra.items():
        save(tree, d / f"{name}.mdl")
    files = [d / f"{n}.mdl" for n in [*TREE_NAMES, *extra]]
    res = _run(python, "load", *files)
    return {Path(k).stem: v for k, v in res.items()}


def _extra_trees():
    w = torch.arange(6.0).reshape(2, 3)
    return {
        # a file whose only tensor is tied many times, plus lazily-loaded-then-resaved data
        "tied_many": {"a": w, "b": [w, w, {"c": w}], "d": (w,)},
        # numpy bf16 (ml_dtypes): stored as int16 bits + is_bfloat16, read by the real stack as its
        # own bf16 marker array (the real stack's own ml_dtypes round trip is broken)
        "np_bf16": {"x": np.array([1.0, -2.5, 0.15625], dtype=ml_dtypes.bfloat16)},
    }


# -- real saves -> we load ------------------------------------------------------------------------
@pytest.mark.parametrize("mode", [None, "cpu"])
@pytest.mark.parametrize("name", TREE_NAMES)
def test_real_saves_we_load(reference_python, name, mode):
    d, real_desc = _real_saved(reference_python)
    loaded = load(d / f"{name}.mdl", map_location=mode)
    assert json.dumps(describe(loaded, torch.Tensor)) == json.dumps(real_desc[name])


@functools.lru_cache(maxsize=None)
def _real_self_load(python):
    d, _ = _real_saved(python)
    res = _run(python, "load", *[d / f"{n}.mdl" for n in TREE_NAMES])
    return {Path(k).stem: v for k, v in res.items()}


@pytest.mark.parametrize("name", TREE_NAMES)
def test_we_load_real_files_as_the_real_stack_does(reference_python, name):
    real = _real_self_load(reference_python)[name]
    d, _ = _real_saved(reference_python)
    assert json.dumps(describe(load(d / f"{name}.mdl"), torch.Tensor)) == json.dumps(real["ok"])


def test_real_trees_equal_ours(reference_python):
    # sanity of the shared builder: both stacks build the same trees
    _, real_desc = _real_saved(reference_python)
    for name in TREE_NAMES:
        assert json.dumps(describe(_ours(name), torch.Tensor)) == json.dumps(real_desc[name]), name


# -- we save -> real loads ------------------------------------------------------------------------
@pytest.mark.parametrize("name", TREE_NAMES)
def test_we_save_real_loads(reference_python, name):
    res = _real_loads_ours(reference_python)[name]
    assert "ok" in res, res
    assert json.dumps(res["ok"]) == json.dumps(describe(_ours(name), torch.Tensor))


def test_real_loads_our_ties(reference_python):
    res = _real_loads_ours(reference_python)["tied_many"]["ok"]
    items = dict((k[1], v) for k, v in res["items"])
    assert items["'a'"]["tensor"] == "torch.float32"
    assert items["'b'"]["list"][0] == {"tie": ".a"} and items["'d'"]["tuple"][0] == {"tie": ".a"}


def test_real_loads_our_numpy_bf16(reference_python):
    res = _real_loads_ours(reference_python)["np_bf16"]["ok"]
    (key, val), = res["items"]
    # the real loader returns int16 bits (its bf16 marker dtype): 1.0, -2.5, 0.15625
    assert val["ndarray"] == "<i2" and val["values"] == [0x3F80, -16352, 0x3E20]


def test_round_trip_through_the_real_stack(reference_python, tmp_path):
    # ours -> real load + real save -> ours, for a training-like state
    sd = {"model": OrderedDict([("w", torch.arange(6.0).reshape(2, 3)), ("b", torch.zeros(3))]),
          "optimizer": {"state": {0: {"momentum_buffer": torch.ones(2, 3)}},
                        "param_groups": [{"lr": 0.1, "params": [0]}]}, "global_step": 7}
    save(sd, tmp_path / "ours.mdl")
    code = (f"import cerebras.pytorch as c; c.save(c.load({str(tmp_path / 'ours.mdl')!r}), "
            f"{str(tmp_path / 'real.mdl')!r})")
    r = subprocess.run([reference_python, "-c", code], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    back = load(tmp_path / "real.mdl")
    assert json.dumps(describe(back, torch.Tensor)) == json.dumps(describe(sd, torch.Tensor))


def test_real_stack_refuses_what_we_refuse(reference_python, tmp_path):
    # documented: the real stack *writes* these trees and then cannot load them; we refuse to save
    code = f"""
import json, torch, collections, cerebras.pytorch as c
out = {{}}
for i, tree in enumerate([{{"a.b": torch.ones(1), "a": {{"b": torch.zeros(1)}}}}, {{(1, 2): 3}},
                          {{"d": collections.defaultdict(list, a=1, b=2, c=3)}}]):
    p = "{tmp_path}/t%d.mdl" % i
    c.save(tree, p)
    try:
        c.load(p); out[i] = "loaded"
    except Exception as e:
        out[i] = type(e).__name__
print(json.dumps(out))
"""
    r = subprocess.run([reference_python, "-c", code], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout.strip().splitlines()[-1]) == {"0": "ValueError", "1": "KeyError",
                                                             "2": "ValueError"}
