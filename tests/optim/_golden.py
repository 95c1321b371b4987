"""Loading the real cstorch 2.10 goldens (tests/data/real_cstorch) and rebuilding their specs."""
from __future__ import annotations

import functools
import inspect
import json
from pathlib import Path

import numpy as np

import minitorch_cs.optim as optim
import minitorch_cs.torch as torch
from minitorch_cs.optim import lr_scheduler as LRS
from minitorch_cs.optim import weight_decay_scheduler as WDS

DATA = Path(__file__).resolve().parents[1] / "data" / "real_cstorch"
MODULES = {"lr": LRS, "weight_decay": WDS}


@functools.lru_cache(maxsize=None)
def load(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def unjson(x):
    """Undo make_goldens.jsonable for plain values (tuples, sets; tensors to float64 arrays)."""
    if isinstance(x, dict):
        if "__tuple__" in x:
            return tuple(unjson(v) for v in x["__tuple__"])
        if "__set__" in x:
            return set(unjson(v) for v in x["__set__"])
        if "__tensor__" in x:
            return np.array(x["values"], dtype=np.float64)
        return {k: unjson(v) for k, v in x.items()}
    if isinstance(x, list):
        return [unjson(v) for v in x]
    return x


def build_scheduler(spec, opt, module):
    """Build a (possibly nested) scheduler from a golden spec, exactly as make_goldens.py did."""
    cls = getattr(module, spec["class"])
    kwargs = dict(spec.get("kwargs", {}))
    if "schedulers" in kwargs:
        kwargs["schedulers"] = [build_scheduler(s, opt, module) for s in kwargs["schedulers"]]
    if "scheduler" in kwargs:
        kwargs["scheduler"] = build_scheduler(kwargs["scheduler"], opt, module)
    if "optimizer" in inspect.signature(cls.__init__).parameters:
        return cls(opt, **kwargs)
    return cls(**kwargs)


def make_groups(n_groups=1, extra=None, untagged=()):
    groups = []
    for i in range(n_groups):
        g = {"params": [torch.zeros(2, requires_grad=True)]}
        if i not in untagged:
            g["tags"] = [f"g{i}"]
        if extra:
            g.update(extra[i])
        groups.append(g)
    return groups


def host_optimizer(case):
    """The SGD host of a scheduler case (1 group, or 2 when the case's note says so)."""
    note = case.get("note", "")
    n = 2 if ("param_group_extras" in case or note.startswith("optimizer has 2")) else 1
    untagged = (1,) if "untagged" in note else ()
    return optim.SGD(make_groups(n, case.get("param_group_extras"), untagged), lr=0.1,
                     weight_decay=0.01)


def value(v) -> float:
    return float(v.item()) if isinstance(v, torch.Tensor) else float(v)


def run_schedule(opt, sched, key, n_steps):
    """values[k][g]: the group value optimizer step k uses (record, opt.step(), sched.step())."""
    out = []
    for _ in range(n_steps + 1):
        out.append([value(g[key]) for g in opt.param_groups])
        opt.step()
        sched.step()
    return out


def case_id(case) -> str:
    spec = case["spec"]
    kw = json.dumps(spec.get("kwargs", {}), sort_keys=True)
    return f"{spec['class']}{kw[:60]}"


P1_INIT = np.linspace(-1.0, 1.0, 12, dtype=np.float64).reshape(3, 4)
P2_INIT = np.linspace(0.5, -0.25, 4, dtype=np.float64)


def grad_for(p: np.ndarray, k: int) -> np.ndarray:
    """The goldens' gradient formula, in float64."""
    return np.sin(p.astype(np.float64) * 1.3 + k) + 0.1 * k
