"""Attack 5: orphaned and hostile temporary files next to checkpoints.

A save killed outright leaves ``<name>.<8 hex>.<host>-<pid>.tmp``; the next save in that directory
removes it (and says so on the ``minitorch_cs.storage`` logger). Only files of exactly that pattern,
regular, ours, unlocked and whose writer is known dead are removed: a live writer's file, the real
stack's ``<name>.<8 hex>.tmp``, symlinks, directories and other users' files are never touched.
"""
from __future__ import annotations

import logging
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import minitorch_cs.torch as torch
from minitorch_cs.storage import _tempfiles as T
from minitorch_cs.storage import load, save

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OLD = time.time() - 3600  # an mtime before this process started saving


def _orphan(directory, name="c.mdl", host=None, pid=None, mtime=None, size=100):
    """A temporary file as a killed writer leaves it (no lock held)."""
    host = host or T.HOST_TAG
    pid = pid if pid is not None else _dead_pid()
    p = directory / f"{name}.deadbeef.{host}-{pid}.tmp"
    p.write_bytes(b"\0" * size)
    if mtime is not None:
        os.utime(p, (mtime, mtime))
    return p


def _dead_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # reaped: the pid no longer exists (until the kernel reuses it)
    return child.pid


def _tmp_files(directory):
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_orphan_of_a_dead_writer_is_removed_and_logged(tmp_path, caplog):
    orphan = _orphan(tmp_path)
    pid = orphan.name.rsplit("-", 1)[1][:-4]
    with caplog.at_level(logging.WARNING, logger="minitorch_cs.storage"):
        save({"w": torch.ones(2)}, tmp_path / "d.mdl")
    assert _tmp_files(tmp_path) == []
    assert [r.getMessage() for r in caplog.records] == [
        f"removed the stale temporary checkpoint file {orphan} (100 bytes) left by an interrupted "
        f"save: its writer, process {pid}, is gone"]


def test_orphan_from_another_host_or_boot(tmp_path):
    old = _orphan(tmp_path, name="a.mdl", host="0" * 8, pid=1, mtime=OLD)
    fresh = _orphan(tmp_path, name="b.mdl", host="0" * 8, pid=1)  # might be a live remote writer
    save({"w": torch.ones(2)}, tmp_path / "d.mdl")
    assert not old.exists() and fresh.exists()


def test_a_live_pid_is_trusted_unless_the_file_predates_this_process(tmp_path):
    fresh = _orphan(tmp_path, name="a.mdl", pid=os.getpid())
    old = _orphan(tmp_path, name="b.mdl", pid=os.getpid(), mtime=OLD)  # a reused pid
    save({"w": torch.ones(2)}, tmp_path / "d.mdl")
    assert fresh.exists() and not old.exists()


def test_a_live_writer_keeps_its_file(tmp_path):
    writer = T.TempCheckpointFile(str(tmp_path / "a.mdl"))  # holds the lock, as a save does
    try:
        os.utime(writer.path, (OLD, OLD))
        save({"w": torch.ones(2)}, tmp_path / "d.mdl")
        assert os.path.exists(writer.path)
    finally:
        writer.close()
    save({"w": torch.ones(2)}, tmp_path / "e.mdl")  # lock released, writer (us) alive, file old
    assert not os.path.exists(writer.path)


def test_a_writer_in_another_process_keeps_its_file(tmp_path):
    code = textwrap.dedent(f"""
        import sys, time
        from minitorch_cs.storage import _tempfiles as T
        w = T.TempCheckpointFile({str(tmp_path / 'a.mdl')!r})
        print(w.path, flush=True)
        sys.stdin.readline()
    """)
    env = dict(os.environ, PYTHONPATH=ROOT)
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, env=env)
    try:
        path = child.stdout.readline().strip()
        os.utime(path, (OLD, OLD))
        save({"w": torch.ones(2)}, tmp_path / "d.mdl")
        assert os.path.exists(path)
    finally:
        child.communicate("\n", timeout=60)
    save({"w": torch.ones(2)}, tmp_path / "e.mdl")
    assert not os.path.exists(path)


def test_files_that_are_not_ours_are_never_touched(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    dead = _dead_pid()
    real_stack = tmp_path / "c.mdl.1a2b3c4d.tmp"  # the real stack's pattern: not ours
    real_stack.write_text("x")
    link = tmp_path / f"l.mdl.deadbeef.{T.HOST_TAG}-{dead}.tmp"
    link.symlink_to(victim)
    directory = tmp_path / f"d.mdl.deadbeef.{T.HOST_TAG}-{dead}.tmp"
    directory.mkdir()
    near_misses = [f"c.mdl.deadbeef.{T.HOST_TAG}-{dead}.tmp.bak",
                   f"c.mdl.DEADBEEF.{T.HOST_TAG}-{dead}.tmp", f"c.mdl.deadbee.{T.HOST_TAG}-{dead}.tmp",
                   f"c.mdl.deadbeef.{T.HOST_TAG}-0{dead}.tmp", f".deadbeef.{T.HOST_TAG}-{dead}.tmp"]
    for n in near_misses:
        (tmp_path / n).write_text("x")
    for p in [real_stack, victim] + [tmp_path / n for n in near_misses]:
        os.utime(p, (OLD, OLD))
    save({"w": torch.ones(2)}, tmp_path / "e.mdl")
    assert real_stack.exists() and link.is_symlink() and directory.is_dir()
    assert victim.read_text() == "keep me"
    assert all((tmp_path / n).exists() for n in near_misses)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to create another user's file")
def test_another_users_file_is_not_removed(tmp_path):
    other = _orphan(tmp_path, mtime=OLD)
    os.chown(other, 65534, 65534)
    save({"w": torch.ones(2)}, tmp_path / "d.mdl")
    assert other.exists()


def test_only_the_saving_directory_is_cleaned(tmp_path):
    (tmp_path / "sub").mkdir()
    elsewhere = _orphan(tmp_path / "sub")
    save({"w": torch.ones(2)}, tmp_path / "d.mdl")
    assert elsewhere.exists()


# -- kill -9 at random moments of a save ------------------------------------------------------------
_SAVER = textwrap.dedent("""
    import sys
    import numpy as np
    import minitorch_cs.torch as torch
    from minitorch_cs.storage import save
    seed, path = int(sys.argv[1]), sys.argv[2]
    g = np.random.default_rng(seed)
    tree = {"model": {f"w{i}": torch.tensor(g.standard_normal((128, 256)).astype("f4"))
                      for i in range(48)}, "step": seed, "np": g.standard_normal(1000)}
    print("ready", flush=True)
    sys.stdin.readline()
    save(tree, path)
    print("saved", flush=True)
""")


def _tree(seed):
    import numpy as np
    g = np.random.default_rng(seed)
    return {"model": {f"w{i}": g.standard_normal((128, 256)).astype("f4") for i in range(48)},
            "step": seed, "np": g.standard_normal(1000)}


def _check(path, seed):
    out = load(path, map_location="cpu")
    want = _tree(seed)
    assert out["step"] == seed and (out["np"] == want["np"]).all()
    for k, v in want["model"].items():
        assert out["model"][k].numpy().tobytes() == v.tobytes()  # bit-exact


@pytest.mark.slow
def test_kill_9_during_save_never_loses_the_previous_checkpoint(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT)

    def start(seed, path):
        child = subprocess.Popen([sys.executable, "-c", _SAVER, str(seed), str(path)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        assert child.stdout.readline().strip() == "ready"
        return child

    # the first checkpoint, saved completely; also times a save
    child = start(0, tmp_path / "ckpt_0.mdl")
    t0 = time.monotonic()
    child.stdin.write("\n")
    child.stdin.flush()
    assert child.stdout.readline().strip() == "saved"
    duration = time.monotonic() - t0
    child.wait()
    _check(tmp_path / "ckpt_0.mdl", 0)

    rng = random.Random(20240518)
    latest, killed_mid_save = 0, 0
    for seed in range(1, 9):
        path = tmp_path / f"ckpt_{seed}.mdl"
        child = start(seed, path)
        delay = rng.uniform(0.0, duration * (1.2 if seed % 2 else 0.6))
        child.stdin.write("\n")
        child.stdin.flush()
        if seed % 2 == 0:  # every other trial: a moment after the temporary file appeared
            deadline = time.monotonic() + 60
            while not _tmp_files(tmp_path) and child.poll() is None and time.monotonic() < deadline:
                time.sleep(0.001)
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait()
        orphans = _tmp_files(tmp_path)
        killed_mid_save += bool(orphans)
        if path.exists():  # the save had finished: it is complete
            _check(path, seed)
            latest = seed
        _check(tmp_path / f"ckpt_{latest}.mdl", latest)  # the previous checkpoint always loads
        # the next save in the directory removes what the killed writer left
        save({"marker": seed}, tmp_path / f"next_{seed}.mdl")
        assert _tmp_files(tmp_path) == []
    assert killed_mid_save >= 1  # at least one kill landed during a write
