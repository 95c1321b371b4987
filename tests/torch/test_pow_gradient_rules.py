"""pow's gradient as torch's formula computes it, ``grad * (exponent * self.pow(exponent - 1))``:
each op in the result dtype (a wider 0-d exponent is converted first) and the doubling of
``x ** 2`` before the product with the gradient (so half precision does not overflow early)."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs.torch as T


def _base_grad(lib, base, base_dtype, exponent, exp_dtype):
    x = lib.tensor(base, dtype=getattr(lib, base_dtype)).requires_grad_()
    e = lib.tensor(exponent, dtype=getattr(lib, exp_dtype))
    (x ** e).sum().backward()
    return x.grad.float().numpy()


def test_a_wider_0d_exponent_is_converted_to_the_result_dtype():
    # 201.7 - 1 in bfloat16 is 201: an odd power of a negative base, finite and negative
    g = _base_grad(T, [-1.1015625], "bfloat16", 201.71563720703125, "float32")
    assert np.isfinite(g).all() and (g < 0).all()


def test_half_square_gradient_doubles_first():
    x = T.tensor([0.0332], dtype=T.float16).requires_grad_()
    (x ** 2).backward(T.tensor([64400.0], dtype=T.float16))
    assert np.isfinite(x.grad.float().numpy()).all()


@pytest.mark.parametrize("base_dtype,exp_dtype", [("bfloat16", "float32"), ("float16", "float64"),
                                                  ("float32", "float64"), ("bfloat16", "float16")])
def test_matches_torch(base_dtype, exp_dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    for _ in range(20):
        base = (rng.standard_normal(4) * 2).tolist()
        exponent = float(rng.standard_normal() * 3 + rng.integers(0, 200))
        a = _base_grad(T, base, base_dtype, exponent, exp_dtype)
        b = _base_grad(torch, base, base_dtype, exponent, exp_dtype)
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        np.testing.assert_allclose(a[np.isfinite(b)], b[np.isfinite(b)], rtol=2e-2)
