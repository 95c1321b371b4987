"""Campaigns: run programs for a budget (seconds or a count) and summarise by root cause."""
from __future__ import annotations

import collections
import time
from dataclasses import dataclass, field

from tests.differential.compare import CATEGORIES, SILENT
from tests.differential.expected import documented
from tests.differential.program import generate, run_program


@dataclass
class Stats:
    seed: int
    programs: int = 0
    undocumented: int = 0  # programs with at least one undocumented difference
    documented_only: int = 0
    noise_only: int = 0
    seconds: float = 0.0
    by_category: collections.Counter = field(default_factory=collections.Counter)
    by_cause: collections.Counter = field(default_factory=collections.Counter)
    documented_by_spec: collections.Counter = field(default_factory=collections.Counter)
    examples: dict = field(default_factory=dict)  # cause -> (program, run) of the first case
    failing: list = field(default_factory=list)  # (index, first undocumented mismatch)
    tester_errors: list = field(default_factory=list)  # (index, error) of programs not run

    @property
    def share(self) -> float:
        return self.undocumented / self.programs if self.programs else 0.0

    @property
    def silent(self) -> int:
        return sum(n for c, n in self.by_category.items() if c in SILENT)


def run_campaign(torch_mod, seed: int = 0, budget: float | None = None,
                 programs: int | None = None, start: int = 0, progress=None) -> Stats:
    """Run programs ``start, start + 1, ...`` of ``seed`` until ``budget`` seconds have passed or
    ``programs`` have run (whichever is given; both: the first reached)."""
    torch_mod.set_default_dtype(torch_mod.float32)
    stats = Stats(seed)
    t0 = time.perf_counter()
    i = start
    while True:
        if programs is not None and stats.programs >= programs:
            break
        if budget is not None and time.perf_counter() - t0 >= budget:
            break
        prog = generate(seed, i, torch_mod)
        try:
            run = run_program(prog, torch_mod, accept=documented)
        except Exception as e:  # noqa: BLE001  (a bug of the tester itself: count, go on)
            stats.tester_errors.append((i, f"{type(e).__name__}: {e}"))
            i += 1
            continue
        stats.programs += 1
        real = [m for m in run.mismatches if not m.noise and not m.documented]
        docs = [m for m in run.mismatches if not m.noise and m.documented]
        if real:
            stats.undocumented += 1
            m = real[0]
            stats.by_category[m.category] += 1
            stats.by_cause[m.key()] += 1
            stats.examples.setdefault(m.key(), (prog, run, m))
            stats.failing.append((i, m))
        elif docs:
            stats.documented_only += 1
        elif run.mismatches:
            stats.noise_only += 1
        for m in docs:
            stats.documented_by_spec[m.documented] += 1
        if progress is not None:
            progress(stats, i)
        i += 1
    stats.seconds = time.perf_counter() - t0
    return stats


def summary(stats: Stats, top: int = 8) -> str:
    lines = [f"seed {stats.seed}: {stats.programs} programs in {stats.seconds:.0f} s",
             f"  with an undocumented difference: {stats.undocumented} "
             f"({100 * stats.share:.2f}%), through silent wrong values: {stats.silent}",
             f"  documented differences only: {stats.documented_only}; rounding noise only "
             f"(cleared by replay): {stats.noise_only}"]
    if stats.tester_errors:
        lines.append(f"  tester errors (programs not counted): {len(stats.tester_errors)}, "
                     f"first: program {stats.tester_errors[0][0]}: {stats.tester_errors[0][1]}")
    if stats.by_category:
        lines.append("  by root cause (first undocumented difference of each program):")
        for cat, n in stats.by_category.most_common():
            lines.append(f"    {cat:15s} {n:5d}  {CATEGORIES.get(cat, '')}")
            causes = [(k, c) for k, c in stats.by_cause.most_common() if k.startswith(cat + ":")]
            for k, c in causes[:top]:
                lines.append(f"        {c:4d}  {k[len(cat) + 2:]}")
            if len(causes) > top:
                lines.append(f"        ... {len(causes) - top} more")
    if stats.documented_by_spec:
        lines.append("  documented (expected) differences seen:")
        for spec, n in stats.documented_by_spec.most_common():
            lines.append(f"    {n:5d}  {spec}")
    return "\n".join(lines)
