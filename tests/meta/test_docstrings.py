"""Every public op documents itself: torch 2.13's signature first, then the rule in our words.

Swept: every public callable of ``torch``, ``torch.nn.functional``, ``torch.nn.init``,
``torch.linalg`` (and ``torch.special`` when it exists), and every public method and property of
``Tensor``. The docstring's leading block (up to the first blank line) holds signature lines; one
of them names the callable (``name(...)``, or ``Tensor.name(...)`` / ``Tensor.name -> T`` for
methods and properties). Its parameter names must agree with the callable's own signature: a name
only one side has must be named in the docstring's "Differs from torch:" paragraph.
"""
from __future__ import annotations

import importlib
import inspect
import re

import pytest

import minitorch_cs.torch as torch
from minitorch_cs.torch import Tensor

NAMESPACES = ["minitorch_cs.torch", "minitorch_cs.torch.nn.functional", "minitorch_cs.torch.nn.init",
              "minitorch_cs.torch.linalg", "minitorch_cs.torch.special"]
# Attributes Python does not let us document: a __slots__ member's __doc__ is read-only.
UNDOCUMENTABLE = {"grad_fn"}


def _split_top(s):
    parts, depth, cur = [], 0, ""
    for ch in s:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return parts + ([cur] if cur.strip() else [])


def doc_params(line):
    """(names, positional_only_names) of one signature line ``name(a, b=1, *, c=None) -> T``."""
    start = line.index("(")
    depth = 0
    for end in range(start, len(line)):
        depth += line[end] == "("
        depth -= line[end] == ")"
        if depth == 0:
            break
    names, posonly = [], []
    for p in _split_top(line[start + 1:end]):
        p = p.strip()
        if p == "/":
            posonly, names = names, []
            continue
        if p in ("*", "", "...") or p.startswith("*"):  # *args/**kwargs are not keywords
            continue
        names.append(p.split("=")[0].split(":")[0].strip())
    return names, posonly


def actual_params(fn, method=False):
    """(named parameters, has *args, has **kwargs) of a callable as Python sees it. Wrapper layers
    (``functools.wraps``) add the keyword-only names they declare themselves (``out=``)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if method and params:
        params = params[1:]
    named = [p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    layer = fn
    while hasattr(layer, "__wrapped__"):
        named += [n for n in inspect.signature(layer, follow_wrapped=False).parameters
                  if inspect.signature(layer, follow_wrapped=False).parameters[n].kind
                  is inspect.Parameter.KEYWORD_ONLY and n not in named]
        layer = layer.__wrapped__
    return (named, any(p.kind is p.VAR_POSITIONAL for p in params),
            any(p.kind is p.VAR_KEYWORD for p in params))


def differs_names(doc):
    paras = [p for p in re.split(r"\n\s*\n", doc) if p.strip().startswith("Differs from torch:")]
    return set(re.findall(r"``([A-Za-z_][A-Za-z_0-9]*)``", " ".join(paras)))


def mismatch(lines, fn, method=False):
    """(names only the documented signature has, names only the callable has); ``lines`` are the
    overload lines of one callable, a name counting when any of them has it. Positional-only
    documented names (the callable's first parameters take their place), names the callable's
    ``*args``/``**kwargs`` can take, and the callable's private ``_names`` are not compared."""
    got = actual_params(fn, method)
    if got is None:
        return set(), set()
    named, varpos, varkw = got
    names, posonly = set(), set()
    for line in ([lines] if isinstance(lines, str) else lines):
        n, p = doc_params(line)
        names |= set(n)
        posonly |= set(p)
    names.discard("self")  # torch's number-first overloads (``pow(self, exponent)``)
    doc_only = set() if (varkw or varpos) else names - set(named)
    ours_only = {n for n in named[len(posonly):] if n not in names and not n.startswith("_")}
    return doc_only, ours_only


def signature_block(doc):
    return doc.strip("\n").split("\n\n")[0].splitlines()


def public_callables(modname):
    mod = importlib.import_module(modname)
    names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
    return [(n, getattr(mod, n)) for n in names
            if callable(getattr(mod, n)) and not inspect.ismodule(getattr(mod, n))]


def _cases():
    out = []
    for modname in NAMESPACES:
        try:
            importlib.import_module(modname)
        except ImportError:
            continue
        out += [(modname, n) for n, _ in public_callables(modname)]
    out += [("Tensor", n) for n in dir(Tensor) if not n.startswith("_") and n not in UNDOCUMENTABLE]
    return out


CASES = _cases()


def _check(doc, name, fn, method, prefix):
    assert doc and doc.strip(), f"{prefix}{name} has no docstring"
    block = signature_block(doc)
    lines = [s.strip() for s in block
             if re.match(rf"{re.escape(prefix)}{re.escape(name)}(\(| ->|$)", s.strip())]
    assert lines, f"{prefix}{name}: no signature line for it in {block!r}"
    assert len(doc.strip().split("\n\n")) > 1 and doc.strip().split("\n\n")[1].strip(), \
        f"{prefix}{name}: a signature but no rule"
    if fn is None or "(" not in lines[0]:
        return
    doc_only, ours_only = mismatch(lines, fn, method)
    undeclared = (doc_only | ours_only) - differs_names(doc)
    assert not undeclared, (f"{prefix}{name}: parameters {sorted(undeclared)} differ between the "
                            f"documented signature {lines} and the callable, and the docstring's "
                            "'Differs from torch:' paragraph does not name them")
    stale = _stale_differences(doc, fn)
    assert not stale, (f"{prefix}{name}: the 'Differs from torch:' paragraph names {sorted(stale)}, "
                       "which the documented signatures and the callable now agree on")


def _stale_differences(doc, fn):
    """Parameter names a "Differs from torch:" paragraph claims are missing ("torch's ``x`` is not
    accepted here") or extra ("also takes ``x``"), where no signature line of the docstring
    (functions and ``Tensor.`` methods alike: one object) differs from ``fn`` in that name."""
    got = actual_params(fn)
    if got is None or got[1] or got[2]:
        return set()
    groups: dict = {}
    for line in signature_block(doc):
        if "(" in line:
            groups.setdefault(line.strip().split("(")[0], []).append(line.strip())
    differing = set()
    for head, group in groups.items():
        d, o = mismatch(group, fn, head.startswith("Tensor."))
        differing |= d | o
    claims = set()
    for para in re.split(r"\n\s*\n", doc):
        if para.strip().startswith("Differs from torch:"):
            for m in re.finditer(r"torch's ((?:``\w+``(?:, )?)+) (?:is|are) not accepted here|"
                                 r"also takes ((?:``\w+``(?:, )?)+)", para):
                claims |= set(re.findall(r"``(\w+)``", m.group(0)))
    return claims - differing


@pytest.mark.parametrize("where,name", CASES, ids=[f"{w}.{n}" for w, n in CASES])
def test_public_op_documents_signature_and_rule(where, name):
    if where == "Tensor":
        attr = inspect.getattr_static(Tensor, name)
        if isinstance(attr, property):
            _check(attr.__doc__, name, None, True, "Tensor.")
            return
        fn = getattr(Tensor, name)
        _check(fn.__doc__, name, fn, not isinstance(attr, staticmethod), "Tensor.")
        return
    fn = getattr(importlib.import_module(where), name)
    _check(fn.__doc__, name, fn, False, "")


def test_examples_of_the_rule():
    assert torch.matmul.__doc__.startswith("matmul(input, other, *, out=None) -> Tensor")
    assert "Tensor.matmul(other) -> Tensor" in signature_block(torch.matmul.__doc__)
    import minitorch_cs.torch.nn.functional as F
    assert F.relu.__doc__.startswith("relu(input, inplace=False) -> Tensor")
    assert Tensor.shape.__doc__.startswith("Tensor.shape -> torch.Size")


def test_the_check_catches_a_stale_difference():
    def f(input, other, *, alpha=1):
        return input
    doc = ("f(input, other, *, alpha=1) -> Tensor\n\nRule.\n\n"
           "Differs from torch: torch's ``alpha`` is not accepted here.")
    assert _stale_differences(doc, f) == {"alpha"}


def test_the_check_catches_an_undeclared_difference():
    def f(input, other, *, alpha=1):
        return input
    assert mismatch("f(input, other) -> Tensor", f) == (set(), {"alpha"})
    assert mismatch("f(input, other, *, alpha=1, out=None) -> Tensor", f) == ({"out"}, set())
    doc = "f(input, other) -> Tensor\n\nRule.\n\nDiffers from torch: also takes ``alpha``."
    assert differs_names(doc) == {"alpha"}
