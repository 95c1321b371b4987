"""The differences from torch that SPEC.md documents, as predicates on a mismatch.

Each entry names the SPEC.md section and quotes the rule it covers; ``documented(m, program)``
returns the first entry's reference that matches, so a documented difference is counted as such
and never as a failure. An entry must be as narrow as the SPEC text: a difference it does not
describe stays undocumented.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from tests.differential.program import _base_name


@dataclass
class Expected:
    spec: str  # "SPEC §2.2: ..." (section and the words of the entry)
    match: Callable


def _row_of(m):
    return m.op.split(" ")[0]


def _operand_dtypes(m):
    if "(" not in m.op:
        return []
    return m.op.rsplit("(", 1)[1].rstrip(")").split(",")


_BOOL_COMPUTES = {"abs", "relu", "floor", "round", "argmax", "matmul", "mm", "bmm", "mv", "dot",
                  "bincount", "F.relu"}

EXPECTED: list = [
    Expected("SPEC §2.2 Differs: abs/relu/floor/round/argmax/matmul/bincount on bool compute "
             "here but raise in torch",
             lambda m, p: m.category == "raise-torch" and "bool" in _operand_dtypes(m)
             and _base_name(_row_of(m)) in {_base_name(n) for n in _BOOL_COMPUTES}),
    Expected("SPEC §2.2 Differs: in-place ops on an expanded tensor always raise",
             lambda m, p: m.category == "raise-ours"
             and "more than one element of the written-to tensor" in m.detail),
    Expected("SPEC §2.2 Differs: floor_divide has a zero gradient (torch raises)",
             lambda m, p: m.category == "backward-error" and "floor_divide" in m.detail),
    Expected("SPEC §3.1 Differs: Hardsigmoid/Hardswish gradients use the exact 1/6",
             lambda m, p: m.category == "grad" and m.dtype == "float64"
             and any(s.row in ("F.hardsigmoid", "F.hardswish") for s in p.steps)),
    Expected("SPEC §3.1 Differs: inplace=True modifies the input only for ReLU, ReLU6, Hardtanh "
             "and Dropout",
             lambda m, p: m.category == "inplace-final" and "inplace_kw" in m.op),
]


def documented(m, program) -> str:
    for e in EXPECTED:
        try:
            if e.match(m, program):
                return e.spec
        except Exception:  # noqa: BLE001  (a predicate that does not apply)
            continue
    return ""
