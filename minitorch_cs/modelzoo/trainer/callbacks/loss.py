"""``LossAccumulationCallback`` (logs ``loss`` / ``val_loss``) and ``CheckLoss`` (NaN/inf)."""
from __future__ import annotations

import math

import minitorch_cs as cstorch
from minitorch_cs import torch

from .callback import Callback, CoreCallback

__all__ = ["LossAccumulationCallback", "CheckLoss"]


class LossAccumulationCallback(CoreCallback):
    """Logs the training loss of every optimizer step (summed over accumulated batches), each
    validation batch's ``val_loss``, and the mean validation loss as ``loss`` at the end."""

    def __init__(self):
        self.accum_loss = 0
        self.total_eval_steps = 0
        self.avg_eval_loss = None

    def on_train_batch_end(self, trainer, model, outputs, batch, batch_idx):
        if "loss" in outputs:
            self.accumulate_train_loss(trainer, outputs["loss"])

    @cstorch.step_closure
    def accumulate_train_loss(self, trainer, loss):
        if trainer.should_run_optimizer_step:
            total = self.accum_loss + loss.item()
            self.accum_loss = 0
            trainer.log_metrics(loss=total)
        else:
            self.accum_loss += loss.item()

    def on_validate_batch_end(self, trainer, model, outputs, batch, batch_idx):
        if "loss" in outputs:
            self.accumulate_val_loss(trainer, outputs["loss"])

    def on_validate_end(self, trainer, model, loop):
        if self.avg_eval_loss is not None:
            trainer.logger.info(f"Avg Eval Loss: {self.avg_eval_loss}")
            self.avg_eval_loss = None

    @cstorch.step_closure
    def accumulate_val_loss(self, trainer, loss):
        self.accum_loss += loss.item()
        self.total_eval_steps += 1
        trainer.log_metrics(val_loss=loss.item())
        if trainer.is_final_iteration:
            self.avg_eval_loss = self.accum_loss / self.total_eval_steps
            trainer.log_metrics(loss=self.avg_eval_loss)
            self.accum_loss = 0
            self.total_eval_steps = 0


class CheckLoss(Callback):
    """Checks the loss is a scalar tensor, and that it is finite after every step."""

    def on_after_forward(self, trainer, model, outputs, batch):
        if "loss" not in outputs:
            return
        loss = outputs["loss"]
        if not isinstance(loss, torch.Tensor):
            raise TypeError(f"Expected loss to be a scalar torch.Tensor, but got {type(loss)} "
                            f"instead.")
        if math.prod(loss.shape) > 1:
            raise TypeError(f"Expected loss to be a scalar torch.Tensor, but got tensor with "
                            f"shape {loss.shape} instead.")

    def on_train_step_end(self, trainer, model, outputs, batch):
        if "loss" in outputs:
            self.check_loss(outputs["loss"])

    def on_validate_step_end(self, trainer, model, outputs, batch):
        if "loss" in outputs:
            self.check_loss(outputs["loss"])

    @cstorch.step_closure
    def check_loss(self, loss):
        postfix = ("This could potentially be due to selected hyperparameters such as the "
                   "learning rate, batch size, etc. or it could due an internal error. Please try "
                   "with different set of hyperparameters and contact Cerebras Support if the "
                   "issue persists.")
        value = float(loss.float().item()) if loss.numel() == 1 else None
        # Differs from Model Zoo: raises RuntimeError (the real ApplianceNanError is a
        # RuntimeError subclass from cerebras.appliance, which does not exist here).
        if value is not None and math.isnan(value):
            raise RuntimeError(f"NaN loss detected. {postfix}")
        if value is not None and math.isinf(value):
            raise RuntimeError(f"inf loss detected. {postfix}")
