"""``conv3d``'s kernels: the n-d convolution kernels of ``conv`` (im2col windows, one GEMM per
batch chunk; the same dot product over (channel, kD, kH, kW) per output, in that order) over
(N, C, D, H, W) or unbatched (C, D, H, W) arrays, with torch's argument rules for conv3d: its
checks are conv2d's (``conv._prep_conv``), and a weight of another rank than 5 gets the errors
of torch's convolution, which reads the number of spatial dims from the weight."""
from __future__ import annotations

import numpy as np

from .conv import (_as_float, _batch_x_shape, _conv_bwd_input, _conv_bwd_weight, _conv_fwd,
                   _conv_out, _float_dtype, _is_int, _operands, _prep_conv, _shape_str)

__all__ = ["conv3d_check", "conv3d_forward", "conv3d_backward_input", "conv3d_backward_weight"]


def _prep(x_shape, w_shape, stride, padding, dilation, groups, mkldnn=False, bias_shape=None):
    w_shape = tuple(int(s) for s in w_shape)
    if len(w_shape) != 5:
        _weight_rank(_batch_x_shape(x_shape, 3, "conv3d")[0], w_shape, stride, padding,
                     dilation)
    return _prep_conv(x_shape, w_shape, stride, padding, dilation, groups, 3, "conv3d", mkldnn,
                      bias_shape)


def _weight_rank(xb, w_shape, stride, padding, dilation):
    """torch's errors for conv3d's weight of another rank than 5: its convolution reads the
    number of spatial dims from the weight and checks conv3d's three-entry lists against it."""
    if len(w_shape) < 3:
        raise RuntimeError("weight should have at least three dimensions")
    k = len(w_shape) - 2
    if padding == "same":
        raise RuntimeError(f"Expected {k + 2}-dimensional input for {k + 2}-dimensional weight"
                           f"{_shape_str(w_shape)}, but got 5-dimensional input of size "
                           f"{_shape_str(xb)} instead")
    for name, v in (("stride", stride), ("padding", 0 if isinstance(padding, str) else padding),
                    ("dilation", dilation), ("output_padding", 0)):
        vals = [int(v)] * 3 if _is_int(v) else [int(e) for e in v]
        if len(vals) not in (1, k):
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {k} "
                               f"values to match the convolution dimensions, but got "
                               f"{name}={_shape_str(vals)}")


def conv3d_forward(x, w, stride=1, padding=0, dilation=1, groups=1, skip_padding=False,
                   mkldnn=False, bias_shape=None):
    """3-D cross-correlation on (N, C, D, H, W) or (C, D, H, W); w: (C_out, C/groups, kD, kH,
    kW). ``skip_padding``: torch's oneDNN direct kernel; ``mkldnn``: torch's oneDNN path (whose
    message a zero dilation gets); ``bias_shape``: the bias's, checked as torch does."""
    x, w = _operands(x, w)
    xb, unb, st, pads, dil, g = _prep(x.shape, w.shape, stride, padding, dilation, groups,
                                      mkldnn, bias_shape)
    if xb[1] == 0:  # torch: no input channels, an empty result of no channels
        y = np.zeros((xb[0], 0) + _conv_out(xb[2:], w.shape[2:], st, pads, dil),
                     np.result_type(x, w))
    else:
        y = _conv_fwd(x.reshape(xb), w, st, pads, dil, g, skip_padding)
    return y[0] if unb else y


def conv3d_check(x_shape, w_shape, stride=1, padding=0, dilation=1, groups=1, mkldnn=False,
                 bias_shape=None):
    """torch's argument and shape checks of conv3d, in its order (its dtype checks follow)."""
    _prep(x_shape, w_shape, stride, padding, dilation, groups, mkldnn, bias_shape)


def conv3d_backward_input(gy, w, x_shape, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv3d_forward w.r.t. its input (shape x_shape)."""
    gy, w = _as_float(gy), _as_float(w)
    xb, unb, st, pads, dil, g = _prep(x_shape, w.shape, stride, padding, dilation, groups)
    gx = _conv_bwd_input(gy.reshape((1,) + gy.shape) if unb else gy, w, xb, st, pads, dil, g)
    return np.ascontiguousarray(gx[0] if unb else gx)


def conv3d_backward_weight(gy, x, w_shape, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv3d_forward w.r.t. its weight (shape w_shape)."""
    gy, x = _as_float(gy), _as_float(x)
    w_shape = tuple(int(s) for s in w_shape)
    xb, unb, st, pads, dil, g = _prep(x.shape, w_shape, stride, padding, dilation, groups)
    if xb[1] == 0:
        return np.zeros(w_shape, _float_dtype(gy, x))
    return _conv_bwd_weight(gy.reshape((1,) + gy.shape) if unb else gy, x.reshape(xb), w_shape,
                            st, pads, dil, g)
