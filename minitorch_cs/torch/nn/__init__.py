"""``torch.nn``: Module, Parameter, layers, containers, losses, ``functional``, ``init``, ``utils``.

Porting rule: ``from torch import nn`` becomes ``from minitorch_cs.torch import nn``.
"""

from . import functional, init, modules, parameter, utils
from .modules import *  # noqa: F401,F403  (every layer; see modules.__all__)
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter

__all__ = ["Parameter", "Buffer", "functional", "init", "utils", "modules", "parameter",
           *_modules_all]
