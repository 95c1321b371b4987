"""A save that fails or is killed never leaves a checkpoint that loads as good."""
from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

import minitorch_cs.torch as torch
from minitorch_cs.storage import load, save

SAVE = sys.modules["minitorch_cs.storage.save"]


def _tree():
    return {"model": {f"w{i}": torch.full((64, 64), float(i)) for i in range(8)},
            "np": np.arange(100.0), "obj": np.float32(2.0), "step": 5}


def _check_tree(out):
    assert [out["model"][f"w{i}"][0, 0].item() for i in range(8)] == [float(i) for i in range(8)]
    assert out["np"].tolist() == list(np.arange(100.0)) and out["step"] == 5


@pytest.mark.parametrize("after", [0, 1, 5, 9])
def test_exception_mid_write_leaves_nothing(tmp_path, monkeypatch, after):
    real = SAVE._write_dataset
    calls = []

    def failing(*args):
        if len(calls) == after:
            raise OSError(28, "No space left on device")
        calls.append(args[1])
        return real(*args)

    monkeypatch.setattr(SAVE, "_write_dataset", failing)
    p = tmp_path / "c.mdl"
    with pytest.raises(OSError, match="No space left"):
        save(_tree(), p)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(FileNotFoundError):
        load(p)


def test_keyboard_interrupt_mid_write(tmp_path, monkeypatch):
    def interrupt(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(SAVE, "_write_dataset", interrupt)
    with pytest.raises(KeyboardInterrupt):
        save(_tree(), tmp_path / "c.mdl")
    assert list(tmp_path.iterdir()) == []


def test_failure_at_publish_leaves_nothing(tmp_path, monkeypatch):
    def boom(*a):
        raise OSError("rename failed")

    monkeypatch.setattr(SAVE, "_publish", boom)
    with pytest.raises(OSError):
        save(_tree(), tmp_path / "c.mdl")
    assert list(tmp_path.iterdir()) == []


def test_lost_race_for_the_path(tmp_path, monkeypatch):
    # another writer creates the path while we write: we do not replace its file
    p = tmp_path / "c.mdl"
    real = SAVE._fsync

    def racer(tmp):
        real(tmp)
        p.write_text("the other writer's checkpoint")

    monkeypatch.setattr(SAVE, "_fsync", racer)
    with pytest.raises(FileExistsError):
        save(_tree(), p)
    assert p.read_text() == "the other writer's checkpoint"
    assert [q.name for q in tmp_path.iterdir()] == ["c.mdl"]


# -- SIGKILL at every stage of the write (forked child, so no cleanup code can run) -----------------
def _kill_self():
    os.kill(os.getpid(), signal.SIGKILL)


def _install_hook(stage, n):
    if stage == "dataset":
        real = SAVE._write_dataset
        count = [0]

        def hook(*args):
            if count[0] == n:
                _kill_self()
            count[0] += 1
            return real(*args)
        SAVE._write_dataset = hook
    elif stage in ("metadata", "success"):
        real_set = h5py.AttributeManager.__setitem__
        real_update = h5py.AttributeManager.update

        def setitem(self, name, value):
            if stage == "success" and name == "__SUCCESS__":
                _kill_self()
            return real_set(self, name, value)

        def update(self, other=(), **kw):
            keys = list(dict(other, **kw))
            if stage == "metadata" and any(k.endswith(".__metadata__") for k in keys):
                # die half-way through the metadata attributes
                for k in keys[: len(keys) // 2]:
                    real_set(self, k, dict(other)[k])
                _kill_self()
            return real_update(self, other, **kw)
        h5py.AttributeManager.__setitem__ = setitem
        h5py.AttributeManager.update = update
    elif stage == "before_publish":
        real_fsync = SAVE._fsync

        def fsync(path):
            real_fsync(path)
            _kill_self()
        SAVE._fsync = fsync
    elif stage == "before_unlink":  # the final name exists, the tmp one is not removed yet
        real_unlink = os.unlink

        def unlink(path, *a, **k):
            if str(path).endswith(".tmp"):
                _kill_self()
            return real_unlink(path, *a, **k)
        os.unlink = unlink


def _save_in_killed_child(path, stage, n=0):
    pid = os.fork()
    if pid == 0:  # child
        try:
            _install_hook(stage, n)
            save(_tree(), path)
        finally:
            os._exit(3)  # not killed: the hook did not fire
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.parametrize("stage,n", [("dataset", 0), ("dataset", 4), ("dataset", 9),
                                     ("metadata", 0), ("success", 0), ("before_publish", 0),
                                     ("before_unlink", 0)])
def test_sigkill_never_leaves_a_good_looking_partial_checkpoint(tmp_path, stage, n):
    p = tmp_path / "c.mdl"
    _save_in_killed_child(p, stage, n)
    tmps = [q for q in tmp_path.iterdir() if q.name.endswith(".tmp")]
    assert len(tmps) == 1 and tmps[0].name.startswith("c.mdl.")
    if stage == "before_unlink":
        _check_tree(load(p, map_location="cpu"))  # the final file was complete when it appeared
        return
    with pytest.raises(FileNotFoundError):
        load(p)
    # the temporary file either is refused or (killed after it was complete) holds the full tree
    if stage == "before_publish":
        _check_tree(load(tmps[0], map_location="cpu"))
    else:
        # datasets are flushed one by one: a kill between them leaves a readable partial file;
        # a kill while the final attributes are written may leave an unreadable one
        match = "partially written" if stage == "dataset" else "partially written|Failed to load"
        with pytest.raises(RuntimeError, match=match):
            load(tmps[0], map_location="cpu")
    # a later save to the same path works
    save(_tree(), p)
    _check_tree(load(p))


def test_partial_tmp_has_no_metadata_until_the_end(tmp_path):
    p = tmp_path / "c.mdl"
    _save_in_killed_child(p, "dataset", 5)
    (tmp,) = [q for q in tmp_path.iterdir()]
    with h5py.File(tmp, "r") as f:
        assert set(f.attrs) == {"__spec__", "__version__", "__cstorch_version__"}
    with pytest.raises(RuntimeError) as ei:
        load(tmp)
    assert str(ei.value) == f"Cannot load partially written checkpoint at {tmp}."
