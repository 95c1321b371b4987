"""One place that turns numpy's exceptions into torch's.

Kernels are numpy; when numpy rejects an op's operands (shapes that do not broadcast, an axis out
of range, a dtype it cannot combine) it raises its own exception types (``ValueError``,
``AxisError``, ``UFuncTypeError``, ``DTypePromotionError``, ...). torch raises ``RuntimeError``,
``IndexError`` or ``NotImplementedError`` with its own wording. The dispatch point hands every
exception an op's forward raises to :func:`translate`, which returns the exception to raise
instead (or the same one when it is already torch's).

Rules (PyTorch 2.13 behaviour):

* shapes that do not broadcast -> ``RuntimeError("The size of tensor a (3) must match the size of
  tensor b (4) at non-singleton dimension 1")``;
* an axis out of range (``AxisError``) -> ``IndexError("Dimension out of range (expected to be in
  range of [-2, 1], but got 2)")``;
* no kernel for the operands' dtypes (``UFuncTypeError``, numpy's "not supported for the input
  types") -> ``NotImplementedError('"add_cpu" not implemented for \\'Bool\\'')``;
* dtypes numpy cannot promote (``DTypePromotionError``) -> ``RuntimeError`` naming both dtypes;
* a Python number that does not fit the tensor's dtype (``OverflowError``) ->
  ``RuntimeError("value cannot be converted to type int8 without overflow")``;
* ``matmul``'s core-dimension mismatch -> torch's ``mat1 and mat2 shapes cannot be multiplied``;
* any other ``ValueError`` numpy raises (reshape, concatenate, ...) -> ``RuntimeError`` with
  numpy's text, since torch's kernels report shape errors as ``RuntimeError``.

Exceptions our own code raises on purpose (a ``raise`` statement in this package, e.g. torch's
``ValueError`` for a bad ``reduction``) pass through unchanged.
"""
from __future__ import annotations

import linecache
import os
import re

import numpy as np

__all__ = ["translate"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
# ops whose caller turns numpy's ValueError into torch's own, more specific message
# (``x[key] = v``: "The expanded size of the tensor (2) must match the existing size (3) ...")
_CALLER_TRANSLATES = {"index_put"}


def translate(exc: BaseException, op, args, attrs) -> BaseException:
    """The torch exception for ``exc``, raised by ``op``'s forward on ``args``/``attrs``."""
    if _deliberate(exc) or getattr(op, "name", None) in _CALLER_TRANSLATES:
        return exc
    msg = str(exc)
    name = getattr(op, "name", "op")
    arrays = [_array(a) for a in args]
    arrays = [a for a in arrays if a is not None]
    if isinstance(exc, MemoryError):  # torch's CPU allocator: the bytes asked for
        size = getattr(exc, "_total_size", None)  # (numpy's allocation error knows them)
        asked = f"{size} bytes" if isinstance(size, int) else "more memory than is available"
        return RuntimeError(f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: "
                            f"can't allocate memory: you tried to allocate {asked}. Error code "
                            "12 (Cannot allocate memory)")
    if isinstance(exc, np.exceptions.AxisError):
        n = exc.ndim if exc.ndim is not None else 0
        lo, hi = -max(n, 1), max(n, 1) - 1
        return IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but "
                          f"got {exc.axis})")
    if isinstance(exc, np.exceptions.DTypePromotionError):
        names = sorted({_scalar(a.dtype) for a in arrays})
        return RuntimeError(f"{name}: operands of types {' and '.join(names)} cannot be "
                            "combined; cast them to one dtype first")
    if isinstance(exc, TypeError) and ("not supported for the input types" in msg
                                       or "did not contain a loop" in msg
                                       or type(exc).__name__.startswith("_UFunc")
                                       or type(exc).__name__ == "UFuncTypeError"):
        return NotImplementedError(f'"{name}_cpu" not implemented for \'{_promoted(args)}\'')
    if isinstance(exc, OverflowError):
        m = re.search(r"out of bounds for (\w+)", msg)
        target = m.group(1) if m else "the tensor's dtype"
        return RuntimeError(f"value cannot be converted to type {target} without overflow")
    if isinstance(exc, ZeroDivisionError):
        return RuntimeError("ZeroDivisionError")
    if isinstance(exc, ValueError):
        if "could not be broadcast" in msg or "broadcast" in msg and "shape" in msg:
            err = _size_mismatch([a.shape for a in arrays])
            if err is not None:
                return err
        if "matmul" in msg and "mismatch in its core dimension" in msg and len(arrays) >= 2:
            a, b = arrays[-2], arrays[-1]
            sa = "x".join(map(str, a.shape if a.ndim > 1 else (1,) + a.shape))
            sb = "x".join(map(str, b.shape if b.ndim > 1 else b.shape + (1,)))
            return RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa} and {sb})")
        return RuntimeError(msg)
    if isinstance(exc, IndexError):
        m = re.match(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", msg)
        if m:
            return IndexError(f"index {m.group(1)} is out of bounds for dimension {m.group(2)} "
                              f"with size {m.group(3)}")
    return exc


def _deliberate(exc) -> bool:
    """True when ``exc`` was raised by a ``raise`` statement of this package (already torch's)."""
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return False
    code = last.tb_frame.f_code
    if not os.path.abspath(code.co_filename).startswith(_PACKAGE + os.sep):
        return False
    return linecache.getline(code.co_filename, last.tb_lineno).strip().startswith("raise")


def _array(a):
    if isinstance(a, np.ndarray):
        return a
    d = getattr(a, "_data", None)
    return d if isinstance(d, np.ndarray) else None


def _promoted(args) -> str:
    """torch's name of the dtype the operands promote to (``Float``, ``Bool``, ...)."""
    from ._dtype import result_type, scalar_name
    try:
        return scalar_name(result_type(*[a for a in args if a is not None]))
    except Exception:  # noqa: BLE001  (arrays or odd arguments: the first array's dtype)
        arrays = [_array(a) for a in args]
        arrays = [a for a in arrays if a is not None]
        return _scalar(arrays[0].dtype) if arrays else "?"


def _scalar(npdtype) -> str:
    from ._dtype import _BY_NP, scalar_name
    dt = _BY_NP.get(np.dtype(npdtype))
    return scalar_name(dt) if dt is not None else str(npdtype)


def _size_mismatch(shapes):
    """torch's broadcast error for the first pair of shapes that does not broadcast."""
    for i, sa in enumerate(shapes):
        for sb in shapes[i + 1:]:
            n = max(len(sa), len(sb))
            for d in range(n - 1, -1, -1):
                x = sa[d - n + len(sa)] if d - n + len(sa) >= 0 else 1
                y = sb[d - n + len(sb)] if d - n + len(sb) >= 0 else 1
                if x != y and x != 1 and y != 1:
                    return RuntimeError(f"The size of tensor a ({x}) must match the size of "
                                        f"tensor b ({y}) at non-singleton dimension {d}")
    return None
