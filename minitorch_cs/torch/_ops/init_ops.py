"""Primitives that ``nn.init`` needs beyond the elementwise table: ``erfinv`` (the inverse-CDF step
of ``trunc_normal_``; it is the public, differentiable ``torch.erfinv`` op of the elementwise
table, re-exported here) and a reduced QR (``orthogonal_``, not differentiable: the initializers
run under ``no_grad``).
"""
from __future__ import annotations

import numpy as np

from ._kernel import Kernel
from .elementwise import Erfinv

__all__ = ["Erfinv", "Qr"]


class Qr(Kernel):
    """Reduced QR of a 2-D matrix, ``torch.linalg.qr(A, mode="reduced")``: returns (Q, R)."""

    name = "linalg_qr"
    differentiable = False
    n_outputs = 2

    @staticmethod
    def forward(ctx, a):
        q, r = np.linalg.qr(a, mode="reduced")
        return q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)
