"""``max_checkpoints``: CheckpointRetention keeps the newest N checkpoints that saves reported."""
from __future__ import annotations

import logging
import os
import sys

import pytest

import minitorch_cs.torch as torch
from minitorch_cs.storage import load, save
from minitorch_cs.storage.retention import CheckpointRetention

SAVE = sys.modules["minitorch_cs.storage.save"]


def test_keeps_the_newest_n(tmp_path, caplog):
    r = CheckpointRetention(2)
    with caplog.at_level(logging.INFO, logger="minitorch_cs.storage"):
        for step in range(5):
            p = tmp_path / f"checkpoint_{step}.mdl"
            save({"step": step}, p)
            removed = r.saved(p)
            assert removed == ([str(tmp_path / f"checkpoint_{step - 2}.mdl")] if step >= 2 else [])
    assert sorted(os.listdir(tmp_path)) == ["checkpoint_3.mdl", "checkpoint_4.mdl"]
    assert r.checkpoints == [str(tmp_path / "checkpoint_3.mdl"), str(tmp_path / "checkpoint_4.mdl")]
    assert load(tmp_path / "checkpoint_4.mdl") == {"step": 4}
    assert [m.getMessage() for m in caplog.records] == [
        f"deleted the checkpoint {tmp_path / f'checkpoint_{i}.mdl'}: max_checkpoints=2 keeps only "
        "the newest" for i in range(3)]


def test_none_keeps_everything(tmp_path):
    r = CheckpointRetention()
    for step in range(4):
        save({"step": step}, tmp_path / f"c{step}.mdl")
        assert r.saved(tmp_path / f"c{step}.mdl") == []
    assert len(os.listdir(tmp_path)) == 4 and repr(r) == "CheckpointRetention(max_checkpoints=None)"


def test_never_deletes_what_it_did_not_write(tmp_path):
    r = CheckpointRetention(1)
    (tmp_path / "mine.mdl").write_text("not through the retention")
    save({"a": 1}, tmp_path / "a.mdl")
    r.saved(tmp_path / "a.mdl")
    # the user replaced a.mdl by another file, then removed b.mdl: neither is touched
    os.unlink(tmp_path / "a.mdl")
    (tmp_path / "a.mdl").write_text("the user's own file")
    save({"b": 1}, tmp_path / "b.mdl")
    assert r.saved(tmp_path / "b.mdl") == []
    os.unlink(tmp_path / "b.mdl")
    save({"c": 1}, tmp_path / "c.mdl")
    assert r.saved(tmp_path / "c.mdl") == []
    assert sorted(os.listdir(tmp_path)) == ["a.mdl", "c.mdl", "mine.mdl"]
    assert (tmp_path / "a.mdl").read_text() == "the user's own file"


def test_save_reports_to_the_backends_retention(tmp_path, monkeypatch):
    r = CheckpointRetention(2)
    monkeypatch.setattr(SAVE, "_retention", lambda: r)
    for step in range(4):
        save({"w": torch.full((2,), float(step))}, tmp_path / f"checkpoint_{step}.mdl")
    assert sorted(os.listdir(tmp_path)) == ["checkpoint_2.mdl", "checkpoint_3.mdl"]


def test_without_retention_save_keeps_everything(tmp_path):
    assert SAVE._retention() is None  # no backend has one yet
    for step in range(3):
        save({"step": step}, tmp_path / f"c{step}.mdl")
    assert len(os.listdir(tmp_path)) == 3


@pytest.mark.parametrize("bad,err", [(0, ValueError), (-1, ValueError), (True, TypeError),
                                     (2.0, TypeError), ("3", TypeError)])
def test_validation(bad, err):
    with pytest.raises(err, match="max_checkpoints must be None or a positive int"):
        CheckpointRetention(bad)
