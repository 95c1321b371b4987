"""Every checkpoint in tests/data/real_ckpt (written by the real cstorch 2.10 stack) loads with exactly
the values its README lists. Runs without the reference stack and without hdf5plugin."""
from __future__ import annotations

import math
from collections import OrderedDict
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import minitorch_cs.torch as torch
from minitorch_cs.storage import DeferredObject, DeferredTensor, load

DATA = Path(__file__).resolve().parents[1] / "data" / "real_ckpt"


def _load(name, map_location=None):
    return load(str(DATA / name), map_location=map_location)


def check_tensor(t, dtype, values, shape=None):
    assert isinstance(t, torch.Tensor)
    assert t.dtype is dtype, (t.dtype, dtype)
    if shape is not None:
        assert list(t.shape) == list(shape)
    got = t.tolist()
    assert got == values, (got, values)


@pytest.fixture(params=[None, "cache", "cpu"])
def mode(request):
    return request.param


def test_all_files_are_covered():
    listed = {p.name for p in DATA.glob("*.mdl")}
    assert listed == {"simple.mdl", "tensors_float.mdl", "tensors_half.mdl", "tensors_int.mdl",
                      "tensors_misc.mdl", "numpy_arrays.mdl", "py_leaves.mdl",
                      "containers_seq.mdl", "containers_map.mdl", "misc.mdl", "toplevel_int.mdl",
                      "optim_sgd.mdl", "sched_linear.mdl", "optim_adamw.mdl", "partial.mdl",
                      "lz4_compressed.mdl"}


def test_simple(mode):
    sd = _load("simple.mdl", mode)
    assert list(sd) == ["w", "step"]
    check_tensor(sd["w"], torch.float32, [[0, 1, 2], [3, 4, 5]])
    assert sd["step"] == 3 and type(sd["step"]) is int


def test_tensors_float(mode):
    sd = _load("tensors_float.mdl", mode)
    check_tensor(sd["f32"], torch.float32, [[0, .25, .5, .75], [1, 1.25, 1.5, 1.75],
                                            [2, 2.25, 2.5, 2.75]])
    check_tensor(sd["f64"], torch.float64, [0.0, 0.1, 0.2, 0.30000000000000004, 0.4])
    check_tensor(sd["scalar_f32"], torch.float32, 2.5, shape=[])


def test_tensors_half(mode):
    sd = _load("tensors_half.mdl", mode)
    check_tensor(sd["bf16"], torch.bfloat16, [1.0, -2.5, 0.15625, 65536.0])
    assert sd["bf16"].numpy().view(np.uint16).tolist() == [0x3F80, 0xC020, 0x3E20, 0x4780]
    check_tensor(sd["f16"], torch.float16, [0.5, -1.25, 1024.0])
    check_tensor(sd["empty_f32"], torch.float32, [], shape=[0])


def test_tensors_int(mode):
    sd = _load("tensors_int.mdl", mode)
    check_tensor(sd["i64"], torch.int64, [-3, -2, -1, 0, 1, 2])
    check_tensor(sd["i32"], torch.int32, [[1, -2], [3, -4]])
    check_tensor(sd["u8"], torch.uint8, [0, 7, 255])


def test_tensors_misc(mode):
    sd = _load("tensors_misc.mdl", mode)
    check_tensor(sd["bool"], torch.bool, [True, False, True])
    check_tensor(sd["scalar_i64"], torch.int64, 7, shape=[])
    check_tensor(sd["empty_i32_2x0"], torch.int32, [[], []], shape=[2, 0])


def test_numpy_arrays(mode):
    sd = _load("numpy_arrays.mdl", mode)
    for k in sd:
        assert type(sd[k]) is np.ndarray  # documented difference: real returns DeferredNumpyArray
    assert sd["f32"].dtype == np.float32 and sd["f32"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert sd["f64"].dtype == np.float64 and sd["f64"].tolist() == [0.25, -1.5]
    assert sd["i64"].dtype == np.int64 and sd["i64"].tolist() == [1, 2, 3]
    # is_bfloat16 int16 data: the same bits as the real loader's int16 marker array, as bf16 values
    assert sd["bf16_cs"].dtype == ml_dtypes.bfloat16
    assert sd["bf16_cs"].view(np.int16).tolist() == [16256, 16416]
    assert sd["bf16_cs"].astype(np.float32).tolist() == [1.0, 2.5]


def test_py_leaves(mode):
    sd = _load("py_leaves.mdl", mode)
    assert sd == {"int": 42, "neg_int": -7, "big_int": 1099511627776, "float": 0.1, "true": True,
                  "false": False, "str": "hello", "none": None}
    assert [type(v) for v in sd.values()] == [int, int, int, float, bool, bool, str, type(None)]


def test_containers_seq(mode):
    sd = _load("containers_seq.mdl", mode)
    assert type(sd["list"]) is list and type(sd["list"][1]) is list and type(sd["list"][2]) is tuple
    check_tensor(sd["list"][0], torch.float32, [1, 1])
    assert sd["list"][1] == [1.5, "x"] and sd["list"][2] == (3, None)
    assert type(sd["tuple"]) is tuple and type(sd["tuple"][1]) is tuple
    check_tensor(sd["tuple"][0], torch.float32, [3, 3])
    assert sd["tuple"][1] == ("nested", 300)
    assert sd["empty"] == {"d": {}, "l": [], "t": ()}
    assert type(sd["empty"]["l"]) is list and type(sd["empty"]["t"]) is tuple


def test_containers_map(mode):
    sd = _load("containers_map.mdl", mode)
    assert type(sd["odict"]) is OrderedDict and list(sd["odict"]) == ["z", "a", "m"]
    check_tensor(sd["odict"]["z"], torch.float32, [1.0])
    assert sd["odict"]["a"] == 2 and sd["odict"]["m"] == "third"
    assert list(sd["intkeys"]) == [0, 1, 10] and all(type(k) is int for k in sd["intkeys"])
    check_tensor(sd["intkeys"][0], torch.float32, [0.0])
    assert sd["intkeys"][1] == "one" and sd["intkeys"][10] == 10.0
    check_tensor(sd["tied"]["first"], torch.float32, [[0.5, 1.5], [2.5, 3.5]])
    assert sd["tied"]["second"] is sd["tied"]["first"]


def test_misc(mode):
    with _no_warning():  # the dill pickles unpickle without dill and without warnings
        sd = _load("misc.mdl", mode)
    assert sd["set"] == {1, 2} and type(sd["set"]) is set
    # pickled leaves come back as DeferredObject, as in the real stack; `.value` unpickles the
    # dill pickles without dill, through the allow-list
    assert type(sd["np_float32_scalar"]) is DeferredObject and type(sd["complex"]) is DeferredObject
    assert type(sd["np_float32_scalar"].value) is np.float32 and sd["np_float32_scalar"].value == 1.5
    assert type(sd["complex"].value) is complex and sd["complex"].value == 1 + 2j
    assert repr(sd["complex"]) == "DeferredObject((1+2j))" and str(sd["complex"]) == "(1+2j)"
    assert sd["complex"].imag == 2.0  # attribute access goes to the value, as in the real class
    assert type(sd["np_float64_scalar"]) is float and sd["np_float64_scalar"] == 2.5
    # the real stack's broken ml_dtypes round trip: opaque 2-byte values, as the real loader gives
    v = sd["np_bf16_ml_dtypes"]
    assert v.dtype == np.dtype("V2") and v.tolist() == [b"\x80?", b" @"]
    assert sd["inf"] == math.inf and math.isnan(sd["nan"])
    assert sd["huge_int"] == 10**20
    assert sd[5] == "int key five"
    assert list(sd) == ["set", "np_float32_scalar", "complex", "np_float64_scalar",
                        "np_bf16_ml_dtypes", "inf", "nan", "huge_int", 5]


class _no_warning:
    def __enter__(self):
        import warnings
        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def test_toplevel_int(mode):
    assert _load("toplevel_int.mdl", mode) == 7


def test_optim_sgd(mode):
    sd = _load("optim_sgd.mdl", mode)
    assert list(sd) == ["model", "optimizer", "global_step"]
    assert type(sd["model"]) is OrderedDict
    check_tensor(sd["model"]["weight"], torch.float32,
                 [[-0.008400000631809235, 0.08780000358819962, 0.18400000035762787],
                  [0.27000001072883606, 0.3571999967098236, 0.44440001249313354]])
    state = sd["optimizer"]["state"]
    assert list(state) == [0]
    check_tensor(state[0]["momentum_buffer"], torch.float32,
                 [[0.08400000631809235, 0.12200000137090683, 0.1599999964237213],
                  [0.30000001192092896, 0.42800000309944153, 0.5559999942779541]])
    (pg,) = sd["optimizer"]["param_groups"]
    check_tensor(pg["lr"], torch.float32, 0.09099999815225601, shape=[])
    rest = {k: v for k, v in pg.items() if k != "lr"}
    assert rest == {"momentum": 0.9, "dampening": 0, "weight_decay": 0, "nesterov": False,
                    "maximize": False, "params": [0]}
    assert list(pg) == ["lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize",
                        "params"]
    assert sd["global_step"] == 1


def test_sched_linear(mode):
    sd = _load("sched_linear.mdl", mode)
    (s,) = sd["schedulers"]
    assert list(s) == ["initial_learning_rate", "end_learning_rate", "power", "cycle",
                       "param_group_tags", "_last_value", "total_iters", "last_epoch",
                       "_step_count", "_get_called_within_step"]
    assert (s["initial_learning_rate"], s["end_learning_rate"], s["power"], s["cycle"],
            s["param_group_tags"], s["total_iters"], s["_step_count"],
            s["_get_called_within_step"]) == (0.1, 0.01, 1.0, False, None, 10, 2, False)
    (lv,) = s["_last_value"]
    check_tensor(lv, torch.float32, 0.09099999815225601, shape=[])
    check_tensor(s["last_epoch"], torch.int64, 1, shape=[])


def test_optim_adamw(mode):
    sd = _load("optim_adamw.mdl", mode)
    st = sd["optimizer"]["state"][0]
    check_tensor(st["exp_avg"], torch.float32,
                 [[0.008400000631809235, 0.012200000695884228, 0.01600000075995922],
                  [0.030000001192092896, 0.04280000180006027, 0.05559999868273735]])
    check_tensor(st["exp_avg_sq"], torch.float32,
                 [[7.056001777527854e-06, 1.4884000847814605e-05, 2.5600000299164094e-05],
                  [9.000000864034519e-05, 0.00018318401998840272, 0.0003091360267717391]])
    check_tensor(st["beta1_power"], torch.float32, 0.809999942779541, shape=[])
    check_tensor(st["beta2_power"], torch.float32, 0.9980010390281677, shape=[])
    (pg,) = sd["optimizer"]["param_groups"]
    assert list(pg) == ["lr", "betas", "eps", "weight_decay", "l2_regularization_rate",
                        "correct_bias", "amsgrad", "params"]
    assert pg == {"lr": 0.01, "betas": (0.9, 0.999), "eps": 1e-06, "weight_decay": 0.1,
                  "l2_regularization_rate": 0.0, "correct_bias": True, "amsgrad": False,
                  "params": [0]}
    assert type(pg["betas"]) is tuple


def test_partial(mode):
    p = str(DATA / "partial.mdl")
    with pytest.raises(RuntimeError) as ei:
        load(p, map_location=mode)
    assert str(ei.value) == f"Cannot load partially written checkpoint at {p}."


def test_tensor_types_by_mode(mode):
    sd = _load("simple.mdl", mode)
    if mode == "cpu":
        assert type(sd["w"]) is torch.Tensor
    else:
        assert type(sd["w"]) is DeferredTensor


def test_lz4_compressed(mode):
    # really compressed LZ4 chunks (matches, literal runs, partial edge chunks), read without hdf5plugin
    sd = _load("lz4_compressed.mdl", mode)
    check_tensor(sd["zeros"], torch.float32, [0.0] * 300000)
    check_tensor(sd["pattern"], torch.int64, list(range(100)) * 70)
    check_tensor(sd["bytes"], torch.uint8, [(i * 7) % 251 for i in range(5000)])
    check_tensor(sd["ramp"], torch.float64, np.arange(4000.0).reshape(40, 100).tolist())
    check_tensor(sd["bf16"], torch.bfloat16, [[1.5] * 7] * 3000)
    check_tensor(sd["mask"], torch.bool, [i % 5 == 0 for i in range(9000)])
    rnd = np.random.default_rng(0).standard_normal((50, 70)).astype(np.float32)
    check_tensor(sd["random"], torch.float32, rnd.tolist())
    assert float(sd["random"].numpy().astype(np.float64).sum()) == -77.54379600880202
    assert type(sd["np_zeros"]) is np.ndarray and sd["np_zeros"].dtype == np.float32
    assert sd["np_zeros"].tolist() == [0.0] * 4096
