"""Comparing an observed trace with its golden: structure exactly, floats within a tolerance."""
from __future__ import annotations

import math

__all__ = ["Comparison", "compare"]


class Comparison:
    """The outcome of one comparison: mismatches (path, message) and the worst float error."""

    def __init__(self, max_shown=8):
        self.mismatches = []
        self.count = 0
        self.worst_abs = 0.0
        self.worst_rel = 0.0
        self.worst_path = None
        self.max_shown = max_shown

    @property
    def ok(self) -> bool:
        return self.count == 0

    def add(self, path, msg):
        self.count += 1
        if len(self.mismatches) < self.max_shown:
            self.mismatches.append((path or "<root>", msg))

    def diff_text(self) -> str:
        lines = [f"  {p}: {m}" for p, m in self.mismatches]
        if self.count > len(self.mismatches):
            lines.append(f"  ... and {self.count - len(self.mismatches)} more mismatches")
        return "\n".join(lines)


def _short(x, n=70):
    r = repr(x)
    return r if len(r) <= n else r[: n - 3] + "..."


def _is_num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def compare(got, expected, rtol=0.0, atol=0.0, max_shown=8) -> Comparison:
    """Compare ``got`` with ``expected`` (plain JSON data). Floats match when
    ``|got - expected| <= atol + rtol * |expected|`` (NaN matches NaN, infinities match exactly);
    everything else must be equal, and an int never matches a bool."""
    c = Comparison(max_shown)
    _walk(got, expected, "", rtol, atol, c)
    return c


def _walk(got, exp, path, rtol, atol, c):
    if isinstance(exp, dict):
        if not isinstance(got, dict):
            c.add(path, f"got {_short(got)}, but should be a mapping {_short(exp)}")
            return
        missing = [k for k in exp if k not in got]
        extra = [k for k in got if k not in exp]
        if missing:
            c.add(path, f"missing keys {missing}")
        if extra:
            c.add(path, f"unexpected keys {extra}")
        for k in exp:
            if k in got:
                _walk(got[k], exp[k], f"{path}.{k}" if path else str(k), rtol, atol, c)
        return
    if isinstance(exp, list):
        if not isinstance(got, list):
            c.add(path, f"got {_short(got)}, but should be a list {_short(exp)}")
            return
        if len(got) != len(exp):
            c.add(path, f"got length {len(got)}, but should be {len(exp)} "
                        f"(got {_short(got)}, expected {_short(exp)})")
        for i, (g, e) in enumerate(zip(got, exp)):
            _walk(g, e, f"{path}[{i}]", rtol, atol, c)
        return
    if _is_num(exp) and _is_num(got) and (isinstance(exp, float) or isinstance(got, float)):
        g, e = float(got), float(exp)
        if math.isnan(e) or math.isnan(g):
            if not (math.isnan(e) and math.isnan(g)):
                c.add(path, f"got {g!r}, but should be {e!r}")
            return
        if math.isinf(e) or math.isinf(g):
            if g != e:
                c.add(path, f"got {g!r}, but should be {e!r}")
            return
        err = abs(g - e)
        rel = err / abs(e) if e != 0 else (0.0 if err == 0 else math.inf)
        if err > c.worst_abs:
            c.worst_abs, c.worst_path = err, path
        if err > 0 and rel > c.worst_rel:
            c.worst_rel = rel
        if err > atol + rtol * abs(e):
            c.add(path, f"got {g!r}, but should be {e!r} (abs err {err:.3g}, rel err {rel:.3g}; "
                        f"tolerance atol={atol:g} rtol={rtol:g})")
        return
    if type(got) is not type(exp) and not (_is_num(got) and _is_num(exp)):
        c.add(path, f"got {_short(got)} ({type(got).__name__}), but should be {_short(exp)} "
                    f"({type(exp).__name__})")
        return
    if got != exp:
        c.add(path, f"got {_short(got)}, but should be {_short(exp)}")
