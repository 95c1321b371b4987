"""One MNIST-MLP training step (784-256-256-10, ReLU, cross-entropy, SGD momentum 0.9, float32):
minitorch_cs eager autograd (CPU backend) and the replayed step of the emulated CSX backend vs a
hand-written numpy step, all measured in the same process.

    python benchmarks/mlp_step.py [--batch 32 128] [--steps 200]

Prints per-step medians, and the ratios ours/numpy as the median over rounds of the per-round
ratios (each round times every variant back to back). The eager step is the plain
loop (zero_grad, forward, loss, backward, step); the replayed step is one iteration of a
DataExecutor over a ``@cstorch.trace`` step after its first (traced) step, timed as the replay
of the captured graph (the executor's own per-step work is timed separately as "executor ms").
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

import minitorch_cs as cstorch  # noqa: E402
import minitorch_cs.torch as torch  # noqa: E402
from _harness import interleaved_medians  # noqa: E402

DIMS = [784, 256, 256, 10]


def numpy_step_factory(X, y, lr=0.01, mom=0.9):
    """The reference: forward, softmax cross-entropy, backward and SGD momentum written by hand."""
    rng = np.random.default_rng(0)
    W = [(rng.standard_normal((o, i), dtype=np.float32) * np.float32(np.sqrt(2 / i)))
         for i, o in zip(DIMS, DIMS[1:])]
    b = [np.zeros(o, np.float32) for o in DIMS[1:]]
    vW = [np.zeros_like(w) for w in W]
    vb = [np.zeros_like(x) for x in b]
    B = X.shape[0]
    lr, mom = np.float32(lr), np.float32(mom)
    rows = np.arange(B)

    def step():
        hs = [X]
        h = X
        for i in range(3):
            h = h @ W[i].T + b[i]
            if i < 2:
                np.maximum(h, 0, out=h)
            hs.append(h)
        z = h - h.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        loss = -np.log(p[rows, y]).mean()
        g = p
        g[rows, y] -= 1
        g /= B
        for i in (2, 1, 0):
            gW = g.T @ hs[i]
            gb = g.sum(0)
            if i > 0:
                g = g @ W[i]
                g *= hs[i] > 0
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


def eager_step_factory(X, y):
    """The same step written as a cstorch user writes it, run eagerly on the CPU backend."""
    from minitorch_cs.torch import nn
    torch.manual_seed(0)
    model = _mlp(nn)
    opt = cstorch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y)

    def step():
        opt.zero_grad()
        loss = loss_fn(model(Xt), yt)
        loss.backward()
        opt.step()
        return loss
    return step


def replay_step_factory(X, y):
    """The same step traced once on the emulated CSX backend; each call replays the graph."""
    from minitorch_cs.torch import nn
    backend = cstorch.current_backend()
    torch.manual_seed(0)
    with backend.device:
        model = _mlp(nn)
    compiled = cstorch.compile(model, backend)
    opt = cstorch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    batch = (torch.from_numpy(X), torch.from_numpy(y))
    loader = cstorch.utils.data.DataLoader(lambda: [batch])

    @cstorch.trace
    def training_step(inputs, targets):
        loss = loss_fn(compiled(inputs), targets)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    it = iter(cstorch.utils.data.DataExecutor(loader, num_steps=10 ** 9))
    inputs, targets = next(it)
    training_step(inputs, targets)  # the traced step
    next(it)  # later steps replay; each call below replays the captured graph once

    def step():
        return training_step(inputs, targets)
    step.executor = it
    return step


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, nargs="+", default=[32, 128])
    ap.add_argument("--steps", type=int, default=400)
    args = ap.parse_args(argv)
    # One emulated-CSX backend serves both: outside a traced step every op runs eagerly.
    cstorch.backend("CSX", artifact_dir="/tmp/minitorch_cs_bench")
    rng = np.random.default_rng(0)
    print(f"{'batch':>5} {'numpy ms':>9} {'eager ms':>9} {'replay ms':>9} {'executor ms':>11} "
          f"{'eager/numpy':>12} {'replay/numpy':>13}")
    for B in args.batch:
        X = rng.standard_normal((B, 784), dtype=np.float32)
        y = rng.integers(0, 10, B)
        replay = replay_step_factory(X, y)
        res = interleaved_medians({"numpy": numpy_step_factory(X, y),
                                   "eager": eager_step_factory(X, y),
                                   "replay": replay,
                                   "executor": lambda: next(replay.executor)}, steps=args.steps,
                                  baseline="numpy")
        print(f"{B:>5} {res['numpy']:>9.3f} {res['eager']:>9.3f} {res['replay']:>9.3f} "
              f"{res['executor']:>11.3f} {res['eager/numpy']:>12.2f} {res['replay/numpy']:>13.2f}")


if __name__ == "__main__":
    main()
