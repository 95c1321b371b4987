"""``torch.nn.functional.embedding_bag`` (torch 2.13's Python checks, then its CPU kernel:
``_ops.embedding_bag``), and ``embedding``'s ``scale_grad_by_freq`` gradient."""
from __future__ import annotations

from .. import _dtype as D
from .. import _creation
from .._dispatch import apply
from .._fpe import warn_user
from .._ops import embedding_bag as EB
from .._tensor import Tensor

__all__ = ["embedding_bag"]

_WEIGHT_DTYPES = (D.float16, D.bfloat16, D.float32, D.float64)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode='mean', sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None) -> Tensor

    Reduce bags of rows of ``weight`` (num_embeddings, embedding_dim) without forming the
    looked-up rows: a 2-D ``input`` (B, N) is B bags of N indices; a 1-D ``input`` is cut into
    bags at the positions ``offsets`` lists (starting at 0, never decreasing; with
    ``include_last_offset`` the last offset closes the last bag, CSR style). Each bag gives one
    row of the (B, embedding_dim) result: the sum, mean or elementwise max of its rows; an
    empty bag gives zeros. Entries equal to ``padding_idx`` are left out of their bag (and out
    of the mean's count) and give that row no gradient. ``per_sample_weights`` (the input's
    shape, mode ``"sum"`` only) scale each row before the sum. ``max_norm`` first renorms, in
    place, the rows the input looks up. ``scale_grad_by_freq`` divides gradients by the
    indices' frequencies as torch 2.13's kernel does (not for ``"max"``). Indices and offsets
    are int32 or int64 (promoted together). Differs from torch: ``sparse=True`` gives the
    same values as a dense gradient (this package has no sparse tensors), as ``embedding``'s.
    """
    if weight.dtype == D.int64 and input.is_floating_point():
        warn_user("Argument order of nn.functional.embedding_bag was changed. Usage "
                  "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                  "`embedding_bag(input, weight, ...)`.")
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         "is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            kind = "<class 'torch.Tensor'>" if isinstance(offsets, Tensor) else \
                str(type(offsets))
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {kind}")
        offsets = _creation.arange(0, input.numel(), input.size(1), dtype=input.dtype,
                                   device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in EB.MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        from .functional import _renorm_rows
        _renorm_rows(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    pad = _padding_index(padding_idx, weight.shape[0])
    index_dtype = D.promote_types(offsets.dtype, input.dtype)
    if index_dtype not in (D.int64, D.int32):
        raise RuntimeError(_types_error("indices", "Long, Int", index_dtype))
    if weight.dtype not in _WEIGHT_DTYPES:
        raise RuntimeError(_types_error("weight", "Half, BFloat16, Float, Double",
                                        weight.dtype))
    args = (weight, input, offsets, per_sample_weights)
    attrs = dict(mode=EB.MODES[mode], include_last_offset=bool(include_last_offset),
                 padding_idx=pad, scale_grad_by_freq=bool(scale_grad_by_freq),
                 index_dtype=index_dtype.np.name)
    return apply(EB.EmbeddingBag, *args, **attrs)


def _padding_index(padding_idx, num) -> int:
    """torch's C++ check of ``padding_idx`` (wrapped to a row number; -1 for none)."""
    if padding_idx is None:
        return -1
    if not -num <= padding_idx < num:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} "
                           f"through {num - 1}, but got {padding_idx}")
    return padding_idx + num if padding_idx < 0 else padding_idx


def _types_error(arg, allowed, dtype) -> str:
    return (f"Expected tensor for argument #1 '{arg}' to have one of the following scalar "
            f"types: {allowed}; but got {EB.type_name(dtype)} instead (while "
            "checking arguments for embedding_bag)")


def embedding_freq(input, weight, padding_idx):
    """``embedding(..., scale_grad_by_freq=True)``: the lookup, each index's gradient divided
    by its count in ``input`` (torch 2.13's ``embedding_dense_backward``)."""
    return apply(EB.EmbeddingFreq, weight, input, padding_idx=padding_idx)
