"""``torchvision.datasets.MNIST`` on torchvision's on-disk layout, without PIL.

Layout: ``<root>/MNIST/raw/{train,t10k}-{images-idx3,labels-idx1}-ubyte`` (uncompressed; the
``.gz`` files a download leaves beside them are not read). The files are read with
:func:`minitorch_cs.datasets.read_idx`; ``download=True`` fetches them with
:func:`minitorch_cs.datasets.download_mnist` (md5-checked) and gunzips them, as torchvision does.

Differs from torchvision (SPEC "torchvision"): a sample's image is a ``uint8`` numpy array of shape
``(28, 28)`` — what ``np.asarray`` of torchvision's ``PIL.Image`` (mode ``"L"``) holds — because
there is no PIL here; ``transforms.ToTensor`` maps it to the same ``(1, 28, 28)`` float tensor in
[0, 1]. The legacy ``processed/training.pt`` files (torch pickles) are not read.
"""
from __future__ import annotations

import gzip
import os
import shutil
import warnings
from typing import Any, Callable, Optional

import numpy as np

from ... import datasets as _data
from ...torch import from_numpy
from .vision import VisionDataset

__all__ = ["MNIST"]


class MNIST(VisionDataset):
    """The MNIST digits (60,000 train / 10,000 test in the full files).

    Args:
        root: Directory holding ``MNIST/raw`` (created by ``download=True``).
        train: The ``train-*`` files if True, else the ``t10k-*`` files.
        transform: Applied to the image (a ``uint8`` ``(28, 28)`` numpy array).
        target_transform: Applied to the label (a Python ``int``).
        download: Fetch the files into ``root/MNIST/raw`` first when they are not there.

    Raises:
        RuntimeError: ``"Dataset not found. You can use download=True to download it"`` when
            the four uncompressed files are missing and ``download`` is False (as torchvision).
    """

    mirrors = list(_data.MNIST_MIRRORS)
    resources = [(f"{name}.gz", _data.MNIST_MD5[f"{name}.gz"]) for name in _data.MNIST_FILES]
    training_file = "training.pt"
    test_file = "test.pt"
    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six",
               "7 - seven", "8 - eight", "9 - nine"]

    def __init__(self, root, train: bool = True, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None, download: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            self.download()
        if not self._check_exists():
            # torchvision's message, then where the offline digits come from.
            raise RuntimeError("Dataset not found. You can use download=True to download it"
                               f" (offline: python -m minitorch_cs.torchvision.export {self.root} "
                               "writes the bundled digits there)")
        self._images, self._labels = self._load_data()
        self.data = from_numpy(self._images)        # uint8 (N, 28, 28), shares memory
        self.targets = from_numpy(self._labels)     # int64 (N,)

    # ------------------------------------------------------------------ files
    @property
    def raw_folder(self) -> str:
        return os.path.join(self.root, self.__class__.__name__, "raw")

    @property
    def processed_folder(self) -> str:
        return os.path.join(self.root, self.__class__.__name__, "processed")

    @property
    def class_to_idx(self) -> dict:
        return {c: i for i, c in enumerate(self.classes)}

    def _files(self) -> list:
        prefix = "train" if self.train else "t10k"
        return [os.path.join(self.raw_folder, f"{prefix}-{kind}")
                for kind in ("images-idx3-ubyte", "labels-idx1-ubyte")]

    def _check_exists(self) -> bool:
        return all(os.path.isfile(os.path.join(self.raw_folder, os.path.splitext(name)[0]))
                   for name, _ in self.resources)

    def _load_data(self) -> tuple:
        image_file, label_file = self._files()
        images, labels = _data.read_idx(image_file), _data.read_idx(label_file)
        if images.dtype != np.uint8 or images.ndim != 3:
            raise ValueError(f"{image_file}: expected uint8 images of shape (N, H, W), got "
                             f"{images.dtype} {images.shape}")
        if labels.dtype != np.uint8 or labels.ndim != 1:
            raise ValueError(f"{label_file}: expected uint8 labels of shape (N,), got "
                             f"{labels.dtype} {labels.shape}")
        if len(images) != len(labels):
            raise ValueError(f"{image_file} has {len(images)} images but {label_file} has "
                             f"{len(labels)} labels")
        return images, labels.astype(np.int64)

    def download(self) -> None:
        """Fetch the four ``.gz`` files into ``raw_folder`` (md5-checked) and gunzip them."""
        if self._check_exists():
            return
        os.makedirs(self.raw_folder, exist_ok=True)
        _data.download_mnist(self.raw_folder, mirrors=self.mirrors)
        for name, _ in self.resources:
            src = os.path.join(self.raw_folder, name)
            dst = os.path.splitext(src)[0]
            tmp = dst + ".part"
            with gzip.open(src, "rb") as fin, open(tmp, "wb") as fout:
                shutil.copyfileobj(fin, fout)
            os.replace(tmp, dst)

    # ---------------------------------------------------------------- samples
    def __getitem__(self, index: int) -> tuple[Any, Any]:
        img, target = self._images[index].copy(), int(self._labels[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self) -> int:
        return len(self._images)

    def extra_repr(self) -> str:
        return f"Split: {'Train' if self.train is True else 'Test'}"

    # deprecated aliases torchvision still carries
    @property
    def train_labels(self):
        warnings.warn("train_labels has been renamed targets")
        return self.targets

    @property
    def test_labels(self):
        warnings.warn("test_labels has been renamed targets")
        return self.targets

    @property
    def train_data(self):
        warnings.warn("train_data has been renamed data")
        return self.data

    @property
    def test_data(self):
        warnings.warn("test_data has been renamed data")
        return self.data
