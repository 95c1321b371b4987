"""``grid_sample`` and ``affine_grid``'s primitives (numpy kernels in ``_kernels.grid_sample``).

``GridSampler`` is torch's ``grid_sampler_2d`` / ``grid_sampler_3d`` (nodes
``GridSampler2DBackward0`` / ``GridSampler3DBackward0``); its gradients for the input and the
grid come from one kernel, :class:`GridSamplerBackward`, whose own derivative is not
implemented (torch 2.13 has one: a documented difference). ``AffineGridGenerator`` is torch's
``affine_grid_generator`` (node ``AffineGridGeneratorBackward0``); its gradient is linear in the
output gradient, so the two ops differentiate into each other.
"""
from __future__ import annotations

import numpy as np

from .._dispatch import Op
from ._kernel import Kernel
from ._xp import ns

__all__ = ["GridSampler", "GridSamplerBackward", "AffineGridGenerator"]


def _k():
    from .._kernels import grid_sample
    return grid_sample


class GridSampler(Kernel):
    name = "grid_sampler"
    saved = (0, 1)
    graph_inputs = {"x": 0, "grid": 1}

    @staticmethod
    def forward(ctx, x, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
        ctx.x, ctx.grid = x, grid
        ctx.args = (mode, padding_mode, align_corners)
        ctx.torch_node = "GridSampler2DBackward0" if x.ndim == 4 else "GridSampler3DBackward0"
        shape = x.shape[:2] + grid.shape[1:-1]
        if 0 in shape:  # (torch returns an empty result before its dtype checks)
            return np.empty(shape, x.dtype)
        return _k().sample(x, grid, *ctx.args)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = ctx.needs_input_grad
        gx, gg = xp.call(GridSamplerBackward, g, ctx.x, ctx.grid, *ctx.args,
                         need_input=bool(n[0]))
        return (gx if n[0] else None, gg if len(n) > 1 and n[1] else None)


class GridSamplerBackward(Op):
    """The input and grid gradients of :class:`GridSampler` (the input's is zeros when
    ``need_input`` is False: torch skips it)."""

    name = "grid_sampler_backward"
    n_outputs = 2

    @staticmethod
    def forward(ctx, g, x, grid, mode, padding_mode, align_corners, need_input=True):
        ctx.torch_node = "GridSampler2DBackwardBackward0" if x.ndim == 4 else \
            "GridSampler3DBackwardBackward0"
        gx, gg = _k().sample_backward(g, x, grid, mode, padding_mode, align_corners,
                                      need_input=need_input)
        if gx is None:
            gx = np.zeros(x.shape, x.dtype)
        return np.ascontiguousarray(gx), np.ascontiguousarray(gg)

    @staticmethod
    def backward(ctx, grads):
        raise NotImplementedError("the derivative of grid_sample's gradients (a double backward) "
                                  "is not implemented here (torch 2.13 has one)")


class AffineGridGenerator(Kernel):
    name = "affine_grid_generator"
    node_name = "AffineGridGeneratorBackward0"

    @staticmethod
    def forward(ctx, theta, size, align_corners):
        ctx.size, ctx.align = tuple(size), align_corners
        return _k().affine_forward(theta, _spatial(size), align_corners, _linspace)

    @staticmethod
    def backward(ctx, g):
        return (ns(g).call(AffineGridGeneratorBackward, g, size=ctx.size,
                           align_corners=ctx.align),)


class AffineGridGeneratorBackward(Kernel):
    """``theta``'s gradient of :class:`AffineGridGenerator` (linear in ``g``: its own gradient
    is the generator applied to the incoming gradient)."""

    name = "affine_grid_generator_backward"
    node_name = "TransposeBackward0"  # (torch's composite backward ends with a transpose)

    @staticmethod
    def forward(ctx, g, size, align_corners):
        ctx.size, ctx.align = tuple(size), align_corners
        return _k().affine_backward(g, _spatial(size), align_corners, _linspace)

    @staticmethod
    def backward(ctx, c):
        return (ns(c).call(AffineGridGenerator, c, size=ctx.size, align_corners=ctx.align),)


def _linspace(start, end, steps, dt):
    from .._creation import _linspace as linspace  # (torch's bits)
    return linspace(start, end, steps, dt)


def _spatial(size):
    return tuple(int(s) for s in size[2:])
