"""Random programs over the op table, and their lock-step execution on torch and on ours.

Generation is a pure function of ``(seed, index)``: leaves, then steps whose row, keyword
arguments and operand shapes come from the row's own hypothesis strategy (drawn with a seeded
``ConjectureData``, so every program is reproducible on its own). An operand is a value already
in the program brought to the drawn shape by views (``reshape(-1)[:n].reshape(shape)``, a
``repeat`` when it is too small, a ``permute`` for a non-contiguous layout) and maybe cast to
another dtype, or (rarely) a constant built from the drawn array.

Execution runs every step on both libraries before the next one, records a snapshot of every
output, and stops at the first difference the caller does not accept (see ``campaign``).
A difference in values is replayed once on identical inputs (torch's operands, copied to fresh
tensors of both libraries): if the step then agrees it was rounding noise carried in from
earlier steps (one ulp in float32 can flip a comparison later), not a difference of this step.
"""
from __future__ import annotations

import math
import random
import re
import contextlib
import dataclasses
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from minitorch_cs import torch as mt
from minitorch_cs.torch import _fpe
from tests.differential.compare import (RTOL, Mismatch, Snap, compare_snaps, exc_class, has_graph,
                                        snap)
from tests.differential.noise import explained, program_spread, step_spread
from tests.torch.test_ops_table import ROWS, Row

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]
FLOATS = ("float16", "bfloat16", "float32", "float64")
_DTYPE_WEIGHTS = [8, 5, 4, 3, 5, 10, 10, 10, 30, 15]

# ----- the steps: every row of the op table, plus the generic tensor operations -----------------


def _row(name, call, inputs):
    return Row(name, None, call, inputs, grad=False)


def _extra_rows():
    """Steps that are not ops of the table but every program needs: copies, fills, casts,
    detaching, in-place arithmetic on views."""
    from hypothesis import strategies as st

    from tests import strategies as S
    from tests.torch.test_ops_table import one, two
    rows = [
        _row("clone", lambda T, x: x.clone(), one()),
        _row("contiguous", lambda T, x: x.contiguous(), one()),
        _row("detach", lambda T, x: x.detach(), one()),
        _row("to_float16", lambda T, x: x.to(T.float16), one()),
        _row("to_int32", lambda T, x: x.to(T.int32), one()),
        _row("double", lambda T, x: x.double(), one()),
        _row("copy_", lambda T, x, y: x.copy_(y), two(shapes=S.broadcastable_shapes(2).map(
            lambda ss: (np.broadcast_shapes(*ss), ss[1])))),
        _row("fill_", lambda T, x, v: x.fill_(v), one(req=lambda s: dict(
            v=st.sampled_from([0, 1, -2.5, True, float("nan")])))),
        _row("zero_", lambda T, x: x.zero_(), one()),
        _row("add_", lambda T, x, y: x.add_(y), two(shapes=S.broadcastable_shapes(2).map(
            lambda ss: (np.broadcast_shapes(*ss), ss[1])))),
        _row("mul_scalar_", lambda T, x, s: x.mul_(s), one(req=lambda s: dict(
            s=st.sampled_from([2, -1.5, 0.5, True])))),
        _row("sub_alpha_", lambda T, x, y, alpha: x.sub_(y, alpha=alpha),
             two(shapes=S.broadcastable_shapes(2).map(
                 lambda ss: (np.broadcast_shapes(*ss), ss[1]))).map(
                 lambda a: (a[0], dict(alpha=2)))),
        _row("div_", lambda T, x, y: x.div_(y), two(shapes=S.broadcastable_shapes(2).map(
            lambda ss: (np.broadcast_shapes(*ss), ss[1])))),
        _row("requires_grad_", lambda T, x: x.requires_grad_(), one()),
        _row("sum_all", lambda T, x: x.sum(), one()),
        _row("mean_all", lambda T, x: x.mean(), one()),
        _row("item_gt", lambda T, x: bool((x > 0).any()), one()),
    ]
    return rows


ALL_ROWS: list = [r for r in ROWS if getattr(r, "diff", True)]
ALL_ROWS += _extra_rows()
ROWS_BY_NAME: dict = {r.name: r for r in ALL_ROWS}
ROW_NAMES = sorted(ROWS_BY_NAME)


def _base_name(row_name: str) -> str:
    """The torch name a row exercises: ``F.relu6`` -> ``relu6``, ``Tensor.erfinv_`` -> ``erfinv``."""
    n = row_name
    for p in ("F.", "Tensor.", "T."):
        if n.startswith(p):
            n = n[len(p):]
    return n.rstrip("_")


# ----- drawing from the rows' hypothesis strategies, reproducibly -------------------------------
def draw(strategy, seed: int):
    """One value of a hypothesis strategy, a pure function of ``seed`` (None if the strategy
    rejects every attempt). Uses hypothesis' ConjectureData directly: the rows' strategies stay
    the single description of an op's valid inputs."""
    from hypothesis.control import BuildContext
    from hypothesis.errors import HypothesisException
    from hypothesis.internal.conjecture.data import ConjectureData, StopTest
    for attempt in range(4):
        data = ConjectureData(random=random.Random(seed * 7919 + attempt))
        try:
            with BuildContext(data, is_final=False, wrapped_test=None):
                return data.draw(strategy)
        except (StopTest, HypothesisException):
            continue
    return None


# ----- dtype support, probed once per row on torch ----------------------------------------------
_SUPPORT: dict = {}


def supported_dtypes(row: Row, torch_mod) -> tuple:
    """The input dtypes torch accepts for ``row``: the row's ``dtypes`` when it declares them,
    else probed (the row's own inputs cast to each dtype; accepted when any of three draws runs)."""
    declared = getattr(row, "dtypes", None)
    if declared:
        return tuple(declared)
    if row.name in _SUPPORT:
        return _SUPPORT[row.name]
    ok = []
    draws = [d for d in (draw(row.inputs, 1000 + k) for k in range(3)) if d is not None]
    for dt in DTYPES:
        for xs, kw in draws:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    args = [torch_mod.tensor(np.asarray(x)).to(getattr(torch_mod, dt)) for x in xs]
                    row.call(torch_mod, *args, **kw)
                ok.append(dt)
                break
            except Exception:  # noqa: BLE001  (any failure: not supported)
                continue
    _SUPPORT[row.name] = tuple(ok) or tuple(FLOATS)
    return _SUPPORT[row.name]


# ----- programs ---------------------------------------------------------------------------------
@dataclass
class Leaf:
    values: np.ndarray  # float64 (rounded to the dtype), int64 or bool
    dtype: str
    layout: str  # "contig", "permuted", "strided", "expanded"
    requires_grad: bool


@dataclass
class Operand:
    src: int  # pool index, or -1 for a constant
    shape: tuple
    cast: str | None = None
    permute: bool = False
    const: Any = None  # float64 values of a constant operand


@dataclass
class Step:
    row: str
    operands: list
    kw: dict
    form: str = "call"  # "call", "method_", "out", "inplace_kw"
    out: tuple | None = None  # (shape, dtype) of the ``out=`` tensor


@dataclass
class Program:
    seed: int
    index: int
    leaves: list
    steps: list
    backward: str = "cot"  # "cot", "sum" or "none"
    # what a run saw of each step's operands (torch side), for the expected-difference rules:
    # step index -> {"nonfinite": an operand held inf/NaN, "constant": operand 0 was one value,
    # "noncontig": the positions of non-contiguous tensor operands}
    facts: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def label(self) -> str:
        return f"seed {self.seed} program {self.index}"


def _rng_for(seed: int, index: int) -> random.Random:
    return random.Random(f"minitorch_cs-difftest:{seed}:{index}")


def _round_to(vals: np.ndarray, dtype: str) -> np.ndarray:
    if dtype in FLOATS:
        from minitorch_cs.torch import _dtype as D
        with np.errstate(over="ignore"):  # 7e4 is inf in float16, as it is in torch
            return vals.astype(getattr(D, dtype).np).astype(np.float64)
    return vals


def _leaf_values(rng: random.Random, shape: tuple, dtype: str, profile: str) -> np.ndarray:
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == "bool":
        return np.array([rng.random() < 0.5 for _ in range(n)], dtype=bool).reshape(shape)
    if dtype == "uint8":
        return np.array([rng.randint(0, 9) for _ in range(n)], dtype=np.int64).reshape(shape)
    if dtype in ("int8", "int16", "int32", "int64"):
        big = profile == "special" and dtype in ("int8", "int16")
        lo, hi = (-120, 120) if big else (-4, 6)
        return np.array([rng.randint(lo, hi) for _ in range(n)], dtype=np.int64).reshape(shape)
    out = []
    for _ in range(n):
        u = rng.random()
        if profile == "clean" or u < 0.7:
            v = round(rng.uniform(-3, 3), rng.choice([1, 2, 3, 6]))
        elif profile == "ties":
            v = rng.choice([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 6.0, 3.0, -3.0])
        else:
            v = rng.choice([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-30, 3e4,
                            -7e4, 1e5, 1e-6])
        out.append(v)
    return _round_to(np.array(out, dtype=np.float64).reshape(shape), dtype)


def _shapes(rng: random.Random, k: int) -> list:
    """``k`` mutually broadcastable shapes (0-3 dims, sides 1-4, sometimes an empty dim)."""
    nd = rng.choice([0, 1, 1, 2, 2, 2, 3, 3])
    full = [rng.choice([1, 2, 3, 4]) for _ in range(nd)]
    if nd and rng.random() < 0.04:
        full[rng.randrange(nd)] = 0
    out = []
    for _ in range(k):
        d = rng.randint(max(0, nd - 1), nd)
        s = full[nd - d:]
        out.append(tuple(1 if rng.random() < 0.2 else x for x in s))
    return out


def generate(seed: int, index: int, torch_mod) -> Program:
    """Program ``index`` of campaign ``seed``."""
    rng = _rng_for(seed, index)
    k = rng.choice([1, 1, 2, 2, 3])
    leaves = []
    for shape in _shapes(rng, k):
        dt = rng.choices(DTYPES, _DTYPE_WEIGHTS)[0]
        profile = rng.choices(["clean", "ties", "special"], [6, 2, 2])[0]
        vals = _leaf_values(rng, shape, dt, profile)
        layouts = ["contig"] * 5
        if len(shape) >= 2:
            layouts.append("permuted")
        if len(shape) >= 1:
            layouts += ["strided", "expanded"]
        layout = rng.choice(layouts)
        if layout == "expanded":
            vals = np.broadcast_to(vals[:1], vals.shape).copy()
        leaves.append(Leaf(vals, dt, layout, dt in FLOATS and rng.random() < 0.75))
    pool_shapes = [tuple(leaf.values.shape) for leaf in leaves]
    pool_dtypes = [leaf.dtype for leaf in leaves]
    steps = []
    for _ in range(rng.randint(3, 12)):
        step = _gen_step(rng, pool_shapes, pool_dtypes, torch_mod)
        if step is None:
            continue
        steps.append(step)
        # a rough guess of the outputs' shapes for later operand choices (the runner uses the
        # real shapes; these only steer which pool values are picked)
        pool_shapes.append(step.operands[0].shape if step.operands else ())
        pool_dtypes.append(step.operands[0].cast or pool_dtypes[step.operands[0].src]
                           if step.operands and step.operands[0].src >= 0 else "float32")
    backward = rng.choices(["cot", "sum", "none"], [6, 3, 1])[0]
    return Program(seed, index, leaves, steps, backward)


def _gen_step(rng, pool_shapes, pool_dtypes, torch_mod):
    row = ROWS_BY_NAME[rng.choice(ROW_NAMES)]
    drawn = draw(row.inputs, rng.getrandbits(48))
    if drawn is None:
        return None
    xs, kw = drawn
    support = supported_dtypes(row, torch_mod)
    operands = []
    for x in xs:
        shape = tuple(np.shape(x))
        if rng.random() < 0.12:
            operands.append(Operand(-1, shape, rng.choice(support), const=np.asarray(x)))
            continue
        # recent values are likelier: programs chain
        n = len(pool_shapes)
        src = min(n - 1, int(n * rng.random() ** 0.5))
        cast = None
        if pool_dtypes[src] not in support and rng.random() < 0.85:
            cast = rng.choice(support)
        elif rng.random() < 0.12:
            cast = rng.choice(DTYPES if rng.random() < 0.3 else support)
        operands.append(Operand(src, shape, cast, permute=len(shape) >= 2 and rng.random() < 0.25))
    # the other forms pass the keyword arguments as they are: only for plain values (rows that
    # build tensors from drawn index arrays do that in their own call)
    form = _pick_form(rng, row, torch_mod) if not any(
        isinstance(v, np.ndarray) for v in kw.values()) else "call"
    out = None
    if form == "out":
        shape = rng.choice([(0,), (1,), None])  # None: the right shape (learnt at run time)
        out = (shape, rng.choice([None, None, None] + list(DTYPES)))
    return Step(row.name, operands, kw, form, out)


def _pick_form(rng, row, torch_mod):
    base = _base_name(row.name)
    forms = ["call"] * 14
    if row.ref is not None:
        if hasattr(torch_mod.Tensor, base + "_") and not base.startswith("_"):
            forms += ["method_"] * 3
        if hasattr(torch_mod, base) and not row.name.startswith("F."):
            forms += ["out"] * 2
        if row.name.startswith("F."):
            import inspect
            f = getattr(torch_mod.nn.functional, base, None)
            try:
                if f is not None and "inplace" in inspect.signature(f).parameters:
                    forms += ["inplace_kw"] * 3
            except (TypeError, ValueError):
                pass
    return rng.choice(forms)


# ----- execution ----------------------------------------------------------------------------------
def _lit(v) -> str:
    """Python source for a value (arrays as nested lists, nan/inf spelt out)."""
    if isinstance(v, np.ndarray):
        if v.dtype == bool:
            return f"np.array({v.tolist()!r})"
        if v.dtype.kind == "f":
            return "np.array(" + _flt_list(v.tolist()) + ")"
        return f"np.array({v.tolist()!r})"
    if isinstance(v, float):
        return _flt(v)
    if isinstance(v, tuple):
        return "(" + ", ".join(_lit(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, list):
        return "[" + ", ".join(_lit(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {_lit(x)}" for k, x in v.items()) + "}"
    if isinstance(v, slice):
        return f"slice({v.start!r}, {v.stop!r}, {v.step!r})"
    if v is Ellipsis:
        return "..."
    return repr(v)


def _flt(v: float) -> str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def _flt_list(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_flt_list(x) for x in v) + "]"
    return _flt(v)


def _short(values: np.ndarray, dtype: str):
    """Floats as the shortest decimal that rounds to the same value in ``dtype``."""
    from minitorch_cs.torch import _dtype as D
    npd = getattr(D, dtype).np.type if dtype in FLOATS else np.float64
    return [_short(v, dtype) if isinstance(v, np.ndarray) else float(str(npd(v)))
            for v in values] if values.ndim else float(str(npd(values)))


def _tensor_src(values: np.ndarray, dtype: str) -> str:
    if values.dtype.kind == "f":
        data = _flt_list(_short(values, dtype) if values.ndim else float(_short(values, dtype)))
    else:
        data = repr(values.tolist())
    return f"T.tensor({data}, dtype=T.{dtype})"


def make_leaf(T, leaf: Leaf):
    """The leaf tensor in library ``T`` and the source line that builds it."""
    dt = getattr(T, leaf.dtype)
    v = leaf.values
    if leaf.layout == "permuted":
        rev = tuple(range(v.ndim))[::-1]
        base = np.ascontiguousarray(v.transpose(rev))
        t = T.tensor(base, dtype=dt).permute(*rev)
        src = f"{_tensor_src(base, leaf.dtype)}.permute{rev}"
    elif leaf.layout == "strided":
        base = np.repeat(v, 2, axis=-1)
        t = T.tensor(base, dtype=dt)[..., ::2]
        src = f"{_tensor_src(base, leaf.dtype)}[..., ::2]"
    elif leaf.layout == "expanded":
        first = np.ascontiguousarray(v[:1])
        t = T.tensor(first, dtype=dt).expand(*v.shape)
        src = f"{_tensor_src(first, leaf.dtype)}.expand{tuple(v.shape)}"
    else:
        t = T.tensor(v, dtype=dt)
        src = _tensor_src(v, leaf.dtype)
    if leaf.requires_grad:
        t.requires_grad_()
        src += ".requires_grad_()"
    return t, src


def adapt(T, pool, names, op: Operand):
    """The operand ``op`` made from the pool (library ``T``), and its source expression."""
    if op.src < 0:
        cast = op.cast or "float32"
        vals = np.asarray(op.const)
        if cast not in FLOATS:
            vals = np.round(vals * 2) if cast != "bool" else vals > 0
        vals = vals.astype(np.float64) if cast in FLOATS else vals
        t = T.tensor(vals, dtype=getattr(T, cast))
        return t, _tensor_src(_round_to(np.asarray(vals), cast) if cast in FLOATS
                              else np.asarray(vals), cast)
    idx = min(op.src, len(pool) - 1)  # generation guessed the pool; failed steps add nothing
    t = pool[idx]
    src = names[idx]
    shape = op.shape
    if tuple(t.shape) != shape:
        n = int(np.prod(shape, dtype=np.int64))
        m = t.numel()
        if m == 0 or n == 0:
            t = T.zeros(shape, dtype=t.dtype)
            src = f"T.zeros({shape}, dtype=T.{str(t.dtype).replace('torch.', '')})"
        else:
            t = t.reshape(-1)
            src += ".reshape(-1)"
            if m < n:
                k = -(-n // m)
                t = t.repeat(k)
                src += f".repeat({k})"
            if t.numel() != n:
                t = t[:n]
                src += f"[:{n}]"
            if op.permute and len(shape) >= 2:
                rev = tuple(range(len(shape)))[::-1]
                t = t.reshape(shape[::-1]).permute(*rev)
                src += f".reshape({shape[::-1]}).permute{rev}"
            else:
                t = t.reshape(shape)
                src += f".reshape({shape})"
    elif op.permute and len(shape) >= 2:
        t = t.transpose(0, 1).contiguous().transpose(0, 1)
        src += ".transpose(0, 1).contiguous().transpose(0, 1)"
    if op.cast:
        t = t.to(getattr(T, op.cast))
        src += f".to(T.{op.cast})"
    return t, src


def _outputs(res) -> list:
    if isinstance(res, (tuple, list)) and not (res and all(isinstance(v, int) for v in res)):
        return list(res)
    return [res]


def _is_tensor(x) -> bool:
    return hasattr(x, "stride") and hasattr(x, "requires_grad")


def run_step(T, step: Step, operands: list, kw: dict):
    """Run ``step`` on ready operands; returns the raw result."""
    row = ROWS_BY_NAME[step.row]
    base = _base_name(step.row)
    if step.form == "call":
        return row.call(T, *operands, **kw)
    if step.form == "method_":
        return getattr(operands[0], base + "_")(*operands[1:], **kw)
    if step.form == "inplace_kw":
        return getattr(T.nn.functional, base)(*operands, inplace=True, **kw)
    if step.form == "out":
        shape, dt = step.out
        if shape is None:
            shape = tuple(operands[0].shape) if operands else ()
        o = T.empty(shape, dtype=getattr(T, dt) if dt else operands[0].dtype if operands
                    else T.float32)
        getattr(T, base)(*operands, **kw, out=o)
        return o
    raise ValueError(step.form)


def step_src(step: Step, args: list) -> str:
    """Source of the step's call, given its operands' source names."""
    base = _base_name(step.row)
    args = list(args) + ["?"] * (len(step.operands) - len(args))
    kws = "".join(f", {k}={_lit(v)}" for k, v in step.kw.items())
    if step.form == "call":
        a = ", ".join(["T"] + args)
        return f"ROW[{step.row!r}]({a}{kws})"
    if step.form == "method_":
        rest = ", ".join(args[1:]) + (kws if args[1:] else kws[2:])
        return f"{args[0] if args else '?'}.{base}_({rest})"
    if step.form == "inplace_kw":
        return f"T.nn.functional.{base}({', '.join(args)}{kws}, inplace=True)"
    shape, dt = step.out
    return (f"T.{base}({', '.join(args)}{kws}, out=T.empty("
            f"{'OUT_SHAPE' if shape is None else shape}, dtype={'T.' + dt if dt else 'DT'}))")


@dataclass
class Side:
    """One library's state while a program runs."""

    T: Any
    pool: list = field(default_factory=list)
    names: list = field(default_factory=list)
    leaves: list = field(default_factory=list)
    origin: list = field(default_factory=list)  # the step (index) that made each pool value
    made: list = field(default_factory=list)  # each pool value's snapshot when it was made


@dataclass
class Outcome:
    ok: bool
    outs: list = field(default_factory=list)  # snapshots
    exc: str = ""
    msg: str = ""
    raw: list = field(default_factory=list)  # the tensors (or values)
    operands: list = field(default_factory=list)  # snapshots of the operands
    srcs: list = field(default_factory=list)
    used: list = field(default_factory=list)  # pool indices read
    leaked: str = ""  # a numpy floating-point warning that reached the user (ours only)


@contextlib.contextmanager
def numpy_warnings():
    """Record numpy's floating-point RuntimeWarnings that reach the user: torch is silent where
    numpy warns ("invalid value encountered in ..."), and our package drops those its own frames
    raise (``_fpe``), but not one raised inside numpy's Python wrappers (``ndarray.sum``,
    ``np.einsum``) called from our code. Yields the list of messages (with their file)."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("ignore")
        warnings.filterwarnings("always", message=_fpe.MESSAGE, category=RuntimeWarning)
        _fpe.install()  # (first: the package's own frames stay silent)
        seen = []
        yield seen
        seen.extend(f"{w.message} (from {w.filename.rsplit('site-packages/', 1)[-1]})"
                    for w in rec)


def execute(side: Side, step: Step) -> Outcome:
    if side.T is mt:
        with numpy_warnings() as seen:
            out = _execute(side, step)
        out.leaked = seen[0] if seen else ""
        return out
    return _execute(side, step)


def _execute(side: Side, step: Step) -> Outcome:
    T = side.T
    ops, srcs = [], []
    used = [min(op.src, len(side.pool) - 1) for op in step.operands if op.src >= 0]
    try:
        for op in step.operands:
            t, s = adapt(T, side.pool, side.names, op)
            ops.append(t)
            srcs.append(s)
    except Exception as e:  # noqa: BLE001
        return Outcome(False, exc=exc_class(e), msg=f"(building operands) {e}"[:300])
    opsnaps = [snap(t) for t in ops]
    try:
        res = run_step(T, step, ops, dict(step.kw))
    except Exception as e:  # noqa: BLE001
        return Outcome(False, exc=exc_class(e), msg=str(e)[:300], operands=opsnaps, srcs=srcs)
    outs = _outputs(res)
    try:
        snaps = [snap(o) for o in outs]
    except Exception as e:  # noqa: BLE001
        return Outcome(False, exc=exc_class(e), msg=f"(reading the result) {e}"[:300],
                       operands=opsnaps, srcs=srcs)
    return Outcome(True, snaps, raw=outs, operands=opsnaps, srcs=srcs, used=used)


def rebuild(T, s: Snap):
    """A fresh tensor of library ``T`` with a snapshot's values and dtype."""
    return T.tensor(s.value, dtype=getattr(T, s.dtype))


def replay_agrees(step: Step, operands: list, torch_mod) -> bool:
    """Run ``step`` on fresh copies of torch's operands in both libraries: True when they agree
    (so the difference seen in the program came from its inputs, i.e. rounding noise)."""
    res = []
    for T in (torch_mod, mt):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                args = [rebuild(T, s) for s in operands]
                r = run_step(T, step, args, dict(step.kw))
            res.append(("ok", [snap(o) for o in _outputs(r)]))
        except Exception as e:  # noqa: BLE001
            res.append(("exc", exc_class(e)))
    (kt, vt), (km, vm) = res
    if kt != km:
        return False
    if kt == "exc":
        return vt == vm
    if len(vt) != len(vm):
        return False
    scale = max([s.scale() for s in operands] + [0.0])
    # topk's indices among equal values are a documented difference (SPEC §2.2): the replay
    # judges its values
    skip = {1} if _base_name(step.row) == "topk" else set()
    return all(compare_snaps(a, b, max(scale, a.scale()), check_meta=False,
                             rtol=step_rtol(operands, a)) is None
               for j, (a, b) in enumerate(zip(vt, vm)) if j not in skip)


def op_label(step: Step, operands: list) -> str:
    dts = ",".join(s.dtype for s in operands) if operands else "-"
    form = "" if step.form == "call" else f" [{step.form}]"
    return f"{step.row}{form} ({dts})"


@dataclass
class Run:
    program: Program
    mismatches: list
    lines: list  # source lines executed (torch side), for the repro
    steps_run: int = 0
    noisy: bool = False
    used: list = field(default_factory=list)  # pool indices each step read (torch side)
    step_names: list = field(default_factory=list)  # the names each step's outputs got
    dtypes: set = field(default_factory=set)  # every dtype the program computed in
    rtol: float = 0.0  # the loosest tolerance any step's result was compared with


def run_program(program: Program, torch_mod, accept: Callable | None = None) -> Run:
    """Run ``program`` on torch and on ours in lock step. ``accept(mismatch, program)`` returns
    the SPEC entry that documents a mismatch (or ""); the run goes on past documented ones when
    both sides still hold the same values."""
    accept = accept or (lambda m, p: "")
    ts, ms = Side(torch_mod), Side(mt)
    lines = []
    found: list = []
    run = Run(program, found, lines)

    def record(m: Mismatch) -> bool:
        """Keep ``m``; True when the run must stop."""
        if not m.noise:
            m.documented = accept(m, program) or ""
        found.append(m)
        return not m.noise and not m.documented

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, leaf in enumerate(program.leaves):
            tt, src = make_leaf(torch_mod, leaf)
            tm, _ = make_leaf(mt, leaf)
            for side, t in ((ts, tt), (ms, tm)):
                side.pool.append(t)
                side.names.append(f"v{i}")
                side.leaves.append(t)
                side.origin.append(-1)
                side.made.append(snap(t))
            lines.append(f"v{i} = {src}")
        for k, step in enumerate(program.steps):
            run.steps_run = k + 1
            ot = execute(ts, step)
            om = execute(ms, step)
            program.facts[k] = _facts(ot.operands)
            run.used.append(ot.used)
            run.dtypes.update(x.dtype for x in ot.operands + ot.outs)
            run.rtol = max([run.rtol] + [r for r in (step_rtol(ot.operands, x) for x in ot.outs)
                                         if r is not None])
            label = op_label(step, ot.operands or om.operands)
            where = f"step {k + 1}"
            first = len(ts.pool)
            names = [f"v{first + j}" for j in range(max(len(ot.raw), 1))]
            call = step_src(step, ot.srcs or om.srcs)
            if step.form == "out" and ot.raw:
                call = call.replace("OUT_SHAPE", str(tuple(ot.raw[0].shape))).replace(
                    "DT", f"T.{ot.outs[0].dtype}")
            lhs = ", ".join(names) if len(ot.raw) > 1 else names[0]
            lines.append(f"{lhs} = {call}")
            run.step_names.append(lhs)
            m = _compare_outcomes(ot, om, step, label, where, torch_mod)
            if m is None and om.leaked:
                m = Mismatch("warning", where, label, f"we warn: {om.leaked}")
            if m is not None:
                if m.noise:
                    run.noisy = True
                if record(m) or not ot.ok or not om.ok or len(ot.raw) != len(om.raw):
                    return run
            if not ot.ok:
                lines[-1] = "# raises in both: " + lines[-1]
                continue
            for j, (a, b) in enumerate(zip(ot.raw, om.raw)):
                if _is_tensor(a) and _is_tensor(b):
                    ts.pool.append(a)
                    ms.pool.append(b)
                    ts.made.append(ot.outs[j])
                    ms.made.append(om.outs[j])
                    ts.names.append(names[j] if j < len(names) else f"v{first + j}")
                    ms.names.append(ts.names[-1])
                    ts.origin.append(k)
        _final_checks(run, ts, ms, record, torch_mod)
    return run


def _facts(operands: list) -> dict:
    vals = [np.asarray(s.value) for s in operands if s.kind == "tensor"]
    floats = [v for v in vals if v.dtype.kind == "f"]
    first = vals[0] if vals else np.zeros(0)
    return {"nonfinite": any(not np.isfinite(v).all() for v in floats),
            "constant": first.size > 1 and bool((first == first.reshape(-1)[0]).all()),
            # a slice per sample (layer/group norm), per channel (batch norm) or per sample
            # and channel (instance norm) that holds one value
            "constant_slice": first.ndim >= 2 and first.size > 0 and any(
                rows.shape[1] > 1 and bool((rows == rows[:, :1]).all(axis=1).any())
                for rows in (first.reshape(first.shape[0], -1),
                             np.moveaxis(first, 1, 0).reshape(first.shape[1], -1),
                             first.reshape(first.shape[0] * first.shape[1], -1))),
            "noncontig": {i for i, s in enumerate(operands)
                          if s.kind == "tensor" and not s.contiguous}}


def step_rtol(operands: list, out: Snap):
    """The tolerance of one result: the least precise floating dtype the step computed in (its
    float operands and result; float32 too when an integer or bool operand reaches a floating
    result, which torch computes in the default dtype). Within it, results may differ by about
    one rounding (SPEC: float32 results may differ from torch's by about one ulp)."""
    if out.dtype not in RTOL:
        return None
    dts = {s.dtype for s in operands if s.dtype in RTOL} | {out.dtype}
    if any(s.dtype not in RTOL and not s.dtype.startswith("py:") for s in operands):
        dts.add("float32")
    return max(RTOL[d] for d in dts)


def _compare_outcomes(ot: Outcome, om: Outcome, step, label, where, torch_mod):
    if not ot.ok and not om.ok:
        if ot.exc != om.exc:
            return Mismatch("error-type", where, label,
                            f"we raise {om.exc}({om.msg!r}), torch raises {ot.exc}({ot.msg!r})")
        return None
    if ot.ok != om.ok:
        if not om.ok:
            if om.exc == "AttributeError" and ("has no attribute" in om.msg):
                name = re.findall(r"attribute '(\w+)'", om.msg)
                return Mismatch("missing-API", where, name[0] if name else label, om.msg)
            m = Mismatch("raise-ours", where, label, f"we raise {om.exc}({om.msg!r})")
        else:
            m = Mismatch("raise-torch", where, label,
                         f"torch raises {ot.exc}({ot.msg!r}), we return a result")
        if ot.operands and replay_agrees(step, ot.operands, torch_mod):
            m.noise = True
        return m
    if len(ot.outs) != len(om.outs):
        return Mismatch("shape", where, label,
                        f"we return {len(om.outs)} outputs, torch {len(ot.outs)}")
    scale = max([s.scale() for s in ot.operands] + [0.0])
    for j, (a, b) in enumerate(zip(ot.outs, om.outs)):
        r = compare_snaps(a, b, max(scale, a.scale()), rtol=step_rtol(ot.operands, a))
        if r is not None:
            cat, detail = r
            m = Mismatch(cat, where, label, f"output {j}: {detail}", dtype=a.dtype)
            m.extra["output"] = j
            m.extra["earlier_outputs_equal"] = True  # outputs 0..j-1 compared equal
            if cat in ("value", "nan-pattern", "shape"):
                if replay_agrees(step, ot.operands, torch_mod):
                    m.noise = True
                elif cat != "shape":
                    devs = step_spread(step, ot.operands, torch_mod)
                    if devs is not None and all(
                            explained(x, y, d, max(scale, x.scale()),
                                      step_rtol(ot.operands, x))
                            for x, y, d in zip(ot.outs, om.outs, devs)):
                        m.noise = True
            return m
    return None


def _inplace_rows(program: Program) -> str:
    rows = sorted({s.row + ("" if s.form == "call" else f" [{s.form}]") for s in program.steps
                   if s.form in ("method_", "inplace_kw") or s.row.endswith("_")
                   or s.row.startswith("setitem") or "inplace" in s.row})
    return "in-place: " + (", ".join(rows) if rows else "none")


def _final_checks(run: Run, ts: Side, ms: Side, record, torch_mod):
    program, lines = run.program, run.lines
    spread = []  # torch's own spread, computed once when a difference needs it

    def noise_of():
        if not spread:
            base_pool = [snap(t) for t in ts.pool]
            base_grads = [snap(x.grad) if x.grad is not None else None for x in ts.leaves]
            spread.append(program_spread(program, torch_mod, base_pool, base_grads))
        return spread[0]

    # every tensor's final value: in-place steps write through views into earlier values (a value
    # neither side changed since its step was compared there, with the step's tolerance)
    final = [(snap(a), snap(b)) for a, b in zip(ts.pool, ms.pool)]
    for i, (sa, sb) in enumerate(final):
        if i < len(ts.made) and _same_snap(sa, ts.made[i]) and _same_snap(sb, ms.made[i]):
            continue
        # (a value written in place may hold a result computed in a less precise dtype than
        # its own, e.g. a float32 computation into a float64 out=: the steps' loosest tolerance)
        rtol = max(RTOL.get(sa.dtype, 1e-9), run.rtol) if sa.dtype in RTOL else None
        if i < len(ts.made):
            sb = _judged_elements_kept(sa, sb, ts.made[i], ms.made[i])
        r = compare_snaps(sa, sb, sa.scale(), check_meta=False, rtol=rtol)
        if r is not None:
            m = Mismatch("inplace-final", f"final value of {ts.names[i]}", _inplace_rows(program),
                         r[1], dtype=sa.dtype, noise=run.noisy)
            if not m.noise:
                m.noise = _pool_noise(noise_of, i, sa, sb)
            if record(m):
                return
    if program.backward == "none":
        return
    idx = [i for i, t in enumerate(ts.pool) if has_graph(t)]
    if not idx:
        return
    i = idx[-1]
    a, b = ts.pool[i], ms.pool[i]
    if not b.requires_grad:
        return  # already reported as a requires_grad difference of its step
    cot = np.random.default_rng(program.index).standard_normal(tuple(a.shape))
    if program.backward == "sum":
        lines.append(f"{ts.names[i]}.sum().backward()")
    else:
        lines.append(f"{ts.names[i]}.backward(T.tensor({_flt_list(cot.tolist())}, "
                     f"dtype=T.{str(a.dtype).replace('torch.', '')}))")
    for side in (ts, ms):  # intermediate gradients locate the op whose backward differs
        for t in side.pool[len(side.leaves):i + 1]:
            try:
                if t.requires_grad and t.grad_fn is not None:
                    t.retain_grad()
            except Exception:  # noqa: BLE001
                pass
    res = []
    for T, t in ((torch_mod, a), (mt, b)):
        with numpy_warnings() as seen:
            try:
                if program.backward == "sum":
                    t.sum().backward()
                else:
                    t.backward(T.tensor(cot, dtype=t.dtype))
                res.append("")
            except Exception as e:  # noqa: BLE001
                res.append(f"{exc_class(e)}({str(e)[:200]!r})")
    leak = seen[0] if seen else ""  # (ours ran last)
    if res[0].split("(")[0] != res[1].split("(")[0]:
        record(Mismatch("backward-error", "backward", f"backward through {_producer(run, ts, i)}",
                        f"we: {res[1] or 'no error'}; torch: {res[0] or 'no error'}",
                        noise=run.noisy))
        return
    if res[0]:
        return
    if leak and record(Mismatch("warning", "backward", f"backward through "
                                f"{_producer(run, ts, i)}", f"we warn: {leak}")):
        return
    lines.append("grads = " + ", ".join(f"v{j}.grad" for j, leaf in enumerate(program.leaves)
                                        if leaf.requires_grad))
    # the least precise dtype the gradient passed through, the leaves' own included
    rtol = 4 * max(RTOL.get(d, 0.0) for d in run.dtypes | {"float64"} |
                   {lf.dtype for lf in program.leaves if lf.requires_grad})
    for j, (lt, lm) in enumerate(zip(ts.leaves, ms.leaves)):
        m = _grad_mismatch(lt.grad, lm.grad, f"grad of v{j}", rtol, run.noisy)
        if m is not None:
            m.op = "backward of " + _culprit(run, ts, ms, rtol)
            if not m.noise and m.category in ("grad", "grad-nan"):
                sp = noise_of()
                if sp is not None and sp[1][j] is not None:
                    m.noise = explained(snap(lt.grad), snap(lm.grad), sp[1][j],
                                        max(snap(lt.grad).scale(), 1.0), rtol)
            if record(m):
                return


def _judged_elements_kept(sa: Snap, sb: Snap, ma: Snap, mb: Snap) -> Snap:
    """``sb`` with the elements neither library changed since the value's step taken from
    ``sa``: those were compared at the step, with its tolerance and its documented
    differences; the final comparison judges what the in-place ops wrote."""
    if not (sa.value.shape == sb.value.shape == ma.value.shape == mb.value.shape and
            sa.dtype == ma.dtype and sb.dtype == mb.dtype) or sa.value.dtype.kind == "b":
        return sb

    def kept(now, then):
        same = now == then
        if now.dtype.kind == "f":
            same |= np.isnan(now) & np.isnan(then)
        return same

    both = kept(sa.value, ma.value) & kept(sb.value, mb.value)
    if not both.any():
        return sb
    value = np.where(both, sa.value, sb.value)
    return dataclasses.replace(sb, value=value)


def _same_snap(a: Snap, b: Snap) -> bool:
    return a.dtype == b.dtype and a.value.shape == b.value.shape and \
        np.array_equal(a.value, b.value, equal_nan=a.value.dtype.kind == "f")


def _pool_noise(noise_of, i, sa, sb) -> bool:
    sp = noise_of()
    if sp is None or sp[0] is None or i >= len(sp[0]):
        return False
    return explained(sa, sb, sp[0][i], sa.scale())


def _grad_mismatch(gt, gm, where, rtol, noisy):
    if gt is None and gm is None:
        return None
    if (gt is None) != (gm is None):
        return Mismatch("grad-none", where, "", f"we have {'None' if gm is None else 'a gradient'}"
                        f", torch {'None' if gt is None else 'a gradient'}", noise=noisy)
    sa, sb = snap(gt), snap(gm)
    # a gradient that cancels to ~0 carries the rounding of terms as large as the cotangent
    r = compare_snaps(sa, sb, max(sa.scale(), 1.0), grad=True, rtol=rtol)
    if r is None:
        return None
    return Mismatch(r[0], where, "", r[1], dtype=sa.dtype, noise=noisy)


def _producer(run: Run, ts: Side, i: int) -> str:
    k = ts.origin[i]
    return run.program.steps[k].row if k >= 0 else "a leaf"


def _culprit(run: Run, ts: Side, ms: Side, rtol) -> str:
    """The step(s) whose backward first differs: the highest pool value whose gradient differs
    has correct gradients on every consumer's output, so one of its consumers is wrong."""
    for i in range(len(ts.pool) - 1, -1, -1):
        a, b = ts.pool[i], ms.pool[i]
        ga = a.grad if (a.grad_fn is None or a.retains_grad) else None
        gb = b.grad if (b.grad_fn is None or getattr(b, "retains_grad", False)) else None
        if i >= len(ts.leaves) and not a.retains_grad:
            continue
        if _grad_mismatch(ga, gb, "", rtol, False) is not None:
            users = [run.program.steps[k] for k in range(len(run.program.steps))
                     if k < len(run.used) and i in run.used[k]]
            names = sorted({u.row + ("" if u.form == "call" else f" [{u.form}]") for u in users})
            return ", ".join(names) if names else "?"
    return "?"
