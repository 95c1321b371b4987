"""Pure-Python reading of HDF5 datasets compressed with the LZ4 filter (id 32004).

The real cstorch stack writes every non-0-d dataset through ``hdf5plugin.LZ4()``. Plain h5py cannot
decode that filter, so when ``hdf5plugin`` is not importable the loader reads the raw chunks with
``dataset.id.read_direct_chunk`` and decodes them here.

Chunk framing of the HDF5 LZ4 filter (H5Zlz4.c, as used by hdf5plugin):

* 8 bytes, big-endian uint64: uncompressed size of the chunk in bytes;
* 4 bytes, big-endian uint32: block size (the last block may be shorter);
* per block: 4 bytes big-endian uint32 stored size, then that many bytes. A stored size equal to the
  block's uncompressed size means the block is stored raw; otherwise it is an LZ4 *block format*
  stream.
"""
from __future__ import annotations

import struct

import numpy as np

__all__ = ["LZ4_FILTER_ID", "lz4_block_decompress", "decode_h5_lz4_chunk", "read_lz4_dataset"]

LZ4_FILTER_ID = 32004


def lz4_block_decompress(src, uncompressed_size: int) -> bytes:
    """Decode one LZ4 block-format stream (no frame header) of known decompressed size."""
    src = memoryview(src).cast("B")
    n = len(src)
    dst = bytearray()
    i = 0
    while i < n:
        token = src[i]
        i += 1
        lit = token >> 4
        if lit == 15:
            while True:
                if i >= n:
                    raise ValueError("LZ4: truncated literal length")
                b = src[i]
                i += 1
                lit += b
                if b != 255:
                    break
        if i + lit > n:
            raise ValueError("LZ4: literals run past the end of the block")
        if len(dst) + lit > uncompressed_size:
            raise ValueError("LZ4: block decodes past its declared size")
        dst += src[i:i + lit]
        i += lit
        if i >= n:  # the last sequence carries literals only
            break
        if i + 2 > n:
            raise ValueError("LZ4: truncated match offset")
        offset = src[i] | (src[i + 1] << 8)
        i += 2
        mlen = token & 15
        if mlen == 15:
            while True:
                if i >= n:
                    raise ValueError("LZ4: truncated match length")
                b = src[i]
                i += 1
                mlen += b
                if b != 255:
                    break
        mlen += 4
        if len(dst) + mlen > uncompressed_size:  # never decode past the declared size
            raise ValueError("LZ4: block decodes past its declared size")
        start = len(dst) - offset
        if offset == 0 or start < 0:
            raise ValueError("LZ4: match offset out of range")
        if offset >= mlen:
            dst += dst[start:start + mlen]
        else:  # overlapping copy: the last `offset` bytes repeat
            pattern = bytes(dst[start:])
            dst += (pattern * (mlen // offset + 1))[:mlen]
    if len(dst) != uncompressed_size:
        raise ValueError(f"LZ4: decoded {len(dst)} bytes, expected {uncompressed_size}")
    return bytes(dst)


def decode_h5_lz4_chunk(chunk, expected: int | None = None) -> bytes:
    """Decode one stored chunk of an HDF5 LZ4-filtered dataset (framing in the module docstring).
    ``expected``: the chunk's size in bytes; a header declaring another size is refused before
    anything is decoded."""
    chunk = memoryview(chunk).cast("B")
    if len(chunk) < 12:
        raise ValueError("LZ4 chunk shorter than its 12-byte header")
    total, block = struct.unpack_from(">QI", chunk, 0)
    if block == 0:
        raise ValueError("LZ4 chunk header has block size 0")
    if expected is not None and total != expected:
        raise ValueError(f"LZ4 chunk header declares {total} bytes, the chunk holds {expected}")
    pos = 12
    out = bytearray()
    while len(out) < total:
        size = min(block, total - len(out))
        if pos + 4 > len(chunk):
            raise ValueError("LZ4 chunk truncated (block header)")
        (stored,) = struct.unpack_from(">I", chunk, pos)
        pos += 4
        if pos + stored > len(chunk):
            raise ValueError("LZ4 chunk truncated (block data)")
        data = chunk[pos:pos + stored]
        pos += stored
        out += data if stored == size else lz4_block_decompress(data, size)
    return bytes(out)


def read_lz4_dataset(dset) -> np.ndarray:
    """Read a chunked dataset whose only filter is LZ4 (32004), without the HDF5 plugin."""
    shape = dset.shape
    dtype = dset.dtype
    chunks = dset.chunks
    fill = dset.fillvalue
    out = np.full(shape, fill, dtype=dtype) if fill is not None else np.zeros(shape, dtype=dtype)
    if out.size == 0:
        return out
    itemsize = dtype.itemsize
    chunk_bytes = int(np.prod(chunks)) * itemsize
    dsid = dset.id
    for idx in range(dsid.get_num_chunks()):
        info = dsid.get_chunk_info(idx)
        mask, raw = dsid.read_direct_chunk(info.chunk_offset)
        data = raw if mask & 1 else decode_h5_lz4_chunk(raw, chunk_bytes)
        if len(data) != chunk_bytes:
            raise ValueError(f"LZ4 chunk at {info.chunk_offset} decodes to {len(data)} bytes, "
                             f"expected {chunk_bytes}")
        block = np.frombuffer(data, dtype=dtype).reshape(chunks)
        sel_out = tuple(slice(o, min(o + c, s)) for o, c, s in zip(info.chunk_offset, chunks, shape))
        sel_in = tuple(slice(0, s.stop - s.start) for s in sel_out)
        out[sel_out] = block[sel_in]
    return out
