"""``torchvision.transforms.functional``: ``to_tensor`` and ``normalize``."""
from __future__ import annotations

import numpy as np

from ... import torch

__all__ = ["to_tensor", "normalize"]


def _is_pil_image(pic) -> bool:
    # PIL is never imported; a PIL image is recognised by its module and converted by numpy.
    return type(pic).__module__.startswith("PIL.")


def to_tensor(pic):
    """A ``(C, H, W)`` tensor from an ``(H, W)`` or ``(H, W, C)`` image.

    ``uint8`` images become floats of the default dtype in [0, 1] (divided by 255); other
    dtypes keep theirs. PIL images are accepted through ``np.asarray`` (modes ``L``/``RGB``).

    Raises:
        TypeError: ``pic should be PIL Image or ndarray. Got <type>`` (e.g. for a tensor).
        ValueError: ``pic should be 2/3 dimensional. Got N dimensions.``
    """
    if _is_pil_image(pic):
        pic = np.asarray(pic)
    if not isinstance(pic, np.ndarray):
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    if pic.ndim not in (2, 3):
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    if pic.ndim == 2:
        pic = pic[:, :, None]
    img = torch.from_numpy(np.ascontiguousarray(pic.transpose((2, 0, 1))))
    if img.dtype == torch.uint8:
        return img.to(dtype=torch.get_default_dtype()).div(255)
    return img


def normalize(tensor, mean, std, inplace: bool = False):
    """``(tensor - mean) / std`` per channel of a ``(..., C, H, W)`` float tensor.

    Raises:
        TypeError: for a non-tensor, a tensor of fewer than 2 dims or a non-float tensor.
        ValueError: for fewer than 3 dims, or a ``std`` that is zero in the tensor's dtype.
    """
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    if tensor.ndim < 2:
        raise TypeError("Tensor is not a torch image.")
    if not tensor.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.ndim < 3:
        raise ValueError("Expected tensor to be a tensor image of size (..., C, H, W). Got "
                         f"tensor.size() = {tensor.size()}")
    if not inplace:
        tensor = tensor.clone()
    dtype = tensor.dtype
    mean = torch.as_tensor(mean, dtype=dtype)
    std = torch.as_tensor(std, dtype=dtype)
    if (std == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {dtype}, leading to "
                         "division by zero.")
    if mean.ndim == 1:
        mean = mean.view(-1, 1, 1)
    if std.ndim == 1:
        std = std.view(-1, 1, 1)
    return tensor.sub_(mean).div_(std)
