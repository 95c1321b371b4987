"""Every code block of README.md, SPEC.md and CONFORMANCE.md runs as written.

A block's fence names its language, and the language says how the block is handled:

* ``python`` — run as a script (a fresh interpreter, in an empty temporary directory, with this
  repository on the path); it must exit 0.
* ``sh`` — every command runs in ``bash`` in an empty temporary directory, with ``python`` this
  interpreter and ``minitorch-cs`` the console script; each must exit 0.
* ``console`` — commands too long or too demanding for the test suite (installs, benchmarks,
  the real stack). Each block is listed in :data:`CONSOLE` with how it is checked instead: the
  Quickstart is what ``.ci/run`` runs (checked here: ``.ci/run`` extracts exactly these lines);
  the others are run with ``--help`` appended, which checks that the program exists and accepts
  the arguments shown.
* ``json`` — must parse (the manifest entry of CONFORMANCE.md must be an entry of the manifest).
* ``text`` — program output or a file listing: not run.

A fence without a language, or a ``console`` block missing from :data:`CONSOLE`, fails.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("README.md", "SPEC.md", "CONFORMANCE.md")
LANGUAGES = ("python", "sh", "console", "json", "text")

# (document, first line of the block) -> how the console block is checked
CONSOLE = {
    ("README.md", "python3 -m venv .venv && .venv/bin/pip install -q . && "
                  ".venv/bin/python examples/mnist_custom_loop.py"): "ci",
    ("README.md", "python benchmarks/mlp_step.py            # eager and CSX-replayed MLP step "
                  "vs a hand-written numpy step"): "help",
    ("CONFORMANCE.md", "MINITORCH_CS_REFERENCE_PYTHON=/path/to/python-with-cerebras-pytorch \\"):
        "help",
}


@dataclass
class Block:
    doc: str
    line: int  # of the opening fence
    lang: str
    text: str

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}:{self.lang or 'untagged'}"

    @property
    def first_line(self) -> str:
        return self.text.splitlines()[0] if self.text else ""

    def commands(self):
        """The block's commands: continuation lines joined, blank lines dropped."""
        joined = self.text.replace("\\\n", " ")
        return [c for c in joined.splitlines() if c.strip() and not c.lstrip().startswith("#")]


def blocks(doc):
    lines = (ROOT / doc).read_text().splitlines()
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(.*)$", lines[i])
        if m:
            start, lang, body = i + 1, m.group(1).strip(), []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            out.append(Block(doc, start, lang, "\n".join(body) + "\n"))
        i += 1
    return out


ALL = [b for d in DOCS for b in blocks(d)]


def _of(lang, slow=False):
    marks = [pytest.mark.slow] if slow else []
    return [pytest.param(b, id=b.id, marks=marks) for b in ALL if b.lang == lang]


def _env(tmp_path):
    """PATH with ``python`` (this interpreter) and ``minitorch-cs`` (the console script)."""
    bindir = tmp_path / ".bin"
    bindir.mkdir(exist_ok=True)
    scripts = {"python": f'exec {shlex.quote(sys.executable)} "$@"\n',
               "python3": f'exec {shlex.quote(sys.executable)} "$@"\n',
               "minitorch-cs": f'exec {shlex.quote(sys.executable)} -m minitorch_cs.cli "$@"\n'}
    for name, body in scripts.items():
        path = bindir / name
        path.write_text("#!/usr/bin/env bash\n" + body)
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    env = dict(os.environ)
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH")
                                     else "")
    env["XDG_CACHE_HOME"] = str(tmp_path / ".cache")
    env.pop("MINITORCH_CS_REFERENCE_PYTHON", None)
    return env


def _run(cmd, tmp_path, cwd=None, **kw):
    return subprocess.run(cmd, cwd=cwd or tmp_path, env=_env(tmp_path), capture_output=True,
                          text=True, timeout=600, **kw)


def test_every_block_has_a_known_language():
    bad = [b.id for b in ALL if b.lang not in LANGUAGES]
    assert not bad, f"fences need one of the languages {LANGUAGES}: {bad}"
    assert len(ALL) >= 8  # the parser sees the blocks


@pytest.mark.parametrize("block", _of("python", slow=True))
def test_python_block_runs(block, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    script = work / "block.py"
    script.write_text(block.text)
    r = _run([sys.executable, str(script)], tmp_path, cwd=work)
    assert r.returncode == 0, f"{block.id}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"


@pytest.mark.parametrize("block", _of("sh", slow=True))
def test_sh_block_runs(block, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    for cmd in block.commands():
        r = _run(["bash", "-c", cmd], tmp_path, cwd=work)
        assert r.returncode == 0, f"{block.id}: {cmd}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"


@pytest.mark.parametrize("block", _of("console"))
@pytest.mark.slow
def test_console_block_is_handled(block, tmp_path):
    how = CONSOLE.get((block.doc, block.first_line))
    assert how is not None, (f"{block.id}: a console block must be listed in CONSOLE with how "
                             f"it is checked (first line {block.first_line!r})")
    if how == "ci":
        awk = re.search(r"awk '([^']*)' README\.md", (ROOT / ".ci" / "run").read_text()).group(1)
        r = subprocess.run(["awk", awk, "README.md"], cwd=ROOT, capture_output=True, text=True)
        assert r.stdout.splitlines() == block.commands(), ".ci/run must run exactly this block"
        return
    assert how == "help"
    for cmd in block.commands():
        words = shlex.split(cmd, comments=True)
        n_env = next(i for i, w in enumerate(words) if not re.match(r"^[A-Z_]+=", w))
        line = " ".join(words[:n_env] + [shlex.quote(w) for w in words[n_env:]] + ["--help"])
        r = _run(["bash", "-c", line], tmp_path, cwd=ROOT)  # paths are relative to the repo
        assert r.returncode == 0, f"{block.id}: {line}\n{r.stderr[-3000:]}"
        assert "usage:" in r.stdout


@pytest.mark.parametrize("block", _of("json"))
def test_json_block_parses(block):
    value = json.loads(block.text)
    if block.doc == "CONFORMANCE.md" and "requires" in value:
        manifest = json.loads((ROOT / "minitorch_cs" / "conformance" / "golden" /
                               "manifest.json").read_text())
        entry = next(e for e in manifest["scenarios"] if e["name"] == value["name"])
        assert {k: entry[k] for k in value} == value


@pytest.mark.slow
def test_the_adapter_template_passes_as_an_adapter(tmp_path):
    """CONFORMANCE.md's adapter template, saved as the file it names, passes `check`."""
    section = (ROOT / "CONFORMANCE.md").read_text().split("## Writing an adapter", 1)[1]
    template = next(b for b in ALL if b.doc == "CONFORMANCE.md" and b.lang == "python"
                    and b.text.strip() in section)
    assert "my_stack_conformance.py" in section
    (tmp_path / "my_stack_conformance.py").write_text(template.text)
    r = _run(["minitorch-cs", "conformance", "check", "--impl", "my_stack_conformance.py",
              "--only", "optimizer/", "--only", "executor/checks", "--report", "-", "-q"],
             tmp_path)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "-> OK" in r.stdout
