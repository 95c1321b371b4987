"""``minitorch_cs.torch``: the subset of PyTorch that cstorch scripts use, on numpy.

Porting rule: ``import torch`` becomes ``import minitorch_cs.torch as torch``.
"""

import math as _math

from . import _alloc  # noqa: F401  (malloc thresholds; see _alloc)
from . import _fpe  # noqa: F401  (numpy's inf/nan RuntimeWarnings silenced in our frames)
from . import _dtype
from ._autograd import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from ._creation import (arange, as_tensor, asarray, empty, empty_like, empty_strided, eye,
                        from_numpy, full, full_like, linspace, logspace, normal, ones, ones_like,
                        rand, rand_like, randint, randint_like, randn, randn_like, randperm,
                        scalar_tensor, tensor, tril_indices, triu_indices, zeros, zeros_like)
from ._device import device
from ._dtype import (bfloat16, bool, double, dtype, float, float16, float32, float64,
                     get_default_dtype, half, int, int8, int16, int32, int64, long,
                     promote_types, set_default_dtype, short, uint8)
from ._dtype import result_type as _result_type
from ._functions import *  # noqa: F401,F403  (the functional surface; see _functions.__all__)
from ._functions import __all__ as _fn_all
from . import linalg  # noqa: F401  (``torch.linalg``; its functions use _with_out)
from . import special  # noqa: F401  (``torch.special``: SciPy names of the main namespace's ops)
from ._random import (Generator, default_generator, fork_rng, get_rng_state, initial_seed,
                      manual_seed, seed, set_rng_state)
from ._layout import (channels_last, channels_last_3d, contiguous_format,  # noqa: F401
                      memory_format, preserve_format)
from ._tensor import Size, Tensor
from . import _methods  # noqa: F401  (attaches Tensor methods)
from ._functions import operators as _operators  # noqa: F401  (Python's binary operators)
from . import autograd
from ._autocast import autocast, get_autocast_dtype, is_autocast_enabled  # noqa: F401
from . import nn  # noqa: F401  (``torch.nn.functional`` works after ``import torch``)
from . import utils  # noqa: F401  (torch.utils.data, torch.utils.hooks)
from .serialization import load, save  # noqa: F401  (PyTorch's zip format)
from . import serialization  # noqa: F401
from . import _return_types as return_types  # noqa: F401  (torch.return_types.max, ...)

pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan
FloatTensor = LongTensor = None  # replaced below by constructor shims


def result_type(tensor1, tensor2):
    return _result_type(tensor1, tensor2)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_storage(obj) -> bool:
    return False


def numel(input) -> int:
    if not isinstance(input, Tensor):
        raise TypeError("numel(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.numel()


def _typed(dt):
    def make(*args):
        return Tensor(*args, dtype=dt)
    return make


FloatTensor = _typed(float32)
DoubleTensor = _typed(float64)
LongTensor = _typed(int64)
IntTensor = _typed(int32)
BoolTensor = _typed(bool)
ByteTensor = _typed(uint8)


class _Cuda:
    """``torch.cuda`` on a machine without CUDA."""

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def device_count() -> int:
        return 0

    @staticmethod
    def manual_seed(seed) -> None:
        pass

    @staticmethod
    def manual_seed_all(seed) -> None:
        pass

    @staticmethod
    def is_bf16_supported() -> bool:
        return False

    @staticmethod
    def synchronize(device=None) -> None:
        pass

    @staticmethod
    def empty_cache() -> None:
        pass


cuda = _Cuda()


def set_num_threads(n) -> None:
    pass


def get_num_threads() -> int:
    return 1


def use_deterministic_algorithms(mode, *, warn_only=False) -> None:
    pass


def compile(model=None, **kwargs):
    """``torch.compile`` is an identity here (no graph compiler)."""
    if model is None:
        return lambda m: m
    return model


# Last: every public name exists by now. Docstrings live in tables (see _docs), as torch's.
import sys as _sys  # noqa: E402
from ._docs import attach as _attach_docs  # noqa: E402
from . import linalg as _linalg  # noqa: E402
from .nn import functional as _functional, init as _init  # noqa: E402

_attach_docs(_sys.modules[__name__], _linalg, _functional, _init)
del _sys, _attach_docs, _linalg, _functional, _init
