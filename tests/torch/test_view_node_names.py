"""Views carry torch's node names: basic indexing is named after the last view op torch applies
for the key (``SelectBackward0``, ``SliceBackward0``, ``UnsqueezeBackward0``, or
``AliasBackward0`` when nothing is applied), advanced indexing ``IndexBackward0``, and the shape
functions after theirs (``TBackward0``, ``TransposeBackward0``, ``SplitBackward0``, ...). A key
of several entries is one node here; torch records a chain of one node per applied entry (SPEC,
autograd), so only the result's own node is compared."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch_cs.torch as T


def _leaf(lib, shape):
    return lib.ones(*shape, requires_grad=True)


@pytest.mark.parametrize("key,name", [
    ("0", "SelectBackward0"), ("-1", "SelectBackward0"), (":", "SliceBackward0"),
    ("0:2", "SliceBackward0"), ("None", "UnsqueezeBackward0"), ("...", "AliasBackward0"),
    (":, :", "AliasBackward0"), (":, :5", "AliasBackward0"), ("1:, :", "SliceBackward0"),
    ("-2:, :", "SliceBackward0"), ("0, 1:", "SliceBackward0"), ("1, None", "UnsqueezeBackward0"),
    ("None, 0", "SelectBackward0"), ("..., 0", "SelectBackward0"), ("[0, 1]", "IndexBackward0"),
    ("True", "IndexBackward0"), ("0, [1]", "IndexBackward0")])
def test_basic_and_advanced_index_nodes(key, name):
    assert eval(f"x[{key}]", {"x": _leaf(T, (2, 3))}).grad_fn.name() == name


@pytest.mark.parametrize("expr,name", [
    ("x.t()", "TBackward0"), ("v.t()", "TBackward0"), ("x.transpose(0, 1)", "TransposeBackward0"),
    ("x.swapaxes(0, 1)", "TransposeBackward0"), ("x.mT", "TransposeBackward0"),
    ("x.T", "PermuteBackward0"), ("x.narrow(1, 0, 2)", "SliceBackward0"),
    ("x.select(1, 0)", "SelectBackward0"), ("x.split(2, 1)[1]", "SplitBackward0"),
    ("x.split([1, 2], 1)[0]", "SplitWithSizesBackward0"), ("x.chunk(2, 1)[0]", "SplitBackward0"),
    ("x.unbind(1)[2]", "UnbindBackward0"), ("x.tensor_split(2, 1)[0]", "SliceBackward0"),
    ("x.hsplit(3)[0]", "SliceBackward0"), ("x.roll(1)", "RollBackward0"),
    ("x.roll(1, 0)", "RollBackward0"), ("x.rot90()", "Rot90Backward0"),
    ("x.rot90(2)", "Rot90Backward0"), ("v.diag()", "DiagEmbedBackward0"),
    ("x.diag()", "DiagonalBackward0_copy"), ("x.t().reshape(-1)", "UnsafeViewBackward0"),
    ("x.reshape(-1)", "ViewBackward0"), ("s.transpose(0, 0)", "TransposeBackward0"),
    ("s.t()", "TBackward0")])
def test_shape_function_nodes(expr, name):
    scope = {"x": _leaf(T, (2, 3)), "v": _leaf(T, (3,)), "s": T.ones((), requires_grad=True)}
    assert eval(expr, scope).grad_fn.name() == name


def test_roll_without_dims_is_one_node_with_the_flat_roll_values():
    x = T.arange(6.).reshape(2, 3).t().requires_grad_()  # (a non-contiguous input)
    y = x.roll(2)
    np.testing.assert_array_equal(y.detach().numpy(), np.roll(x.detach().numpy(), 2))
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    y.backward(T.arange(6.).reshape(3, 2))
    np.testing.assert_array_equal(x.grad.numpy(), np.roll(np.arange(6.).reshape(3, 2), -2))


_ENTRY = st.one_of(st.integers(-2, 1), st.none(), st.just(Ellipsis),
                   st.builds(slice, st.one_of(st.none(), st.integers(-3, 3)),
                             st.one_of(st.none(), st.integers(-3, 4)),
                             st.one_of(st.none(), st.integers(1, 2))))


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(shape=st.lists(st.integers(2, 3), min_size=1, max_size=3),
       key=st.one_of(_ENTRY, st.lists(_ENTRY, max_size=4).map(tuple)))
def test_basic_index_node_is_torchs(shape, key):
    torch = pytest.importorskip("torch")
    if isinstance(key, tuple) and key.count(Ellipsis) > 1:
        return  # (torch reads each ``...`` of several; numpy and we refuse them: SPEC, indexing)
    names = []
    for lib in (T, torch):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                y = _leaf(lib, shape)[key]
        except (IndexError, RuntimeError, ValueError) as e:
            names.append(type(e).__name__)
            continue
        names.append(y.grad_fn.name())
    assert names[0] == names[1], (shape, key, names)


@pytest.mark.parametrize("key,value,name", [
    ("0", "2.0", "torch::autograd::CopySlices"), ("1:", "T.ones(3)", "torch::autograd::CopySlices"),
    ("None", "2.0", "torch::autograd::CopySlices"), ("0, 0", "T.ones(1)", "torch::autograd::CopySlices"),
    ("True", "2.0", "torch::autograd::CopySlices"), (":", "2.0", "FillBackward3"),
    ("...", "T.tensor(2.)", "FillBackward3"), (":, :", "T.ones(3)", "torch::autograd::CopyBackwards"),
    (":", "T.ones(1)", "torch::autograd::CopyBackwards"), ("[0]", "2.0", "IndexPutBackward0"),
    ("x0 > 0", "T.ones(1)", "IndexPutBackward0")])
def test_setitem_nodes(key, value, name):
    """``x[key] = value`` on a tensor in the graph: index_put_ for an index tensor, otherwise a
    copy (a fill for a number) into the basic-indexing view -- CopySlices on the base -- or into
    the tensor itself when the key applies no view op."""
    x0 = T.ones(2, 3, requires_grad=True)
    x = x0 * 1
    exec(f"x[{key}] = {value}", {"T": T, "x": x, "x0": x0})
    assert x.grad_fn.name() == name


@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(shape=st.lists(st.integers(2, 3), min_size=1, max_size=3),
       key=st.one_of(_ENTRY, st.lists(_ENTRY, max_size=3).map(tuple)),
       scalar=st.booleans())
def test_setitem_node_is_torchs(shape, key, scalar):
    torch = pytest.importorskip("torch")
    if isinstance(key, tuple) and key.count(Ellipsis) > 1:
        return
    names = []
    for lib in (T, torch):
        x = _leaf(lib, shape) * 1
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                x[key] = 2.0 if scalar else lib.ones(())
                names.append(x.grad_fn.name())
        except (IndexError, RuntimeError, ValueError) as e:
            names.append(type(e).__name__)
    assert names[0] == names[1], (shape, key, names)


def test_setitem_of_a_whole_0d_tensor_is_a_copy():
    for value in (2.0, T.tensor(2.0)):
        x = T.ones((), requires_grad=True) * 1
        x[()] = value
        assert x.grad_fn.name() == "torch::autograd::CopyBackwards"


_MM_SHAPES = {1: (4,), 2: (4, 4), 3: (2, 4, 4), 4: (3, 2, 4, 4), "b1": (1, 4, 4)}


@pytest.mark.parametrize("a,b,grads,name", [
    (1, 1, (True, True), "DotBackward0"), (2, 1, (True, False), "MvBackward0"),
    (1, 2, (True, True), "SqueezeBackward4"), (2, 2, (True, True), "MmBackward0"),
    (3, 2, (False, True), "UnsafeViewBackward0"), (2, 3, (True, False), "CloneBackward0"),
    (2, 3, (False, True), "UnsafeViewBackward0"), ("b1", 3, (True, True), "CloneBackward0"),
    ("b1", "b1", (True, True), "UnsafeViewBackward0"), (4, 4, (True, True), "UnsafeViewBackward0"),
    (1, 3, (True, True), "UnsafeViewBackward0")])
def test_matmul_nodes(a, b, grads, name):
    """torch's matmul ends in the product it dispatched to, a squeeze of it, the
    ``_unsafe_view`` of a folded or batched product, or (a left matrix that requires grad, folded
    against a batch) the contiguous copy of the transposed product."""
    x = T.ones(*_MM_SHAPES[a], requires_grad=grads[0])
    y = T.ones(*_MM_SHAPES[b], requires_grad=grads[1])
    assert (x @ y).grad_fn.name() == name


@pytest.mark.parametrize("shape,bias,name", [
    ((4,), True, "ViewBackward0"), ((4,), False, "SqueezeBackward4"),
    ((2, 4), True, "AddmmBackward0"), ((2, 4), False, "MmBackward0"),
    ((3, 2, 4), True, "ViewBackward0"), ((3, 2, 4), False, "UnsafeViewBackward0")])
def test_linear_nodes(shape, bias, name):
    x = T.ones(*shape, requires_grad=True)
    out = T.nn.functional.linear(x, T.ones(5, 4), T.ones(5) if bias else None)
    assert out.grad_fn.name() == name
    if len(shape) == 3 and bias:  # a non-contiguous batch: torch's matmul, then the bias added
        out = T.nn.functional.linear(x.transpose(0, 1), T.ones(5, 4), T.ones(5))
        assert out.grad_fn.name() == "AddBackward0"


@pytest.mark.parametrize("expr,name", [
    ("F.conv1d(T.ones(2, 5, requires_grad=True), T.ones(3, 2, 2))", "SqueezeBackward1"),
    ("F.conv2d(T.ones(2, 4, 4, requires_grad=True), T.ones(1, 2, 2, 2))", "SqueezeBackward1"),
    ("F.conv2d(T.ones(1, 2, 4, 4, requires_grad=True), T.ones(1, 2, 2, 2))",
     "ConvolutionBackward0"),
    ("T.kron(T.ones(2, requires_grad=True), T.ones(3))", "UnsafeViewBackward0"),
    ("T.trace(T.ones(3, 3, requires_grad=True))", "TraceBackward0"),
    ("T.ones(2, 3, requires_grad=True).repeat_interleave(2)", "ViewBackward0"),
    ("T.ones(2, 3, requires_grad=True).repeat_interleave(T.tensor([1, 2]), 0)",
     "IndexSelectBackward0")])
def test_composite_function_nodes(expr, name):
    assert eval(expr, {"T": T, "F": T.nn.functional}).grad_fn.name() == name


@settings(max_examples=120, deadline=None, database=None, derandomize=True)
@given(a=st.lists(st.integers(1, 3), min_size=1, max_size=4),
       b=st.lists(st.integers(1, 3), min_size=1, max_size=4),
       grads=st.sampled_from([(True, True), (True, False), (False, True)]))
def test_matmul_node_is_torchs(a, b, grads):
    torch = pytest.importorskip("torch")
    names = []
    for lib in (T, torch):
        x = lib.ones(*a, requires_grad=grads[0])
        y = lib.ones(*b, requires_grad=grads[1])
        try:
            names.append((x @ y).grad_fn.name())
        except RuntimeError as e:
            names.append(type(e).__name__)
    assert names[0] == names[1], (a, b, grads, names)


@pytest.mark.parametrize("expr,name", [
    ("x.unsqueeze_(0)", "UnsqueezeBackward1"), ("x.transpose_(0, 2)", "TransposeBackward1"),
    ("x.swapaxes_(0, 2)", "TransposeBackward1"), ("x.swapdims_(dim0=0, dim1=2)",
                                                  "TransposeBackward1"),
    ("x.squeeze_()", "SqueezeBackward3"), ("x.squeeze_(1)", "SqueezeBackward4"),
    ("x.squeeze_((1,))", "SqueezeBackward5"), ("x.squeeze_(1).t_()", "TBackward1"),
    ("x.asinh_()", "AsinhBackward1"), ("x.acosh_()", "AcoshBackward1"),
    ("x.arctanh_()", "AtanhBackward1"), ("x.pow_(2.0)", "PowBackward0"),
    ("x.pow_(T.ones(()))", "PowBackward1"), ("x.fix_()", "TruncBackward0"),
    ("x.uniform_()", "UniformBackward0"), ("x.normal_()", "NormalBackward0"),
    ("x.exponential_()", "ExponentialBackward0"), ("x.bernoulli_(0.5)", "BernoulliBackward2"),
    ("x.bernoulli_(T.full((2, 1, 3), 0.5))", "BernoulliBackward1"),
    ("x.random_()", "RandomBackward2"), ("x.random_(5)", "RandomBackward1"),
    ("x.random_(1, 5)", "RandomBackward0")])
def test_inplace_overload_nodes(expr, name):
    """An in-place form records torch's node for its own overload."""
    x = T.full((2, 1, 3), 1.5, requires_grad=True) * 1
    assert eval(expr, {"x": x, "T": T}).grad_fn.name() == name


def test_reshape_of_a_strided_tensor_is_an_alias_and_unflatten_a_view():
    x = (T.ones(3, 4, requires_grad=True) * 1).t()
    assert x.reshape(2, 2, 3).grad_fn.name() == "ReshapeAliasBackward0"
    assert x.reshape(12).grad_fn.name() == "UnsafeViewBackward0"
    assert x.unflatten(0, (2, 2)).grad_fn.name() == "ViewBackward0"
    assert x.t().reshape(12).grad_fn.name() == "ViewBackward0"


@pytest.mark.parametrize("fill", ["uniform_()", "normal_()", "exponential_()", "random_(1, 5)",
                                  "bernoulli_(0.5)", "bernoulli_(T.full((3,), 0.5))"])
def test_random_fill_cuts_the_history(fill):
    """A random fill overwrites the values: the history before it gets a zero gradient (torch's
    fill nodes), through a view only where the view wrote; a leaf that requires grad is
    refused."""
    w = T.ones(3, requires_grad=True)
    x = w * 2
    eval(f"x.{fill}", {"x": x, "T": T})
    x.sum().backward()
    assert w.grad.tolist() == [0.0, 0.0, 0.0]
    w = T.ones(3, requires_grad=True)
    x = w * 2
    eval(f"x[:2].{fill.replace('(3,)', '(2,)')}", {"x": x, "T": T})
    x.sum().backward()
    assert w.grad.tolist() == [0.0, 0.0, 2.0] and x.grad_fn.name() == "torch::autograd::CopySlices"
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        eval(f"w.{fill}", {"w": T.ones(3, requires_grad=True), "T": T})
    with T.no_grad():  # (nn.init's path)
        eval(f"w.{fill}", {"w": T.ones(3, requires_grad=True), "T": T})


def test_kron_result_is_no_autograd_view_and_strided_linear_adds_its_bias():
    """kron ends in torch's ``_unsafe_view``: the storage is viewed, but an in-place op on the
    result is an ordinary one (its own node); a non-contiguous input of linear takes torch's
    matmul-then-add path."""
    v = T.tensor(-2.33, dtype=T.float16).requires_grad_()
    k = T.kron(v, v)
    assert k._base is None and k.copysign_(k).grad_fn.name() == "CopysignBackward0"
    x = T.tensor([-1.9], dtype=T.float64).expand(4).requires_grad_()
    y = T.nn.functional.linear(x, T.ones(4, 4, dtype=T.float64), T.ones(4, dtype=T.float64))
    assert y.grad_fn.name() == "AddBackward0"


@pytest.mark.parametrize("shape,kw,name", [
    ((2, 2, 3, 4), {}, "ScaledDotProductFlashAttentionForCpuBackward0"),
    ((2, 2, 3, 4), {"is_causal": True}, "ScaledDotProductFlashAttentionForCpuBackward0"),
    ((2, 2, 3, 4), {"dropout_p": 0.5}, "UnsafeViewBackward0"),
    ((2, 3, 4), {}, "UnsafeViewBackward0"), ((3, 4), {}, "MmBackward0")])
def test_attention_nodes(shape, kw, name):
    """torch's CPU dispatch: 4-D inputs without dropout take its fused flash kernel (its node's
    name), the rest its math path, which ends in a matmul."""
    q = T.ones(*shape, requires_grad=True)
    assert T.nn.functional.scaled_dot_product_attention(q, q, q, **kw).grad_fn.name() == name
    mask = T.zeros(shape[-2], shape[-2], requires_grad=True)
    if len(shape) == 4 and not kw:
        out = T.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=mask)
        assert out.grad_fn.name() == "UnsafeViewBackward0"  # (a mask that requires grad)


def test_attention_over_an_empty_head_dim_averages_the_values():
    """Every score is an empty sum (0), so each query averages the values, as torch's."""
    q = T.ones(1, 2, 0)
    v = T.tensor([[[1.0, 2.0], [3.0, 6.0]]])
    out = T.nn.functional.scaled_dot_product_attention(q, q, v)
    assert out.tolist() == [[[2.0, 4.0], [2.0, 4.0]]]


def test_einsum_contraction_result_is_a_view_as_torchs():
    """torch's contraction result is a view of its bmm's: an in-place op on it rebases that
    (the result reads back through AsStridedBackward0); a product of operands is no view."""
    a = T.full((3, 3), 1.5, requires_grad=True) * 1
    r = T.einsum("ij,ij->i", a, a)
    assert r._base is not None and r.fill_(-2.5).grad_fn.name() == "AsStridedBackward0"
    p = T.einsum("ij,ij->ij", a, a)
    assert p._base is None and p.fill_(1.0).grad_fn.name() == "FillBackward2"


def test_repeat_interleave_by_a_number_is_a_view_of_its_copy():
    """torch: an index_select, then a view of it for a number of repeats: an in-place op on
    the result rebases through the view; tensor repeats give the index_select itself."""
    v = T.tensor([0.4, 0.5], requires_grad=True)
    r = v[:1].reshape(()).repeat_interleave(2)
    assert r._base is not None and r.log2_().grad_fn.name() == "AsStridedBackward0"
    c = v.repeat_interleave(T.tensor([1, 2]))
    assert c._base is None and c.grad_fn.name() == "IndexSelectBackward0"


@pytest.mark.parametrize("expr,name", [
    ("T.sum(x, None)", "SumBackward1"), ("x.sum(dim=None, dtype=T.float64)", "SumBackward1"),
    ("x.sum()", "SumBackward0"), ("T.mean(x, None)", "MeanBackward1"),
    ("x.mean()", "MeanBackward0"), ("T.div(x, 2.0, rounding_mode=None)", "DivBackward2"),
    ("x.div(2.0)", "DivBackward0"), ("T.sort(x, stable=False)[0]", "SortBackward1"),
    ("x.sort(stable=True)[0]", "SortBackward1"), ("T.sort(x, 0, False)[0]", "SortBackward0")])
def test_an_explicitly_named_argument_selects_torchs_overload(expr, name):
    """torch's parser picks the overload by the arguments a call names, not their values."""
    x = T.ones(2, 3, requires_grad=True)
    assert eval(expr, {"x": x, "T": T}).grad_fn.name() == name


def test_dimwise_ops_on_a_0d_tensor_return_their_own_tensor():
    """min/max/sort/topk/cumsum along the one dim of a 0-d tensor: results that are no views
    (an in-place op on one records its own node), named after torch's op."""
    s = T.tensor(0.7, dtype=T.float16, requires_grad=True)
    v, i = s.min(0, keepdim=True)
    assert v._base is None and v.grad_fn.name() == "MinBackward0"
    assert v.trunc_().grad_fn.name() == "TruncBackward0" and i.dtype is T.int64
    for r in (T.cumsum(s, 0), T.sort(s)[0], T.topk(s, 1)[0], T.max(s, 0)[0]):
        assert r._base is None
