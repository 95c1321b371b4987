"""``linspace`` and ``arange`` bit for bit against torch 2.13's CPU kernel: random ends (either order, small
and large), 0 to 300 points, every dtype; torch's Scalar conversion of the ends (an integer
dtype truncates and wraps, an out-of-range end is refused, only as many ends as points are
converted)."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs.torch as mt

DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "int8")


def _run(T, a, b, n, dt):
    try:
        return T.linspace(a, b, n, dtype=getattr(T, dt)).double().numpy()
    except Exception as e:  # noqa: BLE001 (the error is the outcome)
        return f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("dt", DTYPES)
def test_linspace_matches_torch_bit_for_bit(dt):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(DTYPES.index(dt))
    diffs = []
    for trial in range(150):
        a, b = sorted(rng.uniform(-10, 10, 2) if trial % 3 else rng.uniform(-1e3, 1e3, 2))
        if dt == "uint8":
            a, b = abs(a), abs(b)
        if trial % 5 == 0:
            a, b = b, a
        n = int(rng.integers(0, 300))
        want, got = _run(torch, a, b, n, dt), _run(mt, a, b, n, dt)
        same = type(want) is type(got) and (want == got if isinstance(want, str) else
                                            np.array_equal(want, got, equal_nan=True))
        if not same:
            diffs.append((a, b, n))
    assert not diffs, diffs[:5]


def test_linspace_pinned():
    # float32: each point one fused multiply-add from the nearer end
    x = mt.linspace(-3.0, 2.0, 8)
    assert x[0].item() == -3.0 and x[-1].item() == 2.0
    assert mt.linspace(-1, 5, 3, dtype=mt.uint8).tolist() == [255, 130, 5]
    assert mt.linspace(-3.7, 4.2, 6, dtype=mt.int64).tolist() == [-3, -1, 0, 1, 2, 4]
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t"):
        mt.linspace(300, 1, 2, dtype=mt.uint8)
    assert mt.linspace(300, 1, 0, dtype=mt.uint8).tolist() == []  # (no point: no conversion)


ARANGE_DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32")


@pytest.mark.parametrize("dt", ARANGE_DTYPES)
def test_arange_matches_torch_bit_for_bit(dt):
    """Floating ``arange`` as torch's kernel writes it (chunks of a vector width from a rounded
    first point; see ``_creation._float_arange``)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(10 + ARANGE_DTYPES.index(dt))
    diffs = []
    for trial in range(150):
        a = float(np.round(rng.uniform(-10, 10), int(rng.integers(0, 4))))
        step = float(np.round(rng.uniform(0.05, 2), int(rng.integers(1, 4)))) * \
            (1 if trial % 4 else -1)
        if dt.startswith("int"):  # (a step that truncates to 0 is refused)
            step = float(np.sign(step) * rng.integers(1, 4))
        n = int(rng.integers(1, 300))
        b = a + step * n * (0.97 if trial % 2 else 1.0)
        want, got = (T.arange(a, b, step, dtype=getattr(T, dt)).double().numpy()
                     for T in (torch, mt))
        if not np.array_equal(want, got):
            diffs.append((a, b, step))
    assert not diffs, diffs[:5]


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_logspace_matches_torch_bit_for_bit(dt):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(20 + (dt == "float64"))
    diffs = []
    for trial in range(150):
        a, b = sorted(rng.uniform(-3, 3, 2))
        if trial % 5 == 0:
            a, b = b, a
        n, base = int(rng.integers(0, 120)), (10.0, 2.0, 3.5)[trial % 3]
        want, got = (T.logspace(a, b, n, base, dtype=getattr(T, dt)).double().numpy()
                     for T in (torch, mt))
        if not np.array_equal(want, got):
            diffs.append((a, b, n, base))
    assert not diffs, diffs[:5]
