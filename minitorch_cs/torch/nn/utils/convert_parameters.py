"""``torch.nn.utils.convert_parameters``: flatten parameters into one vector and back."""
from __future__ import annotations

from ... import _functions as T
from ..._tensor import Tensor
from ..modules.module import _typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters) -> Tensor:
    """Concatenate the flattened parameters into one 1-D tensor (differentiable)."""
    return T.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Point each parameter's ``.data`` at its slice of ``vec`` (no copy, like torch)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
