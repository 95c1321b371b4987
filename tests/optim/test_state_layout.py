"""The optimizer ``state_dict()["state"]`` layout of the real 2.10 stack (measured on its CPU
backend): an optimizer keeps state only for what it preinitializes; SGD without momentum keeps
none, so its state is ``{}`` before and after steps (the real golden files show ``{0: {}, 1: {}}``
only because the script that recorded them read ``opt.state[p]``, a defaultdict)."""
from __future__ import annotations

import pytest

import minitorch_cs as cstorch
import minitorch_cs.torch as torch


@pytest.fixture(autouse=True)
def _cpu(cpu_backend):
    return cpu_backend


def _two_params():
    w = torch.nn.Parameter(torch.ones(2, 2))
    b = torch.nn.Parameter(torch.ones(2))
    return w, b


def _layout(opt):
    return {k: sorted(v) for k, v in opt.state_dict()["state"].items()}


def test_sgd_without_momentum_keeps_no_state():
    w, b = _two_params()
    opt = cstorch.optim.SGD([w, b], lr=0.1)
    assert opt.state_dict()["state"] == {}
    w.grad = torch.ones(2, 2)  # b has no gradient
    opt.step()
    assert opt.state_dict()["state"] == {}
    assert w.tolist() == [[pytest.approx(0.9)] * 2] * 2 and b.tolist() == [1.0, 1.0]


def test_sgd_with_momentum_keeps_a_buffer_per_parameter():
    w, b = _two_params()
    opt = cstorch.optim.SGD([w, b], lr=0.1, momentum=0.9)
    w.grad = torch.ones(2, 2)
    opt.step()
    assert _layout(opt) == {0: ["momentum_buffer"], 1: ["momentum_buffer"]}


# (class, kwargs) -> state keys per parameter after one step with a gradient on the first
# parameter only: the real 2.10 CPU backend's layout
REAL_LAYOUT = {
    ("Adam", ()): ["beta1_power", "beta2_power", "exp_avg", "exp_avg_sq"],
    ("AdamW", ()): ["beta1_power", "beta2_power", "exp_avg", "exp_avg_sq"],
    ("Adadelta", ()): ["acc_delta", "square_avg"],
    ("Adagrad", ()): ["step", "sum"],
    ("Adamax", ()): ["beta1_power", "exp_avg", "exp_inf"],
    ("ASGD", ()): ["ax", "eta", "mu", "step"],
    ("Lamb", ()): ["exp_avg", "exp_avg_sq"],
    ("Lion", ()): ["exp_avg"],
    ("NAdam", ()): ["exp_avg", "exp_avg_sq", "mu_product", "step"],
    ("RAdam", ()): ["exp_avg", "exp_avg_sq", "step"],
    ("RMSprop", ()): ["square_avg"],
    ("RMSprop", (("momentum", 0.5), ("centered", True))): ["grad_avg", "momentum_buffer",
                                                           "square_avg"],
    ("Rprop", ()): ["prev", "step_size"],
}


@pytest.mark.parametrize("cls,kwargs", list(REAL_LAYOUT))
def test_other_optimizers_keep_the_real_layout(cls, kwargs):
    w, b = _two_params()
    opt = getattr(cstorch.optim, cls)([w, b], **dict(kwargs))
    w.grad = torch.ones(2, 2)
    opt.step()
    keys = REAL_LAYOUT[(cls, kwargs)]
    assert _layout(opt) == {0: keys, 1: keys}
