"""One row against torch over every combination of operand dtypes (a tool for fixing a row).

``python -m tests.differential --matrix F.huber_loss`` runs the row's call on inputs drawn by its
own strategy, cast to each combination of dtypes (all of them up to two operands, a seeded
sample beyond), and prints every combination where the outcome differs.
"""
from __future__ import annotations

import itertools
import random
import warnings

import numpy as np

from tests.differential.compare import Snap
from tests.differential.program import (DTYPES, FLOATS, ROWS_BY_NAME, Operand, Outcome, Side,
                                        Step, _compare_outcomes, draw, execute)


def _operand_values(x, dt):
    x = np.asarray(x, dtype=np.float64)
    if dt == "bool":
        return x > 0
    if dt in FLOATS:
        return x
    v = np.round(x * 2)
    return np.abs(v) if dt == "uint8" else v


def row_matrix(name: str, torch_mod, draws: int = 2, cap: int = 300, forms=("call",)):
    """(dtype combination, form, mismatch) for every combination that differs."""
    from minitorch_cs import torch as mt
    row = ROWS_BY_NAME[name]
    found = []
    for k in range(draws):
        d = draw(row.inputs, 5000 + k)
        if d is None:
            continue
        xs, kw = d
        combos = list(itertools.product(DTYPES, repeat=len(xs)))
        if len(combos) > cap:
            combos = random.Random(k).sample(combos, cap)
        for combo in combos:
            for form in forms:
                step = Step(name, [Operand(i, tuple(np.shape(x))) for i, x in enumerate(xs)], kw,
                            form, out=(None, None) if form == "out" else None)
                outs = []
                for T in (torch_mod, mt):
                    side = Side(T)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        for x, dt in zip(xs, combo):
                            side.pool.append(T.tensor(_operand_values(x, dt)).to(getattr(T, dt)))
                            side.names.append("x")
                        outs.append(execute(side, step))
                m = _compare_outcomes(outs[0], outs[1], step, f"{name} {combo}", "matrix",
                                      torch_mod)
                if m is not None and not m.noise:
                    found.append((combo, form, m))
    return found


def print_matrix(name: str, torch_mod, **kw) -> int:
    found = row_matrix(name, torch_mod, **kw)
    seen = set()
    for combo, form, m in found:
        key = (combo, form, m.category)
        if key in seen:
            continue
        seen.add(key)
        print(f"{','.join(combo):40s} {form:8s} {m.category:14s} {m.detail[:150]}")
    print(f"{len(seen)} differing combinations")
    return len(seen)
