"""A convolution's checks in torch 2.13's order, for 1, 2 and 3 spatial dims alike: the bias's
dtype, the shapes (the bias's too), the kernel's dtype support, the weight's dtype -- worded
as torch's oneDNN path words them when its rule sends the call there -- and an input without
channels (torch returns an empty result of no channels, the bias's gradient zeros)."""
from __future__ import annotations

import pytest

import minitorch_cs.torch as mt
from tests.torch._sweeps import assert_same_as_torch, outcomes


def _calls(T):
    F = T.nn.functional
    convs = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}

    def x(*s, dt=None):
        return T.ones(*s, dtype=dt or T.float32)

    calls = {}
    for nd, f in convs.items():
        sp, k, big = (5,) * nd, (3,) * nd, (9,) * nd
        for n in (1, 2):
            cases = {
                "zero in-channels": lambda: f(x(n, 0, *sp), x(4, 0, *k)),
                "zero in-channels, bias": lambda: f(x(n, 0, *sp), x(4, 0, *k), x(4)),
                "weight dtype": lambda: f(x(n, 3, *sp), x(4, 3, *k, dt=T.float64)),
                "weight dtype and channels": lambda: f(x(n, 3, *sp), x(4, 2, *k, dt=T.float64)),
                "dilation 0": lambda: f(x(n, 3, *sp), x(4, 3, *k), dilation=0),
                "bias shape": lambda: f(x(n, 3, *sp), x(4, 3, *k), x(3)),
                "bias dtype": lambda: f(x(n, 3, *sp), x(4, 3, *k), x(4, dt=T.float64)),
                "bias dtype and shape": lambda: f(x(n, 3, *sp), x(4, 3, *k), x(3, dt=T.float64)),
                "input too small": lambda: f(x(n, 3, *((2,) * nd)), x(4, 3, *k)),
                "groups": lambda: f(x(n, 3, *sp), x(4, 3, *k), groups=2),
                "big kernel, weight dtype": lambda: f(x(n, 3, *big), x(4, 3, *((5,) * nd),
                                                                        dt=T.float64)),
                "double input": lambda: f(x(n, 3, *sp, dt=T.float64), x(4, 3, *k)),
                "bool": lambda: f(x(n, 3, *sp, dt=T.bool), x(4, 3, *k, dt=T.bool)),
                "int dilated": lambda: f(x(n, 3, *sp, dt=T.int32), x(4, 3, *k, dt=T.int32),
                                         dilation=2),
            }
            for name, call in cases.items():
                calls[f"conv{nd}d N={n} {name}"] = call
    return calls


def test_checks_match_torch():
    assert_same_as_torch(lambda T: outcomes(_calls(T)), mt)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_no_input_channels(nd):
    f = {1: mt.nn.functional.conv1d, 2: mt.nn.functional.conv2d, 3: mt.nn.functional.conv3d}[nd]
    for lead in ((2,), ()):
        x = mt.ones(*lead, 0, *((5,) * nd), requires_grad=True)
        w = mt.ones(4, 0, *((3,) * nd), requires_grad=True)
        b = mt.ones(4, requires_grad=True)
        y = f(x, w, b)
        assert tuple(y.shape) == lead + (0,) + (3,) * nd
        y.sum().backward()
        assert x.grad.shape == x.shape and w.grad.shape == w.shape
        assert b.grad.tolist() == [0.0] * 4
