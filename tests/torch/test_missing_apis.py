"""Differential sweeps of the APIs added after the op table's first pass (SPEC 3.3):
``kthvalue``, ``cummax``/``cummin``, ``nanmedian``, ``mode``, ``addmv``/``addr``, ``take``,
``put``, ``masked_scatter``, ``index_put`` and ``scatter_reduce``, functions, methods and
in-place forms.

Each API gets a seeded generator of calls -- random shapes (0-d, empty and size-1 dims
included), dims (negative too), ``keepdim``, dtypes, values drawn from a few integers so ties
are common, NaN and signed zeros -- plus the error cases (k out of range, a bad dim, a bool
input, wrong argument types). With torch installed every call runs in both namespaces: the same
exception type, or the same values (bit for bit: these ops select, they do not round), dtypes,
shapes and result type names, and for float64 inputs the same gradients of a random cotangent.
Without torch the numpy-reference checks below still run.
"""
from __future__ import annotations

import numpy as np
import pytest

from minitorch_cs import torch as mt
from minitorch_cs.torch._kernels.replay_sort import introsort_order, quickselect_index

N_CASES = 250  # generated calls per API for the torch comparison

_FLOATS = ("float32", "float64")
_DTYPES = ("float32", "float64", "int64", "float16", "bfloat16", "int32", "uint8", "bool")


# ----- generation ---------------------------------------------------------------------------------
def _shape(rng, min_dims=0, max_dims=3, empty=0.05):
    nd = int(rng.integers(min_dims, max_dims + 1))
    shape = [int(rng.integers(1, 6)) for _ in range(nd)]
    if nd and rng.random() < empty:
        shape[int(rng.integers(nd))] = 0
    return tuple(shape)


def _values(rng, shape, dtype, nan=0.1):
    """Values with many ties: a few small integers, for floats also -0.0 and NaN."""
    hi = int(rng.integers(1, 6))
    a = np.array(rng.integers(-2, hi, shape), dtype=np.float64)
    if dtype == "bool":
        return a > 0
    if dtype == "uint8":
        return np.abs(a).astype(np.uint8)
    if dtype in ("int64", "int32"):
        return a.astype(dtype)
    if rng.random() < 0.5:
        a = np.array(a + rng.integers(0, 2, shape) * 0.5)
    a[a == 0] = np.where(rng.random(int((a == 0).sum())) < 0.5, -0.0, 0.0)
    if rng.random() < 0.5:
        a[rng.random(shape) < nan] = np.nan
    return a


def _dim(rng, ndim, bad=0.05):
    n = max(ndim, 1)
    if rng.random() < bad:
        return int(rng.choice([n, -n - 1]))
    return int(rng.integers(-n, n))


def _tensor(T, a, dtype):
    """``a`` in namespace ``T`` with dtype ``dtype`` (float64 values rounded as torch rounds)."""
    t = T.from_numpy(np.ascontiguousarray(a).astype(np.float64 if dtype not in (
        "bool", "uint8", "int32", "int64") else a.dtype))
    return t.to(getattr(T, dtype))


# ----- comparison ---------------------------------------------------------------------------------
def _bits(t):
    """A tensor's values as comparable numpy (floats widened exactly), dtype name, shape."""
    a = t.detach().to(t.dtype).cpu() if hasattr(t, "cpu") else t
    name = str(t.dtype).replace("torch.", "")
    if name in ("bfloat16", "float16"):
        a = a.float()
    return np.asarray(a.numpy() if hasattr(a, "numpy") else a), name, tuple(t.shape)


def _same_values(got, want, where, rtol=0.0):
    g, gd, gs = _bits(got)
    w, wd, ws = _bits(want)
    assert gd == wd, f"dtype {gd} != torch's {wd} [{where}]"
    assert gs == ws, f"shape {gs} != torch's {ws} [{where}]"
    if rtol and g.dtype.kind == "f":  # (a sum of products: BLAS orders it its own way)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True, err_msg=where)
        return
    if g.dtype.kind == "f":
        num = ~np.isnan(w)  # (a NaN's sign bit is not compared)
        same = np.array_equal(g, w, equal_nan=True) and \
            np.array_equal(np.signbit(g)[num], np.signbit(w)[num])
    else:
        same = np.array_equal(g, w)
    assert same, f"values differ [{where}]:\nours  {g!r}\ntorch {w!r}"


def _run(T, call):
    try:
        return None, call(T)
    except Exception as e:  # noqa: BLE001  (the exception type is what is compared)
        return type(e).__name__, e


def compare(torch, call, where, grad_of=None, rtol=0.0):
    """``call(T)`` in both namespaces: the same exception type, or the same outputs (a tensor
    or a tuple of them, named tuples by class name). ``grad_of``: the output index whose
    gradient (random cotangent) w.r.t. the float64 leaf ``call`` marks is compared too."""
    werr, want = _run(torch, call)
    gerr, got = _run(mt, call)
    assert gerr == werr, (f"ours {'raised ' + gerr + ': ' + str(got) if gerr else 'ran'}, torch "
                          f"{'raised ' + werr + ': ' + str(want) if werr else 'ran'} [{where}]")
    if werr:
        return
    wt = want if isinstance(want, tuple) else (want,)
    gt = got if isinstance(got, tuple) else (got,)
    assert len(gt) == len(wt), where
    if hasattr(want, "_fields"):
        assert type(got).__name__ == type(want).__name__, where
        assert got._fields == want._fields, where
    for g, w in zip(gt, wt):
        _same_values(g, w, where, rtol)
    if grad_of is not None and wt[grad_of].requires_grad:
        rng = np.random.default_rng(0)
        u = rng.standard_normal(tuple(wt[grad_of].shape))
        try:
            wt[grad_of].backward(torch.from_numpy(u))
        except RuntimeError:  # torch's own backward fails (addmv's resized results): nothing
            return  # to compare (ours returns gradients there, see SPEC)
        gt[grad_of].backward(mt.from_numpy(u))
        for i, (wl, gl) in enumerate(zip(call.leaves[torch], call.leaves[mt])):
            if wl.grad is None:
                assert gl.grad is None or not gl.grad.abs().sum().item(), where
                continue
            _same_values(gl.grad, wl.grad, f"{where} (grad {i})", rtol)


class Call:
    """A call written against a namespace, remembering the leaves it made in each (for grads:
    the floating inputs when ``grad``). ``dtype`` is one dtype name or one per array."""

    def __init__(self, fn, arrays, dtype, grad=False):
        self.fn, self.arrays, self.grad = fn, arrays, grad
        self.dtypes = [dtype] * len(arrays) if isinstance(dtype, str) else list(dtype)
        self.leaves = {}

    def __call__(self, T):
        ts = [_tensor(T, a, d) for a, d in zip(self.arrays, self.dtypes)]
        if self.grad:
            self.leaves[T] = [t.requires_grad_(True) for t in ts if t.dtype.is_floating_point]
        return self.fn(T, *ts)


def _sweep(torch, make, n=N_CASES, seed=0, rtol=0.0):
    rng = np.random.default_rng(seed)
    for i in range(n):
        call, where, grad_of = make(rng)
        compare(torch, call, f"case {i}: {where}", grad_of, rtol)


@pytest.fixture(scope="module")
def torch():
    t = pytest.importorskip("torch")
    t.set_default_dtype(t.float32)
    return t


# ----- kthvalue -----------------------------------------------------------------------------------
def _kthvalue_case(rng):
    dtype = str(rng.choice(_DTYPES, p=[.3, .3, .15, .05, .05, .05, .05, .05]))
    shape = _shape(rng)
    a = _values(rng, shape, dtype)
    d = _dim(rng, len(shape))
    size = shape[d] if shape and -len(shape) <= d < len(shape) else 1
    k = int(rng.integers(0, size + 2)) if rng.random() < 0.1 or not size else \
        int(rng.integers(1, size + 1))
    keep = bool(rng.integers(2))
    form = int(rng.integers(3))
    grad = dtype == "float64"

    def fn(T, x):
        if form == 0:
            return T.kthvalue(x, k, d, keep)
        if form == 1:
            return x.kthvalue(k, dim=d, keepdim=keep)
        return T.kthvalue(x, k) if shape else x.kthvalue(k, 0)
    return Call(fn, [a], dtype, grad), f"kthvalue {dtype}{shape} k={k} dim={d} keep={keep} " \
                                      f"form={form}", 0 if grad else None


def test_kthvalue_matches_torch(torch):
    _sweep(torch, _kthvalue_case)


@pytest.mark.parametrize("bad", [
    lambda T, x: T.kthvalue(x, 1.0), lambda T, x: x.kthvalue(True), lambda T, x: x.kthvalue("1"),
    lambda T, x: T.kthvalue(x, 1, 0, keepdim=1), lambda T, x: T.kthvalue(x, 1, dim=None),
    lambda T, x: T.kthvalue(x, 1, 0.5), lambda T, x: T.kthvalue(x.numpy(), 1),
    lambda T, x: T.kthvalue(x, 0), lambda T, x: T.kthvalue(x, 4, 0),
    lambda T, x: T.kthvalue(x, 1, 2), lambda T, x: T.kthvalue(x > 0, 1),
    lambda T, x: T.kthvalue(x[:0], 1, 0), lambda T, x: T.kthvalue(x[:, :0], 1, 0),
    lambda T, x: T.kthvalue(x[:, :0], 4, 0), lambda T, x: T.kthvalue(x.sum(), 2),
])
def test_kthvalue_errors_match_torch(torch, bad):
    compare(torch, Call(bad, [np.arange(6.0).reshape(3, 2)], "float32"), "kthvalue error")


# ----- cummax / cummin ----------------------------------------------------------------------------
def _cum_case(rng):
    dtype = str(rng.choice(_DTYPES, p=[.3, .3, .15, .05, .05, .05, .05, .05]))
    shape = _shape(rng)
    a = _values(rng, shape, dtype, nan=0.15)
    d = _dim(rng, len(shape))
    name = str(rng.choice(["cummax", "cummin"]))
    method = bool(rng.integers(2))
    grad = dtype == "float64"

    def fn(T, x):
        return getattr(x, name)(d) if method else getattr(T, name)(x, dim=d)
    return Call(fn, [a], dtype, grad), f"{name} {dtype}{shape} dim={d} method={method}", \
        0 if grad else None


def test_cummax_cummin_match_torch(torch):
    _sweep(torch, _cum_case)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("bad", [
    lambda T, f, x: f(T)(x, None), lambda T, f, x: f(T)(x, 1.0), lambda T, f, x: f(T)(x, 2),
    lambda T, f, x: f(T)(x.sum(), 1), lambda T, f, x: f(T)(x.sum(), -2),
    lambda T, f, x: f(T)(x), lambda T, f, x: f(T)(x, (0,)),
])
def test_cummax_cummin_errors_match_torch(torch, name, bad):
    compare(torch, Call(lambda T, x: bad(T, lambda N: getattr(N, name), x),
                        [np.arange(6.0).reshape(3, 2)], "float32"), f"{name} error")


# ----- nanmedian ----------------------------------------------------------------------------------
def _nanmedian_case(rng):
    dtype = str(rng.choice(_DTYPES, p=[.3, .3, .15, .05, .05, .05, .05, .05]))
    shape = _shape(rng)
    a = _values(rng, shape, dtype, nan=float(rng.choice([0.1, 0.5, 0.9])))
    grad = dtype == "float64"
    if rng.random() < 0.35:
        method = bool(rng.integers(2))
        return Call(lambda T, x: x.nanmedian() if method else T.nanmedian(x), [a],
                    dtype, grad), f"nanmedian {dtype}{shape} method={method}", 0 if grad else None
    d = _dim(rng, len(shape))
    keep = bool(rng.integers(2))
    return Call(lambda T, x: T.nanmedian(x, d, keepdim=keep), [a], dtype, grad), \
        f"nanmedian {dtype}{shape} dim={d} keep={keep}", 0 if grad else None


def test_nanmedian_matches_torch(torch):
    _sweep(torch, _nanmedian_case)


@pytest.mark.parametrize("bad", [
    lambda T, x: T.nanmedian(x, None), lambda T, x: T.nanmedian(x, 0, keepdim=None),
    lambda T, x: T.nanmedian(x, 1.0), lambda T, x: T.nanmedian(x, keepdim=True),
    lambda T, x: T.nanmedian(x, 2), lambda T, x: T.nanmedian(x[:0], 0),
    lambda T, x: T.nanmedian(x > 0), lambda T, x: T.nanmedian(x > 0, 0),
])
def test_nanmedian_errors_match_torch(torch, bad):
    compare(torch, Call(bad, [np.arange(6.0).reshape(3, 2)], "float32"), "nanmedian error")


# ----- mode ---------------------------------------------------------------------------------------
def _mode_case(rng):
    dtype = str(rng.choice(_DTYPES, p=[.3, .3, .15, .05, .05, .05, .05, .05]))
    shape = _shape(rng)
    if rng.random() < 0.3:  # long slices: torch's introsort (not its insertion sort) decides
        shape = (int(rng.integers(1, 3)), int(rng.integers(17, 70)))
    a = _values(rng, shape, dtype)
    d = _dim(rng, len(shape))
    keep = bool(rng.integers(2))
    grad = dtype == "float64"
    if shape and rng.random() < 0.3:
        return Call(lambda T, x: x.mode(), [a], dtype, grad), f"mode {dtype}{shape}", \
            0 if grad else None
    return Call(lambda T, x: T.mode(x, d, keep), [a], dtype, grad), \
        f"mode {dtype}{shape} dim={d} keep={keep}", 0 if grad else None


def test_mode_matches_torch(torch):
    _sweep(torch, _mode_case)


@pytest.mark.parametrize("bad", [
    lambda T, x: T.mode(x, None), lambda T, x: T.mode(x, 1.0), lambda T, x: T.mode(x, 2),
    lambda T, x: T.mode(x, 0, keepdim=1), lambda T, x: T.mode(x[:0], 0),
    lambda T, x: T.mode(x[:, :0]),
])
def test_mode_errors_match_torch(torch, bad):
    compare(torch, Call(bad, [np.arange(6.0).reshape(3, 2)], "float32"), "mode error")


# ----- addmv / addr ------------------------------------------------------------------------------
_SCALARS = (1, 1, 0, 2, -1, 0.5, -1.5, True)


def _mixed_dtypes(rng, n):
    """One dtype for all ``n`` tensors, or now and then a different one for one of them."""
    dt = str(rng.choice(_DTYPES, p=[.35, .35, .12, .04, .04, .04, .03, .03]))
    dts = [dt] * n
    if rng.random() < 0.1:
        dts[int(rng.integers(n))] = str(rng.choice(["float64", "float32", "int64"]))
    return dts


def _scaled_form(rng, dts):
    """addmv/addr's drawn ``beta``/``alpha`` keywords, the form (0 function, 1 method, 2
    in-place) and whether float64 gradients are checked."""
    kw = {}
    if rng.random() < 0.7:
        kw["beta"] = _SCALARS[int(rng.integers(len(_SCALARS)))]
    if rng.random() < 0.5:
        kw["alpha"] = _SCALARS[int(rng.integers(len(_SCALARS)))]
    form = int(rng.integers(3))
    return kw, form, all(d == "float64" for d in dts) and form != 2


def _addmv_case(rng):
    n, k = int(rng.integers(0, 5)), int(rng.integers(0, 5))
    cshape = [(n,), (1,), (), (n + 1,), (n, 1)][int(rng.choice(5, p=[.5, .2, .2, .05, .05]))]
    mshape, vshape = (n, k), (k,)
    if rng.random() < 0.05:
        vshape = (k + 1,)
    if rng.random() < 0.03:
        mshape = (n,)
    dts = _mixed_dtypes(rng, 3)
    arrays = [_values(rng, s, d, nan=0.05) for s, d in zip((cshape, mshape, vshape), dts)]
    kw, form, grad = _scaled_form(rng, dts)

    def fn(T, c, m, v):
        if form == 0:
            return T.addmv(c, m, v, **kw)
        if form == 1:
            return c.addmv(m, v, **kw)
        return (c + 0 if c.dtype.is_floating_point else c.clone()).addmv_(m, v, **kw)
    return Call(fn, arrays, dts, grad), f"addmv {dts} {cshape} {mshape} {vshape} {kw} " \
                                        f"form={form}", 0 if grad else None


def test_addmv_matches_torch(torch):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch's resize warning; test_addmv_warns checks ours)
        _sweep(torch, _addmv_case, rtol=1e-5)


def test_addmv_warns_as_torch_resizes():
    import warnings
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = mt.addmv(mt.tensor(1.0), mt.ones(1, 2), mt.ones(2))
        assert r.shape == () and r.item() == 3.0
        r = mt.addmv(mt.ones(1), mt.ones(3, 0), mt.ones(0), beta=2)
        assert r.tolist() == [2.0]
    assert len(w) == 2 and "was resized" in str(w[0].message)


def _addr_case(rng):
    n, m = int(rng.integers(0, 5)), int(rng.integers(0, 5))
    cshape = [(n, m), (m,), (n, 1), (), (1, 1), (m, n), (n,)][
        int(rng.choice(7, p=[.4, .2, .15, .1, .05, .05, .05]))]
    ashape, bshape = (n,), (m,)
    if rng.random() < 0.04:
        ashape = (n, 1)
    dts = _mixed_dtypes(rng, 3)
    arrays = [_values(rng, s, d, nan=0.05) for s, d in zip((cshape, ashape, bshape), dts)]
    kw, form, grad = _scaled_form(rng, dts)

    def fn(T, c, a, b):
        if form == 0:
            return T.addr(c, a, b, **kw)
        if form == 1:
            return c.addr(a, b, **kw)
        return c.clone().addr_(a, b, **kw)
    return Call(fn, arrays, dts, grad), f"addr {dts} {cshape} {ashape} {bshape} {kw} " \
                                        f"form={form}", 0 if grad else None


def test_addr_matches_torch(torch):
    _sweep(torch, _addr_case, rtol=1e-6)


@pytest.mark.parametrize("bad", [
    lambda T, c, m, v: T.addmv(c, m, v.numpy()), lambda T, c, m, v: T.addmv(c, m, v, beta="a"),
    lambda T, c, m, v: T.addmv(c, m, v, 1), lambda T, c, m, v: c.addmv(m, v.double()),
    lambda T, c, m, v: T.addmv(c.bool(), m.bool(), v.bool()),
    lambda T, c, m, v: T.addr(m, c, v, beta=None), lambda T, c, m, v: T.addr(m.long(), c, v),
    lambda T, c, m, v: T.addr(m.long(), c.long(), v.long(), alpha=0.5),
    lambda T, c, m, v: T.addr(m.bool(), c.bool(), v.bool(), beta=2.0),
    lambda T, c, m, v: c.addr_(c, v), lambda T, c, m, v: m.long().addr_(c, v),
    lambda T, c, m, v: m[:1].addr_(c, v), lambda T, c, m, v: m.addr_(c, v[:2]),
])
def test_addmv_addr_errors_match_torch(torch, bad):
    compare(torch, Call(bad, [np.ones(2), np.arange(6.0).reshape(2, 3), np.arange(3.0)],
                        "float32"), "addmv/addr error")


# ----- take / put / masked_scatter / index_put ----------------------------------------------------
def _index_values(rng, n, shape, dtype="int64"):
    """Flat positions into ``n`` elements (negative ones too, a few out of range)."""
    lo, hi = (-n - 1, n + 1) if rng.random() < 0.08 else (-n, n)
    a = rng.integers(lo, max(hi, lo + 1), shape) if n or rng.random() < 0.5 else \
        np.zeros(shape, np.int64)
    return np.asarray(a).astype(dtype)


def _index_dtype(rng):
    return str(rng.choice(["int64", "int32", "float32", "bool"], p=[.88, .04, .04, .04]))


def _take_case(rng):
    dtype = str(rng.choice(_DTYPES, p=[.3, .3, .15, .05, .05, .05, .05, .05]))
    shape = _shape(rng, empty=0.1)
    n = int(np.prod(shape))
    ishape = _shape(rng, max_dims=2)
    idt = _index_dtype(rng)
    arrays = [_values(rng, shape, dtype), _index_values(rng, n, ishape)]
    method, view = bool(rng.integers(2)), len(shape) > 1 and rng.random() < 0.3
    grad = dtype == "float64"

    def fn(T, x, i):
        x = x.transpose(0, 1) if view else x
        i = i.to(getattr(T, idt))
        return x.take(i) if method else T.take(x, i)
    return Call(fn, arrays, [dtype, "int64"], grad), \
        f"take {dtype}{shape} view={view} index {idt}{ishape} method={method}", 0 if grad else None


def test_take_matches_torch(torch):
    _sweep(torch, _take_case)


def _put_case(rng):
    dtype = str(rng.choice(_DTYPES, p=[.3, .3, .15, .05, .05, .05, .05, .05]))
    shape = _shape(rng, empty=0.1)
    n = int(np.prod(shape))
    ishape = _shape(rng, max_dims=2)
    k = int(np.prod(ishape))
    sshape = [(k,), ishape, (k + 1,), (max(k - 1, 0),)][int(rng.choice(4, p=[.45, .45, .05, .05]))]
    sdt = dtype if rng.random() < 0.95 else str(rng.choice(["float64", "float32", "int64"]))
    idt = _index_dtype(rng)
    acc = bool(rng.integers(2))
    arrays = [_values(rng, shape, dtype), _values(rng, sshape, sdt),
              _index_values(rng, n, ishape)]
    form = int(rng.integers(3))
    view = len(shape) > 1 and rng.random() < 0.3
    grad = dtype == sdt == "float64" and form != 2

    def fn(T, x, src, i):
        i = i.to(getattr(T, idt))
        if form == 0:
            return T.put(x, i, src, acc)
        if form == 1:
            return x.put(i, src, accumulate=acc)
        y = x.clone().transpose(0, 1) if view else x.clone()
        return y.put_(i, src, accumulate=acc)
    return Call(fn, arrays, [dtype, sdt, "int64"], grad), \
        f"put {dtype}{shape} source {sdt}{sshape} index {idt}{ishape} acc={acc} form={form} " \
        f"view={view}", 0 if grad else None


def test_put_matches_torch(torch):
    _sweep(torch, _put_case, rtol=1e-6)  # (accumulated repeats: an order of additions)


def _masked_scatter_case(rng):
    dtype = str(rng.choice(_DTYPES, p=[.3, .3, .15, .05, .05, .05, .05, .05]))
    shape = _shape(rng, empty=0.05)
    mshape = tuple(1 if rng.random() < 0.3 else d for d in shape[int(rng.integers(0, len(shape) + 1)):])
    if rng.random() < 0.1:
        shape, mshape = mshape, shape  # (the mask broadcasts the input)
    full = np.broadcast_shapes(shape, mshape)
    size = int(np.prod(full))
    sshape = [(size,), full, (size + 2,), (max(size - 2, 0),), (2, size)][
        int(rng.choice(5, p=[.35, .35, .1, .1, .1]))]
    sdt = dtype if rng.random() < 0.95 else str(rng.choice(["float64", "float32", "int64"]))
    mdt = "bool" if rng.random() < 0.95 else "uint8"
    mask = rng.random(mshape) < rng.random()
    arrays = [_values(rng, shape, dtype), mask, _values(rng, sshape, sdt)]
    form = int(rng.integers(3))
    grad = dtype == sdt == "float64" and form != 2

    def fn(T, x, m, src):
        m = m.to(getattr(T, mdt))
        if form == 0:
            return T.masked_scatter(x, m, src)
        if form == 1:
            return x.masked_scatter(m, src)
        return x.clone().masked_scatter_(m, src)
    return Call(fn, arrays, [dtype, "bool", sdt], grad), \
        f"masked_scatter {dtype}{shape} mask {mdt}{mshape} source {sdt}{sshape} form={form}", \
        0 if grad else None


def test_masked_scatter_matches_torch(torch):
    _sweep(torch, _masked_scatter_case, rtol=1e-12)  # (a broadcast input's gradient: a sum)


def _index_put_case(rng):
    dtype = str(rng.choice(_DTYPES, p=[.3, .3, .15, .05, .05, .05, .05, .05]))
    shape = _shape(rng, min_dims=1)
    nidx = int(rng.integers(1, len(shape) + 1))
    kind = str(rng.choice(["long", "bool"], p=[.8, .2]))
    ishape = _shape(rng, max_dims=2)
    if kind == "bool":
        idx = [rng.random(shape[:nidx]) < 0.5]
        nsel = int(idx[0].sum())
        sel = (nsel,) + shape[nidx:]
    else:
        idx = [_index_values(rng, d, ishape) for d in shape[:nidx]]
        sel = ishape + shape[nidx:]
    vshape = [sel, sel[1:], (), (1,) + sel, (3,)][int(rng.choice(5, p=[.5, .2, .15, .1, .05]))]
    vdt = dtype if rng.random() < 0.95 else str(rng.choice(["float64", "float32", "int64"]))
    acc = bool(rng.integers(2))
    arrays = [_values(rng, shape, dtype), _values(rng, vshape, vdt)] + idx
    form = str(rng.choice(["function", "method", "in-place"]))
    # (gradients: torch's index_put backward with a repeated position and no accumulate is
    # not a derivative; the values' gradient is compared where positions are distinct)
    grad = dtype == vdt == "float64" and (acc or kind == "bool")

    def fn(T, x, v, *ix):
        if form == "method":
            return x.index_put(tuple(ix), v, accumulate=acc)
        if form == "in-place":  # (the same checks before the kernel as the function's)
            return x.clone().index_put_(tuple(ix), v, accumulate=acc)
        return T.index_put(x, tuple(ix), v, acc)
    return Call(fn, arrays, [dtype, vdt] + ["bool" if kind == "bool" else "int64"] * len(idx),
                grad), f"index_put {dtype}{shape} {kind} indices {ishape} values {vdt}{vshape} " \
        f"acc={acc} form={form}", 0 if grad else None


def test_index_put_matches_torch(torch):
    _sweep(torch, _index_put_case, rtol=1e-6)


@pytest.mark.parametrize("bad", [
    lambda T, x, i: T.take(x, [0]), lambda T, x, i: x.put_(i, 1.0),
    lambda T, x, i: x.put_(i, x[:1], 1), lambda T, x, i: T.put(x, i.float(), x[:1]),
    lambda T, x, i: x.masked_scatter(x > 0, 1.0), lambda T, x, i: x.masked_scatter(x, x),
    lambda T, x, i: x[:1].masked_scatter_(x > 0, x), lambda T, x, i: T.index_put(x, i, x[0]),
    lambda T, x, i: T.index_put(x, (i.float(),), x[0]),
    lambda T, x, i: T.index_put(x, (i, i, i), x[0, 0]), lambda T, x, i: x.index_put_(i, x[0]),
    lambda T, x, i: x.index_put_((i,), x[:, :1].T),
    lambda T, x, i: x.index_put_((i,), x[0, :1].expand(3)),
    lambda T, x, i: x.index_put_((1,), x[0]), lambda T, x, i: T.index_put(x, (None, i), x[:, 0]),
    lambda T, x, i: x.index_put_((i, 0), x[0, :1]),
])
def test_index_writes_errors_match_torch(torch, bad):
    compare(torch, Call(bad, [np.arange(6.0).reshape(3, 2), np.array([1])],
                        ["float32", "int64"]), "index write error")


# ----- scatter_reduce ----------------------------------------------------------------------------
def _scatter_reduce_case(rng):
    dtype = str(rng.choice(_DTYPES, p=[.3, .3, .15, .05, .05, .05, .05, .05]))
    shape = _shape(rng, min_dims=1)
    nd = len(shape)
    d = _dim(rng, nd, bad=0.03)
    dd = d % nd if -nd <= d < nd else 0
    ishape = tuple(int(rng.integers(0, 7)) if k == dd else int(rng.integers(0, s + 1))
                   for k, s in enumerate(shape))
    if rng.random() < 0.04:
        ishape = ishape + (1,)
    sshape = tuple(k + int(rng.integers(0, 2)) for k in ishape)
    if rng.random() < 0.04:
        sshape = tuple(max(k - 1, 0) for k in ishape)
    sdt = dtype if rng.random() < 0.95 else str(rng.choice(["float64", "float32", "int64"]))
    size = shape[dd] if shape else 1
    idx = rng.integers(0, max(size, 1), ishape) if rng.random() < 0.95 else \
        rng.integers(-1, size + 1, ishape)
    reduce = str(rng.choice(["sum", "prod", "mean", "amax", "amin", "max", "add"],
                            p=[.2, .2, .2, .17, .17, .03, .03]))
    inc = bool(rng.integers(2))
    arrays = [_values(rng, shape, dtype), _values(rng, sshape, sdt), np.asarray(idx)]
    form = int(rng.integers(3))
    # (gradients of float64 calls; prod's formula divides: compared with a tolerance)
    grad = dtype == sdt == "float64" and form != 2 and sshape == ishape

    def fn(T, x, src, i):
        if form == 0:
            return T.scatter_reduce(x, d, i, src, reduce, include_self=inc)
        if form == 1:
            return x.scatter_reduce(d, i, src, reduce, include_self=inc)
        return x.clone().scatter_reduce_(d, i, src, reduce, include_self=inc)
    return Call(fn, arrays, [dtype, sdt, "int64"], grad), \
        f"scatter_reduce {dtype}{shape} dim={d} index {ishape} src {sdt}{sshape} {reduce} " \
        f"include_self={inc} form={form}", 0 if grad else None


def test_scatter_reduce_matches_torch(torch):
    _sweep(torch, _scatter_reduce_case, rtol=1e-6)  # (sums and means: an order of additions)


def test_signed_zeros_of_scatter_amax_amin_match_torch(torch):
    """Ties between -0.0 and 0.0, scattered and not scattered positions, every reduction
    order (the first zero met keeps its sign; untouched positions keep input's)."""
    rng = np.random.default_rng(5)
    for i in range(300):
        n, k = int(rng.integers(1, 4)), int(rng.integers(1, 5))
        arrays = [rng.choice([0.0, -0.0, 1.0, -1.0, 0.5], (2, n)),
                  rng.choice([0.0, -0.0, 1.0, -1.0, 0.25], (2, k)), rng.integers(0, n, (2, k))]
        red, inc = str(rng.choice(["amax", "amin"])), bool(rng.integers(2))
        dt = str(rng.choice(["float32", "float64", "float16"]))
        compare(torch, Call(lambda T, x, s, j: T.scatter_reduce(x, 1, j, s, red, include_self=inc),
                            arrays, [dt, dt, "int64"]), f"case {i}: {red} {inc} {dt}")


@pytest.mark.parametrize("dts", [("float32", "float16", "int32"), ("int64", "int8", "int16"),
                                 ("uint8", "int8", "bool"), ("float64", "float32", "float32"),
                                 ("float16", "bfloat16", "int8")])
@pytest.mark.parametrize("cshape", [(), (1,), (2, 3)])
def test_addr_promotes_every_operand_as_torch(torch, dts, cshape):
    """``input`` takes part in addr's promotion with its full weight, 0-d or not."""
    compare(torch, Call(lambda T, c, a, b: T.addr(c, a, b),
                        [np.ones(cshape), np.arange(2.0), np.arange(3.0)], list(dts)), "addr")


def test_kthvalue_of_a_0d_bool_is_its_value(torch):
    compare(torch, Call(lambda T, x: T.kthvalue(x, 1), [np.array(True)], "bool"), "kthvalue")


# ----- out= ------------------------------------------------------------------------------------
def _outs(T, dt, n=1):
    o = tuple(T.empty(0, dtype=getattr(T, d)) for d in ([dt, "int64"] if n == 2 else [dt]))
    return o if n == 2 else o[0]


@pytest.mark.parametrize("dt", ["float32", "float64", "int64"])
@pytest.mark.parametrize("call", [
    lambda T, x, dt: T.kthvalue(x, 2, 1, out=_outs(T, dt, 2)),
    lambda T, x, dt: T.mode(x, 0, out=_outs(T, dt, 2)),
    lambda T, x, dt: T.nanmedian(x, 1, out=_outs(T, dt, 2)),
    lambda T, x, dt: T.nanmedian(x, out=_outs(T, dt)),
    lambda T, x, dt: T.cummax(x, 1, out=_outs(T, dt, 2)),
    lambda T, x, dt: T.cummin(x, 0, out=_outs(T, dt)),
    lambda T, x, dt: T.addmv(x[:, 0], x, x[0], out=_outs(T, dt)),
    lambda T, x, dt: T.addr(x, x[:, 0], x[0], beta=0.5, out=_outs(T, dt)),
    lambda T, x, dt: T.take(x, T.tensor([0, 5]), out=_outs(T, dt)),
    lambda T, x, dt: T.scatter_reduce(x, 0, T.tensor([[1, 0, 1]]), x, "amax", out=_outs(T, dt)),
    lambda T, x, dt: T.put(x, T.tensor([0]), x[0, :1], out=_outs(T, dt)),
    lambda T, x, dt: T.kthvalue(x.requires_grad_(), 1, out=_outs(T, dt, 2)),
])
def test_out_matches_torch(torch, call, dt):
    compare(torch, Call(lambda T, x: call(T, x, dt), [np.arange(9.0).reshape(3, 3) % 4],
                        "float32"), "out=")


# ----- numpy references (no torch needed) ---------------------------------------------------------
def test_selection_against_numpy():
    """Values against numpy's sort; every index points at its value."""
    rng = np.random.default_rng(1)
    for _ in range(200):
        shape = _shape(rng, min_dims=1, empty=0)
        a = _values(rng, shape, "float64")
        d = int(rng.integers(len(shape)))
        x = mt.from_numpy(a)
        srt = np.sort(a, axis=d)  # NaN last, as torch orders them
        k = int(rng.integers(1, shape[d] + 1))
        v, i = mt.kthvalue(x, k, d, keepdim=True)
        np.testing.assert_array_equal(v.numpy(), np.take(srt, [k - 1], axis=d))
        np.testing.assert_array_equal(np.take_along_axis(a, i.numpy(), d), v.numpy())
        for name, f in (("cummax", np.fmax), ("cummin", np.fmin)):
            v, i = getattr(mt, name)(x, d)
            run = f.accumulate(a, axis=d)
            nan_seen = np.logical_or.accumulate(np.isnan(a), axis=d)
            np.testing.assert_array_equal(v.numpy(), np.where(nan_seen, np.nan, run))
            np.testing.assert_array_equal(np.take_along_axis(a, i.numpy(), d), v.numpy())
        v, i = mt.nanmedian(x, d)
        m = np.moveaxis(a, d, -1)
        for idx in np.ndindex(m.shape[:-1]):
            row = m[idx]
            ok = np.sort(row[~np.isnan(row)])
            want = ok[(ok.size - 1) // 2] if ok.size else np.nan
            np.testing.assert_array_equal(v.numpy()[idx], want)
        v, i = mt.mode(x, d)
        for idx in np.ndindex(m.shape[:-1]):
            row = m[idx]
            assert np.array_equal(row[i.numpy()[idx]], v.numpy()[idx], equal_nan=True)
            if not np.isnan(row).any():
                vals, counts = np.unique(row, return_counts=True)
                assert v.numpy()[idx] == vals[np.argmax(counts)]


def test_replayed_algorithms_sort_and_select():
    """The replays are correct selection/sort algorithms (whatever they do with ties)."""
    rng = np.random.default_rng(2)
    for _ in range(300):
        n = int(rng.integers(1, 120))
        vals = rng.integers(0, int(rng.integers(1, 40)), n).tolist()
        order = introsort_order(vals)
        assert sorted(order) == list(range(n))
        assert [vals[i] for i in order] == sorted(vals)
        k = int(rng.integers(n))
        assert vals[quickselect_index(vals, k)] == sorted(vals)[k]


def test_addmv_addr_against_numpy():
    rng = np.random.default_rng(3)
    for _ in range(100):
        n, k = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        c, m, v = rng.standard_normal(n), rng.standard_normal((n, k)), rng.standard_normal(k)
        beta, alpha = float(rng.choice([0, 0.5, 1, 2])), float(rng.choice([1, -1.5]))
        c_nan = np.where(rng.random(n) < 0.3, np.nan, c) if beta == 0 else c
        got = mt.addmv(mt.from_numpy(c_nan), mt.from_numpy(m), mt.from_numpy(v), beta=beta,
                       alpha=alpha)
        np.testing.assert_allclose(got.numpy(), beta * c + alpha * m @ v, rtol=1e-12)
        got = mt.addr(mt.from_numpy(np.full((n, k), np.nan) if beta == 0 else m),
                      mt.from_numpy(c), mt.from_numpy(v), beta=beta, alpha=alpha)
        np.testing.assert_allclose(got.numpy(), (0 if beta == 0 else beta * m)
                                   + alpha * np.outer(c, v), rtol=1e-12)


def test_index_writes_against_numpy():
    rng = np.random.default_rng(4)
    for _ in range(100):
        shape = _shape(rng, min_dims=1, empty=0)
        a = rng.standard_normal(shape)
        n = a.size
        idx = rng.integers(-n, n, int(rng.integers(0, 6)))
        x = mt.from_numpy(a)
        np.testing.assert_array_equal(mt.take(x, mt.from_numpy(idx)).numpy(), a.reshape(-1)[idx])
        src = rng.standard_normal(idx.size)
        want = a.copy().reshape(-1)
        np.add.at(want, idx, src)
        got = x.put(mt.from_numpy(idx), mt.from_numpy(src), accumulate=True).numpy()
        np.testing.assert_allclose(got, want.reshape(shape), rtol=1e-12)
        mask = rng.random(shape) < 0.5
        src = rng.standard_normal(n)
        want = a.copy()
        want[mask] = src[:mask.sum()]
        np.testing.assert_array_equal(
            x.masked_scatter(mt.from_numpy(mask), mt.from_numpy(src)).numpy(), want)
        d = int(rng.integers(len(shape)))
        index = rng.integers(0, shape[d], shape)
        for reduce, uf in (("sum", np.add), ("amax", np.maximum), ("prod", np.multiply)):
            want = a.copy()
            key = tuple(index if k == d else np.indices(shape, sparse=True)[k]
                        for k in range(len(shape)))
            uf.at(want, key, a)
            got = mt.scatter_reduce(x, d, mt.from_numpy(index), x, reduce).numpy()
            np.testing.assert_allclose(got, want, rtol=1e-12)


def test_gradients_go_to_the_indices():
    x = mt.tensor([[1.0, 3.0, 3.0, 2.0], [2.0, 2.0, 2.0, 1.0]], requires_grad=True)
    v, i = x.cummax(1)
    v.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0, 2.0, 0.0], [1.0, 1.0, 2.0, 0.0]]  # last of ties
    x.grad = None
    x.kthvalue(2, 1).values.sum().backward()
    assert x.grad.sum().item() == 2.0 and x.grad[0, 3].item() == 1.0
    y = mt.tensor([1.0, float("nan"), 1.0, 3.0], requires_grad=True)
    y.nanmedian().backward()
    assert y.grad.tolist() == [0.5, 0.0, 0.5, 0.0]


# ----- addmm / addmv with out=: torch's order of checks ----------------------------------------
def _product_out_calls():
    """Every combination of operand and ``out`` dtypes (bool has no kernel), with good and bad
    shapes: the meta function's checks come before ``out``'s dtype, the kernel's after."""
    dts = ("bool", "float32", "int64")
    shapes = {"addmm": [((2, 2), (2, 3), (3, 2)), ((5, 5), (2, 3), (3, 2)),
                        ((2, 2), (2, 3), (4, 2))],
              "addmv": [((2,), (2, 3), (3,)), ((2,), (2, 3), (4,))]}
    for fname, cases in shapes.items():
        for sa, sb, sc in cases:
            for da in dts:
                for db in dts:
                    for dc in dts:
                        for do in dts:
                            yield fname, (sa, sb, sc), (da, db, dc), do


def _message(T, fname, shapes, dts, dout):
    args = [T.zeros(s, dtype=getattr(T, d)) for s, d in zip(shapes, dts)]
    try:
        getattr(T, fname)(*args, out=T.zeros(shapes[0], dtype=getattr(T, dout)))
    except Exception as e:  # noqa: BLE001  (the error is what is compared)
        return type(e).__name__, str(e).split("\n")[0]
    return "ok", None


def test_product_out_errors_match_torch(torch):
    diffs = [(c, w, g) for c in _product_out_calls()
             for w, g in [(_message(torch, *c), _message(mt, *c))] if w != g]
    assert not diffs, diffs[:5]
