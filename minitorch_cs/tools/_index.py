"""A static index of the modules and names minitorch_cs provides, read from its source files.

The port tool checks ``from torch.nn import Linear`` against this index instead of importing
``minitorch_cs.torch.nn``: importing would run the package (slow, and a missing third-party
dependency would make a name look absent). Nothing here imports minitorch_cs.

A module's names are what its top-level code binds: ``def``/``class``, assignments, ``import``
and ``from ... import`` aliases (``from .x import *`` contributes ``x.__all__``, or its public
names), ``__all__`` entries, in every branch of top-level ``if``/``try``/``with``/``for`` blocks,
plus the names a module-level ``__getattr__`` returns for (an ``if name == "X": ... return``
branch; branches that only raise do not count). Submodules are the package's files.

The third-party packages a module needs are the ones imported anywhere in the files reachable
from it through module-level imports of the package (a function-level ``import h5py`` counts: the
function fails without it).
"""
from __future__ import annotations

import ast
import functools
import re
import sys
from pathlib import Path

__all__ = ["PACKAGE", "module_file", "module_exists", "is_package", "names", "provides",
           "getattr_names", "third_party_imports", "missing_dependencies"]

PACKAGE = "minitorch_cs"
_ROOT = Path(__file__).resolve().parents[1]  # .../minitorch_cs


def module_file(module: str) -> Path | None:
    """The source file of ``module`` (a dotted path inside minitorch_cs), or None."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    base = _ROOT.joinpath(*parts[1:])
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    py = base.with_name(base.name + ".py") if len(parts) > 1 else None
    if py is not None and py.is_file():
        return py
    return None


def module_exists(module: str) -> bool:
    return module_file(module) is not None


def is_package(module: str) -> bool:
    f = module_file(module)
    return f is not None and f.name == "__init__.py"


@functools.lru_cache(maxsize=None)
def _tree(module: str) -> ast.Module | None:
    f = module_file(module)
    if f is None:
        return None
    return ast.parse(f.read_bytes(), filename=str(f))


def _resolve_relative(module: str, level: int, target: str | None) -> str:
    """The absolute module of ``from <level dots><target> import ...`` written in ``module``."""
    base = module.split(".")
    if not is_package(module):
        base = base[:-1]
    if level > 1:
        base = base[:len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _targets(node) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [n for elt in node.elts for n in _targets(elt)]
    if isinstance(node, ast.Starred):
        return _targets(node.value)
    return []


def _literal_strings(node) -> list[str]:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value for e in node.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _compared_names(test, argname) -> list[str]:
    """The strings ``test`` compares the ``__getattr__`` argument with (``==`` / ``in``)."""
    if isinstance(test, ast.BoolOp):
        return [n for v in test.values for n in _compared_names(v, argname)]
    if not (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
            and test.left.id == argname and len(test.ops) == 1):
        return []
    op, right = test.ops[0], test.comparators[0]
    if isinstance(op, ast.Eq) and isinstance(right, ast.Constant) and isinstance(right.value, str):
        return [right.value]
    if isinstance(op, ast.In):
        return _literal_strings(right)
    return []


def _returns(body) -> bool:
    return any(isinstance(n, ast.Return) for stmt in body for n in ast.walk(stmt))


@functools.lru_cache(maxsize=None)
def getattr_names(module: str) -> frozenset:
    """Names the module-level ``__getattr__`` of ``module`` returns a value for."""
    tree = _tree(module)
    out = set()
    if tree is None:
        return frozenset()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__" and node.args.args:
            arg = node.args.args[0].arg
            for sub in ast.walk(node):
                if isinstance(sub, ast.If) and _returns(sub.body):
                    out.update(_compared_names(sub.test, arg))
    return frozenset(out)


@functools.lru_cache(maxsize=None)
def names(module: str) -> frozenset:
    """Every name ``module`` binds at top level (see the module docstring)."""
    tree = _tree(module)
    if tree is None:
        return frozenset()
    out: set[str] = set()

    def visit(body):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(node.name)
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    out.update(_targets(t))
                if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                    out.update(_literal_strings(node.value))
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                out.update(_targets(node.target))
                if (isinstance(node.target, ast.Name) and node.target.id == "__all__"
                        and node.value is not None):
                    out.update(_literal_strings(node.value))
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                f = node.value.func  # __all__.append("X") / __all__.extend([...])
                if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                        and f.value.id == "__all__" and node.value.args):
                    a = node.value.args[0]
                    out.update([a.value] if isinstance(a, ast.Constant) else _literal_strings(a))
            elif isinstance(node, ast.Import):
                for a in node.names:
                    out.add(a.asname or a.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom):
                src = (_resolve_relative(module, node.level, node.module) if node.level
                       else node.module or "")
                for a in node.names:
                    if a.name == "*":
                        if src.split(".")[0] == PACKAGE:
                            out.update(_star_names(src))
                    else:
                        out.add(a.asname or a.name)
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                for field in ("body", "orelse", "finalbody"):
                    visit(getattr(node, field, []) or [])
                for h in getattr(node, "handlers", []) or []:
                    visit(h.body)
                if isinstance(node, ast.For):
                    out.update(_targets(node.target))
                if isinstance(node, ast.With):
                    for item in node.items:
                        if item.optional_vars is not None:
                            out.update(_targets(item.optional_vars))

    visit(tree.body)
    return frozenset(out | getattr_names(module))


def _star_names(module: str) -> set:
    """What ``from module import *`` binds: its ``__all__`` (the top-level assignment, plus any
    ``__all__ += [...]``, ``.append`` and ``.extend`` after it), or its public names."""
    tree = _tree(module)
    if tree is None:
        return set()
    listed = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            listed = set(_literal_strings(node.value))
        elif listed is not None and isinstance(node, ast.AugAssign) and \
                isinstance(node.target, ast.Name) and node.target.id == "__all__":
            listed.update(_literal_strings(node.value))
        elif listed is not None and isinstance(node, ast.Expr) and \
                isinstance(node.value, ast.Call):
            f = node.value.func
            if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                    and f.value.id == "__all__" and node.value.args):
                a = node.value.args[0]
                listed.update([a.value] if isinstance(a, ast.Constant) else _literal_strings(a))
    if listed is not None:
        return listed
    return {n for n in names(module) if not n.startswith("_")}


_MODULE_ATTRS = {"__name__", "__doc__", "__file__", "__spec__", "__loader__", "__package__",
                 "__dict__", "__builtins__", "__cached__"}


def provides(module: str, name: str) -> bool:
    """Whether ``from module import name`` finds ``name`` (a bound name, a submodule, or an
    attribute every module has)."""
    if name in _MODULE_ATTRS or (name == "__path__" and is_package(module)):
        return True
    return name in names(module) or module_exists(f"{module}.{name}")


@functools.lru_cache(maxsize=None)
def _module_imports(module: str):
    """(module-level imports of minitorch_cs modules, every third-party top-level import)."""
    tree = _tree(module)
    ours, third = set(), set()
    if tree is None:
        return ours, third

    def add_ours(dotted):
        # ``from minitorch_cs.torch import nn``: nn may be a submodule
        if module_exists(dotted):
            ours.add(dotted)

    def scan(node, top_level, guarded):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == PACKAGE:
                    if top_level:
                        parts = a.name.split(".")
                        for i in range(1, len(parts) + 1):
                            add_ours(".".join(parts[:i]))
                elif not guarded:
                    third.add(a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            src = (_resolve_relative(module, node.level, node.module) if node.level
                   else node.module or "")
            if src.split(".")[0] == PACKAGE:
                if top_level:
                    parts = src.split(".")
                    for i in range(1, len(parts) + 1):
                        add_ours(".".join(parts[:i]))
                    for a in node.names:
                        add_ours(f"{src}.{a.name}")
            elif not node.level and src and not guarded:
                third.add(src.split(".")[0])

    def walk(body, top_level, guarded=False):
        for node in body:
            scan(node, top_level, guarded)
            nested = top_level and not isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(node, ast.Try):
                # an import guarded by ``except ImportError`` is optional: not a dependency
                optional = guarded or any(_catches_import_error(h) for h in node.handlers)
                walk(node.body, nested, optional)
                for h in node.handlers:
                    walk(h.body, nested, guarded)
                walk(node.orelse, nested, guarded)
                walk(node.finalbody, nested, guarded)
                continue
            for fld in ("body", "orelse", "finalbody"):
                sub = getattr(node, fld, None)
                if isinstance(sub, list):
                    walk(sub, nested, guarded)

    walk(tree.body, True)
    # a package's __init__ runs before its submodules
    parts = module.split(".")
    for i in range(1, len(parts)):
        ours.add(".".join(parts[:i]))
    ours.discard(module)
    return ours, third


def _catches_import_error(handler) -> bool:
    t = handler.type
    elts = [] if t is None else (t.elts if isinstance(t, ast.Tuple) else [t])
    return t is None or any(getattr(e, "id", getattr(e, "attr", None)) in
                            ("ImportError", "ModuleNotFoundError", "Exception") for e in elts)


@functools.lru_cache(maxsize=None)
def third_party_imports(module: str) -> frozenset:
    """(package, needed by) pairs for every non-stdlib package reachable from ``module``."""
    seen, todo, out = set(), [module], set()
    std = set(sys.stdlib_module_names) | {"__future__"}
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        ours, third = _module_imports(m)
        out.update((t, m) for t in third if t not in std and t != PACKAGE)
        todo.extend(ours - seen)
    return frozenset(out)


_IMPORT_LINE = re.compile(r"^[ \t]*(?:import[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]*(?:as[ \t]+\w+[ \t]*)?"
                          r"(?:,|#|$)|from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import[ \t])", re.M)


def _installed(pkg: str) -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec(pkg) is not None
    except (ImportError, ValueError):
        return False


def _module_of(path: Path) -> str:
    rel = path.relative_to(_ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


@functools.lru_cache(maxsize=None)
def _any_missing() -> bool:
    """Quick pre-check: does any module of the package need a package that is not installed?
    A text scan finds candidates; only files naming a missing package are parsed, to drop
    optional (``except ImportError``-guarded) imports."""
    std = set(sys.stdlib_module_names) | {"__future__", PACKAGE, "torch"}
    files: dict = {}
    for f in _ROOT.rglob("*.py"):
        for a, b in _IMPORT_LINE.findall(f.read_text(encoding="utf-8", errors="replace")):
            top = a or b
            if top not in std:
                files.setdefault(top, set()).add(f)
    for pkg, paths in files.items():
        if _installed(pkg):
            continue
        if any(pkg in _module_imports(_module_of(f))[1] for f in paths):
            return True
    return False


def missing_dependencies(module: str) -> dict:
    """{package: [modules needing it]} for the third-party packages of ``module`` that are not
    installed (found with ``importlib.util.find_spec`` on the top-level name, which imports
    nothing)."""
    out: dict = {}
    if not _any_missing():
        return out
    for pkg, needer in sorted(third_party_imports(module)):
        if pkg == "torch":  # our modules mention the real torch only to keep it out
            continue
        if not _installed(pkg):
            out.setdefault(pkg, []).append(needer)
    return out
