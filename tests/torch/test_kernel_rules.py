"""Fast kernels that must give exactly the values of the plain rule they replace (eager and the
replay plan share them): relu's bit-mask gradient select and the transposed linear forward."""
import numpy as np
import pytest

from minitorch_cs.torch._ops.elementwise import relu_grad
from minitorch_cs.torch._ops.linalg import _matmul, wide_product

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 3.0, -3.0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_relu_grad_is_the_select_bit_for_bit(dtype, layout):
    rng = np.random.default_rng(0)
    y = np.maximum(rng.standard_normal((7, 9)), 0).astype(dtype)
    g = rng.standard_normal((7, 9)).astype(dtype)
    y.flat[:len(SPECIAL)] = np.maximum(np.array(SPECIAL), 0)  # (NaN stays NaN: passes g)
    y.flat[0] = np.nan
    g.flat[-len(SPECIAL):] = SPECIAL
    if layout == "F":
        y, g = np.asfortranarray(y), np.asfortranarray(g)
    elif layout == "strided":
        y, g = y[:, ::2], g[:, ::2]
    want = np.where(y <= 0, np.zeros((), dtype), g)
    got = relu_grad(y, g)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    out = np.full(want.shape, 7, dtype)
    assert relu_grad(y, g, out) is out and out.tobytes() == want.tobytes()


@pytest.mark.parametrize("m,k,n", [(4, 256, 256), (8, 784, 256), (32, 784, 256), (16, 64, 4096)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_wide_linear_forward_keeps_the_products_values_and_layout(m, k, n, dtype):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((m, k)).astype(dtype)
    w = rng.standard_normal((n, k)).astype(dtype)
    assert wide_product(x, w.T)
    y = _matmul(x, w.T)
    assert y.flags.c_contiguous and y.shape == (m, n) and y.dtype == dtype
    # each entry is one dot product of the same operands: equal to numpy's own orientation up
    # to the BLAS kernel's summation (equal here on OpenBLAS; never further than rounding)
    np.testing.assert_allclose(y, x @ w.T, rtol=1e-5 if dtype == np.float32 else 1e-12,
                               atol=1e-4 if dtype == np.float32 else 1e-10)


def test_wide_rule_leaves_other_products_alone():
    x = np.ones((8, 784), np.float32)
    w = np.ones((256, 784), np.float32)
    assert not wide_product(x[:3], w.T)  # fewer than 4 rows (BLAS's vector path)
    assert not wide_product(x, np.ascontiguousarray(w.T))  # no transposed weight
    assert not wide_product(x.astype(np.float16), w.T.astype(np.float16))
    assert not wide_product(np.ones((128, 784), np.float32), w.T)  # 4 * 128 > 256 columns
    assert not wide_product(np.ones((8, 16), np.float32), np.ones((256, 16), np.float32).T)
