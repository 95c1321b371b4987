"""HDF5 global heap collections, checked before HDF5 reads variable-length data from them.

A checkpoint's string attributes (every leaf's ``__metadata__``, the tree spec) are
variable-length strings: their bytes live in *global heap collections*, which HDF5 parses when an
attribute is read. A collection is the signature ``GCOL``, a version byte (1), three reserved
bytes and the collection's total size, then objects, each an index (2 bytes), a reference count
(2), four reserved bytes, its size and its data padded to 8 bytes; the object of index 0 is the
collection's free space and runs to its end (HDF5 file format specification, "Global Heap").
libhdf5 (2.0) trusts these sizes: a free-space object that does not reach the end of its
collection, as a few damaged bytes make it, sends its parser into a loop that never returns. So
every collection in the file is walked here first, in Python, and a file with a malformed one is
refused before HDF5 touches it. (The file is scanned for the eight bytes that open a
collection; raw data that happened to hold them and fail the walk would be refused too -- one
chance in 2**64 per position of random bytes.)
"""
from __future__ import annotations

import mmap
import os

__all__ = ["malformed_heap"]

_OPENING = b"GCOL\x01\x00\x00\x00"  # signature, version 1, reserved


def malformed_heap(path, length_size: int = 8) -> str | None:
    """A description of the first malformed global heap collection of the file at ``path``, or
    None when every one is well formed. ``length_size``: the file's size of lengths (bytes)."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            return None
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            pos = m.find(_OPENING)
            while pos != -1:
                err = _walk(m, pos, size, length_size)
                if err is not None:
                    return f"the global heap collection at byte {pos} {err}"
                pos = m.find(_OPENING, pos + 1)
    return None


def _number(m, at, n) -> int:
    return int.from_bytes(m[at:at + n], "little")


def _walk(m, start, file_size, ls) -> str | None:
    head = 8 + ls  # signature, version, reserved, collection size
    if start + head > file_size:
        return "is cut off by the end of the file"
    total = _number(m, start + 8, ls)
    end = start + total
    if total < head or end > file_size:
        return f"declares {total} bytes, but the file ends {file_size - start} bytes after it"
    obj_head = 8 + ls  # index, reference count, reserved, size
    pos = start + head
    while pos + obj_head <= end:
        index = _number(m, pos, 2)
        length = _number(m, pos + 8, ls)
        if index == 0:  # the free space: it must run exactly to the end of the collection
            if pos + length != end:
                return (f"has a free-space object of {length} bytes at offset {pos - start} that "
                        f"does not reach the collection's end ({total} bytes)")
            return None
        pos += obj_head + (length + 7) // 8 * 8
    if pos > end:  # (a tail too short for an object header is slack)
        return f"has an object that runs past the collection's end ({total} bytes)"
    return None
