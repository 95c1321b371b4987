"""Fast kernels that must give exactly the values of the plain rule they replace (eager and the
replay plan share them): relu's bit-mask gradient select, the transposed linear forward and the
folded product of a stack of matrices."""
import numpy as np
import pytest

from minitorch_cs.torch._kernels.select import relu_grad
from minitorch_cs.torch._ops.linalg import _matmul, wide_product

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 3.0, -3.0]


@pytest.mark.parametrize("shape", [(7, 9), (70, 90)])  # the select, and the bit masks
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_relu_grad_is_the_select_bit_for_bit(shape, dtype, layout):
    rng = np.random.default_rng(0)
    y = np.maximum(rng.standard_normal(shape), 0).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    y.flat[:len(SPECIAL)] = np.maximum(np.array(SPECIAL), 0)  # (NaN stays NaN: passes g)
    y.flat[0] = np.nan
    g.flat[-len(SPECIAL):] = SPECIAL
    if layout == "F":
        y, g = np.asfortranarray(y), np.asfortranarray(g)
    elif layout == "strided":
        y, g = y[:, ::2], g[:, ::2]
    want = np.where(y <= 0, np.zeros((), dtype), g)
    got = relu_grad(y, g)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    out = np.full(want.shape, 7, dtype)
    assert relu_grad(y, g, out) is out and out.tobytes() == want.tobytes()


@pytest.mark.parametrize("m,k,n", [(4, 256, 256), (8, 784, 256), (32, 784, 256), (16, 64, 4096)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_wide_linear_forward_keeps_the_products_values_and_layout(m, k, n, dtype):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((m, k)).astype(dtype)
    w = rng.standard_normal((n, k)).astype(dtype)
    assert wide_product(x, w.T)
    y = _matmul(x, w.T)
    assert y.flags.c_contiguous and y.shape == (m, n) and y.dtype == dtype
    # each entry is one dot product of the same operands: equal to numpy's own orientation up
    # to the BLAS kernel's summation (equal here on OpenBLAS; never further than rounding)
    np.testing.assert_allclose(y, x @ w.T, rtol=1e-5 if dtype == np.float32 else 1e-12,
                               atol=1e-4 if dtype == np.float32 else 1e-10)


def test_wide_rule_leaves_other_products_alone():
    x = np.ones((8, 784), np.float32)
    w = np.ones((256, 784), np.float32)
    assert not wide_product(x[:3], w.T)  # fewer than 4 rows (BLAS's vector path)
    assert not wide_product(x, np.ascontiguousarray(w.T))  # no transposed weight
    assert not wide_product(x.astype(np.float16), w.T.astype(np.float16))
    assert not wide_product(np.ones((128, 784), np.float32), w.T)  # 4 * 128 > 256 columns
    assert not wide_product(np.ones((8, 16), np.float32), np.ones((256, 16), np.float32).T)


@pytest.mark.parametrize("a_shape, b_shape", [((2, 3, 5), (5, 4)), ((2, 3, 4, 5), (5, 6)),
                                              ((0, 3, 5), (5, 2)), ((2, 3, 0), (0, 4)),
                                              ((64, 12, 64), (64, 192))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64])
@pytest.mark.parametrize("strided", [False, True])
def test_a_stack_times_a_matrix_is_one_product_of_its_rows(a_shape, b_shape, dtype, strided):
    """torch's matmul folds (..., k) @ (k, n) into one mm over the stack's rows; so do ours,
    for every dtype and layout: the values are those of the 2-D product of the rows."""
    rng = np.random.default_rng(2)
    a = (rng.standard_normal(a_shape) * 4).astype(dtype)
    b = (rng.standard_normal(b_shape) * 4).astype(dtype)
    if strided:
        a = np.swapaxes(np.swapaxes(a, 0, 1).copy(), 0, 1)  # leading dims not C-ordered
    rows = np.ascontiguousarray(a).reshape(int(np.prod(a_shape[:-1])), a_shape[-1])
    want = _matmul(rows, b).reshape(a_shape[:-1] + b_shape[1:])
    got = _matmul(a, b)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_linear_gradient_of_half_inputs_accumulates_in_float32():
    """The input gradient of a half-precision linear is torch's mm: float32 products and sums,
    one rounding (through the BLAS in float32; numpy's float16 matmul has no BLAS path)."""
    import minitorch_cs.torch as torch
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 5, 40)).astype(np.float16)
    w = rng.standard_normal((7, 40)).astype(np.float16)
    g = rng.standard_normal((3, 5, 7)).astype(np.float16)
    xt = torch.tensor(x, requires_grad=True)
    torch.nn.functional.linear(xt, torch.tensor(w)).backward(torch.tensor(g))
    want = (g.astype(np.float32).reshape(15, 7) @ w.astype(np.float32)).astype(np.float16)
    assert xt.grad.numpy().tobytes() == want.reshape(3, 5, 40).tobytes()


def _max_pool_scan(x, k, s, p, d, ceil_mode):
    """torch's CPU max-pool scan, element by element: start at the window's first in-bounds
    position, take a later element when it is greater or NaN."""
    from minitorch_cs.torch._kernels.conv import _pool_params
    (kh, kw), (sh, sw), (ph, pw), (dh, dw), ho, wo = _pool_params(
        x.shape, k, s, p, d, ceil_mode, "max_pool2d")
    n, c, h, w = x.shape
    y = np.empty((n, c, ho, wo), x.dtype)
    idx = np.empty((n, c, ho, wo), np.int64)
    for a in range(n):
        for b in range(c):
            for oi in range(ho):
                for oj in range(wo):
                    best, at = -np.inf, None
                    for i in range(kh):
                        for j in range(kw):
                            r, q = oi * sh - ph + i * dh, oj * sw - pw + j * dw
                            if not (0 <= r < h and 0 <= q < w):
                                continue
                            v = x[a, b, r, q]
                            if at is None or v > best or np.isnan(v):
                                best, at = v, r * w + q
                            if at == r * w + q and np.isnan(v):
                                best = v
                    y[a, b, oi, oj], idx[a, b, oi, oj] = best, at
    return y, idx


@pytest.mark.parametrize("k,s,p,d,ceil_mode", [(2, 2, 0, 1, False), (3, 2, 1, 1, True),
                                               (2, 1, 1, 2, False), (3, 3, 1, 1, True)])
def test_max_pool_winners_with_nan_inf_and_ties(k, s, p, d, ceil_mode):
    from minitorch_cs.torch._kernels.conv import max_pool2d_forward
    rng = np.random.default_rng(5)
    x = np.round(rng.standard_normal((2, 3, 7, 8)) * 2).astype(np.float32)  # many ties
    x.flat[rng.choice(x.size, 12, replace=False)] = np.nan  # several NaNs per some windows
    x.flat[rng.choice(x.size, 8, replace=False)] = -np.inf
    x.flat[rng.choice(x.size, 4, replace=False)] = np.inf
    x[1, 2] = -np.inf  # whole planes of -inf: the first in-bounds position wins
    y, idx = max_pool2d_forward(x, k, s, p, d, ceil_mode)
    want_y, want_idx = _max_pool_scan(x, k, s, p, d, ceil_mode)
    assert y.tobytes() == want_y.tobytes()
    np.testing.assert_array_equal(idx, want_idx)
    torch = pytest.importorskip("torch")
    yt, it = torch.nn.functional.max_pool2d(torch.tensor(x), k, s, p, d, ceil_mode,
                                            return_indices=True)
    assert y.tobytes() == yt.numpy().tobytes()
    np.testing.assert_array_equal(idx, it.numpy())


def _pool_input(rng, shape, dtype, nan):
    """Values with many ties (0.0 against -0.0 too), infinities and optionally NaNs."""
    x = np.round(rng.standard_normal(shape) * 1.5)
    x[rng.random(shape) < 0.2] = -0.0
    x.flat[rng.choice(x.size, 6, replace=False)] = -np.inf
    x.flat[rng.choice(x.size, 3, replace=False)] = np.inf
    if nan:
        x.flat[rng.choice(x.size, 5, replace=False)] = np.nan
    if np.dtype(dtype).kind == "i":
        return np.nan_to_num(x, posinf=9, neginf=-9).astype(dtype)
    x = x.astype(dtype)
    x[0, 0] = -np.inf  # a plane of -inf: the first position wins
    return x


@pytest.mark.parametrize("k,shape", [(2, (3, 4, 8, 9)), (3, (2, 3, 9, 7)), ((2, 3), (2, 2, 7, 9)),
                                     (1, (2, 2, 3, 3))])
@pytest.mark.parametrize("dtype,nan", [(np.float32, False), (np.float32, True),
                                       (np.float64, False), (np.float64, True), (np.int64, False)])
def test_max_pool_over_tiles_equals_the_scan(monkeypatch, k, shape, dtype, nan):
    """Windows that tile the input (stride = kernel) take the contiguous tile kernel; its
    maxima (to the sign of a zero) and winners are the element-by-element scan's."""
    from minitorch_cs.torch._kernels import conv as C
    x = _pool_input(np.random.default_rng(11), shape, dtype, nan)
    y, idx = C.max_pool2d_forward(x, k)
    want_y, want_idx = _max_pool_scan(x, k, None, 0, 1, False)
    assert y.dtype == x.dtype and y.tobytes() == want_y.tobytes()
    np.testing.assert_array_equal(idx, want_idx)
    with monkeypatch.context() as m:
        m.setattr(C, "_TILES", False)
        y2, idx2 = C.max_pool2d_forward(x, k)
    assert y2.tobytes() == y.tobytes() and idx2.tobytes() == idx.tobytes()
    cl = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)  # channels-last
    y3, idx3 = C.max_pool2d_forward(cl, k)
    assert np.ascontiguousarray(y3).tobytes() == y.tobytes() and np.array_equal(idx3, idx)


@pytest.mark.parametrize("k,s,p,d,disjoint", [(2, None, 0, 1, True), (3, 3, 1, 1, True),
                                              (2, 3, 0, 1, True), (2, 1, 0, 1, False),
                                              (3, 2, 1, 1, False), (2, 3, 1, 2, True),
                                              (2, 2, 0, 2, False)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_max_pool_gradient_of_disjoint_windows_is_the_sum(k, s, p, d, disjoint, dtype):
    """Windows that share no position (each spans at most its stride) scatter their gradients by
    assignment: the values (-0.0 becomes +0.0, NaN and infinities pass) of the sum from zero."""
    from minitorch_cs.torch._kernels import conv as C
    assert C.pool_windows_disjoint(k, s, d) is disjoint
    rng = np.random.default_rng(3)
    x = _pool_input(rng, (2, 3, 8, 9), np.float32, False)
    _, idx = C.max_pool2d_forward(x, k, s, p, d)
    g = np.round(rng.standard_normal(idx.shape) * 2).astype(dtype)
    g[rng.random(idx.shape) < 0.2] = -0.0
    g.flat[:3] = [np.nan, np.inf, -np.inf]
    want = C.max_pool2d_backward(g, idx, x.shape)
    got = C.max_pool2d_backward(g, idx, x.shape, disjoint=disjoint)
    assert got.dtype == want.dtype == dtype and got.tobytes() == want.tobytes()
    assert not np.signbit(got[got == 0]).any()
    torch = pytest.importorskip("torch")
    xt = torch.tensor(x, requires_grad=True)
    torch.nn.functional.max_pool2d(xt, k, s, p, d).backward(torch.tensor(g.astype(np.float32)))
    assert xt.grad.numpy().tobytes() == C.max_pool2d_backward(
        g.astype(np.float32), idx, x.shape, disjoint=disjoint).tobytes()


_ZEROS = [0.0, -0.0]


@pytest.mark.parametrize("name,run,want", [
    # torch 2.13's values: a tie between 0.0 and -0.0 keeps the first operand / the input
    ("relu", lambda T: T.relu(T.tensor([-0.0, 0.0])), [-0.0, 0.0]),
    ("relu_", lambda T: T.tensor([-0.0, 0.0]).relu_(), [-0.0, 0.0]),
    ("relu6", lambda T: T.nn.functional.relu6(T.tensor([-0.0, 0.0])), [-0.0, 0.0]),
    ("hardtanh", lambda T: T.nn.functional.hardtanh(T.tensor([-0.0, 0.0]), -0.0, 0.0),
     [-0.0, 0.0]),
    ("clamp_min", lambda T: T.clamp(T.tensor([0.0, -0.0]), min=0.0), [0.0, -0.0]),
    ("clamp_max", lambda T: T.clamp(T.tensor([0.0, -0.0]), max=-0.0), [0.0, -0.0]),
    ("clamp_tensor", lambda T: T.clamp(T.tensor([0.0, -0.0]), min=T.tensor([-0.0, 0.0]),
                                       max=T.tensor([-0.0, 0.0])), [0.0, -0.0]),
    ("maximum", lambda T: T.maximum(T.tensor([0.0, -0.0]), T.tensor([-0.0, 0.0])), [0.0, -0.0]),
    ("minimum", lambda T: T.minimum(T.tensor([0.0, -0.0]), T.tensor([-0.0, 0.0])), [0.0, -0.0]),
    ("max_pool2d", lambda T: T.nn.functional.max_pool2d(
        T.tensor([[[[0.0, -0.0], [0.0, 0.0]], [[-0.0, 0.0], [0.0, 0.0]]]]), 2), [0.0, -0.0]),
])
def test_signed_zero_ties_keep_the_first_operand(name, run, want):
    import minitorch_cs.torch as mt
    got = run(mt).numpy().reshape(-1)
    assert got.tobytes() == np.array(want, np.float32).tobytes(), (name, got)
    torch = pytest.importorskip("torch")
    assert run(torch).numpy().reshape(-1).tobytes() == got.tobytes()


def _window_conv(monkeypatch, fn, *args):
    """``fn(*args)`` with the flat-row kernels switched off (the window-by-window kernels)."""
    from minitorch_cs.torch._kernels import conv as C
    with monkeypatch.context() as m:
        m.setattr(C, "_FLAT_ROWS", False)
        return fn(*args)


def _same_values(a, b):
    """Equal NaN and infinity patterns, and finite values equal to the BLAS's rounding (a
    product over a different number of columns may round differently: float64 by ~1e-14, float32
    by ~1e-7 of the largest value where the BLAS's kernel blocks the sums differently, as
    OpenBLAS's AVX2 kernels do)."""
    scale = 1e-12 if np.asarray(a).dtype == np.float64 else 1e-6
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    assert a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b))
    fin = np.isfinite(a)
    assert np.array_equal(fin, np.isfinite(b)) and np.array_equal(a[~fin & ~np.isnan(a)],
                                                                  b[~fin & ~np.isnan(b)])
    np.testing.assert_allclose(a[fin], b[fin], rtol=1e-5, atol=scale * (1 + np.abs(a[fin]).max(
        initial=0)))


@pytest.mark.parametrize("n, c, cout, h, w, k, pad, groups", [
    (3, 4, 6, 9, 7, (3, 3), ((1, 1), (1, 1)), 1), (2, 6, 4, 8, 8, (3, 2), ((0, 0), (2, 1)), 2),
    (1, 1, 3, 5, 6, (1, 1), ((0, 0), (0, 0)), 1), (2, 4, 4, 6, 6, (5, 5), ((2, 2), (2, 2)), 4),
    (5, 3, 8, 28, 28, (3, 3), ((0, 0), (0, 0)), 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_flat_row_convolution_kernels_equal_the_window_kernels(monkeypatch, n, c, cout, h, w, k,
                                                              pad, groups, dtype):
    """The stride-1 kernels over flat rows compute the window-by-window kernels' dot products
    (forward, input and weight gradients, with groups, padding, non-finite inputs): the same values up
    to the BLAS's rounding of a product with more columns, exactly for integers. The input
    gradient of a non-finite weight takes the window kernel (over flat rows the extra columns
    would be inf * 0 = NaN, added into real positions)."""
    from minitorch_cs.torch._kernels import conv as C
    rng = np.random.default_rng(n * 100 + c)
    x = (rng.standard_normal((n, c, h, w)) * 4).astype(dtype)
    wt = (rng.standard_normal((cout, c // groups) + k) * 4).astype(dtype)
    if dtype != np.int64:
        x.flat[::7] = 0.0
        x.flat[3] = np.inf
        x.flat[5] = np.nan
    ho = h + sum(pad[0]) - k[0] + 1
    wo = w + sum(pad[1]) - k[1] + 1
    gy = (rng.standard_normal((n, cout, ho, wo)) * 4).astype(dtype)
    args = ((1, 1), pad, (1, 1), groups)
    check = np.testing.assert_array_equal if dtype == np.int64 else _same_values
    check(C._conv2d_fwd(x, wt, *args), _window_conv(monkeypatch, C._conv2d_fwd, x, wt, *args))
    check(C._conv2d_bwd_input(gy, wt, x.shape, *args),
          _window_conv(monkeypatch, C._conv2d_bwd_input, gy, wt, x.shape, *args))
    # the weight gradient: per-sample products over flat rows, whose wrapped positions (here
    # holding inf and NaN inputs of the next row) are zero, against one product over the batch
    check(C._conv2d_bwd_weight(gy, x, wt.shape, *args),
          _window_conv(monkeypatch, C._conv2d_bwd_weight, gy, x, wt.shape, *args))
    if dtype != np.int64 and k[1] > 1 and not any(sum(p) for p in pad):
        wt.flat[0] = np.inf
        gx = C._conv2d_bwd_input(gy, wt, x.shape, *args)
        ref = _window_conv(monkeypatch, C._conv2d_bwd_input, gy, wt, x.shape, *args)
        assert np.array_equal(gx, ref, equal_nan=True)
        wmat = wt.reshape(groups, cout // groups, -1).transpose(0, 2, 1)
        rows = C.conv_rows.input_grad(gy, wmat, k[0], k[1], np.zeros(x.shape, dtype), C._chunk)
        assert np.isnan(rows).sum() > np.isnan(ref).sum()


@pytest.mark.parametrize("shape, k", [((3, 5, 9, 7), (3, 3)), ((2, 1, 6, 11), (2, 4)),
                                      ((1, 3, 5, 5), (4, 4)), ((4, 2, 8, 5), (1, 1))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_flat_input_gradient_adds_the_same_values_in_the_same_order(shape, k, dtype):
    """Without groups the input gradient adds each kernel offset's products over all channels
    in one flat add (the zeros between channels' runs included): bit for bit the per-channel
    adds, non-finite output gradients included."""
    from minitorch_cs.torch._kernels import conv as C
    n, c, hp, wp = shape
    cout = 6
    ho, wo = hp - k[0] + 1, wp - k[1] + 1
    rng = np.random.default_rng(hp * wp)
    gy = (rng.standard_normal((n, cout, ho, wo)) * 3).astype(dtype)
    gy.flat[::5] = 0.0
    gy.flat[4] = np.inf
    gy.flat[9] = np.nan
    gy.flat[2] = -0.0
    wt = rng.standard_normal((1, c * k[0] * k[1], cout)).astype(dtype)
    outs = [C.conv_rows.input_grad(gy, wt, k[0], k[1], np.zeros(shape, dtype), C._chunk, one_add)
            for one_add in (True, False)]
    assert outs[0].tobytes() == outs[1].tobytes()


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_"])
@pytest.mark.parametrize("target_shape, other", [
    ((), 0.7), ((), "0d32"), ((), "0d64"), ((3,), "0d32"), ((3,), "0d64"), ((2, 3), "0d32")])
def test_zero_dim_operands_of_the_direct_inplace_path(op, target_shape, other):
    """In-place add/sub/mul/div with a 0-d target or a 0-d operand take numpy's ufunc directly
    only when no promotion rule applies (same dtype): the values, dtype and version count equal
    the op kernel's (run under a mode, which dispatches every op)."""
    import minitorch_cs.torch as torch
    from minitorch_cs.torch import _dispatch

    class PassThrough(_dispatch.Mode):
        pass

    def run(dispatched):
        t = torch.tensor(np.full(target_shape, 1.5, np.float32))
        o = {"0d32": torch.tensor(np.float32(-0.3)), "0d64": torch.tensor(np.float64(-0.3))}.get(
            other, other)
        if dispatched:
            with PassThrough():
                getattr(t, op)(o)
                getattr(t, op)(o)
        else:
            getattr(t, op)(o)
            getattr(t, op)(o)
        return t.numpy().tobytes(), t.dtype, t._version
    assert run(False) == run(True)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_plain_ufunc_of_a_recorded_binary_op_equals_the_op(op, dtype):
    """A replay runs a node-less add/sub/mul/div as the plain ufunc that ``fast_binary`` names
    (a number first, as in ``1 - beta_power``; a 0-d operand out of place too): the values and
    dtype equal the op kernel's, special values included, and a 0-d result is a 0-d array."""
    import minitorch_cs.torch as torch
    from minitorch_cs.torch import _dispatch
    nums = [0.1, 1.0, -2, 0, 1e-40, 3.4e38, 1e300, np.inf, np.nan, -0.0]
    vals = np.array([0.3, -0.0, 0.0, 1e-45, -2.5, 3e38, np.inf, np.nan, 1.0, 1e-30]).astype(dtype)
    kernel = _dispatch.OPS[op]
    checked = 0
    for a in nums:
        a = float(a) if not isinstance(a, int) else a
        for arr in [vals] + [vals[k:k + 1].reshape(()) for k in range(len(vals))]:
            t = torch.tensor(arr)
            other = torch.tensor(arr[::-1].copy() if arr.ndim else arr)
            for args in ((a, t), (t, a), (t, other)):
                fast = _dispatch.fast_binary(kernel, args, {})
                assert fast is not None  # every case here is plain
                uf, alpha = fast
                x, y = (v._data if isinstance(v, torch.Tensor) else v for v in args)
                with np.errstate(all="ignore"):
                    got = uf(x, y if alpha == 1 else y * alpha)
                got = got if type(got) is np.ndarray else np.asarray(got)
                want = getattr(torch, op)(*args).numpy()
                assert got.dtype == want.dtype and got.shape == want.shape
                assert got.tobytes() == want.tobytes(), (op, args)
                checked += 1
    assert checked == len(nums) * (len(vals) + 1) * 3


@pytest.mark.parametrize("op", ["sqrt", "exp", "neg"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_plain_ufunc_of_a_recorded_unary_op_equals_the_op(op, dtype):
    """A replay runs a node-less sqrt/exp/neg on a C-ordered or 0-d float operand as the plain
    ufunc the capture names: values, dtype and shape equal the op kernel's, special values
    included (sqrt of a negative is NaN, exp overflows to inf)."""
    import minitorch_cs.torch as torch
    from minitorch_cs.core.capture import _fast_unary
    from minitorch_cs.torch import _dispatch
    vals = np.array([0.3, -0.0, 0.0, 1e-45, -2.5, 3e38, np.inf, -np.inf, np.nan, 1e-30, 89.0,
                     710.0]).astype(dtype)
    for arr in [vals, vals.reshape(3, 4)] + [vals[k:k + 1].reshape(()) for k in range(len(vals))]:
        t = torch.tensor(arr)
        uf, _ = _fast_unary(_dispatch.OPS[op], (t,), {})
        with np.errstate(all="ignore"):
            got = np.asarray(uf(t._data))
        want = getattr(torch, op)(t).numpy()
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes(), (op, arr)
    assert _fast_unary(_dispatch.OPS[op], (torch.tensor([1, 2]),), {}) is None  # int: promotes


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_plain_form_of_a_recorded_two_norm_equals_the_op(dtype):
    """clip_grad_norm_'s ``vector_norm(g, 2)`` of a whole float32/float64 tensor replays as
    the kernel's own sum of squares and square root: the same bits for any shape and layout
    (special values too); one-element tensors, other orders and dims keep the kernel."""
    import minitorch_cs.torch as torch
    from minitorch_cs.core.capture import _fast_unary
    from minitorch_cs.torch import _dispatch
    op = _dispatch.OPS["norm"]
    attrs = {"p": 2.0, "axis": None, "keepdim": False}
    rng = np.random.default_rng(4)
    for shape in [(2,), (7, 5), (3, 4, 5), (64, 256), (1000,)]:
        for special in (None, np.inf, np.nan, 3e30):
            a = rng.standard_normal(shape).astype(dtype)
            if special is not None:
                a.flat[0] = special
            for t in (torch.tensor(a), torch.tensor(a).t() if a.ndim == 2 else None):
                if t is None:
                    continue
                f, _ = _fast_unary(op, (t,), attrs)
                with np.errstate(all="ignore"):
                    got = np.asarray(f(t._data))
                want = torch.linalg.vector_norm(t, 2).numpy()
                assert got.shape == () and got.dtype == want.dtype
                assert got.tobytes() == want.tobytes(), (shape, special)
    t = torch.tensor(rng.standard_normal((3, 4)).astype(dtype))
    assert _fast_unary(op, (t[:1, :1],), attrs) is None
    assert _fast_unary(op, (t,), dict(attrs, p=1.0)) is None
    assert _fast_unary(op, (t,), dict(attrs, axis=(0,))) is None


def test_replayed_unary_ops_follow_the_cpu_backend(tmp_path):
    """sqrt/exp/neg inside a traced step, on C-ordered, transposed and 0-d operands, and
    clip_grad_norm_'s norms, replay to the CPU backend's values and layouts."""
    import importlib

    import minitorch_cs as cstorch
    import minitorch_cs.torch as torch
    backend_mod = importlib.import_module("minitorch_cs.backend")

    def run(kind):
        backend_mod._reset_for_tests()
        cstorch.backends.reset()
        b = cstorch.backend(kind, artifact_dir=tmp_path / kind)
        rng = np.random.default_rng(0)
        torch.manual_seed(0)
        with b.device:
            model = torch.nn.Linear(3, 4, bias=False)
        compiled = cstorch.compile(model, b)
        w = model.weight
        opt = cstorch.optim.SGD([w], lr=0.1)
        data = [(torch.from_numpy(rng.standard_normal((2, 3), dtype=np.float32)),)
                for _ in range(4)]
        seen = []

        @cstorch.step_closure
        def keep(*ts):
            seen.append([(t.numpy().copy(), t.stride()) for t in ts])

        @cstorch.trace
        def step(x):
            with torch.no_grad():
                a = w.sqrt()
                c = w.t().sqrt()  # a transposed operand: the kernel's layout
                d = (w.sum() - 3).exp().neg()  # 0-d
            loss = (compiled(x) * a.sum() + c.sum() * d).sum()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            opt.step()
            opt.zero_grad()
            keep(a, c, d, loss)
            return loss
        for (x,) in cstorch.utils.data.DataExecutor(
                cstorch.utils.data.DataLoader(lambda: data), num_steps=4):
            step(x)
            if kind == "CSX":  # the three unary ops were recorded as plain ufuncs
                tape = next(iter(backend_mod.current_backend_impl()._tapes.values())).tape
                fast = [f.entry.op.name for f in tape.entries
                        if f.entry.kind == "op" and f.entry.fast is not None]
                assert fast.count("sqrt") == 2 and "exp" in fast and "neg" in fast and \
                    "norm" in fast, fast
        return seen
    cpu, csx = run("CPU"), run("CSX")
    assert len(cpu) == len(csx) == 4
    for a, b in zip(cpu, csx):
        for (x, sx), (y, sy) in zip(a, b):
            assert x.tobytes() == y.tobytes() and x.dtype == y.dtype and sx == sy


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_plain_form_of_a_recorded_inplace_addcmul_equals_the_op(dtype):
    """A replay runs Adam's ``v.addcmul_(g, g, value=1 - beta2)`` (one float dtype and shape,
    a number value) by the kernel's array function on the arrays: the in-place op's values,
    special values and overflow included; other operand kinds keep the recorded op."""
    import minitorch_cs.torch as torch
    from minitorch_cs.core.capture import _fast_addcmul
    vals = np.array([0.3, -0.0, 0.0, 1e-45, -2.5, 3e38, np.inf, -np.inf, np.nan, 1e-30, 1.5e19,
                     7.0]).astype(dtype)
    rng = np.random.default_rng(2)
    for value in (0.05, 1, -3, 1e-40, 0.999, 0.0):
        for k in range(4):
            d, t1, t2 = (torch.tensor(rng.permutation(vals)) for _ in range(3))
            if k == 3:
                t2 = t1  # g * g
            addc, v = _fast_addcmul((d, t1, t2), {"value": value})
            with np.errstate(all="ignore"):
                got = d._data.copy()
                addc(got, t1._data, t2._data, v, np.multiply, got)
            d.addcmul_(t1, t2, value=value)
            assert got.tobytes() == d.numpy().tobytes(), (value, k)
    t = torch.tensor(vals)
    assert _fast_addcmul((t, t.half(), t), {"value": 0.1}) is None  # a promotion
    assert _fast_addcmul((t, t[:1], t), {"value": 0.1}) is None  # a broadcast
    assert _fast_addcmul((t, t, t), {"value": torch.tensor(0.1)}) is None  # a tensor value


@pytest.mark.parametrize("k,s", [(2, None), (3, 1)])
def test_max_pool_gradients_of_an_empty_batch_are_empty(k, s):
    """An empty batch pools to an empty result and back to an empty gradient (first and second
    order), as in torch, for disjoint and overlapping windows."""
    import minitorch_cs.torch as torch
    t = torch.zeros(0, 3, 5, 5, requires_grad=True)
    out = torch.nn.functional.max_pool2d(t, k, s)
    g, = torch.autograd.grad(out.sum(), t, create_graph=True)
    gg, = torch.autograd.grad((g * g).sum() + out.sum(), t)
    assert tuple(out.shape) == (0, 3) + tuple(out.shape[2:]) and tuple(g.shape) == (0, 3, 5, 5)
    assert tuple(gg.shape) == (0, 3, 5, 5) and g.dtype == torch.float32
    real = pytest.importorskip("torch")
    rt = real.zeros(0, 3, 5, 5, requires_grad=True)
    ro = real.nn.functional.max_pool2d(rt, k, s)
    rg, = real.autograd.grad(ro.sum(), rt)
    assert tuple(ro.shape) == tuple(out.shape) and tuple(rg.shape) == tuple(g.shape)
