"""Behaviours found by the differential campaigns (torch 2.13 CPU, measured), each pinned by the
value torch gives: memory-overlap checks of in-place and ``out=`` ops, ``xlogy`` and the
``kl_div`` gradient built on it, integer operands in ``atan2``'s gradient, half-precision norm
gradients, torch's strides for size-1 dims of views, convolution padding with non-finite
weights, and a handful of argument rules (``lerp(out=)``, ``narrow``, ``pad`` with negative pads,
``roll`` layout, ``kron(out=)``, ``topk`` of the smallest int64)."""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

from minitorch_cs import torch
import minitorch_cs.torch.nn.functional as F
from tests.helpers import has_avx512, ours_and_torch

OVERLAP = "some elements of the input tensor and the written-to tensor refer to a single memory"


# ----- memory overlap ------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda v: v[1:].add_(v[:3]),
    lambda v: v[1:].copy_(v[:3]),
    lambda v: v.view(2, 2).add_(v.view(2, 2).t()),
    lambda v: v.add_(v.unsqueeze(0)),
    lambda v: v[:1].pow_(v[:1].reshape(())),
    lambda v: v[1:].clamp_(v[:3], None),
    lambda v: v[1:].lerp_(v[:3], 0.5),
    lambda v: torch.add(v[:3], 1, out=v[1:]),
    lambda v: torch.exp(v[:3], out=v[1:]),
    lambda v: torch.cat([v[:2], v[:2]], out=v),
    lambda v: torch.index_select(v[:3], 0, torch.tensor([0, 1, 2]), out=v[:3]),
    lambda v: v.index_add_(0, torch.tensor([0, 1, 2, 3]), v),
    lambda v: v[1:].index_add_(0, torch.tensor([0, 1]), v[:2]),
])
def test_partial_overlap_is_refused(call):
    with pytest.raises(RuntimeError, match=OVERLAP):
        call(torch.arange(4.0))


@pytest.mark.parametrize("call,want", [
    (lambda v: v[1:].add_(v[1:]), [0.0, 2.0, 4.0, 6.0]),       # the very same view
    (lambda v: v[::2].add_(v[1::2]), [1.0, 1.0, 5.0, 3.0]),    # interleaved: not dense
    (lambda v: v.add_(v.view(2, 2).view(4)), [0.0, 2.0, 4.0, 6.0]),
    (lambda v: v[:2].add_(v[2:]), [2.0, 4.0, 2.0, 3.0]),       # disjoint
    (lambda v: torch.exp(v, out=v), [math.exp(i) for i in range(4)]),
    (lambda v: torch.cumsum(v, 0, out=v), [0.0, 1.0, 3.0, 6.0]),
])
def test_full_or_no_overlap_is_allowed(call, want):
    v = torch.arange(4.0)
    call(v)
    np.testing.assert_allclose(v.numpy(), want, rtol=1e-6)


# ----- xlogy and kl_div ------------------------------------------------------------------------
def test_xlogy_values_and_gradients():
    x = torch.tensor([0.0, 0.0, 0.0, -1.0, 2.0, 0.0], requires_grad=True)
    y = torch.tensor([0.0, -1.0, math.nan, -2.0, 0.0, 2.0], requires_grad=True)
    out = torch.xlogy(x, y)
    np.testing.assert_array_equal(out.detach().numpy(), [0, 0, np.nan, np.nan, -np.inf, 0])
    out.backward(torch.ones(6))
    np.testing.assert_allclose(x.grad.numpy(), [0, 0, np.nan, np.nan, -np.inf, math.log(2)],
                               rtol=1e-6)
    np.testing.assert_array_equal(y.grad.numpy(), [np.nan, -0.0, np.nan, 0.5, np.inf, 0.0])
    assert torch.xlogy(torch.tensor([1, 2]), 3).dtype is torch.float32
    assert torch.xlogy(2, torch.tensor([1.0], dtype=torch.float16)).dtype is torch.float16
    assert torch.xlogy(torch.tensor([1, 2]), torch.tensor(3.0, dtype=torch.float64)).dtype \
        is torch.float64
    t = torch.tensor([1.0, 2.0])
    assert t.xlogy_(torch.tensor(3.0)) is t
    with pytest.raises(TypeError):
        torch.xlogy(1.0, 2.0)


def test_kl_div_target_gradient_is_zero_under_a_zero_upstream_gradient():
    # a negative target makes the loss NaN, but a zero gradient reaching it stays 0 (torch)
    t = torch.tensor([[-0.47]], requires_grad=True)
    x = torch.tensor([[-0.47]], requires_grad=True)
    (F.kl_div(x, t, reduction="sum") * 0).backward()
    assert t.grad.item() == 0.0 and x.grad.item() == 0.0


# ----- gradients ---------------------------------------------------------------------------------
def test_atan2_integer_self_enters_its_gradient_in_its_own_dtype():
    # torch: grad * -self * recip with self uint8: -uint8(8) is 248
    x = torch.tensor([[-0.0, 2.0]], requires_grad=True)
    torch.atan2(torch.tensor(8, dtype=torch.uint8), x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[3.875, 248 / 68]], rtol=1e-6)
    x = torch.tensor([[-0.0, 2.0]], requires_grad=True)
    torch.atan2(torch.tensor(8, dtype=torch.int16), x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[-0.125, -8 / 68]], rtol=1e-6)


def test_half_norm_gradient_rounds_each_step():
    x = torch.tensor([-1.099609375] * 3, dtype=torch.float16, requires_grad=True)
    torch.linalg.vector_norm(x, 2, dim=-1, keepdim=True).backward(
        torch.tensor([-0.525390625], dtype=torch.float16))
    assert x.grad.tolist() == [0.303466796875] * 3  # torch 2.13's value


def test_einsum_operand_changed_in_place_when_its_partner_needs_no_gradient():
    v = torch.tensor([0.78, 2.76], dtype=torch.float64, requires_grad=True)
    w = v * 1
    p = torch.einsum("i,j->ij", w[:1], torch.tensor([0.0, 3.0, 3.0]).to(torch.uint8))
    w.view(1, 1, 2, 1).add_(p.reshape(-1)[:2].reshape(1, 1, 2, 1))
    w.sum().backward()  # torch saves only the uint8 operand: no version error
    assert v.grad.tolist() == [4.0, 1.0]  # torch 2.13's value


def test_einsum_without_a_contraction_is_torchs_product():
    # torch multiplies operands that share no summed letter (``mul``): a half-precision
    # gradient sums products already rounded (here +inf and -inf: NaN), not one rounded sum
    for T in ours_and_torch():
        v = T.tensor([0.9], dtype=T.float16, requires_grad=True)
        p = T.einsum("i,j->ij", v, T.tensor([252, 252], dtype=T.uint8))
        assert p.grad_fn.name() == "MulBackward0"
        p.backward(T.tensor([[-544.0, 806.5]], dtype=T.float16))
        assert math.isnan(v.grad.item())
        # a letter only one operand has is summed first: integers sum to int64
        a, b = T.ones(2, 3, dtype=T.int32), T.ones(3, dtype=T.int32)
        assert T.einsum("ij,j->j", a, b).dtype == T.int64
        assert T.einsum("ij,j->ij", a, b).dtype == T.int32


_PRODUCT_EQUATIONS = ["i,j->ij", "i,j->ji", "ij,ij->ij", "ij,ij->ji", "ij,j->ij", "ij,j->j",
                      "ij,k->ik", "bi,bj->bij", "i,->i", ",i->i", "i,i,i->i", "ij,jk->ijk",
                      "ij,kj->kij", "i,j", "ijk,ik->kji", "i,j->", ",->", "ijk,->kj"]


@pytest.mark.parametrize("eq", _PRODUCT_EQUATIONS)
def test_einsum_products_match_torch(eq):
    real = pytest.importorskip("torch")
    sizes = {"i": 3, "j": 2, "k": 4, "b": 2}
    subs = eq.split("->")[0].split(",")
    rng = np.random.default_rng(len(eq))
    for dts in [("float32",) * 3, ("float16",) * 3, ("bfloat16",) * 3, ("int32",) * 3,
                ("float16", "int64", "float32"), ("int64", "float16", "float16"),
                ("bool",) * 3, ("float16", "float32", "float16")]:
        vals = [rng.standard_normal([sizes[c] for c in sub]) * 100 for sub in subs]
        seen = []
        for T in (real, torch):
            ops = [T.tensor(v).to(getattr(T, dt)) for v, dt in zip(vals, dts)]
            for o in ops:
                if o.dtype.is_floating_point:
                    o.requires_grad_()
            r = T.einsum(eq, *ops)
            got = [str(r.dtype), tuple(r.shape), r.stride(), r.detach().double().tolist()]
            if r.requires_grad:
                g = np.random.default_rng(7).standard_normal(tuple(r.shape))
                r.backward(T.tensor(g).to(r.dtype))
                got.append([o.grad.double().tolist() if o.grad is not None else None
                            for o in ops])
            seen.append(got)
        assert seen[1] == seen[0], (eq, dts)


# ----- layouts -----------------------------------------------------------------------------------
@pytest.mark.parametrize("make,strides", [
    (lambda: torch.ones(1, 3, 3).permute(2, 1, 0).view(3, 1, 3, 1, 1, 1), (1, 9, 3, 9, 9, 9)),
    (lambda: torch.arange(6.0).view(2, 3).t().unsqueeze(2), (1, 3, 1)),
    (lambda: torch.arange(6.0).view(2, 3).t().unsqueeze(0), (3, 1, 3)),
    (lambda: torch.arange(9.0).reshape(3, 3).t().reshape(3, 1, 3), (1, 9, 3)),
])
def test_size_one_dims_of_views_have_torchs_strides(make, strides):
    assert make().stride() == strides


def test_roll_keeps_a_channels_last_layout():
    x = torch.zeros(3, 4, 4, 2).permute(0, 3, 1, 2)  # (3, 2, 4, 4) channels-last
    assert x.roll(1, 0).stride() == (32, 1, 8, 2)
    assert x.roll(1).stride() == (32, 16, 4, 1)  # flattened roll: contiguous
    assert torch.arange(12.0).reshape(3, 4).t().roll(1, 0).stride() == (3, 1)


def test_pad_without_positive_pads_narrows_and_clones():
    x = torch.arange(24.0).reshape(2, 3, 4).permute(2, 1, 0)
    y = F.pad(x, (-1, 0))
    assert y.shape == (4, 3, 1) and y.stride() == x[..., 1:].clone().stride()
    with pytest.raises(RuntimeError, match="narrow\\(\\): length must be non-negative"):
        F.pad(torch.ones(2, 3), (-2, -2))


def test_narrow_argument_errors():
    x = torch.arange(6.0)
    with pytest.raises(RuntimeError, match="length must be non-negative"):
        x.narrow(0, 0, -1)
    with pytest.raises(IndexError, match="start out of range"):
        x.narrow(0, 7, 1)
    assert x.narrow(0, -1, 1).tolist() == [5.0]


def test_kron_out_does_not_need_a_viewable_product():
    a = torch.full((2, 1, 3), 6, dtype=torch.int16)
    b = torch.full((3, 1, 3), 6, dtype=torch.int16).permute(2, 1, 0)
    out = torch.empty((6, 1, 9), dtype=torch.bfloat16)
    assert torch.kron(a, b, out=out) is out and out.float().eq(36).all()


def test_lerp_out_with_a_zero_dim_weight_casts():
    v = torch.tensor(-2.0, dtype=torch.float64)
    w = torch.tensor([0.3, 0.6], dtype=torch.float64)
    assert torch.lerp(w, w, v, out=torch.empty(2, dtype=torch.float16)).dtype is torch.float16
    with pytest.raises(RuntimeError, match="Found dtype Half but expected Double"):
        torch.lerp(w, w, w, out=torch.empty(2, dtype=torch.float16))


def test_topk_and_descending_sort_of_the_smallest_int64():
    x = torch.tensor([0, -2**63, 5, 2**63 - 1])
    assert torch.topk(x, 2).values.tolist() == [2**63 - 1, 5]
    assert torch.sort(x, descending=True).values.tolist() == [2**63 - 1, 5, 0, -2**63]


# ----- convolution padding with non-finite weights ------------------------------------------------
def _corner(nd, batch, cin, cout, groups, k, pad, dtype=torch.float32):
    x = torch.ones(((batch,) if batch else ()) + (cin,) + (4,) * nd, dtype=dtype)
    w = torch.full((cout, cin // groups) + (k,) * nd, math.inf, dtype=dtype)
    y = (F.conv1d if nd == 1 else F.conv2d)(x, w, padding=pad, groups=groups)
    return y.reshape(-1)[0].item()


@pytest.mark.parametrize("args,want", [
    ((1, 2, 1, 1, 1, 3, 2), math.inf),   # batch of 2: oneDNN leaves the padding out
    ((1, 1, 1, 1, 1, 3, 2), math.nan),   # one sample, small kernel: padding multiplied
    ((2, 1, 1, 1, 1, 4, 3), math.inf),   # a 4x4 kernel: oneDNN
    ((1, 2, 1, 1, 1, 3, 3), math.nan),   # padding as large as the kernel: multiplied
    ((1, 0, 4, 4, 4, 3, 2), math.inf),   # depthwise
    ((1, 0, 2, 4, 2, 3, 2), math.nan),   # one input, two outputs per group
    ((1, 0, 8, 8, 2, 3, 2), math.inf),   # four channels per group
    ((1, 0, 6, 6, 3, 3, 2), math.nan),   # two channels per group
])
def test_conv_padding_with_an_infinite_weight_follows_torchs_kernel_choice(args, want):
    got = _corner(*args)
    assert (math.isnan(got) and math.isnan(want)) or got == want


def test_conv_padding_kernel_choice_against_torch():
    real = pytest.importorskip("torch")
    if not has_avx512():  # oneDNN picks its kernels by instruction set (SPEC §3.1 Differs)
        pytest.skip("the padding rule was measured on an AVX-512 CPU; this one has none")
    real.set_num_threads(2)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(400):  # stride and dilation 1: the rule holds exactly (SPEC §3.1)
        nd = int(rng.integers(1, 3))
        batch = int(rng.integers(0, 4))
        cin, cout, groups = [(1, 1, 1), (2, 4, 1), (2, 4, 2), (8, 8, 2), (4, 4, 4), (6, 6, 3)][
            rng.integers(0, 6)]
        k, pad, size = int(rng.integers(1, 6)), int(rng.integers(0, 6)), int(rng.integers(1, 7))
        dt = ["float32", "bfloat16", "float16", "float64"][rng.integers(0, 4)]
        if dt == "bfloat16" and groups > 1 and cin == groups and cout > cin:
            continue  # NaN everywhere in torch (SPEC §3.1 Differs)
        outs = []
        for T in (real, torch):
            x = T.ones(((batch,) if batch else ()) + (cin,) + (size,) * nd, dtype=getattr(T, dt))
            w = T.full((cout, cin // groups) + (k,) * nd, math.inf, dtype=getattr(T, dt))
            try:
                y = (T.nn.functional.conv1d if nd == 1 else T.nn.functional.conv2d)(
                    x, w, padding=pad, groups=groups)
            except RuntimeError:
                outs.append(None)
                continue
            outs.append(np.asarray(y.float().tolist()))
        if outs[0] is None:
            assert outs[1] is None
            continue
        checked += 1
        np.testing.assert_array_equal(np.isnan(outs[0]), np.isnan(outs[1]))
        np.testing.assert_array_equal(np.isinf(outs[0]), np.isinf(outs[1]))
    assert checked > 100


def test_roll_and_cat_lay_out_as_torchs_cat():
    x = torch.zeros(3, 4, 4, 2).permute(0, 3, 1, 2)  # channels-last
    assert x.roll(0, 0).stride() == (32, 16, 4, 1)   # one empty piece: contiguous
    assert x.roll(1, 2).stride() == (32, 1, 8, 2)
    assert torch.cat([x, x]).stride() == (32, 1, 8, 2)
    assert torch.cat([x, x.contiguous()]).stride() == (32, 16, 4, 1)
    y = torch.arange(18.0).reshape(3, 1, 2, 3).permute(0, 2, 3, 1)  # (3, 2, 3, 1)
    assert y.roll(-1, 3).stride() == (6, 3, 1, 1)    # contiguous, size-1 dims included


@pytest.mark.parametrize("dtype", [torch.bool, torch.int64, torch.int32, torch.int16,
                                   torch.int8, torch.uint8])
def test_sdpa_on_integer_or_bool_inputs_raises_torchs_errors(dtype):
    q = torch.ones(1, 2, 3, dtype=dtype)
    with pytest.raises(RuntimeError, match="expected scalar type Float but found"):
        F.scaled_dot_product_attention(q, q, q)
    with pytest.raises(RuntimeError, match="expected scalar type Float but found"):
        F.scaled_dot_product_attention(q, q, q, is_causal=True)
    mask = torch.ones(2, 2, dtype=torch.bool)
    with pytest.raises(RuntimeError, match="expected scalar type Float" if dtype is torch.bool
                       else "without overflow"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=mask)


@pytest.mark.parametrize("x,g,want", [
    ([0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, math.inf], [1.0, 0.0, 0.0, 0.0]),
    ([0.0, 0.0, 0.0, 0.0], [math.inf] * 4, [math.inf, 0.0, 0.0, 0.0]),
    ([1.0, 0.0, 2.0, 0.0], [1.0, math.inf, 1.0, 1.0], [1.0, math.inf, 0.0, 0.0]),
    ([2.0, 3.0, 0.0, 5.0], [1.0, 1.0, 1.0, math.inf], [4.0, 2.0, math.inf, 0.0]),
])
def test_cumprod_gradient_with_zeros_is_torchs_first_order_rule(x, g, want):
    t = torch.tensor(x, requires_grad=True)
    t.cumprod(0).backward(torch.tensor(g))
    assert t.grad.tolist() == want  # torch 2.13's values: no 0 * inf past the first zero


def test_where_takes_a_uint8_condition_with_torchs_deprecation_warning():
    c = torch.tensor([1, 0], dtype=torch.uint8)
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
    assert torch.where(c, a, b).tolist() == [1.0, 4.0]
    assert torch.where(c, a, b, out=torch.empty(2)).tolist() == [1.0, 4.0]
    with pytest.raises(RuntimeError, match="boolean tensor, but got a tensor with dtype Char"):
        torch.where(c.to(torch.int8), a, b)


def test_addmm_inplace_self_must_have_the_products_shape():
    s = torch.zeros(3, dtype=torch.float64)
    with pytest.raises(RuntimeError, match=r"Bad in-place call: input tensor size \[3\] and "
                                           r"output tensor size \[2, 3\] should match"):
        s.addmm_(torch.ones(2, 4, dtype=torch.float64), torch.ones(4, 3, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied"):
        s.addmm_(torch.ones(2, 4, dtype=torch.float64), torch.ones(5, 3, dtype=torch.float64))


def test_dot_out_dtype_is_checked_first():
    with pytest.raises(RuntimeError, match="result dtype Char does not match input dtype Bool"):
        torch.dot(torch.ones(1, dtype=torch.bool), torch.ones(1, dtype=torch.bool),
                  out=torch.empty(0, dtype=torch.int8))
    with pytest.raises(RuntimeError, match="result dtype Char does not match input dtype Float"):
        torch.dot(torch.ones(2, 2), torch.ones(2, 2), out=torch.empty(0, dtype=torch.int8))


def test_views_of_a_dense_permuted_owner_get_torchs_size_one_strides():
    x = torch.ones(1, 2, 2, dtype=torch.bool).permute(2, 1, 0).to(torch.uint8)  # owns its memory
    assert x.stride() == (1, 2, 4)
    assert x.view(2, 1, 2, 1, 1, 1).stride() == (1, 4, 2, 4, 4, 4)


def test_std_of_equal_values_is_exactly_zero_with_a_zero_gradient():
    v = torch.tensor(-2.203019, requires_grad=True)
    s = v.reshape(-1).repeat(128).reshape(4, 4, 4, 2).std()
    assert s.item() == 0.0
    s.backward()
    assert v.grad.item() == 0.0  # torch masks std's 0/0


def test_cumprod_over_a_size_one_dim_passes_the_gradient_through():
    x = torch.tensor([[math.nan], [2.0]], dtype=torch.bfloat16, requires_grad=True)
    x.reshape(2, 1, 1).repeat(1, 1, 4).cumprod(1).sum().backward()
    assert x.grad.tolist() == [[4.0], [4.0]]


def test_half_binary_cross_entropy_gradient_rounds_its_floor_away():
    # float16: the 1e-12 floor is 0, so input == target == 1 gives 0/0 (torch); bfloat16 keeps it
    for dtype, nan in ((torch.float16, True), (torch.bfloat16, False)):
        x = torch.tensor([1.0, 0.5], dtype=dtype, requires_grad=True)
        F.binary_cross_entropy(x, torch.tensor([1.0, 0.0], dtype=dtype)).backward()
        assert math.isnan(x.grad[0].item()) is nan and x.grad[1].item() == 1.0  # mean of 2


def test_changing_saved_results_in_place_is_refused():
    a = torch.tensor([[3.0, 1.0], [0.5, 2.0]], requires_grad=True)
    s = torch.linalg.svdvals(a)
    s.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.sum().backward()
    x = torch.randn(4, 3, requires_grad=True)
    rm, rv = torch.zeros(3), torch.ones(3)
    y = F.batch_norm(x, rm, rv, training=False)
    rv.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_nan_to_num_out_of_an_integer_tensor_is_contiguous():
    x = torch.arange(8, dtype=torch.int8).reshape(2, 2, 2).permute(2, 1, 0)
    out = torch.empty(0, dtype=torch.int8)
    assert torch.nan_to_num(x, out=out).stride() == (4, 2, 1)
    assert torch.nan_to_num(x).stride() == x.stride()


@pytest.mark.parametrize("call,want", [
    (lambda h: h + 2049.0, [2048.0, 2052.0]),                 # the number rounded to float16
    (lambda h: h - 2049.0, [-2047.0, -2045.0]),
    (lambda h: h % 2049.0, [1.0, 3.0]),
    (lambda h: h * 2049.0, [2048.0, 6148.0]),                 # mul reads it in float32
    (lambda h: h * torch.tensor(2049.0), [2048.0, 6148.0]),   # a 0-d float32 tensor too
    (lambda h: h / torch.tensor(70000.5), [1.430511474609375e-05, 4.285573959350586e-05]),
    # a one-element operand of any shape is a scalar to the kernel, an integer one too
    (lambda h: h * torch.tensor([2049]), [2048.0, 6148.0]),
    (lambda h: (h / 4096) * torch.tensor([[70000]]), [[17.09375, 51.28125]]),
    (lambda h: h * 0 * torch.tensor([-2**63]), [-0.0, -0.0]),  # not 0 * -inf
    (lambda h: h / torch.tensor([70000], dtype=torch.int32), [1.430511474609375e-05,
                                                               4.285573959350586e-05]),
    (lambda h: torch.add(h, 683.0, alpha=3), [2048.0, 2052.0]),  # alpha * b rounded first
    (lambda h: torch.sub(h, torch.tensor([683.0, 683.0], dtype=torch.float16), alpha=3),
     [-2047.0, -2045.0]),
])
def test_half_tensor_with_a_number_follows_each_kernels_rule(call, want):
    assert call(torch.tensor([1.0, 3.0], dtype=torch.float16)).tolist() == want  # torch 2.13


def test_rounding_division_by_a_one_element_half_operand_truncates_the_unrounded_quotient():
    # torch's kernel reads a one-element divisor as a float32 scalar and truncates the float32
    # quotient (12 / -2.40625 = -4.99); a divisor of the batch's shape rounds it to bfloat16
    # first (-5.0) -- both paths measured on torch 2.13
    for T in ours_and_torch():
        a = T.tensor([12, 12], dtype=T.uint8)
        assert T.div(a, T.tensor([-2.40625], dtype=T.bfloat16), rounding_mode="trunc").tolist() \
            == [-4.0, -4.0]
        assert T.div(a, T.tensor([-2.40625] * 2, dtype=T.bfloat16),
                     rounding_mode="trunc").tolist() == [-5.0, -5.0]
        r = T.div(T.tensor([12.0], dtype=T.bfloat16), T.tensor([[-2.40625]], dtype=T.bfloat16),
                  rounding_mode="floor")
        assert r.shape == (1, 1) and r.tolist() == [[-5.0]]


def test_tensordot_is_one_mm_of_the_flattened_operands():
    for T in ours_and_torch():
        a, b = T.tensor([[1, 2], [3, 4]], dtype=T.uint8), T.tensor([[5], [6]], dtype=T.uint8)
        r = T.tensordot(a, b, 1)
        assert r.dtype == T.uint8 and r.tolist() == [[17], [39]]
        # a contracted dim of size 1 on one side is summed on the other, in its own dtype
        r = T.tensordot(T.tensor([[200, 100]], dtype=T.uint8), T.ones(1, 1, dtype=T.uint8),
                        dims=([0, 1], [0, 1]))
        assert r.dtype == T.uint8 and r.tolist() == 44  # (300 wraps in uint8)
        with pytest.raises(NotImplementedError, match='"addmm_impl_cpu_" not implemented for '
                                                      "'Bool'"):
            T.tensordot(T.ones(2, 2, dtype=T.bool), T.ones(2, 2, dtype=T.bool), 1)


def test_lerp_out_checks_come_in_torchs_order():
    for T in ours_and_torch():
        a, b = T.tensor([True, False]), T.tensor([False, True])
        with pytest.raises(RuntimeError, match="result type Char can't be cast to the desired "
                                               "output type Bool"):
            T.lerp(a, b, T.ones((), dtype=T.int8), out=T.empty(2, dtype=T.bool))
        with pytest.raises(RuntimeError, match="expected dtype bool for `weight`"):
            T.lerp(a, b, T.ones(2, dtype=T.int8), out=T.empty(2, dtype=T.float32))


@pytest.mark.parametrize("call,exc,msg", [
    (lambda x: x.max(), RuntimeError, "max(): Expected reduction dim to be specified for "
     "input.numel() == 0. Specify the reduction dim with the 'dim' argument."),
    (lambda x: x.amin(), RuntimeError, "amin(): Expected reduction dim to be specified for "
     "input.numel() == 0. Specify the reduction dim with the 'dim' argument."),
    (lambda x: x.argmax(), IndexError, "argmax(): Expected reduction dim to be specified for "
     "input.numel() == 0."),
    (lambda x: x.argmin(0), IndexError, "argmin(): Expected reduction dim 0 to have non-zero "
     "size."),
    (lambda x: x.max(0), IndexError, "max(): Expected reduction dim 0 to have non-zero size."),
    (lambda x: x.amax(0), IndexError, "amax(): Expected reduction dim 0 to have non-zero size."),
])
def test_reductions_without_identity_refuse_an_empty_input(call, exc, msg):
    for T in ours_and_torch():
        with pytest.raises(exc) as info:
            call(T.ones(0, 3))
        assert str(info.value) == msg, T.__name__
    for T in ours_and_torch():  # along a dim that is not empty: an empty result
        x = T.ones(0, 3)
        assert x.argmax(1).shape == x.amax(1).shape == x.max(1)[0].shape == (0,)


def test_softmax_of_an_integer_tensor_names_torchs_kernel_or_is_empty():
    for T in ours_and_torch():
        with pytest.raises(NotImplementedError, match='"softmax_kernel_impl" not implemented'):
            T.ones(2, 3, dtype=T.int64).softmax(0)  # not the last dim: the general kernel
        with pytest.raises(NotImplementedError, match='"log_softmax_lastdim_kernel_impl"'):
            T.ones(2, 3, dtype=T.int64).log_softmax(-1)
        r = T.ones(0, 3, dtype=T.int64).softmax(-1)  # empty: no kernel runs
        assert r.dtype == T.int64 and r.shape == (0, 3)


# a double whose float32 rounding is a float16 midpoint: torch converts doubles to float16
# through float32 (c10::Half is built from a float), so it rounds twice: -43.0, not -42.96875
_X = -42.98437372777596


@pytest.mark.parametrize("make", [
    lambda T, h, d: T.tensor([_X], dtype=T.float16),
    lambda T, h, d: d.to(T.float16),
    lambda T, h, d: d.half(),
    lambda T, h, d: T.full((1,), _X, dtype=T.float16),
    lambda T, h, d: h + _X,
    lambda T, h, d: h + T.tensor(_X, dtype=T.float64),
    lambda T, h, d: h.clone().fill_(_X),
    lambda T, h, d: h.clone().copy_(d),
    lambda T, h, d: (lambda z: (z.__setitem__(0, _X), z)[1])(h.clone()),
    lambda T, h, d: (lambda z: (z.__setitem__(slice(None), d), z)[1])(h.clone()),
    lambda T, h, d: h.masked_fill(T.tensor([True]), _X),
    lambda T, h, d: T.where(T.tensor([True]), _X, h),
    lambda T, h, d: T.add(d, 0, out=T.empty(1, dtype=T.float16)),
    lambda T, h, d: h.new_full((1,), _X),
    lambda T, h, d: T.as_tensor(np.array([_X]), dtype=T.float16),
    lambda T, h, d: T.linspace(_X, _X, 1, dtype=T.float16),
    lambda T, h, d: T.cat([h.double(), d]).half()[1:],
])
def test_doubles_reach_float16_through_float32(make):
    for T in ours_and_torch():
        h, d = T.zeros(1, dtype=T.float16), T.tensor([_X], dtype=T.float64)
        assert make(T, h, d).tolist() == [-43.0], T.__name__


def test_reductions_convert_the_input_to_their_dtype_first():
    # torch converts the input to ``dtype`` and reduces by that dtype's rule (half: in float32):
    # numpy would accumulate bfloat16 in bfloat16 (3000 ones sum to 256)
    for T in ours_and_torch():
        ones, h = T.ones(3000, dtype=T.float64), T.full((3000,), 1.1, dtype=T.float16)
        assert ones.sum(dtype=T.bfloat16).item() == 3008.0
        assert ones.cumsum(0, dtype=T.float16)[-1].item() == 3000.0
        for r in (h.sum(dtype=T.float32), h.mean(dtype=T.float32), h.cumsum(0, dtype=T.float32),
                  h.prod(dtype=T.float32)):
            assert r.dtype == T.float32
        assert h.sum(dtype=T.float32).item() == 3298.828125


def test_half_gradient_through_a_one_element_operand_reads_it_as_the_kernel():
    # torch's formula is ``grad * other`` (``grad / other``): the same kernel rule applies
    for op in (torch.mul, torch.div):
        h = torch.tensor([1.0, 3.0], dtype=torch.float16, requires_grad=True)
        op(h, torch.tensor([70000])).backward(torch.tensor([1e-3, 5e4], dtype=torch.float16))
        want = [70.0, float("inf")] if op is torch.mul else [0.0, 0.7138671875]
        assert h.grad.tolist() == want  # torch 2.13 (cast first: [inf, inf] and [0.0, 0.0])


def test_in_place_on_a_reshaped_view_of_a_transposed_result():
    # the replay of the view chain runs on a copy laid out as the base (a reshape that viewed
    # the base must view the copy too)
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x.t() * 2
    y.t().reshape(-1).mul_(3)
    y.sum().backward()
    assert x.grad.tolist() == [[6.0] * 3] * 2


def test_rot90_result_is_no_view():
    y = torch.rot90(torch.arange(6.0).reshape(2, 3) * 1, 1, (0, 1))
    assert y._base is None and y.stride() == (1, 3)


def test_integer_avg_pool_wraps_and_truncates():
    x = torch.full((1, 1, 1, 4), -2**63, dtype=torch.int64)
    assert F.avg_pool2d(x, (1, 2), 1).tolist() == [[[[0, 0, 0]]]]  # two minima wrap to 0
    x = torch.tensor([[[[-7, 0, 7, 1]]]])
    assert F.avg_pool2d(x, (1, 2), 1).tolist() == [[[[-3, 3, 4]]]]  # toward zero


def test_adaptive_avg_pool_sums_then_divides():
    x = torch.full((1, 1, 4), 1e-45)
    assert F.adaptive_avg_pool1d(x, 2).tolist() == [[[1.401298464324817e-45] * 2]]


def test_instance_norm_is_batch_norm_of_the_samples_with_running_statistics():
    x = torch.arange(24.0).reshape(2, 3, 4)
    rm, rv = torch.zeros(3), torch.ones(3)
    y = F.instance_norm(x, rm, rv, momentum=0.5)
    assert torch.allclose(y, F.group_norm(x, 3))
    np.testing.assert_allclose(rm.numpy(), [3.75, 5.75, 7.75])  # mean over the batch
    with pytest.raises(ValueError, match="Expected more than 1 spatial element"):
        F.instance_norm(torch.ones(2, 3, 1))
    # half inputs keep batch norm's rounded statistics (torch 2.13's values)
    h = torch.tensor([2.425, 2.02097], dtype=torch.float64).repeat(12).reshape(2, 3, 4)
    out = F.instance_norm(h.to(torch.float16))
    assert out[0, 0, :2].tolist() == [1.0048828125, -0.99462890625]


def test_bfloat16_abs_gradient_at_nan_is_zero():
    x = torch.tensor([math.nan, -1.0, 0.0, 2.0], dtype=torch.bfloat16, requires_grad=True)
    x.abs().sum().backward()
    assert x.grad.tolist() == [0.0, -1.0, 0.0, 1.0]


def test_addcmul_casts_every_operand_to_the_common_dtype_first():
    out = torch.addcmul(torch.tensor([1.912], dtype=torch.float16),
                        torch.zeros(1, dtype=torch.int16),
                        torch.tensor([-2**31], dtype=torch.int32), value=0.5)
    assert math.isnan(out.item())  # int32 min is -inf in float16, and 0 * -inf is NaN (torch)


def test_pow_gradient_with_a_bool_exponent_raises_torchs_error():
    x = torch.tensor([2.86], requires_grad=True)
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor"):
        (x ** torch.tensor(True)).sum().backward()


def test_half_gradients_sum_in_float32_and_round_once():
    g = np.random.default_rng(0).normal(size=36)
    v = torch.tensor(1.5, dtype=torch.bfloat16, requires_grad=True)
    v.reshape(-1).repeat(36).to(torch.float16).backward(torch.tensor(g, dtype=torch.float16))
    w = torch.tensor([1.5], dtype=torch.bfloat16, requires_grad=True)
    (w * torch.ones(36, 1, dtype=torch.bfloat16)).backward(
        torch.tensor(g.reshape(36, 1), dtype=torch.bfloat16))
    assert v.grad.item() == w.grad.item() == -3.90625  # torch 2.13's value


def test_scalar_power_gradient_uses_the_power_kernels_special_cases():
    x = torch.tensor([-0.5, -math.inf, 4.0, 0.0, -0.0], requires_grad=True)
    (x ** 0.5).sum().backward()  # 0.5 * x ** -0.5: rsqrt, NaN at -inf (torch)
    assert [str(v) for v in x.grad.tolist()] == ["nan", "nan", "0.25", "inf", "-inf"]


def test_var_gradient_of_equal_large_values_is_zero():
    v = torch.tensor([30000.0], requires_grad=True)
    x = (v.repeat(4) + 2.5).repeat(48) ** 2
    torch.var(x.reshape(4, 4, 4, 3), dim=(3, 0, 1, 2)).backward()
    assert v.grad.item() == 0.0


def test_more_torch_refusals():
    x = torch.tensor([0.5], requires_grad=True)
    with pytest.raises(RuntimeError, match="with two bool tensors"):
        torch.lerp(x, x, torch.tensor(True)).sum().backward()
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):  # the divisor as uint8 is 0
        torch.fmod(torch.tensor([3], dtype=torch.uint8), torch.tensor(256))
    y = torch.cumprod(torch.tensor(2.6, requires_grad=True), 0)
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    ce = F.cross_entropy(torch.full((2, 4, 2), math.nan), torch.tensor([[2, 0], [0, 0]]),
                         reduction="none", label_smoothing=0.1, ignore_index=0)
    assert math.isnan(ce[0, 0].item()) and ce[0, 1].item() == ce[1, 0].item() == 0.0


def test_std_mean_saves_its_input_for_the_mean_too():
    v = torch.tensor(1.4, requires_grad=True)
    a = v.reshape(-1).repeat(24).reshape(2, 2, 3, 2) * 1
    _, m = torch.std_mean(a, 0)
    out = a.reshape(-1)[:1].add_(m.reshape(-1)[:1].reshape(()))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_std_mean_saves_its_standard_deviation_for_the_mean_too():
    """torch's StdMean node saves result 0 (its backward reads the standard deviation): changed
    in place, a backward through the mean alone is refused; var_mean's node saves no result."""
    x = torch.tensor([1.0, 2.0, 4.0], requires_grad=True)
    s, m = torch.std_mean(x)
    s.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        (m + 0).backward()
    v, m = torch.var_mean(x)
    v.mul_(2)
    (m + 0).backward()
    assert x.grad.tolist() == pytest.approx([1 / 3] * 3)


def test_addr_checks_the_vectors_it_converted():
    """torch's addr node saves vec1 and vec2 themselves (each for the other's gradient): where
    ours multiplies float64 copies, changing an original in place is still refused."""
    a = torch.ones(3, requires_grad=True) * 1
    b = torch.ones(2, dtype=torch.float64, requires_grad=True) * 1
    r = torch.addr(torch.zeros(3, 2, dtype=torch.float64), a, b)
    a.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        r.sum().backward()


def test_binary_gradients_promote_their_operands_as_torchs_formula():
    """fmod's divisor gradient, -grad * trunc(self / other), runs in the result dtype: a float16
    tensor over a bfloat16 0-d divisor gives a float16 quotient, inf here (0.5 / 1e-6), so a
    zero gradient gives NaN, as in torch 2.13 (ours computed the quotient in float32)."""
    b = torch.tensor(9.98378e-07, dtype=torch.bfloat16, requires_grad=True)
    r = torch.fmod(torch.tensor([0.5], dtype=torch.float16), b)
    assert r.dtype is torch.float16
    r.backward(torch.zeros(1, dtype=torch.float16))
    assert math.isnan(b.grad.item())


@pytest.mark.parametrize("make", [
    lambda x, s: torch.nansum(x),  # torch's NansumBackward0 saves the input
    lambda x, s: torch.zeros(5).put(torch.tensor([0, 2]), s),  # put saves a source that
    lambda x, s: (torch.zeros(5) * 1).put_(torch.tensor([0, 2]), s),  # requires grad
])
def test_composites_check_what_torchs_node_saves(make):
    x = torch.tensor([1.0, float("nan")], requires_grad=True) * 1
    s = torch.ones(2, requires_grad=True) * 1
    r = make(x, s)
    x.mul_(2)
    s.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        r.sum().backward()


def test_sdpa_rows_of_minus_inf_scores_give_zeros_without_a_mask():
    q = torch.tensor([[[0.5]], [[1.0]]])
    k = torch.full((2, 1, 1), -math.inf)
    out = F.scaled_dot_product_attention(q, k, torch.ones(2, 1, 1))
    assert out.tolist() == [[[0.0]], [[0.0]]]  # torch's safe softmax


def test_half_digamma_gradient_rounds_trigamma_to_the_half_dtype():
    x = torch.tensor([-2.0, 2.5], dtype=torch.float16, requires_grad=True)
    torch.digamma(x).backward(torch.tensor([0.0, 1.0], dtype=torch.float16))
    assert math.isnan(x.grad[0].item()) and x.grad[1].item() == 0.490478515625  # 0 * inf


def test_addcdiv_and_addcmul_scale_the_first_tensor_first():
    a, t1 = torch.tensor([0.0]), torch.tensor([3e38])
    assert torch.addcmul(a, t1, torch.tensor([0.5]), value=2).item() == math.inf  # (2*t1)*t2
    assert torch.addcdiv(a, t1, torch.tensor([2.0]), value=2).item() == math.inf


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_addcmul_within_one_ulp_of_torchs_fused_rule_and_addcdiv_exact(dtype):
    """SPEC (Differs): torch's CPU addcmul is one fused multiply-add, fma(value * t1, t2, self);
    ours rounds the product first: apart on a few percent of elements, by at most the
    product's rounding (half its ulp) and one ulp of the result. addcdiv,
    ``self + (value * t1) / t2``, is torch's to the bit."""
    real = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    d, a, b = (rng.standard_normal(20000).astype(dtype) for _ in range(3))
    b[b == 0] = 1
    ours = torch.addcmul(torch.tensor(d), torch.tensor(a), torch.tensor(b), value=0.05).numpy()
    want = real.addcmul(real.tensor(d), real.tensor(a), real.tensor(b), value=0.05).numpy()
    off = ours != want
    prod = (np.asarray(0.05, dtype) * a) * b
    assert off.mean() < 0.1  # (0 where torch runs without FMA instructions)
    assert np.all(np.abs(ours - want) <= np.spacing(np.abs(prod)) / 2 + np.spacing(np.abs(want)))
    ours = torch.addcdiv(torch.tensor(d), torch.tensor(a), torch.tensor(b), value=0.05).numpy()
    want = real.addcdiv(real.tensor(d), real.tensor(a), real.tensor(b), value=0.05).numpy()
    assert ours.tobytes() == want.tobytes()


def test_half_cross_entropy_reads_the_rounded_log_probabilities():
    v = torch.tensor(-0.0698242, dtype=torch.bfloat16, requires_grad=True)
    x = (v + v).reshape(1).repeat(4)
    x.retain_grad()
    (F.cross_entropy(x, torch.tensor(3)) * 3.0).backward()
    assert x.grad.tolist() == [0.75390625] * 3 + [-2.25]  # torch 2.13 (exp of bf16 log(1/4))


def test_training_batch_norm_applies_torchs_scale_and_shift_form():
    # y = x * (invstd * w) + (b - mean * invstd * w): an infinite weight gives inf - inf = NaN
    x = torch.tensor([[1.0, 2.0, 3.0], [1.5, 2.5, 3.5]], dtype=torch.float16)
    w = torch.full((3,), math.inf, dtype=torch.float16)
    y = F.batch_norm(x, None, None, w, torch.ones(3, dtype=torch.float16), training=True)
    assert all(math.isnan(v) for v in y.reshape(-1).tolist())


def test_half_softmax_backward_reads_the_rounded_output():
    x = torch.tensor([[99.8125] * 3], dtype=torch.float16, requires_grad=True)
    y = torch.log_softmax(x, 1)
    y.backward(torch.tensor([[1.0, 0.0, 0.0]], dtype=torch.float16))
    # exp of float16 log(1/3) is not 1/3 (torch 2.13's values)
    assert x.grad.tolist() == [[0.66650390625, -0.333251953125, -0.333251953125]]


def test_half_sdpa_computes_in_float32_and_rounds_once():
    q = torch.tensor([[[1.5]], [[-2.0]], [[3.0]]], dtype=torch.bfloat16).repeat(1, 3, 1)
    q.requires_grad_()
    k = torch.full((3, 3, 1), 2000.0, dtype=torch.bfloat16)
    v = torch.tensor([[[1.0], [2.0], [3.0]]] * 3, dtype=torch.bfloat16)
    out = F.scaled_dot_product_attention(q, k, v)
    out.sum().backward()
    # torch 2.13 gives exactly 0: the scores' gradient is symmetric and cancels in float32; its
    # product with k is BLAS's dot product (numpy's OpenBLAS may fuse it into one rounding and
    # keep the 4.8e-7 residue). Scores, softmax and products rounded to bfloat16 on the way
    # would leave a residue orders of magnitude larger.
    assert out.dtype is torch.bfloat16 and q.grad.abs().max().item() <= 5e-7


def test_half_baddbmm_and_addmm_sum_in_float32_before_rounding():
    # alpha * (a @ b) overflows float16 only after the sum: -inf + (finite in float32) = -inf
    c = torch.full((1, 1, 1), -math.inf, dtype=torch.float16)
    a = torch.full((1, 1, 1), 993.0, dtype=torch.float16)
    out = torch.baddbmm(c, a, a, beta=0.5, alpha=2)
    assert out.item() == -math.inf  # torch 2.13 (ours was NaN: inf - inf)
    assert torch.addmm(c[0], a[0], a[0], beta=0.5, alpha=2).item() == -math.inf


@pytest.mark.parametrize("start,end,weight,want", [
    ([6], [2], ("0d", 0.5, "float32"), ([4.0], "float32")),
    ([True], [False], ("0d", 0.5, "float32"), ([0.5], "float32")),
    ([6], [2], ("0d", 0.25, "bfloat16"), ([5.0], "bfloat16")),
    (6, 6, ("0d", 0.265625, "bfloat16"), (6.0, "bfloat16")),
    ([6], [2], ("0d", 1, "int64"), (NotImplementedError, "lerp_kernel_tensor")),
    ([6], [2], ("number", 0.5, None), (NotImplementedError, "lerp_kernel_scalar")),
    ([True], [False], ("number", 0.5, None), (NotImplementedError, "lerp_kernel_scalar")),
])
def test_lerp_of_integer_ends_runs_in_the_promoted_dtype_of_a_tensor_weight(start, end, weight,
                                                                             want):
    """torch 2.13: a 0-d float weight promotes integer/bool ends and the tensor kernel runs in
    the common dtype; an integer common dtype, or a Python-number weight (the scalar kernel, in
    start's dtype), is refused with NotImplementedError."""
    def run(T):
        kind, v, dt = weight
        w = T.tensor(v, dtype=getattr(T, dt)) if kind == "0d" else v
        return T.lerp(T.tensor(start), T.tensor(end), w)
    if isinstance(want[0], type):
        with pytest.raises(want[0], match=want[1]):
            run(torch)
    else:
        r = run(torch)
        assert r.tolist() == want[0] and r.dtype == getattr(torch, want[1])
    real = pytest.importorskip("torch")
    if isinstance(want[0], type):
        with pytest.raises(want[0], match=want[1]):
            run(real)
    else:
        assert run(real).tolist() == want[0]


# ----- var / std: double accumulation, torch's backward formula ----------------------------------
def _var_cases(seed, count):
    """Random reductions (shape, dim, correction, std?), half of them over near-equal values
    (where the rounding of the mean decides the gradient)."""
    rng = np.random.default_rng(seed)
    for k in range(count):
        shape = tuple(int(s) for s in rng.integers(1, 5, rng.integers(1, 4)))
        x = rng.standard_normal(shape)
        if k % 2:
            x = 2.4 + 0.01 * x
        yield x, int(rng.integers(0, len(shape))), int(rng.integers(0, 2)), bool(k % 3)


def _var_call(T, x, dim, corr, std, dtype):
    """Value and gradient (float32 arrays) of a var/std; a reduction over one element with
    correction 1 warns about its degrees of freedom in both libraries."""
    t = T.tensor(x, dtype=getattr(T, dtype)).requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        r = (T.std if std else T.var)(t, dim=dim, correction=corr)
    r.backward(T.ones_like(r))
    return r.detach().float().numpy(), t.grad.float().numpy()


def test_float32_var_and_std_are_the_double_precision_results_rounded():
    rng = np.random.default_rng(3)
    for n in (3, 7, 100, 1000):
        x = (2.4 + 0.01 * rng.standard_normal((4, n))).astype(np.float32)
        xd = x.astype(np.float64)
        for dim in (0, 1):
            want = xd.var(axis=dim, ddof=1).astype(np.float32)
            got = torch.var(torch.from_numpy(x), dim=dim).numpy()
            np.testing.assert_array_equal(got, want)
            want = np.sqrt(xd.var(axis=dim, ddof=0)).astype(np.float32)
            np.testing.assert_array_equal(
                torch.std(torch.from_numpy(x), dim=dim, correction=0).numpy(), want)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
def test_var_and_std_gradients_follow_torchs_formula_step_by_step(dtype):
    """Written out with numpy in torch's order: (grad / (std * 2)) masked where std is 0, times
    2 / (N - correction) in the compute dtype, times (x - mean(x)), each step rounded."""
    import ml_dtypes
    npdt = {"bfloat16": ml_dtypes.bfloat16, "float16": np.float16, "float32": np.float32}[dtype]
    f32 = np.float32
    for x, dim, corr, std in _var_cases(0, 60):
        xh = x.astype(npdt)
        y, got = _var_call(torch, x, dim, corr, std, dtype)
        g = np.ones_like(np.expand_dims(y, dim)).astype(npdt)
        if std:
            yh = np.expand_dims(y, dim).astype(npdt)
            with np.errstate(divide="ignore", invalid="ignore"):
                g = np.where(yh == 0, npdt(0),
                             (g.astype(f32) / (yh.astype(f32) * 2)).astype(npdt))
        n = x.shape[dim]
        scale = 2.0 / (n - corr) if n - corr else np.inf
        mean = (xh.astype(f32).sum(dim, keepdims=True) / f32(n)).astype(npdt) \
            if dtype != "float32" else xh.sum(dim, keepdims=True) / f32(n)
        with np.errstate(over="ignore", invalid="ignore"):
            a = (g.astype(f32) * f32(scale)).astype(npdt)
            d = (xh.astype(f32) - mean.astype(f32)).astype(npdt)
            want = (a.astype(f32) * d.astype(f32)).astype(npdt)
        np.testing.assert_array_equal(got, want.astype(f32), err_msg=f"{x.shape} {dim} {corr}")


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
def test_var_and_std_match_torch_bit_for_bit(dtype):
    """Values and gradients against torch 2.13 (near-equal values included: a bfloat16 std's
    gradient there is decided by the rounded mean); a float32 value may be a double rounding
    away (one of 400 in a measurement), and then its std gradient follows it."""
    T = pytest.importorskip("torch")
    off = 0
    for x, dim, corr, std in _var_cases(1, 120):
        want = _var_call(T, x, dim, corr, std, dtype)
        got = _var_call(torch, x, dim, corr, std, dtype)
        if not np.array_equal(got[0], want[0], equal_nan=True):
            off += 1
            np.testing.assert_allclose(got[0], want[0], rtol=1.2e-7)
            continue
        np.testing.assert_array_equal(got[1], want[1], err_msg=f"{x.shape} {dim} {corr} {std}")
    assert off <= 2


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
def test_erfinv_of_a_zero_dim_negative_zero_keeps_its_sign(dtype):
    out = torch.erfinv(torch.tensor(-0.0, dtype=getattr(torch, dtype)))
    assert out.shape == () and str(out.item()) == "-0.0"
    x = torch.tensor([[-0.0, 0.5]], dtype=getattr(torch, dtype))
    assert str(torch.erfinv(x[0, 0]).item()) == "-0.0"


# ----- changed-in-place errors ------------------------------------------------------------------

def _changed_in_place(T, case):
    x = T.ones(3, requires_grad=True)
    if case == "input":  # a saved input made by an op, changed by another op
        a = x * 2
        b = a * x
        a.add_(1)
        return b
    if case == "output":  # a saved output, changed after (named by the op that saved it)
        a = x.sigmoid()
        a.mul_(2)
        return a
    if case == "outside":  # a tensor outside the graph: no op is named
        y = T.ones(3)
        b = x * y
        y.add_(1)
        return b
    # an integer operand of einsum's product (promoted for it): torch's mul saves the operand
    v = T.tensor([-2, 6], dtype=T.int16)
    b = T.einsum("ijk,ik->j", v[:1].reshape(1, 1, 1), x[:1].reshape(1, 1))
    v[:1].relu_()
    return b


CHANGED = {
    "input": "[torch.FloatTensor [3]], which is output 0 of Add, is at version 1; expected "
             "version 0 instead.",
    "output": "[torch.FloatTensor [3]], which is output 0 of Sigmoid, is at version 1; expected "
              "version 0 instead.",
    "outside": "[torch.FloatTensor [3]] is at version 1; expected version 0 instead.",
    "einsum": "[torch.ShortTensor [1, 1, 1]] is at version 1; expected version 0 instead.",
}


@pytest.mark.parametrize("case", sorted(CHANGED))
@pytest.mark.parametrize("anomaly", [False, True])
def test_changed_in_place_error_names_what_torch_names(case, anomaly):
    hint = ("the backtrace further above shows the operation that failed to compute its "
            "gradient. The variable in question was changed in there or anywhere later. Good "
            "luck!") if anomaly else ("enable anomaly detection to find the operation that "
                                      "failed to compute its gradient, with torch.autograd."
                                      "set_detect_anomaly(True, check_nan=False).")
    want = ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {CHANGED[case]} Hint: {hint}")
    for T in ours_and_torch():
        out = _changed_in_place(T, case)
        with T.autograd.set_detect_anomaly(anomaly), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError) as info:
                out.sum().backward()
        assert str(info.value) == want, T.__name__


# ----- SVD of matrices that are not finite ---------------------------------------------------------
NONFINITE = "The algorithm failed to converge because the input matrix contained non-finite values."


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_svd_of_a_matrix_with_nan_raises_torchs_linalg_error(dtype):
    dt = getattr(torch, dtype)
    m = torch.tensor([[math.nan, 1.0], [1.0, 1.0]], dtype=dt)
    with pytest.raises(torch.linalg.LinAlgError, match=r"^linalg\.svd: " + NONFINITE):
        torch.linalg.svdvals(m)
    with pytest.raises(RuntimeError, match=r"^linalg\.svd: \(Batch element 1\): " + NONFINITE):
        torch.linalg.matrix_norm(torch.stack([torch.ones(2, 2, dtype=dt), m]), ord=2)
    assert type(torch.linalg.LinAlgError("x")).__name__ == "_LinAlgError"


@pytest.mark.parametrize("m", [[[-math.inf] * 3] * 3, [[-math.inf, 0, 0], [0, 0, 0], [0, 0, 0]],
                               [[math.inf, 1.0], [1.0, 1.0]]])
def test_svd_of_a_matrix_with_an_infinity_gives_nan_singular_values(m):
    """torch 2.13: NaN values (numpy's OpenBLAS LAPACK failed on the first matrix and never
    returned on the second); a finite matrix of the same stack keeps its values."""
    x = torch.tensor(m, dtype=torch.float64)
    assert np.isnan(torch.linalg.svdvals(x).numpy()).all()
    assert math.isnan(torch.linalg.matrix_norm(x, ord=-2).item())
    both = torch.linalg.svdvals(torch.stack([x, torch.eye(len(m), dtype=torch.float64)]))
    assert np.isnan(both[0].numpy()).all() and both[1].tolist() == [1.0] * len(m)


# ----- half-precision derivative formulas -----------------------------------------------------------
def test_half_formula_arrays_multiply_numbers_in_float32():
    """A backward formula of tensor ops on float16/bfloat16 arrays rounds each op once, and a
    number operand stays a float32 (ln 2 is 0.69140625 as a bfloat16), 0-d arrays included."""
    import ml_dtypes
    from minitorch_cs.torch._ops._xp import HalfOps
    for dt in (ml_dtypes.bfloat16, np.float16):
        for shape in ((), (5,)):
            x = np.full(shape, 1.4140625, dt)
            got = x.view(HalfOps) * math.log(2.0)
            want = (x.astype(np.float32) * np.float32(math.log(2.0))).astype(dt)
            assert type(got) is HalfOps and got.dtype == dt and got.shape == shape
            np.testing.assert_array_equal(np.asarray(got).astype(np.float32),
                                          want.astype(np.float32))
            assert np.asarray(2 - x.view(HalfOps) * x.view(HalfOps)).dtype == dt


HALF_KERNELS = ["F.leaky_relu", "F.elu", "F.selu", "F.celu", "F.hardswish", "F.logsigmoid",
                "sigmoid", "F.glu"]  # torch's backward kernels, in its order
HALF_FORMULAS = ["abs", "exp2", "log2", "log10", "asin", "acos", "asinh", "arccosh",
                 "atanh", "atan", "erf", "erfinv", "sqrt", "log", "log1p", "sin", "cos", "sinc"]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_gradients_of_formula_ops_are_torchs_bits(dtype):
    """torch computes these derivatives as formulas of tensor ops (``grad * result * M_LN2``,
    ``grad * (-self * self + 1).rsqrt()``, ``2 / sqrt(pi) * exp(-self.pow(2)) * grad``): ours
    in the same order give its bits for every element."""
    T = pytest.importorskip("torch")
    from tests.torch.test_ops_table import ROWS
    rows = {r.name: r for r in ROWS}
    rng = np.random.default_rng(7)
    vals = np.concatenate([rng.uniform(-0.95, 0.95, 64), rng.uniform(1.05, 6.0, 64), [-0.0, 0.0]])
    # gelu's tanh form too in bfloat16 (in float16 numpy's tanh and torch's differ in the last
    # float32 bit often enough to show after rounding: 1 element of 130 here)
    kernels = HALF_KERNELS + (["F.gelu_tanh", "rsqrt"] if dtype == "bfloat16" else ["rsqrt"])
    for name in HALF_FORMULAS + kernels:
        r = rows[name]
        grads = []
        for lib in (T, torch):
            x = lib.tensor(vals, dtype=getattr(lib, dtype)).requires_grad_()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = r.call(lib, x)
                out.backward(lib.ones_like(out))
            grads.append(x.grad.float().numpy())
            if name in kernels:  # (and the forward: slope * x in float32, rounded once)
                grads.append(r.call(lib, x.detach()).float().numpy())
        want, got = grads[0], grads[-1 if name not in kernels else 2]
        if name in kernels:
            np.testing.assert_array_equal(grads[3], grads[1], err_msg=name)
        same = (want == got) & (np.signbit(want) == np.signbit(got)) | np.isnan(want) & np.isnan(got)
        assert same.all(), f"{name}: {vals[~same][:3]} -> {got[~same][:3]}, torch {want[~same][:3]}"


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_mean_gradient_divides_by_the_count_in_float32(dtype):
    """257 is 256 as a bfloat16: torch's mean backward divides by the count as a float32."""
    dt = getattr(torch, dtype)
    x = torch.ones(257, dtype=dt, requires_grad=True)
    x.mean().backward(torch.tensor(1.0, dtype=dt))
    want = np.array(np.float32(1) / np.float32(257)).astype(x.grad.numpy().dtype)
    assert x.grad[0].item() == float(want.astype(np.float32))
    x = torch.ones((3, 257), dtype=dt, requires_grad=True)
    x.mean(1).sum().backward()
    assert x.grad[0, 0].item() == float(want.astype(np.float32))


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("exponent", [3, -2, 3.0, -2.0])
def test_cube_and_inverse_square_round_after_each_product(dtype, exponent):
    """torch's pow kernel for a number exponent: ``x * x * x`` and ``1 / (x * x)``, each
    product rounded (numpy's power rounds once: a quarter of float32 cubes differed)."""
    import ml_dtypes
    npdt = {"bfloat16": ml_dtypes.bfloat16}.get(dtype, np.dtype(dtype))
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-4, 4, 500), [0.0, -0.0, math.inf, -math.inf, 1e30]])
    x = x.astype(npdt)
    sq = x * x
    with np.errstate(all="ignore"):
        want = sq * x if exponent == 3 else np.ones((), npdt) / sq
    got = torch.tensor(x.astype(np.float64), dtype=getattr(torch, dtype)) ** exponent
    np.testing.assert_array_equal(got.float().numpy(), want.astype(np.float32))
    T = pytest.importorskip("torch")
    ref = T.tensor(x.astype(np.float64), dtype=getattr(T, dtype)) ** exponent
    np.testing.assert_array_equal(got.float().numpy(), ref.float().numpy())


PRODUCT_OUT = [  # (call, exception class, message): torch 2.13's order of checks
    (lambda T: T.mm(T.zeros(2, 3, dtype=T.bool), T.zeros(3, 1, dtype=T.bool),
                    out=T.empty((0,), dtype=T.uint8)),
     RuntimeError, "Expected out tensor to have dtype bool, but got unsigned char instead"),
    (lambda T: T.matmul(T.zeros(2, 3, 3, 3, dtype=T.bool), T.zeros(3, 3, 3, dtype=T.bool),
                        out=T.empty((0,), dtype=T.int64)),
     RuntimeError, "Expected out tensor to have dtype bool, but got long int instead"),
    (lambda T: T.matmul(T.zeros(3, dtype=T.bool), T.zeros(3, dtype=T.bool),
                        out=T.empty((0,), dtype=T.int64)),
     RuntimeError, "result dtype Long does not match input dtype Bool"),
    (lambda T: T.matmul(T.zeros(2, 3, dtype=T.bool), T.zeros(3, 3, dtype=T.float64),
                        out=T.empty((0,), dtype=T.int64)),
     RuntimeError, "Expected out tensor to have dtype bool, but got long int instead"),
    (lambda T: T.mm(T.zeros(2, 3, dtype=T.bool), T.zeros(4, 1, dtype=T.bool),
                    out=T.empty((0,), dtype=T.int64)),
     RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x1)"),
    (lambda T: T.matmul(T.zeros(2, 3), T.zeros(3, 1, dtype=T.float64), out=T.empty((0,))),
     RuntimeError, "expected m1 and m2 to have the same dtype, but got: float != double"),
    (lambda T: T.matmul(T.zeros(2, 3, dtype=T.bool), T.zeros(3, 1, dtype=T.bool),
                        out=T.empty((0,), dtype=T.bool)),
     NotImplementedError, "\"addmm_impl_cpu_\" not implemented for 'Bool'"),
    (lambda T: T.matmul(T.zeros(3, dtype=T.bool), T.zeros(3, 1, dtype=T.bool),
                        out=T.empty((0,), dtype=T.int64)),
     RuntimeError, "Expected out tensor to have dtype bool, but got long int instead"),
]


@pytest.mark.parametrize("k", range(len(PRODUCT_OUT)))
def test_matrix_products_check_out_dtype_in_torchs_order(k):
    call, cls, msg = PRODUCT_OUT[k]
    for T in ours_and_torch():
        with pytest.raises(cls) as info:
            call(T)
        assert type(info.value) is cls and str(info.value) == msg, T.__name__


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
def test_xlogy_takes_cs_log_and_rounds_each_half_step(dtype):
    """torch's xlogy kernel is scalar C++: float32 takes C's (correctly rounded) logf, and half
    precision rounds ``log(y)`` and then the product to the half dtype."""
    import ml_dtypes
    npdt = {"bfloat16": ml_dtypes.bfloat16}.get(dtype, np.dtype(dtype))
    rng = np.random.default_rng(5)
    x = rng.standard_normal(2000).astype(npdt)
    y = rng.uniform(0.01, 5, 2000).astype(npdt)
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    log = np.log(yf.astype(np.float64)).astype(np.float32)
    if dtype != "float32":
        log = log.astype(npdt).astype(np.float32)
    want = (xf * log).astype(npdt).astype(np.float32)
    got = torch.xlogy(torch.from_numpy(xf).to(getattr(torch, dtype)),
                      torch.from_numpy(yf).to(getattr(torch, dtype))).float().numpy()
    np.testing.assert_array_equal(got, want)
    T = pytest.importorskip("torch")
    ref = T.xlogy(T.from_numpy(xf).to(getattr(T, dtype)),
                  T.from_numpy(yf).to(getattr(T, dtype))).float().numpy()
    assert (ref != got).sum() <= 20  # (float32: where glibc's logf is not correctly rounded)


def _matmul_out_outcome(T, sa, sb, da, db, do):
    """``matmul(a, b, out=)``'s result dtype, or its error (class and message)."""
    a, b = T.ones(sa, dtype=getattr(T, da)), T.ones(sb, dtype=getattr(T, db))
    out = T.empty(T.matmul(T.ones(sa), T.ones(sb)).shape, dtype=getattr(T, do))
    try:
        return str(T.matmul(a, b, out=out).dtype).replace("torch.", "")
    except Exception as e:  # noqa: BLE001 (the error is the outcome)
        return f"{type(e).__name__}: {e}"


_MM_SHAPES = list(itertools.product([(3,), (2, 3), (2, 2, 3)], [(3,), (3, 2), (2, 3, 2)]))
_MM_DTYPES = list(itertools.product(["bool", "float32", "int32"], repeat=3))


@pytest.mark.parametrize("sa,sb", _MM_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_matmul_out_checks_in_torchs_order(sa, sb):
    """``matmul(..., out=)`` checks ``out`` by the kernel its ranks select: the result dtype of
    mm/mv is the first operand's, of bmm (a batched second operand, also under a vector or
    matrix, which fold into one product of transposes) the second's, and a matrix times a
    vector takes addmv's joint check of out, matrix and vector; only then the operands."""
    torch = pytest.importorskip("torch")
    from minitorch_cs import torch as ours
    for da, db, do in _MM_DTYPES:
        want = _matmul_out_outcome(torch, sa, sb, da, db, do)
        assert _matmul_out_outcome(ours, sa, sb, da, db, do) == want, (da, db, do)


def test_matmul_out_dtype_rule_pins():
    from minitorch_cs import torch as T
    assert _matmul_out_outcome(T, (3,), (2, 3, 2), "bool", "float32", "bool") == \
        "RuntimeError: Expected out tensor to have dtype float, but got bool instead"
    assert _matmul_out_outcome(T, (2, 3), (3,), "bool", "float32", "float32") == \
        ("RuntimeError: addmv input tensors must have the same dtype, but got Float, Bool, and "
         "Float")
    assert _matmul_out_outcome(T, (2, 2, 3), (3, 2), "float32", "float32", "float32") == \
        "float32"


def test_sinc_and_hypot_rules():
    """sinc: pi and the product in the computing dtype (sinc(1) in float32 is not 0), 1 at 0,
    integers give float32; hypot: tensors only, floating only, out's castability checked
    before the kernel's dtype refusal."""
    from minitorch_cs import torch as T
    r = T.sinc(T.tensor([0.0, 1.0, 0.5]))
    assert r.tolist()[0] == 1.0 and r.tolist()[1] == pytest.approx(-2.7828e-08, rel=1e-3)
    assert T.sinc(T.tensor([0, 1])).dtype is T.float32
    assert T.hypot(T.tensor([3.0]), T.tensor([4.0])).tolist() == [5.0]
    assert T.hypot(T.tensor([3.0], dtype=T.float16), T.tensor([4.0])).dtype is T.float32
    for call, err, msg in [
            (lambda: T.hypot(T.tensor([3.0]), 4), TypeError,
             "hypot(): argument 'other' (position 2) must be Tensor, not int"),
            (lambda: T.tensor([3.0]).hypot(4), TypeError,
             "hypot(): argument 'other' (position 1) must be Tensor, not int"),
            (lambda: T.tensor([3]).hypot(T.tensor([4])), NotImplementedError,
             "\"hypot_cpu\" not implemented for 'Long'"),
            (lambda: T.hypot(T.tensor([True]), T.tensor([4], dtype=T.int8),
                             out=T.empty(1, dtype=T.bool)), RuntimeError,
             "result type Char can't be cast to the desired output type Bool")]:
        with pytest.raises(err) as info:
            call()
        assert str(info.value) == msg


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_hypot_values_and_gradients_are_torchs(dtype):
    torch_ = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a, b = rng.uniform(-5, 5, 64), rng.uniform(-5, 5, 64)
    res = []
    for lib in (torch_, torch):
        x = lib.tensor(a, dtype=getattr(lib, dtype)).requires_grad_()
        y = lib.tensor(b, dtype=getattr(lib, dtype)).requires_grad_()
        out = lib.hypot(x, y)
        out.backward(lib.ones_like(out))
        res.append([t.detach().float().numpy() for t in (out, x.grad, y.grad)])
    for want, got in zip(*res):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
@pytest.mark.parametrize("eps", [None, 0.1, 1e-8, 0.0])
def test_logit_values_and_gradients_are_torchs(dtype, eps):
    """torch's logit kernels compute in the tensor's dtype (half too, each operation rounded):
    values and gradients, the clamp's bounds and the out-of-range gradients (NaN without eps,
    0 with it) are torch's, over 64 elements (its vectorized kernel)."""
    torch_ = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    vals = np.concatenate([rng.uniform(0.0, 1.0, 52), [0.0, 1.0, -0.5, 1.5, 0.05, 0.95, 1e-9,
                                                         1 - 1e-7, 0.1, 0.9, 2.0, -1.0]])
    res = []
    for lib in (torch_, torch):
        x = lib.tensor(vals, dtype=getattr(lib, dtype)).requires_grad_()
        out = lib.logit(x, eps)
        out.backward(lib.ones_like(out))
        res.append([t.detach().double().numpy() for t in (out, x.grad)])
    (want, want_grad), (got, got_grad) = res
    np.testing.assert_array_equal(got_grad, want_grad)
    if dtype == "float32":  # torch's float32 log is MKL's: within an ulp of ours (SPEC)
        np.testing.assert_array_max_ulp(got.astype(np.float32), want.astype(np.float32), 1)
    else:
        np.testing.assert_array_equal(got, want)


def test_logit_rules():
    from minitorch_cs import torch as T
    assert T.logit(T.tensor([0, 1])).tolist() == [float("-inf"), float("inf")]
    assert T.logit(T.tensor([0.0, 1.0]), eps=0.25).tolist() == pytest.approx([-1.0986123, 1.0986123])
    x = T.tensor([-0.5, 0.5, 1.5], requires_grad=True)
    T.logit(x).sum().backward()
    g = x.grad.tolist()
    assert math.isnan(g[0]) and g[1] == 4.0 and math.isnan(g[2])
    x = T.tensor([-0.5, 0.5, 1.5], requires_grad=True)
    x.logit(0.1).sum().backward()
    assert x.grad.tolist() == [0.0, 4.0, 0.0]
    with pytest.raises(TypeError, match="logit\\(\\): argument 'eps' \\(position 2\\) must be float, "
                                        "not str"):
        T.logit(T.tensor([0.5]), "a")
    with pytest.raises(TypeError, match="logit\\(\\): argument 'eps' must be float, not str"):
        T.logit(T.tensor([0.5]), eps="a")


def _empty_strides(T):
    a = np.zeros((2, 0, 3)).transpose(2, 0, 1)  # numpy: every stride of an empty array is 0
    z = np.zeros((2, 0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [T.empty(2, 0).stride(), T.zeros(2, 0, 3).stride(), T.empty(2, 0).t().stride(),
                T.ones(0).stride(), T.randn(3, 0).stride(), T.tensor([]).stride(),
                T.tensor([[], []]).stride(), T.arange(0).stride(), T.eye(0, 3).stride(),
                T.linspace(0, 1, 0).stride(), T.randperm(0).stride(), T.full((0, 2), 1.).stride(),
                T.tensor(a).stride(), T.as_tensor(a).stride(), T.from_numpy(a).stride(),
                T.tensor(z).t().stride(), T.from_numpy(z).clone().stride(),
                T.from_numpy(z).to(T.float32).stride(), (T.from_numpy(z) + 1).stride(),
                T.tensor(T.zeros(2, 0)).stride()]


def test_empty_tensors_have_torchs_strides():
    """A new empty tensor has the strides of a contiguous one (sizes of 0 count as 1); a copy of
    an empty numpy array or tensor keeps the source's strides (numpy's are all 0)."""
    from minitorch_cs import torch as T
    assert _empty_strides(T) == [
        (1, 1), (3, 3, 1), (1, 1), (1,), (1, 1), (1,), (1, 1), (1,), (3, 1), (1,), (1,), (2, 1),
        (0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0), (0, 0), (0, 0), (1, 1), (1, 1)]
    real = pytest.importorskip("torch")
    assert _empty_strides(T) == _empty_strides(real)


# ----- allocations that cannot be made -----------------------------------------------------------
@pytest.mark.parametrize("make, nbytes", [
    (lambda: torch.zeros(10**6, 10**6), 4 * 10**12),
    (lambda: torch.empty(10**6, 10**6), 4 * 10**12),
    (lambda: torch.arange(10**13), 8 * 10**13),
    (lambda: torch.ones(1).expand(10**12).contiguous(), 4 * 10**12),
    (lambda: torch.ones(10**6, 1) * torch.ones(1, 10**6), 4 * 10**12),
])
def test_an_impossible_allocation_is_torchs_allocator_error(make, nbytes):
    """numpy's MemoryError from any op (creation or kernel) becomes torch's CPU allocator error,
    with the bytes asked for (the dispatch point's error mapping)."""
    with pytest.raises(RuntimeError) as e:
        make()
    assert str(e.value) == (
        "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
        f"memory: you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate memory)")


# ----- expand's strides ----------------------------------------------------------------------------
def _expand_strides(T, seed=0):
    """Strides of ``expand``/``expand_as`` over generated shapes: new leading dims (of size 1 or
    more), grown size-1 dims, contiguous and transposed sources, 0-d tensors."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(300):
        nd = int(rng.integers(0, 4))
        shape = tuple(int(v) for v in rng.choice([1, 2, 3], nd))
        lead = tuple(int(v) for v in rng.choice([1, 2, 3], int(rng.integers(0, 3))))
        target = lead + tuple(s if s != 1 else int(rng.choice([1, 3])) for s in shape)
        x = T.arange(float(max(1, math.prod(shape)))).reshape(shape)
        if nd >= 2 and rng.random() < 0.5:
            x = x.transpose(0, 1).contiguous().transpose(0, 1)
        r = x.expand(target) if rng.random() < 0.5 else x.expand_as(T.zeros(target))
        out.append((shape, target, tuple(r.stride()), r.is_contiguous()))
    return out


def test_expand_strides_match_torch():
    """torch's ``inferExpandGeometry``: a new leading dim of size 1 takes the next dim's size
    times its stride (so ``zeros(2, 3).expand(1, 2, 3)`` is contiguous), a grown dim 0."""
    assert torch.zeros(2, 3).expand(1, 1, 2, 3).stride() == (6, 6, 3, 1)
    assert torch.zeros(2, 3).expand(4, 1, 2, 3).stride() == (0, 6, 3, 1)
    real = pytest.importorskip("torch")
    assert _expand_strides(torch) == _expand_strides(real)


# ----- linear's path: fused addmm or matmul then the bias --------------------------------------------
def _linear_outcomes(T):
    """F.linear over dtypes of input, weight and bias and input layouts (2-D, contiguous 3-D
    and 4-D, permuted 3-D and 4-D, 1-D): the result's dtype and shape, or the error."""
    F_ = T.nn.functional
    dts = [T.bool, T.int64, T.float32, T.float16, T.float64]
    out = []
    for xd, wd, bd in itertools.product(dts, dts, dts + [None]):
        for shape, perm in [((2, 3), None), ((2, 4, 3), None), ((3, 4, 2), (2, 1, 0)), ((3,), None),
                            ((2, 2, 4, 3), None), ((3, 2, 4, 2), (3, 2, 1, 0))]:
            x = T.ones(shape, dtype=xd)
            x = x.permute(perm) if perm else x
            b = None if bd is None else T.ones(5, dtype=bd)
            try:
                r = F_.linear(x, T.ones(5, 3, dtype=wd), b)
                res = ("ok", str(r.dtype), tuple(r.shape))
            except Exception as e:  # noqa: BLE001  (the error is what is compared)
                res = (type(e).__name__, str(e).split("\n")[0])
            out.append((str(xd), str(wd), str(bd), shape, perm, res))
    return out


def test_linear_checks_follow_torchs_path():
    """torch runs addmm (its dtype checks: bias with weight, then input with weight) for a 2-D
    input, or a contiguous one that is 3-D or has a 1-D bias; any other input takes matmul's
    path (bmm's errors for a permuted bool input), then adds the bias."""
    real = pytest.importorskip("torch")
    assert _linear_outcomes(torch) == _linear_outcomes(real)


def test_bfloat16_to_integer_goes_through_float():
    """c10's BFloat16 converts to an integer through float (found by the random programs: NaN
    to int32 was 0 here, INT_MIN in torch)."""
    import minitorch_cs.torch as mt
    v = [float("nan"), float("inf"), -float("inf"), -1.5, 3e38, 2.75]
    t = mt.tensor(v, dtype=mt.bfloat16)
    assert t.to(mt.int32).tolist() == [-2 ** 31] * 3 + [-1, -2 ** 31, 2]
    assert t.to(mt.uint8).tolist() == [0, 0, 0, 255, 0, 2]
    torch = pytest.importorskip("torch")
    for name in ("int8", "int16", "int32", "int64", "uint8", "bool"):
        want = torch.tensor(v, dtype=torch.bfloat16).to(getattr(torch, name)).tolist()
        assert t.to(getattr(mt, name)).tolist() == want, name
