"""Probe run on both stacks: ``python _torchvision_probe.py ROOT real|ours [REPO]``.

Writes five seeded 28x28 digits in torchvision's layout under ROOT and prints what
``datasets.MNIST`` + ``transforms`` give and the errors they raise, one line per check.
"""
import os
import struct
import sys

import numpy as np


def write_idx(path, arr):
    with open(path, "wb") as f:
        f.write(bytes([0, 0, 8, arr.ndim]) + struct.pack(f">{arr.ndim}I", *arr.shape) + arr.tobytes())


def main(root, which):
    raw = os.path.join(root, "MNIST", "raw")
    os.makedirs(raw, exist_ok=True)
    rng = np.random.default_rng(0)
    imgs = rng.integers(0, 256, size=(5, 28, 28), dtype=np.uint8)
    labs = np.arange(5, dtype=np.uint8)
    for p in ("train", "t10k"):
        write_idx(os.path.join(raw, f"{p}-images-idx3-ubyte"), imgs)
        write_idx(os.path.join(raw, f"{p}-labels-idx1-ubyte"), labs)
    if which == "real":
        import torch
        from torchvision import datasets, transforms
    else:
        import minitorch_cs.torch as torch
        from minitorch_cs.torchvision import datasets, transforms
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    ds = datasets.MNIST(root, train=False, transform=tf)
    x, y = ds[2]
    print(tuple(x.shape), x.dtype, type(y).__name__, round(float(x.sum()), 3),
          [round(v, 5) for v in x[0, 3, :4].tolist()])
    print(repr(ds).replace(root, "ROOT"))
    print(ds.data.dtype, ds.targets.dtype, tuple(ds.data.shape), ds.classes[:2],
          ds.raw_folder.replace(root, "ROOT"), len(ds))
    checks = [lambda: transforms.Lambda(3),
              lambda: transforms.Normalize((0.5,), (0.0,))(torch.ones(1, 2, 2)),
              lambda: transforms.Normalize((0.5,), (1.0,))(torch.ones(2, 2)),
              lambda: transforms.Normalize((0.5,), (1.0,))(torch.ones(1, 2, 2, dtype=torch.int64)),
              lambda: transforms.ToTensor()(np.zeros((2, 2, 2, 2))),
              lambda: datasets.MNIST(os.path.join(root, "empty"))]
    for check in checks:
        try:
            check()
            print("no error")
        except Exception as e:  # noqa: BLE001
            print(type(e).__name__, str(e).split(" (offline:")[0])
    print(tuple(transforms.ToTensor()(np.ones((2, 3, 3), dtype=np.float32)).shape),
          transforms.ToTensor()(np.full((2, 2), 7, dtype=np.int32)).dtype)


if __name__ == "__main__":
    if len(sys.argv) > 3:
        sys.path.insert(0, sys.argv[3])
    main(sys.argv[1], sys.argv[2])
