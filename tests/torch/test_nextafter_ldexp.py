"""``nextafter`` and ``ldexp`` (function, method, in place, ``out=``) against torch 2.13: every
dtype pair's result dtype and bits (special values included), their errors, gradients and node
names; ``ldexp``'s two kernels (an exact scaling for a floating input with integer exponents, a
product with ``2.0 ** other`` otherwise)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch_cs.torch as mt
from tests.torch._sweeps import assert_same_as_torch, outcomes

_DTYPES = ("bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64")
_SPECIAL = [0.0, -0.0, 1.0, -1.5, 3.25, 1e-30, -7e5, float("inf"), -float("inf"), float("nan"),
            65504.0, 2.0 ** -24, 40.0, -150.0]


def _values(dtype, n, seed):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dtype in ("uint8", "int8", "int32", "int64"):
        lo, hi = {"uint8": (0, 40), "int8": (-40, 40)}.get(dtype, (-300, 300))
        v = rng.integers(lo, hi, n)
        if dtype == "int64":
            v[:3] = [2 ** 40, 2 ** 33 + 3, -(2 ** 35)]
        return v
    v = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n)
    v[:len(_SPECIAL)] = _SPECIAL
    return v


def _results(T):
    """name -> (dtype name, float64 values) or the error's type and first line."""
    out = {}
    for i, da in enumerate(_DTYPES):
        for j, db in enumerate(_DTYPES):
            a0, b0 = _values(da, 24, i), _values(db, 24, 100 + j)
            for name in ("nextafter", "ldexp"):
                for form in ("", "_"):
                    a = T.tensor(a0, dtype=getattr(T, da))
                    b = T.tensor(b0, dtype=getattr(T, db))
                    try:
                        r = getattr(T, name)(a, b) if not form else getattr(a, name + "_")(b)
                        out[f"{name}{form} {da} {db}"] = (str(r.dtype).split(".")[-1],
                                                          r.double().numpy())
                    except Exception as e:  # noqa: BLE001 (the error is the outcome)
                        out[f"{name}{form} {da} {db}"] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
    return out


def test_values_and_dtypes_match_torch():
    """Bit for bit, except where ldexp multiplies by ``2.0 ** other`` with a floating
    ``other``: torch's float32/float64 ``pow`` comes from its vector math library, which can be
    an ulp from numpy's (the product may then be an ulp or two apart)."""
    torch = pytest.importorskip("torch")
    want, got = _results(torch), _results(mt)
    bad = {}
    for k, w in want.items():
        g = got[k]
        if isinstance(w, str) or isinstance(g, str):
            if w != g:
                bad[k] = (w, g)
            continue
        name, da, db = k.split()
        if w[0] != g[0]:
            bad[k] = (w[0], g[0])
            continue
        pow_path = name.startswith("ldexp") and db in ("float16", "bfloat16", "float32",
                                                      "float64") and w[0] in ("float32", "float64")
        a, b = w[1], g[1]
        nan = np.isnan(a) & np.isnan(b)
        same = (a == b) & (np.signbit(a) == np.signbit(b))
        if pow_path:  # (two ulps of the power's dtype, relative to the result)
            eps = float(np.finfo(np.float32 if db != "float64" else np.float64).eps)
            with np.errstate(invalid="ignore"):
                same |= np.abs(a - b) <= 2 * eps * np.abs(a)
        same |= nan
        if not same.all():
            bad[k] = (a[~same].tolist(), b[~same].tolist())
    assert not bad, bad


def _errors(T):
    f, i = T.ones(2, 3), T.ones(3, dtype=T.int64)
    calls = {
        "nextafter number": lambda: T.nextafter(f, 2.0),
        "nextafter number self": lambda: T.nextafter(2.0, f),
        "nextafter method number": lambda: f.nextafter(1),
        "nextafter_ number": lambda: f.nextafter_(1.0),
        "nextafter broadcast": lambda: T.nextafter(f, T.ones(4)),
        "nextafter_ grows": lambda: T.ones(3).nextafter_(f),
        "nextafter out int": lambda: T.nextafter(f, f, out=T.empty(2, 3, dtype=T.int64)),
        "nextafter out f64": lambda: T.nextafter(f, f, out=T.empty(2, 3, dtype=T.float64)),
        "nextafter out int inputs": lambda: T.nextafter(i, i, out=T.empty(3, dtype=T.int64)),
        "ldexp number": lambda: T.ldexp(f, 3),
        "ldexp number self": lambda: T.ldexp(3.0, i),
        "ldexp_ number": lambda: f.ldexp_(2),
        "ldexp broadcast": lambda: T.ldexp(f, T.ones(4)),
        "ldexp out int": lambda: T.ldexp(f, i, out=T.empty(2, 3, dtype=T.int64)),
        "ldexp out f16": lambda: T.ldexp(f, i, out=T.empty(2, 3, dtype=T.float16)),
        "ldexp out same": lambda: T.ldexp(f, i, out=T.empty(2, 3)),
        "ldexp out int inputs": lambda: T.ldexp(i, i, out=T.empty(3)),
        "ldexp_ int": lambda: i.clone().ldexp_(i),
        "ldexp_ grows": lambda: T.ones(3).ldexp_(T.ones(2, 3, dtype=T.int64)),
        "ldexp bool exponent": lambda: T.ldexp(f, T.ones(3, dtype=T.bool)),
        "ldexp out requires grad": lambda: T.ldexp(f.requires_grad_(), i, out=T.empty(2, 3)),
    }
    return outcomes(calls)


def test_errors_match_torch():
    # (known: torch 2.13 fails an internal assertion of its loop for an out= of another
    # floating dtype than the product's; ours casts into it)
    assert_same_as_torch(_errors, mt, known={"ldexp out f16"})


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_gradients_and_node_names_match_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x0, e0 = rng.standard_normal((3, 4)) * 3, rng.standard_normal(4) * 4
    n0, g0 = rng.integers(-20, 20, (3, 4)), rng.standard_normal((3, 4))
    got = []
    for T in (torch, mt):
        dt = getattr(T, dtype)
        x = T.tensor(x0, dtype=dt, requires_grad=True)
        e = T.tensor(e0, dtype=dt, requires_grad=True)
        g = T.tensor(g0, dtype=dt)
        y1, y2 = T.ldexp(x, e), T.ldexp(x, T.tensor(n0))
        y3 = T.nextafter(x, e)
        names = [type(y.grad_fn).__name__ if T is torch else y.grad_fn.name()
                 for y in (y1, y2, y3)]
        grads = T.autograd.grad((y1 * g).sum() + (y2 * g).sum() + (y3 * g).sum(), (x, e))
        got.append((names, [a.detach().float().numpy().tolist() for a in (y1, y2, y3) + tuple(grads)]))
    assert got[0][0] == got[1][0]
    if dtype == "float32":  # (torch's float32 pow can be an ulp from numpy's)
        for w, g in zip(got[0][1], got[1][1]):
            np.testing.assert_allclose(g, w, rtol=4e-7, atol=0)
    else:
        assert got[0][1] == got[1][1]


def test_ldexp_second_derivative_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    x0, e0 = rng.standard_normal(5), rng.standard_normal(5) * 2
    got = []
    for T in (torch, mt):
        x = T.tensor(x0, requires_grad=True)
        e = T.tensor(e0, requires_grad=True)
        gx, ge = T.autograd.grad(T.ldexp(x, e).sum(), (x, e), create_graph=True)
        hx, he = T.autograd.grad((gx * ge).sum(), (x, e))
        got.append([t.tolist() for t in (gx, ge, hx, he)])
    np.testing.assert_allclose(np.array(got[1]), np.array(got[0]), rtol=1e-15, atol=0)


def test_known_values():
    # exact scaling for integer exponents (the exponent a C int: 2**33 + 3 acts as 3)
    y = mt.ldexp(mt.tensor([2.0 ** 100]), mt.tensor([-160]))
    assert y.item() == 2.0 ** -60
    assert mt.ldexp(mt.tensor([1.0], dtype=mt.float64), mt.tensor([2 ** 33 + 3])).item() == 8.0
    # otherwise a product with 2.0 ** other in float32: 2 ** -160 is 0 there
    assert mt.ldexp(mt.tensor([2.0 ** 100]), mt.tensor([-160.0])).item() == 0.0
    assert mt.ldexp(mt.tensor([3]), mt.tensor([2])).dtype is mt.float32
    assert mt.ldexp(mt.tensor([3.0], dtype=mt.float16), mt.tensor([2])).dtype is mt.float16
    assert mt.nextafter(mt.tensor([1.0]), mt.tensor([2.0])).item() == 1.0 + 2.0 ** -23
    assert mt.nextafter(mt.tensor([0.0], dtype=mt.float64),
                        mt.tensor([-1.0], dtype=mt.float64)).item() == -5e-324
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    e = mt.tensor([1.0, -1.0], requires_grad=True)
    mt.ldexp(x, e).sum().backward()
    assert x.grad.tolist() == [2.0, 0.5]
    assert np.allclose(e.grad.tolist(), [math.log(2) * 2, math.log(2) * 1.0], rtol=1e-6)
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    b = mt.tensor([2.0, 0.0], requires_grad=True)
    mt.nextafter(a, b).sum().backward()
    assert a.grad.tolist() == [1.0, 1.0] and b.grad.tolist() == [0.0, 0.0]
    # torch's convention: no gradient where the operands are equal, whatever arrives
    a = mt.tensor([1.0, 1.0, 1.0], requires_grad=True)
    mt.nextafter(a, mt.tensor([1.0, 1.0, 2.0])).backward(mt.tensor([float("inf"), -3.0, 5.0]))
    assert a.grad.tolist() == [0.0, 0.0, 5.0] and not a.grad.signbit().any()
    # ldexp's input gradient with an integer exponent is an integer power: 0 below 0
    x = mt.tensor([1.5, 1.5], requires_grad=True)
    mt.ldexp(x, mt.tensor([3, -2])).backward(mt.tensor([1.0, -1.0]))
    assert x.grad.tolist() == [8.0, 0.0] and x.grad.signbit().tolist() == [False, True]
    with pytest.raises(NotImplementedError, match='"nextafter_cpu" not implemented for \'Long\''):
        mt.nextafter(mt.tensor([1]), mt.tensor([2]))
    with pytest.raises(RuntimeError, match="ldexp can't be cast to the desired output type Long"):
        mt.tensor([1]).ldexp_(mt.tensor([2]))


def test_result_layouts_match_torch():
    """ldexp's result layout, as measured on torch 2.13: the exact path's is the input's (its
    loop over both operands when they broadcast beyond the input); the product path's is its
    loop over the input and a C-ordered power for a float32 or integer input, over the input
    and ``other`` for a float64 or half one. 400 random layouts and dtype pairs."""
    import warnings
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    bad = []
    for _ in range(400):
        da, db = rng.choice(_DTYPES), rng.choice(_DTYPES)
        nd = int(rng.integers(2, 5))
        shape = tuple(int(v) for v in rng.integers(1, 4, nd))
        perm = tuple(int(v) for v in rng.permutation(nd))
        sa = tuple(1 if rng.random() < 0.4 else n for n in shape)[int(rng.integers(0, nd)):]
        got = []
        for T in (torch, mt):
            a = T.ones(sa, dtype=getattr(T, da))
            b = T.ones(tuple(shape[i] for i in np.argsort(perm)),
                       dtype=getattr(T, db)).permute(*perm)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    got.append(T.ldexp(a, b).stride())
                except Exception as e:  # noqa: BLE001 (the error is the outcome)
                    got.append(type(e).__name__)
        if got[0] != got[1]:
            bad.append((da, db, sa, shape, perm, got))
    assert not bad, bad[:5]


def test_nextafter_of_equal_values_is_other():
    a = mt.tensor([-0.0, 0.0, -5.9604645e-08], dtype=mt.float16)
    b = mt.tensor([0.0, -0.0, 0.0], dtype=mt.float16)
    r = mt.nextafter(a, b)
    assert r.signbit().tolist() == [False, True, True]  # (the last steps toward 0: -0.0)
    assert a.clone().nextafter_(b).signbit().tolist() == [False, True, True]


def test_exact_path_warns_as_torch_when_the_input_broadcasts():
    # torch's exact kernel writes into a result made in the input's shape and resizes it
    import warnings
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mt.ldexp(mt.ones(3), mt.ones(2, 3, dtype=mt.int64))
        mt.ldexp(mt.ones(3), mt.ones(2, 3))  # (the product path does not)
    assert len(w) == 1 and "was resized since it had shape [3]" in str(w[0].message)


def test_nextafter_gradient_compares_in_the_result_dtype():
    # float16 input, 0-d float32 other: equal once the other is read as float16, so no gradient
    x = mt.tensor([[-1.2, -0.07]], requires_grad=True)
    x[:, :1].to(mt.float16).nextafter(x[0, 0]).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0]]
