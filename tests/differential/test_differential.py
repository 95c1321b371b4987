"""The differential campaign in the suite: a fixed set of random programs (deterministic seed)
run on minitorch_cs and on PyTorch side by side (torch from the ``oracle`` extra; skipped
without it). At most 1% of programs may show a difference SPEC.md does not document, and none
through a silently wrong value (values, NaN/inf patterns, dtypes, strides, gradients, final
values after in-place ops). A failure prints the summary by root cause and a minimized repro.

Longer campaigns: ``python -m tests.differential --budget 1800 --seed N``.
"""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from minitorch_cs import torch as mt  # noqa: E402
from tests.differential.campaign import run_campaign, summary  # noqa: E402
from tests.differential.minimize import minimize, repro  # noqa: E402
from tests.differential.program import generate  # noqa: E402

SEED, PROGRAMS = 2024, 800  # about 30 s


def _core_patch_applied() -> bool:
    """difftest_core.patch (in-place methods from the table, view and copy rules, layouts of the
    movement ops) -- several classes of difference are fixed only with it."""
    return hasattr(mt.Tensor, "acosh_")


@pytest.mark.xfail(not _core_patch_applied(), strict=True,
                   reason="needs difftest_core.patch (in-place methods, view rules)")
def test_random_programs_agree_with_torch():
    stats = run_campaign(torch, seed=SEED, programs=PROGRAMS)
    report = summary(stats)
    if stats.silent or stats.share > 0.01:
        idx, m = stats.failing[0]
        prog, run = minimize(generate(SEED, idx, torch), m, torch)
        if run is not None:
            report += "\n\n" + repro(run, m)
    assert not stats.tester_errors, report
    assert stats.silent == 0, report
    assert stats.share <= 0.01, report
