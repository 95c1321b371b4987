"""Shape and view functions: reshape/view, squeeze/unsqueeze, permute/transpose, expand, narrow/select/split, cat/stack, flip/roll/tile, diagonals and triangles."""
from __future__ import annotations

import builtins
import numpy as np

from .. import _dtype as D
from .._autograd import GradState, torch_named
from .._dispatch import apply
from .._views import MARKED, MULTI_NO_GRAD_FN, NO_GRAD_VIEW
from .._ops import elementwise as E
from .._ops import movement as M
from .._ops import selection as S
from .._sizes import combination_message, sizes
from .._tensor import Tensor, _wrap_dim
from ._common import _dims, _infer_shape, _shape_arg

__all__ = ["reshape", "view", "flatten", "unflatten", "squeeze", "unsqueeze", "permute",
           "transpose", "swapaxes", "swapdims", "t", "movedim", "moveaxis", "expand",
           "broadcast_to", "broadcast_tensors", "broadcast_shapes", "narrow", "select", "unbind",
           "split", "chunk", "tensor_split", "cat", "concat", "concatenate", "stack", "hstack",
           "vstack", "flip", "roll", "tile", "repeat_interleave", "diagonal", "diag", "trace",
           "tril", "triu", "meshgrid", "take_along_dim", "rot90", "narrow_copy", "diag_embed",
           "adjoint", "real", "imag"]


@sizes("reshape", "shape", 1)
def reshape(input, *shape):
    shape = _infer_shape(_shape_arg(shape), input._data.size)
    try:
        np.reshape(input._data, shape, copy=False)
    except ValueError:
        return apply(M.ReshapeCopy, input, shape=shape)
    # (torch: a view of a contiguous tensor; of a strided one, an _reshape_alias)
    return apply(M.View, input, shape=shape, node=None if input._data.flags.c_contiguous
                 else "ReshapeAliasBackward0")


@sizes("view", "size", 1, overloaded=True)
def view(input, *shape):
    if len(shape) == 1 and isinstance(shape[0], (D.dtype, type)):
        raise NotImplementedError("view(dtype) is not supported")
    shape = _infer_shape(_shape_arg(shape), input._data.size)
    try:
        np.reshape(input._data, shape, copy=False)
    except ValueError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.") from None
    return apply(M.View, input, shape=shape)


def flatten(input, start_dim=0, end_dim=-1):
    nd = input.ndim
    if nd == 0:  # a 0-d tensor flattens to one element; its dims are [-1, 0] as for 1-d
        _wrap_dim(start_dim, nd), _wrap_dim(end_dim, nd)
        return reshape(input, 1)
    s, e = _wrap_dim(start_dim, nd), _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:  # torch returns the input itself (nothing to merge)
        return input
    shp = input.shape
    n = 1
    for d in shp[s:e + 1]:
        n *= d
    return reshape(input, tuple(shp[:s]) + (n,) + tuple(shp[e + 1:]))


def unflatten(input, dim, sizes):
    d = _wrap_dim(dim, input.ndim)
    shp = tuple(input.shape)
    try:
        sizes = _infer_shape(tuple(sizes), shp[d])
    except RuntimeError:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size "
                           f"of dim {d} ({shp[d]}) in the input tensor") from None
    return view(input, shp[:d] + sizes + shp[d + 1:])  # (splitting one dim is always a view)


def squeeze(input, dim=None):
    shp = input.shape
    if dim is None:
        new = tuple(s for s in shp if s != 1)
    else:
        dims = _dims(dim, input.ndim) or ()
        new = tuple(s for i, s in enumerate(shp) if not (i in dims and s == 1))
    # torch's nodes by overload: no dim, one dim, a tuple of dims
    node = "SqueezeBackward0" if dim is None else \
        "SqueezeBackward2" if isinstance(dim, (tuple, list)) else "SqueezeBackward1"
    return apply(M.View, input, shape=new, node=node)


def unsqueeze(input, dim):
    nd = input.ndim
    if not -(nd + 1) <= dim <= nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd - 1}, {nd}], "
                         f"but got {dim})")
    d = dim % (nd + 1)
    shp = tuple(input.shape)
    return apply(M.View, input, shape=shp[:d] + (1,) + shp[d:], unsqueeze=d,
                 node="UnsqueezeBackward0")


@sizes("permute", "dims", 1)
def permute(input, *dims):
    dims = _shape_arg(dims)
    if len(dims) != input.ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not "
                           f"match the length of the desired ordering of dimensions i.e. input.dim()"
                           f" = {input.ndim} is not equal to len(dims) = {len(dims)}")
    return apply(M.Permute, input, dims=tuple(_wrap_dim(d, input.ndim) for d in dims))


def transpose(input, dim0, dim1):
    nd = input.ndim
    if nd == 0:  # (dims 0 and -1 only, as for any dim-wise op of a 0-d tensor)
        _wrap_dim(dim0, 0), _wrap_dim(dim1, 0)
        return torch_named(input.view(()), "TransposeBackward0", input)
    p = list(range(nd))
    a, b = _wrap_dim(dim0, nd), _wrap_dim(dim1, nd)
    p[a], p[b] = p[b], p[a]
    return apply(M.Permute, input, dims=tuple(p), node="TransposeBackward0")


def swapaxes(input, axis0, axis1):
    return transpose(input, axis0, axis1)


def swapdims(input, dim0, dim1):
    return transpose(input, dim0, dim1)


def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    if input.ndim == 2:
        return apply(M.Permute, input, dims=(1, 0), node="TBackward0")
    return torch_named(input.view(tuple(input.shape)), "TBackward0", input)


def movedim(input, source, destination):
    """``source`` dims moved to ``destination`` (both ints, or both sequences of one length
    without repeats -- torch's checks and messages), the rest keeping their order."""
    if isinstance(source, int) != isinstance(destination, int):  # (int, int) or two lists
        raise TypeError(combination_message("movedim", (source, destination), {}))
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")
    nd = input.ndim
    src_w = [_wrap_dim(s, nd) for s in src]
    dst_w = [_wrap_dim(d, nd) for d in dst]
    for what, given, wrapped in (("source", src, src_w), ("destination", dst, dst_w)):
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"movedim: repeated dim in `{what}` ({given})")
    if nd == 0:  # (torch: an alias of the 0-d input)
        return apply(M.View, input, shape=(), node="AliasBackward0")
    src, dst = src_w, dst_w
    order = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute(input, order)


moveaxis = movedim


@sizes("expand", "size", 1)
def expand(input, *sizes):
    sizes = _shape_arg(sizes)
    nd = len(sizes)
    if nd < input.ndim:
        raise RuntimeError(f"expand: the number of sizes provided ({nd}) must be greater or equal "
                           f"to the number of dimensions in the tensor ({input.ndim})")
    shp = (1,) * (nd - input.ndim) + tuple(input.shape)
    new = []
    for s, cur in zip(sizes, shp):
        if s == -1:
            s = cur
        elif cur != 1 and s != cur:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size "
                               f"({cur}) at non-singleton dimension {len(new)}.  Target sizes: "
                               f"{list(sizes)}.  Tensor sizes: {list(input.shape)}")
        new.append(s)
    return apply(M.Expand, input, shape=tuple(new))


def broadcast_to(input, shape):
    return expand(input, tuple(shape))


def _need_tensors(tensors):
    """torch's parser on a list of tensors given as separate arguments."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")


def broadcast_tensors(*tensors):
    _need_tensors(tensors)
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(expand(t, shape) for t in tensors)


def broadcast_shapes(*shapes):
    from .._tensor import Size
    for s in shapes:
        if isinstance(s, Tensor):
            raise RuntimeError("Input shapes should be of type ints, a tuple of ints, or a list "
                               f"of ints, got {s!r}")
    return Size(np.broadcast_shapes(*shapes))


def narrow(input, dim, start, length):
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input.ndim)
    if isinstance(start, Tensor):
        start = int(start.item())
    n = input.shape[d]
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got "
                         f"{start})")
    if start < 0:
        start += n
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    key = (slice(None),) * d + (slice(start, start + length),)
    return apply(M.Index, input, key=key, node="SliceBackward0")


def narrow_copy(input, dim, start, length):
    """``narrow``'s slice as a new contiguous tensor (torch's own node, NarrowCopyBackward0)."""
    out = apply(E.Clone, narrow(input, dim, start, length), contiguous=True)
    return torch_named(out, "NarrowCopyBackward0", input)


def select(input, dim, index):
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {d}")
    return apply(M.Index, input, key=(slice(None),) * d + (index,), node="SelectBackward0")


def _multi_views(views, node):
    """Mark the outputs of a function that returns several views (split, chunk, unbind): torch
    refuses an in-place op on one of them that records gradients (the dispatch point reads the
    mark). Made in no_grad mode, they carry that mark instead; made from a base that requires
    no grad, a mark of their own (torch's message then says "created in no_grad mode")."""
    for i, v in enumerate(views):
        mark = v.__dict__.get("_cmeta")
        if v._base is None or (mark is not None and mark[0] == NO_GRAD_VIEW):
            continue  # (not a view, or made in no_grad mode: that mark stays)
        v.__dict__.pop("_cmeta", None)  # (a view of a view made in no_grad mode: torch's
        if v.grad_fn is not None:       # multi-output mark replaces the one it inherited)
            v.__dict__["_multi_view"] = (node, i, v._vc[0])
        elif GradState.enabled:
            v.__dict__["_cmeta"] = (MULTI_NO_GRAD_FN, v._vc[0], None)
        MARKED[0] = True
    return views


def unbind(input, dim=0):
    if input.ndim == 0:
        _wrap_dim(dim, 0)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, input.ndim)
    views = tuple(select(input, d, i) for i in range(input.shape[d]))
    return _multi_views(torch_named(views, "UnbindBackward0", input), "Unbind")


def split(tensor, split_size_or_sections, dim=0):
    d = _wrap_dim(dim, tensor.ndim)
    n = tensor.shape[d]
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        if s <= 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                               f"size of {n}")
        sizes = [s] * (n // s) + ([n % s] if n % s else []) if s else [0]
    else:
        sizes = list(split_size_or_sections)
        if builtins.sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                               f"tensor's size at dimension {d}), but got split_sizes={sizes}")
    node = "Split" if isinstance(split_size_or_sections, int) else "SplitWithSizes"
    views = torch_named(_narrows(tensor, d, sizes), node + "Backward0", tensor)
    return _multi_views(views, node)


def _narrows(tensor, d, sizes):
    out, start = [], 0
    for s in sizes:
        out.append(narrow(tensor, d, start, s))
        start += s
    return tuple(out)


def chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    n = input.shape[_wrap_dim(dim, input.ndim)]
    size = -(-n // chunks) if n else 0
    return split(input, builtins.max(size, 1), dim) if n else (input,)


def tensor_split(input, indices_or_sections, dim=0):
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = _wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
    else:
        idx = [0] + list(indices_or_sections) + [n]
        sizes = [builtins.max(b - a, 0) for a, b in zip(idx, idx[1:])]
    return _narrows(input, d, sizes)  # separate slices: each may be modified in place


def _tensor_list(tensors, fn):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    return list(tensors)


def cat(tensors, dim=0, *, out=None):
    return _cat(tensors, dim, "cat")


def concat(tensors, dim=0, *, out=None):
    """``cat``'s alias (its errors name it)."""
    return _cat(tensors, dim, "concat")


def concatenate(tensors, dim=0, *, out=None):
    """``cat``'s alias (its errors name it)."""
    return _cat(tensors, dim, "concatenate")


def _cat(tensors, dim, fname):
    tensors = _tensor_list(tensors, fname)
    for i, x in enumerate(tensors):
        if isinstance(x, Tensor) and x.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    tensors = [x for x in tensors if not (x.ndim == 1 and x.shape[0] == 0)] or list(tensors[:1])
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    d = _wrap_dim(dim, tensors[0].ndim)
    ref = tensors[0]
    for i, x in enumerate(tensors[1:], 1):
        if x.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} and "
                               f"{x.ndim}")
        for k in range(ref.ndim):
            if k != d and x.shape[k] != ref.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected "
                                   f"size {ref.shape[k]} but got size {x.shape[k]} for tensor "
                                   f"number {i} in the list.")
    rt = D.result_type(*tensors)
    tensors = [x if x._dtype is rt else x.to(rt) for x in tensors]
    return apply(M.Cat, *tensors, dim=d)



def stack(tensors, dim=0, *, out=None):
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, x in enumerate(tensors[1:], 1):
        if x.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(x.shape)} at entry {i}")
    nd = tensors[0].ndim + 1
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
                         f"but got {dim})")
    rt = D.result_type(*tensors)
    tensors = [x if x._dtype is rt else x.to(rt) for x in tensors]
    return apply(M.Stack, *tensors, dim=dim % nd)


def _need_sequence(tensors, fname, nonempty=False):
    if not isinstance(tensors, (list, tuple)):  # (a tensor would iterate over its rows)
        raise TypeError(f"{fname}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {'Tensor' if isinstance(tensors, Tensor) else type(tensors).__name__}")
    if nonempty and not tensors:
        raise RuntimeError(f"{fname} expects a non-empty TensorList")


def _at_least_1d(t):
    """torch's ``atleast_1d`` of one tensor: a 0-d one reshaped to ``(1,)``, others as given."""
    return reshape(t, (1,)) if t.ndim == 0 else t


def _at_least_2d(t):
    """``atleast_2d``: 0-d ``(1, 1)``, 1-D ``(1, n)``."""
    if t.ndim == 0:
        return reshape(t, (1, 1))
    return unsqueeze(t, 0) if t.ndim == 1 else t


def _at_least_3d(t):
    """``atleast_3d``: 0-d ``(1, 1, 1)``, 1-D ``(1, n, 1)``, 2-D ``(h, w, 1)``."""
    if t.ndim == 0:
        return reshape(t, (1, 1, 1))
    if t.ndim == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    return unsqueeze(t, -1) if t.ndim == 2 else t


def hstack(tensors):
    _need_sequence(tensors, "hstack", True)  # (torch makes each at least 1-D first)
    tensors = [_at_least_1d(x) for x in tensors]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    _need_sequence(tensors, "vstack", True)  # (torch makes each at least 2-D first)
    return cat([_at_least_2d(x) for x in tensors], 0)


def flip(input, dims):
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    axes = _dims(dims, input.ndim)  # (wrapped, repeats refused; a 0-d input takes 0 and -1)
    return apply(M.Flip, input, dims=() if axes is None else axes)


def roll(input, shifts, dims=None):
    if dims is None:
        if isinstance(shifts, (list, tuple)):
            if len(shifts) != 1:
                raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                                   "dims:0")
            shifts = shifts[0]
        return apply(M.Roll, input, shifts=shifts, dims=None)
    return apply(M.Roll, input, shifts=tuple(shifts) if isinstance(shifts, (list, tuple)) else shifts,
                 dims=tuple(dims) if isinstance(dims, (list, tuple)) else dims)


def tile(input, dims):
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return apply(M.Tile, input, reps=dims)


def _count_dtype(counts):
    """torch's kernel takes counts of int32 or int64 only."""
    if counts._dtype not in (D.int32, D.int64):
        raise NotImplementedError(
            f'"repeat_interleave_cpu" not implemented for \'{D.scalar_name(counts._dtype)}\'')


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along ``dim``) repeated ``repeats`` times; with one tensor of
    counts, index ``i`` repeated ``input[i]`` times. torch's checks, in its order: the counts'
    rank, their length against the dim, their dtype (in the one-argument form the dtype comes
    first), then their values (none negative, summing to ``output_size`` when given)."""
    if repeats is None:  # one-argument form: index i repeated input[i] times
        _count_dtype(input)
        if input.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        return apply(S.RepeatCounts, input, output_size=output_size)
    source = input
    if dim is None:
        input, dim = input.flatten(), 0
    dim = _wrap_dim(dim, input.ndim)
    if isinstance(repeats, Tensor):
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats.numel() != 1 and repeats.numel() != input.shape[dim]:
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats.numel()} and input.size(0) = "
                               f"{input.shape[dim]}")
        _count_dtype(repeats)
    elif repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    out = apply(M.RepeatInterleave, input, repeats=repeats, dim=dim, output_size=output_size)
    # (torch: an index_select, then for a number of repeats a view of it -- an in-place op on
    # the result rebases through that view)
    if isinstance(repeats, Tensor):
        return torch_named(out, "IndexSelectBackward0", source)
    return apply(M.View, out, shape=tuple(out.shape))


def diagonal(input, offset=0, dim1=0, dim2=1):
    return apply(M.Diagonal, input, offset=offset, dim1=_wrap_dim(dim1, input.ndim),
                 dim2=_wrap_dim(dim2, input.ndim))


def diag(input, diagonal=0):
    if input.ndim == 1:
        n = input.shape[0] + builtins.abs(diagonal)
        i = np.arange(input.shape[0])
        key = (i, i + diagonal) if diagonal >= 0 else (i - diagonal, i)
        out = apply(M.IndexPut, input.new_zeros((n, n)), input, key=key)
        return torch_named(out, "DiagEmbedBackward0", input)
    # (torch 2.13 names the node of a matrix's diag after its functionalized diagonal_copy)
    return torch_named(diagonal_fn(input, diagonal), "DiagonalBackward0_copy", input)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor of one more dim whose ``diagonal(offset, dim1, dim2)`` is ``input`` (its last
    dim running along the diagonal, its other dims kept in order), zero elsewhere."""
    nd = input.ndim + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = input.shape[-1] + builtins.abs(offset)
    shape = list(input.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, n)
    out = apply(M.DiagonalEmbed, input, shape=tuple(shape), args=(offset, d1, d2))
    return torch_named(out, "DiagEmbedBackward0", input)


def adjoint(input):
    """The conjugate transpose of a matrix or batch of matrices: for our real dtypes, the last
    two dims swapped (a view, as ``mT``)."""
    return _matrix_adjoint(input, "tensor.adjoint()", "adjoint() is deprecated on 0-D tensors. "
                           "Consider using x.conj().")


def _matrix_adjoint(input, what, warning):
    """The last two dims swapped (``mT``, ``mH``, ``adjoint``): torch refuses a 1-D tensor
    (naming ``what``) and returns a 0-d one as it is, with its one-time ``warning``."""
    if input.ndim == 1:
        raise RuntimeError(f"{what} is only supported on matrices or batches of matrices. Got "
                           "1-D tensor.")
    if input.ndim == 0:  # (the identity: a transpose view of the 0-d input)
        _warn_once(warning)
        return torch_named(input.view(()), "TransposeBackward0", input)
    return transpose(input, -2, -1)


_WARNED = set()


def _warn_once(message):
    """torch's TORCH_WARN_ONCE: the warning once per process."""
    if message not in _WARNED:
        _WARNED.add(message)
        from .._fpe import warn_user
        warn_user(message)


def real(input):
    """The real part: ``input`` itself (every dtype here is real)."""
    return input


def imag(input):
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def diagonal_fn(input, offset):
    return apply(M.Diagonal, input, offset=offset, dim1=0, dim2=1).clone()


def trace(input):
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    if input._dtype is D.bool:
        raise NotImplementedError('"trace" not implemented for \'Bool\'')
    return torch_named(diagonal(input).sum(), "TraceBackward0", input)


def tril(input, diagonal=0):
    return apply(M.Tril, input, diagonal=diagonal)


def triu(input, diagonal=0):
    return apply(M.Triu, input, diagonal=diagonal)


def meshgrid(*tensors, indexing="ij"):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    _need_tensors(tensors)
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if any(t._dtype != tensors[0]._dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got a {t.ndim}-D tensor of shape {list(t.shape)}")
    if indexing not in ("xy", "ij"):
        raise RuntimeError('torch.meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f"{indexing}")
    shape = [t.numel() for t in tensors]
    out = []
    for i, t in enumerate(tensors):
        s = [1] * len(tensors)
        s[i] = shape[i]
        out.append(t.reshape(s).expand(shape))
    if indexing == "xy" and len(tensors) >= 2:
        out = [o.transpose(0, 1) for o in out]
    return tuple(out)


def take_along_dim(input, indices, dim=None):
    """``input``'s values at ``indices`` along ``dim`` (numpy's ``take_along_axis``): both are
    broadcast except along ``dim``, then gathered; without ``dim``, ``input.view(-1)``
    gathered at ``indices.view(-1)`` (a view: non-contiguous operands raise torch's error)."""
    from .indexing import gather
    if dim is None:
        return gather(input.view(-1), 0, indices.view(-1))
    if input.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number "
                           f"of dimensions, but got {input.ndim} dimensions for input, and "
                           f"{indices.ndim} dimensions for indices")
    if indices._dtype is not D.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{D.scalar_name(indices._dtype)}")
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, input.ndim)
    sizes = list(input.shape)
    sizes[d] = indices.shape[d]
    shape = []
    for i, (a, b) in enumerate(zip(sizes, indices.shape)):
        if a != b and a != 1 and b != 1:
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                               f"at non-singleton dimension {i}")
        shape.append(b if a == 1 else a)
    idx = indices.broadcast_to(shape)
    shape[d] = input.shape[d]
    return gather(input.broadcast_to(shape), d, idx)


def rot90(input, k=1, dims=(0, 1)):
    """Rotate by ``k`` quarter turns in the plane ``dims`` (from the first towards the second):
    torch's composition: ``flip``, then ``transpose_`` of that fresh copy (so the result is no
    view), and a contiguous clone for ``k % 4 == 0``."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    n = input.ndim
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    if dims[0] == dims[1] or builtins.abs(dims[0] - dims[1]) == n:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and "
                           f"dim1 = {dims[1]}")
    if not -n <= dims[0] < n:
        raise RuntimeError(f"Rotation dim0 out of range, dim0 = {dims[0]}")
    if not -n <= dims[1] < n:
        raise RuntimeError(f"Rotation dim1 out of range, dim1 = {dims[1]}")
    k = (4 + k % 4) % 4
    if k == 1:  # (transpose_ of the fresh flip: the result is no view, as torch's)
        out = flip(input, [dims[1]]).transpose_(dims[0], dims[1])
    elif k == 2:
        out = flip(input, dims)
    elif k == 3:
        out = flip(input, [dims[0]]).transpose_(dims[0], dims[1])
    else:
        out = apply(E.Clone, input, contiguous=True)
    return torch_named(out, "Rot90Backward0", input)
