"""``minitorch_cs.torchvision``: the small subset of ``torchvision`` that MNIST scripts use.

Porting rule: ``from torchvision import datasets, transforms`` becomes
``from minitorch_cs.torchvision import datasets, transforms``.

* :mod:`.datasets` — ``MNIST(root, train=True, transform=None, target_transform=None,
  download=False)`` on torchvision's on-disk layout (``root/MNIST/raw``).
* :mod:`.transforms` — ``Compose``, ``ToTensor``, ``Normalize``, ``Lambda``.
* ``python -m minitorch_cs.torchvision.export ROOT`` writes the bundled offline digits into
  that layout, so torchvision-style scripts run without a network.

Differs from torchvision: there is no PIL here, so datasets yield images as ``uint8`` numpy arrays
of shape ``(H, W)`` (what ``np.asarray(pil_image)`` gives) instead of ``PIL.Image`` objects;
``ToTensor`` turns them into the same tensors torchvision's ``ToTensor`` makes from the PIL image.
"""
from __future__ import annotations

from . import datasets, transforms

__version__ = "0.19.0"  # the torchvision release paired with the torch our cstorch mirror targets

__all__ = ["datasets", "transforms"]
