"""Shared timing helpers: interleaved medians so machine-speed drift cancels in the ratios."""
from __future__ import annotations

import statistics
import time


def interleaved_medians(fns: dict, steps: int = 200, warmup: int = 20, rounds: int = 5) -> dict:
    """Median milliseconds per call of each function, measured in alternating blocks."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    samples = {k: [] for k in fns}
    per_round = max(1, steps // rounds)
    for _ in range(rounds):
        for name, fn in fns.items():
            for _ in range(per_round):
                t = time.perf_counter()
                fn()
                samples[name].append(time.perf_counter() - t)
    return {k: statistics.median(v) * 1e3 for k, v in samples.items()}
