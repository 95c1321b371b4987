"""Temporary files of ``cstorch.save``: named so that stale ones can be told apart, and cleaned.

A save writes ``"<checkpoint>.<8 hex>.<host tag>-<pid>.tmp"`` in the checkpoint's directory and
holds an exclusive ``flock`` on it from the moment it exists until the checkpoint is published (the
kernel drops the lock when the writer dies, ``kill -9`` included). ``<host tag>`` is 8 hex digits
of a hash of the host name and boot id, ``<pid>`` the writer's process id.

Every save first removes the *stale* temporary files of that directory. A file is stale when all
of these hold, and it is then removed while the lock is held:

1. its name matches the pattern above exactly (the real stack's ``<checkpoint>.<8 hex>.tmp`` and
   anybody else's files never match);
2. it is a regular file (not a symlink) owned by the current user;
3. an exclusive ``flock`` on it is granted at once: no live writer holds it;
4. its writer is known dead: the host tag is this host's and no process ``<pid>`` exists, or
   (another host, another boot, or a reused pid) its last change is older than the moment this
   process imported ``minitorch_cs.storage``.

Condition 3 alone decides on a local file system; 4 protects writers on other hosts when a network
file system does not share ``flock`` between hosts. Each removal is logged as a warning on the
``minitorch_cs.storage`` logger. A filesystem without ``flock`` never has its files removed.
"""
from __future__ import annotations

import errno
import fcntl
import hashlib
import logging
import os
import re
import socket
import stat
import time
import uuid

__all__ = ["TempCheckpointFile", "clean_stale_temp_files", "TEMP_NAME_RE"]

_log = logging.getLogger("minitorch_cs.storage")
_IMPORTED_AT = time.time()

TEMP_NAME_RE = re.compile(r"^(?P<ckpt>.+)\.(?P<rand>[0-9a-f]{8})\.(?P<host>[0-9a-f]{8})"
                          r"-(?P<pid>[1-9][0-9]{0,9})\.tmp$")


def _host_tag() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", "rb") as fh:
            boot = fh.read().strip()
    except OSError:
        boot = b""
    return hashlib.sha256(socket.gethostname().encode() + b"\0" + boot).hexdigest()[:8]


HOST_TAG = _host_tag()


def temp_path_for(path: str) -> str:
    return f"{path}.{uuid.uuid4().hex[:8]}.{HOST_TAG}-{os.getpid()}.tmp"


class TempCheckpointFile:
    """A new temporary file next to ``path``, created exclusively and locked until :meth:`close`.

    ``file`` is a binary file object open for reading and writing (HDF5 writes through it, so it
    never opens the path itself and never takes its own lock on it).
    """

    def __init__(self, path: str):
        for _ in range(8):
            tmp = temp_path_for(path)
            fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                         0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                st = os.fstat(fd)
                try:
                    cur = os.lstat(tmp)
                except FileNotFoundError:
                    cur = None
            except BaseException:
                os.close(fd)
                raise
            if cur is not None and (cur.st_dev, cur.st_ino) == (st.st_dev, st.st_ino):
                break
            # a cleaner removed the file between its creation and our lock: take another name
            os.close(fd)
        else:
            raise OSError(errno.EAGAIN, f"could not create a temporary file next to {path}")
        self.path = tmp
        self.file = os.fdopen(fd, "w+b")

    def close(self):
        """Release the lock (closing the descriptor); the file itself stays."""
        if not self.file.closed:
            self.file.close()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return True
    return True


def clean_stale_temp_files(directory: str) -> list[str]:
    """Remove the stale temporary checkpoint files of ``directory`` (rules in the module
    docstring); returns their paths."""
    removed = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        m = TEMP_NAME_RE.match(entry.name)
        if m is None:
            continue
        path = entry.path
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            continue
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                         | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a live writer holds it, or this file system has no flock
            fst = os.fstat(fd)
            try:
                cur = os.lstat(path)
            except OSError:
                continue
            if (cur.st_dev, cur.st_ino) != (fst.st_dev, fst.st_ino):
                continue
            pid = int(m.group("pid"))
            if m.group("host") == HOST_TAG and not _pid_alive(pid):
                why = f"its writer, process {pid}, is gone"
            elif fst.st_mtime < _IMPORTED_AT:
                why = (f"it was last written at {time.ctime(fst.st_mtime)}, before this process "
                       "started saving, and no process holds it")
            else:
                continue
            try:
                os.unlink(path)
            except OSError:
                continue
            removed.append(path)
            _log.warning("removed the stale temporary checkpoint file %s (%d bytes) left by an "
                         "interrupted save: %s", path, fst.st_size, why)
        finally:
            os.close(fd)
    return removed
