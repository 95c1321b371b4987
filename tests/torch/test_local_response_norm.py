"""``local_response_norm`` and ``nn.LocalResponseNorm``: torch 2.13's composition (squares
averaged over a zero-padded window of neighbouring channels, ``input / (k + alpha * mean) **
beta``), its errors, and its values and gradients against torch to within float rounding."""
from __future__ import annotations

import numpy as np
import pytest

import minitorch_cs.torch as mt

CASES = [((2, 5, 7), 3, "float32"), ((1, 6, 4, 4), 5, "float32"), ((2, 4, 3, 2, 2), 2, "float64"),
         ((1, 3, 5), 4, "float64"), ((2, 8, 3, 3), 5, "float32"), ((1, 3, 5), 2, "float16")]


@pytest.mark.parametrize("shape, size, dtype", CASES)
def test_values_and_gradients_match_torch(shape, size, dtype):
    torch = pytest.importorskip("torch")
    x0 = np.random.default_rng(5).standard_normal(shape) * 3
    got = []
    for T in (torch, mt):
        x = T.tensor(x0).to(getattr(T, dtype)).requires_grad_()
        y = T.nn.LocalResponseNorm(size, alpha=0.03, beta=0.75, k=2.0)(x)
        y.backward(T.ones_like(y))
        got.append((y.detach().double().numpy(), x.grad.double().numpy(), y.dtype))
    (y_t, g_t, dt_t), (y_m, g_m, dt_m) = got
    assert str(dt_t) == str(dt_m)
    rtol = {"float64": 1e-14, "float32": 1e-6, "float16": 1e-3}[dtype]
    np.testing.assert_allclose(y_m, y_t, rtol=rtol, atol=0)
    np.testing.assert_allclose(g_m, g_t, rtol=rtol * 4, atol=rtol)


def test_the_window_is_zero_padded_over_channels():
    x = mt.tensor([[[1.0], [2.0], [3.0]]], dtype=mt.float64)  # (N, C, L) = (1, 3, 1)
    y = mt.nn.functional.local_response_norm(x, 2, alpha=1.0, beta=1.0, k=1.0)
    # size 2: channel c averages the squares of channels c-1 and c (zero before the first)
    want = [1 / (1 + (0 + 1) / 2), 2 / (1 + (1 + 4) / 2), 3 / (1 + (4 + 9) / 2)]
    assert np.allclose(y.reshape(-1).tolist(), want, rtol=1e-15)


def test_errors_and_empty_inputs():
    with pytest.raises(ValueError, match=r"Expected 3D or higher dimensionality\s+input "
                                         r"\(got 2 dimensions\)"):
        mt.nn.functional.local_response_norm(mt.ones(2, 3), 2)
    with pytest.raises(NotImplementedError, match="avg_pool3d_out_frame"):
        mt.nn.functional.local_response_norm(mt.ones(1, 2, 2, 2, dtype=mt.float16), 2)
    empty = mt.ones(0, 3, 2)
    assert mt.nn.functional.local_response_norm(empty, 2) is empty
    assert repr(mt.nn.LocalResponseNorm(2)) == "LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)"
