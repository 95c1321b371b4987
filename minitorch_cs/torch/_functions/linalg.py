"""Linear algebra: matmul family, addmm/addmv/addr, einsum, tensordot, float32 matmul precision."""
from __future__ import annotations

import builtins
import math

import numpy as np

from .. import _dtype as D
from .._autograd import also_checked, torch_named
from .._dispatch import apply, apply_inplace
from .._errors import _size_mismatch
from .._fpe import warn_user
from .._ops import linalg as L
from .._ops import matvec as MV
from .._ops import movement as M
from .._tensor import Tensor, _size, _wrap_dim
from .pointwise import mul

__all__ = ["set_float32_matmul_precision", "get_float32_matmul_precision", "matmul", "mm", "bmm",
           "mv", "dot", "outer", "addmm", "einsum", "tensordot", "baddbmm", "addbmm", "kron",
           "addmv", "addr", "cross"]


# ----- linear algebra -----------------------------------------------------------------------------
_MATMUL_PRECISION = ["highest"]


def set_float32_matmul_precision(precision: str) -> None:
    """Record the internal precision of float32 matrix multiplications: ``"highest"`` (the
    default), ``"high"`` or ``"medium"``.

    On torch's CPU backend (and here) this has no numeric effect: float32 matmuls always compute
    in float32, so the setting is only stored for :func:`get_float32_matmul_precision`. Another
    string warns (torch's UserWarning) and leaves the setting unchanged.

    Raises:
        RuntimeError: ``precision`` is not a str (torch's message).
    """
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        from .._fpe import warn_user
        # torch's text, missing space included
        warn_user(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                  "setFloat32MatmulPrecision call has no effect.")
        return
    _MATMUL_PRECISION[0] = precision


def get_float32_matmul_precision() -> str:
    """The value set by :func:`set_float32_matmul_precision` (``"highest"`` by default)."""
    return _MATMUL_PRECISION[0]


def matmul(input, other, *, out=None):
    return apply(L.Matmul, input, other)


def mm(input, mat2):
    _check_mm_ranks(input, mat2)
    return apply(L.Matmul, input, mat2)


def _check_mm_ranks(input, mat2):
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError("self must be a matrix" if input.ndim != 2 else "mat2 must be a matrix")


def _product_out_dtype(out, input):
    """torch's product meta functions give the result ``input``'s dtype: a differently typed
    ``out`` is refused before the operands' dtypes are compared or the kernel is chosen."""
    if out.dtype is not input.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {D.cpp_name(input.dtype)}, but got "
                           f"{D.cpp_name(out.dtype)} instead")


def _mm_out_check(out, input, mat2):
    """``mm(..., out=)``: the ranks, the inner sizes, then ``out``'s dtype (torch 2.13's order)."""
    _check_mm_ranks(input, mat2)
    L._check_mm(input, mat2)
    _product_out_dtype(out, input)


mm.out_check = _mm_out_check


def _matmul_out_check(out, input, other):
    """``matmul(..., out=)``: two vectors take ``dot``'s check; otherwise, once the inner sizes
    agree, ``out`` must have the dtype its mm/mv/bmm path's meta function gives the result
    (matrix times vector: addmv's check of out, matrix and vector together)."""
    if not (isinstance(input, Tensor) and isinstance(other, Tensor)) or \
            input.ndim == 0 or other.ndim == 0:
        return
    if input.ndim == 1 and other.ndim == 1:
        _dot_out_check(out, input, other)
        return
    k = other.shape[0] if other.ndim == 1 else other.shape[-2]
    if input.ndim >= 2 and other.ndim == 1:  # addmv(out, matrix, vector): out takes self's place
        if not out.dtype is input.dtype is other.dtype:
            names = ", ".join(D.scalar_name(t.dtype) for t in (out, input))
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got {names}, "
                               f"and {D.scalar_name(other.dtype)}")
        return
    if input.shape[-1] == k:
        # a batched ``other`` takes bmm (whose result has its second operand's dtype) or, under a
        # vector or matrix, folds into one product of transposes with the batch first: either
        # way ``other``'s dtype; otherwise mm/mv give ``input``'s
        _product_out_dtype(out, other if other.ndim >= 3 else input)


matmul.out_check = _matmul_out_check


def bmm(input, mat2):
    _check_bmm(input, mat2)
    return apply(L.Matmul, input, mat2, bmm=True)


def _check_bmm(input, mat2):
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if input.ndim != 3 else
                           "batch2 must be a 3D tensor")
    if input.shape[0] != mat2.shape[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input.shape[0]}, {input.shape[2]}] but got: [{mat2.shape[0]}, "
                           f"{mat2.shape[1]}].")


def _bmm_out_check(out, input, mat2):
    """``bmm(..., out=)``: after the shape checks, ``out`` must have mat2's dtype (torch's meta
    function gives the result mat2's options), before the kernel's own dtype checks."""
    _check_bmm(input, mat2)
    if out.dtype is not mat2.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {D.cpp_name(mat2.dtype)}, but got "
                           f"{D.cpp_name(out.dtype)} instead")


bmm.out_check = _bmm_out_check


def mv(input, vec):
    _size(input, 0)  # torch reads the matrix's rows first
    if not (input.ndim == 2 and vec.ndim == 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    return apply(L.Matmul, input, vec)


def _mv_out_check(out, input, vec):
    """``mv(..., out=)``: addmv's check of out, matrix and vector together (wrong ranks are
    mv's own error, raised by the function)."""
    if isinstance(input, Tensor) and isinstance(vec, Tensor) and input.ndim == 2 and \
            vec.ndim == 1:
        _matmul_out_check(out, input, vec)


mv.out_check = _mv_out_check


def dot(input, other):
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    return apply(L.Matmul, input, other)


def _dot_out_check(out, input, other=None, **_):
    """``dot(..., out=)``: torch checks ``out``'s dtype against ``input``'s before anything else
    (shapes, the operands' dtypes, the kernel's dtype support)."""
    if isinstance(input, Tensor) and out.dtype is not input.dtype:
        raise RuntimeError(f"result dtype {D.scalar_name(out.dtype)} does not match input dtype "
                           f"{D.scalar_name(input.dtype)}")


dot.out_check = _dot_out_check


def outer(input, vec2):
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return mul(input.unsqueeze(1), vec2.unsqueeze(0))


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    return apply(L.Addmm, input, mat1, mat2, beta=beta, alpha=alpha)


def _addmm_inplace(self, mat1, mat2, *, beta=1, alpha=1):
    """``self.addmm_``: once the matrices are valid, ``self`` must have the product's shape
    (torch does not broadcast an in-place ``self``: "Bad in-place call")."""
    if mat1.ndim == 2 and mat2.ndim == 2 and mat1.shape[1] == mat2.shape[0] and \
            tuple(self.shape) != (mat1.shape[0], mat2.shape[1]):
        raise RuntimeError(f"Bad in-place call: input tensor size {list(self.shape)} and output "
                           f"tensor size {[mat1.shape[0], mat2.shape[1]]} should match")
    return apply_inplace(L.Addmm, self, mat1, mat2, beta=beta, alpha=alpha)


addmm.inplace = _addmm_inplace


def _addmm_out_check(out, input, mat1, mat2, **_):
    """``addmm(..., out=)``: torch's meta function checks the operands' dtypes (self with mat2,
    then mat1 with mat2), the ranks and the inner sizes, then ``out`` against mat1's dtype --
    before the kernel's checks (self's shape, a dtype without a kernel). Where an earlier check
    fails the kernel reports it."""
    if input.dtype is mat1.dtype is mat2.dtype and mat1.ndim == 2 and mat2.ndim == 2 and \
            mat1.shape[1] == mat2.shape[0]:
        _product_out_dtype(out, mat1)


addmm.out_check = _addmm_out_check


def _scalar_arg(v, fname, name):
    """A ``Scalar`` argument: a Python number, or a one-element tensor counted as its value
    (anything else is torch's TypeError)."""
    if isinstance(v, Tensor) and v.numel() == 1:
        return v.item()
    if isinstance(v, (builtins.bool, builtins.int, builtins.float)) or \
            (hasattr(v, "dtype") and not isinstance(v, Tensor) and getattr(v, "ndim", 1) == 0):
        return v.item() if hasattr(v, "item") else v
    raise TypeError(f"{fname}(): argument '{name}' must be Number, not {type(v).__name__}")


def _addmv_args(input, mat, vec):
    """torch's shape checks for ``addmv``; returns the result's length."""
    if mat.ndim != 2 or vec.ndim != 1 or input.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, "
                           f"{vec.ndim}")
    n = mat.shape[0]
    if mat.shape[1] != vec.shape[0] or (input.ndim == 1 and input.shape[0] not in (1, n)):
        got = f"{input.shape[0]}" if input.ndim else ""
        raise RuntimeError(f"size mismatch, got input ({got}), mat ({n}x{mat.shape[1]}), vec "
                           f"({vec.shape[0]})")
    return n


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``: ``mat`` 2-D, ``vec`` 1-D, ``input`` broadcasting
    to the product's length; the three tensors share one dtype (integers take the scalars
    truncated, bool has no kernel). ``beta=0`` ignores ``input`` (NaN and inf included).
    Where torch's kernel resizes the result to ``input``'s shape we do too, with its warning: an
    empty ``mat`` with ``beta != 0`` gives ``beta * input``, a 0-d ``input`` with a one-row
    ``mat`` a 0-d result. Differentiable in all three tensors (``input`` gets ``beta * grad``)."""
    beta, alpha = _scalar_arg(beta, "addmv", "beta"), _scalar_arg(alpha, "addmv", "alpha")
    n = _addmv_args(input, mat, vec)
    shape = (n,)
    if mat.numel() == 0 and beta != 0:  # torch's kernel: the result is beta * input as given
        shape = tuple(input.shape)
    elif input.ndim == 0 and n == 1:  # (and a 0-d input keeps a one-row product 0-d)
        shape = ()
    if n and shape != (n,):
        from .._out import resize_warning
        resize_warning((n,), shape)
    return apply(MV.Addmv, input, mat, vec, beta=beta, alpha=alpha)


def _addmv_inplace(self, mat, vec, *, beta=1, alpha=1):
    """``self.addmv_``: ``self`` must already have the product's length (no broadcasting)."""
    beta, alpha = _scalar_arg(beta, "addmv_", "beta"), _scalar_arg(alpha, "addmv_", "alpha")
    n = _addmv_args(self, mat, vec)
    if tuple(self.shape) != (n,):
        raise RuntimeError(f"Bad in-place call: input tensor size {list(self.shape)} and output "
                           f"tensor size {[n]} should match")
    return apply_inplace(MV.Addmv, self, mat, vec, beta=beta, alpha=alpha)


addmv.inplace = _addmv_inplace


def _addmv_out_check(out, input, mat, vec, **_):
    """``addmv(..., out=)``: after the ranks and sizes and the three tensors' common dtype,
    ``out`` must have that dtype, before the kernel's dtype support (bool has none)."""
    _addmv_args(input, mat, vec)
    if input.dtype is mat.dtype is vec.dtype:
        _product_out_dtype(out, vec)


addmv.out_check = _addmv_out_check


def _addr_args(input, vec1, vec2, beta, alpha, fname="addr"):
    """torch's checks for ``addr``: 1-D vectors; an integral (or bool) result dtype refuses a
    floating ``beta``/``alpha``, any other a bool one. Returns (result dtype: the three
    tensors promoted, beta, alpha)."""
    beta, alpha = _scalar_arg(beta, fname, "beta"), _scalar_arg(alpha, fname, "alpha")
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    # (every operand a full participant: torch's iterator sees input expanded to the result)
    dt = D.promote_types(D.promote_types(input._dtype, vec1._dtype), vec2._dtype)
    for name, s in (("beta", beta), ("alpha", alpha)):
        if dt is not D.bool and isinstance(s, builtins.bool):
            raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
        if not dt.is_floating_point and isinstance(s, builtins.float):
            raise RuntimeError(f"For integral input tensors, argument {name} must not be a "
                               "floating point number.")
    return dt, beta, alpha


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)`` in the promoted dtype of the three tensors,
    ``input`` broadcasting to ``(len(vec1), len(vec2))``; bool tensors use and/or. ``beta=0``
    ignores ``input`` (NaN included). Differentiable in all three tensors."""
    dt, beta, alpha = _addr_args(input, vec1, vec2, beta, alpha)
    c = input.expand(vec1.shape[0], vec2.shape[0])
    saved = _saved_vectors(vec1, vec2, dt)
    out = apply(MV.Addr, c.to(dt), vec1.to(dt).unsqueeze(1), vec2.to(dt).unsqueeze(0),
                beta=beta, alpha=alpha)
    return also_checked(out, versions=saved) if saved else out


def _saved_vectors(vec1, vec2, dt):
    """torch's addr node saves the vectors themselves (each for the other's gradient); where
    ours multiplies converted copies, the originals' versions now (before an in-place addr_
    writes, which bumps a vector sharing the target's storage), to be checked too: an in-place
    change of one before backward is refused as in torch."""
    if vec1.dtype is dt and vec2.dtype is dt:
        return []
    return [(t, t._vc[0]) for t in (vec1 if vec2.requires_grad else None,
                                    vec2 if vec1.requires_grad else None) if t is not None]


def _addr_inplace(self, vec1, vec2, *, beta=1, alpha=1):
    """``self.addr_``: ``self`` is the 2-D result (no broadcasting), keeping its dtype."""
    dt, beta, alpha = _addr_args(self, vec1, vec2, beta, alpha, "addr_")
    if self.ndim != 2:
        raise RuntimeError(f"2D tensor expected, got {self.ndim}D tensor for input")
    self.expand(vec1.shape[0], vec2.shape[0])  # (torch's size error first)
    if tuple(self.shape) != (vec1.shape[0], vec2.shape[0]):
        raise RuntimeError(f"The size of tensor a ({self.shape[1]}) must match the size of "
                           f"tensor b ({vec2.shape[0]}) at non-singleton dimension 1")
    saved = _saved_vectors(vec1, vec2, dt)
    out = apply_inplace(MV.Addr, self, vec1.to(dt).unsqueeze(1), vec2.to(dt).unsqueeze(0),
                        beta=beta, alpha=alpha)
    return also_checked(out, versions=saved) if saved else out


addr.inplace = _addr_inplace


def _check_batches(batch1, batch2):
    if batch1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)``: ``input`` broadcasts to ``(b, n, p)``;
    ``beta=0`` ignores ``input`` (NaN included); integer tensors take the scalars truncated."""
    shape = (_size(batch1, 0), _size(batch1, 1), _size(batch2, 2))
    c = input.expand(shape)
    _check_baddbmm(shape, batch1, batch2)
    return apply(L.Baddbmm, c, batch1, batch2, beta=beta, alpha=alpha)


def _baddbmm_out_check(out, input, batch1, batch2, **_):
    """``baddbmm(..., out=)``: after the shape checks, ``out`` must have batch2's dtype (the
    dtype torch's meta function gives the result), before the kernel's own dtype checks."""
    shape = (_size(batch1, 0), _size(batch1, 1), _size(batch2, 2))
    input.expand(shape)
    _check_baddbmm(shape, batch1, batch2)
    if out.dtype is not batch2.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {D.cpp_name(batch2.dtype)}, but got "
                           f"{D.cpp_name(out.dtype)} instead")


baddbmm.out_check = _baddbmm_out_check


def _check_baddbmm(shape, batch1, batch2):
    _check_batches(batch1, batch2)
    if batch2.shape[:2] != (shape[0], batch1.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{shape[0]}, {batch1.shape[2]}] but got: [{batch2.shape[0]}, "
                           f"{batch2.shape[1]}].")


def _baddbmm_inplace(self, batch1, batch2, *, beta=1, alpha=1):
    shape = (_size(batch1, 0), _size(batch1, 1), _size(batch2, 2))
    if tuple(self.shape) != shape:
        raise RuntimeError(f"Bad in-place call: input tensor size {list(self.shape)} and output "
                           f"tensor size {list(shape)} should match")
    if self.dtype is batch1.dtype and batch2.dtype is not batch1.dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {D.cpp_name(self.dtype)} and "
                           f"output tensor dtype {D.cpp_name(batch2.dtype)} should match")
    _check_baddbmm(shape, batch1, batch2)
    return apply_inplace(L.Baddbmm, self, batch1, batch2, beta=beta, alpha=alpha)


baddbmm.inplace = _baddbmm_inplace


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_i batch1[i] @ batch2[i]``: ``input`` broadcasts to
    ``(n, p)``; the batches accumulate in order (torch's loop of addmm calls)."""
    c = input.expand(_size(batch1, 1), _size(batch2, 2))
    _check_addbmm(batch1, batch2)
    return apply(L.Addbmm, c, batch1, batch2, beta=beta, alpha=alpha)


def cross(input, other, dim=None):
    """``linalg.cross`` along ``dim``; without ``dim``, along the input's first dim of size 3
    (torch's deprecated default, with its warning)."""
    if dim is None:
        warn_user("Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
                  "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value "
                  "of dim will change to agree with that of linalg.cross in a future release.")
        sizes = list(input.shape) if isinstance(input, Tensor) else []
        if 3 not in sizes:
            raise RuntimeError("no dimension of size 3 in input")
        dim = sizes.index(3)
    return _linalg_cross(input, other, dim)


def _linalg_cross(input, other, dim):
    """``torch.linalg.cross`` (see there); torch's checks in its order: the ranks, the size of
    ``dim``, broadcasting, the kernel's bool refusal, then the second dtype."""
    for arg, v, pos in (("input", input, 1), ("other", other, 2)):
        if not isinstance(v, Tensor):
            raise TypeError(f"linalg_cross(): argument '{arg}' (position {pos}) must be Tensor, "
                            f"not {type(v).__name__}")
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap_dim(dim, input.ndim)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[d]} and {other.shape[d]}")
    mismatch = _size_mismatch([tuple(input.shape), tuple(other.shape)])
    if mismatch is not None:
        raise mismatch
    if input.dtype is D.bool:
        raise NotImplementedError('"cross" not implemented for \'Bool\'')
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {D.scalar_name(input.dtype)} but found "
                           f"{D.scalar_name(other.dtype)}")
    return apply(L.LinalgCross, input, other, dim=d)


def _addbmm_out_check(out, input, batch1, batch2, *args, **kwargs):
    """``addbmm(..., out=)``: torch copies ``input`` into ``out`` and runs ``out.addmm_`` per
    batch, whose first check is out (as self) against ``batch2`` (as mat2), before any kernel
    refuses a dtype."""
    if not (isinstance(batch1, Tensor) and isinstance(batch2, Tensor)):
        return
    _check_addbmm(batch1, batch2)  # (its rank and size checks come first)
    if out.dtype is not batch2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{D.scalar_name(out.dtype)} and {D.scalar_name(batch2.dtype)}")


addbmm.out_check = _addbmm_out_check


def _check_addbmm(batch1, batch2):
    _check_batches(batch1, batch2)
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{batch1.shape[0]} and {batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x"
                           f"{batch1.shape[2]} and {batch2.shape[1]}x{batch2.shape[2]})")


def _addbmm_inplace(self, batch1, batch2, *, beta=1, alpha=1):
    self.expand(_size(batch1, 1), _size(batch2, 2))
    _check_addbmm(batch1, batch2)
    if tuple(self.shape) != (batch1.shape[1], batch2.shape[2]):
        raise RuntimeError("self tensor does not match matmul output shape")
    return apply_inplace(L.Addbmm, self, batch1, batch2, beta=beta, alpha=alpha)


addbmm.inplace = _addbmm_inplace


def _kron_product(input, other):
    """The product torch's kron forms: both operands padded to the same number of dims,
    interleaved as ``(a0, 1, a1, 1, ...)`` and ``(1, b0, 1, b1, ...)`` and multiplied
    (broadcasting, with torch's promotion); with the result's shape ``(a0*b0, a1*b1, ...)``."""
    nd = builtins.max(input.ndim, other.ndim)
    sa = (1,) * (nd - input.ndim) + tuple(input.shape)
    sb = (1,) * (nd - other.ndim) + tuple(other.shape)
    a = apply(M.UnsafeView, input, shape=tuple(v for n in sa for v in (n, 1)))
    b = apply(M.UnsafeView, other, shape=tuple(v for n in sb for v in (1, n)))
    return mul(a, b), [x * y for x, y in zip(sa, sb)]


def kron(input, other):
    """The Kronecker product, as torch computes it: the interleaved product viewed as
    ``(a0*b0, a1*b1, ...)`` by torch's ``_unsafe_view`` -- viewed, so operands whose product is
    not laid out for it raise torch's view error, but not a view for autograd (an in-place op
    on the result is an ordinary one)."""
    product, shape = _kron_product(input, other)
    try:
        np.reshape(product._data, shape, copy=False)
    except ValueError:
        return product.view(shape)  # (raises torch's view error)
    return apply(M.UnsafeView, product, shape=tuple(shape))


def _kron_out(input, other):
    """``kron(..., out=)``: torch multiplies into a view of the (contiguous) ``out``, so the
    product's own layout never has to be viewable."""
    product, shape = _kron_product(input, other)
    return product.reshape(shape)


kron.out_variant = _kron_out


def _sublist_equation(args):
    """torch's sublist form of einsum as an equation: each subscript ``s`` in [0, 52) is a
    letter (``A``-``Z`` for 0-25, ``a``-``z`` for 26-51, so the implicit output's alphabetical
    order is the subscripts' order), ``Ellipsis`` is ``...``; a trailing list is the output."""
    def letters(sub):
        out = []
        for s in sub:
            if s is Ellipsis:
                out.append("...")
                continue
            if not 0 <= s < 52:
                raise ValueError("einsum(): subscript in subscript list is not within the valid "
                                 "range [0, 52)")
            out.append(chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26))
        return "".join(out)
    operands, subs = list(args[0::2]), [letters(s) for s in args[1::2]]
    out = None
    if len(args) % 2:  # an odd count: the last is the output sublist
        out = letters(operands.pop())
    return ",".join(subs) + ("" if out is None else "->" + out), tuple(operands)


def einsum(equation, *operands):
    """torch.einsum: ``...`` and size-1 broadcasting are resolved here (``...`` becomes unused
    letters, right-aligned across operands; size-1 dims are expanded, so their gradients sum),
    and the op sees one explicit equation over operands of matching sizes."""
    if not operands:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if not isinstance(equation, str):  # einsum(op1, sublist1, op2, sublist2, ..., [out])
        equation, operands = _sublist_equation((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    subs = lhs.split(",")
    if len(operands) != len(subs):
        more = "more" if len(operands) > len(subs) else "fewer"
        raise RuntimeError(f"einsum(): {more} operands were provided than specified in the "
                           "equation")
    named = [sub.replace("...", "") for sub in subs]
    ell_rank = 0
    for i, (sub, n, op) in enumerate(zip(subs, named, operands)):
        if "..." in sub:
            if len(n) > op.ndim:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(n)}) "
                                   f"is more than the number of dimensions ({op.ndim}) for "
                                   f"operand {i}")
            ell_rank = builtins.max(ell_rank, op.ndim - len(n))
        elif len(n) != op.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(n)}) does "
                               f"not match the number of dimensions ({op.ndim}) for operand {i} "
                               "and no ellipsis was given")
    letters = [c for c in "".join(named) if c.isalpha()]
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in eq]
    ell = "".join(spare[:ell_rank])
    subs = [sub.replace("...", ell[ell_rank - (op.ndim - len(n)):]) if "..." in sub else sub
            for sub, n, op in zip(subs, named, operands)]
    if arrow:
        out = out.replace("...", ell)
    else:  # torch: the broadcast dims, then the letters used once, alphabetically
        out = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    sizes = {}
    for i, (sub, op) in enumerate(zip(subs, operands)):
        for c, n in zip(sub, op.shape):
            seen = sizes.get(c)
            if seen is not None and seen != n and 1 not in (seen, n):
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {i} which "
                                   f"does not broadcast with previously seen size {seen}")
            if seen is None or seen == 1:
                sizes[c] = n
    contracted = _contracted(operands, subs, out)
    if len(operands) > 1 and not contracted and all(len(set(sub)) == len(sub) for sub in subs):
        return _einsum_products(operands, subs, out)
    given = operands
    operands = _einsum_dtypes(operands, contracted, subs, out)
    # an operand promoted to the common dtype reaches the op as a copy: torch's products save
    # the operand itself for the other operands' gradients, so its in-place change is refused
    cast = [t for k, (t, c) in enumerate(zip(given, operands)) if c is not t and any(
        o.requires_grad for j, o in enumerate(given) if j != k)]
    # torch's last node: one operand's sum over its summed letters, else its permute; of
    # several, the view of their bmm when a letter is summed, else their product
    summed = bool(set("".join(subs)) - set(out))
    node = ("SumBackward1" if summed else "PermuteBackward0") if len(operands) == 1 else \
        ("ViewBackward0" if summed else "MulBackward0")
    if len(operands) == 1 and set(subs[0]) == set(out):
        return torch_named(_einsum_view(operands[0], subs[0], out), node, *given)
    mem = _bmm_order(operands, subs, out) if len(operands) == 2 and contracted else out
    operands = [op.expand(*[sizes[c] for c in sub]) if tuple(op.shape) != tuple(
        sizes[c] for c in sub) else op for sub, op in zip(subs, operands)]
    r = apply(L.Einsum, *operands, equation=",".join(subs) + "->" + mem)
    if cast:
        also_checked(r, *cast)
    if mem != out:
        from .shape import permute
        r = permute(r, [mem.index(c) for c in out])
    elif node == "ViewBackward0":  # (torch's result is a view of its bmm's: an in-place op
        r = apply(M.View, r, shape=tuple(r.shape))  # on it rebases that, as on any view)
    return torch_named(r, node, *given)


def _einsum_products(operands, subs, out):
    """Operands that share no summed letter, as torch computes them: every operand permuted to
    one letter order (the output's letters, then the summed ones -- capitals first), with size-1
    dims for the letters it lacks; multiplied left to right, each with the summed letters only it
    has summed first (keepdim); the summed dims viewed away at the end. So the product promotes,
    rounds, saves and differentiates as ``mul`` does (half-precision products round before a
    gradient sums them; a one-element operand is the kernel's scalar)."""
    summed = sorted(set("".join(subs)) - set(out), key=lambda c: (c.islower(), c))
    order = out + "".join(summed)
    result = None
    for sub, op in zip(subs, operands):
        letters = list(sub)
        for c in order:  # the missing letters go last, then one permutation (the new dims'
            if c not in sub:  # strides are torch's)
                op = op.unsqueeze(len(letters))
                letters.append(c)
        perm = [letters.index(c) for c in order]
        if perm != list(range(len(perm))):
            op = op.permute(perm)
        alone = tuple(k for k in range(len(out), len(order)) if op.shape[k] != 1)
        if alone:
            op = op.sum(alone, keepdim=True)
        result = op if result is None else mul(result, op)
    if summed:
        result = result.view(list(result.shape[:len(out)]))
    return result


def _contracted(operands, subs, out):
    """The letters torch contracts with ``bmm``: summed away (not in the output), present in two
    or more operands with a size other than 1 (size-1 letters broadcast; letters of one operand
    are summed first)."""
    found = set()
    for c in set("".join(subs)) - set(out):
        big = [op for sub, op in zip(subs, operands) if c in sub and op.shape[sub.index(c)] != 1]
        if len(big) >= 2:
            found.add(c)
    return found


def _bmm_order(operands, subs, out):
    """The memory order of torch's two-operand contraction result: the ``bmm`` output is
    (letters of both operands, letters of the left one, the rest), viewed back in the
    equation's output order (torch's ``sumproduct_pair``)."""
    def big(k, c):
        sub = subs[k]
        return c in sub and operands[k].shape[sub.index(c)] != 1
    lro = [c for c in out if big(0, c) and big(1, c)]
    lo = [c for c in out if big(0, c) and not big(1, c)]
    ro = [c for c in out if c not in lro and c not in lo]
    return "".join(lro + lo + ro)


def _einsum_dtypes(operands, contracted, subs, out):
    """torch's einsum dtypes: a contraction of several operands runs on ``bmm`` (one dtype,
    no bool); products without a contracted letter multiply (they promote); a sum over one
    operand sums (integers and bool give int64)."""
    if len(operands) > 1 and contracted:
        if operands[0].dtype is D.bool:
            raise NotImplementedError('"bmm" not implemented for \'Bool\'')
        for op in operands[1:]:
            if op.dtype is not operands[0].dtype:
                raise RuntimeError(f"expected scalar type {D.scalar_name(operands[0].dtype)} but "
                                   f"found {D.scalar_name(op.dtype)}")
        return list(operands)
    rt = D.result_type(*operands)
    if len(operands) == 1 and not rt.is_floating_point and set(subs[0]) - set(out):
        rt = D.int64
    return [op if op.dtype is rt else op.to(rt) for op in operands]


def _einsum_view(x, sub, out):
    """A single operand without a summed letter: torch returns a view (diagonals of repeated
    letters, then a permutation)."""
    from .shape import diagonal, permute
    letters = list(sub)
    while len(set(letters)) != len(letters):
        c = next(ch for ch in letters if letters.count(ch) > 1)
        i = letters.index(c)
        j = letters.index(c, i + 1)
        x = diagonal(x, 0, i, j)
        letters = [ch for k, ch in enumerate(letters) if k not in (i, j)] + [c]
    return permute(x, [letters.index(c) for c in out])


def tensordot(a, b, dims=2, out=None):
    """torch's tensordot: a contracted dim of size 1 on one side is summed away on the other
    first (in the operand's own dtype); the remaining contracted dims become the inner dim of one
    ``mm`` of the permuted, flattened operands (so ``mm``'s dtype rules hold: bool is refused),
    reshaped to the free dims of ``a`` then ``b``."""
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    elif not isinstance(dims, (list, tuple)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    else:
        da, db = [list(d) if isinstance(d, (list, tuple)) else [d] for d in dims]
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    da = [_wrap_dim(d, a.ndim) for d in da]
    db = [_wrap_dim(d, b.ndim) for d in db]
    t1, t2, inner = a, b, 1
    for i, j in zip(da, db):
        s1, s2 = a.shape[i], b.shape[j]
        if s2 == 1:
            t1 = t1.sum(i, keepdim=True, dtype=t1.dtype)
        elif s1 == 1:
            t2 = t2.sum(j, keepdim=True, dtype=t2.dtype)
        elif s1 != s2:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in "
                               f"dim {i} and second has size {s2} in dim {j}")
        else:
            inner *= s1
    free1 = [i for i in range(a.ndim) if i not in da]
    free2 = [j for j in range(b.ndim) if j not in db]
    rows = math.prod(t1.shape[i] for i in free1)
    cols = math.prod(t2.shape[j] for j in free2)
    m1 = t1.permute(free1 + da).reshape(rows, inner)
    m2 = t2.permute(db + free2).reshape(inner, cols)
    return mm(m1, m2).reshape([t1.shape[i] for i in free1] + [t2.shape[j] for j in free2])
