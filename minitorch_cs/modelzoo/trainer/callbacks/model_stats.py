"""``CountParams``: a table of the model's parameters and buffers, logged after setup."""
from __future__ import annotations

import re

from .callback import Callback

__all__ = ["CountParams"]


def _human(nbytes: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if nbytes < 1024 or unit == "TiB":
            return f"{nbytes:.1f}{unit}"
        nbytes /= 1024


class CountParams(Callback):
    """Counts parameters (and buffers) per name; ``search_and_replace`` regex pairs group names
    (e.g. ``[["\\\\.layers\\\\.\\\\d+\\\\.", ".grouped_layers."]]``); ``order_by`` sorts rows by
    a column ("Name", "# Elements", "Size", ...)."""

    COLUMNS = ("Type", "Name", "Dtype", "Shape", "# Elements", "Size", "% of Total", "Trainable")

    def __init__(self, search_and_replace=None, order_by=None, descending: bool = False):
        self._search_and_replace = search_and_replace or []
        if isinstance(order_by, str):
            order_by = [order_by]
        for col in order_by or []:
            if col not in self.COLUMNS:
                raise ValueError(f"Invalid order_by column {col!r}. Expected one of "
                                 f"{list(self.COLUMNS)}")
        self._order_by = order_by
        self._descending = descending

    def post_setup(self, trainer):
        text, rows = self.get_table(trainer.model)
        trainer.logger.info(text)
        trainer.log_metrics(parameter_counts=text)

    def get_table(self, model):
        entries = {}
        for kind, items in (("param", model.named_parameters()),
                            ("buffer", model.named_buffers())):
            for name, t in items:
                entries[name] = [kind, name, str(t.dtype), str(tuple(t.shape)), t.numel(),
                                 t.numel() * t.element_size(), t.requires_grad]
        groups = {}
        for name in list(entries):
            new, n = name, 0
            for pattern, repl in self._search_and_replace:
                new, k = re.subn(pattern, repl, new)
                n += k
            if n:
                groups.setdefault(new, []).append(entries.pop(name))
        rows = list(entries.values())
        for gname, members in groups.items():
            trainable = {m[6] for m in members}
            rows.append(["group", gname, "N/A", "N/A", sum(m[4] for m in members),
                         sum(m[5] for m in members),
                         trainable.pop() if len(trainable) == 1 else "N/A"])
        total = sum(r[4] for r in rows) or 1
        table = [[r[0], r[1], r[2], r[3], r[4], r[5], 100.0 * r[4] / total, r[6]] for r in rows]
        if self._order_by:
            keys = [self.COLUMNS.index(c) for c in self._order_by]
            table.sort(key=lambda r: tuple(r[k] for k in keys), reverse=self._descending)
        shown = [[r[0], r[1], r[2], r[3], f"{r[4]:,}", _human(r[5]), f"{r[6]:.4g}", str(r[7])]
                 for r in table]
        widths = [max(len(h), *(len(row[i]) for row in shown)) if shown else len(h)
                  for i, h in enumerate(self.COLUMNS)]
        line = "+".join("-" * (w + 2) for w in widths)
        out = ["", " | ".join(h.ljust(w) for h, w in zip(self.COLUMNS, widths)), line]
        out += [" | ".join(c.ljust(w) for c, w in zip(row, widths)) for row in shown]
        params = [r for r in rows if r[0] != "buffer"]
        trainable = [r for r in params if r[6] is True]
        out += ["", f"Total Params (including frozen): {sum(r[4] for r in params):,}",
                f"Total Bytes (including frozen): {_human(sum(r[5] for r in params))}",
                f"Total Trainable Params: {sum(r[4] for r in trainable):,}",
                f"Total Trainable Bytes: {_human(sum(r[5] for r in trainable))}"]
        return "\n".join(out), table
