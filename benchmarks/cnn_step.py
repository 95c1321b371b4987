"""One small-CNN training step (MNIST-shaped 1x28x28 inputs, batch 64: conv 3x3 to 32 channels,
ReLU, conv 3x3 to 64, ReLU, 2x2 max-pool, linear 9216->128, ReLU, linear 128->10, cross-entropy,
SGD momentum 0.9, float32): minitorch_cs eager, the emulated CSX loop (executor, replayed traced
step, step closure), PyTorch eager on the CPU (when torch is installed) and a hand-written numpy
step that does the convolutions by im2col + GEMM, all in one process.

    python benchmarks/cnn_step.py [--batch 64] [--steps 60] [--rounds 6] [--profile] [--memory]
                                   [--torch_threads 2]

Ratios are medians (and ranges) over rounds of per-round ratios, each round timing every
variant back to back (``_harness.interleaved``).
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

import minitorch_cs as cstorch  # noqa: E402
from _harness import interleaved, round_ratio  # noqa: E402
from mlp_step import CsxLoop, eager_step_factory, profile, step_memory  # noqa: E402

N_BATCHES = 4


def make_batches(B, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((B, 1, 28, 28), dtype=np.float32), rng.integers(0, 10, B))
            for _ in range(N_BATCHES)]


def build(nn):
    return nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Conv2d(32, 64, 3), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(9216, 128), nn.ReLU(),
                         nn.Linear(128, 10))


def numpy_step_factory(batches, lr=0.01, mom=0.9):
    """The step by hand. Activations are kept channels-last (N, H, W, C) so that a convolution
    is one GEMM over its column matrix (N*Ho*Wo, kh*kw*C); its input gradient scatters the
    column gradient back with kh*kw strided adds, its weight gradient is one GEMM."""
    rng = np.random.default_rng(0)

    def init(*shape, fan_in):
        return rng.standard_normal(shape, dtype=np.float32) * np.float32(np.sqrt(2 / fan_in))
    params = {"c1": init(9 * 1, 32, fan_in=9), "b1": np.zeros(32, np.float32),
              "c2": init(9 * 32, 64, fan_in=288), "b2": np.zeros(64, np.float32),
              "f1": init(9216, 128, fan_in=9216), "b3": np.zeros(128, np.float32),
              "f2": init(128, 10, fan_in=128), "b4": np.zeros(10, np.float32)}
    vel = {k: np.zeros_like(v) for k, v in params.items()}
    lr, mom = np.float32(lr), np.float32(mom)
    data = [(np.ascontiguousarray(X.transpose(0, 2, 3, 1)), y) for X, y in batches]
    k = [0]

    def cols_of(x):  # (N, H, W, C) -> (N*Ho*Wo, 9*C), window offsets outer, channels inner
        v = sliding_window_view(x, (3, 3), axis=(1, 2))  # (N, Ho, Wo, C, 3, 3)
        n, ho, wo, c = v.shape[:4]
        return np.ascontiguousarray(v.transpose(0, 1, 2, 4, 5, 3)).reshape(n * ho * wo, 9 * c)

    def col2im(gcols, shape):
        n, h, w, c = shape
        ho, wo = h - 2, w - 2
        g = gcols.reshape(n, ho, wo, 3, 3, c)
        gx = np.zeros(shape, np.float32)
        for i in range(3):
            for j in range(3):
                gx[:, i:i + ho, j:j + wo, :] += g[:, :, :, i, j, :]
        return gx

    def step():
        X, y = data[k[0] % N_BATCHES]
        k[0] += 1
        p = params
        n = X.shape[0]
        rows = np.arange(n)
        c1 = cols_of(X)
        h1 = c1 @ p["c1"]
        h1 += p["b1"]
        np.maximum(h1, 0, out=h1)
        h1 = h1.reshape(n, 26, 26, 32)
        c2 = cols_of(h1)
        h2 = c2 @ p["c2"]
        h2 += p["b2"]
        np.maximum(h2, 0, out=h2)
        h2 = h2.reshape(n, 12, 2, 12, 2, 64)
        pooled = h2.max(axis=(2, 4))
        flat = pooled.reshape(n, 9216)
        h3 = flat @ p["f1"]
        h3 += p["b3"]
        np.maximum(h3, 0, out=h3)
        z = h3 @ p["f2"]
        z += p["b4"]
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        e /= e.sum(axis=1, keepdims=True)
        loss = -np.log(e[rows, y]).mean()
        g = e
        g[rows, y] -= 1
        g /= n
        grads = {"f2": h3.T @ g, "b4": g.sum(0)}
        g = g @ p["f2"].T
        g *= h3 > 0
        grads["f1"], grads["b3"] = flat.T @ g, g.sum(0)
        g = (g @ p["f1"].T).reshape(n, 12, 1, 12, 1, 64)
        g = g * (h2 == pooled.reshape(n, 12, 1, 12, 1, 64))  # the max of each window
        g = g.reshape(n * 24 * 24, 64)
        g *= h2.reshape(n * 24 * 24, 64) > 0
        grads["c2"], grads["b2"] = c2.T @ g, g.sum(0)
        g = col2im(g @ p["c2"].T, (n, 26, 26, 32)).reshape(n * 676, 32)
        g *= h1.reshape(n * 676, 32) > 0
        grads["c1"], grads["b1"] = c1.T @ g, g.sum(0)
        for key, gk in grads.items():
            v = vel[key]
            v *= mom
            v += gk
            params[key] -= lr * v
        return loss
    return step


def torch_step_factory(batches, threads=2):
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = build(torch.nn)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    data = [(torch.from_numpy(X), torch.from_numpy(y)) for X, y in batches]
    k = [0]

    def step():
        X, y = data[k[0] % N_BATCHES]
        k[0] += 1
        opt.zero_grad()
        loss = loss_fn(model(X), y)
        loss.backward()
        opt.step()
        return loss
    return step


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--memory", action="store_true")
    ap.add_argument("--torch_threads", type=int, default=2, help="torch.set_num_threads")
    args = ap.parse_args(argv)
    cstorch.backend("CSX", artifact_dir="/tmp/minitorch_cs_bench")
    batches = make_batches(args.batch)
    loop = CsxLoop(batches, build=build)
    fns = {"numpy": numpy_step_factory(batches), "eager": eager_step_factory(batches, build),
           "csx": loop.iteration}
    t = torch_step_factory(batches, args.torch_threads)
    if t is None:
        print("PyTorch is not installed: the torch comparison is skipped")
    else:
        fns["torch"] = t
    print(f"batch {args.batch}, OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'default')}"
          + (f", torch threads {args.torch_threads}" if t is not None else ""))
    res = interleaved(fns, steps=args.steps, rounds=args.rounds, warmup=5, baseline="numpy")
    print(" ".join(f"{k} {res[k]:.2f} ms" for k in fns))
    for k in fns:
        if k != "numpy":
            med, lo, hi = res[f"{k}/numpy"]
            print(f"{k}/numpy {med:.2f} ({lo:.2f}-{hi:.2f})")
    if "torch" in fns:
        for k in ("eager", "csx", "numpy"):
            med, lo, hi = round_ratio(res["rounds"], k, "torch")
            print(f"{k}/torch {med:.2f} ({lo:.2f}-{hi:.2f})")
    if args.memory:
        hand = step_memory(numpy_step_factory(batches), steps=3)
        held = loop.plan().nbytes
        rep = step_memory(loop.replay, steps=3) + held
        print(f"working memory of a step: numpy {hand / 2**20:.1f} MiB; replay "
              f"{rep / 2**20:.1f} MiB ({held / 2**20:.1f} MiB held by the plan) -> "
              f"{rep / hand:.2f}x")
    if args.profile:
        profile(loop, steps=10)
    loop.close()


if __name__ == "__main__":
    main()
