"""``GradientAccumulationCallback``: one optimizer step every ``grad_accum_steps`` batches
(CPU/GPU; the wafer tiles micro-batches itself, so CSX ignores it)."""
from __future__ import annotations

from .callback import CoreCallback

__all__ = ["GradientAccumulationCallback"]


class GradientAccumulationCallback(CoreCallback):
    def __init__(self):
        self.grad_accum_steps = None
        self.should_run_optimizer_step = True

    def setup(self, trainer):
        self.grad_accum_steps = getattr(trainer.loop, "grad_accum_steps", 1)
        if trainer.backend.is_csx:
            if self.grad_accum_steps != 1:
                trainer.logger.info("`grad_accum_steps` param has no effect when running on the "
                                    "CSX. Consider setting `micro_batch_size` to \"auto\" or "
                                    "\"disable\" to enable or disable micro batch tiling on CSX.")
            self.grad_accum_steps = 1
        else:
            trainer.logger.info(f"Gradient accumulation steps is {self.grad_accum_steps}")

    def on_train_batch_start(self, trainer, model, batch, batch_idx):
        if self.grad_accum_steps > 1:
            self.should_run_optimizer_step = (batch_idx + 1) % self.grad_accum_steps == 0

    def on_after_forward(self, trainer, model, outputs, batch):
        if self.grad_accum_steps > 1 and "loss" in outputs:
            # Not in place: keeps the backward pass simple.
            outputs["loss"] = outputs["loss"] / self.grad_accum_steps
