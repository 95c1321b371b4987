"""The base of every kernel in ``_ops``: what a forward returns is normalised here, once.

numpy hands back things a tensor must not hold: numpy scalars (from reductions of 0-d arrays),
read-only arrays (``broadcast_to``), an input array itself (``x`` returned unchanged), arrays in
whatever memory order the ufunc chose. torch's rules, applied to every kernel's outputs:

* a result is a fresh, writeable ndarray (in-place ops on it work; it never aliases an input);
* its memory layout: elementwise kernels (and ``sort``) order their output's dimensions as
  torch's TensorIterator does (:func:`torch_layout`: by the first operand whose strides tell two
  dims apart, broadcast dims ignored; ``x.t().exp()`` is transposed too); every other kernel
  (reductions, softmax, cumulative ops, matmul, normalization, losses, ...) returns a contiguous
  tensor, so ``.view`` works on it as in torch;
* an empty result has the strides torch gives an empty contiguous tensor (numpy reports 0).

Every kernel also takes ``out=`` (the dispatch point's in-place path passes the target): a
forward that does not write into ``out`` itself has its result copied there, with torch's
castability and shape checks, so any kernel has an in-place form.
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from .. import _dtype as D
from .._dispatch import Op
from .._layout import (_strided_like, channels_last, dense_layout, element_strides, empty_array,
                       laid_out, order_strides, preserved_copy, suggested_format, torch_layout)

__all__ = ["Kernel", "Pointwise", "finish"]


class Kernel(Op):
    """A primitive whose forward's outputs follow torch's layout rules (module docstring).
    ``own_layout`` kernels lay their results out themselves (only freshness is ensured)."""

    elementwise = False
    own_layout = False
    # the inputs TensorIterator promotes to the common dtype (None: all; ``where``: not its
    # condition): an input converted there lays out as its converted copy (see ``finish``)
    promoted = None
    # torch's kernels that allocate their result in ``input.suggest_memory_format()`` (pooling,
    # conv2d, batch/group norm, upsampling, constant padding): the inputs whose layout decides
    # (any of them channels-last-like: 4-D results are channels-last; else contiguous)
    suggest_format: tuple = ()
    # a kernel whose 3-D (unbatched) input torch runs as a batch of one (conv2d: unsqueeze(0),
    # the batched kernel, squeeze(0)): that input's format is its unsqueezed view's, and a 3-D
    # result is the squeezed channels-last result
    unbatched = False

    @staticmethod
    def suggests(attrs) -> bool:
        """Whether this call allocates in the suggested format (a kernel may depend on attrs)."""
        return True

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        fwd = cls.__dict__.get("forward")
        if fwd is not None and not cls.is_view:
            raw = fwd.__func__ if isinstance(fwd, staticmethod) else fwd
            cls.forward = staticmethod(_normalising(raw, cls))


class Pointwise(Kernel):
    """An elementwise kernel: results keep the inputs' memory layout."""

    elementwise = True
    overlap = "partial"  # TensorIterator's check: an input may be the output, not a shifted view


def _broadcast_first(args):
    """Raise torch's broadcast error if the array operands' shapes do not broadcast (the check
    ``_errors.translate`` makes for numpy's errors)."""
    from .._errors import _size_mismatch
    err = _size_mismatch([a.shape for a in args if type(a) is np.ndarray])
    if err is not None:
        raise err


def _normalising(forward, cls):
    takes_out = "out" in inspect.signature(forward).parameters
    elementwise, promoted = cls.elementwise, cls.promoted

    @functools.wraps(forward)
    def run(ctx, *args, **attrs):
        out = attrs.get("out") if attrs else None
        if out is not None:
            if elementwise:
                # an in-place elementwise op may not broadcast its result beyond the target
                # (numpy would drop leading size-1 dims silently)
                shapes = [a.shape for a in args if isinstance(a, np.ndarray)]
                try:
                    full = out.shape if all(s == out.shape for s in shapes) else \
                        np.broadcast_shapes(*shapes)
                except ValueError:
                    full = None
                if full != out.shape:
                    # an op that checks its operands ahead of torch's TensorIterator (errors
                    # marked ``before_broadcast``) reports that first
                    _checked_first(forward, ctx, args, attrs)
                    if full is None:
                        np.broadcast_shapes(*shapes)  # (numpy's error, mapped to torch's)
                    raise RuntimeError(f"output with shape {list(out.shape)} doesn't match the "
                                       f"broadcast shape {list(full)}")
            if not takes_out:
                del attrs["out"]
                return write_out(forward(ctx, *args, **attrs), out)
        try:
            res = forward(ctx, *args, **attrs)
        except (NotImplementedError, RuntimeError) as e:
            # torch's TensorIterator broadcasts the operands before the kernel checks their
            # dtypes: a shape error comes first (unless the op checked before the iterator)
            if elementwise and not getattr(e, "before_broadcast", False):
                _broadcast_first(args)
            raise
        if cls.suggest_format and any(i < len(args) and is_channels_last(
                _unsqueezed(args[i]) if cls.unbatched else args[i])
                for i in cls.suggest_format) and cls.suggests(attrs):
            return tuple(channels_last_copy(r, args) for r in res) if isinstance(res, tuple) \
                else channels_last_copy(res, args, cls.unbatched)
        if cls.own_layout or (attrs and attrs.get("channels_last")):
            return tuple(_fresh(r, args) for r in res) if isinstance(res, tuple) else \
                _fresh(res, args)
        # ``contiguous()`` asks for C order
        keep = elementwise and not (attrs and attrs.get("contiguous"))
        if type(res) is tuple:
            return tuple(finish(r, args, out, keep, promoted) for r in res)
        return finish(res, args, out, keep, promoted)
    return run


def _checked_first(forward, ctx, args, attrs) -> None:
    """Raise the error ``forward`` raises ahead of broadcasting (``before_broadcast``), if any;
    the in-place shape check runs this only when it is about to fail."""
    if getattr(ctx, "inplace_target", None) is None:  # (the kernels' name for the target
        ctx.inplace_target = attrs["out"]  # of a cast check, when not given as out=)
    try:
        forward(ctx, *args, **{k: v for k, v in attrs.items() if k != "out"})
    except Exception as e:  # noqa: BLE001 (only the op's own early errors matter here)
        if getattr(e, "before_broadcast", False):
            raise
    return None


def write_out(r, out: np.ndarray) -> np.ndarray:
    """Copy a result into ``out`` (an in-place target) by torch's rules."""
    r = np.asarray(r)
    if r.dtype != out.dtype and not D.can_cast(D._BY_NP[r.dtype], D._BY_NP[out.dtype]):
        raise RuntimeError(f"result type {D.scalar_name(D._BY_NP[r.dtype])} can't be cast to the "
                           f"desired output type {D.scalar_name(D._BY_NP[out.dtype])}")
    if r.shape != out.shape:
        try:
            shape = np.broadcast_shapes(r.shape, out.shape)
        except ValueError:
            shape = r.shape
        if shape != out.shape:
            raise RuntimeError(f"output with shape {list(out.shape)} doesn't match the broadcast "
                               f"shape {list(shape)}")
    np.copyto(out, D.np_cast(r, out.dtype) if r.dtype != out.dtype else r, casting="unsafe")
    return out


def _owns_apart(r, inputs) -> bool:
    """Whether ``r`` shares no memory with any input array. An array that owns its memory
    (``base`` None: what a kernel allocates) can only be shared by being an input or an input's
    base (numpy points every view at the owner), which two identity tests settle; a view needs
    the memory-bounds test."""
    if r.base is None:
        for a in inputs:
            if a is r or (isinstance(a, np.ndarray) and a.base is r):
                return False
        return True
    for a in inputs:
        if isinstance(a, np.ndarray) and np.may_share_memory(r, a):
            return False
    return True


def finish(r, inputs=(), out=None, elementwise=False, promoted=None):
    """``r`` as a kernel output: a fresh writeable ndarray in torch's layout."""
    if out is not None and r is out:
        return r
    if not isinstance(r, np.ndarray):
        return np.asarray(r)  # a numpy scalar: a new 0-d array
    if r.size == 0:
        return empty_array(r.shape, r.dtype)
    flags = r.flags
    fresh = flags.writeable and _owns_apart(r, inputs)
    if not elementwise:
        return r if fresh and flags.c_contiguous else np.array(r, copy=True, order="C")
    arrays = [a for a in inputs if isinstance(a, np.ndarray) and a.ndim]
    # torch's fast path (a contiguous result) needs every operand at the result's shape; a
    # Python number is an operand too (a 0-d tensor), so it sends the op down the general path
    if r.ndim < 2 or (len(arrays) == len(inputs) and
                      all(a.shape == r.shape and a.flags.c_contiguous for a in arrays)):
        return r if fresh and flags.c_contiguous else np.array(r, copy=True, order="C")
    perm = _layout_of(r.shape, inputs, promoted)
    if fresh and r.strides == tuple(s * r.itemsize for s in order_strides(r.shape, perm)):
        return r  # already laid out so (size-1 dims' strides included: they steer later ops)
    want = _strided_like(r.shape, r.dtype, perm)
    np.copyto(want, r)
    return want


_LAYOUTS: dict = {}  # (result shape, operands' shapes/strides/dtypes, promoted) -> dim order


def _layout_of(shape, inputs, promoted):
    """:func:`torch_layout` of an elementwise result over ``inputs`` (numbers included: they
    decide nothing but take part in promotion), remembered per distinct operand geometry: the
    order depends only on the result's shape and each operand's shape, strides and dtype."""
    key = (shape, promoted, tuple((a.shape, a.strides, a.dtype.num) if isinstance(a, np.ndarray)
                                  else type(a) for a in inputs))
    perm = _LAYOUTS.get(key)
    if perm is None:
        if len(_LAYOUTS) > 4096:
            _LAYOUTS.clear()
        perm = _LAYOUTS[key] = torch_layout(shape, _as_converted(inputs, promoted))
    return perm


def is_channels_last(a) -> bool:
    """torch's ``is_channels_last_strides_2d`` (what ``suggest_memory_format`` reads) for a 4-D
    array: C fastest, then W, H, N -- with torch's tie rules for size-1 dims."""
    return isinstance(a, np.ndarray) and suggested_format(a) is channels_last


def preserve_format(x, r):
    """``r`` (``x``'s shape) laid out as torch's ``preserve_format`` copy of ``x`` (``clone()``,
    ``to(dtype)``): ``x``'s own strides when ``x`` is non-overlapping and dense, otherwise
    ``x``'s dim order packed densely (torch's ``infer_dense_strides``)."""
    r = np.asarray(r)
    if x.size == 0 and x.ndim and r.shape == x.shape:  # torch counts an empty tensor as dense:
        return laid_out(r, element_strides(x))  # its strides are kept (a numpy source's zeros)
    if x.ndim == 0 or x.size == 0 or r.shape != x.shape:
        return finish(r, (x,))
    return preserved_copy(x, r)


def _unsqueezed(a):
    """A 3-D array as torch's ``unsqueeze(0)`` views it (the new dim's stride is the first
    dim's extent, ``size[0] * stride[0]``, not numpy's 0); other values as they are."""
    if not isinstance(a, np.ndarray) or a.ndim != 3:
        return a
    return np.lib.stride_tricks.as_strided(a, (1,) + a.shape,
                                           (a.shape[0] * a.strides[0],) + a.strides)


def channels_last_copy(r, inputs=(), unbatched=False):
    """A 4-D result in channels-last layout (other results: fresh and contiguous);
    ``unbatched``: a 3-D result as the squeezed channels-last result of a batch of one."""
    r = np.asarray(r)
    if unbatched and r.ndim == 3 and r.size:
        return channels_last_copy(r[np.newaxis], inputs)[0]
    if r.ndim != 4 or r.size == 0:
        return finish(r, inputs)
    if is_channels_last(r) and r.flags.writeable and not any(
            isinstance(a, np.ndarray) and np.may_share_memory(r, a) for a in inputs):
        return r
    want = _strided_like(r.shape, r.dtype, [1, 3, 2, 0])
    np.copyto(want, r)
    return want


class _Layout:
    """An operand's shape and strides as TensorIterator sees them."""

    def __init__(self, shape, strides):
        self.shape, self.strides, self.ndim = shape, strides, len(shape)


_dense = dense_layout  # torch's ``is_non_overlapping_and_dense`` (one rule, in the layouts)


def _as_converted(inputs, promoted):
    """The operands of a TensorIterator (dimensioned arrays): on CPU an input whose dtype is not
    the common dtype is first converted (``.to(common)``), which keeps the strides of a dense
    input and makes any other (expanded, sliced with gaps) contiguous."""
    arrays = [a for a in inputs if isinstance(a, np.ndarray) and a.ndim]
    part = [a for i, a in enumerate(inputs) if promoted is None or i in promoted]
    if not any(isinstance(a, np.ndarray) and a.ndim and not _dense(a) for a in part):
        return arrays
    try:
        common = D.result_type(*part).np
    except Exception:  # noqa: BLE001  (operands result_type does not rank: leave them)
        return arrays
    out = []
    for i, a in enumerate(inputs):
        if not (isinstance(a, np.ndarray) and a.ndim):
            continue
        if (promoted is None or i in promoted) and a.dtype != common and not _dense(a):
            # the converted copy (``.to``): a's dim order, packed (infer_dense_strides)
            perm = torch_layout(a.shape, [a])
            st, acc = [0] * a.ndim, a.itemsize
            for d in perm:
                st[d] = acc
                acc *= max(a.shape[d], 1)
            a = _Layout(a.shape, tuple(st))
        out.append(a)
    return out


def _fresh(r, inputs):
    r = np.asarray(r)
    if r.flags.writeable and not any(isinstance(a, np.ndarray) and np.may_share_memory(r, a)
                                     for a in inputs):
        return r
    return np.array(r, copy=True, order="K")


def index_layout(x, key, r):
    """``r = x[key]`` (advanced indexing) in the layout torch's index kernel gives it: a
    TensorIterator over ``x`` restrided to the result's shape (stride 0 along the indexed dims)
    and the index arrays. Keys this does not model (bool masks, None, Ellipsis, integers,
    non-adjacent index arrays) keep numpy's C order."""
    if r.ndim < 2 or r.size == 0 or not isinstance(key, tuple):
        return r
    items = list(key)
    if any(k is None or k is Ellipsis or isinstance(k, (int, np.integer)) or
           (isinstance(k, np.ndarray) and k.dtype == np.bool_) for k in items):
        return r
    adv = [i for i, k in enumerate(items) if isinstance(k, np.ndarray)]
    if not adv or adv != list(range(adv[0], adv[0] + len(adv))):
        return r
    v = x[tuple(k if isinstance(k, slice) else slice(None) for k in items)]
    b, k = adv[0], len(adv)
    idx = np.broadcast_arrays(*[items[i] for i in adv])
    ishape = idx[0].shape
    out_shape = v.shape[:b] + ishape + v.shape[b + k:]
    if tuple(out_shape) != r.shape:
        return r
    after = len(v.shape) - b - k
    src = np.lib.stride_tricks.as_strided(
        v, out_shape, v.strides[:b] + (0,) * len(ishape) + v.strides[b + k:], writeable=False)
    views = [src] + [a.reshape((1,) * b + ishape + (1,) * after) for a in idx]
    want = _strided_like(r.shape, r.dtype, torch_layout(r.shape, views))
    np.copyto(want, r)
    return want



