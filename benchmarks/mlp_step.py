"""One MNIST-MLP training step (784-256-256-10, ReLU, cross-entropy, SGD momentum 0.9, float32):
minitorch_cs eager autograd (CPU loop) and the emulated CSX backend's replayed step vs a
hand-written numpy step, all measured in the same process.

    python benchmarks/mlp_step.py [--batch 8 32 128 512] [--steps 400] [--profile] [--memory]

Variants (each cycles through the same 8 batches):

* ``numpy``: the step written by hand in numpy (:func:`numpy_step_factory`);
* ``eager``: the loop a user writes on the CPU backend (zero_grad, forward, loss, backward, step);
* ``csx``: one iteration of the loop a user writes on the wafer -- ``next`` on a DataExecutor
  (batch placement, the previous step's closures), the ``@cstorch.trace`` step (replayed) and a
  ``@cstorch.step_closure`` that reads the loss;
* ``replay``: the replayed traced step alone (same batch every call).

Ratios are medians over rounds of per-round ratios (each round times every variant back to back);
the range over rounds is printed too. ``--memory`` measures the working memory of one step
(tracemalloc peak during the step above what was held before it, plus the replay plan's
persistent buffers) against the hand-written step's. ``--profile`` prints where the replayed
step's time goes: each planned kernel's time per step, the executor and closure share, and the
top Python functions of the whole iteration (cProfile); then the eager step's phases (zero_grad,
forward, loss, backward, optimizer step), also at a tiny width where they are Python overhead.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

import minitorch_cs as cstorch  # noqa: E402
import minitorch_cs.torch as torch  # noqa: E402
from _harness import interleaved  # noqa: E402

DIMS = [784, 256, 256, 10]
N_BATCHES = 8


def make_batches(B, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((B, DIMS[0]), dtype=np.float32), rng.integers(0, 10, B))
            for _ in range(N_BATCHES)]


def numpy_step_factory(batches, lr=0.01, mom=0.9):
    """The reference step, written directly in numpy: affine layers with ReLU, a stable
    softmax cross-entropy (mean over the batch), its gradient back through the layers, and SGD
    with momentum (v = mom * v + g; w -= lr * v). Weights are stored (out, in) as in torch."""
    rng = np.random.default_rng(0)
    W = [rng.standard_normal((o, i), dtype=np.float32) * np.float32(np.sqrt(2 / i))
         for i, o in zip(DIMS, DIMS[1:])]
    b = [np.zeros(o, np.float32) for o in DIMS[1:]]
    vW = [np.zeros_like(w) for w in W]
    vb = [np.zeros_like(x) for x in b]
    lr, mom = np.float32(lr), np.float32(mom)
    k = [0]

    def step():
        X, y = batches[k[0] % N_BATCHES]
        k[0] += 1
        n = X.shape[0]
        rows = np.arange(n)
        acts = [X]
        h = X
        for i in range(3):
            h = h @ W[i].T + b[i]
            if i < 2:
                np.maximum(h, 0, out=h)
            acts.append(h)
        z = h - h.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        loss = -np.log(p[rows, y]).mean()
        g = p
        g[rows, y] -= 1
        g /= n
        for i in (2, 1, 0):
            gW = g.T @ acts[i]
            gb = g.sum(axis=0)
            if i > 0:
                g = g @ W[i]
                g *= acts[i] > 0
            vW[i] *= mom
            vW[i] += gW
            W[i] -= lr * vW[i]
            vb[i] *= mom
            vb[i] += gb
            b[i] -= lr * vb[i]
        return loss
    return step


def _mlp(nn):
    layers = []
    for i, (a, b) in enumerate(zip(DIMS, DIMS[1:])):
        layers += [nn.Linear(a, b)] + ([nn.ReLU()] if i < len(DIMS) - 2 else [])
    return nn.Sequential(*layers)


def eager_step_factory(batches, build=_mlp):
    """The same step as a user writes it, run eagerly (outside a traced step every op runs
    eagerly on either backend)."""
    from minitorch_cs.torch import nn
    torch.manual_seed(0)
    model = build(nn)
    opt = cstorch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    data = [(torch.from_numpy(X), torch.from_numpy(y)) for X, y in batches]
    k = [0]

    def step():
        X, y = data[k[0] % len(data)]
        k[0] += 1
        opt.zero_grad()
        loss = loss_fn(model(X), y)
        loss.backward()
        opt.step()
        return loss
    return step


class CsxLoop:
    """The wafer loop: a DataExecutor over the batches, a traced step and a step closure."""

    def __init__(self, batches, build=_mlp, cstorch=cstorch):
        # (``cstorch``: the package, for benchmarks/eager_ab.py's side-by-side revisions)
        torch = cstorch.torch
        nn = torch.nn
        backend = cstorch.current_backend()
        self.cstorch = cstorch
        torch.manual_seed(0)
        with backend.device:
            model = build(nn)
        compiled = cstorch.compile(model, backend)
        opt = cstorch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        loss_fn = nn.CrossEntropyLoss()
        data = [(torch.from_numpy(X), torch.from_numpy(y)) for X, y in batches]
        loader = cstorch.utils.data.DataLoader(lambda: data)
        self.losses = last = [None]

        @cstorch.step_closure
        def record(loss):
            last[0] = loss.item()

        @cstorch.trace
        def training_step(inputs, targets):
            loss = loss_fn(compiled(inputs), targets)
            loss.backward()
            opt.step()
            opt.zero_grad()
            record(loss)
            return loss

        self.training_step = training_step
        self.it = iter(cstorch.utils.data.DataExecutor(loader, num_steps=10 ** 9))
        self.batch = next(self.it)
        training_step(*self.batch)  # the traced (captured) step
        self.iteration()  # the first replay plans the graph

    def iteration(self):
        """One loop iteration: the executor's next batch (running the previous step's
        closures), then the traced step."""
        batch = next(self.it)
        self.training_step(*batch)

    def replay(self):
        """The replayed step alone, on the batch of the last iteration."""
        return self.training_step(*self.batch)

    def close(self):
        self.it.close()

    def plan(self):
        impl = sys.modules[self.cstorch.__name__ + ".backend"].current_backend_impl()
        return next(iter(impl._tapes.values())).tape.plan


def step_memory(fn, steps=5):
    """Peak bytes numpy allocates during one call of ``fn`` above what was held before it
    (median of ``steps`` calls, tracemalloc)."""
    out = []
    for _ in range(steps):
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        fn()
        out.append(tracemalloc.get_traced_memory()[1] - base)
        tracemalloc.stop()
    return statistics.median(out)


def profile(loop, steps=300):
    """Where the replayed step's time goes."""
    plan = loop.plan()
    names = [getattr(f, "__qualname__", repr(f)).split(".<locals>")[0] + "." +
             getattr(f, "__name__", "") for f in plan.steps]
    tot = [0.0] * len(plan.steps)
    env_steps = plan.steps
    timed = []
    for i, f in enumerate(env_steps):
        def wrapped(env, ctxs, f=f, i=i):
            t = time.perf_counter()
            f(env, ctxs)
            tot[i] += time.perf_counter() - t
        timed.append(wrapped)
    plan.steps = timed
    t0 = time.perf_counter()
    for _ in range(steps):
        loop.replay()
    replay_total = (time.perf_counter() - t0) / steps
    plan.steps = env_steps
    t0 = time.perf_counter()
    for _ in range(steps):
        loop.iteration()
    it_total = (time.perf_counter() - t0) / steps
    t0 = time.perf_counter()
    for _ in range(steps):
        loop.replay()
    replay_plain = (time.perf_counter() - t0) / steps
    kern = sum(tot) / steps
    print(f"  {len(plan.steps)} plan steps ({plan.dropped} tape entries dropped as dead), "
          f"{len(plan.buffers)} planned values in "
          f"{len({id(b) for b in plan.buffers.values()})} buffers; the plan holds "
          f"{plan.nbytes / 1024:.0f} KiB")
    print(f"  iteration {it_total * 1e6:.1f} us = replay {replay_plain * 1e6:.1f} us + executor, "
          f"closure and checks {(it_total - replay_plain) * 1e6:.1f} us; inside the replay the "
          f"plan steps take {kern * 1e6:.1f} us (the rest, {(replay_total - kern) * 1e6:.1f} us "
          "with timing overhead, is the replay loop and input checks)")
    order = sorted(range(len(tot)), key=lambda i: -tot[i])
    for i in order[:10]:
        print(f"    {tot[i] / steps * 1e6:8.1f} us  {names[i]}")
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(steps):
        loop.iteration()
    pr.disable()
    st = pstats.Stats(pr)
    st.sort_stats("tottime")
    print("  top Python functions of the whole iteration (tottime per step):")
    rows = sorted(st.stats.items(), key=lambda kv: -kv[1][2])[:12]
    for (file, line, name), (cc, nc, tt, ct, _) in rows:
        print(f"    {tt / steps * 1e6:8.1f} us  {nc / steps:5.1f} calls  "
              f"{os.path.basename(file)}:{line} {name}")


def profile_eager(batches, steps=600):
    """Where the eager step's time goes: the median of each phase of the loop a user writes,
    against the hand-written step's, and the same phases at a tiny width (4-4-4-10, batch 2),
    where almost all of it is Python overhead per op."""
    from minitorch_cs.torch import nn

    def phases(batches, build):
        torch.manual_seed(0)
        model = build(nn)
        opt = cstorch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        loss_fn = nn.CrossEntropyLoss()
        data = [(torch.from_numpy(X), torch.from_numpy(y)) for X, y in batches]
        out = {k: [] for k in ("zero_grad", "forward", "loss", "backward", "step")}
        for k in range(steps + 50):
            X, y = data[k % len(data)]
            t0 = time.perf_counter()
            opt.zero_grad()
            t1 = time.perf_counter()
            h = model(X)
            t2 = time.perf_counter()
            loss = loss_fn(h, y)
            t3 = time.perf_counter()
            loss.backward()
            t4 = time.perf_counter()
            opt.step()
            t5 = time.perf_counter()
            if k >= 50:
                for name, a, b in zip(out, (t0, t1, t2, t3, t4), (t1, t2, t3, t4, t5)):
                    out[name].append(b - a)
        return {k: statistics.median(v) * 1e6 for k, v in out.items()}

    def tiny(nn):
        return nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4), nn.ReLU(),
                             nn.Linear(4, 10))

    rng = np.random.default_rng(0)
    small = [(rng.standard_normal((2, 4), dtype=np.float32), rng.integers(0, 10, 2))
             for _ in range(N_BATCHES)]
    full, over = phases(batches, _mlp), phases(small, tiny)
    hand = numpy_step_factory(batches)
    for _ in range(50):
        hand()
    ts = []
    for _ in range(steps):
        t = time.perf_counter()
        hand()
        ts.append(time.perf_counter() - t)
    print(f"  eager phases (median us; the tiny 4-4-4-10 model at batch 2 in parentheses: "
          f"Python overhead): " + ", ".join(f"{k} {full[k]:.0f} ({over[k]:.0f})" for k in full) +
          f"; sum {sum(full.values()):.0f} ({sum(over.values()):.0f}); hand-written step "
          f"{statistics.median(ts) * 1e6:.0f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, nargs="+", default=[8, 32, 128, 512])
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--memory", action="store_true")
    args = ap.parse_args(argv)
    cstorch.backend("CSX", artifact_dir="/tmp/minitorch_cs_bench")
    print(f"{'batch':>5} {'numpy ms':>9} {'eager ms':>9} {'csx ms':>9} {'replay ms':>9}  "
          f"{'eager/numpy':>17} {'csx/numpy':>17} {'replay/numpy':>17}")
    for B in args.batch:
        batches = make_batches(B)
        loop = CsxLoop(batches)
        fns = {"numpy": numpy_step_factory(batches), "eager": eager_step_factory(batches),
               "csx": loop.iteration, "replay": loop.replay}
        res = interleaved(fns, steps=args.steps, rounds=args.rounds, baseline="numpy")

        def r(k):
            med, lo, hi = res[f"{k}/numpy"]
            return f"{med:5.2f} ({lo:.2f}-{hi:.2f})"
        print(f"{B:>5} {res['numpy']:>9.3f} {res['eager']:>9.3f} {res['csx']:>9.3f} "
              f"{res['replay']:>9.3f}  {r('eager'):>17} {r('csx'):>17} {r('replay'):>17}",
              flush=True)
        if args.memory:
            hand = step_memory(numpy_step_factory(batches))
            held = loop.plan().nbytes
            rep = step_memory(loop.replay) + held
            it = step_memory(loop.iteration) + held
            print(f"      working memory of a step: numpy {hand / 1024:.0f} KiB; replay "
                  f"{rep / 1024:.0f} KiB ({held / 1024:.0f} KiB held by the plan) -> "
                  f"{rep / hand:.2f}x; with the executor (its copy of the batch) "
                  f"{it / 1024:.0f} KiB -> {it / hand:.2f}x", flush=True)
        if args.profile:
            profile(loop)
            profile_eager(batches)
        loop.close()


if __name__ == "__main__":
    main()
