"""Train an MLP on MNIST with a hand-written cstorch training loop.

The loop of the cstorch 2.10 docs page "Writing a Custom Training Loop".

Written exactly as a cstorch user writes it; only the imports differ from a script for the real
stack (``cerebras.pytorch`` -> ``minitorch_cs``, ``torch`` -> ``minitorch_cs.torch``). Without
``--data_dir`` it trains on the 5,000 real MNIST digits bundled with minitorch_cs
(4,000 to train, 1,000 held out).

    python examples/mnist_custom_loop.py                     # CPU backend, 10 epochs
    python examples/mnist_custom_loop.py --backend CSX       # the emulated wafer: trace once, replay
    python examples/mnist_custom_loop.py --num_steps 200 --checkpoint_steps 100
    python examples/mnist_custom_loop.py --checkpoint model_dir/mnist_custom_loop/checkpoint_100.mdl

Checkpoints go to ``model_dir/mnist_custom_loop`` (``--model_dir``), a directory of this example
only (the Trainer example writes to ``model_dir/fc_mnist``). Arguments are checked before
anything is created.
"""
from __future__ import annotations

import argparse
import os

import numpy as np
from tqdm import tqdm

import minitorch_cs as cstorch
import minitorch_cs.torch as torch
import minitorch_cs.torch.nn as nn
from minitorch_cs.datasets import MNIST_MEAN, MNIST_STD, load_mnist


class MNISTModel(nn.Module):
    """A fully connected classifier over flattened 28x28 images."""

    def __init__(self, hidden_size=256, depth=2):
        super().__init__()
        layers, width = [], 784
        for _ in range(depth):
            layers += [nn.Linear(width, hidden_size), nn.ReLU()]
            width = hidden_size
        layers.append(nn.Linear(width, 10))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x.flatten(1))


class MNISTBatches:
    """A restartable loader: shuffled batches of MNIST, one permutation per epoch from ``seed``.

    Its position (batches produced so far) is part of every checkpoint, so a resumed run sees
    exactly the batches the uninterrupted run would have seen.
    """

    def __init__(self, split, batch_size, data_dir=None, shuffle=True, seed=0):
        images, labels = load_mnist(data_dir, split)
        x = (images.astype(np.float32) / 255.0 - MNIST_MEAN) / MNIST_STD
        self.x = x.astype(np.float32)
        self.y = labels.astype(np.int64)
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.seed = seed
        self.position = 0

    def __len__(self):
        return len(self.y) // self.batch_size  # drop_last: every batch has the same shape

    def __iter__(self):
        n = len(self)
        epoch, start = divmod(self.position, n)
        order = (np.random.default_rng(self.seed + epoch).permutation(len(self.y))
                 if self.shuffle else np.arange(len(self.y)))
        for b in range(start, n):
            idx = order[b * self.batch_size:(b + 1) * self.batch_size]
            self.position += 1
            yield torch.from_numpy(self.x[idx]), torch.from_numpy(self.y[idx])

    # the RestartableDataLoader protocol
    def state_dict(self):
        return {"position": self.position}

    def load_state_dict(self, state_dict, strict=True):
        self.position = int(state_dict["position"])

    def aggregate_state_dict(self, worker_states):
        return worker_states[0]

    def deaggregate_state_dict(self, aggregated_state_dict, strict=True):
        return aggregated_state_dict


def input_fn(split, batch_size, data_dir, shuffle, seed):
    return MNISTBatches(split, batch_size, data_dir, shuffle, seed)


def _int_at_least(low):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            what = "a positive integer" if low == 1 else f"an integer >= {low}"
            raise argparse.ArgumentTypeError(f"must be {what}, got {value}")
        return value
    return parse


def _positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def build_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", default="CPU", choices=["CPU", "CSX", "cpu", "csx"])
    p.add_argument("--data_dir", default=None, help="directory with the MNIST IDX files "
                   "(default: the bundled offline digits)")
    p.add_argument("--model_dir", default=os.path.join("model_dir", "mnist_custom_loop"),
                   help="where checkpoints are written (default: %(default)s)")
    p.add_argument("--batch_size", type=_int_at_least(1), default=64)
    p.add_argument("--epochs", type=_int_at_least(1), default=10)
    p.add_argument("--num_steps", type=_int_at_least(1), default=None,
                   help="total steps (overrides --epochs)")
    p.add_argument("--lr", type=_positive_float, default=0.05)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--hidden_size", type=_int_at_least(1), default=256)
    p.add_argument("--checkpoint_steps", type=_int_at_least(0), default=0,
                   help="0: only at the end")
    p.add_argument("--checkpoint", default=None, help="resume from this checkpoint")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def parse_args(argv=None):
    p = build_parser()
    args = p.parse_args(argv)
    if args.checkpoint is not None and not os.path.isfile(args.checkpoint):
        p.error(f"argument --checkpoint: no such file: {args.checkpoint!r}")
    if args.data_dir is not None and not os.path.isdir(args.data_dir):
        p.error(f"argument --data_dir: no such directory: {args.data_dir!r}")
    if os.path.exists(args.model_dir) and not os.path.isdir(args.model_dir):
        p.error(f"argument --model_dir: {args.model_dir!r} exists and is not a directory")
    return args


def main(argv=None):
    args = parse_args(argv)
    train_loader = cstorch.utils.data.DataLoader(input_fn, "train", args.batch_size,
                                                 args.data_dir, True, args.seed)
    if len(train_loader) == 0:  # checked before anything is written
        build_parser().error(f"argument --batch_size: {args.batch_size} is larger than the "
                             f"training set (no full batch); choose a smaller one")
    os.makedirs(args.model_dir, exist_ok=True)

    backend = cstorch.backend(args.backend.upper(), artifact_dir=os.path.join(args.model_dir,
                                                                              "artifacts"))
    torch.manual_seed(args.seed)
    with backend.device:
        model = MNISTModel(args.hidden_size)
    compiled_model = cstorch.compile(model, backend)
    optimizer = cstorch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    loss_fn = nn.CrossEntropyLoss()

    total_steps = args.num_steps if args.num_steps is not None else \
        args.epochs * len(train_loader)

    global_step = 0
    if args.checkpoint:
        state = cstorch.load(args.checkpoint)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        train_loader.load_state_dict(state["dataloader"])
        global_step = int(state["global_step"])

    @cstorch.trace
    def training_step(inputs, targets):
        outputs = compiled_model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        return loss

    bar = tqdm(total=total_steps, initial=global_step, desc="train", unit="step",
               disable=args.quiet, dynamic_ncols=True, mininterval=0.5)
    losses = []

    @cstorch.step_closure
    def print_loss(loss, step):
        losses.append(loss.item())
        bar.set_postfix(loss=f"{loss.item():.4f}", refresh=False)
        bar.update(1)

    @cstorch.checkpoint_closure
    def save_checkpoint(step):
        path = os.path.join(args.model_dir, f"checkpoint_{step}.mdl")
        if os.path.exists(path):
            os.remove(path)  # cstorch.save refuses to overwrite
        cstorch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                      "dataloader": train_loader.state_dict(), "global_step": step}, path)

    if global_step < total_steps:
        num_steps = cstorch.utils.data.compute_num_steps(train_loader, initial_step=global_step,
                                                          max_steps=total_steps)
        executor = cstorch.utils.data.DataExecutor(train_loader, num_steps=num_steps,
                                                   checkpoint_steps=args.checkpoint_steps or
                                                   num_steps)
        for step, (inputs, targets) in enumerate(executor, start=global_step + 1):
            loss = training_step(inputs, targets)
            print_loss(loss, step)
            save_checkpoint(step)
    bar.close()

    # held-out accuracy
    val_loader = cstorch.utils.data.DataLoader(input_fn, "test", 100, args.data_dir, False, 0)
    accuracy = cstorch.metrics.AccuracyMetric("accuracy")
    compiled_model.eval()

    @cstorch.trace
    @torch.no_grad()
    def eval_step(inputs, targets):
        predictions = compiled_model(inputs).argmax(-1)
        accuracy(labels=targets, predictions=predictions)

    for inputs, targets in cstorch.utils.data.DataExecutor(val_loader):
        eval_step(inputs, targets)

    acc = float(accuracy)
    final = f"{losses[-1]:.4f}" if losses else "n/a"
    print(f"steps={total_steps} final_loss={final} held_out_accuracy={acc:.4f}")
    return acc


if __name__ == "__main__":
    main()
