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


# names of ours torch spells elsewhere, each a documented difference (SPEC 2.4: torch.fork_rng is
# torch.random.fork_rng)
_DOCUMENTED_EXTRAS = {"": {"fork_rng"}}


@pytest.mark.parametrize("sub", ["", ".nn", ".nn.functional", ".nn.init", ".nn.utils",
                                 ".nn.modules", ".linalg", ".autograd", ".utils", ".utils.data",
                                 ".serialization"])
def test_no_public_name_torch_lacks(sub):
    """A script that runs on ours runs on torch: no public attribute of our torch modules is
    missing from torch's (imported modules aside: ``np``, ``math``, ... are not API)."""
    import importlib
    import inspect
    torch = pytest.importorskip("torch")
    ours = importlib.import_module("minitorch_cs.torch" + sub)
    theirs = importlib.import_module("torch" + sub)
    extra = sorted(n for n in dir(ours) if not n.startswith("_") and not hasattr(theirs, n)
                   and not inspect.ismodule(getattr(ours, n))
                   and n not in _DOCUMENTED_EXTRAS.get(sub, ()))
    assert not extra, f"public in minitorch_cs.torch{sub}, absent from torch{sub}: {extra}"


@pytest.mark.parametrize("cls", ["Tensor", "nn.Parameter", "nn.Module", "Generator", "Size"])
def test_no_public_method_torch_lacks(cls):
    torch = pytest.importorskip("torch")
    import minitorch_cs.torch as ours

    def get(mod, path):
        for part in path.split("."):
            mod = getattr(mod, part)
        return mod
    extra = sorted(n for n in dir(get(ours, cls)) if not n.startswith("_")
                   and not hasattr(get(torch, cls), n))
    assert not extra, f"public on minitorch_cs.torch.{cls}, absent from torch.{cls}: {extra}"
