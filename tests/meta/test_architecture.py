"""The layering ARCHITECTURE.md describes holds, and its index of public names is current."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from minitorch_cs.tools import api_index

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "minitorch_cs"


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path):
    """Every minitorch_cs module ``path`` imports (function-level imports included)."""
    mod = _module(path)
    base = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = ".".join(base[:len(base) - node.level + 1] + ([node.module] if node.module
                                                                     else [])) \
                if node.level else (node.module or "")
            out += [target] + [f"{target}.{a.name}" for a in node.names]
    return [t for t in out if t.startswith("minitorch_cs.")]


def _package_graph():
    modules = {_module(p): p for p in PKG.rglob("*.py")}
    edges = {}
    for mod, path in modules.items():
        src = mod.split(".")[1] if mod.count(".") else None
        for target in _imports(path):
            parts = target.split(".")
            while parts and ".".join(parts) not in modules:
                parts.pop()
            if len(parts) < 2:
                continue
            dst = parts[1]
            if src and dst != src:
                edges.setdefault(src, set()).add(dst)
    return edges


def _cycle(edges):
    state = {}

    def visit(n, path):
        state[n] = 1
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                return path + [n, m]
            if m not in state:
                found = visit(m, path + [n])
                if found:
                    return found
        state[n] = 2
        return None

    for n in sorted(edges):
        if n not in state:
            found = visit(n, [])
            if found:
                return found
    return None


def test_no_import_cycle_between_packages():
    cycle = _cycle(_package_graph())
    assert cycle is None, "import cycle between packages: " + " -> ".join(cycle)


def test_only_the_dispatch_module_touches_the_mode_stack():
    """Modes are pushed and popped through Mode.enter/exit only: no other module names the
    private stack, and the old module-level hooks are gone."""
    offenders = []
    for p in PKG.rglob("*.py"):
        if p == PKG / "torch" / "_dispatch.py":
            continue
        src = p.read_text(encoding="utf-8")
        if re.search(r"_dispatch\._stack|import[^\n]*\b_stack\b|\bREAD_GUARD\b|\bTRACER\b", src):
            offenders.append(str(p.relative_to(ROOT)))
    assert offenders == []


def test_the_public_name_index_is_current():
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    block = text.split("<!-- api-index:start -->\n", 1)[1].split("<!-- api-index:end -->", 1)[0]
    assert block == api_index.render(), (
        "ARCHITECTURE.md's index of public names is out of date: regenerate it with "
        "`python -m minitorch_cs.tools.api_index` between the api-index markers")
