"""``torch.load`` of damaged pickles, against PyTorch 2.13 when it is installed.

The ``data.pkl`` of a valid checkpoint is damaged at random (bytes replaced, deleted or
inserted, opcodes inserted) and both libraries load the result: each outcome must be torch's (a
load, or the same exception class), except where torch's unpickler stops on an error of its own
code (an ``IndexError`` popping an empty stack, a ``KeyError`` for a missing memo entry, ...),
where ours raises ``UnpicklingError`` (SPEC §3.1). Found this way and fixed: protocol 3-5 pickles
loaded here while torch refuses their opcodes, any PROTO number above 5 was a ValueError, storages
tagged with a device this machine lacks (``cuda:0``, ``c!u``) loaded, and SETITEMS with a key
without its value dropped the key silently.
"""
from __future__ import annotations

import io
import random
import warnings
import zipfile

import pytest

import minitorch_cs.torch as mt

# torch's unpickler's own failures on a damaged stream; ours is an UnpicklingError there
TORCH_INTERNAL = {"IndexError", "KeyError", "ValueError", "AssertionError", "TypeError",
                  "AttributeError"}


def _damaged(pkl: bytes, k: int) -> bytes:
    r = random.Random(f"damaged pickle {k}")
    b = bytearray(pkl)
    for _ in range(r.randint(1, 4)):
        how, i = r.random(), r.randrange(len(b))
        if how < 0.4:
            b[i] = r.randrange(256)
        elif how < 0.6:
            del b[i:i + r.randint(1, 4)]
        elif how < 0.8:
            b[i:i] = bytes([r.randrange(0x28, 0x8f)])
        else:
            b[i:i] = bytes(r.randrange(256) for _ in range(r.randint(1, 6)))
    return bytes(b)


def _with_pickle(archive: bytes, pkl: bytes) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(archive))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as z:
        for name in src.namelist():
            z.writestr(name, pkl if name.endswith("/data.pkl") else src.read(name))
    return out.getvalue()


def _outcome(lib, data: bytes) -> str:
    try:
        lib.load(io.BytesIO(data))
        return "ok"
    except Exception as e:  # noqa: BLE001 - the class is the outcome
        return type(e).__name__


@pytest.mark.slow
def test_damaged_pickles_fail_as_torch_does():
    torch = pytest.importorskip("torch")
    import collections
    torch.manual_seed(0)
    obj = {"w": torch.randn(3, 4), "b": torch.arange(5), "step": 7, "name": "run",
           "lrs": [0.1, 0.01], "nested": {"t": (1, 2.5, None), "v": torch.randn(4)[1:]},
           "flag": True, "od": collections.OrderedDict(a=1)}
    buf = io.BytesIO()
    torch.save(obj, buf)
    archive = buf.getvalue()
    pkl = next(zipfile.ZipFile(io.BytesIO(archive)).read(n)
               for n in zipfile.ZipFile(io.BytesIO(archive)).namelist() if n.endswith("data.pkl"))
    seen = collections.Counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in range(400):
            data = _with_pickle(archive, _damaged(pkl, k))
            theirs, ours = _outcome(torch, data), _outcome(mt, data)
            seen[theirs, ours] += 1
            assert ours == theirs or (theirs in TORCH_INTERNAL and ours == "UnpicklingError"), \
                (k, theirs, ours)
    assert seen["ok", "ok"] and seen["UnpicklingError", "UnpicklingError"]


@pytest.mark.parametrize("protocol, operand", [(3, 67), (4, 149), (5, 149)])
def test_pickle_protocols_above_2_are_refused_by_weights_only_load(protocol, operand):
    """torch 2.13's weights-only unpickler implements protocol 2's opcodes only (with a warning
    for another protocol number); weights_only=False loads any protocol."""
    buf = io.BytesIO()  # (protocol 3 adds the bytes opcodes: b"raw" is SHORT_BINBYTES, 67)
    mt.save({"a": mt.ones(2), "s": "x" * 300, "b": b"raw"}, buf, pickle_protocol=protocol)
    with pytest.warns(UserWarning, match=f"Detected pickle protocol {protocol}"):
        with pytest.raises(Exception) as e:
            mt.load(io.BytesIO(buf.getvalue()))
    assert type(e.value).__name__ == "UnpicklingError"
    assert f"Unsupported operand {operand}" in str(e.value)
    assert mt.load(io.BytesIO(buf.getvalue()), weights_only=False)["a"].tolist() == [1.0, 1.0]


def _tagged(location: str) -> bytes:
    buf = io.BytesIO()
    mt.save({"a": mt.ones(2)}, buf)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    pkl = next(src.read(n) for n in src.namelist() if n.endswith("data.pkl"))
    tag = b"X" + len(location).to_bytes(4, "little") + location.encode()
    assert b"X\x03\x00\x00\x00cpu" in pkl
    return _with_pickle(buf.getvalue(), pkl.replace(b"X\x03\x00\x00\x00cpu", tag))


@pytest.mark.parametrize("location, message", [
    ("cuda:0", "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
               "is False. If you are running on a CPU-only machine, please use torch.load with "
               "map_location=torch.device('cpu') to map your storages to the CPU."),
    ("xpu", "Attempting to deserialize object on a XPU device but torch.xpu.is_available() is "
            "False."),
    ("hpu", "The HPU device module is not registered."),
    ("mps", "torch.UntypedStorage(): Storage device not recognized: mps"),
    ("cuda1", "Invalid device string: 'cuda1'"),
    ("c!u", "don't know how to restore data location of torch.storage.UntypedStorage (tagged "
            "with c!u)"),
    ("CPU", "don't know how to restore data location of torch.storage.UntypedStorage (tagged "
            "with CPU)"),
])
def test_storage_location_tags_restore_as_torch_on_a_cpu_machine(location, message):
    data = _tagged(location)
    with pytest.raises(RuntimeError) as e:
        mt.load(io.BytesIO(data))
    assert str(e.value).startswith(message)
    assert mt.load(io.BytesIO(data), map_location="cpu")["a"].tolist() == [1.0, 1.0]
    assert mt.load(io.BytesIO(data), map_location={location: "cpu"})["a"].tolist() == [1.0, 1.0]
