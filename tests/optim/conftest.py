"""Fixtures for the cstorch.optim / amp tests: a CPU backend and reset amp settings."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _amp_defaults():
    """Every test starts (and ends) with mixed precision off and the float16 half dtype."""
    from minitorch_cs.amp._amp_state import _amp_state
    _amp_state.reset()
    yield
    _amp_state.reset()


@pytest.fixture
def backend(cpu_backend):
    return cpu_backend
