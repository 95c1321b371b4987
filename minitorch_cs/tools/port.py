"""Rewrite a script's imports by the porting rule so it runs on minitorch_cs.

The rule maps module paths, nothing else: ``torch[.X]`` → ``minitorch_cs.torch[.X]``,
``cerebras.pytorch[.X]`` and the 2.0 name ``cerebras_pytorch[.X]`` → ``minitorch_cs[.X]``,
``cerebras.modelzoo[.X]`` → ``minitorch_cs.modelzoo[.X]``, ``torchvision[.X]`` →
``minitorch_cs.torchvision[.X]``. ``import torch`` becomes ``import minitorch_cs.torch as torch``
(the bound name stays ``torch``); ``import cerebras.pytorch`` binds ``cerebras`` to
:mod:`minitorch_cs.tools.cerebras`, whose ``pytorch``/``modelzoo`` attributes are our packages.
Every other line is left exactly as it was.

Refused, with the line number and the reason (nothing is written then):

* a mapped import whose target does not exist in minitorch_cs (``torch.optim``: use
  ``cstorch.optim``; ``torch.distributed``; ``from torch import fft``; ...);
* packages that need the real PyTorch (``transformers``, ``timm``, ``lightning``, ...): their
  modules run on torch's own tensors and C++ kernels, which minitorch_cs does not provide;
* dynamic imports of mapped modules (``importlib.import_module("torch.nn")``,
  ``__import__("torch")``), which a module-path rewrite cannot see through.

Usage: ``python -m minitorch_cs.tools.port SCRIPT [-o OUT]`` (prints the result without ``-o``).
"""
from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import sys

__all__ = ["map_module", "port_source", "PortError", "NEEDS_REAL_TORCH", "HINTS", "main"]

_RULES = [("cerebras_pytorch", "minitorch_cs"), ("cerebras.pytorch", "minitorch_cs"),
          ("cerebras.modelzoo", "minitorch_cs.modelzoo"), ("torchvision", "minitorch_cs.torchvision"),
          ("torch", "minitorch_cs.torch")]

#: The module that ``import cerebras.pytorch`` (without ``as``) binds to the name ``cerebras``.
CEREBRAS_NAMESPACE = "minitorch_cs.tools.cerebras"

#: Top-level packages built on the real PyTorch: importing them would load torch itself.
NEEDS_REAL_TORCH = ("transformers", "timm", "lightning", "pytorch_lightning", "accelerate", "peft",
                    "deepspeed", "apex", "torch_xla", "torchaudio", "torchtext", "torchdata",
                    "torchmetrics", "functorch", "xformers", "flash_attn", "bitsandbytes",
                    "triton", "torch_geometric", "diffusers", "sentence_transformers")

#: Why some real modules have no counterpart, and what to use instead.
HINTS = {
    "torch.optim": "optimizers on the wafer are cstorch's: use cerebras.pytorch.optim "
                   "(cstorch.optim.SGD, AdamW, lr_scheduler, ...)",
    "torch.distributed": "minitorch_cs runs in one process; cerebras.pytorch.distributed has the "
                         "cluster helpers",
    "torch.cuda": "there is no CUDA here; torch.cuda.is_available() is False (use it as an "
                  "attribute: torch.cuda)",
    "torch.amp": "use cerebras.pytorch.amp (GradScaler, autocast)",
    "torch.jit": "TorchScript needs the real torch",
    "torch.fx": "graph capture is cstorch.trace here",
    "torch.onnx": "ONNX export needs the real torch",
    "torchvision.models": "only torchvision.datasets.MNIST and transforms are provided",
}


class PortError(ValueError):
    """Imports the porting rule cannot map; the message lists every offending line."""


def map_module(name: str):
    """The minitorch_cs module path for ``name``, or None when the rule does not apply."""
    for src, dst in _RULES:
        if name == src or name.startswith(src + "."):
            return dst + name[len(src):]
    return None


def _exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _has_attr_or_module(module: str, attr: str) -> bool:
    if _exists(f"{module}.{attr}"):
        return True
    try:
        return hasattr(importlib.import_module(module), attr)
    except ImportError:
        return False


def _missing(lineno, name, target):
    for real, hint in HINTS.items():
        if name == real or name.startswith(real + "."):
            return f"line {lineno}: '{name}' has no minitorch_cs counterpart: {hint}"
    where = f" ('{target}' does not exist)" if target else ""
    return f"line {lineno}: module '{name}' has no minitorch_cs counterpart{where}"


def _needs_real_torch(lineno, name):
    top = name.split(".")[0]
    if top in NEEDS_REAL_TORCH:
        return (f"line {lineno}: '{name}' needs the real PyTorch (its code runs on torch's own "
                "tensors and C++ kernels); minitorch_cs cannot run it")
    return None


def _rewrite_from(node, problems):
    if node.level or node.module is None:
        return None
    problem = _needs_real_torch(node.lineno, node.module)
    if problem:
        problems.append(problem)
        return None
    if node.module == "cerebras":
        # ``from cerebras import pytorch as cstorch`` / ``from cerebras import modelzoo``
        parts = []
        for alias in node.names:
            target = map_module(f"cerebras.{alias.name}")
            if target is None or not _exists(target):
                problems.append(_missing(node.lineno, f"cerebras.{alias.name}", target))
                continue
            parts.append(f"import {target} as {alias.asname or alias.name}")
        return "; ".join(parts) if parts else None
    target = map_module(node.module)
    if target is None:
        return None
    if not _exists(target):
        problems.append(_missing(node.lineno, node.module, target))
        return None
    for alias in node.names:
        if alias.name != "*" and not _has_attr_or_module(target, alias.name):
            full = f"{node.module}.{alias.name}"
            if any(full == r or full.startswith(r + ".") for r in HINTS):
                problems.append(_missing(node.lineno, full, f"{target}.{alias.name}"))
            else:
                problems.append(f"line {node.lineno}: '{alias.name}' is not provided by "
                                f"'{target}' (from {node.module})")
    return ast.unparse(ast.ImportFrom(module=target, names=node.names, level=0))


def _rewrite_import(node, problems):
    out, changed = [], False
    for alias in node.names:
        problem = _needs_real_torch(node.lineno, alias.name)
        if problem:
            problems.append(problem)
            continue
        target = map_module(alias.name)
        if target is None:
            if alias.name.split(".")[0] == "cerebras":  # cerebras.appliance, bare cerebras, ...
                problems.append(_missing(node.lineno, alias.name, None))
                continue
            out.append(ast.unparse(ast.Import(names=[alias])))
            continue
        changed = True
        if not _exists(target):
            problems.append(_missing(node.lineno, alias.name, target))
            continue
        if alias.asname:
            out.append(f"import {target} as {alias.asname}")
            continue
        # ``import a.b.c`` binds ``a``: import the target, then bind the same top-level name.
        top = alias.name.split(".")[0]
        if top == "cerebras":
            out += [f"import {target}", f"import {CEREBRAS_NAMESPACE} as cerebras"]
            continue
        top_target = map_module(top)
        if target != top_target:
            out.append(f"import {target}")
        out.append(f"import {top_target} as {top}")
    return "; ".join(out) if changed or len(out) != len(node.names) else None


def _dynamic_import(node):
    """The module string of ``importlib.import_module("x")`` / ``__import__("x")``, if any."""
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
    if name not in ("import_module", "__import__") or not node.args:
        return None
    arg = node.args[0]
    return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None


def port_source(source: str) -> str:
    """Rewrite the imports in ``source``; raises PortError listing every unmappable import."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    edits, problems = [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            new = _rewrite_from(node, problems)
        elif isinstance(node, ast.Import):
            new = _rewrite_import(node, problems)
        elif isinstance(node, ast.Call):
            mod = _dynamic_import(node)
            if mod and (map_module(mod) or mod.split(".")[0] in ("cerebras",) + NEEDS_REAL_TORCH):
                problems.append(f"line {node.lineno}: dynamic import of '{mod}' cannot be mapped "
                                "by the rewrite; write it as an import statement")
            continue
        else:
            continue
        if new is not None:
            edits.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, new))
    if problems:
        problems.sort(key=lambda p: int(p.split(":")[0].split()[1]))
        raise PortError("cannot port these imports:\n  " + "\n  ".join(problems))
    for l0, c0, l1, c1, new in sorted(edits, reverse=True):
        first, last = lines[l0 - 1], lines[l1 - 1]
        lines[l0 - 1:l1] = [first[:c0] + new + last[c1:]]
    return "".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m minitorch_cs.tools.port",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("script", help="a Python script written for the real stack")
    p.add_argument("-o", "--output", help="write here instead of printing")
    args = p.parse_args(argv)
    with open(args.script, encoding="utf-8") as f:
        src = f.read()
    try:
        out = port_source(src)
    except PortError as e:
        print(f"{args.script}: {e}", file=sys.stderr)
        return 2
    except SyntaxError as e:
        print(f"{args.script}: not valid Python: {e}", file=sys.stderr)
        return 2
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
