"""Keep freed array memory in the process heap (glibc only).

Every training step allocates and frees the same large arrays (activations, gradients,
temporaries). With glibc's default dynamic thresholds those blocks are handed back to the kernel
and faulted in again on the next step, which costs more than the arithmetic for an MLP step. Like
the caching allocators of real frameworks, we ask malloc to keep up to 256 MiB of freed heap and to
serve blocks below 32 MiB from the heap. Peak memory is unchanged; memory freed late is returned to
the kernel later. No effect on other C libraries.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import sys

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def tune_malloc(trim_threshold: int = 256 << 20, mmap_threshold: int = 32 << 20) -> bool:
    """Apply the thresholds; returns False where glibc's ``mallopt`` is unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    ok = mallopt(_M_TRIM_THRESHOLD, trim_threshold) == 1
    ok &= mallopt(_M_MMAP_THRESHOLD, mmap_threshold) == 1
    return bool(ok)


TUNED = tune_malloc()
