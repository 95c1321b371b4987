"""The eager training step of this checkout against an earlier revision, in one process.

    python benchmarks/eager_ab.py REV [--rounds 30] [--batch 32 128] [--csx]

Separate processes on a shared machine drift by tens of percent between runs, more than a change
to the per-op overhead moves a step. This script loads both versions side by side instead: the
package at git revision ``REV`` is extracted (``git archive``) into a temporary directory and
renamed ``minitorch_cs_base``, then the two run interleaved blocks of the same loop in the same
process, so a slow spell of the machine hits both.

Printed, per version: the median of each phase of the tiny step (a 4-4-4-10 MLP at batch 2,
where the step is all Python overhead: zero_grad, forward, loss, backward, SGD step) and their
ratio new/base; then for each ``--batch`` the MLP step of ``mlp_step.py`` (784-256-256-10,
SGD momentum, cross-entropy) over the hand-written numpy step, the median of per-round ratios.
With ``--csx``, instead: the same MLP's loop on the emulated wafer (``mlp_step.py``'s ``csx``
variant: executor, replayed traced step, step closure) of both versions over the numpy step.
"""
from __future__ import annotations

import argparse
import importlib
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mlp_step as M  # noqa: E402

PHASES = ("zero_grad", "forward", "loss", "backward", "step")


def extract(rev: str, into: str) -> None:
    """The package at ``rev`` as ``minitorch_cs_base`` under ``into`` (its absolute imports of
    the package renamed, so both versions import side by side)."""
    archive = subprocess.run(["git", "-C", ROOT, "archive", rev, "minitorch_cs"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    os.rename(os.path.join(into, "minitorch_cs"), os.path.join(into, "minitorch_cs_base"))
    word = re.compile(r"\bminitorch_cs\b")
    for folder, _, files in os.walk(os.path.join(into, "minitorch_cs_base")):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                with open(path, "w", encoding="utf-8") as f:
                    f.write(word.sub("minitorch_cs_base", text))


def _loop(pkg: str, build, batches, with_phases: bool):
    """The loop a user writes on the CPU backend, with package ``pkg``: a function running
    ``n`` steps and appending each phase's (or the whole step's) seconds to ``out``."""
    cs = importlib.import_module(pkg)
    torch = importlib.import_module(pkg + ".torch")
    if cs.current_backend(raise_exception=False) is None:
        cs.backend("CPU")
    torch.manual_seed(0)
    model = build(torch.nn)
    opt = cs.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    data = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in batches]
    clock = time.perf_counter

    def run(n, out):
        for k in range(n):
            x, y = data[k % len(data)]
            t0 = clock()
            opt.zero_grad()
            t1 = clock()
            h = model(x)
            t2 = clock()
            loss = loss_fn(h, y)
            t3 = clock()
            loss.backward()
            t4 = clock()
            opt.step()
            t5 = clock()
            if with_phases:
                for name, a, b in zip(PHASES, (t0, t1, t2, t3, t4), (t1, t2, t3, t4, t5)):
                    out.setdefault(name, []).append(b - a)
            out.setdefault("total", []).append(t5 - t0)
    return run


def _tiny(nn):
    return nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4), nn.ReLU(),
                         nn.Linear(4, 10))


def tiny_phases(rounds: int) -> None:
    rng = np.random.default_rng(0)
    batches = [(rng.standard_normal((2, 4), dtype=np.float32), rng.integers(0, 10, 2))
               for _ in range(8)]
    runs = {"base": _loop("minitorch_cs_base", _tiny, batches, True),
            "new": _loop("minitorch_cs", _tiny, batches, True)}
    res = {k: {} for k in runs}
    for run in runs.values():
        run(200, {})
    for _ in range(rounds):
        for k, run in runs.items():
            run(100, res[k])
    names = PHASES + ("total",)
    print("tiny step (4-4-4-10, batch 2), median us per phase:")
    for k in runs:
        print(f"  {k:5s} " + " ".join(f"{n} {statistics.median(res[k][n]) * 1e6:6.1f}"
                                      for n in names))
    print("  new/base " + " ".join(
        f"{n} {statistics.median(res['new'][n]) / statistics.median(res['base'][n]):.3f}"
        for n in names))


def mlp_ratios(batch: int, rounds: int) -> None:
    batches = M.make_batches(batch)
    fns = {"numpy": M.numpy_step_factory(batches)}
    for k, pkg in (("base", "minitorch_cs_base"), ("new", "minitorch_cs")):
        run = _loop(pkg, M._mlp, batches, False)
        fns[k] = lambda run=run: run(1, {})
    ratios = _interleaved_ratios(fns, rounds)
    print(f"MLP step, batch {batch}: eager/numpy base {statistics.median(ratios['base']):.3f}, "
          f"new {statistics.median(ratios['new']):.3f}")


def csx_ratios(batch: int, rounds: int, artifacts: str) -> None:
    """The wafer loop of ``mlp_step.py`` (a DataExecutor, the traced step replayed, a step
    closure reading the loss) of both versions over the hand-written numpy step."""
    batches = M.make_batches(batch)
    fns = {"numpy": M.numpy_step_factory(batches)}
    loops = []
    for k, pkg in (("base", "minitorch_cs_base"), ("new", "minitorch_cs")):
        cs = importlib.import_module(pkg)
        if cs.current_backend(raise_exception=False) is None:  # one backend per process
            cs.backend("CSX", artifact_dir=os.path.join(artifacts, k))
        loop = M.CsxLoop(batches, cstorch=cs)
        loops.append(loop)
        fns[k] = loop.iteration
    ratios = _interleaved_ratios(fns, rounds)
    for loop in loops:
        loop.close()
    print(f"MLP step on the emulated wafer (executor, traced step, closure), batch {batch}: "
          f"csx/numpy base {statistics.median(ratios['base']):.3f}, "
          f"new {statistics.median(ratios['new']):.3f}")


def _interleaved_ratios(fns: dict, rounds: int) -> dict:
    """Per round, each function's median over a block of 60 calls, over the numpy step's."""
    for fn in fns.values():
        for _ in range(30):
            fn()
    ratios = {k: [] for k in fns if k != "numpy"}
    for _ in range(rounds):
        med = {}
        for name, fn in fns.items():
            ts = []
            for _ in range(60):
                t = time.perf_counter()
                fn()
                ts.append(time.perf_counter() - t)
            med[name] = statistics.median(ts)
        for k in ratios:
            ratios[k].append(med[k] / med["numpy"])
    return ratios


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rev", help="the git revision to compare against")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--batch", type=int, nargs="*", default=[32, 128])
    ap.add_argument("--csx", action="store_true",
                    help="the wafer loop only (no eager phases or eager MLP steps)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        extract(args.rev, tmp)
        sys.path.insert(0, tmp)
        if args.csx:
            for b in args.batch:
                csx_ratios(b, max(4, args.rounds // 3), tmp)
            return
        tiny_phases(args.rounds)
        for b in args.batch:
            mlp_ratios(b, max(4, args.rounds // 3))


if __name__ == "__main__":
    main()
