"""View bookkeeping that needs no op: torch's creation marks of views, and the layout a view's
replay needs.

torch refuses to record gradients through an in-place change of some views, because their
history could not be rebuilt (its ``CreationMeta``): a view made in no_grad mode (and the views
made of it), an output of split/chunk/unbind, and an output of a custom autograd Function that
is a view of one of its inputs. The dispatch point refuses the in-place op
(:data:`DIRECT`), and an op that records gradients refuses such a view after its storage was
changed in place (:data:`INDIRECT`, :func:`check_marked`), each with torch 2.13's message.
"""
from __future__ import annotations

import re

import numpy as np

__all__ = ["check_marked", "made_without_grad", "mark_message", "multi_message", "view_target",
           "dim_order", "MARKED", "NO_GRAD_VIEW", "MULTI_NO_GRAD_FN", "VIA_NO_GRAD_VIEW",
           "CUSTOM_FUNCTION_VIEW", "DIRECT", "INDIRECT"]

MARKED = [False]  # set once a view carries a mark: recording an op then checks its operands


def check_marked(args):
    """torch's refusal to record an op on a marked view (see ``made_without_grad`` and
    ``_multi_view``) after its base or another view of it was changed in place: its history
    cannot be rebuilt."""
    for a in args:
        if getattr(a, "_rg", False) and a._base is not None:
            d = a.__dict__
            mark = d.get("_cmeta")
            if mark is not None and a._vc[0] != mark[1]:
                raise RuntimeError(mark_message(mark, INDIRECT))
            multi = d.get("_multi_view")
            if multi is not None and a._vc[0] != multi[2]:
                raise RuntimeError(multi_message(multi, INDIRECT))


# torch's creation marks of a view whose in-place use it refuses while recording gradients
# (``t.__dict__["_cmeta"] = (kind, version at creation, node)``): made in no_grad mode; an
# output of split/chunk/unbind made from a base that required no grad; a view made (with
# history) of a view that was made in no_grad mode; the one output of a custom Function that is
# a view of an input (or the input itself). The outputs of split/chunk/unbind with
# history carry ``_multi_view`` = (function name, output index, version) instead.
NO_GRAD_VIEW = "no_grad"
MULTI_NO_GRAD_FN = "multi_no_grad_fn"
VIA_NO_GRAD_VIEW = "via_no_grad"
_FORBIDDEN = ("Given that this use case is ambiguous and error-prone, it is forbidden. You can "
              "clarify your code by moving both the view and the inplace either both inside the "
              "no_grad block (if you don't want the inplace to be tracked) or both outside (if "
              "you want the inplace to be tracked).")
_MULTI = ("This view is the output of a function that returns multiple views. Such functions do "
          "not allow the output views to be modified inplace. You should replace the inplace "
          "operation by an out-of-place one.")
_CUSTOM = ("This view was created inside a custom Function (or because an input was returned "
           "as-is) and the autograd logic to handle view+inplace would override the custom "
           "backward associated with the custom Function, leading to incorrect gradients. This "
           "behavior is forbidden. You can fix this by cloning the output of the custom "
           "Function.")
CUSTOM_FUNCTION_VIEW = "custom_function"  # (node: the Function's name and the output's index)
DIRECT = "is being modified inplace"
INDIRECT = "its base or another view of its base has been modified inplace"


def made_without_grad(t, src):
    """A view made in no_grad mode (torch's CreationMeta::NO_GRAD_MODE): it requires grad when
    its base does, with no history and no gradient of its own (torch's view of a base that
    requires grad, made under no_grad, reports requires_grad and lets no gradient reach
    anything)."""
    t.__dict__["_cmeta"] = (NO_GRAD_VIEW, t._vc[0], None)
    MARKED[0] = True
    base = t._base
    if base is not None and base._rg and t._dtype.is_floating_point:
        t._rg = True


def mark_message(mark, how):
    """torch's message for an in-place change (``how``: ``DIRECT`` on the view itself,
    ``INDIRECT`` on its base or another view) that meets a view with creation ``mark``."""
    kind, _, node = mark
    if kind == CUSTOM_FUNCTION_VIEW:
        return f"Output {node[1]} of {node[0]} is a view and {how}. " + _CUSTOM
    if kind == VIA_NO_GRAD_VIEW:
        name = re.sub(r"Backward\d*$", "", node.name())
        return (f"Output 0 of {name} is a view of a view which was created in no_grad mode and "
                f"{how} with grad mode enabled. " + _FORBIDDEN)
    return (f"A view was created in no_grad mode and {how} with grad mode enabled. " +
            (_FORBIDDEN if kind == NO_GRAD_VIEW else _MULTI))


def multi_message(multi, how):
    fn, i = multi[0], multi[1]
    return f"Output {i} of {fn} is a view and {how}. " + _MULTI



def dim_order(a) -> tuple:
    """``a``'s dims from the slowest-varying stride to the fastest (ties keep dim order)."""
    return tuple(sorted(range(a.ndim), key=lambda d: -abs(a.strides[d])))



def view_target(view_fn, arr):
    """A writable copy of ``arr`` (an array of the base's shape) laid out as the base that
    ``view_fn`` was recorded on, so that ``view_fn`` of it is a view again."""
    order = getattr(view_fn, "base_order", None)
    if order is None or len(order) != arr.ndim:
        return np.array(arr, copy=True)
    out = np.empty([arr.shape[d] for d in order], arr.dtype).transpose(np.argsort(order))
    out[...] = arr
    return out
