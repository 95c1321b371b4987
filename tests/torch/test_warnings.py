"""Warnings: numpy's floating-point RuntimeWarnings never leak out of our kernels (torch is silent),
the user's own numpy code still warns, and torch's own warnings are raised where torch raises them."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from minitorch_cs import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_SCRIPT = r"""
import numpy as np
import minitorch_cs.torch as torch
x = torch.tensor([0.0, 1.0, -1.0])
(x / 0, torch.log(x), torch.sqrt(x), x.pow(-1), torch.acos(x * 2), torch.exp(x * 1000))
torch.tensor([1e30]).half(), torch.tensor([1e30, 1e30]).prod(), torch.tensor([]).mean()
torch.zeros(0, 3).mean(0), torch.tensor([0.0]) / torch.tensor([0.0])
y = torch.tensor([0.0, 1.0], requires_grad=True)
(torch.log(y).sum() + torch.sqrt(y).sum()).backward()
# paths through numpy's Python wrappers (their warnings come from numpy's frames)
inf = float("inf")
torch.einsum("ij,jk->ik", torch.tensor([[inf, -inf]]), torch.tensor([[1.0], [1.0]]))
w = torch.ones(2, requires_grad=True)  # a gradient summed to its shape: inf - inf
(w * torch.tensor([[inf, 1.0], [-inf, 1.0]])).sum().backward()
v = torch.tensor([1.25, -1.1, 1.25, -1.1, 1.25], dtype=torch.float64, requires_grad=True)
x = torch.nn.functional.group_norm(v.dot(v).reshape(1).repeat(8).reshape(2, 4, 1), 2)
torch.log(x.reshape(-1).repeat(2)[:12].reshape(3, 2, 2, 1)).backward(torch.tensor(
    [0.62, -0.27, -0.41, -1.87, 0.34, -0.72, 0.69, 1.13, -0.62, 0.95, 0.19, 1.38],
    dtype=torch.float64).reshape(3, 2, 2, 1))
v = torch.tensor([1e5, 1.5, 0.5, 2.7, 1e-30, 0.4, 1e-6, -inf, -1.4, -7e4, 1e5, float("nan")])
torch.nn.functional.conv2d(v.repeat(10).reshape(2, 2, 6, 5), v.reshape(1, 2, 2, 3),
                           stride=(1, 2), padding=(0, 1), dilation=(2, 1))
x = torch.tensor([[inf, 0.0, -inf, 1.0]] * 3).reshape(3, 2, 2)  # the norms' statistics
torch.nn.functional.instance_norm(x), torch.nn.functional.layer_norm(x, (2,))
torch.nn.functional.batch_norm(x, None, None, training=True)
print("silent", flush=True)
np.log(np.zeros(1))  # the user's own numpy code still warns (an error under -W error)
"""


def test_numpy_fp_warnings_do_not_leak_but_user_numpy_still_warns():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", _SCRIPT],
                         capture_output=True, text=True, env=env)
    assert out.stdout.strip() == "silent", out.stderr[-2000:]
    assert out.returncode != 0 and "divide by zero encountered in log" in out.stderr


@pytest.mark.parametrize("name", ["var", "std"])
def test_degrees_of_freedom_warning_is_torchs(name):
    msg = rf"{name}\(\): degrees of freedom is <= 0. Correction should be strictly less"
    with pytest.warns(UserWarning, match=msg) as rec:
        single = getattr(torch.tensor([1.0]), name)()
    assert rec[0].filename == __file__  # points at the caller, like torch's C++ warnings
    assert np.isnan(single.item())
    with pytest.warns(UserWarning, match=msg):
        assert getattr(torch.tensor([1.0, 2.0]), name)(correction=5).item() == np.inf
    with pytest.warns(UserWarning, match=msg):
        assert np.isnan(getattr(torch.zeros(0, 3), name)(0).numpy()).all()


@pytest.mark.parametrize("call, message", [
    (lambda: torch.tensor(torch.ones(2)), "To copy construct from a tensor, it is recommended"),
    (lambda: torch.nn.functional.softmax(torch.ones(2, 3)),
     "Implicit dimension choice for softmax has been deprecated"),
    (lambda: torch.nn.functional.log_softmax(torch.ones(2, 3)),
     "Implicit dimension choice for log_softmax has been deprecated"),
    (lambda: torch.nn.functional.cross_entropy(torch.ones(2, 3), torch.tensor([0, 1]),
                                               size_average=False),
     "size_average and reduce args will be deprecated, please use reduction='sum' instead."),
    (lambda: torch.nn.functional.smooth_l1_loss(torch.ones(2, 3), torch.ones(1, 3)),
     r"Using a target size \(torch.Size\(\[1, 3\]\)\) that is different to the input size"),
    (lambda: torch.nn.functional.huber_loss(torch.ones(2, 3), torch.ones(1, 3)),
     "Using a target size"),
    (lambda: torch.nn.functional.kl_div(torch.ones(2, 3), torch.ones(2, 3)),
     "reduction: 'mean' divides the total loss by both the batch size and the support size."),
])
def test_torchs_deprecation_warnings(call, message):
    with pytest.warns(UserWarning, match=message) as rec:
        call()
    assert rec[0].filename == __file__  # at the caller's line, as torch's are


def test_transpose_property_warns_once_per_kind():
    from minitorch_cs.torch._functions import shape
    shape._WARNED.clear()
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        assert torch.ones(2, 3, 4).T.shape == (4, 3, 2)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.ones(5, 2, 3).T  # noqa: B018  (torch warns once per process)
        torch.ones(2, 3).T  # noqa: B018  (a matrix never warns)
