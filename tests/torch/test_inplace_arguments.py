"""The in-place methods over their arguments, swept against torch: alpha, rounding modes,
tensor and number bounds, fill values (a 1-d tensor, None), copy_'s broadcasting and dtypes,
masked_fill_'s masks and values, index_put_/scatter_/scatter_reduce_/index_*_ variants, the
in-place view changes, and unary/binary in-place ops on integer and bool tensors."""
from __future__ import annotations

import re

from minitorch_cs import torch
from tests.torch._sweeps import assert_same_as_torch, outcomes

# (known: clamp_'s cast refusal names the C type in torch, "long int")
_KNOWN = {"clamp_ int float"}


def _outcomes(T):  # noqa: C901 (one table of calls)
    def f32(): return T.tensor([[1.5, -2.0, 0.5], [3.0, 0.0, -1.0]])
    def i64(): return T.tensor([[1, -2, 3], [4, 0, -1]])
    calls = {
     "add_ alpha": lambda: f32().add_(f32(), alpha=2), "add_ alpha float int": lambda: i64().add_(i64(), alpha=1.5), "add_ int float": lambda: i64().add_(0.5), "add_ broadcast": lambda: f32().add_(T.ones(3)),
     "add_ bigger": lambda: f32()[0].add_(f32()), "sub_ bool": lambda: T.tensor([True]).sub_(True), "mul_ int by float tensor": lambda: i64().mul_(T.tensor(1.5)), "div_ int": lambda: i64().div_(2),
     "div_ int floor": lambda: i64().div_(2, rounding_mode="floor"), "div_ bad mode": lambda: f32().div_(2, rounding_mode="bad"), "pow_ int neg": lambda: i64().pow_(-1), "pow_ f 2": lambda: f32().pow_(2),
     "clamp_ tensor": lambda: f32().clamp_(min=T.zeros(3)), "clamp_ none": lambda: f32().clamp_(), "clamp_ int float": lambda: i64().clamp_(min=0.5), "clamp_min_": lambda: f32().clamp_min_(0),
     "fill_ tensor": lambda: f32().fill_(T.tensor(7.)), "fill_ 1d tensor": lambda: f32().fill_(T.tensor([7.])), "fill_ int 2.7": lambda: i64().fill_(2.7), "fill_ bool": lambda: f32().fill_(True), "fill_ none": lambda: f32().fill_(None),
     "zero_": lambda: f32().zero_(), "copy_ broadcast": lambda: f32().copy_(T.tensor([1., 2., 3.])), "copy_ dtype": lambda: f32().copy_(i64()), "copy_ shape": lambda: f32().copy_(T.ones(4)), "copy_ number": lambda: f32().copy_(2.0),
     "masked_fill_ tensor": lambda: f32().masked_fill_(f32() > 0, T.tensor(9.)), "masked_fill_ 1d val": lambda: f32().masked_fill_(f32() > 0, T.tensor([9.])), "masked_fill_ int mask": lambda: f32().masked_fill_((f32() > 0).int(), 9.),
     "masked_fill_ bcast mask": lambda: f32().masked_fill_(T.tensor([True, False, True]), 0.), "masked_fill_ mask bigger": lambda: f32()[0].masked_fill_(f32() > 0, 0.),
     "index_put_ accumulate": lambda: f32().index_put_((T.tensor([0, 0]), T.tensor([1, 1])), T.tensor([1., 2.]), accumulate=True), "index_put_ no acc dup": lambda: f32().index_put_((T.tensor([0, 0]),), T.tensor(5.)),
     "scatter_ reduce add": lambda: f32().scatter_(1, T.tensor([[0, 0]]), T.tensor([[1., 2.]]), reduce="add"), "scatter_ reduce mult": lambda: f32().scatter_(1, T.tensor([[0, 0]]), T.tensor([[2., 3.]]), reduce="multiply"), "scatter_ reduce bad": lambda: f32().scatter_(1, T.tensor([[0]]), T.tensor([[1.]]), reduce="max"),
     "scatter_ value": lambda: f32().scatter_(1, T.tensor([[2]]), 9.), "scatter_add_": lambda: f32().scatter_add_(0, T.tensor([[1, 0, 1]]), T.ones(1, 3)), "scatter_reduce_ amax": lambda: f32().scatter_reduce_(1, T.tensor([[0, 0, 0]]), T.tensor([[5., -1., 9.]]), "amax"),
     "scatter_reduce_ mean noself": lambda: f32().scatter_reduce_(1, T.tensor([[0, 0, 0]]), T.tensor([[5., -1., 9.]]), "mean", include_self=False), "index_add_ alpha": lambda: f32().index_add_(0, T.tensor([1, 1]), T.ones(2, 3), alpha=2),
     "index_fill_ tensor": lambda: f32().index_fill_(1, T.tensor([0, 2]), T.tensor(-5.)), "index_copy_": lambda: f32().index_copy_(0, T.tensor([1, 0]), T.zeros(2, 3)), "put_ acc": lambda: f32().put_(T.tensor([0, 0]), T.tensor([1., 1.]), accumulate=True),
     "masked_scatter_": lambda: f32().masked_scatter_(f32() > 0, T.arange(10.)), "lerp_ int": lambda: i64().lerp_(i64(), 0.5), "addcmul_ value": lambda: f32().addcmul_(f32(), f32(), value=-1), "addcdiv_ int": lambda: i64().addcdiv_(i64(), i64()),
     "t_ 3d": lambda: T.ones(2, 2, 2).t_(), "squeeze_ dim": lambda: T.ones(1, 3).squeeze_(0), "unsqueeze_ neg": lambda: f32().unsqueeze_(-1), "transpose_": lambda: f32().transpose_(0, 1),
     "abs_ bool": lambda: T.tensor([True]).abs_(), "neg_ bool": lambda: T.tensor([True]).neg_(), "sqrt_ int": lambda: i64().sqrt_(), "exp_ int": lambda: i64().exp_(), "floor_ int": lambda: i64().floor_(), "round_ decimals": lambda: f32().round_(decimals=1),
     "sign_ bool": lambda: T.tensor([True, False]).sign_(), "relu_ bool": lambda: T.tensor([True]).relu_(), "sigmoid_ int": lambda: i64().sigmoid_(), "clip_ int": lambda: i64().clip_(0, 2), "trunc_ int": lambda: i64().trunc_(),
     "bitwise_and_ float": lambda: f32().bitwise_and_(1), "logical_not_": lambda: f32().logical_not_(), "eq_": lambda: f32().eq_(0.5), "lt_ int": lambda: i64().lt_(1.5), "fmod_ int": lambda: i64().fmod_(2), "remainder_ neg": lambda: i64().remainder_(-2),
    }
    return outcomes(calls)


def test_inplace_arguments_match_torch():
    assert_same_as_torch(_outcomes, torch, known=_KNOWN)


def test_fill_and_masked_fill_refuse_what_torch_refuses():
    x = torch.ones(2, 3)
    for call, kind, message in (
            (lambda: x.fill_(None), TypeError, "fill_() received an invalid combination"),
            (lambda: x.masked_fill_((x > 0).int(), 9.0), RuntimeError,
             "masked_fill_ only supports boolean masks, but got mask with dtype int"),
            (lambda: x.masked_fill_(x > 0, torch.tensor([9.0])), RuntimeError,
             "masked_fill_ only supports a 0-dimensional value tensor"),
            (lambda: x.copy_(torch.ones(4)), RuntimeError,
             r"The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton "
             r"dimension 1")):
        try:
            call()
        except kind as e:
            assert re.search(message, str(e)) or str(e).startswith(message), str(e)
        else:
            raise AssertionError(message)


_BINARY_INPLACE = ("add_", "sub_", "mul_", "div_", "true_divide_", "floor_divide_", "pow_",
                   "fmod_", "remainder_", "atan2_", "hypot_", "copysign_", "bitwise_and_",
                   "bitwise_or_", "bitwise_xor_", "logical_and_", "logical_or_", "logical_xor_",
                   "eq_", "ne_", "lt_", "le_", "gt_", "ge_", "maximum_", "minimum_", "fmax_",
                   "fmin_", "xlogy_", "nextafter_", "ldexp_", "float_power_")


def _broadcast_outcomes(T):
    """Every binary in-place method, with a target that cannot hold the broadcast shape (or
    operands that do not broadcast at all), over bool, integer and float operands: the op's own
    early checks (torch's bool subtraction refusal) come before the shape error."""
    dtypes = {"b": T.bool, "i": T.int64, "f": T.float32}
    shapes = {"grows": ((3,), (2, 3)), "mismatch": ((3,), (4,)), "fits": ((2, 3), (3,))}
    calls = {}
    for name in _BINARY_INPLACE:
        for sk, (sa, sb) in shapes.items():
            for ka, da in dtypes.items():
                for kb, db in dtypes.items():
                    calls[f"{name} {sk} {ka}{kb}"] = (
                        lambda name=name, sa=sa, sb=sb, da=da, db=db:
                        getattr(T.ones(sa, dtype=da), name)(T.ones(sb, dtype=db)))
    return outcomes(calls, messages=True)


def test_inplace_shape_errors_come_after_the_ops_early_checks():
    assert_same_as_torch(_broadcast_outcomes, torch)


def test_bool_subtraction_is_refused_before_the_shape_check():
    # torch's sub checks bool operands ahead of broadcasting, also in place
    for a, b in ((torch.ones(3, dtype=torch.bool), torch.ones(2, 3, dtype=torch.bool)),
                 (torch.ones(3), torch.ones(4, dtype=torch.bool))):
        try:
            a.sub_(b)
        except RuntimeError as e:
            assert str(e).startswith("Subtraction, the `-` operator, with")
        else:
            raise AssertionError("sub_ accepted a bool operand")
