"""Primitives that ``nn.init`` needs beyond the elementwise table: ``erfinv`` (the inverse-CDF step
of ``trunc_normal_``) and a reduced QR (``orthogonal_``). Neither is differentiable: the
initializers run under ``no_grad``.
"""
from __future__ import annotations

import numpy as np
from . import _special as special

from .._dispatch import Op

__all__ = ["Erfinv", "Qr"]


class Erfinv(Op):
    """Elementwise inverse error function, in the input's dtype (``erfinv(±1) = ±inf``)."""

    name = "erfinv"
    differentiable = False

    @staticmethod
    def forward(ctx, x, out=None):
        if out is not None:
            return special.erfinv(x, out=out)
        return special.erfinv(x).astype(x.dtype, copy=False)


class Qr(Op):
    """Reduced QR of a 2-D matrix, ``torch.linalg.qr(A, mode="reduced")``: returns (Q, R)."""

    name = "linalg_qr"
    differentiable = False
    n_outputs = 2

    @staticmethod
    def forward(ctx, a):
        q, r = np.linalg.qr(a, mode="reduced")
        return q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)
