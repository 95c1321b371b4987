"""``ArtifactDirCallback``: ``model_dir/cerebras_logs/<YYYYmmdd_HHMMSS>`` (+ ``latest`` link) for
the backend's artifacts and ``run.log``, and ``model_dir/<YYYYmmdd_HHMMSS>`` for summaries."""
from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, is_dataclass
from pathlib import Path

from minitorch_cs.utils.data import Schedule

from .callback import CoreCallback

__all__ = ["ArtifactDirCallback", "create_timestamped_dir"]


def create_timestamped_dir(parent: Path, suffix: str = "") -> Path:
    """A new directory ``parent/<YYYYmmdd_HHMMSS><suffix>``."""
    stem = time.strftime("%Y%m%d_%H%M%S") + (suffix or "")
    path = Path(parent) / stem
    n = 0
    while True:
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:
            # Differs from Model Zoo: a run started in the same second gets a numbered suffix
            # (the real callback sleeps 1.5 s and retries once).
            n += 1
            path = Path(parent) / f"{stem}_{n}"


def _symlink(link: Path, target) -> None:
    try:
        if link.is_symlink() or link.exists():
            link.unlink()
        os.symlink(target, link)
    except OSError:
        pass


class ArtifactDirCallback(CoreCallback):
    """Creates the artifact and summary directories and writes executor metadata."""

    def __init__(self):
        self.loop = None

    def pre_setup(self, trainer):
        logs = trainer.model_dir / "cerebras_logs"
        trainer.artifact_dir = create_timestamped_dir(logs)
        _symlink(logs / "latest", trainer.artifact_dir.relative_to(logs))
        trainer.summary_dir = trainer.model_dir / trainer.artifact_dir.name
        trainer.summary_dir.mkdir(parents=True, exist_ok=True)

    @staticmethod
    def _save_metadata(artifact_dir, metadata):
        with (Path(artifact_dir) / "metadata.json").open("w") as f:
            json.dump(metadata, f)

    def on_train_start(self, trainer, model, train_dataloader, loop, loop_idx):
        self.loop = loop

    def on_train_batch_start(self, trainer, model, batch, batch_idx):
        if self.loop is None:
            return
        ckpt = trainer.schedule.checkpoint_steps
        if isinstance(ckpt, Schedule):
            ckpt = [asdict(r) if is_dataclass(r) else repr(r) for r in ckpt.intervals]
        self._save_metadata(trainer.executor.artifact_dir,
                            {"stage": "train", "num_steps": trainer.schedule.train_steps,
                             "checkpoint_steps": ckpt})
        self.loop = None

    def on_validate_start(self, trainer, model, val_dataloader, loop):
        self.loop = loop

    def on_validate_batch_start(self, trainer, model, batch, batch_idx):
        if self.loop is None:
            return
        self._save_metadata(trainer.executor.artifact_dir,
                            {"stage": "validate", "num_steps": self.loop.eval_steps})
        self.loop = None
