"""Attack 4: a tiny file declaring a huge tensor must fail before anything is allocated.

Each bomb is loaded in a fresh interpreter that reports its peak resident memory
(``resource.getrusage``) before and after the attempt: the peak may not grow by more than
``RSS_SLACK``. The error type and message are asserted exactly.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import zipfile

import h5py
import numpy as np
import pytest

import minitorch_cs.torch as torch
from minitorch_cs.storage import load, save

from ._craft import torch_zip, view_pickle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RSS_SLACK = 64 * 2**20  # bytes


def _attempt(code: str) -> dict:
    """Run ``code`` (which must raise) in a new interpreter; its error and peak-RSS growth."""
    script = textwrap.dedent('''
        import json, resource, sys
        import numpy, h5py
        import minitorch_cs
        from minitorch_cs import storage, torch
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        try:
        {body}
        except BaseException as e:
            err = [type(e).__name__, str(e)]
        else:
            err = None
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        print(json.dumps({{"error": err, "growth": after - before}}))
    ''').format(body=textwrap.indent(textwrap.dedent(code), "    "))
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def _declared(path, shape, dtype="f4", metadata_shape=None, **create):
    """A checkpoint whose tensor leaf "w" is a dataset of ``shape`` created without its data."""
    save({"w": torch.zeros(2)}, path)
    with h5py.File(path, "a") as f:
        attrs = dict(f["w"].attrs)
        del f["w"]
        d = f.create_dataset("w", shape=shape, dtype=dtype, **create)
        d.attrs.update(attrs)
        md = json.loads(f.attrs["w.__metadata__"])
        md["w.__metadata__"]["shapes"] = [list(metadata_shape or shape)]
        f.attrs["w.__metadata__"] = json.dumps(md)
    return d


def _load_code(path, mode):
    if mode == "cpu":
        return f"storage.load({str(path)!r}, map_location='cpu')"
    return f"storage.load({str(path)!r})['w'].sum()"


@pytest.mark.parametrize("mode", ["cpu", None])
def test_tiny_mdl_declaring_4_gb(tmp_path, mode):
    p = tmp_path / "bomb.mdl"
    _declared(p, (2**30,))
    assert os.path.getsize(p) < 10_000  # the 8.5 KB file of the report
    r = _attempt(_load_code(p, mode))
    assert r["error"] == ["RuntimeError",
                          f"Failed to load checkpoint file `{p}`: leaf 'w' is refused: dataset 'w' "
                          "declares 4294967296 bytes (shape (1073741824,), 4-byte items) but the "
                          "file stores 0 bytes of data for it"]
    assert r["growth"] < RSS_SLACK, r


def test_tiny_mdl_declaring_4_tib(tmp_path):
    p = tmp_path / "bomb.mdl"
    _declared(p, (2**40,))
    r = _attempt(_load_code(p, "cpu"))
    assert r["error"] == ["RuntimeError",
                          f"Failed to load checkpoint file `{p}`: leaf 'w' is refused: dataset 'w' "
                          "declares 4398046511104 bytes (shape (1099511627776,), 4-byte items) but "
                          "the file stores 0 bytes of data for it"]
    assert r["growth"] < RSS_SLACK, r


def test_chunked_dataset_with_missing_chunks(tmp_path):
    p = tmp_path / "bomb.mdl"
    _declared(p, (2**30,), chunks=(2**20,), compression="gzip")
    with h5py.File(p, "a") as f:
        f["w"][: 2**20] = 1.0  # one chunk of 1024 stored
    r = _attempt(_load_code(p, "cpu"))
    assert r["error"] == ["RuntimeError",
                          f"Failed to load checkpoint file `{p}`: leaf 'w' is refused: dataset 'w' "
                          "declares 4294967296 bytes (shape (1073741824,), 4-byte items) in 1024 "
                          "chunks, but the file stores 1 of them (the others would read as fill "
                          "values)"]
    assert r["growth"] < RSS_SLACK, r


def test_compressed_chunk_larger_than_its_filter_can_produce(tmp_path):
    p = tmp_path / "bomb.mdl"
    _declared(p, (2**26,), chunks=(2**26,), compression="gzip")
    with h5py.File(p, "a") as f:
        f["w"].id.write_direct_chunk((0,), b"x\x9c\x03\x00\x00\x00\x00\x01")  # 8 bytes of deflate
    r = _attempt(_load_code(p, "cpu"))
    assert r["error"] == ["RuntimeError",
                          f"Failed to load checkpoint file `{p}`: leaf 'w' is refused: dataset 'w' "
                          "declares 268435456 bytes (shape (67108864,), 4-byte items): its chunk at "
                          "(0,) stores 8 bytes, which deflate cannot decode to the chunk's "
                          "268435456 bytes"]
    assert r["growth"] < RSS_SLACK, r


def test_lz4_chunk_header_declaring_more_than_the_chunk(tmp_path, monkeypatch):
    from minitorch_cs.storage import load as LOAD
    monkeypatch.setattr(sys.modules["minitorch_cs.storage.load"], "_lz4_plugin_available",
                        lambda: False)
    p = tmp_path / "c.mdl"
    _declared(p, (4,), chunks=(4,), compression=32004, allow_unknown_filter=True)
    header = (2**40).to_bytes(8, "big") + (2**30).to_bytes(4, "big")
    block = b"\x00\x00\x00\x10" + b"\x00" * 16
    with h5py.File(p, "a") as f:
        f["w"].id.write_direct_chunk((0,), header + block)
    with pytest.raises(RuntimeError) as ei:
        LOAD(p, map_location="cpu")
    assert str(ei.value) == (f"Failed to load checkpoint file `{p}`: leaf 'w' cannot be read "
                             "(ValueError: LZ4 chunk header declares 1099511627776 bytes, the chunk "
                             "holds 16)")


def test_metadata_shape_bigger_than_the_dataset(tmp_path):
    p = tmp_path / "c.mdl"
    save({"w": torch.zeros(2)}, p)
    with h5py.File(p, "a") as f:
        md = json.loads(f.attrs["w.__metadata__"])
        md["w.__metadata__"]["shapes"] = [[2**40]]
        f.attrs["w.__metadata__"] = json.dumps(md)
    lazy = load(p)["w"]
    assert lazy.shape == (2**40,)  # shape from the metadata, as in the real stack: nothing read
    with pytest.raises(ValueError, match=r"dataset 'w' has shape \(2,\), its metadata says "
                                         r"\(1099511627776,\)"):
        lazy.sum()


def test_legitimately_compressed_data_still_loads(tmp_path):
    # zeros compress about 1000:1 with deflate and 88:1 with lzf, the formats' limits: accepted
    p = tmp_path / "c.mdl"
    save({"a": torch.zeros(2), "b": torch.zeros(2)}, p)
    with h5py.File(p, "a") as f:
        for name, comp in (("a", "gzip"), ("b", "lzf")):
            attrs = dict(f[name].attrs)
            del f[name]
            f.create_dataset(name, data=np.zeros(2**21, "f4"), chunks=(2**20,), compression=comp,
                             shuffle=True).attrs.update(attrs)
            md = json.loads(f.attrs[f"{name}.__metadata__"])
            md[f"{name}.__metadata__"]["shapes"] = [[2**21]]
            f.attrs[f"{name}.__metadata__"] = json.dumps(md)
    out = load(p, map_location="cpu")
    assert out["a"].shape == (2**21,) and float(out["a"].sum()) == 0.0
    assert float(out["b"].abs().sum()) == 0.0


def test_torch_zip_expanded_view_beyond_memory(tmp_path):
    # stride 0 makes a 2**40-element view of a 4-byte storage: torch returns a view, minitorch_cs
    # would copy it; refused with the CPU allocator's message before allocating
    pkl, st = view_pickle(np.ones(1, np.float32), 0, (2**40,), (0,))
    torch_zip(tmp_path / "x.pt", pkl, {"data/0": st[0].array.tobytes()})
    r = _attempt(f"torch.load({str(tmp_path / 'x.pt')!r})")
    assert r["error"][0] == "RuntimeError"
    assert r["error"][1].startswith("DefaultCPUAllocator: can't allocate memory: you tried to "
                                    "allocate 4398046511104 bytes for a tensor of size "
                                    "[1099511627776], but only ")
    assert r["error"][1].endswith(" bytes are available. Error code 12 (Cannot allocate memory)")
    assert r["growth"] < RSS_SLACK, r


def test_torch_zip_deflated_pickle_bomb(tmp_path):
    # data.pkl declaring 4 GB in a few hundred deflated bytes: refused without inflating
    pkl, st = view_pickle(np.ones(4, np.float32), 0, (4,), (1,))
    torch_zip(tmp_path / "x.pt", pkl, {"data/0": st[0].array.tobytes()},
              compress={"data.pkl": zipfile.ZIP_DEFLATED})
    from .test_torch_zip import _patch_central_size
    _patch_central_size(tmp_path / "x.pt", "archive/data.pkl", 2**32 - 1)
    r = _attempt(f"torch.load({str(tmp_path / 'x.pt')!r})")
    assert r["error"][0] == "RuntimeError"
    assert r["error"][1].startswith(("PytorchStreamReader failed reading file data.pkl: the record "
                                     "declares 4294967295 bytes, more than its ",
                                     "DefaultCPUAllocator: can't allocate memory"))
    assert r["growth"] < RSS_SLACK, r
