"""Floating-point exceptions in our kernels are silent, as they are in torch.

torch returns ``inf``/``nan`` without a word where numpy warns ("divide by zero encountered in
log", "overflow encountered in cast"). We leave numpy's error state as the user set it (wrapping
every op in ``np.errstate`` would cost about 0.7 us per op) and instead ignore exactly those
RuntimeWarnings when numpy raises them from a frame of this package. A user's own numpy code, and
every other warning we emit, are untouched.
"""
from __future__ import annotations

import warnings

MESSAGE = r"(invalid value|divide by zero|overflow|underflow) encountered in "
MODULE = r"minitorch_cs\."


def install() -> None:
    """Add the filter (idempotent: ``warnings.filterwarnings`` drops an identical earlier entry)."""
    warnings.filterwarnings("ignore", message=MESSAGE, category=RuntimeWarning, module=MODULE)


install()


def warn_user(message: str, category=UserWarning) -> None:
    """Warn at the first frame outside this package, where torch's C++ warnings point."""
    import sys
    level, frame = 2, sys._getframe(1)  # stacklevel 2 is our caller
    while frame is not None and frame.f_globals.get("__name__", "").startswith("minitorch_cs."):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
