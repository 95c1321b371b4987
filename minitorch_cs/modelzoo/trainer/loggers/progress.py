"""``ProgressLogger``: a live progress bar (tqdm) with loss and rate, and progress lines in the
trainer's log (``| Train Device=CSX, Step=50, Loss=0.31, Rate=..., GlobalRate=...``)."""
from __future__ import annotations

import sys
import time
from collections import defaultdict

import minitorch_cs as cstorch
from minitorch_cs.utils.data import infer_batch_size

from ..callbacks.profiler import RateTracker, TimeRemaining
from .logger import Logger

__all__ = ["ProgressLogger"]


def _value(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


class ProgressLogger(Logger):
    """Args:
        progress_bar: show a tqdm bar per train/validation loop (True/False); None (default):
            only when stderr is a terminal. Progress lines go to the trainer's logger either way.
    """

    def __init__(self, progress_bar=None):
        self.progress_bar = progress_bar
        self.metrics = defaultdict(dict)
        self.total_samples = RateTracker()
        self.bar = None
        self._bar_rate = RateTracker()

    # -- metrics ------------------------------------------------------------------------------
    def log_metrics(self, metrics, step):
        self.metrics[step].update({k.split("/")[-1]: v for k, v in metrics.items()})

    @staticmethod
    def format_rate(rate: float) -> str:
        return f"{rate:.3g} samples/sec" if rate < 1.0 else f"{rate:.2f} samples/sec"

    def format_metrics(self, step):
        out = []
        m = self.metrics.pop(step, None)
        if not m:
            return out
        loss = m.get("loss", m.get("val_loss"))
        if _value(loss) is not None:
            out.append(f"Loss={_value(loss):.5f}")
        for key, label in (("local_samples_per_sec", "Rate"),
                           ("avg_samples_per_sec", "GlobalRate")):
            if _value(m.get(key)) is not None:
                out.append(f"{label}={self.format_rate(_value(m[key]))}")
        for key, label in (("loop_time_remaining", "LoopTimeRemaining"),
                           ("time_remaining", "TimeRemaining")):
            t = m.get(key)
            if t is not None:
                sign = ">" if getattr(t, "stages_missing_duration", False) else "="
                out.append(f"{label}{sign}{TimeRemaining(float(t))}")
        return out

    # -- the bar --------------------------------------------------------------------------------
    def _open_bar(self, total, desc, initial=0):
        self._close_bar()
        show = self.progress_bar if self.progress_bar is not None else sys.stderr.isatty()
        if not show:
            return
        from tqdm import tqdm
        self.bar = tqdm(total=total, initial=initial, desc=desc, unit="step", leave=True,
                        dynamic_ncols=True, mininterval=0.25, file=sys.stderr)
        self._bar_rate.reset()

    def _close_bar(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def _advance_bar(self, batch_size, loss):
        if self.bar is None:
            return
        if batch_size:
            self._bar_rate.add(batch_size)
        post = {}
        if loss is not None:
            post["loss"] = f"{loss:.4f}"
        post["rate"] = f"{self._bar_rate.rate():.1f} samples/s"
        self.bar.set_postfix(post, refresh=False)
        self.bar.update(1)

    # -- hooks ----------------------------------------------------------------------------------
    def on_fit_start(self, trainer, train_dataloader, val_dataloader, loop):
        self.total_samples.reset()
        self._fit_start = time.perf_counter()

    def on_train_start(self, trainer, model, train_dataloader, loop, loop_idx):
        self._open_bar(trainer.schedule.train_steps,
                       f"train {loop_idx + 1}/{trainer.schedule.epochs}")

    def on_train_batch_end(self, trainer, model, outputs, batch, batch_idx):
        batch_size = infer_batch_size(batch)
        if batch_size:
            self.total_samples.add(batch_size)
        self.print_training_progress(trainer, batch_size)

    @cstorch.step_closure
    def print_training_progress(self, trainer, batch_size=None):
        step = trainer.global_step
        loss = _value(self.metrics.get(step, {}).get("loss"))
        self._advance_bar(batch_size, loss)
        if trainer.should_run_optimizer_step and trainer.is_log_step:
            msg = [f"| Train Device={trainer.backend.device}", f"Step={step}",
                   *self.format_metrics(step)]
            self._write(trainer, ", ".join(msg))
        elif trainer.should_run_optimizer_step:
            self.metrics.pop(step, None)

    def on_train_end(self, trainer, model, loop, loop_idx):
        self._close_bar()
        trainer.logger.info("Training completed successfully!")

    def on_validate_start(self, trainer, model, val_dataloader, loop):
        # The loop's eval_steps is only known once the loop's own hook ran: open the bar with
        # the first batch.
        self._close_bar()
        self._val_loop = loop

    def on_enter_validate(self, trainer, stack, val_dataloader, loop):
        setattr(self, loop.on_start_hook, self.on_validate_start)
        setattr(self, loop.on_batch_end_hook, self.on_validate_batch_end)
        setattr(self, loop.on_end_hook, self.on_validate_end)

    def on_validate_batch_end(self, trainer, model, outputs, batch, batch_idx):
        if batch_idx == 0 and getattr(self, "_val_loop", None) is not None:
            self._open_bar(self._val_loop.eval_steps, trainer.name_scope_path.rstrip("/") or
                           "validate")
            self._val_loop = None
        self.print_validation_progress(trainer, batch_idx, infer_batch_size(batch))

    @cstorch.step_closure
    def print_validation_progress(self, trainer, batch_idx, batch_size=None, prefix="Eval"):
        step = trainer.global_step
        loss = _value(self.metrics.get(step, {}).get("val_loss"))
        self._advance_bar(batch_size, loss)
        if trainer.is_log_step:
            msg = [f"| {prefix} Device={trainer.backend.device}", f"GlobalStep={step}",
                   f"Batch={batch_idx + 1}", *self.format_metrics(step)]
            self._write(trainer, ", ".join(msg))

    def on_validate_end(self, trainer, model, loop):
        self._close_bar()
        trainer.logger.info("Evaluation completed successfully!")

    def on_fit_end(self, trainer, loop):
        self._close_bar()
        if trainer.backend.is_e2e_execution:
            seconds = time.perf_counter() - getattr(self, "_fit_start", time.perf_counter())
            trainer.logger.info(f"Processed {int(self.total_samples.total_count)} training "
                                f"sample(s) in {seconds:.3f} seconds.")

    def on_fit_exception(self, trainer, exception):
        self._close_bar()

    def _write(self, trainer, line):
        if self.bar is not None:
            # Log lines above the bar instead of through it.
            with self.bar.external_write_mode():
                trainer.logger.info(line)
        else:
            trainer.logger.info(line)
