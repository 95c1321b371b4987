"""``dir()`` of the nn namespaces shows torch's API, not our helpers (as ``dir(torch.nn.functional)``
does); every public name is one torch has."""
from __future__ import annotations

import pytest

from minitorch_cs.torch.nn import functional as F
from minitorch_cs.torch.nn import init as I


@pytest.mark.parametrize("mod", [F, I], ids=["functional", "init"])
def test_dir_shows_only_public_names(mod):
    extra = {"_calculate_fan_in_and_fan_out", "_calculate_correct_fan"}
    for name in dir(mod):
        assert name in mod.__all__ or name in extra or (name.startswith("__") and
                                                         name.endswith("__")), name
    for name in mod.__all__:
        assert callable(getattr(mod, name)), name


@pytest.mark.parametrize("mod,path", [(F, "torch.nn.functional"), (I, "torch.nn.init")],
                         ids=["functional", "init"])
def test_public_names_are_torchs(mod, path):
    torch = pytest.importorskip("torch")
    theirs = torch.nn.functional if path.endswith("functional") else torch.nn.init
    missing = [n for n in mod.__all__ if not hasattr(theirs, n)]
    assert not missing, f"not in {path}: {missing}"


def test_inplace_spellings():
    from minitorch_cs import torch
    for name, args in [("elu_", ()), ("celu_", ()), ("selu_", ()), ("hardtanh_", ()),
                       ("leaky_relu_", ()), ("threshold_", (0.5, -1.0))]:
        x = torch.tensor([-1.0, 0.25, 2.0])
        y = getattr(F, name)(x, *args)
        assert y is x
        want = getattr(F, name[:-1])(torch.tensor([-1.0, 0.25, 2.0]), *args)
        assert torch.equal(x, want), name
