"""Run equivalence cases under one backend kind and write the results (``OUT.json`` + ``OUT.npz``).

    python -m tests.csx.equivalence.runner --backend CPU --out /tmp/eq/cpu [--only NAME ...]
    python -m tests.csx.equivalence.runner --list
    python -m tests.csx.equivalence.runner --compare /tmp/eq/cpu /tmp/eq/csx [--only NAME ...]

One process runs the whole selection (the backend is reset between cases). ``--only`` takes case
names or shell-style patterns (``'row:F.*'``, ``'inplace:*'``).
"""
from __future__ import annotations

import argparse
import fnmatch
import sys
import tempfile
from pathlib import Path

__all__ = ["all_cases", "select", "run_cases", "main"]


def all_cases():
    """Every case: the patterns, then the op-table rows, then the in-place methods, then the
    suite's generated steps (cheap to list: inputs are drawn when a case is built)."""
    from . import generated, oprows, patterns
    return list(patterns.PATTERNS) + oprows.row_cases() + oprows.inplace_cases() + \
        generated.generated_cases()


def select(cases, only):
    if not only:
        return cases
    chosen = [c for c in cases if any(c.name == o or fnmatch.fnmatchcase(c.name, o) for o in only)]
    unknown = [o for o in only if not any(c.name == o or fnmatch.fnmatchcase(c.name, o)
                                          for c in cases)]
    if unknown:
        raise SystemExit(f"no case matches {unknown}; see --list")
    return chosen


def run_cases(cases, kind, workdir):
    from .harness import run_case
    results = {}
    for i, case in enumerate(cases):
        results[case.name] = run_case(case, kind, Path(workdir) / f"{i:04d}")
    return results


def _summary(name, rec):
    o = rec["outcome"]
    if o["status"] == "ok":
        return f"{name}: ok ({len(rec['values'])} values)"
    return f"{name}: {o['type']} at step {o['step']} ({'inside' if o['inside'] else 'after'}): " \
           f"{o['message'][:200]}"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tests.csx.equivalence.runner",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", choices=["CPU", "CSX"])
    ap.add_argument("--out", help="output prefix: writes OUT.json and OUT.npz")
    ap.add_argument("--only", nargs="+", help="case names or shell patterns")
    ap.add_argument("--list", action="store_true", help="list the cases with their expectation")
    ap.add_argument("--compare", nargs=2, metavar=("CPU_OUT", "CSX_OUT"),
                    help="judge two result files (as the test does) and print each verdict")
    ap.add_argument("-v", "--verbose", action="store_true", help="print one line per case")
    args = ap.parse_args(argv)
    cases = select(all_cases(), args.only)
    if args.list:
        for c in cases:
            mark = f"  [xfail: {c.xfail}]" if c.xfail else ""
            print(f"{c.name:40s} {c.expect}{mark}\n    {c.doc}")
        return 0
    if args.compare:
        from .harness import judge, load_results
        cpu, csx = (load_results(p) for p in args.compare)
        bad = 0
        for c in cases:
            if c.name not in cpu or c.name not in csx:
                continue
            try:
                judge(c, cpu, csx)
                verdict = "PASS" + (" (declared xfail: XPASS)" if c.xfail else "")
            except AssertionError as e:
                verdict = ("xfail" if c.xfail else "FAIL") + f": {e}"
                bad += not c.xfail
            print(f"{c.name}: {verdict}")
        return 1 if bad else 0
    if not args.backend or not args.out:
        ap.error("--backend and --out are required to run cases")
    from .harness import save_results
    with tempfile.TemporaryDirectory(prefix=f"equiv-{args.backend}-") as tmp:
        results = run_cases(cases, args.backend, tmp)
    save_results(args.out, results)
    if args.verbose:
        for name, rec in results.items():
            print(_summary(name, rec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
