"""``torchvision.datasets.vision``: the ``VisionDataset`` base class (root, transforms, repr)."""
from __future__ import annotations

import os
from typing import Any, Callable, Optional

from ...torch.utils.data import Dataset

__all__ = ["VisionDataset", "StandardTransform"]


class StandardTransform:
    """Apply ``transform`` to the input and ``target_transform`` to the target."""

    def __init__(self, transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None) -> None:
        self.transform = transform
        self.target_transform = target_transform

    def __call__(self, input: Any, target: Any) -> tuple:
        if self.transform is not None:
            input = self.transform(input)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return input, target

    def __repr__(self) -> str:
        body = [self.__class__.__name__]
        for head, t in (("Transform: ", self.transform),
                        ("Target transform: ", self.target_transform)):
            if t is not None:
                lines = repr(t).splitlines()
                body += [f"{head}{lines[0]}"] + [" " * len(head) + line for line in lines[1:]]
        return "\n".join(body)


class VisionDataset(Dataset):
    """Base class of the image datasets: holds ``root`` and the (target) transforms.

    Args:
        root: Root directory of the dataset (``~`` is expanded when it is a string).
        transforms: A callable ``(image, target) -> (image, target)``; exclusive with the next two.
        transform: A callable applied to the image.
        target_transform: A callable applied to the target.
    """

    _repr_indent = 4

    def __init__(self, root=None, transforms: Optional[Callable] = None,
                 transform: Optional[Callable] = None,
                 target_transform: Optional[Callable] = None) -> None:
        if isinstance(root, str):
            root = os.path.expanduser(root)
        self.root = root
        has_transforms = transforms is not None
        has_separate_transform = transform is not None or target_transform is not None
        if has_transforms and has_separate_transform:
            raise ValueError("Only transforms or transform/target_transform can be passed as "
                             "argument")
        self.transform = transform
        self.target_transform = target_transform
        if has_separate_transform:
            transforms = StandardTransform(transform, target_transform)
        self.transforms = transforms

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        head = "Dataset " + self.__class__.__name__
        body = [f"Number of datapoints: {self.__len__()}"]
        if self.root is not None:
            body.append(f"Root location: {self.root}")
        body += self.extra_repr().splitlines()
        if self.transforms is not None:
            body.append(repr(self.transforms))  # one entry: only its first line is indented
        return "\n".join([head] + [" " * self._repr_indent + line for line in body])

    def extra_repr(self) -> str:
        return ""
