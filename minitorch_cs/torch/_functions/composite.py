"""Functions torch defines as compositions of other ops (in C++ or Python), composed here of the
same ops in the same order, so their values, gradients and graph nodes are those ops': ``flipud``,
``fliplr``, ``ravel``, ``atleast_1d/2d/3d``, ``nanmean``, ``diff``, ``argwhere``, ``msort``,
``rsub``, ``column_stack``, ``row_stack``, ``dstack``, ``hsplit``, ``vsplit`` and ``dsplit``
(torch 2.13's checks and messages, measured)."""
from __future__ import annotations

from .. import _dtype as D
from .._autograd import torch_named
from .._dispatch import apply
from .._ops import elementwise as E
from .._tensor import Tensor, _wrap_dim
from . import indexing as I
from . import pointwise as P
from . import reduction as R
from . import shape as S

__all__ = ["flipud", "fliplr", "ravel", "atleast_1d", "atleast_2d", "atleast_3d", "nanmean",
           "diff", "argwhere", "msort", "rsub", "column_stack", "row_stack", "dstack", "hsplit",
           "vsplit", "dsplit"]


def flipud(input):
    """The rows in reverse order: ``flip(input, [0])`` (at least 1-D)."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return S.flip(input, [0])


def fliplr(input):
    """The columns in reverse order: ``flip(input, [1])`` (at least 2-D)."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return S.flip(input, [1])


def ravel(input):
    """``reshape(input, -1)``: a view where the layout allows, else a copy."""
    return S.reshape(input, (-1,))


def _atleast(n, expand, tensors):
    seq = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else \
        tensors
    if len(tensors) == 1 and seq is tensors and not isinstance(tensors[0], Tensor):
        raise TypeError(f"atleast_{n}d() received an invalid combination of arguments - got "
                        f"({type(tensors[0]).__name__}), but expected one of:")
    for i, t in enumerate(seq):  # (torch's parser: the elements of one tensor-list argument)
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    if len(tensors) == 1 and seq is tensors:
        return expand(tensors[0])
    return tuple(expand(t) for t in seq)


def atleast_1d(*tensors):
    """Each tensor with at least one dim (a 0-d one reshaped to ``(1,)``; others returned as
    they are); several tensors, or one sequence, give a tuple."""
    return _atleast(1, S._at_least_1d, tensors)


def atleast_2d(*tensors):
    """Each tensor with at least two dims: 0-d ``(1, 1)``, 1-D ``(1, n)``."""
    return _atleast(2, S._at_least_2d, tensors)


def atleast_3d(*tensors):
    """Each tensor with at least three dims: 0-d ``(1, 1, 1)``, 1-D ``(1, n, 1)``, 2-D
    ``(h, w, 1)``."""
    return _atleast(3, S._at_least_3d, tensors)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """The mean of the non-NaN elements: ``nansum(input) / count of non-NaN`` (torch's
    composition); floating inputs only."""
    if not input.dtype.is_floating_point:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {D.scalar_name(input.dtype)}")
    R.check_mean_dtype("nanmean", dtype)
    kept = P.logical_not(P.isnan(input))
    count = R.sum(kept, dim, keepdim)  # (keepdim holds with dim=None too: every dim kept)
    total = R.nansum(input, dim, keepdim, dtype=dtype)
    return P.div(total, count)


def _diff_operand(input, t, dim):
    if t is None:
        return
    if t.ndim != input.ndim:
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for i in range(input.ndim):
        if i != dim and t.shape[i] != input.shape[i]:
            raise RuntimeError("diff expects the shape of tensor to prepend or append to match "
                               "that of input except along the differencing dimension; "
                               f"input.size({i}) = {input.shape[i]}, but got "
                               f"tensor.size({i}) = {t.shape[i]}")


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (``a[1:] - a[:-1]``, repeated; bool
    inputs take ``logical_xor``), after ``prepend``/``append`` are concatenated along ``dim``.
    ``n`` beyond the dim's length gives an empty result; ``n = 0`` a copy."""
    if input.ndim < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input.ndim)
    _diff_operand(input, prepend, d)
    _diff_operand(input, append, d)
    if n == 0:
        return P.clone(input)
    a = input
    if prepend is not None or append is not None:
        a = S.cat([t for t in (prepend, input, append) if t is not None], d)
    length = a.shape[d] - 1
    for _ in range(min(n, a.shape[d])):
        hi, lo = S.narrow(a, d, 1, length), S.narrow(a, d, 0, length)
        a = P.logical_xor(hi, lo) if a.dtype is D.bool else P.sub(hi, lo)
        length -= 1
    return a


def argwhere(input):
    """The indices of the nonzero elements, one row each: ``nonzero(input)``."""
    return I.nonzero(input)


def msort(input):
    """``sort(input, dim=0).values``."""
    return R.sort(input, 0).values


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``: ``sub`` with its operands swapped (``other`` may be a
    number, kept as one for the result type, as ``number - tensor`` keeps it)."""
    if isinstance(other, Tensor):  # (torch's rsub.Tensor: RsubBackward0; a number: 1)
        return torch_named(P.sub(other, input, alpha=alpha), "RsubBackward0", input, other)
    if input.dtype is D.bool and isinstance(other, bool):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    return torch_named(apply(E.Sub, other, input, alpha=alpha), "RsubBackward1", input)


def column_stack(tensors):
    """The tensors side by side as columns: 0-d and 1-D ones become ``(n, 1)`` columns, then
    ``hstack``."""
    S._need_sequence(tensors, "column_stack", True)
    return S.hstack([S.reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in tensors])


def row_stack(tensors):
    """``vstack``."""
    S._need_sequence(tensors, "row_stack")
    return S.vstack(tensors)


def dstack(tensors):
    """The tensors stacked along a third dim (each made at least 3-D first)."""
    S._need_sequence(tensors, "dstack", True)
    return S.cat([S._at_least_3d(t) for t in tensors], 2)


def _split(name, input, sections, need, dim):
    if input.ndim < need:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension, but "
                           f"got a tensor with {input.ndim} dimensions!")
    if isinstance(sections, int) and not isinstance(sections, bool):
        size = input.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {size} is not divisible by the split_size "
                               f"{sections}!")
    return S.tensor_split(input, sections, dim)


def hsplit(input, indices_or_sections):
    """``tensor_split`` along dim 1 (dim 0 of a 1-D tensor), equal parts when given a count."""
    return _split("hsplit", input, indices_or_sections, 1, 0 if input.ndim == 1 else 1)


def vsplit(input, indices_or_sections):
    """``tensor_split`` along dim 0 of a tensor of at least 2 dims."""
    return _split("vsplit", input, indices_or_sections, 2, 0)


def dsplit(input, indices_or_sections):
    """``tensor_split`` along dim 2 of a tensor of at least 3 dims."""
    return _split("dsplit", input, indices_or_sections, 3, 2)
