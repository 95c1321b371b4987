"""Shrink a failing program and print it as a short script that runs on both libraries.

Shrinking keeps a change when the program still shows an undocumented difference of the same
category at the same op (steps after the failing one go first, then each earlier step, each
leaf, casts, layouts and ``requires_grad``). The repro is the executed source, with the op
table's lambdas inlined where they only use ``T`` and their arguments.
"""
from __future__ import annotations

import ast
import copy
import inspect
import textwrap

from tests.differential.expected import documented
from tests.differential.program import ROWS_BY_NAME, Program, run_program


def _same(m, target) -> bool:
    return m.category == target.category and m.op.split(" ")[0] == target.op.split(" ")[0]


def _still_fails(prog: Program, target, torch_mod):
    try:
        run = run_program(prog, torch_mod, accept=documented)
    except Exception:  # noqa: BLE001  (a shrink step that breaks the program)
        return None
    for m in run.mismatches:
        if not m.noise and not m.documented:
            return run if _same(m, target) else None
    return None


def _drop_step(prog: Program, k: int) -> Program:
    p = copy.deepcopy(prog)
    n = len(p.leaves)
    del p.steps[k]
    for s in p.steps[k:]:
        for op in s.operands:
            if op.src >= n + k:
                op.src = max(op.src - 1, 0)
    return p


def _drop_leaf(prog: Program, j: int) -> Program:
    p = copy.deepcopy(prog)
    del p.leaves[j]
    for s in p.steps:
        for op in s.operands:
            if op.src > j:
                op.src -= 1
            elif op.src == j:
                op.src = 0
    return p


def minimize(prog: Program, target, torch_mod, max_runs: int = 300):
    """The smallest variant of ``prog`` still failing like ``target``, and its run."""
    best = copy.deepcopy(prog)
    run = _still_fails(best, target, torch_mod)
    if run is None:
        return prog, None
    runs = 1
    if target.where.startswith("step "):
        k = int(target.where.split()[1])
        cand = copy.deepcopy(best)
        cand.steps = cand.steps[:k]
        cand.backward = "none"
        r = _still_fails(cand, target, torch_mod)
        runs += 1
        if r is not None:
            best, run = cand, r
    changed = True
    while changed and runs < max_runs:
        changed = False
        for k in range(len(best.steps) - 1, -1, -1):
            if runs >= max_runs:
                break
            cand = _drop_step(best, k)
            r = _still_fails(cand, target, torch_mod)
            runs += 1
            if r is not None:
                best, run, changed = cand, r, True
        for j in range(len(best.leaves) - 1, -1, -1):
            if len(best.leaves) == 1 or runs >= max_runs:
                break
            cand = _drop_leaf(best, j)
            r = _still_fails(cand, target, torch_mod)
            runs += 1
            if r is not None:
                best, run, changed = cand, r, True
        for simplify in _simplifications(best):
            if runs >= max_runs:
                break
            r = _still_fails(simplify, target, torch_mod)
            runs += 1
            if r is not None:
                best, run, changed = simplify, r, True
                break
    return best, run


def _simplifications(prog: Program):
    for j, leaf in enumerate(prog.leaves):
        if leaf.layout != "contig":
            p = copy.deepcopy(prog)
            p.leaves[j].layout = "contig"
            yield p
        if leaf.requires_grad and prog.backward == "none":
            p = copy.deepcopy(prog)
            p.leaves[j].requires_grad = False
            yield p
    for k, s in enumerate(prog.steps):
        for i, op in enumerate(s.operands):
            if op.permute:
                p = copy.deepcopy(prog)
                p.steps[k].operands[i].permute = False
                yield p
            if op.cast is not None and op.src >= 0:
                p = copy.deepcopy(prog)
                p.steps[k].operands[i].cast = None
                yield p
    if prog.backward == "cot":
        p = copy.deepcopy(prog)
        p.backward = "sum"
        yield p


# ----- the repro ------------------------------------------------------------------------------------
def _lambda_node(fn):
    """The ast of a lambda ``fn`` (located by its line and its parameters), or None."""
    try:
        src = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None
    params = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
    text = src.strip()
    i = text.find("lambda")
    tree = None
    for cand in [text] + ["(" + text[i:end] + ")" for end in range(len(text), i, -1)
                          if text[end - 1] in "),"]:
        try:
            tree = ast.parse(cand.rstrip(","))
            break
        except SyntaxError:
            continue
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and [a.arg for a in node.args.args] == params:
            return node
    return None


class _Inline(ast.NodeTransformer):
    def __init__(self, names, kw, star=None, star_args=()):
        self.names, self.kw = names, kw
        self.star, self.star_args = star, list(star_args)

    def visit_Name(self, node):
        if node.id in self.names:
            return ast.parse(self.names[node.id], mode="eval").body
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        # nn(T) -> T.nn.functional
        if isinstance(node.func, ast.Name) and node.func.id == "nn" and len(node.args) == 1:
            return ast.parse("T.nn.functional", mode="eval").body
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred) and isinstance(a.value, ast.Name) and \
                    a.value.id == self.star:
                args += [ast.parse(x, mode="eval").body for x in self.star_args]
            else:
                args.append(a)
        node.args = args
        kws = []
        for k in node.keywords:
            if k.arg is None and isinstance(k.value, ast.Name) and k.value.id == "kw":
                kws += [ast.keyword(arg=n, value=ast.parse(v, mode="eval").body)
                        for n, v in self.kw.items()]
            else:
                kws.append(k)
        node.keywords = kws
        return node


_OK_NAMES = {"T", "tuple", "list", "len", "bool", "float", "int", "range", "slice", "np"}


def inline_call(row_name: str, args: list, kw: dict) -> str | None:
    """``row.call(T, *args, **kw)`` written out as an expression, when the row's lambda only
    uses ``T``, its parameters, ``nn(T)`` and builtins; else None."""
    from tests.differential.program import _lit
    fn = ROWS_BY_NAME[row_name].call
    node = _lambda_node(fn)
    if node is None:
        return None
    params = [a.arg for a in node.args.args][1:]
    star = node.args.vararg.arg if node.args.vararg is not None else None
    if len(params) != len(args) and not (star and len(args) >= len(params)):
        return None
    star_args = args[len(params):]
    args = args[:len(params)]
    def lit(v):
        return v if isinstance(v, _Raw) else _lit(v)
    names = dict(zip(params, args))
    rest = dict(kw)
    for a in node.args.kwonlyargs:
        if a.arg in rest:
            names[a.arg] = lit(rest.pop(a.arg))
    if rest and node.args.kwarg is None:
        return None
    free = {n.id for n in ast.walk(node.body) if isinstance(n, ast.Name)}
    if not free <= set(params) | _OK_NAMES | {"nn", "kw", star} | \
            {a.arg for a in node.args.kwonlyargs}:
        return None
    if star and any(isinstance(n, ast.Name) and n.id == star and not _starred(node.body, n)
                    for n in ast.walk(node.body)):
        return None  # ``xs`` used other than as ``*xs``
    body = _Inline(names, {k: lit(v) for k, v in rest.items()}, star, star_args).visit(
        copy.deepcopy(node.body))
    return ast.unparse(body)


def _starred(tree, name_node) -> bool:
    return any(isinstance(n, ast.Starred) and n.value is name_node for n in ast.walk(tree))


def repro(run, target) -> str:
    """A script showing ``target`` on both libraries (``run`` is the minimized program's run)."""
    import re
    target = next((m for m in run.mismatches if not m.noise and not m.documented
                   and _same(m, target)), target)
    lines = []
    uses_row = False
    for line in run.lines:
        m = re.match(r"^(# raises in both: )?(.*?) = ROW\[('[^']*'|\"[^\"]*\")\]\(T(?:, )?(.*)\)$",
                     line)
        if m:
            name = ast.literal_eval(m.group(3))
            args_src = m.group(4)
            call = _inline_from_src(name, args_src)
            if call is not None:
                line = f"{m.group(1) or ''}{m.group(2)} = {call}"
            else:
                uses_row = True
        lines.append(line)
    show = _shown(target, run)
    body = "\n".join("    " + ln for ln in lines)
    head = "import numpy as np\nfrom numpy import nan, inf\n"
    if uses_row:
        head += ("from tests.differential.program import ROWS_BY_NAME\n"
                 "ROW = {name: row.call for name, row in ROWS_BY_NAME.items()}\n")
    return (f"# {target.category} at {target.where}: {target.detail}\n{head}\n\n"
            f"def program(T):\n{body}\n    return {show}\n\n\n"
            "import torch\nimport minitorch_cs.torch as mt\n"
            "for T in (torch, mt):\n    try:\n        print(T.__name__, program(T))\n"
            "    except Exception as e:\n        print(T.__name__, type(e).__name__, e)\n")


def _inline_from_src(name: str, args_src: str):
    """Split the ``ROW[...](T, a, b, k=v)`` argument source into args and kwargs and inline."""
    try:
        call = ast.parse(f"f({args_src})", mode="eval").body
    except SyntaxError:
        return None
    args = [ast.unparse(a) for a in call.args]
    kw = {}
    for k in call.keywords:
        try:
            kw[k.arg] = _Raw(ast.unparse(k.value))
        except Exception:  # noqa: BLE001
            return None
    return inline_call(name, args, kw)


class _Raw(str):
    """Source text that ``_lit`` must leave alone."""


def _shown(target, run) -> str:
    w = target.where
    if w.startswith("step ") and int(w.split()[1]) - 1 < len(run.step_names):
        return run.step_names[int(w.split()[1]) - 1]
    if w.startswith("grad of "):
        return w.split()[-1] + ".grad"
    if w.startswith("final value of "):
        return w.split()[-1]
    if w == "backward":
        return "None"
    return "locals()"
