"""``embedding_bag``'s kernel and its backward, and ``embedding``'s gradient scaled by frequency.

torch 2.13's CPU kernel (``aten/src/ATen/native/EmbeddingBag.cpp``), measured where its source
leaves a choice open:

* **Bags.** ``offsets`` (from 0, never decreasing, at most the input's length: checked here)
  start the bags; position ``p`` belongs to the last bag starting at or before it. torch takes
  one of two paths: a *fast* one (float32/float16/bfloat16 weights whose rows are contiguous,
  no ``padding_idx``, modes sum and mean, a contiguous ``per_sample_weights``) that reads the
  bags from the offsets, and a *slow* one that maps positions to bags (``offset2bag``). They
  differ only for ``include_last_offset=True`` with a last offset below the input's length: the
  fast path ends the last bag there, the slow one runs it to the end of the input. A bag's
  size (the mean's divisor) is the next offset minus its own, for the last bag the input's
  length minus its offset (on either path), less the bag's ``padding_idx`` entries (so an
  all-padding bag averages to zeros).
* **Sums** run over a bag in input order from ``+0``: float32 and float64 in their own dtype,
  float16/bfloat16 in float32 rounded once at the end (bfloat16 on the fast path by fbgemm's
  conversion: ties away from zero). Per-sample weights multiply with one rounding (a fused
  multiply-add) on the fast path, two on the slow one. The mean divides the sum by the bag
  size converted to the weight's dtype. Index range errors: the fast path reports the first
  bad position among the bags' entries, the slow one the first bad index of the input.
* **Max** compares with ``>`` in input order: the first of equal values wins, a NaN is taken
  only as a bag's first entry (and then stays). Empty bags give zeros.
* **Weight gradient (sum, mean).** torch sorts the indices (libstdc++'s unstable introsort from
  17 to 32,767 indices, a stable radix sort from 32,768, a stable insertion sort below 17) and
  adds, index by index in that order, ``scale * grad[bag]`` with BLAS's axpy: one rounding per
  step (fused) in float32/float64; in float16/bfloat16 the product rounded to the half dtype,
  then the sum. ``scale`` is computed in double: the per-sample weight, divided by the bag size
  for the mean (unless 0), and with ``scale_grad_by_freq`` divided by ``counts[sorted[k]]`` --
  the count of the index at *position* ``k`` of the sorted indices for the ``k``-th distinct
  index, not the count of that index (torch 2.13's code; kept, SPEC). ``padding_idx`` gets none.
* **Weight gradient (max):** each bag's gradient goes to the rows its maxima came from, added
  bag by bag (each addition rounded in the weight's dtype).
* **Per-sample-weight gradient:** the dot product of the bag's gradient and the weight row (0
  for ``padding_idx``); torch uses BLAS's dot, whose summation order depends on the rows'
  alignment: here float64 is summed pairwise and float32 in float64 (within an ulp or so).

torch defines no derivative for its backward kernels: differentiating the weight gradient raises
its NotImplementedError, the per-sample-weight gradient its RuntimeError.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._kernels.moments import fma32, fma64
from .._kernels.replay_sort import introsort_order
from ._kernel import Kernel
from ._opmath import HALF, LOOP_STEP
from ._xp import graph_mode, ns, raw
from .nn import Embedding

__all__ = ["EmbeddingBag", "EmbeddingFreq", "MODES"]

MODES = {"sum": 0, "mean": 1, "max": 2}
_SUM, _MEAN, _MAX = 0, 1, 2
_F32 = np.float32


# ----- checks -------------------------------------------------------------------------------------
_LEGACY = {"uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
           "float16": "Half", "float32": "Float", "float64": "Double"}


def type_name(dt) -> str:
    """A CPU tensor type of a dtype (numpy's or ours) as torch's ``toString`` names it:
    ``torch.LongTensor``, and ``CPUBoolType`` for a dtype without a legacy tensor class."""
    d = dt if isinstance(dt, D.dtype) else D._BY_NP[np.dtype(dt)]
    legacy = _LEGACY.get(d.np.name)
    return f"torch.{legacy}Tensor" if legacy else f"CPU{D.scalar_name(d)}Type"


def check_arguments(w, idx, offs, psw, ilo) -> None:
    """torch's ``check_arguments`` from the offsets on (the index and weight dtypes are the
    functional's): the first and last offsets, the per-sample weights' dtype, the offsets of
    ``include_last_offset``; then ours: offsets that never decrease (on decreasing ones torch's
    kernels read outside their buffers or fail in thread-dependent ways)."""
    n = idx.shape[0]
    if offs.shape[0]:
        if offs[0] != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the "
                               "mini-batch has to start from position 0. However, got "
                               f"{int(offs[0])}\n[ {type_name(offs.dtype)}{{}} ]")
        if offs[-1] > n:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but "
                               f"got offsets[-1] of {int(offs[-1])}")
    if psw is not None and psw.dtype != w.dtype:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as "
                           "tensor for argument #1 'per_sample_weights'; but type "
                           f"{type_name(w.dtype)} does not equal {type_name(psw.dtype)} (while "
                           "checking arguments for embedding_bag)")
    if ilo and offs.shape[0] < 1:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    if offs.shape[0] > 1:
        drop = np.flatnonzero(offs[1:] < offs[:-1])
        if drop.size:
            k = int(drop[0]) + 1
            raise RuntimeError(f"embedding_bag: offsets must not decrease, but offsets[{k}] = "
                               f"{int(offs[k])} is less than offsets[{k - 1}] = "
                               f"{int(offs[k - 1])}")


# ----- the bags -----------------------------------------------------------------------------------
def _is_fast(w, psw, mode, pad) -> bool:
    """torch's fast path (module docstring): its strides test reads ``stride(1) == 1``."""
    if mode == _MAX or pad >= 0 or w.dtype not in (np.dtype(_F32),) + HALF:
        return False
    if w.strides[1] != w.itemsize:
        return False
    return psw is None or psw.strides[0] == psw.itemsize


class _Bags:
    """Which bag each input position adds to (``bag``: -1 for none, padding included) and the
    bags' sizes as torch counts them (``size``, padding entries taken off)."""

    def __init__(self, idx, offs, ilo, pad, fast):
        n = idx.shape[0]
        nb = offs.shape[0] - (1 if ilo else 0)
        starts = offs[:nb].astype(np.int64)
        end = int(offs[nb]) if ilo and fast else n
        if fast and nb == 0:
            end = 0  # (no bags: the fast path reads no entry)
        pos = np.arange(n)
        bag = np.searchsorted(starts, pos, side="right") - 1
        if end < n:
            bag[end:] = -1
        size = np.diff(np.append(starts, n)) if nb else np.zeros(0, np.int64)
        self.is_pad = idx == pad if pad >= 0 else None
        if self.is_pad is not None:
            size = size - np.bincount(bag[self.is_pad & (bag >= 0)], minlength=nb)
        self.n, self.nb, self.end, self.bag, self.size = n, nb, end, bag, size

    def used(self):
        """The positions whose rows a bag reads (in order)."""
        keep = self.bag >= 0
        if self.is_pad is not None:
            keep &= ~self.is_pad
        return np.flatnonzero(keep)


def check_indices(idx, num, bags, fast) -> None:
    """torch's index range checks: the fast path (fbgemm) reports the first bad position among
    the bags' entries, the slow path the first bad index of the whole input."""
    span = idx[:bags.end] if fast else idx
    bad = np.flatnonzero((span < 0) | (span >= num))
    if bad.size:
        p = int(bad[0])
        if fast:
            raise RuntimeError(f"Index {p} of input takes value {int(idx[p])} which is not in "
                               f"the valid range [0, {num})")
        raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found "
                           f"idx to be {int(idx[p])}")


def _ranks(groups):
    """For a non-decreasing array of group numbers: each entry's position within its group."""
    if groups.size == 0:
        return groups
    first = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    counts = np.diff(np.append(first, groups.size))
    return np.arange(groups.size) - np.repeat(first, counts)


# ----- forward ------------------------------------------------------------------------------------
def _bag_sum(w, idx, psw, bags, fast):
    half = w.dtype in HALF
    acc = np.zeros((bags.nb, w.shape[1]), _F32 if half else w.dtype)
    use = bags.used()
    b = bags.bag[use]
    rows = w[idx[use]]
    if half:
        rows = rows.astype(_F32)
    if psw is None:
        np.add.at(acc, b, rows)  # (in order: one bag's rows add up in input order)
    elif fast and not half:  # fbgemm: fused multiply-adds, bag by bag in input order
        s = psw[use].astype(_F32)
        rank = _ranks(b)
        for r in range(int(rank.max()) + 1 if rank.size else 0):
            at = rank == r
            acc[b[at]] = fma32(rows[at], s[at, None], acc[b[at]])
    else:  # (half rows times half weights are exact in float32: fused or not, the same)
        s = psw[use].astype(_F32 if half else w.dtype)
        np.add.at(acc, b, rows * s[:, None])
    if half and fast and w.dtype == HALF[1]:
        return _bf16_ties_away(acc)
    return acc.astype(w.dtype) if half else acc


def _bf16_ties_away(x):
    """float32 to bfloat16 as fbgemm converts (its fast path's output): rounded to nearest,
    ties away from zero (add half an ulp to the bits, truncate)."""
    bits = x.view(np.uint32).astype(np.uint64) + 0x8000
    out = (bits >> 16).astype(np.uint16).view(HALF[1])
    return np.where(np.isnan(x), x.astype(HALF[1]), out)


def _bag_max(w, idx, bags):
    """Each bag's maximum by torch's ``>`` scan, and the index each came from."""
    out = np.zeros((bags.nb, w.shape[1]), w.dtype)
    arg = np.zeros((bags.nb, w.shape[1]), np.int64)
    use = bags.used()
    if use.size == 0:
        return out, arg
    b = bags.bag[use]
    vals = w[idx[use]]
    v = vals.astype(_F32) if w.dtype in HALF else vals
    first = np.flatnonzero(np.r_[True, b[1:] != b[:-1]])
    cand = np.where(np.isnan(v), -np.inf, v)  # a later NaN never wins (NaN > x is false)
    top = np.maximum.reduceat(cand, first, axis=0)
    seg = np.repeat(np.arange(first.size), np.diff(np.append(first, b.size)))
    pos = np.arange(b.size)[:, None]
    hit = np.where(cand == top[seg], -pos, -b.size)  # the first position reaching the top
    win = -np.maximum.reduceat(hit, first, axis=0)
    nan_first = np.isnan(v[first])
    win = np.where(nan_first, first[:, None], win)
    cols = np.arange(w.shape[1])
    out[b[first]] = vals[win, cols]
    arg[b[first]] = idx[use][win]
    return out, arg


def forward_arrays(w, idx, offs, psw, mode, ilo, pad):
    """The kernel on arrays: (output, bags, fast, maxima's indices or None)."""
    fast = _is_fast(w, psw, mode, pad)
    bags = _Bags(idx, offs, ilo, pad, fast)
    check_indices(idx, w.shape[0], bags, fast)
    if mode == _MAX:
        out, arg = _bag_max(w, idx, bags)
        return out, bags, fast, arg
    out = _bag_sum(w, idx, psw, bags, fast)
    if mode == _MEAN:
        out = out / np.maximum(bags.size, 1).astype(w.dtype)[:, None]
    return out, bags, fast, None


# ----- backward -----------------------------------------------------------------------------------
def torch_sort_order(idx):
    """The permutation torch's CPU ``sort`` gives these indices (module docstring)."""
    n = idx.shape[0]
    if 16 < n < 32768:
        return np.asarray(introsort_order(idx.tolist()), np.int64)
    return np.argsort(idx, kind="stable")


def _axpy_steps(gw, rows_of, alpha, targets, order_rank):
    """``gw[t] = axpy(alpha, g_row, gw[t])`` for each step in order (steps sharing a rank touch
    distinct rows, so each rank is one vectorized update)."""
    dt = gw.dtype
    half = dt in HALF
    for r in range(int(order_rank.max()) + 1 if order_rank.size else 0):
        at = np.flatnonzero(order_rank == r)
        t = targets[at]
        x = rows_of(at)
        a = alpha[at, None]
        if half:  # c10::Half arithmetic: the product rounded, then the sum
            prod = (x.astype(_F32) * a.astype(_F32)).astype(dt).astype(_F32)
            gw[t] = (gw[t].astype(_F32) + prod).astype(dt)
        elif dt == np.float32:
            gw[t] = fma32(x, a, gw[t])
        else:
            gw[t] = fma64(x, a, gw[t])


def weight_grad(g, idx, bags, num, mode, psw, pad, freq, arg=None):
    """The dense gradient of the weight (``num`` rows), torch's order of operations."""
    dt = g.dtype
    gw = np.zeros((num, g.shape[1]), dt)
    if mode == _MAX:
        keep = np.flatnonzero(bags.size != 0)
        if keep.size:
            cols = np.broadcast_to(np.arange(g.shape[1]), (keep.size, g.shape[1]))
            np.add.at(gw, (arg[keep], cols), g[keep])
        return gw
    order = torch_sort_order(idx)
    sidx = idx[order]
    bag = bags.bag[order]
    keep = bag >= 0
    if pad >= 0:
        keep &= sidx != pad
    sel = np.flatnonzero(keep)
    if sel.size == 0:
        return gw
    group = np.cumsum(np.r_[False, sidx[1:] != sidx[:-1]])
    scale = psw[order[sel]].astype(np.float64) if psw is not None else np.ones(sel.size)
    if freq:  # torch 2.13 divides the k-th distinct index's terms by counts[sorted[k]]
        counts = np.bincount(idx, minlength=num)
        scale = scale / counts[sidx[group[sel]]]
    if mode == _MEAN:
        size = bags.size[bag[sel]]
        scale = np.where(size != 0, scale / np.where(size != 0, size, 1), scale)
    alpha = scale.astype(_F32).astype(dt) if dt in HALF else scale.astype(dt)
    targets, srcs = sidx[sel], bag[sel]
    if dt not in HALF and np.all(alpha == 1):
        np.add.at(gw, targets, g[srcs])  # (a unit axpy adds exactly; in the sorted order)
        return gw
    _axpy_steps(gw, lambda at: g[srcs[at]], alpha, targets, _ranks(group[sel]))
    return gw


def psw_grad(g, w, idx, bags, pad, like):
    """The per-sample weights' gradient: ``dot(grad[bag], weight[index])`` per position."""
    out = np.zeros(idx.shape[0], like.dtype)
    use = bags.used()
    if use.size:
        gb = g[bags.bag[use]]
        rows = w[idx[use]]
        if like.dtype == np.float64:
            out[use] = np.einsum("ij,ij->i", gb, rows)
        else:  # float32 and half: summed wider, rounded once
            out[use] = np.einsum("ij,ij->i", gb.astype(np.float64),
                                 rows.astype(np.float64)).astype(like.dtype)
    return out


def _promote(idx, offs, dt):
    """The indices and offsets in their common dtype (torch's, from the functional)."""
    return idx.astype(dt, copy=False), offs.astype(dt, copy=False)


class EmbeddingBag(Kernel):
    """``embedding_bag(weight, indices, offsets, per_sample_weights)`` on 1-D indices and
    offsets whose dtypes the functional checked (``index_dtype``: their common one); the
    offsets' values are checked here (module docstring for the numerics)."""

    name = "embedding_bag"
    graph_inputs = {"w": 0, "idx0": 1, "offs0": 2, "psw": 3}
    graph_aliases = ("arg",)
    saved = (0, 1, 2, 3)
    # (torch's node saves the weight for the per-sample weights' gradient only; the indices,
    # offsets and per-sample weights are checked whichever gradient runs)
    reads = {0: (3,), 1: (0, 3), 2: (0, 3), 3: (0, 3)}

    @staticmethod
    def forward(ctx, w, idx, offs, psw=None, mode=1, include_last_offset=False, padding_idx=-1,
                scale_grad_by_freq=False, index_dtype="int64"):
        ctx.idx0, ctx.offs0, ctx.w, ctx.psw = idx, offs, w, psw
        idx, offs = _promote(idx, offs, index_dtype)
        check_arguments(w, idx, offs, psw, include_last_offset)
        out, bags, fast, arg = forward_arrays(w, idx, offs, psw, mode, include_last_offset,
                                              padding_idx)
        ctx.idx, ctx.bags, ctx.arg, ctx.num = idx, bags, arg, w.shape[0]
        ctx.attrs = (mode, include_last_offset, padding_idx, scale_grad_by_freq, index_dtype,
                     fast)
        return out

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        need = ctx.needs_input_grad
        mode, ilo, pad, freq, index_dtype, fast = raw(ctx, "attrs")
        has_psw = len(need) > 3 and need[3]
        if graph_mode(xp):  # torch's backward kernels, whose own derivatives raise
            attrs = dict(mode=mode, include_last_offset=ilo, padding_idx=pad, fast=fast,
                         index_dtype=index_dtype)
            gw = xp.call(EmbeddingBagBackward, g, ctx.psw, ctx.idx0, ctx.offs0, ctx.arg,
                         num=raw(ctx, "num"), scale_grad_by_freq=freq, **attrs) \
                if need[0] else None
            gp = xp.call(EmbeddingBagPswBackward, g, ctx.w, ctx.idx0, ctx.offs0, **attrs) \
                if has_psw else None
            return (gw, None, None, gp)
        gw = weight_grad(g, ctx.idx, ctx.bags, ctx.num, mode, ctx.psw, pad, freq, ctx.arg) \
            if need[0] else None
        gp = psw_grad(g, ctx.w, ctx.idx, ctx.bags, pad, ctx.psw) if has_psw else None
        return (gw, None, None, gp)


class EmbeddingBagBackward(Kernel):
    """The weight gradient as an op of its own (a backward recorded with ``create_graph``):
    torch's ``_embedding_bag_backward`` of the incoming gradient and the per-sample weights
    (the maxima's indices, for mode max, as the forward found them), which has no derivative."""

    name = "_embedding_bag_backward"
    node_name = "EmbeddingBagBackwardBackward0"

    @staticmethod
    def forward(ctx, g, psw, idx, offs, arg, num=0, mode=1, include_last_offset=False,
                padding_idx=-1, scale_grad_by_freq=False, fast=False, index_dtype="int64"):
        idx, offs = _promote(idx, offs, index_dtype)
        bags = _Bags(idx, offs, include_last_offset, padding_idx, fast)
        return weight_grad(g, idx, bags, num, mode, psw, padding_idx, scale_grad_by_freq, arg)

    @staticmethod
    def backward(ctx, c):
        raise NotImplementedError("the derivative for '_embedding_bag_backward' is not "
                                  "implemented.")


class EmbeddingBagPswBackward(Kernel):
    """The per-sample weights' gradient as an op of its own (``create_graph``): torch's
    ``_embedding_bag_per_sample_weights_backward``, which has no derivative."""

    name = "_embedding_bag_per_sample_weights_backward"
    node_name = "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, g, w, idx, offs, mode=0, include_last_offset=False, padding_idx=-1,
                fast=False, index_dtype="int64"):
        idx, offs = _promote(idx, offs, index_dtype)
        bags = _Bags(idx, offs, include_last_offset, padding_idx, fast)
        return psw_grad(g, w, idx, bags, padding_idx, g)

    @staticmethod
    def backward(ctx, c):
        raise RuntimeError("derivative for aten::_embedding_bag_per_sample_weights_backward "
                           "is not implemented")


# ----- embedding(scale_grad_by_freq=True) ---------------------------------------------------------
def freq_grad(g, idx, shape, pad):
    """torch's ``embedding_dense_backward`` with ``scale_grad_by_freq``: position by position in
    input order, ``grad_weight[k].add_(grad[i], alpha=1 / counts[k])`` -- a fused multiply-add
    in float32/float64; in float16/bfloat16 fused over each row's vectorized part (alpha
    rounded to the half dtype) and, over the row's last ``D mod 32`` elements (torch's scalar
    loop), the product rounded to the half dtype before the sum."""
    flat = idx.reshape(-1)
    rows = g.reshape(-1, shape[1])
    counts = np.bincount(flat, minlength=shape[0]) if flat.size else np.zeros(shape[0], np.int64)
    keep = np.flatnonzero(flat != pad) if pad is not None else np.arange(flat.size)
    gw = np.zeros(shape, g.dtype)
    if keep.size == 0:
        return gw
    k = flat[keep]
    alpha = 1.0 / counts[k]
    dt = g.dtype
    if dt in HALF:
        alpha = alpha.astype(_F32).astype(dt).astype(_F32)
        tail = shape[1] - shape[1] % LOOP_STEP[2]
    order = np.argsort(k, kind="stable")
    rank = np.empty_like(order)
    rank[order] = _ranks(k[order])
    for r in range(int(rank.max()) + 1):
        at = np.flatnonzero(rank == r)
        t = k[at]
        x, a, y = rows[keep[at]], alpha[at, None], gw[t]
        if dt == np.float64:
            gw[t] = fma64(x, a, y)
        elif dt == np.float32:
            gw[t] = fma32(x, a.astype(_F32), y)
        else:
            xf, yf = x.astype(_F32), y.astype(_F32)
            new = fma32(xf, a, yf)
            new[:, tail:] = yf[:, tail:] + (xf[:, tail:] * a).astype(dt).astype(_F32)
            gw[t] = new.astype(dt)
    return gw


class EmbeddingFreq(Embedding):
    """``embedding`` with ``scale_grad_by_freq=True``: the lookup of :class:`.nn.Embedding`,
    each row's gradient divided by how often its index occurs (:func:`freq_grad`)."""

    name = "embedding_freq"
    node_name = "EmbeddingBackward0"

    @staticmethod
    def backward(ctx, g):
        xp = ns(g)
        if graph_mode(xp):
            return (xp.call(EmbeddingFreqBackward, g, ctx.idx, num=raw(ctx, "shape")[0],
                            padding_idx=raw(ctx, "pad")), None)
        return (freq_grad(g, ctx.idx, ctx.shape, ctx.pad), None)


class EmbeddingFreqBackward(Kernel):
    """torch's ``embedding_dense_backward`` (a recorded backward): its own derivative is the
    lookup of the incoming gradient's rows, unscaled (torch 2.13's rule)."""

    name = "embedding_dense_backward"
    node_name = "EmbeddingDenseBackwardBackward0"
    graph_aliases = ("idx",)

    @staticmethod
    def forward(ctx, g, idx, num=0, padding_idx=None):
        ctx.idx, ctx.pad = idx, padding_idx
        return freq_grad(g, idx, (num, g.shape[-1]), padding_idx)

    @staticmethod
    def backward(ctx, c):
        xp = ns(c)
        if graph_mode(xp):
            return (xp.call(_PaddedLookup, c, ctx.idx, padding_idx=raw(ctx, "pad")), None)
        return (_PaddedLookup.forward(ctx, c, ctx.idx, ctx.pad), None)


class _PaddedLookup(Embedding):
    """The rows of ``w`` at ``idx``, zero where the index is ``padding_idx`` (torch's
    ``embedding_dense_double_backward``); its gradient is the embedding's."""

    name = "embedding_dense_double_backward"

    @staticmethod
    def forward(ctx, w, idx, padding_idx=None):
        ctx.shape, ctx.idx, ctx.pad = w.shape, idx, padding_idx
        out = w[idx]
        if padding_idx is not None:
            out[idx == padding_idx] = 0
        return out
