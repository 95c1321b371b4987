"""Train a small GPT on multi-digit addition with a hand-written cstorch training loop.

Written exactly as a cstorch user writes it; only the imports differ from a script for the real
stack (``cerebras.pytorch`` -> ``minitorch_cs``, ``torch`` -> ``minitorch_cs.torch``). The task is
generated offline: every example is a line of text such as ``"012+345=7530\\n"`` -- two zero-padded
operands and their sum written with its digits reversed (least significant first, the order in
which a left-to-right model can compute it) -- over a byte-level vocabulary (token = byte value).
The examples are written once to a ``uint16`` token file, read back through ``np.memmap`` by a
``Dataset``; batches come from a ``RandomSampler(generator=)`` + ``BatchSampler``. The model is
trained on the answer digits only and scored by greedy decoding on held-out problems (exact
match of all answer digits).

    python examples/gpt.py                          # CPU backend
    python examples/gpt.py --backend CSX            # the emulated wafer: trace once, replay
    python examples/gpt.py --num_steps 200 --checkpoint_steps 100
    python examples/gpt.py --checkpoint model_dir/checkpoint_100.mdl   # resume
"""
from __future__ import annotations

import argparse
import math
import os
from dataclasses import dataclass

import numpy as np

import minitorch_cs as cstorch
import minitorch_cs.torch as torch
import minitorch_cs.torch.nn as nn
import minitorch_cs.torch.nn.functional as F
from minitorch_cs.utils.tensorboard import SummaryWriter


# ----- the model ----------------------------------------------------------------------------------
@dataclass
class GPTConfig:
    block_size: int = 12
    vocab_size: int = 256  # bytes
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 64
    dropout: float = 0.0
    bias: bool = True


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.dropout = config.dropout

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training
                                           else 0.0, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    """Pre-LayerNorm transformer block."""

    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            drop=nn.Dropout(config.dropout),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=nn.LayerNorm(config.n_embd, bias=config.bias),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying
        self.apply(self._init_weights)
        for name, p in self.named_parameters():  # scaled init of the residual projections
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        return self.lm_head(self.transformer.ln_f(x))


# ----- the data -----------------------------------------------------------------------------------
def example_text(a, b, digits):
    """``"012+345=7530\\n"``: zero-padded operands, the sum's digits reversed."""
    return f"{a:0{digits}d}+{b:0{digits}d}={str(a + b).zfill(digits + 1)[::-1]}\n"


def write_token_files(data_dir, digits, num_train, num_val, seed):
    """Write ``train.bin`` / ``val.bin`` (uint16 byte tokens, one example per line) once.

    The held-out problems are drawn first and excluded from the training problems."""
    os.makedirs(data_dir, exist_ok=True)
    paths = {s: os.path.join(data_dir, f"{s}_{digits}d_{seed}.bin") for s in ("train", "val")}
    if all(os.path.exists(p) for p in paths.values()):
        return paths
    rng = np.random.default_rng(seed)
    n = 10 ** digits
    total = n * n
    val_ids = rng.choice(total, size=num_val, replace=False)
    train_ids = rng.integers(0, total, size=num_train + num_val)
    train_ids = train_ids[~np.isin(train_ids, val_ids)][:num_train]
    for split, ids in (("train", train_ids), ("val", val_ids)):
        text = "".join(example_text(int(i) // n, int(i) % n, digits) for i in ids)
        tokens = np.frombuffer(text.encode("ascii"), dtype=np.uint8).astype(np.uint16)
        tmp = paths[split] + ".tmp"
        tokens.tofile(tmp)
        os.replace(tmp, paths[split])
    return paths


class AdditionDataset(torch.utils.data.Dataset):
    """Examples of a uint16 token file, read through ``np.memmap``: item ``i`` is ``(x, y)`` with
    ``x`` the example's tokens but the last and ``y`` the next tokens, every target that is not an
    answer digit set to -1 (ignored by the loss)."""

    def __init__(self, path, digits):
        self.tokens = np.memmap(path, dtype=np.uint16, mode="r")
        self.example_len = 2 * digits + 2 + digits + 1 + 1  # "a+b=" + answer + "\n"
        self.answer_start = 2 * digits + 2
        self.answer_len = digits + 1

    def __len__(self):
        return len(self.tokens) // self.example_len

    def __getitem__(self, i):
        ex = np.asarray(self.tokens[i * self.example_len:(i + 1) * self.example_len],
                        dtype=np.int64)
        x, y = ex[:-1].copy(), ex[1:].copy()
        keep = np.zeros(len(y), bool)
        keep[self.answer_start - 1:self.answer_start - 1 + self.answer_len] = True
        y[~keep] = -1
        return x, y


class TokenBatches:
    """Shuffled batches of a Dataset: per epoch a ``RandomSampler`` with a generator seeded
    ``seed + epoch``, cut by a ``BatchSampler``. Its position is part of every checkpoint, so a
    resumed run sees exactly the batches of an uninterrupted one."""

    def __init__(self, dataset, batch_size, shuffle=True, seed=0):
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.seed = seed
        self.position = 0

    def __len__(self):
        return len(self.dataset) // self.batch_size

    def __iter__(self):
        epoch, start = divmod(self.position, len(self))
        if self.shuffle:
            g = torch.Generator().manual_seed(self.seed + epoch)
            sampler = torch.utils.data.RandomSampler(self.dataset, generator=g)
        else:
            sampler = torch.utils.data.SequentialSampler(self.dataset)
        batches = torch.utils.data.BatchSampler(sampler, self.batch_size, drop_last=True)
        for b, indices in enumerate(batches):
            if b < start:
                continue
            xs, ys = zip(*(self.dataset[i] for i in indices))
            self.position += 1
            yield torch.from_numpy(np.stack(xs)), torch.from_numpy(np.stack(ys))

    # the RestartableDataLoader protocol
    def state_dict(self):
        return {"position": self.position}

    def load_state_dict(self, state_dict, strict=True):
        self.position = int(state_dict["position"])

    def aggregate_state_dict(self, worker_states):
        return worker_states[0]

    def deaggregate_state_dict(self, aggregated_state_dict, strict=True):
        return aggregated_state_dict


def input_fn(path, digits, batch_size, shuffle, seed):
    return TokenBatches(AdditionDataset(path, digits), batch_size, shuffle, seed)


# ----- training -----------------------------------------------------------------------------------
def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", default="CPU", choices=["CPU", "CSX", "cpu", "csx"])
    p.add_argument("--model_dir", default="gpt_model_dir")
    p.add_argument("--data_dir", default=None, help="where the token files go "
                   "(default: <model_dir>/data)")
    p.add_argument("--digits", type=int, default=3)
    p.add_argument("--num_train", type=int, default=200_000)
    p.add_argument("--num_val", type=int, default=1_000)
    p.add_argument("--n_layer", type=int, default=2)
    p.add_argument("--n_head", type=int, default=4)
    p.add_argument("--n_embd", type=int, default=64)
    p.add_argument("--dropout", type=float, default=0.0)
    p.add_argument("--batch_size", type=int, default=64)
    p.add_argument("--num_steps", type=int, default=3000)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--min_lr", type=float, default=3e-4)
    p.add_argument("--warmup_steps", type=int, default=100)
    p.add_argument("--weight_decay", type=float, default=0.1)
    p.add_argument("--grad_clip", type=float, default=1.0)
    p.add_argument("--checkpoint_steps", type=int, default=0, help="0: only at the end")
    p.add_argument("--checkpoint", default=None, help="resume from this checkpoint")
    p.add_argument("--log_steps", type=int, default=100)
    p.add_argument("--seed", type=int, default=1337)
    p.add_argument("--quiet", action="store_true")
    return p.parse_args(argv)


def configure_optimizer(model, lr, weight_decay):
    """AdamW with weight decay on the matrices (linear and embedding weights) only."""
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": weight_decay},
              {"params": no_decay, "weight_decay": 0.0}]
    return cstorch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95), eps=1e-8)


def main(argv=None):
    args = parse_args(argv)
    os.makedirs(args.model_dir, exist_ok=True)
    data_dir = args.data_dir or os.path.join(args.model_dir, "data")
    paths = write_token_files(data_dir, args.digits, args.num_train, args.num_val, seed=0)

    backend = cstorch.backend(args.backend.upper(),
                              artifact_dir=os.path.join(args.model_dir, "artifacts"))
    torch.manual_seed(args.seed)
    config = GPTConfig(block_size=3 * args.digits + 3, n_layer=args.n_layer, n_head=args.n_head,
                       n_embd=args.n_embd, dropout=args.dropout)
    with backend.device:
        model = GPT(config)
    compiled_model = cstorch.compile(model, backend)
    optimizer = configure_optimizer(model, args.lr, args.weight_decay)
    warmup = min(args.warmup_steps, args.num_steps - 1)
    lr_scheduler = cstorch.optim.lr_scheduler.SequentialLR(
        optimizer,
        schedulers=[
            cstorch.optim.lr_scheduler.LinearLR(optimizer, initial_learning_rate=0.0,
                                                end_learning_rate=args.lr, total_iters=warmup),
            cstorch.optim.lr_scheduler.CosineDecayLR(optimizer, initial_learning_rate=args.lr,
                                                     end_learning_rate=args.min_lr,
                                                     total_iters=args.num_steps - warmup),
        ],
        milestones=[warmup])

    train_loader = cstorch.utils.data.DataLoader(input_fn, paths["train"], args.digits,
                                                 args.batch_size, True, args.seed)
    global_step = 0
    if args.checkpoint:
        state = cstorch.load(args.checkpoint)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        lr_scheduler.load_state_dict(state["lr_scheduler"])
        train_loader.load_state_dict(state["dataloader"])
        global_step = int(state["global_step"])

    @cstorch.trace
    def training_step(x, y):
        logits = compiled_model(x)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1), ignore_index=-1)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
        optimizer.step()
        lr_scheduler.step()
        optimizer.zero_grad()
        return loss

    writer = SummaryWriter(log_dir=os.path.join(args.model_dir, "tensorboard"))
    losses = []

    @cstorch.step_closure
    def log_loss(loss, step):
        rate = executor.profiler.rate_tracker.rate
        global_rate = executor.profiler.rate_tracker.global_rate
        losses.append(loss.item())
        writer.add_scalar("loss", loss.item(), step)
        writer.add_scalar("samples_per_sec", global_rate, step)
        if not args.quiet and (step % args.log_steps == 0 or step == args.num_steps):
            print(f"step {step:5d}  loss {loss.item():.4f}  rate {rate:8.1f} samples/s  "
                  f"global rate {global_rate:8.1f} samples/s", flush=True)

    @cstorch.checkpoint_closure
    def save_checkpoint(step):
        path = os.path.join(args.model_dir, f"checkpoint_{step}.mdl")
        if os.path.exists(path):
            os.remove(path)  # cstorch.save refuses to overwrite
        cstorch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                      "lr_scheduler": lr_scheduler.state_dict(),
                      "dataloader": train_loader.state_dict(), "global_step": step}, path)

    if global_step < args.num_steps:
        num_steps = args.num_steps - global_step
        executor = cstorch.utils.data.DataExecutor(
            train_loader, num_steps=num_steps,
            checkpoint_steps=args.checkpoint_steps or num_steps)
        for step, (x, y) in enumerate(executor, start=global_step + 1):
            loss = training_step(x, y)
            log_loss(loss, step)
            save_checkpoint(step)
    writer.close()

    # held-out exact match: greedy decoding of the answer digits, one position at a time
    digits = args.digits
    answer_start = 2 * digits + 2
    val_loader = cstorch.utils.data.DataLoader(input_fn, paths["val"], digits, 100, False, 0)
    compiled_model.eval()
    counts = {"correct": 0, "total": 0}

    @cstorch.step_closure
    def count(correct):
        counts["correct"] += int(correct.sum().item())
        counts["total"] += correct.numel()

    @cstorch.trace
    @torch.no_grad()
    def eval_step(x, y):
        answer = x[:, answer_start:answer_start + digits + 1]
        preds = []
        for i in range(digits + 1):  # unrolled when traced: fixed shapes, no value reads
            logits = compiled_model(x)
            pred = logits[:, answer_start - 1 + i].argmax(-1)
            preds.append(pred)
            pos = answer_start + i
            x = torch.cat([x[:, :pos], pred[:, None], x[:, pos + 1:]], dim=1)
        correct = (torch.stack(preds, dim=1) == answer).all(dim=1)
        count(correct)

    for x, y in cstorch.utils.data.DataExecutor(val_loader):
        eval_step(x, y)

    acc = counts["correct"] / max(counts["total"], 1)
    final = repr(losses[-1]) if losses else "n/a"
    print(f"steps={args.num_steps} final_loss={final} held_out_accuracy={acc:.4f}")
    return acc


if __name__ == "__main__":
    main()
