"""One GPT training step of ``examples/gpt.py`` (its default config: 2 layers, 4 heads, width 64,
12 tokens, byte vocabulary, batch 64): minitorch_cs eager (CPU backend) and the replayed step of
the emulated CSX backend vs PyTorch eager on CPU, the same model, all in one process.

    python benchmarks/gpt_step.py [--steps 200] [--batch 64] [--torch_threads N] [--profile]

The step is forward, cross-entropy over the answer tokens, backward, ``clip_grad_norm_(1.0)``,
AdamW (decay/no-decay groups, betas 0.9/0.95) and ``zero_grad``; no LR schedule on either side.
PyTorch runs the very model class of the example, imported with ``torch`` in place of
``minitorch_cs.torch`` (the porting rule read backwards), with ``torch.optim.AdamW``; it is
skipped when PyTorch is not installed. Ratios are the median over rounds of per-round medians
(``_harness.interleaved_medians``). ``--profile`` then prints where the replayed step's time
goes: the plan's steps timed one by one and summed by kind (a planned kernel, or a recorded
entry's kind and op), with the share the timing itself adds.
"""
from __future__ import annotations

import argparse
import os
import sys
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

import minitorch_cs as cstorch  # noqa: E402
import minitorch_cs.torch as mtorch  # noqa: E402
from _harness import interleaved_medians  # noqa: E402

EXAMPLE = os.path.join(HERE, "..", "examples", "gpt.py")


def _example_module(real_torch=False):
    """examples/gpt.py as a module; with ``real_torch`` its model code runs on PyTorch."""
    src = open(EXAMPLE).read()
    if real_torch:
        keep = []
        for line in src.splitlines():
            if line.startswith(("import minitorch_cs as", "from minitorch_cs.utils")):
                continue
            keep.append(line.replace("minitorch_cs.torch", "torch"))
        src = "\n".join(keep)
    mod = types.ModuleType("gpt_example_torch" if real_torch else "gpt_example")
    sys.modules[mod.__name__] = mod  # dataclasses look their module up
    exec(compile(src, EXAMPLE, "exec"), mod.__dict__)
    return mod


def _batch(B, T, V=256):
    rng = np.random.default_rng(0)
    x = rng.integers(48, 58, (B, T)).astype(np.int64)
    y = rng.integers(48, 58, (B, T)).astype(np.int64)
    y[:, : T - 4] = -1  # the example trains on the answer digits only
    return x, y


def _groups(model):
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    return [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}]


def ours_eager_factory(x, y, cfg):
    ex = _example_module()
    mtorch.manual_seed(0)
    model = ex.GPT(ex.GPTConfig(**cfg))
    opt = cstorch.optim.AdamW(_groups(model), lr=1e-3, betas=(0.9, 0.95), eps=1e-8)
    F = mtorch.nn.functional
    xt, yt = mtorch.from_numpy(x), mtorch.from_numpy(y)

    def step():
        logits = model(xt)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), yt.view(-1), ignore_index=-1)
        loss.backward()
        mtorch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
        return loss
    return step


def ours_replay_factory(x, y, cfg):
    ex = _example_module()
    backend = cstorch.current_backend()
    mtorch.manual_seed(0)
    with backend.device:
        model = ex.GPT(ex.GPTConfig(**cfg))
    compiled = cstorch.compile(model, backend)
    opt = cstorch.optim.AdamW(_groups(model), lr=1e-3, betas=(0.9, 0.95), eps=1e-8)
    F = mtorch.nn.functional
    batch = (mtorch.from_numpy(x), mtorch.from_numpy(y))
    loader = cstorch.utils.data.DataLoader(lambda: [batch])

    @cstorch.trace
    def training_step(xt, yt):
        logits = compiled(xt)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), yt.view(-1), ignore_index=-1)
        loss.backward()
        mtorch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
        return loss

    it = iter(cstorch.utils.data.DataExecutor(loader, num_steps=10 ** 9))
    xt, yt = next(it)
    training_step(xt, yt)  # the traced step
    next(it)  # later calls replay the captured graph

    def step():
        return training_step(xt, yt)
    step.executor = it
    return step


def torch_factory(x, y, cfg):
    import torch
    ex = _example_module(real_torch=True)
    torch.manual_seed(0)
    model = ex.GPT(ex.GPTConfig(**cfg))
    opt = torch.optim.AdamW(_groups(model), lr=1e-3, betas=(0.9, 0.95), eps=1e-8)
    F = torch.nn.functional
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def step():
        logits = model(xt)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), yt.view(-1), ignore_index=-1)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
        return loss
    return step


def profile_replay(step, steps=30, top=20):
    """Each plan step of the replayed ``step`` timed and summed per kind, most time first."""
    import collections
    import time
    from minitorch_cs.backend import current_backend_impl
    plan = next(iter(current_backend_impl()._tapes.values())).tape.plan
    total, count = collections.Counter(), collections.Counter()

    def kind(f):
        entry = getattr(f, "entry", None)
        op = getattr(getattr(entry, "op", None), "name", "")
        return getattr(f, "__qualname__", repr(f)).split(".<locals>")[0] + (f" {op}" if op else "")

    def timed(f, k):
        def run(env, ctxs):
            t = time.perf_counter()
            f(env, ctxs)
            total[k] += time.perf_counter() - t
            count[k] += 1
        return run
    plain = plan.steps
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    untimed = (time.perf_counter() - t0) / steps
    plan.steps = [timed(f, kind(f)) for f in plain]
    try:
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        with_timing = (time.perf_counter() - t0) / steps
    finally:
        plan.steps = plain
    print(f"  {len(plain)} plan steps; the replayed step {untimed * 1e3:.2f} ms "
          f"({with_timing * 1e3:.2f} ms with each plan step timed):")
    for k, v in total.most_common(top):
        print(f"    {v / steps * 1e3:7.3f} ms  {count[k] / steps:4.0f} x  {k}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--torch_threads", type=int, default=None,
                    help="torch.set_num_threads (default: PyTorch's own choice)")
    ap.add_argument("--profile", action="store_true",
                    help="then print where the replayed step's time goes")
    args = ap.parse_args(argv)
    cfg = dict(block_size=12, n_layer=2, n_head=4, n_embd=64, dropout=0.0)
    x, y = _batch(args.batch, cfg["block_size"])
    # one emulated-CSX backend serves both of ours: outside a traced step every op runs eagerly
    cstorch.backend("CSX", artifact_dir="/tmp/minitorch_cs_bench_gpt")
    replay = ours_replay_factory(x, y, cfg)
    fns = {"eager": ours_eager_factory(x, y, cfg), "replay": replay,
           "executor": lambda: next(replay.executor)}
    try:
        import torch
    except ImportError:
        torch = None
        print("PyTorch is not installed: ours only")
    if torch is not None:
        if args.torch_threads:
            torch.set_num_threads(args.torch_threads)
        fns["torch"] = torch_factory(x, y, cfg)
    res = interleaved_medians(fns, steps=args.steps, warmup=10,
                              baseline="torch" if torch is not None else None)
    blas = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    print(f"batch {args.batch}, OPENBLAS_NUM_THREADS={blas}"
          + (f", torch threads {torch.get_num_threads()}" if torch is not None else ""))
    print(f"{'eager ms':>9} {'replay ms':>9} {'executor ms':>11}"
          + (f" {'torch ms':>9} {'eager/torch':>12} {'replay/torch':>13}" if torch else ""))
    line = f"{res['eager']:>9.2f} {res['replay']:>9.2f} {res['executor']:>11.3f}"
    if torch is not None:
        line += (f" {res['torch']:>9.2f} {res['eager/torch']:>12.2f} "
                 f"{res['replay/torch']:>13.2f}")
    print(line)
    if args.profile:
        profile_replay(replay)


if __name__ == "__main__":
    main()
