"""``repr`` of tensors in torch's layout: ``tensor([[1., 2.]], requires_grad=True)``."""
from __future__ import annotations

import numpy as np

from . import _dtype as D


def _fmt_float(arr):
    """torch's _Formatter: judged on the nonzero finite values; integral values print as ``3.``;
    scientific notation when max/min > 1000, max > 1e8 or min < 1e-4."""
    nz = np.abs(arr[np.isfinite(arr) & (arr != 0)]).astype(np.float64)
    sci = nz.size and (nz.max() / nz.min() > 1e3 or nz.max() > 1e8 or nz.min() < 1e-4)
    if sci:
        return lambda v: f"{v:.4e}"
    if not nz.size or np.all(nz == np.ceil(nz)):
        return lambda v: (f"{v:.0f}." if np.isfinite(v) else f"{v:.0f}")
    return lambda v: f"{v:.4f}"


def _width_values(arr):
    """The values whose printed width sets the column width (torch: nonzero finite for floats)."""
    if arr.dtype.kind == "f":
        return arr[np.isfinite(arr) & (arr != 0)].tolist() or [0.0]
    return arr.ravel().tolist()


def _body(arr, fmt, indent, summarize, width=None):
    if arr.ndim == 0:
        return fmt(arr.item())
    if width is None:  # one width for the whole tensor, so columns line up (torch's formatter)
        shown = arr
        if summarize:  # only the printed corners (first/last 3 along every dim) count
            shown = arr[np.ix_(*[list(range(n)) if n <= 6 else [0, 1, 2, n - 3, n - 2, n - 1]
                                 for n in arr.shape])]
        width = max((len(fmt(v)) for v in _width_values(shown)), default=0)
    if arr.ndim == 1:
        items = [fmt(v) for v in arr.tolist()]
        if summarize and len(items) > 6:
            items = items[:3] + [" ..."] + items[-3:]  # torch's ellipsis item is " ..."
        items = [s if s == " ..." else s.rjust(width) for s in items]
        per_line = max(1, (80 - indent) // (width + 2))  # torch wraps rows at linewidth 80
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"
    rows = list(range(arr.shape[0]))
    if summarize and len(rows) > 6:
        rows = rows[:3] + [None] + rows[-3:]
    parts = [_body(arr[i], fmt, indent + 1, summarize, width) if i is not None else "..."
             for i in rows]
    sep = "," + "\n" * (arr.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def tensor_repr(t) -> str:
    suffix = []
    from ._tensor import READ_GUARD
    if READ_GUARD[0] is not None:
        return (f"tensor(<value available after the step; read it in a step closure>, "
                f"size={tuple(t.shape)}, dtype={t._dtype!r}, device='lazy')")
    if t._meta:
        body = "..."
        suffix.append("device='meta'")
        suffix.append(f"size={tuple(t.shape)}")
    else:
        arr = t._data
        if t._dtype is D.bfloat16 or t._dtype is D.float16:
            arr = arr.astype(np.float32)
        if arr.dtype.kind == "f":
            fmt = _fmt_float(arr)
        elif arr.dtype.kind == "b":
            fmt = lambda v: str(bool(v))  # noqa: E731
        else:
            fmt = str
        body = _body(arr, fmt, 7, arr.size > 1000)
        if t._data.size == 0:
            body = "[]"
            if t.ndim > 1:
                suffix.append(f"size={tuple(t.shape)}")
    # an empty or meta tensor shows every dtype but the default float (no values to infer it from)
    default = t._dtype in ((D.get_default_dtype(),) if t._data.size == 0 or t._meta else
                           (D.get_default_dtype(), D.int64, D.bool))
    if not default:
        suffix.append(f"dtype={t._dtype!r}")
    if t.grad_fn is not None:
        suffix.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._rg:
        suffix.append("requires_grad=True")
    prefix = "Parameter containing:\n" if type(t).__name__ == "Parameter" else ""
    return prefix + "tensor(" + ", ".join([body] + suffix) + ")"
