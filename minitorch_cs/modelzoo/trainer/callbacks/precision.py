"""``Precision`` (the interface) and ``MixedPrecision``: autocast, loss scaling, clipping.

Which scaler: bfloat16 needs none; on CSX float16/cbfloat16 use ``cstorch.amp.GradScaler``. On the
CPU backend mixed precision is bfloat16 only (other half types fall back to it, with a warning),
so no scaler is ever used there. The GPU backend cannot run here (no CUDA), so its
``torch.amp.GradScaler`` branch does not exist.
"""
from __future__ import annotations

import contextlib
import warnings
from abc import ABC, abstractmethod
from numbers import Number
from typing import Literal, Optional, Union

import minitorch_cs as cstorch
from minitorch_cs import torch

from .callback import CoreCallback

__all__ = ["Precision", "MixedPrecision"]


class Precision(CoreCallback, ABC):
    """How the trainer runs the forward pass, the backward pass and the optimizer step."""

    @abstractmethod
    def autocast_context_manager(self):
        """The context the forward pass runs in."""

    @abstractmethod
    def backward(self, loss):
        """Run the backward pass of ``loss``."""

    @abstractmethod
    def clip_gradients(self, optimizer):
        """Clip the gradients before the optimizer step."""

    @abstractmethod
    def optimizer_step(self, optimizer):
        """Step the optimizer."""


class MixedPrecision(Precision):
    """Mixed-precision training (see the module doc for the scaler choice).

    Args:
        enabled: turn mixed precision on (always on for CSX).
        fp16_type: "float16", "bfloat16" or "cbfloat16".
        precision_opt_level: sets ``cstorch.backends.csx.precision.optimization_level``.
        loss_scaling_factor: a static scale, or "dynamic".
        initial_loss_scale, steps_per_increase, min_loss_scale, max_loss_scale: dynamic loss
            scaling settings.
        max_gradient_norm / max_gradient_value: clip by norm or by value (not both).
        log_loss_scale: log the loss scale every step (default: when dynamic).
    """

    def __init__(self, enabled: bool = True,
                 fp16_type: Literal["float16", "bfloat16", "cbfloat16"] = "bfloat16",
                 precision_opt_level: Optional[Literal[0, 1, 2]] = None,
                 loss_scaling_factor: Union[float, Literal["dynamic"], None] = 1.0,
                 initial_loss_scale: Optional[float] = None, steps_per_increase: int = 2000,
                 min_loss_scale: Optional[float] = None, max_loss_scale: Optional[float] = None,
                 max_gradient_norm: Optional[float] = None,
                 max_gradient_value: Optional[float] = None,
                 log_loss_scale: Optional[bool] = None):
        if not (isinstance(loss_scaling_factor, Number) or loss_scaling_factor is None
                or loss_scaling_factor == "dynamic"):
            raise ValueError(f"'loss_scaling_factor' must be a float, None, or 'dynamic'.Got "
                             f"{loss_scaling_factor} instead.")
        self.scaler = None
        self.enabled = enabled
        cstorch.amp.enable_mixed_precision(enabled)
        self.fp16_type = fp16_type
        self.precision_opt_level = precision_opt_level
        self.loss_scaling_factor = loss_scaling_factor
        self.initial_loss_scale = initial_loss_scale
        self.steps_per_increase = steps_per_increase
        self.min_loss_scale = min_loss_scale
        self.max_loss_scale = max_loss_scale
        self.max_gradient_norm = max_gradient_norm
        self.max_gradient_value = max_gradient_value
        self.log_loss_scale = (loss_scaling_factor == "dynamic" if log_loss_scale is None
                               else log_loss_scale)
        if precision_opt_level is not None:
            cstorch.backends.csx.precision.optimization_level = precision_opt_level
        self.backend = None

    def pre_setup(self, trainer):
        self.backend = trainer.backend
        if not self.enabled:
            if self.backend.is_csx:
                warnings.warn("Mixed precision must be enabled for CSX. Setting enabled = True")
                self.enabled = True
                cstorch.amp.enable_mixed_precision()
            else:
                return
        valid = ["float16", "bfloat16", "cbfloat16"]
        if self.fp16_type not in valid:
            raise ValueError(f"Invalid value for \"fp16_type\". Expected one of {valid}. Got: "
                             f"{self.fp16_type}.")
        # Differs from Model Zoo: the fallback stores the string "bfloat16" (the real callback
        # stores torch.bfloat16, which then fails its own `== "bfloat16"` test in setup).
        if self.fp16_type == "cbfloat16":
            if not self.backend.is_csx:
                self.fp16_type = "bfloat16"
                warnings.warn("cbfloat16 is only supported on CSX. Setting half dtype to "
                              "bfloat16.")
            elif self.loss_scaling_factor != "dynamic":
                raise ValueError("In order to use cbfloat16, dynamic loss scaling must be "
                                 "enabled. Otherwise, gradients might underflow/overflow in the "
                                 "middle of training and cause NaNs. Please set "
                                 "`loss_scaling_factor` to `dynamic` to use cbfloat16.")
        elif self.backend.is_cpu and self.fp16_type != "bfloat16":
            self.fp16_type = "bfloat16"
            warnings.warn("Mixed precision on CPU is only supported with bfloat16. Setting half "
                          "dtype to bfloat16.")
        cstorch.amp.set_half_dtype(self.fp16_type)

    def setup(self, trainer):
        if not self.enabled or self.fp16_type == "bfloat16":
            if self.enabled and (self.loss_scaling_factor == "dynamic" or
                                 float(self.loss_scaling_factor or 1.0) != 1.0):
                trainer.logger.info("No need to use loss scaling when half dtype is bfloat16. "
                                    "Disabling gradient scaling.")
            self.scaler = None
        elif self.backend.is_csx:
            self.scaler = cstorch.amp.GradScaler(
                loss_scale=self.loss_scaling_factor, init_scale=self.initial_loss_scale,
                steps_per_increase=self.steps_per_increase, min_loss_scale=self.min_loss_scale,
                max_loss_scale=self.max_loss_scale)
        if self.max_gradient_norm is not None and self.max_gradient_norm <= 0.0:
            raise ValueError(f"max_gradient_norm has to be a positive float. Got "
                             f"{self.max_gradient_norm}")
        if self.max_gradient_value is not None and self.max_gradient_value <= 0.0:
            raise ValueError(f"max_gradient_value has to be a positive float. Got "
                             f"{self.max_gradient_value}")
        if self.max_gradient_norm is not None and self.max_gradient_value is not None:
            raise ValueError(f"Gradients can be clipped by norm(={self.max_gradient_norm}) or by "
                             f"value(={self.max_gradient_value}), but not both. Do not set both "
                             f"`max_gradient_norm` and `max_gradient_value`.")

    def autocast_context_manager(self):
        if not self.enabled or self.backend.is_csx:
            return contextlib.nullcontext()
        return cstorch.amp.autocast()

    def backward(self, loss):
        if self.scaler:
            self.scaler.scale(loss).backward()
        else:
            loss.backward()

    def on_before_optimizer_step(self, trainer, model, optimizer):
        if self.scaler:
            self.scaler.unscale_(optimizer)

    def clip_gradients(self, optimizer):
        params = [p for group in optimizer.param_groups for p in group["params"]]
        if self.max_gradient_norm is not None:
            torch.nn.utils.clip_grad_norm_(params, self.max_gradient_norm)
        elif self.max_gradient_value is not None:
            torch.nn.utils.clip_grad_value_(params, self.max_gradient_value)

    def optimizer_step(self, optimizer):
        if self.scaler:
            self.scaler.step(optimizer)
            self.scaler.update()
        else:
            optimizer.step()

    @cstorch.step_closure
    def check_non_recoverable_nan(self, loss_scale, non_clamped_loss_scale):
        if float(non_clamped_loss_scale) < float(loss_scale):
            raise RuntimeError(
                "Minimum loss scale threshold was reached but gradient norms are still "
                "encountering NaN or inf values. Dynamic loss scaling does not seem to be "
                "recovering NaN's in gradients and training is not progressing. Please check the "
                "model's hyperparameters and input data.")

    def on_train_batch_end(self, trainer, model, outputs, batch, batch_idx):
        if self.scaler:
            if self.log_loss_scale:
                trainer.log_metrics(loss_scale=self.scaler.get_scale())
            if self.backend.is_csx and self.loss_scaling_factor == "dynamic":
                self.check_non_recoverable_nan(self.scaler.get_scale(),
                                               self.scaler.get_non_clamped_scale())

    def on_save_checkpoint(self, trainer, state_dict):
        if self.scaler:
            state_dict["grad_scaler"] = self.scaler.state_dict()

    def on_load_checkpoint(self, trainer, state_dict):
        if not self.scaler:
            return
        if "grad_scaler" in state_dict:
            self.scaler.load_state_dict(state_dict["grad_scaler"])
            trainer.logger.info("Gradient scaler state found in checkpoint and loaded "
                                "successfully.")
        else:
            trainer.logger.info("Gradient scaler state not found in the checkpoint. Using "
                                "default initialized state.")
