"""A minimal reader of TensorBoard event files, independent of the code under test: TFRecord
framing (u64 length, masked CRC-32C of the length, payload, masked CRC-32C of the payload) with
its own CRC-32C, and ``Event`` protobufs parsed with tensorboardX's generated classes."""
from __future__ import annotations

import struct
from pathlib import Path

_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked(data: bytes) -> int:
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def records(path):
    raw = Path(path).read_bytes()
    pos = 0
    while pos < len(raw):
        header = raw[pos:pos + 8]
        (n,) = struct.unpack("<Q", header)
        (hcrc,) = struct.unpack("<I", raw[pos + 8:pos + 12])
        assert hcrc == masked(header), f"{path}: bad length crc at {pos}"
        data = raw[pos + 12:pos + 12 + n]
        (dcrc,) = struct.unpack("<I", raw[pos + 12 + n:pos + 16 + n])
        assert dcrc == masked(data), f"{path}: bad data crc at {pos}"
        yield data
        pos += 16 + n


def events(path):
    from tensorboardX.proto.event_pb2 import Event
    return [Event.FromString(r) for r in records(path)]


def scalars(path):
    """{tag: [(step, value), ...]} of the simple_value summaries in one event file."""
    out = {}
    for e in events(path):
        for v in e.summary.value:
            if v.WhichOneof("value") == "simple_value":
                out.setdefault(v.tag, []).append((e.step, v.simple_value))
    return out


def event_files(log_dir):
    return sorted(Path(log_dir).rglob("events.out.tfevents.*"))
