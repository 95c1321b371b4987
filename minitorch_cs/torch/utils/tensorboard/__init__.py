"""``torch.utils.tensorboard``: ``SummaryWriter`` writing TensorBoard event files.

Porting rule: ``from torch.utils.tensorboard import SummaryWriter`` becomes
``from minitorch_cs.torch.utils.tensorboard import SummaryWriter``. Needs the ``tensorboardX``
package (a dependency of minitorch_cs), which does the protobuf and TFRecord writing.
"""
from __future__ import annotations

from .writer import SummaryWriter, import_tensorboardx

__all__ = ["SummaryWriter"]
