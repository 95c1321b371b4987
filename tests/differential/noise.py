"""How much of a difference rounding alone explains: torch against itself, one ulp apart.

Two libraries that both round correctly still differ by an ulp here and there (another summation
order, another ``exp``); an ill-conditioned step (a normalization of nearly equal values, a
comparison of nearly equal numbers, a gradient that cancels to ~0) turns that ulp into a large
difference. To tell such noise from a real difference, torch is run again with every float input
(for one step) or every step's float output (for a whole program) moved by about one ulp; the
spread of torch's own results bounds what rounding explains, per element.
"""
from __future__ import annotations

import warnings

import numpy as np

from tests.differential.compare import RTOL, Snap, snap

_EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23,
        "float64": 2.0 ** -52}


def _jitter(values: np.ndarray, dtype: str, rng) -> np.ndarray:
    eps = _EPS.get(dtype)
    if eps is None:
        return values
    u = rng.choice([-1.0, 1.0], size=values.shape)
    return values * (1 + 2 * eps * u)


def _spread(base: list, runs: list) -> list | None:
    """Per output, the largest deviation of ``runs`` from ``base`` (inf where a NaN/inf appears
    or disappears); None when a run changed the structure (an error, a shape)."""
    devs = []
    for j, b in enumerate(base):
        d = np.zeros(b.value.shape)
        for r in runs:
            if r is None or len(r) != len(base):
                return None
            o = r[j]
            if o.value.shape != b.value.shape or o.dtype != b.dtype:
                return None
            bv, ov = b.value.astype(np.float64), o.value.astype(np.float64)
            with np.errstate(invalid="ignore"):
                dev = np.abs(ov - bv)
            dev = np.where(np.isnan(bv) & np.isnan(ov), 0.0, dev)
            dev = np.where(np.isfinite(bv) & np.isfinite(ov), dev,
                           np.where((bv == ov) | (np.isnan(bv) & np.isnan(ov)), 0.0, np.inf))
            d = np.maximum(d, dev)
        devs.append(d)
    return devs


def explained(want: Snap, got: Snap, dev: np.ndarray | None, scale: float,
              rtol: float | None = None) -> bool:
    """True when every difference between ``want`` and ``got`` lies within the dtype's tolerance
    plus four times torch's own spread ``dev``."""
    if dev is None or want.value.shape != got.value.shape or want.dtype != got.dtype:
        return False
    a, b = want.value.astype(np.float64), got.value.astype(np.float64)
    rtol = RTOL.get(want.dtype, 1e-9) if rtol is None else rtol
    with np.errstate(invalid="ignore"):
        diff = np.abs(a - b)
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    ok = same | (diff <= rtol * (np.abs(a) + scale) + 4 * dev) | np.isinf(dev)
    return bool(np.all(ok))


def step_spread(step, operands: list, torch_mod, runs: int = 3):
    """torch's spread for ``step`` when its float operands move by an ulp (None: unstable)."""
    from tests.differential.program import _outputs, rebuild, run_step
    rng = np.random.default_rng(0)

    def once(jitter):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                args = []
                for s in operands:
                    v = _jitter(s.value, s.dtype, rng) if jitter else s.value
                    args.append(rebuild(torch_mod, Snap(s.kind, v, s.dtype)))
                return [snap(o) for o in _outputs(run_step(torch_mod, step, args, dict(step.kw)))]
        except Exception:  # noqa: BLE001
            return None
    base = once(False)
    if base is None:
        return None
    return _spread(base, [once(True) for _ in range(runs)])


def program_spread(program, torch_mod, base_pool: list, base_grads: list, runs: int = 2):
    """torch's spread over the final values of every tensor and every leaf's gradient when each
    step's float outputs move by an ulp (written through ``.data``, which autograd does not
    see). Returns ``(pool_devs, grad_devs)``, or None when a run changed the structure."""
    from tests.differential.program import Side, execute, make_leaf
    pools, grads = [], []
    for r in range(runs):
        rng = np.random.default_rng(100 + r)
        side = Side(torch_mod)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for leaf in program.leaves:
                    t, _ = make_leaf(torch_mod, leaf)
                    _inject(t, rng)
                    side.pool.append(t)
                    side.names.append("")
                    side.leaves.append(t)
                for step in program.steps:
                    o = execute(side, step)
                    if not o.ok:
                        continue
                    for t in o.raw:
                        if hasattr(t, "stride") and hasattr(t, "requires_grad"):
                            _inject(t, rng)
                            side.pool.append(t)
                            side.names.append("")
                pool = [snap(t) for t in side.pool]
                g = _backward(program, side, torch_mod)
        except Exception:  # noqa: BLE001
            return None
        pools.append(pool)
        grads.append(g)
    if any(len(p) != len(base_pool) for p in pools):
        return None
    pool_devs = _spread(base_pool, pools)
    grad_devs = []
    for j, bg in enumerate(base_grads):
        if bg is None:
            grad_devs.append(None)
            continue
        runs_j = [[g[j]] if g is not None and g[j] is not None else None for g in grads]
        d = _spread([bg], runs_j)
        grad_devs.append(d[0] if d else None)
    return pool_devs, grad_devs


def _inject(t, rng) -> None:
    dt = str(t.dtype).replace("torch.", "")
    eps = _EPS.get(dt)
    if eps is None or t.numel() == 0 or 0 in t.stride():
        return
    u = rng.choice([-1.0, 1.0], size=tuple(t.shape))
    import torch
    try:
        t.data.mul_(torch.tensor(1 + 2 * eps * u, dtype=torch.float64).to(t.dtype))
    except RuntimeError:
        pass


def _backward(program, side, torch_mod):
    if program.backward == "none":
        return None
    idx = [i for i, t in enumerate(side.pool) if t.requires_grad and t.grad_fn is not None]
    if not idx:
        return None
    t = side.pool[idx[-1]]
    if program.backward == "sum":
        t.sum().backward()
    else:
        cot = np.random.default_rng(program.index).standard_normal(tuple(t.shape))
        t.backward(torch_mod.tensor(cot, dtype=t.dtype))
    return [snap(leaf.grad) if leaf.grad is not None else None for leaf in side.leaves]
