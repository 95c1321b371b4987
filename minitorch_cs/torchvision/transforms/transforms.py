"""``torchvision.transforms.transforms``: the transform classes MNIST scripts use."""
from __future__ import annotations

from ...torch import nn
from . import functional as F

__all__ = ["Compose", "ToTensor", "Normalize", "Lambda"]


class Compose:
    """Apply ``transforms`` in order: ``Compose([ToTensor(), Normalize(m, s)])(img)``."""

    def __init__(self, transforms) -> None:
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self) -> str:
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{self.__class__.__name__}({body}\n)"


class ToTensor:
    """An ``(H, W[, C])`` image (numpy array; uint8 scaled to [0, 1]) to a ``(C, H, W)`` tensor."""

    def __call__(self, pic):
        return F.to_tensor(pic)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class Normalize(nn.Module):
    """Per-channel ``(x - mean) / std`` of a float ``(..., C, H, W)`` tensor (a Module, as in
    torchvision)."""

    def __init__(self, mean, std, inplace: bool = False) -> None:
        super().__init__()
        self.mean = mean
        self.std = std
        self.inplace = inplace

    def forward(self, tensor):
        return F.normalize(tensor, self.mean, self.std, self.inplace)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(mean={self.mean}, std={self.std})"


class Lambda:
    """Apply a user function: ``Lambda(lambda x: torch.as_tensor(x, dtype=torch.int32))``."""

    def __init__(self, lambd) -> None:
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {type(lambd).__name__!r}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"
