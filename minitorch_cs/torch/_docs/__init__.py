"""Docstrings of the public ops, kept as tables and attached at import (as torch's ``_torch_docs``).

The op modules stay free of per-op prose. Each table entry is ``name: (signature lines, rule,
differences)``: torch 2.13's signature (one line per overload), the rule in our own words, and a
"Differs from torch:" paragraph where the callable's parameters are not torch's.
tests/meta/test_docstrings.py checks that every public op has an entry and that each signature's
parameter names agree with the callable's. ``attach(...)`` runs once, at the end of
``minitorch_cs/torch/__init__.py``:

- a callable's docstring becomes ``signature lines`` + blank line + ``rule`` (+ the "Differs from
  torch:" paragraph); a docstring already written in the code is kept in place of the rule (after
  it, for the few functions in ``RULE_FIRST`` whose code docstring notes how the rule is computed);
- a Tensor method made from a torch function (``Tensor.add`` and ``torch.add`` wrap one callable,
  ``unparsed``) gets one docstring with both signature lines (``add(input, ...)`` and
  ``Tensor.add(...)``), as does the function;
- properties get theirs on the property object.
"""
from __future__ import annotations

import inspect

from .functional import FUNCTIONAL, INIT
from .tensor import TENSOR
from .torch_api import LINALG, TORCH_API
from .torch_functions import TORCH_FUNCTIONS

_ATTACHED = False
# Where the code's docstring is a note on how the result is computed rather than the rule itself,
# the table's rule goes first and the code's text follows. Everywhere else the code's text wins.
RULE_FIRST = {"huber_loss", "binary_cross_entropy_with_logits", "kl_div", "cosine_similarity",
              "gaussian_nll_loss", "cross_entropy", "batch_norm"}


class _Entry:
    __slots__ = ("objs", "sigs", "body", "differs")

    def __init__(self, obj, body):
        self.objs, self.sigs, self.body, self.differs = [obj], [], body, []


def _own_doc(obj):
    doc = obj.__doc__ if not isinstance(obj, type) or "__doc__" in vars(obj) else None
    return inspect.cleandoc(doc) if isinstance(doc, str) and doc.strip() else ""


def attach(torch, linalg, functional, init) -> None:
    """Attach the tables' docstrings to the public callables of the given modules (idempotent).

    The modules are passed in (not imported here) so that this package depends on nothing."""
    global _ATTACHED
    if _ATTACHED:
        return
    _ATTACHED = True
    torch_ns = vars(torch)
    Tensor = torch.Tensor

    entries: dict = {}

    def add(obj, sig, rule, differs, rule_first=False):
        # a function and the method made from it wrap one callable (``unparsed``): one entry
        base = getattr(obj, "unparsed", obj)
        key = id(base)
        if key not in entries:
            own = _own_doc(base)
            body = "\n\n".join(p for p in (rule, own) if p) if rule_first else (own or rule)
            entries[key] = _Entry(obj, body)
        e = entries[key]
        if all(o is not obj for o in e.objs):
            e.objs.append(obj)
        e.sigs += [s for s in sig.split("\n") if s not in e.sigs]
        if differs and differs not in e.differs:
            e.differs.append(differs)

    for table, lookup in ((TORCH_FUNCTIONS, torch_ns.get), (TORCH_API, torch_ns.get),
                          (LINALG, vars(linalg).get), (FUNCTIONAL, vars(functional).get),
                          (INIT, vars(init).get)):
        for name, (sig, rule, differs) in table.items():
            obj = lookup(name)
            if obj is not None:
                add(obj, sig, rule, differs, table is FUNCTIONAL and name in RULE_FIRST)
    for name, (sig, rule, differs) in TENSOR.items():
        attr = vars(Tensor).get(name)
        if attr is None:
            attr = inspect.getattr_static(Tensor, name, None)
            if attr is None:
                continue
        add(attr if isinstance(attr, property) else getattr(Tensor, name), sig, rule, differs)

    lead = "Differs from torch: "
    for e in entries.values():
        differs = [lead + "; ".join(d[len(lead):].rstrip(".") if d.startswith(lead) else d
                                     for d in e.differs) + "."] if e.differs else []
        doc = "\n\n".join(["\n".join(e.sigs)] + ([e.body] if e.body else []) + differs)
        for obj in e.objs:
            try:
                obj.__doc__ = doc
            except (AttributeError, TypeError):  # a builtin or slot descriptor: leave it
                pass
