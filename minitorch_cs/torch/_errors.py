"""One place that turns numpy's exceptions into torch's.

Kernels are numpy; when numpy rejects an op's operands (shapes that do not broadcast, an axis out
of range, a dtype it cannot combine) it raises its own exception types (``ValueError``,
``AxisError``, ``UFuncTypeError``, ``DTypePromotionError``, ...). torch raises ``RuntimeError``,
``IndexError`` or ``NotImplementedError`` with its own wording. The dispatch point hands every
exception an op's forward raises to :func:`translate`, which returns the exception to raise
instead (or the same one when it is already torch's).

Rules (PyTorch 2.13 behaviour):

* shapes that do not broadcast -> ``RuntimeError("The size of tensor a (3) must match the size of
  tensor b (4) at non-singleton dimension 1")``; for an elementwise op this comes before any
  dtype error (torch's TensorIterator infers the shape first);
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
import math
import os
import re

import numpy as np

__all__ = ["translate", "index_error", "in_range", "expand_error"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
# ops whose caller turns numpy's ValueError into torch's own, more specific message
# (``x[key] = v``: "The expanded size of the tensor (2) must match the existing size (3) ...")
_CALLER_TRANSLATES = {"index_put"}


def translate(exc: BaseException, op, args, attrs) -> BaseException:
    """The torch exception for ``exc``, raised by ``op``'s forward on ``args``/``attrs``."""
    if _deliberate(exc) or (isinstance(exc, ValueError) and
                            getattr(op, "name", None) in _CALLER_TRANSLATES):
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
    if getattr(op, "elementwise", False) and len(arrays) > 1:
        # torch's TensorIterator broadcasts before it looks at dtypes: a shape error first
        err = _size_mismatch([a.shape for a in arrays])
        if err is not None:
            return err
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
    if isinstance(exc, IndexError):  # (the index kernels raise torch's own: index_error)
        m = re.match(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", msg)
        if m:
            return IndexError(f"index {m.group(1)} is out of bounds for dimension {m.group(2)} "
                              f"with size {m.group(3)}")
    return exc


def c_number(v) -> str:
    """A number as C++'s stream prints a double in torch's messages (``2``, ``0.5``, ``inf``)."""
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return str(int(v)) if v.is_integer() else repr(v)


def index_error(key, shape, bounds=True):
    """torch's IndexError for an indexing ``key`` (entries: None, Ellipsis, slices, ints, index
    arrays or tensors) over a tensor of ``shape``, or None if torch's checks pass. Its order:
    each bool mask against the dims it covers ("The shape of the mask [2] at index 0 does not
    match ..."; a None entry adds a size-1 dim to the tensor named), the index tensors
    broadcasting together (a mask counts as its nonzero count), a non-empty (broadcast) index
    into a dim of size 0, then (``bounds``) the values, read only when the result has elements:
    the first position of the broadcast index, in row-major order, where an index is out of
    range, and there the first such index; the dimension named is that index's position among
    the key's index tensors (a mask counts one per dim it covers), as torch's kernel moves them
    to the front."""
    key = _index_key(key)
    spans, src = _spans(key, len(shape))
    view, sizes = [], []  # torch's view of the tensor; the sizes each entry indexes
    for k, (s, n) in zip(key, spans):
        if k is None:
            view.append(1)
            sizes.append(None)
            continue
        sizes.append((len(view), tuple(shape[s:s + n])))
        view.extend(shape[s:s + n])
    view.extend(shape[src:])
    entries = []  # (index array or bool mask, sizes of the dims it indexes)
    kept = 1  # the elements of the dims no index tensor takes
    for k, at in zip(key, sizes):
        if _is_mask(k):
            start, dims = at
            for j in range(k.ndim):
                if j >= len(dims) or k.shape[j] != dims[j]:
                    return IndexError(f"The shape of the mask {list(k.shape)} at index {j} does "
                                      f"not match the shape of the indexed tensor {list(view)} at "
                                      f"index {start + j}")
            entries.append((k, dims))
        elif isinstance(k, np.ndarray) and k.dtype.kind in "iu" and at[1]:
            entries.append((k, at[1][:1]))
        elif at is not None:
            kept *= math.prod(at[1])
    if not entries or (not bounds and len(entries) == 1 and _is_mask(entries[0][0])):
        return None  # (one mask of the right shape: nothing more to check from shapes)
    if len(entries) == 1 and not _is_mask(entries[0][0]):
        full = entries[0][0].shape
    else:  # a mask stands for its nonzero count, once per dim it covers
        shapes = [s for k, dims in entries
                  for s in ([(int(np.count_nonzero(k)),)] * k.ndim if _is_mask(k) else [k.shape])]
        try:
            full = np.broadcast_shapes(*shapes)
        except ValueError:
            return IndexError("shape mismatch: indexing tensors could not be broadcast together "
                              f"with shapes {', '.join(str(list(s)) for s in shapes)}")
    if math.prod(full) and any(0 in dims for _, dims in entries):  # (after broadcasting)
        return IndexError("index is out of bounds for dimension with size 0")
    if not bounds or not kept * math.prod(shape[src:]) * math.prod(full):
        return None  # (an empty result: torch's kernel reads no index)
    indices = [(a, d) for k, dims in entries
               for a, d in (zip(np.nonzero(k), dims) if _is_mask(k) else [(k, dims[0])])]
    bad = np.stack([np.broadcast_to((a < -d) | (a >= d), full) for a, d in indices], axis=-1)
    hit = np.flatnonzero(bad)
    if not hit.size:
        return None
    pos, which = divmod(int(hit[0]), len(indices))
    a, d = indices[which]
    value = np.broadcast_to(a, full).reshape(-1)[pos]
    return IndexError(f"index {value} is out of bounds for dimension {which} with size {d}")


def expand_error(shape, target, type_name):
    """torch's error for expanding a tensor of ``shape`` (of type ``type_name``, e.g.
    ``torch.FloatTensor``) to ``target``, or None when it expands: more dims than the target
    ask for, or the first dim from the right whose size is neither 1 nor the target's."""
    shape, target = tuple(shape), tuple(target)
    n = len(target)
    if len(shape) > n:
        return RuntimeError(f"expand({type_name}{{{list(shape)}}}, size={list(target)}): the "
                            f"number of sizes provided ({n}) must be greater or equal to the "
                            f"number of dimensions in the tensor ({len(shape)})")
    for d in range(n - 1, n - 1 - len(shape), -1):
        v = shape[d - n + len(shape)]
        if v != 1 and v != target[d]:
            return RuntimeError(f"The expanded size of the tensor ({target[d]}) must match the "
                                f"existing size ({v}) at non-singleton dimension {d}.  Target "
                                f"sizes: {list(target)}.  Tensor sizes: {list(shape)}")
    return None


def _index_key(key) -> tuple:
    """An indexing key as numpy reads it: a tuple (one entry otherwise), tensors and lists as
    their arrays."""
    key = key if isinstance(key, tuple) else (key,)
    return tuple(np.asarray(k) if isinstance(k, list) else
                 k if k is None or k is Ellipsis or _array(k) is None else _array(k) for k in key)


def _is_mask(k) -> bool:
    return isinstance(k, np.ndarray) and k.dtype == np.bool_


def _spans(key, ndim):
    """The source dims each entry of a normalised key takes, as ``(first, count)``: None takes
    none, an Ellipsis the dims no other entry takes, a bool mask one per its dims, any other
    entry one; and the first dim no entry takes."""
    widths = [0 if k is None or k is Ellipsis else k.ndim if _is_mask(k) else 1 for k in key]
    rest = ndim - sum(widths)
    spans, src = [], 0
    for k, w in zip(key, widths):
        n = rest if k is Ellipsis else w
        spans.append((src, n))
        src += n
    return spans, src


def in_range(key, shape):
    """``key`` with every index array's values taken into range (for a result that has no
    elements, where torch reads no index: numpy checks them all)."""
    key = _index_key(key)
    spans, _ = _spans(key, len(shape))
    return tuple(np.clip(k, -shape[s], shape[s] - 1)
                 if isinstance(k, np.ndarray) and k.dtype.kind in "iu" and shape[s] else k
                 for k, (s, _) in zip(key, spans))


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


def before_broadcast(err):
    """Mark ``err`` as raised by a check torch makes before its TensorIterator broadcasts the
    operands: it stands even when their shapes do not broadcast."""
    err.before_broadcast = True
    return err


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
