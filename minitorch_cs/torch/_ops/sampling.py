"""Sampling primitives: ``bernoulli`` and ``multinomial``.

Both read the same uniform stream as every other random op (numpy's PCG64 behind a ``Generator``,
SPEC "RNG"), through a fixed rule, so a seed always gives the same samples:

* ``bernoulli(p)``: ``U = random(p.shape)`` (float64 draws for a float64 result, float32
  otherwise), sample ``U < p``.
* ``multinomial(p, n, replacement=True)``: per row, in row order, ``U = random(n)`` in float64; the
  sample is the first category whose cumulative probability (``cumsum(p) / sum(p)``, float64, the
  tail from the last non-zero category on set to exactly 1) exceeds ``U`` -- so a category of
  probability 0 is never drawn.
* ``multinomial(p, n, replacement=False)``: per row, ``U = random(C)`` in float64 (one draw per
  category), keys ``p / -log(1 - U)`` (0 where ``p`` is 0); the samples are the categories of the
  ``n`` largest keys, largest first, ties to the lower index. This is the exponential-race
  construction torch's CPU kernel uses (``p / Exp(1)`` then top-k), so it draws without
  replacement with probabilities proportional to ``p``; once the non-zero categories are used up
  the zero ones follow in index order (torch also returns them, in an unspecified order).

The op names are the ones the RNG modes (device-context seeding, lazy initialization) treat as
random ops taking a ``generator=`` attribute.
"""
from __future__ import annotations

import numpy as np

from .._dispatch import Op
from ._xp import ns

__all__ = ["Bernoulli", "Multinomial", "RandomFill"]


def _gen(generator):
    from .._random import default_generator
    return (generator or default_generator)._np


class Bernoulli(Op):
    """``torch.bernoulli(p)``: 1 with probability ``p``, else 0, in ``p``'s dtype (or ``dtype``).

    Differentiable with a zero gradient, as torch's ``BernoulliBackward0`` is.
    """

    name = "bernoulli"

    @staticmethod
    def forward(ctx, p, generator=None, dtype=None):
        if np.any(~((p >= 0) & (p <= 1))):  # NaN fails both comparisons, as in torch
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please report an "
                               "enhancement request to PyTorch.)")
        out = np.dtype(dtype) if dtype is not None else p.dtype
        u = _gen(generator).random(p.shape, dtype=np.float64 if out == np.float64 else np.float32)
        ctx.shape = p.shape
        return (u < p).astype(out)

    @staticmethod
    def backward(ctx, g):
        return (ns(g).zeros(ctx.shape, g.dtype),)


class Multinomial(Op):
    """``torch.multinomial``: int64 category indices drawn from each row of ``p``."""

    name = "multinomial"
    differentiable = False

    @staticmethod
    def forward(ctx, p, num_samples, replacement=False, generator=None):
        if p.ndim not in (1, 2):
            raise RuntimeError("prob_dist must be 1 or 2 dim")
        if p.dtype.kind != "f" and p.dtype.name != "bfloat16":
            from .._dtype import _BY_NP, scalar_name
            raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                               f"{scalar_name(_BY_NP[p.dtype])}")
        n_cat = p.shape[-1]
        if num_samples <= 0:
            raise RuntimeError("cannot sample n_sample <= 0 samples")
        if not replacement and num_samples > n_cat:
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                               "replacement")
        if n_cat > 2 ** 24:
            raise RuntimeError("number of categories cannot exceed 2^24")
        rows = np.atleast_2d(p).astype(np.float64)
        if not np.all(np.isfinite(rows) & (rows >= 0)):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if rows.shape[0] and np.any(rows.sum(axis=1) <= 0):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        g = _gen(generator)
        if replacement:
            out = _with_replacement(g, rows, num_samples)
        else:
            out = _without_replacement(g, rows, num_samples)
        return out if p.ndim == 2 else out[0]


def _with_replacement(g, rows, n):
    u = g.random((rows.shape[0], n))
    cdf = np.cumsum(rows, axis=1)
    cdf /= cdf[:, -1:]
    last = rows.shape[1] - 1 - np.argmax(rows[:, ::-1] > 0, axis=1)  # last non-zero category
    cdf[np.arange(rows.shape[1])[None, :] >= last[:, None]] = 1.0
    out = np.empty((rows.shape[0], n), np.int64)
    for i in range(rows.shape[0]):  # one searchsorted per distribution
        out[i] = np.searchsorted(cdf[i], u[i], side="right")
    return out


def _without_replacement(g, rows, n):
    u = g.random(rows.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        keys = np.where(rows > 0, rows / -np.log1p(-u), 0.0)
    order = np.argsort(-keys, axis=1, kind="stable")
    return order[:, :n].astype(np.int64)


_FILL_NODES = {"uniform": "UniformBackward0", "normal": "NormalBackward0",
               "exponential": "ExponentialBackward0", "bernoulli": "BernoulliBackward2"}


class RandomFill(Op):
    """In-place random fill (``uniform_``, ``normal_``, ``bernoulli_``, ``random_``,
    ``exponential_``). On a tensor in the graph it records a node whose gradient for the
    overwritten values is zero, as torch's (``UniformBackward0``, ...): the history before
    the fill gets no gradient through it, and a leaf that requires grad is refused.
    ``node``: torch's name where the overload decides it (``random_``'s three)."""

    name = "random_fill"

    @staticmethod
    def forward(ctx, dst, kind, a=0.0, b=1.0, generator=None, out=None, node=None):
        ctx.shape = dst.shape
        name = node or _FILL_NODES.get(kind)
        if name is not None:
            ctx.torch_node = name
        if out is not None and kind in ("uniform", "normal") and \
                out.dtype in (np.float32, np.float64) and out.flags.c_contiguous:
            from .._random import _fill_into
            _fill_into(_gen(generator), kind, out, a, b)
            return out
        from .._random import _draw
        r = _draw(kind, dst.shape, dst.dtype, generator, a, b)
        if out is not None:
            out[...] = r
            return out
        return r

    @staticmethod
    def backward(ctx, g):
        return (ns(g).zeros(ctx.shape, g.dtype),)
