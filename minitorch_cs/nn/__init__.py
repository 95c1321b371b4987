"""``cerebras.pytorch.nn`` (``cstorch.nn``): its loss modules (``losses``) and, in ``functional``,
the CPU semantics of its functional helpers. Not provided: ``CTCLoss`` (torch's CTC loss is not part of
our torch subset) and the wafer-side tensor wrappers and scopes (``Parameter``, ``Buffer``,
``Scope``, ``SelectiveGrad``); asking for them raises AttributeError saying so (SPEC §8)."""
from __future__ import annotations

from . import functional
from .losses import *  # noqa: F401,F403
from .losses import __all__ as _losses_all

__all__ = ["functional"] + list(_losses_all)

_NOT_PROVIDED = {
    "CTCLoss": "torch.nn.CTCLoss is not part of minitorch_cs's torch subset",
    "Parameter": "the lazy-device tensor wrappers are internal to the wafer runtime; use "
                 "minitorch_cs.torch.nn.Parameter",
    "Buffer": "the lazy-device tensor wrappers are internal to the wafer runtime; use "
              "register_buffer",
    "Scope": "compiler scopes (autogen) have no meaning off the wafer",
    "SelectiveGrad": "selective weight updates are a wafer-only feature",
}


def __getattr__(name):
    if name in _NOT_PROVIDED:
        raise AttributeError(f"cstorch.nn.{name} is not provided by minitorch_cs: "
                             f"{_NOT_PROVIDED[name]} (SPEC.md §8).")
    raise AttributeError(f"module 'minitorch_cs.nn' has no attribute '{name}'")
