"""``cstorch.nn.functional`` against the real cerebras-pytorch 2.10 on its CPU backend.

The golden file ``tests/data/real_cstorch/nn_functional.json`` was written by
``make_nn_functional_goldens.py`` under the real stack: for every case, the values, dtypes and
aliasing of the result, the gradients of a fixed weighted sum of the outputs, the logged
messages, or the exception type and message. We rebuild the same inputs from the file, run our
function and compare. With MINITORCH_CS_REFERENCE_PYTHON set, the generator is re-run under that
interpreter and must reproduce the file. Hypothesis properties cover inputs the goldens do not.
"""
from __future__ import annotations

import importlib
import inspect
import json
import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitorch_cs as cstorch
import minitorch_cs.nn.functional as F
import minitorch_cs.torch as torch
from minitorch_cs.utils.data import DataExecutor, DataLoader

from ..strategies import shapes

DATA = Path(__file__).resolve().parents[1] / "data" / "real_cstorch"
SCRIPT = DATA / "make_nn_functional_goldens.py"
GOLDEN = json.loads((DATA / "nn_functional.json").read_text())
CASES = GOLDEN["cases"]
RTOL = 1e-6


# ----- rebuilding inputs and encoding results, as the generator does ------------------------------
def build(spec):
    if isinstance(spec, dict) and "tensor" in spec:
        s = spec["tensor"]
        t = torch.tensor(np.array(s["values"], dtype=s["dtype"]).reshape(s["shape"]))
        return t.requires_grad_() if s["requires_grad"] else t
    if isinstance(spec, dict) and "zeros" in spec:
        s = spec["zeros"]
        return torch.zeros(s["shape"], dtype=getattr(torch, s["dtype"]))
    if isinstance(spec, dict) and "dtype" in spec:
        return getattr(torch, spec["dtype"])
    return spec


def encode(x, arg0):
    if isinstance(x, torch.Tensor):
        rec = {"dtype": str(x.dtype), "shape": list(x.shape), "values": x.detach().tolist(),
               "requires_grad": bool(x.requires_grad), "is_arg0": x is arg0}
        if isinstance(arg0, torch.Tensor) and x.numel() and arg0.numel():
            rec["starts_at_arg0_memory"] = x.data_ptr() == arg0.data_ptr()
        return {"tensor": rec}
    if isinstance(x, tuple):
        return {"tuple": [encode(v, arg0) for v in x]}
    return {"value": x, "is_arg0": x is arg0}


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.seen = []

    def emit(self, record):
        self.seen.append([record.levelname, record.getMessage()])


def run_case(case):
    """Our counterpart of the generator's run_case; the loss uses the golden cotangents."""
    args = [build(a) for a in case["args"]]
    kwargs = {k: build(v) for k, v in case["kwargs"].items()}
    records = _Records()
    logger = logging.getLogger(F.__name__)
    logger.addHandler(records)
    try:
        result = getattr(F, case["fn"])(*args, **kwargs)
    except Exception as e:
        return {"error": {"type": type(e).__name__, "message": str(e)}, "logs": records.seen}
    finally:
        logger.removeHandler(records)
    arg0 = args[0] if args else next(iter(kwargs.values()))
    out = {"result": encode(result, arg0), "logs": records.seen}
    outputs = [result] if isinstance(result, torch.Tensor) else (
        list(result) if isinstance(result, tuple) else [])
    if any(isinstance(o, torch.Tensor) and o.requires_grad for o in outputs):
        loss = 0
        for o, ct in zip(outputs, case.get("cotangents") or [None] * len(outputs)):
            if o.requires_grad and ct is not None:
                loss = loss + (o * torch.tensor(np.array(ct)).to(o.dtype)).sum()
        loss.backward()
        inputs = list(enumerate(args)) + list(kwargs.items())
        out["grads"] = {str(k): (None if a.grad is None else encode(a.grad, None))
                        for k, a in inputs if isinstance(a, torch.Tensor) and a.requires_grad}
    return out


# ----- comparison ---------------------------------------------------------------------------------
def assert_same(ours, real, where):
    __tracebackhide__ = True
    if isinstance(real, dict) and "values" in real and "dtype" in real:
        assert {k: v for k, v in ours.items() if k != "values"} == \
            {k: v for k, v in real.items() if k != "values"}, where
        got, want = np.array(ours["values"]), np.array(real["values"])
        assert got.shape == want.shape, f"{where}: shape {got.shape}, but should be {want.shape}"
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=RTOL, atol=0, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(got, want, err_msg=where)
    elif isinstance(real, dict):
        assert isinstance(ours, dict) and set(ours) == set(real), \
            f"{where}: keys {sorted(ours) if isinstance(ours, dict) else ours}, but should be " \
            f"{sorted(real)}"
        for k in real:
            assert_same(ours[k], real[k], f"{where}.{k}")
    elif isinstance(real, list):
        assert isinstance(ours, list) and len(ours) == len(real), f"{where}: {ours} != {real}"
        for i, (o, r) in enumerate(zip(ours, real)):
            assert_same(o, r, f"{where}[{i}]")
    else:
        assert ours == real, f"{where}: got {ours!r}, but should be {real!r}"


# ----- the goldens --------------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_equals_the_real_stack(case, cpu_backend):
    ours = run_case(case)
    real = {k: case[k] for k in ("error", "result", "logs", "grads") if k in case}
    if ("error" in real) != ("error" in ours):
        pytest.fail(f"{case['name']}: we raised {ours.get('error')}, the real stack "
                    f"{real.get('error')}")
    assert_same(ours, real, case["name"])


def test_goldens_cover_every_function_and_error_path():
    fns = {c["fn"] for c in CASES}
    assert fns == set(F.__all__) - set(GOLDEN["constants"])
    assert {c["fn"] for c in CASES if "error" in c} >= fns - {"scope_boundary", "enter_scope",
                                                               "exit_scope"}
    assert any("grads" in c and any(g is not None for g in c["grads"].values()) for c in CASES)


def test_all_lists_exactly_what_is_provided():
    assert sorted(F.__all__) == sorted(set(GOLDEN["signatures"]) | set(GOLDEN["constants"]))
    # names defined here (constants have no __module__), not imported ones
    public = {n for n, v in vars(F).items() if not n.startswith("_")
              and getattr(v, "__module__", F.__name__) == F.__name__ and not inspect.ismodule(v)}
    assert public == set(F.__all__)


@pytest.mark.parametrize("name", sorted(GOLDEN["signatures"]))
def test_signature_equals_the_real_one(name):
    params = inspect.signature(getattr(F, name)).parameters.values()
    ours = [[p.name, p.kind.name, None if p.default is p.empty else repr(p.default)]
            for p in params]
    assert ours == GOLDEN["signatures"][name]


def test_constants_equal_the_real_ones():
    assert {n: getattr(F, n) for n in GOLDEN["constants"]} == GOLDEN["constants"]


def test_reachable_through_the_porting_rule():
    """``cstorch.nn.functional`` after ``import cerebras.pytorch as cstorch`` (rewritten)."""
    code = ("import minitorch_cs as cstorch\nimport minitorch_cs.torch as torch\n"
            "print(cstorch.nn.functional.one_hot(torch.tensor([1, 0]), 2).tolist())")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       cwd=Path(__file__).resolve().parents[2])
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "[[0, 1], [1, 0]]"


@pytest.mark.reference
def test_generator_reproduces_the_goldens(reference_python, tmp_path):
    out = tmp_path / "nn_functional.json"
    r = subprocess.run([reference_python, str(SCRIPT), str(out)], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    fresh = json.loads(out.read_text())
    assert fresh["versions"]["cerebras.pytorch"] == GOLDEN["versions"]["cerebras.pytorch"]
    for key in ("signatures", "constants", "cases"):
        # dumped, so that NaN compares equal to NaN
        assert json.dumps(fresh[key], sort_keys=True) == json.dumps(GOLDEN[key], sort_keys=True), \
            key


# ----- the emulated wafer -------------------------------------------------------------------------
def _train(kind, tmp_path):
    """Three steps through every differentiable helper; records losses, masks and weights."""
    importlib.import_module("minitorch_cs.backend")._reset_for_tests()
    backend = cstorch.backend(kind, artifact_dir=tmp_path / kind)
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3)
    compiled = cstorch.compile(model, backend)
    opt = cstorch.optim.SGD(model.parameters(), lr=0.1)
    seen = []

    @cstorch.step_closure
    def record(loss, mask, arange):
        seen.append((loss.item(), mask.tolist(), arange.tolist()))

    @cstorch.trace
    def step(x, y):
        out = F.exit_scope(F.enter_scope(compiled(x), "head"), "head")
        out = F.bias_add(out, torch.tensor([0.5, -0.5, 0.0], device=x.device), 1)
        mask = F.nth_order_statistic(out, 1, 1)
        arange = F.conditional_arange(mask, torch.tensor(0), torch.tensor(1))
        rows = F.sparse_act_matmul(out, mask[:, 0], torch.ones(2, 3, device=x.device))
        loss = (out - F.one_hot(y, 3).float()).square().sum() + 0.1 * rows.sum()
        loss = loss + 0.01 * F.matmul(out.t(), torch.stack(F.unbind(out))).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
        record(loss, mask, arange)
        return loss

    xs = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    batches = [(torch.tensor(xs * (k + 1)), torch.tensor([k % 3, 1])) for k in range(3)]
    for x, y in DataExecutor(DataLoader(lambda: batches), num_steps=3):
        step(x, y)
    return seen, [p.detach().cpu().numpy().copy() for p in model.parameters()]


def test_csx_replay_equals_cpu(tmp_path):
    """Off the real wafer the CPU formulas run on every backend: a captured and replayed CSX
    step gives the CPU values bit for bit (the one_hot targets change per step)."""
    cpu_seen, cpu_params = _train("CPU", tmp_path)
    csx_seen, csx_params = _train("CSX", tmp_path)
    assert len({s[0] for s in cpu_seen}) == 3
    assert csx_seen == cpu_seen
    for a, b in zip(cpu_params, csx_params):
        np.testing.assert_array_equal(a, b)


# ----- properties ---------------------------------------------------------------------------------
@st.composite
def _class_indices(draw):
    n = draw(st.integers(1, 6))
    idx = draw(hnp.arrays(np.int64, shapes(max_dims=3), elements=st.integers(0, n - 1)))
    return idx, n


@given(_class_indices())
def test_one_hot_round_trips_through_argmax(data):
    idx, n = data
    out = F.one_hot(torch.tensor(idx), n)
    assert out.dtype is torch.int32 and tuple(out.shape) == idx.shape + (n,)
    np.testing.assert_array_equal(out.argmax(-1).numpy(), idx)
    np.testing.assert_array_equal(out.sum(-1).numpy(), np.ones(idx.shape))


@st.composite
def _bias_case(draw):
    shape = draw(shapes(min_dims=2))
    dim = draw(st.integers(0, len(shape) - 1))
    fl = st.floats(-4, 4, width=32)
    x = draw(hnp.arrays(np.float32, shape, elements=fl))
    b = draw(hnp.arrays(np.float32, (shape[dim],), elements=fl))
    return x, b, dim


@given(_bias_case())
def test_bias_add_is_a_broadcast_add_along_dim(case):
    x, b, dim = case
    view = [1] * x.ndim
    view[dim] = b.size
    xt, bt = torch.tensor(x, requires_grad=True), torch.tensor(b, requires_grad=True)
    out = F.bias_add(xt, bt, dim)
    np.testing.assert_array_equal(out.detach().cpu().numpy(), x + b.reshape(view))
    out.sum().backward()
    np.testing.assert_array_equal(xt.grad.numpy(), np.ones_like(x))
    np.testing.assert_array_equal(bt.grad.numpy(),
                                  np.full(b.shape, x.size // b.size, dtype=np.float32))


@st.composite
def _order_case(draw, distinct):
    shape = draw(shapes(min_dims=1, max_dims=3))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    k = draw(st.integers(0, shape[dim]))
    if distinct:
        perm = draw(st.permutations(range(int(np.prod(shape)))))
        x = np.array(perm, dtype=np.float32).reshape(shape) * 0.5
    else:
        x = draw(hnp.arrays(np.float32, shape, elements=st.sampled_from([-1.0, 0.0, 2.0])))
    return x, k, dim


@given(_order_case(distinct=True))
def test_nth_order_statistic_agrees_with_numpy_sort(case):
    x, k, dim = case
    mask = F.nth_order_statistic(torch.tensor(x), k, dim)
    assert mask.dtype is torch.int16
    if k == 0:
        expected = np.zeros(x.shape, np.int16)
    else:
        kth = np.take(-np.sort(-x, axis=dim), [k - 1], axis=dim)  # k-th largest along dim
        expected = (x >= kth).astype(np.int16)
    np.testing.assert_array_equal(mask.numpy(), expected)


@given(_order_case(distinct=False))
def test_nth_order_statistic_with_ties_keeps_k_of_the_largest(case):
    x, k, dim = case
    m = F.nth_order_statistic(torch.tensor(x), k, dim).numpy().astype(bool)
    np.testing.assert_array_equal(m.sum(axis=dim), np.full(np.sum(m, axis=dim).shape, k))
    chosen_min = np.where(m, x, np.inf).min(axis=dim)
    other_max = np.where(m, -np.inf, x).max(axis=dim)
    assert np.all(chosen_min >= other_max)


@given(hnp.arrays(np.int64, shapes(min_dims=1, max_dims=3), elements=st.integers(0, 1)),
       st.integers(-5, 5), st.integers(-3, 3))
def test_conditional_arange_counts_the_selected_positions(mask, start, step):
    out = F.conditional_arange(torch.tensor(mask), torch.tensor(start), torch.tensor(step))
    expected = np.where(mask == 1, start + step * (np.cumsum(mask, axis=-1) - 1), -1)
    assert out.dtype is torch.int64
    np.testing.assert_array_equal(out.numpy(), expected)


@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 4), st.integers(1, 3),
       st.integers(1, 3), st.data())
def test_sparse_matmul_equals_the_dense_product_at_the_listed_rows(m, b, big_b, n, k, data):
    b = min(b, big_b)
    fl = st.floats(-2, 2, width=32)
    values = data.draw(hnp.arrays(np.float32, (m, b, n), elements=fl))
    weight = data.draw(hnp.arrays(np.float32, (k, big_b, n), elements=fl))
    idx = np.stack([data.draw(st.permutations(range(big_b)))[:b] for _ in range(m)])
    out = F.sparse_matmul(torch.tensor(values), torch.tensor(idx.astype(np.int64)),
                          torch.tensor(weight)).numpy()
    for i in range(m):
        for j in range(b):
            np.testing.assert_allclose(out[i, j], weight[:, idx[i, j], :] @ values[i, j],
                                       rtol=1e-5, atol=1e-5)


@given(hnp.arrays(np.float32, (3, 2, 4), elements=st.floats(-2, 2, width=32)),
       hnp.arrays(np.int64, (3, 2), elements=st.integers(0, 1)))
def test_sparse_act_matmul_zeroes_the_masked_rows(x, mask):
    w = np.arange(20, dtype=np.float32).reshape(5, 4) / 8
    out = F.sparse_act_matmul(torch.tensor(x), torch.tensor(mask), torch.tensor(w)).numpy()
    np.testing.assert_allclose(out, (x @ w.T) * mask[..., None], rtol=1e-5, atol=1e-5)
