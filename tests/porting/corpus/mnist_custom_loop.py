"""Train a fully connected network on MNIST with a custom cstorch training loop.

Written as the Cerebras documentation's "custom training loop" example: a torch model and
torchvision dataset, cstorch.compile, a traced training step, step and checkpoint closures,
TensorBoard summaries, an accuracy metric in an evaluation loop.
"""
import argparse
import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

import cerebras.pytorch as cstorch
import cerebras.pytorch.utils.tensorboard
from cerebras.pytorch.metrics import AccuracyMetric


class MNISTModel(nn.Module):
    def __init__(self, hidden_size=64):
        super().__init__()
        self.fc1 = nn.Linear(784, hidden_size)
        self.fc2 = nn.Linear(hidden_size, 10)

    def forward(self, inputs):
        x = torch.flatten(inputs, 1)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


def input_fn(data_dir, batch_size, train=True):
    dataset = torchvision.datasets.MNIST(
        data_dir,
        train=train,
        download=False,
        transform=torchvision.transforms.Compose([
            torchvision.transforms.ToTensor(),
            torchvision.transforms.Normalize((0.1307,), (0.3081,)),
            torchvision.transforms.Lambda(lambda x: torch.as_tensor(x, dtype=torch.float32)),
        ]),
        # the wafer takes int32 labels; torch's CPU losses need int64
        target_transform=torchvision.transforms.Lambda(
            lambda x: torch.as_tensor(x, dtype=torch.int32 if cstorch.use_cs() else torch.int64)),
    )
    return torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=train,
                                       drop_last=True, num_workers=2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", required=True)
    parser.add_argument("--model_dir", required=True)
    parser.add_argument("--backend", default="CPU")
    parser.add_argument("--num_steps", type=int, default=30)
    args = parser.parse_args()

    torch.manual_seed(2024)
    backend = cstorch.backend(args.backend, artifact_dir=os.path.join(args.model_dir, "logs"))
    with backend.device:
        model = MNISTModel()
    compiled_model = cstorch.compile(model, backend)

    optimizer = cstorch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    lr_scheduler = cstorch.optim.lr_scheduler.LinearLR(
        optimizer, initial_learning_rate=0.05, end_learning_rate=0.005,
        total_iters=args.num_steps)
    loss_fn = torch.nn.CrossEntropyLoss()
    writer = cstorch.utils.tensorboard.SummaryWriter(log_dir=os.path.join(args.model_dir, "tb"))

    @cstorch.trace
    def training_step(inputs, targets):
        outputs = compiled_model(inputs)
        loss = loss_fn(outputs, targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        lr_scheduler.step()
        return loss

    losses = []

    @cstorch.step_closure
    def post_training_step(loss, step):
        losses.append(loss.item())
        writer.add_scalar("loss", loss, step)
        if step % 10 == 0:
            print(f"| Step {step}: loss {loss.item():.4f}")

    @cstorch.checkpoint_closure
    def save_checkpoint(step):
        cstorch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                      "lr_scheduler": lr_scheduler.state_dict(), "step": step},
                     os.path.join(args.model_dir, f"checkpoint_{step}.mdl"))

    train_dataloader = cstorch.utils.data.DataLoader(input_fn, args.data_dir, 16, train=True)
    executor = cstorch.utils.data.DataExecutor(train_dataloader, num_steps=args.num_steps,
                                               checkpoint_steps=args.num_steps)
    for step, (inputs, targets) in enumerate(executor, start=1):
        loss = training_step(inputs, targets)
        post_training_step(loss, step)
        save_checkpoint(step)
    writer.close()

    accuracy = AccuracyMetric(name="accuracy")

    @cstorch.trace
    @torch.no_grad()
    def eval_step(inputs, targets):
        outputs = compiled_model(inputs)
        accuracy(labels=targets.clone(), predictions=outputs.argmax(-1).int())
        return loss_fn(outputs, targets)

    model.eval()
    eval_dataloader = cstorch.utils.data.DataLoader(input_fn, args.data_dir, 10, train=False)
    for inputs, targets in cstorch.utils.data.DataExecutor(eval_dataloader):
        eval_step(inputs, targets)
    print(json.dumps({"losses": losses, "accuracy": float(accuracy.compute())}))


if __name__ == "__main__":
    main()
