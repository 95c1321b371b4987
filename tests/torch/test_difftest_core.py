"""Behaviours (measured on torch 2.13) whose rules live in the dispatch/method/movement layers:
in-place rules (leaves, views, outputs of split/unbind, sibling views), in-place methods derived
from the functional table, layouts of expand/index/flip, dtype and overflow checks."""
from __future__ import annotations

import numpy as np
import pytest

from minitorch_cs import torch

# ----- _methods: in-place methods derived from the functional table's ``fn.inplace`` ----------
@pytest.mark.parametrize("name,args", [
    ("acos_", ()), ("asinh_", ()), ("atanh_", ()), ("lgamma_", ()), ("digamma_", ()),
    ("sinh_", ()), ("eq_", (0.5,)), ("ge_", (0.25,)), ("fmod_", (0.3,)),
    ("atan2_", (torch.tensor(0.7),)),
    ("cumsum_", (0,)), ("xlogy_", (0.7,)),
])
def test_inplace_methods_from_the_table(name, args):
    x = torch.tensor([0.1, 0.25, 0.5])
    want = getattr(torch, name[:-1])(x.clone(), *args)
    y = getattr(x, name)(*args)
    assert y is x
    assert torch.equal(x, want.to(x.dtype))


def test_new_methods():
    a = torch.arange(6.0).reshape(2, 3)
    assert torch.equal(a.kron(torch.ones(2)), torch.kron(a, torch.ones(2)))
    assert torch.equal(a.rot90(), torch.rot90(a))
    assert torch.equal(a.take_along_dim(torch.tensor([[0], [2]]), 1), torch.tensor([[0.0], [5.0]]))
    assert a.positive() is a
    b = torch.ones(2, 2, 3)
    c = torch.zeros(2, 2)
    assert torch.equal(c.clone().addbmm_(b, b.transpose(1, 2)), torch.full((2, 2), 6.0))
    assert torch.equal(torch.zeros(2, 2, 2).baddbmm_(b, b.transpose(1, 2)),
                       torch.full((2, 2, 2), 3.0))


def test_inplace_view_methods_take_keywords():
    x = torch.ones(3)
    assert x.unsqueeze_(dim=0).shape == (1, 3)


def test_rpow_is_the_scalar_base_kernel():
    x = torch.ones(2, 3).t()
    assert (2 ** x).stride() == (2, 1)  # torch's pow(Scalar, Tensor): a contiguous result


# ----- _dispatch: in-place rules ---------------------------------------------------------------
def test_split_outputs_refuse_inplace():
    a = torch.ones(4, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="Output 0 of Split is a view and is being "
                                           "modified inplace"):
        a.split(2)[0].mul_(2)
    with pytest.raises(RuntimeError, match="Output 1 of Unbind is a view"):
        a.unbind()[1].add_(1)


def test_leaf_that_is_a_view_refuses_inplace():
    x = torch.ones(4)[1:3]
    x.requires_grad_()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.add_(1)


def test_copy_into_integer_tensor_gives_no_grad():
    v = torch.ones(3, requires_grad=True)
    x = torch.zeros(3, dtype=torch.int64)
    x.copy_(v * 2)
    assert not x.requires_grad
    y = torch.zeros(3, dtype=torch.int64)
    y[0:2] = v[:2] * 2  # a basic-index assignment of a tensor with dims is copy_
    assert not y.requires_grad
    z = torch.zeros(3, dtype=torch.int64)
    z[0:2] = v[0] * 2  # a 0-d value is fill_, which keeps the graph (as torch)
    assert z.requires_grad


def test_inplace_on_a_view_rebases_its_base():
    b = torch.zeros(3)
    w = torch.ones(2, requires_grad=True)
    b[0:2].copy_(w * 3)
    assert b.requires_grad
    b.sum().backward()
    assert torch.equal(w.grad, torch.full((2,), 3.0))


def test_inplace_cast_rule_is_torchs():  # (holds already through the kernels' own out= path)
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output "
                                           "type Bool"):
        torch.zeros(2, dtype=torch.bool).add_(torch.ones(2, dtype=torch.int64))
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast "
                                           r"shape \[1, 3\]"):
        torch.zeros(3).add_(torch.ones(1, 3))


def test_sibling_views_follow_an_inplace_change():
    """torch regenerates a view's grad_fn when its base changed in place (through another view
    or directly): gradients then flow through the new history."""
    x = torch.ones(4, requires_grad=True)
    b = x * 1
    v = b[0:3]
    b[1:3].zero_()
    v.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 0.0, 0.0]
    x = torch.ones(4, requires_grad=True)
    b = x * 1
    v = b.view(2, 2).t()
    b[1:3].zero_()
    v.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 0.0, 1.0]
    x = torch.ones(4, requires_grad=True)
    b = x * 1
    v = b[0:2]
    b.mul_(2)
    v.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 0.0, 0.0]
    b = torch.zeros(3)
    v = b[0:2]
    b[1:3].copy_(torch.ones(2, requires_grad=True) * 1)
    assert v.requires_grad


def test_split_outputs_go_stale_after_their_base_changes():
    x = torch.ones(3, 2, requires_grad=True)
    a = x * 1
    u = a.unbind()
    a.mul_(2)
    with pytest.raises(RuntimeError, match="Output 0 of Unbind is a view and its base or another "
                                           "view of its base has been modified inplace"):
        u[0] * 1
    with torch.no_grad():
        u[0] * 1  # no autograd, no refusal (as torch)


def test_number_over_tensor_is_reciprocal_times_number():
    x = torch.tensor([3.0, 7.0, 11.0])
    assert torch.equal(1.7 / x, torch.reciprocal(x) * 1.7)


def test_number_over_tensor_saves_the_reciprocal():
    x = torch.tensor([2.0, 4.0], requires_grad=True) * 1
    y = 3.0 / x
    x.mul_(2)  # torch: reciprocal saved its result, so this is allowed
    y.sum().backward()


def test_inplace_inverse_hyperbolics_have_no_derivative():
    x = torch.tensor([1.5, 2.0], requires_grad=True) * 1
    y = x.acosh_()
    with pytest.raises(NotImplementedError, match="the derivative for 'inplace version of "
                                                  "acosh' is not implemented."):
        y.sum().backward()


# ----- _ops/movement: layouts and dtype checks --------------------------------------------------
def test_expand_keeps_strides_of_unexpanded_dims():
    assert torch.ones(3, 1).expand(2, 3, 1).stride() == (0, 1, 1)
    assert torch.ones(1, 3).expand(1, 3).stride() == (3, 1)


def test_advanced_index_layout():
    a = torch.arange(24.0).reshape(2, 3, 4).transpose(0, 2)
    assert a[[0, 1]].stride() == (6, 1, 3)
    assert a[:, [0, 1]].stride() == (1, 4, 8)


def test_flip_keeps_layout():
    assert torch.ones(2, 3).t().flip(0).stride() == (1, 3)


def test_scatter_and_index_put_dtype_checks():
    with pytest.raises(RuntimeError, match="scatter\\(\\): Expected self.dtype to be equal to "
                                           "src.dtype"):
        torch.zeros(3).scatter(0, torch.tensor([0]), torch.ones(1, dtype=torch.float64))
    x = torch.zeros(3)
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes "
                                           "match, got Float for the destination and Double"):
        x[torch.tensor([0, 1])] = torch.ones(2, dtype=torch.float64)


def test_fill_values_checked_for_overflow():
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without "
                                           "overflow"):
        torch.zeros(2, dtype=torch.uint8).masked_fill(torch.tensor([True, False]), 300)


# ----- _creation: Python numbers the dtype cannot hold ------------------------------------------
def test_tensor_of_out_of_range_numbers():
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8 without "
                                           "overflow"):
        torch.tensor(300, dtype=torch.uint8)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8 without "
                                           "overflow"):
        torch.tensor([1.5, 127.9], dtype=torch.int8)
    assert np.array_equal(torch.tensor([1, -1], dtype=torch.uint8).numpy(), [1, 255])
