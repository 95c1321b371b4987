"""Lazy and efficient weight initialization: time to first loss and peak memory, as ratios.

    python benchmarks/lazy_init.py ttfl    [--layers 6 --width 8192 --runs 5 --warmup 1]
    python benchmarks/lazy_init.py build   [--layers 32 --width 8192]      # >= 2B params, lazy
    python benchmarks/lazy_init.py rss     [--layers 16 --width 8192]      # >= 1B params, efficient

ttfl:  a fresh process builds an MLP, re-initializes every weight with ``model.apply(init_fn)``
       (normal, std 0.02, as GPT-style models do), compiles it, and prints the first loss; we time
       process start to the moment the loss line reaches our pipe (process teardown and the training
       step that would follow are the same in both arms and left out). Eager: plain construction
       on the CPU backend. Lazy: construction inside the
       emulated CSX device with lazy initialization (record-time seeding, pruning). A and B
       alternate after an untimed warm-up round; medians and the median of the pairwise ratios
       are printed.
build: construction alone of a >= 2B-parameter model under lazy init: wall time and peak RSS.
rss:   peak RSS of efficient (non-lazy) device construction of a >= 1B-parameter model, against
       the model's size.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

_TTFL = r"""
import sys
mode, layers, width, art = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
import minitorch_cs as cstorch
import minitorch_cs.torch as torch
import minitorch_cs.torch.nn as nn

def build():
    return nn.Sequential(*[m for _ in range(layers) for m in (nn.Linear(width, width), nn.ReLU())])

def init_fn(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, std=0.02)
        nn.init.zeros_(m.bias)

torch.manual_seed(0)
if mode == "eager":
    backend = cstorch.backend("CPU", artifact_dir=art)
    model = build()
else:
    backend = cstorch.backend("CSX", artifact_dir=art)
    cstorch.backends.csx.debug.lazy_initialization = True
    with backend.device:
        model = build()
model.apply(init_fn)
compiled = cstorch.compile(model, backend)
x = torch.randn(4, width)
loss = compiled(x).square().mean()
print("loss", loss.item(), flush=True)
"""

_BUILD = r"""
import sys, time
mode, layers, width, art = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def kb(field):
    return int(open("/proc/self/status").read().split(field + ":")[1].split()[0])
import minitorch_cs as cstorch
import minitorch_cs.torch as torch
import minitorch_cs.torch.nn as nn
backend = cstorch.backend("CSX", artifact_dir=art)
cstorch.backends.csx.debug.lazy_initialization = (mode == "lazy")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
base = kb("VmRSS")
t = time.perf_counter()
with backend.device:
    layers_ = nn.ModuleList()
    for _ in range(layers):
        layers_.append(nn.Linear(width, width))
elapsed = time.perf_counter() - t
params = sum(p.numel() for p in layers_.parameters())
print(params, elapsed, (kb("VmHWM") - base) * 1024, kb("VmHWM") * 1024)
"""


def _timed(cmd, env):
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    return time.perf_counter() - t, out.stdout


def _time_to_line(cmd, env, prefix):
    """Seconds from process start to the first stdout line starting with ``prefix``."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    for line in proc.stdout:
        if line.startswith(prefix):
            elapsed = time.perf_counter() - t
            break
    else:
        elapsed = None
    _, err = proc.communicate()
    if proc.returncode != 0 or elapsed is None:
        raise RuntimeError(f"no {prefix!r} line; exit code {proc.returncode}\n{err[-3000:]}")
    return elapsed


def ttfl(args, env):
    with tempfile.TemporaryDirectory() as art:
        times = {"eager": [], "lazy": []}
        for i in range(args.warmup + args.runs):
            for mode in ("eager", "lazy"):
                cmd = [sys.executable, "-c", _TTFL, mode, str(args.layers), str(args.width), art]
                elapsed = _time_to_line(cmd, env, "loss")
                if i >= args.warmup:
                    times[mode].append(elapsed)
    params = args.layers * args.width * (args.width + 1)
    ratios = [lz / eg for lz, eg in zip(times["lazy"], times["eager"])]
    print(f"MLP {args.layers}x{args.width}^2 = {params / 1e6:.0f}M parameters, {args.runs} runs each")
    print(f"time to first loss  eager {statistics.median(times['eager']):.2f} s   "
          f"lazy {statistics.median(times['lazy']):.2f} s   "
          f"lazy/eager {statistics.median(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f})")


def build(args, env, mode):
    with tempfile.TemporaryDirectory() as art:
        cmd = [sys.executable, "-c", _BUILD, mode, str(args.layers), str(args.width), art]
        _, out = _timed(cmd, env)
    params, elapsed, grew, peak = out.split()
    params, grew, peak = int(params), int(grew), int(peak)
    size = params * 4
    print(f"{mode} construction of {params / 1e9:.2f}B parameters ({size / 2 ** 30:.2f} GiB): "
          f"{float(elapsed):.2f} s, peak RSS {peak / 2 ** 20:.0f} MiB (grew {grew / 2 ** 20:.0f} MiB "
          f"= {grew / size:.3f} of the model)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["ttfl", "build", "rss"])
    ap.add_argument("--layers", type=int)
    ap.add_argument("--width", type=int, default=8192)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1,
                    help="untimed rounds first: on a VM the first touch of fresh guest memory can "
                         "cost seconds, and which arm meets it is luck")
    args = ap.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if args.what == "ttfl":
        args.layers = args.layers or 6
        ttfl(args, env)
    elif args.what == "build":
        args.layers = args.layers or 32
        build(args, env, "lazy")
    else:
        args.layers = args.layers or 16
        build(args, env, "efficient")


if __name__ == "__main__":
    main()
