"""Small, learnable MNIST stand-ins written as IDX files in torchvision's layout."""
from __future__ import annotations

import struct
from pathlib import Path

import numpy as np


def write_idx(path, arr):
    with open(path, "wb") as f:
        f.write(bytes([0, 0, 8, arr.ndim]) + struct.pack(f">{arr.ndim}I", *arr.shape)
                + arr.astype(np.uint8).tobytes())


def digits(n, rng):
    """Class k lights a 6x5 block at its own place over noise: easy to learn, not trivial."""
    labels = rng.integers(0, 10, size=n)
    images = rng.integers(0, 60, size=(n, 28, 28))
    for i, k in enumerate(labels):
        r, c = 2 + (k // 5) * 12, 1 + (k % 5) * 5
        images[i, r:r + 6, c:c + 5] = 255
    return images.astype(np.uint8), labels.astype(np.uint8)


def make_root(root, n_train=320, n_test=50, seed=0):
    """``root/MNIST/raw`` with ``n_train`` train and ``n_test`` t10k digits; returns ``root``."""
    raw = Path(root) / "MNIST" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        images, labels = digits(n, rng)
        write_idx(raw / f"{prefix}-images-idx3-ubyte", images)
        write_idx(raw / f"{prefix}-labels-idx1-ubyte", labels)
    return Path(root)
