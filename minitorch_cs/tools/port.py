"""Rewrite a script's imports by the porting rule so it runs on minitorch_cs.

The rule maps module paths, nothing else: ``torch[.X]`` → ``minitorch_cs.torch[.X]``,
``cerebras.pytorch[.X]`` and the 2.0 name ``cerebras_pytorch[.X]`` → ``minitorch_cs[.X]``,
``cerebras.modelzoo[.X]`` → ``minitorch_cs.modelzoo[.X]``, ``cerebras.appliance[.X]`` (2.0:
``cerebras_appliance[.X]``) → ``minitorch_cs.appliance[.X]``, ``torchvision[.X]`` →
``minitorch_cs.torchvision[.X]``. Each import keeps the names it binds: ``import torch`` becomes
``import minitorch_cs.torch as torch``; ``import torch.nn`` becomes
``import minitorch_cs.torch.nn, minitorch_cs.torch as torch``; ``import cerebras.pytorch`` binds
``cerebras`` to :mod:`minitorch_cs.tools.cerebras`, whose ``pytorch``/``modelzoo``/``appliance``
are our packages. String literals passed to ``importlib.import_module`` / ``find_spec`` that are
exactly a mappable module path are rewritten too (that is how Model Zoo probes for the stack).

The rewrite is byte-for-byte outside the module paths it replaces: encoding (UTF-8 with or without
a BOM, or a ``# -*- coding: ... -*-`` file), line endings, comments inside parenthesized imports
and line numbers stay exactly as they were.

What cannot be mapped is listed with its line. The rule for where it is:

* **refused** (nothing is written, exit status 2): an import at module level (or in a class body)
  that cannot be mapped — a package built on the real PyTorch (``transformers``, ``timm``, ...),
  a ``cerebras*`` package other than the mirrored ones, a module or name minitorch_cs does not
  provide (``torch.optim``, ``from torch import fft``) — and every use of a cerebras_pytorch 2.0
  API that 2.10 removed (``cstorch.utils.CSConfig``, ``cstorch.amp.use_bfloat16``,
  ``cstorch.manual_seed``, ``backend("CSX", use_cs_grad_accum=...)``, ...): the message names
  the 2.10 replacement;
* **warning** (the file is written): the same imports inside a function, which fail only if the
  function runs; attributes of a mapped module that minitorch_cs does not provide
  (``torch.backends.cudnn``), which raise AttributeError only if the line runs; a third-party
  package a mapped module needs that is not installed (``tensorboardX``);
* **note**: imports guarded by ``try: ... except ImportError:`` (also ``ModuleNotFoundError``,
  ``Exception``, a bare ``except``) or under ``if TYPE_CHECKING:`` — unmappable ones are left as
  they are (a mapped path whose target does not exist is still rewritten, so the guard's
  fallback runs instead of the real package loading), and dynamic imports with a computed name.

A mapped module path is always rewritten, also where it is only a warning or a note, so a script
never loads the real torch next to ours.

Usage: ``python -m minitorch_cs.tools.port SCRIPT [-o OUT] [--force]``. Without ``-o`` the
result goes to stdout. ``-o`` writes atomically (a temporary file in the same directory, then a
rename); it refuses the input itself, an existing file unless ``--force``, and a symbolic link.
"""
from __future__ import annotations

import argparse
import ast
import io
import os
import re
import sys
import tempfile
import tokenize
from dataclasses import dataclass, field

from . import _index

__all__ = ["map_module", "port_source", "port_bytes", "PortError", "PortResult",
           "NEEDS_REAL_TORCH", "HINTS", "LEGACY_20", "main"]

_RULES = [("cerebras_pytorch", "minitorch_cs"), ("cerebras.pytorch", "minitorch_cs"),
          ("cerebras.modelzoo", "minitorch_cs.modelzoo"),
          ("cerebras_appliance", "minitorch_cs.appliance"),
          ("cerebras.appliance", "minitorch_cs.appliance"),
          ("torchvision", "minitorch_cs.torchvision"), ("torch", "minitorch_cs.torch")]

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

#: cerebras_pytorch 2.0 APIs that 2.10 removed (path under ``cerebras.pytorch``) → what replaced
#: them. Model Zoo 2.0.x scripts use these; the 2.10 names are from the 2.10 package.
LEGACY_20 = {
    "utils.CSConfig": "pass a cstorch.distributed.ClusterConfig(...) to "
                      "cstorch.backend(\"CSX\", cluster_config=...)",
    "amp.use_bfloat16": "call cstorch.amp.set_half_dtype(\"bfloat16\")",
    "optim.configure_optimizer": "construct the optimizer class directly, e.g. "
                                 "cstorch.optim.AdamW(model.parameters(), lr=...)",
    "optim.configure_lr_scheduler": "construct the scheduler directly, e.g. "
                                    "cstorch.optim.lr_scheduler.LinearLR(optimizer, ...)",
    "optim.configure_scheduler": "construct the scheduler directly, e.g. "
                                 "cstorch.optim.lr_scheduler.LinearLR(optimizer, ...)",
    "optim.configure_param_groups": "build the param-group dicts yourself and pass them to the "
                                    "optimizer",
    "optim.configure_optimizer_params": "build the param-group dicts yourself and pass them to "
                                        "the optimizer",
    "manual_seed": "call torch.manual_seed(seed)",
    "summarize_scalar": "write with cstorch.utils.tensorboard.SummaryWriter(...).add_scalar(...) "
                        "inside a step closure",
    "summarize_tensor": "write with cstorch.utils.tensorboard.SummaryWriter(...).add_tensor(...) "
                        "inside a step closure",
    "sparse.configure_sparsity_optimizer": "sparsity is cstorch.sparse.configure(...) applied "
                                           "with model.apply / optimizer.apply (not provided by "
                                           "minitorch_cs)",
    "sparse.configure_sparsity_wrapper": "sparsity is cstorch.sparse.configure(...) applied with "
                                         "model.apply / optimizer.apply (not provided by "
                                         "minitorch_cs)",
    "sparse.SparsityWrapperOptimizer": "sparsity is cstorch.sparse.configure(...) applied with "
                                       "model.apply / optimizer.apply (not provided by "
                                       "minitorch_cs)",
    "nn.StripPadding": "it was removed without a replacement",
    "utils.tensor_scalar_dict": "it was removed without a replacement",
    "saver": "checkpoints are written and read with cstorch.save / cstorch.load",
}

#: Keyword arguments 2.0 accepted and 2.10 does not: (call under cerebras.pytorch, kwarg) → use.
LEGACY_KWARGS = {
    ("backend", "use_cs_grad_accum"): "gradient accumulation is the flag "
                                      "cstorch.backends.csx.performance.micro_batch_size "
                                      "(None disables it)",
    ("backend", "micro_batch_size"): "set cstorch.backends.csx.performance.micro_batch_size",
    ("backend", "retrace_every_iteration"): "set "
                                            "cstorch.backends.csx.debug.retrace_every_iteration",
    ("backend", "drop_data"): "set cstorch.backends.csx.debug.drop_data",
    ("backend", "max_checkpoints"): "it was removed (Model Zoo's Checkpoint callback keeps the "
                                    "last N checkpoints)",
    ("backend", "mixed_precision"): "use cstorch.amp.autocast() (CPU) or "
                                    "cstorch.amp.set_half_dtype (CSX)",
    ("utils.data.DataExecutor", "cs_config"): "pass cluster_config=cstorch.distributed."
                                              "ClusterConfig(...) to cstorch.backend(\"CSX\", ...)",
    ("utils.data.DataExecutor", "writer"): "write summaries with a SummaryWriter inside a step "
                                           "closure",
}

#: What a script may do with a transformers object and still only be converting a checkpoint.
_CONVERSION_ATTRS = {"from_pretrained", "save_pretrained", "state_dict", "load_state_dict",
                     "config", "to_dict", "from_dict", "from_json_file", "to_json_file",
                     "named_parameters", "eval"}

_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}
_DYNAMIC = {"import_module", "find_spec", "__import__"}


class PortError(ValueError):
    """Statements the porting rule cannot map; the message lists every offending line."""

    def __init__(self, problems, warnings=(), notes=()):
        self.problems, self.warnings, self.notes = list(problems), list(warnings), list(notes)
        super().__init__("cannot port these lines:\n  " + "\n  ".join(self.problems))


@dataclass
class PortResult:
    """The ported bytes, what changed, and what could not be checked or mapped (by line)."""
    output: bytes
    encoding: str
    rewritten: list = field(default_factory=list)   # (line, old text, new text)
    literals: list = field(default_factory=list)    # (line, old module string, new one)
    warnings: list = field(default_factory=list)
    notes: list = field(default_factory=list)


def map_module(name: str):
    """The minitorch_cs module path for ``name``, or None when the rule does not apply."""
    if name == "cerebras":
        return CEREBRAS_NAMESPACE
    for src, dst in _RULES:
        if name == src or name.startswith(src + "."):
            return dst + name[len(src):]
    return None


def _real_name(name: str) -> str:
    """The 2.10 spelling of a module path (``cerebras_pytorch`` → ``cerebras.pytorch``)."""
    for old, new in (("cerebras_pytorch", "cerebras.pytorch"),
                     ("cerebras_appliance", "cerebras.appliance")):
        if name == old or name.startswith(old + "."):
            return new + name[len(old):]
    return name


def _is_cerebras(name: str) -> bool:
    return name.split(".")[0].startswith("cerebras")


def _legacy(real_path: str):
    """(key, replacement) when ``real_path`` (a cerebras.pytorch path) is a removed 2.0 API."""
    if not real_path.startswith("cerebras.pytorch."):
        return None
    parts = real_path[len("cerebras.pytorch."):].split(".")
    for i in range(1, len(parts) + 1):
        key = ".".join(parts[:i])
        if key in LEGACY_20:
            return key, LEGACY_20[key]
    return None


def _legacy_message(lineno, key, replacement):
    return (f"line {lineno}: 'cstorch.{key}' is cerebras_pytorch 2.0 API; minitorch_cs follows "
            f"cerebras.pytorch 2.10, which removed it: {replacement}")


def _missing(lineno, name, target):
    """Why ``name`` (a real module path) has no counterpart."""
    legacy = _legacy(_real_name(name))
    if legacy:
        return _legacy_message(lineno, *legacy)
    for real, hint in HINTS.items():
        if name == real or name.startswith(real + "."):
            return f"line {lineno}: '{name}' has no minitorch_cs counterpart: {hint}"
    if target is None and _is_cerebras(name):
        return (f"line {lineno}: '{name}' has no minitorch_cs counterpart: minitorch_cs mirrors "
                "cerebras.pytorch (2.0: cerebras_pytorch), cerebras.modelzoo and the logger and "
                "errors of cerebras.appliance")
    where = f" ('{target}' does not exist)" if target else ""
    return f"line {lineno}: module '{name}' has no minitorch_cs counterpart{where}"


class _Source:
    """The script's bytes, decoded, with a map from (line, column) to byte offsets."""

    _NL = re.compile(rb"\r\n|\r|\n")

    def __init__(self, raw: bytes):
        self.raw = raw
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        self.encoding = encoding
        self.bom = 3 if encoding == "utf-8-sig" else 0
        self.codec = "utf-8" if encoding == "utf-8-sig" else encoding
        self.text = raw.decode(encoding)
        starts, pos = [0], 0
        for m in self._NL.finditer(raw):
            starts.append(m.end())
        self.line_starts = starts
        self.lines = re.split(r"\r\n|\r|\n", self.text)

    def char_col(self, lineno: int, byte_col: int) -> int:
        """ast columns are UTF-8 byte offsets into the line; this is the character offset."""
        line = self.lines[lineno - 1]
        return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))

    def offset(self, lineno: int, char_col: int) -> int:
        """Byte offset in the raw file of a (1-based line, character column) position."""
        line = self.lines[lineno - 1]
        bom = self.bom if lineno == 1 else 0
        return self.line_starts[lineno - 1] + bom + len(line[:char_col].encode(self.codec))

    def segment(self, l0, c0, l1, c1) -> str:
        """Text between two (line, character column) positions."""
        if l0 == l1:
            return self.lines[l0 - 1][c0:c1]
        return "\n".join([self.lines[l0 - 1][c0:]] + self.lines[l0:l1 - 1]
                         + [self.lines[l1 - 1][:c1]])


@dataclass
class _Ctx:
    in_function: bool = False
    guard: str | None = None   # "try" (except ImportError) or "TYPE_CHECKING"


def _catches_import_error(handler) -> bool:
    t = handler.type
    if t is None:
        return True
    elts = t.elts if isinstance(t, ast.Tuple) else [t]
    for e in elts:
        name = e.attr if isinstance(e, ast.Attribute) else getattr(e, "id", None)
        if name in _IMPORT_ERRORS:
            return True
    return False


def _is_type_checking(test) -> bool:
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _contexts(tree):
    """{id(node): _Ctx} for every node, and {id(node): parent}."""
    ctxs, parents = {}, {}

    def visit(node, ctx):
        ctxs[id(node)] = ctx
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            inner = _Ctx(True, ctx.guard)
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
                # decorators and defaults run where the def is
                body_part = isinstance(node, ast.Lambda) or any(child is b for b in node.body)
                visit(child, inner if body_part else ctx)
            return
        if isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            guarded = any(_catches_import_error(h) for h in node.handlers)
            body_ctx = _Ctx(ctx.in_function, "try") if guarded else ctx
            for child in node.body:
                parents[id(child)] = node
                visit(child, body_ctx)
            for part in (node.handlers, node.orelse, node.finalbody):
                for child in part:
                    parents[id(child)] = node
                    visit(child, ctx)
            return
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            parents[id(node.test)] = node
            visit(node.test, ctx)
            for child in node.body:
                parents[id(child)] = node
                visit(child, _Ctx(ctx.in_function, "TYPE_CHECKING"))
            for child in node.orelse:
                parents[id(child)] = node
                visit(child, ctx)
            return
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
            visit(child, ctx)

    visit(tree, _Ctx())
    return ctxs, parents


class _Porter:
    def __init__(self, raw: bytes):
        self.src = _Source(raw)
        self.tree = ast.parse(self.src.text)
        self.ctxs, self.parents = _contexts(self.tree)
        self.edits = []      # (l0, c0, l1, c1, new, kind, old)
        self.errors, self.warnings, self.notes = [], [], []
        self.bindings = {}   # name -> real dotted path it is bound to
        self.transformers_names = set()
        self.reported_packages = set()

    # -- reporting -------------------------------------------------------------------------------
    def report(self, node, message, *, guarded_note=None):
        """File ``message`` by where ``node`` is (see the module docstring)."""
        ctx = self.ctxs.get(id(node), _Ctx())
        if ctx.guard == "TYPE_CHECKING":
            self.notes.append(f"{message} (under 'if TYPE_CHECKING:', never run)")
        elif ctx.guard == "try":
            self.notes.append(f"{message} ({guarded_note or 'guarded by try/except ImportError'})")
        elif ctx.in_function:
            self.warnings.append(f"{message} (inside a function: it fails only if that runs)")
        else:
            self.errors.append(message)

    def edit_chars(self, l0, c0, l1, c1, new, kind):
        old = self.src.segment(l0, c0, l1, c1)
        if old != new:
            self.edits.append((l0, c0, l1, c1, new, kind, old))

    def edit_node(self, node, new, kind):
        self.edit_chars(node.lineno, self.src.char_col(node.lineno, node.col_offset),
                        node.end_lineno, self.src.char_col(node.end_lineno, node.end_col_offset),
                        new, kind)

    def check_dependencies(self, node, real, target):
        missing = _index.missing_dependencies(target)
        for pkg, needers in missing.items():
            if pkg in self.reported_packages:
                continue
            self.reported_packages.add(pkg)
            self.warnings.append(
                f"line {node.lineno}: '{real}' ({target}) needs the package '{pkg}', which is not "
                f"installed: pip install {pkg} (needed by {', '.join(sorted(needers)[:3])})")

    def needs_real_torch(self, node, name):
        top = name.split(".")[0]
        if top not in NEEDS_REAL_TORCH:
            return False
        msg = (f"line {node.lineno}: '{name}' needs the real PyTorch (its code runs on torch's "
               "own tensors and C++ kernels); minitorch_cs cannot run it")
        if top == "transformers":
            self.transformers_lines.append((node, msg))
        else:
            self.report(node, msg, guarded_note="left unchanged: if it is installed, it loads "
                                                "the real PyTorch next to minitorch_cs")
        return True

    # -- imports -----------------------------------------------------------------------------------
    def bind(self, name, real):
        self.bindings[name] = _real_name(real)
        if real.split(".")[0] == "transformers":
            self.transformers_names.add(name)

    def do_import(self, node):
        for alias in node.names:
            name = alias.name
            top = name.split(".")[0]
            self.bind(alias.asname or top, name if alias.asname else top)
            if self.needs_real_torch(node, name):
                continue
            target = map_module(name)
            if target is None:
                if _is_cerebras(name):
                    self.report(node, _missing(node.lineno, name, None))
                continue
            if not _index.module_exists(target):
                self.report(node, _missing(node.lineno, name, target),
                            guarded_note="rewritten, so the guard's fallback runs")
            else:
                self.check_dependencies(node, name, target)
            if alias.asname:
                new = f"{target} as {alias.asname}"
            elif "." not in name:
                new = f"{target} as {name}"
            else:  # ``import a.b.c`` binds ``a``: load the target, bind the same top-level name
                new = f"{target}, {map_module(top)} as {top}"
            self.edit_node(alias, new, "import")

    def module_span(self, node):
        """(l0, c0, l1, c1) of the module path in ``from <module> import ...``."""
        l0, c0 = node.lineno, self.src.char_col(node.lineno, node.col_offset)
        l1 = node.end_lineno
        c1 = self.src.char_col(l1, node.end_col_offset)
        text = self.src.segment(l0, c0, l1, c1)
        toks = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type in (tokenize.NAME, tokenize.OP)]
        assert toks[0].string == "from"
        end = next(i for i, t in enumerate(toks) if t.type == tokenize.NAME and t.string == "import")
        first, last = toks[1], toks[end - 1]

        def absolute(pos):
            row, col = pos
            return l0 + row - 1, (c0 + col if row == 1 else col)

        return (*absolute(first.start), *absolute(last.end))

    def do_import_from(self, node):
        if node.level or node.module is None:
            return
        name = node.module
        for alias in node.names:
            if alias.name != "*":
                self.bind(alias.asname or alias.name, f"{name}.{alias.name}")
        if self.needs_real_torch(node, name):
            return
        target = map_module(name)
        if target is None:
            if _is_cerebras(name):
                self.report(node, _missing(node.lineno, name, None))
            return
        if not _index.module_exists(target):
            self.report(node, _missing(node.lineno, name, target),
                        guarded_note="rewritten, so the guard's fallback runs")
        else:
            for alias in node.names:
                if alias.name == "*":
                    continue
                full = f"{name}.{alias.name}"
                sub = f"{target}.{alias.name}"
                if _index.module_exists(sub):
                    self.check_dependencies(node, full, sub)
                    continue
                if _index.provides(target, alias.name):
                    continue
                legacy = _legacy(_real_name(full))
                if legacy:
                    self.report(node, _legacy_message(node.lineno, *legacy))
                elif any(full == r or full.startswith(r + ".") for r in HINTS) or (
                        name == "cerebras"):
                    self.report(node, _missing(node.lineno, full,
                                               None if name == "cerebras" else sub))
                else:
                    self.report(node, f"line {node.lineno}: '{alias.name}' is not provided by "
                                      f"'{target}' (from {name})")
            self.check_dependencies(node, name, target)
        self.edit_chars(*self.module_span(node), target, "import")

    # -- dynamic imports -------------------------------------------------------------------------
    def do_call(self, node):
        f = node.func
        fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
        if fname in _DYNAMIC and node.args:
            self.dynamic_import(node, fname)
        self.legacy_kwargs(node)

    def dynamic_import(self, node, fname):
        arg = node.args[0]
        if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
            self.notes.append(f"line {node.lineno}: {fname}() with a computed module name is not "
                              "checked; if it names torch, cerebras or torchvision it will not "
                              "be ported")
            return
        mod = arg.value
        if mod.startswith("."):
            return
        if mod.split(".")[0] in NEEDS_REAL_TORCH:
            if fname != "find_spec":
                self.report(node, f"line {node.lineno}: dynamic import of '{mod}' needs the real "
                                  "PyTorch; minitorch_cs cannot run it")
            return
        target = map_module(mod)
        if target is None:
            if _is_cerebras(mod):
                if fname == "find_spec":
                    self.notes.append(f"line {node.lineno}: find_spec('{mod}') left unchanged: "
                                      "minitorch_cs has no counterpart")
                else:
                    self.report(node, _missing(node.lineno, mod, None))
            return
        if fname == "__import__":
            self.report(node, f"line {node.lineno}: dynamic import of '{mod}' with __import__ "
                              "cannot be mapped (it returns the top-level package); write it as "
                              "an import statement or importlib.import_module")
            return
        if fname == "import_module" and not _index.module_exists(target):
            self.report(node, _missing(node.lineno, mod, target),
                        guarded_note="rewritten, so the guard's fallback runs")
        seg_l0 = arg.lineno
        c0 = self.src.char_col(arg.lineno, arg.col_offset)
        c1 = self.src.char_col(arg.end_lineno, arg.end_col_offset)
        text = self.src.segment(arg.lineno, c0, arg.end_lineno, c1)
        m = re.fullmatch(r"([rRuU]?)('''|\"\"\"|'|\")([A-Za-z0-9_.]+)\2", text)
        if m is None or m.group(3) != mod:
            self.report(node, f"line {node.lineno}: the module string '{mod}' passed to "
                              f"{fname}() is not a plain literal; write it as '{mod}' so it can "
                              "be rewritten")
            return
        self.edit_chars(seg_l0, c0, arg.end_lineno, c1,
                        f"{m.group(1)}{m.group(2)}{target}{m.group(2)}", "literal")

    # -- attribute uses ---------------------------------------------------------------------------
    def chain(self, node):
        """('root', ['a', 'b']) for ``root.a.b``, else None."""
        attrs = []
        while isinstance(node, ast.Attribute):
            attrs.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name):
            return node.id, attrs[::-1]
        return None

    def resolve(self, node):
        ch = self.chain(node)
        if ch is None or ch[0] not in self.bindings:
            return None
        return ".".join([self.bindings[ch[0]]] + ch[1])

    def do_attribute(self, node):
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.Attribute) and isinstance(parent.ctx, ast.Load):
            return  # only the longest chain read is checked
        if not isinstance(node.ctx, ast.Load):
            return  # ``torch.a.b = ...`` sets ``b``; the chain ``torch.a`` is checked alone
        full = self.resolve(node)
        if full is None:
            return
        legacy = _legacy(full)
        if legacy:
            self.errors.append(_legacy_message(node.lineno, *legacy))
            return
        self.check_attribute(node, full)

    def check_attribute(self, node, full):
        mapped = map_module(full)
        if mapped is None:
            return
        parts = mapped.split(".")
        i = 1
        while i < len(parts) and _index.module_exists(".".join(parts[:i + 1])):
            i += 1
        module = ".".join(parts[:i])
        if i >= len(parts) or not _index.module_exists(module):
            return
        attr = parts[i]
        if _index.provides(module, attr):
            return
        real_module = ".".join(full.split(".")[:len(full.split(".")) - (len(parts) - i)])
        shown = f"{real_module}.{attr}"
        self.warnings.append(f"line {node.lineno}: '{shown}' is not provided by minitorch_cs "
                             f"('{module}' has no '{attr}'); this line raises AttributeError "
                             "when it runs")

    def legacy_kwargs(self, node):
        full = self.resolve(node.func)
        if full is None or not full.startswith("cerebras.pytorch."):
            return
        rel = full[len("cerebras.pytorch."):]
        for kw in node.keywords:
            use = LEGACY_KWARGS.get((rel, kw.arg))
            if use:
                self.errors.append(
                    f"line {node.lineno}: cstorch.{rel}({kw.arg}=...) is cerebras_pytorch 2.0 "
                    f"API; minitorch_cs follows cerebras.pytorch 2.10, which removed it: {use}")

    # -- transformers ----------------------------------------------------------------------------
    def conversion_only(self) -> bool:
        """Whether every use of transformers is loading/saving/reading a model's weights."""
        derived = set()
        uses = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and (
                    node.id in self.transformers_names):
                uses.append(node)
        if not uses:
            return False
        for use in uses:
            parent = self.parents.get(id(use))
            if not (isinstance(parent, ast.Attribute) and parent.attr in _CONVERSION_ATTRS):
                return False
            call = self.parents.get(id(parent))
            assign = self.parents.get(id(call)) if isinstance(call, ast.Call) else None
            if isinstance(assign, ast.Assign):
                derived.update(t.id for t in assign.targets if isinstance(t, ast.Name))
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in derived:
                parent = self.parents.get(id(node))
                if not (isinstance(parent, ast.Attribute) and parent.attr in _CONVERSION_ATTRS):
                    return False
        return True

    # -- driver ----------------------------------------------------------------------------------
    def run(self) -> PortResult:
        self.transformers_lines = []
        imports = [n for n in ast.walk(self.tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
        for node in sorted(imports, key=lambda n: (n.lineno, n.col_offset)):
            (self.do_import if isinstance(node, ast.Import) else self.do_import_from)(node)
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                self.do_call(node)
            elif isinstance(node, ast.Attribute):
                self.do_attribute(node)
        if self.transformers_lines:
            conv = self.conversion_only()
            for node, msg in self.transformers_lines:
                if conv:
                    msg = (f"line {node.lineno}: 'transformers' is imported only to convert a "
                           "checkpoint (from_pretrained / state_dict / save_pretrained), which "
                           "needs the real PyTorch: run the conversion once with the real stack "
                           "and load the converted checkpoint here with cstorch.load")
                self.report(node, msg, guarded_note="left unchanged: if it is installed, it "
                                                    "loads the real PyTorch next to minitorch_cs")
        key = lambda m: int(m.split(":")[0].split()[1])  # noqa: E731
        errors = sorted(dict.fromkeys(self.errors), key=key)
        warnings = sorted(dict.fromkeys(self.warnings), key=key)
        notes = sorted(dict.fromkeys(self.notes), key=key)
        if errors:
            raise PortError(errors, warnings, notes)
        out = bytearray(self.src.raw)
        rewritten, literals = [], []
        for l0, c0, l1, c1, new, kind, old in sorted(self.edits, reverse=True):
            b0, b1 = self.src.offset(l0, c0), self.src.offset(l1, c1)
            out[b0:b1] = new.encode(self.src.codec)
            (literals if kind == "literal" else rewritten).append((l0, old, new))
        return PortResult(bytes(out), self.src.encoding, sorted(rewritten), sorted(literals),
                          warnings, notes)


def port_bytes(raw: bytes) -> PortResult:
    """Port a script given as bytes (any encoding Python accepts); see the module docstring.

    Raises:
        PortError: a statement that cannot be mapped at module level (every one is listed).
        SyntaxError: the script is not valid Python (or declares an unknown encoding).
        UnicodeDecodeError: the bytes do not match the script's declared encoding.
    """
    return _Porter(raw).run()


def port_source(source: str) -> str:
    """Rewrite the imports in ``source`` (a str); raises PortError listing every refused line."""
    return port_bytes(source.encode("utf-8")).output.decode("utf-8")


def _write_atomically(path: str, data: bytes, replace_mode=None) -> None:
    """Write ``data`` to a temporary file next to ``path``, then rename it over ``path``."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if replace_mode is None:
            umask = os.umask(0)
            os.umask(umask)
            replace_mode = 0o666 & ~umask
        os.chmod(tmp, replace_mode)
        os.replace(tmp, path)  # replaces a symlink itself, never its target
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _fail(message) -> int:
    print(message, file=sys.stderr)
    return 2


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m minitorch_cs.tools.port",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("script", help="a Python script written for the real stack")
    p.add_argument("-o", "--output", help="write here (atomically) instead of printing")
    p.add_argument("--force", action="store_true",
                   help="replace OUTPUT if it exists (never the input, never a symbolic link)")
    args = p.parse_args(argv)
    script = args.script
    if os.path.isdir(script):
        return _fail(f"{script}: is a directory, not a script")
    try:
        with open(script, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return _fail(f"{script}: no such file")
    except OSError as e:
        return _fail(f"{script}: cannot read: {e.strerror or e}")
    try:
        result = port_bytes(raw)
    except PortError as e:
        lines = [f"{script}: cannot port these lines (nothing was written):"]
        lines += [f"  {m}" for m in e.problems]
        if e.warnings:
            lines += ["also (these would only be warnings):"] + [f"  {m}" for m in e.warnings]
        return _fail("\n".join(lines))
    except SyntaxError as e:
        return _fail(f"{script}: not valid Python: {e}")
    except (UnicodeDecodeError, LookupError) as e:
        return _fail(f"{script}: cannot decode it with its declared encoding: {e}")

    if args.output:
        out = args.output
        if os.path.islink(out):
            return _fail(f"{out}: is a symbolic link; refusing to write through it (remove it "
                         "or choose another output path)")
        if os.path.isdir(out):
            return _fail(f"{out}: is a directory; give a file path with -o")
        same = os.path.abspath(out) == os.path.abspath(script)
        if not same and os.path.exists(out):
            try:
                same = os.path.samefile(out, script)
            except OSError:
                same = False
        if same:
            return _fail(f"{out}: is the input script; refusing to overwrite it (write the "
                         "ported script to another path)")
        mode = None
        if os.path.exists(out):
            if not args.force:
                return _fail(f"{out}: exists; use --force to replace it")
            mode = os.stat(out).st_mode & 0o7777
        if not os.path.isdir(os.path.dirname(os.path.abspath(out))):
            return _fail(f"{out}: its directory does not exist")
        try:
            _write_atomically(out, result.output, mode)
        except OSError as e:
            return _fail(f"{out}: cannot write: {e.strerror or e} (nothing was changed)")
    else:
        sys.stdout.buffer.write(result.output)
        sys.stdout.flush()

    report = []
    if args.output:
        report.append(f"{script} -> {args.output}: {len(result.rewritten)} import(s) rewritten")
    for line, old, new in result.literals:
        report.append(f"  line {line}: module string {old} -> {new}")
    if result.warnings:
        report.append("warnings:")
        report += [f"  {m}" for m in result.warnings]
    if result.notes:
        report.append("notes:")
        report += [f"  {m}" for m in result.notes]
    if report:
        print("\n".join(report), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
