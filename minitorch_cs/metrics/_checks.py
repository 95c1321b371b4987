"""Shape checks shared by the label/prediction metrics."""
from __future__ import annotations

__all__ = ["check_shapes"]


def check_shapes(labels, predictions, weights=None, same_shape_message=False):
    if labels.shape != predictions.shape:
        if same_shape_message:
            raise ValueError(f"`labels` and `predictions` have mismatched shapes. Their shapes "
                             f"were {labels.shape} and {predictions.shape} respectively.")
        raise ValueError(f"`labels` and `predictions` have mismatched shapes of {labels.shape} "
                         f"and {predictions.shape} respectively.")
    if weights is not None and weights.shape != labels.shape:
        raise ValueError(f"`labels`={labels.shape} and ",
                         f"`weights`={weights.shape} have mismatched shapes")
