"""``torch.autograd.functional``: values against analytic derivatives, and (with PyTorch
installed) values, structures, ``requires_grad`` of the results and errors against torch's on a
table of calls: tensor and tuple inputs and outputs, ``create_graph``, ``strict``, ``vectorize``,
``strategy`` and bad arguments."""
from __future__ import annotations

import numpy as np
import pytest

from minitorch_cs import torch
from tests.helpers import assert_close, to_numpy

AF = torch.autograd.functional


def t64(*vals):
    return torch.tensor(list(vals), dtype=torch.float64)


# ----- analytic values -----------------------------------------------------------------------------
def test_jacobian_of_elementwise_function_is_diagonal():
    x = t64(0.5, -1.0, 2.0)
    J = AF.jacobian(lambda v: v.exp() * 2, x)
    assert J.shape == (3, 3) and not J.requires_grad
    assert_close(to_numpy(J), np.diag(2 * np.exp([0.5, -1.0, 2.0])))


def test_jacobian_nesting_follows_tuples():
    x, y = t64(1.0, 2.0), t64(3.0)
    J = AF.jacobian(lambda a, b: (a * b, (a ** 2).sum()), (x, y))
    assert isinstance(J, tuple) and len(J) == 2 and all(len(r) == 2 for r in J)
    assert [tuple(j.shape) for r in J for j in r] == [(2, 2), (2, 1), (2,), (1,)]
    assert_close(to_numpy(J[0][0]), np.diag([3.0, 3.0]))
    assert_close(to_numpy(J[0][1]), np.array([[1.0], [2.0]]))
    assert_close(to_numpy(J[1][0]), np.array([2.0, 4.0]))
    assert_close(to_numpy(J[1][1]), np.zeros(1))  # independent: zeros (strict=False)
    # one tuple input, one tensor output: a tuple over the inputs
    J = AF.jacobian(lambda a, b: a * b, (x, y))
    assert isinstance(J, tuple) and len(J) == 2


def test_hessian_of_cubic():
    x = t64(1.0, -2.0)
    H = AF.hessian(lambda v: (v ** 3).sum(), x)
    assert_close(to_numpy(H), np.diag([6.0, -12.0]))
    H = AF.hessian(lambda a, b: (a * a * b).sum(), (x, t64(3.0, 4.0)))
    assert_close(to_numpy(H[0][0]), np.diag([6.0, 8.0]))
    assert_close(to_numpy(H[0][1]), np.diag([2.0, -4.0]))
    assert_close(to_numpy(H[1][1]), np.zeros((2, 2)))


@pytest.mark.parametrize("name", ["hvp", "vhp"])
def test_hessian_vector_products(name):
    x, v = t64(1.0, -2.0, 0.5), t64(1.0, 2.0, -1.0)
    out, hv = getattr(AF, name)(lambda a: (a ** 3).sum() + (a[0] * a[1]), x, v)
    H = np.diag(6 * np.array([1.0, -2.0, 0.5]))
    H[0, 1] = H[1, 0] = 1.0
    assert_close(to_numpy(hv), H @ np.array([1.0, 2.0, -1.0]))
    assert_close(float(out), 1.0 - 8.0 + 0.125 - 2.0)


def test_vjp_and_jvp():
    x = t64(0.3, 0.7)
    out, vj = AF.vjp(lambda a: a.sin() * a, x, t64(1.0, -1.0))
    d = np.cos([0.3, 0.7]) * [0.3, 0.7] + np.sin([0.3, 0.7])
    assert_close(to_numpy(vj), d * [1.0, -1.0])
    out, jv = AF.jvp(lambda a: (a.sin() * a, a.sum()), x, t64(2.0, 3.0))
    assert isinstance(jv, tuple)
    assert_close(to_numpy(jv[0]), d * [2.0, 3.0])
    assert_close(float(jv[1]), 5.0)
    # a single-element input or output: v may be omitted
    _, vj = AF.vjp(lambda a: (a ** 2).sum(), x)
    assert_close(to_numpy(vj), [0.6, 1.4])


def test_create_graph_results_are_differentiable():
    x = t64(1.5).requires_grad_(True)
    H = AF.hessian(lambda a: (a ** 4).sum(), x, create_graph=True)
    assert H.requires_grad
    (g3,) = torch.autograd.grad(H.sum(), x)
    assert_close(to_numpy(g3), [24 * 1.5])
    _, hv = AF.hvp(lambda a: (a ** 4).sum(), x, t64(1.0), create_graph=True)
    assert hv.requires_grad
    _, hv = AF.hvp(lambda a: (a ** 4).sum(), x, t64(1.0))
    assert not hv.requires_grad


def test_func_differentiates_what_it_receives():
    # a tensor the function captured is not its input: torch's fresh inputs
    x = t64(2.0).requires_grad_(True)
    J = AF.jacobian(lambda a: a * x, x)
    assert_close(to_numpy(J), [[2.0]])


def test_forward_mode_jacobian_matches_reverse_mode():
    x = torch.tensor([0.1, 0.2, 0.3])
    f = lambda a: (a.exp(), a.sum() * a[:2])  # noqa: E731
    fwd = AF.jacobian(f, x, vectorize=True, strategy="forward-mode")
    rev = AF.jacobian(f, x)
    for a, b in zip(fwd, rev):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert_close(to_numpy(a), to_numpy(b), rtol=1e-6)
    H = AF.hessian(lambda a: (a ** 3).sum(), x.double(), vectorize=True,
                   outer_jacobian_strategy="forward-mode")
    assert_close(to_numpy(H), np.diag([0.6, 1.2, 1.8]))


def test_large_cdist_differentiates_twice():
    # p=2 with more than 25 rows: torch's matrix-product path, differentiable again
    g = torch.Generator().manual_seed(0)
    a = torch.randn(27, 2, dtype=torch.float64, generator=g)
    b = torch.randn(3, 2, dtype=torch.float64, generator=g)
    assert torch.autograd.gradgradcheck(lambda x, y: torch.cdist(x, y),
                                        (a.requires_grad_(), b.requires_grad_()), fast_mode=True)


# ----- against torch -------------------------------------------------------------------------------
def _cube(T, a):
    return (a ** 3).sum()


def _two_out(T, a, b):
    return a * b.sin(), (a ** 2).sum()


def _linear(T, a):
    return 2 * a


def _uses_first(T, a, b):
    return (a ** 2).sum()


def _vector(T, a):
    return a.exp()


def _number(T, a):
    return 3.0


def _detached(T, a):
    return a.detach() * 2


A = np.array([0.5, -1.5, 2.0])
B = np.array([1.0, 0.25, -0.5])
S = np.array([0.7])

# (api, function, inputs (one array or a tuple), v (None / array / tuple / "list"), kwargs)
CASES = [
    ("jacobian", _vector, A, None, {}),
    ("jacobian", _two_out, (A, B), None, {}),
    ("jacobian", _two_out, (A, B), None, {"create_graph": True}),
    ("jacobian", _two_out, (A, B), None, {"vectorize": True}),
    ("jacobian", _uses_first, (A, B), None, {"strict": True}),
    ("jacobian", _uses_first, (A, B), None, {"strict": True, "vectorize": True}),
    ("jacobian", _linear, A, None, {"strict": True, "create_graph": True}),
    ("jacobian", _detached, A, None, {"strict": True}),
    ("jacobian", _number, A, None, {}),
    ("jacobian", _vector, A, None, {"strategy": "sideways"}),
    ("jacobian", _vector, A, None, {"strategy": "forward-mode"}),
    ("jacobian", _vector, A, None, {"strategy": "forward-mode", "vectorize": True}),
    ("jacobian", _vector, A, None, {"strategy": "forward-mode", "create_graph": True}),
    ("jacobian", _vector, A, None, {"strategy": "forward-mode", "strict": True}),
    ("jacobian", _vector, "list", None, {}),
    ("hessian", _cube, A, None, {}),
    ("hessian", _cube, A, None, {"create_graph": True}),
    ("hessian", _uses_first, (A, B), None, {}),
    ("hessian", _uses_first, (A, B), None, {"strict": True}),
    ("hessian", _vector, A, None, {}),
    ("hessian", _two_out, (A, B), None, {}),
    ("hessian", _linear, S, None, {"strict": True}),
    ("hessian", _cube, A, None, {"outer_jacobian_strategy": "forward-mode",
                                 "vectorize": True}),
    ("hessian", _cube, A, None, {"outer_jacobian_strategy": "sideways"}),
    ("vjp", _vector, A, B, {}),
    ("vjp", _two_out, (A, B), (B, np.array(2.0)), {}),
    ("vjp", _two_out, (A, B), (B, np.array(2.0)), {"create_graph": True}),
    ("vjp", _vector, A, None, {}),
    ("vjp", _vector, A, B[:2], {}),
    ("vjp", _two_out, (A, B), (B,), {}),
    ("vjp", _two_out, (A, B), B, {}),
    ("vjp", _uses_first, (A, B), np.array(1.0), {"strict": True}),
    ("vjp", _detached, A, B, {"strict": True}),
    ("vjp", _cube, S, None, {}),
    ("jvp", _vector, A, B, {}),
    ("jvp", _two_out, (A, B), (B, A), {}),
    ("jvp", _two_out, (A, B), (B, A), {"create_graph": True}),
    ("jvp", _vector, A, None, {}),
    ("jvp", _vector, S, None, {}),
    ("jvp", _vector, A, (B, B), {}),
    ("jvp", _linear, A, B, {"strict": True}),
    ("jvp", _uses_first, (A, B), (A, B), {"strict": True}),
    ("hvp", _cube, A, B, {}),
    ("hvp", _cube, A, B, {"create_graph": True}),
    ("hvp", _uses_first, (A, B), (A, B), {}),
    ("hvp", _uses_first, (A, B), (A, B), {"strict": True}),
    ("hvp", _linear, S, None, {"strict": True}),
    ("hvp", _vector, A, B, {}),
    ("hvp", _cube, A, None, {}),
    ("vhp", _cube, A, B, {}),
    ("vhp", _cube, A, B, {"create_graph": True}),
    ("vhp", _uses_first, (A, B), (A, B), {}),
    ("vhp", _uses_first, (A, B), (A, B), {"strict": True}),
    ("vhp", _two_out, (A, B), (A, B), {}),
    ("vhp", _cube, "list", B, {}),
]


def _run(T, api, fn, inputs, v, kw):
    def mk(a):
        return T.from_numpy(np.array(a, dtype=np.float64))

    if isinstance(inputs, str):
        ins = [mk(A)]
    else:
        ins = tuple(mk(a) for a in inputs) if isinstance(inputs, tuple) else mk(inputs)
    args = [lambda *xs: fn(T, *xs), ins]
    if api in ("vjp", "jvp", "hvp", "vhp"):
        args.append(None if v is None else tuple(mk(a) for a in v) if isinstance(v, tuple)
                    else mk(v))
    try:
        res = getattr(T.autograd.functional, api)(*args, **kw)
    except Exception as e:  # noqa: BLE001 (compared with torch's)
        return ("error", type(e).__name__, str(e))
    return _struct(res)


def _struct(r):
    if isinstance(r, tuple):
        return tuple(_struct(x) for x in r)
    return ("tensor", tuple(r.shape), str(r.dtype).replace("torch.", ""), bool(r.requires_grad),
            to_numpy(r.detach()))


def _compare(got, want, where):
    if isinstance(want, tuple) and want and want[0] == "error":
        assert got[:2] == want[:2] and got[2] == want[2], f"{where}: {got} != {want}"
        return
    if isinstance(want, tuple) and want and want[0] == "tensor":
        assert isinstance(got, tuple) and got[0] == "tensor", f"{where}: got {got}"
        assert got[1:4] == want[1:4], f"{where}: {got[1:4]} != {want[1:4]}"
        assert_close(got[4], want[4], rtol=1e-9, atol=1e-12, call=where)
        return
    assert isinstance(got, tuple) and len(got) == len(want), f"{where}: {got} != {want}"
    for k, (g, w) in enumerate(zip(got, want)):
        _compare(g, w, f"{where}[{k}]")


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1].__name__}-{i}"
                                             for i, c in enumerate(CASES)])
def test_matches_torch(case):
    torch_ref = pytest.importorskip("torch")
    api, fn, inputs, v, kw = case
    want = _run(torch_ref, api, fn, inputs, v, kw)
    got = _run(torch, api, fn, inputs, v, kw)
    _compare(got, want, f"{api}({fn.__name__}, {kw})")


def test_the_error_cases_raise_without_torch():
    # the same table, checked for the error types alone (runs without PyTorch)
    errors = {i: c for i, c in enumerate(CASES)
              if (c[4].get("strict") and c[1] in (_uses_first, _detached, _linear)
                  and (c[0], c[1]) != ("jvp", _linear))
              or c[1] is _number or isinstance(c[2], str)}
    assert len(errors) >= 10
    for i, (api, fn, inputs, v, kw) in errors.items():
        got = _run(torch, api, fn, inputs, v, kw)
        assert got[0] == "error" and got[1] in ("RuntimeError", "TypeError"), (i, got)
