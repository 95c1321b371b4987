"""Check a Cerebras PyTorch installation: compile (compile-only, no execution) a small model.

The inputs are float16 and the class labels int32, as the wafer receives them; the model's
weights stay float32. Exits 0 and prints "Installation check passed" when compilation succeeds.
"""
import argparse
import sys

import torch

import cerebras.pytorch as cstorch
from cerebras.appliance import logger
from cerebras.appliance.errors import ApplianceVersionError


class SampleModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(100, 10)
        self.loss = torch.nn.CrossEntropyLoss()

    def forward(self, inputs, labels):
        return self.loss(self.linear(inputs), labels)


def input_fn(batch_size):
    inputs = torch.randn(batch_size, 100, dtype=torch.float16)
    labels = torch.randint(0, 10, (batch_size,), dtype=torch.int32)
    return [(inputs, labels)] * 4


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--artifact_dir", default="./install_check")
    args = parser.parse_args()

    backend = cstorch.backend("CSX", compile_only=True, artifact_dir=args.artifact_dir)
    with backend.device:
        model = SampleModel()
    compiled_model = cstorch.compile(model, backend)
    optimizer = cstorch.optim.SGD(model.parameters(), lr=0.01)

    @cstorch.trace
    def training_step(inputs, labels):
        loss = compiled_model(inputs, labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        return loss

    try:
        executor = cstorch.utils.data.DataExecutor(cstorch.utils.data.DataLoader(input_fn, 8),
                                                   num_steps=1)
        for inputs, labels in executor:
            training_step(inputs, labels)
    except ApplianceVersionError as e:
        logger.error(f"The client and the cluster software versions differ: {e}")
        return 1
    print("Installation check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
