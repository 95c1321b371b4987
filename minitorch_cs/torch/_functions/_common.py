"""Argument helpers shared by the functional surface: tensor/scalar normalisation, dims, torch's argument-parser errors."""
from __future__ import annotations

import builtins
import functools
import weakref

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _wrap_dim


def _t(x):
    """Python scalars pass through; arrays become tensors; a numpy scalar counts as the Python
    number it holds (weak in type promotion, as torch treats it: ``t * np.float64(.5)`` stays
    float32; ``np.bool_`` is a float there)."""
    if isinstance(x, np.ndarray):
        return Tensor._wrap(x)
    if isinstance(x, np.generic):  # (numpy's bool is read as a double, as torch's parser does)
        return float(x) if isinstance(x, np.bool_) else x.item()
    return x


def _dims(dim, ndim):
    """Normalise ``dim`` (int, tuple, list or None) to a sorted tuple of non-negative axes or None.

    A 0-d tensor accepts dim 0 / -1 (like torch) and has no axis to reduce: that gives None."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        wrapped = [_wrap_dim(d, ndim) for d in dim]
        for i, d in enumerate(wrapped):
            if d in wrapped[:i]:  # (torch names the wrapped dim that repeats)
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        return tuple(sorted(wrapped)) if ndim else None
    d = _wrap_dim(dim, ndim)
    return (d,) if ndim else None


def _on_0d(fn, input, dim, *args, **kwargs):
    """Run a dim-wise op on a 0-d tensor as on one element (torch's rule); results stay 0-d,
    each its own tensor as torch's (no view of the one-element result: an in-place op on it
    is an ordinary one). Each shares the version counter of the one-element result it
    reshapes, which nothing else reaches: the op's node saved that (``max``'s indices), so
    an in-place change of the returned tensor is refused at backward, as torch's own."""
    from .._dispatch import apply
    from .._ops.movement import UnsafeView
    _wrap_dim(dim, 0)
    out = fn(input.reshape(1), 0, *args, **kwargs)

    def zero_d(o):
        r = apply(UnsafeView, o, shape=())
        r._vc = o._vc
        o._shown_as = weakref.ref(r)  # (a refusal names the tensor the user holds)
        return r
    if isinstance(out, tuple):
        return type(out)(*(zero_d(o) for o in out))
    return zero_d(out)


def _check_tensor(x, fn):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


def _check_integral(input, name):
    if input._dtype.is_floating_point:  # torch has no floating bitwise kernels
        raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                  f"'{D.scalar_name(input._dtype)}'")


def tensor_like(v, ref):
    return Tensor._wrap(np.asarray(v, dtype=ref._dtype.np))


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def _check_float(input, msg):
    if not input._dtype.is_floating_point:
        raise RuntimeError(msg.format(D.scalar_name(input._dtype)))


_NO_DIM = object()


# ----- shape and indexing -------------------------------------------------------------------------
def _infer_shape(shape, numel):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return tuple(shape)


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def _index_arr(index, fn):
    if not isinstance(index, Tensor) or index._dtype not in (D.int64, D.int32, D.int16, D.int8,
                                                             D.uint8):
        raise RuntimeError(f"{fn}(): Expected dtype int64 for index")
    return index


def _need_tensor(x, fn, name, pos):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def _number_arg(v, fn, name):
    """A ``Number`` argument as torch's argument parser takes it: a Python number or a 0-d
    tensor (read as its value); anything else is torch's TypeError."""
    if isinstance(v, Tensor) and v.ndim == 0:
        return v
    if isinstance(v, Tensor) or not isinstance(v, (int, float, complex, np.number, np.bool_)):
        raise TypeError(f"{fn}(): argument '{name}' must be Number, not {type(v).__name__}")
    return v


def _sizes_str(shape):
    return " ".join(str(n) for n in shape)  # how torch's C++ prints a std::vector of sizes


def _parser_error(fn, args, overloads):
    """torch's argument-parser TypeError when no overload of ``fn`` accepts ``args``."""
    def name(a):
        return "Tensor" if isinstance(a, Tensor) else type(a).__name__
    got = ", ".join(name(a) for a in args)
    lines = [f"{fn}() received an invalid combination of arguments - got ({got}), but expected one "
             "of:"]
    for sig, kinds in overloads:
        marked = ", ".join(name(a) if isinstance(a, k) and not (isinstance(a, builtins.bool) and
                                                                k is builtins.int)
                           else f"!{name(a)}!" for a, k in zip(args, kinds))
        lines.append(f" * ({sig})\n      didn't match because some of the arguments have invalid "
                     f"types: ({marked})")
    raise TypeError("\n".join(lines) + "\n")


# ----- numpy-style keyword aliases ---------------------------------------------------------------
# torch's argument parser accepts ``axis`` for ``dim`` and ``keepdims`` for ``keepdim`` in every
# native function (``x.sum(axis=0, keepdims=True)``); the few defined in Python (``norm``, ``split``,
# ``unique``) do not.
_ALIASES = (("axis", "dim"), ("keepdims", "keepdim"))


_PYTHON_LEVEL = {"norm", "split", "unique"}


def _with_numpy_names(f, aliases):
    @functools.wraps(f)
    def call(*args, **kwargs):
        if kwargs:
            for alias, name in aliases:
                if alias in kwargs:
                    if name in kwargs:
                        raise TypeError(f"{f.__name__}() got an unexpected keyword argument "
                                        f"'{alias}'")
                    kwargs[name] = kwargs.pop(alias)
        return f(*args, **kwargs)
    return call
