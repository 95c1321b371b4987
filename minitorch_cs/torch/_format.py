"""``repr`` of tensors in torch's layout (``tensor([[1., 2.]], requires_grad=True)``) and the print
options that shape it, mirroring ``torch/_tensor_str.py``: ``set_printoptions`` (precision,
threshold, edgeitems, linewidth, profile, sci_mode) and the same formatter, summarization and
suffix wrapping, on ndarrays.
"""
from __future__ import annotations

import math

import numpy as np

from . import _dtype as D

__all__ = ["set_printoptions", "tensor_repr", "PRINT_OPTS"]


class _PrinterOptions:
    """torch's ``PRINT_OPTS``: the current print options (module-global, as in torch)."""

    def __init__(self):
        self.precision = 4
        self.threshold = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode = None


PRINT_OPTS = _PrinterOptions()

_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """Set options for printing tensors (``torch.set_printoptions``).

    Args:
        precision: digits after the decimal point for floating values (default 4).
        threshold: tensors with more elements than this are summarized (default 1000).
        edgeitems: items kept at the start and end of each summarized dimension (default 3).
        linewidth: characters per line before wrapping (default 80).
        profile: ``"default"``, ``"short"`` (precision 2, edgeitems 2) or ``"full"`` (never
            summarize); the other arguments override it. Any other value is ignored, as in torch.
        sci_mode: ``True``/``False`` forces scientific notation on/off; ``None`` (the default,
            and what every call without it restores, as in torch) lets the formatter choose.

    Example:
        >>> import minitorch_cs.torch as torch
        >>> torch.set_printoptions(precision=2)
        >>> torch.tensor([1.12345])
        tensor([1.12])
        >>> torch.set_printoptions(profile="default")
    """
    if profile in _PROFILES:
        (PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems,
         PRINT_OPTS.linewidth) = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


class _Formatter:
    """torch's ``_Formatter``: floats are judged on their nonzero finite values (integral values
    print as ``3.``; scientific notation when max/min > 1000, max > 1e8 or min < 1e-4, unless
    ``sci_mode`` says otherwise); one width for the whole tensor so columns line up."""

    def __init__(self, arr):
        self.floating = arr.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        p = PRINT_OPTS.precision
        if not self.floating:
            for v in arr.ravel().tolist():
                self.max_width = max(self.max_width, len(f"{v}"))
            return
        vals = arr[np.isfinite(arr) & (arr != 0)]
        if vals.size == 0:
            return
        a = np.abs(vals).astype(np.float64)
        lo, hi = a.min(), a.max()
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        self.sci_mode = (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4) \
            if PRINT_OPTS.sci_mode is None else PRINT_OPTS.sci_mode
        values = vals.tolist()
        if self.sci_mode:
            widths = (len(f"{v:.{p}e}") for v in values)
        elif self.int_mode:
            widths = (len(f"{v:.0f}") + 1 for v in values)
        else:
            widths = (len(f"{v:.{p}f}") for v in values)
        self.max_width = max(self.max_width, max(widths))

    def format(self, v):
        if self.floating:
            if self.sci_mode:
                s = f"{v:{self.max_width}.{PRINT_OPTS.precision}e}"
            elif self.int_mode:
                s = f"{v:.0f}"
                if math.isfinite(v):
                    s += "."
            else:
                s = f"{v:.{PRINT_OPTS.precision}f}"
        else:
            s = f"{v}"
        return s.rjust(self.max_width)


def _summarized(arr):
    """torch's ``get_summarized_data``: the first and last ``edgeitems`` along every dimension."""
    e = PRINT_OPTS.edgeitems
    if arr.ndim == 0:
        return arr
    if arr.ndim == 1:
        return np.concatenate((arr[:e], arr[-e:])) if arr.shape[0] > 2 * e else arr
    if not e:
        return np.empty((0,) * arr.ndim, arr.dtype)
    rows = list(range(e)) + list(range(arr.shape[0] - e, arr.shape[0])) \
        if arr.shape[0] > 2 * e else range(arr.shape[0])
    return np.stack([_summarized(arr[i]) for i in rows])


def _vector(arr, indent, summarize, fmt):
    e = PRINT_OPTS.edgeitems
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / (fmt.max_width + 2)))
    if summarize and not e:
        data = ["..."]
    elif summarize and arr.shape[0] > 2 * e:
        data = ([fmt.format(v) for v in arr[:e].tolist()] + [" ..."]
                + [fmt.format(v) for v in arr[-e:].tolist()])
    else:
        data = [fmt.format(v) for v in arr.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _body(arr, indent, summarize, fmt):
    if arr.ndim == 0:
        return fmt.format(arr.item())
    if arr.ndim == 1:
        return _vector(arr, indent, summarize, fmt)
    e = PRINT_OPTS.edgeitems
    n = arr.shape[0]
    if summarize and n > 2 * e:
        parts = ([_body(arr[i], indent + 1, summarize, fmt) for i in range(e)] + ["..."]
                 + [_body(arr[i], indent + 1, summarize, fmt) for i in range(n - e, n)])
    else:
        parts = [_body(arr[i], indent + 1, summarize, fmt) for i in range(n)]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _tensor_str(arr, indent):
    summarize = arr.size > PRINT_OPTS.threshold
    fmt = _Formatter(_summarized(arr) if summarize else arr)
    return _body(arr, indent, summarize, fmt)


def _add_suffixes(text, suffixes, indent):
    """Append ``, suffix`` items, moving one to a new line when it would pass ``linewidth``."""
    out = [text]
    last = len(text) - text.rfind("\n") + 1  # torch's arithmetic, quirks included
    for s in suffixes:
        if last + len(s) + 2 > PRINT_OPTS.linewidth:
            out.append(",\n" + " " * indent + s)
            last = indent + len(s)
        else:
            out.append(", " + s)
            last += len(s) + 2
    out.append(")")
    return "".join(out)


def tensor_repr(t) -> str:
    from ._dispatch import read_value, values_hidden
    if not values_hidden() and not t._meta:
        read_value(t, "repr")
    if values_hidden():
        return (f"tensor(<value available after the step; read it in a step closure>, "
                f"size={tuple(t.shape)}, dtype={t._dtype!r}, device='lazy')")
    prefix = "tensor("
    indent = len(prefix)
    suffix = []
    default_float = D.get_default_dtype()
    if t._lazydev:  # torch names any device but the default one first
        suffix.append(f"device='{t.device}'")
    if t._meta:
        body = "..."
        suffix.append("device='meta'")
        suffix.append(f"size={tuple(t.shape)}")
        if t._dtype is not default_float:
            suffix.append(f"dtype={t._dtype!r}")
    elif t._data.size == 0:
        # no values to infer the dtype from: every dtype but the default float is shown
        body = "[]"
        if t.ndim != 1:
            suffix.append(f"size={tuple(t.shape)}")
        if t._dtype is not default_float:
            suffix.append(f"dtype={t._dtype!r}")
    else:
        arr = t._data
        if t._dtype is D.bfloat16 or t._dtype is D.float16:
            arr = arr.astype(np.float32)  # exact; tolist() then gives the same Python floats
        if not PRINT_OPTS.edgeitems:
            suffix.append(f"size={tuple(t.shape)}")
        if t._dtype not in (default_float, D.int64, D.bool):
            suffix.append(f"dtype={t._dtype!r}")
        body = _tensor_str(arr, indent)
    if t.grad_fn is not None:
        suffix.append(f"grad_fn=<{t.grad_fn.name().rsplit('::', 1)[-1]}>")  # (no C++ namespace)
    elif t._rg:
        suffix.append("requires_grad=True")
    head = "Parameter containing:\n" if type(t).__name__ == "Parameter" else ""
    return head + _add_suffixes(prefix + body, suffix, indent)
