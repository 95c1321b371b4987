"""The Cerebras documentation's custom MNIST training loop, written with the REAL stack's imports
(torch, torchvision, cerebras.pytorch), ported by the import rewrite alone and run on small IDX
files in torchvision's layout, on the CPU backend and on the emulated wafer."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minitorch_cs
from minitorch_cs.tools.port import port_source

from . import _events, _mnist_files

REPO = str(Path(minitorch_cs.__file__).parents[1])

SCRIPT = '''\
"""Train a small MLP on MNIST with a custom cstorch loop (shape of the Cerebras docs' example)."""
import argparse
import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import datasets, transforms

import cerebras.pytorch as cstorch
import cerebras.pytorch.utils.tensorboard
from cerebras.pytorch.metrics import AccuracyMetric


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


def get_torch_dataloader(data_dir, batch_size, train):
    dataset = datasets.MNIST(
        data_dir,
        train=train,
        download=False,
        transform=transforms.Compose([
            transforms.ToTensor(),
            transforms.Normalize((0.1307,), (0.3081,)),
            transforms.Lambda(lambda x: torch.as_tensor(x, dtype=torch.float32)),
        ]),
        # int32 labels on the wafer; torch's CPU losses need int64 (the real CPU backend's too)
        target_transform=transforms.Lambda(lambda x: torch.as_tensor(
            x, dtype=torch.int32 if cstorch.use_cs() else torch.int64)),
    )
    return torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=train,
                                       drop_last=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", required=True)
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--backend", default="CPU")
    parser.add_argument("--num_steps", type=int, default=40)
    args = parser.parse_args()

    torch.manual_seed(2024)
    backend = cstorch.backend(args.backend, artifact_dir=os.path.join(args.model_dir, "logs"))
    with backend.device:
        model = Model()
    compiled_model = cstorch.compile(model, backend)
    optimizer = cstorch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = cstorch.optim.lr_scheduler.LinearLR(
        optimizer, initial_learning_rate=0.05, end_learning_rate=0.01, total_iters=args.num_steps)
    loss_fn = torch.nn.CrossEntropyLoss()
    writer = cstorch.utils.tensorboard.SummaryWriter(
        log_dir=os.path.join(args.model_dir, "tb"), base_step=0)

    @cstorch.trace
    def training_step(inputs, targets):
        outputs = compiled_model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        scheduler.step()
        return loss

    losses = []

    @cstorch.step_closure
    def log_loss(loss, step):
        assert not torch.isnan(loss).any() and not torch.isinf(loss).any()
        losses.append(float(loss))
        if step % 10 == 0:
            print(f"Train loss at step {step}: {loss:.4f}")
        writer.add_scalar("loss", loss, writer.base_step + step)

    @cstorch.checkpoint_closure
    def save_checkpoint(step):
        cstorch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                      "global_step": step},
                     os.path.join(args.model_dir, f"checkpoint_{step}.mdl"))

    train_loader = cstorch.utils.data.DataLoader(get_torch_dataloader, args.data_dir, 16, True)
    executor = cstorch.utils.data.DataExecutor(train_loader, num_steps=args.num_steps,
                                               checkpoint_steps=args.num_steps)
    global_step = 0
    for inputs, targets in executor:
        loss = training_step(inputs, targets)
        global_step += 1
        log_loss(loss, global_step)
        save_checkpoint(global_step)

    accuracy = AccuracyMetric(name="accuracy")
    per_sample = []

    @cstorch.trace
    @torch.no_grad()
    def eval_step(inputs, targets):
        outputs = compiled_model(inputs)
        accuracy(labels=targets.clone(), predictions=outputs.argmax(-1).int())
        return F.cross_entropy(outputs, targets, reduction="none")

    @cstorch.step_closure
    def keep(losses_per_sample):
        per_sample.extend(losses_per_sample.tolist())

    model.eval()
    val_loader = cstorch.utils.data.DataLoader(get_torch_dataloader, args.data_dir, 10, False)
    for inputs, targets in cstorch.utils.data.DataExecutor(val_loader):
        keep(eval_step(inputs, targets))
    writer.close()
    print(json.dumps({"losses": losses, "accuracy": float(accuracy.compute()),
                      "eval_samples": len(per_sample), "cuda": torch.cuda.is_available(),
                      "device": str(torch.device("cuda" if torch.cuda.is_available()
                                                 else "cpu"))}))


if __name__ == "__main__":
    main()
'''


@pytest.fixture(scope="module")
def mnist_root(tmp_path_factory):
    return _mnist_files.make_root(tmp_path_factory.mktemp("mnist"))


def test_the_script_is_written_for_the_real_stack():
    imports = [l for l in SCRIPT.splitlines() if l.startswith(("import ", "from "))]
    assert "import torch" in imports and "import cerebras.pytorch as cstorch" in imports
    assert "from torchvision import datasets, transforms" in imports
    assert not any("minitorch_cs" in l for l in SCRIPT.splitlines())


def test_only_imports_change():
    ported = port_source(SCRIPT)
    before, after = SCRIPT.splitlines(), ported.splitlines()
    assert len(before) == len(after)
    changed = [(b, a) for b, a in zip(before, after) if b != a]
    assert all(b.startswith(("import ", "from ")) for b, _ in changed)
    assert len(changed) == 7  # torch, nn, F, torchvision, cstorch, tensorboard, metrics


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["CPU", "CSX"])
def test_ported_script_trains(backend, mnist_root, tmp_path):
    script = tmp_path / "train.py"
    script.write_text(port_source(SCRIPT))
    model_dir = tmp_path / "model_dir"
    env = {**os.environ, "PYTHONPATH": REPO}
    run = subprocess.run([sys.executable, str(script), "--data_dir", str(mnist_root),
                          "--model_dir", str(model_dir), "--backend", backend],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.strip().splitlines()
    assert [l.split(":")[0] for l in lines[:-1]] == [f"Train loss at step {s}"
                                                     for s in (10, 20, 30, 40)]
    result = json.loads(lines[-1])
    losses = result["losses"]
    assert len(losses) == 40 and np.mean(losses[-5:]) < 0.5 * np.mean(losses[:5])
    assert lines[0] == f"Train loss at step 10: {losses[9]:.4f}"
    assert result["accuracy"] > 0.9 and result["eval_samples"] == 50
    assert result["cuda"] is False and result["device"] == "cpu"
    # the checkpoint closure fired at the last step, and the file loads back
    ckpt = minitorch_cs.load(str(model_dir / "checkpoint_40.mdl"))
    assert ckpt["global_step"] == 40 and tuple(ckpt["model"]["fc1.weight"].shape) == (32, 784)
    assert sorted(p.name for p in model_dir.glob("checkpoint_*.mdl")) == ["checkpoint_40.mdl"]
    # TensorBoard got one scalar per step
    (events_file,) = _events.event_files(model_dir / "tb")
    steps, values = zip(*_events.scalars(events_file)["loss"])
    assert list(steps) == list(range(1, 41))
    np.testing.assert_allclose(values, losses, rtol=1e-6)
