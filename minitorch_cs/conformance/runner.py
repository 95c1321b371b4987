"""``export`` (write the goldens) and ``check`` (run an implementation against them)."""
from __future__ import annotations

import argparse
import fnmatch
import importlib
import importlib.util
import json
import math
import os
import shutil
import sys
import time
import traceback
from pathlib import Path

from .adapters.base import DATA_DIR
from .catalogue import catalogue
from .compare import compare

__all__ = ["SCHEMA_VERSION", "GOLDEN_DIR", "UsageError", "export", "check", "load_adapter",
           "default_golden_dir", "default_report_path", "main", "dumps"]

SCHEMA_VERSION = 1
#: The goldens, installed with the package (``minitorch_cs/conformance/golden``).
GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
ALIASES = {
    "minitorch_cs": "minitorch_cs.conformance.adapters.minitorch_cs",
    "cerebras.pytorch": "minitorch_cs.conformance.adapters.real_cpu",
    "real-cpu": "minitorch_cs.conformance.adapters.real_cpu",
}
ADAPTER_NAMES = ("conformance_adapter", "ADAPTER", "get_adapter")


# ---------------------------------------------------------------------------------------------
# JSON output: deterministic, repr-precision floats, short arrays on one line
# ---------------------------------------------------------------------------------------------
def _flat(x) -> bool:
    if isinstance(x, list):
        return all(_flat(v) for v in x) and len(json.dumps(x)) <= 2000
    return not isinstance(x, dict)


def dumps(obj, indent=0) -> str:
    """JSON text: dicts one key per line, lists of scalars (or of such lists) on one line.
    Floats are Python's shortest round-trip repr (float64); NaN/Infinity as Python's json."""
    pad = " " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f'{pad} {json.dumps(str(k))}: {dumps(v, indent + 1)}' for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list) and not _flat(obj):
        items = [pad + " " + dumps(v, indent + 1) for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(obj, allow_nan=True)


# ---------------------------------------------------------------------------------------------
# adapters
# ---------------------------------------------------------------------------------------------
class UsageError(Exception):
    """A command-line mistake (unknown adapter, a selection matching nothing, ...): the runner
    prints its one-line message and exits with status 2."""


def load_adapter(spec: str):
    """``MODULE[:ADAPTER]`` or ``FILE.py[:ADAPTER]`` -> an adapter object.

    ``MODULE`` is imported with the current directory on the import path (as ``python -m``
    does), so an adapter file next to you works under the console script too. ``ADAPTER``
    names an attribute of the module (default: the first of ``conformance_adapter``,
    ``ADAPTER``, ``get_adapter``); a class or function is called with no arguments to make the
    adapter.

    Raises:
        UsageError: the module or file does not exist, cannot be imported, has no adapter
            attribute, or making the adapter fails.
    """
    module_name, _, attr = spec.partition(":")
    module_name = ALIASES.get(module_name, module_name)
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise UsageError(f"--impl {spec}: no such file {path}")
            mspec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(mspec)
            sys.modules[path.stem] = module
            mspec.loader.exec_module(module)
        else:
            if "" not in sys.path and os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_name)
    except UsageError:
        raise
    except ModuleNotFoundError as e:
        if e.name and module_name.split(".")[0] == e.name.split(".")[0] and \
                module_name.startswith(e.name):
            raise UsageError(f"--impl {spec}: no module named {e.name!r} (give an importable "
                             f"MODULE[:ADAPTER] or a FILE.py; aliases: "
                             f"{', '.join(ALIASES)})") from None
        raise UsageError(f"--impl {spec}: importing {module_name} failed: {e}") from e
    except Exception as e:  # noqa: BLE001 - the adapter module itself is broken
        raise UsageError(f"--impl {spec}: importing {module_name} failed: "
                         f"{type(e).__name__}: {_first_line(e)}") from e
    names = [attr] if attr else [n for n in ADAPTER_NAMES if hasattr(module, n)]
    if not names or not hasattr(module, names[0]):
        raise UsageError(f"--impl {spec}: {module_name} has no adapter attribute "
                         f"{attr or ' / '.join(ADAPTER_NAMES)} (see CONFORMANCE.md, "
                         f"'Writing an adapter')")
    obj = getattr(module, names[0])
    if not hasattr(obj, "run_many") or isinstance(obj, type):
        try:
            obj = obj()
        except Exception as e:  # noqa: BLE001 - e.g. the reference interpreter is not set
            raise UsageError(f"--impl {spec}: making the adapter failed: "
                             f"{type(e).__name__}: {_first_line(e)}") from e
    return obj


def _first_line(e) -> str:
    lines = str(e).strip().splitlines()
    return lines[0] if lines else ""


def default_golden_dir() -> Path:
    return GOLDEN_DIR


def default_report_path(adapter) -> Path:
    """Where ``check`` writes its JSON report unless told: the user's cache directory
    (``$XDG_CACHE_HOME`` or ``~/.cache``), ``minitorch_cs/conformance/<adapter>-report.json``,
    so a check never litters the working directory."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    label = str(getattr(adapter, "id", None) or getattr(adapter, "name", "adapter"))
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in label) or "adapter"
    return Path(base) / "minitorch_cs" / "conformance" / f"{safe}-report.json"


# ---------------------------------------------------------------------------------------------
# export
# ---------------------------------------------------------------------------------------------
def export(out_dir, only=None, adapter=None, log=None) -> list:
    """Run every scenario on minitorch_cs and write ``<name>.json`` files, the scenario input
    files under ``data/`` and ``manifest.json``. Returns the manifest entries."""
    from .. import __version__ as cstorch_version
    if adapter is None:
        from .adapters.minitorch_cs import MinitorchCsAdapter
        adapter = MinitorchCsAdapter()
    out = Path(out_dir)
    scenarios = [s for s in catalogue() if _selected(s.name, only)]
    if not scenarios:
        raise UsageError(f"--only {' --only '.join(only or [])} selects no scenario; "
                         f"`list` shows their names")
    items = [{"name": s.name, "family": s.family, "inputs": s.inputs} for s in scenarios]
    outcomes = dict(adapter.run_many(items))
    entries = []
    for s in scenarios:
        o = outcomes[s.name]
        if "trace" not in o:
            raise RuntimeError(f"scenario {s.name} did not run on minitorch_cs: "
                               f"{o.get('error') or o.get('unsupported')}\n{o.get('detail', '')}")
        entry = s.manifest_entry()
        entry["tolerance"] = resolve_tolerance(s.tolerance, o["trace"])
        doc = {"schema_version": SCHEMA_VERSION, **entry,
               "description": s.description, "inputs": s.inputs, "expected": o["trace"]}
        path = out / s.file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dumps(doc) + "\n")
        entries.append(entry)
        if log:
            log(f"wrote {path}")
    data = out / "data"
    data.mkdir(parents=True, exist_ok=True)
    for f in sorted(DATA_DIR.glob("*.mdl")):
        shutil.copyfile(f, data / f.name)
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "generator": "minitorch_cs conformance export",
        "cstorch_api_version": cstorch_version,
        "tolerance_rule": "|got - expected| <= atol + rtol * |expected| for floats; "
                          "everything else exact",
        "features": ["family:" + f for f in sorted({s.family for s in catalogue()})] +
                    ["backend:CPU", "backend:CSX", "rng:minitorch_cs"],
        "data_files": sorted(f.name for f in DATA_DIR.glob("*.mdl")),
        "scenarios": entries,
    }
    (out / "manifest.json").write_text(dumps(manifest) + "\n")
    return entries


def _floats(x):
    if isinstance(x, dict):
        for v in x.values():
            yield from _floats(v)
    elif isinstance(x, list):
        for v in x:
            yield from _floats(v)
    elif isinstance(x, float) and math.isfinite(x):
        yield x


def resolve_tolerance(tol, expected) -> dict:
    """``{"rtol", "atol"}``; an ``atol_scale`` becomes ``atol = atol_scale * max |float|`` of the
    expected trace (rounded to 2 significant digits), so the goldens state plain numbers."""
    out = {"rtol": float(tol.get("rtol", 0.0)), "atol": float(tol.get("atol", 0.0))}
    if "atol_scale" in tol:
        biggest = max((abs(v) for v in _floats(expected)), default=0.0)
        out["atol"] = max(out["atol"], float(f"{tol['atol_scale'] * biggest:.2g}"))
    return out


def _selected(name, only):
    return not only or any(fnmatch.fnmatchcase(name, p) or name.startswith(p) for p in only)


# ---------------------------------------------------------------------------------------------
# check
# ---------------------------------------------------------------------------------------------
def check(adapter, golden_dir=None, only=None, report_path=None, out=None, verbose=True):
    """Run every supported scenario of ``golden_dir`` on ``adapter`` and compare.

    The table goes to ``out`` (default ``sys.stdout``; ``False`` prints nothing) and the JSON
    report to ``report_path`` (if given).
    Returns ``(ok, report)``: ``ok`` is True when every supported scenario passed.
    """
    golden = Path(golden_dir or default_golden_dir())
    manifest = json.loads((golden / "manifest.json").read_text())
    if manifest.get("schema_version") != SCHEMA_VERSION:
        raise SystemExit(f"golden schema version {manifest.get('schema_version')} is not "
                         f"{SCHEMA_VERSION}: re-export the goldens")
    features = set(adapter.features)
    results, docs, items = [], {}, []
    start = time.perf_counter()
    for entry in manifest["scenarios"]:
        if not _selected(entry["name"], only):
            continue
        missing = [r for r in entry["requires"] if r not in features]
        if missing:
            results.append({"name": entry["name"], "status": "unsupported",
                            "reason": "adapter lacks " + ", ".join(missing)})
            continue
        doc = json.loads((golden / entry["file"]).read_text())
        docs[entry["name"]] = doc
        results.append({"name": entry["name"], "status": None})
        items.append({"name": doc["name"], "family": doc["family"], "inputs": doc["inputs"]})
    if not results:
        raise UsageError(f"--only {' --only '.join(only)} selects no scenario of {golden}; "
                         f"`list` shows their names" if only else f"{golden} has no scenarios")
    by_name = {r["name"]: r for r in results}
    for name, outcome in adapter.run_many(items):
        doc, r = docs[name], by_name[name]
        tol = doc["tolerance"]
        r["tolerance"] = tol
        if "unsupported" in outcome:
            r.update(status="unsupported", reason=outcome["unsupported"])
        elif "error" in outcome:
            r.update(status="error", error=outcome["error"], detail=outcome.get("detail", ""))
        else:
            c = compare(outcome["trace"], doc["expected"], tol["rtol"], tol["atol"])
            r.update(status="passed" if c.ok else "failed", worst_abs_error=c.worst_abs,
                     worst_rel_error=c.worst_rel, worst_at=c.worst_path,
                     mismatch_count=c.count,
                     mismatches=[{"path": p, "message": m} for p, m in c.mismatches])
            if not c.ok:
                r["observed"] = outcome["trace"]
        known = doc.get("known_differences", {}).get(getattr(adapter, "id", None))
        if known and r["status"] in ("failed", "error"):
            r.update(status="known-diff", reason=known)
    for r in results:
        if r["status"] is None:
            r.update(status="error", error="the adapter returned no outcome")
    counts = {k: sum(r["status"] == k for r in results)
              for k in ("passed", "failed", "error", "known-diff", "unsupported")}
    ok = counts["failed"] == 0 and counts["error"] == 0
    report = {"schema_version": SCHEMA_VERSION, "adapter": getattr(adapter, "name", "?"),
              "adapter_id": getattr(adapter, "id", None),
              "features": sorted(features), "golden_dir": str(golden), "ok": ok,
              "summary": counts, "seconds": round(time.perf_counter() - start, 2),
              "scenarios": results}
    if out is not False:
        _print_table(report, out if out is not None else sys.stdout, verbose)
    if report_path:
        report_path = Path(report_path)
        report_path.parent.mkdir(parents=True, exist_ok=True)
        report_path.write_text(dumps(report) + "\n")
        if out is not False:
            (out if out is not None else sys.stdout).write(f"report: {report_path}\n")
    return ok, report


def _print_table(report, out, verbose):
    rows = report["scenarios"]
    width = max([len(r["name"]) for r in rows] + [8])
    w = out.write
    w(f"conformance check: {report['adapter']} against {report['golden_dir']}\n")
    w(f"{'scenario':<{width}}  {'status':<11}  {'worst abs err':>13}  {'tolerance'}\n")
    for r in rows:
        if not verbose and r["status"] == "passed":
            continue
        err = f"{r['worst_abs_error']:.3g}" if "worst_abs_error" in r else ""
        tol = r.get("tolerance")
        tol_s = f"rtol={tol['rtol']:g} atol={tol['atol']:g}" if tol else ""
        extra = ""
        if r["status"] in ("unsupported", "known-diff"):
            extra = r.get("reason", "")[:100]
        elif r["status"] == "error":
            extra = r.get("error", "")
        w(f"{r['name']:<{width}}  {r['status']:<11}  {err:>13}  {extra or tol_s}\n")
    for r in rows:
        if r["status"] == "failed":
            w(f"\nFAILED {r['name']} ({r['mismatch_count']} mismatches):\n")
            w("\n".join(f"  {m['path']}: {m['message']}" for m in r["mismatches"]) + "\n")
            if r["mismatch_count"] > len(r["mismatches"]):
                w(f"  ... and {r['mismatch_count'] - len(r['mismatches'])} more\n")
        elif r["status"] == "error":
            w(f"\nERROR {r['name']}: {r['error']}\n")
            if r.get("detail"):
                w("  " + r["detail"].strip().replace("\n", "\n  ")[-1500:] + "\n")
    c = report["summary"]
    w(f"\n{c['passed']} passed, {c['failed']} failed, {c['error']} errors, "
      f"{c['known-diff']} known differences, {c['unsupported']} unsupported in {report['seconds']} s -> "
      f"{'OK' if report['ok'] else 'FAILED'}\n")


# ---------------------------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------------------------
def main(argv=None, prog="python -m minitorch_cs.conformance") -> int:
    """The command line; returns the exit status (0 OK, 1 a scenario failed or errored, 2 a
    usage error). Errors are one line on stderr (``--debug`` adds the traceback)."""
    p = argparse.ArgumentParser(
        prog=prog,
        description="Golden traces of the cstorch API and a runner that checks an "
                    "implementation against them (CONFORMANCE.md).")
    p.add_argument("--debug", action="store_true", help="print tracebacks of errors")
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export", help="write every scenario's golden JSON and the manifest")
    e.add_argument("dir", help="output directory")
    e.add_argument("--only", action="append", help="scenario name prefix or glob (repeatable)")
    c = sub.add_parser("check", help="run an implementation against the goldens")
    c.add_argument("--impl", required=True,
                   help="MODULE[:ADAPTER] or FILE.py[:ADAPTER]; aliases: minitorch_cs, "
                        "cerebras.pytorch (real-cpu)")
    c.add_argument("--golden", help="golden directory (default: the goldens installed with "
                                    "minitorch_cs)")
    c.add_argument("--report", default=None,
                   help="JSON report path ('-' for none; default: "
                        "~/.cache/minitorch_cs/conformance/<adapter>-report.json)")
    c.add_argument("--only", action="append", help="scenario name prefix or glob (repeatable)")
    c.add_argument("-q", "--quiet", action="store_true", help="list only scenarios not passed")
    sub.add_parser("list", help="list the scenarios of the catalogue")
    args = p.parse_args(argv)
    try:
        return _run(args)
    except UsageError as err:
        if args.debug:
            traceback.print_exc()
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2


def _run(args) -> int:
    if args.command == "export":
        entries = export(args.dir, only=args.only)
        print(f"exported {len(entries)} scenarios to {args.dir}")
        return 0
    if args.command == "list":
        for s in catalogue():
            print(f"{s.name:<55} {','.join(s.backends):<8} {s.description}")
        return 0
    golden = Path(args.golden) if args.golden else default_golden_dir()
    if not (golden / "manifest.json").is_file():
        raise UsageError(f"no manifest.json in {golden}: pass --golden DIR (a directory made "
                         f"by `export DIR`)")
    adapter = load_adapter(args.impl)
    report = None if args.report == "-" else (
        Path(args.report) if args.report else default_report_path(adapter))
    ok, _ = check(adapter, golden, only=args.only, report_path=report,
                  verbose=not args.quiet)
    return 0 if ok else 1
