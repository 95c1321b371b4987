"""Attack 2 (and the zip half of 4): ``torch.load`` of crafted zips.

Views are checked against their storage with PyTorch 2.13's checks and messages (an out-of-bounds
view used to return heap memory, a huge stride to crash the interpreter); records must hold exactly
what the pickle declares; the zip directory cannot make the loader read or inflate more than the
file holds.
"""
from __future__ import annotations

import io
import os
import pickle
import zipfile

import numpy as np
import pytest

import minitorch_cs.torch as torch

from ._craft import torch_zip, view_pickle

STORAGE = np.arange(4, dtype=np.float32)

# (offset, size, stride) -> (error type, message) or the values torch 2.13 returns
VIEWS = {
    "past the end": ((0, (5,), (1,)), RuntimeError, "Trying to resize storage that is not resizable"),
    "offset past the end": ((3, (2,), (1,)), RuntimeError,
                            "Trying to resize storage that is not resizable"),
    "negative offset": ((-1, (2,), (1,)), RuntimeError, "Tensor: invalid storage offset -1"),
    "huge stride": ((0, (2,), (2**40,)), RuntimeError,
                    "Trying to resize storage that is not resizable"),
    "negative stride": ((3, (2,), (-1,)), RuntimeError,
                        "Storage size calculation overflowed with sizes=[2] and strides=[-1]"),
    "negative size": ((0, (-2,), (1,)), RuntimeError, "numel: integer multiplication overflow"),
    "numel overflow": ((0, (2**31, 2**31, 4), (1, 1, 1)), RuntimeError,
                       "numel: integer multiplication overflow"),
    "offset overflow": ((2**61, (1,), (1,)), RuntimeError,
                        "Storage size calculation overflowed with sizes=[1] and strides=[1]"),
    "stride overflow": ((0, (3,), (2**62,)), RuntimeError,
                        "Storage size calculation overflowed with sizes=[3] and "
                        "strides=[4611686018427387904]"),
    "rank mismatch": ((0, (2, 3), (1,)), RuntimeError,
                      "unequal size length (2) and stride length (1)"),
    "float offset": ((1.5, (1,), (1,)), TypeError,
                     "set_() received an invalid combination of arguments - got "
                     "(torch.storage.UntypedStorage, float, tuple, tuple), but expected one of:"),
    "stride beyond int64": ((0, (1,), (2**64,)), TypeError,
                            "set_(): argument 'stride' failed to unpack the object at pos 1 with "
                            "error \"Overflow when unpacking long long"),
}
OK_VIEWS = {  # accepted by torch 2.13, with these values
    "empty with any stride": ((0, (0,), (2**60,)), []),
    "empty past the end": ((100, (0,), (1,)), []),
    "scalar at the last element": ((3, (), ()), 3.0),
    "size-1 dim, negative stride": ((0, (1,), (-5,)), [0.0]),
    "broadcast": ((0, (2, 2), (0, 0)), [[0.0, 0.0], [0.0, 0.0]]),
    "strided": ((1, (2,), (2,)), [1.0, 3.0]),
}


def _zip(path, offset, size, stride, storage=STORAGE):
    pkl, st = view_pickle(storage, offset, size, stride)
    torch_zip(path, pkl, {"data/0": st[0].array.tobytes()})


@pytest.mark.parametrize("case", sorted(VIEWS))
@pytest.mark.parametrize("weights_only", [True, False])
def test_views_outside_their_storage_are_refused(tmp_path, case, weights_only):
    (offset, size, stride), typ, message = VIEWS[case]
    _zip(tmp_path / "x.pt", offset, size, stride)
    with pytest.raises(typ) as ei:
        torch.load(tmp_path / "x.pt", weights_only=weights_only)
    assert str(ei.value).splitlines()[0] == message.splitlines()[0]


@pytest.mark.parametrize("case", sorted(OK_VIEWS))
def test_views_torch_accepts_load_with_its_values(tmp_path, case):
    (offset, size, stride), values = OK_VIEWS[case]
    _zip(tmp_path / "x.pt", offset, size, stride)
    assert torch.load(tmp_path / "x.pt")["x"].tolist() == values


def test_messages_equal_pytorch_2_13(tmp_path):
    real = pytest.importorskip("torch")
    for case, ((offset, size, stride), *_) in {**VIEWS, **OK_VIEWS}.items():
        _zip(tmp_path / "x.pt", offset, size, stride)
        outcomes = []
        for lib in (torch, real):
            try:
                outcomes.append(("ok", lib.load(tmp_path / "x.pt")["x"].tolist()))
            except Exception as e:  # noqa: BLE001
                outcomes.append((type(e).__name__, str(e).splitlines()[0]))
        assert outcomes[0] == outcomes[1], case


def test_weights_only_refusals_equal_pytorch_2_13(tmp_path):
    real = pytest.importorskip("torch")

    class Print:
        def __reduce__(self):
            return (print, ("x",))

    class System:
        def __reduce__(self):
            return (os.system, ("true",))

    for obj in (Print(), System()):
        torch_zip(tmp_path / "x.pt", pickle.dumps({"x": obj}, protocol=2), {})
        msgs = []
        for lib in (torch, real):
            with pytest.raises(pickle.UnpicklingError) as ei:
                lib.load(tmp_path / "x.pt")
            msgs.append(str(ei.value))
        assert msgs[0] == msgs[1]


def test_record_smaller_than_declared(tmp_path):
    pkl, st = view_pickle(STORAGE, 0, (4,), (1,))
    torch_zip(tmp_path / "x.pt", pkl, {"data/0": STORAGE.tobytes()[:8]})
    with pytest.raises(RuntimeError) as ei:
        torch.load(tmp_path / "x.pt")
    assert str(ei.value) == ("record size (8 bytes) does not match expected size (16 bytes = 16 "
                             "elements * 1 bytes/element) for dtype Byte")


def test_huge_declared_storage_with_a_small_record(tmp_path):
    # the persistent id declares 2**40 elements: refused from the zip directory, nothing allocated
    pkl, _ = view_pickle(STORAGE, 0, (4,), (1,))
    pkl = pkl.replace(b"K\x04t", b"\x8a\x06\x00\x00\x00\x00\x00\x01t", 1)  # numel 4 -> 2**40
    torch_zip(tmp_path / "x.pt", pkl, {"data/0": STORAGE.tobytes()})
    with pytest.raises(RuntimeError) as ei:
        torch.load(tmp_path / "x.pt")
    assert str(ei.value) == ("record size (16 bytes) does not match expected size (4398046511104 "
                             "bytes = 4398046511104 elements * 1 bytes/element) for dtype Byte")


def test_missing_record(tmp_path):
    pkl, _ = view_pickle(STORAGE, 0, (4,), (1,))
    torch_zip(tmp_path / "x.pt", pkl, {})
    with pytest.raises(RuntimeError) as ei:
        torch.load(tmp_path / "x.pt")
    assert str(ei.value).startswith("PytorchStreamReader failed locating file data/0: file not "
                                    "found. This is an internal miniz error.")


def test_unsupported_compression(tmp_path):
    pkl, st = view_pickle(STORAGE, 0, (4,), (1,))
    torch_zip(tmp_path / "x.pt", pkl, {"data/0": STORAGE.tobytes()},
              compress={"data/0": zipfile.ZIP_BZIP2})
    with pytest.raises(RuntimeError) as ei:
        torch.load(tmp_path / "x.pt")
    assert str(ei.value).startswith("PytorchStreamReader failed retrieving file meta-data for "
                                    "data/0: unsupported method. This is an internal miniz error.")


def test_deflated_records_load_like_torch(tmp_path):
    pkl, st = view_pickle(STORAGE, 0, (4,), (1,))
    torch_zip(tmp_path / "x.pt", pkl, {"data/0": STORAGE.tobytes()},
              compress={"data/0": zipfile.ZIP_DEFLATED, "data.pkl": zipfile.ZIP_DEFLATED})
    assert torch.load(tmp_path / "x.pt")["x"].tolist() == [0.0, 1.0, 2.0, 3.0]


def _patch_central_size(path, name, file_size):
    """Rewrite the uncompressed size of ``name`` in the zip's central directory."""
    data = bytearray(path.read_bytes())
    pos = data.find(b"PK\x01\x02")
    while pos != -1:
        n = int.from_bytes(data[pos + 28:pos + 30], "little")
        if data[pos + 46:pos + 46 + n].decode() == name:
            data[pos + 24:pos + 28] = file_size.to_bytes(4, "little")
            path.write_bytes(bytes(data))
            return
        pos = data.find(b"PK\x01\x02", pos + 4)
    raise AssertionError(f"{name} not in the central directory")


def test_deflate_bomb_is_refused_before_inflating(tmp_path):
    # a deflated record declaring more bytes than deflate can produce from its compressed size
    pkl, st = view_pickle(STORAGE, 0, (4,), (1,))
    torch_zip(tmp_path / "x.pt", pkl, {"data/0": STORAGE.tobytes()},
              compress={"data/0": zipfile.ZIP_DEFLATED, "data.pkl": zipfile.ZIP_DEFLATED})
    with zipfile.ZipFile(tmp_path / "x.pt") as z:
        comp = z.getinfo("archive/data.pkl").compress_size
    _patch_central_size(tmp_path / "x.pt", "archive/data.pkl", 2**30)
    with pytest.raises(RuntimeError) as ei:
        torch.load(tmp_path / "x.pt")
    # refused by the deflate ratio, or (on a machine with less than 1 GiB free) by the allocator
    assert str(ei.value).startswith(
        ("PytorchStreamReader failed reading file data.pkl: the record declares 1073741824 bytes, "
         f"more than its {comp} stored bytes can hold (a zip bomb or a corrupted file).",
         "DefaultCPUAllocator: can't allocate memory: you tried to allocate 1073741824 bytes"))


def test_overlapping_entries_are_refused(tmp_path):
    # 64 storage records that all point at the same bytes: a zip bomb without compression
    n = 64
    big = np.zeros(2**16, dtype=np.float32)
    pkl, st = view_pickle(big, 0, (2**16,), (1,))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", pkl)
        z.writestr("archive/data/0", big.tobytes())
    raw = bytearray(buf.getvalue())
    # duplicate the central directory entry of data/0 under the names data/1 .. data/n-1
    cd_start = raw.find(b"PK\x01\x02")
    end = raw.find(b"PK\x05\x06")
    entries = raw[cd_start:end]
    pos = entries.find(b"archive/data/0") - 46
    entry = bytes(entries[pos:pos + 46 + len(b"archive/data/0")])
    extra = b"".join(entry[:-1] + str(i % 10).encode() for i in range(1, n))
    new_cd = bytes(entries) + extra
    eocd = bytearray(raw[end:])
    eocd[8:10] = eocd[10:12] = (2 + n - 1).to_bytes(2, "little")
    eocd[12:16] = len(new_cd).to_bytes(4, "little")
    (tmp_path / "x.pt").write_bytes(bytes(raw[:cd_start]) + new_cd + bytes(eocd))
    with pytest.raises(RuntimeError) as ei:
        torch.load(tmp_path / "x.pt")
    assert str(ei.value).startswith("PytorchStreamReader failed reading zip archive: its ")
    assert "entries overlap (a zip bomb or a corrupted file)" in str(ei.value)


def test_big_endian_records_are_byteswapped(tmp_path):
    pkl, st = view_pickle(STORAGE, 0, (4,), (1,))
    with zipfile.ZipFile(tmp_path / "x.pt", "w") as z:
        z.writestr("archive/data.pkl", pkl)
        z.writestr("archive/data/0", STORAGE.astype(">f4").tobytes())
        z.writestr("archive/byteorder", "big")
    assert torch.load(tmp_path / "x.pt")["x"].tolist() == [0.0, 1.0, 2.0, 3.0]
