"""The shared parts of the torch-oracle sweeps (``test_*_arguments.py`` and kin): each sweep
runs one table of calls through both libraries, records each call's outcome -- a description
of its result, or its error's type and first line -- and requires the two tables to agree."""
from __future__ import annotations

import json
import warnings

import pytest


def describe(r, digits=4, limit=None) -> str:
    """A result as the tables record it: a tensor's shape, dtype and values (rounded to
    ``digits`` places, the first ``limit`` of them), anything else its repr."""
    if hasattr(r, "shape") and hasattr(r, "tolist"):
        values = r.detach().reshape(-1).tolist() if hasattr(r, "detach") else r.reshape(-1).tolist()
        values = [round(v, digits) if isinstance(v, float) else v for v in values][:limit]
        return f"{tuple(r.shape)} {str(r.dtype).split('.')[-1]} {values}"
    return repr(r)


class Outcomes(dict):
    """name -> outcome of each call; ``run(name, f)`` records one (warnings silenced; an error
    is its type and first line, or its type alone without ``messages``)."""

    def __init__(self, show=describe, messages=True):
        super().__init__()
        self.show, self.messages = show, messages

    def run(self, name, f):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                self[name] = "ok " + self.show(f())
            except Exception as e:  # noqa: BLE001 (the error is the outcome)
                first = (str(e).splitlines() or [""])[0]
                self[name] = f"{type(e).__name__}: {first}" if self.messages else \
                    type(e).__name__


def outcomes(calls, show=describe, messages=True) -> Outcomes:
    """The outcome of every call of ``calls`` (name -> function of no arguments)."""
    out = Outcomes(show, messages)
    for name, f in calls.items():
        out.run(name, f)
    return out


def assert_same_as_torch(outcomes_of, ours, known=(), same=None):
    """``outcomes_of(T)`` for torch and for ``ours`` agree, except the ``known`` rows; ``same``
    may accept a pair of different outcomes (torch's, ours)."""
    real = pytest.importorskip("torch")
    want, got = outcomes_of(real), outcomes_of(ours)
    diffs = {k: (want[k], got.get(k)) for k in want
             if k not in known and want[k] != got.get(k) and
             not (same is not None and same(want[k], got.get(k)))}
    assert not diffs, json.dumps(diffs, indent=1)
