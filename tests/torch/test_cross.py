"""torch.linalg.cross / torch.cross / Tensor.cross against torch 2.13: values bit for bit in every
dtype (float32's fused multiply-add), broadcasting, gradients, the deprecated default dim and
torch's errors in its order."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_cs.torch as mt
from tests.helpers import outcome


def _outcomes(T):
    out = []
    a = T.tensor([[1., 2, 3], [4, 5, 6]], dtype=T.float64, requires_grad=True)
    b = T.tensor([[0., 1, 0], [1, 1, 1]], dtype=T.float64, requires_grad=True)
    c = T.linalg.cross(a, b)
    (c * T.tensor([[1., 2, 3], [-1, 0.5, 2]], dtype=T.float64)).sum().backward()
    out.append((c.tolist(), c.grad_fn.name(), a.grad.tolist(), b.grad.tolist()))
    out.append(T.cross(a, b, dim=1).grad_fn.name())
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out.append((T.cross(a, b).tolist(), [str(w.message)[:60] for w in seen]))
    rng = np.random.default_rng(0)
    for dt in ("float32", "float64", "float16", "bfloat16", "int8", "int64"):
        x = (rng.standard_normal((40, 3)) * 60).astype(np.float32)
        y = (rng.standard_normal((1, 3)) * 60).astype(np.float32)
        r = T.linalg.cross(T.tensor(x).to(getattr(T, dt)), T.tensor(y).to(getattr(T, dt)))
        out.append((str(r.dtype), r.double().numpy().tobytes()))
    for f in (lambda: T.linalg.cross(T.ones(2, 3), T.ones(3)),
              lambda: T.linalg.cross(T.ones(2, 2), T.ones(2, 2)),
              lambda: T.linalg.cross(T.ones(3, 2), T.ones(3, 2), dim=0).shape,
              lambda: T.linalg.cross(T.ones(3), T.ones(3, dtype=T.float64)),
              lambda: T.linalg.cross(T.ones(3, dtype=T.bool), T.ones(3, dtype=T.bool)),
              lambda: T.cross(T.ones(2, 2), T.ones(2, 2)),
              lambda: T.linalg.cross(T.ones(3), T.ones(3), dim=1),
              lambda: T.ones(3).cross(T.ones(3)).tolist(),
              lambda: T.linalg.cross(T.ones(4, 3), T.ones(2, 1, 3)),
              lambda: T.linalg.cross(T.ones(2, 3), T.ones(4, 3)),
              lambda: T.linalg.cross(T.ones(2, 3, dtype=T.bool), T.ones(2, 3, dtype=T.int64)),
              lambda: T.linalg.cross(T.ones(3), 3), lambda: T.cross(T.ones(2, 4), T.ones(2, 4)),
              lambda: T.linalg.cross(T.ones(2, 2), T.ones(2, 2, dtype=T.float64))):
        out.append(outcome(f, str, message=True))
    return out


def test_cross_as_torch():
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _outcomes(mt) == _outcomes(torch)


def test_cross_is_the_cross_product():
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    np.testing.assert_allclose(mt.linalg.cross(mt.tensor(x), mt.tensor(y)).numpy(),
                               np.cross(x, y), rtol=1e-15)
    e = mt.eye(3)
    assert mt.linalg.cross(e[0], e[1]).tolist() == [0.0, 0.0, 1.0]


def test_fma64_rounds_once():
    """The float64 fused multiply-add that cross uses: one rounding of the exact ``a*b + c``,
    checked against exact rational arithmetic, near cancellation too."""
    from fractions import Fraction
    from minitorch_cs.torch._kernels.moments import fma64
    rng = np.random.default_rng(11)
    n = 4000
    a = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
    b = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
    c = -(a * b) * (1 + rng.standard_normal(n) * 10.0 ** rng.integers(-17, 0, n))
    c[::4] = rng.standard_normal(n)[::4]
    exact = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)]
    assert np.array_equal(fma64(a, b, c), np.array(exact))
    special = fma64(np.array([np.inf, 1e300, np.nan]), np.array([1.0, 1e10, 1.0]),
                    np.array([1.0, 1.0, 0.0]))
    assert np.isinf(special[0]) and np.isinf(special[1]) and np.isnan(special[2])


def test_fma64_zero_signs():
    """A zero result carries IEEE's sign of the fused operation: the exact product's signed
    zero plus a signed zero (-0 + -0 is -0), and +0 for an exact cancellation."""
    import math
    from fractions import Fraction
    from minitorch_cs.torch._kernels.moments import fma64
    vals = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 1e-300, -1e-300]
    a, b, c = (np.array(v) for v in zip(*[(x, y, z) for x in vals for y in vals for z in vals]))
    got = fma64(a, b, c)
    for x, y, z, r in zip(a, b, c, got):
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        if exact != 0:
            assert r == float(exact)
            continue
        product_sign = math.copysign(1, x) * math.copysign(1, y)
        both_negative = (x * y == 0 and product_sign < 0 and math.copysign(1, z) < 0)
        assert r == 0 and math.copysign(1, r) == (-1 if both_negative else 1), (x, y, z, r)


def test_float64_cross_of_equal_rows_keeps_the_products_rounding_error():
    """torch's float64 kernel fuses ``a1*b2`` into the difference: the cross product of a row
    with itself is the first product's rounding error, not 0."""
    import minitorch_cs.torch as T
    a = T.full((1, 3), 0.891, dtype=T.float64)
    r = T.linalg.cross(a, a).numpy()
    p = 0.891 * 0.891
    from fractions import Fraction
    want = float(Fraction(0.891) * Fraction(0.891) - Fraction(p))
    assert want != 0 and np.array_equal(r, np.full((1, 3), want))
