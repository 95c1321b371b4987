"""``F.embedding_bag`` / ``nn.EmbeddingBag`` and ``F.embedding(scale_grad_by_freq=True)``:
torch 2.13's CPU kernel (bags from offsets or a 2-D input, sum / mean / max, per-sample
weights, ``include_last_offset``, ``padding_idx``, ``max_norm``, int32/int64 indices), its
errors, and its values and gradients bit for bit against torch over generated cases (the
per-sample weights' gradient, a BLAS dot product, to within rounding)."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs.torch as mt
from tests.helpers import train_on_backend
from tests.torch._sweeps import assert_same_as_torch, outcomes

F = mt.nn.functional
DTYPES = ["float32", "float64", "float16", "bfloat16"]


@pytest.fixture
def one_thread():
    """torch's fast path reports a bad index by its position only when one thread scans the
    bags (with more, the chunked report fails on its own check first)."""
    torch = pytest.importorskip("torch")
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


# ----- generated cases --------------------------------------------------------------------------
def make_case(seed):
    """One random call: its arrays and options (both libraries build their tensors from it)."""
    rng = np.random.default_rng(seed)
    dtype = DTYPES[seed % 4]
    mode = ["sum", "mean", "max"][(seed // 4) % 3]
    num = int(rng.integers(1, 12))
    dim = int(rng.choice([1, 3, 8, 33, 40]))
    w = rng.standard_normal((num, dim))
    if mode == "max" and rng.random() < 0.5:  # ties, signed zeros and NaNs
        w = np.round(w)
        w[rng.random(w.shape) < 0.1] = -0.0
        if rng.random() < 0.5:
            w[rng.random(w.shape) < 0.1] = np.nan
    two_d = rng.random() < 0.3
    n = int(rng.choice([0, 1, 5, 16, 17, 40, 90])) if not two_d else 0
    case = dict(seed=seed, dtype=dtype, mode=mode, w=w, two_d=two_d,
                t_weight=bool(rng.random() < 0.2), ilo=False, offsets=None, psw=None,
                pad=None, freq=False, idx_dt="int64", off_dt="int64")
    if two_d:
        b, k = int(rng.integers(0, 5)), int(rng.integers(1, 7))
        case["idx"] = rng.integers(0, num, (b, k))
    else:
        case["idx"] = rng.integers(0, num, n)
        nb = int(rng.integers(1, 6))
        offs = np.sort(rng.integers(0, n + 1, nb))
        offs[0] = 0
        if rng.random() < 0.4:
            case["ilo"] = True
            last = n if rng.random() < 0.7 else int(rng.integers(offs[-1], n + 1))
            offs = np.append(offs, last)
        case["offsets"] = offs
        case["idx_dt"] = str(rng.choice(["int64", "int32"]))
        case["off_dt"] = str(rng.choice(["int64", "int32"]))
    if rng.random() < 0.4:
        case["pad"] = int(rng.integers(-num, num))
    if mode == "sum" and rng.random() < 0.5:
        case["psw"] = rng.standard_normal(case["idx"].shape)
    if mode != "max" and rng.random() < 0.4:
        case["freq"] = True
    case["grad"] = rng.standard_normal((case["idx"].shape[0] if two_d else
                                        len(case["offsets"]) - case["ilo"], dim))
    return case


def run_case(T, case):
    """The output, the weight's and the per-sample weights' gradients, as float64 arrays."""
    dt = getattr(T, case["dtype"])
    w0 = T.tensor(case["w"].T.copy() if case["t_weight"] else case["w"]).to(dt)
    w = (w0.t() if case["t_weight"] else w0).detach().requires_grad_()
    idx = T.tensor(case["idx"]).to(getattr(T, case["idx_dt"]))
    offs = None if case["offsets"] is None else \
        T.tensor(case["offsets"]).to(getattr(T, case["off_dt"]))
    psw = None if case["psw"] is None else T.tensor(case["psw"]).to(dt).requires_grad_()
    y = T.nn.functional.embedding_bag(idx, w, offs, mode=case["mode"], per_sample_weights=psw,
                                      include_last_offset=case["ilo"], padding_idx=case["pad"],
                                      scale_grad_by_freq=case["freq"])
    y.backward(T.tensor(case["grad"]).to(dt))
    arrays = [y.detach(), w.grad, None if psw is None else psw.grad]
    return [None if a is None else a.double().numpy() for a in arrays], str(y.dtype), \
        y.grad_fn.name(), w.stride()


def _unreliable_tail(case, stride) -> bool:
    """include_last_offset with a last offset short of the input on torch's fast path (rows
    with unit stride, no padding_idx, sum or mean, not float64): its backward reads the
    gradient outside its buffer there (the forward is compared)."""
    fast = case["dtype"] != "float64" and case["pad"] is None and case["mode"] != "max" \
        and stride[1] == 1
    return case["ilo"] and fast and case["offsets"][-1] < len(case["idx"])


SEEDS = range(240)


@pytest.mark.parametrize("seed", SEEDS)
def test_values_and_gradients_match_torch(seed):
    torch = pytest.importorskip("torch")
    case = make_case(seed)
    (y_t, gw_t, gp_t), dt_t, node_t, stride_t = run_case(torch, case)
    (y_m, gw_m, gp_m), dt_m, node_m, stride_m = run_case(mt, case)
    assert (dt_m, node_m, stride_m) == (dt_t, node_t, stride_t)
    np.testing.assert_array_equal(y_m, y_t)  # (NaN where torch's are; bit for bit otherwise)
    num = ~np.isnan(y_t)  # (zeros' signs too; a NaN's sign is the dtype conversion's)
    assert np.array_equal(np.signbit(y_m[num]), np.signbit(y_t[num]))
    if not _unreliable_tail(case, stride_t):
        np.testing.assert_array_equal(gw_m, gw_t)
        if gp_t is not None:
            tol = {"float64": 1e-13, "float32": 2e-6}.get(case["dtype"], 1e-2)
            np.testing.assert_allclose(gp_m, gp_t, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype, mode, freq, psw", [
    ("float32", "mean", True, False), ("float64", "sum", False, True),
    ("float16", "sum", True, False)])
def test_long_inputs_take_torchs_stable_sort(dtype, mode, freq, psw):
    """From 32,768 indices torch sorts them with a stable radix sort (below: introsort): the
    order in which each row's gradient terms add up."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    n = 33000
    case = dict(dtype=dtype, mode=mode, w=rng.standard_normal((40, 5)), two_d=False,
                t_weight=False, ilo=False, offsets=np.sort(rng.integers(0, n, 300)),
                psw=rng.standard_normal(n) if psw else None, pad=7, freq=freq,
                idx_dt="int64", off_dt="int64", idx=rng.integers(0, 40, n))
    case["offsets"][0] = 0
    case["grad"] = rng.standard_normal((300, 5))
    (y_t, gw_t, _), *_ = run_case(torch, case)
    (y_m, gw_m, _), *_ = run_case(mt, case)
    np.testing.assert_array_equal(y_m, y_t)
    np.testing.assert_array_equal(gw_m, gw_t)


# ----- errors ------------------------------------------------------------------------------------
def _error_calls(T):
    F_ = T.nn.functional
    w = T.arange(12.0).reshape(4, 3)
    i, o = T.tensor([0, 1, 2, 3]), T.tensor([0, 2])

    def eb(*a, **k):
        return lambda: F_.embedding_bag(*a, **k)
    calls = {
        "2d": eb(T.tensor([[0, 1], [2, 3]]), w),
        "2d offsets": eb(T.tensor([[0, 1], [2, 3]]), w, o),
        "2d offsets list": eb(T.tensor([[0, 1], [2, 3]]), w, [0, 2]),
        "2d empty rows": eb(T.zeros(2, 0, dtype=T.long), w),
        "2d no rows": eb(T.zeros(0, 3, dtype=T.long), w),
        "2d int32": eb(T.tensor([[0, 1], [2, 3]], dtype=T.int32), w, mode="sum"),
        "2d int16": eb(T.tensor([[0, 1], [2, 3]], dtype=T.int16), w),
        "2d bool": eb(T.zeros(2, 2, dtype=T.bool), w),
        "2d float": eb(T.zeros(2, 2), w),
        "3d": eb(T.zeros(1, 2, 2, dtype=T.long), w),
        "0d": eb(T.tensor(1), w, o),
        "no offsets": eb(i, w),
        "offsets 2d": eb(i, w, o.reshape(1, 2)),
        "offsets 0d": eb(i, w, o[0]),
        "weight 1d": eb(i, w.reshape(-1), o),
        "weight 3d": eb(i, w.reshape(2, 2, 3), o),
        "weight int": eb(i, w.int(), o),
        "weight long": eb(i, w.long(), o),
        "weight bool": eb(i, w.bool(), o),
        "swapped": eb(w.long(), i.float()),
        "mode": eb(i, w, o, mode="prod"),
        "max freq": eb(i, w, o, mode="max", scale_grad_by_freq=True),
        "max sparse": eb(i, w, o, mode="max", sparse=True),
        "psw mean": eb(i, w, o, per_sample_weights=T.ones(4)),
        "psw max": eb(i, w, o, mode="max", per_sample_weights=T.ones(4)),
        "psw shape": eb(i, w, o, mode="sum", per_sample_weights=T.ones(3)),
        "psw 2d shape": eb(i.reshape(2, 2), w, mode="sum", per_sample_weights=T.ones(4)),
        "psw double": eb(i, w, o, mode="sum", per_sample_weights=T.ones(4, dtype=T.float64)),
        "psw long": eb(i, w, o, mode="sum", per_sample_weights=T.ones(4, dtype=T.long)),
        "psw 2d": eb(i.reshape(2, 2), w, mode="sum", per_sample_weights=T.ones(2, 2)),
        "pad high": eb(i, w, o, padding_idx=4),
        "pad low": eb(i, w, o, padding_idx=-5),
        "pad -4": eb(i, w, o, padding_idx=-4, mode="sum"),
        "pad with bad idx dtype": eb(i.short(), w, o.short(), padding_idx=9),
        "idx int16": eb(i.short(), w, o.short()),
        "idx int16 offs long": eb(i.short(), w, o),
        "idx uint8 offs int8": eb(i.byte(), w, o.char()),
        "idx float": eb(i.float(), w, o),
        "offs float": eb(i, w, o.float()),
        "idx int32 offs long": eb(i.int(), w, o),
        "idx long offs int32": eb(i, w, o.int()),
        "idx int32 offs int32": eb(i.int(), w, o.int(), mode="max"),
        "offsets[0]": eb(i, w, T.tensor([1, 2])),
        "offsets[0] int32": eb(i.int(), w, T.tensor([1, 2], dtype=T.int32)),
        "offsets[-1]": eb(i, w, T.tensor([0, 5])),
        "offsets[0] before psw": eb(i, w, T.tensor([1, 2]), mode="sum",
                                    per_sample_weights=T.ones(4, dtype=T.float64)),
        "psw dtype before ilo": eb(i, w, T.tensor([], dtype=T.long), mode="sum",
                                   include_last_offset=True,
                                   per_sample_weights=T.ones(4, dtype=T.float64)),
        "empty offsets": eb(T.tensor([], dtype=T.long), w, T.tensor([], dtype=T.long)),
        "empty offsets ilo": eb(i, w, T.tensor([], dtype=T.long), include_last_offset=True),
        "one offset ilo": eb(T.tensor([], dtype=T.long), w, T.tensor([0]),
                             include_last_offset=True),
        "empty input": eb(T.tensor([], dtype=T.long), w, T.tensor([0, 0]), mode="max"),
        "empty bags": eb(i, w, T.tensor([0, 0, 2, 2, 4]), mode="mean"),
        "ilo": eb(i, w, T.tensor([0, 1, 4]), include_last_offset=True, mode="sum"),
        "ilo short, sum": eb(i, w, T.tensor([0, 1, 2]), include_last_offset=True, mode="sum"),
        "ilo short, mean": eb(i, w, T.tensor([0, 1, 2]), include_last_offset=True),
        "ilo short, max": eb(i, w, T.tensor([0, 1, 2]), include_last_offset=True, mode="max"),
        "ilo short, f64": eb(i, w.double(), T.tensor([0, 1, 2]), include_last_offset=True),
        "ilo short, pad": eb(i, w, T.tensor([0, 1, 2]), include_last_offset=True,
                             padding_idx=3),
        "ilo, 2d ignores it": eb(i.reshape(2, 2), w, include_last_offset=True, mode="sum"),
        "index high, fast": eb(T.tensor([0, 1, 2, 3, 4, 9, 1]), w, T.tensor([0, 2, 4]),
                               mode="sum"),
        "index negative, fast": eb(T.tensor([0, 1, -2, 3]), w, T.tensor([0, 2])),
        "index high, half": eb(T.tensor([0, 4]), w.half(), T.tensor([0])),
        "index high, f64": eb(T.tensor([0, 1, 2, 3, 4, 9, 1]), w.double(), T.tensor([0, 2, 4])),
        "index high, max": eb(T.tensor([0, 1, 2, 3, 4, 9, 1]), w, T.tensor([0, 2, 4]),
                              mode="max"),
        "index high, pad": eb(T.tensor([0, 9, 1]), w, T.tensor([0, 2]), padding_idx=1),
        "index high, strided": eb(T.tensor([0, 9]), w.t().contiguous().t(), T.tensor([0])),
        "index high, ilo tail ignored by fast": eb(T.tensor([0, 1, 9]), w, T.tensor([0, 1, 2]),
                                                   include_last_offset=True, mode="sum"),
        "index high, ilo tail, f64": eb(T.tensor([0, 1, 9]), w.double(), T.tensor([0, 1, 2]),
                                        include_last_offset=True),
        "max_norm": eb(T.tensor([0, 1, 2, 3]), w.clone(), o, max_norm=1.0, mode="sum"),
        "max_norm index high": eb(T.tensor([0, 9]), w.clone(), T.tensor([0]), max_norm=1.0),
        "max_norm int16 idx": eb(T.tensor([0, 1], dtype=T.int16), w.clone(), T.tensor([0]),
                                 max_norm=1.0),
        "max_norm then psw mode": eb(i, w.clone(), o, max_norm=1.0,
                                     per_sample_weights=T.ones(4)),
        "input list": eb([0, 1], w, o),
        "weight list": eb(i, [[1.0]], o),
        "negative zeros": eb(T.tensor([0, 1, 1]), -T.zeros(2, 3), T.tensor([0, 1]), mode="sum"),
        "negative zeros, f64 pad": eb(T.tensor([0, 1, 1]), -T.zeros(2, 3, dtype=T.float64),
                                      T.tensor([0, 1, 2]), mode="sum", padding_idx=1),
    }
    return calls


def test_errors_and_edge_cases_match_torch(one_thread):
    # (a non-tensor input or weight: torch's Python function fails on an attribute, ours
    # reports the argument, as every function of our nn.functional does: SPEC)
    assert_same_as_torch(lambda T: outcomes(_error_calls(T)), mt,
                         known=("input list", "weight list"))


def test_non_tensor_arguments_are_reported():
    with pytest.raises(TypeError, match=r"embedding_bag\(\): argument 'input' \(position 1\) "
                                        "must be Tensor, not list"):
        F.embedding_bag([0, 1], mt.ones(2, 2), mt.tensor([0]))


def test_offsets_that_decrease_are_refused():
    """torch's result for decreasing offsets depends on its kernel path and thread count (reads
    outside its buffers, or failures of its own consistency checks); ours is an error."""
    w = mt.ones(4, 3)
    with pytest.raises(RuntimeError, match=r"offsets must not decrease, but offsets\[2\] = 1 "
                                           r"is less than offsets\[1\] = 3"):
        F.embedding_bag(mt.tensor([0, 1, 2, 3]), w, mt.tensor([0, 3, 1]))
    with pytest.raises(RuntimeError, match="offsets must not decrease"):
        F.embedding_bag(mt.tensor([0, 1, 2, 3]), w, mt.tensor([0, 2, 2, -1]), mode="max")


# ----- known values (no torch needed) ------------------------------------------------------------
def test_known_bags_by_hand():
    w = mt.tensor([[1.0, 2.0], [3.0, 5.0], [-4.0, 0.5], [10.0, -1.0]], dtype=mt.float64)
    idx, offs = mt.tensor([0, 1, 2, 3, 3, 1]), mt.tensor([0, 2, 2, 5])
    # bags: [0, 1], [], [2, 3, 3], [1]
    s = F.embedding_bag(idx, w, offs, mode="sum")
    assert s.tolist() == [[4.0, 7.0], [0.0, 0.0], [16.0, -1.5], [3.0, 5.0]]
    m = F.embedding_bag(idx, w, offs, mode="mean")
    assert m.tolist() == [[2.0, 3.5], [0.0, 0.0], [16 / 3, -0.5], [3.0, 5.0]]
    x = F.embedding_bag(idx, w, offs, mode="max")
    assert x.tolist() == [[3.0, 5.0], [0.0, 0.0], [10.0, 0.5], [3.0, 5.0]]
    # padding_idx 3 leaves the bag [2, 3, 3] with one entry (its mean divides by 1)
    p = F.embedding_bag(idx, w, offs, mode="mean", padding_idx=3)
    assert p.tolist()[2] == [-4.0, 0.5]
    # include_last_offset: the last offset closes the last bag (3 bags, the last [2, 3, 3])
    c = F.embedding_bag(idx[:5], w, offs, mode="sum", include_last_offset=True)
    assert c.tolist() == [[4.0, 7.0], [0.0, 0.0], [16.0, -1.5]]
    # a 2-D input is fixed-length bags; per-sample weights scale the rows of a sum
    psw = mt.tensor([[2.0, 0.5], [1.0, -1.0]], dtype=mt.float64)
    y = F.embedding_bag(mt.tensor([[0, 1], [3, 2]]), w, mode="sum", per_sample_weights=psw)
    assert y.tolist() == [[3.5, 6.5], [14.0, -1.5]]
    assert F.embedding_bag(mt.tensor([[0, 1], [3, 2]], dtype=mt.int32), w).dtype == mt.float64


def test_known_gradients_by_hand():
    w = mt.zeros(4, 2, dtype=mt.float64, requires_grad=True)
    idx, offs = mt.tensor([0, 1, 1, 3, 1]), mt.tensor([0, 3, 3])  # bags [0,1,1], [], [3,1]
    g = mt.tensor([[3.0, 6.0], [7.0, 7.0], [1.0, -2.0]], dtype=mt.float64)
    F.embedding_bag(idx, w, offs, mode="mean").backward(g)
    assert w.grad.tolist() == [[1.0, 2.0], [2.5, 3.0], [0.0, 0.0], [0.5, -1.0]]
    w.grad = None
    F.embedding_bag(idx, w, offs, mode="sum", padding_idx=1).backward(g)
    assert w.grad.tolist() == [[3.0, 6.0], [0.0, 0.0], [0.0, 0.0], [1.0, -2.0]]
    # max: each column's gradient goes to the row its maximum came from (the first of ties)
    w2 = mt.tensor([[1.0, 9.0], [4.0, 2.0], [4.0, 9.0]], dtype=mt.float64, requires_grad=True)
    F.embedding_bag(mt.tensor([[0, 1, 2]]), w2, mode="max").backward(mt.tensor([[1.0, 2.0]],
                                                                                dtype=mt.float64))
    assert w2.grad.tolist() == [[0.0, 2.0], [1.0, 0.0], [0.0, 0.0]]
    # per-sample weights' gradient: the dot of the bag's gradient with the row
    w3 = mt.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=mt.float64)
    p = mt.ones(3, dtype=mt.float64, requires_grad=True)
    F.embedding_bag(mt.tensor([0, 1, 1]), w3, mt.tensor([0, 2]), mode="sum",
                    per_sample_weights=p, padding_idx=0).backward(
        mt.tensor([[1.0, 1.0], [2.0, -1.0]], dtype=mt.float64))
    assert p.grad.tolist() == [0.0, 7.0, 2.0]


def test_scale_grad_by_freq_follows_torchs_kernel():
    """torch 2.13 divides the terms of the k-th distinct (sorted) index by the count of the
    index at position k of the sorted indices; for indices [0, 0, 1, 2, 2, 2] that is counts
    2 (index 0), 2 (index 1: sorted[1] is 0) and 1 (index 2: sorted[2] is 1)."""
    w = mt.zeros(3, 1, dtype=mt.float64, requires_grad=True)
    F.embedding_bag(mt.tensor([2, 0, 2, 1, 0, 2]), w, mt.tensor([0]), mode="sum",
                    scale_grad_by_freq=True).backward(mt.ones(1, 1, dtype=mt.float64))
    assert w.grad.reshape(-1).tolist() == [1.0, 0.5, 3.0]
    # F.embedding divides by each index's own count
    w = mt.zeros(3, 1, dtype=mt.float64, requires_grad=True)
    F.embedding(mt.tensor([2, 0, 2, 1, 0, 2]), w, scale_grad_by_freq=True).backward(
        mt.ones(6, 1, dtype=mt.float64))
    assert w.grad.reshape(-1).tolist() == [1.0, 1.0, 1.0]


def _central_differences(f, x, eps=1e-6):
    base = x.detach().numpy().copy()
    out = np.zeros(base.shape)
    for k in np.ndindex(base.shape):
        for sign in (1, -1):
            v = base.copy()
            v[k] += sign * eps
            out[k] += sign * f(mt.tensor(v)).item()
        out[k] /= 2 * eps
    return out


@pytest.mark.parametrize("mode, pad, psw", [("sum", None, True), ("sum", 2, True),
                                            ("mean", 1, False), ("max", 3, False),
                                            ("mean", None, False)])
def test_float64_gradients_match_central_differences(mode, pad, psw):
    rng = np.random.default_rng(11)
    w0 = mt.tensor(rng.standard_normal((5, 3)))
    idx, offs = mt.tensor([0, 2, 1, 4, 2, 3, 3, 1]), mt.tensor([0, 3, 3, 6])
    p0 = mt.tensor(rng.standard_normal(8)) if psw else None
    g = mt.tensor(rng.standard_normal((4, 3)))

    def loss(w, p=p0):
        return (F.embedding_bag(idx, w, offs, mode=mode, padding_idx=pad,
                                per_sample_weights=p) * g).sum()
    w = w0.clone().requires_grad_()
    p = p0.clone().requires_grad_() if psw else None
    loss(w, p).backward()
    np.testing.assert_allclose(w.grad.numpy(), _central_differences(loss, w0), atol=1e-8)
    if psw:
        np.testing.assert_allclose(p.grad.numpy(),
                                   _central_differences(lambda q: loss(w0, q), p0), atol=1e-8)


# ----- embedding(scale_grad_by_freq=True) ---------------------------------------------------------
@pytest.mark.parametrize("seed", range(16))
def test_embedding_scale_grad_by_freq_matches_torch(seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    dtype = DTYPES[seed % 4]
    num, dim = int(rng.integers(1, 9)), int(rng.choice([1, 5, 37, 70]))
    shape = [(int(rng.integers(0, 60)),), (3, 7), (2, 700)][seed % 3]
    idx = rng.integers(0, num, shape)
    pad = None if seed % 2 else int(rng.integers(-num, num))
    w0, g = rng.standard_normal((num, dim)), rng.standard_normal(shape + (dim,))
    got = []
    for T in (torch, mt):
        w = T.tensor(w0).to(getattr(T, dtype)).requires_grad_()
        y = T.nn.functional.embedding(T.tensor(idx), w, padding_idx=pad, scale_grad_by_freq=True)
        y.backward(T.tensor(g).to(w.dtype))
        got.append((y.detach().double().numpy(), w.grad.double().numpy(), y.grad_fn.name()))
    (y_t, g_t, n_t), (y_m, g_m, n_m) = got
    assert n_m == n_t
    np.testing.assert_array_equal(y_m, y_t)
    np.testing.assert_array_equal(g_m, g_t)


def test_embedding_module_scales_by_frequency():
    torch = pytest.importorskip("torch")
    got = []
    for T in (torch, mt):
        T.manual_seed(0)
        e = T.nn.Embedding(6, 3, padding_idx=1, scale_grad_by_freq=True)
        e.weight.data = T.tensor(np.arange(18.0).reshape(6, 3), dtype=T.float32)
        e(T.tensor([[1, 2, 2], [5, 2, 0]])).sum().backward()
        got.append((repr(e), e.weight.grad.numpy().tolist()))
    assert got[0] == got[1]


def test_recorded_backwards_have_torchs_nodes_and_refusals():
    pytest.importorskip("torch")

    def calls(T):
        F_ = T.nn.functional
        w = T.tensor(np.arange(8.0).reshape(4, 2)).requires_grad_()
        p = T.tensor([1.0, 2.0, 3.0, 0.5], dtype=T.float64).requires_grad_()
        i, o = T.tensor([0, 0, 1, 3]), T.tensor([0, 2])

        def bag_grads(mode, with_psw):
            y = F_.embedding_bag(i, w, o, mode=mode, per_sample_weights=p if with_psw else None)
            go = T.ones(2, 2, dtype=T.float64, requires_grad=True)
            gs = T.autograd.grad(y, [w, p] if with_psw else [w], go, create_graph=True)
            return gs, go
        out = {}
        for mode in ("sum", "mean", "max"):
            out[f"{mode} node"] = lambda mode=mode: [
                None if g.grad_fn is None else g.grad_fn.name()
                for g in bag_grads(mode, False)[0]]

            def double(mode=mode):
                (g,), go = bag_grads(mode, False)
                return T.autograd.grad(g.sum(), go)
            out[f"{mode} double"] = double
        out["psw nodes"] = lambda: [g.grad_fn.name() for g in bag_grads("sum", True)[0]]
        out["psw weight double"] = lambda: T.autograd.grad(bag_grads("sum", True)[0][0].sum(), p)
        out["psw double"] = lambda: T.autograd.grad(bag_grads("sum", True)[0][1].sum(), w)
        out["no grad out"] = lambda: [g.grad_fn for g in T.autograd.grad(
            F_.embedding_bag(i, w, o).sum(), w, create_graph=True)]

        def freq(grad_of):
            y = F_.embedding(i, w, padding_idx=3, scale_grad_by_freq=True)
            go = T.tensor(np.arange(8.0).reshape(4, 2), requires_grad=True)
            g, = T.autograd.grad(y, w, go, create_graph=True)
            return g.grad_fn.name() if grad_of is None else \
                T.autograd.grad(g, go, T.tensor(np.arange(8.0).reshape(4, 2)))[0]
        out["freq node"] = lambda: freq(None)
        out["freq double (unscaled, torch's)"] = lambda: freq(True)
        return out
    assert_same_as_torch(lambda T: outcomes(calls(T)), mt)


def test_modifying_saved_tensors_in_place_is_detected_as_in_torch():
    pytest.importorskip("torch")

    def calls(T):
        F_ = T.nn.functional
        out = {}
        for name, (w_rg, p_rg, change) in {
                "weight changed, no psw": (True, None, "w"),
                "weight changed, psw without grad": (True, False, "w"),
                "weight changed, psw grad": (False, True, "w"),
                "psw changed, weight grad": (True, False, "p"),
                "psw changed, psw grad": (False, True, "p"),
                "indices changed": (True, None, "i"),
                "offsets changed": (True, None, "o")}.items():
            def run(w_rg=w_rg, p_rg=p_rg, change=change):
                w = T.ones(3, 2, requires_grad=w_rg)
                p = None if p_rg is None else T.ones(4, requires_grad=p_rg)
                i, o = T.tensor([0, 1, 2, 1]), T.tensor([0, 2])
                y = F_.embedding_bag(i, w, o, mode="sum", per_sample_weights=p)
                with T.no_grad():
                    {"w": w, "p": p, "i": i, "o": o}[change].mul_(1)
                y.sum().backward()
                return "backward ran"
            out[name] = run
        return out
    assert_same_as_torch(lambda T: outcomes(calls(T)), mt)


# ----- the module, max_norm, sparse ---------------------------------------------------------------
def test_module_matches_torch():
    pytest.importorskip("torch")

    def calls(T):
        nn = T.nn
        w = T.tensor(np.arange(15.0).reshape(5, 3) / 7, dtype=T.float32)

        def bag(**kw):
            def run():
                T.manual_seed(0)
                m = nn.EmbeddingBag(5, 3, **kw)
                with T.no_grad():
                    m.weight.copy_(w)
                y = m(T.tensor([0, 1, 4, 2, 2]), T.tensor([0, 2, 4, 5]) if
                      kw.get("include_last_offset") else T.tensor([0, 2, 4]),
                      per_sample_weights=T.ones(5) if kw.get("mode") == "sum" else None)
                y.sum().backward()
                return repr(m), y, m.weight.grad
            return run
        out = {f"module {i}": bag(**kw) for i, kw in enumerate([
            {}, dict(mode="sum"), dict(mode="max", padding_idx=-1),
            dict(padding_idx=2, max_norm=1.5, norm_type=1.0), dict(scale_grad_by_freq=True),
            dict(include_last_offset=True, mode="sum")])}
        # (our generator's normal draws are not torch's: the shape, the zeroed padding row)
        out["init"] = lambda: (lambda m: (m.weight.shape, m.weight[1], m.weight.requires_grad))(
            nn.EmbeddingBag(4, 2, padding_idx=1))
        out["pad high"] = lambda: nn.EmbeddingBag(4, 2, padding_idx=4)
        out["pad low"] = lambda: nn.EmbeddingBag(4, 2, padding_idx=-5)
        out["weight shape"] = lambda: nn.EmbeddingBag(4, 2, _weight=T.ones(2, 4))
        out["dtype"] = lambda: nn.EmbeddingBag(4, 2, dtype=T.float64).weight.dtype

        def pretrained(**kw):
            m = nn.EmbeddingBag.from_pretrained(w.clone(), **kw)
            return repr(m), m.weight.requires_grad, m(T.tensor([[1, 2], [3, 3]]))
        out["pretrained"] = lambda: pretrained()
        out["pretrained unfrozen"] = lambda: pretrained(freeze=False, mode="max", padding_idx=2)
        out["pretrained 1-d"] = lambda: nn.EmbeddingBag.from_pretrained(T.ones(3))
        out["constants"] = lambda: nn.EmbeddingBag.__constants__
        out["repr full"] = lambda: repr(nn.EmbeddingBag(3, 2, max_norm=2.0, norm_type=1.0,
                                                        scale_grad_by_freq=True, mode="max",
                                                        sparse=True, padding_idx=0))
        return out

    def show(r):
        if isinstance(r, tuple):
            return str([show(x) for x in r])
        if hasattr(r, "tolist"):
            return f"{tuple(r.shape)} {r.dtype} {np.round(r.detach().double().numpy(), 5).tolist()}"
        return repr(r)
    assert_same_as_torch(lambda T: outcomes(calls(T), show=show), mt)


def test_max_norm_renorms_the_rows_the_bags_read():
    torch = pytest.importorskip("torch")
    got = []
    for T in (torch, mt):
        w = T.tensor(np.arange(15.0).reshape(5, 3) - 4, dtype=T.float64)
        y = T.nn.functional.embedding_bag(T.tensor([[0, 2], [2, 4]]), w, max_norm=3.0,
                                          norm_type=1.5, mode="sum")
        got.append((y.numpy(), w.numpy()))
    np.testing.assert_allclose(got[1][0], got[0][0], rtol=1e-15)
    np.testing.assert_allclose(got[1][1], got[0][1], rtol=1e-15)


def test_sparse_gives_the_dense_gradient():
    # no sparse tensors here: sparse=True gives the gradient's values densely, as embedding's
    w = mt.ones(4, 2, requires_grad=True)
    i, o = mt.tensor([0, 1, 3]), mt.tensor([0, 1])
    F.embedding_bag(i, w, o, mode="sum", sparse=True).sum().backward()
    assert w.grad.tolist() == [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]
    # torch's own errors still come first
    with pytest.raises(RuntimeError, match=r"offsets\[0\] has to be 0"):
        F.embedding_bag(i, w, mt.tensor([1]), sparse=True)
    with pytest.raises(ValueError, match="max mode does not support sparse weights"):
        F.embedding_bag(i, w, o, mode="max", sparse=True)


def test_swapped_arguments_warn_and_still_work():
    w = mt.arange(6.0).reshape(3, 2)
    with pytest.warns(UserWarning, match="Argument order of nn.functional.embedding_bag"):
        y = F.embedding_bag(w, mt.tensor([[0, 2]]))
    assert y.tolist() == [[2.0, 3.0]]


# ----- the emulated wafer -------------------------------------------------------------------------
class _BagNet(mt.nn.Module):
    def __init__(self):
        super().__init__()
        self.mean = mt.nn.EmbeddingBag(9, 4, padding_idx=0)
        self.sum = mt.nn.EmbeddingBag(9, 4, mode="sum", scale_grad_by_freq=True)
        self.max = mt.nn.EmbeddingBag(9, 4, mode="max", include_last_offset=True)
        self.head = mt.nn.Linear(12, 3)

    def forward(self, idx, offs, psw):
        idx, psw = idx.reshape(-1), psw.reshape(-1)  # (batches of 5 bags: 5 rows of 4)
        ends = mt.cat([offs, mt.full((1,), idx.shape[0], dtype=offs.dtype, device=offs.device)])
        return self.head(mt.cat([self.mean(idx, offs), self.sum(idx, offs, psw),
                                 self.max(idx, ends)], 1))


def _bag_batches(n=4):
    rng = np.random.default_rng(2)
    out = []
    for _ in range(n):  # the same shapes every step, new indices, offsets and weights
        offs = np.sort(rng.integers(0, 20, 5))
        offs[0] = 0
        out.append((mt.from_numpy(rng.integers(0, 9, (5, 4))), mt.from_numpy(offs),
                    mt.from_numpy(rng.standard_normal((5, 4)).astype(np.float32)),
                    mt.from_numpy(rng.integers(0, 3, 5))))
    return out


def test_csx_backend_gives_the_cpu_values(tmp_path):
    """The bags, their three modes and their gradients in a traced training step on the
    emulated wafer (traced once, replayed on new indices and offsets): the CPU's values bit for
    bit."""
    (lc, wc, _), (lx, wx, runs) = (train_on_backend(kind, tmp_path, _BagNet, _bag_batches(), 6,
                                                    momentum=0.9) for kind in ("CPU", "CSX"))
    assert lc == lx and len(set(lx)) > 3 and runs == 1
    assert all(np.array_equal(a, b) for a, b in zip(wc, wx))
