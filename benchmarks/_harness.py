"""Shared timing helpers: interleaved blocks so machine-speed drift cancels in the ratios."""
from __future__ import annotations

import statistics
import time


def interleaved_medians(fns: dict, steps: int = 200, warmup: int = 20, rounds: int = 10,
                        baseline: str | None = None) -> dict:
    """Median milliseconds per call of each function, measured in alternating blocks.

    With ``baseline``, also ``"<name>/<baseline>"``: the median over rounds of the ratio of the two
    functions' per-round medians (each round runs every function back to back, so a slow spell of
    the machine hits both sides of a ratio).
    """
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    samples = {k: [] for k in fns}
    per_round_medians = {k: [] for k in fns}
    per_round = max(1, steps // rounds)
    for _ in range(rounds):
        for name, fn in fns.items():
            block = []
            for _ in range(per_round):
                t = time.perf_counter()
                fn()
                block.append(time.perf_counter() - t)
            samples[name] += block
            per_round_medians[name].append(statistics.median(block))
    out = {k: statistics.median(v) * 1e3 for k, v in samples.items()}
    if baseline is not None:
        for k in fns:
            if k != baseline:
                out[f"{k}/{baseline}"] = statistics.median(
                    a / b for a, b in zip(per_round_medians[k], per_round_medians[baseline]))
    return out


def interleaved(fns: dict, steps: int = 400, warmup: int = 30, rounds: int = 10,
                baseline: str = "numpy") -> dict:
    """As :func:`interleaved_medians`, with each ratio as (median, min, max) over the rounds."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    per_round = max(1, steps // rounds)
    samples = {k: [] for k in fns}
    medians = {k: [] for k in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            block = []
            for _ in range(per_round):
                t = time.perf_counter()
                fn()
                block.append(time.perf_counter() - t)
            samples[name] += block
            medians[name].append(statistics.median(block))
    out = {k: statistics.median(v) * 1e3 for k, v in samples.items()}
    for k in fns:
        if k != baseline:
            out[f"{k}/{baseline}"] = round_ratio(medians, k, baseline)
    out["rounds"] = medians
    return out


def round_ratio(medians: dict, name: str, baseline: str):
    """(median, min, max) over rounds of ``name``'s per-round median over ``baseline``'s."""
    ratios = [a / b for a, b in zip(medians[name], medians[baseline])]
    return statistics.median(ratios), min(ratios), max(ratios)
