"""``cerebras.pytorch.nn.functional`` (cstorch 2.10): Cerebras' functional helpers, CPU semantics.

Mirrored: ``one_hot``, the scope markers (``scope_boundary``, ``enter_scope``, ``exit_scope`` and the
four boundary-type constants), ``bias_add``, ``matmul``, ``ranged_matmul``, ``conditional_arange``,
``nth_order_statistic``, ``unbind``, ``sparse_matmul`` and ``sparse_act_matmul``: signatures,
defaults, the real argument checks (the same exception types and messages, ``AssertionError``
included) and the values the real functions compute when ``cstorch.use_cs()`` is False. Each is
composed from ``minitorch_cs.torch`` ops, so gradients flow wherever the real CPU path is
differentiable.

On the real wafer these functions lower to dedicated CIRH kernels (``cirh.BiasAdd``,
``cirh.RangedMatMul``, ...). Those kernels exist only in the wafer compiler, so we use the CPU
formulas on every backend, the emulated CSX one included. Where the wafer kernel leaves an output
undefined (``ranged_matmul`` columns past ``num_cols``, ``conditional_arange`` at masked-out
positions), the value is the CPU one. Not mirrored: the ``CSX*`` autograd Functions, the mesh and
transfer Functions (``CSXD2DTransfer``, ``CSXM2MTransfer``, ``CSXMeshAllSlice``,
``CSXMeshAllGather``, ``CSXMeshShard``) and ``SKIP_OPTIONAL_ATTR``, all of which only build wafer
graph ops, and the helper Functions ``EnterFunction``/``ExitFunction``/``UnbindFunction``; the
functions that wrap those are provided.
"""
from __future__ import annotations

import logging
import operator
from typing import Optional, Tuple

import minitorch_cs.torch as torch

__all__ = ["BEGIN_BACKWARD", "BEGIN_FORWARD", "END_BACKWARD", "END_FORWARD", "bias_add",
           "conditional_arange", "enter_scope", "exit_scope", "matmul", "nth_order_statistic",
           "one_hot", "ranged_matmul", "scope_boundary", "sparse_act_matmul", "sparse_matmul",
           "unbind"]

_log = logging.getLogger(__name__)

# boundary_type values of the wafer's ScopeBoundary op
BEGIN_FORWARD = "BEGIN_FORWARD"
BEGIN_BACKWARD = "BEGIN_BACKWARD"
END_FORWARD = "END_FORWARD"
END_BACKWARD = "END_BACKWARD"

# ----- torch-kernel checks the real functions reach through torch ops -----------------------------
def _check_scatter_index(index) -> None:
    """torch 2.4's scatter (the real stack's) takes int64 indices only; ours, like torch 2.13,
    also takes int32. Bounds are checked by the scatter op itself, with torch's message."""
    if index.dtype is not torch.int64:
        raise RuntimeError("scatter(): Expected dtype int64 for index")


def _check_2d(t, what: str) -> None:
    assert len(t.shape) == 2, f"Expected 2D {what}. Instead got {what}.shape = {t.shape}"


def _check_weight_transposed(weight, weight_transposed) -> None:
    if weight_transposed is not None:
        assert weight_transposed.shape == torch.transpose(weight, 1, 0).shape, (
            f"Expected weight_transposed.shape to be the transpose of weight.shape. "
            f"{weight_transposed.shape} != transpose({weight.shape}, 1, 0).")


# ----- one_hot and scope markers ------------------------------------------------------------------
def one_hot(array, num_classes):
    """One-hot encode the int64 tensor ``array``: a new trailing dim of size ``num_classes``.

    Unlike ``torch.nn.functional.one_hot`` the result is ``torch.int32`` (``torch.int``) and
    ``num_classes`` has no default; ``-1`` is logged as an error and then fails like any negative
    size (``RuntimeError``).
    """
    shape = array.shape
    if num_classes == -1:
        _log.error("num_class argument to one_hot cannot be -1")
    try:
        n = operator.index(num_classes)
    except TypeError:
        # the real stack fails building ``array.shape + (num_classes,)`` as a torch.Size
        raise TypeError(f"torch.Size() takes an iterable of 'int' (item {len(shape)} is "
                        f"'{type(num_classes).__name__}')") from None
    out = torch.zeros(tuple(shape) + (n,), dtype=torch.int, device=array.device)
    index = array.unsqueeze(-1)
    _check_scatter_index(index)
    return out.scatter_(-1, index, 1)


def scope_boundary(input, boundary_type, scope_name):
    """Mark a scope boundary after ``input``; off the wafer it returns ``input`` itself.

    Args:
        boundary_type (str): ``BEGIN_FORWARD``, ``BEGIN_BACKWARD``, ``END_FORWARD`` or
            ``END_BACKWARD`` (not checked, as in the real function).
        scope_name (str): the scope's name.
    """
    return input


def _scope_marker(input):
    # The real marker is an autograd Function whose CPU forward returns its input: torch hands
    # back a new tensor viewing the same memory, and the backward passes the gradient through.
    if isinstance(input, torch.Tensor):
        return input.view_as(input)
    return input


def enter_scope(input, scope_name):
    """Open scope ``scope_name`` at ``input`` (forward BEGIN, backward END boundary).

    Off the wafer: a tensor comes back as a new view of the same memory with an identity
    gradient; anything else comes back unchanged."""
    return _scope_marker(input)


def exit_scope(input, scope_name):
    """Close scope ``scope_name`` at ``input`` (forward END, backward BEGIN boundary).

    Off the wafer: a tensor comes back as a new view of the same memory with an identity
    gradient; anything else comes back unchanged."""
    return _scope_marker(input)


# ----- dense kernels ------------------------------------------------------------------------------
def bias_add(input_value: torch.Tensor, bias: torch.Tensor, dim: int) -> torch.Tensor:
    """Add the 1-D ``bias`` to ``input_value`` (at least 2-D) along dimension ``dim`` (>= 0).

    Shapes: input_value (..., H, ...) with H at ``dim``; bias (H); output like input_value.
    Differentiable in both tensors (the bias gradient sums over every other dim).
    """
    assert len(bias.shape) == 1, f"Expected 1D bias weight. Instead got bias.shape = {bias.shape}"
    assert len(input_value.shape) >= 2, (
        f"Expected >= 2D input_value. Instead got input_value.shape = {input_value.shape}")
    # the real check admits dim == ndim, which then fails indexing the shape (IndexError)
    assert 0 <= dim <= len(input_value.shape), (
        f"`dim` must in [0, len(input_value.shape) - 1]. Instead got: "
        f"0 <= dim={dim} <= {len(input_value.shape)}")
    assert bias.shape[0] == input_value.shape[dim], (
        f"Expect bias.shape[0] == input_value.shape[dim={dim}]. Instead got "
        f"bias.shape = {bias.shape} and input_value.shape = {input_value.shape}")
    view_shape = [1] * input_value.dim()
    view_shape[dim] = bias.shape[0]
    return input_value + bias.view(view_shape).expand(input_value.shape)


def matmul(weight: torch.Tensor, input_value: torch.Tensor,
           weight_transposed: torch.Tensor = None) -> torch.Tensor:
    """``weight @ input_value`` for a (Ho, Hi) weight and a (Hi, S) input: (Ho, S).

    ``weight_transposed`` (Hi, Ho) is only shape-checked: the wafer uses it in the backward pass,
    the CPU path never reads it (so it gets no gradient).
    """
    _check_2d(weight, "weight")
    _check_2d(input_value, "input_value")
    assert weight.shape[1] == input_value.shape[0], (
        f"Expect weight.shape(1) == input_value.shape[0]. Instead got weight.shape = "
        f"{weight.shape} and input_value.shape = {input_value.shape}")
    _check_weight_transposed(weight, weight_transposed)
    return torch.matmul(weight, input_value)


def ranged_matmul(weight: torch.Tensor, input_value: torch.Tensor, num_cols: torch.Tensor,
                  weight_transposed: torch.Tensor = None) -> torch.Tensor:
    """(B, S, Hi) input times the (Ho, Hi) weight transposed: (B, S, Ho).

    On the wafer only the first ``num_cols[b]`` rows of each batch entry are computed and the rest
    is undefined; off the wafer (here, on every backend) every row is computed, and ``num_cols``
    (shape (B)) and ``weight_transposed`` are only shape-checked.
    """
    _check_2d(weight, "weight")
    assert len(input_value.shape) == 3, (
        f"Expected 3D input_value. Instead got input_value.shape = {input_value.shape}")
    assert weight.shape[1] == input_value.shape[2], (
        f"Expect weight.shape(1) == input_value.shape[2]. Instead got weight.shape = "
        f"{weight.shape} and input_value.shape = {input_value.shape}")
    assert len(num_cols.shape) == 1, (
        f"Expected len(num_cols.shape) == 1. Instead got len(num_cols.shape) = "
        f"{len(num_cols.shape)}")
    _check_weight_transposed(weight, weight_transposed)
    return torch.einsum("...MN,KN->...MK", input_value, weight)


# ----- index-producing kernels --------------------------------------------------------------------
def conditional_arange(mask: torch.Tensor, start: torch.Tensor, step: torch.Tensor,
                       dtype: torch.dtype = None) -> torch.Tensor:
    """Along the last dim, ``start + step * j`` at the j-th nonzero of ``mask``, -1 elsewhere.

    ``start`` and ``step`` are 0-d tensors; the result dtype is torch's promotion of them with
    int64 (the running count), then ``dtype`` if given. Masked-out positions are undefined on the
    wafer and -1 here. Differentiable in floating ``start``/``step``.

    Example: start 2, step 7, mask [0, 1, 1, 1, 0, 0, 1] -> [-1, 2, 9, 16, -1, -1, 23].
    """
    assert len(start.shape) == 0, f"Expected 0D tensor for start. Instead got {start.shape}"
    assert len(step.shape) == 0, f"Expected 0D tensor for step. Instead got {step.shape}"
    mask = mask.bool()
    count = torch.cumsum(mask, dim=-1) - 1  # 0 at the first selected position
    scaled = start + step * count
    result = torch.where(mask, scaled, torch.full_like(scaled, -1))
    if dtype is not None:
        result = result.to(dtype)
    return result


def nth_order_statistic(input: torch.Tensor, k: int, dimension: int) -> torch.Tensor:
    """An int16 mask of ``input``'s shape: 1 at the ``k`` largest entries along ``dimension``.

    NaN ranks above every number (torch.topk's order). Among equal values the lower index is taken
    first. Differs from cstorch: its CPU path inherits torch.topk's tie order, which its selection
    algorithm decides (``[1, 1, 1, 0, 1]`` with k 2 marks indices 2 and 4 there, 0 and 1 here).

    Example: dimension 0, k 3, input [0, 2, 3, 5, 4, 1, 6] -> [0, 0, 0, 1, 1, 0, 1].
    """
    if not isinstance(input, torch.Tensor):  # the real one calls input.topk
        raise AttributeError(f"'{type(input).__name__}' object has no attribute 'topk'")
    if isinstance(k, bool) or not hasattr(k, "__index__"):
        raise TypeError(f"topk(): argument 'k' (position 1) must be int, not {type(k).__name__}")
    if input.dtype is torch.bool:
        raise RuntimeError("\"topk_cpu\" not implemented for 'Bool'")
    if input.ndim == 0:  # torch treats a 0-d tensor as one element along dim 0 (or -1)
        return nth_order_statistic(input.reshape(1), k, dimension).reshape(())
    top = torch.topk(input, operator.index(k), dim=dimension).indices
    mask = torch.zeros_like(input, dtype=torch.int16)
    return torch.scatter(mask, dimension, top, torch.ones_like(top, dtype=torch.int16))


def unbind(tensor: torch.Tensor) -> Tuple[torch.Tensor, ...]:
    """The slices of ``tensor`` along dim 0, as a tuple of views (gradients flow back)."""
    if len(tensor.shape) == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return tuple(torch.unbind(tensor, dim=0))


# ----- sparse kernels -----------------------------------------------------------------------------
def sparse_matmul(input_values: torch.Tensor, input_indices: torch.Tensor,
                  weight: torch.Tensor) -> torch.Tensor:
    """Batched matmul whose batch dim B is sparse in the input: only the listed B are computed.

    ``input_values[..., m, j, :]`` is dense entry ``B = input_indices[..., m, j]`` (int64, below
    2**16); each is multiplied by ``weight[:, B, :]`` transposed, and the output keeps the sparse
    layout.

    Shapes: input_values (..., M, b, N); input_indices (..., M, b); weight (K, B, N);
    output (..., M, b, K). Differentiable in ``input_values`` and ``weight``.
    """
    if weight.size(1) >= 2**16:
        # The real function means to raise NotImplementedError here but calls the NotImplemented
        # constant, so what the caller sees is this TypeError.
        raise TypeError("'NotImplementedType' object is not callable")
    sparse_dim = -2
    _ = input_values.shape[sparse_dim]  # read as the real one does: IndexError below 2-D
    full_sparse = weight.shape[sparse_dim]
    dense_shape = (*input_values.shape[:sparse_dim], full_sparse,
                   *input_values.shape[sparse_dim + 1:])
    indices = input_indices.unsqueeze(-1)
    dense = torch.zeros(dense_shape, dtype=input_values.dtype, device=input_values.device)
    scatter_index = indices.broadcast_to(input_values.shape)
    _check_scatter_index(scatter_index)
    dense = torch.scatter(dense, sparse_dim, scatter_index, input_values)
    output = torch.einsum("...MBN,KBN->...MBK", dense, weight)
    out_shape = (*input_values.shape[:-1], weight.shape[0])
    return torch.gather(output, sparse_dim, indices.broadcast_to(out_shape))


def sparse_act_matmul(input_value: torch.Tensor, input_mask: torch.Tensor, weight: torch.Tensor,
                      dense_capacity: Optional[int] = None) -> torch.Tensor:
    """``input_value @ weight.T`` with row m scaled by ``input_mask[..., m]`` (1 keeps, 0 drops).

    ``dense_capacity`` (the wafer's bound on kept rows) is not used off the wafer.

    Shapes: input_value (..., M, N); input_mask (..., M); weight (K, N); output (..., M, K).
    Differentiable in ``input_value``, ``weight`` and a floating ``input_mask``.
    """
    assert input_value.shape[:-1] == input_mask.shape, (
        f"Expect input_value and input_mask to have the same shape (except for last dim of "
        f"input_value).\nInstead got input_value.shape = {input_value.shape} and "
        f"input_mask.shape = {input_mask.shape}")
    out = torch.einsum("...MN,KN->...MK", input_value, weight)
    return out * input_mask.unsqueeze(-1).broadcast_to(out.shape).to(out.dtype)
