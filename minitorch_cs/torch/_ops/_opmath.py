"""The one half-precision policy (torch's CPU rule): kernels read float16/bfloat16 inputs as
float32 (torch's "opmath" type), compute in float32, and round only the result back -- those that
accumulate (sums, means, norms, softmax, normalization, losses) through :func:`opmath`, the
elementwise ones through :func:`opmath_dtype`. numpy would accumulate bfloat16 in bfloat16 (3000 ×
0.1 sums to 32). Every op module takes ``HALF`` and these two helpers from here.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import _dtype as D

# the half-precision dtypes: every kernel reads them as float32 ("opmath") and rounds once
HALF = (np.dtype(np.float16), np.dtype(D.bfloat16.np))


def opmath_dtype(dt):
    """The dtype a kernel computes in for arrays of ``dt``: float32 for half precision (torch's
    opmath type), else ``dt`` itself."""
    return np.dtype(np.float32) if dt in HALF else dt


def opmath(forward=None, *, half_dtype_in_float=False):
    """Wrap an ``Op.forward``: half-precision array arguments are widened to float32, and float32
    results are rounded back to the (first) half dtype. The op's saved context stays float32, so
    its backward computes in float32 too (the engine rounds gradients to each input's dtype).
    ``half_dtype_in_float``: a reduction whose half-precision ``dtype=`` converts the input to
    float32 instead, and rounds only its result (``mean``)."""
    if forward is None:
        return functools.partial(opmath, half_dtype_in_float=half_dtype_in_float)

    @functools.wraps(forward)
    def run(ctx, *args, **attrs):
        want = attrs.get("dtype")
        if want is not None:  # a reduction's ``dtype=``: torch converts the input to it first,
            want = np.dtype(want)  # then reduces by that dtype's rule (half: in float32)
            x = args[0]
            via = np.dtype(np.float32) if half_dtype_in_float and want in HALF else want
            if isinstance(x, np.ndarray) and x.dtype != via:
                args = (D.np_cast(x, via),) + args[1:]
            if want in HALF:
                attrs = dict(attrs, dtype=np.dtype(np.float32))
                if half_dtype_in_float:
                    return forward(ctx, *args, **attrs).astype(want)
        half = None
        for a in args:
            if isinstance(a, np.ndarray) and a.dtype in HALF:
                half = a.dtype
                break
        if half is None:
            return forward(ctx, *args, **attrs)
        ctx.half_dtype = half  # (a kernel whose float32 arithmetic differs for half inputs)
        wide = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype in HALF else a
                for a in args]
        out = forward(ctx, *wide, **attrs)
        if isinstance(out, tuple):
            return tuple(o.astype(half) if isinstance(o, np.ndarray) and o.dtype == np.float32
                         else o for o in out)
        return out.astype(half) if out.dtype == np.float32 else out
    return run


# torch's CPU loops (cpu_kernel_vec) run a contiguous loop two vectors at a time and leave the
# last elements to the scalar lambda (one loop up to 32,768 elements, the grain of its parallel
# split); a strided loop is scalar throughout. The elements per step on an AVX2 CPU, by the
# dtype's itemsize: 32 half values, 16 float32, 8 float64. Kernels whose scalar lambda rounds or
# associates differently from the vector one follow this split.
LOOP_STEP = {2: 32, 4: 16, 8: 8}


def scalar_loop_positions(x):
    """Where torch's scalar loop computes an elementwise result over ``x`` (a bool array of its
    shape). TensorIterator orders the dims by stride and merges those that are contiguous with
    each other into one run: its loop is vectorized over each run of contiguous elements, whose
    last ``run mod LOOP_STEP`` elements the scalar loop takes -- the last of the whole array for
    a dense one (C-, F- or otherwise permuted order), of each row for one with gaps between its
    rows. With no contiguous inner dim (or a broadcast one) every element is the scalar loop's."""
    step = LOOP_STEP[x.dtype.itemsize]
    if x.flags.c_contiguous or x.flags.f_contiguous:
        n = x.size
        flat = np.zeros(n, bool)
        flat[n - n % step:] = True
        return flat.reshape(x.shape, order="C" if x.flags.c_contiguous else "F")
    size = x.dtype.itemsize
    dims = sorted((d for d in range(x.ndim) if x.shape[d] > 1), key=lambda d: abs(x.strides[d]))
    if not dims or x.strides[dims[0]] != size:
        return np.ones(x.shape, bool)
    run, span, run_dims = 1, size, []
    for d in dims:  # the contiguous run: dims that continue the innermost one in memory
        if x.strides[d] != span:
            break
        run_dims.append(d)
        run *= x.shape[d]
        span *= x.shape[d]
    pos = np.zeros(x.shape, np.int64)  # each element's position within its run
    for d in run_dims:
        idx = np.arange(x.shape[d]) * (x.strides[d] // size)
        pos = pos + idx.reshape([-1 if i == d else 1 for i in range(x.ndim)])
    return pos >= run - run % step


def rounder(half):
    """Rounding to the half dtype ``half`` (values kept in float32), for kernels that compute in
    that dtype's own arithmetic; the identity when ``half`` is None."""
    if half is None:
        return lambda v: v
    return lambda v: np.asarray(v, np.float32).astype(half).astype(np.float32)


def as_saved(ctx, y):
    """The output a backward kernel reads: for a half-precision input, the result as torch
    returns it (rounded to the half dtype; the backward then computes in float32)."""
    half = getattr(ctx, "half_dtype", None)
    return y.astype(half).astype(np.float32) if half is not None else y

