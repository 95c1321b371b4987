"""``MetricsFileLogger``: every logged metric appended to ``metrics.csv`` and ``metrics.jsonl``.

Not a Model Zoo logger (its TensorBoard logger plays this role there). Files go to
``<summary_dir>`` (``model_dir/<timestamp>``) unless ``log_dir`` is given:

* ``metrics.csv``: one row per metric value: ``step,name,value``;
* ``metrics.jsonl``: one JSON object per ``log_metrics`` call: ``{"step": 10, "loss": 0.3, ...}``.

Tensors become floats (lists for non-scalars); strings are kept; other values are ``repr``'d.
"""
from __future__ import annotations

import csv
import json
import numbers
from pathlib import Path

from .logger import Logger

__all__ = ["MetricsFileLogger"]


def _jsonable(value):
    from minitorch_cs import torch
    if isinstance(value, torch.Tensor):
        value = value.detach().float()
        return float(value.item()) if value.numel() == 1 else value.numpy().tolist()
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return repr(value)


class MetricsFileLogger(Logger):
    def __init__(self, log_dir=None):
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self._csv_file = self._json_file = self._csv = None

    def setup(self, trainer):
        if self.log_dir is None:
            self.log_dir = trainer.summary_dir
        self.log_dir.mkdir(parents=True, exist_ok=True)
        csv_path = self.log_dir / "metrics.csv"
        new = not csv_path.exists()
        self._csv_file = csv_path.open("a", newline="")
        self._csv = csv.writer(self._csv_file)
        if new:
            self._csv.writerow(["step", "name", "value"])
        self._json_file = (self.log_dir / "metrics.jsonl").open("a")

    @property
    def csv_path(self) -> Path:
        return self.log_dir / "metrics.csv"

    @property
    def jsonl_path(self) -> Path:
        return self.log_dir / "metrics.jsonl"

    def log_metrics(self, metrics, step):
        if self._csv is None:
            return
        row = {"step": int(step)}
        for name, value in metrics.items():
            v = _jsonable(value)
            row[name] = v
            self._csv.writerow([int(step), name, json.dumps(v) if isinstance(v, list) else v])
        self._json_file.write(json.dumps(row) + "\n")

    def flush(self):
        for f in (self._csv_file, self._json_file):
            if f is not None:
                f.flush()

    def finalize(self):
        for f in (self._csv_file, self._json_file):
            if f is not None:
                f.close()
        self._csv_file = self._json_file = self._csv = None
