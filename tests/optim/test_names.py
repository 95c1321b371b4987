"""Names and signatures of cstorch.optim and cstorch.amp against the real 2.10 package."""
from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

import minitorch_cs.amp as amp
import minitorch_cs.optim as optim

REAL = json.loads((Path(__file__).parent / "real_signatures.json").read_text())["signatures"]
MODULES = {"optim": optim, "lr": optim.lr_scheduler, "wd": optim.weight_decay_scheduler,
           "sched": optim.scheduler, "amp": amp}
# Differs from cstorch (SPEC): SequentialLR/WD may leave out `milestones` (Model Zoo's rule).
DELIBERATE = {"lr.SequentialLR", "lr.SequentialScheduler", "sched.SequentialScheduler",
              "wd.SequentialScheduler", "wd.SequentialWD"}


def _sig(obj):
    f = obj.__init__ if inspect.isclass(obj) else obj
    return [[p.name, str(p.kind), repr(p.default) if p.default is not inspect._empty else None]
            for p in inspect.signature(f).parameters.values()]


@pytest.mark.parametrize("name", sorted(REAL))
def test_signature_matches_real(name):
    module, attr = name.split(".")
    obj = getattr(MODULES[module], attr)
    got = _sig(obj)
    if name in DELIBERATE:
        assert [p for p in got if p[0] != "milestones"] == \
            [p for p in REAL[name] if p[0] != "milestones"]
        assert dict((p[0], p[2]) for p in got)["milestones"] == "None"
    else:
        assert got == REAL[name]


def test_all_lists_exist():
    for module in MODULES.values():
        for n in module.__all__:
            assert hasattr(module, n), (module.__name__, n)
    assert set(optim.__all__) == {
        "Optimizer", "Adadelta", "Adafactor", "Adagrad", "Adamax", "Adam", "AdamW", "ASGD",
        "Lamb", "Lion", "Muon", "NAdam", "RAdam", "RMSprop", "Rprop", "SGD", "scheduler",
        "lr_scheduler", "weight_decay_scheduler"}
