"""Rewrite a script's imports by the porting rule so it runs on minitorch_cs.

``torch[.X]`` → ``minitorch_cs.torch[.X]``, ``cerebras.pytorch[.X]`` and the 2.0 name
``cerebras_pytorch[.X]`` → ``minitorch_cs[.X]``, ``cerebras.modelzoo[.X]`` →
``minitorch_cs.modelzoo[.X]``, ``torchvision[.X]`` → ``minitorch_cs.torchvision[.X]``. Only import
statements change. An import whose target does not exist in minitorch_cs, or that cannot be
expressed by renaming (``import cerebras.pytorch`` without ``as``), is refused with the line number.

Usage: ``python -m minitorch_cs.tools.port SCRIPT [-o OUT]`` (or ``minitorch-cs port``).
"""
from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import sys

__all__ = ["map_module", "port_source", "PortError", "main"]

_RULES = [("cerebras_pytorch", "minitorch_cs"), ("cerebras.pytorch", "minitorch_cs"),
          ("cerebras.modelzoo", "minitorch_cs.modelzoo"), ("torchvision", "minitorch_cs.torchvision"),
          ("torch", "minitorch_cs.torch")]


class PortError(ValueError):
    """An import the porting rule cannot map; carries every offending line."""


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
        mod = importlib.import_module(module)
    except ImportError:
        return False
    try:
        getattr(mod, attr)
        return True
    except AttributeError:
        return False


def _rewrite(node, problems):
    """Return replacement source for an import node, or None to keep it."""
    if isinstance(node, ast.ImportFrom):
        if node.level or node.module is None:
            return None
        target = map_module(node.module)
        if target is None:
            return None
        if not _exists(target):
            problems.append(f"line {node.lineno}: module '{node.module}' has no minitorch_cs "
                            f"counterpart ('{target}' does not exist)")
            return None
        for alias in node.names:
            if alias.name != "*" and not _has_attr_or_module(target, alias.name):
                problems.append(f"line {node.lineno}: '{alias.name}' is not provided by '{target}'"
                                f" (from {node.module})")
        return ast.unparse(ast.ImportFrom(module=target, names=node.names, level=0))
    out = []
    changed = False
    for alias in node.names:
        target = map_module(alias.name)
        if target is None:
            out.append(ast.unparse(ast.Import(names=[alias])))
            continue
        changed = True
        if not _exists(target):
            problems.append(f"line {node.lineno}: module '{alias.name}' has no minitorch_cs "
                            f"counterpart ('{target}' does not exist)")
            continue
        if alias.asname:
            out.append(f"import {target} as {alias.asname}")
            continue
        top = alias.name.split(".")[0]
        top_target = map_module(top)
        if top_target is None or "." in alias.name.split(".")[0] or top == "cerebras":
            problems.append(f"line {node.lineno}: 'import {alias.name}' binds the name 'cerebras'; "
                            f"write 'import {alias.name} as <name>' before porting")
            continue
        if target != top_target:
            out.append(f"import {target}")
        out.append(f"import {top_target} as {top}")
    return "; ".join(out) if changed else None


def port_source(source: str) -> str:
    """Rewrite the imports in ``source``; raises PortError listing every unmappable import."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    edits = []
    problems: list = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            new = _rewrite(node, problems)
            if new is not None:
                edits.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, new))
    if problems:
        raise PortError("cannot port these imports:\n  " + "\n  ".join(problems))
    for l0, c0, l1, c1, new in sorted(edits, reverse=True):
        first, last = lines[l0 - 1], lines[l1 - 1]
        lines[l0 - 1:l1] = [first[:c0] + new + last[c1:]]
    return "".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="minitorch-cs port", description=__doc__.split("\n\n")[0])
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
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
