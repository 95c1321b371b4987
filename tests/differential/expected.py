"""The differences from torch that SPEC.md documents, as predicates on a mismatch.

Each entry names the SPEC.md section and quotes the rule it covers; ``documented(m, program)``
returns the first entry's reference that matches, so a documented difference is counted as such
and never as a failure. An entry must be as narrow as the SPEC text: a difference it does not
describe stays undocumented.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from tests.differential.program import _base_name
from tests.helpers import has_avx512


@dataclass
class Expected:
    spec: str  # "SPEC §2.2: ..." (section and the words of the entry)
    match: Callable


def _row_of(m):
    return m.op.split(" ")[0]


def _operand_dtypes(m):
    if "(" not in m.op:
        return []
    return m.op.rsplit("(", 1)[1].rstrip(")").split(",")


EXPECTED: list = [
    Expected("SPEC §2.2 Differs: in-place ops on an expanded tensor always raise",
             lambda m, p: m.category == "raise-ours"
             and "more than one element of the written-to tensor" in m.detail),
    Expected("SPEC §2.2 Differs: in-place ops on an expanded tensor always raise (a view of "
             "one included: its memory is read-only here)",
             lambda m, p: m.category in ("raise-ours", "error-type")
             and "whose memory is read-only" in m.detail
             and any(lf.layout == "expanded" for lf in p.leaves)),
    Expected("SPEC §2.2 Differs: floor_divide has a zero gradient (torch raises)",
             lambda m, p: m.category == "backward-error" and "floor_divide" in m.detail),
    Expected("SPEC §2.3 Differs: torch's backward refuses some dtype combinations its forward "
             "accepted (Found dtype X but expected Y); ours computes the gradient (and goes on "
             "to the nodes before it, whose own error, if any, is then ours)",
             lambda m, p: m.category == "backward-error"
             and ("torch: RuntimeError('Found dtype" in m.detail
                  or "can't be cast to the desired output" in m.detail.split("torch:", 1)[-1])),
    Expected("SPEC §3.3 Differs: addr of tensors of different dtypes: torch's backward fails "
             "(its gradient runs addmv on the mixed dtypes); ours computes the gradient (and "
             "goes on to the nodes before it, whose own error, if any, is then ours)",
             lambda m, p: m.category == "backward-error"
             and "torch: RuntimeError('addmv input tensors must have the same dtype" in m.detail
             and any(_base_name(s.row) == "addr" for s in p.steps)),
    Expected("SPEC §3.5 Differs: narrow_copy with a negative start whose slice ends at the "
             "dim's end: torch 2.13's gradient is wrong (zeros, or a size error); ours is the "
             "slice's",
             lambda m, p: m.category in ("backward-error", "grad", "grad-nan") and any(
                 _base_name(s.row) == "narrow_copy" and s.kw.get("start", 0) < 0
                 and s.kw.get("start", 0) + s.kw.get("length", 0) == 0 for s in p.steps)),
    Expected("SPEC §2.3 Differs: the zero gradient of piecewise-constant ops is a real zero "
             "(torch's symbolic zero makes 0 * inf and 0 * NaN later in backward 0)",
             lambda m, p: m.category == "grad-nan" and "torch gives np.float64(0.0)" in m.detail
             and any(s.row in _ZERO_GRAD for s in p.steps)),
    Expected("SPEC §2.2 Differs: einsum contractions return their result in one memory order; "
             "torch's comes from its bmm strategy",
             lambda m, p: m.category == "stride" and _row_of(m).startswith("einsum")
             and len(_operand_dtypes(m)) > 1),
    Expected("SPEC §2.2 Differs: topk returns the lowest indices first among equal values",
             lambda m, p: m.category == "value" and _row_of(m) == "topk"
             and m.extra.get("output") == 1 and m.extra.get("earlier_outputs_equal")),
    Expected("SPEC §2.2 Differs: einsum contractions return their result in one memory order "
             "(so whether a later reshape of it is a view, which an in-place op writes through, "
             "follows that order)",
             lambda m, p: m.category == "inplace-final" and any(
                 s.row.startswith("einsum") and len(s.operands) > 1 for s in p.steps)),
    Expected("SPEC §2.2 Differs: addbmm_ on a self that only broadcasts to the result raises "
             "(torch resizes it)",
             lambda m, p: (m.category in ("raise-ours", "error-type")
                           and "self tensor does not match matmul output shape" in m.detail)
             or (m.category == "inplace-final" and any(
                 s.row == "addbmm" and s.form == "method_" for s in p.steps))),
    Expected("SPEC §2.2 Differs: addbmm_ on a self that only broadcasts to the result raises "
             "(torch resizes it even when the op then fails: later uses raise 'setStorage' there)",
             lambda m, p: (m.category == "raise-torch" and "setStorage" in m.detail
                           or m.category == "backward-error" and "Mismatch in shape" in m.detail
                           # (a tensor torch's failed addbmm_ resized and a node saved)
                           or m.category in ("grad", "grad-nan"))
             and any(s.row in ("addbmm", "baddbmm") and s.form == "method_" for s in p.steps)),
    Expected("SPEC §2.3 Differs: at a NaN input the gradient of elu, selu, celu, hardswish, "
             "hardtanh and relu6, and gelu at ±inf, are their scalar kernel's (torch's "
             "vectorized kernel and scalar tail disagree there)",
             lambda m, p: m.category in ("grad-nan", "grad", "nan-pattern")
             and any(_base(s.row) in _NAN_KINK and p.facts.get(k, {}).get("nonfinite")
                     for k, s in enumerate(p.steps))),
    Expected("SPEC §2.2 Differs: logit's gradient at a NaN input follows torch's vectorized "
             "kernel (0 with eps); torch's scalar tail loop, which takes the last few elements, "
             "gives NaN there",
             lambda m, p: m.category in ("grad-nan", "grad", "nan-pattern")
             and any(_base(s.row).startswith("logit") and p.facts.get(k, {}).get("nonfinite")
                     for k, s in enumerate(p.steps))),
    Expected("SPEC §2.1 Differs: matrix products are the BLAS's (a sum that cancels exactly "
             "may keep a residue, and an exact zero may come out with the other sign)",
             lambda m, p: m.category == "zero-sign" and any(
                 _in_family(r.split("[")[0].split("-")[0].split(".")[-1],
                            _MATMUL_ROWS | _CONV_ROWS)
                 for r in [_row_of(m)] + [s.row for s in p.steps])),
    Expected("SPEC §2.1 Differs: singular values are each LAPACK's (an exact zero may carry "
             "the other sign)",
             lambda m, p: m.category == "zero-sign" and any(
                 r in ("linalg.svdvals", "linalg.matrix_norm")
                 for r in [_row_of(m)] + [s.row for s in p.steps])),
    Expected("SPEC §2.1 Differs: an exact zero from the normalization layers (batch, instance, "
             "layer and group norm), the mean of std_mean/var_mean and tile may carry the other "
             "sign (a known residue); "
             "maximum/minimum of broadcast or strided operands keep the first operand on a "
             "tie of zeros (torch's vector loop keeps the second)",
             lambda m, p: m.category == "zero-sign" and any(
                 _in_family(_base(r), _ZERO_SIGN_RESIDUE)
                 for r in [_row_of(m)] + [s.row for s in p.steps])),
    Expected("SPEC §2.1 Differs: on an AVX2 CPU torch's float32 gelu gives 0.0 where it is "
             "exactly zero for a negative input (ours -0.0, as torch on an AVX-512 CPU)",
             lambda m, p: m.category == "zero-sign" and not has_avx512() and any(
                 _base(r) == "gelu" for r in [_row_of(m)] + [s.row for s in p.steps])),
    Expected("SPEC §2.1 Differs: the amax/amin/aminmax reductions and max()/min() without a "
             "dim break ties of 0.0 and -0.0 by the order of their vectorized reduction "
             "(median() by std::nth_element's)",
             lambda m, p: m.category == "zero-sign" and any(
                 _base(r) in _TIE_REDUCTIONS for r in [_row_of(m)] + [s.row for s in p.steps])),
    Expected("SPEC §2.2 Differs: conv1d of an input laid out channels-last-like returns a "
             "contiguous result",
             lambda m, p: m.category == "stride" and _base(_row_of(m)) == "conv1d"),
    Expected("SPEC §2.1 Differs: in gradients, the sign of an exact zero follows our "
             "composition of torch's derivative formula",
             lambda m, p: m.category == "grad-zero-sign"),
]

_TIE_REDUCTIONS = {"amax", "amin", "max_all", "min_all", "median", "median_even", "aminmax",
                   "aminmax_all"}

_ZERO_SIGN_RESIDUE = {"batch_norm", "instance_norm", "layer_norm", "group_norm", "tile",
                      "minimum", "maximum", "max_binary", "min_binary", "std_mean", "var_mean"}

def _in_family(name, family) -> bool:
    """``name`` is a row of one of ``family``'s ops, or a variant of one (``linear_nobias``,
    ``batch_norm_eval``, ``layer_norm_train``)."""
    return name in family or any(name.startswith(f + "_") for f in family)


_MATMUL_ROWS = {"einsum", "matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "addmm", "addbmm",
                "baddbmm", "addmv", "addr", "tensordot", "linear", "bilinear", "chain_matmul",
                "multi_dot", "kron", "outer"}
_CONV_ROWS = {"conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"}


def _conv_step(m, p, variants=False):
    """The convolution step a NaN/inf-pattern mismatch happened at, or None (``variants``: rows
    such as ``conv2d_same`` too, whose arguments are fixed in the row)."""
    if m.category != "nan-pattern" or not m.where.startswith("step "):
        return None
    k = int(m.where.split()[1]) - 1
    if not 0 <= k < len(p.steps):
        return None
    name = _base_name(p.steps[k].row)
    ok = _in_family(name, ("conv1d", "conv2d")) if variants else name in ("conv1d", "conv2d")
    return p.steps[k] if ok else None


def _both_values_below(m, bound) -> bool:
    """Both values a value mismatch quotes (ours, torch's) are below ``bound`` in magnitude."""
    vals = re.findall(r"np\.float64\(([-0-9.e+]+)\)", m.detail)
    return len(vals) >= 2 and all(abs(float(v)) < bound for v in vals[:2])


def _strided_padded_conv(m, p) -> bool:
    """The mismatch is a NaN/inf pattern of a padded convolution step with a stride or
    dilation above 1."""
    step = _conv_step(m, p)
    if step is None:
        return False
    kw = step.kw

    def most(v, default):
        v = kw.get(v, default)
        return max(v) if isinstance(v, (tuple, list)) else v
    return most("padding", 0) not in (0, "valid") and (most("stride", 1) > 1
                                                     or most("dilation", 1) > 1)


def _bf16_grouped_conv(m, p) -> bool:
    """A NaN pattern of a bfloat16 grouped convolution step (one input channel per group)."""
    step = _conv_step(m, p)
    if step is None or m.dtype != "bfloat16":
        return False
    groups = step.kw.get("groups", 1)
    shapes = [o.shape for o in step.operands]
    return groups > 1 and len(shapes) > 1 and len(shapes[1]) > 1 and shapes[1][1] == 1


def _padded_conv_without_avx512(m, p) -> bool:
    """A NaN/inf pattern of a padded convolution step, on a CPU without AVX-512 (where torch's
    oneDNN picks other kernels than where the padding rule was measured)."""
    step = _conv_step(m, p, variants=True)
    if step is None or has_avx512():
        return False
    pad = step.kw.get("padding", "(fixed by the row)")
    return pad != "valid" and (max(pad) if isinstance(pad, (tuple, list)) else pad) != 0


EXPECTED += [
    Expected("SPEC §3.1 Differs: oneDNN chooses its kernels by instruction set: on a CPU without "
             "AVX-512 torch multiplies the padding in some cases where the rule leaves it out",
             _padded_conv_without_avx512),
    Expected("SPEC §3.1 Differs: for strided or dilated convolutions whose windows reach past a "
             "small input, oneDNN's blocking sometimes multiplies the padding where the rule "
             "above leaves it out",
             _strided_padded_conv),
    Expected("SPEC §3.1 Differs: A bfloat16 grouped convolution with one input and several output "
             "channels per group gives NaN at every output in torch when several weights are "
             "infinite",
             _bf16_grouped_conv),
]


EXPECTED += [
    Expected("SPEC §3.1 Differs: torch 2.13's CPU batch-norm backward reads a non-contiguous "
             "weight as if it were contiguous",
             lambda m, p: m.category in ("grad", "grad-nan") and any(
                 s.row.startswith("F.batch_norm") and 1 in p.facts.get(k, {}).get("noncontig", ())
                 for k, s in enumerate(p.steps))),
]


def _tiny_half_value(m, p) -> bool:
    """A half-precision value mismatch where both values are below 1e-4 in magnitude."""
    return m.category == "value" and m.dtype in ("float16", "bfloat16") and \
        _both_values_below(m, 1e-4)


def _svd_noise(m, p) -> bool:
    """A tiny value mismatch in a program that takes singular values."""
    return m.category in ("value", "inplace-final") and any(
        s.row.startswith(("linalg.svdvals", "linalg.matrix_norm")) for s in p.steps) and \
        _both_values_below(m, 1e-5)


EXPECTED += [
    Expected("SPEC §3.1 Differs: singular values at the rounding level of the largest one "
             "(a rank-deficient matrix's zeros) follow the LAPACK build",
             _svd_noise),
]


EXPECTED += [
    Expected("SPEC §2.2 Differs: torch 2.13's float16/bfloat16 erf (and the gelu built on it) "
             "loses accuracy for arguments below about 1e-5, and float16 results in the "
             "subnormal range may differ by a few subnormal steps",
             _tiny_half_value),
]


def _float16_prod(m, p) -> bool:
    """A value or NaN/inf difference of a float16 prod (torch rounds each partial product)."""
    return m.category in ("value", "nan-pattern") and _row_of(m).split("[")[0] in (
        "prod", "Tensor.prod", "prod_dim", "Tensor.prod_dim") and "float16" in m.op


EXPECTED += [
    Expected("SPEC §2.2 Differs: prod of a float16 tensor is computed in float32 here, while "
             "torch 2.13 rounds every partial product to float16",
             _float16_prod),
]


def _subnormal_log1p(m, p) -> bool:
    """A float32 log1p result whose two values are both subnormal (or zero)."""
    return m.category in ("value", "inplace-final") and _row_of(m).startswith("log1p") and \
        _both_values_below(m, 1.2e-38)


def _nan_sign_bit(m, p) -> bool:
    """signbit or copysign at a step whose operands hold a NaN (or another non-finite value)."""
    step = re.fullmatch(r"step (\d+)", m.where or "")
    return m.category in ("value", "zero-sign") and \
        _base_name(_row_of(m)) in ("copysign", "signbit") and \
        step is not None and bool(p.facts.get(int(step.group(1)) - 1, {}).get("nonfinite"))


EXPECTED += [
    Expected("SPEC §2.1 Differs: the sign bit of a NaN is not part of the contract (signbit and "
             "copysign reading a NaN may differ)", _nan_sign_bit),
]


EXPECTED += [
    Expected("SPEC §2.2 Differs: float32 log1p of a subnormal input is the correctly rounded "
             "value here; torch 2.13's kernel loses the low bits there",
             _subnormal_log1p),
]


_NORMS = ("F.layer_norm", "F.group_norm", "F.instance_norm", "F.batch_norm")
_SPECTRAL = ("linalg.svdvals", "linalg.matrix_norm")


def _constant_norm_input(p) -> bool:
    """A constant leaf, or a normalization step whose input held a single value (every slice
    has zero variance)."""
    return any(np.asarray(lf.values).size and len(np.unique(np.asarray(lf.values))) == 1
               for lf in p.leaves) or any(
        s.row.startswith(_NORMS) and (p.facts.get(k, {}).get("constant")
                                      or p.facts.get(k, {}).get("constant_slice"))
        for k, s in enumerate(p.steps))


EXPECTED += [
    Expected("SPEC §2.1 Differs: training-mode batch_norm's output over a slice of equal values "
             "is a rounding residue amplified by 1/sqrt(eps) in both libraries",
             lambda m, p: m.category == "value" and _row_of(m).startswith("F.batch_norm")
             and _constant_norm_input(p)),
    Expected("SPEC §2.3 Differs: the gradient of a normalization over a slice of equal values "
             "(zero variance) is rounding amplified by 1/sqrt(eps) in both libraries; they agree "
             "only to that precision",
             lambda m, p: m.category in ("grad", "grad-nan") and m.op.startswith("backward of")
             and (any(n in m.op for n in _NORMS) or any(s.row.startswith(_NORMS) for s in p.steps))
             and _constant_norm_input(p)),
    Expected("SPEC §2.3 Differs: at repeated or zero singular values the gradient of svdvals "
             "and the spectral matrix norms is not unique; ours follows LAPACK's singular "
             "vectors",
             lambda m, p: m.category in ("grad", "grad-nan") and m.op.startswith("backward of")
             and any(n in m.op for n in _SPECTRAL)),
]

_STATS = ("std", "var")


def _constant_stats_input(m, p) -> bool:
    """A gradient through std/var (or std_mean/var_mean) of a step whose input, or one of its
    slices, holds a single value."""
    return m.category in ("grad", "grad-nan") and m.op.startswith("backward of") and any(
        _base(s.row).startswith(_STATS) and (p.facts.get(k, {}).get("constant")
                                            or p.facts.get(k, {}).get("constant_slice"))
        for k, s in enumerate(p.steps))


EXPECTED += [
    Expected("SPEC §2.1 Differs: over a slice of equal values torch's mean can be a rounding off "
             "the value, which makes its standard deviation a residue instead of 0, and its "
             "gradient of order 1 where ours is 0", _constant_stats_input),
]

_NAN_KINK = {"elu", "selu", "celu", "hardswish", "hardtanh", "relu6", "gelu", "gelu_tanh"}


def _base(row):
    return _base_name(row).split(".")[-1]


_ZERO_GRAD = {"round", "round_decimals", "floor", "ceil", "trunc", "sign", "div_floor",
              "div_trunc", "floor_divide_op"}


def documented(m, program) -> str:
    for e in EXPECTED:
        try:
            if e.match(m, program):
                return e.spec
        except Exception:  # noqa: BLE001  (a predicate that does not apply)
            continue
    return ""


def _node_step(m, p):
    """The step a node-name mismatch happened at, or None."""
    if m.category != "node-name" or not m.where.startswith("step "):
        return None
    k = int(m.where.split()[1]) - 1
    return p.steps[k] if 0 <= k < len(p.steps) else None


def _explicit_default_overload(m, p) -> bool:
    """Ours and torch's node differ only in the overload number, at a step given an explicit
    None or False (torch's parser picks the overload that names the argument)."""
    s = _node_step(m, p)
    names = re.findall(r"grad_fn (\S+), torch gives (\S+)", m.detail)
    if s is None or not names:
        return False
    ours, theirs = names[0]
    return re.sub(r"\d+$", "", ours) == re.sub(r"\d+$", "", theirs) and any(
        v is None or v is False for v in s.kw.values())


EXPECTED += [
    Expected("SPEC §2.3 Differs: an explicit None or False argument is read as the default "
             "(torch picks another overload's name", _explicit_default_overload),
    Expected("SPEC §2.3 Differs: functions torch does not differentiate at all (floor_divide, "
             "scatter(reduce=...)) carry an ordinary name here",
             lambda m, p: m.category == "node-name"
             and "torch gives torch::autograd::NotImplemented" in m.detail),
]
