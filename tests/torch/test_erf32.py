"""The float32 erf kernel: within 1 ulp of the correctly rounded erf everywhere, the special
values right, and every float32 erf of the package (op, GELU and its backward) going through it."""
import numpy as np
import pytest
from scipy import special

import minitorch_cs.torch as torch
from minitorch_cs.torch._kernels import erf32


def _ulps(got, x):
    """|got - erf(x)| in units of the last place of the correctly rounded float32 erf(x)."""
    exact = special.erf(x.astype(np.float64))
    rounded = exact.astype(np.float32)
    return np.abs(got.astype(np.float64) - exact) / np.spacing(np.abs(rounded)).astype(np.float64)


def _samples():
    rng = np.random.default_rng(7)
    return {
        "normal": rng.standard_normal(1 << 20).astype(np.float32),
        "uniform[-5, 5]": rng.uniform(-5, 5, 1 << 20).astype(np.float32),
        "log-spaced magnitudes": np.logspace(-45, 1.2, 1 << 20).astype(np.float32),
        # every float32 next to the pieces' boundaries (1, 2.2) and the clamp (4)
        "boundaries": np.concatenate([
            np.arange(-2000, 2000, dtype=np.int32) + np.float32(b).view(np.int32)
            for b in (1.0, 2.2, 3.9, 4.0)]).view(np.float32),
        # random bit patterns: every exponent, both signs (NaNs dropped; checked below)
        "bit patterns": rng.integers(0, 2 ** 32, 1 << 20, dtype=np.uint64).astype(
            np.uint32).view(np.float32),
    }


@pytest.mark.parametrize("name", list(_samples()))
def test_within_one_ulp(name):
    x = _samples()[name]
    x = x[np.isfinite(x)]
    got = erf32.erf(x)
    assert got.dtype == np.float32 and got.shape == x.shape
    err = _ulps(got, x)
    # the exact value lies within 1 ulp (of the rounded value) of ours: ours is either the
    # correctly rounded float32 or its neighbour
    assert err.max() < 1.5, (name, float(err.max()), x[np.argmax(err)])
    rounded = special.erf(x.astype(np.float64)).astype(np.float32)
    apart = np.abs(got.view(np.int32).astype(np.int64) - rounded.view(np.int32))
    assert apart.max() <= 1


def test_special_values_and_shapes():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-38, 10.0, -10.0], np.float32)
    r = erf32.erf(x)
    assert np.array_equal(np.signbit(r[:2]), [False, True]) and (r[:2] == 0).all()
    assert r[2] == 1 and r[3] == -1 and np.isnan(r[4])
    assert r[7] == 1 and r[8] == -1
    assert np.array_equal(r[5:7], special.erf(x[5:7].astype(np.float64)).astype(np.float32))
    # any shape, strides and out=
    m = np.linspace(-3, 3, 24, dtype=np.float32).reshape(4, 6)[:, ::2]
    assert np.array_equal(erf32.erf(m), erf32.erf(m.copy()))
    out = np.empty(m.shape, np.float32)
    assert erf32.erf(m, out=out) is out and np.array_equal(out, erf32.erf(m))
    assert erf32.erf(np.float32(0.5)).shape == ()


def test_every_float32_erf_goes_through_the_kernel():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((8, 16)).astype(np.float32) * 2
    t = torch.from_numpy(a)
    assert np.array_equal(torch.erf(t).numpy(), erf32.erf(a))
    s = a * np.float32(0.7071067811865476)
    g = torch.nn.functional.gelu(t).numpy()
    assert np.array_equal(g, (np.float32(0.5) * a * (np.float32(1.0) + erf32.erf(s))))
    # float64 keeps scipy's double-precision erf
    d = torch.from_numpy(a.astype(np.float64))
    assert np.array_equal(torch.erf(d).numpy(), special.erf(a.astype(np.float64)))


def test_gelu_backward_first_and_second_order_agree():
    """The first-order backward reads the forward's erf; a graph-recording backward computes it
    again through the erf op: the same kernel, so the same gradient to the bit."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal(64).astype(np.float32) * 2
    x1 = torch.tensor(a, requires_grad=True)
    torch.nn.functional.gelu(x1).sum().backward()
    x2 = torch.tensor(a, requires_grad=True)
    (g2,) = torch.autograd.grad(torch.nn.functional.gelu(x2).sum(), x2, create_graph=True)
    assert np.array_equal(x1.grad.numpy(), g2.detach().numpy())
