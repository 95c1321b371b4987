"""``unfold``/``fold`` (torch's ``im2col``/``col2im``): sliding 2-D blocks of an image as
columns, and columns summed back into an image.

``im2col`` is the convolution's column matrix: rows ``(c, i, j)`` (channel-major, then the
kernel offset, as torch orders them) of the zero-padded image's windows. ``col2im`` adds the rows back in that order, offset after offset, into a
zero image (its padding dropped): every pixel receives its contributions in torch's order (its
kernel walks the rows ``c * kh * kw + i * kw + j`` and adds each into the image), one addition
at a time in the column's dtype.
"""
from __future__ import annotations

import numpy as np

from .conv import _im2col

__all__ = ["blocks", "col2im", "im2col"]


def blocks(size, k, d, p, s):
    """The number of sliding blocks along one dim (floor division, as torch's ``div_rtn``)."""
    return (size + 2 * p - (d * (k - 1) + 1)) // s + 1


def im2col(x, k, d, p, s):
    """``x`` (N, C, H, W) -> (N, C*kh*kw, L) for kernel ``k``, dilation ``d``, padding ``p`` and
    stride ``s`` (pairs): the convolution's column matrix."""
    cols, _, _ = _im2col(x, k[0], k[1], s, ((p[0], p[0]), (p[1], p[1])), d, 1)
    return cols.reshape(x.shape[0], x.shape[1] * k[0] * k[1], cols.shape[-1])


def col2im(cols, size, k, d, p, s):
    """``cols`` (N, C*kh*kw, L) summed into an image (N, C, H, W) of spatial ``size``."""
    n = cols.shape[0]
    (h, w), (kh, kw), (dh, dw), (ph, pw), (sh, sw) = size, k, d, p, s
    c = cols.shape[1] // (kh * kw)
    ho, wo = blocks(h, kh, dh, ph, sh), blocks(w, kw, dw, pw, sw)
    v = cols.reshape(n, c, kh, kw, ho, wo)
    img = np.zeros((n, c, h + 2 * ph, w + 2 * pw), cols.dtype)
    for i in range(kh):
        for j in range(kw):
            img[:, :, i * dh:i * dh + (ho - 1) * sh + 1:sh,
                j * dw:j * dw + (wo - 1) * sw + 1:sw] += v[:, :, i, j]
    return np.ascontiguousarray(img[:, :, ph:ph + h, pw:pw + w])
