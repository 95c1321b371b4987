"""The committed goldens are exactly what the code exports, and exporting is deterministic."""
import filecmp
import json
from pathlib import Path

import pytest

from minitorch_cs.conformance import SCHEMA_VERSION, catalogue, compare, export
from minitorch_cs.conformance.runner import GOLDEN_DIR


def _files(root: Path):
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    a = tmp_path_factory.mktemp("export_a")
    export(a)
    return a


@pytest.mark.slow
def test_export_is_byte_identical_twice(exported, tmp_path):
    export(tmp_path)
    assert _files(exported) == _files(tmp_path)
    diff = [f for f in _files(exported)
            if (exported / f).read_bytes() != (tmp_path / f).read_bytes()]
    assert diff == []


def test_committed_goldens_match_the_code(exported):
    """Fails when code and goldens disagree: re-export with
    ``python -m minitorch_cs.conformance export minitorch_cs/conformance/golden`` after an intended change.

    Every committed document must equal the fresh export; floats may differ by a few float32
    ulps (rtol 5e-7), so another BLAS or libm on the same code does not count as a change."""
    assert _files(GOLDEN_DIR) == _files(exported), "scenario set changed: re-export the goldens"
    out_of_date = []
    for f in _files(exported):
        if not f.endswith(".json"):
            assert filecmp.cmp(GOLDEN_DIR / f, exported / f, shallow=False), f
            continue
        c = compare(json.loads((exported / f).read_text()),
                    json.loads((GOLDEN_DIR / f).read_text()), rtol=5e-7, atol=0.0)
        if not c.ok:
            out_of_date.append(f"{f}:\n{c.diff_text()}")
    assert not out_of_date, "goldens out of date:\n" + "\n".join(out_of_date[:5])


def test_manifest_lists_every_scenario_with_tolerance_and_backends():
    manifest = json.loads((GOLDEN_DIR / "manifest.json").read_text())
    assert manifest["schema_version"] == SCHEMA_VERSION
    names = [e["name"] for e in manifest["scenarios"]]
    assert names == [s.name for s in catalogue()]
    for e in manifest["scenarios"]:
        assert set(e["tolerance"]) == {"rtol", "atol"}
        assert e["backends"] and set(e["backends"]) <= {"CPU", "CSX"}
        assert e["csx_only"] == ("CPU" not in e["backends"])
        doc = json.loads((GOLDEN_DIR / e["file"]).read_text())
        assert doc["name"] == e["name"] and doc["tolerance"] == e["tolerance"]
        assert "inputs" in doc and "expected" in doc
    families = {e["family"] for e in manifest["scenarios"]}
    assert families == {"scheduler", "optimizer", "executor", "training", "lazy_init",
                        "checkpoint", "cstorch_nn"}
    csx_only = {e["family"] for e in manifest["scenarios"] if e["csx_only"]}
    assert "lazy_init" in csx_only and "training" in csx_only


def test_catalogue_covers_every_scheduler_and_optimizer():
    import minitorch_cs.optim as optim
    from minitorch_cs.optim import lr_scheduler, weight_decay_scheduler
    text = json.dumps([s.inputs for s in catalogue()])
    for name in optim.__all__:
        obj = getattr(optim, name)
        if isinstance(obj, type) and issubclass(obj, optim.Optimizer) and obj is not optim.Optimizer:
            assert f'"class": "{name}"' in text, name
    for mod in (lr_scheduler, weight_decay_scheduler):
        for name in mod.__all__:
            if name.endswith(("LR", "WD", "Scheduler")) and name not in {
                    "LRScheduler", "WeightDecayScheduler", "Scheduler"}:
                assert f'"{name}"' in text, name
    assert any(s.name == "scheduler/lr/seed002" for s in catalogue())


def test_floats_round_trip_float64(exported):
    """Numbers are written with repr precision: parsing gives back the exact float64."""
    doc = json.loads((exported / "scheduler/lr/seed002.json").read_text())
    text = (exported / "scheduler/lr/seed002.json").read_text()
    for row in doc["expected"]["values"][:50]:
        for v in row:
            assert repr(v) in text
