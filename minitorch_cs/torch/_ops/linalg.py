"""Linear-algebra primitives: matmul (with batch broadcasting), the fused linear/addmm, einsum."""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from ._kernel import Kernel
from .elementwise import _HALF_DT as _HALF
from .elementwise import _prep



def _matmul(a, b):
    """``np.matmul``; half-precision operands multiply in float32 and the result is rounded back.

    That is torch's CPU rule (float32 accumulation); numpy's float16 matmul has no BLAS path and
    ml_dtypes' bfloat16 matmul returns float32.
    """
    if a.dtype in _HALF and b.dtype == a.dtype:
        return np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(a.dtype)
    return np.matmul(a, b)


def _check_mm(a, b):
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{a.ndim}D and {b.ndim}D")
    ka = a.shape[-1]
    kb = b.shape[-2] if b.ndim > 1 else b.shape[0]
    if ka != kb:
        sa = "x".join(map(str, a.shape if a.ndim > 1 else (1,) + a.shape))
        sb = "x".join(map(str, b.shape if b.ndim > 1 else b.shape + (1,)))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa} and {sb})")


def _scalar(dt) -> str:
    return D.scalar_name(D._BY_NP[np.dtype(dt)])


def _no_bool(kernel, *arrays):
    for x in arrays:
        if x is not None and x.dtype == np.bool_:
            raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def check_matmul_dtypes(a, b, bmm=False):
    """torch's dtype checks for a matrix product, by the kernel the shapes select: ``dot``
    (1-d with 1-d), ``addmv`` (matrix with vector), ``bmm`` (``torch.bmm``), ``addmm`` (the
    rest); operands must share a dtype and none of these kernels exists for bool."""
    if a.ndim == 1 and b.ndim == 1:
        if a.dtype != b.dtype:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                               f"{_scalar(a.dtype)} and {_scalar(b.dtype)}")
        _no_bool("dot", a)
    elif b.ndim == 1 and a.ndim >= 2 and not bmm:  # matrix-vector (a batch folds into rows)
        if a.dtype != b.dtype:
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                               f"{_scalar(b.dtype)}, {_scalar(a.dtype)}, and {_scalar(b.dtype)}")
        _no_bool("addmv_impl_cpu", a)
    elif bmm or b.ndim >= 3:  # torch's batched path (a batched right operand): bmm
        _no_bool("bmm", a)
        if a.dtype != b.dtype:
            raise RuntimeError(f"expected scalar type {_scalar(a.dtype)} but found "
                               f"{_scalar(b.dtype)}")
    else:
        if a.dtype != b.dtype:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                               f"{_cpp(a.dtype)} != {_cpp(b.dtype)}")
        _no_bool("addmm_impl_cpu_", a)


class Matmul(Kernel):
    name = "matmul"
    saved = (0, 1)
    reads = {0: (1,), 1: (0,)}  # (torch saves an operand only for the gradients that read it)

    @staticmethod
    def forward(ctx, a, b, bmm=False):
        _check_mm(a, b)
        check_matmul_dtypes(a, b, bmm)
        ctx.a, ctx.b = a, b
        return _matmul(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.a, ctx.b
        n = ctx.needs_input_grad
        if a.ndim == 1 and b.ndim == 1:  # dot product: g is 0-d
            return (g * b if n[0] else None, g * a if n[1] else None)
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        g2 = g
        if a.ndim == 1:
            g2 = np.expand_dims(g2, -2)
        if b.ndim == 1:
            g2 = np.expand_dims(g2, -1)
        ga = gb = None
        if n[0]:
            ga = np.matmul(g2, np.swapaxes(b2, -1, -2))
            if a.ndim == 1:
                ga = ga.reshape(ga.shape[:-2] + ga.shape[-1:])
                ga = ga.reshape(-1, a.shape[0]).sum(0) if ga.ndim > 1 else ga
            elif ga.shape != a.shape:
                ga = _sum_to(ga, a.shape)
        if n[1]:
            gb = np.matmul(np.swapaxes(a2, -1, -2), g2)
            if b.ndim == 1:
                gb = gb[..., 0]
                gb = gb.reshape(-1, b.shape[0]).sum(0) if gb.ndim > 1 else gb
            elif gb.shape != b.shape:
                gb = _sum_to(gb, b.shape)
        return (ga, gb)


def _sum_to(g, shape):
    nd = g.ndim - len(shape)
    if nd:
        g = g.sum(axis=tuple(range(nd)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True) if axes else g


def _cpp(dt):
    from .. import _dtype as D
    return D.cpp_name(D._BY_NP[dt])


class Linear(Kernel):
    """y = x @ W^T + b in one op (the MLP hot path; BLAS reads W^T without a copy)."""

    name = "linear"
    saved = (0, 1)
    reads = {0: (1,), 1: (0,)}  # (torch saves an operand only for the gradients that read it)

    @staticmethod
    def forward(ctx, x, w, b=None):
        if x.shape[-1] != w.shape[-1]:
            sa = "x".join(map(str, (int(np.prod(x.shape[:-1])), x.shape[-1])))
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa} and "
                               f"{w.shape[1]}x{w.shape[0]})")
        if b is not None:  # torch: addmm(bias, x, w.t()) checks self/mat2, then mat1/mat2
            _check_addmm_dtypes(b, x, w)
        elif (x.dtype != w.dtype or x.dtype == np.bool_) and not _folds(ctx, x):
            check_matmul_dtypes(x, w.T, bmm=True)  # torch's matmul takes its bmm path
        elif x.dtype != w.dtype:  # torch: matmul folded into one mm
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                               f"{_cpp(x.dtype)} != {_cpp(w.dtype)}")
        _no_bool("addmm_impl_cpu_", x)
        ctx.x, ctx.w = x, w
        y = _matmul(x, w.T)
        if b is not None:
            y += b
        return y

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.x, ctx.w
        n = ctx.needs_input_grad
        gx = g @ w if n[0] else None
        gw = gb = None
        if n[1] or (len(n) > 2 and n[2]):
            g2 = g.reshape(-1, g.shape[-1])
            if n[1]:
                gw = g2.T @ x.reshape(-1, x.shape[-1])
            if len(n) > 2 and n[2]:
                gb = g2.sum(0)
        return (gx, gw, gb)


def _folds(ctx, x):
    """torch's matmul ``should_fold`` for ``x @ w.t()``: a 1-D/2-D input, a weight that requires
    grad, an empty input, or leading dims of ``x`` that view as rows without a copy run one mm;
    otherwise the weight is expanded and bmm runs."""
    if x.ndim < 3:
        return True
    needs = getattr(ctx, "needs_input_grad", None)
    if needs is not None and len(needs) > 1 and needs[1]:
        return True
    if x.size == 0:
        return True
    return all(x.strides[i] == x.strides[i + 1] * x.shape[i + 1] for i in range(x.ndim - 2))


def _check_addmm_dtypes(c, a, b):
    """torch's addmm order: self against mat2, then mat1 against mat2, then bool."""
    if c.dtype != b.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{_scalar(c.dtype)} and {_scalar(b.dtype)}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                           f"{_scalar(a.dtype)} and {_scalar(b.dtype)}")
    _no_bool("addmm_impl_cpu_", a)


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
        return _write(_scaled_sum(_matmul(a, b), c, beta, alpha), out)

    @staticmethod
    def backward(ctx, g):
        n = ctx.needs_input_grad
        a, b, al = ctx.a, ctx.b, ctx.alpha
        return ((g if ctx.beta == 1 else g * ctx.beta) if n[0] else None,
                _matmul(g, np.swapaxes(b, 1, 2)) * al if n[1] else None,
                _matmul(np.swapaxes(a, 1, 2), g) * al if n[2] else None)


class Addbmm(Kernel):
    """``beta * input + alpha * sum_i batch1[i] @ batch2[i]`` (``input`` of the result's
    shape); torch accumulates the batches one addmm at a time, in order."""

    name = "addbmm"
    saved = (1, 2)
    reads = {1: (2,), 2: (1,)}  # (torch saves an operand only for the gradients that read it)

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
        n = ctx.needs_input_grad
        a, b, al = ctx.a, ctx.b, ctx.alpha
        gb = np.broadcast_to(g, (a.shape[0],) + g.shape)
        return ((g if ctx.beta == 1 else g * ctx.beta) if n[0] else None,
                _matmul(gb, np.swapaxes(b, 1, 2)) * al if n[1] else None,
                _matmul(np.swapaxes(a, 1, 2), gb) * al if n[2] else None)


class Addmm(Kernel):
    name = "addmm"
    saved = (1, 2)
    reads = {1: (2,), 2: (1,)}  # (torch saves an operand only for the gradients that read it)

    @staticmethod
    def forward(ctx, c, a, b, beta=1, alpha=1, out=None):
        _check_mm(a, b)
        _check_addmm_dtypes(c, a, b)
        if a.dtype.kind in "iu":  # the scalars take the tensors' type (truncated), as in torch
            beta, alpha = int(beta), int(alpha)
        ctx.a, ctx.b, ctx.alpha, ctx.beta = a, b, alpha, beta
        return _write(_scaled_sum(_matmul(a, b), c, beta, alpha), out)

    @staticmethod
    def backward(ctx, g):
        n = ctx.needs_input_grad
        a, b, al = ctx.a, ctx.b, ctx.alpha
        return (g * ctx.beta if n[0] else None, al * (g @ b.T) if n[1] else None,
                al * (a.T @ g) if n[2] else None)


class Einsum(Kernel):
    name = "einsum"
    saved = tuple(range(26))  # every operand (backward reads them all)

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
        r = np.asarray(np.einsum(f"{lhs}->{out}", *xs, optimize=True))
        return r if half is None else r.astype(half)

    @staticmethod
    def backward(ctx, g):
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
            r = np.einsum(",".join([ctx.out] + others) + "->" + _dedup(tgt), g, *ops, optimize=True)
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


class Svdvals(Kernel):
    """The singular values of the last two dims, descending (LAPACK's gesdd, as torch's CPU
    path); backward ``U diag(g) Vh`` (torch's svd_backward with only the values used)."""

    name = "linalg_svdvals"
    node_name = "LinalgSvdBackward0"
    saved = ()

    @staticmethod
    def forward(ctx, a):
        if a.size == 0:
            k = min(a.shape[-2:])
            ctx.u = np.zeros(a.shape[:-1] + (k,), a.dtype)
            ctx.vh = np.zeros(a.shape[:-2] + (k, a.shape[-1]), a.dtype)
            return np.zeros(a.shape[:-2] + (k,), a.dtype)
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        ctx.u, ctx.vh = u, vh
        return s.astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        return (np.matmul(ctx.u * g[..., None, :], ctx.vh),)
