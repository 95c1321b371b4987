"""Datasets for minitorch_cs (pure numpy + stdlib)."""

from .mnist import (
    MNIST_FILES,
    MNIST_MD5,
    MNIST_MEAN,
    MNIST_MIRRORS,
    MNIST_STD,
    bundled_split,
    download_mnist,
    export_torchvision_layout,
    load_bundled_digits,
    load_mnist,
    load_mnist_idx,
    read_idx,
    write_bundled_digits,
    write_idx,
)

__all__ = [
    "MNIST_FILES",
    "MNIST_MD5",
    "MNIST_MEAN",
    "MNIST_MIRRORS",
    "MNIST_STD",
    "bundled_split",
    "download_mnist",
    "export_torchvision_layout",
    "load_bundled_digits",
    "load_mnist",
    "load_mnist_idx",
    "read_idx",
    "write_bundled_digits",
    "write_idx",
]
