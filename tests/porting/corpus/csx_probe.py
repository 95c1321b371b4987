"""Probe a Cerebras environment: report the stack and train a small MLP on the CSX backend.

Run before larger jobs to check that compile and execution work end to end; prints one JSON
line with what it found.
"""
import argparse
import json
import time

import numpy as np
import torch

import cerebras.pytorch as cstorch
from cerebras.appliance import __version__ as appliance_version
from cerebras.appliance import logger


def synthetic_data(num_samples, in_features, num_classes, batch_size):
    rng = np.random.default_rng(0)
    centers = rng.normal(0.0, 3.0, (num_classes, in_features)).astype(np.float32)
    labels = rng.integers(0, num_classes, num_samples)
    features = centers[labels] + rng.normal(0.0, 1.0, (num_samples, in_features)).astype(np.float32)
    dataset = torch.utils.data.TensorDataset(torch.from_numpy(features),
                                             torch.from_numpy(labels).to(torch.int32))
    return torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=True,
                                       drop_last=True,
                                       generator=torch.Generator().manual_seed(0))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--artifact_dir", default="./csx_probe")
    parser.add_argument("--num_steps", type=int, default=40)
    parser.add_argument("--num_csx", type=int, default=1)
    args = parser.parse_args()
    logger.setLevel("WARNING")

    torch.manual_seed(0)
    cluster_config = cstorch.distributed.ClusterConfig(num_csx=args.num_csx)
    backend = cstorch.backend("CSX", artifact_dir=args.artifact_dir,
                              cluster_config=cluster_config)
    cstorch.backends.csx.performance.micro_batch_size = None
    cstorch.backends.csx.debug.compile_crd_memory_gi = 16

    with backend.device:
        model = torch.nn.Sequential(
            torch.nn.Linear(20, 64), torch.nn.ReLU(),
            torch.nn.Linear(64, 64), torch.nn.ReLU(),
            torch.nn.Linear(64, 5))
    compiled_model = cstorch.compile(model, backend)
    optimizer = cstorch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = torch.nn.CrossEntropyLoss()

    @cstorch.trace
    def training_step(features, labels):
        logits = compiled_model(features)
        loss = loss_fn(logits, labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        accuracy = (logits.argmax(-1) == labels).float().mean()
        return loss, accuracy

    results = []

    @cstorch.step_closure
    def record(loss, accuracy):
        results.append((loss.item(), accuracy.item()))

    start = time.time()
    loader = cstorch.utils.data.DataLoader(synthetic_data, 2048, 20, 5, 32)
    executor = cstorch.utils.data.DataExecutor(loader, num_steps=args.num_steps)
    for features, labels in executor:
        loss, accuracy = training_step(features, labels)
        record(loss, accuracy)

    print(json.dumps({
        "cstorch": cstorch.__version__, "appliance": appliance_version,
        "backend": str(backend.backend_type), "num_csx": backend.cluster_config.num_csx,
        "is_csx": backend.is_csx, "steps": len(results),
        "first_loss": results[0][0], "last_loss": results[-1][0],
        "last_accuracy": results[-1][1],
        "samples": executor.profiler.rate_tracker.total_samples,
        "seconds": round(time.time() - start, 3),
    }))


if __name__ == "__main__":
    main()
