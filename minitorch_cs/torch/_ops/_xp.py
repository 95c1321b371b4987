"""The array namespace backward rules are written against: numpy, or differentiable tensors.

Every backward rule in ``_ops`` starts with ``xp = ns(g)`` and does its math through ``xp``, so one
rule text serves both passes:

* first-order backward (the engine hands the rule ndarrays): ``xp`` is :data:`NP`, numpy itself
  plus a few helpers numpy lacks (``add_at``, ``set_at``, ``put_along_axis`` returning the array,
  ``expit``, ``erf``, ...); the rule runs at numpy speed, exactly as it always did;
* a backward that records a graph (``create_graph=True``, ``_autograd_graph``): the rule receives
  tensors and ``xp`` is :data:`TX`, the same names over our tensor ops. Each call goes through the
  dispatch point, so the backward pass is itself recorded (and captured on the emulated wafer).

This is the idea of the array API standard's ``x.__array_namespace__()``: the namespace comes from
the array. Helpers that numpy modifies in place (``add_at``, ``set_at``, ``put_along_axis``,
``scatter_add``) return their result, and a rule must use that return value (the tensor versions
are out of place).
"""
from __future__ import annotations

import contextlib
import inspect
import math

import numpy as np

from . import _special as special
from ._opmath import HALF as _HALF_SUM, scalar_loop_positions

__all__ = ["ns", "NP", "TX", "graph_mode", "HalfOps", "wide32"]

_NUMBER = (float, int, np.floating, np.integer)


class HalfOps(np.ndarray):
    """A float16/bfloat16 array in a backward formula run on arrays: every operation rounds its
    result once to the half dtype, as torch's formula of tensor ops does, and an operation with
    a number computes in float32: a factor or a divisor as a float32 (torch's mul and div
    kernels read it so; numpy would first round it to the half dtype: ``x * ln 2`` would
    multiply by 0.69140625 in bfloat16), any other number (an addend, a numerator) converted to
    the half dtype first, as torch converts it. ``view(HalfOps)`` wraps an array;
    ``np.asarray`` unwraps it."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        half = self.dtype
        args = [a.view(np.ndarray) if isinstance(a, HalfOps) else a for a in inputs]
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, HalfOps) else o
                                  for o in out)
        if half not in _HALF_SUM:  # (a cast of it: plain numpy)
            return getattr(ufunc, method)(*args, **kwargs)
        if method == "__call__" and out is None and any(
                isinstance(a, _NUMBER) and not isinstance(a, (bool, np.bool_)) for a in args):
            f32 = np.float32

            def number(i, a):  # torch reads a number in float32 as a factor or a divisor; any
                # other number (an addend, a numerator) is first converted to the half dtype
                if ufunc is np.multiply or (ufunc is np.true_divide and i == 1):
                    return f32(a)
                return f32(np.asarray(a, f32).astype(half))
            args = [number(i, a) if isinstance(a, _NUMBER) and not isinstance(a, (bool, np.bool_))
                    else a.astype(f32) if isinstance(a, np.ndarray) and a.dtype == half else a
                    for i, a in enumerate(args)]
            r = ufunc(*args, **kwargs)
            if isinstance(r, np.generic):  # (a 0-d operation gives a scalar)
                r = np.asarray(r)
            if isinstance(r, np.ndarray) and r.dtype == f32:
                r = r.astype(half)
        else:
            r = getattr(ufunc, method)(*args, **kwargs)
        if isinstance(r, tuple):
            return tuple(_half_view(x, half) for x in r)
        return _half_view(r, half)


def _half_view(r, half):
    if isinstance(r, np.generic) and r.dtype == half:  # (a 0-d operation gives a scalar)
        r = np.asarray(r)
    return r.view(HalfOps) if isinstance(r, np.ndarray) and r.dtype == half else r


def ns(g):
    """The namespace of a gradient: :data:`NP` for an ndarray, :data:`TX` for a tensor (a list
    of gradients, for multi-output ops, by its first entry)."""
    if type(g) is np.ndarray:
        return NP
    if type(g) in (list, tuple):
        for x in g:
            if x is not None:
                return ns(x)
        return NP
    if isinstance(g, np.ndarray) or isinstance(g, np.generic):
        return NP
    return TX


def graph_mode(xp) -> bool:
    """Whether a rule runs to record a graph (its saved values are tensors)."""
    return xp is TX


def raw(ctx, name):
    """A ctx value as the forward stored it, never converted to a tensor: for static
    information a rule needs as numpy values in either mode (never for values it
    differentiates or that depend on the data)."""
    node = ctx.__dict__.get("_node", ctx)
    return node.__dict__[name]


# ----- numpy ---------------------------------------------------------------------------------------
def _sgn(x):
    """torch's sgn for gradients: -1, 0 or 1, and 0 for NaN (and for -0.0: ml_dtypes' bfloat16
    sign keeps the zero's sign)."""
    s = np.sign(x)
    if s.dtype.kind == "V":
        s = s + np.zeros((), s.dtype)  # (-0 + 0 is +0)
    # (bfloat16's numpy dtype has kind "V": a floating dtype too)
    return np.where(np.isnan(s), np.zeros((), s.dtype), s) if s.dtype.kind in "fV" else s


def _digamma(x):
    from .elementwise import _digamma as f
    return f(x)


def _trigamma(x):
    from .elementwise import _trigamma as f
    return f(x)


def _np_add_at(z, key, v):
    np.add.at(z, key, v)
    return z


def _np_set_at(z, key, v):
    z[key] = v
    return z


def _np_put_along_axis(z, idx, v, axis):
    np.put_along_axis(z, idx, v, axis=axis)
    return z


def _np_scatter_index(dim, index):
    idx = list(np.indices(index.shape, sparse=True))
    idx[dim] = index
    return tuple(idx)


def _np_scatter_add(z, dim, index, src):
    np.add.at(z, _np_scatter_index(dim, index), src[tuple(slice(0, s) for s in index.shape)])
    return z


def _np_call(op, *args, **attrs):
    from .._dispatch import Ctx
    return op.forward(Ctx(), *args, **attrs)


def _np_split(x, sizes, axis):
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


def _np_rsqrt(x):
    """``rsqrt`` as torch's kernel: ``1 / sqrt(x)``; half precision in float32, rounded once,
    except where torch's scalar loop computes (``scalar_loop_positions``): there the square root
    is rounded to the half dtype first (c10's math on Half returns Half), then the quotient."""
    if x.dtype in _HALF_SUM:
        x32 = np.asarray(x).astype(np.float32)
        s = np.sqrt(x32)
        s = np.where(scalar_loop_positions(np.asarray(x)), s.astype(x.dtype).astype(np.float32),
                     s)
        r = (1 / s).astype(x.dtype)
        return r.view(HalfOps) if isinstance(x, HalfOps) else r
    return np.divide(1, np.sqrt(x))


def _np_erfinv(x):
    """``erfinv`` as torch's kernel: half precision computed in float32 and rounded once."""
    if x.dtype in _HALF_SUM:
        r = special.erfinv(np.asarray(x).astype(np.float32)).astype(x.dtype)
        return r.view(HalfOps) if isinstance(x, HalfOps) else r
    if x.dtype == np.float32:  # (as the forward: see wide32)
        return special.erfinv(x.astype(np.float64)).astype(np.float32)
    return special.erfinv(x)


def wide32(f, float64_too=False):
    """numpy's math function ``f`` with a float32 argument computed in float64 and rounded once
    (``out=`` supported); with ``float64_too``, a float64 argument likewise in the x87 extended
    precision of ``np.longdouble``. torch's math functions come from its vector math library
    and are nearly correctly rounded; numpy's own kernels are faster and less exact: float32
    ``exp`` differed from torch 2.13's on 40% of elements and ``log10`` on 51%, computed this
    way on about 1% and 0.1%; float64 ``tanh`` on 18%, then 0.6% (``tests/torch/
    test_math_ulps.py``). Other dtypes as ``f`` gives them. The forward kernels of these
    functions and the backward formulas that call them (through :data:`NP`) both use it, so a
    graph-recording backward computes the same values."""
    f64, f32, f80 = np.dtype(np.float64), np.dtype(np.float32), np.longdouble

    def run(x, out=None):
        dt = getattr(x, "dtype", None)
        if dt == f32 or (float64_too and dt == f64):
            r = f(x.astype(f64 if dt == f32 else f80))
            if out is None:
                return r.astype(dt)
            np.copyto(out, r, casting="unsafe")
            return out
        return f(x) if out is None else f(x, out=out)
    run.__name__ = getattr(f, "__name__", "run")
    return run


_WIDE = ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "tanh",
         "sinh", "cosh", "arcsin", "arccos", "arctan", "arctanh")
# float64 too: where numpy's double kernel differed from torch's on more than 1% of elements and
# an extended-precision evaluation rounded once agrees (exp 4.6% -> 0.5%, tanh 18% -> 0.6%,
# cosh 3.4% -> 0.04%, sinh 1.0% -> 0.05%)
_WIDE64 = ("exp", "tanh", "sinh", "cosh")


class _Numpy:
    """numpy, plus the helpers above; attributes are looked up in numpy once and cached."""

    graph = False
    errstate = staticmethod(np.errstate)
    add_at = staticmethod(_np_add_at)
    set_at = staticmethod(_np_set_at)
    put_along_axis = staticmethod(_np_put_along_axis)
    scatter_add = staticmethod(_np_scatter_add)
    call = staticmethod(_np_call)
    split_sizes = staticmethod(_np_split)
    sgn = staticmethod(_sgn)
    expit = staticmethod(special.expit)
    erf = staticmethod(special.erf)
    erfinv = staticmethod(_np_erfinv)
    rsqrt = staticmethod(_np_rsqrt)
    digamma = staticmethod(_digamma)
    trigamma = staticmethod(_trigamma)

    @staticmethod
    def sum(x, axis=None, keepdims=False, **kw):
        """numpy's sum; half precision accumulates in float32 and rounds once (torch's sum --
        numpy would round every partial sum to the half dtype)."""
        dt = getattr(x, "dtype", None)
        # np.sum's own reduction, without its Python wrapper (faster, and an inf - inf warning
        # then comes from our frame, which the package's warning filter silences as torch is)
        reduce = np.add.reduce if isinstance(x, np.ndarray) and x.ndim else np.sum
        if dt is not None and dt in _HALF_SUM and "dtype" not in kw:
            return np.asarray(reduce(x, axis=axis, keepdims=keepdims, dtype=np.float32,
                                     **kw)).astype(dt)
        return reduce(x, axis=axis, keepdims=keepdims, **kw)

    # the methods themselves for arrays (numpy's functions add a Python wrapper per call)
    @staticmethod
    def reshape(x, shape):
        return x.reshape(shape) if type(x) is np.ndarray else np.reshape(x, shape)

    @staticmethod
    def swapaxes(x, a, b):
        return x.swapaxes(a, b) if type(x) is np.ndarray else np.swapaxes(x, a, b)

    @staticmethod
    def unstack(x, axis=0):
        return tuple(np.moveaxis(x, axis, 0))

    @staticmethod
    def copy(x):
        return np.array(x, copy=True)

    @staticmethod
    def astype(x, dtype):
        return x.astype(dtype, copy=False)

    @staticmethod
    def npdtype(x):
        return x.dtype

    @staticmethod
    def getitem(x, key):
        return x[key]

    @staticmethod
    def const(a):
        return a

    def __getattr__(self, name):
        v = getattr(np, name)
        if name not in _NO_ARITHMETIC and inspect.isfunction(getattr(v, "_implementation", v)):
            v = _silent(v)
        setattr(self, name, v)
        return v


# numpy functions written in Python that do no floating-point arithmetic (no warning to silence;
# the errstate context would cost about a microsecond a call)
_NO_ARITHMETIC = frozenset(
    "zeros_like ones_like empty_like full_like zeros ones full broadcast_to reshape expand_dims "
    "squeeze moveaxis swapaxes transpose ravel stack flip take_along_axis put_along_axis "
    "diagonal tril triu eye atleast_1d atleast_2d split array_split".split())


def _silent(f):
    """numpy's function ``f``, written in Python (``np.mean``, ``np.einsum``, ...), without its
    floating-point warnings: it raises them from numpy's own frame, past the package's filter of
    its own frames (``_fpe``), and torch computes inf and NaN silently. (numpy's C functions and
    ufuncs warn from the calling frame, which the filter covers.)"""
    def run(*args, **kwargs):
        with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
            return f(*args, **kwargs)
    run.__name__ = getattr(f, "__name__", "run")
    return run


for _name in _WIDE:
    setattr(_Numpy, _name, staticmethod(wide32(getattr(np, _name), _name in _WIDE64)))
NP = _Numpy()


# ----- tensors -------------------------------------------------------------------------------------
def _T():
    from .._tensor import Tensor
    return Tensor


def _apply(op, *args, **attrs):
    from .._dispatch import apply
    return apply(op, *args, **attrs)


def _npdt(dtype):
    """A numpy dtype from a torch or numpy dtype."""
    np_attr = getattr(dtype, "np", None)
    return np.dtype(np_attr if np_attr is not None else dtype)


def _tdt(dtype):
    from .. import _dtype as D
    return D._BY_NP[_npdt(dtype)]


def _tensor(x):
    """``x`` as an operand of a tensor op: tensors and Python numbers as they are, numpy scalars
    as Python numbers, ndarrays as constant tensors (made by a creation op, so a graph capture
    records them as constants: rules only build such arrays from static values)."""
    Tensor = _T()
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.ndarray):
        from .._creation import Constant
        return _apply(Constant, value=x)
    if isinstance(x, np.generic):
        return x.item()
    return x


def _key(key):
    if isinstance(key, tuple):
        return tuple(_tensor(k) if isinstance(k, np.ndarray) else k for k in key)
    return _tensor(key) if isinstance(key, np.ndarray) else key


def _has_adv(key):
    Tensor = _T()
    items = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, Tensor) for k in items)


def _axes(axis, ndim):
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        return tuple(sorted(a % max(ndim, 1) for a in axis)) if ndim else None
    return (axis % max(ndim, 1),) if ndim else None


def _unary(name):
    def f(x):
        if not isinstance(x, _T()):
            return getattr(np, _NP_NAMES.get(name, name))(x)
        from . import elementwise as E
        return _apply(getattr(E, name), x)
    f.__name__ = name
    return f


_NP_NAMES = {"Exp": "exp", "Log": "log", "Log1p": "log1p", "Sqrt": "sqrt", "Sin": "sin",
             "Cos": "cos", "Sinh": "sinh", "Cosh": "cosh", "Tanh": "tanh", "Abs": "abs",
             "Sign": "sign", "Trunc": "trunc", "Floor": "floor", "IsNan": "isnan",
             "IsFinite": "isfinite", "IsInf": "isinf", "Square": "square", "Neg": "negative",
             "Reciprocal": "reciprocal"}


class _Tensors:
    """The numpy names backward rules use, over our differentiable tensor ops."""

    graph = True
    pi = math.pi
    inf = math.inf
    nan = math.nan

    exp = staticmethod(_unary("Exp"))
    log = staticmethod(_unary("Log"))
    log1p = staticmethod(_unary("Log1p"))
    sqrt = staticmethod(_unary("Sqrt"))
    sin = staticmethod(_unary("Sin"))
    cos = staticmethod(_unary("Cos"))
    sinh = staticmethod(_unary("Sinh"))
    cosh = staticmethod(_unary("Cosh"))
    tanh = staticmethod(_unary("Tanh"))
    abs = staticmethod(_unary("Abs"))
    sign = staticmethod(_unary("Sign"))
    sgn = staticmethod(_unary("Sign"))  # our sign gives 0 for NaN, as torch's sgn
    trunc = staticmethod(_unary("Trunc"))
    floor = staticmethod(_unary("Floor"))
    isnan = staticmethod(_unary("IsNan"))
    isfinite = staticmethod(_unary("IsFinite"))
    isinf = staticmethod(_unary("IsInf"))
    square = staticmethod(_unary("Square"))
    negative = staticmethod(_unary("Neg"))
    reciprocal = staticmethod(_unary("Reciprocal"))
    rsqrt = staticmethod(_unary("Rsqrt"))

    @staticmethod
    def errstate(**kw):
        return contextlib.nullcontext()

    @staticmethod
    def expit(x):
        from . import elementwise as E
        return _apply(E.Sigmoid, x)

    @staticmethod
    def erf(x):
        from . import elementwise as E
        return _apply(E.Erf, x)

    @staticmethod
    def erfinv(x):
        from . import elementwise as E
        return _apply(E.Erfinv, x)

    @staticmethod
    def digamma(x):
        from . import elementwise as E
        return _apply(E.Digamma, x)

    @staticmethod
    def trigamma(x):
        from . import elementwise as E
        return _apply(E.Polygamma, x, n=1)

    # -- creation -----------------------------------------------------------------------------
    @staticmethod
    def zeros(shape, dtype=None):
        from .._creation import Full
        shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
        return _apply(Full, shape=shape, value=0, dtype=_npdt(dtype or np.float64))

    @staticmethod
    def ones(shape, dtype=None):
        from .._creation import Full
        shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
        return _apply(Full, shape=shape, value=1, dtype=_npdt(dtype or np.float64))

    @staticmethod
    def full(shape, value, dtype=None):
        from .._creation import Full
        shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
        return _apply(Full, shape=shape, value=value, dtype=_npdt(dtype or np.float64))

    @staticmethod
    def zeros_like(x):
        return TX.zeros(x.shape, x.dtype)

    @staticmethod
    def ones_like(x):
        return TX.ones(x.shape, x.dtype)

    @staticmethod
    def asarray(v, dtype=None):
        """A 0-d constant (``np.asarray(0.5, dtype)``), or ``v`` itself when it is a tensor."""
        if isinstance(v, _T()):
            return v if dtype is None else TX.astype(v, dtype)
        from .._creation import Constant
        arr = np.asarray(v) if dtype is None else np.asarray(v, _npdt(dtype))
        return _apply(Constant, value=arr)

    @staticmethod
    def const(a):
        """A constant array built by the rule from static values (shapes, counts)."""
        return _tensor(a)

    @staticmethod
    def eye(n, m=None, dtype=None):
        from .._creation import Eye
        return _apply(Eye, n=int(n), m=int(m if m is not None else n),
                      dtype=_npdt(dtype or np.float64))

    # -- dtypes -------------------------------------------------------------------------------
    @staticmethod
    def astype(x, dtype):
        if not isinstance(x, _T()):
            return np.asarray(x).astype(_npdt(dtype))
        dt = _npdt(dtype)
        if x._data.dtype == dt:
            return x
        from . import elementwise as E
        return _apply(E.Cast, x, dtype=dt)

    @staticmethod
    def npdtype(x):
        return x._data.dtype if isinstance(x, _T()) else np.asarray(x).dtype

    @staticmethod
    def copy(x):
        return x  # tensor helpers never write into their operands

    # -- elementwise with two or three operands -----------------------------------------------
    @staticmethod
    def where(c, a, b):
        from . import elementwise as E
        return _apply(E.Where, _tensor(c), _tensor(a), _tensor(b))

    @staticmethod
    def minimum(a, b):
        from . import elementwise as E
        if not isinstance(a, _T()):
            a, b = b, a
        return _apply(E.Minimum, a, _tensor(b))

    @staticmethod
    def maximum(a, b):
        from . import elementwise as E
        if not isinstance(a, _T()):
            a, b = b, a
        return _apply(E.Maximum, a, _tensor(b))

    @staticmethod
    def power(a, b):
        from . import elementwise as E
        a, b = _tensor(a), _tensor(b)
        Tensor = _T()
        if not isinstance(a, Tensor):
            return _apply(E.PowScalarBase, a, b)
        return _apply(E.Pow if isinstance(b, Tensor) else E.PowScalar, a, b)

    @staticmethod
    def floor_divide(a, b):
        from . import elementwise as E
        return _apply(E.Div, _tensor(a), _tensor(b), rounding_mode="floor")

    @staticmethod
    def less(a, b):
        return _tensor(a) < _tensor(b)

    @staticmethod
    def greater(a, b):
        return _tensor(a) > _tensor(b)

    # -- shape --------------------------------------------------------------------------------
    @staticmethod
    def reshape(x, shape):
        from . import movement as M
        shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
        if tuple(x.shape) == shape:
            return x
        return _apply(M.ReshapeCopy, x, shape=shape)

    @staticmethod
    def broadcast_to(x, shape):
        from . import movement as M
        shape = tuple(int(s) for s in shape)
        if tuple(x.shape) == shape:
            return x
        return _apply(M.Expand, x, shape=shape)

    @staticmethod
    def expand_dims(x, axis):
        shape = list(x.shape)
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        nd = len(shape) + len(axes)
        for a in sorted(a % nd for a in axes):
            shape.insert(a, 1)
        return TX.reshape(x, shape)

    @staticmethod
    def squeeze(x, axis):
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        nd = x.ndim
        drop = {a % nd for a in axes}
        return TX.reshape(x, [s for i, s in enumerate(x.shape) if i not in drop])

    @staticmethod
    def transpose(x, axes=None):
        from . import movement as M
        nd = x.ndim
        axes = tuple(reversed(range(nd))) if axes is None else tuple(int(a) % max(nd, 1)
                                                                     for a in axes)
        if axes == tuple(range(nd)):
            return x
        return _apply(M.Permute, x, dims=axes)

    @staticmethod
    def swapaxes(x, a, b):
        nd = x.ndim
        perm = list(range(nd))
        a, b = a % nd, b % nd
        perm[a], perm[b] = perm[b], perm[a]
        return TX.transpose(x, perm)

    @staticmethod
    def moveaxis(x, source, destination):
        nd = x.ndim
        src = [source] if isinstance(source, int) else list(source)
        dst = [destination] if isinstance(destination, int) else list(destination)
        src = [s % nd for s in src]
        dst = [d % nd for d in dst]
        order = [n for n in range(nd) if n not in src]
        for d, s in sorted(zip(dst, src)):
            order.insert(d, s)
        return TX.transpose(x, order)

    @staticmethod
    def flip(x, axis):
        from . import movement as M
        nd = x.ndim
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        return _apply(M.Flip, x, dims=tuple(a % max(nd, 1) for a in axes))

    @staticmethod
    def roll(x, shift, axis):
        from . import movement as M
        return _apply(M.Roll, x, shifts=shift, dims=axis)

    @staticmethod
    def tril(x, k=0):
        from . import movement as M
        return _apply(M.Tril, x, diagonal=k)

    @staticmethod
    def triu(x, k=0):
        from . import movement as M
        return _apply(M.Triu, x, diagonal=k)

    @staticmethod
    def split_sizes(x, sizes, axis):
        """``x`` cut along ``axis`` into pieces of ``sizes`` (``np.split`` at their cumsum)."""
        out, start = [], 0
        for n in sizes:
            out.append(TX.getitem(x, (slice(None),) * axis + (slice(start, start + n),)))
            start += n
        return out

    @staticmethod
    def unstack(x, axis=0):
        return tuple(TX.getitem(x, (slice(None),) * axis + (i,)) for i in range(x.shape[axis]))

    @staticmethod
    def concatenate(xs, axis=0):
        from . import movement as M
        return _apply(M.Cat, *xs, dim=axis)

    @staticmethod
    def pad(x, widths):
        from . import movement as M
        pad = []
        for lo, hi in reversed(widths):
            pad += [lo, hi]
        return _apply(M.Pad, x, pad=tuple(pad), mode="constant", value=0.0)

    # -- reductions ---------------------------------------------------------------------------
    @staticmethod
    def sum(x, axis=None, keepdims=False):
        from . import reduce as R
        x = _tensor(x)
        if not isinstance(x, _T()):
            return np.sum(x, axis=axis, keepdims=keepdims)
        if axis is not None and x.ndim == 0:
            return x
        return _apply(R.Sum, x, axis=_axes(axis, x.ndim), keepdim=keepdims)

    @staticmethod
    def mean(x, axis=None, keepdims=False):
        from . import reduce as R
        if axis is not None and x.ndim == 0:
            return x
        return _apply(R.Mean, x, axis=_axes(axis, x.ndim), keepdim=keepdims)

    @staticmethod
    def cumsum(x, axis):
        from . import reduce as R
        return _apply(R.Cumsum, x, dim=axis % max(x.ndim, 1))

    @staticmethod
    def cumprod(x, axis):
        from . import reduce as R
        return _apply(R.Cumprod, x, dim=axis % max(x.ndim, 1))

    # -- linear algebra -----------------------------------------------------------------------
    @staticmethod
    def matmul(a, b):
        from . import linalg as L
        return _apply(L.Matmul, a, b)

    @staticmethod
    def einsum(equation, *operands):
        from . import linalg as L
        eq = equation.replace(" ", "")
        return _apply(L.Einsum, *operands, equation=eq)

    # -- indexing -----------------------------------------------------------------------------
    @staticmethod
    def getitem(x, key):
        from . import movement as M
        key = _key(key)
        if _has_adv(key):
            return _apply(M.AdvIndex, x, key=key if isinstance(key, tuple) else (key,))
        return _apply(M.Index, x, key=key if isinstance(key, tuple) else (key,))

    @staticmethod
    def take(x, index, axis):
        from . import movement as M
        return _apply(M.IndexSelect, x, index=_tensor(index), dim=axis % max(x.ndim, 1))

    @staticmethod
    def take_along_axis(x, index, axis):
        from . import movement as M
        return _apply(M.Gather, x, index=_tensor(index), dim=axis % max(x.ndim, 1))

    @staticmethod
    def put_along_axis(z, index, v, axis):
        from . import movement as M
        return _apply(M.Scatter, z, _tensor(index), _tensor(v), dim=axis % max(z.ndim, 1))

    @staticmethod
    def scatter_add(z, dim, index, src):
        from . import movement as M
        return _apply(M.Scatter, z, _tensor(index), src, dim=dim, reduce="add")

    @staticmethod
    def add_at(z, key, v):
        from . import movement as M
        return _apply(M.IndexPut, z, _tensor(v), key=_key(key), accumulate=True)

    @staticmethod
    def set_at(z, key, v):
        from . import movement as M
        return _apply(M.IndexPut, z, _tensor(v), key=_key(key), accumulate=False)

    @staticmethod
    def call(op, *args, **attrs):
        return _apply(op, *args, **attrs)


TX = _Tensors()
