"""``python -m tests.differential.bitwise [ROW ...] [--dtypes float64 float16] [--draws 20]``:
every op-table row's values and gradients against torch, bit for bit (row names first).

The random-program campaign compares with tolerances, so an op whose result is always a rounding
off (a formula associated another way, a half-precision kernel rounding once where torch rounds
every operation, gradient contributions summed in another order) passes it. This sweep draws each
row's own inputs, runs the row on both libraries in one dtype and compares the outputs and every
input's gradient exactly. It prints, per row and dtype, how many elements differ: in the outputs,
and in the gradients of the draws whose outputs agreed (so a transcendental function that is an
ulp apart in float32 -- numpy's libm against torch's SLEEF -- does not hide the formula behind
it). float64 and the half dtypes are the telling ones: float64 transcendentals agree almost
everywhere, and half precision rounds float32's last-bit differences away.
"""
from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np


def _run(T, row, xs, kw, dtype):
    dt = getattr(T, dtype)
    ts = [T.tensor(np.asarray(x, np.float64), dtype=T.float64).to(dt).requires_grad_()
          for x in xs]
    out = row.call(T, *ts, **kw)
    outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,))
            if isinstance(o, T.Tensor)]
    vals = [np.array(o.detach().double().tolist()) for o in outs]
    diff = [o for o in outs if o.requires_grad]
    if diff:
        rng = np.random.default_rng(len(vals))
        seeds = [T.tensor(rng.standard_normal(tuple(o.shape))).to(o.dtype) for o in diff]
        T.autograd.backward(diff, seeds)
    grads = [None if t.grad is None else np.array(t.grad.double().tolist()) for t in ts]
    return vals, grads


def _count(a, b):
    if a is None or b is None:
        return 0 if a is None and b is None else -1
    if a.shape != b.shape:
        return -1
    return int(np.sum(~((a == b) | (np.isnan(a) & np.isnan(b)))))


def sweep(rows, dtypes, draws):
    """``{(row name, dtype): (output elements differing, gradient elements differing where the
    outputs agreed, errors)}`` over ``draws`` draws of each row's inputs."""
    import torch
    import minitorch_cs.torch as ours
    from hypothesis.errors import NonInteractiveExampleWarning
    warnings.simplefilter("ignore", NonInteractiveExampleWarning)
    found = {}
    for row in rows:
        if not row.grad or not row.torch_grad:
            continue
        for dtype in dtypes:
            if row.dtypes is not None and dtype not in row.dtypes:
                continue
            fwd = grad = errors = 0
            for _ in range(draws):
                xs, kw = row.inputs.example()
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        want = _run(torch, row, xs, kw, dtype)
                        got = _run(ours, row, xs, kw, dtype)
                except Exception:  # (a dtype one library refuses: the campaign's business)
                    errors += 1
                    continue
                f = sum(abs(_count(w, g)) for w, g in zip(want[0], got[0]))
                fwd += f
                if not f:
                    grad += sum(abs(_count(w, g)) for w, g in zip(want[1], got[1]))
            if fwd or grad:
                found[(row.name, dtype)] = (fwd, grad, errors)
    return found


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.differential.bitwise",
                                 description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", nargs="*", help="op-table row names (default: every row)")
    ap.add_argument("--dtypes", nargs="+", default=["float64", "float16", "bfloat16"])
    ap.add_argument("--draws", type=int, default=10)
    args = ap.parse_args(argv)
    from tests.torch.test_ops_table import ROWS
    rows = [r for r in ROWS if not args.rows or r.name in args.rows]
    found = sweep(rows, args.dtypes, args.draws)
    for (name, dtype), (fwd, grad, errors) in sorted(found.items()):
        print(f"{name:40s} {dtype:9s} outputs {fwd:5d}  gradients {grad:5d}"
              + (f"  ({errors} draws raised)" if errors else ""))
    print(f"{len(found)} row/dtype pairs differ in some bit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
