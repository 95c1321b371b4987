"""Tensor semantics beyond single ops: promotion, views and in-place, the version counter, grad
modes, autograd API, RNG, creation, conversion, repr, meta tensors, and documented errors.

Where torch is importable, promotion and repr are also compared with it directly.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from minitorch_cs import torch
from tests import strategies as S
from tests.helpers import assert_close, gradcheck

try:
    import torch as real_torch
except ImportError:  # the oracle comparisons below skip
    real_torch = None

needs_torch = pytest.mark.skipif(real_torch is None, reason="torch is not installed")


# ----- dtype promotion --------------------------------------------------------------------------
def _operand(T, spec):
    """'f32[2]' a dimensioned tensor, 'i64[]' a zero-dim tensor, or a Python scalar."""
    if not isinstance(spec, str):
        return spec
    name, dims = spec.split("[")
    dt = getattr(T, _NAMES[name])
    return T.ones(2, dtype=dt) if dims == "2]" else T.ones((), dtype=dt)


_NAMES = {"b": "bool", "u8": "uint8", "i8": "int8", "i16": "int16", "i32": "int32",
          "i64": "int64", "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64"}

# torch's rules: dimensioned tensors > zero-dim tensors > Python scalars, and a lower group only
# matters when its category (bool < integer < floating) is higher.
PROMOTION = [
    ("i64[2]", "f32[]", "float32"), ("i32[2]", "i64[]", "int32"), ("f16[2]", "f64[]", "float16"),
    ("u8[2]", "i8[2]", "int16"), ("u8[2]", 1, "uint8"), ("u8[2]", 1.5, "float32"),
    ("b[2]", 1, "int64"), ("b[2]", True, "bool"), ("i32[2]", 2.5, "float32"),
    ("f64[]", "f32[]", "float64"), ("i64[]", 1.0, "float32"), ("f16[2]", "bf16[2]", "float32"),
    ("bf16[2]", 1.0, "bfloat16"), ("i8[2]", "u8[]", "int8"), ("b[]", "i32[2]", "int32"),
    ("f32[2]", "f64[2]", "float64"), ("i16[]", "i32[]", "int32"), ("b[2]", "f16[]", "float16"),
    ("i64[2]", True, "int64"), ("f32[]", 3, "float32"), ("b[]", 2.0, "float32"),
]


@pytest.mark.parametrize("a,b,want", PROMOTION, ids=[f"{a}+{b}" for a, b, _ in PROMOTION])
def test_promotion_table(a, b, want):
    x, y = _operand(torch, a), _operand(torch, b)
    if not isinstance(x, torch.Tensor):
        x, y = y, x
    assert torch.result_type(x, y) is getattr(torch, want)
    assert (x + y).dtype is getattr(torch, want), f"got {(x + y).dtype}, but should be {want}"
    assert (y * x).dtype is getattr(torch, want)


def test_promotion_with_default_dtype_float64():
    torch.set_default_dtype(torch.float64)
    try:
        assert (torch.ones(2, dtype=torch.int64) * 0.5).dtype is torch.float64
        assert torch.tensor([1.0]).dtype is torch.float64
        assert (torch.ones(2, dtype=torch.float32) * 0.5).dtype is torch.float32
    finally:
        torch.set_default_dtype(torch.float32)


def test_integer_wraparound_and_bool_results():
    u = torch.tensor([1, 250], dtype=torch.uint8)
    assert (u + 300).tolist() == [45, 38] and (u + 300).dtype is torch.uint8
    b = torch.tensor([True, False])
    assert (b | 1).dtype is torch.int64 and (b | True).dtype is torch.bool
    assert torch.sign(b).dtype is torch.bool and torch.square(b).dtype is torch.int64
    assert b.clamp(0, 1).dtype is torch.int64
    assert u.all().dtype is torch.uint8


def test_ops_with_fixed_result_dtypes():
    i = torch.tensor([3, 4])
    assert (i / 2).dtype is torch.float32 and (i / i).dtype is torch.float32
    assert (i // 2).dtype is torch.int64 and (i % 3).dtype is torch.int64
    assert (i > 2).dtype is torch.bool and (i == i).dtype is torch.bool
    assert torch.where(i > 3, i, 0.5).dtype is torch.float32
    assert torch.cat([i, torch.tensor([1.0])]).dtype is torch.float32
    assert i.sum().dtype is torch.int64 and torch.tensor([True, True]).sum().item() == 2
    assert torch.sqrt(i).dtype is torch.float32
    assert torch.promote_types(torch.uint8, torch.int8) is torch.int16


_OPERANDS = [f"{n}[{d}" for n in _NAMES for d in ("2]", "]")] + [True, 2, 2.5]


@needs_torch
def test_promotion_matches_torch_for_all_pairs():
    bad = []
    for a, b in itertools.product(_OPERANDS, repeat=2):
        if not isinstance(a, str):
            continue
        want = real_torch.result_type(_operand(real_torch, a), _operand(real_torch, b))
        got = torch.result_type(_operand(torch, a), _operand(torch, b))
        if str(got) != str(want):
            bad.append(f"{a}, {b}: got {got}, but should be {want}")
        x, y = _operand(torch, a), _operand(torch, b)
        if str((x * y).dtype) != str(want):
            bad.append(f"{a} * {b}: got {(x * y).dtype}, but should be {want}")
    assert not bad, "\n".join(bad)


@needs_torch
def test_promote_types_matches_torch():
    for a, b in itertools.product(_NAMES.values(), repeat=2):
        want = real_torch.promote_types(getattr(real_torch, a), getattr(real_torch, b))
        got = torch.promote_types(getattr(torch, a), getattr(torch, b))
        assert str(got) == str(want), f"promote_types({a}, {b}): got {got}, but should be {want}"


# ----- views share storage; in-place is visible through views ------------------------------------
VIEWS = {
    "view": lambda x: x.view(6, 2),
    "reshape": lambda x: x.reshape(3, 4),
    "flatten": lambda x: x.flatten(),
    "unflatten": lambda x: x.unflatten(1, (2, 2)),
    "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.permute(1, 0),
    "t": lambda x: x.t(),
    "T": lambda x: x.T,
    "unsqueeze": lambda x: x.unsqueeze(0),
    "squeeze": lambda x: x.unsqueeze(1).squeeze(1),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "select": lambda x: x.select(0, 1),
    "basic_index": lambda x: x[1:, ::2],
    "int_index": lambda x: x[1, 2],
    "ellipsis": lambda x: x[..., 0],
    "unbind": lambda x: x.unbind(1)[2],
    "chunk": lambda x: x.chunk(2, 1)[1],
    "split": lambda x: x.split(1, 0)[2],
    "diagonal": lambda x: x.diagonal(),
    "detach": lambda x: x.detach(),
    "data": lambda x: x.data,
    "view_as": lambda x: x.view_as(torch.zeros(12)),
    "movedim": lambda x: x.movedim(0, 1),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_share_storage_both_ways(name):
    x = torch.arange(12.0).reshape(3, 4)
    v = VIEWS[name](x)
    covered = np.unique(VIEWS[name](torch.arange(12).reshape(3, 4)).numpy())
    before = v.clone()
    x.add_(100)  # in-place on the base shows through the view
    assert_close(v, before.numpy() + 100, call=f"{name}: base modified")
    v.fill_(-7)  # in-place on the view shows in the base, exactly where the view looks
    flat = x.reshape(-1).numpy()
    assert np.all(flat[covered] == -7), name
    assert np.all(np.delete(flat, covered) == np.delete(np.arange(12.0) + 100, covered)), name


def test_expanded_views_read_the_base_and_refuse_writes():
    x = torch.arange(12.0).reshape(3, 4)
    e = x[:, :1].expand(3, 5)
    x.add_(1)
    assert e.tolist() == [[1.0] * 5, [5.0] * 5, [9.0] * 5]
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers "
                                           "to a single memory location"):
        e.fill_(0)


def test_copies_do_not_share_storage():
    x = torch.arange(6.0).reshape(2, 3)
    for c in (x[torch.tensor([0, 1])], x[x > 2], x.t().reshape(6), x.clone(), x.flip(0),
              x.contiguous().clone(), x.t().contiguous(), x.repeat(1, 1)):
        c.fill_(-1)
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert x.contiguous() is x and not x.t().is_contiguous() and x.t().contiguous().is_contiguous()


def test_setitem_and_inplace_ops_through_views():
    x = torch.zeros(3, 4)
    x[1] = 5.0
    x[:, 0] = torch.tensor([1.0, 2.0, 3.0])
    x[x > 4] += 1
    row = x[2]
    row[1:3] = 7.0
    x.t()[3].fill_(9.0)
    assert x.tolist() == [[1, 0, 0, 9], [2, 6, 6, 9], [3, 7, 7, 9]]
    y = torch.zeros(4)
    for e in y:  # iteration yields views
        e.add_(2)
    assert y.tolist() == [2.0] * 4


def test_index_forms():
    x = torch.arange(6).reshape(2, 3)
    assert torch.arange(3)[[]].tolist() == [] and torch.arange(3)[[]].dtype is torch.int64
    assert torch.arange(3)[torch.tensor([1, 0, 1], dtype=torch.uint8)].tolist() == [0, 2]
    assert x[[0, 1], [2, 0]].tolist() == [2, 3] and x[None, ..., 1].shape == (1, 2)
    assert x[torch.tensor([True, False])].tolist() == [[0, 1, 2]]
    assert repr(torch.arange(3)[5:]) == "tensor([], dtype=torch.int64)"


def test_version_counter_shared_by_views():
    x = torch.zeros(3)
    v = x[1:]
    assert x._version == 0
    v.add_(1)
    assert x._version == v._version == 1
    x[0] = 3.0
    assert v._version == 2
    x.detach().zero_()
    assert x._version == 3  # detach shares the counter


@pytest.mark.parametrize("modify", ["add_", "setitem", "view_mul_", "copy_", "zero_"])
def test_version_counter_error(modify):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y = a.exp()  # saves its output
    z = y * 2
    if modify == "add_":
        y.add_(1)
    elif modify == "setitem":
        y[0] = 0.0
    elif modify == "view_mul_":
        y[1:].mul_(3)
    elif modify == "copy_":
        y.copy_(torch.ones(2))
    else:
        y.zero_()
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation "
                                           "has been modified by an inplace operation"):
        (y.sum() + z.sum()).backward()


def test_version_counter_saved_input():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    c = b * b  # saves b
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()


def test_inplace_after_use_that_saves_nothing_is_fine():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    c = b + 1  # add saves nothing
    b.mul_(2)
    (c.sum() + b.sum()).backward()
    assert a.grad.tolist() == [3.0, 3.0]


def test_inplace_on_a_grad_view_of_a_plain_leaf_is_refused():
    """torch's check_inplace: a view that requires grad whose base is a leaf is refused, also
    when the base itself requires no grad (a view made a leaf by ``requires_grad_()``, and views
    of it); writing a gradient into a view of a plain buffer is fine (the view needs no grad)."""
    t = torch.zeros(3, 2)
    v = t[..., ::2].requires_grad_()
    for f in (lambda: v.erf_(), lambda: v.reshape(-1)[:1].erf_(), lambda: v[0].mul_(2)):
        with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is "
                                               "being used in an in-place operation.$"):
            f()
    buf = torch.zeros(4)
    p = torch.ones(2, requires_grad=True)
    buf[:2].copy_(p)
    assert buf.requires_grad and buf.grad_fn is not None


def test_leaf_inplace_errors_and_no_grad_exemption():
    w = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an "
                                           "in-place operation"):
        w.add_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        w[0].mul_(2)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w[0] = 3.0
    with torch.no_grad():
        w.add_(1)
        w[0] = 5.0
    assert w.tolist() == [5.0, 2.0] and w.is_leaf and w.grad_fn is None


# ----- grad modes -------------------------------------------------------------------------------
def _mode_cases():
    def plain(x):
        return x * 2

    return {
        "no_grad ctx": (lambda f, x: _ctx(torch.no_grad(), f, x), False),
        "no_grad bare decorator": (lambda f, x: torch.no_grad(f)(x), False),
        "no_grad called decorator": (lambda f, x: torch.no_grad()(f)(x), False),
        "enable_grad inside no_grad": (lambda f, x: _ctx(torch.no_grad(),
                                                         lambda y: _ctx(torch.enable_grad(), f, y), x),
                                       True),
        "enable_grad bare decorator inside no_grad": (
            lambda f, x: _ctx(torch.no_grad(), torch.enable_grad(f), x), True),
        "enable_grad decorator inside no_grad": (
            lambda f, x: _ctx(torch.no_grad(), torch.enable_grad()(f), x), True),
        "set_grad_enabled(False) ctx": (lambda f, x: _ctx(torch.set_grad_enabled(False), f, x),
                                        False),
        "set_grad_enabled(True) ctx in no_grad": (
            lambda f, x: _ctx(torch.no_grad(), lambda y: _ctx(torch.set_grad_enabled(True), f, y),
                              x), True),
        "set_grad_enabled decorator": (lambda f, x: torch.set_grad_enabled(False)(f)(x), False),
        "inference_mode ctx": (lambda f, x: _ctx(torch.inference_mode(), f, x), False),
        "inference_mode bare decorator": (lambda f, x: torch.inference_mode(f)(x), False),
        "inference_mode called decorator": (lambda f, x: torch.inference_mode()(f)(x), False),
        "inference_mode(False)": (lambda f, x: _ctx(torch.inference_mode(False), f, x), True),
        "plain": (lambda f, x: f(x), True),
    }, plain


def _ctx(cm, f, x):
    with cm:
        return f(x)


@pytest.mark.parametrize("case", sorted(_mode_cases()[0]))
def test_grad_modes(case):
    cases, plain = _mode_cases()
    run, records = cases[case]
    x = torch.ones(2, requires_grad=True)
    y = run(plain, x)
    assert y.requires_grad is records and (y.grad_fn is not None) is records
    assert torch.is_grad_enabled()  # restored afterwards


def test_grad_mode_restored_after_exception_and_nesting():
    with pytest.raises(ValueError):
        with torch.no_grad():
            raise ValueError
    assert torch.is_grad_enabled()
    with torch.no_grad():
        with torch.enable_grad():
            assert torch.is_grad_enabled()
        assert not torch.is_grad_enabled()
    torch.set_grad_enabled(False)  # the function form takes effect at once
    assert not torch.is_grad_enabled()
    torch.set_grad_enabled(True)
    assert torch.is_grad_enabled()
    with torch.inference_mode():
        assert torch.is_inference_mode_enabled() and not torch.is_grad_enabled()
    assert not torch.is_inference_mode_enabled()

    @torch.no_grad()
    def f():
        return torch.is_grad_enabled()

    assert f() is False and torch.is_grad_enabled()
    assert f.__name__ == "f"


# ----- requires_grad, accumulation, backward, autograd.grad ------------------------------------
def test_requires_grad_rules():
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2)
    assert (a + b).requires_grad and not (b * 2).requires_grad
    assert a.is_leaf and b.is_leaf and not (a * 2).is_leaf
    assert not a.detach().requires_grad and a.detach().is_leaf
    assert (a * 2).grad_fn.name() == "MulBackward0"
    c = torch.zeros(2).requires_grad_()
    assert c.requires_grad and c.is_leaf
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require grad"):
        torch.ones(2, dtype=torch.int64).requires_grad_()
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf"):
        (a * 2).requires_grad = False
    assert not (a > 0).requires_grad and not a.argmax().requires_grad
    assert (a * 2).detach().requires_grad is False


def test_grad_accumulates_and_sums_over_uses():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    (w * w + w).sum().backward()
    assert w.grad.tolist() == [3.0, 5.0]
    (w * 3).sum().backward()
    assert w.grad.tolist() == [6.0, 8.0]
    w.grad = None
    (w * w).sum().backward(retain_graph=False)
    assert w.grad.tolist() == [2.0, 4.0]


def test_backward_gradient_argument_and_errors():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    y.backward(gradient=torch.tensor([1.0, 0.5, -1.0]))
    assert x.grad.tolist() == [2.0, 2.0, -6.0]
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(torch.ones(2))
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        torch.ones(2).sum().backward()


def test_backward_inputs_and_grad_dtypes():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0], dtype=torch.float64, requires_grad=True)
    y = (a * b).sum()  # promotes to float64
    y.backward(inputs=[a])
    assert a.grad.dtype is torch.float32 and a.grad.tolist() == [3.0, 3.0] and b.grad is None
    v = a[1:] * 2  # gradients flow back through views into the base leaf
    v.sum().backward()
    assert a.grad.tolist() == [3.0, 5.0]
    d = (a * 2).detach_()
    assert not d.requires_grad and d.grad_fn is None


def test_retain_graph_and_second_backward_error():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    g1 = x.grad.clone()
    y.backward()
    assert_close(x.grad, 2 * g1.numpy())
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_autograd_grad():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    z = torch.tensor([3.0], requires_grad=True)
    y = (x ** 3).sum()
    (gx,) = torch.autograd.grad(y, x, retain_graph=True)
    assert gx.tolist() == [3.0, 12.0] and x.grad is None
    gx, gz = torch.autograd.grad(y, [x, z], allow_unused=True, retain_graph=True)
    assert gz is None and gx.tolist() == [3.0, 12.0]
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        torch.autograd.grad(y, [x, z], retain_graph=True)
    v = x * 2
    (g,) = torch.autograd.grad(v, x, grad_outputs=torch.tensor([1.0, -1.0]))
    assert g.tolist() == [2.0, -2.0]
    with pytest.raises(RuntimeError, match="does not require grad"):
        torch.autograd.grad((x * 2).sum(), torch.ones(2))


def test_register_hook_modifies_and_removes():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    h = x.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
    y = x * 3
    y.register_hook(lambda g: g + 1)  # non-leaf hook changes what flows back
    y.sum().backward()
    assert seen == [[6.0, 6.0]] and x.grad.tolist() == [60.0, 60.0]
    h.remove()
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0] and len(seen) == 1
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require"):
        torch.ones(1).register_hook(lambda g: g)


def test_retain_grad():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y * y
    y.retain_grad()
    z.sum().backward()
    assert y.retains_grad and y.grad.tolist() == [4.0, 8.0] and z.grad is None
    assert x.grad.tolist() == [8.0, 16.0]


class _Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x ** 3 * k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2 * ctx.k, None


class _SplitSign(torch.autograd.Function):
    """Two outputs, one marked non-differentiable."""

    @staticmethod
    def forward(ctx, x):
        s = torch.sign(x)
        ctx.mark_non_differentiable(s)
        ctx.save_for_backward(x)
        return x.abs(), s

    @staticmethod
    def backward(ctx, g_abs, g_sign):
        (x,) = ctx.saved_tensors
        return g_abs * torch.sign(x)


def test_custom_function():
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    y = _Cube.apply(x, 2.0)
    assert y.requires_grad and y.tolist() == [2.0, -16.0]
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 24.0]
    a, s = _SplitSign.apply(x)
    assert a.requires_grad and not s.requires_grad
    with torch.no_grad():
        assert not _Cube.apply(x, 1.0).requires_grad
    gradcheck(lambda t: _Cube.apply(t, 0.5), np.array([0.3, -1.2, 2.0]), name="custom _Cube")
    gradcheck(lambda t: _SplitSign.apply(t)[0], np.array([0.3, -1.2]), name="custom _SplitSign")


def test_embedding_padding_idx_gets_no_gradient():
    w = torch.randn(4, 2, requires_grad=True)
    torch.nn.functional.embedding(torch.tensor([0, 2, 2, 1]), w, padding_idx=2).sum().backward()
    assert w.grad.tolist() == [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]


def test_scatter_src_larger_than_index_gets_zero_padded_gradient():
    # torch's own backward rejects this case ("invalid gradient"); we return the exact gradient
    src = torch.ones(2, 3, requires_grad=True)
    out = torch.zeros(2, 3).scatter(1, torch.tensor([[2], [0]]), src)
    (out * torch.arange(6.0).reshape(2, 3)).sum().backward()
    assert src.grad.tolist() == [[2.0, 0.0, 0.0], [3.0, 0.0, 0.0]]


# ----- RNG --------------------------------------------------------------------------------------
def _draws(g=None):
    return [torch.rand(3, generator=g).tolist(), torch.randn(2, 2, generator=g).tolist(),
            torch.randint(0, 10, (4,), generator=g).tolist(), torch.randperm(5, generator=g).tolist(),
            torch.empty(3).uniform_(-1, 1, generator=g).tolist(),
            torch.empty(3).normal_(2, 0.5, generator=g).tolist(),
            torch.empty(4).bernoulli_(0.5, generator=g).tolist(),
            torch.empty(2).exponential_(generator=g).tolist(),
            torch.normal(0.0, 1.0, (2,), generator=g).tolist()]


@given(st.integers(0, 2 ** 63 - 1))
def test_same_seed_same_values(seed):
    torch.manual_seed(seed)
    a = _draws() + [torch.nn.functional.dropout(torch.ones(6), 0.5).tolist()]
    torch.manual_seed(seed)
    b = _draws() + [torch.nn.functional.dropout(torch.ones(6), 0.5).tolist()]
    assert a == b
    assert torch.initial_seed() == seed


def test_generators_are_independent():
    g1 = torch.Generator().manual_seed(7)
    g2 = torch.Generator().manual_seed(7)
    torch.manual_seed(1)
    first = _draws(g1)
    torch.rand(100)  # the default stream does not disturb g2
    assert _draws(g2) == first
    torch.manual_seed(1)
    d1 = _draws()
    torch.manual_seed(1)
    _draws(g1)  # nor does g1 disturb the default stream
    assert _draws() == d1
    assert torch.Generator().manual_seed(8).initial_seed() == 8
    assert _draws(torch.Generator().manual_seed(8)) != first


def test_state_round_trip_and_fork_rng():
    g = torch.Generator().manual_seed(3)
    torch.rand(5, generator=g)
    state = g.get_state()
    assert state.dtype is torch.uint8 and state.ndim == 1
    a = _draws(g)
    g.set_state(state)
    assert _draws(g) == a
    torch.manual_seed(11)
    s = torch.get_rng_state()
    x = torch.randn(3).tolist()
    torch.set_rng_state(s)
    assert torch.randn(3).tolist() == x
    with torch.fork_rng():
        torch.randn(10)
    assert torch.randn(3).tolist() != x  # the stream went on after x ...
    torch.set_rng_state(s)
    with torch.fork_rng():
        torch.manual_seed(99)
        torch.randn(10)
    assert torch.randn(3).tolist() == x  # ... and fork_rng restored the state
    assert isinstance(torch.seed(), int)
    assert isinstance(torch.manual_seed(0), torch.Generator)


@given(st.integers(0, 3 * (1 << 16) + 5), st.sampled_from(["float32", "float64"]),
       st.sampled_from(["uniform", "normal"]), st.booleans())
def test_in_place_fills_equal_fresh_draws_across_blocks(n, dtype, kind, offset):
    # uniform_/normal_ draw into the destination block by block; the values and the generator
    # state afterwards must equal one fresh draw of the whole size (SPEC 2.4).
    dt = getattr(torch, dtype)
    g1, g2 = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    if offset:  # leave half a 64-bit word buffered in both streams
        torch.rand(1, generator=g1), torch.rand(1, generator=g2)
    if kind == "uniform":
        a = torch.empty(n, dtype=dt).uniform_(-0.5, 2.0, generator=g1)
        b = torch.rand(n, dtype=dt, generator=g2) * 2.5 - 0.5
    else:
        a = torch.empty(n, dtype=dt).normal_(0.25, 0.02, generator=g1)
        b = torch.randn(n, dtype=dt, generator=g2) * 0.02 + 0.25
    assert np.array_equal(a.numpy(), b.numpy())
    assert torch.rand(3, generator=g1).tolist() == torch.rand(3, generator=g2).tolist()


def _box_muller_reference(u, n):
    """SPEC 2.4's normal_: u holds the n (+1 when n is odd) uniforms the fill consumed."""
    h = (n + 1) // 2
    r = np.sqrt(u.dtype.type(-2) * np.log(u.dtype.type(1) - u[:h]))
    t = u[h:2 * h] * u.dtype.type(2 * np.pi)
    return np.concatenate([r * np.cos(t), r * np.sin(t)])[:n]


@given(st.integers(0, 2 * (1 << 16) + 3), st.sampled_from(["float32", "float64"]),
       st.integers(0, 2 ** 32))
def test_normal_is_box_muller_on_the_uniform_stream(n, dtype, seed):
    dt = getattr(torch, dtype)
    g, ref = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
    z = torch.randn(n, dtype=dt, generator=g).numpy()
    u = torch.rand(n + n % 2, dtype=dt, generator=ref).numpy()  # the stream normal_ consumed
    assert z.dtype == u.dtype and np.isfinite(z).all()
    np.testing.assert_array_max_ulp(z, _box_muller_reference(u, n), maxulp=2)
    assert torch.rand(4, generator=g).tolist() == torch.rand(4, generator=ref).tolist()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_normal_samples_pass_a_normality_test(dtype):
    from scipy import stats
    z = torch.randn(200_001, dtype=dtype, generator=torch.Generator().manual_seed(1)).numpy()
    assert stats.kstest(z.astype(np.float64), "norm").pvalue > 1e-3
    assert stats.kstest(z[::2].astype(np.float64), "norm").pvalue > 1e-3  # pairs are independent
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1) < 0.01
    # float32 uniforms have 24 bits, so the radius never exceeds sqrt(-2 log 2**-24) (as in torch)
    if dtype is torch.float32:
        assert np.abs(z).max() <= np.sqrt(-2 * np.log(2.0 ** -24)) + 1e-5


def test_random_values_have_the_right_distribution_shape_and_dtype():
    torch.manual_seed(0)
    u = torch.rand(2000, dtype=torch.float64)
    assert u.dtype is torch.float64 and 0 <= u.min().item() and u.max().item() < 1
    assert abs(u.mean().item() - 0.5) < 0.05
    n = torch.randn(2000)
    assert abs(n.std().item() - 1) < 0.1
    r = torch.randint(3, 6, (1000,))
    assert r.dtype is torch.int64 and set(r.tolist()) == {3, 4, 5}
    assert sorted(torch.randperm(7).tolist()) == list(range(7))
    assert torch.rand(2, 3).shape == (2, 3) and torch.randn(()).shape == ()


# ----- creation ---------------------------------------------------------------------------------
def test_creation_dtypes_and_shapes():
    assert torch.zeros(2, 3).dtype is torch.float32 and torch.zeros((2, 3)).shape == (2, 3)
    assert torch.ones([4]).shape == (4,) and torch.empty(0).numel() == 0
    assert torch.full((2,), 3).dtype is torch.int64
    assert torch.full((2,), 3.0).dtype is torch.float32
    assert torch.full((2,), True).dtype is torch.bool
    assert torch.arange(5).dtype is torch.int64 and torch.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert torch.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert torch.arange(1.0, 4).dtype is torch.float32
    assert torch.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert torch.eye(2, 3).tolist() == [[1, 0, 0], [0, 1, 0]]
    x = torch.ones(2, 3, dtype=torch.float64)
    for like in (torch.zeros_like, torch.ones_like, torch.empty_like, torch.rand_like,
                 torch.randn_like):
        y = like(x)
        assert y.shape == x.shape and y.dtype is torch.float64
    assert torch.full_like(x, 7).tolist() == [[7.0] * 3] * 2
    assert torch.zeros(2, dtype=torch.int32).dtype is torch.int32
    assert torch.ones(2, requires_grad=True).requires_grad
    assert torch.tensor([1, 2]).dtype is torch.int64 and torch.tensor([1, 2.0]).dtype is torch.float32
    assert torch.tensor([True]).dtype is torch.bool and torch.tensor(3.0).shape == ()
    assert torch.tensor([[1, 2], [3, 4]], dtype=torch.float64).dtype is torch.float64
    assert torch.Size([2, 3]).numel() == 6 and repr(torch.ones(2, 3).shape) == "torch.Size([2, 3])"


def test_creation_errors():
    with pytest.raises(RuntimeError, match="negative dimension"):
        torch.zeros(2, -1)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        torch.arange(0, 5, 0)
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent"):
        torch.arange(5, 0, 1)
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        torch.linspace(0, 1, -1)
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        torch.randint(5, 5, (2,))
    with pytest.raises(TypeError, match="only floating-point types are supported as the default"):
        torch.set_default_dtype(torch.int32)
    with pytest.raises(RuntimeError, match="Could not infer dtype of object"):  # (torch's)
        torch.tensor(object())
    with pytest.raises(TypeError, match="expected np.ndarray"):
        torch.from_numpy([1, 2])


# ----- numpy interop, item, tolist --------------------------------------------------------------
def test_numpy_and_from_numpy_are_zero_copy():
    a = np.arange(6.0).reshape(2, 3)
    t = torch.from_numpy(a)
    assert t.dtype is torch.float64 and t.shape == (2, 3)
    a[0, 0] = 42
    assert t[0, 0].item() == 42
    t[1, 2] = -1
    assert a[1, 2] == -1
    n = t.numpy()
    assert np.shares_memory(n, a)
    v = t.t()  # a non-contiguous view stays zero-copy
    assert np.shares_memory(v.numpy(), a) and not v.is_contiguous()
    assert np.shares_memory(torch.as_tensor(a).numpy(), a)
    assert not np.shares_memory(torch.tensor(a).numpy(), a)  # torch.tensor copies
    with pytest.raises(RuntimeError, match=r"Use tensor.detach\(\).numpy\(\) instead"):
        torch.ones(2, requires_grad=True).numpy()


def test_item_and_tolist():
    assert torch.tensor(2.5).item() == 2.5 and isinstance(torch.tensor(2.5).item(), float)
    assert isinstance(torch.tensor([3]).item(), int) and isinstance(torch.tensor(True).item(), bool)
    assert torch.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert torch.tensor(1.5).tolist() == 1.5
    assert torch.tensor([1.0, 2.0], dtype=torch.bfloat16).tolist() == [1.0, 2.0]
    assert float(torch.tensor([2.0])) == 2.0 and int(torch.tensor(3)) == 3
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        torch.ones(2).item()
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value"):
        bool(torch.ones(2))


# ----- repr -------------------------------------------------------------------------------------
def _repr_cases(T):
    nan, inf = float("nan"), float("inf")
    return [T.tensor([1.0, 2.0, 3.0]), T.tensor([[1, 2], [3, 4]]), T.tensor(3.5),
            T.tensor([True, False]), T.tensor([1.5, 2.25], requires_grad=True),
            T.tensor([1.0, 2.0], dtype=T.float64), T.tensor([2.0], requires_grad=True) * 2,
            T.tensor([1e-5, 1e5]), T.tensor([]), T.tensor([1, 2], dtype=T.int32), T.zeros(2, 0),
            T.ones(2, 3, device="meta"), T.tensor([[1.5, -2.0], [3.0, 4.25]]), T.tensor(1e-10),
            T.tensor([0.1, 123456.0]), T.tensor([nan, inf, 1.0]), T.tensor(5),
            T.tensor([1.0, 2.0], dtype=T.float16), T.arange(12.0).reshape(2, 2, 3),
            T.tensor([0.001, 2.0]), T.tensor([0.0, 0.0]), T.tensor([-0.5, 0.0, 12.25]),
            T.tensor([1e9, 1.0]), T.tensor([[True], [False]]), T.zeros(3, dtype=T.int64)]


REPRS = {
    0: "tensor([1., 2., 3.])",
    1: "tensor([[1, 2],\n        [3, 4]])",
    2: "tensor(3.5000)",
    3: "tensor([ True, False])",
    4: "tensor([1.5000, 2.2500], requires_grad=True)",
    5: "tensor([1., 2.], dtype=torch.float64)",
    6: "tensor([4.], grad_fn=<MulBackward0>)",
    7: "tensor([1.0000e-05, 1.0000e+05])",
    8: "tensor([])",
    11: "tensor(..., device='meta', size=(2, 3))",
    15: "tensor([nan, inf, 1.])",
}


@pytest.mark.parametrize("i", sorted(REPRS))
def test_repr_like_torch(i):
    assert repr(_repr_cases(torch)[i]) == REPRS[i]


@needs_torch
def test_repr_matches_torch():
    for ours, theirs in zip(_repr_cases(torch), _repr_cases(real_torch)):
        assert repr(ours) == repr(theirs)


# ----- meta tensors -----------------------------------------------------------------------------
def test_meta_tensors():
    m = torch.ones(2, 3, device="meta")
    assert m.is_meta and m.device == torch.device("meta") and str(m.device) == "meta"
    assert m.shape == (2, 3) and m.dtype is torch.float32
    y = (m @ torch.empty(3, 4, device="meta")).relu().sum(0)
    assert y.is_meta and y.shape == (4,)
    assert m[0].is_meta and m.t().is_meta and torch.zeros_like(m).is_meta
    assert torch.randn(2, device="meta").is_meta and torch.ones(2).to("meta").is_meta
    with torch.device("meta"):
        assert torch.zeros(5).is_meta
    assert not torch.zeros(5).is_meta
    with pytest.raises(RuntimeError, match="cannot be called on meta tensors"):
        y.sum().item()
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        m.tolist()
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        m.numpy()
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        m.to("cpu")
    m.normal_()  # in-place fills are no-ops on meta tensors
    assert m.is_meta


def test_torch_namespace_basics():
    assert torch.nn.functional.relu is not None and torch.autograd.grad is not None
    assert torch.is_tensor(torch.ones(1)) and not torch.is_tensor(1)
    assert torch.float is torch.float32 and torch.long is torch.int64 and torch.double is torch.float64
    assert repr(torch.float32) == "torch.float32"
    assert torch.device("cpu") == "cpu" and repr(torch.device("cpu", 0)) == \
        "device(type='cpu', index=0)"


# ----- non-contiguous inputs behave like their contiguous copies --------------------------------
@given(S.shapes(min_dims=2).flatmap(lambda s: st.tuples(S.arrays(s, contiguous=True),
                                                        st.permutations(range(len(s))))))
def test_noncontiguous_leaf_same_as_contiguous(case):
    arr, perm = case
    nc = torch.from_numpy(S.noncontiguous(arr, perm)).requires_grad_()
    c = torch.from_numpy(arr.copy()).requires_grad_()
    for t in (nc, c):
        (t.exp() * t.flip(0)).sum().backward()
    assert_close(nc.grad, c.grad.numpy(), rtol=1e-12, call="non-contiguous leaf")


# ----- one test per documented error (type and message) ----------------------------------------
ERRORS = [
    ("matmul", lambda: torch.ones(2, 3) @ torch.ones(2, 3), RuntimeError,
     r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)"),
    ("view", lambda: torch.ones(2, 3).t().view(6), RuntimeError,
     "view size is not compatible with input tensor's size and stride"),
    ("shape", lambda: torch.ones(6).view(4), RuntimeError, r"shape '\[4\]' is invalid for input of size 6"),
    ("infer", lambda: torch.ones(6).view(-1, -1), RuntimeError, "only one dimension can be inferred"),
    ("dim range", lambda: torch.ones(2).sum(1), IndexError, r"Dimension out of range \(expected to be "
     r"in range of \[-1, 0\], but got 1\)"),
    ("index bounds", lambda: torch.ones(3)[3], IndexError,
     "index 3 is out of bounds for dimension 0 with size 3"),
    ("too many indices", lambda: torch.ones(3)[0, 0], IndexError,
     "too many indices for tensor of dimension 1"),
    ("float index", lambda: torch.ones(3)[torch.tensor([0.0])], IndexError,
     "tensors used as indices must be long, int, byte or bool tensors"),
    ("expand", lambda: torch.ones(2, 3).expand(4, 3), RuntimeError,
     r"The expanded size of the tensor \(4\) must match the existing size \(2\)"),
    ("cat dims", lambda: torch.cat([torch.ones(2), torch.ones(2, 2)]), RuntimeError,
     "Tensors must have same number of dimensions"),
    ("cat sizes", lambda: torch.cat([torch.ones(2, 2), torch.ones(3, 3)], 1), RuntimeError,
     "Sizes of tensors must match except in dimension 1"),
    ("stack", lambda: torch.stack([torch.ones(2), torch.ones(3)]), RuntimeError,
     "stack expects each tensor to be equal size"),
    ("split", lambda: torch.ones(5).split([2, 2]), RuntimeError,
     "split_with_sizes expects split_sizes to sum exactly to 5"),
    ("narrow", lambda: torch.ones(4).narrow(0, 2, 5), RuntimeError, "exceeds dimension size"),
    ("select", lambda: torch.ones(2, 2).select(1, 5), IndexError,
     "select\\(\\): index 5 out of range"),
    ("permute", lambda: torch.ones(2, 3).permute(0), RuntimeError,
     "number of dimensions in the tensor input does not match"),
    ("flatten", lambda: torch.ones(2, 3, 4).flatten(2, 1), RuntimeError,
     "start_dim cannot come after end_dim"),
    ("where", lambda: torch.where(torch.ones(2), torch.ones(2), torch.zeros(2)), RuntimeError,
     "where expected condition to be a boolean tensor"),
    ("masked_fill", lambda: torch.ones(2).masked_fill(torch.ones(2), 0.0), RuntimeError,
     "masked_fill_ only supports boolean masks"),
    ("gather", lambda: torch.ones(2, 2).gather(1, torch.zeros(2, dtype=torch.int64)), RuntimeError,
     "Index tensor must have the same number of dimensions as input tensor"),
    ("clamp", lambda: torch.clamp(torch.ones(2)), RuntimeError,
     "At least one of 'min' or 'max' must not be None"),
    ("mean int", lambda: torch.ones(2, dtype=torch.int64).mean(), RuntimeError,
     "mean\\(\\): could not infer output dtype"),
    ("int pow", lambda: torch.tensor([2]) ** -1, RuntimeError,
     "Integers to negative integer powers are not allowed"),
    ("bool sub", lambda: torch.tensor([True]) - torch.tensor([False]), RuntimeError,
     "Subtraction, the `-` operator, with two bool tensors is not supported"),
    ("cast", lambda: torch.ones(2, dtype=torch.int64).add_(1.5), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    ("div mode", lambda: torch.ones(2).div(2, rounding_mode="up"), RuntimeError,
     "div expected rounding_mode to be one of None, 'trunc', or 'floor'"),
    ("topk", lambda: torch.ones(3).topk(4), RuntimeError, "selected index k out of range"),
    ("repeat", lambda: torch.ones(2, 2).repeat(2), RuntimeError,
     "Number of dimensions of repeat dims can not be smaller"),
    ("one_hot", lambda: torch.nn.functional.one_hot(torch.tensor([-1])), RuntimeError,
     "Class values must be non-negative"),
    ("cross_entropy bounds",
     lambda: torch.nn.functional.cross_entropy(torch.ones(2, 3), torch.tensor([0, 3])), IndexError,
     "Target 3 is out of bounds"),
    ("cross_entropy batch",
     lambda: torch.nn.functional.cross_entropy(torch.ones(2, 3), torch.tensor([0])), ValueError,
     r"Expected input batch_size \(2\) to match target batch_size \(1\)"),
    ("embedding", lambda: torch.nn.functional.embedding(torch.tensor([5]), torch.ones(3, 2)),
     IndexError, "index out of range in self"),
    ("layer_norm", lambda: torch.nn.functional.layer_norm(torch.ones(2, 3), (4,)), RuntimeError,
     r"Given normalized_shape=\[4\]"),
    ("pad", lambda: torch.nn.functional.pad(torch.ones(2, 2), (1,)), RuntimeError,
     "Padding length must be divisible by 2"),
    ("dropout", lambda: torch.nn.functional.dropout(torch.ones(2), 1.5), ValueError,
     "dropout probability has to be between 0 and 1"),
    ("reduction", lambda: torch.nn.functional.mse_loss(torch.ones(2), torch.ones(2), reduction="x"),
     ValueError, "x is not a valid value for reduction"),
    ("normal_", lambda: torch.ones(2).normal_(0, -1), RuntimeError, "normal expects std >= 0.0"),
    ("uniform_", lambda: torch.ones(2).uniform_(1, 0), RuntimeError,
     "uniform_ expects to return a \\[from, to\\) range"),
    ("bernoulli_", lambda: torch.ones(2).bernoulli_(2.0), RuntimeError,
     "bernoulli_ expects p to be in \\[0, 1\\]"),
    ("cuda", lambda: torch.ones(2).cuda(), AssertionError, "Torch not compiled with CUDA enabled"),
    ("device", lambda: torch.device("gpu"), RuntimeError, "Expected one of cpu, cuda, meta"),
    ("len 0-d", lambda: len(torch.tensor(1.0)), TypeError, "len\\(\\) of a 0-d tensor"),
    ("inplace broadcast", lambda: torch.ones(2).add_(torch.ones(2, 2)), RuntimeError,
     r"output with shape \[2\] doesn't match the broadcast shape \[2, 2\]"),
    ("copy_ broadcast", lambda: torch.ones(2).copy_(torch.ones(2, 2)), RuntimeError,
     r"output with shape \[2\] doesn't match the broadcast shape \[2, 2\]"),
    ("setitem shape", lambda: torch.zeros(3, 2).__setitem__(0, torch.ones(3)), RuntimeError,
     r"The expanded size of the tensor \(2\) must match the existing size \(3\)"),
    ("setitem adv shape", lambda: torch.zeros(3, 2).__setitem__(torch.tensor([0, 1]),
                                                              torch.ones(3, 3)), RuntimeError,
     r"shape mismatch: value tensor of shape \[3, 3\] cannot be broadcast to indexing result"),
    ("index", lambda: [0, 1][torch.tensor(0.5)], TypeError,
     "only integer tensors of a single element can be converted to an index"),
    ("index_add bounds", lambda: torch.zeros(2, 3).index_add(1, torch.tensor([3]),
                                                             torch.ones(2, 1)), RuntimeError,
     "index 3 is out of bounds for dimension 1 with size 3"),
    ("index_add vector bounds", lambda: torch.zeros(3).index_add(0, torch.tensor([-1]),
                                                                 torch.ones(1)), IndexError,
     "index out of range in self"),
    ("index_add dtype", lambda: torch.zeros(3).index_add(0, torch.tensor([0]),
                                                         torch.ones(1, dtype=torch.float64)),
     RuntimeError, r"index_add_\(\): self \(Float\) and source \(Double\) must have the same"),
    ("index_add count", lambda: torch.zeros(3, 2).index_add(0, torch.tensor([0, 1]),
                                                            torch.ones(3, 2)), RuntimeError,
     r"Number of indices \(2\) should be equal to source.size\(dim\): \(3\), for dim: 0"),
    ("index_copy long", lambda: torch.zeros(3).index_copy(0, torch.tensor([0], dtype=torch.int32),
                                                          torch.ones(1)), RuntimeError,
     "index_copy_\\(\\): Expected a long tensor for index, but got Int"),
    ("index_copy bounds", lambda: torch.zeros(3).index_copy(0, torch.tensor([-1]), torch.ones(1)),
     IndexError, r"index_copy_\(\): index -1 is out of bounds for dimension 0 with size 3"),
    ("index_fill long", lambda: torch.zeros(3).index_fill(0, torch.tensor([0.0]), 1), IndexError,
     r"index_fill_\(\): Expected dtype int64 for index."),
    ("index_fill bounds", lambda: torch.zeros(3).index_fill(0, torch.tensor([-4]), 1), IndexError,
     "index -4 is out of bounds for dimension 0 with size 3"),
    ("index_fill value", lambda: torch.zeros(3).index_fill(0, torch.tensor([0]), torch.ones(1)),
     RuntimeError, "index_fill_ only supports a 0-dimensional value tensor"),
    ("median empty dim", lambda: torch.ones(0, 3).median(0), IndexError,
     r"median\(\): Expected reduction dim 0 to have non-zero size."),
    ("median bool", lambda: torch.tensor([True]).median(), NotImplementedError,
     "\"median_cpu\" not implemented for 'Bool'"),
    ("median keepdim without dim", lambda: torch.ones(2).median(keepdim=True), TypeError,
     'median\\(\\) missing 1 required positional arguments: "dim"'),
    ("erfinv_ int", lambda: torch.tensor([0, 1]).erfinv_(), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    ("finfo int", lambda: torch.finfo(torch.int32), TypeError,
     r"torch.finfo\(\) requires a floating point input type"),
    ("iinfo bool", lambda: torch.iinfo(torch.bool), TypeError,
     "torch.bool is not supported by torch.iinfo"),
    ("matmul precision", lambda: torch.set_float32_matmul_precision(1), RuntimeError,
     "set_float32_matmul_precision expects a str, but got int"),
    ("anomaly mode", lambda: torch.autograd.set_detect_anomaly("yes"), TypeError,
     r"set_anomaly_enabled\(\): argument 'enabled' \(position 1\) must be bool, not str"),
]


@pytest.mark.parametrize("name,fn,exc,msg", ERRORS, ids=[e[0] for e in ERRORS])
def test_documented_error(name, fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn()


def test_numpy_keyword_aliases():
    x = torch.arange(6.0).reshape(2, 3)
    assert x.sum(axis=0).tolist() == x.sum(dim=0).tolist() == [3.0, 5.0, 7.0]
    assert torch.mean(x, axis=1, keepdims=True).shape == (2, 1)
    assert torch.cat([x, x], axis=1).shape == (2, 6)
    assert x.softmax(axis=1).tolist() == x.softmax(dim=1).tolist()
    with pytest.raises(TypeError, match=r"sum\(\) got an unexpected keyword argument 'axis'"):
        x.sum(dim=0, axis=0)
    with pytest.raises(TypeError):  # Python-level in torch: no aliases
        x.norm(axis=0)
    with pytest.raises(TypeError):
        x.split(1, axis=0)


@pytest.mark.parametrize("call, message", [
    (lambda: torch.ones(2, 3).gather(1, torch.tensor([[-1], [0]])),
     "index -1 is out of bounds for dimension 1 with size 3"),
    (lambda: torch.zeros(2, 3).scatter(1, torch.tensor([[3], [0]]), 1.0),
     "index 3 is out of bounds for dimension 1 with size 3"),
    (lambda: torch.zeros(3).scatter_add(0, torch.tensor([-1]), torch.ones(1)),
     "index -1 is out of bounds for dimension 0 with size 3"),
    (lambda: torch.ones(2, 3).index_select(1, torch.tensor([-1])),
     "INDICES element is out of DATA bounds, id=-1 axis_dim=3"),
    (lambda: torch.tensor([True, False]).topk(1), "topk does not support bool dtypes on CPU"),
    (lambda: torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.float64),
     "expected m1 and m2 to have the same dtype, but got: float != double"),
    (lambda: torch.einsum("ij,jk->ik", torch.ones(2, 3), torch.ones(4, 5)),
     "einsum(): subscript j has size 4 for operand 1 which does not broadcast with previously "
     "seen size 3"),
])
def test_index_and_kernel_errors_are_torchs(call, message):
    # numpy would wrap a negative index; torch refuses it (and every index past the end)
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


def test_nan_sorts_as_the_largest_value():
    x = torch.tensor([1.0, float("nan"), 3.0, float("inf"), -2.0])
    assert x.sort(descending=True).indices.tolist() == [1, 3, 2, 0, 4]
    assert x.sort().indices.tolist() == [4, 0, 2, 3, 1]
    assert x.topk(2).indices.tolist() == [1, 3]
    assert x.topk(2, largest=False).indices.tolist() == [4, 0]
    assert repr(x.max(0)).startswith("torch.return_types.max(\nvalues=tensor(nan)")


def test_integer_indices_apply_before_advanced_ones():
    # torch selects the int dims first; numpy would move the advanced dims to the front
    x = torch.arange(24.0).reshape(2, 3, 4)
    a = x.numpy()
    assert x[1, :, [0]].shape == (3, 1)
    assert x[1, :, [0]].tolist() == a[1][:, [0]].tolist()
    idx = torch.tensor([[0, 1], [2, 3]])
    assert x[-1, :, idx].shape == (3, 2, 2)
    assert x[0, :, torch.tensor([2, 0, 1])].tolist() == a[0][:, [2, 0, 1]].tolist()
    assert x[[0, 1], 1, [0, 2]].tolist() == [a[0, 1, 0], a[1, 1, 2]]  # adjacent: numpy's rule
    y = torch.zeros(2, 3, 3)
    y[0, :, torch.tensor([0, 1, 2])] = torch.arange(9.0).reshape(3, 3)
    assert y[0].tolist() == torch.arange(9.0).reshape(3, 3).tolist()  # not its transpose


def test_half_precision_with_python_numbers_computes_in_float32():
    h = torch.tensor([0.5, -0.25, 0.999], dtype=torch.float16)
    assert (h * 65536.0).tolist() == [32768.0, -16384.0, 65472.0]  # 65536 itself overflows float16
    assert (h * 1e-8 * 1e8).isfinite().all()
    b = torch.full((3000,), 0.1, dtype=torch.bfloat16)
    assert b.sum().item() == 300.0 and b.sum().dtype is torch.bfloat16  # float32 accumulation
    assert abs(b.mean().item() - 0.1) < 1e-3
    s = torch.nn.functional.softmax(torch.randn(4, 512).to(torch.bfloat16), -1).float().sum(-1)
    assert (abs(s - 1) < 1e-2).all()


def test_reductions_of_inf_and_empty_are_silent_and_torchs():
    import warnings
    x = torch.tensor([[1.0, float("inf"), -float("inf")]])
    from minitorch_cs.torch import _fpe
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's "invalid value encountered in reduce" must not leak:
        _fpe.install()  # ... it must come from our frames, which the package's filter silences
        assert np.isnan(x.sum(1).item()) and np.isnan(x.mean(1).item())
        assert np.isnan(x.var(1).item()) and np.isnan(x.cumsum(1)[0, 2].item())
        assert torch.logsumexp(torch.zeros(0, 3), 0).tolist() == [-np.inf] * 3


def test_cumprod_gradient_with_zeros_is_exact():
    x = torch.tensor([1.0, 0.0, 2.0, 3.0], requires_grad=True)
    torch.cumprod(x, 0).backward(torch.ones(4))
    assert x.grad.tolist() == [1.0, 9.0, 0.0, 0.0]  # d/dx1 = 1 + 2 + 2*3, torch's values
    y = torch.tensor([0.0, 0.0, 2.0], requires_grad=True)
    torch.cumprod(y, 0).backward(torch.ones(3))
    assert y.grad.tolist() == [1.0, 0.0, 0.0]


def test_out_argument_writes_the_result():
    y = torch.empty(2)
    assert torch.add(torch.ones(2), 1, out=y) is y and y.tolist() == [2.0, 2.0]
    c = torch.empty(0)
    torch.cat([torch.ones(2), torch.zeros(1)], out=c)
    assert c.tolist() == [1.0, 1.0, 0.0]  # an empty out is resized silently
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        torch.mul(torch.ones(2), 3, out=torch.empty(3))
    v, i = torch.empty(0), torch.empty(0, dtype=torch.int64)
    torch.max(torch.tensor([[1.0, 3.0], [2.0, 0.0]]), 1, out=(v, i))
    assert v.tolist() == [3.0, 2.0] and i.tolist() == [1, 0]
    z = torch.empty(2, 3, dtype=torch.float64)
    torch.zeros(2, 3, out=z)
    assert z.dtype is torch.float64 and z.abs().sum().item() == 0.0  # creation takes out's dtype
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output "
                                           "type Long"):
        torch.add(torch.ones(2), 1, out=torch.empty(2, dtype=torch.int64))
    with pytest.raises(RuntimeError, match=r"add\(\): functions with out=... arguments don't "
                                           "support automatic differentiation"):
        torch.add(torch.ones(2, requires_grad=True), 1, out=torch.empty(2))


def test_casts_numpy_scalars_and_unique_dim_like_torch():
    t = torch.ones(2, requires_grad=True)
    r = np.float32(2.0) + t  # numpy defers to the tensor: autograd is kept
    assert isinstance(r, torch.Tensor) and r.requires_grad
    assert (torch.ones(2) * np.float64(0.5)).dtype is torch.float32  # numpy scalars are weak
    assert torch.full((2,), np.int64(3)).dtype is torch.int64
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        np.asarray(t)
    assert t.long().requires_grad is False and t.double().requires_grad is True
    x = torch.tensor([[1, 3, 3], [2, 2, 0], [1, 3, 3]])
    rows, inverse, counts = torch.unique(x, dim=0, return_inverse=True, return_counts=True)
    assert rows.tolist() == [[1, 3, 3], [2, 2, 0]] and inverse.tolist() == [0, 1, 0]
    assert counts.tolist() == [2, 1]



# ----- finfo / iinfo ------------------------------------------------------------------------------
def test_finfo_and_iinfo():
    f = torch.finfo(torch.float32)
    assert (f.bits, f.eps, f.max, f.min) == (32, 2.0 ** -23, float(np.finfo(np.float32).max),
                                              -float(np.finfo(np.float32).max))
    assert f.tiny == f.smallest_normal == 2.0 ** -126 and f.resolution == 1e-6
    assert f.dtype == "float32" and isinstance(f.eps, float)
    h, b = torch.finfo(torch.half), torch.finfo(torch.bfloat16)
    assert (h.bits, h.eps, h.max, h.tiny, h.resolution) == (16, 2.0 ** -10, 65504.0, 2.0 ** -14, 1e-3)
    assert (b.bits, b.eps, b.tiny, b.resolution) == (16, 2.0 ** -7, 2.0 ** -126, 0.01)
    assert b.max == float(torch.tensor(3.3895e38, dtype=torch.bfloat16)) == -b.min
    assert torch.finfo(torch.float64).eps == np.finfo(np.float64).eps
    assert torch.finfo() == torch.finfo(torch.get_default_dtype()) != torch.finfo(torch.float64)
    assert torch.finfo(float).dtype == "float64"  # Python float is double to torch's parser
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.finfo().dtype == "float64"
    finally:
        torch.set_default_dtype(torch.float32)
    assert repr(f) == ("finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, "
                       "smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)")
    i = torch.iinfo(torch.int64)
    assert (i.bits, i.max, i.min, i.dtype) == (64, 2 ** 63 - 1, -2 ** 63, "int64")
    assert (torch.iinfo(torch.uint8).min, torch.iinfo(torch.uint8).max) == (0, 255)
    assert torch.iinfo(int) == i and repr(torch.iinfo(torch.int8)) == "iinfo(min=-128, max=127, dtype=int8)"
    with pytest.raises(AttributeError, match="not writable"):
        f.eps = 1.0
    with pytest.raises(TypeError, match="unhashable"):
        hash(f)
    with pytest.raises(TypeError, match="must be torch.dtype, not str"):
        torch.finfo("float32")
    with pytest.raises(TypeError, match=r"torch.iinfo\(\) requires an integer input type"):
        torch.iinfo(torch.float16)
    with pytest.raises(TypeError, match='missing 1 required positional arguments: "type"'):
        torch.iinfo()


# ----- print options ------------------------------------------------------------------------------
@pytest.fixture
def printoptions():
    yield torch.set_printoptions
    torch.set_printoptions(profile="default")


def test_set_printoptions_shapes_repr(printoptions):
    x = torch.tensor([1.12345, 2.5])
    printoptions(precision=2)
    assert repr(x) == "tensor([1.12, 2.50])"
    printoptions(precision=6)
    assert repr(x) == "tensor([1.123450, 2.500000])"
    printoptions(profile="default")
    assert repr(x) == "tensor([1.1235, 2.5000])"
    printoptions(threshold=5)  # summarize past 5 elements, 3 edge items
    assert repr(torch.arange(10)) == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    printoptions(threshold=5, edgeitems=1)
    assert repr(torch.arange(10)) == "tensor([0,  ..., 9])"
    printoptions(threshold=5, edgeitems=0)  # torch then shows the size instead
    assert repr(torch.arange(10)) == "tensor([...], size=(10,))"
    printoptions(profile="default")
    assert repr(torch.arange(10)) == "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])"
    printoptions(sci_mode=True)
    assert repr(x) == "tensor([1.1235e+00, 2.5000e+00])"
    printoptions(sci_mode=False)
    assert repr(torch.tensor([1e-5, 1e5])) == "tensor([     0.0000, 100000.0000])"
    printoptions()  # every call resets sci_mode to automatic, as in torch
    assert repr(torch.tensor([1e-5, 1e5])) == "tensor([1.0000e-05, 1.0000e+05])"
    printoptions(linewidth=30)
    assert repr(torch.arange(8.0) / 3) == ("tensor([0.0000, 0.3333,\n"
                                           "        0.6667, 1.0000,\n"
                                           "        1.3333, 1.6667,\n"
                                           "        2.0000, 2.3333])")
    printoptions(linewidth=30)  # a suffix past linewidth goes to its own line
    assert repr(torch.ones(3, requires_grad=True) * 2) == \
        "tensor([2., 2., 2.],\n       grad_fn=<MulBackward0>)"
    printoptions(profile="short")
    assert repr(torch.arange(2000.0) / 3) == \
        "tensor([0.00e+00, 3.33e-01,  ..., 6.66e+02, 6.66e+02])"  # precision 2, 2 edge items
    printoptions(profile="full")
    assert "..." not in repr(torch.arange(2000))


# ----- float32 matmul precision -------------------------------------------------------------------
def test_float32_matmul_precision_is_recorded_without_numeric_effect():
    a, b = torch.randn(5, 7), torch.randn(7, 3)
    assert torch.get_float32_matmul_precision() == "highest"
    want = (a @ b).numpy().copy()
    try:
        for p in ("high", "medium"):
            torch.set_float32_matmul_precision(p)
            assert torch.get_float32_matmul_precision() == p
            np.testing.assert_array_equal((a @ b).numpy(), want)  # CPU: no effect
        with pytest.warns(UserWarning, match="low is not one of 'highest', 'high', or 'medium'"):
            torch.set_float32_matmul_precision("low")
        assert torch.get_float32_matmul_precision() == "medium"  # unchanged
    finally:
        torch.set_float32_matmul_precision("highest")


# ----- anomaly mode -------------------------------------------------------------------------------
def _forward_with_nan_gradient():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    return (x.sqrt() * 0).sum()  # d/dx sqrt at 0 is inf, times 0: NaN


# pytest.warns records every warning, numpy's floating-point ones too, which our filter would
# otherwise keep quiet (the NaN these tests make on purpose)
_quiet_numpy = pytest.mark.filterwarnings("ignore::RuntimeWarning")


@_quiet_numpy
def test_detect_anomaly_raises_on_nan_gradients_and_restores():
    assert not torch.is_anomaly_enabled()
    _forward_with_nan_gradient().backward()  # off: NaN gradients pass silently
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled") as rec:
        mode = torch.autograd.detect_anomaly()
    assert rec[0].filename == __file__
    with mode:
        assert torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()
        loss = _forward_with_nan_gradient()
        with pytest.warns(UserWarning, match=r"Error detected in SqrtBackward0. Traceback of "
                                             r"forward call that caused the error:(.|\n)*x.sqrt"):
            with pytest.raises(RuntimeError, match=r"^Function 'SqrtBackward0' returned nan "
                                                   r"values in its 0th output.$"):
                loss.backward()
        x = torch.tensor([0.0, 1.0], requires_grad=True)
        with pytest.warns(UserWarning, match="Error detected in DivBackward0"):
            with pytest.raises(RuntimeError, match="'DivBackward0' returned nan values in its 1th"):
                torch.autograd.grad((x / x).sum(), x)  # d/d(divisor) is -x/x**2: NaN at 0
        y = torch.tensor([1.0, 4.0], requires_grad=True)
        y.sqrt().sum().backward()  # finite gradients are untouched
        assert y.grad.tolist() == [0.5, 0.25]
    assert not torch.is_anomaly_enabled()


@_quiet_numpy
def test_set_detect_anomaly_and_check_nan():
    torch.autograd.set_detect_anomaly(True)
    try:
        assert torch.is_anomaly_enabled()
        with pytest.warns(UserWarning, match="Error detected in SqrtBackward0"):
            with pytest.raises(RuntimeError, match="returned nan values"):
                _forward_with_nan_gradient().backward()
    finally:
        torch.autograd.set_detect_anomaly(False)
    assert not torch.is_anomaly_enabled()
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        assert torch.is_anomaly_enabled() and not torch.is_anomaly_check_nan_enabled()
        _forward_with_nan_gradient().backward()  # NaN allowed
    assert not torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()


def test_anomaly_mode_costs_nothing_when_off():
    y = torch.ones(2, requires_grad=True) * 2
    assert "forward_stack" not in y.grad_fn.__dict__  # no stack is recorded when off
    with torch.autograd.set_detect_anomaly(True):
        z = torch.ones(2, requires_grad=True) * 2
    assert "test_anomaly_mode_costs_nothing_when_off" in z.grad_fn.__dict__["forward_stack"]


def test_anomaly_names_custom_functions():
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    with torch.autograd.set_detect_anomaly(True):
        x = torch.ones(2, requires_grad=True)
        with pytest.warns(UserWarning, match="Error detected in BadBackward"):
            with pytest.raises(RuntimeError, match="Function 'BadBackward' returned nan"):
                Bad.apply(x).sum().backward()


# ----- index_add / index_copy / index_fill --------------------------------------------------------
def test_index_ops_values_and_inplace_semantics():
    x = torch.zeros(3, 2)
    r = x.index_add(0, torch.tensor([2, 0, 2]), torch.ones(3, 2), alpha=2)
    assert r.tolist() == [[2, 2], [0, 0], [4, 4]] and x.sum().item() == 0  # out of place
    v = x[:, 1]  # in place through a view: the base sees it, the version counter moves
    before = x._version
    assert v.index_add_(0, torch.tensor([1]), torch.tensor([5.0])) is v
    assert x.tolist() == [[0, 0], [0, 5], [0, 0]] and x._version == before + 1
    c = torch.zeros(3).index_copy(0, torch.tensor([1, 1]), torch.tensor([7.0, 8.0]))
    assert c.tolist() == [0, 8, 0]  # the last of repeated indices wins (torch's CPU)
    f = torch.arange(6.0).reshape(2, 3).index_fill(1, torch.tensor([-1, 0]), -1)
    assert f.tolist() == [[-1, 1, -1], [-1, 4, -1]]  # index_fill counts negatives from the end
    i = torch.zeros(4, dtype=torch.int32).index_add(0, torch.tensor([0, 0]),
                                                    torch.ones(2, dtype=torch.int32), alpha=-2.5)
    assert i.tolist() == [-4, 0, 0, 0] and i.dtype is torch.int32  # alpha truncated, as in torch
    assert torch.zeros(2, dtype=torch.int64).index_fill(0, torch.tensor([1]), 2.7).tolist() == [0, 2]
    s = torch.tensor(1.0)  # 0-d self: one element along dim 0
    assert s.index_add(0, torch.tensor([0]), torch.tensor(2.0)).item() == 3.0
    leaf = torch.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        leaf.index_fill_(0, torch.tensor([0]), 1.0)


def test_index_ops_gradients():
    idx = torch.tensor([2, 0])
    gradcheck(lambda x, s: x.index_add(1, idx, s, alpha=-1.5), np.random.rand(2, 3),
              np.random.rand(2, 2), name="index_add")
    gradcheck(lambda x, s: x.index_copy(0, idx, s), np.random.rand(3, 2), np.random.rand(2, 2),
              name="index_copy")
    gradcheck(lambda x, v: x.index_fill(0, idx, v), np.random.rand(3, 2), np.array(0.5),
              name="index_fill value tensor")

    def on_view(x, s, v):  # in place on a view of a non-leaf (the CopySlices path)
        y = x * 1
        y[1:].index_add_(0, torch.tensor([0, 0]), s).index_fill_(1, torch.tensor([1]), v)
        return y
    gradcheck(on_view, np.random.rand(3, 2), np.random.rand(2, 2), np.array(0.25),
              name="in place on a view")
    x = torch.ones(3, 2, requires_grad=True)
    assert x.index_add(0, idx, torch.ones(2, 2)).grad_fn.name() == "IndexAddBackward0"
    assert x.index_fill(0, idx, 1.0).grad_fn.name() == "IndexFillBackward0"
    assert x.index_fill(0, idx, torch.tensor(1.0, requires_grad=True)).grad_fn.name() == \
        "IndexFillBackward1"


# ----- median, nan_to_num, erfinv -------------------------------------------------------------------
def test_median_is_the_lower_middle_value():
    assert torch.median(torch.tensor([4.0, 1.0, 3.0, 2.0])).item() == 2.0
    assert torch.tensor([[5, 1], [3, 9]]).median().item() == 3  # all elements, integer dtype kept
    assert np.isnan(torch.tensor([1.0, float("nan"), 0.0]).median().item())
    assert np.isnan(torch.tensor([]).median().item())
    r = torch.tensor([[3.0, 1.0, 2.0, 2.0], [float("nan"), 0.0, float("nan"), 1.0]]).median(1)
    assert r.values.tolist()[0] == 2.0 and np.isnan(r.values.tolist()[1])
    assert r.indices.tolist() == [2, 0]  # ties: the stable-sort middle; NaN: the first NaN
    assert type(r).__name__ == "median" and r == (r.values, r.indices)
    assert repr(torch.tensor([1.0, 2.0]).median(0)) == \
        "torch.return_types.median(\nvalues=tensor(1.),\nindices=tensor(0))"
    k = torch.ones(2, 3).median(dim=-1, keepdim=True)
    assert k.values.shape == (2, 1) and k.indices.shape == (2, 1)
    assert torch.ones(2, 3).median(axis=0).values.shape == (3,)  # numpy name, like torch


def test_median_gradients():
    x = torch.tensor([1.0, 2.0, 2.0, 3.0], requires_grad=True)
    x.median().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5, 0.0]  # ties share the gradient (torch's rule)
    x = torch.tensor([[3.0, 1.0, 2.0]], requires_grad=True)
    torch.median(x, 1).values.sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 1.0]]  # the dim form: the selected element
    gradcheck(lambda t: t.median(), np.array([0.3, -1.2, 2.5, 0.9]), name="median")
    gradcheck(lambda t: torch.median(t, 0, keepdim=True), np.array([[0.3, 1.0], [-1.2, 2.0],
                                                                     [2.5, -0.5]]),
              name="median(dim)")


def test_nan_to_num_defaults_per_dtype():
    vals = [float("nan"), float("inf"), -float("inf"), 1.5]
    for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        big = torch.finfo(dt).max
        assert torch.tensor(vals, dtype=dt).nan_to_num().tolist() == [0.0, big, -big, 1.5]
    t = torch.tensor(vals)
    assert t.nan_to_num(nan=1.0, posinf=2.0, neginf=-2.0).tolist() == [1.0, 2.0, -2.0, 1.5]
    assert torch.nan_to_num(t, posinf=1e40)[1].item() == float("inf")  # overflows float32
    assert torch.nan_to_num_(t) is t and t.tolist()[0] == 0.0
    i = torch.tensor([1, 2])
    assert torch.nan_to_num(i, nan=5.0).tolist() == [1, 2] and torch.nan_to_num(i) is not i
    x = torch.tensor(vals, requires_grad=True)
    x.nan_to_num().backward(torch.full((4,), 3.0))
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 3.0]  # gradient only where the input was finite


def test_erfinv():
    x = torch.tensor([-1.0, 0.0, 0.5, 1.0, 1.5])
    y = torch.erfinv(x)
    assert y.tolist()[:2] == [-float("inf"), 0.0] and y[3].item() == float("inf")
    assert np.isnan(y[4].item()) and abs(y[2].item() - 0.4769362762) < 1e-6
    assert torch.erfinv(torch.tensor([0, 1])).dtype is torch.float32  # ints give the default float
    assert torch.tensor([0.5], dtype=torch.bfloat16).erfinv().dtype is torch.bfloat16
    assert x.clone().erfinv_().tolist()[:2] == [-float("inf"), 0.0]
    t = torch.tensor([0.3], requires_grad=True)
    t.erfinv().backward()
    from scipy.special import erfinv
    assert abs(t.grad.item() - np.sqrt(np.pi) / 2 * np.exp(erfinv(0.3) ** 2)) < 1e-6
    gradcheck(torch.erfinv, np.array([-0.9, -0.2, 0.4, 0.8]), name="erfinv")
    with pytest.raises(TypeError, match=r"erfinv\(\): argument 'input' \(position 1\) must be "
                                        r"Tensor, not list"):
        torch.erfinv([0.5])


def test_integer_division_by_zero_and_other_torch_edge_cases():
    i = torch.tensor([5, -3, 7])
    for call in (lambda: i // 0, lambda: i % torch.tensor([1, 0, 2]), lambda: torch.fmod(i, 0),
                 lambda: torch.div(i, 0, rounding_mode="trunc")):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            call()
    assert (i / 0).tolist() == [np.inf, -np.inf, np.inf]  # true division is float: inf
    assert torch.sign(torch.tensor([float("nan"), -2.0])).tolist() == [0.0, -1.0]
    assert (torch.ones(2) == None) is False and (torch.ones(2) != None) is True  # noqa: E711
    assert 2 in torch.tensor([1, 2]) and 5 not in torch.tensor([1, 2])
    assert (i << 2).tolist() == [20, -12, 28] and (i >> 1).tolist() == [2, -2, 3]
    assert (1 << torch.tensor([1, 2])).tolist() == [2, 4]
    assert torch.ones(2, 3).tile(2).shape == (2, 6) and torch.ones(2).tile(2, 1, 1).shape == (2, 1, 2)
    assert torch.ones(2).type("torch.DoubleTensor").dtype is torch.float64
    assert [t.shape for t in torch.ones(4, 6).split(split_size=2, dim=1)] == [(4, 2)] * 3
    assert torch.repeat_interleave(torch.tensor([2, 0, 1])).tolist() == [0, 0, 2]
    assert torch.softmax(torch.zeros(0, 3), 0).shape == (0, 3)
    assert torch.nonzero(torch.tensor(1.5)).shape == (1, 0)


def test_repeat_counts_and_meshgrid_inputs_are_checked_as_torch():
    """torch's checks on repeat counts (rank, length, dtype, values, ``output_size``) and on
    meshgrid's tensors (some, one dtype, 0-d or 1-d, a known indexing)."""
    x, ri = torch.ones(2), torch.repeat_interleave
    cases = [
        (lambda: ri(torch.ones(2)), NotImplementedError,
         '"repeat_interleave_cpu" not implemented for \'Float\''),
        (lambda: ri(torch.tensor([[1, 2]])), RuntimeError, "only accept 1D vector as repeat"),
        (lambda: ri(torch.tensor([1, -1])), RuntimeError, "repeats can not be negative"),
        (lambda: ri(torch.tensor([1, 2]), output_size=4), RuntimeError,
         "allocated size does not match required size"),
        (lambda: ri(x, -1), RuntimeError, "Repeats must be non-negative"),
        (lambda: ri(x, torch.tensor([[1, 2]])), RuntimeError,
         "repeats must be 0-dim or 1-dim tensor"),
        (lambda: ri(x, torch.tensor([1, 2, 3])), RuntimeError,
         "repeats must have the same size as input along dim, but got repeats.size\\(0\\) = 3"),
        (lambda: ri(x, torch.tensor([1.0, 2.0])), NotImplementedError, "for 'Float'"),
        (lambda: ri(x, torch.tensor([1, -2])), RuntimeError, "repeats can not be negative"),
        (lambda: torch.meshgrid(), RuntimeError, "meshgrid expects a non-empty TensorList"),
        (lambda: torch.meshgrid(x, x.double()), RuntimeError,
         "meshgrid expects all tensors to have the same dtype"),
        (lambda: torch.meshgrid(torch.ones(2, 2)), RuntimeError,
         "Expected 0D or 1D tensor in the tensor list"),
        (lambda: torch.meshgrid(x, indexing="ji"), RuntimeError, 'indexing must be one of "xy"'),
    ]
    for call, kind, message in cases:
        with pytest.raises(kind, match=message):
            call()
    r = ri(torch.tensor([1, 2], dtype=torch.int32), output_size=3)
    assert r.tolist() == [0, 1, 1] and r.dtype is torch.int32
    assert x.repeat_interleave(torch.tensor([2])).tolist() == [1.0] * 4
    assert torch.ones(1).is_nonzero() and not torch.zeros(1).is_nonzero()


def _numpy_sources():
    """Arrays of every stride kind: negative, stepped, transposed, Fortran, broadcast (stride
    0), size-1 dims with odd strides, empty, 0-d, integer."""
    ast = np.lib.stride_tricks.as_strided
    return {"negative": np.arange(6.).reshape(2, 3)[:, ::-1],
            "stepped": np.arange(12.).reshape(3, 4)[:, ::2],
            "transposed": np.arange(6.).reshape(2, 3).T,
            "fortran": np.asfortranarray(np.arange(6.).reshape(2, 3)),
            "broadcast": np.broadcast_to(np.arange(3.), (2, 3)),
            "size1_nchw": ast(np.arange(8.), (1, 2, 2, 2), (16, 8, 32, 16)),
            "size1_col": ast(np.arange(3.), (3, 1), (8, 800)),
            "empty": np.zeros((2, 0, 3)).transpose(2, 0, 1),
            "zero_dim": np.array(3.0),
            "int32": np.arange(6, dtype=np.int32).reshape(2, 3).T}


@pytest.mark.parametrize("name", sorted(_numpy_sources()))
def test_tensors_from_numpy_arrays_keep_torchs_strides(name):
    """torch.tensor(a) copies as ``from_numpy(a).to(copy=True)``: a dense array's strides exactly
    (size-1 dims too, which decide e.g. a channels-last result of interpolate), a non-dense one
    packed in its dim order (a broadcast dim stays in place); a negative stride is refused by
    tensor, as_tensor and from_numpy with torch's ValueError."""
    real = pytest.importorskip("torch")
    a = _numpy_sources()[name]
    makers = [lambda T: T.tensor(a), lambda T: T.tensor(a, dtype=T.float32),
              lambda T: T.as_tensor(a), lambda T: T.from_numpy(a)]
    for make in makers:
        got, want = [], []
        for T, out in ((torch, got), (real, want)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # torch: a broadcast array is read-only
                try:
                    t = make(T)
                except ValueError as e:
                    out.append((ValueError, str(e)))
                    continue
            out.append((t.stride(), t.tolist()))
        assert got == want, (name, got, want)
        assert (want[0][0] is ValueError) == (name == "negative")
