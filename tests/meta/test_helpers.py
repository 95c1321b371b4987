"""Tests of the test helpers: a gradient check that cannot fail proves nothing."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given

from minitorch_cs import torch
from minitorch_cs.torch._dispatch import Op, apply
from tests import strategies as S
from tests.helpers import GradcheckError, assert_close, gradcheck


def _sin_op(backward):
    class _Sin(Op):
        # no ``name``: test ops stay out of the op registry
        @staticmethod
        def forward(ctx, x):
            ctx.x = x
            return np.sin(x)

    _Sin.backward = staticmethod(backward)
    return lambda x: apply(_Sin, x)


RIGHT = _sin_op(lambda ctx, g: (g * np.cos(ctx.x),))
WRONG_SIGN = _sin_op(lambda ctx, g: (-g * np.cos(ctx.x),))
DROPS_GRAD_OUTPUT = _sin_op(lambda ctx, g: (np.cos(ctx.x),))  # passes a .sum()-seeded check
WRONG_SHAPE = _sin_op(lambda ctx, g: (np.cos(ctx.x).sum(),))


def test_gradcheck_passes_on_a_correct_rule():
    gradcheck(RIGHT, np.linspace(-1, 1, 6).reshape(2, 3), name="sin")


@pytest.mark.parametrize("fn", [WRONG_SIGN, DROPS_GRAD_OUTPUT], ids=["sign", "drops_grad_output"])
def test_gradcheck_fails_on_a_wrong_rule(fn):
    with pytest.raises(GradcheckError) as e:
        gradcheck(fn, np.linspace(-1, 1, 6).reshape(2, 3), name="bad_sin")
    msg = str(e.value)
    assert "bad_sin" in msg and "(2, 3)" in msg and "analytic" in msg and "numeric" in msg


def test_ones_seeded_check_would_miss_the_dropped_grad_output():
    """Why the cotangent is random: with ones as seed, the broken rule gives the right sum."""
    x = torch.tensor([0.3, -0.2], dtype=torch.float64, requires_grad=True)
    DROPS_GRAD_OUTPUT(x).sum().backward()
    assert_close(x.grad, np.cos([0.3, -0.2]), call="ones-seeded")


def test_gradcheck_fails_on_a_wrong_shaped_grad():
    with pytest.raises((GradcheckError, RuntimeError)):
        gradcheck(WRONG_SHAPE, np.ones((2, 3)), name="bad_shape")


def test_gradcheck_fails_on_a_wrong_broadcast_rule():
    class _Add(Op):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g, g[..., :1] if g.ndim else g  # keeps only one column of b's gradient

    with pytest.raises((GradcheckError, RuntimeError)):
        gradcheck(lambda a, b: apply(_Add, a, b), np.ones((3, 2)), np.ones((3, 1)) * 0.5,
                  name="bad_add")


@given(S.float_arrays())
def test_gradcheck_passes_on_noncontiguous_inputs(x):
    gradcheck(RIGHT, x, name="sin")


def test_assert_close_messages():
    with pytest.raises(AssertionError, match=r"got out.shape=\(2,\), but should be \(3,\) \[f\(x\)\]"):
        assert_close(np.zeros(2), np.zeros(3), call="f(x)")
    with pytest.raises(AssertionError, match=r"got out\[1\]=.*2.*, but should be .*3.* \[g\]"):
        assert_close(torch.tensor([1.0, 2.0]), np.array([1.0, 3.0]), call="g")
    with pytest.raises(AssertionError, match=r"got out.dtype=float32, but should be float64"):
        assert_close(torch.tensor([1.0]), np.array([1.0]), check_dtype=np.float64)
    assert_close(torch.tensor([1.0, 2.0]), [1.0, 2.0 + 1e-9])


def test_strategies_make_noncontiguous_views_with_equal_values():
    a = np.arange(24.0).reshape(2, 3, 4)
    v = S.noncontiguous(a, (2, 0, 1))
    assert not v.flags.c_contiguous and np.array_equal(v, a)
    t = torch.from_numpy(v)
    assert not t.is_contiguous() and t.tolist() == a.tolist()


@given(S.distinct_arrays((3, 4)), S.distinct_arrays((3, 4), offset=0.5))
def test_distinct_arrays_never_tie(a, b):
    assert len(np.unique(a)) == a.size
    assert not np.any(a == b)
