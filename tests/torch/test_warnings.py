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
