"""The adapter protocol, and two ready-made adapters to build on.

An adapter is any object with

* ``name`` — a short label for the report;
* ``features`` — the set of features it supports (``family:<family>``, ``backend:CPU``,
  ``backend:CSX``, ``rng:minitorch_cs``); a scenario runs only when all its ``requires`` are in
  this set, otherwise it is reported *unsupported*;
* ``run_many(items)`` — ``items`` is a list of ``{"name", "family", "inputs"}``; it yields one
  ``(name, outcome)`` per item, where ``outcome`` is ``{"trace": <plain JSON>}``,
  ``{"unsupported": "<reason>"}`` or ``{"error": "<one line>", "detail": "<traceback>"}``.

:class:`ProgramAdapter` implements ``run_many`` for a Python implementation with a
cstorch-like API: give it the implementation's ``cerebras.pytorch`` and ``torch`` namespaces (and,
optionally, a backend factory or a ``reset``), and it runs the scenario programs of
:mod:`..programs` on them.
:class:`SubprocessAdapter` runs the programs in another interpreter through a JSON driver (the
real-stack adapter is one); an implementation in another language can speak the same protocol
(CONFORMANCE.md, "The subprocess protocol").
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

from .. import programs

__all__ = ["ALL_FAMILIES", "ProgramAdapter", "SubprocessAdapter", "DATA_DIR", "PROGRAMS_FILE",
           "reusing_backend_factory"]

ALL_FAMILIES = frozenset(f"family:{f}" for f in programs.FAMILIES)
DATA_DIR = Path(__file__).resolve().parents[1] / "data"
PROGRAMS_FILE = Path(programs.__file__).resolve()


def reusing_backend_factory(cstorch):
    """The default backend factory: one backend per process, as on the real stack.

    The first scenario creates it with ``cstorch.backend(kind, artifact_dir=...)``; later
    scenarios of the same kind get that backend again (found with the public
    ``cstorch.current_backend(raise_exception=False)``). A scenario needing the other kind is
    reported *unsupported* (a backend cannot be replaced without a reset).
    """
    def factory(kind, artifact_dir):
        current = cstorch.current_backend(raise_exception=False)
        if current is None:
            return cstorch.backend(kind, artifact_dir=artifact_dir)
        have = getattr(getattr(current, "backend_type", None), "name", str(current))
        if have == kind:
            return current
        raise programs.Unsupported(
            f"this process already has a {have} backend and cannot create a {kind} one (one "
            f"backend per process); give ProgramAdapter a reset= to run both kinds in one "
            f"process, or check the {kind} scenarios in a run of their own with --only")
    return factory


class ProgramAdapter:
    """Runs the scenario programs in this interpreter on a cstorch-like implementation.

    Args:
        name: label for the report.
        cstorch: the implementation's ``cerebras.pytorch`` namespace.
        torch: its ``torch`` namespace.
        backend_factory: ``factory(kind, artifact_dir) -> backend`` (see ``programs.Env``).
            Default: :func:`reusing_backend_factory` (one backend per process, reused).
        features: supported features (default: every family on CPU).
        cleanup: optional callable run after each scenario.
        reset: optional callable that drops the implementation's backend singleton and
            restores its global state (flags, seed). Given, it runs before each scenario's
            backend is made and after each scenario, so every scenario gets a fresh backend of
            the kind it asks for (CPU and CSX scenarios in one process).
    """

    def __init__(self, name, cstorch, torch, backend_factory=None, features=None, cleanup=None,
                 reset=None):
        self.name = name
        self.cstorch = cstorch
        self.torch = torch
        factory = backend_factory or reusing_backend_factory(cstorch)
        if reset is not None:
            def fresh(kind, artifact_dir, _make=factory):
                reset()
                return _make(kind, artifact_dir)
            factory = fresh
        self._factory = factory
        self.features = frozenset(features if features is not None
                                  else ALL_FAMILIES | {"backend:CPU"})
        cleanups = [c for c in (cleanup, reset) if c is not None]
        self._cleanup = (lambda: [c() for c in cleanups]) if cleanups else None

    def run_many(self, items):
        tmp_root = tempfile.mkdtemp(prefix="cs_conformance_")
        try:
            for item in items:
                yield item["name"], self.run_one(item, tmp_root)
        finally:
            shutil.rmtree(tmp_root, ignore_errors=True)

    def run_one(self, item, tmp_root=None):
        scratch = tempfile.mkdtemp(prefix="scenario_", dir=tmp_root)
        env = programs.Env(self.cstorch, self.torch,
                           lambda kind: self._factory(kind, Path(scratch) / "artifacts"),
                           data_dir=DATA_DIR, tmp_root=scratch)
        try:
            return {"trace": programs.run(env, item["family"], item["inputs"])}
        except programs.Unsupported as e:
            return {"unsupported": str(e)}
        except Exception as e:  # noqa: BLE001 - reported per scenario
            return {"error": f"{type(e).__name__}: {e}".splitlines()[0][:300],
                    "detail": traceback.format_exc()}
        finally:
            if self._cleanup is not None:
                self._cleanup()


class SubprocessAdapter:
    """Runs scenarios in another interpreter: ``command + [request.json]``.

    The request file holds ``{"programs": <path of programs.py>, "data_dir": <dir>,
    "scenarios": [{"name", "family", "inputs"}, ...]}``; the driver prints one JSON object per
    line, ``{"name": ..., <outcome keys>}``, in order. If the process dies, the scenario it was
    running is reported as an error with the end of its stderr and the rest are run again in a
    new process.
    """

    def __init__(self, name, command, features, env=None, timeout=1800):
        self.name = name
        self.command = list(command)
        self.features = frozenset(features)
        self.env = env
        self.timeout = timeout

    def run_many(self, items):
        pending = list(items)
        while pending:
            done = yield from self._run_batch(pending)
            pending = pending[done:]

    def _run_batch(self, items):
        with tempfile.TemporaryDirectory(prefix="cs_conformance_req_") as d:
            req = Path(d) / "request.json"
            req.write_text(json.dumps({"programs": str(PROGRAMS_FILE), "data_dir": str(DATA_DIR),
                                       "scenarios": items}))
            env = dict(os.environ if self.env is None else self.env)
            proc = subprocess.Popen(self.command + [str(req)], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, env=env, cwd=d)
            stderr_chunks = []
            import threading
            t = threading.Thread(target=lambda: stderr_chunks.append(proc.stderr.read()),
                                 daemon=True)
            t.start()
            done = 0
            for line in proc.stdout:
                if not line.startswith("{"):
                    continue
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if msg.get("name") != items[done]["name"]:
                    continue
                outcome = {k: v for k, v in msg.items() if k != "name"}
                yield msg["name"], outcome
                done += 1
                if done == len(items):
                    break
            proc.stdout.close()
            try:
                proc.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            t.join(timeout=5)
            if done < len(items):
                tail = "".join(stderr_chunks)[-2000:]
                yield items[done]["name"], {
                    "error": f"the driver process exited with status {proc.returncode} while "
                             "running this scenario", "detail": tail}
                done += 1
            return done


def python_command(python, driver):
    """``[python, driver]`` with a check that the interpreter exists."""
    if not (shutil.which(python) or Path(python).exists()):
        raise FileNotFoundError(f"reference interpreter not found: {python}")
    return [python, str(driver)]


def this_python():
    return sys.executable
