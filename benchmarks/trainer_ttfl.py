"""Trainer time-to-first-loss: a model given as a callable (built by the Trainer inside the
emulated CSX device: lazy, pruned initialization) vs the same model prebuilt as a module.

    python benchmarks/trainer_ttfl.py [--layers 8 --width 1024 --rounds 5]

Both arms run in this one process on one CSX backend, alternating (callable, prebuilt, callable,
...), after a small warm-up fit. Each arm times, from its first line to the step closure that
receives the first training loss:

* callable: ``Trainer(model=lambda: build(), optimizer=lambda m: SGD(...))`` then ``fit`` (one step);
* prebuilt: ``model = build()`` on the host, then ``Trainer(model=model, optimizer=SGD(...))``
  then ``fit``.

``build()`` makes an MLP of ``layers`` Linear(width, width) + ReLU and re-initializes every
weight with ``model.apply(init_fn)`` (truncated normal, std 0.02; zero bias), the common pattern
whose first (kaiming) initialization lazy init prunes. Printed: median seconds per arm and the
median of the per-round ratios prebuilt / callable (> 1: the callable form reaches its first
loss sooner).
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

import minitorch_cs as cstorch  # noqa: E402
import minitorch_cs.torch as torch  # noqa: E402
import minitorch_cs.torch.nn as nn  # noqa: E402
from minitorch_cs.modelzoo import Trainer  # noqa: E402
from minitorch_cs.modelzoo.trainer.callbacks import (Callback, Checkpoint, Logging,  # noqa: E402
                                                     TrainingLoop)


class MLP(nn.Module):
    def __init__(self, layers, width):
        super().__init__()
        self.net = nn.Sequential(*[m for _ in range(layers)
                                   for m in (nn.Linear(width, width), nn.ReLU())])

    def forward(self, batch):
        (x,) = batch
        return self.net(x).square().mean()


def init_fn(m):
    if isinstance(m, nn.Linear):
        nn.init.trunc_normal_(m.weight, std=0.02)
        nn.init.zeros_(m.bias)


def build(layers, width):
    model = MLP(layers, width)
    model.apply(init_fn)
    return model


class Batches:
    def __init__(self, width):
        self.x = np.random.default_rng(0).standard_normal((4, width)).astype(np.float32)

    def __len__(self):
        return 1

    def __iter__(self):
        yield (torch.from_numpy(self.x),)


class FirstLoss(Callback):
    """Records when the first training loss reaches the host."""

    def __init__(self):
        self.at = None
        self.loss = None

    def on_train_batch_end(self, trainer, model, outputs, batch, batch_idx):
        self.seen(outputs["loss"])

    @cstorch.step_closure
    def seen(self, loss):
        if self.at is None:
            self.loss = loss.item()
            self.at = time.perf_counter()


def run(backend, form, layers, width, model_dir):
    first = FirstLoss()
    common = dict(backend=backend, model_dir=model_dir, loop=TrainingLoop(num_steps=1),
                  checkpoint=Checkpoint(autoload_last_checkpoint=False),
                  logging=Logging(log_steps=1, log_level="WARNING"), callbacks=[first])
    t0 = time.perf_counter()
    torch.manual_seed(0)
    if form == "callable":
        trainer = Trainer(model=lambda: build(layers, width),
                          optimizer=lambda m: cstorch.optim.SGD(m.parameters(), lr=0.01),
                          **common)
    else:
        model = build(layers, width)
        trainer = Trainer(model=model, optimizer=cstorch.optim.SGD(model.parameters(), lr=0.01),
                          **common)
    trainer.metrics_history.plot = False
    trainer.fit(cstorch.utils.data.DataLoader(Batches, width))
    return first.at - t0, first.loss


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")
    tmp = tempfile.mkdtemp(prefix="trainer_ttfl_")
    backend = cstorch.backend("CSX", artifact_dir=os.path.join(tmp, "art"))
    for form in ("callable", "prebuilt"):  # warm-up: imports, first compiles
        run(backend, form, 1, 64, os.path.join(tmp, f"warm_{form}"))
    times = {"callable": [], "prebuilt": []}
    losses = {}
    for r in range(args.rounds):
        order = ("callable", "prebuilt") if r % 2 == 0 else ("prebuilt", "callable")
        for form in order:
            gc.collect()
            t, loss = run(backend, form, args.layers, args.width, os.path.join(tmp, f"{form}{r}"))
            times[form].append(t)
            losses[form] = loss
        backend._impl.models.clear()  # finished trainers' models: let them be freed
        backend._impl.optimizer_registry.clear()
    params = args.layers * (args.width * args.width + args.width)
    ratios = [b / a for a, b in zip(times["callable"], times["prebuilt"])]
    print(f"MLP {args.layers} x Linear({args.width}, {args.width}) ({params / 1e6:.1f}M params), "
          f"CSX backend, lazy_initialization={cstorch.backends.csx.debug.lazy_initialization}, "
          f"{args.rounds} rounds")
    for form in times:
        print(f"  {form:9s} time to first loss: median {statistics.median(times[form]):.3f} s "
              f"(min {min(times[form]):.3f}, max {max(times[form]):.3f}); first loss "
              f"{losses[form]:.6g}")
    print(f"  prebuilt / callable: median ratio {statistics.median(ratios):.2f} "
          f"(per round: {', '.join(f'{x:.2f}' for x in ratios)})")


if __name__ == "__main__":
    main()
