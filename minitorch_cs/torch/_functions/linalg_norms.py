"""The norms of ``torch.linalg`` (``vector_norm``, ``matrix_norm``, ``norm``) and ``svdvals``,
here so that ``torch.norm`` can hand its matrix orders (``"nuc"``) to ``matrix_norm`` as torch
does (``torch.linalg`` re-exports them).

Each follows torch 2.13's argument checks, dtype rules (floating inputs only; ``dtype=`` must
widen, never narrow) and composition (``matrix_norm`` of order ±1/±inf is a max/min of 1-norms,
of order ±2/``"nuc"`` a max/min/sum of singular values), so values, gradients and errors match.
"""

import builtins
import math

from .. import _dtype as D
from .._autograd import torch_named as _torch_named
from .._dispatch import apply as _apply
from .._errors import c_number
from .._ops import linalg as L
from .._ops import reduce as R
from .._tensor import Tensor as _Tensor, _wrap_dim
from ._common import _dims
from .reduction import amax as _amax, amin as _amin, sum as _sum
from .reduction import norm_dtype as _with_dtype, norm_identity as _norm_identity


def _check_input(x, fn):
    if not isinstance(x, _Tensor):
        raise TypeError(f"linalg_{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"linalg.{fn}: Expected a floating point or complex tensor as input. "
                           f"Got {D.scalar_name(x.dtype)}")


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """``(sum |x|^ord)^(1/ord)`` over ``dim`` (all dims when None); ``ord`` inf/-inf: max/min
    of ``|x|``, 0: the count of nonzeros. Empty reductions of an order without an identity
    (negative or infinite) are refused, as torch does."""
    _check_input(x, "vector_norm")
    if isinstance(ord, str) or not isinstance(ord, (int, float)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not "
                        f"{type(ord).__name__}")
    x = _with_dtype(x, dtype, "vector_norm")
    if isinstance(dim, int):
        dim = (dim,)
    axis = _dims(dim, x.ndim)
    _norm_identity(x, ord, axis)
    return _apply(R.Norm, x, p=float(ord), axis=axis, keepdim=keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm over the two dims ``dim``: ``"fro"``, ``"nuc"`` or ``ord`` in
    ±1 / ±2 / ±inf (torch's composition: 1-norms then max/min, or singular values)."""
    _check_input(A, "matrix_norm")
    if not isinstance(dim, (tuple, list)):
        raise TypeError(f"linalg_matrix_norm() received an invalid combination of arguments - got "
                        f"(Tensor, dim={type(dim).__name__}), but expected one of: (Tensor input, "
                        "Number ord, tuple of ints dim = {-2,-1}, ...)")
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + " ".join(str(d) for d in dim))
    d0, d1 = (_wrap_dim(d, A.ndim) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, "
                           f"{dim[1]})")
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    elif ord not in (1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {c_number(ord)} not supported.")
    spectral = ord == "nuc" or (not isinstance(ord, str) and builtins.abs(ord) == 2)
    if spectral and A.dtype in (D.float16, D.bfloat16):
        raise RuntimeError(f"linalg.matrix_norm: Low precision dtypes not supported. Got "
                           f"{D.scalar_name(A.dtype)}")
    A = _with_dtype(A, dtype, "matrix_norm")
    if ord == "fro":
        r = vector_norm(A, 2, (d0, d1), keepdim)
    elif spectral:
        rest = [i for i in range(A.ndim) if i not in (d0, d1)]
        s = svdvals(A.permute(*rest, d0, d1))
        r = _sum(s, -1) if ord == "nuc" else _amax(s, -1) if ord > 0 else _amin(s, -1)
        if keepdim:  # (torch: the reduction kept its dims, then permuted back)
            r = _torch_named(r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1)), "PermuteBackward0",
                             A)
    else:
        a, b = (d1, d0) if builtins.abs(ord) == math.inf else (d0, d1)
        if not keepdim and a < b:
            b -= 1
        v = vector_norm(A, 1.0, a, keepdim)
        r = _amax(v, b, keepdim) if ord > 0 else _amin(v, b, keepdim)
    return r


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """``vector_norm`` or ``matrix_norm`` by ``dim`` (one dim or two) and, without ``dim``,
    by ``ord`` and ``A``'s rank (``ord=None``: the 2-norm of all elements)."""
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                               f"Got {list(dims)}")
    elif ord is not None:
        if A.ndim not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must "
                               f"be 1D or 2D. Got {A.ndim}D.")
        dims = tuple(range(A.ndim))
    else:
        dims = None
    if isinstance(ord, str):  # matrix orders
        return matrix_norm(A, ord, dims if dims is not None else (-2, -1), keepdim,
                           dtype=dtype)
    if dims is not None and len(dims) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)


def svdvals(A, *, driver=None):
    """The singular values of ``A``'s last two dims, in descending order."""
    _check_input(A, "svd")
    if A.ndim < 2:
        raise RuntimeError(f"linalg.svd: The input tensor A must have at least 2 dimensions.")
    if A.dtype in (D.float16, D.bfloat16):
        raise NotImplementedError(f'"linalg_svd_cpu" not implemented for '
                                  f"'{D.scalar_name(A.dtype)}'")
    return _apply(L.Svdvals, A)
