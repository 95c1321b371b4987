"""Classes of difference the differential campaign found after the core rules landed (values
measured on torch 2.13 CPU; each case is the few-line repro of one class)."""
from __future__ import annotations

import numpy as np
import pytest

from minitorch_cs import torch


def _int_tensor_that_requires_grad():
    """An integer tensor left requiring grad by an in-place op with a floating value."""
    w = torch.tensor([0.5], requires_grad=True)
    x = torch.tensor([3, -1, 2], dtype=torch.int8)
    x[torch.tensor([False, True, False])] = w
    return x


# ----- autograd: dtypes that cannot carry gradients ---------------------------------------------
@pytest.mark.parametrize("use", [lambda x: x * 2, lambda x: x + x, lambda x: x.view(3),
                                 lambda x: x.clone(), lambda x: x.repeat(2)])
def test_recorded_op_refuses_an_integer_result_that_would_require_grad(use):
    x = _int_tensor_that_requires_grad()
    with pytest.raises(RuntimeError, match="Autograd not support dtype: Char"):
        use(x)


def test_integer_tensor_that_requires_grad_may_become_floating():
    x = _int_tensor_that_requires_grad()
    assert (x * 2.5).requires_grad and x.float().requires_grad
    assert not (x > 0).requires_grad and not x.argmax().requires_grad


@pytest.mark.parametrize("run", [lambda x: x.float().sum().backward(),
                                 lambda x: x.backward(torch.ones(3))])
def test_backward_into_an_integer_tensor_raises(run):
    with pytest.raises(RuntimeError, match="isDifferentiableType"):
        run(_int_tensor_that_requires_grad())


@pytest.mark.parametrize("make", [lambda x: x.max(dim=0), lambda x: x.sort(0),
                                  lambda x: x.topk(1, 0), lambda x: x.median(0)])
def test_indices_read_by_backward_are_version_checked(make):
    x = torch.tensor([1.0, 3.0, 2.0, 0.5], requires_grad=True)
    values, indices = make(x * 1)
    indices.add_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        values.sum().backward()


def test_kron_operands_are_not_views_for_the_version_counter():
    x = torch.tensor([-1.27, 0.1, -0.13], dtype=torch.float64, requires_grad=True)
    a = x * 1
    y = torch.kron(a[0], a[:2])
    a[2:].exp_()  # changes the storage kron's operands live in, not their version counters
    y.sum().backward()
    assert x.grad is not None


# ----- kernels --------------------------------------------------------------------------------------
def test_neg_of_bool_refused_in_every_form():
    for f in (lambda b: -b, lambda b: b.neg(), lambda b: b.clone().neg_(),
              lambda b: torch.neg(b)):
        with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor"):
            f(torch.tensor([True, False]))


def test_true_division_casts_integer_operands_straight_to_float():
    a = torch.tensor([253, 253], dtype=torch.uint8)
    b = torch.tensor(-3, dtype=torch.int32)  # 0-d: the common dtype would be uint8
    np.testing.assert_allclose((a / b).numpy(), [-84.333336, -84.333336], rtol=1e-6)


def test_integer_convolution_wraps_exactly():
    x = torch.full((1, 2, 4, 4), -1, dtype=torch.int64)
    w = torch.full((1, 2, 2, 2), -2 ** 63, dtype=torch.int64)
    y = torch.nn.functional.conv2d(x, w)  # 8 products of 2**63 sum to 0 modulo 2**64
    assert y.dtype == torch.int64 and not y.any()


def test_half_gradient_formulas_round_each_step():
    x = torch.tensor([2.0, 60000.0], dtype=torch.float16, requires_grad=True)
    torch.asinh(x).sum().backward()  # torch: grad * (x.pow(2) + 1).rsqrt(); 60000**2 is inf
    assert x.grad.tolist() == [pytest.approx(0.4473, abs=1e-3), 0.0]


def test_mish_is_one_kernel_in_half():
    x = torch.tensor([-20.0, 20.0, 3.0], dtype=torch.float16, requires_grad=True)
    y = torch.nn.functional.mish(x)
    y.backward(torch.tensor([1e4, -1e4, 6e4], dtype=torch.float16))
    assert y.tolist()[0] == pytest.approx(-5.96e-08, rel=1e-2)
    assert x.grad.tolist() == [pytest.approx(-3.917e-4, rel=1e-2), -10000.0, 61280.0]


def test_cumprod_half_backward_reads_the_rounded_result():
    x = torch.tensor([208.0, 208.0, 208.0], dtype=torch.float16, requires_grad=True)
    y = torch.cumprod(x, 0)
    assert y.tolist()[2] == float("inf")
    y.backward(torch.tensor([0.0, 0.0, 1.0], dtype=torch.float16))
    assert np.isinf(x.grad.numpy()).all()


def test_fmod_gradient_reads_the_integer_operand_in_half():
    b = torch.tensor([1.2], dtype=torch.float16, requires_grad=True)
    a = torch.tensor([1, -2 ** 31], dtype=torch.int32)  # -2**31 is -inf in float16
    r = torch.fmod(a, b)
    r.backward(torch.tensor([1.0, 0.0], dtype=torch.float16))  # 0 * inf: NaN, as in torch
    assert np.isnan(b.grad.numpy()).all()


def test_half_layer_norm_of_equal_values_is_a_rounding_residue():
    x = torch.full((2, 4), 0.7412, dtype=torch.float16)
    y = torch.nn.functional.layer_norm(x, (4,))
    assert (y.float().numpy() == np.float32(-3.0994415283203125e-06)).all()


# ----- error order ------------------------------------------------------------------------------
def test_lerp_in_place_checks_the_cast_first():
    w = torch.tensor(0.5, dtype=torch.bfloat16)
    for wt in (w, w.clone().requires_grad_()):
        with pytest.raises(RuntimeError, match="result type BFloat16 can't be cast to the "
                                               "desired output type Short"):
            torch.ones((), dtype=torch.int16).lerp_(torch.ones((), dtype=torch.int16), wt)


def test_bmm_out_takes_mat2s_dtype():
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype short int, but got "
                                           "bool instead"):
        torch.bmm(torch.ones(2, 2, 3, dtype=torch.bool), torch.ones(2, 3, 3, dtype=torch.int16),
                  out=torch.empty(0, dtype=torch.bool))


def test_addbmm_out_sums_in_outs_dtype():
    out = torch.empty(0, dtype=torch.int16)
    torch.addbmm(torch.ones(3, 3), torch.ones(2, 3, 2, dtype=torch.int16),
                 torch.ones(2, 2, 3, dtype=torch.int16), out=out)
    assert out.dtype == torch.int16 and out.tolist()[0][0] == 5


def test_batch_norm_mixed_type_is_the_first_given_parameter():
    x = torch.ones(3, 3, dtype=torch.bool).t()  # non-contiguous
    rm, rv = torch.zeros(3, dtype=torch.bool), torch.ones(3, dtype=torch.bool)
    with pytest.raises(NotImplementedError, match='"batch_norm" not implemented for \'Bool\''):
        torch.nn.functional.batch_norm(x, rm, rv, torch.ones(3, dtype=torch.int64),
                                       torch.ones(3, dtype=torch.float64), training=True)
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        torch.nn.functional.batch_norm(x, rm, rv, torch.ones(3, dtype=torch.bool),
                                       torch.ones(3, dtype=torch.int64), training=True)


def test_inplace_activation_checks_overlap_before_dtype():
    x = torch.tensor([[2]], dtype=torch.int64).expand(4, 1).reshape(-1)[:2]
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        torch.nn.functional.celu(x, inplace=True)


def test_inplace_elu_family_saves_its_result():
    for act in (lambda y: torch.nn.functional.elu(y, inplace=True),
                lambda y: torch.nn.functional.leaky_relu(y, inplace=True)):
        x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
        y = act(x * 1)
        y.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()
    x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    y = torch.nn.functional.hardtanh(x * 1, inplace=True)
    y.mul_(2)
    y.sum().backward()  # hardtanh_ keeps no result (as torch)


def test_masked_assignment_converts_its_one_value_as_a_scalar():
    x = torch.zeros(3, dtype=torch.int8)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without "
                                           "overflow"):
        x[torch.tensor([True, False, True])] = torch.tensor([float("nan")])
    x[torch.tensor([True, False, True])] = torch.tensor([2.7])
    assert x.tolist() == [2, 0, 2]


def test_adaptive_avg_pool_to_one_is_a_mean():
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        torch.nn.functional.adaptive_avg_pool2d(torch.ones(1, 2, 3, dtype=torch.int64), (1, 1))
    with pytest.raises(NotImplementedError, match="adaptive_avg_pool2d"):
        torch.nn.functional.adaptive_avg_pool2d(torch.ones(1, 2, 3, dtype=torch.int64), (2, 1))


def test_std_along_a_dim_of_equal_values_has_zero_gradient():
    x = torch.tensor([1.6], dtype=torch.float64, requires_grad=True)
    s = x.repeat(6).reshape(3, 2).std(0, False)
    s.sum().backward()
    assert s.tolist() == [0.0, 0.0] and x.grad.tolist() == [0.0]


def test_linear_without_bias_follows_matmuls_fold_rule():
    x = torch.ones(1, 4, 2, dtype=torch.bool).permute(0, 2, 1)  # does not fold: bmm
    with pytest.raises(NotImplementedError, match='"bmm" not implemented for \'Bool\''):
        torch.nn.functional.linear(x, torch.ones(3, 4))
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype"):
        torch.nn.functional.linear(torch.ones(1, 2, 4, dtype=torch.bool), torch.ones(3, 4))


def test_ignored_targets_have_zero_loss_even_at_infinite_inputs():
    x = torch.tensor([[0.0, -float("inf")], [float("inf"), 1.0], [1.0, 2.0]], dtype=torch.float64)
    t = torch.tensor([1, -100, 0])
    assert torch.nn.functional.nll_loss(x, t, reduction="none").tolist() == \
        [float("inf"), 0.0, -1.0]
    assert torch.nn.functional.cross_entropy(x, t, reduction="none").tolist()[1] == 0.0


# ----- seed 33 -----------------------------------------------------------------------------------
def test_half_running_statistics_update_in_float32():
    """A float16 batch whose variance is beyond float16's range: torch updates the running
    variance in float32 and rounds once (values measured on torch 2.13)."""
    x = torch.tensor([[6.0, 0.5], [-400.0, 2.0]], dtype=torch.float16).reshape(2, 2, 1)
    rm = torch.zeros(2, dtype=torch.float16)
    rv = torch.ones(2, dtype=torch.float16)
    torch.nn.functional.batch_norm(x, rm, rv, training=True)
    assert rv.tolist() == [8240.0, 1.0126953125]
    assert rm.tolist() == [-19.703125, 0.125]


def test_backward_never_passes_numpys_floating_point_warnings_on(recwarn):
    """index_fill's gradient for its value sums through numpy's own ``ndarray.sum``; an
    infinite gradient there is silent, as in torch."""
    v = torch.tensor(float("inf"), requires_grad=True)
    y = v.reshape(-1).repeat(36).reshape((3, 4, 1, 3)).index_fill(-3, torch.tensor([0, 3, 1]), v)
    y.reshape(-1)[:4].cosh_().backward(torch.tensor([-0.1, -0.1, 1.4, 0.5]))
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_huber_loss_lays_its_result_out_like_its_input():
    """torch writes huber_loss into ``empty_like(input)``: a broadcast (stride-0) input gives a
    contiguous result even when the target is permuted."""
    x = torch.tensor([-1.0]).broadcast_to((3, 1, 4))
    t = torch.arange(12.0).reshape(4, 1, 3).permute(2, 1, 0)
    assert torch.nn.functional.huber_loss(x, t, reduction="none").stride() == (4, 4, 1)
    assert torch.nn.functional.smooth_l1_loss(x, t, reduction="none").stride() == (1, 3, 3)


def test_a_leaf_view_moved_into_the_graph_refuses_its_gradient():
    """A leaf view of a base that then takes a gradient-carrying value in place gets a grad_fn
    of its own; torch's AccumulateGrad then refuses to accumulate into it."""
    base = torch.tensor([1.0, 4.0])
    leaf = base[:1].requires_grad_()
    base[1:].mul_(leaf * 2)
    assert not leaf.is_leaf
    with pytest.raises(RuntimeError, match="leaf variable has been moved into the graph interior"):
        base.sum().backward()


def test_cosine_embedding_loss_is_torchs_formula():
    """torch adds its float EPSILON (1e-12 as float32) to each squared magnitude (it does not call
    cosine_similarity, which clamps the norms at 1e-8): two equal tiny vectors are far from
    cosine 1 there."""
    x = torch.tensor([[1e-7, 0.0]], dtype=torch.float64)
    loss = torch.nn.functional.cosine_embedding_loss(x, x, torch.tensor([1]), reduction="none")
    assert loss.tolist() == [0.9900990098618194]
    with pytest.raises(RuntimeError, match=r"1D target tensor expects 2D input tensors, but found "
                                           r"inputs with sizes \[4\] and \[4\]\."):
        torch.nn.functional.cosine_embedding_loss(torch.ones(4), torch.ones(4), torch.ones(3))


def test_binary_cross_entropy_floors_its_denominator_at_float32s_1e_12():
    x = torch.tensor([1e-13], dtype=torch.float64, requires_grad=True)
    torch.nn.functional.binary_cross_entropy(x, torch.zeros(1, dtype=torch.float64),
                                             reduction="sum").backward()
    assert x.grad.tolist() == [0.10000000039958029]


# ----- seed 34 -----------------------------------------------------------------------------------
def test_pow_exponent_gradient_logs_an_integer_base_in_the_result_dtype():
    """torch's formula takes ``self.to(result dtype).log()``: numpy's log of an int8 array would
    be float16 (log 2 = 0.6934 instead of 0.6931472)."""
    e = torch.tensor([1.5, 1.7], requires_grad=True)
    (torch.tensor([2, 2], dtype=torch.int8) ** e).sum().backward()
    assert e.grad.tolist() == pytest.approx([2 ** 1.5 * 0.6931472, 2 ** 1.7 * 0.6931472],
                                            rel=1e-6)


def test_in_place_cumsum_of_a_zero_dim_tensor_copies_it():
    assert str(torch.tensor(-0.0, dtype=torch.float64).cumsum_(0).item()) == "-0.0"


def test_std_and_var_with_out_compute_in_outs_dtype():
    """torch converts the input to ``out``'s dtype first (its all-reduce kernel, to a float32 or
    float64 ``out`` of one element, computes in the input's dtype)."""
    x = torch.tensor([[-70000.0], [1.8], [-2.3]]).repeat(1, 3)
    out = torch.empty(0, dtype=torch.float16)
    assert torch.isnan(torch.std(x, 0, out=out)).all()
    x32 = torch.tensor([[0.1, 0.7, 0.3], [0.2, 0.9, 0.4]])
    o64 = torch.empty(0, dtype=torch.float64)
    torch.var(x32, 1, out=o64)  # (two results: the per-dim kernel, in float64)
    assert o64.tolist() == torch.var(x32.double(), 1).tolist()
    assert o64.tolist() != torch.var(x32, 1).double().tolist()
    one = torch.empty(0, dtype=torch.float64)
    torch.var(x32, out=one)  # (one result: the all-reduce kernel, in float32)
    assert one.item() == torch.var(x32).double().item()


_SAVES = [  # (name, fn of (T, a, b), which operand torch's node saves: changed in place after)
    ("index_add source", lambda T, a, b: a.index_add(0, T.tensor([1, 0]), b), 1, True),
    ("index_copy source", lambda T, a, b: a.index_copy(0, T.tensor([1, 0]), b), 1, True),
    ("dist", lambda T, a, b: T.dist(a, b), 0, True),
    ("dist other", lambda T, a, b: T.dist(a, b), 1, True),
    ("cummax input", lambda T, a, b: T.cummax(a, 0)[0], 0, True),
    ("reflection pad input", lambda T, a, b: T.nn.functional.pad(a.reshape(1, 2, 2), (1, 1),
                                                                  mode="reflect"), 0, True),
    ("batch_norm eval weight", lambda T, a, b: T.nn.functional.batch_norm(
        a, T.zeros(2, dtype=a.dtype), T.ones(2, dtype=a.dtype), b[0]), 1, True),
    ("global average pool input", lambda T, a, b: T.nn.functional.adaptive_avg_pool2d(
        a.reshape(1, 1, 2, 2), 1), 0, False),
]


@pytest.mark.parametrize("name,fn,which,refused", _SAVES, ids=[s[0] for s in _SAVES])
def test_in_place_change_of_what_torchs_node_saves_refuses_backward(name, fn, which, refused):
    """Found by sweeping the op table: change each operand in place after the op, then run
    backward; torch refuses exactly when its node saved that operand."""
    leaves = [torch.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=torch.float64, requires_grad=True)
              for _ in range(2)]
    a, b = (t * 1 for t in leaves)
    out = fn(torch, a, b)
    (a, b)[which].add_(0)
    if refused:
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()
    else:
        out.sum().backward()


# ----- seed 39 campaign ---------------------------------------------------------------------------
@pytest.mark.parametrize("mat,vec,out,message", [
    ("bool", "bool", "int8", "got Char, Bool, and Bool"),
    ("float32", "float32", "float64", "got Double, Float, and Float"),
    ("int32", "int32", "int64", "got Long, Int, and Int"),
    ("float32", "float64", "float32", "got Float, Float, and Double"),
])
def test_mv_out_dtype_is_addmvs_check(mat, vec, out, message):
    """mv(..., out=) is addmv with out in self's place: one dtype check of out, matrix and
    vector (before the kernel's bool refusal), as torch 2.13 words it."""
    a = torch.ones((2, 3), dtype=getattr(torch, mat))
    b = torch.ones(3, dtype=getattr(torch, vec))
    with pytest.raises(RuntimeError, match="addmv input tensors must have the same dtype, but "
                       + message):
        torch.mv(a, b, out=torch.empty(2, dtype=getattr(torch, out)))
    with pytest.raises(RuntimeError, match="vector \\+ matrix @ vector expected"):
        torch.mv(torch.ones(3), torch.ones(3), out=torch.empty(2))


def test_lerp_weight_gradient_of_two_bool_ends_raises():
    """torch's weight gradient subtracts the ends as given: bool ends make backward raise."""
    w = torch.tensor(0.3, requires_grad=True)
    r = torch.lerp(torch.tensor([True, False]), torch.tensor([False, True]), w)
    assert r.dtype is torch.float32 and r.requires_grad
    with pytest.raises(RuntimeError, match="with two bool tensors is not supported"):
        r.sum().backward()


def test_prod_gradient_reads_the_half_precision_result():
    """prod's gradient is grad * result / input with the result torch saved: a float16 product
    that overflowed is inf there, so a zero gradient gives NaN (torch 2.13)."""
    x = torch.full((96,), -1.429, dtype=torch.float16, requires_grad=True)
    p = torch.prod(x)
    assert p.item() == float("inf")
    (p * 0).backward()
    assert torch.isnan(x.grad).all()
    y = torch.full((3,), -1.429, dtype=torch.float16, requires_grad=True)
    torch.prod(y).backward()
    assert y.grad.tolist() == [2.041015625] * 3


def test_mean_into_half_precision_sums_in_float32():
    """torch's mean with a half-precision result dtype (dtype= or out=) converts the input to
    float32, sums and divides there, then rounds: a tiny negative mean is -0.0 in float16."""
    x = torch.tensor([-2.220446049250313e-16, -1e-20], dtype=torch.float64)
    out = torch.empty((0,), dtype=torch.float16)
    torch.mean(x, dim=0, out=out)
    assert out.item() == 0 and np.signbit(out.numpy())
    assert np.signbit(torch.mean(x, dtype=torch.float16).numpy())
    # nanmean's out= runs nansum into out's dtype, then divides there: +0.0
    out = torch.empty((0,), dtype=torch.float16)
    torch.nanmean(x, dim=0, out=out)
    assert out.item() == 0 and not np.signbit(out.numpy())
    v = torch.tensor([1000.1, 2000.2, 4000.4, 3.3], dtype=torch.float64)
    assert torch.mean(v, dtype=torch.float16).item() == 1751.0


@pytest.mark.parametrize("fn,mode", [(torch.remainder, "floor"), (torch.fmod, "trunc")])
def test_remainder_gradient_divides_the_operands_as_given(fn, mode):
    """The divisor's gradient -grad * self.div(other, rounding_mode) divides the operands as
    given: a 0-d float64 divisor of a bfloat16 result is a float32 number to the division
    (0.62890625 / 0.63 rounds down to 0), not rounded to bfloat16 (where the quotient is 1)."""
    v = torch.tensor(0.63, dtype=torch.float64, requires_grad=True)
    a = v.reshape(-1).repeat(9).to(torch.bfloat16)
    r = fn(a, v)
    assert r.dtype is torch.bfloat16 and r.tolist() == [0.0] * 9  # (the forward: in bfloat16)
    r.sum().backward()
    assert v.grad.item() == 9.0


# ----- seed 40 campaign ---------------------------------------------------------------------------
def test_expand_that_grows_nothing_is_a_writable_view():
    """torch's expand gives a zero stride only to a dim it grows: an expand to the same sizes
    (or adding a leading 1) is an ordinary view that in-place ops write through, and the
    kernel's own errors come first (lerp_ on int64: NotImplementedError)."""
    x = torch.tensor([1, 2, 3])
    v = x.expand(-1)
    v.add_(1)
    assert x.tolist() == [2, 3, 4] and v.stride() == (1,)
    z = torch.ones(3)
    z.expand(1, 3).mul_(2)
    assert z.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(NotImplementedError, match='"lerp_kernel_tensor" not implemented'):
        x.expand(3).lerp_(x, x)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        torch.ones(1, 3).expand(2, 3).add_(1)


def test_copy_gradient_is_summed_in_the_sources_dtype():
    """copy_'s source gradient is converted to the source's dtype before the sum over broadcast
    dims: 64 float16 gradients of -8528 sum to -545792 in float64, not to inf in float16."""
    src = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    dst = torch.zeros(64, dtype=torch.float16)
    dst.copy_(src)
    (dst * -8528.0).sum().backward()
    assert src.grad.item() == -8528.0 * 64


# ----- seed 41 campaign ---------------------------------------------------------------------------
def test_shrink_gradient_at_nan_follows_torchs_two_loops():
    """hardshrink/softshrink backward at a NaN input: torch's vector loop gives 0, its scalar
    tail (the last 24 % 16 = 8 float32 elements here) passes the gradient."""
    for fn in (torch.nn.functional.hardshrink, torch.nn.functional.softshrink):
        x = torch.full((24,), float("nan"), requires_grad=True)
        fn(x).sum().backward()
        assert x.grad.tolist() == [0.0] * 16 + [1.0] * 8
        x = torch.full((24,), float("nan"), dtype=torch.float64, requires_grad=True)
        fn(x).sum().backward()
        assert x.grad.tolist() == [0.0] * 24  # (24 float64 elements: all in the vector loop)
        x = torch.tensor([float("nan"), 2.0, 0.25], requires_grad=True)
        fn(x).sum().backward()
        assert x.grad.tolist() == [1.0, 1.0, 0.0]  # (a short tensor: the scalar loop)


def test_addbmm_out_dtype_is_checked_before_the_kernel():
    """addbmm(..., out=) runs out.addmm_ per batch: out against batch2 comes before the bool
    kernel's refusal."""
    s = torch.zeros(2, 2, dtype=torch.bool)
    a = torch.zeros(2, 2, 3, dtype=torch.bool)
    b = torch.zeros(2, 3, 2, dtype=torch.bool)
    with pytest.raises(RuntimeError, match="self and mat2 must have the same dtype, but got Int "
                                           "and Bool"):
        torch.addbmm(s, a, b, out=torch.empty(2, 2, dtype=torch.int32))
    with pytest.raises(RuntimeError, match="batch1 and batch2 must have same number of batches"):
        torch.addbmm(s, a, torch.zeros(3, 3, 2, dtype=torch.bool),
                     out=torch.empty(2, 2, dtype=torch.int32))


def test_maximum_minimum_zero_ties_follow_torchs_two_loops():
    """A tie of -0.0 and 0.0 over a dense run: torch's vector loop keeps the second operand,
    its scalar tail (the last 20 % 8 = 4 float64 elements) the first (measured)."""
    a = torch.full((20,), -0.0, dtype=torch.float64)
    z = torch.zeros(20, dtype=torch.float64)
    got = np.signbit(torch.maximum(a, z).numpy())
    assert not got[:16].any() and got[16:].all()
    got = np.signbit(torch.minimum(z, a).numpy())
    assert got[:16].all() and not got[16:].any()
    assert np.signbit(torch.maximum(a[:3], z[:3]).numpy()).all()  # (all in the scalar loop)
    b = torch.zeros(20, dtype=torch.bool)  # a promoted operand: the same loops
    assert not np.signbit(torch.maximum(a, b).numpy())[:16].any()


# ----- seed 43 campaign ---------------------------------------------------------------------------
def test_index_add_without_indices_never_reads_alpha():
    """torch's index_add kernel does not run for an empty index, so an alpha out of the dtype's
    range is not refused there (it is with any index)."""
    x = torch.zeros((2, 4, 2, 1), dtype=torch.uint8)
    r = x.index_add(-3, torch.tensor([], dtype=torch.int64),
                    torch.zeros((2, 0, 2, 1), dtype=torch.uint8), alpha=-0.5)
    assert torch.equal(r, x)
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t"):
        x.index_add(-3, torch.tensor([0]), torch.zeros((2, 1, 2, 1), dtype=torch.uint8),
                    alpha=-0.5)


# ----- seed 44 campaign ---------------------------------------------------------------------------
def test_shrink_gradient_at_nan_of_a_permuted_input_is_the_scalar_loops():
    """A permuted input against a contiguous gradient: no common dense run, so torch's scalar
    loop takes every element and a NaN input passes the whole gradient."""
    x = torch.tensor(float("nan"), requires_grad=True)
    y = torch.nn.functional.hardshrink(x.reshape(-1).repeat(64).reshape(2, 4, 2, 4)
                                       .permute(3, 2, 1, 0))
    g = torch.arange(64, dtype=torch.float32).reshape(4, 2, 4, 2)
    y.backward(g)
    assert x.grad.item() == float(g.sum())


def test_logcumsumexp_of_a_0d_tensor_is_a_copy():
    assert np.signbit(torch.logcumsumexp(torch.tensor(-0.0), 0).numpy())
