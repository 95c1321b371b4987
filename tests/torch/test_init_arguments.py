"""``nn.init`` and the random fills over their argument space, swept against torch: gains for
every nonlinearity and parameter, every initializer on every rank (0-d, 1-d, empty), bad modes
and nonlinearities, reversed bounds, and integer tensors (which the continuous fills refuse)."""
from __future__ import annotations

import pytest

from minitorch_cs import torch
from tests.torch._sweeps import Outcomes, assert_same_as_torch


def _outcomes(T):
    init = T.nn.init
    out = Outcomes(show=lambda r: f"{tuple(r.shape)} {r.dtype}" if hasattr(r, "shape") else repr(r))
    run = out.run
    for nl in ["linear", "conv1d", "sigmoid", "tanh", "relu", "leaky_relu", "selu", "bogus",
               "conv_transpose2d"]:
        for p in [None, 0.2, -1, "a", True]:
            run(f"calculate_gain({nl}, {p})", lambda: round(init.calculate_gain(nl, p), 6))
    fns = {"xavier_uniform_": lambda t: init.xavier_uniform_(t),
           "xavier_normal_": lambda t: init.xavier_normal_(t, gain=2.0),
           "kaiming_uniform_": lambda t: init.kaiming_uniform_(t, a=0.1),
           "kaiming_normal_ fan_out": lambda t: init.kaiming_normal_(t, mode="fan_out"),
           "kaiming bad mode": lambda t: init.kaiming_uniform_(t, mode="fan_bad"),
           "kaiming bad nonlinearity": lambda t: init.kaiming_uniform_(t, nonlinearity="bogus"),
           "orthogonal_": lambda t: init.orthogonal_(t), "sparse_": lambda t: init.sparse_(t, 0.5),
           "eye_": lambda t: init.eye_(t), "dirac_": lambda t: init.dirac_(t),
           "trunc_normal_ a > b": lambda t: init.trunc_normal_(t, a=1, b=-1),
           "uniform_ a > b": lambda t: init.uniform_(t, 2, 1),
           "normal_ std < 0": lambda t: init.normal_(t, std=-1),
           "constant_": lambda t: init.constant_(t, 3)}
    for fn, f in fns.items():
        for shape in [(3,), (), (2, 3), (4, 3, 2, 2), (0, 3), (3, 0)]:
            run(f"{fn}{shape}", lambda: f(T.empty(shape)))
    for dt in ("int64", "int32", "uint8", "bool"):
        for fill in ("uniform_", "normal_", "exponential_"):
            run(f"{dt}.{fill}()", lambda: getattr(T.zeros(2, dtype=getattr(T, dt)), fill)())
        run(f"xavier_uniform_ of {dt}", lambda: init.xavier_uniform_(T.empty(2, 3, dtype=getattr(T, dt))))
    return out


def test_init_arguments_match_torch():
    assert_same_as_torch(_outcomes, torch)


def test_continuous_fills_refuse_integer_tensors():
    with pytest.raises(NotImplementedError, match="\"check_uniform_bounds\" not implemented for 'Long'"):
        torch.zeros(2, dtype=torch.int64).uniform_()
    with pytest.raises(NotImplementedError, match="\"normal_kernel_cpu\" not implemented for 'Int'"):
        torch.zeros(2, dtype=torch.int32).normal_()
    with pytest.raises(RuntimeError, match="from=2 > to=-2"):
        torch.nn.init.trunc_normal_(torch.empty(2), a=2.0, b=-2.0)
