"""Replay plans: a finished :class:`~minitorch_cs.core.capture.Tape` turned into the work each
replay does.

The tape is a list of closures over a slot environment, each with an
:class:`~minitorch_cs.core.capture.Entry` describing it (kind, op, the references it reads, the
slots it writes). The planner reads those descriptions once, on the first replay, and builds:

* **Escape analysis.** A value *escapes* when Python can see it after the step: a reference in
  ``tape.live`` (outputs, step-closure arguments, carried state), a rebinding (``t.data = v``), a
  ``.grad`` the step leaves set, and everything an unplanned entry derives from such a value (an
  unplanned kernel may return a view of its input, so escape flows back through it). Escaping
  values get a fresh array every replay, as before; no buffer of the plan is ever visible to
  Python after a replay.
* **Dead code.** Pure ops whose outputs nothing reads (no generator, no in-place write, no
  autograd node a backward entry uses), engine functions whose result is unused, backward rules
  whose every gradient is unused, and, inside planned backward kernels, each gradient nobody
  reads (``linear``'s input gradient of the first layer).
* **Planned kernels.** Ops with a planned kernel (:data:`KERNELS`, by op name, each checking the
  op's arguments and dtypes) run as one function for the forward and one for the backward that
  write into planned buffers with numpy's ``out=`` (``matmul``, ufuncs, reductions), in the same
  order of float operations as the op's own kernel, so results are bit-identical to the eager
  run. Consecutive in-place updates with a plain ufunc (the optimizers' ``mul_``/``add_``/
  ``addcmul_`` chains) run as one kernel per group with a shared scratch buffer for the
  ``alpha``-scaled operand.
* **Buffers by lifetime.** Every non-escaping output of a planned kernel gets a buffer allocated
  once; a buffer is reused by a later value of the same shape and dtype once every reader of the
  earlier value (including a backward that saved it, and whatever an unplanned kernel derived
  from it) has run, and an elementwise kernel writes over its input's buffer when that input dies
  there (``relu`` over the ``linear`` output it reads).

Entries the planner does not know run as recorded (their closures), so the plan is exact for
every tape; only known ops are faster.
"""
from __future__ import annotations

import inspect

import numpy as np

from ..torch import _autograd
from .capture import _resolve

__all__ = ["make_plan", "Plan", "KERNELS"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


# ----- reading references ----------------------------------------------------------------------------
def _ref_slots(ref, out):
    if ref is None:
        return out
    k = ref[0]
    if k == "s":
        out.append(ref[1])
    elif k == "t":
        for r in ref[1]:
            _ref_slots(r, out)
    return out


def _reads(e):
    """Slots an entry reads directly."""
    out = []
    for r in e.refs:
        _ref_slots(r, out)
    arefs = e.fields.get("arefs")
    if arefs:
        for r in arefs.values():
            _ref_slots(r, out)
    return out


def _reader(ref):
    """A function ``env -> value`` for a reference."""
    k = ref[0]
    if k == "s":
        s = ref[1]
        return lambda env: env[s]
    if k == "x":
        t = ref[1]
        return lambda env: t._data
    if k == "g":
        p = ref[1]
        return lambda env: p._grad._data
    if k == "c":
        v = ref[1]
        return lambda env: v
    return lambda env: _resolve(env, ref)


_IMPURE_CACHE: dict = {}


def _pure(op):
    """An op whose only effect is its outputs (no generator state, no in-place write)."""
    r = _IMPURE_CACHE.get(op)
    if r is None:
        try:
            r = "generator" not in inspect.signature(op.forward).parameters and \
                op.n_outputs > 0
        except (TypeError, ValueError):
            r = False
        _IMPURE_CACHE[op] = r
    return r


# ----- planned kernels -------------------------------------------------------------------------------
class Spec:
    """A planned kernel for one op entry and (optionally) its backward entry.

    ``outputs``: the slots its forward writes; ``grads``: the slots its backward writes (None for
    a gradient not computed); ``keeps``: slots the backward reads (live until it runs);
    ``inplace``: pairs (output slot, input slot) an elementwise kernel may write over when the
    input's last use is this kernel. ``build(buf, read)`` returns the forward and backward
    functions ``f(env, ctxs)``; ``buf(slot)`` is the slot's planned buffer, or None when the
    value escapes (the kernel then allocates it fresh).
    """

    def __init__(self, outputs, grads=(), keeps=(), inplace=()):
        self.outputs, self.grads, self.keeps, self.inplace = list(outputs), list(grads), \
            list(keeps), list(inplace)


def _out(buf, slot, meta):
    """A function returning the array a kernel writes ``slot`` into."""
    b = buf(slot)
    if b is not None:
        return lambda: b
    shape, dtype = meta[slot]
    return lambda: np.empty(shape, dtype)


def _slot_ref(ref):
    return ref is not None and ref[0] == "s"


def _plain_float(meta, *arrs):
    return all(a is not None and a[1] in _FLOATS for a in arrs)


def _ref_meta(tape, ref):
    """(shape, dtype) of an array reference at capture (None when unknown)."""
    if ref[0] == "s":
        return tape.slot_meta.get(ref[1])
    if ref[0] == "x":
        a = ref[1]._data
        return (a.shape, a.dtype)
    if ref[0] == "g":
        g = ref[1]._grad
        return None if g is None else (g._data.shape, g._data.dtype)
    return None


def _linear(tape, fe, be):
    refs = fe.refs
    if fe.multi or fe.arefs or len(refs) not in (2, 3) or any(r[0] not in "sxg" for r in refs):
        return None
    metas = [_ref_meta(tape, r) for r in refs]
    if any(m is None for m in metas) or not all(m[1] in _FLOATS for m in metas):
        return None
    (xs, xd), (ws, wd) = metas[0], metas[1]
    if len(xs) < 2 or len(ws) != 2 or xd != wd or xs[-1] != ws[1] or \
            (len(refs) == 3 and (len(metas[2][0]) != 1 or metas[2][1] != xd)):
        return None
    if be is not None and (len(be.grefs) != 1 or be.grefs[0] is None):
        return None
    y = fe.slots[0]
    grads = list(be.out_slots) + [None] * (len(refs) - len(be.out_slots)) if be else []
    spec = Spec([y], grads, keeps=[s for r in refs[:2] for s in _ref_slots(r, [])])
    has_b = len(refs) == 3
    flat = len(xs) > 2  # (..., in) inputs: the weight and bias gradients over the rows of all

    def build(plan):
        from ..torch._ops.linalg import (fold_rows, transposed_product, wide_product,
                                         wide_shape)
        meta = plan.meta
        rx, rw = plan.reader(refs[0]), plan.reader(refs[1])
        rb = plan.reader(refs[2]) if has_b else None
        out = _out(plan.buf, y, meta)
        saved = [None, None]
        matmul, add = np.matmul, np.add
        # the op's kernel folds (..., in) inputs into rows and turns a few rows against a large
        # weight around (the same rules decide)
        rows = fold_rows(xs)
        wide = None
        if wide_shape(rows, ws[1], ws[0]):
            wide = plan.own(np.empty((ws[0], rows), xd))

        def fwd(env, ctxs):
            x, w = rx(env), rw(env)
            o = out()
            o2 = o
            if flat:
                x, o2 = x.reshape(rows, x.shape[-1]), o.reshape(rows, o.shape[-1])
            if wide is not None and wide_product(x, w.T):
                transposed_product(x, w.T, wide, o2)
            else:
                matmul(x, w.T, out=o2)
            if rb is not None:
                add(o, rb(env), out=o)
            env[y] = o
            saved[0], saved[1] = x, w

        if be is None:
            return fwd, None
        rg = plan.reader(be.grefs[0])
        gx_s = grads[0]
        gw_s = grads[1] if len(grads) > 1 else None
        gb_s = grads[2] if len(grads) > 2 else None
        ox = _out(plan.buf, gx_s, meta) if gx_s is not None and plan.used(gx_s) else None
        ow = _out(plan.buf, gw_s, meta) if gw_s is not None and plan.used(gw_s) else None
        ob = _out(plan.buf, gb_s, meta) if gb_s is not None and plan.used(gb_s) else None
        add_reduce = np.add.reduce

        def bwd(env, ctxs):
            g = rg(env)
            x, w = saved
            if flat:  # the op's rule: (-1, features) views (copies when not contiguous)
                g, x = g.reshape(rows, g.shape[-1]), x.reshape(rows, x.shape[-1])
            if ox is not None:
                o = ox()
                matmul(g, w, out=o.reshape(rows, o.shape[-1]) if flat else o)
                env[gx_s] = o
            if ow is not None:
                env[gw_s] = matmul(g.T, x, out=ow())
            if ob is not None:
                env[gb_s] = add_reduce(g, axis=0, out=ob())
        return fwd, bwd
    spec.build = build
    return spec


def _relu(tape, fe, be):
    refs = fe.refs
    if fe.multi or fe.arefs or len(refs) != 1 or refs[0][0] not in "sxg":
        return None
    m = _ref_meta(tape, refs[0])
    if m is None or m[1] not in _FLOATS:
        return None
    if be is not None and (len(be.grefs) != 1 or be.grefs[0] is None):
        return None
    y = fe.slots[0]
    grads = list(be.out_slots) if be else []
    spec = Spec([y], grads, keeps=[y], inplace=[(y, refs[0][1])] if refs[0][0] == "s" else [])

    def build(plan):
        rx = plan.reader(refs[0])
        out = _out(plan.buf, y, plan.meta)
        from ..torch._ops.elementwise import _relu as relu

        run_fwd, run_bwd = fe.run, (be.run if be is not None else None)
        mode = [False]  # this step ran the op's own kernels (a non-C-ordered input)

        def fwd(env, ctxs):
            x = rx(env)
            # a C-ordered input goes to the (C-ordered) buffer; any other layout runs the op's
            # own kernel, which decides the result's layout
            if x.flags.c_contiguous:
                mode[0] = False
                env[y] = relu(x, out=out())  # the op's kernel (relu(-0.0) is -0.0)
            else:
                mode[0] = True
                run_fwd(env, ctxs)

        if be is None or grads[0] is None or not plan.used(grads[0]):
            return fwd, None
        from ..torch._kernels.select import relu_grad
        rg, gs = plan.reader(be.grefs[0]), grads[0]
        og = _out(plan.buf, gs, plan.meta)

        def bwd(env, ctxs):
            if mode[0]:
                return run_bwd(env, ctxs)
            env[gs] = relu_grad(env[y], rg(env), og())  # the op's own rule, into the buffer
        return fwd, bwd
    spec.build = build
    return spec


def _cross_entropy(tape, fe, be):
    """Class-index cross-entropy without class weights or label smoothing, on (N, C) logits:
    log-softmax, the picked log-probabilities and their mean (or sum), and the backward
    ``-onehot * coef - softmax * sum``, written into planned buffers with the op's own sequence
    of float operations."""
    from ..torch._ops import nn as nn_ops
    refs, a = fe.refs, fe.arefs
    if fe.multi or len(refs) != 2 or any(r[0] not in "sxg" for r in refs):
        return None
    attrs = {k: r[1] for k, r in a.items() if r[0] == "c"}
    if len(attrs) != len(a) or attrs.get("weight") is not None or \
            attrs.get("label_smoothing", 0.0) != 0 or attrs.get("reduction", "mean") not in \
            ("mean", "sum") or set(attrs) - {"weight", "ignore_index", "reduction",
                                             "label_smoothing"}:
        return None
    mx, mt = _ref_meta(tape, refs[0]), _ref_meta(tape, refs[1])
    if mx is None or mt is None or mx[1] not in _FLOATS or len(mx[0]) != 2 or 0 in mx[0] or \
            mt[1].kind not in "iu" or mt[0] != mx[0][:1]:
        return None
    if be is not None and (len(be.grefs) != 1 or be.grefs[0] is None):
        return None
    ignore = attrs.get("ignore_index", -100)
    mean = attrs.get("reduction", "mean") == "mean"
    y = fe.slots[0]
    grads = list(be.out_slots) if be else []
    spec = Spec([y], grads, keeps=[])
    (N, C), dt = mx

    def build(plan):
        rx, rt = plan.reader(refs[0]), plan.reader(refs[1])
        m = plan.own(np.empty((N, 1), dt))
        z = plan.own(np.empty((N, C), dt))
        e = plan.own(np.empty((N, C), dt))
        s = plan.own(np.empty((N, 1), dt))
        logp = plan.own(np.empty((N, C), dt))
        ones = plan.own(np.ones((N,), dt))
        rows = plan.own(np.arange(N))
        state = [None, None, None]  # t, w (None: every target counts, weight 1), wsum
        nsum = np.float32(N) if dt == np.float32 else np.float64(N)  # == ones.sum(), exactly
        check = nn_ops._check_target
        run_fwd, run_bwd = fe.run, (be.run if be is not None else None)
        mode = [False]  # this step ran the op's own kernels (a non-C-ordered input)
        subtract, exp, log, add_reduce, max_reduce = np.subtract, np.exp, np.log, \
            np.add.reduce, np.maximum.reduce

        def fwd(env, ctxs):
            x, target = rx(env), rt(env)
            if not x.flags.c_contiguous:
                mode[0] = True
                return run_fwd(env, ctxs)
            mode[0] = False
            # log_softmax: x - max, minus the log of the sum of exponentials (the op's order)
            max_reduce(x, axis=1, keepdims=True, out=m)
            subtract(x, m, out=z)
            exp(z, out=e)
            add_reduce(e, axis=1, keepdims=True, out=s)
            log(s, out=s)
            subtract(z, s, out=logp)
            # (the op's dtype and shape checks of the target hold: the replay checked the step's
            # input shapes and dtypes against the traced ones)
            if nn_ops.every_target_counts(target, C, ignore):
                t, w, wsum = target, None, nsum  # every target counts, with weight 1
            else:
                check(logp, target)
                valid = target != ignore
                t = np.where(valid, target, 0)
                if np.any((t < 0) | (t >= C)):
                    bad = int(t[(t < 0) | (t >= C)].flat[0])
                    raise IndexError(f"Target {bad} is out of bounds.")
                w = (ones * valid).astype(dt)
                wsum = w.sum()
            # -picked * w (w of ones multiplies exactly), summed, over the weight sum; an
            # ignored target's loss is 0 even at an infinite input (the op's select)
            loss = -logp[rows, t] if w is None else \
                np.where(valid, -logp[rows, t] * w, np.zeros((), dt))
            state[0], state[1], state[2] = t, w, wsum
            env[y] = np.asarray(loss.sum() / wsum, dt) if mean else np.asarray(loss.sum(), dt)

        if be is None or grads[0] is None or not plan.used(grads[0]):
            return fwd, None
        rg, gs = plan.reader(be.grefs[0]), grads[0]
        og = _out(plan.buf, gs, plan.meta)
        zb, p = z, e  # dead once the forward has made logp
        sm = s
        multiply = np.multiply
        from ..torch._ops._xp import NP
        backward_exp = NP.exp

        def bwd(env, ctxs):
            if mode[0]:
                return run_bwd(env, ctxs)
            g = rg(env)
            t, w, wsum = state
            if w is None:  # weights of one (never zero), wsum = N > 0: the op's where() is a no-op
                coef = g / wsum if mean else g
            else:  # the op's rule: ignored targets get an exact zero
                zero = np.zeros((), np.result_type(w, g))
                if mean:
                    coef = np.where(w == 0, zero, w * (g / wsum) if wsum else zero)
                else:
                    coef = np.where(w == 0, zero, w * g)
            # the one-hot of -coef, minus softmax times its row sum
            zb.fill(0)
            zb[rows, t] = -coef
            backward_exp(logp, out=p)  # (the op's backward: its formulas' exp, _xp.wide32)
            add_reduce(zb, axis=1, keepdims=True, out=sm)
            multiply(p, sm, out=p)
            env[gs] = subtract(zb, p, out=og())
        return fwd, bwd
    spec.build = build
    return spec


def _binary(tape, fe, be):
    """An elementwise ``add``/``sub``/``mul``/``div`` that records no node, whose operands need
    no promotion (checked at capture): the ufunc into a planned buffer."""
    refs = fe.refs
    if be is not None or fe.multi or len(refs) != 2 or refs[0][0] not in "sxg" or \
            refs[1][0] not in "sxgc":
        return None
    y = fe.slots[0]
    uf, alpha = fe.fast
    ma = _ref_meta(tape, refs[0])
    if ma is None or tape.slot_meta.get(y) != ma:
        return None
    inplace = [(y, refs[0][1])] if refs[0][0] == "s" else []
    spec = Spec([y], [], inplace=inplace)

    def build(plan):
        ra, rb = plan.reader(refs[0]), plan.reader(refs[1])
        out = _out(plan.buf, y, plan.meta)
        ndarray = np.ndarray
        recorded = fe.run

        def fwd(env, ctxs):
            a, b = ra(env), rb(env)
            if a.flags.c_contiguous and (type(b) is not ndarray or b.flags.c_contiguous):
                env[y] = uf(a, b if alpha == 1 else b * alpha, out=out())
            else:  # another layout: the recorded kernel decides the result's layout
                recorded(env, ctxs)
        return fwd, None
    spec.build = build
    return spec


#: op name -> planner ``(tape, forward entry, backward entry or None) -> Spec or None``
KERNELS = {"linear": _linear, "relu": _relu, "cross_entropy": _cross_entropy}


# ----- the plan ----------------------------------------------------------------------------------------
class Plan:
    """The replay of one tape (module docstring).

    What it decided, for inspection and tests: ``steps`` (the functions one replay calls, in
    order), ``escape`` (slots Python can see after the step), ``dead`` (the descriptions of the
    entries dropped; ``dropped`` counts them), ``buffers`` (slot -> its planned array; slots
    sharing an array share it one after another), ``lifetimes`` (slot with a buffer -> (index of
    the entry that writes it, index of its last reader)), ``scratch`` and ``nbytes``.
    """

    def __init__(self, tape):
        self.tape = tape
        self.meta = tape.slot_meta
        entries = [getattr(f, "entry", None) for f in tape.entries]
        if any(e is None for e in entries):  # a tape recorded without descriptions: as recorded
            self.steps = list(tape.entries)
            self.n_keys = 0
            self.env = None
            self.buffers, self.scratch, self.owned, self.dropped = {}, {}, [], 0
            self.lifetimes, self.dead = {}, []
            self._finish_live()
            return
        n = len(entries)
        self.n_keys = 1 + max([e.fields.get("key") or 0 for e in entries] + [0])

        # which forward entry made each autograd node, and its backward entries
        fwd_of, bwds_of = {}, {}
        for i, e in enumerate(entries):
            k = e.fields.get("key")
            if k is None:
                continue
            if e.kind in ("op", "inplace_grad", "copy_slices", "static_ctx"):
                fwd_of[k] = i
            elif e.kind == "bwd":
                bwds_of.setdefault(k, []).append(i)

        # planned kernels: one Spec per (forward, backward) pair of a known op
        spec_at = {}  # entry index -> (spec, "fwd" | "bwd")
        for k, i in fwd_of.items():
            e = entries[i]
            if e.kind != "op" or e.op.name not in KERNELS or len(bwds_of.get(k, ())) > 1:
                continue
            b = bwds_of.get(k, [None])[0]
            spec = KERNELS[e.op.name](tape, e, None if b is None else entries[b])
            if spec is not None:
                spec.fwd_i, spec.bwd_i = i, b
                spec_at[i] = (spec, "fwd")
                if b is not None:
                    spec_at[b] = (spec, "bwd")
        for i, e in enumerate(entries):  # ops without autograd node
            if e.kind == "op" and e.fields.get("key") is None and i not in spec_at and \
                    (e.op.name in KERNELS or e.fast is not None):
                spec = (_binary if e.fast is not None else KERNELS[e.op.name])(tape, e, None)
                if spec is not None:
                    spec.fwd_i, spec.bwd_i = i, None
                    spec_at[i] = (spec, "fwd")

        # reads of each entry, with the values an unplanned backward reads through its node
        reads = [_reads(e) for e in entries]
        self._grad_reads(entries, reads)
        for i, e in enumerate(entries):
            if e.kind == "bwd" and i not in spec_at:
                f = fwd_of.get(e.key)
                if f is not None:
                    reads[i] = reads[i] + reads[f] + list(entries[f].slots)

        # escape: what Python can see after the step
        escape = set()
        for _, ref in tape.live:
            _ref_slots(ref, escape_list := [])
            escape.update(escape_list)
        unset_after = self._grads_unset_after(entries)
        for i, e in enumerate(entries):
            if e.kind == "rebind" or (e.kind == "set_grad" and e.value is not None):
                escape.update(reads[i])
            elif e.kind == "accumulate":
                v = e.var()
                if v is None or i not in unset_after.get(id(v), ()):
                    escape.update(reads[i])
        for i in range(n - 1, -1, -1):  # back through unplanned kernels (they may alias)
            if i in spec_at:
                continue
            e = entries[i]
            if e.kind in ("op", "fn", "bwd", "accumulate") and any(s in escape for s in e.slots):
                escape.update(reads[i])
        self.escape = escape

        # dead code: pure ops, engine functions and backward rules whose results nobody reads
        used = set(escape)
        alive = [True] * n
        key_used = set()
        for i in range(n - 1, -1, -1):
            e = entries[i]
            if e.kind in ("op", "fn", "bwd") and e.slots and \
                    not any(s in used for s in e.slots):
                if e.kind == "bwd" or e.kind == "fn" or (
                        _pure(e.op) and e.fields.get("key") not in key_used):
                    alive[i] = False
                    continue
            if e.kind == "bwd":
                key_used.add(e.key)
            used.update(reads[i])
            if i in spec_at and spec_at[i][1] == "bwd":
                used.update(spec_at[i][0].keeps)
        self.used_slots = used
        self.dropped = alive.count(False)
        self.dead = [e for e, a in zip(entries, alive) if not a]  # their descriptions

        # lifetimes: the last entry that reads each slot (directly, through a saved value, or
        # through what an unplanned kernel derived from it); .grad values live to the end
        last = {}
        for i in range(n):
            if not alive[i]:
                continue
            for s in reads[i]:
                last[s] = max(last.get(s, i), i)
            if i in spec_at and spec_at[i][1] == "fwd" and spec_at[i][0].bwd_i is not None:
                for s in spec_at[i][0].keeps:
                    last[s] = max(last.get(s, i), spec_at[i][0].bwd_i)
        for i in range(n - 1, -1, -1):
            e = entries[i]
            if not alive[i] or i in spec_at:
                continue
            if e.kind == "set_grad" or (e.kind == "accumulate" and e.created is None):
                for s in reads[i] + list(e.slots):
                    last[s] = n
            elif e.kind in ("op", "fn", "bwd", "inplace_grad", "copy_slices", "accumulate"):
                # an output may alias an input (a view, the .grad array an accumulation took)
                end = max([last.get(s, i) for s in e.slots] + [i])
                k = e.fields.get("key")
                if k is not None and k in bwds_of:
                    end = max([end] + bwds_of[k])
                for s in reads[i] + list(e.slots):
                    last[s] = max(last.get(s, i), end)

        # buffers: planned outputs that do not escape, shared by lifetime
        self.buffers = {}
        self.lifetimes = {}  # slot with a buffer -> (entry that writes it, its last reader)
        pool = {}  # (shape, dtype) -> free buffers
        releases = {}  # entry index -> slots whose last use it is
        for s, i in last.items():
            releases.setdefault(i, []).append(s)
        self.scratch = {}  # entry index -> buffer for an in-place update's alpha-scaled operand
        for i in range(n):
            if alive[i] and self._groupable(entries[i]) and entries[i].fast[1] != 1:
                m = _ref_meta(tape, entries[i].refs[1]) if entries[i].refs[1][0] in "sxg" \
                    else None
                if m is not None:  # from the free buffers (none of them is read here)
                    free = pool.get(m)
                    b = self.scratch[i] = free.pop() if free else np.empty(m[0], m[1])
                    pool.setdefault(m, []).append(b)
            if not alive[i] or i not in spec_at:
                if alive[i]:
                    self._release(releases.get(i, ()), pool)
                continue
            spec, part = spec_at[i]
            outs = spec.outputs if part == "fwd" else [s for s in spec.grads if s is not None]
            dying = set(releases.get(i, ()))
            for s in outs:
                if s in escape or s not in used or self.meta.get(s) is None:
                    continue
                shape, dtype = self.meta[s]
                got = None
                for o, src in spec.inplace:  # write over an input that dies here
                    if o == s and src in dying and src in self.buffers and \
                            self.meta[src] == self.meta[s]:
                        got = self.buffers[src]
                        dying.discard(src)
                        break
                if got is None:
                    free = pool.get((shape, dtype))
                    got = free.pop() if free else np.empty(shape, dtype)
                self.buffers[s] = got
                self.lifetimes[s] = (i, last.get(s, i))
            self._release(dying, pool)

        # .grad tensors made and unset inside the step, read only by planned kernels: elided
        self.elided = {}  # id(leaf) -> (slot, active flag)
        elide_at = {}  # entry index -> ("acc" | "unset", active flag)
        readers = {}  # slot -> alive entries reading it directly
        for k, e in enumerate(entries):
            if alive[k]:
                for r in _reads(e):
                    readers.setdefault(r, set()).add(k)
        for i, e in enumerate(entries):
            if not alive[i] or e.kind != "accumulate" or not e.created or e.refs[0][0] != "s":
                continue
            v, s = e.var(), e.refs[0][1]
            if v is None or s in escape or id(v) in self.elided or readers.get(s) != {i}:
                continue
            ok, end = True, None
            for k in range(i + 1, n):
                f = entries[k]
                if f.kind in ("accumulate", "set_grad", "zero_grad") and f.var() is v:
                    if (f.kind == "zero_grad" and f.set_to_none) or \
                            (f.kind == "set_grad" and f.value is None):
                        end = k
                    break
                if any(self._refers_grad(r, v) for r in list(f.refs) +
                       list((f.fields.get("arefs") or {}).values())):
                    planned = k in spec_at or (self._groupable(f) and not
                                               self._refers_grad_nested(f, v))
                    if not alive[k] or not planned:
                        ok = False
                        break
            if ok and end is not None:
                active = [False]
                self.elided[id(v)] = (s, active)
                elide_at[i] = ("acc", active)
                elide_at[end] = ("unset", active)

        # the steps
        self.owned = []
        self.env = [None] * tape.n_slots
        for s, b in self.buffers.items():
            self.env[s] = b
        steps, built = [], {}
        fast_group = []
        for i, e in enumerate(entries):
            if not alive[i]:
                continue
            if i in spec_at:
                spec, part = spec_at[i]
                if id(spec) not in built:
                    built[id(spec)] = spec.build(self)
                f = built[id(spec)][0 if part == "fwd" else 1]
                if f is not None:
                    self._flush(fast_group, steps)
                    steps.append(f)
                continue
            if self._groupable(e):
                fast_group.append((e, self.scratch.get(i)))
                continue
            self._flush(fast_group, steps)
            el = elide_at.get(i)
            if el is not None:
                steps.append(_accumulate_elided(e, self.n_keys, el[1]) if el[0] == "acc" else
                             _unset_elided(e, el[1]))
            elif e.kind == "accumulate":
                steps.append(_accumulate(e, self.n_keys))
            else:
                steps.append(e.run)
        self._flush(fast_group, steps)
        self.steps = steps
        self._finish_live()

    # -- helpers -----------------------------------------------------------------------------------
    def reader(self, ref):
        """``_reader``, where the ``.grad`` of a leaf whose gradient tensor is elided reads the
        slot that holds it."""
        if ref[0] == "g":
            el = self.elided.get(id(ref[1]))
            if el is not None:
                s, active, p = el[0], el[1], ref[1]
                return lambda env: env[s] if active[0] else p._grad._data
        return _reader(ref)

    def buf(self, slot):
        return self.buffers.get(slot)

    def own(self, arr):
        """Register a kernel's private scratch array (counted in :attr:`nbytes`)."""
        self.owned.append(arr)
        return arr

    @property
    def nbytes(self):
        """Bytes of every array the plan holds between replays (buffers and scratch)."""
        arrays = {id(a): a for a in list(self.buffers.values()) + list(self.scratch.values()) +
                  self.owned}
        return sum(a.nbytes for a in arrays.values())

    def used(self, slot):
        return slot in self.used_slots

    def _release(self, slots, pool):
        for s in slots:
            b = self.buffers.get(s)
            if b is not None:
                pool.setdefault((b.shape, b.dtype), []).append(b)

    @staticmethod
    def _refers_grad(ref, leaf):
        if ref is None:
            return False
        if ref[0] == "g":
            return ref[1] is leaf
        if ref[0] == "t":
            return any(Plan._refers_grad(r, leaf) for r in ref[1])
        return False

    @staticmethod
    def _refers_grad_nested(e, leaf):
        """``leaf``'s .grad inside a tuple reference (read by ``_resolve``, not a reader)."""
        return any(r is not None and r[0] == "t" and Plan._refers_grad(r, leaf)
                   for r in list(e.refs) + list((e.fields.get("arefs") or {}).values()))

    @staticmethod
    def _groupable(e):
        return e.kind == "inplace" and e.fast is not None and len(e.refs) == 2 and \
            e.refs[0][0] in "sxg" and set(e.arefs) <= {"alpha"}

    @staticmethod
    def _grad_reads(entries, reads):
        """Reads of a ``.grad`` (("g", leaf) references) are reads of the slot whose array the
        step made that ``.grad`` (an accumulation that created it), until the step unsets it."""
        holder = {}  # id(leaf) -> slot its .grad wraps

        def grad_refs(ref, out):
            if ref is None:
                return out
            if ref[0] == "g":
                out.append(ref[1])
            elif ref[0] == "t":
                for r in ref[1]:
                    grad_refs(r, out)
            return out

        for i, e in enumerate(entries):
            leaves = []
            for r in e.refs:
                grad_refs(r, leaves)
            for r in (e.fields.get("arefs") or {}).values():
                grad_refs(r, leaves)
            for p in leaves:
                s = holder.get(id(p))
                if s is not None:
                    reads[i].append(s)
            if e.kind in ("accumulate", "set_grad", "zero_grad"):
                v = e.var()
                if v is None:
                    continue
                s = holder.get(id(v))
                if s is not None and (e.kind == "accumulate" or (
                        e.kind == "zero_grad" and not e.set_to_none)):
                    reads[i].append(s)  # added into or zeroed in place here (unset: not read)
                if e.kind == "accumulate" and e.created and e.refs[0][0] == "s":
                    holder[id(v)] = e.refs[0][1]
                elif e.kind == "zero_grad" and e.set_to_none or e.kind == "set_grad":
                    holder.pop(id(v), None)

    @staticmethod
    def _grads_unset_after(entries):
        """id(leaf) -> entry indices of accumulations whose .grad the step unsets afterwards."""
        out = {}
        pending = {}
        for i, e in enumerate(entries):
            if e.kind == "accumulate":
                v = e.var()
                if v is not None:
                    pending.setdefault(id(v), []).append(i)
            elif (e.kind == "zero_grad" and e.set_to_none) or \
                    (e.kind == "set_grad" and e.value is None):
                v = e.var()
                if v is not None and id(v) in pending:
                    out.setdefault(id(v), set()).update(pending.pop(id(v)))
            elif e.kind == "set_grad":
                v = e.var()
                if v is not None:
                    pending.pop(id(v), None)
        return out

    def _flush(self, group, steps):
        if group:
            steps.append(_inplace_group(list(group), self.reader))
            group.clear()

    def _finish_live(self):
        self.live = [(t, ref[1] if ref[0] == "s" else None, ref) for t, ref in self.tape.live]

    # -- running --------------------------------------------------------------------------------------
    def run(self, input_arrays):
        tape = self.tape
        env = self.env
        if env is None:  # unplanned tape
            return tape.replay_entries(input_arrays)
        for s, a in zip(tape.input_slots, input_arrays):
            env[s] = a
        ctxs = [None] * self.n_keys
        ctxs.append(set())  # ids of the arrays that became a .grad this step
        for f in self.steps:
            f(env, ctxs)
        for t, s, ref in self.live:
            t._data = env[s] if s is not None else _resolve(env, ref)
        return env


def _accumulate(e, stored_at):
    """A gradient accumulation (``_autograd.accumulate_grad``, the engine's rule)."""
    var, rd = e.var, _reader(e.refs[0])
    acc = _autograd.accumulate_grad
    out = e.slots[0] if e.slots else None  # the slot of the .grad array afterwards

    def run(env, ctxs):
        v = var()
        if v is not None:
            acc(v, rd(env), ctxs[stored_at])
            if out is not None:
                env[out] = v._grad._data
    return run


def _accumulate_elided(e, stored_at, active):
    """An accumulation that creates a ``.grad`` the step unsets again before Python can see it:
    when the leaf has no ``.grad`` (as when the step was traced) and the array is one the rule
    would take as it is, the step's readers of that ``.grad`` read the array directly and no
    gradient tensor is made (``active``); otherwise the rule runs as recorded."""
    var, s = e.var, e.refs[0][1]
    acc = _autograd.accumulate_grad
    out = e.slots[0] if e.slots else None  # the slot of the .grad array afterwards

    def run(env, ctxs):
        v = var()
        g = env[s]
        stored = ctxs[stored_at]
        if v is not None and v._grad is None and type(g) is np.ndarray and g.base is None and \
                g.flags.writeable and g.dtype == v._data.dtype and id(g) not in stored:
            active[0] = True
            stored.add(id(g))
            if out is not None:
                env[out] = g
        else:
            active[0] = False
            if v is not None:
                acc(v, g, stored)
                if out is not None:
                    env[out] = v._grad._data
    return run


def _unset_elided(e, active):
    """The entry that unsets an elided ``.grad`` (nothing to do when it was never made)."""
    recorded = e.run

    def run(env, ctxs):
        if active[0]:
            active[0] = False
        else:
            recorded(env, ctxs)
    return run


def _inplace_group(group, reader):
    """Consecutive in-place updates by a plain ufunc (``dst op= b * alpha``, the optimizers'
    chains) as one kernel; the alpha-scaled operand goes to a planned scratch buffer."""
    ops = [(e.fast[0], reader(e.refs[0]), reader(e.refs[1]), e.fast[1], tmp)
           for e, tmp in group]
    multiply, ndarray = np.multiply, np.ndarray

    def run(env, ctxs):
        for uf, rd, rb, alpha, tmp in ops:
            dst = rd(env)
            b = rb(env)
            if alpha != 1:
                if tmp is not None and type(b) is ndarray and b.shape == tmp.shape and \
                        b.dtype == tmp.dtype:
                    b = multiply(b, alpha, out=tmp)
                else:
                    b = b * alpha
            uf(dst, b, out=dst)
    return run


def make_plan(tape) -> Plan:
    return Plan(tape)
