"""Shared fixtures: hypothesis profiles, a fresh backend per test, and the reference-stack path."""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# The default is derandomized (the same examples on every run, so a green suite stays green);
# HYPOTHESIS_PROFILE=explore draws fresh examples each run to hunt for new counterexamples.
settings.register_profile("ci", deadline=None, max_examples=30, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", deadline=None, max_examples=30,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _fresh_runtime():
    """Every test starts with no backend, default flags and the default seed."""
    import importlib

    import minitorch_cs
    from minitorch_cs import torch
    _b = importlib.import_module("minitorch_cs.backend")
    _b._reset_for_tests()
    minitorch_cs.backends.reset()
    minitorch_cs.amp._amp_state.reset()
    torch.manual_seed(0)
    yield
    _b._reset_for_tests()
    minitorch_cs.backends.reset()
    minitorch_cs.amp._amp_state.reset()


@pytest.fixture
def cpu_backend(tmp_path):
    """A CPU backend whose artifacts go to a temporary directory."""
    import minitorch_cs as cstorch
    return cstorch.backend("CPU", artifact_dir=tmp_path / "artifacts")


@pytest.fixture
def reference_python():
    """Path of a Python with cerebras-pytorch 2.10 installed (skips when unset)."""
    path = os.environ.get("MINITORCH_CS_REFERENCE_PYTHON")
    if not path:
        pytest.skip("MINITORCH_CS_REFERENCE_PYTHON is not set")
    return path
