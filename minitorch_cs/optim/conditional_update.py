"""Conditional (skippable) updates for dynamic loss scaling (mirrors
``cerebras/pytorch/amp/conditional_update.py``).

A ``ConditionalUpdateManager`` remembers the values of the tensors marked inside it; on exit,
when its condition is a tensor, every marked tensor becomes ``where(condition, new, old)`` — a
data-dependent rollback written as tensor ops, so a captured graph can replay it.
"""
from __future__ import annotations

from .. import torch

__all__ = ["ConditionalUpdateManager", "update_if_finite", "isfinite"]


class ConditionalUpdateManager:
    """Mark tensors (``mark_tensor``) and keep their update only where ``condition`` is true."""

    def __init__(self):
        self.condition = None
        self.marked_tensors = []

    def set_condition(self, condition) -> None:
        self.condition = condition

    def mark_tensor(self, tensor) -> None:
        """Remember ``tensor``'s current value (inside the context only)."""
        if not self.marked_tensors:
            raise RuntimeError(f"Failed to mark tensor {tensor}. Please ensure that the "
                               f"ConditionalUpdateManager context is entered before attempting "
                               f"to mark any tensors.")
        marked = self.marked_tensors[-1]
        if id(tensor) not in marked:
            marked[id(tensor)] = (tensor, tensor.detach().clone())

    @property
    def active(self) -> bool:
        return bool(self.marked_tensors)

    def __enter__(self):
        self.marked_tensors.append({})
        return self

    def __exit__(self, *exc):
        if not self.marked_tensors:
            raise RuntimeError("Stack for marked tensors is empty on __exit__, please ensure that "
                               "every __exit__ call for ConditionalUpdateManager has a "
                               "corresponding preceding __enter__ call.")
        marked = self.marked_tensors.pop()
        if isinstance(self.condition, torch.Tensor):
            with torch.no_grad():
                for tensor, old in marked.values():
                    tensor.copy_(torch.where(self.condition, tensor, old))
        if not self.marked_tensors:
            self.condition = None
        return False


def update_if_finite(optimizer, tensor) -> None:
    """Mark ``tensor`` so a non-finite dynamic-loss-scaling step of ``optimizer`` rolls it back.

    Only has an effect while ``GradScaler.step(optimizer)`` runs the optimizer step.
    """
    stash = getattr(optimizer, "_amp_stash", None)
    if stash is not None and stash.dls_update_manager.active:
        stash.dls_update_manager.mark_tensor(tensor)


def isfinite(optimizer):
    """The finiteness (a bool tensor) of ``optimizer``'s last dynamic-loss-scaling step, or True."""
    stash = getattr(optimizer, "_amp_stash", None)
    if stash is None:
        return True
    value = getattr(stash, "isfinite", True)
    return True if value is None else value
