"""Differential sweep of the elementwise ops added with ``_ops/pointwise_extra.py``:
``logaddexp``, ``logaddexp2``, ``fmax``, ``fmin``, ``copysign``, ``heaviside``, ``frac``,
``deg2rad``, ``rad2deg``, ``erfc``, ``signbit``, ``isposinf`` and ``isneginf`` -- functions,
methods, in-place forms and ``out=`` -- and the activations ``hardshrink``, ``softshrink`` and
``prelu`` (with their modules).

Every call runs in both namespaces over every dtype pair (bool, uint8, int32, int64, float16,
bfloat16, float32, float64), with values that hold the special cases (signed zeros, both
infinities, NaN, ties): the same exception type and message, or the same dtype, shape and
values -- bit for bit, the sign of a zero included, except where the result goes through a
transcendental function (``exp``/``log1p``/``erfc``), which numpy and torch's SLEEF kernels may
round an ulp apart in float32/float64 (SPEC: "Added pointwise functions"). The gradients of
the differentiable ones are compared on float64 and the half dtypes, and their node names.
Without torch the numpy-reference checks at the end still run.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from minitorch_cs import torch as mt

DTYPES = ("bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64")
SPECIAL = [-0.0, 0.0, 1.0, -1.0, 2.5, -2.5, np.inf, -np.inf, np.nan, 3.0, 0.5, -7.25]
UNARY = ("frac", "deg2rad", "rad2deg", "erfc", "signbit", "isposinf", "isneginf")
BINARY = ("logaddexp", "logaddexp2", "fmax", "fmin", "copysign", "heaviside")
# results that go through exp/log1p/erfc: an ulp apart from torch's SLEEF in float32/float64
TRANSCENDENTAL = {"logaddexp", "logaddexp2", "erfc"}


def _values(dtype, n=12, shift=0):
    vals = np.roll(np.array(SPECIAL, np.float64), shift)[:n]
    if dtype == "bool":
        return vals != 0
    if dtype in ("uint8", "int32", "int64"):
        return np.nan_to_num(np.abs(vals) if dtype == "uint8" else vals, nan=0, posinf=9,
                             neginf=-9).astype(np.int64)
    return vals


def _make(T, vals, dtype):
    return T.tensor(vals.tolist(), dtype=getattr(T, dtype))


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 -- the exception itself is what is compared
        return "err", (type(e).__name__, str(e).split("\n")[0])


def _same_result(name, ours, theirs, dtype):
    kind, a = ours
    tkind, b = theirs
    assert kind == tkind, (name, dtype, a, b)
    if kind == "err":
        assert a == b, (name, dtype, a, b)
        return
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], (name, dtype, a.dtype,
                                                                         b.dtype)
    assert tuple(a.shape) == tuple(b.shape), (name, dtype)
    x = np.array(a.detach().double().tolist() if a.dtype != mt.bool else a.tolist(), np.float64)
    y = np.array(b.detach().double().tolist() if str(b.dtype) != "torch.bool" else b.tolist(),
                 np.float64)
    if name.split()[0] in TRANSCENDENTAL and str(b.dtype) in ("torch.float32", "torch.float64"):
        np.testing.assert_allclose(x, y, rtol=2e-15 if dtype == "float64" else 4e-7,
                                   atol=1e-300, equal_nan=True, err_msg=f"{name} {dtype}")
        return
    same = (x == y) & (np.signbit(x) == np.signbit(y)) | (np.isnan(x) & np.isnan(y))
    assert same.all(), (name, dtype, x, y)


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_function_method_inplace_and_out(torch, name, dtype):
    vals = _values(dtype)
    for form in ("function", "method", "inplace", "out_same", "out_float64", "out_bool"):
        def run(T):
            x = _make(T, vals, dtype)
            if form == "function":
                return getattr(T, name)(x)
            if form == "method":
                return getattr(x, name)()
            if form == "inplace":
                if not hasattr(x, name + "_"):
                    return None
                return getattr(x, name + "_")()
            out = T.empty(len(vals), dtype={"out_same": x.dtype, "out_float64": T.float64,
                                            "out_bool": T.bool}[form])
            r = getattr(T, name)(x, out=out)
            assert r is out
            return out
        ours, theirs = _outcome(lambda: run(mt)), _outcome(lambda: run(torch))
        if ours == ("ok", None):
            assert theirs == ("ok", None) and not hasattr(mt.Tensor, name + "_")
            continue
        _same_result(f"{name} {form}", ours, theirs, dtype)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("da, db", list(itertools.product(DTYPES, repeat=2)))
def test_binary_dtype_pairs(torch, name, da, db):
    a, b = _values(da), _values(db, shift=5)
    ours = _outcome(lambda: getattr(mt, name)(_make(mt, a, da), _make(mt, b, db)))
    theirs = _outcome(lambda: getattr(torch, name)(_make(torch, a, da), _make(torch, b, db)))
    _same_result(name, ours, theirs, da if da == db else "mixed")


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", ("float32", "float64", "float16", "bfloat16", "int64", "bool"))
def test_binary_forms_broadcasting_numbers_and_out(torch, name, dtype):
    a = _values(dtype).reshape(3, 4)
    b = _values(dtype, shift=3)[:4]
    forms = {
        "broadcast": lambda T: getattr(T, name)(_make(T, a, dtype), _make(T, b, dtype)),
        "method": lambda T: getattr(_make(T, a, dtype), name)(_make(T, b, dtype)),
        "inplace": lambda T: getattr(_make(T, a, dtype), name + "_")(_make(T, b, dtype)),
        "number": lambda T: getattr(T, name)(_make(T, a, dtype), -1.5),
        "number_first": lambda T: getattr(T, name)(2.0, _make(T, b, dtype)),
        "zero_dim": lambda T: getattr(T, name)(_make(T, a, dtype), T.tensor(-0.0)),
        "out_same": lambda T: getattr(T, name)(_make(T, a, dtype), _make(T, b, dtype),
                                               out=T.empty((3, 4), dtype=getattr(T, dtype))),
        "out_float64": lambda T: getattr(T, name)(_make(T, a, dtype), _make(T, b, dtype),
                                                  out=T.empty((3, 4), dtype=T.float64)),
        "out_int64": lambda T: getattr(T, name)(_make(T, a, dtype), _make(T, b, dtype),
                                                out=T.empty((3, 4), dtype=T.int64)),
        "bad_shape": lambda T: getattr(T, name)(_make(T, a, dtype), _make(T, b[:3], dtype)),
    }
    for form, call in forms.items():
        ours, theirs = _outcome(lambda: call(mt)), _outcome(lambda: call(torch))
        if form == "inplace" and theirs[0] == "err" and "has no attribute" in theirs[1][1]:
            assert ours[0] == "err" and ours[1][0] == "AttributeError", (name, ours)
            continue
        if form == "bad_shape" and ours[0] == theirs[0] == "err":
            assert ours[1][0] == theirs[1][0], (name, ours, theirs)
            continue
        _same_result(f"{name} {form}", ours, theirs, dtype)


GRADS = {
    "logaddexp": lambda T, a, b: T.logaddexp(a, b),
    "logaddexp2": lambda T, a, b: a.logaddexp2(b),
    "fmax": lambda T, a, b: T.fmax(a, b),
    "fmin": lambda T, a, b: T.fmin(a, b),
    "copysign": lambda T, a, b: T.copysign(a, b),
    "copysign_scalar": lambda T, a, b: T.copysign(a, -2.0) * b,
    "frac": lambda T, a, b: T.frac(a) * b,
    "deg2rad": lambda T, a, b: T.deg2rad(a) * b,
    "rad2deg": lambda T, a, b: a.rad2deg() * b,
    "erfc": lambda T, a, b: T.erfc(a) * b,
}


@pytest.mark.parametrize("name", sorted(GRADS))
@pytest.mark.parametrize("dtype", ("float64", "float16", "bfloat16", "float32"))
def test_gradients_and_node_names(torch, name, dtype):
    rng = np.random.default_rng(len(name))
    a = rng.standard_normal((3, 4)) * 2
    b = rng.standard_normal((1, 4)) * 2
    a[0, :3] = [0.0, -0.0, np.nan]  # (ties, zeros and NaN: the masks of fmax/copysign)
    b[0, 1] = a[1, 1]
    g = rng.standard_normal((3, 4))
    res = []
    for T in (mt, torch):
        ta = _make(T, a, dtype).requires_grad_()
        tb = _make(T, b, dtype).requires_grad_()
        out = GRADS[name](T, ta, tb)
        out.backward(_make(T, g, dtype))
        res.append((out, ta.grad, tb.grad, out.grad_fn.name()))
    (o1, ga1, gb1, n1), (o2, ga2, gb2, n2) = res
    if name.startswith("copysign") or name not in ("frac", "deg2rad", "rad2deg", "erfc"):
        assert n1 == n2, (n1, n2)
    _same_result(name, ("ok", o1), ("ok", o2), dtype)
    for x, y in ((ga1, ga2), (gb1, gb2)):
        assert (x is None) == (y is None), name
        if x is not None:
            # (gradients reduced over a broadcast dim are summed in another order than torch's
            # in float32/float64: compared to rounding there)
            kind = name if dtype in ("float16", "bfloat16") else "logaddexp"
            _same_result(kind, ("ok", x), ("ok", y), dtype)


@pytest.mark.parametrize("name", ["frac", "deg2rad", "rad2deg", "erfc"])
def test_unary_node_names(torch, name):
    x = [T.tensor([0.25, -1.5], requires_grad=True) for T in (mt, torch)]
    assert getattr(mt, name)(x[0]).grad_fn.name() == getattr(torch, name)(x[1]).grad_fn.name()


def test_heaviside_has_no_derivative(torch):
    for T in (mt, torch):
        x = T.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        y = T.heaviside(x, T.tensor([0.5]))
        assert y.requires_grad and y.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::heaviside is not "
                                               "implemented"):
            y.sum().backward()


SHAPE_SWEEP = ("add", "sub", "mul", "div", "fmod", "remainder", "hypot", "atan2", "xlogy",
               "logaddexp", "logaddexp2", "fmax", "fmin", "copysign", "heaviside", "maximum",
               "minimum", "pow", "float_power", "bitwise_and", "eq", "lt", "logical_and",
               "floor_divide")


@pytest.mark.parametrize("name", SHAPE_SWEEP)
@pytest.mark.parametrize("dtype", ("bool", "int64", "float16", "float32"))
def test_broadcast_error_comes_before_the_dtype_checks(torch, name, dtype):
    """torch's TensorIterator infers the broadcast shape before the kernel looks at dtypes: two
    operands that do not broadcast are a size error even for a dtype the kernel refuses."""
    res = [_outcome(lambda: getattr(T, name)(_make(T, _values(dtype, 3), dtype),
                                             _make(T, _values(dtype, 4), dtype)))
           for T in (mt, torch)]
    assert res[0][0] == res[1][0] == "err" and res[0][1] == res[1][1], (name, dtype, res)


@pytest.mark.parametrize("name", ["bitwise_and_", "bitwise_or_", "hypot_", "fmod_", "copysign_",
                                  "heaviside_", "atan2_", "remainder_"])
@pytest.mark.parametrize("dtype, other", [("float32", "int64"), ("int64", "float32"),
                                          ("bool", "bool"), ("float16", "float16")])
def test_inplace_forms_order_their_errors_as_torch(torch, name, dtype, other):
    """In place: the operands' broadcast against the target, then the dtypes (the target's
    castability, the kernel's refusal), each with torch's message."""
    for n_other in (4, 1):
        res = [_outcome(lambda: getattr(_make(T, _values(dtype, 3), dtype), name)(
            _make(T, _values(other, n_other), other))) for T in (mt, torch)]
        _same_result(name, res[0], res[1], dtype)


def test_tensor_only_arguments_name_their_position(torch):
    for T in (mt, torch):
        for call, msg in [
                (lambda: T.logaddexp(T.tensor([1.0]), 2.0),
                 "logaddexp(): argument 'other' (position 2) must be Tensor, not float"),
                (lambda: T.tensor([1.0]).fmax(2),
                 "fmax(): argument 'other' (position 1) must be Tensor, not int"),
                (lambda: T.heaviside(T.tensor([1.0]), 0.5),
                 "heaviside(): argument 'values' (position 2) must be Tensor, not float"),
                (lambda: T.copysign(T.tensor([1.0]), "x"), None)]:
            with pytest.raises(TypeError) as info:
                call()
            if msg is not None:
                assert str(info.value) == msg, (T.__name__, str(info.value))


# ----- hardshrink, softshrink, prelu --------------------------------------------------------------
SHRINK = {
    "hardshrink": lambda T, x, lam: T.nn.functional.hardshrink(x, lam),
    "Tensor.hardshrink": lambda T, x, lam: x.hardshrink(lam),
    "softshrink": lambda T, x, lam: T.nn.functional.softshrink(x, lam),
}


@pytest.mark.parametrize("name", sorted(SHRINK))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lam", [0.5, 0.0, 2.5, 0.1, -1.0, float("nan"), 7e4, 1e39])
def test_shrink_values_and_errors(torch, name, dtype, lam):
    vals = np.concatenate([_values(dtype), _values(dtype) * 0.2])
    res = [_outcome(lambda: SHRINK[name](T, _make(T, vals, dtype), lam)) for T in (mt, torch)]
    _same_result(name, res[0], res[1], dtype)


PRELU_CASES = [((2, 3, 4), (3,)), ((2, 3), (1,)), ((4,), (1,)), ((), (1,)), ((2, 3), ()),
               ((0, 3), (3,)), ((2, 3), (2,)), ((4,), (3,)), ((), (2,)), ((2, 3), (1, 3)),
               ((2, 3, 4), (3, 1))]


@pytest.mark.parametrize("xs, ws", PRELU_CASES)
@pytest.mark.parametrize("dx, dw", [("float32", "float32"), ("float64", "float64"),
                                    ("float16", "float16"), ("bfloat16", "bfloat16"),
                                    ("int64", "int64"), ("bool", "bool"),
                                    ("float32", "float64"), ("float32", "int64")])
def test_prelu_checks_values_and_gradients(torch, xs, ws, dx, dw):
    rng = np.random.default_rng(sum(xs) + len(ws))
    x = np.round(rng.standard_normal(xs) * 3, 1)
    if x.size > 2:
        x.flat[:3] = [-0.0, 0.0, np.nan]
    w = np.round(rng.uniform(-1, 1, ws), 2)
    res = []
    for T in (mt, torch):
        def run():
            tx = _make(T, x.reshape(-1), dx).reshape(xs)
            tw = _make(T, w.reshape(-1), dw).reshape(ws)
            if dx in ("float32", "float64", "float16", "bfloat16") and dx == dw:
                tx.requires_grad_()
                tw.requires_grad_()
            y = T.prelu(tx, tw) if len(res) % 2 else T.nn.functional.prelu(tx, tw)
            if y.requires_grad:
                y.backward(T.ones_like(y))
                return y, tx.grad, tw.grad, y.grad_fn.name()
            return y, None, None, None
        res.append(_outcome(run))
    (k1, a), (k2, b) = res
    assert k1 == k2, (xs, ws, dx, dw, a, b)
    if k1 == "err":
        assert a == b, (xs, ws, dx, dw)
        return
    assert a[3] == b[3]
    _same_result("prelu", ("ok", a[0]), ("ok", b[0]), dx)
    for ga, gb in ((a[1], b[1]), (a[2], b[2])):
        assert (ga is None) == (gb is None)
        if ga is not None:  # (the weight's gradient: a sum over the broadcast dims)
            kind = "prelu" if dx in ("float16", "bfloat16") or ga.numel() == ga.shape.numel() \
                and ws == xs else "logaddexp"
            _same_result(kind, ("ok", ga), ("ok", gb), dx)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
@pytest.mark.parametrize("name", ["hardshrink", "softshrink"])
def test_shrink_gradients(torch, name, dtype):
    vals = np.array([-1.0, -0.5, -0.25, 0.0, -0.0, 0.25, 0.5, 1.0, np.nan, np.inf, 0.7, -3.0])
    g = np.linspace(-2, 2, vals.size)
    out = []
    for T in (mt, torch):
        x = _make(T, vals, dtype).requires_grad_()
        y = getattr(T.nn.functional, name)(x, 0.5)
        y.backward(_make(T, g, dtype))
        out.append((y, x.grad, y.grad_fn.name()))
    assert out[0][2] == out[1][2]
    _same_result(name, ("ok", out[0][0]), ("ok", out[1][0]), dtype)
    _same_result(name, ("ok", out[0][1]), ("ok", out[1][1]), dtype)


def test_activation_modules(torch):
    for make in (lambda nn: nn.PReLU(), lambda nn: nn.PReLU(3, init=0.1),
                 lambda nn: nn.PReLU(2, dtype=getattr(type(nn.Module()), "__module__", None)
                                     and None),
                 lambda nn: nn.Hardshrink(), lambda nn: nn.Softshrink(0.3)):
        ours, theirs = make(mt.nn), make(torch.nn)
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        for k, v in ours.state_dict().items():
            assert v.tolist() == theirs.state_dict()[k].tolist()
    m = mt.nn.PReLU(3)
    y = m(mt.tensor([[-1.0, 2.0, -4.0]]))
    assert y.tolist() == [[-0.25, 2.0, -1.0]] and m.init == 0.25


# ----- torch.special ------------------------------------------------------------------------------
SPECIAL_CALLS = {
    "digamma": lambda S, x: S.digamma(x), "psi": lambda S, x: S.psi(x),
    "erf": lambda S, x: S.erf(x), "erfc": lambda S, x: S.erfc(x),
    "erfinv": lambda S, x: S.erfinv(x * 0.3), "exp2": lambda S, x: S.exp2(x),
    "expit": lambda S, x: S.expit(x), "expm1": lambda S, x: S.expm1(x),
    "gammaln": lambda S, x: S.gammaln(x), "log1p": lambda S, x: S.log1p(x.abs()),
    "logit": lambda S, x: S.logit(x.sigmoid(), eps=1e-3), "round": lambda S, x: S.round(x),
    "round_decimals": lambda S, x: S.round(x, decimals=1), "sinc": lambda S, x: S.sinc(x),
    "xlogy": lambda S, x: S.xlogy(x, 2.5), "logsumexp": lambda S, x: S.logsumexp(x, 1),
    "softmax": lambda S, x: S.softmax(x, 0), "log_softmax": lambda S, x: S.log_softmax(x, -1),
}


@pytest.mark.parametrize("name", sorted(SPECIAL_CALLS))
def test_special_namespace(torch, name):
    x = np.random.default_rng(5).uniform(-2, 2, (3, 4))
    res = []
    for T in (mt, torch):
        t = T.tensor(x, dtype=T.float64, requires_grad=True)
        y = SPECIAL_CALLS[name](T.special, t)
        y.sum().backward()
        res.append((y, t.grad, y.grad_fn.name()))
    if name != "xlogy":  # (a number operand: torch's XlogyBackward2 overload, SPEC autograd)
        assert res[0][2] == res[1][2], (res[0][2], res[1][2])
    for a, b in ((res[0][0], res[1][0]), (res[0][1], res[1][1])):
        np.testing.assert_allclose(np.array(a.tolist()), b.detach().numpy(), rtol=1e-13,
                                   atol=1e-300)
    fn = name.split("_decimals")[0]
    if fn not in ("xlogy",):
        errs = [_outcome(lambda: getattr(T.special, fn)(2.0, *(() if fn not in (
            "logsumexp", "softmax", "log_softmax") else (0,)))) for T in (mt, torch)]
        assert errs[0] == errs[1], errs


# ----- without torch: numpy references -----------------------------------------------------------
def test_reference_values_without_torch():
    e = mt.special.expit(mt.tensor([0.0, 2.0]))
    assert e.tolist() == mt.sigmoid(mt.tensor([0.0, 2.0])).tolist() and e.tolist()[0] == 0.5
    with pytest.raises(TypeError, match=r"special_gammaln\(\): argument 'input' \(position 1\) "
                                        r"must be Tensor, not float"):
        mt.special.gammaln(2.0)
    F = mt.nn.functional
    x = mt.tensor([-1.0, -0.5, -0.25, -0.0, 0.25, 1.0])
    assert F.hardshrink(x).tolist() == [-1.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    s = F.softshrink(x).numpy()  # (6 elements: torch's scalar loop, whose zeros keep the sign)
    assert s.tolist() == [-0.5, 0.0, 0.0, 0.0, 0.0, 0.5] and np.signbit(s[1:4]).all()
    s = F.softshrink(mt.full((16,), -0.25)).numpy()  # (16 float32: its vector loop, +0.0)
    assert not np.signbit(s).any()
    with pytest.raises(RuntimeError, match=r"lambda must be in range \[0, 65504\] for input dtype "
                                           r"Half, but found -1"):
        F.softshrink(x.half(), -1.0)
    w = mt.tensor([0.1, 0.2, 0.3])
    xs, ws = np.array([[-1.0, 2.0, -3.0]], np.float32), np.array([0.1, 0.2, 0.3], np.float32)
    want = np.where(xs > 0, xs, ws * xs)
    assert np.array_equal(F.prelu(mt.tensor([[-1.0, 2.0, -3.0]]), w).numpy(), want)
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel size. "
                                           "Found parameter numbers = 3 and channel size = 2"):
        F.prelu(mt.ones(2, 2), w)
    x = mt.tensor([-1.5, -0.0, 2.25, np.inf, -3.0])
    got = mt.frac(x).numpy()
    assert np.array_equal(got[[0, 2, 4]], [-0.5, 0.25, 0.0]) and np.isnan(got[3])
    assert not np.signbit(got[1]) and not np.signbit(got[4])
    a = mt.tensor([np.inf, -np.inf, 1.0, np.nan, -np.inf])
    b = mt.tensor([np.inf, -np.inf, np.nan, 1.0, np.inf])
    r = mt.logaddexp(a, b).numpy()
    assert r[0] == np.inf and r[1] == -np.inf and np.isnan(r[2:4]).all() and r[4] == np.inf
    m = mt.fmax(mt.tensor([1.0, np.nan, np.nan, -0.0]), mt.tensor([np.nan, 2.0, np.nan, 0.0]))
    assert m.tolist()[:2] == [1.0, 2.0] and np.isnan(m.tolist()[2])
    assert np.signbit(m.numpy()[3])  # equal operands: the first (C's fmax), as torch float32
    s = mt.copysign(mt.tensor([0.0, 2, -3]), mt.tensor([-1.0, -0.0, np.inf]))
    assert np.array_equal(np.signbit(s.numpy()), [True, True, False])
    assert mt.deg2rad(mt.tensor([180])).dtype == mt.float32
    assert mt.deg2rad(mt.tensor([180.0], dtype=mt.float64)).item() == np.pi
    with pytest.raises(NotImplementedError, match='"frac_cpu" not implemented for \'Long\''):
        mt.frac(mt.tensor([1]))
    with pytest.raises(RuntimeError, match="signbit does not support non-boolean outputs"):
        mt.signbit(mt.tensor([1.0]), out=mt.empty(1))
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with "
                                           "different dtypes"):
        mt.heaviside(mt.tensor([1.0]), mt.tensor([1.0], dtype=mt.float64))
    erfc = mt.erfc(mt.tensor([0.0, 1.0, 26.0], dtype=mt.float64)).numpy()
    assert erfc[0] == 1.0 and abs(erfc[1] - 0.15729920705028513) < 1e-16 * 3 and 0 < erfc[2] < 1e-290


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_bool_operand_backward_raises_as_torch(name):
    """torch's derivative subtracts the operands as given: a bool one makes backward raise (the
    forward promotes it); found by the random programs."""
    x = mt.tensor([0.3, -1.2], requires_grad=True)
    y = getattr(mt, name)(x, mt.tensor([True, False]))
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor is "
                                           "not supported"):
        y.sum().backward()


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "strided", "transposed"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_softshrink_zero_signs_follow_torchs_loops_in_any_layout(layout, dtype):
    """torch's loop is vectorized over each run of contiguous memory (the whole buffer of a dense
    tensor in any dim order, each row of one with gaps) and its scalar tail gives ``x * 0``; the
    zeros' signs show which loop computed each element (found by the random programs on a
    permuted input)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(layout) + len(dtype))
    x = rng.uniform(-0.6, 0.6, (3, 5, 7))
    x[rng.random(x.shape) < 0.3] = -0.0
    outs = []
    for T in (mt, torch):
        t = T.tensor(x, dtype=getattr(T, dtype))
        t = {"contiguous": t, "permuted": t.permute(2, 0, 1), "strided": t[..., ::2],
             "transposed": t.transpose(0, 2)}[layout]
        outs.append(np.array(T.nn.functional.softshrink(t, 0.4).double().tolist()))
    assert np.array_equal(np.signbit(outs[0]), np.signbit(outs[1]))
    assert np.array_equal(outs[0], outs[1])


def test_logaddexp_out_dtype_checked_before_the_kernel():
    t = mt.tensor([1, 2], dtype=mt.int16)
    with pytest.raises(RuntimeError, match="result type Short can't be cast to the desired "
                                           "output type Bool"):
        mt.logaddexp(t, t, out=mt.empty(2, dtype=mt.bool))
