"""``out=`` with inputs (or an ``out``) that require grad, as torch 2.13 treats them: a
differentiable op refuses before its own checks of ``out``, naming the ATen op it dispatches to;
ops without a derivative run and record nothing; ``softmax``/``log_softmax``/``diag``/
``floor_divide`` run and leave ``out`` requiring grad through a node whose backward raises;
``tensordot`` records the copy into ``out``. Also the argument errors found by the same sweep
(``vstack``/``hstack`` of a tensor, ``addcmul``/``addcdiv`` of numbers, ``addmm`` of vectors)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from minitorch_cs import torch
from minitorch_cs.torch._functions import _TAKES_OUT

_AG = "functions with out=... arguments don't support automatic differentiation"


def _x(T, rg=True):
    x = T.arange(1., 7.).reshape(2, 3) / 7
    return x.requires_grad_() if rg else x


def _patterns(T, x):
    """Argument lists tried in turn; the first one torch runs without ``out`` is the call."""
    i = T.tensor([[0, 1, 0]])
    s = T.tensor([0.1, 0.5, 0.9])
    return [(x,), (x, x), (x, 0), (x, 2.0), (x, 0, i), (x, x, x), (x, x.t()), (x[0], x[0]),
            ([x, x],), (x, 1), (x, x, 0.5), (s, x), (x > 0.3, x, x), (x, 0, T.tensor([0])),
            (x.reshape(1, 2, 3), x.reshape(1, 3, 2)), (x, x.t(), x), (x[0], x[0], x[0])]


def _outcome(f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 (the error is the outcome)
        return f"{type(e).__name__}: {str(e).splitlines()[0]}"
    outs = r if isinstance(r, tuple) else (r,)
    return ("ok", tuple(o.requires_grad for o in outs))


def _sweep(T, names):
    """Per function: the first pattern it runs without ``out``, and the outcome with an
    ``out`` of each dtype (an input that requires grad)."""
    res = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in names:
            f = getattr(T, n)
            for k in range(len(_patterns(T, _x(T, False)))):
                if _outcome(lambda: f(*_patterns(T, _x(T, False))[k]))[0] != "ok":
                    continue
                res[n] = (k, [_outcome(lambda: f(*_patterns(T, _x(T))[k],
                                                 out=T.empty(1, dtype=getattr(T, dt))))
                              for dt in ("long", "float16", "bool", "float32", "float64")])
                break
    return res


def test_every_out_function_treats_grad_as_torch():
    real = pytest.importorskip("torch")
    want = _sweep(real, _TAKES_OUT)
    got = _sweep(torch, _TAKES_OUT)
    diffs = {n: (want[n], got.get(n)) for n in want if want[n] != got.get(n)}
    assert not diffs, diffs


def test_differentiable_ops_refuse_before_checking_out():
    x = _x(torch)
    with pytest.raises(RuntimeError, match=r"^abs\(\): " + _AG):
        torch.abs(x, out=torch.empty(1, dtype=torch.long))  # (not "Found dtype Long")
    with pytest.raises(RuntimeError, match=r"^cat\(\): " + _AG):
        torch.vstack([x, x], out=torch.empty(1))
    with pytest.raises(RuntimeError, match=r"^mul\(\): " + _AG):
        torch.outer(x[0], x[0], out=torch.empty(1))
    with pytest.raises(RuntimeError, match=r"^pow\(\): " + _AG):
        torch.float_power(x, 2, out=torch.empty(1, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="float_power has dtype Float"):
        torch.float_power(x, 2, out=torch.empty(1))  # its own check comes first
    with pytest.raises(RuntimeError, match=r"^abs\(\): " + _AG):  # out itself requires grad
        torch.abs(x.detach(), out=torch.empty(2, 3, requires_grad=True))
    with torch.no_grad():
        o = torch.empty(2, 3, requires_grad=True)
        assert torch.abs(x, out=o) is o and o.requires_grad and o.grad_fn is None


def test_ops_without_a_derivative_run_and_record_nothing():
    x = _x(torch)
    o = torch.empty(2, 3, dtype=torch.bool)
    assert torch.eq(x, x, out=o) is o and not o.requires_grad
    i = torch.empty(3, dtype=torch.long)
    torch.argmax(x, 0, out=i)
    assert i.tolist() == [1, 1, 1] and not i.requires_grad


@pytest.mark.parametrize("call, aten", [
    (lambda x, o: torch.softmax(x, 0, out=o), "aten::softmax"),
    (lambda x, o: torch.log_softmax(x, 0, out=o), "aten::log_softmax"),
    (lambda x, o: torch.diag(x, out=o), "aten::diagonal_copy"),
    (lambda x, o: torch.floor_divide(x, 2, out=o), "aten::floor_divide")])
def test_composites_without_an_out_derivative_leave_a_node_that_raises(call, aten):
    x = _x(torch)
    o = torch.empty(0)
    assert call(x, o) is o and o.requires_grad
    np.testing.assert_array_equal(o.detach().numpy(), call(x.detach(), torch.empty(0)).numpy())
    with pytest.raises(RuntimeError, match=f"derivative for {aten} is not implemented"):
        o.sum().backward()
    with pytest.raises(RuntimeError, match=f"^{aten}\\(\\): " + _AG):
        call(x.detach(), torch.empty(0, requires_grad=True))


def test_tensordot_records_the_copy_into_out():
    x = _x(torch)
    o = torch.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an empty out is resized without a warning
        torch.tensordot(x, x, 2, out=o)
    o.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="'out' tensor was specified and requires gradients"):
        torch.tensordot(x, x, 2, out=torch.empty(0, requires_grad=True))


def test_argument_errors_found_by_the_sweep():
    x = _x(torch, False)
    with pytest.raises(TypeError, match=r"^vstack\(\): argument 'tensors'"):
        torch.vstack(x)
    with pytest.raises(TypeError, match=r"^hstack\(\): argument 'tensors'"):
        torch.hstack(x)
    with pytest.raises(TypeError, match=r"argument 'tensor1' \(position 2\) must be Tensor"):
        torch.addcmul(x, 0, x)
    with pytest.raises(TypeError, match=r"argument 'tensor2' \(position 3\) must be Tensor"):
        torch.addcdiv(x, x, 2)
    with pytest.raises(TypeError, match=r"^addcmul_\(\): argument 'tensor2' \(position 2\)"):
        x.addcmul_(x, 2)
    with pytest.raises(RuntimeError, match="mat1 must be a matrix, got 1-D tensor"):
        torch.addmm(x[0], x[0], x[0])
    with pytest.raises(RuntimeError, match="mat2 must be a matrix, got 1-D tensor"):
        x.addmm_(x, x[0])
    with pytest.raises(TypeError, match='median\\(\\) missing 1 required positional arguments'):
        torch.median(x, out=torch.empty(()))
    with pytest.raises(TypeError, match=r"^abs\(\): argument 'out' must be Tensor, not tuple"):
        torch.abs(x, out=(torch.empty(1),))
    with pytest.raises(TypeError, match=r"^topk\(\): argument 'out' must be tuple of Tensors"):
        torch.topk(x, 1, out=torch.empty(1))
    with pytest.raises(TypeError, match=r"got \(Tensor, int, out=Tensor\)"):
        torch.max(x, 0, out=torch.empty(1))
