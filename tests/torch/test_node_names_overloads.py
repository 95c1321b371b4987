"""Graph-node names (``y.grad_fn.name()``) that depend on the overload torch dispatches to: a
number or a tensor operand, ``dim`` given or not, in place or not, a 0-d input -- each form
compared with torch's, and a handful asserted directly (without torch)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch_cs.torch as ours

_RNG = np.random.default_rng(0)
_ARRAYS = {
    "x": _RNG.uniform(0.2, 1.5, (3, 4)), "y": _RNG.uniform(0.2, 1.5, (3, 4)),
    "p": _RNG.uniform(0.1, 1.0, (3, 4)), "v": _RNG.uniform(0.2, 1.5, (4,)),
    "u": _RNG.uniform(0.2, 1.5, (4,)), "q": _RNG.uniform(0.2, 1.5, (4, 4)),
    "b": _RNG.uniform(0.2, 1.5, (2, 3, 4)), "c": _RNG.uniform(0.2, 1.5, (2, 4, 5)),
    "x4": _RNG.uniform(0.2, 1.5, (2, 3, 4, 5)), "s": np.array(0.7), "s2": np.array(1.3),
}

# expressions in ``T`` (ours or torch) and ``F`` (its nn.functional); every output's node name
# is compared (None for an output without a node)
EXPRS = [
    # square is pow(x, 2); celu/elu/selu (in place: the Backward1 nodes)
    "T.square(x)", "x.square()", "T.square(s)", "x.clone().square_()",
    "F.celu(x)", "F.celu(x, 2.0)", "F.celu(x.clone(), inplace=True)", "F.elu(x)",
    "F.elu(x.clone(), inplace=True)", "F.selu(x)", "F.selu(x.clone(), inplace=True)",
    "F.leaky_relu(x.clone(), inplace=True)", "F.threshold(x.clone(), 0.5, 0.0, inplace=True)",
    # clamp: number bounds (ClampBackward1), tensor bounds (ClampBackward0), clamp_min/max
    "T.clamp(x, 0.3, 1.0)", "T.clamp(x, min=0.3)", "T.clamp(x, max=1.0)", "T.clamp(s, 0.3, 1.0)",
    "T.clamp(x, y, y + 1)", "T.clamp(x, min=y)", "T.clamp(x, max=y)", "T.clamp(x, s, s2)",
    "T.clamp(x, min=s.detach())", "x.clamp(0.3, 1.0)", "x.clamp(y)", "T.clip(x, 0.3, 1.0)",
    "T.clip(x, min=y)", "x.clone().clamp_(0.3, 1.0)", "x.clone().clamp_(y)",
    "x.clone().clip_(0.3, 1.0)",
    "T.clamp_min(x, 0.3)", "T.clamp_min(x, y)", "T.clamp_max(x, 0.3)", "T.clamp_max(x, y)",
    "x.clamp_min(0.3)", "x.clamp_max(y)", "x.clone().clamp_min_(0.3)", "x.clone().clamp_min_(y)",
    "x.clone().clamp_max_(0.3)", "x.clone().clamp_max_(y)", "x.clone()[0].clamp_min_(0.3)",
    # rsub and sub
    "T.rsub(x, 2.0)", "T.rsub(x, 2)", "T.rsub(x, 2.0, alpha=3)", "T.rsub(x, y)", "T.rsub(x, s)",
    "T.rsub(s, 2.0)", "2.0 - x", "1 - x", "s - x", "x - 2.0", "x - y", "T.sub(x, 2.0)",
    # fmod / remainder / lerp / xlogy: number (Backward0 or 2) vs tensor operands
    "T.fmod(x, 0.3)", "T.fmod(x, y)", "T.fmod(x, s)", "T.fmod(s, 0.3)", "x.fmod(0.3)",
    "x.clone().fmod_(0.3)", "x.clone().fmod_(y)",
    "T.remainder(x, 0.3)", "T.remainder(x, y)", "T.remainder(x, s)", "x % 0.3", "x % y",
    "x.clone().remainder_(0.3)", "x.clone().remainder_(y)",
    "T.lerp(x, y, 0.3)", "T.lerp(x, y, p)", "T.lerp(x, y, s)", "x.lerp(y, 0.3)",
    "x.clone().lerp_(y, 0.3)", "x.clone().lerp_(y, p)",
    "T.xlogy(x, y)", "T.xlogy(x, s)", "T.xlogy(s, x)", "T.xlogy(x, 0.3)", "T.xlogy(x, 2)",
    "T.xlogy(0.3, x)", "T.special.xlogy(x, 0.3)", "x.clone().xlogy_(0.3)", "x.clone().xlogy_(y)",
    # div: a rounding mode is div.Tensor_mode (DivBackward2), a number divisor too
    "T.div(x, y)", "T.div(x, 0.3)", "x / 0.3", "0.3 / x", "T.true_divide(x, y)",
    "T.div(x, y, rounding_mode='floor')", "T.div(x, y, rounding_mode='trunc')",
    "T.div(x, 0.3, rounding_mode='floor')", "T.div(x, 2, rounding_mode='trunc')",
    "T.div(x, s, rounding_mode='floor')", "T.div(s, s2, rounding_mode='floor')",
    "x.div(y, rounding_mode='floor')", "x.clone().div_(y, rounding_mode='floor')",
    "x.clone().div_(0.3, rounding_mode='trunc')", "x.clone().div_(y)",
    # sgn, fill_, zero_
    "T.sgn(x)", "x.sgn()", "T.sgn(s)", "x.clone().sgn_()", "T.sign(x)",
    "x.clone().fill_(0.3)", "x.clone().fill_(2)", "x.clone().fill_(s)", "x.clone().zero_()",
    "x.clone()[0].fill_(0.3)",
    # reductions: a dim (even of a 0-d input, even empty) is the dim overload; dtype= is not
    "T.sum(x)", "T.sum(x, dtype=T.float64)", "x.sum()", "T.sum(s)", "T.sum(x, 1)",
    "T.sum(x, (0, 1))", "T.sum(x, 1, keepdim=True)", "T.sum(x, 1, dtype=T.float64)",
    "T.sum(x, dim=[])", "T.sum(x, ())", "x.sum(dim=-1)", "T.sum(s, 0)",
    "T.mean(x)", "T.mean(x, dtype=T.float64)", "T.mean(s)", "T.mean(x, 1)",
    "T.mean(x, 1, keepdim=True)", "T.mean(x, 1, dtype=T.float64)", "T.mean(x, dim=[])",
    "x.mean(0)", "T.mean(s, 0)",
    "T.prod(x)", "T.prod(x, dtype=T.float64)", "T.prod(s)", "T.prod(x, 1)",
    "T.prod(x, 1, keepdim=True)", "T.prod(x, 1, dtype=T.float64)", "T.prod(s, 0)",
    "T.nansum(x)", "T.nansum(x, 1)", "T.nansum(x, dim=1, keepdim=True)", "T.nansum(s)",
    "T.nansum(x, dtype=T.float64)", "x.nansum(1)",
    "T.amax(x)", "T.amax(x, 1)", "T.amax(x, ())", "T.amin(x)", "T.amin(x, 1)",
    "T.amin(x, (0, 1), keepdim=True)", "T.amin(s)", "x.amin(0)",
    "x.max()", "x.min()", "T.max(s)", "T.min(s)",
    "T.max(x, 1)", "T.min(x, 1)", "T.max(x, 1, keepdim=True)", "T.min(x, dim=1, keepdim=True)",
    "x.min(0)", "T.max(s, 0)", "T.min(s, 0)", "T.max(s, 0, keepdim=True)",
    "T.max(x, y)", "T.min(x, y)", "T.maximum(x, y)",
    "T.std(x)", "T.std(x, 1)", "T.var(x, 1)",
    "T.std_mean(x)", "T.std_mean(x, 1)", "T.std_mean(x, dim=1, unbiased=False)",
    "T.std_mean(x, 1, keepdim=True)", "T.std_mean(x, (0, 1))",
    "T.var_mean(x)", "T.var_mean(x, 1)", "T.var_mean(x, dim=1, correction=0, keepdim=True)",
    "T.var_mean(s, 0)",
    # 0-d inputs of dim-wise ops
    "T.cumsum(s, 0)", "T.cumsum(s, -1)", "T.cumsum(s, 0, dtype=T.float32)", "T.cumsum(x, 1)",
    "T.cumprod(s, 0)", "T.cumprod(s, 0, dtype=T.float32)", "T.cumprod(x, 1)",
    "T.sort(s)", "T.sort(s, 0)", "T.sort(s, descending=True)", "s.sort()", "T.sort(x)",
    "T.msort(s)", "T.topk(s, 1)", "T.topk(s, 1, largest=False)", "T.kthvalue(s, 1)",
    "T.cummax(s, 0)", "T.logcumsumexp(s, 0)",
    # norms: linalg_vector_norm behind torch.norm and linalg's norms; dist; pairwise_distance
    "T.norm(x)", "T.norm(x, 1)", "T.norm(x, 3)", "T.norm(x, float('inf'))", "T.norm(x, 0)",
    "T.norm(x, 'fro')", "T.norm(x, dim=1)", "T.norm(x, 2, 1)", "T.norm(x, 3, 1, keepdim=True)",
    "T.norm(x, 'fro', (0, 1))", "T.norm(x, dtype=T.float64)", "T.norm(s)", "x.norm(1)",
    "T.linalg.norm(x)", "T.linalg.norm(v)", "T.linalg.norm(x, 'fro')", "T.linalg.norm(x, 'nuc')",
    "T.linalg.norm(x, 2)", "T.linalg.norm(x, 1)", "T.linalg.norm(x, -1)",
    "T.linalg.norm(x, float('inf'))", "T.linalg.norm(x, dim=1)", "T.linalg.norm(v, 3)",
    "T.linalg.norm(v, 0)", "T.linalg.norm(x, keepdim=True)", "T.linalg.norm(b, dim=(1, 2))",
    "T.linalg.vector_norm(x)", "T.linalg.vector_norm(x, 1)", "T.linalg.vector_norm(x, 2, 1)",
    "T.linalg.vector_norm(x, -float('inf'))", "T.linalg.vector_norm(x, 2, (0, 1), True)",
    "T.linalg.vector_norm(s)", "T.linalg.vector_norm(x, dtype=T.float64)",
    "T.linalg.matrix_norm(x)", "T.linalg.matrix_norm(x, 'fro')", "T.linalg.matrix_norm(x, 'nuc')",
    "T.linalg.matrix_norm(x, 1)", "T.linalg.matrix_norm(x, -1)", "T.linalg.matrix_norm(x, 2)",
    "T.linalg.matrix_norm(b)", "T.linalg.matrix_norm(x, keepdim=True)",
    "T.dist(x, y)", "T.dist(x, y, 1)", "T.dist(x, y, float('inf'))", "T.dist(x, y, 0)",
    "T.dist(x, v)", "T.dist(s, s2)", "x.dist(y)",
    "F.pairwise_distance(x, y)", "F.pairwise_distance(x, y, 1)",
    "F.pairwise_distance(x, y, keepdim=True)", "F.pairwise_distance(v, u)",
    "F.pairwise_distance(b, x)", "F.pairwise_distance(s, s2)",
    "F.cosine_similarity(x, y)", "F.cosine_similarity(x, y, 0)", "F.cosine_similarity(v, u, 0)",
    "F.cosine_similarity(b, x)",
    # products: mm, dot, mv, bmm; linear without a bias on a matrix is mm
    "T.matmul(v, u)", "v @ u", "T.dot(v, u)", "v.dot(u)", "T.matmul(x, v)", "x.matmul(v)",
    "T.mv(x, v)", "x.mv(v)", "T.mm(x, q)", "x @ q", "T.matmul(x, x.t())", "T.bmm(b, c)",
    "b.bmm(c)", "T.addmm(v, x, q)", "T.addmm(v, x, q, beta=2, alpha=3)",
    "T.addmv(x[:, 0], x, v)", "T.outer(v, u)",
    "F.linear(x, q)", "F.linear(x, q, v)", "F.linear(x, q, None)",
    # scatter / scatter_add / masked_fill: a number or a tensor value
    "T.scatter(x, 1, idx, 0.5)", "T.scatter(x, 1, idx, value=0.5)", "T.scatter(x, 1, idx, y)",
    "x.scatter(1, idx, 0.5)", "x.clone().scatter_(1, idx, 0.5)", "x.clone().scatter_(1, idx, y)",
    "T.scatter_add(x, 1, idx, y)", "x.scatter_add(1, idx, y)",
    "x.clone().scatter_add_(1, idx, y)", "T.scatter_reduce(x, 1, idx, y, 'sum')",
    "T.masked_fill(x, mask, 0.5)", "T.masked_fill(x, mask, s)", "x.masked_fill(mask, s)",
    "x.masked_fill(mask, 0.5)", "x.clone().masked_fill_(mask, s)",
    "x.clone().masked_fill_(mask, 0.5)", "x.clone()[0].masked_fill_(mask[0], s)",
    # losses
    "F.mse_loss(x, y)", "F.mse_loss(x, y, reduction='sum')", "F.mse_loss(x, y, reduction='none')",
    "F.mse_loss(s, s2)", "F.mse_loss(x, v)", "F.l1_loss(x, y)", "F.smooth_l1_loss(x, y)",
    "F.cross_entropy(x, lab)", "F.cross_entropy(x, lab, reduction='none')",
    "F.cross_entropy(v, lab[0])", "F.cross_entropy(x, lab, label_smoothing=0.1)",
    "F.cross_entropy(x, lab, label_smoothing=0.1, reduction='none')",
    "F.cross_entropy(x4[:, :3], lab4)", "F.cross_entropy(x4[:, :3], lab4, reduction='sum')",
    "F.cross_entropy(x4[:, :3], lab4, reduction='none')",
    "F.cross_entropy(x4[:, :3], lab4, weight=u[:3].detach())",
    "F.cross_entropy(x4[:, :3], lab4, label_smoothing=0.1)",
    "F.cross_entropy(x4[:, :3, :, 0], lab4[..., 0])",
    "F.nll_loss(x, lab)", "F.nll_loss(x4[:, :3], lab4)",
    "F.nll_loss(x4[:, :3], lab4, reduction='none')", "F.nll_loss(x4[:, :3], lab4, ignore_index=1)",
    "F.cross_entropy(x, p)", "F.cross_entropy(x, p, reduction='sum')",
    "F.cross_entropy(x, p, reduction='none')", "F.cross_entropy(x, p, label_smoothing=0.1)",
    "F.cross_entropy(x, p, weight=v)", "F.cross_entropy(v, p[0])",
    "F.cross_entropy(x4, x4.softmax(1))",
    # normalizations
    "F.group_norm(x4, 1)", "F.group_norm(x4, 3)", "F.group_norm(x4, 3, u[:3], u[:3])",
    "F.group_norm(x4, 3, u[:3], None)", "F.group_norm(x4, 3, None, u[:3])", "F.group_norm(b, 3)",
    "F.batch_norm(x4, u[:3].detach(), u[:3].detach() + 1)",
    "F.batch_norm(x4, u[:3].detach(), u[:3].detach() + 1, u[:3], v[:3])",
    "F.batch_norm(b, u[:3].detach(), u[:3].detach() + 1)",
    "F.batch_norm(x4, None, None, training=True)", "F.layer_norm(x, (4,))",
    # pads: constant (also without a positive pad), reflect, replicate
    "F.pad(x, (1, 2))", "F.pad(x, (1, 2, 0, 1), value=0.5)", "F.pad(x, (-1, 1))",
    "F.pad(x, (0, 0))", "F.pad(x, (-1, -1))", "F.pad(x, (0, 0, 0, 0))",
    "F.pad(b, (1, 2), mode='reflect')", "F.pad(b, (1, 2), mode='replicate')",
    "F.pad(x4, (1, 2, 1, 1), mode='reflect')", "F.pad(x4, (1, 2, 1, 1), mode='replicate')",
    "F.pad(x4, (1, 1, 1, 1, 1, 1), mode='replicate')", "F.pad(b, (0, 0), mode='reflect')",
]


def _names(T, expr):
    env = {k: T.tensor(a, dtype=T.float64).requires_grad_() for k, a in _ARRAYS.items()}
    env.update(T=T, F=T.nn.functional, lab=T.tensor([0, 2, 1]),
               lab4=T.tensor(np.arange(40).reshape(2, 4, 5) % 3),
               idx=T.tensor([[0, 1], [1, 2], [2, 0]]), mask=T.tensor(_ARRAYS["x"] > 0.8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = eval(expr, env)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [None if o.grad_fn is None else o.grad_fn.name() for o in outs]


@pytest.mark.parametrize("expr", EXPRS)
def test_node_name_is_torchs(expr):
    torch = pytest.importorskip("torch")
    assert _names(ours, expr) == _names(torch, expr)


@pytest.mark.parametrize("expr, names", [
    ("T.square(x)", ["PowBackward0"]),
    ("F.celu(x)", ["CeluBackward0"]),
    ("T.clamp(x, 0.3, 1.0)", ["ClampBackward1"]),
    ("T.clamp(x, y, y + 1)", ["ClampBackward0"]),
    ("T.clamp_min(x, 0.3)", ["ClampMinBackward0"]),
    ("x.clone().clamp_max_(y)", ["ClampMaxBackward1"]),
    ("2.0 - x", ["RsubBackward1"]),
    ("T.fmod(x, y)", ["FmodBackward1"]),
    ("T.remainder(x, 0.3)", ["RemainderBackward0"]),
    ("T.lerp(x, y, p)", ["LerpBackward1"]),
    ("T.div(x, y, rounding_mode='floor')", ["DivBackward2"]),
    ("T.sum(x, 1)", ["SumBackward1"]),
    ("T.sum(x, dtype=T.float64)", ["SumBackward0"]),
    ("T.mean(s, 0)", ["MeanBackward1"]),
    ("T.prod(x, 1)", ["ProdBackward1"]),
    ("T.nansum(x)", ["NansumBackward0"]),
    ("T.amin(x)", ["AminBackward0"]),
    ("x.max()", ["MaxBackward1"]),
    ("T.min(x, 1)", ["MinBackward0", None]),
    ("T.max(s, 0)", ["MaxBackward0", None]),
    ("T.std_mean(x)", ["StdMeanBackward0", "StdMeanBackward0"]),
    ("T.var_mean(x, 1)", ["VarMeanBackward0", "VarMeanBackward0"]),
    ("T.norm(x)", ["LinalgVectorNormBackward0"]),
    ("T.linalg.matrix_norm(x)", ["LinalgVectorNormBackward0"]),
    ("T.dist(x, y)", ["DistBackward0"]),
    ("F.pairwise_distance(x, y)", ["NormBackward1"]),
    ("F.cosine_similarity(x, y)", ["SumBackward1"]),
    ("T.dot(v, u)", ["DotBackward0"]),
    ("T.mv(x, v)", ["MvBackward0"]),
    ("T.bmm(b, c)", ["BmmBackward0"]),
    ("T.mm(x, q)", ["MmBackward0"]),
    ("F.linear(x, q)", ["MmBackward0"]),
    ("F.linear(x, q, v)", ["AddmmBackward0"]),
    ("T.scatter(x, 1, idx, 0.5)", ["ScatterBackward1"]),
    ("T.scatter_add(x, 1, idx, y)", ["ScatterAddBackward0"]),
    ("T.masked_fill(x, mask, s)", ["MaskedFillBackward1"]),
    ("F.mse_loss(x, y)", ["MseLossBackward0"]),
    ("F.cross_entropy(x4[:, :3], lab4)", ["NllLoss2DBackward0"]),
    ("F.cross_entropy(x, p)", ["DivBackward1"]),
    ("T.cumsum(s, 0)", ["CumsumBackward0"]),
    ("T.sort(s)", ["SortBackward0", None]),
    ("F.group_norm(x4, 3)", ["NativeGroupNormBackward0"]),
    ("F.batch_norm(x4, u[:3].detach(), u[:3].detach() + 1)", ["NativeBatchNormBackward0"]),
    ("F.pad(x, (0, 0))", ["ConstantPadNdBackward0"]),
    ("F.pad(b, (1, 2), mode='reflect')", ["ReflectionPad1DBackward0"]),
    ("x.clone().fill_(s)", ["FillBackward3"]),
    ("x.clone().zero_()", ["ZeroBackward0"]),
    ("T.sgn(x)", ["SgnBackward0"]),
    ("T.xlogy(0.3, x)", ["XlogyBackward1"]),
])
def test_node_names(expr, names):
    assert _names(ours, expr) == names
