"""``torch.nn.functional``'s sampling grids: ``affine_grid`` and ``grid_sample`` with torch
2.13's argument checks, messages and CPU arithmetic (``_kernels/grid_sample.py``)."""
from __future__ import annotations

from .. import _dtype as D
from .._dispatch import apply
from .._fpe import warn_user
from .._ops.grid_ops import AffineGridGenerator, GridSampler
from .._sizes import type_name
from .._tensor import Tensor

__all__ = ["affine_grid", "grid_sample"]

_DEFAULT_ALIGN = ("Default grid_sample and affine_grid behavior has changed to align_corners=False "
                  "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
                  "See the documentation of grid_sample for details.")
_HALF = (D.float16, D.bfloat16)
_KERNEL_DTYPES = (D.float16, D.bfloat16, D.float32, D.float64)


def _bool_arg(fn, value, position):
    if type(value) is not bool:
        raise TypeError(f"{fn}(): argument 'align_corners' (position {position}) must be bool, "
                        f"not {type_name(value)}")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=None) -> Tensor

    Read ``input`` (N, C, H, W) or (N, C, D, H, W) at the locations ``grid`` (N, Ho, Wo, 2) or
    (N, Do, Ho, Wo, 3) gives, normalized to [-1, 1] (x first: the width), into an output (N, C,
    Ho, Wo) or (N, C, Do, Ho, Wo). ``align_corners`` puts -1 and 1 at the centres of the corner
    pixels, otherwise at their outer edges (the default, False, with torch's warning when it is
    not given). ``mode``: ``'bilinear'`` (trilinear for 5-D), ``'nearest'`` (ties to even) or
    ``'bicubic'`` (4-D only; cubic convolution with A = -0.75). ``padding_mode``: locations
    outside read 0 (``'zeros'``), the border (``'border'``), or are reflected back inside
    (``'reflection'``). Differentiable for the input and the grid (the grid's gradient is 0 for
    ``'nearest'``). Computed in the input's dtype with torch's CPU kernels' order of operations
    (half types included); ``input`` and ``grid`` must share it.
    """
    if mode != "bilinear" and mode != "nearest" and mode != "bicubic":
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' "
                         f"or 'bicubic', but got: '{mode}'")
    if padding_mode != "zeros" and padding_mode != "border" and padding_mode != "reflection":
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warn_user(_DEFAULT_ALIGN)
        align_corners = False
    for name, pos, v in (("input", 1, input), ("grid", 2, grid)):
        if not isinstance(v, Tensor):
            raise TypeError(f"grid_sampler(): argument '{name}' (position {pos}) must be "
                            f"Tensor, not {type_name(v)}")
    _bool_arg("grid_sampler", align_corners, 5)
    _check_grid_sampler(input, grid, mode)
    return apply(GridSampler, input, grid, mode=mode, padding_mode=padding_mode,
                 align_corners=align_corners)


def _sizes(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def _check_grid_sampler(input, grid, mode):
    """torch's ``check_grid_sampler_common`` / ``_2d`` / ``_3d`` checks and its kernels' dtype
    checks, in their order."""
    if input.ndim == 0 or grid.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {_sizes(input)} and grid with sizes "
                           f"{_sizes(grid)}")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in last "
                           f"dimension, but got grid with sizes {_sizes(grid)}")
    for i in range(2, input.ndim):
        if input.shape[i] <= 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {_sizes(input)} with dimension "
                               f"{i} being empty")
    nd = 4 if input.ndim == 4 else 5
    if input.ndim != nd or grid.ndim != nd:
        raise RuntimeError(f"grid_sampler(): expected {nd}D input and grid with same number of "
                           f"dimensions, but got input with sizes {_sizes(input)} and grid "
                           f"with sizes {_sizes(grid)}")
    if nd == 5 and mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    empty = 0 in tuple(input.shape[:2]) + tuple(grid.shape[1:-1])
    dt = input.dtype
    if nd == 4 and empty:  # (the 4-D kernel returns an empty result before its dtype checks)
        return
    if dt not in _KERNEL_DTYPES:
        kernel = "grid_sampler_2d_cpu_kernel_impl" if nd == 4 else "grid_sampler3d_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{D.scalar_name(dt)}\'')
    if empty:
        return
    if grid.dtype is not dt:
        raise RuntimeError(f"expected scalar type {D.scalar_name(dt)} but found "
                           f"{D.scalar_name(grid.dtype)}")


def affine_grid(theta, size, align_corners=None):
    """affine_grid(theta, size, align_corners=None) -> Tensor

    The sampling grid of a batch of affine maps: ``theta`` (N, 2, 3) for a 4-D ``size`` (N, C,
    H, W) gives (N, H, W, 2), (N, 3, 4) for a 5-D size (N, C, D, H, W) gives (N, D, H, W, 3):
    each output location's normalized coordinates (x, y[, z], 1) times ``theta`` transposed.
    The coordinates run over [-1, 1] (``align_corners``: the corner pixels' centres) or, by
    default, over the pixel centres of [-1, 1] split into equal pixels; a dim of size 1 sits
    at 0. Floating ``theta`` only. Differentiable for ``theta``. Each coordinate is the
    in-order sum of its products in ``theta``'s dtype (half types in float32, rounded once).
    """
    if align_corners is None:
        warn_user(_DEFAULT_ALIGN)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    n = len(size)
    if n == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-2:]
    elif n == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warn_user("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                  "when align_corners=True. This is not an intended use case of affine_grid. "
                  "See the documentation of affine_grid for details.")
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    for i, s in enumerate(size):  # (torch's parser: the size, then the flag)
        if not hasattr(s, "__index__"):
            raise TypeError(f"affine_grid_generator(): argument 'size' failed to unpack the "
                            f"object at pos {i + 1} with error \"type must be tuple of ints,but "
                            f"got {type_name(s)}\"")
    _bool_arg("affine_grid_generator", align_corners, 3)
    size = tuple(int(s) for s in size)
    k = n - 2
    shape = (size[0],) + size[2:] + (k + 1,)
    if size[0] < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {size[0]}: "
                           f"[{', '.join(map(str, shape))}]")
    if theta.dtype in _HALF and min(size[2:]) <= 1:
        raise NotImplementedError(f'"tensor_cpu" not implemented for '
                                  f"'{D.scalar_name(theta.dtype)}'")
    if theta.shape[0] != size[0]:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {k + 1}] but got: [{theta.shape[0]}, {k + 1}].")
    return apply(AffineGridGenerator, theta, size=size, align_corners=align_corners)
