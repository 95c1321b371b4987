"""The differential tester itself: reproducible programs, the comparison's categories, the
noise filter, and a minimizer that turns a planted bug into a short runnable repro."""
from __future__ import annotations

import numpy as np
import pytest

from tests.differential.compare import Snap, compare_snaps, snap

torch = pytest.importorskip("torch")

from minitorch_cs import torch as mt  # noqa: E402
from tests.differential.expected import documented  # noqa: E402
from tests.differential.minimize import minimize, repro  # noqa: E402
from tests.differential.program import generate, run_program  # noqa: E402


def _tensor_snap(values, dtype="float32", strides=None):
    v = np.asarray(values, dtype=np.float64)
    return Snap("tensor", v, dtype, v.shape, strides or tuple(range(v.ndim)), False, True, True)


def test_programs_are_a_function_of_seed_and_index():
    a, b = generate(3, 17, torch), generate(3, 17, torch)
    assert repr(a.steps) == repr(b.steps)
    assert all(np.array_equal(x.values, y.values, equal_nan=True)
               for x, y in zip(a.leaves, b.leaves))
    assert repr(generate(3, 18, torch).steps) != repr(a.steps)


def test_compare_categories():
    x = _tensor_snap([1.0, 2.0])
    assert compare_snaps(x, x) is None
    assert compare_snaps(x, _tensor_snap([1.0, 2.1]))[0] == "value"
    assert compare_snaps(x, _tensor_snap([1.0, np.nan]))[0] == "nan-pattern"
    assert compare_snaps(x, _tensor_snap([1.0, 2.0], "float64"))[0] == "dtype"
    assert compare_snaps(x, _tensor_snap([1.0, 2.0, 3.0]))[0] == "shape"
    assert compare_snaps(x, _tensor_snap([1.0, 2.0 + 1e-7])) is None  # one float32 rounding
    assert compare_snaps(_tensor_snap([np.inf]), _tensor_snap([-np.inf]))[0] == "nan-pattern"
    # a cancellation: the tolerance follows the inputs' magnitude, not the result's
    assert compare_snaps(_tensor_snap([1e-7]), _tensor_snap([2e-7]), scale=1.0) is None


def test_snapshots_read_both_libraries_alike():
    for T in (torch, mt):
        s = snap(T.arange(6, dtype=T.float32).reshape(2, 3).t())
        assert (s.dtype, s.shape, s.strides, s.contiguous) == ("float32", (3, 2), (1, 3), False)
        assert s.value.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


def test_a_planted_bug_is_found_minimized_and_reproduced(monkeypatch):
    """``exp`` made wrong by 1%: some program of seed 0 shows it; the minimized repro is a few
    lines and prints different numbers for the two libraries."""
    real_exp = mt.exp

    def bad_exp(input, *, out=None):
        return real_exp(input) * 1.01

    monkeypatch.setattr(mt, "exp", bad_exp)
    for i in range(400):
        prog = generate(0, i, torch)
        if not any(s.row == "exp" and s.form == "call" for s in prog.steps):
            continue
        run = run_program(prog, torch, accept=documented)
        hits = [m for m in run.mismatches if not m.noise and not m.documented
                and m.category in ("value", "nan-pattern") and m.op.startswith("exp ")]
        if hits:
            break
    else:
        pytest.fail("no program of seed 0 exercised the planted bug")
    small, srun = minimize(prog, hits[0], torch)
    assert srun is not None and len(small.steps) <= 3
    text = repro(srun, hits[0])
    assert "T.exp(" in text and len(text.splitlines()) < 30
    scope = {}
    exec(compile(text.replace("for T in (torch, mt):", "for T in ():"), "<repro>", "exec"), scope)
    got = scope["program"](mt)
    want = scope["program"](torch)
    assert not np.allclose(np.asarray(got.detach().float()), np.asarray(want.detach().float()))


def test_bitwise_sweep_counts_differing_elements_and_passes_exact_rows():
    """The bit-for-bit sweep (``python -m tests.differential.bitwise``): ``neg`` is exact in
    every dtype on both libraries, and a planted one-ulp change to a row is counted."""
    import dataclasses

    from tests.differential.bitwise import _count, sweep
    from tests.torch.test_ops_table import ROWS
    neg = next(r for r in ROWS if r.name == "neg")
    assert sweep([neg], ["float64", "float16", "bfloat16"], 3) == {}

    def nudged(T, x):  # ours about one ulp off torch's
        return -x if T is torch else -x * (1 + 2.0 ** -52)
    planted = dataclasses.replace(neg, name="neg_nudged", call=nudged)
    found = sweep([planted], ["float64"], 2)
    # (counted in the outputs, or -- when the drawn inputs are zeros, which the nudge leaves
    # as they are -- in the gradients)
    assert found and sum(found[("neg_nudged", "float64")][:2]) > 0
    assert _count(np.array([1.0, np.nan]), np.array([1.0, np.nan])) == 0
    assert _count(np.array([1.0, 2.0]), np.array([1.0, 2.5])) == 1
