"""``python -m tests.differential --budget 1800 --seed N``: a differential campaign against torch.

Prints the share of programs with an undocumented difference, grouped by root cause, and a
minimized repro (runnable on both libraries) for the most frequent causes.
"""
from __future__ import annotations

import argparse
import json
import sys
import time


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.differential", description=__doc__)
    ap.add_argument("--budget", type=float, default=None, help="seconds to run (default 60 "
                    "unless --programs is given)")
    ap.add_argument("--programs", type=int, default=None, help="number of programs to run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0, help="index of the first program")
    ap.add_argument("--repros", type=int, default=5, help="minimized repros to print (most "
                    "frequent causes first)")
    ap.add_argument("--json", default=None, help="also write the figures to this file")
    ap.add_argument("--list", action="store_true", help="print every failing program index")
    ap.add_argument("--matrix", nargs="+", default=None, metavar="ROW",
                    help="instead of a campaign: run these op-table rows over every combination "
                    "of operand dtypes and print where they differ")
    ap.add_argument("--forms", default="call", help="with --matrix: comma-separated forms "
                    "(call, method_, out, inplace_kw)")
    args = ap.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("torch is not importable: install the oracle extra (pip install '.[oracle]')",
              file=sys.stderr)
        return 2
    from tests.differential.campaign import run_campaign, summary
    from tests.differential.minimize import minimize, repro
    if args.matrix:
        from tests.differential.matrix import print_matrix
        torch.set_default_dtype(torch.float32)
        bad = 0
        for name in args.matrix:
            print(f"== {name}")
            bad += print_matrix(name, torch, forms=tuple(args.forms.split(",")))
        return 1 if bad else 0

    budget = args.budget if args.budget is not None or args.programs is not None else 60.0
    last = [time.perf_counter()]

    def progress(stats, i):
        if time.perf_counter() - last[0] > 30:
            last[0] = time.perf_counter()
            print(f"  ... {stats.programs} programs, {stats.undocumented} with an undocumented "
                  "difference", file=sys.stderr, flush=True)

    stats = run_campaign(torch, seed=args.seed, budget=budget, programs=args.programs,
                         start=args.start, progress=progress)
    print(summary(stats))
    if args.list:
        for i, m in stats.failing:
            print(f"  program {i}: {m.key()} at {m.where}: {m.detail[:160]}")
    for cause, _ in stats.by_cause.most_common(args.repros):
        prog, run, m = stats.examples[cause]
        small, srun = minimize(prog, m, torch)
        target = next((x for x in (srun.mismatches if srun else [])
                       if not x.noise and not x.documented), m)
        print(f"\n# ---- {cause}  ({prog.label}, minimized) ----")
        print(repro(srun or run, target))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": stats.seed, "programs": stats.programs,
                       "undocumented": stats.undocumented, "share": stats.share,
                       "silent": stats.silent, "documented_only": stats.documented_only,
                       "noise_only": stats.noise_only, "seconds": stats.seconds,
                       "by_category": dict(stats.by_category), "by_cause": dict(stats.by_cause)},
                      f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
