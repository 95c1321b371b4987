"""Train a tiny GPT on a memory-mapped token file with cstorch (CPU or CSX).

AdamW with decay / no-decay param groups, linear warmup then cosine decay, gradient clipping,
step and checkpoint closures, resuming from the latest checkpoint, a multi-worker torch
DataLoader over np.memmap data, the executor's rate tracker and cluster memory limits.
"""
import argparse
import glob
import json
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import cerebras.pytorch as cstorch


class MemmapTokens(torch.utils.data.Dataset):
    """Fixed-length windows of a uint16 token file: (input ids, next-token labels)."""

    def __init__(self, path, seq_len):
        self.path = path
        self.seq_len = seq_len
        self.tokens = None
        self.num_tokens = os.path.getsize(path) // np.dtype(np.uint16).itemsize

    def __len__(self):
        return (self.num_tokens - 1) // self.seq_len

    def __getitem__(self, i):
        if self.tokens is None:  # opened lazily, once per worker process
            self.tokens = np.memmap(self.path, dtype=np.uint16, mode="r")
        chunk = np.asarray(self.tokens[i * self.seq_len:(i + 1) * self.seq_len + 1],
                           dtype=np.int64)
        x = torch.from_numpy(chunk[:-1].copy()).to(torch.int32)
        y = torch.from_numpy(chunk[1:].copy()).to(torch.int32)
        return x, y


def seed_worker(worker_id):
    info = torch.utils.data.get_worker_info()
    np.random.seed(info.seed % 2 ** 32)


def get_dataloader(path, seq_len, batch_size, num_workers):
    return torch.utils.data.DataLoader(
        MemmapTokens(path, seq_len),
        batch_size=batch_size,
        shuffle=False,
        drop_last=True,
        num_workers=num_workers,
        persistent_workers=num_workers > 0,
        prefetch_factor=4 if num_workers > 0 else None,
        worker_init_fn=seed_worker,
    )


def unigram_entropy(path, seq_len, vocab_size, num_workers):
    """Entropy (nats) of the label distribution: the loss a model without context reaches."""
    counts = torch.zeros(vocab_size, dtype=torch.int64)
    for _, labels in get_dataloader(path, seq_len, 32, num_workers):
        counts += torch.bincount(labels.reshape(-1).long(), minlength=vocab_size)
    p = counts.double() / counts.sum()
    p = p[p > 0]
    return float(-(p * p.log()).sum())


class Block(nn.Module):
    def __init__(self, d_model, n_heads, seq_len):
        super().__init__()
        self.n_heads = n_heads
        self.ln1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc = nn.Linear(d_model, 4 * d_model)
        self.out = nn.Linear(4 * d_model, d_model)
        self.register_buffer("mask", torch.tril(torch.ones(seq_len, seq_len)).bool(),
                             persistent=False)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=-1)
        q = q.view(b, t, self.n_heads, c // self.n_heads).transpose(1, 2)
        k = k.view(b, t, self.n_heads, c // self.n_heads).transpose(1, 2)
        v = v.view(b, t, self.n_heads, c // self.n_heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.n_heads)
        att = att.masked_fill(~self.mask[:t, :t], float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, vocab_size, seq_len, d_model, n_heads, n_layers):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(seq_len, d_model)
        self.blocks = nn.ModuleList([Block(d_model, n_heads, seq_len) for _ in range(n_layers)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, idx, labels):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), labels.view(-1).long())


def deterministic_init(model, seed):
    """Overwrite every parameter from numpy (same numbers on every stack)."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("bias"):
                p.zero_()
            elif "ln" in name:
                p.fill_(1.0)
            else:
                p.copy_(torch.from_numpy(rng.normal(0.0, 0.02, p.shape).astype(np.float32)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--backend", default="CPU")
    parser.add_argument("--num_steps", type=int, default=12)
    parser.add_argument("--checkpoint_steps", type=int, default=6)
    parser.add_argument("--warmup_steps", type=int, default=4)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--seq_len", type=int, default=16)
    parser.add_argument("--num_workers", type=int, default=2)
    parser.add_argument("--vocab_size", type=int, default=64)
    args = parser.parse_args()

    os.makedirs(args.model_dir, exist_ok=True)
    torch.manual_seed(0)
    entropy = unigram_entropy(args.data, args.seq_len, args.vocab_size, args.num_workers)
    print(f"unigram entropy {entropy:.5f} nats")
    backend = cstorch.backend(args.backend, artifact_dir=os.path.join(args.model_dir, "logs"))
    if backend.is_csx:
        # cluster memory limits (GiB), as large jobs set them
        cstorch.backends.csx.debug.execute_crd_memory_gi = 64
        cstorch.backends.csx.debug.compile_crd_memory_gi = 32
        cstorch.backends.csx.debug.wrk_memory_gi = 48

    with backend.device:
        model = GPT(args.vocab_size, args.seq_len, d_model=32, n_heads=4, n_layers=2)
    deterministic_init(model, seed=1234)
    compiled_model = cstorch.compile(model, backend)

    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim < 2 or "ln" in name or name.endswith("bias") else decay).append(p)
    optimizer = cstorch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
        lr=3e-3, betas=(0.9, 0.95), eps=1e-8)
    scheduler = cstorch.optim.lr_scheduler.SequentialLR(
        optimizer,
        schedulers=[
            cstorch.optim.lr_scheduler.LinearLR(optimizer, initial_learning_rate=0.0,
                                                end_learning_rate=3e-3,
                                                total_iters=args.warmup_steps),
            cstorch.optim.lr_scheduler.CosineDecayLR(optimizer, initial_learning_rate=3e-3,
                                                     end_learning_rate=3e-4,
                                                     total_iters=args.num_steps - args.warmup_steps),
        ],
        milestones=[args.warmup_steps])

    global_step = 0
    ckpts = sorted(glob.glob(os.path.join(args.model_dir, "checkpoint_*.mdl")),
                   key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
    if ckpts:
        state = cstorch.load(ckpts[-1])
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        global_step = state["global_step"]
        print(f"resumed from {os.path.basename(ckpts[-1])} at step {global_step}")

    @cstorch.trace
    def training_step(inputs, labels):
        loss = compiled_model(inputs, labels)
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        optimizer.zero_grad()
        scheduler.step()
        return loss, grad_norm

    history = []

    @cstorch.step_closure
    def log(loss, grad_norm, lr, step):
        rate = executor.profiler.rate_tracker
        history.append({"step": step, "loss": loss.item(), "grad_norm": grad_norm.item(),
                        "lr": float(lr), "samples": rate.total_samples})
        print(f"step {step} loss {loss.item():.5f} grad_norm {grad_norm.item():.4f} "
              f"lr {float(lr):.6f} samples {rate.total_samples:.0f}")

    @cstorch.checkpoint_closure
    def save_checkpoint(step):
        cstorch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                      "scheduler": scheduler.state_dict(), "global_step": step},
                     os.path.join(args.model_dir, f"checkpoint_{step}.mdl"))

    loader = cstorch.utils.data.DataLoader(get_dataloader, args.data, args.seq_len,
                                           args.batch_size, args.num_workers)
    steps = args.num_steps - global_step
    executor = cstorch.utils.data.DataExecutor(loader, num_steps=steps,
                                               checkpoint_steps=args.checkpoint_steps)
    for inputs, labels in executor:
        loss, grad_norm = training_step(inputs, labels)
        global_step += 1
        log(loss, grad_norm, optimizer.param_groups[0]["lr"], global_step)
        save_checkpoint(global_step)

    print(json.dumps({"history": history, "unigram_entropy": entropy,
                      "memory_gi": cstorch.backends.csx.debug.execute_crd_memory_gi,
                      "rate_tracker": {"total_samples": executor.profiler.rate_tracker.total_samples}}))


if __name__ == "__main__":
    main()
