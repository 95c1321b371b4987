"""PyTorch as the oracle: the same lambda runs in both namespaces.

``T`` is ``torch`` or ``minitorch_cs.torch``; forward values, dtypes and gradients must agree.
Three parts: every row of the op table, random op graphs drawn by hypothesis, and the exception
class raised for a set of bad inputs. Skipped when torch is not importable.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch_ref = pytest.importorskip("torch")

from minitorch_cs import torch as mt  # noqa: E402
from tests import strategies as S  # noqa: E402
from tests.helpers import assert_close, describe, to_numpy  # noqa: E402
from tests.torch.test_ops_table import ROWS  # noqa: E402

torch_ref.set_default_dtype(torch_ref.float32)
# The table's own test already runs every row at the profile's full count; here a third of it.
ORACLE = settings(max_examples=max(5, settings.default.max_examples // 3))


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _run(T, fn, xs, kw, cot_seed=0, grad=True):
    """Evaluate ``fn(T, *leaves, **kw)``; backprop random cotangents; return outputs and grads."""
    leaves = [T.from_numpy(x.copy()).requires_grad_(True) for x in xs]
    outs = _as_tuple(fn(T, *leaves, **kw))
    diff = [o for o in outs if o.requires_grad]
    if diff and grad:
        rng = np.random.default_rng(cot_seed)
        us = [T.from_numpy(rng.standard_normal(tuple(o.shape)).astype(to_numpy(o).dtype))
              for o in diff]
        T.autograd.backward(diff, us)
    return outs, [x.grad for x in leaves]


def _dtype_name(t):
    return str(t.dtype).replace("torch.", "")


# ----- 1. every row of the op table --------------------------------------------------------------
@pytest.mark.parametrize("r", ROWS, ids=[r.name for r in ROWS])
@ORACLE
@given(data=st.data())
def test_row_matches_torch(r, data):
    xs, kw = data.draw(r.inputs, label="inputs")
    call = describe(r.name, *xs, **{k: v for k, v in kw.items() if not isinstance(v, np.ndarray)})
    want, want_g = _run(torch_ref, r.call, xs, kw, grad=r.torch_grad)
    # the numpy reference agrees with torch (checks the table itself)
    for w, ref in zip(want, _as_tuple(r.ref(*xs, **kw))):
        assert_close(np.asarray(ref), w, rtol=max(1e-6, r.rtol), atol=max(1e-9, r.atol),
                     call="numpy ref vs torch: " + call)  # (a half-precision row: its tolerance)
    got, got_g = _run(mt, r.call, xs, kw)
    assert len(got) == len(want), f"got {len(got)} outputs, but should be {len(want)} [{call}]"
    for g, w in zip(got, want):
        assert _dtype_name(g) == _dtype_name(w), \
            f"got out.dtype={g.dtype}, but should be {w.dtype} [{call}]"
        assert_close(g, w, rtol=1e-6, atol=1e-9, call=call)
    if r.grad and r.torch_grad:
        for i, (g, w) in enumerate(zip(got_g, want_g)):
            if w is None:
                assert g is None or not np.any(to_numpy(g)), f"input {i} got a grad [{call}]"
                continue
            assert g is not None, f"got grad of input {i}=None, but should be a tensor [{call}]"
            assert_close(g, w, rtol=1e-6, atol=1e-9, call=f"grad of input {i} of {call}")


# ----- 2. random op graphs ----------------------------------------------------------------------
# Each op maps existing nodes (broadcast-compatible tensors) to a new node. No kink avoidance:
# torch's conventions at kinks (relu'(0) = 0, abs'(0) = 0, ties in max) must match too.
UNARY = {
    "tanh": lambda T, x: T.tanh(x),
    "sigmoid": lambda T, x: x.sigmoid(),
    "sin": lambda T, x: T.sin(x),
    "exp_tanh": lambda T, x: T.exp(T.tanh(x)),
    "relu": lambda T, x: T.relu(x),
    "abs": lambda T, x: x.abs(),
    "square": lambda T, x: x * x,
    "pow3": lambda T, x: x ** 3,
    "neg": lambda T, x: -x,
    "scale": lambda T, x: 2.5 * x - 1,
    "rdiv": lambda T, x: 1 / (1 + x * x),
    "log1p_sq": lambda T, x: T.log1p(x * x),
    "softmax": lambda T, x: T.softmax(x, -1) if x.ndim else x,
    "log_softmax": lambda T, x: T.nn.functional.log_softmax(x, -1) if x.ndim else x,
    "sum_keep": lambda T, x: x.sum(-1, keepdim=True) if x.ndim else x,
    "mean_keep": lambda T, x: x.mean(0, keepdim=True) if x.ndim else x,
    "amax_keep": lambda T, x: x.amax(-1, keepdim=True) if x.ndim else x,
    "cumsum": lambda T, x: x.cumsum(-1) if x.ndim else x,
    "flip": lambda T, x: x.flip(-1) if x.ndim else x,
    "roll": lambda T, x: x.roll(1, -1) if x.ndim else x,
    "clamp": lambda T, x: x.clamp(-0.5, 0.5),
    "where": lambda T, x: T.where(x > 0, x, 0.1 * x),
    "to64": lambda T, x: x.double(),
    "to32": lambda T, x: x.float(),
    "detach_mix": lambda T, x: x + x.detach() * 0.5,
    "gelu": lambda T, x: T.nn.functional.gelu(x),
    "view_roundtrip": lambda T, x: x.reshape(-1).reshape(x.shape),
    "setitem_view": lambda T, x: _setitem_view(x),
    "inplace_chain": lambda T, x: (x * 1).mul_(2).add_(1).sigmoid_(),
    "cat_chunk": lambda T, x: T.cat([x, x * 2], -1).chunk(2, -1)[1] if x.ndim else x * 2,
    "split_stack": lambda T, x: T.stack(x.split(1, -1), -1).squeeze(-2) if x.ndim else x,
    "unbind_stack": lambda T, x: T.stack(x.unbind(0), 0) if x.ndim else x,
    "gather_roll": lambda T, x: x.gather(-1, T.arange(x.shape[-1]).roll(1).expand_as(x))
    if x.ndim else x,
    "index_select_flip": lambda T, x: x.index_select(-1, T.arange(x.shape[-1] - 1, -1, -1))
    if x.ndim else x,
    "masked_fill": lambda T, x: x.masked_fill(x > 0.5, 0.0),
    "adv_index": lambda T, x: x[..., T.tensor([0] * x.shape[-1])] if x.ndim else x,
}


def _setitem_view(x):
    y = x.clone()
    if x.ndim:
        y[..., :1] = y[..., :1] * 3
        y[..., -1:].mul_(0.5)
    return y
BINARY = {
    "add": lambda T, a, b: a + b,
    "sub": lambda T, a, b: a - b,
    "mul": lambda T, a, b: a * b,
    "div": lambda T, a, b: a / (1.5 + b.abs()),
    "maximum": lambda T, a, b: T.maximum(a, b),
    "minimum": lambda T, a, b: T.minimum(a, b),
    "atan2": lambda T, a, b: T.atan2(a, b + 3),
    "xlogy": lambda T, a, b: T.xlogy(a, b.abs() + 0.5),
    "lerp": lambda T, a, b: T.lerp(a, b.to(a.dtype), 0.25),  # torch's lerp does not promote
    "hypot": lambda T, a, b: (a * a + b * b + 1).sqrt(),
}


@st.composite
def graphs(draw):
    shapes = draw(S.broadcastable_shapes(draw(st.integers(1, 3)), max_dims=3, max_side=3))
    dtypes = [draw(st.sampled_from(["float32", "float64"])) for _ in shapes]
    inputs = [draw(S.arrays(s, lo=-2, hi=2)).astype(d) for s, d in zip(shapes, dtypes)]
    steps = []
    n = len(inputs)
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            steps.append(("u", draw(st.sampled_from(sorted(UNARY))), draw(st.integers(0, n - 1))))
        else:
            steps.append(("b", draw(st.sampled_from(sorted(BINARY))), draw(st.integers(0, n - 1)),
                          draw(st.integers(0, n - 1))))
        n += 1
    return inputs, steps


def _eval_graph(T, inputs, steps):
    leaves = [T.from_numpy(x.copy()).requires_grad_(True) for x in inputs]
    nodes = list(leaves)
    for st_ in steps:
        if st_[0] == "u":
            nodes.append(UNARY[st_[1]](T, nodes[st_[2]]))
        else:
            nodes.append(BINARY[st_[1]](T, nodes[st_[2]], nodes[st_[3]]))
    out = nodes[-1]
    rng = np.random.default_rng(len(steps))
    u = rng.standard_normal(tuple(out.shape)).astype(str(out.dtype).replace("torch.", ""))
    if out.requires_grad:
        out.backward(T.from_numpy(u))
    return nodes, [x.grad for x in leaves]


@given(graphs())
def test_random_graphs_match_torch(g):
    inputs, steps = g
    call = " -> ".join(s[1] for s in steps) + f" on {[(x.shape, str(x.dtype)) for x in inputs]}"
    want, want_g = _eval_graph(torch_ref, inputs, steps)
    got, got_g = _eval_graph(mt, inputs, steps)
    # float32 rounding (one ulp differs between numpy and torch kernels) reaches float64 nodes
    f32 = any(_dtype_name(n) == "float32" for n in want)
    for k, (a, b) in enumerate(zip(got, want)):
        assert _dtype_name(a) == _dtype_name(b), \
            f"got node{k}.dtype={a.dtype}, but should be {b.dtype} [{call}]"
        assert tuple(a.shape) == tuple(b.shape), \
            f"got node{k}.shape={tuple(a.shape)}, but should be {tuple(b.shape)} [{call}]"
        tol = 1e-5 if f32 else 1e-9
        assert_close(a, b, rtol=tol, atol=tol, call=f"node {k} of {call}")
    for i, (a, b) in enumerate(zip(got_g, want_g)):
        if b is None:
            assert a is None, f"got a grad for input {i}, but torch has none [{call}]"
            continue
        tol = 1e-4 if f32 else 1e-8
        assert_close(a, b, rtol=tol, atol=tol, call=f"grad of input {i} of {call}", check_dtype=None)
        assert _dtype_name(a) == _dtype_name(b), f"grad {i}: got {a.dtype}, but should be {b.dtype}"


# ----- 3. the same exception class for bad inputs ----------------------------------------------
def _bad_backward_twice(T):
    x = T.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


def _bad_leaf_inplace(T):
    T.ones(2, requires_grad=True).add_(1)


def _bad_version(T):
    x = T.ones(2, requires_grad=True)
    y = x.exp()
    y.add_(1)
    y.sum().backward()


def _bad_grad_unused(T):
    x, y = T.ones(2, requires_grad=True), T.ones(2, requires_grad=True)
    T.autograd.grad((x * 2).sum(), [x, y])


def _quietly(make):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make()


BAD = {
    "matmul_shapes": lambda T: T.ones(2, 3) @ T.ones(2, 3),
    "mm_not_matrix": lambda T: T.mm(T.ones(2), T.ones(2, 2)),
    "bmm_batch": lambda T: T.bmm(T.ones(2, 2, 2), T.ones(3, 2, 2)),
    "broadcast_add": lambda T: T.ones(2, 3) + T.ones(4),
    "view_noncontiguous": lambda T: T.ones(2, 3).t().view(6),
    "view_bad_size": lambda T: T.ones(2, 3).view(4),
    "reshape_two_minus_one": lambda T: T.ones(6).reshape(-1, -1),
    "cat_ndim": lambda T: T.cat([T.ones(2), T.ones(2, 2)]),
    "cat_sizes": lambda T: T.cat([T.ones(2, 2), T.ones(3, 3)], 1),
    "cat_empty_list": lambda T: T.cat([]),
    "stack_shapes": lambda T: T.stack([T.ones(2), T.ones(3)]),
    "index_out_of_bounds": lambda T: T.ones(3)[5],
    "too_many_indices": lambda T: T.ones(3)[0, 0],
    "float_index": lambda T: T.ones(3)[T.tensor([0.5])],
    "adv_index_oob": lambda T: T.ones(3)[T.tensor([0, 7])],
    "sum_dim_range": lambda T: T.ones(2, 3).sum(2),
    "unsqueeze_range": lambda T: T.ones(2).unsqueeze(3),
    "transpose_range": lambda T: T.ones(2, 2).transpose(0, 2),
    "select_range": lambda T: T.ones(2, 2).select(1, 5),
    "narrow_range": lambda T: T.ones(4).narrow(0, 2, 5),
    "permute_len": lambda T: T.ones(2, 3).permute(0),
    "expand_bad": lambda T: T.ones(2, 3).expand(4, 3),
    "split_sizes": lambda T: T.ones(5).split([2, 2]),
    "chunk_zero": lambda T: T.ones(5).chunk(0),
    "flatten_args": lambda T: T.ones(2, 3, 4).flatten(2, 1),
    "gather_ndim": lambda T: T.ones(2, 2).gather(1, T.zeros(2, dtype=T.int64)),
    "gather_float_index": lambda T: T.ones(2, 2).gather(1, T.zeros(2, 2)),
    "where_cond_float": lambda T: T.where(T.ones(2), T.ones(2), T.zeros(2)),
    "masked_fill_float_mask": lambda T: T.ones(2).masked_fill(T.ones(2), 0.0),
    "item_many": lambda T: T.ones(2).item(),
    "bool_many": lambda T: bool(T.ones(2)),
    "len_0d": lambda T: len(T.tensor(1.0)),
    "iter_0d": lambda T: iter(T.tensor(1.0)),
    "numpy_requires_grad": lambda T: T.ones(2, requires_grad=True).numpy(),
    "int_requires_grad": lambda T: T.ones(2, dtype=T.int64, requires_grad=True),
    "set_requires_grad_nonleaf": lambda T: setattr(T.ones(2, requires_grad=True) * 2,
                                                   "requires_grad", False),
    "backward_twice": _bad_backward_twice,
    "leaf_inplace": _bad_leaf_inplace,
    "version_counter": _bad_version,
    "grad_unused": _bad_grad_unused,
    "backward_nonscalar": lambda T: (T.ones(2, requires_grad=True) * 2).backward(),
    "backward_no_grad": lambda T: T.ones(2).sum().backward(),
    "grad_shape_mismatch": lambda T: (T.ones(2, requires_grad=True) * 2).backward(T.ones(3)),
    "mean_int": lambda T: T.ones(2, dtype=T.int64).mean(),
    "int_pow_negative": lambda T: T.tensor([2, 3]) ** -1,
    "bool_sub": lambda T: T.tensor([True]) - T.tensor([False]),
    "inplace_int_float": lambda T: T.ones(2, dtype=T.int64).add_(1.5),
    "tensor_ragged": lambda T: T.tensor([[1, 2], [3]]),
    "randint_bounds": lambda T: T.randint(5, 2, (3,)),
    "randn_int": lambda T: T.randn(2, dtype=T.int64),
    "normal_std": lambda T: T.ones(2).normal_(0, -1),
    "uniform_bounds": lambda T: T.ones(2).uniform_(1, 0),
    "zeros_negative": lambda T: T.zeros(-1),
    "device_string": lambda T: T.device("gpu"),
    "set_default_dtype_int": lambda T: T.set_default_dtype(T.int64),
    "cross_entropy_target_oob": lambda T: T.nn.functional.cross_entropy(T.ones(2, 3),
                                                                       T.tensor([0, 3])),
    "cross_entropy_float_target_shape": lambda T: T.nn.functional.cross_entropy(
        T.ones(2, 3), T.ones(2, 2)),
    "cross_entropy_batch": lambda T: T.nn.functional.cross_entropy(T.ones(2, 3), T.tensor([0])),
    "nll_float_target": lambda T: T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2)),
    "embedding_oob": lambda T: T.nn.functional.embedding(T.tensor([5]), T.ones(3, 2)),
    "embedding_float_idx": lambda T: T.nn.functional.embedding(T.tensor([0.0]), T.ones(3, 2)),
    "one_hot_negative": lambda T: T.nn.functional.one_hot(T.tensor([-1])),
    "one_hot_float": lambda T: T.nn.functional.one_hot(T.tensor([1.0])),
    "layer_norm_shape": lambda T: T.nn.functional.layer_norm(T.ones(2, 3), (4,)),
    "conv2d_channels": lambda T: T.nn.functional.conv2d(T.ones(1, 3, 4, 4), T.ones(2, 2, 1, 1)),
    "linear_shapes": lambda T: T.nn.functional.linear(T.ones(2, 3), T.ones(4, 5)),
    "pad_odd": lambda T: T.nn.functional.pad(T.ones(2, 2), (1,)),
    "softmax_dim": lambda T: T.softmax(T.ones(2), 3),
    "dropout_p": lambda T: T.nn.functional.dropout(T.ones(2), 1.5),
    "mse_reduction": lambda T: T.nn.functional.mse_loss(T.ones(2), T.ones(2), reduction="bad"),
    "clamp_no_bounds": lambda T: T.clamp(T.ones(2)),
    "topk_k": lambda T: T.ones(3).topk(4),
    "lerp_dtype": lambda T: T.lerp(T.ones(2), T.ones(2, dtype=T.float64), 0.5),
    "rand_int": lambda T: T.rand(2, dtype=T.int32),
    "meta_numpy": lambda T: T.ones(2, device="meta").numpy(),
    "meta_bool": lambda T: bool(T.ones(1, device="meta")),
    "meta_to_cpu": lambda T: T.ones(2, device="meta").to("cpu"),
    "ce_weight_dtype": lambda T: T.nn.functional.cross_entropy(
        T.ones(2, 3), T.tensor([0, 1]), weight=T.ones(3, dtype=T.float64)),
    "repeat_dims": lambda T: T.ones(2, 2).repeat(2),
    "meta_item": lambda T: T.ones(2, device="meta").sum().item(),
    "inplace_broadcast": lambda T: T.ones(2).add_(T.ones(2, 2)),
    "masked_fill_broadcast": lambda T: T.ones(2).masked_fill_(T.ones(2, 2, dtype=T.bool), 0),
    "setitem_shape": lambda T: T.ones(3).__setitem__(slice(0, 2), T.ones(3)),
    "neg_bool": lambda T: -T.tensor([True]),
    "bitwise_float": lambda T: T.ones(2) & T.ones(2),
    "invert_float": lambda T: ~T.ones(2),
    "var_int": lambda T: T.tensor([1, 2]).var(),
    "softmax_int": lambda T: T.tensor([1, 2]).softmax(0),
    "meta_tolist": lambda T: T.ones(2, device="meta").tolist(),
    "gather_negative_index": lambda T: T.ones(2, 3).gather(1, T.tensor([[-1], [0]])),
    "gather_index_oob": lambda T: T.ones(2, 3).gather(1, T.tensor([[3], [0]])),
    "scatter_negative_index": lambda T: T.zeros(2, 3).scatter(1, T.tensor([[-1], [0]]), 1.0),
    "scatter_add_negative_index": lambda T: T.zeros(3).scatter_add(0, T.tensor([-1]),
                                                                   T.ones(1)),
    "index_select_negative": lambda T: T.ones(2, 3).index_select(1, T.tensor([-1])),
    "index_select_oob": lambda T: T.ones(2, 3).index_select(1, T.tensor([3])),
    "topk_bool": lambda T: T.tensor([True, False]).topk(1),
    "matmul_dtypes": lambda T: T.ones(2, 2) @ T.ones(2, 2, dtype=T.float64),
    "linear_dtypes": lambda T: T.nn.functional.linear(T.ones(2, 2), T.ones(2, 2, dtype=T.float64)),
    "einsum_too_many_operands": lambda T: T.einsum("ij->i", T.ones(2, 2), T.ones(2)),
    "einsum_too_few_operands": lambda T: T.einsum("ij,jk->ik", T.ones(2, 2)),
    "einsum_no_broadcast": lambda T: T.einsum("ij,jk->ik", T.ones(2, 3), T.ones(4, 5)),
    "einsum_rank": lambda T: T.einsum("ij->i", T.ones(2, 3, 1)),
    "einsum_ellipsis_rank": lambda T: T.einsum("...ijk->i", T.ones(2, 3)),
    "einsum_dtypes": lambda T: T.einsum("ij,jk->ik", T.ones(2, 3), T.ones(3, 4, dtype=T.float64)),
    "index_add_oob": lambda T: T.zeros(3, 4).index_add(0, T.tensor([0, 3]), T.ones(2, 4)),
    "index_add_negative": lambda T: T.zeros(2, 3).index_add_(1, T.tensor([-1]), T.ones(2, 1)),
    "index_add_vector_oob": lambda T: T.index_add(T.zeros(3), 0, T.tensor([0, 5]), T.ones(2)),
    "index_add_float_index": lambda T: T.zeros(3).index_add(0, T.tensor([0.0]), T.ones(1)),
    "index_add_2d_index": lambda T: T.zeros(3).index_add(0, T.tensor([[0]]), T.ones(1)),
    "index_add_dtypes": lambda T: T.zeros(3).index_add(0, T.tensor([0]), T.ones(1).double()),
    "index_add_count": lambda T: T.zeros(3, 4).index_add(0, T.tensor([0, 1]), T.ones(3, 4)),
    "index_add_shape": lambda T: T.zeros(3, 4).index_add(0, T.tensor([0, 1]), T.ones(2, 5)),
    "index_add_src_dim": lambda T: T.zeros(2, 3, 4).index_add(2, T.tensor([0]), T.ones(2, 3)),
    "index_add_scalar_src": lambda T: T.zeros(3).index_add(0, T.tensor([0, 1]), T.tensor(1.0)),
    "index_copy_oob": lambda T: T.zeros(3, 4).index_copy(0, T.tensor([3]), T.ones(1, 4)),
    "index_copy_negative": lambda T: T.zeros(3).index_copy_(0, T.tensor([-1]), T.ones(1)),
    "index_copy_int32_index": lambda T: T.zeros(3).index_copy(0, T.tensor([0], dtype=T.int32),
                                                              T.ones(1)),
    "index_copy_2d_index": lambda T: T.zeros(3).index_copy(0, T.tensor([[0]]), T.ones(1)),
    "index_copy_dtypes": lambda T: T.index_copy(T.zeros(3), 0, T.tensor([0]), T.ones(1).double()),
    "index_copy_slices": lambda T: T.zeros(2, 3, 4).index_copy(1, T.tensor([0]), T.ones(2, 1, 5)),
    "index_copy_ndim": lambda T: T.zeros(2, 3).index_copy(1, T.tensor([0]), T.ones(2, 1, 1)),
    "index_copy_count": lambda T: T.zeros(3).index_copy(0, T.tensor([0]), T.ones(2)),
    "index_copy_scalar_src": lambda T: T.zeros(3).index_copy(0, T.tensor([0, 1]), T.tensor(1.0)),
    "index_fill_oob": lambda T: T.zeros(2, 3).index_fill(1, T.tensor([3]), 1.0),
    "index_fill_negative_oob": lambda T: T.zeros(2, 3).index_fill_(1, T.tensor([-4]), 1.0),
    "index_fill_int32_index": lambda T: T.zeros(3).index_fill(0, T.tensor([0], dtype=T.int32), 1),
    "index_fill_2d_index": lambda T: T.zeros(3).index_fill(0, T.tensor([[0]]), 1),
    "index_fill_value_dims": lambda T: T.index_fill(T.zeros(3), 0, T.tensor([0]), T.ones(1)),
    "index_fill_dim": lambda T: T.zeros(3).index_fill(1, T.tensor([0]), 1),
    "median_empty_dim": lambda T: T.ones(2, 0).median(-1),
    "median_bool": lambda T: T.tensor([True, False]).median(),
    "median_dim_bool": lambda T: T.median(T.tensor([True, False]), 0),
    "median_dim_range": lambda T: T.ones(2, 3).median(2),
    "median_dim_none": lambda T: T.median(T.ones(2), None),
    "median_keepdim_no_dim": lambda T: T.median(T.ones(2), keepdim=True),
    "erfinv_int_inplace": lambda T: T.tensor([0, 1]).erfinv_(),
    "erfinv_list": lambda T: T.erfinv([0.5]),
    "finfo_int": lambda T: T.finfo(T.int64),
    "finfo_str": lambda T: T.finfo("float32"),
    "iinfo_float": lambda T: T.iinfo(T.float32),
    "iinfo_bool": lambda T: T.iinfo(T.bool),
    "iinfo_missing": lambda T: T.iinfo(),
    "matmul_precision_type": lambda T: T.set_float32_matmul_precision(None),
    "detect_anomaly_mode_type": lambda T: T.autograd.set_detect_anomaly(1),
    "detect_anomaly_not_decorator": lambda T: _quietly(T.autograd.detect_anomaly)(len),
}


_SAME_MESSAGE = ["gather_negative_index", "gather_index_oob", "scatter_negative_index",
                 "scatter_add_negative_index", "index_select_negative", "index_select_oob",
                 "topk_bool", "matmul_dtypes", "linear_dtypes", "einsum_too_many_operands",
                 "einsum_too_few_operands", "einsum_no_broadcast", "einsum_rank",
                 "einsum_ellipsis_rank", "einsum_dtypes"] + [
    n for n in BAD if n.split("_")[0] in ("index", "median", "erfinv", "finfo", "iinfo")
    or n in ("matmul_precision_type", "detect_anomaly_mode_type")]


@pytest.mark.parametrize("name", _SAME_MESSAGE)
def test_same_exception_message(name):
    with pytest.raises(Exception) as want:
        BAD[name](torch_ref)
    with pytest.raises(Exception) as got:
        BAD[name](mt)
    assert str(got.value) == str(want.value)


def test_nan_ranks_highest_in_sort_and_topk():
    x = np.array([[1.0, np.nan, 3.0, np.inf, np.nan, -2.0]], np.float32)
    for fn in (lambda T, t: t.sort(descending=True), lambda T, t: t.sort(),
               lambda T, t: t.topk(3), lambda T, t: t.topk(2, largest=False),
               lambda T, t: T.argsort(t, dim=1, descending=True)):
        want, got = fn(torch_ref, torch_ref.from_numpy(x)), fn(mt, mt.from_numpy(x))
        want, got = _as_tuple(want), _as_tuple(got)
        for w, g in zip(want, got):
            np.testing.assert_array_equal(to_numpy(g), to_numpy(w))
    assert repr(mt.tensor([1.0, 2.0]).max(0)) == repr(torch_ref.tensor([1.0, 2.0]).max(0))
    assert repr(mt.tensor([1.0, 2.0]).min(0)) == repr(torch_ref.tensor([1.0, 2.0]).min(0))


@pytest.mark.parametrize("name", sorted(BAD))
def test_same_exception_class(name):
    fn = BAD[name]
    with pytest.raises(Exception) as want:
        fn(torch_ref)
    with pytest.raises(Exception) as got:
        fn(mt)
    assert got.type is want.type, \
        f"got {got.type.__name__}({got.value}), but should be {want.type.__name__}({want.value}) [{name}]"


# ----- 4. result dtypes (and values) for every dtype ---------------------------------------------
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]
DTYPE_OPS = {
    "neg": lambda T, x: -x, "abs": lambda T, x: x.abs(), "exp": lambda T, x: x.exp(),
    "sqrt": lambda T, x: x.sqrt(), "sigmoid": lambda T, x: x.sigmoid(), "relu": lambda T, x: x.relu(),
    "sign": lambda T, x: x.sign(), "floor": lambda T, x: x.floor(), "round": lambda T, x: x.round(),
    "square": lambda T, x: x.square(), "reciprocal": lambda T, x: x.reciprocal(),
    "add_self": lambda T, x: x + x, "mul_self": lambda T, x: x * x, "div": lambda T, x: x / (x + 1),
    "floordiv": lambda T, x: x // 2, "mod": lambda T, x: x % 2, "pow2": lambda T, x: x ** 2,
    "pow_half": lambda T, x: x ** 0.5, "rpow": lambda T, x: 2 ** x, "add_int": lambda T, x: x + 1,
    "add_float": lambda T, x: x + 0.5, "mul_bool": lambda T, x: x * True, "wrap": lambda T, x: x + 300,
    "sum": lambda T, x: x.sum(), "mean": lambda T, x: x.mean(), "prod": lambda T, x: x.prod(),
    "max": lambda T, x: x.max(), "amax": lambda T, x: x.amax(0), "argmax": lambda T, x: x.argmax(),
    "cumsum": lambda T, x: x.cumsum(0), "var": lambda T, x: x.var(), "norm": lambda T, x: x.norm(),
    "all": lambda T, x: x.all(), "any": lambda T, x: x.any(), "sort": lambda T, x: x.sort()[0],
    "topk": lambda T, x: x.topk(1)[0], "eq": lambda T, x: x == 1, "lt_float": lambda T, x: x < 0.5,
    "maximum": lambda T, x: T.maximum(x, x), "where": lambda T, x: T.where(x > 0, x, 0),
    "clamp": lambda T, x: x.clamp(0, 1), "clamp_float": lambda T, x: x.clamp(0.5),
    "matmul": lambda T, x: x @ x, "cat_f32": lambda T, x: T.cat([x, T.ones(1)]),
    "softmax": lambda T, x: x.softmax(0), "logical_not": lambda T, x: x.logical_not(),
    "invert": lambda T, x: ~x, "and": lambda T, x: x & x, "or_int": lambda T, x: x | 1,
    "isnan": lambda T, x: x.isnan(), "mean_dtype": lambda T, x: x.mean(dtype=T.float64),
    "sum_dtype": lambda T, x: x.sum(dtype=T.int32), "masked_fill": lambda T, x: x.masked_fill(x > 1, 2),
    "fill_float": lambda T, x: x.clone().fill_(1.5), "copy_float": lambda T, x: x.clone().copy_(
        T.ones(3) * 1.7), "atan2": lambda T, x: T.atan2(x, x), "lerp": lambda T, x: T.lerp(x, x, 0.5),
    "div_floor": lambda T, x: T.div(x, 2, rounding_mode="floor"), "one_hot": lambda T, x:
        T.nn.functional.one_hot(x, 4), "min_dim": lambda T, x: x.min(0)[0],
    "erfinv": lambda T, x: x.erfinv(), "nan_to_num": lambda T, x: T.nan_to_num(x / 0, 1.5),
    "median": lambda T, x: x.median(), "median_dim": lambda T, x: x.median(0)[0],
    "index_add": lambda T, x: x.index_add(0, T.tensor([2, 2]), x[:2], alpha=2),
    "index_copy": lambda T, x: x.index_copy(0, T.tensor([2]), x[:1]),
    "index_fill": lambda T, x: x.index_fill(0, T.tensor([-1]), 2.5),
    "index_fill_tensor": lambda T, x: x.index_fill(0, T.tensor([0]), T.tensor(2.5)),
}
# Deliberately lenient (SPEC): torch has no kernel for these dtypes and raises; we compute.
LENIENT = {("abs", "bool"), ("relu", "bool"), ("floor", "bool"), ("round", "bool"),
           ("argmax", "bool"), ("matmul", "bool")}


@pytest.mark.parametrize("name", sorted(DTYPE_OPS))
def test_dtype_rules_match_torch(name):
    bad = []
    for dt in DTYPES:
        res = []
        for T in (torch_ref, mt):
            try:
                r = DTYPE_OPS[name](T, T.tensor([1, 0, 3]).to(getattr(T, dt)))
                vals = r.tolist() if r.dtype == T.bool else r.double().tolist()
                res.append((str(r.dtype), vals))
            except Exception as e:  # noqa: BLE001 - the class is what we compare
                res.append((type(e).__name__, None))
        (want, wv), (got, gv) = res
        if (name, dt) in LENIENT and wv is None:
            continue
        if got != want:
            bad.append(f"{dt}: got {got}, but should be {want}")
        elif wv is not None and not np.allclose(np.array(gv, float), np.array(wv, float),
                                                rtol=1e-2, equal_nan=True):
            bad.append(f"{dt}: got {gv}, but should be {wv}")
    assert not bad, f"[{name}] " + "; ".join(bad)


_NUMPY_NAMES = [
    lambda T, x: x.sum(axis=0), lambda T, x: x.sum(axis=1, keepdims=True),
    lambda T, x: T.mean(x, axis=(0, 1), keepdims=True), lambda T, x: x.amax(axis=0),
    lambda T, x: x.max(axis=1).values, lambda T, x: x.argmin(axis=0), lambda T, x: x.std(axis=0),
    lambda T, x: x.var(axis=1, keepdims=True), lambda T, x: x.logsumexp(axis=0),
    lambda T, x: x.cumsum(axis=1), lambda T, x: x.softmax(axis=0), lambda T, x: x.log_softmax(axis=1),
    lambda T, x: T.cat([x, x], axis=1), lambda T, x: T.stack([x, x], axis=0),
    lambda T, x: x.unsqueeze(axis=0), lambda T, x: x.sort(axis=0).values,
    lambda T, x: x.topk(1, axis=0).values, lambda T, x: x.chunk(2, axis=1)[0],
    lambda T, x: x.count_nonzero(axis=0), lambda T, x: x.prod(axis=0, keepdims=True),
    # Python-level in torch, so no numpy names: TypeError in both
    lambda T, x: x.norm(axis=0), lambda T, x: x.split(1, axis=0), lambda T, x: x.sum(dim=0, axis=0),
    lambda T, x: x.count_nonzero(0, keepdims=True),
]


@pytest.mark.parametrize("i", range(len(_NUMPY_NAMES)))
def test_numpy_keyword_aliases_like_torch(i):
    """torch's argument parser takes ``axis``/``keepdims`` for ``dim``/``keepdim`` in native
    functions; ours accepts them in the same places and refuses them elsewhere."""
    fn = _NUMPY_NAMES[i]
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    results = []
    for T in (torch_ref, mt):
        try:
            results.append(to_numpy(fn(T, T.from_numpy(x.copy()))))
        except TypeError:
            results.append(TypeError)
    want, got = results
    if want is TypeError or got is TypeError:
        assert got is want
    else:
        assert_close(mt.from_numpy(got), want, rtol=1e-6, atol=1e-6)



# ----- 5. the rest of the torch surface the new ops brought ----------------------------------------
@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16", "int64", "int32",
                                  "int16", "int8", "uint8"])
def test_finfo_iinfo_match_torch(name):
    want_dt, got_dt = getattr(torch_ref, name), getattr(mt, name)
    info = "finfo" if want_dt.is_floating_point else "iinfo"
    want, got = getattr(torch_ref, info)(want_dt), getattr(mt, info)(got_dt)
    assert repr(got) == repr(want) and str(got) == str(want)
    attrs = ["bits", "max", "min", "dtype"] + (
        ["eps", "tiny", "smallest_normal", "resolution"] if info == "finfo" else [])
    for a in attrs:
        w, g = getattr(want, a), getattr(got, a)
        assert g == w and type(g) is type(w), f"{info}({name}).{a}: got {g!r}, but should be {w!r}"


_PRINT_ARRAYS = [
    np.arange(2000, dtype=np.float32).reshape(40, 50) / 7,
    np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32) * 1e3,
    np.array([1e-5, 1.0, np.nan, np.inf], np.float32), np.arange(1001, dtype=np.int64),
    np.arange(24, dtype=np.int32).reshape(2, 3, 4), np.array([True, False] * 3),
    np.array(3.14159, np.float32), np.arange(12, dtype=np.float64).reshape(3, 4) * 1e-6,
]
_PRINT_OPTIONS = [dict(precision=2), dict(precision=7, linewidth=120), dict(threshold=5),
                  dict(edgeitems=1, threshold=3), dict(edgeitems=0, threshold=3),
                  dict(linewidth=30), dict(sci_mode=True), dict(sci_mode=False),
                  dict(profile="short"), dict(profile="full"), dict(profile="full", precision=1)]


@pytest.mark.parametrize("opts", _PRINT_OPTIONS, ids=[str(o) for o in _PRINT_OPTIONS])
def test_set_printoptions_repr_matches_torch(opts):
    try:
        torch_ref.set_printoptions(**opts)
        mt.set_printoptions(**opts)
        for a in _PRINT_ARRAYS:
            for make in (lambda T, t: t, lambda T, t: t.half() * 2 if t.is_floating_point() else t,
                         lambda T, t: t.requires_grad_() * 2 if t.is_floating_point() else t):
                want = repr(make(torch_ref, torch_ref.from_numpy(a.copy())))
                got = repr(make(mt, mt.from_numpy(a.copy())))
                assert got == want, f"[{opts} {a.dtype}{a.shape}]\n{got}\n!=\n{want}"
    finally:
        torch_ref.set_printoptions(profile="default")
        mt.set_printoptions(profile="default")


def test_float32_matmul_precision_matches_torch():
    import warnings
    out = []
    for T in (torch_ref, mt):
        seen = [T.get_float32_matmul_precision()]
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            for p in ("high", "medium", "bogus", "highest"):
                T.set_float32_matmul_precision(p)
                seen.append(T.get_float32_matmul_precision())
        seen.append([(w.category, str(w.message).split(" (Triggered")[0]) for w in rec])
        out.append(seen)
    assert out[1] == out[0]


def _anomaly_run(T):
    """Messages of the errors and warnings anomaly mode raises for a few NaN gradients."""
    import warnings

    class Bad(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    cases = [lambda x: (x.sqrt() * 0).sum().backward(), lambda x: (x / x).sum().backward(),
             lambda x: T.autograd.grad((x / x).sum(), x), lambda x: Bad.apply(x).sum().backward(),
             lambda x: (x * 2).backward(T.tensor([float("nan"), 1.0])),
             lambda x: (x + 1).sqrt().sum().backward()]
    out = []
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        with np.errstate(all="ignore"), T.autograd.detect_anomaly():
            for case in cases:
                x = T.tensor([0.0, 1.0], requires_grad=True)
                try:
                    case(x)
                    out.append(("ok", to_numpy(x.grad).tolist() if x.grad is not None else None))
                except RuntimeError as e:
                    out.append(("error", str(e)))
    out.append([str(w.message).split("\n")[0] for w in rec if w.category is UserWarning])
    out.append(T.is_anomaly_enabled())
    return out


def test_anomaly_mode_matches_torch():
    assert _anomaly_run(mt) == _anomaly_run(torch_ref)


def test_median_indices_match_torch_on_ties_and_nan():
    """torch documents median's index among ties as implementation defined; its CPU kernel
    partitions on (value, index), which is the stable-sort middle we use."""
    rng = np.random.default_rng(0)
    for _ in range(50):
        a = rng.integers(0, 3, size=(int(rng.integers(1, 5)), int(rng.integers(1, 9)))).astype(
            np.float32)
        a[rng.random(a.shape) < 0.1] = np.nan
        for dim in range(a.ndim):
            want = torch_ref.median(torch_ref.from_numpy(a), dim)
            got = mt.median(mt.from_numpy(a), dim)
            np.testing.assert_array_equal(to_numpy(got.indices), to_numpy(want.indices))
            np.testing.assert_array_equal(to_numpy(got.values), to_numpy(want.values))
        np.testing.assert_array_equal(to_numpy(mt.median(mt.from_numpy(a))),
                                      to_numpy(torch_ref.median(torch_ref.from_numpy(a))))


_GRAD_CASES = {
    "index_add": lambda T, x: x.index_add(0, T.tensor([1, 1]), x[:2] * 3, alpha=0.5),
    "index_copy_repeated": lambda T, x: x.index_copy(0, T.tensor([1, 1]), x[:2] * 3),
    "index_fill": lambda T, x: x.index_fill(1, T.tensor([-1, 0]), 2.0),
    "index_fill_tensor": lambda T, x: x.index_fill(1, T.tensor([2, 0]), x[0, 1] * 2),
    "index_add_": lambda T, x: (x * 1).index_add_(1, T.tensor([0]), x[:, :1]),
    "index_copy_": lambda T, x: (x * 1).index_copy_(1, T.tensor([0]), x[:, 2:]),
    "index_fill_": lambda T, x: (x * 1).index_fill_(0, T.tensor([2]), -1),
    "erfinv": lambda T, x: (x / 4).erfinv(),
    "nan_to_num": lambda T, x: T.nan_to_num(T.log(x - 1.5), neginf=-7.0),
    "median": lambda T, x: x.round().median(),
    "median_ties": lambda T, x: (x * 0 + T.tensor([[1.0, 2, 2], [2, 3, 0], [2, 1, 1]])).median(),
    "median_dim": lambda T, x: x.median(1, keepdim=True).values,
}


@pytest.mark.parametrize("name", sorted(_GRAD_CASES))
def test_new_op_gradients_and_node_names_match_torch(name):
    x = np.random.default_rng(1).uniform(0.0, 3.0, (3, 3)).astype(np.float32)
    res = []
    for T in (torch_ref, mt):
        leaf = T.from_numpy(x.copy()).requires_grad_()
        with np.errstate(all="ignore"):
            out = _GRAD_CASES[name](T, leaf)
            out.backward(T.from_numpy(np.arange(out.numel(), dtype=np.float32).reshape(out.shape)))
        node = type(out.grad_fn).__name__ if T is torch_ref else out.grad_fn.name()
        res.append((node, to_numpy(out), to_numpy(leaf.grad)))
    (wn, wv, wg), (gn, gv, gg) = res
    assert gn == wn
    assert_close(gv, wv, rtol=1e-6, atol=1e-6, call=name)
    assert_close(gg, wg, rtol=1e-6, atol=1e-6, call="grad of " + name)
