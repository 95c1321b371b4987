"""Every public callable of the tensor API passes the dispatch point, or computes no tensor value.

Graph capture for the emulated wafer, lazy-initialization recording and per-op seeding are modes
of ``torch._dispatch``: they see the tensor world only through its hooks (ops, value reads,
storage rebinding, ``.grad`` events, the autograd engine). A value computed outside those hooks
silently becomes a constant of a compiled graph. This file enumerates the public surface --
``minitorch_cs.torch``'s callables, ``nn.functional``'s and every member of ``Tensor`` -- and
proves for each one that it dispatches (what that means: ``_dispatch_cases`` docstring), or that
it is listed, with its reason, among the callables that compute no tensor value. A new public
name fails ``test_every_public_callable_is_covered`` until it is exercised here.

Calls are built from generic argument tuples (``CANDIDATES``, the first that runs is checked) or,
where those cannot call a callable or miss a branch worth proving, from ``EXAMPLES``.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pytest

import minitorch_cs.torch as torch
from minitorch_cs.torch import _dispatch
from minitorch_cs.torch._ops import elementwise as E
from minitorch_cs.torch._tensor import Tensor

from . import _dispatch_cases as C


# ----- the cases ----------------------------------------------------------------------------------
def _cases():
    out = []
    for q in C.all_callables():
        if q in C.ALLOWED:
            continue
        examples = C.EXAMPLES.get(q, [None])
        for e in examples:
            cid = q if e is None or not e.label else f"{q}[{e.label}]"
            reason = C.XFAIL.get(cid)
            marks = [pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason)] \
                if reason else []
            out.append(pytest.param(q, e, id=cid, marks=marks))
    return out


@dataclass
class Run:
    args: tuple
    inputs: list
    rec: C.Recorder
    res: object


def _record(qualname, example, perturbed=False):
    """Make the inputs (outside the mode; with other values when ``perturbed``), then make the
    call under a fresh recorder, from the same random state every time."""
    if perturbed and example.other is not None:
        args = example.other()
    else:
        args = example.args()
        if perturbed:
            C.perturb(args)
    inputs = C.tensors_in(args)
    rec = C.Recorder(inputs + [t._grad for t in inputs])
    torch.manual_seed(0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with rec:
                res = example.run(*args) if example.run is not None else C.invoke(qualname, args)
                if hasattr(res, "__next__") and not isinstance(res, Tensor):
                    res = list(res)  # an iterator yields its tensors inside the mode
    except Exception as exc:
        exc.recorder = rec  # whether an op raised it (see test_dispatches)
        raise
    return Run(args, inputs, rec, res)


def _generic(qualname):
    """The first generic argument tuple the callable accepts, with its recording; or the list
    of errors."""
    errors = []
    for make in C.CANDIDATES:
        e = C.Example(make)
        try:
            run = _record(qualname, e)
        except Exception as exc:  # noqa: BLE001  (trying argument tuples until one fits)
            errors.append(f"{type(exc).__name__}: {exc}"[:120])
            continue
        if run.res is NotImplemented:  # (an operator that does not take these operands)
            errors.append("NotImplemented")
            continue
        return e, run
    return None, errors


def _describe(args):
    def one(a):
        if isinstance(a, Tensor):
            return f"Tensor{tuple(a.shape)}:{a.dtype}"
        if isinstance(a, (list, tuple)):
            return type(a)(one(x) for x in a)
        if isinstance(a, dict):
            return "{...}"
        return a
    return tuple(one(a) for a in args)


def _same(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))


def _problems(example, run, other):
    """What keeps this call from being fully visible to a dispatch mode (empty: it dispatches).
    ``other`` is the same call on inputs holding other values."""
    rec = run.rec
    out = []
    if not rec.events:
        out.append("no event of the dispatch protocol happened")
    for t in C.tensors_in(run.res):
        if not rec.knows(t):
            out.append(f"returned a tensor of shape {tuple(t.shape)} that is neither an input nor "
                       "the output of an op the mode saw (computed outside dispatch)")
    values = C.python_values_in(run.res)
    if run.inputs and values and not rec.reads():
        kinds = sorted({type(v).__name__ for v in values})
        out.append(f"returned Python values ({', '.join(kinds)}) from tensor inputs without an "
                   "on_read event")
    if example.reads and not rec.reads():
        out.append("handed tensor values out of the tensor world without an on_read event")
    if not rec.reads():  # nothing was announced: other input values must change nothing but data
        if rec.ops() != other.rec.ops():
            out.append("which ops run depends on input values that were read without an on_read "
                       f"event: {rec.ops()} vs {other.rec.ops()}")
        elif len(rec.foreign) == len(other.rec.foreign):
            for (where, a), (_, b) in zip(rec.foreign, other.rec.foreign):
                if not _same(a, b):
                    out.append(f"a value computed outside dispatch from tensor values reaches the "
                               f"op as {where} (it changes with the inputs, yet the mode sees a "
                               "raw array or an untraced tensor: a constant of a captured graph)")
        else:
            out.append("the untraced values ops receive depend on input values")
    return out


def _check(qualname, example, got):
    """The problems of one call (``got``: its recording), after running it again on inputs
    holding other values."""
    try:
        other = _record(qualname, example, perturbed=True)
    except Exception as exc:  # noqa: BLE001
        # only an op may refuse values it is given; Python refusing them read them unannounced
        if got.rec.reads() or exc.recorder.op_raised:
            raise
        return ["Python read input values without an on_read event: the same call on other "
                f"values raised outside any op ({type(exc).__name__}: {exc})"]
    return _problems(example, got, other)


# ----- the proofs ---------------------------------------------------------------------------------
@pytest.mark.parametrize("qualname, example", _cases())
def test_dispatches(qualname, example):
    if example is None:
        example, got = _generic(qualname)
        if example is None:
            pytest.fail(f"{qualname} could not be called with any generic argument tuple; add an "
                        "example call to EXAMPLES in tests/torch/_dispatch_cases.py (or list it "
                        "in ALLOWED with its reason if it computes no tensor value). Errors: "
                        + "; ".join(got[:4]))
    else:
        got = _record(qualname, example)
    problems = _check(qualname, example, got)
    assert not problems, (f"{qualname}{_describe(got.args)}: " + "; ".join(problems)
                          + f" (events: {got.rec.events[:12]})")


# The checks themselves, on callables that leak in each way (and on ones that must pass): a proof
# that the checks above are not vacuous.
def _leak_branch(x):
    return x + 1 if x._data[0, 0] < 0.12 else x * 2  # f23()[0, 0] is 0.1, perturbed 0.1513


def _leak_raise(x):
    if x._data[0, 0] > 0.12:
        raise ValueError("value refused by Python")
    return x + 1


_LEAKS = [
    ("new tensor from values", lambda x: Tensor._wrap(x._data * 2), "neither an input"),
    ("untraced tensor into an op", lambda x: x + Tensor._wrap(x._data * 2), "reaches the op"),
    ("raw array into an op", lambda x: _dispatch.apply(E.Add, x, x._data), "reaches the op"),
    ("Python value unannounced", lambda x: float(x._data.sum()), "without an on_read"),
    ("nothing dispatched", lambda x: None, "no event"),
    ("branch on a value", _leak_branch, "which ops run depends"),
    ("raise on a value", _leak_raise, "raised outside any op"),
    ("re-wrapped op output", lambda x: Tensor._wrap((x * 2)._data), None),
    ("constant into an op", lambda x: x + Tensor._wrap(np.ones(3, np.float32)), None),
    ("announced read", lambda x: x.sum().item(), None),
]


@pytest.mark.parametrize("fn, expected", [pytest.param(f, e, id=i) for i, f, e in _LEAKS])
def test_the_checks_catch_each_kind_of_leak(fn, expected):
    example = C.Example(lambda: (C.f23(),), run=fn)
    problems = _check("leak", example, _record("leak", example))
    if expected is None:
        assert problems == []
    else:
        assert any(expected in p for p in problems), problems


@pytest.mark.parametrize("qualname", sorted(q for q, a in C.ALLOWED.items() if a.probe))
def test_allowed_callables_compute_nothing(qualname):
    """The probe of each allow-listed callable confirms its kind: no op, no value read, and no
    tensor it was not given (an identity returns its input; an unsupported call raises)."""
    allowed = C.ALLOWED[qualname]
    if allowed.kind == "unsupported":
        with pytest.raises(NotImplementedError):
            _record(qualname, allowed.probe)
        return
    run = _record(qualname, allowed.probe)
    rec, inputs, res = run.rec, run.inputs, run.res
    assert not rec.events, f"{qualname} is listed as {allowed.kind} but dispatched {rec.events}"
    ids = {id(t) for t in inputs}
    new = [t for t in C.tensors_in(res) if id(t) not in ids]
    if allowed.kind == "external":
        assert not inputs and new, f"{qualname}: an external source takes no tensor and makes one"
    else:
        assert not new, f"{qualname} is listed as {allowed.kind} but returned a new tensor"
    if allowed.kind == "identity":
        assert any(res is t for t in inputs), f"{qualname} must return its input itself"


def test_every_public_callable_is_covered():
    """Each enumerated name is exercised (generically or by example) or allow-listed, and the
    tables name nothing that is not public (a removed name must leave the tables too)."""
    names = C.all_callables()
    assert len(names) == len(set(names))
    listed = set(C.EXAMPLES) | set(C.ALLOWED)
    stale = sorted(listed - set(names))
    assert not stale, f"tables name callables that are not public: {stale}"
    both = sorted(set(C.EXAMPLES) & set(C.ALLOWED))
    assert not both, f"both exercised and allow-listed: {both}"
    ids = {p.id for p in _cases()}
    assert not sorted(set(C.XFAIL) - ids), "XFAIL names cases that do not exist"
    for q, a in C.ALLOWED.items():
        assert a.kind in ("metadata", "identity", "external", "unsupported", "object"), q
        assert a.reason and "\n" not in a.reason, q
    # the enumeration reaches the whole surface (guards against an enumeration that finds nothing)
    assert len(C.torch_callables()) > 200
    assert len(C.functional_callables()) > 60
    assert len(C.tensor_members()) > 300
