"""``torch.autograd.gradcheck`` / ``gradgradcheck``: passes on correct gradients (ops of the
table, a layer, custom Functions), ``GradcheckError`` with torch's messages on wrong ones, the
argument checks, and (with PyTorch installed) the same verdicts and messages as torch's on a
table of calls."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from minitorch_cs import torch
from minitorch_cs.torch.autograd.gradcheck import GradcheckError

gradcheck = torch.autograd.gradcheck
gradgradcheck = torch.autograd.gradgradcheck


def leaf(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, dtype=torch.float64, generator=g).requires_grad_(True)


def _wrong_backward(T):
    class Bad(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x * 3  # the derivative of x*x is 2x

    return Bad


def _unscaled_backward(T):
    class Unscaled(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            # right for every nonzero grad_output, but not 0 for a zero one
            return g * 2 + (g == 0).all().to(g.dtype)

    return Unscaled


# ----- correct gradients pass ----------------------------------------------------------------------
@pytest.mark.parametrize("fast_mode", [False, True])
def test_ops_and_layers_pass(fast_mode):
    x, w, b = leaf(3, 4), leaf(2, 4, seed=1), leaf(2, seed=2)
    assert gradcheck(lambda x, w, b: torch.nn.functional.linear(x, w, b).tanh(), (x, w, b),
                     fast_mode=fast_mode)
    assert gradcheck(lambda x: (x.softmax(-1), x.logsumexp(0)), x, fast_mode=fast_mode)
    img = leaf(1, 2, 5, 5, seed=3)
    k = leaf(3, 2, 3, 3, seed=4)
    assert gradcheck(lambda a, b: torch.nn.functional.conv2d(a, b, padding=1), (img, k),
                     fast_mode=fast_mode)
    torch.manual_seed(0)
    layer = torch.nn.LayerNorm(4).double()
    assert gradcheck(lambda a, wt, bs: torch.nn.functional.layer_norm(a, (4,), wt, bs),
                     (x, layer.weight, layer.bias), fast_mode=fast_mode)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_second_derivatives_pass(fast_mode):
    x, w = leaf(3, 4), leaf(4, 2, seed=1)
    assert gradgradcheck(lambda x, w: (x @ w).sigmoid(), (x, w), fast_mode=fast_mode)
    assert gradgradcheck(lambda x: torch.nn.functional.log_softmax(x, -1), x,
                         fast_mode=fast_mode)
    assert gradgradcheck(lambda x: (x.exp(), x.norm()), x, gen_non_contig_grad_outputs=True,
                         fast_mode=fast_mode)
    go = torch.ones(3, 2, dtype=torch.float64)
    assert gradgradcheck(lambda x, w: (x @ w).tanh(), (x, w), go)


# ----- wrong gradients fail ------------------------------------------------------------------------
def test_wrong_backward_raises_gradcheck_error():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    Bad = _wrong_backward(torch)
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to "
                                             "input 0,\nnumerical:tensor") as e:
        gradcheck(Bad.apply, (x,))
    assert isinstance(e.value, RuntimeError)
    assert "[[3., 0.],\n        [0., 6.]]" in str(e.value)
    with pytest.raises(GradcheckError, match="in fast mode"):
        gradcheck(Bad.apply, (x,), fast_mode=True)
    assert gradcheck(Bad.apply, (x,), raise_exception=False) is False


def test_backward_must_scale_by_grad_output():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match="backward not multiplied by grad_output"):
        gradcheck(_unscaled_backward(torch).apply, (x,))


def test_no_differentiable_output():
    x = leaf(2)
    assert gradcheck(lambda t: (t * 2).detach() * 0, (x,))
    with pytest.raises(GradcheckError, match="Numerical gradient for function expected to be "
                                             "zero"):
        gradcheck(lambda t: (t * 2).detach(), (x,))


def test_argument_checks():
    x = leaf(2)
    with pytest.raises(ValueError, match="none of them have requires_grad=True"):
        gradcheck(lambda t: t * 2, (x.detach(),))
    with pytest.raises(RuntimeError, match="The 0th input has a dimension with stride 0"):
        gradcheck(lambda t: t * 2, (x.detach()[:1].expand(3).requires_grad_(),))
    with pytest.raises(AssertionError, match="check_forward_ad or check_backward_ad"):
        gradcheck(lambda t: t, (x,), check_backward_ad=False)
    with pytest.raises(AssertionError, match="check_fwd_over_rev or check_rev_over_rev"):
        gradgradcheck(lambda t: t, (x,), check_rev_over_rev=False)
    for flag in ("check_forward_ad", "check_batched_grad"):
        with pytest.raises(NotImplementedError, match="no forward-mode AD and no vmap"):
            gradcheck(lambda t: t * 2, (x,), **{flag: True})
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert gradcheck(lambda t: t * 2, (x.detach().float().requires_grad_(),), eps=1e-3,
                         atol=1e-2)
    assert any("Input #0 requires gradient and is not a double precision" in str(m.message)
               for m in w)


def test_perturbation_leaves_inputs_unchanged():
    x = leaf(3)
    before = x.detach().clone()
    gradcheck(lambda t: t.sin(), (x,))
    assert torch.equal(x.detach(), before) and x.grad is None


# ----- against torch -------------------------------------------------------------------------------
def _sq_sum(T, a, b):
    return (a * b).sum(-1)


def _two(T, a, b):
    return a.exp() * b, (a - b).abs().sum()


def _max(T, a, b):
    return T.maximum(a, b)


def _bad(T, a, b):
    return _wrong_backward(T).apply(a) + b


def _unscaled(T, a, b):
    return _unscaled_backward(T).apply(a) * b


CALLS = [(fn, check, kw) for fn in (_sq_sum, _two, _max, _bad, _unscaled)
         for check in ("gradcheck", "gradgradcheck")
         for kw in ({}, {"fast_mode": True}, {"raise_exception": False})]


def _run(T, fn, check, kw):
    rng = np.random.default_rng(0)
    a = T.from_numpy(rng.standard_normal((2, 3))).requires_grad_(True)
    b = T.from_numpy(rng.standard_normal((2, 3))).requires_grad_(True)
    go = None
    if check == "gradgradcheck":  # fixed grad_outputs: torch's random stream is not ours
        outs = fn(T, a, b)
        outs = outs if isinstance(outs, tuple) else (outs,)
        go = tuple(T.from_numpy(rng.uniform(-1, 1, tuple(o.shape))).requires_grad_(True)
                   for o in outs)
    try:
        if check == "gradcheck":
            return T.autograd.gradcheck(lambda x, y: fn(T, x, y), (a, b), **kw)
        return T.autograd.gradgradcheck(lambda x, y: fn(T, x, y), (a, b), go, **kw)
    except Exception as e:  # noqa: BLE001 (compared with torch's)
        return (type(e).__name__, str(e).split("\n")[0])


@pytest.mark.parametrize("call", CALLS, ids=[f"{c[1]}-{c[0].__name__}-{list(c[2])}"
                                             for c in CALLS])
def test_verdicts_match_torch(call):
    torch_ref = pytest.importorskip("torch")
    want = _run(torch_ref, *call)
    got = _run(torch, *call)
    assert got == want


# ----- layers outside the op table differentiate twice ---------------------------------------------
def _layer_cases():
    F = torch.nn.functional
    g = torch.Generator().manual_seed(0)

    def r(*s):
        return torch.randn(*s, dtype=torch.float64, generator=g).requires_grad_(True)

    cases = {
        "scaled_dot_product_attention": (
            lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
            (r(1, 2, 3, 4), r(1, 2, 3, 4), r(1, 2, 3, 4))),
        "conv_transpose2d": (lambda x, w: F.conv_transpose2d(x, w, stride=2),
                             (r(1, 2, 3, 3), r(2, 3, 2, 2))),
        "conv_transpose1d": (lambda x, w: F.conv_transpose1d(x, w, stride=2),
                             (r(1, 2, 4), r(2, 3, 3))),
        "interpolate_bilinear": (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
                                 (r(1, 1, 3, 3),)),
        "rms_norm": (lambda x, w: F.rms_norm(x, (4,), w), (r(3, 4), r(4))),
        "pixel_shuffle": (lambda x: F.pixel_shuffle(x, 2), (r(1, 4, 2, 2),)),
        "embedding": (lambda w: F.embedding(torch.tensor([0, 2, 1, 2]), w), (r(3, 4),)),
        "mish": (F.mish, (r(5),)),
        "max_pool1d": (lambda x: F.max_pool1d(x, 2), (r(1, 2, 6),)),
    }
    for name in ("LSTM", "GRU"):
        torch.manual_seed(0)
        m = getattr(torch.nn, name)(3, 2, batch_first=True).double()
        cases[name] = (lambda x, m=m: m(x)[0], (r(1, 2, 3),))
    return cases


@pytest.mark.parametrize("name", sorted(_layer_cases()))
def test_layers_differentiate_twice(name):
    fn, args = _layer_cases()[name]
    assert gradgradcheck(fn, args, fast_mode=True)
