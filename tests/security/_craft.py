"""Crafted hostile files for the security tests (written with h5py / zipfile / pickle directly)."""
from __future__ import annotations

import collections
import io
import pickle
import zipfile

import h5py
import numpy as np

from minitorch_cs.storage import save
from minitorch_cs.torch import serialization as TS


class OpenPayload:
    """Unpickling it calls ``open(marker, "w")``, which creates the marker file."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


class SystemPayload:
    """Unpickling it runs ``os.system("touch marker")``."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        import os
        return (os.system, (f"touch {self.marker}",))


def payloads(marker) -> dict:
    """Pickles that would create ``marker`` if they ran, one per technique."""
    m = str(marker)
    out = {f"reduce_open_p{p}": pickle.dumps(OpenPayload(m), protocol=p) for p in range(6)}
    out["reduce_os_system"] = pickle.dumps(SystemPayload(m), protocol=4)
    # eval through builtins
    out["eval"] = b"cbuiltins\neval\n(V__import__('os').system('touch " + m.encode() + b"')\ntR."
    # INST and OBJ (protocol 0/1 class instantiation calling the class)
    out["inst"] = b"(V" + m.encode() + b"\nVw\nibuiltins\nopen\n."
    out["obj"] = b"(cbuiltins\nopen\nV" + m.encode() + b"\nVw\no."
    # importlib.import_module + getattr, the pattern our own pickles use for dtypes
    out["import_module_getattr"] = (
        b"\x80\x04cbuiltins\ngetattr\ncimportlib\nimport_module\nVos\n\x85R"
        b"Vsystem\n\x86R" b"Vtouch " + m.encode() + b"\n\x85R.")
    # an allowed class used as a REDUCE target for a disallowed callable via NEWOBJ of builtins type
    out["newobj_type"] = b"\x80\x02cbuiltins\ntype\nVX\n(cbuiltins\nobject\n\x85}\x87\x81."
    # extension registry code (copyreg) -> resolved through find_class in CPython
    out["ext1"] = b"\x80\x02\x82\x01."
    # dill's function rebuilding
    out["dill_create_function"] = b"\x80\x04\x8c\ndill._dill\x94\x8c\x10_create_function\x94\x93\x94)R."
    return out


def mdl_with_object_bytes(path, data: bytes, where="leaf"):
    """A valid checkpoint whose pickled leaf holds ``data``; ``where`` places the leaf in the tree."""
    trees = {
        "leaf": {"obj": np.float32(0.0)},
        "list": {"l": [1, np.float32(0.0)]},
        "tuple": {"t": (np.float32(0.0), 2)},
        "set": {"s": {np.float32(0.0)}},
        "deque": {"q": collections.deque([np.float32(0.0)])},
        "odict": {"o": collections.OrderedDict(x=np.float32(0.0))},
        "defaultdict": {"d": collections.defaultdict(list, {"x": np.float32(0.0)})},
    }
    save(trees[where], path)
    with h5py.File(path, "a") as f:
        names = []
        f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset)
                     and "__BYTES__" in o.attrs else None)
        (name,) = names
        f[name].attrs["__BYTES__"] = np.frombuffer(data, dtype="V1")
    return name


def view_pickle(storage_array, offset, size, stride, requires_grad=False):
    """data.pkl bytes and storages for ``{"x": <tensor view of storage_array>}`` with any
    offset/size/stride (written with the package's own torch pickler)."""
    storage = TS._Storage("0", np.ascontiguousarray(storage_array))

    class View:
        def __reduce__(self):
            return (TS._REBUILD_TENSOR, (storage, offset, size, stride, requires_grad,
                                         collections.OrderedDict()))

    buf = io.BytesIO()
    storages = []
    TS._Pickler(buf, storages).dump({"x": View()})
    return buf.getvalue(), [storage]


def torch_zip(path, pkl: bytes, records: dict, prefix="archive", compress=None):
    """A torch zip: ``records`` maps a record name under ``prefix`` (``"data/0"``) to bytes;
    ``compress`` maps record names to a zipfile compression method."""
    compress = compress or {}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr(f"{prefix}/data.pkl", pkl, compress_type=compress.get("data.pkl", 0))
        for name, data in records.items():
            z.writestr(f"{prefix}/{name}", data, compress_type=compress.get(name, 0))
        z.writestr(f"{prefix}/byteorder", "little")
        z.writestr(f"{prefix}/version", "3\n")
