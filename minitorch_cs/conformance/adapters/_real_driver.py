"""Driver run *inside the reference interpreter* (one with the real cerebras-pytorch 2.10).

Usage: ``$MINITORCH_CS_REFERENCE_PYTHON _real_driver.py REQUEST.json``. It never imports
minitorch_cs: it loads the scenario programs from the path given in the request and runs them
with the real ``cerebras.pytorch`` and the ``torch`` module that stack loads (this file ships inside
minitorch_cs, which never imports torch: it takes the real stack's own torch from
``sys.modules``). One JSON line per scenario goes to
stdout (``{"name", "trace"}``, ``{"name", "unsupported"}`` or ``{"name", "error", "detail"}``);
everything else the real stack prints goes to stderr.
"""
import contextlib
import importlib
import importlib.util
import json
import sys
import tempfile
import traceback
from pathlib import Path


def main(argv):
    req = json.loads(Path(argv[1]).read_text())
    spec = importlib.util.spec_from_file_location("cs_conformance_programs", req["programs"])
    programs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(programs)
    out = sys.stdout
    sys.stdout = sys.stderr  # keep the protocol channel clean of the stack's own prints
    cstorch = importlib.import_module("cerebras.pytorch")
    torch = sys.modules["torch"]  # loaded by cerebras.pytorch, which is built on it
    root = Path(tempfile.mkdtemp(prefix="cs_real_conformance_"))
    state = {}

    def factory(kind):
        if kind != "CPU":
            raise programs.Unsupported("the real CSX backend needs a Wafer-Scale Cluster")
        if "backend" not in state:
            state["backend"] = cstorch.backend("CPU", artifact_dir=root / "artifacts")
        return state["backend"]

    for item in req["scenarios"]:
        env = programs.Env(cstorch, torch, factory, data_dir=req.get("data_dir"),
                           tmp_root=str(root))
        try:
            torch.manual_seed(0)
            result = {"trace": programs.run(env, item["family"], item["inputs"])}
        except programs.Unsupported as e:
            result = {"unsupported": str(e)}
        except Exception as e:  # noqa: BLE001
            result = {"error": f"{type(e).__name__}: {e}".splitlines()[0][:300],
                      "detail": traceback.format_exc()}
        with contextlib.suppress(BrokenPipeError):
            out.write(json.dumps({"name": item["name"], **result}) + "\n")
            out.flush()


if __name__ == "__main__":
    main(sys.argv)
