"""Attack 3: a crafted ``.mdl`` must not read anything outside itself.

HDF5 can keep a dataset's raw bytes in another file (external storage), map it from datasets of
other files (virtual datasets) and link names to other files (external links) or other paths (soft
links). Each is refused, eagerly and lazily, naming the dataset and why; the secret's content never
reaches a tensor or a message.
"""
from __future__ import annotations

import os

import h5py
import numpy as np
import pytest

import minitorch_cs.torch as torch
from minitorch_cs.storage import load, save

SECRET = b"root:x:0:0:TOP-SECRET-CONTENT:/root:/bin/bash\n"
OUTSIDE = "minitorch_cs reads data only from the checkpoint file itself"


@pytest.fixture
def secret(tmp_path):
    p = tmp_path / "secret.txt"
    p.write_bytes(SECRET)
    return p


def _replace_w(path, make):
    """Save ``{"w": uint8 tensor}`` then replace dataset ``w`` with ``make(f, attrs)``."""
    save({"w": torch.zeros(len(SECRET), dtype=torch.uint8), "v": torch.ones(2)}, path)
    with h5py.File(path, "a") as f:
        attrs = dict(f["w"].attrs)
        del f["w"]
        make(f, attrs)


def _assert_refused(path, why):
    for mode in ("cpu", None, "cache"):
        try:
            out = load(path, map_location=mode)
        except RuntimeError as e:
            assert mode == "cpu"
            msg = str(e)
        else:
            assert mode != "cpu"  # deferred: the refusal comes at the first access
            assert out["v"].tolist() == [1.0, 1.0]  # the rest of the file loads
            with pytest.raises(RuntimeError) as ei:
                out["w"].tolist()
            msg = str(ei.value)
        assert msg == f"Failed to load checkpoint file `{path}`: leaf 'w' is refused: {why}"
        assert b"TOP-SECRET" not in msg.encode()


def test_external_raw_storage(tmp_path, secret):
    def make(f, attrs):
        d = f.create_dataset("w", shape=(len(SECRET),), dtype="u1",
                             external=[(str(secret), 0, len(SECRET))])
        d.attrs.update(attrs)
    _replace_w(tmp_path / "c.mdl", make)
    _assert_refused(tmp_path / "c.mdl", f"dataset 'w' keeps its raw data in the external file(s) "
                                        f"[{str(secret)!r}]; {OUTSIDE}")


def test_external_raw_storage_etc_passwd(tmp_path):
    if not os.path.exists("/etc/passwd"):
        pytest.skip("no /etc/passwd")
    n = min(os.path.getsize("/etc/passwd"), 64)

    def make(f, attrs):
        d = f.create_dataset("w", shape=(n,), dtype="u1", external=[("/etc/passwd", 0, n)])
        d.attrs.update(attrs)
    save({"w": torch.zeros(n, dtype=torch.uint8)}, tmp_path / "c.mdl")
    with h5py.File(tmp_path / "c.mdl", "a") as f:
        attrs = dict(f["w"].attrs)
        del f["w"]
        make(f, attrs)
    with pytest.raises(RuntimeError) as ei:
        load(tmp_path / "c.mdl", map_location="cpu")
    assert "['/etc/passwd']" in str(ei.value) and "root:" not in str(ei.value)


def test_external_link(tmp_path, secret):
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as g:
        g["w"] = np.frombuffer(SECRET, dtype="u1")
    _replace_w(tmp_path / "c.mdl", lambda f, a: f.__setitem__("w", h5py.ExternalLink(other, "/w")))
    _assert_refused(tmp_path / "c.mdl", f"'w' is an external link to '/w' in the file "
                                        f"{str(other)!r}; {OUTSIDE}")


def test_external_link_on_an_intermediate_group(tmp_path):
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as g:
        g["grp/w"] = np.frombuffer(SECRET, dtype="u1")
    save({"g/w": torch.zeros(4)}, tmp_path / "c.mdl")  # the key's "/" makes a group "g"
    with h5py.File(tmp_path / "c.mdl", "a") as f:
        del f["g"]
        f["g"] = h5py.ExternalLink(other, "/grp")
    with pytest.raises(RuntimeError) as ei:
        load(tmp_path / "c.mdl", map_location="cpu")
    assert str(ei.value) == (f"Failed to load checkpoint file `{tmp_path / 'c.mdl'}`: leaf 'g/w' is "
                             f"refused: 'g' is an external link to '/grp' in the file "
                             f"{str(other)!r}; {OUTSIDE}")


def test_soft_link(tmp_path):
    _replace_w(tmp_path / "c.mdl", lambda f, a: f.__setitem__("w", h5py.SoftLink("/v")))
    _assert_refused(tmp_path / "c.mdl", "'w' is a soft link to '/v'; checkpoint datasets are read "
                                        "only through hard links")


def test_virtual_dataset(tmp_path):
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as g:
        g["w"] = np.frombuffer(SECRET, dtype="u1")

    def make(f, attrs):
        layout = h5py.VirtualLayout(shape=(len(SECRET),), dtype="u1")
        layout[:] = h5py.VirtualSource(str(other), "w", shape=(len(SECRET),))
        f.create_virtual_dataset("w", layout).attrs.update(attrs)
    _replace_w(tmp_path / "c.mdl", make)
    _assert_refused(tmp_path / "c.mdl", f"dataset 'w' is a virtual dataset mapping 'w' of file "
                                        f"{str(other)!r}; {OUTSIDE}")


def test_a_plain_checkpoint_still_loads(tmp_path):
    save({"w": torch.arange(4.0)}, tmp_path / "c.mdl")
    assert load(tmp_path / "c.mdl")["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
