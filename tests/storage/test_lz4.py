"""The pure-Python LZ4 block decoder and the HDF5 LZ4-filter chunk reader (no hdf5plugin needed)."""
from __future__ import annotations

import struct
import sys

import h5py
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minitorch_cs.torch as torch
from minitorch_cs.storage import _lz4, load, save

LOAD = sys.modules["minitorch_cs.storage.load"]


def lz4_compress(data: bytes, min_match=4, max_offset=65535) -> bytes:
    """A small greedy LZ4 block compressor (reference for the tests; last 5 bytes are literals)."""
    out = bytearray()
    n = len(data)
    i = anchor = 0
    table = {}

    def length_bytes(v):
        b = bytearray()
        while v >= 255:
            b.append(255)
            v -= 255
        b.append(v)
        return b

    def emit(lit, match_len, offset):
        ll = len(lit)
        token = (min(ll, 15) << 4) | (min(match_len - 4, 15) if match_len else 0)
        out.append(token)
        if ll >= 15:
            out.extend(length_bytes(ll - 15))
        out.extend(lit)
        if match_len:
            out.extend(struct.pack("<H", offset))
            if match_len - 4 >= 15:
                out.extend(length_bytes(match_len - 4 - 15))

    limit = n - 12  # LZ4 rule: no match starts in the last 12 bytes
    while i < limit:
        key = data[i:i + 4]
        cand = table.get(key)
        table[key] = i
        if cand is not None and i - cand <= max_offset:
            m = 4
            while i + m < n - 5 and data[cand + m] == data[i + m]:
                m += 1
            if m >= min_match:
                emit(data[anchor:i], m, i - cand)
                i += m
                anchor = i
                continue
        i += 1
    emit(data[anchor:], 0, 0)
    return bytes(out)


def frame(raw: bytes, block: int, compress=True) -> bytes:
    """HDF5 LZ4-filter chunk: >Q total, >I block size, then (>I stored size, bytes) per block."""
    out = bytearray(struct.pack(">QI", len(raw), block))
    for s in range(0, len(raw), block):
        b = raw[s:s + block]
        c = lz4_compress(b) if compress else b
        if len(c) >= len(b):
            c = b  # stored raw, like H5Zlz4
        out += struct.pack(">I", len(c)) + c
    return bytes(out)


@pytest.mark.parametrize("data", [b"", b"a", b"abcd" * 100, bytes(1000), bytes(range(256)) * 3,
                                  b"x" * 15 + b"y" * 300 + b"z" * 4000, b"ab" * 5000 + b"tail"])
def test_block_round_trip(data):
    comp = lz4_compress(data)
    assert _lz4.lz4_block_decompress(comp, len(data)) == data


@given(st.binary(max_size=3000), st.integers(1, 4))
def test_block_round_trip_random(data, reps):
    data = data * reps  # repeats give matches, including overlapping ones
    assert _lz4.lz4_block_decompress(lz4_compress(data), len(data)) == data


def test_known_vectors():
    # literals only
    assert _lz4.lz4_block_decompress(b"\x30abc", 3) == b"abc"
    # "a" then a match of 9 at offset 1 (overlapping copy), then 5 literal bytes
    assert _lz4.lz4_block_decompress(b"\x15a\x01\x00\x50bcdef", 15) == b"a" * 10 + b"bcdef"
    # literal length 15 + extension 1 = 16 literals
    assert _lz4.lz4_block_decompress(b"\xf0\x01" + b"0123456789abcdef", 16) == b"0123456789abcdef"
    # match length 4 + 15 + 255 + 10 = 284 at offset 2 ("ab" repeated)
    comp = b"\x2fab\x02\x00\xff\x0a" + b"\x50vwxyz"
    assert _lz4.lz4_block_decompress(comp, 2 + 284 + 5) == b"ab" * 143 + b"vwxyz"


@pytest.mark.parametrize("bad,size", [(b"\xf0", 15), (b"\x40ab", 4), (b"\x11a\x05\x00", 5),
                                      (b"\x11a\x00\x00\x00", 5), (b"\x10a", 2), (b"\x11a\x01", 5)])
def test_corrupt_blocks_raise(bad, size):
    with pytest.raises(ValueError, match="LZ4"):
        _lz4.lz4_block_decompress(bad, size)


def test_chunk_framing():
    raw = bytes(range(200)) * 10
    for block in (1, 7, 64, 2000, 1 << 30):
        assert _lz4.decode_h5_lz4_chunk(frame(raw, min(block, 1 << 30))) == raw
    assert _lz4.decode_h5_lz4_chunk(frame(raw, 100, compress=False)) == raw
    with pytest.raises(ValueError):
        _lz4.decode_h5_lz4_chunk(frame(raw, 64)[:-3])
    with pytest.raises(ValueError):
        _lz4.decode_h5_lz4_chunk(b"\x00" * 5)


def _write_lz4_dataset(f, name, arr, chunks, block=1 << 30, compress=True, skip=()):
    d = f.create_dataset(name, shape=arr.shape, dtype=arr.dtype, chunks=chunks, compression=32004,
                         compression_opts=(0,), allow_unknown_filter=True)
    grid = [range(0, s, c) for s, c in zip(arr.shape, chunks)]
    for off in np.ndindex(*[len(g) for g in grid]):
        start = tuple(g[i] for g, i in zip(grid, off))
        if start in skip:
            continue
        block_arr = np.zeros(chunks, dtype=arr.dtype)  # edge chunks are stored full size
        sl = tuple(slice(s, min(s + c, n)) for s, c, n in zip(start, chunks, arr.shape))
        block_arr[tuple(slice(0, x.stop - x.start) for x in sl)] = arr[sl]
        d.id.write_direct_chunk(start, frame(block_arr.tobytes(), block, compress))
    return d


def test_read_lz4_dataset_multichunk_and_missing_chunks(tmp_path):
    arr = np.arange(37 * 23, dtype=np.float64).reshape(37, 23) % 7
    with h5py.File(tmp_path / "x.h5", "w") as f:
        _write_lz4_dataset(f, "a", arr, (8, 5), block=64)
        _write_lz4_dataset(f, "b", arr, (8, 5), skip={(8, 5), (32, 20)})
    with h5py.File(tmp_path / "x.h5", "r") as f:
        assert np.array_equal(_lz4.read_lz4_dataset(f["a"]), arr)
        exp = arr.copy()
        exp[8:16, 5:10] = 0
        exp[32:37, 20:23] = 0
        assert np.array_equal(_lz4.read_lz4_dataset(f["b"]), exp)


def _ckpt_with_lz4(path, tensors):
    """A checkpoint as the real stack writes it (LZ4-chunked datasets), built with h5py only."""
    save(tensors, path)
    with h5py.File(path, "a") as f:
        for k, t in tensors.items():
            arr = f[k][...]
            attrs = dict(f[k].attrs)
            del f[k]
            chunks = tuple(max(1, (s + 2) // 3) for s in arr.shape)
            d = _write_lz4_dataset(f, k, arr, chunks, block=256)
            d.attrs.update(attrs)


def test_checkpoint_with_lz4_datasets_loads_without_plugin(tmp_path, monkeypatch):
    monkeypatch.setattr(LOAD, "_lz4_plugin_available", lambda: False)
    calls = []
    real = _lz4.read_lz4_dataset
    monkeypatch.setattr(_lz4, "read_lz4_dataset", lambda d: calls.append(d.name) or real(d))
    tensors = {"w": torch.arange(600.0).reshape(20, 30) % 11,
               "b": torch.tensor([True, False] * 50), "h": torch.ones(70, 3).to(torch.bfloat16),
               "i": torch.arange(1000, dtype=torch.int64) // 10}
    _ckpt_with_lz4(tmp_path / "c.mdl", tensors)
    out = load(tmp_path / "c.mdl", map_location="cpu")
    for k, t in tensors.items():
        assert out[k].dtype is t.dtype and out[k].tolist() == t.tolist(), k
    assert sorted(calls) == ["/b", "/h", "/i", "/w"]


def test_lz4_with_another_filter_is_refused_without_plugin(tmp_path, monkeypatch):
    monkeypatch.setattr(LOAD, "_lz4_plugin_available", lambda: False)
    save({"w": torch.ones(4)}, tmp_path / "c.mdl")
    with h5py.File(tmp_path / "c.mdl", "a") as f:
        attrs = dict(f["w"].attrs)
        del f["w"]
        d = f.create_dataset("w", shape=(4,), dtype="f4", chunks=(4,), shuffle=True,
                             compression=32004, compression_opts=(0,), allow_unknown_filter=True)
        d.id.write_direct_chunk((0,), b"\0" * 32)  # stored, so that only the filter pair is at fault
        d.attrs.update(attrs)
    with pytest.raises(RuntimeError, match="cannot be read.*only the LZ4 filter alone"):
        load(tmp_path / "c.mdl", map_location="cpu")


def test_plugin_is_used_when_importable(tmp_path):
    pytest.importorskip("hdf5plugin")
    LOAD._PLUGIN.clear()
    assert LOAD._lz4_plugin_available()
    from .test_real_files import DATA
    assert load(DATA / "lz4_compressed.mdl", map_location="cpu")["pattern"].sum().item() == 346500
