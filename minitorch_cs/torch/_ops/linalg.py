"""Linear-algebra primitives: matmul (with batch broadcasting), the fused linear/addmm, einsum."""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._errors import _size_mismatch, expand_error
from .._kernels.moments import fma32, fma64
from .._tensor import type_name
from ._kernel import Kernel
from ._xp import NP, _silent, graph_mode, ns, raw
from ._opmath import HALF as _HALF


def _mm(xp, a, b):
    """:func:`_matmul` for a rule: numpy's (half precision in float32), or the matmul op."""
    return _matmul(a, b) if not graph_mode(xp) else xp.matmul(a, b)


def _matmul(a, b):
    """``np.matmul``; half-precision operands multiply in float32 and the result is rounded back.

    That is torch's CPU rule (float32 accumulation); numpy's float16 matmul has no BLAS path and
    ml_dtypes' bfloat16 matmul returns float32.

    A stack of matrices times one matrix is one product of all the stack's rows, as torch's
    matmul folds it (numpy's would make one BLAS call per matrix: 3x slower on a small GPT's
    (64, 12, 64) activations); the eager kernels and the replay plan's linear fold alike.
    """
    if a.ndim > 2 and b.ndim == 2 and a.shape[-1] == b.shape[0]:
        rows = a.reshape(fold_rows(a.shape), a.shape[-1])
        return _matmul(rows, b).reshape(a.shape[:-1] + b.shape[1:])
    if a.dtype in _HALF and b.dtype == a.dtype:
        return np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(a.dtype)
    if a.ndim == 2 and b.ndim == 2 and wide_product(a, b):
        out = np.empty((a.shape[0], b.shape[1]), a.dtype)
        return transposed_product(a, b, np.empty((b.shape[1], a.shape[0]), a.dtype), out)
    return np.matmul(a, b)


_PLAIN = (np.dtype(np.float32), np.dtype(np.float64))


def fold_rows(shape) -> int:
    """The number of rows of a ``(..., k)`` array's leading dimensions folded into one."""
    return math.prod(shape[:-1])


def wide_product(a, b) -> bool:
    """Whether ``a @ b`` runs faster as ``(b.T @ a.T).T``: a few rows of C-ordered ``a`` against
    a large transposed weight (``x @ w.T`` with ``w`` C-ordered, the linear layers' forward).

    OpenBLAS (numpy's) multiplies a short row block by a transposed matrix through a slow
    packing path; the same products the other way round are 1.4-3x faster from 4 rows up to a
    quarter of the weight's columns (measured with one thread, numpy 2.4 / OpenBLAS 0.3.31).
    Both eager kernels and replay plans decide with this one rule, so they stay bit-identical.
    """
    return wide_shape(a.shape[0], b.shape[0], b.shape[1]) and a.dtype == b.dtype and \
        a.dtype in _PLAIN and a.flags.c_contiguous and b.flags.f_contiguous and \
        not b.flags.c_contiguous


def wide_shape(m, k, n) -> bool:
    """The shape part of :func:`wide_product` for an (m, k) by (k, n) product."""
    return 4 <= m and 4 * m <= n and k * n >= 65536


def transposed_product(a, b, scratch, out):
    """``a @ b`` computed as ``b.T @ a.T`` into ``scratch`` (shape (n, m)), copied into the
    C-ordered ``out`` (shape (m, n)); see :func:`wide_product`."""
    np.matmul(b.T, a.T, out=scratch)
    np.copyto(out, scratch.T)
    return out


def matmul_path(a, b, needs=(), bmm=False):
    """The kernel torch 2.13's ``matmul`` reaches for ``a @ b``, with the operands as that
    kernel sees them, each a (shape, dtype) pair: ``("dot", a, b)`` for two vectors, ``("mv",
    matrix, vector)``, ``("mm", m1, m2)`` (a vector on the left is one row), or ``("bmm", b1,
    b2)`` -- a batch times a matrix or vector is folded into one matrix's rows when
    :func:`_folds` says so (and a matrix times a batch into the batch's transpose), otherwise
    the batch dims broadcast (``bmm``: ``torch.bmm``'s own, as given). ``needs``: which operands
    require grad, which torch's folding reads."""
    A, B = (a.shape, a.dtype), (b.shape, b.dtype)
    if bmm:
        return "bmm", A, B
    if a.ndim == 1 and b.ndim == 1:
        return "dot", A, B
    fold = _folds(a, b, needs)
    if fold == "left":
        A = ((math.prod(a.shape[:-1]), a.shape[-1]), a.dtype)
    elif fold == "right":  # (b.mT's rows times a.mT)
        A, B = ((math.prod(b.shape[:-2]) * b.shape[-1], b.shape[-2]), b.dtype), \
            (a.shape[::-1], a.dtype)
    elif a.ndim > 2 or b.ndim > 2:
        sa = a.shape if a.ndim > 1 else (1,) + a.shape
        sb = b.shape if b.ndim > 1 else b.shape + (1,)
        err = _size_mismatch([sa[:-2], sb[:-2]])  # (the batch dims broadcast first)
        if err is not None:
            raise err
        batch = np.broadcast_shapes(sa[:-2], sb[:-2])
        return "bmm", (batch + sa[-2:], a.dtype), (batch + sb[-2:], b.dtype)
    if len(B[0]) == 1:
        return "mv", A, B
    if len(A[0]) == 1:
        A = ((1,) + A[0], A[1])
    return "mm", A, B


def _check_mm(a, b, needs=(), bmm=False):
    """torch's shape checks for ``a @ b``, worded and ordered as the kernel its path reaches
    (:func:`matmul_path`) reports them: ``dot`` checks the dtypes first, then "inconsistent
    tensor size"; ``mv`` "size mismatch"; ``mm`` "mat1 and mat2 shapes" (with folded sizes);
    ``bmm`` the batch and inner sizes together. Returns the path, for the dtype checks."""
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{a.ndim}D and {b.ndim}D")
    path = matmul_path(a, b, needs, bmm)
    kind, (sa, da), (sb, db) = path
    if kind == "dot":
        if da != db:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                               f"{_scalar(da)} and {_scalar(db)}")
        if sa != sb:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{sa[0]}] and src "
                               f"[{sb[0]}] to have the same number of elements, but got "
                               f"{sa[0]} and {sb[0]} elements respectively")
    elif kind == "mv":
        if sa[1] != sb[0]:
            raise RuntimeError(f"size mismatch, got input ({sa[0]}), mat ({sa[0]}x{sa[1]}), vec "
                               f"({sb[0]})")
    elif kind == "mm":
        if sa[1] != sb[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa[0]}x{sa[1]} and "
                               f"{sb[0]}x{sb[1]})")
    else:
        n, got = math.prod(sa[:-2]), math.prod(sb[:-2])
        if sa[-1] != sb[-2] or n != got:
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                               f"[{n}, {sa[-1]}] but got: [{got}, {sb[-2]}].")
    return path


def _folds(a, b, needs=()):
    """torch's matmul ``should_fold``: "left" when a batch ``a`` times a matrix or vector ``b``
    runs as one mm/mv over ``a``'s rows, "right" when a vector or matrix ``a`` times a batch
    ``b`` runs as ``b``'s transpose folded into rows (times ``a``'s transpose), None for the
    batched product. The larger operand folds when the other requires grad; else never against
    a matrix on the left; else when it is empty or its leading dims view as rows without a
    copy. ``needs``: which operands require grad."""
    left = a.ndim >= b.ndim
    big = a if left else np.swapaxes(b, -1, -2)
    if not (big.ndim >= 3 and (b.ndim if left else a.ndim) <= 2):
        return None
    side = "left" if left else "right"
    if len(needs) > (1 if left else 0) and needs[1 if left else 0]:
        return side
    if a.ndim == 2:
        return None
    if big.size == 0 or all(big.strides[i] == big.strides[i + 1] * big.shape[i + 1]
                            for i in range(big.ndim - 2)):
        return side
    return None


def _scalar(dt) -> str:
    return D.scalar_name(D._BY_NP[np.dtype(dt)])


def _no_bool(kernel, *arrays):
    for x in arrays:
        if x is not None and x.dtype == np.bool_:
            raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def check_matmul_dtypes(a, b, bmm=False, needs=(), path=None):
    """torch's dtype checks for ``a @ b`` by the kernel its path reaches
    (:func:`matmul_path`): its operands must share a dtype, and none of these kernels exists
    for bool -- though mm, mv and bmm return an empty result, or zeros for an empty inner
    dim, before they look at the dtype (bmm before it compares the dtypes, too). ``path``:
    :func:`matmul_path`'s answer when the caller has it."""
    kind, (sa, da), (sb, db) = path or matmul_path(a, b, needs, bmm)
    empty = 0 in sa or 0 in sb
    if kind == "dot":
        if da != db:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                               f"{_scalar(da)} and {_scalar(db)}")
        if da == np.bool_:
            raise NotImplementedError('"dot" not implemented for \'Bool\'')
    elif kind == "mv":
        if da != db:
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                               f"{_scalar(db)}, {_scalar(da)}, and {_scalar(db)}")
        if da == np.bool_ and not empty:
            raise NotImplementedError('"addmv_impl_cpu" not implemented for \'Bool\'')
    elif kind == "bmm":
        if empty:
            return
        if da == np.bool_:
            raise NotImplementedError('"bmm" not implemented for \'Bool\'')
        if da != db:
            raise RuntimeError(f"expected scalar type {_scalar(da)} but found {_scalar(db)}")
    else:
        if da != db:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                               f"{_cpp(da)} != {_cpp(db)}")
        if da == np.bool_ and not empty:
            raise NotImplementedError('"addmm_impl_cpu_" not implemented for \'Bool\'')


def _matmul_node(ctx, a, b, bmm):
    """The node torch's matmul ends in (2-D by 2-D is mm, our op's own name): dot, mv, bmm;
    for a vector times a matrix the squeeze of its mm; otherwise the ``_unsafe_view`` of the
    folded or batched product -- except when torch folds a left matrix that requires grad
    against a batch (or a 3-D batch of one against a 3-D batch): then the product is computed
    transposed and made contiguous (a clone, or the transpose itself when it is contiguous)."""
    if bmm:
        return "BmmBackward0"
    if b.ndim == 1 and a.ndim <= 2:
        return "DotBackward0" if a.ndim == 1 else "MvBackward0"
    if a.ndim == 1 and b.ndim == 2:
        return "SqueezeBackward4"
    if b.ndim >= 3 and (a.ndim == 2 or a.ndim == b.ndim == 3 and a.shape[0] == 1 < b.shape[0]):
        needs = ctx.needs_input_grad
        if needs and needs[0]:  # (a transpose that is contiguous already is not copied)
            m, n = a.shape[-2], b.shape[-1]
            batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
            return "TransposeBackward0" if m == 1 or n == 1 or 0 in batch or \
                0 in (m, n) else "CloneBackward0"
    return "UnsafeViewBackward0"


class Matmul(Kernel):
    name = "matmul"
    saved = (0, 1)
    reads = {0: (1,), 1: (0,)}  # (torch saves an operand only for the gradients that read it)
    graph_inputs = {"a": 0, "b": 1}

    @staticmethod
    def forward(ctx, a, b, bmm=False):
        check_matmul_dtypes(a, b, path=_check_mm(a, b, ctx.needs_input_grad, bmm))
        ctx.a, ctx.b = a, b
        if a.ndim != 2 or b.ndim != 2 or bmm:
            ctx.torch_node = _matmul_node(ctx, a, b, bmm)
        if a.dtype != b.dtype:  # (only an empty bmm has mixed operands: batch2's dtype)
            return _matmul(a, b).astype(b.dtype)
        return _matmul(a, b)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        a, b = ctx.a, ctx.b
        n = ctx.needs_input_grad
        if a.ndim == 1 and b.ndim == 1:  # dot product: g is 0-d
            return (g * b if n[0] else None, g * a if n[1] else None)
        a2 = xp.expand_dims(a, 0) if a.ndim == 1 else a
        b2 = xp.expand_dims(b, -1) if b.ndim == 1 else b
        g2 = g
        if a.ndim == 1:
            g2 = xp.expand_dims(g2, -2)
        if b.ndim == 1:
            g2 = xp.expand_dims(g2, -1)
        ga = gb = None
        if n[0]:
            ga = xp.matmul(g2, xp.swapaxes(b2, -1, -2))
            if a.ndim == 1:
                ga = xp.reshape(ga, tuple(ga.shape[:-2]) + tuple(ga.shape[-1:]))
                ga = xp.sum(xp.reshape(ga, (-1, a.shape[0])), 0) if ga.ndim > 1 else ga
            elif tuple(ga.shape) != tuple(a.shape):
                ga = _sum_to(xp, ga, tuple(a.shape))
        if n[1]:
            gb = xp.matmul(xp.swapaxes(a2, -1, -2), g2)
            if b.ndim == 1:
                gb = gb[..., 0]
                gb = xp.sum(xp.reshape(gb, (-1, b.shape[0])), 0) if gb.ndim > 1 else gb
            elif tuple(gb.shape) != tuple(b.shape):
                gb = _sum_to(xp, gb, tuple(b.shape))
        return (ga, gb)


def _sum_to(xp, g, shape):
    nd = g.ndim - len(shape)
    if nd:
        g = xp.sum(g, axis=tuple(range(nd)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return xp.sum(g, axis=axes, keepdims=True) if axes else g


def _cpp(dt):
    from .. import _dtype as D
    return D.cpp_name(D._BY_NP[dt])


class Linear(Kernel):
    """y = x @ W^T + b in one op (the MLP hot path; BLAS reads W^T without a copy)."""

    name = "linear"
    saved = (0, 1)
    reads = {0: (1,), 1: (0,)}  # (torch saves an operand only for the gradients that read it)
    graph_inputs = {"x": 0, "w": 1}

    @staticmethod
    def forward(ctx, x, w, b=None):
        dt = x.dtype
        if not (dt in _PLAIN and w.dtype == dt and w.ndim == 2 and 0 < x.ndim < 3 and
                x.shape[-1] == w.shape[1] and (b is None or b.dtype == dt)):
            _check_linear(ctx, x, w, b)  # (float32/float64 operands of one dtype pass them all)
        ctx.x, ctx.w = x, w
        y = _matmul(x, w.T)
        if b is not None:
            if b.ndim != 1:  # (a (1, out) bias: its gradient keeps that shape)
                ctx.b_shape = b.shape
            if b.ndim > y.ndim:  # (a 1-D input's row, its bias (1, out): viewed back as (out,))
                y = np.add(y, b).reshape(y.shape)
            else:
                y += b
        elif x.ndim == 2:
            ctx.torch_node = "MmBackward0"  # (torch's linear without a bias: x.matmul(w.t()))
        if x.ndim != 2:  # torch's last op: the view of addmm over the flattened rows (a
            # contiguous input and a contiguous bias of one value per output), else the bias
            # added to the matmul; without a bias, a 1-D product's squeeze or the matmul's
            # _unsafe_view (measured, torch 2.13)
            ctx.torch_node = ("SqueezeBackward4" if x.ndim == 1 else "UnsafeViewBackward0") \
                if b is None else ("ViewBackward0" if flattens(x, w, b) else "AddBackward0")
        return y

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.x, ctx.w
        n = ctx.needs_input_grad
        bias = len(n) > 2 and n[2]
        shape = getattr(ctx, "b_shape", None) if bias else None
        if shape is not None:  # a bias other than 1-D: the output gradient, which the engine
            # sums down to the bias's shape (a 1-D input's gets its row dim)
            gx, gw, _ = Linear.backward(_WithoutBias(ctx), g)
            lead = len(shape) - g.ndim
            return gx, gw, ns(g).reshape(g, (1,) * lead + tuple(g.shape)) if lead > 0 else g
        if type(g) is np.ndarray and g.ndim == 2 and x.ndim == 2:  # the arrays themselves
            return (_matmul(g, w) if n[0] else None, np.matmul(g.T, x) if n[1] else None,
                    NP.sum(g, 0) if bias else None)
        xp = ns(g)
        gx = _mm(xp, g, w) if n[0] else None
        gw = gb = None
        if n[1] or bias:
            g2 = xp.reshape(g, (-1, g.shape[-1]))
            if n[1]:
                gw = xp.matmul(xp.swapaxes(g2, 0, 1), xp.reshape(x, (-1, x.shape[-1])))
            if bias:
                gb = xp.sum(g2, 0)
        return (gx, gw, gb)


class _WithoutBias:
    """A linear node's context seen without its bias (the other two gradients' rule)."""

    def __init__(self, ctx):
        self.x, self.w = ctx.x, ctx.w
        self.needs_input_grad = tuple(ctx.needs_input_grad[:2])


def flattens(x, w, b) -> bool:
    """Whether torch's linear runs an input other than 2-D as addmm over its rows, viewed back
    (a contiguous input and a contiguous bias of one value per output, measured on torch 2.13);
    otherwise it runs matmul, then adds the bias."""
    return x.flags.c_contiguous and b.flags.c_contiguous and b.size == w.shape[0]


def _check_linear(ctx, x, w, b):
    """torch's argument checks of ``linear``, in its order."""
    if x.ndim == 0 or w.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{x.ndim}D and {w.ndim}D")
    if x.shape[-1] != w.shape[-1]:
        sa = "x".join(map(str, (int(np.prod(x.shape[:-1])), x.shape[-1])))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa} and "
                           f"{w.shape[1]}x{w.shape[0]})")
    if b is not None and (x.ndim == 2 or flattens(x, w, b)):
        # torch's fused path: addmm(bias, x (flattened to rows), w.t()) checks self/mat2, then
        # mat1/mat2; any other input runs matmul, then adds the bias
        _check_addmm_dtypes(b, x, w)
    elif (x.dtype != w.dtype or x.dtype == np.bool_) and x.ndim >= 3 and \
            _folds(x, w.T, getattr(ctx, "needs_input_grad", ())) is None:
        check_matmul_dtypes(x, w.T, bmm=True)  # torch's matmul takes its bmm path
    elif x.dtype != w.dtype:  # torch: matmul folded into one mm
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_cpp(x.dtype)} != {_cpp(w.dtype)}")
    _no_bool("addmm_impl_cpu_", x)


def _check_addmm_dtypes(c, a, b, kernel=True):
    """torch's addmm order: self against mat2, then mat1 against mat2, then (``kernel``) bool."""
    if c.dtype != b.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{_scalar(c.dtype)} and {_scalar(b.dtype)}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                           f"{_scalar(a.dtype)} and {_scalar(b.dtype)}")
    if kernel:
        _no_bool("addmm_impl_cpu_", a)


def _gemm(a, b, c, beta, alpha):
    """``beta * c + alpha * (a @ b)`` as torch's CPU gemm computes it: half-precision operands in
    float32 throughout (the product is not rounded before the sum), rounded once at the end."""
    if a.dtype in _HALF and b.dtype == a.dtype:
        f32 = np.float32
        prod = np.matmul(a.astype(f32), b.astype(f32))
        with np.errstate(over="ignore", invalid="ignore"):
            return _scaled_sum(prod, c.astype(f32), beta, alpha).astype(a.dtype)
    return _scaled_sum(_matmul(a, b), c, beta, alpha)


def _scaled_sum(prod, c, beta, alpha):
    """``beta * c + alpha * prod`` as torch's addmm family computes it: integer tensors take
    the scalars truncated, and ``beta == 0`` ignores ``c`` (NaN included)."""
    if prod.dtype.kind in "iu":
        ibeta, alpha = int(beta), int(alpha)
    else:
        ibeta = beta
    r = prod
    if alpha != 1:
        r = r * np.asarray(alpha).astype(r.dtype)
    if beta == 0:
        r = np.asarray(np.broadcast_to(r, np.broadcast_shapes(r.shape, c.shape)))
    else:
        r = r + (c if ibeta == 1 else np.asarray(ibeta).astype(c.dtype) * c)
    return np.asarray(r).astype(prod.dtype, copy=False)


def _write(r, out):
    if out is not None:
        np.copyto(out, r, casting="unsafe")
        return out
    return r


class Baddbmm(Kernel):
    """``beta * input + alpha * (batch1 @ batch2)`` over a batch (``input`` already expanded to
    the result's shape by ``torch.baddbmm``)."""

    name = "baddbmm"
    saved = (1, 2)
    reads = {1: (2,), 2: (1,)}  # (torch saves an operand only for the gradients that read it)
    graph_inputs = {"a": 1, "b": 2}

    @staticmethod
    def forward(ctx, c, a, b, beta=1, alpha=1, out=None):
        if c.dtype != a.dtype:
            raise RuntimeError(f"Input dtypes must be the same, got: input {_cpp(c.dtype)}, "
                               f"batch1: {_cpp(a.dtype)}, batch2: {_cpp(b.dtype)}")
        _no_bool("baddbmm", a)
        if b.dtype != a.dtype:
            raise RuntimeError(f"expected scalar type {_scalar(a.dtype)} but found "
                               f"{_scalar(b.dtype)}")
        ctx.a, ctx.b, ctx.alpha, ctx.beta = a, b, alpha, beta
        return _write(_gemm(a, b, c, beta, alpha), out)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = ctx.needs_input_grad
        a, b, al = ctx.a, ctx.b, ctx.alpha
        return ((g if ctx.beta == 1 else g * ctx.beta) if n[0] else None,
                _mm(xp, g, xp.swapaxes(b, 1, 2)) * al if n[1] else None,
                _mm(xp, xp.swapaxes(a, 1, 2), g) * al if n[2] else None)


class Addbmm(Kernel):
    """``beta * input + alpha * sum_i batch1[i] @ batch2[i]`` (``input`` of the result's
    shape); torch accumulates the batches one addmm at a time, in order."""

    name = "addbmm"
    saved = (1, 2)
    reads = {1: (2,), 2: (1,)}  # (torch saves an operand only for the gradients that read it)
    graph_inputs = {"a": 1, "b": 2}

    @staticmethod
    def forward(ctx, c, a, b, beta=1, alpha=1, out=None):
        _check_addmm_dtypes(c, a, b)
        ctx.a, ctx.b, ctx.alpha, ctx.beta = a, b, alpha, beta
        if a.shape[0] == 0:
            prod = np.zeros(c.shape, c.dtype)
        else:
            prod = _matmul(a[0], b[0])
            for i in range(1, a.shape[0]):
                prod = prod + _matmul(a[i], b[i])
        return _write(_scaled_sum(prod, c, beta, alpha), out)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = ctx.needs_input_grad
        a, b, al = ctx.a, ctx.b, ctx.alpha
        gb = xp.broadcast_to(g, (a.shape[0],) + tuple(g.shape))
        return ((g if ctx.beta == 1 else g * ctx.beta) if n[0] else None,
                _mm(xp, gb, xp.swapaxes(b, 1, 2)) * al if n[1] else None,
                _mm(xp, xp.swapaxes(a, 1, 2), gb) * al if n[2] else None)


class Addmm(Kernel):
    name = "addmm"
    saved = (1, 2)
    reads = {1: (2,), 2: (1,)}  # (torch saves an operand only for the gradients that read it)
    graph_inputs = {"a": 1, "b": 2}

    @staticmethod
    def forward(ctx, c, a, b, beta=1, alpha=1, out=None):
        # torch's order: the meta function's dtypes, ranks and sizes (then, with out=, out's
        # dtype: addmm's out_check), then the kernel's expand of self and its dtype support
        _check_addmm_dtypes(c, a, b, kernel=False)
        for name, m in (("mat1", a), ("mat2", b)):
            if m.ndim != 2:
                raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
        _check_mm(a, b)
        err = expand_error(c.shape, (a.shape[0], b.shape[1]), type_name(D._BY_NP[c.dtype]))
        if err is not None:
            raise err
        _no_bool("addmm_impl_cpu_", a)
        if a.dtype.kind in "iu":  # the scalars take the tensors' type (truncated), as in torch
            beta, alpha = int(beta), int(alpha)
        ctx.a, ctx.b, ctx.alpha, ctx.beta = a, b, alpha, beta
        return _write(_gemm(a, b, c, beta, alpha), out)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = ctx.needs_input_grad
        a, b, al = ctx.a, ctx.b, ctx.alpha
        return (g * ctx.beta if n[0] else None,
                al * xp.matmul(g, xp.swapaxes(b, 0, 1)) if n[1] else None,
                al * xp.matmul(xp.swapaxes(a, 0, 1), g) if n[2] else None)


class Einsum(Kernel):
    name = "einsum"
    saved = tuple(range(26))  # every operand ...
    # ... read only by the other operands' gradients (einsum is linear in each operand), so an
    # in-place change of an operand whose partners need no gradient is not an error (torch)
    reads = {i: tuple(j for j in range(26) if j != i) for i in range(26)}
    graph_inputs = {"xs": "all"}

    @staticmethod
    def forward(ctx, *xs, equation):
        eq = equation.replace(" ", "")
        if "->" in eq:
            lhs, out = eq.split("->")
        else:
            lhs = eq
            letters = [c for c in lhs.replace(",", "") if c.isalpha()]
            out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
        if "." in lhs:
            raise NotImplementedError("einsum with '...' is not supported")
        half = xs[0].dtype if xs and all(x.dtype == xs[0].dtype for x in xs) and \
            xs[0].dtype in _HALF else None
        if half is not None:  # no half-precision einsum in numpy: float32, rounded back
            xs = tuple(x.astype(np.float32) for x in xs)
        ctx.ins, ctx.out, ctx.xs = lhs.split(","), out, xs
        r = np.asarray(_np_einsum(f"{lhs}->{out}", *xs))
        return r if half is None else r.astype(half)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        if graph_mode(xp):
            return _einsum_backward_graph(xp, ctx, g)
        if g.dtype in _HALF:  # the engine rounds the float32 gradients back to each input's dtype
            g = g.astype(np.float32)
        grads = []
        for i, sub in enumerate(ctx.ins):
            if not ctx.needs_input_grad[i]:
                grads.append(None)
                continue
            others = [s for j, s in enumerate(ctx.ins) if j != i]
            ops = [x for j, x in enumerate(ctx.xs) if j != i]
            shape = ctx.xs[i].shape
            # letters of input i missing from the output and the other inputs were summed away
            avail = set(ctx.out) | set("".join(others))
            tgt = "".join(c for c in sub if c in avail)
            r = _np_einsum(",".join([ctx.out] + others) + "->" + _dedup(tgt), g, *ops)
            # rebuild repeated/summed letters of sub
            full = np.zeros(shape, g.dtype)
            view = _diag_view(full, sub)
            order = _dedup(tgt)
            keep = [c for c in _dedup(sub)]
            expand = [c for c in keep]
            r_exp = r
            for c in keep:
                if c not in order:
                    r_exp = np.expand_dims(r_exp, -1)
                    order = order + c
            perm = [order.index(c) for c in expand]
            view[...] = np.transpose(r_exp, perm)
            grads.append(full)
        return tuple(grads)


def _np_einsum(eq, *xs):
    """``np.einsum`` (optimized), silent about inf and NaN as torch is (numpy's Python wrapper
    warns from its own frame: ``_xp._silent``)."""
    return _silent_einsum(eq, *xs, optimize=True)


_silent_einsum = _silent(np.einsum)


def _einsum_backward_graph(xp, ctx, g):
    """Each operand's gradient as one einsum of the output gradient with the other operands,
    a Kronecker delta (identity matrix) for every repeated letter of the operand and a vector
    of ones for every letter summed away: differentiable again, unlike the diagonal writes of
    the numpy rule."""
    xs = ctx.xs
    dt = xp.npdtype(xs[0]) if xs else xp.npdtype(g)
    g = xp.astype(g, dt)  # half operands ran in float32
    used = set("".join(ctx.ins) + ctx.out)
    fresh = iter(c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in used)
    grads = []
    for i, sub in enumerate(ctx.ins):
        if not ctx.needs_input_grad[i]:
            grads.append(None)
            continue
        others = [s for j, s in enumerate(ctx.ins) if j != i]
        ops = [x for j, x in enumerate(xs) if j != i]
        shape = tuple(xs[i].shape)
        avail = set(ctx.out) | set("".join(others))
        target, extra_subs, extra_ops, seen = "", [], [], set()
        for c, n in zip(sub, shape):
            if c in seen:  # a repeated letter: its own index, tied to the first by a delta
                f = next(fresh)
                target += f
                extra_subs.append(c + f)
                extra_ops.append(xp.eye(n, dtype=dt))
                continue
            seen.add(c)
            target += c
            if c not in avail:  # summed away in the forward: the gradient is constant along it
                extra_subs.append(c)
                extra_ops.append(xp.ones((n,), dt))
        eq = ",".join([ctx.out] + others + extra_subs) + "->" + target
        grads.append(xp.einsum(eq, g, *ops, *extra_ops))
    return tuple(grads)


def _dedup(s):
    out = ""
    for c in s:
        if c not in out:
            out += c
    return out


def _diag_view(a, sub):
    """A writable view of ``a`` indexed by unique letters (repeated letters take the diagonal)."""
    letters = _dedup(sub)
    if len(letters) == len(sub):
        return a
    strides, shape = [], []
    for c in letters:
        st = sum(a.strides[i] for i, ch in enumerate(sub) if ch == c)
        strides.append(st)
        shape.append(a.shape[sub.index(c)])
    return np.lib.stride_tricks.as_strided(a, shape, strides, writeable=True)


class LinalgCross(Kernel):
    """``linalg.cross`` along ``dim`` (size 3) of broadcast operands of one dtype: ``a1*b2 -
    a2*b1``, ``a2*b0 - a0*b2``, ``a0*b1 - a1*b0``, each product and difference in that dtype
    (a half dtype rounds each one, as c10's Half arithmetic does; integers wrap; float32 and
    float64 fuse the first product into the difference, as torch's kernel does). Gradients:
    ``cross(other, grad)`` and ``cross(grad, input)`` (torch's formula)."""

    name = "linalg_cross"
    saved = (0, 1)
    reads = {0: (1,), 1: (0,)}  # (each operand is read only by the other's gradient)
    graph_inputs = {"a": 0, "b": 1}

    @staticmethod
    def forward(ctx, a, b, dim):
        ctx.a, ctx.b, ctx.dim = a, b, dim
        a, b = np.broadcast_arrays(a, b)
        a0, a1, a2 = (np.take(a, i, axis=dim) for i in range(3))
        b0, b1, b2 = (np.take(b, i, axis=dim) for i in range(3))
        with np.errstate(all="ignore"):
            fma = {np.dtype(np.float32): fma32, np.dtype(np.float64): fma64}.get(a.dtype)
            if fma is not None:  # torch's float32 and float64 kernels fuse each first product
                # with the difference: fma(a1, b2, -(a2 * b1)) (measured; half does not)
                return np.stack([fma(a1, b2, -(a2 * b1)), fma(a2, b0, -(a0 * b2)),
                                 fma(a0, b1, -(a1 * b0))], axis=dim)
            return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=dim)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        n = ctx.needs_input_grad
        return (xp.call(LinalgCross, ctx.b, g, dim=ctx.dim) if n[0] else None,
                xp.call(LinalgCross, g, ctx.a, dim=ctx.dim) if n[1] else None)


class _LinAlgError(RuntimeError):
    """torch's linear-algebra error (``torch.linalg.LinAlgError``, a RuntimeError): a
    factorization LAPACK could not complete."""


def gesdd(a):
    """The reduced SVD ``(U, S, Vh)`` of the last two dims by LAPACK (numpy's), with torch 2.13
    CPU's outcome for matrices that are not finite: one holding a NaN raises its LinAlgError
    ("(Batch element k): " for one of a stack), one holding an infinity (and no NaN) gets NaN
    singular values. (OpenBLAS's LAPACK may fail, or never return, on such a matrix.)"""
    finite = np.isfinite(a).all(axis=(-2, -1))
    if finite.all():
        return np.linalg.svd(a, full_matrices=False)
    nan = np.isnan(a).any(axis=(-2, -1))
    if nan.any():
        where = "" if a.ndim == 2 else \
            f"(Batch element {int(np.flatnonzero(nan.reshape(-1))[0])}): "
        raise _LinAlgError(f"linalg.svd: {where}The algorithm failed to converge because the "
                           "input matrix contained non-finite values.")
    u, s, vh = np.linalg.svd(np.where(finite[..., None, None], a, 0), full_matrices=False)
    bad = ~finite
    s[bad] = np.nan
    u[bad] = np.nan  # (torch's are LAPACK's unspecified vectors)
    vh[bad] = np.nan
    return u, s, vh


class Svdvals(Kernel):
    """The singular values of the last two dims, descending (LAPACK's gesdd, as torch's CPU
    path); backward ``U diag(g) Vh`` (torch's svd_backward with only the values used)."""

    name = "linalg_svdvals"
    node_name = "LinalgSvdBackward0"
    saved = ()
    saves_output = True  # torch's node saves U, S and Vh: changing S in place is refused

    @staticmethod
    def forward(ctx, a):
        if a.size == 0:
            k = min(a.shape[-2:])
            ctx.u = np.zeros(a.shape[:-1] + (k,), a.dtype)
            ctx.vh = np.zeros(a.shape[:-2] + (k, a.shape[-1]), a.dtype)
            ctx.s = np.zeros(a.shape[:-2] + (k,), a.dtype)
            return np.zeros(a.shape[:-2] + (k,), a.dtype)
        u, s, vh = gesdd(a)
        ctx.u, ctx.vh, ctx.s = u, vh, s
        return s.astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        if graph_mode(xp):  # U and Vh depend on the input: the outputs of an SVD of it
            from .._autograd_graph import derived_outputs
            u, s, vh = raw(ctx, "u"), raw(ctx, "s"), raw(ctx, "vh")
            u, _, vh = derived_outputs(ctx, LinalgSvd, [0], [u, s, vh], u=u, s=s, vh=vh)
            return (xp.matmul(u * xp.expand_dims(g, -2), vh),)
        return (np.matmul(ctx.u * g[..., None, :], ctx.vh),)


class LinalgSvd(Kernel):
    """The reduced SVD ``A = U diag(S) Vh`` of the last two dims (what ``svdvals`` computes on
    the way); backward is torch's ``svd_backward`` for real inputs (distinct singular values
    assumed, as there). Backward rules reach it (the second derivative of ``svdvals``)."""

    name = "linalg_svd"
    n_outputs = 3
    saves_output = True
    graph_inputs = {"u": ("out", 0), "s": ("out", 1), "vh": ("out", 2)}

    @staticmethod
    def forward(ctx, a):
        u, s, vh = gesdd(a)
        ctx.u, ctx.s, ctx.vh = u, s, vh
        return u.astype(a.dtype, copy=False), s.astype(a.dtype, copy=False), \
            vh.astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grads):
        xp = ns(grads)
        gu, gs, gvh = grads
        u, s, vh = ctx.u, ctx.s, ctx.vh
        m, n = u.shape[-2], vh.shape[-1]
        mt = lambda a: xp.swapaxes(a, -1, -2)  # noqa: E731
        skew = lambda a: a - mt(a)  # noqa: E731
        uhgu = skew(xp.matmul(mt(u), gu))
        vhgv = skew(xp.matmul(vh, mt(gvh)))
        s2 = s * s
        k = s.shape[-1]
        eye = xp.const(np.eye(k, dtype=bool))
        e = xp.expand_dims(s2, -2) - xp.expand_dims(s2, -1)  # E_jk = S_k^2 - S_j^2
        e = xp.where(eye, 1, e)
        ga = (uhgu * xp.expand_dims(s, -2) + xp.expand_dims(s, -1) * vhgv) / e
        ga = ga + xp.where(eye, xp.expand_dims(gs, -1), 0)  # diag(gS)
        if m > n:
            ga = xp.matmul(u, ga)
            gusinv = gu / xp.expand_dims(s, -2)
            ga = ga + gusinv - xp.matmul(u, xp.matmul(mt(u), gusinv))
            ga = xp.matmul(ga, vh)
        elif m < n:
            ga = xp.matmul(ga, vh)
            sinvgvh = gvh / xp.expand_dims(s, -1)
            ga = ga + sinvgvh - xp.matmul(xp.matmul(sinvgvh, mt(vh)), vh)
            ga = xp.matmul(u, ga)
        else:
            ga = xp.matmul(u, xp.matmul(ga, vh))
        return (ga,)
