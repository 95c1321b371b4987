"""Where each public name lives: ``python -m minitorch_cs.tools.api_index`` prints, for every
public namespace a script imports (``cstorch``, ``torch``, ``torch.nn``, ...), the module that
defines each of its names. ARCHITECTURE.md embeds the output (a test keeps it current)."""
from __future__ import annotations

import importlib
import inspect
import sys
import types

__all__ = ["NAMESPACES", "index", "render"]

# (namespace, how a ported script names it)
NAMESPACES = [
    ("minitorch_cs", "cstorch"),
    ("minitorch_cs.optim", "cstorch.optim"),
    ("minitorch_cs.optim.lr_scheduler", "cstorch.optim.lr_scheduler"),
    ("minitorch_cs.amp", "cstorch.amp"),
    ("minitorch_cs.utils.data", "cstorch.utils.data"),
    ("minitorch_cs.metrics", "cstorch.metrics"),
    ("minitorch_cs.nn", "cstorch.nn"),
    ("minitorch_cs.distributed", "cstorch.distributed"),
    ("minitorch_cs.torch", "torch"),
    ("minitorch_cs.torch.autograd", "torch.autograd"),
    ("minitorch_cs.torch.nn", "torch.nn"),
    ("minitorch_cs.torch.nn.functional", "torch.nn.functional"),
    ("minitorch_cs.torch.nn.init", "torch.nn.init"),
    ("minitorch_cs.torch.utils.data", "torch.utils.data"),
    ("minitorch_cs.modelzoo", "cerebras.modelzoo"),
]


def _public(mod):
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in vars(mod) if not n.startswith("_")]
    return sorted(set(names))


def _home(obj, namespace):
    if isinstance(obj, types.ModuleType):
        return None  # a submodule: its own entry
    target = obj.fget if isinstance(obj, property) else obj
    home = getattr(target, "__module__", None) if (inspect.isclass(target) or
                                                    callable(target)) else None
    if not isinstance(home, str) or not home.startswith("minitorch_cs"):
        home = namespace  # a value (dtype, constant, instance) defined by the namespace itself
    return home


def index():
    """{namespace: {defining module: [names]}}."""
    out = {}
    for ns, _ in NAMESPACES:
        mod = importlib.import_module(ns)
        homes = {}
        for name in _public(mod):
            obj = getattr(mod, name, None)
            if obj is None:
                continue
            home = _home(obj, ns)
            if home is not None:
                homes.setdefault(home, []).append(name)
        out[ns] = dict(sorted(homes.items()))
    return out


def render() -> str:
    lines = []
    for ns, alias in NAMESPACES:
        lines.append(f"**`{alias}`** (`{ns}`)")
        lines.append("")
        lines.append("| defined in | names |")
        lines.append("|---|---|")
        for home, names in index()[ns].items():
            lines.append(f"| `{home}` | {', '.join(f'`{n}`' for n in names)} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
