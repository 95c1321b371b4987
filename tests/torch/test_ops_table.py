"""The op table: one row per differentiable op, checked three ways.

Each row gives a name, a numpy reference, our call written against a namespace argument
(``lambda T, x, **kw: T.nn.functional.softmax(x, **kw)``) and an input strategy that draws the
float64 inputs (random shapes incl. 0-d, size-1 dims, broadcasting, non-contiguous views) and the
keyword arguments (a random subset of the optional ones), inside a domain that avoids kinks.
Here: forward values vs numpy (and float32 stays float32), and gradients vs central differences.
``test_torch_oracle.py`` runs the same rows against torch.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import special

from minitorch_cs import torch
from tests import strategies as S
from tests.helpers import assert_close, describe, gradcheck
from tests.torch import _refs as R


@dataclass
class Row:
    name: str
    ref: Callable
    call: Callable
    inputs: Any  # strategy of (xs: tuple of float64 arrays, kw: dict)
    grad: bool = True
    f32: bool = True  # float32 inputs give float32 outputs
    rtol: float = 1e-7
    atol: float = 1e-10
    torch_grad: bool = True  # False where torch itself has no derivative (see the row)
    # The input dtypes torch accepts (names); None: probed on torch by the differential tester
    # (tests/differential), and every floating dtype for the half-precision check here.
    dtypes: tuple | None = None
    diff: bool = True  # run in the differential tester's random programs

    def __repr__(self):
        return self.name


ROWS: list[Row] = []


def row(name, ref, call, inputs, **opts):
    ROWS.append(Row(name, ref, call, inputs, **opts))


# ----- input strategies --------------------------------------------------------------------------
def _arr(draw, shape, dom):
    dom = dict(dom)
    if dom.pop("distinct", False):
        return draw(S.distinct_arrays(shape, dom.get("lo", -2.0), dom.get("hi", 2.0),
                                      dom.get("offset", 0.0)))
    dom.pop("offset", None)
    return draw(S.arrays(shape, **dom))


@st.composite
def one(draw, shape=None, kw=None, req=None, **dom):
    """One array; ``kw(shape)`` -> optional kwargs strategies, ``req(shape)`` -> required ones."""
    shp = draw(shape if shape is not None else S.shapes())
    x = _arr(draw, shp, dom)
    out = draw(S.kwargs(**kw(shp))) if kw else {}
    if req:
        out.update({k: draw(v) for k, v in req(shp).items()})
    return (x,), out


@st.composite
def two(draw, lhs=None, rhs=None, shapes=None):
    """Two arrays of mutually broadcastable shapes; ``lhs``/``rhs`` are domain dicts."""
    sa, sb = draw(shapes if shapes is not None else S.broadcastable_shapes(2))
    return (_arr(draw, sa, lhs or {}), _arr(draw, sb, rhs or {})), {}


@st.composite
def n_arrays(draw, n, shapes=None, **dom):
    ss = draw(shapes if shapes is not None else S.broadcastable_shapes(n))
    return tuple(_arr(draw, s, dom) for s in ss), {}


@st.composite
def apart(draw, avoid, gap, shapes=None):
    """``(a, b)`` of one shape whose difference ``a - b`` keeps ``gap`` away from every kink in
    ``avoid`` (drawn as ``a`` and a difference, so independent draws cannot land on a kink)."""
    shape = draw(shapes if shapes is not None else S.shapes())
    a = draw(S.arrays(shape))
    d = draw(S.arrays(shape, avoid=avoid, gap=gap))
    return (a, np.asarray(a - d)), {}


def fixed(*shapes, **dom):
    """Arrays of given shapes (each a shape or a strategy of shapes)."""
    @st.composite
    def strat(draw):
        return tuple(_arr(draw, draw(s) if isinstance(s, st.SearchStrategy) else s, dom)
                     for s in shapes), {}
    return strat()


POS = dict(lo=0.2, hi=3.0)
NONZERO = dict(avoid=(0.0,), gap=0.1)
DISTINCT = dict(distinct=True)
F = "nn.functional"


def nn(T):
    return T.nn.functional


# ----- elementwise unary ------------------------------------------------------------------------
for _name, _ref, _call, _dom in [
    ("neg", np.negative, lambda T, x: -x, {}),
    ("abs", np.abs, lambda T, x: T.abs(x), NONZERO),
    ("exp", np.exp, lambda T, x: T.exp(x), {}),
    ("exp2", np.exp2, lambda T, x: T.exp2(x), {}),
    ("sinc", np.sinc, lambda T, x: T.sinc(x), NONZERO),  # (at 0 its second derivative is NaN, as torch's)
    ("logit", lambda x: np.log(x / (1 - x)), lambda T, x: T.logit(x), dict(lo=0.05, hi=0.95)),
    ("logit_eps", lambda x: np.log(np.clip(x, 0.2, 0.8) / (1 - np.clip(x, 0.2, 0.8))),
     lambda T, x: x.logit(0.2), dict(lo=0.05, hi=0.95, avoid=(0.2, 0.8), gap=0.05)),
    ("expm1", np.expm1, lambda T, x: x.expm1(), {}),
    ("log", np.log, lambda T, x: T.log(x), POS),
    ("log2", np.log2, lambda T, x: x.log2(), POS),
    ("log10", np.log10, lambda T, x: T.log10(x), POS),
    ("log1p", np.log1p, lambda T, x: T.log1p(x), dict(lo=-0.5, hi=2.0)),
    ("sqrt", np.sqrt, lambda T, x: x.sqrt(), POS),
    ("rsqrt", lambda x: 1 / np.sqrt(x), lambda T, x: T.rsqrt(x), POS),
    ("reciprocal", np.reciprocal, lambda T, x: x.reciprocal(), dict(avoid=(0.0,), gap=0.3)),
    ("square", np.square, lambda T, x: T.square(x), {}),
    ("sin", np.sin, lambda T, x: T.sin(x), {}),
    ("cos", np.cos, lambda T, x: x.cos(), {}),
    ("tan", np.tan, lambda T, x: T.tan(x), dict(lo=-1.2, hi=1.2)),
    ("asin", np.arcsin, lambda T, x: T.asin(x), dict(lo=-0.9, hi=0.9)),
    ("acos", np.arccos, lambda T, x: T.arccos(x), dict(lo=-0.9, hi=0.9)),
    ("atan", np.arctan, lambda T, x: x.atan(), {}),
    ("sinh", np.sinh, lambda T, x: T.sinh(x), {}),
    ("cosh", np.cosh, lambda T, x: T.cosh(x), {}),
    ("tanh", np.tanh, lambda T, x: T.tanh(x), {}),
    ("sigmoid", special.expit, lambda T, x: T.sigmoid(x), {}),
    ("erf", special.erf, lambda T, x: T.erf(x), {}),
    ("erfinv", special.erfinv, lambda T, x: T.erfinv(x), dict(lo=-0.95, hi=0.95)),
    ("Tensor.erfinv_", special.erfinv, lambda T, x: (x + 0).erfinv_(), dict(lo=-0.95, hi=0.95)),
    ("relu", lambda x: np.maximum(x, 0), lambda T, x: T.relu(x), NONZERO),
    ("sign", np.sign, lambda T, x: T.sign(x), NONZERO),
    ("floor", np.floor, lambda T, x: x.floor(), dict(avoid=(-2, -1, 0, 1, 2), gap=0.05)),
    ("ceil", np.ceil, lambda T, x: T.ceil(x), dict(avoid=(-2, -1, 0, 1, 2), gap=0.05)),
    ("trunc", np.trunc, lambda T, x: T.trunc(x), dict(avoid=(-2, -1, 0, 1, 2), gap=0.05)),
    ("round", np.round, lambda T, x: T.round(x), dict(avoid=(-1.5, -0.5, 0.5, 1.5), gap=0.05)),
    ("round_decimals", lambda x: np.round(x, 1), lambda T, x: T.round(x, decimals=1),
     dict(avoid=tuple(np.arange(-1.95, 2, 0.1)), gap=0.01)),
    ("F.relu", lambda x: np.maximum(x, 0), lambda T, x: nn(T).relu(x), NONZERO),
    ("F.relu6", lambda x: np.clip(x, 0, 6), lambda T, x: nn(T).relu6(x),
     dict(lo=-2, hi=8, avoid=(0, 6), gap=0.1)),
    ("F.gelu", R.gelu, lambda T, x: nn(T).gelu(x), {}),
    ("F.gelu_tanh", lambda x: R.gelu(x, "tanh"), lambda T, x: nn(T).gelu(x, approximate="tanh"), {}),
    ("F.silu", lambda x: x * special.expit(x), lambda T, x: nn(T).silu(x), {}),
    ("F.mish", lambda x: x * np.tanh(np.log1p(np.exp(x))), lambda T, x: nn(T).mish(x), {}),
    ("F.leaky_relu", lambda x: np.where(x > 0, x, 0.2 * x),
     lambda T, x: nn(T).leaky_relu(x, 0.2), NONZERO),
    ("F.elu", lambda x: R.elu(x, 0.7), lambda T, x: nn(T).elu(x, alpha=0.7), NONZERO),
    ("F.selu", lambda x: 1.0507009873554805 * R.elu(x, 1.6732632423543772),
     lambda T, x: nn(T).selu(x), NONZERO),
    ("F.celu", lambda x: np.maximum(x, 0) + np.minimum(0, 0.5 * np.expm1(x / 0.5)),
     lambda T, x: nn(T).celu(x, alpha=0.5), NONZERO),
    ("F.softplus", lambda x: R.softplus(x, 2.0, 3.0), lambda T, x: nn(T).softplus(x, 2.0, 3.0),
     dict(avoid=(1.5,), gap=0.05)),
    ("F.hardtanh", lambda x: np.clip(x, -1, 1), lambda T, x: nn(T).hardtanh(x),
     dict(avoid=(-1, 1), gap=0.05)),
    ("F.hardsigmoid", lambda x: np.clip(x / 6 + 0.5, 0, 1), lambda T, x: nn(T).hardsigmoid(x),
     dict(lo=-5, hi=5, avoid=(-3, 3), gap=0.1)),
    ("F.hardswish", lambda x: x * np.clip(x / 6 + 0.5, 0, 1), lambda T, x: nn(T).hardswish(x),
     dict(lo=-5, hi=5, avoid=(-3, 3), gap=0.1)),
    ("F.logsigmoid", lambda x: -np.log1p(np.exp(-x)), lambda T, x: nn(T).logsigmoid(x), {}),
    ("F.softsign", lambda x: x / (1 + np.abs(x)), lambda T, x: nn(T).softsign(x), NONZERO),
    ("F.tanhshrink", lambda x: x - np.tanh(x), lambda T, x: nn(T).tanhshrink(x), {}),
    ("F.threshold", lambda x: np.where(x > 0.5, x, -1.0), lambda T, x: nn(T).threshold(x, 0.5, -1.0),
     dict(avoid=(0.5,), gap=0.05)),
    ("F.hardshrink", lambda x: np.where(np.abs(x) > 0.5, x, 0.0),
     lambda T, x: nn(T).hardshrink(x), dict(avoid=(-0.5, 0.5), gap=0.05)),
    ("Tensor.hardshrink", lambda x: np.where(np.abs(x) > 0.3, x, 0.0),
     lambda T, x: x.hardshrink(0.3), dict(avoid=(-0.3, 0.3), gap=0.05)),
    ("F.softshrink", lambda x: np.where(x > 0.4, x - 0.4, np.where(x < -0.4, x + 0.4, 0.0)),
     lambda T, x: nn(T).softshrink(x, 0.4), dict(avoid=(-0.4, 0.4), gap=0.05)),
    ("F.prelu_shared", lambda x: np.where(x > 0, x, 0.25 * x),
     lambda T, x: nn(T).prelu(x, T.tensor([0.25], dtype=x.dtype)), NONZERO),
    ("pow_2", lambda x: x ** 2, lambda T, x: x ** 2, {}),
    ("pow_3", lambda x: x ** 3, lambda T, x: T.pow(x, 3), {}),
    ("pow_half", np.sqrt, lambda T, x: x ** 0.5, POS),
    ("pow_neg", lambda x: x ** -1.5, lambda T, x: x.pow(-1.5), POS),
    ("pow_0", lambda x: x ** 0, lambda T, x: x ** 0, {}),
    ("rpow", lambda x: 2.0 ** x, lambda T, x: 2 ** x, {}),
    ("clamp", lambda x: np.clip(x, -0.5, 0.7), lambda T, x: T.clamp(x, -0.5, 0.7),
     dict(avoid=(-0.5, 0.7), gap=0.05)),
    ("clamp_min", lambda x: np.maximum(x, -0.5), lambda T, x: x.clamp(min=-0.5),
     dict(avoid=(-0.5,), gap=0.05)),
    ("clamp_max", lambda x: np.minimum(x, 0.3), lambda T, x: T.clamp_max(x, 0.3),
     dict(avoid=(0.3,), gap=0.05)),
    ("clip", lambda x: np.clip(x, -1, 1), lambda T, x: x.clip(-1, 1), dict(avoid=(-1, 1), gap=0.05)),
    ("add_scalar", lambda x: x + 2.5, lambda T, x: x + 2.5, {}),
    ("radd_int", lambda x: 3 + x, lambda T, x: 3 + x, {}),
    ("sub_scalar", lambda x: x - 1.5, lambda T, x: x - 1.5, {}),
    ("rsub_scalar", lambda x: 1.5 - x, lambda T, x: 1.5 - x, {}),
    ("mul_scalar", lambda x: x * -3.0, lambda T, x: x * -3.0, {}),
    ("rmul_int", lambda x: 2 * x, lambda T, x: 2 * x, {}),
    ("div_scalar", lambda x: x / 4.0, lambda T, x: x / 4.0, {}),
    ("rdiv_scalar", lambda x: 2.0 / x, lambda T, x: 2.0 / x, dict(avoid=(0.0,), gap=0.3)),
    ("add_alpha_scalar", lambda x: x + 2 * 0.5, lambda T, x: T.add(x, 0.5, alpha=2), {}),
    ("frac", lambda x: x - np.trunc(x), lambda T, x: T.frac(x),
     dict(avoid=(-2.0, -1.0, 0.0, 1.0, 2.0), gap=0.1)),
    ("Tensor.frac_", lambda x: x - np.trunc(x), lambda T, x: (x + 0).frac_(),
     dict(avoid=(-2.0, -1.0, 0.0, 1.0, 2.0), gap=0.1)),
    ("deg2rad", np.deg2rad, lambda T, x: T.deg2rad(x), {}),
    ("rad2deg", np.rad2deg, lambda T, x: x.rad2deg(), {}),
    ("erfc", special.erfc, lambda T, x: T.erfc(x), {}),
    ("copysign_scalar", lambda x: np.copysign(x, -1.5), lambda T, x: T.copysign(x, -1.5),
     NONZERO),
]:
    row(_name, _ref, _call, one(**_dom))

# ----- elementwise binary (broadcasting) -------------------------------------------------------
NZ = dict(avoid=(0.0,), gap=0.3)
for _name, _ref, _call, _l, _r in [
    ("add", np.add, lambda T, a, b: a + b, {}, {}),
    ("add_alpha", lambda a, b: a + 0.5 * b, lambda T, a, b: T.add(a, b, alpha=0.5), {}, {}),
    ("sub", np.subtract, lambda T, a, b: a - b, {}, {}),
    ("sub_alpha", lambda a, b: a - 3 * b, lambda T, a, b: a.sub(b, alpha=3), {}, {}),
    ("mul", np.multiply, lambda T, a, b: a * b, {}, {}),
    ("div", np.divide, lambda T, a, b: a / b, {}, NZ),
    ("true_divide", np.divide, lambda T, a, b: T.true_divide(a, b), {}, NZ),
    ("pow", np.power, lambda T, a, b: a ** b, POS, {}),
    ("atan2", np.arctan2, lambda T, a, b: T.atan2(a, b), NZ, NZ),
    ("xlogy", lambda a, b: a * np.log(b), lambda T, a, b: T.xlogy(a, b), NZ, POS),
    ("hypot", np.hypot, lambda T, a, b: T.hypot(a, b), NZ, NZ),
    ("maximum", np.maximum, lambda T, a, b: T.maximum(a, b), DISTINCT, dict(DISTINCT, offset=0.5)),
    ("minimum", np.minimum, lambda T, a, b: a.minimum(b), DISTINCT, dict(DISTINCT, offset=0.5)),
    ("fmod", np.fmod, lambda T, a, b: T.fmod(a, b), dict(lo=0.1, hi=0.9), dict(lo=1.0, hi=2.0)),
    ("remainder", np.remainder, lambda T, a, b: a % b, dict(lo=0.1, hi=0.9), dict(lo=1.0, hi=2.0)),
    ("max_binary", np.maximum, lambda T, a, b: T.max(a, b), DISTINCT, dict(DISTINCT, offset=0.5)),
    ("logaddexp", np.logaddexp, lambda T, a, b: T.logaddexp(a, b), {}, {}),
    ("logaddexp2", np.logaddexp2, lambda T, a, b: a.logaddexp2(b), {}, {}),
    ("fmax", np.fmax, lambda T, a, b: T.fmax(a, b), DISTINCT, dict(DISTINCT, offset=0.5)),
    ("fmin", np.fmin, lambda T, a, b: a.fmin(b), DISTINCT, dict(DISTINCT, offset=0.5)),
    ("copysign", np.copysign, lambda T, a, b: T.copysign(a, b), NZ, NZ),
    ("ldexp", lambda a, b: a * 2.0 ** b, lambda T, a, b: T.ldexp(a, b), {}, {}),
]:
    row(_name, _ref, _call, two(_l, _r))
# (torch's nextafter gradient is a convention -- grad where the operands differ, 0 where equal --
# not a derivative central differences could check; tests/torch/test_nextafter_ldexp.py does)
row("nextafter", np.nextafter, lambda T, a, b: a.nextafter(b), two({}, {}), grad=False)

def _im2col_ref(x, k=2, p=1, s=1):
    """Sliding blocks as columns (rows: channel, then kernel offset)."""
    lead = x.shape[:-2]
    xp = np.pad(x, [(0, 0)] * len(lead) + [(p, p), (p, p)])
    v = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(-2, -1))[..., ::s, ::s, :, :]
    ho, wo = v.shape[-4], v.shape[-3]
    v = np.moveaxis(v, (-2, -1), (-4, -3))  # (..., C, k, k, Ho, Wo)
    return v.reshape(lead[:-1] + (lead[-1] * k * k, ho * wo))


def _col2im_ref(c, size=(4, 5), k=2, p=1, s=1):
    lead, (h, w) = c.shape[:-2], size
    ho, wo = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    v = c.reshape(lead + (c.shape[-2] // (k * k), k, k, ho, wo))
    img = np.zeros(v.shape[:-4] + (h + 2 * p, w + 2 * p))
    for i in range(k):
        for j in range(k):
            img[..., i:i + (ho - 1) * s + 1:s, j:j + (wo - 1) * s + 1:s] += v[..., i, j, :, :]
    return img[..., p:p + h, p:p + w]


_IMG = st.sampled_from([(1, 2, 4, 5), (2, 1, 4, 5), (3, 4, 5)])
row("F.unfold", _im2col_ref, lambda T, x: nn(T).unfold(x, 2, padding=1), one(shape=_IMG))
row("F.unfold_strided", lambda x: _im2col_ref(x, 2, 0, 2),
    lambda T, x: nn(T).unfold(x, 2, stride=2), one(shape=_IMG))
row("F.fold", _col2im_ref, lambda T, c: nn(T).fold(c, (4, 5), 2, padding=1),
    one(shape=st.sampled_from([(2, 8, 30), (12, 30)])))
row("F.prelu", lambda x, w: np.where(x > 0, x, w[:, None] * x),
    lambda T, x, w: T.prelu(x, w),
    n_arrays(2, shapes=st.sampled_from([((3, 4), (3,)), ((3, 1), (3,)), ((1, 2), (1,))])
             .map(lambda s: ((2,) + s[0], s[1])), avoid=(0.0,), gap=0.1))
row("where", lambda c, a, b: np.where(c > 0, a, b), lambda T, c, a, b: T.where(c > 0, a, b),
    n_arrays(3, avoid=(0.0,), gap=0.1))
row("Tensor.where", lambda c, a, b: np.where(c > 0, a, b), lambda T, c, a, b: a.where(c > 0, b),
    n_arrays(3, avoid=(0.0,), gap=0.1))
row("where_scalar", lambda c, a: np.where(c > 0, a, 0.5), lambda T, c, a: T.where(c > 0, a, 0.5),
    n_arrays(2, avoid=(0.0,), gap=0.1))
row("lerp", lambda a, b, w: a + w * (b - a), lambda T, a, b, w: T.lerp(a, b, w),
    n_arrays(3, shapes=S.shapes().map(lambda s: (s, s, s))))
row("lerp_scalar", lambda a, b: a + 0.3 * (b - a), lambda T, a, b: T.lerp(a, b, 0.3), two())
row("addcmul", lambda a, b, c: a + 0.5 * b * c, lambda T, a, b, c: T.addcmul(a, b, c, value=0.5),
    n_arrays(3))
row("addcdiv", lambda a, b, c: a + 2 * b / c, lambda T, a, b, c: T.addcdiv(a, b, c, value=2),
    n_arrays(3, avoid=(0.0,), gap=0.3))
row("clamp_tensor", lambda x, lo, hi: np.minimum(np.maximum(x, lo - 0.5), hi + 0.5),
    lambda T, x, lo, hi: T.clamp(x, lo - 0.5, hi + 0.5),
    fixed(S.shapes(), avoid=(-0.5, 0.5), gap=0.05).map(
        lambda a: ((a[0][0], np.zeros(()), np.zeros(())), {})))
row("mul_0d", np.multiply, lambda T, a, b: a * b, two(shapes=S.shapes(min_dims=1).map(lambda s: (s, ()))))
row("float_power", lambda a: np.power(a, 2.5), lambda T, a: T.float_power(a, 2.5), one(**POS),
    f32=False)  # always float64

# ----- reductions -------------------------------------------------------------------------------
def _dimkw(shape):
    return dict(dim=S.dims(len(shape)))


def reduce_inputs(**dom):
    """One array and a subset of (dim, keepdim); torch only takes keepdim together with dim."""
    @st.composite
    def strat(draw):
        (x,), kw = draw(one(kw=_dimkw, **dom))
        if "dim" in kw and draw(st.booleans()):
            kw["keepdim"] = draw(st.booleans())
        return (x,), kw
    return strat()


def _d1(shape):  # one required int dim
    n = max(len(shape), 1)
    return dict(dim=st.integers(-n, n - 1))


def _sum_ref(x, dim=None, keepdim=False):
    return np.sum(x, axis=R.ax(x, dim), keepdims=keepdim)


row("sum", _sum_ref, lambda T, x, **kw: T.sum(x, **kw), reduce_inputs())
row("sum_method", lambda x: np.sum(x), lambda T, x: x.sum(), one())
row("mean", lambda x, dim=None, keepdim=False: np.mean(x, axis=R.ax(x, dim), keepdims=keepdim),
    lambda T, x, **kw: x.mean(**kw), reduce_inputs())
row("nansum", lambda x: np.sum(x), lambda T, x: T.nansum(x), one())
row("prod", lambda x: np.prod(x), lambda T, x: T.prod(x), one(lo=0.5, hi=1.5))
row("prod_dim", lambda x, dim, keepdim=False: np.prod(x, axis=R.ax(x, dim), keepdims=keepdim),
    lambda T, x, **kw: x.prod(**kw), one(kw=lambda s: dict(keepdim=st.booleans()), req=_d1,
                                         lo=-1.5, hi=1.5, avoid=(0.0,), gap=0.3))
row("amax", lambda x, dim=(), keepdim=False: np.max(x, axis=R.ax(x, None if dim == () else dim),
                                                    keepdims=keepdim),
    lambda T, x, **kw: T.amax(x, **kw),
    one(kw=lambda s: dict(dim=S.dims(len(s), allow_none=False), keepdim=st.booleans()), **DISTINCT))
row("amin", lambda x, dim=(), keepdim=False: np.min(x, axis=R.ax(x, None if dim == () else dim),
                                                    keepdims=keepdim),
    lambda T, x, **kw: x.amin(**kw),
    one(kw=lambda s: dict(dim=S.dims(len(s), allow_none=False), keepdim=st.booleans()), **DISTINCT))
row("max_all", lambda x: np.max(x), lambda T, x: x.max(), one(**DISTINCT))
row("min_all", lambda x: np.min(x), lambda T, x: T.min(x), one(**DISTINCT))


def _maxdim_ref(f, arg):
    def ref(x, dim, keepdim=False):
        if x.ndim == 0:
            return x, np.array(0)
        return f(x, axis=dim, keepdims=keepdim), arg(x, axis=dim, keepdims=keepdim)
    return ref


row("max_dim", _maxdim_ref(np.max, np.argmax), lambda T, x, **kw: tuple(T.max(x, **kw)),
    one(kw=lambda s: dict(keepdim=st.booleans()), req=_d1, **DISTINCT))
row("min_dim", _maxdim_ref(np.min, np.argmin), lambda T, x, **kw: tuple(x.min(**kw)),
    one(kw=lambda s: dict(keepdim=st.booleans()), req=_d1, **DISTINCT))
row("argmax", lambda x, dim=None, keepdim=False: np.argmax(x, axis=R.ax(x, dim), keepdims=keepdim),
    lambda T, x, **kw: T.argmax(x, **kw),
    one(kw=lambda s: dict(dim=S.dims(len(s), allow_tuple=False)), **DISTINCT), grad=False)
row("argmin", lambda x, dim=None, keepdim=False: np.argmin(x, axis=R.ax(x, dim), keepdims=keepdim),
    lambda T, x, **kw: x.argmin(**kw),
    one(kw=lambda s: dict(dim=S.dims(len(s), allow_tuple=False), keepdim=st.booleans()),
        **DISTINCT), grad=False)
row("all_any", lambda x: (np.all(x > 0), np.any(x > 0, axis=-1)),
    lambda T, x: (T.all(x > 0), (x > 0).any(-1)), one(shape=S.shapes(min_dims=1)), grad=False)


def _var_ref(std):
    def ref(x, dim=None, correction=1, keepdim=False):
        r = np.var(x, axis=dim, ddof=correction, keepdims=keepdim)
        return np.sqrt(r) if std else r
    return ref


_VARKW = lambda s: dict(dim=S.dims(len(s)), keepdim=st.booleans(),  # noqa: E731
                        correction=st.sampled_from([0, 1]))
_VARSHAPE = S.shapes(min_dims=1, min_side=2)
# distinct values: std has a kink where the variance is 0
row("var", _var_ref(False), lambda T, x, **kw: T.var(x, **kw), one(_VARSHAPE, kw=_VARKW, **DISTINCT))
row("std", _var_ref(True), lambda T, x, **kw: x.std(**kw), one(_VARSHAPE, kw=_VARKW, **DISTINCT))
row("var_unbiased_false", lambda x: np.var(x, axis=-1), lambda T, x: x.var(-1, unbiased=False),
    one(_VARSHAPE))
row("std_mean", lambda x: (np.std(x, axis=0, ddof=1), np.mean(x, axis=0)),
    lambda T, x: tuple(T.std_mean(x, 0)), one(_VARSHAPE, **DISTINCT))
row("linalg.cross", lambda a, b: np.cross(a, b), lambda T, a, b: T.linalg.cross(a, b),
    fixed((2, 3), (1, 3)))
row("logcumsumexp", lambda x: np.logaddexp.accumulate(x, axis=-1) if x.ndim else x,
    lambda T, x: T.logcumsumexp(x, -1), one())
row("aminmax", lambda x: (np.min(x, axis=-1), np.max(x, axis=-1)),
    lambda T, x: tuple(T.aminmax(x, dim=-1)), one(_VARSHAPE, **DISTINCT))
row("aminmax_all", lambda x: (np.min(x), np.max(x)), lambda T, x: tuple(T.aminmax(x)),
    one(_VARSHAPE, **DISTINCT))
row("logsumexp", lambda x, dim, keepdim=False: special.logsumexp(x, axis=R.ax(x, dim),
                                                                  keepdims=keepdim and x.ndim > 0),
    lambda T, x, **kw: T.logsumexp(x, **kw),
    one(kw=lambda s: dict(keepdim=st.booleans()),
        req=lambda s: dict(dim=S.dims(len(s), allow_none=False))))


def _norm_ref(x, p="fro", dim=None, keepdim=False):
    a = np.abs(x)
    axis = R.ax(x, dim)
    if p in ("fro", 2):
        return np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdim))
    if p == float("inf"):
        return np.max(a, axis=axis, keepdims=keepdim)
    return np.sum(a ** p, axis=axis, keepdims=keepdim) ** (1 / p)


row("norm", _norm_ref, lambda T, x, **kw: T.norm(x, **kw),
    one(kw=lambda s: dict(dim=S.dims(len(s)), keepdim=st.booleans()),
        req=lambda s: dict(p=st.sampled_from([2, 1, 3, float("inf")])), **DISTINCT))
row("norm_fro", lambda x, dim=None: _norm_ref(x, 2, dim), lambda T, x, **kw: x.norm("fro", **kw),
    one(kw=lambda s: dict(dim=st.none() if len(s) < 2 else st.sampled_from([None, 0, (0, -1)])),
        **NONZERO))
row("cumsum", lambda x, dim: np.cumsum(x, axis=R.ax(x, dim)).reshape(x.shape),
    lambda T, x, dim: T.cumsum(x, dim), one(req=_d1))
row("cumprod", lambda x, dim: np.cumprod(x, axis=R.ax(x, dim)).reshape(x.shape),
    lambda T, x, dim: x.cumprod(dim), one(req=_d1, lo=-1.5, hi=1.5, avoid=(0.0,), gap=0.3))


def _sort_ref(x, dim=-1, descending=False):
    if x.ndim == 0:
        return x, np.array(0)
    idx = np.argsort(-x if descending else x, axis=dim, kind="stable")
    return np.take_along_axis(x, idx, dim), idx


row("sort", _sort_ref, lambda T, x, **kw: tuple(T.sort(x, **kw)),
    one(kw=lambda s: dict(dim=_d1(s)["dim"], descending=st.booleans()), **DISTINCT))
row("argsort", lambda x: _sort_ref(x, -1, True)[1], lambda T, x: x.argsort(descending=True),
    one(**DISTINCT), grad=False)


@st.composite
def _topk_inputs(draw):
    shape = draw(S.shapes(min_dims=1))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    k = draw(st.integers(0, shape[dim]))
    kw = dict(k=k, dim=dim, **draw(S.kwargs(largest=st.booleans())))
    return (draw(S.distinct_arrays(shape)),), kw


def _topk_ref(x, k, dim=-1, largest=True):
    v, i = _sort_ref(x, dim, largest)
    return np.take(v, np.arange(k), axis=dim), np.take(i, np.arange(k), axis=dim)


row("topk", _topk_ref, lambda T, x, **kw: tuple(T.topk(x, **kw)), _topk_inputs())


def _median_ref(x):  # the lower of the two middle values
    return np.sort(x, axis=None)[(x.size - 1) // 2]


def _median_dim_ref(x, dim, keepdim=False):
    if x.ndim == 0:
        return x, np.array(0)
    i = np.take(np.argsort(x, axis=dim, kind="stable"), [(x.shape[dim] - 1) // 2], axis=dim)
    v = np.take_along_axis(x, i, dim)
    return (v, i) if keepdim else (np.squeeze(v, dim), np.squeeze(i, dim))


row("median", _median_ref, lambda T, x: T.median(x), one(**DISTINCT))
row("median_even", _median_ref, lambda T, x: x.median(),
    one(shape=S.shapes(min_dims=1, max_dims=1).map(lambda s: (2 * s[0],)), **DISTINCT))
row("median_dim", _median_dim_ref, lambda T, x, **kw: tuple(T.median(x, **kw)),
    one(kw=lambda s: dict(keepdim=st.booleans()), req=_d1, **DISTINCT))


@st.composite
def _nonfinite_inputs(draw):
    """An array with some entries replaced by NaN, +inf and -inf."""
    (x,), _ = draw(one())
    x = np.array(x)
    if x.size:
        kind = np.asarray(draw(st.lists(st.sampled_from([0, 0, 1, 2, 3]), min_size=x.size,
                                        max_size=x.size))).reshape(x.shape)
        x[kind == 1], x[kind == 2], x[kind == 3] = np.nan, np.inf, -np.inf
    return (x,), {}


_NTN = dict(nan=0.5, posinf=2.0, neginf=-3.0)
row("nan_to_num", lambda x: np.nan_to_num(x, **_NTN), lambda T, x: T.nan_to_num(x, **_NTN),
    _nonfinite_inputs())
row("Tensor.nan_to_num_", lambda x: np.nan_to_num(x, nan=0.0, posinf=2.0, neginf=-3.0),
    lambda T, x: (x + 0).nan_to_num_(posinf=2.0, neginf=-3.0), _nonfinite_inputs())
# default posinf/neginf are float64's extremes here; the float32 path is checked in the oracle
row("nan_to_num_defaults", lambda x: np.nan_to_num(x), lambda T, x: x.nan_to_num(),
    _nonfinite_inputs(), grad=False, f32=False)

# ----- linear algebra ---------------------------------------------------------------------------


@st.composite
def _matmul_shapes(draw):
    m, n, p = (draw(st.integers(1, 4)) for _ in range(3))
    kind = draw(st.sampled_from(["vv", "mv", "vm", "mm", "batched"]))
    if kind == "vv":
        return (n,), (n,)
    if kind == "mv":
        return (m, n), (n,)
    if kind == "vm":
        return (n,), (n, p)
    if kind == "mm":
        return (m, n), (n, p)
    ba, bb = draw(S.broadcastable_shapes(2, min_dims=1, max_dims=2, max_side=3))
    return ba + (m, n), bb + (n, p)


row("matmul", np.matmul, lambda T, a, b: a @ b, n_arrays(2, shapes=_matmul_shapes()))
row("T.matmul", np.matmul, lambda T, a, b: T.matmul(a, b), n_arrays(2, shapes=_matmul_shapes()))
_mm = st.tuples(*(st.integers(1, 4) for _ in range(3)))
row("mm", np.matmul, lambda T, a, b: T.mm(a, b),
    n_arrays(2, shapes=_mm.map(lambda s: ((s[0], s[1]), (s[1], s[2])))))
row("bmm", np.matmul, lambda T, a, b: a.bmm(b),
    n_arrays(2, shapes=st.tuples(*(st.integers(1, 3) for _ in range(4))).map(
        lambda s: ((s[0], s[1], s[2]), (s[0], s[2], s[3])))))
row("addmm", lambda c, a, b: 0.5 * c + 2 * a @ b,
    lambda T, c, a, b: T.addmm(c, a, b, beta=0.5, alpha=2),
    n_arrays(3, shapes=_mm.flatmap(lambda s: st.sampled_from([(s[0], s[2]), (s[2],), ()]).map(
        lambda c: (c, (s[0], s[1]), (s[1], s[2]))))))
row("mv", np.matmul, lambda T, a, b: T.mv(a, b),
    n_arrays(2, shapes=_mm.map(lambda s: ((s[0], s[1]), (s[1],)))))
row("dot", np.dot, lambda T, a, b: T.dot(a, b),
    n_arrays(2, shapes=st.integers(1, 5).map(lambda n: ((n,), (n,)))))
row("outer", np.outer, lambda T, a, b: T.outer(a, b),
    n_arrays(2, shapes=st.tuples(st.integers(1, 4), st.integers(1, 4)).map(
        lambda s: ((s[0],), (s[1],)))))


def _linear_ref(x, w, b=None):
    return x @ w.T + (b if b is not None else 0)


_lin = st.tuples(S.shapes(max_dims=2), st.integers(1, 4), st.integers(1, 4))
row("linear", _linear_ref, lambda T, x, w, b: nn(T).linear(x, w, b),
    n_arrays(3, shapes=_lin.map(lambda s: (s[0] + (s[1],), (s[2], s[1]), (s[2],)))))
row("linear_nobias", _linear_ref, lambda T, x, w: nn(T).linear(x, w),
    n_arrays(2, shapes=_lin.map(lambda s: (s[0] + (s[1],), (s[2], s[1])))))
for _eq, _shp in [
    ("ij,jk->ik", lambda a, b, c: ((a, b), (b, c))),
    ("bij,bjk->bik", lambda a, b, c: ((a, b, c), (a, c, b))),
    ("i,j->ij", lambda a, b, c: ((a,), (b,))),
    ("ij->", lambda a, b, c: ((a, b),)),
    ("ij->ji", lambda a, b, c: ((a, b),)),
    ("ii->i", lambda a, b, c: ((a, a),)),
    ("ijk,ik->j", lambda a, b, c: ((a, b, c), (a, c))),
    ("ij,ij->i", lambda a, b, c: ((a, b), (a, b))),
]:
    row(f"einsum[{_eq}]", (lambda eq: lambda *xs: np.einsum(eq, *xs))(_eq),
        (lambda eq: lambda T, *xs: T.einsum(eq, *xs))(_eq),
        n_arrays(_eq.count(",") + 1, shapes=st.tuples(*(st.integers(1, 3),) * 3).map(
            (lambda f: lambda s: f(*s))(_shp))))
# ellipsis (right-aligned, broadcasting) and size-1 broadcasting of a named dim; the gradient of
# a broadcast operand sums over the broadcast dims
for _eq, _shp in [
    ("...ij,jk->...ik", lambda a, b, c: ((a, b, c), (c, a))),
    ("...ij,...jk", lambda a, b, c: ((a, 1, b, c), (b, c, a))),
    ("i...->...", lambda a, b, c: ((a, b, c),)),
    ("bij,bjk->bik", lambda a, b, c: ((1, a, b), (c, b, a))),
]:
    row(f"einsum-broadcast[{_eq}]", (lambda eq: lambda *xs: np.einsum(eq, *xs))(_eq),
        (lambda eq: lambda T, *xs: T.einsum(eq, *xs))(_eq),
        n_arrays(_eq.count(",") + 1, shapes=st.tuples(*(st.integers(1, 3),) * 3).map(
            (lambda f: lambda s: f(*s))(_shp))))

# the rest of the cstorch-era surface: inverse hyperbolics, gamma functions, batched addmm forms,
# kron, take_along_dim, rot90, binary search, torch.linalg norms
for _name, _ref, _call, _dom in [
    ("asinh", np.arcsinh, lambda T, x: T.asinh(x), {}),
    ("arccosh", np.arccosh, lambda T, x: T.arccosh(x), dict(lo=1.2, hi=3.0)),
    ("atanh", np.arctanh, lambda T, x: T.atanh(x), dict(lo=-0.9, hi=0.9)),
    ("lgamma", special.gammaln, lambda T, x: T.lgamma(x),
     dict(avoid=(-2.0, -1.0, 0.0), gap=0.1)),
    ("digamma", special.psi, lambda T, x: T.digamma(x), dict(avoid=(-2.0, -1.0, 0.0), gap=0.1)),
    ("positive", lambda x: x, lambda T, x: T.positive(x), {}),
]:
    row(_name, _ref, _call, one(**_dom))
_bmm3 = st.tuples(*(st.integers(1, 3) for _ in range(4)))
row("baddbmm", lambda c, a, b: 0.5 * c + 2 * a @ b,
    lambda T, c, a, b: T.baddbmm(c, a, b, beta=0.5, alpha=2),
    n_arrays(3, shapes=_bmm3.flatmap(lambda s: st.sampled_from(
        [(s[0], s[1], s[3]), (s[1], s[3]), (s[3],), ()]).map(
            lambda c: (c, (s[0], s[1], s[2]), (s[0], s[2], s[3]))))))
row("addbmm", lambda c, a, b: c + np.einsum("bij,bjk->ik", a, b),
    lambda T, c, a, b: T.addbmm(c, a, b),
    n_arrays(3, shapes=_bmm3.flatmap(lambda s: st.sampled_from([(s[1], s[3]), (s[3],), ()]).map(
        lambda c: (c, (s[0], s[1], s[2]), (s[0], s[2], s[3]))))))
row("kron", np.kron, lambda T, a, b: T.kron(a, b),
    n_arrays(2, shapes=st.tuples(S.shapes(max_dims=3, max_side=3), S.shapes(max_dims=3, max_side=3)),
             contiguous=True))


@st.composite
def _take_along_inputs(draw):
    shape = draw(S.shapes(min_dims=1))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    ishape = tuple(draw(st.sampled_from([1, s])) for s in shape)
    ishape = ishape[:dim % len(shape)] + (draw(st.integers(1, 3)),) + ishape[dim % len(shape) + 1:]
    n = shape[dim]
    idx = np.array(draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(ishape)),
                                 max_size=int(np.prod(ishape))))).reshape(ishape) % n
    return (draw(S.arrays(shape)),), dict(dim=dim, indices=idx.astype(np.int64))


def _take_along_ref(x, dim, indices):
    xs = list(x.shape)
    xs[dim] = indices.shape[dim]
    ishape = list(np.broadcast_shapes(tuple(xs), indices.shape))
    shape = list(ishape)
    shape[dim] = x.shape[dim]
    return np.take_along_axis(np.broadcast_to(x, shape), np.broadcast_to(indices, ishape), dim)


row("take_along_dim", _take_along_ref,
    lambda T, x, dim, indices: T.take_along_dim(x, T.tensor(indices), dim), _take_along_inputs())
row("take_along_dim_flat", lambda x: np.take(x.reshape(-1), [0, -1]),
    lambda T, x: T.take_along_dim(x.contiguous(), T.tensor([0, x.numel() - 1])), one())
row("rot90", lambda x, k, dims: np.rot90(x, k, dims), lambda T, x, k, dims: T.rot90(x, k, dims),
    one(shape=S.shapes(min_dims=2), req=lambda s: dict(
        k=st.integers(-5, 5), dims=st.permutations(range(len(s))).map(lambda p: tuple(p[:2])))))


def _searchsorted_ref(seq, v, right=False):
    seq = np.sort(seq, axis=-1)
    side = "right" if right else "left"
    if seq.ndim == 1:
        return np.searchsorted(seq, v, side=side)
    rows = [np.searchsorted(a, b, side=side)
            for a, b in zip(seq.reshape(-1, seq.shape[-1]), v.reshape(-1, v.shape[-1]))]
    return np.array(rows).reshape(v.shape)


@st.composite
def _search_inputs(draw):
    n = draw(st.integers(1, 5))
    lead = draw(st.sampled_from([(), (2,), (2, 1)]))
    vshape = draw(S.shapes(max_dims=2)) if not lead else lead + (draw(st.integers(1, 3)),)
    seq = draw(S.distinct_arrays(lead + (n,)))
    kw = draw(S.kwargs(right=st.booleans()))
    return (seq, draw(S.distinct_arrays(vshape, offset=0.5))), kw


# the sequence is sorted inside the call: a random program hands it any values
row("searchsorted", _searchsorted_ref,
    lambda T, seq, v, **kw: T.searchsorted(T.sort(seq, dim=-1)[0], v, **kw), _search_inputs(),
    grad=False)
row("bucketize", lambda v, b: np.searchsorted(np.sort(b), v, side="left"),
    lambda T, v, b: T.bucketize(v, T.sort(b)[0]),
    n_arrays(2, shapes=st.tuples(S.shapes(max_dims=2), st.integers(1, 5).map(lambda n: (n,))),
             distinct=True), grad=False)


def _vnorm_ref(x, ord=2, dim=None, keepdim=False):
    a = np.abs(x)
    axis = R.ax(x, dim)
    if ord == float("inf"):
        return np.max(a, axis=axis, keepdims=keepdim)
    if ord == -float("inf"):
        return np.min(a, axis=axis, keepdims=keepdim)
    return np.sum(a ** ord, axis=axis, keepdims=keepdim) ** (1 / ord)


row("linalg.vector_norm", _vnorm_ref, lambda T, x, **kw: T.linalg.vector_norm(x, **kw),
    one(kw=lambda s: dict(dim=S.dims(len(s)), keepdim=st.booleans(),
                          ord=st.sampled_from([2, 1, 3, 0.5, -1, float("inf"), -float("inf")])),
        **DISTINCT))


@st.composite
def _matrices(draw, square=False):
    """Batches of well-conditioned matrices with well separated singular values (small noise on
    a scaled identity): the spectral norms are differentiable there."""
    m = draw(st.integers(1, 3))
    n = m if square else draw(st.integers(1, 3))
    batch = draw(st.sampled_from([(), (2,)]))
    noise = draw(S.arrays(batch + (m, n), lo=-0.15, hi=0.15, avoid=(0.0,), gap=0.02))
    k = min(m, n)
    base = np.zeros((m, n))
    base[np.arange(k), np.arange(k)] = [3.0, 2.0, 1.0][:k]
    return np.asarray(base + noise)


def _mnorm_ref(x, ord="fro", keepdim=False):
    r = np.linalg.norm(x, ord=ord, axis=(-2, -1), keepdims=keepdim)
    return r


row("linalg.matrix_norm", _mnorm_ref, lambda T, x, **kw: T.linalg.matrix_norm(x, **kw),
    st.tuples(_matrices(), S.kwargs(ord=st.sampled_from(["fro", "nuc", 2, -2, 1, -1,
                                                            float("inf"), -float("inf")]),
                                    keepdim=st.booleans())).map(lambda t: ((t[0],), t[1])),
    dtypes=("float32", "float64"))
row("linalg.norm", lambda x: np.linalg.norm(x.reshape(-1)), lambda T, x: T.linalg.norm(x),
    one(**NONZERO))  # the 2-norm of one element is |x|: its kink at 0 is out of the domain
row("linalg.svdvals", lambda x: np.linalg.svd(x, compute_uv=False),
    lambda T, x: T.linalg.svdvals(x), _matrices().map(lambda a: ((a,), {})),
    dtypes=("float32", "float64"))

# ----- joining and splitting --------------------------------------------------------------------


@st.composite
def _cat_inputs(draw, same=False):
    shape = draw(S.shapes(min_dims=1))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    n = draw(st.integers(1, 3))
    xs = []
    for _ in range(n):
        s = list(shape)
        if not same:
            s[dim] = draw(st.integers(1, 3))
        xs.append(draw(S.arrays(tuple(s))))
    return tuple(xs), dict(dim=dim)


row("cat", lambda *xs, dim: np.concatenate(xs, axis=dim), lambda T, *xs, dim: T.cat(xs, dim),
    _cat_inputs())
row("stack", lambda *xs, dim: np.stack(xs, axis=dim),
    lambda T, *xs, dim: T.stack(xs, dim=dim if dim < 0 else dim), _cat_inputs(same=True))


def _split_inputs(kind):
    @st.composite
    def strat(draw):
        (x,), kw = draw(one(shape=S.shapes(min_dims=1), req=_d1))
        n = x.shape[kw["dim"]]
        if kind == "size":
            kw["split_size_or_sections"] = draw(st.integers(1, n + 1))
        elif kind == "sections":
            cuts = sorted(draw(st.lists(st.integers(0, n), max_size=3)))
            kw["split_size_or_sections"] = [b - a for a, b in zip([0] + cuts, cuts + [n])]
        else:
            kw["chunks"] = draw(st.integers(1, n + 1))
        return (x,), kw
    return strat()


def _split_ref(x, split_size_or_sections, dim):
    n = x.shape[dim]
    s = split_size_or_sections
    sizes = [s] * (n // s) + ([n % s] if n % s else []) if isinstance(s, int) else s
    return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=dim))


def _chunk_ref(x, chunks, dim):
    n = x.shape[dim]
    size = -(-n // chunks)
    return _split_ref(x, size, dim)


row("split", _split_ref, lambda T, x, **kw: T.split(x, **kw), _split_inputs("size"))
row("split_sections", _split_ref,
    lambda T, x, split_size_or_sections, dim: x.split(split_size_or_sections, dim),
    _split_inputs("sections"))
row("chunk", _chunk_ref, lambda T, x, **kw: T.chunk(x, **kw), _split_inputs("chunks"))
row("unbind", lambda x, dim: tuple(np.moveaxis(x, dim, 0)), lambda T, x, dim: T.unbind(x, dim),
    one(shape=S.shapes(min_dims=1), req=_d1))

# ----- gather / scatter / index_select / masked_fill -----------------------------------------------


@st.composite
def _gather_inputs(draw, unique=False, src=True):
    shape = draw(S.shapes(min_dims=1))
    dim = draw(st.integers(0, len(shape) - 1))
    ishape = tuple(draw(st.integers(1, s)) for s in shape)
    if unique:  # no two index entries along ``dim`` collide: scatter's gradient is well defined
        ishape = ishape[:dim] + (draw(st.integers(1, shape[dim])),) + ishape[dim + 1:]
        rows = [draw(st.permutations(range(shape[dim])))[:ishape[dim]]
                for _ in range(int(np.prod(ishape)) // ishape[dim])]
        idx = np.moveaxis(np.array(rows, dtype=np.int64).reshape(
            ishape[:dim] + ishape[dim + 1:] + (ishape[dim],)), -1, dim)
    else:
        flat = draw(st.lists(st.integers(0, shape[dim] - 1), min_size=int(np.prod(ishape)),
                             max_size=int(np.prod(ishape))))
        idx = np.array(flat, dtype=np.int64).reshape(ishape)
    x = draw(S.arrays(shape))
    if not src:
        return (x,), dict(dim=dim, index=idx)
    # src as large as index: torch's own backward rejects a larger src ("invalid gradient")
    return (x, draw(S.arrays(ishape))), dict(dim=dim, index=idx)


row("gather", lambda x, dim, index: R.gather(x, dim, index),
    lambda T, x, dim, index: T.gather(x, dim, T.tensor(index)), _gather_inputs(src=False))
row("scatter", lambda x, s, dim, index: R.scatter(x, dim, index, s),
    lambda T, x, s, dim, index: T.scatter(x, dim, T.tensor(index), s), _gather_inputs(unique=True))
row("scatter_value", lambda x, dim, index: R.scatter(x, dim, index, 0.5),
    lambda T, x, dim, index: x.scatter(dim, T.tensor(index), 0.5), _gather_inputs(src=False))
row("scatter_add", lambda x, s, dim, index: R.scatter(x, dim, index, s, "add"),
    lambda T, x, s, dim, index: T.scatter_add(x, dim, T.tensor(index), s), _gather_inputs())


@st.composite
def _index_select_inputs(draw):
    (x,), kw = draw(one(shape=S.shapes(min_dims=1), req=_d1))
    n = x.shape[kw["dim"]]
    kw["index"] = np.array(draw(st.lists(st.integers(0, n - 1), max_size=5)), dtype=np.int64)
    return (x,), kw


row("index_select", lambda x, dim, index: np.take(x, index, axis=dim),
    lambda T, x, dim, index: T.index_select(x, dim, T.tensor(index, dtype=T.int64)),
    _index_select_inputs())


@st.composite
def _index_put_inputs(draw, unique=False, negative=False, value=None):
    """``(x, source)`` (or ``(x,)``/``(x, value)`` when ``value`` is "scalar"/"tensor") with
    ``dim`` and a 1-d int64 ``index`` into ``x``'s ``dim`` (repeats unless ``unique``; entries
    counted from the end too when ``negative``). ``source`` is ``x``'s shape with ``len(index)``
    along ``dim`` (a 0-d ``x`` takes a 0-d source and a one-element index)."""
    shape = draw(S.shapes())
    x = draw(S.arrays(shape))
    nd = max(len(shape), 1)
    dim = draw(st.integers(-nd, nd - 1))
    n = shape[dim] if shape else 1
    if unique:
        index = draw(st.permutations(range(n)))[:draw(st.integers(0 if shape else 1, n))]
    else:
        index = draw(st.lists(st.integers(-n if negative else 0, n - 1),
                              min_size=0 if shape else 1, max_size=1 if not shape else 5))
    index = np.array(index, dtype=np.int64)
    kw = dict(dim=dim, index=index)
    if value == "scalar":
        return (x,), dict(kw, value=draw(st.sampled_from([-1.5, 0.0, 2.0])))
    if value == "tensor":
        return (x, draw(S.arrays(()))), kw
    sshape = () if not shape else tuple(len(index) if i == dim % nd else s
                                        for i, s in enumerate(shape))
    return (x, draw(S.arrays(sshape))), kw


def _along(x, dim, index):
    return (slice(None),) * (dim % max(x.ndim, 1)) + (index,)


def _index_add_ref(x, s, dim, index, alpha=1):
    r = np.array(x, copy=True).reshape(x.shape or (1,))
    np.add.at(r, _along(r, dim, index), alpha * s.reshape(np.shape(r[_along(r, dim, index)])))
    return r.reshape(x.shape)


def _index_copy_ref(x, s, dim, index):
    r = np.array(x, copy=True).reshape(x.shape or (1,))
    r[_along(r, dim, index)] = s.reshape(np.shape(r[_along(r, dim, index)]))
    return r.reshape(x.shape)


def _index_fill_ref(x, *v, dim, index, value=None):
    r = np.array(x, copy=True).reshape(x.shape or (1,))
    r[_along(r, dim, index)] = v[0] if v else value
    return r.reshape(x.shape)


row("index_add", _index_add_ref,
    lambda T, x, s, dim, index, **kw: T.index_add(x, dim, T.tensor(index), s, **kw),
    st.tuples(_index_put_inputs(), S.kwargs(alpha=st.sampled_from([2, -0.5]))).map(
        lambda t: (t[0][0], dict(t[0][1], **t[1]))))
row("Tensor.index_add_", _index_add_ref,
    lambda T, x, s, dim, index: (x + 0).index_add_(dim, T.tensor(index, dtype=T.int32), s),
    _index_put_inputs())
# unique indices: with repeats the last write wins and torch still hands every source slice the
# gradient of its target (not a derivative), so central differences cannot check it
row("index_copy", _index_copy_ref,
    lambda T, x, s, dim, index: x.index_copy(dim, T.tensor(index), s),
    _index_put_inputs(unique=True))
row("Tensor.index_copy_", _index_copy_ref,
    lambda T, x, s, dim, index: (x + 0).index_copy_(dim, T.tensor(index), s),
    _index_put_inputs(unique=True))
row("index_fill", _index_fill_ref,
    lambda T, x, dim, index, value: T.index_fill(x, dim, T.tensor(index), value),
    _index_put_inputs(negative=True, value="scalar"))
# a value tensor that requires grad (non-negative indices: torch's backward for this overload
# rejects negative ones, which its forward accepts)
row("index_fill_tensor_value", _index_fill_ref,
    lambda T, x, v, dim, index: x.index_fill(dim, T.tensor(index), v),
    _index_put_inputs(value="tensor"))
row("Tensor.index_fill_", _index_fill_ref,
    lambda T, x, dim, index, value: (x + 0).index_fill_(dim, T.tensor(index), value),
    _index_put_inputs(negative=True, value="scalar"))


@st.composite
def _mask_inputs(draw):
    sx = draw(S.shapes())
    sm = tuple(1 if draw(st.booleans()) else n for n in sx[draw(st.integers(0, len(sx))):])
    mask = np.array(draw(st.lists(st.booleans(), min_size=int(np.prod(sm)),
                                  max_size=int(np.prod(sm))))).reshape(sm)
    return (draw(S.arrays(sx)),), dict(mask=mask)


row("masked_fill", lambda x, mask: np.where(mask, -1.5, x),
    lambda T, x, mask: T.masked_fill(x, T.tensor(mask), -1.5), _mask_inputs())
row("masked_fill_tensor_value", lambda x, v, mask: np.where(mask, v, x),
    lambda T, x, v, mask: x.masked_fill(T.tensor(mask), v),
    st.tuples(_mask_inputs(), S.arrays(())).map(lambda t: ((t[0][0][0], t[1]), t[0][1])))

# ----- pad / flip / roll / repeat / tile -------------------------------------------------------


@st.composite
def _pad_inputs(draw):
    mode = draw(st.sampled_from(["constant", "reflect", "replicate", "circular"]))
    npad = draw(st.integers(1, 2))
    if mode == "constant":
        shape = draw(S.shapes(min_dims=npad))
        pads = []
        for s in shape[::-1][:npad]:
            lo, hi = draw(st.integers(-1, 2)), draw(st.integers(-1, 2))
            pads += [lo, hi] if s + lo + hi >= 1 else [0, 0]
        kw = dict(pad=tuple(pads), mode=mode, value=draw(st.sampled_from([0.0, 1.5])))
    else:
        shape = draw(S.shapes(min_dims=npad + 1, max_dims=npad + 2, min_side=2))
        lim = (lambda s: s - 1) if mode == "reflect" else (lambda s: s) if mode == "circular" \
            else (lambda s: 3)
        pads = [draw(st.integers(0, lim(s))) for s in shape[::-1][:npad] for _ in (0, 1)]
        kw = dict(pad=tuple(pads), mode=mode)
    return (draw(S.arrays(shape)),), kw


row("F.pad", lambda x, **kw: R.pad(x, kw["pad"], kw["mode"], kw.get("value", 0.0)),
    lambda T, x, **kw: nn(T).pad(x, **kw), _pad_inputs())


@st.composite
def _dims_list(draw, shape):
    n = len(shape)
    return tuple(draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=n,
                               unique_by=lambda d: d % n)))


row("flip", lambda x, dims: np.flip(x, dims), lambda T, x, dims: T.flip(x, dims),
    one(shape=S.shapes(min_dims=1), req=lambda s: dict(dims=_dims_list(s))))
row("roll", lambda x, shifts, dims: np.roll(x, shifts, dims),
    lambda T, x, shifts, dims: T.roll(x, shifts, dims),
    one(shape=S.shapes(min_dims=1), req=lambda s: dict(dims=st.integers(0, len(s) - 1),
                                                       shifts=st.integers(-5, 5))))
row("roll_multi", lambda x: np.roll(x, (1, -2), (0, -1)), lambda T, x: x.roll((1, -2), (0, -1)),
    one(shape=S.shapes(min_dims=2)))
row("roll_flat", lambda x: np.roll(x, 3), lambda T, x: T.roll(x, 3), one())
row("repeat", lambda x, reps: np.tile(x, reps), lambda T, x, reps: x.repeat(*reps),
    one(req=lambda s: dict(reps=st.lists(st.integers(1, 3), min_size=max(len(s), 1),
                                         max_size=len(s) + 1).map(tuple))))
row("tile", lambda x, reps: np.tile(x, reps), lambda T, x, reps: T.tile(x, reps),
    one(req=lambda s: dict(reps=st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple))))
row("repeat_interleave", lambda x, r, dim: np.repeat(x, r, axis=dim),
    lambda T, x, r, dim: T.repeat_interleave(x, r, dim),
    one(shape=S.shapes(min_dims=1), req=lambda s: dict(dim=st.integers(0, len(s) - 1),
                                                       r=st.integers(1, 3))))
row("repeat_interleave_flat", lambda x: np.repeat(x, 2), lambda T, x: x.repeat_interleave(2), one())
row("tril", lambda x, k: np.tril(x, k), lambda T, x, k: T.tril(x, k),
    one(shape=S.shapes(min_dims=2, max_dims=3), req=lambda s: dict(k=st.integers(-2, 2))))
row("triu", lambda x, k: np.triu(x, k), lambda T, x, k: x.triu(k),
    one(shape=S.shapes(min_dims=2, max_dims=3), req=lambda s: dict(k=st.integers(-2, 2))))
row("diagonal", lambda x, offset: np.diagonal(x, offset, 0, -1),
    lambda T, x, offset: T.diagonal(x, offset, 0, -1),
    one(shape=S.shapes(min_dims=2, max_dims=3), req=lambda s: dict(offset=st.integers(-2, 2))))
row("trace", np.trace, lambda T, x: T.trace(x), one(shape=S.shapes(min_dims=2, max_dims=2)))

# ----- views -------------------------------------------------------------------------------------


@st.composite
def _reshape_inputs(draw, contiguous=False):
    shape = draw(S.shapes())
    n = int(np.prod(shape))
    # a random factorisation of n, with one -1 sometimes
    new, rest = [], n
    for _ in range(draw(st.integers(0, 3))):
        f = draw(st.sampled_from([d for d in range(1, rest + 1) if rest % d == 0]))
        new.append(f)
        rest //= f
    new.append(rest)
    if draw(st.booleans()):
        new[draw(st.integers(0, len(new) - 1))] = -1
    x = draw(S.arrays(shape, contiguous=contiguous))
    return (x,), dict(shape=tuple(new))


row("view", lambda x, shape: x.reshape(shape), lambda T, x, shape: x.view(shape),
    _reshape_inputs(contiguous=True))
row("view_varargs", lambda x, shape: x.reshape(shape), lambda T, x, shape: x.view(*shape),
    _reshape_inputs(contiguous=True))
row("reshape", lambda x, shape: x.reshape(shape), lambda T, x, shape: T.reshape(x, shape),
    _reshape_inputs())
row("view_as", lambda x: x.reshape(-1), lambda T, x: x.view_as(T.zeros(x.numel())),
    one(shape=S.shapes(), contiguous=True))
row("flatten", lambda x, start_dim=0, end_dim=-1: x.reshape(
        x.shape[:start_dim % max(x.ndim, 1)] + (-1,) + x.shape[end_dim % max(x.ndim, 1) + 1:])
    if x.ndim else x.reshape(1),
    lambda T, x, **kw: T.flatten(x, **kw),
    one(kw=lambda s: dict(start_dim=st.just(0) if not s else st.integers(0, len(s) - 1),
                          end_dim=st.just(-1))))
row("unflatten", lambda x, dim, sizes: x.reshape(x.shape[:dim] + sizes + x.shape[dim + 1:]),
    lambda T, x, dim, sizes: x.unflatten(dim, sizes),
    one(shape=S.shapes(min_dims=1).filter(lambda s: s[0] % 2 == 0),
        req=lambda s: dict(dim=st.just(0), sizes=st.just((2, s[0] // 2)))))
row("squeeze", lambda x, dim=None: np.squeeze(x, R.ax(x, dim) if dim is None or x.ndim == 0 or
                                              x.shape[dim] == 1 else ()),
    lambda T, x, **kw: T.squeeze(x, **kw),
    one(kw=lambda s: dict(dim=st.integers(-max(len(s), 1), max(len(s), 1) - 1))))
row("squeeze_tuple", lambda x: np.squeeze(x, tuple(i for i in (0, -1) if x.shape[i] == 1)),
    lambda T, x: x.squeeze((0, -1)) if x.ndim > 1 else x.squeeze(0),
    one(shape=S.shapes(min_dims=2)))
row("unsqueeze", lambda x, dim: np.expand_dims(x, dim), lambda T, x, dim: x.unsqueeze(dim),
    one(req=lambda s: dict(dim=st.integers(-len(s) - 1, len(s)))))
row("transpose", lambda x, d0, d1: np.swapaxes(x, d0, d1), lambda T, x, d0, d1: T.transpose(x, d0, d1),
    one(shape=S.shapes(min_dims=1), req=lambda s: dict(d0=_d1(s)["dim"], d1=_d1(s)["dim"])))
row("permute", lambda x, dims: np.transpose(x, dims), lambda T, x, dims: x.permute(*dims),
    one(shape=S.shapes(min_dims=1), req=lambda s: dict(dims=st.permutations(range(len(s))).map(tuple))))
row("permute_fn", lambda x, dims: np.transpose(x, dims), lambda T, x, dims: T.permute(x, dims),
    one(req=lambda s: dict(dims=st.permutations(range(len(s))).map(tuple))))
row("t", lambda x: x.T, lambda T, x: x.t(), one(shape=S.shapes(max_dims=2)))
row("T", lambda x: x.T, lambda T, x: x.T, one(shape=S.shapes(min_dims=2, max_dims=2)))
row("mT", lambda x: np.swapaxes(x, -1, -2), lambda T, x: x.mT, one(shape=S.shapes(min_dims=2)))
row("movedim", lambda x, s, d: np.moveaxis(x, s, d), lambda T, x, s, d: T.movedim(x, s, d),
    one(shape=S.shapes(min_dims=1), req=lambda s: dict(s=_d1(s)["dim"], d=_d1(s)["dim"])))


@st.composite
def _expand_inputs(draw):
    target = draw(S.shapes(min_dims=1, max_dims=4))
    k = draw(st.integers(0, len(target)))
    src = tuple(draw(st.sampled_from([1, t])) for t in target[k:])
    sizes = tuple(-1 if (i >= k and draw(st.booleans())) else t for i, t in enumerate(target))
    return (draw(S.arrays(src)),), dict(sizes=sizes)


def _expand_ref(x, sizes):
    shp = (1,) * (len(sizes) - x.ndim) + x.shape
    return np.broadcast_to(x.reshape(shp), tuple(s if t == -1 else t for s, t in zip(shp, sizes)))


row("expand", _expand_ref, lambda T, x, sizes: x.expand(*sizes), _expand_inputs())
row("expand_tuple", _expand_ref, lambda T, x, sizes: x.expand(sizes), _expand_inputs())
row("broadcast_to", lambda x, shape: np.broadcast_to(x, shape),
    lambda T, x, shape: T.broadcast_to(x, shape),
    S.broadcastable_shapes(2).flatmap(lambda ss: S.arrays(ss[0]).map(
        lambda x: ((x,), dict(shape=np.broadcast_shapes(*ss))))))
row("expand_as", lambda x, y: np.broadcast_to(x, np.broadcast_shapes(x.shape, y.shape)) + 0 * y,
    lambda T, x, y: x.expand_as(y + x) + 0 * y, two())


@st.composite
def _narrow_inputs(draw):
    (x,), kw = draw(one(shape=S.shapes(min_dims=1), req=_d1))
    n = x.shape[kw["dim"]]
    start = draw(st.integers(-n, n - 1))
    kw.update(start=start, length=draw(st.integers(0, n - start % n)))
    return (x,), kw


row("narrow", lambda x, dim, start, length: np.take(x, np.arange(start % x.shape[dim],
                                                                 start % x.shape[dim] + length), dim),
    lambda T, x, **kw: T.narrow(x, **kw), _narrow_inputs())


@st.composite
def _unfold_inputs(draw):
    (x,), kw = draw(one(shape=S.shapes(min_dims=1), req=_d1))
    n = x.shape[kw["dim"]]
    return (x,), dict(dimension=kw["dim"], size=draw(st.integers(0, n)),
                      step=draw(st.integers(1, 3)))


def _unfold_ref(x, dimension, size, step):
    d = dimension % x.ndim  # (the windows' dim is appended last)
    win = np.lib.stride_tricks.sliding_window_view(x, size, axis=d)
    return np.take(win, np.arange(0, win.shape[d], step), d)


row("Tensor.unfold", _unfold_ref, lambda T, x, **kw: x.unfold(**kw), _unfold_inputs())
row("select", lambda x, dim, index: np.take(x, index, dim),
    lambda T, x, dim, index: x.select(dim, index),
    one(shape=S.shapes(min_dims=1), req=lambda s: dict(dim=st.just(-1), index=st.integers(
        -s[-1], s[-1] - 1))))

# ----- indexing (get and set) -------------------------------------------------------------------


@st.composite
def _basic_key(draw, shape):
    """ints, slices (steps 1-3), None; trailing dims dropped, or a run of dims as Ellipsis."""
    items = []
    for s in shape:
        kind = draw(st.sampled_from(["int", "slice", "full", "none"]))
        if kind == "int":
            items.append([draw(st.integers(-s, s - 1))])
        elif kind == "slice":
            a = draw(st.one_of(st.none(), st.integers(-s - 1, s + 1)))
            b = draw(st.one_of(st.none(), st.integers(-s - 1, s + 1)))
            items.append([slice(a, b, draw(st.sampled_from([None, 1, 2, 3])))])
        elif kind == "none":
            items.append([None, slice(None)])
        else:
            items.append([slice(None)])
    mode = draw(st.sampled_from(["all", "truncate", "ellipsis"]))
    if mode == "truncate":
        items = items[:draw(st.integers(0, len(items)))]
    elif mode == "ellipsis":
        i = draw(st.integers(0, len(items)))
        j = draw(st.integers(i, len(items)))
        items = items[:i] + [[Ellipsis]] + items[j:]
    return tuple(k for item in items for k in item)


@st.composite
def _adv_key(draw, shape, unique=False):
    kind = draw(st.sampled_from(["int_array", "bool_mask", "mixed", "two_arrays"]))
    if kind == "bool_mask":
        k = draw(st.integers(1, len(shape)))
        m = np.array(draw(st.lists(st.booleans(), min_size=int(np.prod(shape[:k])),
                                   max_size=int(np.prod(shape[:k]))))).reshape(shape[:k])
        return (m,)
    d = draw(st.integers(0, len(shape) - 1))
    n = shape[d]
    if unique:
        idx = np.array(draw(st.permutations(range(n)))[:draw(st.integers(1, n))], dtype=np.int64)
    else:
        idx = np.array(draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=4)), dtype=np.int64)
    if kind == "two_arrays" and len(shape) >= 2 and d + 1 < len(shape):
        m = shape[d + 1]
        idx2 = np.array(draw(st.lists(st.integers(0, m - 1), min_size=len(idx), max_size=len(idx))))
        if unique:
            idx2 = np.zeros_like(idx)
        return (slice(None),) * d + (idx, idx2)
    key = (slice(None),) * d + (idx,)
    if kind == "mixed" and d + 1 < len(shape):
        key += (slice(0, None, 2),)
    return key


def _tkey(T, key):
    """The key with numpy index arrays turned into tensors of namespace T."""
    return tuple(T.tensor(k) if isinstance(k, np.ndarray) else k for k in key)


@st.composite
def _getitem_inputs(draw, adv):
    shape = draw(S.shapes(min_dims=1 if adv else 0))
    key = draw(_adv_key(shape) if adv else _basic_key(shape))
    return (draw(S.arrays(shape)),), dict(key=key)


row("getitem_basic", lambda x, key: x[key], lambda T, x, key: x[key], _getitem_inputs(False))
row("getitem_advanced", lambda x, key: x[key], lambda T, x, key: x[_tkey(T, key)],
    _getitem_inputs(True))
row("getitem_int_list", lambda x: x[[0, -1, 0]], lambda T, x: x[[0, -1, 0]],
    one(shape=S.shapes(min_dims=1)))


@st.composite
def _setitem_inputs(draw, adv):
    shape = draw(S.shapes(min_dims=1 if adv else 0))
    key = draw(_adv_key(shape, unique=True) if adv else _basic_key(shape))
    vshape = np.zeros(shape)[key].shape
    if draw(st.booleans()) and vshape:  # a value that broadcasts to the selection
        vshape = tuple(1 if draw(st.booleans()) else s for s in vshape)[draw(st.integers(0, len(vshape))):]
    return (draw(S.arrays(shape)), draw(S.arrays(vshape))), dict(key=key)


def _setitem_ref(x, v, key):
    y = x.copy()
    y[key] = v
    return y


def _setitem_call(T, x, v, key):
    y = x.clone()
    y[_tkey(T, key)] = v
    return y


row("setitem_basic", _setitem_ref, _setitem_call, _setitem_inputs(False))
row("setitem_advanced", _setitem_ref, _setitem_call, _setitem_inputs(True))
row("setitem_scalar", lambda x: np.where(np.arange(x.shape[0]).reshape((-1,) + (1,) * (x.ndim - 1))
                                         == 0, 2.0, x),
    lambda T, x: _setitem_call(T, x, 2.0, (0,)), one(shape=S.shapes(min_dims=1)))
row("index_put_accumulate", lambda x, v: _acc(x, v),
    lambda T, x, v: x.clone().index_put_((T.tensor([0, 0, 1]),), v, accumulate=True),
    fixed((3, 2), (3, 2)))


def _acc(x, v):
    y = x.copy()
    np.add.at(y, np.array([0, 0, 1]), v)
    return y


# ----- nn: softmax family and losses ------------------------------------------------------------
row("F.softmax", lambda x, dim: R.softmax(x, R.ax(x, dim)), lambda T, x, dim: nn(T).softmax(x, dim),
    one(req=_d1))
row("softmax_method", lambda x, dim: R.softmax(x, R.ax(x, dim)), lambda T, x, dim: x.softmax(dim),
    one(req=_d1))
row("F.log_softmax", lambda x, dim: R.log_softmax(x, R.ax(x, dim)),
    lambda T, x, dim: nn(T).log_softmax(x, dim=dim), one(req=_d1))
row("log_softmax_method", lambda x: R.log_softmax(x, -1), lambda T, x: x.log_softmax(-1), one())
row("F.softmin", lambda x: R.softmax(-x, -1), lambda T, x: nn(T).softmin(x, -1),
    one(shape=S.shapes(min_dims=1)))


@st.composite
def _ce_inputs(draw, probs=False):
    C = draw(st.integers(1, 4))
    lead = draw(st.sampled_from([(), (draw(st.integers(1, 3)),),
                                 (draw(st.integers(1, 3)), draw(st.integers(1, 2)))]))
    # input (C,), (N, C) or (N, C, d); target (), (N,) or (N, d)
    shape = (C,) if not lead else (lead[0], C) + lead[1:]
    tshape = () if not lead else (lead[0],) + lead[1:]
    x = draw(S.arrays(shape))
    kw = draw(S.kwargs(reduction=st.sampled_from(["mean", "sum", "none"]),
                       label_smoothing=st.sampled_from([0.0, 0.1, 0.3])))
    if draw(st.booleans()):
        kw["weight"] = draw(S.arrays((C,), lo=0.2, hi=2.0, contiguous=True))
    if probs:
        return (x, draw(S.arrays(shape, lo=0.0, hi=1.0))), kw
    n = int(np.prod(tshape))
    t = np.array(draw(st.lists(st.integers(0, C - 1), min_size=n, max_size=n)),
                 dtype=np.int64).reshape(tshape)
    if draw(st.booleans()):  # ignore some targets, never the first (so the mean is defined)
        ii = draw(st.sampled_from([-100, 0, 7]))
        flat = t.reshape(-1)
        if flat[0] == ii:
            ii = -100
        drop = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
        drop[0] = False
        flat[drop] = ii
        kw["ignore_index"] = ii
    kw["target"] = t
    return (x,), kw


def _ce_call(T, x, *t, target=None, weight=None, **kw):
    tgt = t[0] if t else T.tensor(target)
    w = T.tensor(weight, dtype=x.dtype) if weight is not None else None
    return nn(T).cross_entropy(x, tgt, weight=w, **kw)


row("F.cross_entropy", lambda x, target, **kw: R.cross_entropy(x, target, **kw), _ce_call,
    _ce_inputs())
row("F.cross_entropy_probs", lambda x, t, **kw: R.cross_entropy(x, t, **kw), _ce_call,
    _ce_inputs(probs=True))


def _nll_call(T, x, target, weight=None, **kw):
    w = T.tensor(weight, dtype=x.dtype) if weight is not None else None
    return nn(T).nll_loss(nn(T).log_softmax(x, 1 if x.ndim > 1 else 0), T.tensor(target),
                          weight=w, **kw)


row("F.nll_loss", lambda x, target, label_smoothing=0.0, **kw: R.nll(
        R.log_softmax(x, 1 if x.ndim > 1 else 0), target, **kw),
    lambda T, x, label_smoothing=0.0, **kw: _nll_call(T, x, **kw), _ce_inputs())

for _name, _ref, _call, _dom in [
    ("F.mse_loss", lambda a, b: np.mean((a - b) ** 2), lambda T, a, b: nn(T).mse_loss(a, b), {}),
    ("F.smooth_l1_loss", lambda a, b: np.mean(np.where(np.abs(a - b) < 0.5,
                                                       (a - b) ** 2, np.abs(a - b) - 0.25)),
     lambda T, a, b: nn(T).smooth_l1_loss(a, b, beta=0.5), {}),
    ("F.huber_loss", lambda a, b: np.where(np.abs(a - b) < 0.5, 0.5 * (a - b) ** 2,
                                           0.5 * (np.abs(a - b) - 0.25)),
     lambda T, a, b: nn(T).huber_loss(a, b, reduction="none", delta=0.5), {}),
    ("F.bce_with_logits", lambda x, t: np.mean(np.log1p(np.exp(x)) - t * x),
     lambda T, x, t: nn(T).binary_cross_entropy_with_logits(x, t), {}),
    ("F.kl_div", lambda x, t: np.sum(np.exp(t) * (t - x)) / (x.shape[0] if x.ndim else 1),
     lambda T, x, t: nn(T).kl_div(x, t, reduction="batchmean", log_target=True), {}),
]:
    kinked = "smooth" in _name or "huber" in _name  # kinks at |a - b| = 0.5
    row(_name, _ref, _call,
        apart(avoid=(-0.5, 0.5), gap=0.05) if kinked
        else n_arrays(2, shapes=S.shapes().map(lambda s: (s, s)), **_dom),
        rtol=1e-6 if kinked else 1e-7)
row("F.l1_loss", lambda a, b: np.sum(np.abs(a - b)),
    lambda T, a, b: nn(T).l1_loss(a, b, reduction="sum"),
    two(DISTINCT, dict(DISTINCT, offset=0.5), shapes=S.shapes().map(lambda s: (s, s))))
row("F.binary_cross_entropy", lambda p, t: np.mean(-(t * np.log(p) + (1 - t) * np.log(1 - p))),
    lambda T, p, t: nn(T).binary_cross_entropy(p, t),
    n_arrays(2, shapes=S.shapes().map(lambda s: (s, s)), lo=0.05, hi=0.95))
row("F.cosine_similarity", lambda a, b: (a * b).sum(-1) / np.linalg.norm(a, axis=-1)
    / np.linalg.norm(b, axis=-1), lambda T, a, b: nn(T).cosine_similarity(a, b, dim=-1),
    n_arrays(2, shapes=S.shapes(min_dims=1).map(lambda s: (s, s)), avoid=(0.0,), gap=0.2))
row("F.normalize", lambda x: x / np.linalg.norm(x, axis=1, keepdims=True),
    lambda T, x: nn(T).normalize(x, dim=1), one(shape=S.shapes(min_dims=2), avoid=(0.0,), gap=0.2))
row("F.sdpa", lambda q, k, v: R.softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -1) @ v,
    lambda T, q, k, v: nn(T).scaled_dot_product_attention(q, k, v),
    n_arrays(3, shapes=st.tuples(*(st.integers(1, 3),) * 4).map(
        lambda s: ((s[0], s[1], s[3]), (s[0], s[2], s[3]), (s[0], s[2], s[3])))))

# ----- nn: convolution and pooling --------------------------------------------------------------


@st.composite
def _conv_inputs(draw, nd):
    groups = draw(st.sampled_from([1, 2]))
    cin, cout = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    k = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    kw = draw(S.kwargs(stride=st.integers(1, 2), padding=st.integers(0, 2),
                       dilation=st.integers(1, 2)))
    d = kw.get("dilation", 1)
    p = kw.get("padding", 0)
    size = tuple(max(draw(st.integers(1, 5)), d * (ki - 1) + 1 - 2 * p) for ki in k)
    batch = draw(st.sampled_from([(), (1,), (2,)]))
    x = draw(S.arrays(batch + (cin,) + size))
    w = draw(S.arrays((cout, cin // groups) + k))
    if groups > 1:
        kw["groups"] = groups
    if draw(st.booleans()):
        return (x, w, draw(S.arrays((cout,)))), kw
    return (x, w), kw


row("F.conv1d", R.conv, lambda T, *xs, **kw: nn(T).conv1d(*xs, **kw), _conv_inputs(1), rtol=1e-6)
row("F.conv2d", R.conv, lambda T, *xs, **kw: nn(T).conv2d(*xs, **kw), _conv_inputs(2), rtol=1e-6)


@st.composite
def _pool_inputs(draw, distinct=True, dilation=True):
    k = draw(st.integers(1, 3))
    kw = dict(kernel_size=k)
    kw.update(draw(S.kwargs(stride=st.integers(1, 3), padding=st.integers(0, k // 2),
                            ceil_mode=st.booleans(), **({"dilation": st.integers(1, 2)}
                                                        if dilation else {}))))
    d = kw.get("dilation", 1)
    batch = draw(st.sampled_from([(1,), (2,), (1, 2)]))
    hw = tuple(draw(st.integers(d * (k - 1) + 1, 6)) for _ in range(2))
    shape = batch + hw
    return ((draw(S.distinct_arrays(shape)) if distinct else draw(S.arrays(shape))),), kw


row("F.max_pool2d", R.max_pool2d, lambda T, x, **kw: nn(T).max_pool2d(x, **kw), _pool_inputs())
row("F.avg_pool2d", R.avg_pool2d, lambda T, x, **kw: nn(T).avg_pool2d(x, **kw),
    _pool_inputs(False, False).flatmap(lambda a: S.kwargs(count_include_pad=st.booleans(),
                                                          divisor_override=st.just(3)).map(
        lambda kw: (a[0], {**a[1], **kw}))), rtol=1e-6)
row("F.adaptive_avg_pool2d", R.adaptive_avg_pool2d,
    lambda T, x, output_size: nn(T).adaptive_avg_pool2d(x, output_size),
    one(shape=st.tuples(st.integers(1, 2), st.integers(1, 6), st.integers(1, 6)),
        req=lambda s: dict(output_size=st.tuples(st.integers(1, 4), st.integers(1, 4)))),
    rtol=1e-6)
row("F.adaptive_max_pool2d", R.adaptive_max_pool2d,
    lambda T, x, output_size: nn(T).adaptive_max_pool2d(x, output_size),
    one(shape=st.tuples(st.integers(1, 2), st.integers(1, 6), st.integers(1, 6)),
        req=lambda s: dict(output_size=st.tuples(st.integers(1, 4), st.integers(1, 4))),
        distinct=True))
row("F.adaptive_max_pool1d", lambda x: R.adaptive_max_pool2d(x[..., None, :], (1, 3))[..., 0, :],
    lambda T, x: nn(T).adaptive_max_pool1d(x, 3), fixed(st.tuples(
        st.integers(1, 2), st.integers(1, 2), st.integers(1, 7)), distinct=True))
row("F.max_pool1d", lambda x: R.max_pool2d(x[..., None, :], (1, 2), (1, 2))[..., 0, :],
    lambda T, x: nn(T).max_pool1d(x, 2), fixed(st.tuples(st.integers(1, 2), st.integers(1, 2),
                                                          st.integers(2, 6)), distinct=True))
row("F.avg_pool1d", lambda x: R.avg_pool2d(x[..., None, :], (1, 2), (1, 1))[..., 0, :],
    lambda T, x: nn(T).avg_pool1d(x, 2, 1), fixed(st.tuples(st.integers(1, 2), st.integers(1, 2),
                                                             st.integers(2, 6))))

# ----- nn: normalization, embedding -------------------------------------------------------------


@st.composite
def _ln_inputs(draw):
    shape = draw(S.shapes(min_dims=1, min_side=2))
    k = draw(st.integers(1, min(2, len(shape))))
    ns = shape[-k:]
    x = draw(S.distinct_arrays(shape))  # a constant row is a kink of the normalization
    kw = dict(normalized_shape=ns, **draw(S.kwargs(eps=st.sampled_from([1e-5, 0.1]))))
    which = draw(st.sampled_from(["none", "w", "wb"]))
    xs = (x,) + ((draw(S.arrays(ns)),) if which != "none" else ()) + \
        ((draw(S.arrays(ns)),) if which == "wb" else ())
    return xs, kw


row("F.layer_norm", lambda x, w=None, b=None, normalized_shape=(), eps=1e-5: R.layer_norm(
        x, len(normalized_shape), w, b, eps),
    lambda T, x, *wb, **kw: nn(T).layer_norm(x, weight=wb[0] if wb else None,
                                             bias=wb[1] if len(wb) > 1 else None, **kw),
    _ln_inputs(), rtol=1e-6, atol=1e-9)


@st.composite
def _bn_inputs(draw, training):
    shape = (draw(st.integers(2, 3)), draw(st.integers(1, 3)))
    if draw(st.booleans()):
        shape += (draw(st.integers(1, 3)),)
    C = shape[1]
    kw = dict(training=training, rm=draw(S.arrays((C,), contiguous=True)),
              rv=draw(S.arrays((C,), lo=0.5, hi=2.0, contiguous=True)),
              **draw(S.kwargs(momentum=st.sampled_from([0.1, 0.5]), eps=st.sampled_from([1e-5, 0.1]))))
    xs = (draw(S.distinct_arrays(shape)),)  # a constant channel is a kink of the normalization
    if draw(st.booleans()):
        xs += (draw(S.arrays((C,))), draw(S.arrays((C,))))
    return xs, kw


def _bn_call(T, x, *wb, rm, rv, **kw):
    rm_t, rv_t = T.tensor(rm, dtype=x.dtype), T.tensor(rv, dtype=x.dtype)
    out = nn(T).batch_norm(x, rm_t, rv_t, *wb, **kw)
    return out, rm_t, rv_t


row("F.batch_norm_train", lambda x, *wb, rm, rv, **kw: R.batch_norm(x, rm, rv, *wb, **kw), _bn_call,
    _bn_inputs(True), rtol=1e-6, atol=1e-9)
row("F.batch_norm_eval", lambda x, *wb, rm, rv, **kw: R.batch_norm(x, rm, rv, *wb, **kw), _bn_call,
    _bn_inputs(False), rtol=1e-6, atol=1e-9)
row("F.group_norm", lambda x: R.layer_norm(x.reshape(x.shape[0], 2, -1), 1).reshape(x.shape),
    lambda T, x: nn(T).group_norm(x, 2), fixed(st.tuples(st.integers(1, 2), st.just(4),
                                                          st.integers(1, 3)), **DISTINCT),
    rtol=1e-6)


@st.composite
def _emb_inputs(draw, padding):
    V, D = draw(st.integers(1, 5)), draw(st.integers(1, 3))
    ishape = draw(S.shapes(max_dims=2))
    n = int(np.prod(ishape))
    idx = np.array(draw(st.lists(st.integers(0, V - 1), min_size=n, max_size=n)),
                   dtype=np.int64).reshape(ishape)
    kw = dict(idx=idx)
    if padding:
        kw["padding_idx"] = draw(st.integers(-V, V - 1))
    return (draw(S.arrays((V, D))),), kw


row("F.embedding", lambda w, idx: w[idx], lambda T, w, idx: nn(T).embedding(T.tensor(idx), w),
    _emb_inputs(False))
# padding_idx rows get no gradient although the forward reads them, so central differences
# disagree by design: forward only here, gradient checked in test_tensor_semantics.
row("F.embedding_padding_idx", lambda w, idx, padding_idx: w[idx],
    lambda T, w, idx, padding_idx: nn(T).embedding(T.tensor(idx), w, padding_idx=padding_idx),
    _emb_inputs(True), grad=False)
row("F.dropout_eval", lambda x: x, lambda T, x: nn(T).dropout(x, 0.5, training=False), one(),
    grad=False)
row("F.glu", lambda x: x[..., :1] * special.expit(x[..., 1:]), lambda T, x: nn(T).glu(x, -1),
    one(shape=S.shapes(max_dims=3).map(lambda s: s + (2,))))

# ----- view chains and in-place ops inside the graph ----------------------------------------------
row("view_chain", lambda x: (np.swapaxes(x, 0, -1)[..., ::2] * 2).sum(-1),
    lambda T, x: (x.transpose(0, -1)[..., ::2] * 2).sum(-1), one(shape=S.shapes(min_dims=1)))
row("reshape_of_transpose", lambda x: x.T.reshape(-1) ** 2, lambda T, x: x.t().reshape(-1) ** 2,
    one(shape=S.shapes(min_dims=2, max_dims=2)))


def _inplace_chain(T, x, b):
    y = x * 1
    y.add_(b)
    y.mul_(b)
    y.exp_()
    return y


row("inplace_chain", lambda x, b: np.exp((x + b) * b), _inplace_chain,
    two(shapes=S.broadcastable_shapes(2).map(lambda ss: (np.broadcast_shapes(*ss), ss[1]))))


def _inplace_on_view(T, x, v):
    y = x * 1
    y[0].mul_(v)
    y[-1:].add_(1.5)
    return y


def _inplace_on_view_ref(x, v):
    y = x.copy()
    y[0] *= v
    y[-1:] += 1.5
    return y


row("inplace_on_view", _inplace_on_view_ref, _inplace_on_view,
    fixed(S.shapes(min_dims=1), ()))


def _copy_into_view(T, x, v):
    y = x.clone()
    y[1:].copy_(v)
    y.clamp_(-1.0, 1.0)
    return y


def _copy_into_view_ref(x, v):
    y = x.copy()
    y[1:] = v
    return np.clip(y, -1.0, 1.0)


row("copy_into_view", _copy_into_view_ref, _copy_into_view,
    fixed(st.tuples(st.integers(2, 4), st.integers(1, 3)), (1,),
          avoid=(-1.0, 1.0), gap=0.05))


def _masked_fill_(T, x, mask):
    y = x + 0
    y.masked_fill_(T.tensor(mask), 0.25)
    return y


row("masked_fill_", lambda x, mask: np.where(mask, 0.25, x), _masked_fill_, _mask_inputs())


# ----- more of the functional surface -----------------------------------------------------------
row("var_mean", lambda x: (np.var(x, axis=-1, ddof=1), np.mean(x, axis=-1)),
    lambda T, x: tuple(T.var_mean(x, -1)), one(_VARSHAPE, **DISTINCT))
row("std_positional_unbiased", lambda x: np.std(x, axis=0, ddof=0),
    lambda T, x: x.std(0, False), one(_VARSHAPE, **DISTINCT))
row("sum_dtype", lambda x: np.sum(x), lambda T, x: T.sum(x, dtype=T.float64), one(), f32=False)
# ``dtype=``: the input converted first, then reduced by that dtype's rule (half in float32);
# results in a lower precision than float64, so no central-difference gradient check (the
# differential tester compares their gradients with torch's)
row("sum_dtype_half", lambda x: np.sum(x), lambda T, x: T.sum(x, dtype=T.bfloat16), one(),
    f32=False, rtol=2e-2, atol=5e-2, grad=False)
row("cumsum_dtype_half", lambda x: np.cumsum(x.reshape(-1)),
    lambda T, x: T.cumsum(x.reshape(-1), 0, dtype=T.float16), one(), f32=False, rtol=1e-2,
    atol=2e-2, grad=False)
row("mean_dtype", lambda x: np.mean(x), lambda T, x: T.mean(x, dtype=T.float32), one(),
    f32=False, rtol=1e-6, atol=1e-6, grad=False)
_DIVIDEND = dict(lo=-3.9, hi=3.9, avoid=tuple(range(-4, 5)), gap=0.1)
row("div_floor", lambda a, b: np.floor_divide(a, b), lambda T, a, b: T.div(a, b, rounding_mode="floor"),
    two(_DIVIDEND, dict(lo=1.0, hi=1.0)))
row("div_trunc", lambda a, b: np.trunc(a / b), lambda T, a, b: a.div(b, rounding_mode="trunc"),
    two(_DIVIDEND, dict(lo=1.0, hi=1.0)))
# Differs from torch: its floor_divide has no derivative ("not implemented"); ours is 0 a.e.
row("floor_divide_op", lambda a: np.floor_divide(a, 0.75), lambda T, a: a // 0.75,
    one(lo=-3, hi=3, avoid=tuple(np.arange(-3, 3.1, 0.75)), gap=0.05), torch_grad=False)
row("remainder_negative", lambda a: np.remainder(a, -1.5), lambda T, a: T.remainder(a, -1.5),
    one(lo=-3, hi=3, avoid=(-3, -1.5, 0, 1.5, 3), gap=0.05))
row("clamp_min_gt_max", lambda x: np.full_like(x, 0.5), lambda T, x: T.clamp(x, 1.0, 0.5), one())
row("nansum_nan", lambda x: np.nansum(np.where(x > 1, np.nan, x)),
    lambda T, x: T.nansum(T.where(x > 1, float("nan"), x)), one(avoid=(1.0,), gap=0.05))
row("where_scalars", lambda c: np.where(c > 0, 1.0, -1.0), lambda T, c: T.where(c > 0, 1.0, -1.0),
    one(**NONZERO), grad=False)
row("masked_select", lambda x, mask: x[np.broadcast_to(mask, x.shape)],
    lambda T, x, mask: T.masked_select(x, T.tensor(mask)), _mask_inputs())
row("tensor_split", lambda x: tuple(np.array_split(x, 3, axis=0)),
    lambda T, x: T.tensor_split(x, 3), one(shape=S.shapes(min_dims=1)))
row("hstack", lambda a, b: np.hstack([a, b]), lambda T, a, b: T.hstack([a, b]),
    n_arrays(2, shapes=S.shapes(min_dims=1, max_dims=1).map(lambda s: (s, s))))
row("vstack", lambda a, b: np.vstack([a, b]), lambda T, a, b: T.vstack([a, b]),
    n_arrays(2, shapes=S.shapes(min_dims=2, max_dims=2).map(lambda s: (s, s))))
row("diag_vector", lambda x: np.diag(x, 1), lambda T, x: T.diag(x, 1),
    one(shape=S.shapes(min_dims=1, max_dims=1)))
row("diag_matrix", lambda x: np.diag(x, -1), lambda T, x: T.diag(x, -1),
    one(shape=S.shapes(min_dims=2, max_dims=2, min_side=2)))


def _diag_embed_ref(x, offset, dim1, dim2):
    nd = x.ndim + 1
    d1, d2 = dim1 % nd, dim2 % nd
    n = x.shape[-1] + abs(offset)
    shape = list(x.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, n)
    out = np.zeros(shape, x.dtype)
    diag = np.diagonal(out, offset, d1, d2)
    diag.setflags(write=True)
    diag[...] = x
    return out


@st.composite
def _diag_embed_inputs(draw):
    shp = draw(S.shapes(min_dims=1, max_dims=3))
    nd = len(shp) + 1
    d1, d2 = draw(st.lists(st.integers(-nd, nd - 1), min_size=2, max_size=2).filter(
        lambda p: p[0] % nd != p[1] % nd))
    return (draw(S.arrays(shp)),), dict(offset=draw(st.integers(-2, 2)), dim1=d1, dim2=d2)


row("diag_embed", _diag_embed_ref, lambda T, x, **kw: T.diag_embed(x, **kw),
    _diag_embed_inputs())
row("narrow_copy", lambda x, dim, start, length: np.take(
        x, np.arange(start % x.shape[dim], start % x.shape[dim] + length), dim),
    lambda T, x, **kw: T.narrow_copy(x, **kw), _narrow_inputs())
row("adjoint", lambda x: np.swapaxes(x, -1, -2), lambda T, x: x.adjoint(),
    one(shape=S.shapes(min_dims=2)))
row("mH", lambda x: np.swapaxes(x, -1, -2), lambda T, x: x.mH, one(shape=S.shapes(min_dims=2)))
row("H", lambda x: x.T, lambda T, x: x.H, one(shape=S.shapes(min_dims=2, max_dims=2)))
row("tensordot", lambda a, b: np.tensordot(a, b, 1), lambda T, a, b: T.tensordot(a, b, 1),
    n_arrays(2, shapes=_mm.map(lambda s: ((s[0], s[1]), (s[1], s[2])))))
row("cdist", lambda a, b: np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)),
    lambda T, a, b: T.cdist(a, b),
    n_arrays(2, shapes=_mm.map(lambda s: ((s[0], s[1]), (s[2], s[1]))), **DISTINCT),
    dtypes=("float32", "float64"))  # torch's CPU cdist has no half kernels
row("dist", lambda a, b: np.linalg.norm((a - b).ravel()), lambda T, a, b: T.dist(a, b),
    two(DISTINCT, dict(DISTINCT, offset=0.5), shapes=S.shapes().map(lambda s: (s, s))))
row("count_nonzero", lambda x: np.count_nonzero(x > 0, axis=-1),
    lambda T, x: T.count_nonzero(x > 0, -1), one(shape=S.shapes(min_dims=1)), grad=False)
row("any_dim_keepdim", lambda x: np.any(x > 0, axis=0, keepdims=True),
    lambda T, x: (x > 0).any(0, keepdim=True), one(shape=S.shapes(min_dims=1)), grad=False)
row("interpolate_nearest", lambda x: x.repeat(2, axis=-1).repeat(2, axis=-2),
    lambda T, x: nn(T).interpolate(x, scale_factor=2),
    one(shape=st.tuples(st.integers(1, 2), st.integers(1, 2), st.integers(1, 3),
                        st.integers(1, 3))))
row("max_pool2d_indices", lambda x: R.max_pool2d(x, 2),
    lambda T, x: nn(T).max_pool2d(x, 2, return_indices=True)[0],
    fixed(st.tuples(st.integers(1, 2), st.integers(2, 5), st.integers(2, 5)), distinct=True))
row("conv2d_same", lambda x, w: R.conv(x, w, padding=1), lambda T, x, w: nn(T).conv2d(x, w, padding="same"),
    fixed((1, 2, 4, 5), (3, 2, 3, 3)), rtol=1e-6)
row("conv2d_tuple_args", lambda x, w: R.conv(x, w, stride=(1, 2), padding=(0, 1), dilation=(2, 1)),
    lambda T, x, w: nn(T).conv2d(x, w, stride=(1, 2), padding=(0, 1), dilation=(2, 1)),
    fixed((2, 2, 6, 5), (1, 2, 2, 3)), rtol=1e-6)
row("cross_entropy_4d", lambda x, t: R.cross_entropy(x, t),
    lambda T, x, t: nn(T).cross_entropy(x, T.tensor(t)),
    fixed((2, 3, 2, 2)).map(lambda a: (a[0], {"t": np.array([[[0, 1], [2, 0]], [[1, 1], [2, 2]]])})))
# (class weights are constants: torch refuses a weight that requires grad)
row("F.bce_weighted", lambda p, t, w: np.sum(-w * (t * np.log(p) + (1 - t) * np.log(1 - p))),
    lambda T, p, t, w: nn(T).binary_cross_entropy(p, t, weight=T.tensor(w, dtype=p.dtype),
                                                  reduction="sum"),
    n_arrays(3, shapes=S.shapes().map(lambda s: (s, s, s)), lo=0.05, hi=0.95).map(
        lambda a: (a[0][:2], {"w": a[0][2]})))
row("F.kl_div_prob_target", lambda x, t: np.mean(t * (np.log(t) - x)),
    lambda T, x, t: nn(T).kl_div(x, t, reduction="mean"),
    n_arrays(2, shapes=S.shapes().map(lambda s: (s, s)), lo=0.1, hi=0.9))
row("F.bce_logits_pos_weight", lambda x, t, pw: np.mean((1 - t) * x + (1 + (pw - 1) * t)
                                                        * np.log1p(np.exp(-x))),
    lambda T, x, t, pw: nn(T).binary_cross_entropy_with_logits(x, t,
                                                               pos_weight=T.tensor(pw, dtype=x.dtype)),
    n_arrays(3, shapes=S.shapes(min_dims=1).map(lambda s: (s, s, s[-1:])), lo=0.1, hi=1.5).map(
        lambda a: (a[0][:2], {"pw": a[0][2]})))
row("F.pairwise_distance", lambda a, b: np.linalg.norm(a - b + 1e-6, axis=-1),
    lambda T, a, b: nn(T).pairwise_distance(a, b),
    two(DISTINCT, dict(DISTINCT, offset=0.5), shapes=S.shapes(min_dims=1).map(lambda s: (s, s))))
row("F.adaptive_avg_pool1d", lambda x: R.adaptive_avg_pool2d(x[..., None, :], (1, 2))[..., 0, :],
    lambda T, x: nn(T).adaptive_avg_pool1d(x, 2), fixed((2, 3, 5)), rtol=1e-6)
row("F.instance_norm", lambda x: R.layer_norm(x, 1),
    lambda T, x: nn(T).instance_norm(x), fixed((2, 3, 4), distinct=True), rtol=1e-6)
row("F.gaussian_nll_loss", lambda x, t, v: np.mean(0.5 * (np.log(v) + (x - t) ** 2 / v)),
    lambda T, x, t, v: nn(T).gaussian_nll_loss(x, t, v),
    n_arrays(3, shapes=S.shapes().map(lambda s: (s, s, s)), lo=0.2, hi=2.0))
row("F.poisson_nll_loss", lambda x, t: np.mean(np.exp(x) - t * x),
    lambda T, x, t: nn(T).poisson_nll_loss(x, t), two(shapes=S.shapes().map(lambda s: (s, s))))
row("F.margin_ranking_loss", lambda a, b, y: np.mean(np.maximum(0, -y * (a - b) + 0.1)),
    lambda T, a, b, y: nn(T).margin_ranking_loss(a, b, y.sign(), margin=0.1),
    n_arrays(3, shapes=S.shapes().map(lambda s: (s, s, s)), **DISTINCT).map(
        lambda a: ((a[0][0], np.asarray(a[0][1] * 0.5 + 0.01), np.asarray(np.sign(a[0][2]))), {})))



# ----- order statistics (tests/torch/test_missing_apis.py sweeps ties, NaN and errors) -----------
def _sorted_pick(x, dim, keepdim, pos):
    """(value, index) at position ``pos`` of a stable ascending sort along ``dim``."""
    if x.ndim == 0:
        return x, np.array(0)
    i = np.take(np.argsort(x, axis=dim, kind="stable"), [pos], axis=dim)
    v = np.take_along_axis(x, i, dim)
    return (v, i) if keepdim else (np.squeeze(v, dim), np.squeeze(i, dim))


@st.composite
def _kth_inputs(draw):
    shape = draw(S.shapes())
    n = max(len(shape), 1)
    dim = draw(st.integers(-n, n - 1))
    k = draw(st.integers(1, shape[dim] if shape else 1))
    return (draw(S.distinct_arrays(shape)),), dict(k=k, dim=dim,
                                                   **draw(S.kwargs(keepdim=st.booleans())))


def _running_ref(x, dim, largest=True):
    if x.ndim == 0:
        return x, np.array(0)
    m = np.moveaxis(x, dim, -1)
    f = np.argmax if largest else np.argmin
    idx = np.stack([f(m[..., :j + 1], axis=-1) for j in range(m.shape[-1])], -1)
    return np.moveaxis(np.take_along_axis(m, idx, -1), -1, dim), np.moveaxis(idx, -1, dim)


row("kthvalue", lambda x, k, dim, keepdim=False: _sorted_pick(x, dim, keepdim, k - 1),
    lambda T, x, **kw: tuple(T.kthvalue(x, **kw)), _kth_inputs())
row("Tensor.kthvalue_default_dim", lambda x: _sorted_pick(x, -1, False, 0),
    lambda T, x: tuple(x.kthvalue(1)), one(**DISTINCT))
# distinct values: the mode is the smallest (every value occurs once)
row("mode", lambda x, dim, keepdim=False: _sorted_pick(x, dim, keepdim, 0),
    lambda T, x, **kw: tuple(T.mode(x, **kw)),
    one(kw=lambda s: dict(keepdim=st.booleans()), req=_d1, **DISTINCT))
row("nanmedian", _median_ref, lambda T, x: T.nanmedian(x), one(**DISTINCT))
row("nanmedian_dim", _median_dim_ref, lambda T, x, **kw: tuple(x.nanmedian(**kw)),
    one(kw=lambda s: dict(keepdim=st.booleans()), req=_d1, **DISTINCT))
row("cummax", _running_ref, lambda T, x, dim: tuple(T.cummax(x, dim)), one(req=_d1, **DISTINCT))
row("cummin", lambda x, dim: _running_ref(x, dim, False), lambda T, x, dim: tuple(x.cummin(dim)),
    one(req=_d1, **DISTINCT))
# matrix-vector updates: input broadcasting to the result, beta/alpha, beta=0 dropping input
# (an empty matrix or a 0-d input with one row: torch resizes the result to the input's shape;
# test_missing_apis.py compares those cases with torch)
_mv_shapes = st.tuples(st.integers(1, 4), st.integers(1, 4))
row("addmv", lambda c, a, b, beta=1, alpha=1: (0 if beta == 0 else beta * c) + alpha * (a @ b),
    lambda T, c, a, b, **kw: T.addmv(c, a, b, **kw),
    st.tuples(n_arrays(3, shapes=_mv_shapes.flatmap(
        lambda s: st.sampled_from([(s[0],), (1,)] + ([()] if s[0] > 1 else [])).map(
            lambda c: (c, s, (s[1],))))),
              S.kwargs(beta=st.sampled_from([0, 0.5, 2]), alpha=st.sampled_from([1, -1.5])))
    .map(lambda t: (t[0][0], t[1])))
row("Tensor.addmv_", lambda c, a, b: 0.5 * c + a @ b,
    lambda T, c, a, b: (c + 0).addmv_(a, b, beta=0.5),
    n_arrays(3, shapes=_mv_shapes.map(lambda s: ((s[0],), s, (s[1],)))))
row("addr", lambda c, a, b, beta=1, alpha=1: (0 if beta == 0 else beta * c) + alpha * np.outer(a, b),
    lambda T, c, a, b, **kw: T.addr(c, a, b, **kw),
    st.tuples(n_arrays(3, shapes=st.tuples(st.integers(1, 4), st.integers(1, 4)).flatmap(
        lambda s: st.sampled_from([s, (s[1],), (s[0], 1), ()]).map(
            lambda c: (c, (s[0],), (s[1],))))),
              S.kwargs(beta=st.sampled_from([0, 0.5, 2]), alpha=st.sampled_from([1, -1.5])))
    .map(lambda t: (t[0][0], t[1])))
row("Tensor.addr_", lambda c, a, b: c - 2 * np.outer(a, b),
    lambda T, c, a, b: (c + 0).addr_(a, b, alpha=-2),
    n_arrays(3, shapes=st.tuples(st.integers(1, 4), st.integers(1, 4)).map(
        lambda s: (s, (s[0],), (s[1],)))))

# ----- flat and masked writes, index_put, scatter_reduce (swept against torch in
# tests/torch/test_missing_apis.py) -------------------------------------------------------------
@st.composite
def _take_inputs(draw):
    (x,), _ = draw(one())
    n = x.size
    ishape = draw(S.shapes(max_dims=2))
    idx = draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(ishape)),
                        max_size=int(np.prod(ishape))))
    return (x,), dict(index=np.array(idx, dtype=np.int64).reshape(ishape))


@st.composite
def _put_inputs(draw, unique=True):
    """``(x, source)`` and a 1-d int64 ``index`` of flat positions (distinct unless not
    ``unique``, some counted from the end); ``source`` holds one element per index."""
    (x,), _ = draw(one())
    n = x.size
    if unique:
        pos = draw(st.permutations(range(n)))[:draw(st.integers(0, n))]
    else:
        pos = draw(st.lists(st.integers(0, n - 1), max_size=6))
    idx = [p - n if draw(st.booleans()) else p for p in pos]
    return (x, draw(S.arrays((len(idx),)))), dict(index=np.array(idx, dtype=np.int64))


def _put_ref(x, s, index, accumulate=False):
    r = np.array(x, copy=True).reshape(-1)
    if accumulate:
        np.add.at(r, index, s)
    else:
        r[index] = s
    return r.reshape(x.shape)


def _masked_scatter_ref(x, s, mask):
    shape = np.broadcast_shapes(x.shape, mask.shape)
    r = np.array(np.broadcast_to(x, shape), copy=True)
    m = np.broadcast_to(mask, shape)
    r[m] = s.reshape(-1)[:int(m.sum())]
    return r


@st.composite
def _masked_scatter_inputs(draw):
    (x,), kw = draw(_mask_inputs())
    size = int(np.prod(np.broadcast_shapes(x.shape, kw["mask"].shape)))
    return (x, draw(S.arrays((size + draw(st.integers(0, 2)),)))), kw


row("take", lambda x, index: x.reshape(-1)[index], lambda T, x, index: T.take(x, T.tensor(index)),
    _take_inputs())
row("Tensor.take", lambda x, index: x.reshape(-1)[index],
    lambda T, x, index: x.take(T.tensor(index)), _take_inputs())
row("put", _put_ref, lambda T, x, s, index: T.put(x, T.tensor(index), s), _put_inputs())
row("Tensor.put_accumulate", lambda x, s, index: _put_ref(x, s, index, True),
    lambda T, x, s, index: x.put(T.tensor(index), s, accumulate=True), _put_inputs(False))
row("Tensor.put_", _put_ref, lambda T, x, s, index: (x + 0).put_(T.tensor(index), s),
    _put_inputs())
row("masked_scatter", _masked_scatter_ref,
    lambda T, x, s, mask: T.masked_scatter(x, T.tensor(mask), s), _masked_scatter_inputs())
row("Tensor.masked_scatter_", lambda x, s, mask: _masked_scatter_ref(x, s, mask),
    lambda T, x, s, mask: (x + 0).masked_scatter_(T.tensor(mask), s),
    _masked_scatter_inputs().filter(
        lambda t: np.broadcast_shapes(t[0][0].shape, t[1]["mask"].shape) == t[0][0].shape))
row("index_put", lambda x, v: _acc(x, v),
    lambda T, x, v: T.index_put(x, (T.tensor([0, 0, 1]),), v, accumulate=True),
    fixed((3, 2), (3, 2)))
row("Tensor.index_put", lambda x, v: np.concatenate([v[1:2], x[1:2], v[2:3]]),
    lambda T, x, v: x.index_put((T.tensor([0, 2]),), v[1:]), fixed((3, 2), (3, 2)))


def _scatter_reduce_ref(x, s, dim, index, reduce, include_self=True):
    r = np.array(x, copy=True)
    hits = np.zeros(x.shape, int)
    key = tuple(index if k == dim else np.indices(index.shape, sparse=True)[k]
                for k in range(x.ndim))
    np.add.at(hits, key, 1)
    if not include_self:
        r[hits > 0] = {"sum": 0, "mean": 0, "prod": 1, "amax": -np.inf, "amin": np.inf}[reduce]
    {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
     "amin": np.minimum}[reduce].at(r, key, s[tuple(slice(0, n) for n in index.shape)])
    if reduce == "mean":
        r = np.where(hits > 0, r / np.maximum(hits + include_self, 1), r)
    return r


@st.composite
def _scatter_reduce_inputs(draw, reduce):
    """Unique indices along ``dim`` for amax/amin (no ties: a kink), repeats for the others."""
    xs, kw = draw(_gather_inputs(unique=reduce in ("amax", "amin")))
    if reduce in ("amax", "amin"):  # values apart from each other and from input's
        x, s = xs
        xs = (x, np.asarray(s + 0.013 * np.sign(s - 0.5) + 0.001))
    if reduce == "prod":  # away from 0 (the gradient divides by the factors)
        xs = tuple(np.asarray(np.where(a < 0, a - 0.3, a + 0.3)) for a in xs)
    kw.update(reduce=reduce, **draw(S.kwargs(include_self=st.booleans())))
    return xs, kw


for _red in ("sum", "prod", "mean", "amax", "amin"):
    row(f"scatter_reduce_{_red}", _scatter_reduce_ref,
        lambda T, x, s, dim, index, **kw: T.scatter_reduce(x, dim, T.tensor(index), s, **kw),
        _scatter_reduce_inputs(_red), **(dict(rtol=1e-6) if _red == "prod" else {}))
row("Tensor.scatter_reduce_", lambda x, s, dim, index: _scatter_reduce_ref(x, s, dim, index, "sum"),
    lambda T, x, s, dim, index: (x + 0).scatter_reduce_(dim, T.tensor(index), s, "sum"),
    _gather_inputs())

# ----- the tests --------------------------------------------------------------------------------
IDS = [r.name for r in ROWS]
assert len(set(IDS)) == len(IDS), "duplicate row names"


def _tensors(T, xs, dtype=None):
    return [T.from_numpy(x if dtype is None else x.astype(dtype)) for x in xs]


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


@pytest.mark.parametrize("r", ROWS, ids=IDS)
@given(data=st.data())
def test_row(r, data):
    """Forward values match numpy and float32 stays float32; then analytic gradients (random
    cotangent) match float64 central differences. One test per row, so both checks share the
    drawn inputs and hypothesis' per-example cost."""
    xs, kw = data.draw(r.inputs, label="inputs")
    call = describe(r.name, *xs, **{k: v for k, v in kw.items() if not isinstance(v, np.ndarray)})
    want = _as_tuple(r.ref(*xs, **kw))
    got = _as_tuple(r.call(torch, *_tensors(torch, xs), **kw))
    assert len(got) == len(want), f"got {len(got)} outputs, but should be {len(want)} [{call}]"
    for g, w in zip(got, want):
        assert isinstance(g, torch.Tensor), f"got {type(g).__name__}, but should be Tensor [{call}]"
        assert_close(g, np.asarray(w), rtol=r.rtol, atol=r.atol, call=call)
    if r.f32 and xs:
        got32 = _as_tuple(r.call(torch, *_tensors(torch, xs, np.float32), **kw))
        for g, w in zip(got32, want):
            w = np.asarray(w)
            if w.dtype.kind == "f":
                assert g.dtype is torch.float32, \
                    f"got out.dtype={g.dtype}, but should be torch.float32 [{call} in float32]"
                assert_close(g, w, rtol=2e-4, atol=2e-5, call=call + " in float32")
        halves = [h for h in (torch.float16, torch.bfloat16)
                  if r.dtypes is None or h.name in r.dtypes]
        if halves:
            half = data.draw(st.sampled_from(halves), label="half dtype")
            got16 = _as_tuple(r.call(torch, *[t.to(half) for t in _tensors(torch, xs)], **kw))
            for g, g64 in zip(got16, got):  # outputs that follow the input dtype keep half
                if g64.dtype is torch.float64:
                    assert g.dtype is half, f"got out.dtype={g.dtype}, but should be {half} [{call}]"
    if r.grad:
        gradcheck(lambda *ts: r.call(torch, *ts, **kw), *xs, name=call)


def test_table_covers_every_family():
    names = set(IDS)
    for must in ["add", "where", "clamp", "sum", "matmul", "einsum[ij,jk->ik]", "cat", "gather",
                 "scatter", "F.pad", "view", "getitem_advanced", "setitem_advanced", "F.softmax",
                 "F.cross_entropy", "F.conv2d", "F.max_pool2d", "F.layer_norm",
                 "F.batch_norm_train", "F.embedding", "topk", "sort", "cumprod", "logsumexp"]:
        assert must in names, must
