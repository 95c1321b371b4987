"""``MetricsHistory``: every metric the trainer logs, kept in memory, and a loss/accuracy PNG
(``<summary_dir>/training_curves.png``) written at the end of ``fit`` when matplotlib is installed
(``pip install 'minitorch-cs[plot]'``); otherwise the log says the plot was skipped and why.

Not a Model Zoo callback: a core callback of minitorch_cs (users can't pass or remove it; set
``trainer.metrics_history.plot = False`` to skip the PNG).
"""
from __future__ import annotations

import math
import numbers

from .callback import CoreCallback

__all__ = ["MetricsHistory"]


def _scalar(value):
    from minitorch_cs import torch
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            return None
        return float(value.detach().float().item())
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    return None


class MetricsHistory(CoreCallback):
    def __init__(self):
        self.records = []  # (global step, name, value)
        self.plot = True
        self.plot_path = None
        self.skipped = None  # why the last plot was not written

    def record(self, metrics: dict, step: int) -> None:
        for name, value in metrics.items():
            v = _scalar(value)
            if v is not None:
                self.records.append((int(step), name, v))

    def series(self, name):
        """``[(step, value), ...]`` of one metric."""
        return [(s, v) for s, n, v in self.records if n == name]

    def write_fit_plot(self, trainer):
        """Called by ``Trainer.fit`` after ``on_fit_end``."""
        if self.plot and trainer.backend.is_e2e_execution:
            path = trainer.summary_dir / "training_curves.png"
            self.plot_path = self.write_plot(path)
            if self.plot_path is not None:
                trainer.logger.info(f"Wrote training curves to {self.plot_path}")
            else:
                trainer.logger.info(f"Skipped {path}: {self.skipped}")

    def write_plot(self, path):
        """Write the PNG; returns its path, or None (``self.skipped`` then says why: matplotlib
        is missing or broken, or no loss was logged)."""
        try:
            import matplotlib
            matplotlib.use("Agg", force=False)
            import matplotlib.pyplot as plt
        except ImportError as e:
            self.skipped = (f"matplotlib is not installed ({e}); pip install "
                            f"'minitorch-cs[plot]' to get the loss/accuracy plot")
            return None
        except Exception as e:  # noqa: BLE001 - a broken matplotlib must not fail the run
            self.skipped = f"matplotlib failed to load: {type(e).__name__}: {e}"
            return None
        train = self.series("loss")
        val = sorted({n for _, n, _ in self.records if n.endswith("/loss")})
        acc = sorted({n for _, n, _ in self.records if n.split("/")[-1].startswith("accuracy")})
        if not train and not val:
            self.skipped = "no loss was logged (nothing to plot)"
            return None
        ncols = 2 if acc else 1
        fig, axes = plt.subplots(1, ncols, figsize=(6 * ncols, 4), squeeze=False)
        ax = axes[0][0]
        if train:
            ax.plot([s for s, _ in train], [v for _, v in train], label="train loss", lw=1)
        for name in val:
            pts = self.series(name)
            ax.plot([s for s, _ in pts], [v for _, v in pts], "o-",
                    label=f"{name.split('/')[0]} loss")
        ax.set_xlabel("global step")
        ax.set_ylabel("loss")
        finite = [v for _, _, v in self.records if math.isfinite(v)]
        if finite and min(finite) > 0:
            ax.set_yscale("log")
        ax.legend()
        ax.grid(alpha=0.3)
        if acc:
            ax = axes[0][1]
            for name in acc:
                pts = self.series(name)
                ax.plot([s for s, _ in pts], [v for _, v in pts], "o-", label=name)
            ax.set_xlabel("global step")
            ax.set_ylabel("accuracy")
            ax.legend()
            ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        return path
