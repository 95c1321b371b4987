"""``matmul``'s shape errors come from the kernel its path reaches, as in torch: ``dot`` for two
vectors (dtypes first, then "inconsistent tensor size"), ``mv`` for a matrix and a vector ("size
mismatch"), ``mm`` for matrices and for a batch folded into rows ("mat1 and mat2 shapes", with
the folded sizes), else the batch dims broadcast and ``bmm`` reports the rest. Whether a batch
folds depends on which operand requires grad and on the batch's layout (torch's
``should_fold``), so the sweep crosses shapes with dtypes, requires_grad and layouts."""
from __future__ import annotations

import itertools

import pytest

import minitorch_cs.torch as mt
from tests.torch._sweeps import assert_same_as_torch, outcomes

SHAPES_A = [(2,), (2, 3), (4, 2, 3), (2, 1, 2, 3), (0, 2, 3)]
SHAPES_B = [(4,), (3,), (4, 2), (3, 2), (2, 4, 2), (2, 3, 2), (1, 2, 4, 2)]


def _operand(T, shape, dtype, grad, layout):
    if layout == "transposed" and len(shape) >= 2:  # (the same shape, its last two dims swapped)
        t = T.ones(shape[:-2] + shape[-2:][::-1], dtype=dtype).mT
    elif layout == "expanded" and len(shape) >= 3 and shape[0] > 0:
        t = T.ones((1,) + shape[1:], dtype=dtype).expand(shape)
    else:
        t = T.ones(shape, dtype=dtype)
    return t.requires_grad_() if grad else t


def _calls(T):
    calls = {}
    dtypes = [(T.float32, T.float32), (T.float32, T.float64), (T.bool, T.bool)]
    for sa, sb in itertools.product(SHAPES_A, SHAPES_B):
        for (da, db), (ga, gb), layout in itertools.product(
                dtypes, [(False, False), (True, False), (False, True)],
                ["contiguous", "transposed", "expanded"]):
            if (ga or gb) and da is T.bool:
                continue  # (bool tensors cannot require grad)
            name = f"{sa}@{sb} {str(da)[6:]}/{str(db)[6:]} grad={ga},{gb} {layout}"
            calls[name] = (lambda sa=sa, sb=sb, da=da, db=db, ga=ga, gb=gb, layout=layout:
                           _operand(T, sa, da, ga, layout) @ _operand(T, sb, db, gb, layout))
    for sa, sb in [((2, 3, 4), (2, 5, 2)), ((2, 3, 4), (3, 4, 2)), ((2, 3, 4), (3, 5, 2))]:
        calls[f"bmm {sa} {sb}"] = lambda sa=sa, sb=sb: T.bmm(T.ones(sa), T.ones(sb))
        calls[f"bmm {sa} {sb} float64"] = \
            lambda sa=sa, sb=sb: T.bmm(T.ones(sa), T.ones(sb, dtype=T.float64))
    for sa, sb in [((0, 3), (3, 2)), ((2, 0), (0, 2)), ((2, 0), (0,)), ((0,), (0,)),
                   ((2, 0, 3), (2, 3, 2)), ((2, 2, 0), (2, 0, 2))]:  # (empty products)
        for da, db in [(T.bool, T.bool), (T.float32, T.float64), (T.float64, T.float32)]:
            calls[f"empty {sa}@{sb} {da}/{db}"] = \
                lambda sa=sa, sb=sb, da=da, db=db: T.ones(sa, dtype=da) @ T.ones(sb, dtype=db)
    calls["mv"] = lambda: T.mv(T.ones(2, 3), T.ones(2))
    calls["dot"] = lambda: T.dot(T.ones(2), T.ones(3))
    return calls


def _show(r):
    return f"{tuple(r.shape)} {str(r.dtype)[6:]}"


def test_matmul_paths_match_torch():
    assert_same_as_torch(lambda T: outcomes(_calls(T), show=_show), mt)


# ----- torch-free pins ---------------------------------------------------------------------------
@pytest.mark.parametrize("a, b, message", [
    ((2,), (3,), r"inconsistent tensor size, expected tensor \[2\] and src \[3\]"),
    ((2, 3), (4,), r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)"),
    ((4, 2, 3), (4,), r"size mismatch, got input \(8\), mat \(8x3\), vec \(4\)"),
    ((4, 2, 3), (4, 2), r"mat1 and mat2 shapes cannot be multiplied \(8x3 and 4x2\)"),
    ((2, 3), (2, 4, 2), r"first two dimensions of batch2 tensor to be: \[2, 3\] but got: \[2, 4\]"),
    ((4, 2, 3), (2, 4, 2), r"size of tensor a \(4\) must match the size of tensor b \(2\) at "
                           r"non-singleton dimension 0"),
])
def test_each_path_words_its_shape_error_as_its_kernel(a, b, message):
    with pytest.raises(RuntimeError, match=message):
        mt.ones(a) @ mt.ones(b)


def test_folding_follows_requires_grad_and_layout():
    with pytest.raises(RuntimeError, match=r"shapes cannot be multiplied \(4x4 and 3x2\)"):
        mt.ones(2, 3, requires_grad=True) @ mt.ones(2, 4, 2)  # (b's transpose folded)
    with pytest.raises(RuntimeError, match=r"batch2 tensor to be: \[2, 3\] but got: \[2, 5\]"):
        mt.ones(1, 4, 3).expand(2, 4, 3) @ mt.ones(5, 2)  # (an expanded batch does not fold)
    with pytest.raises(RuntimeError, match=r"dot : expected both vectors to have same dtype"):
        mt.ones(2) @ mt.ones(3, dtype=mt.float64)  # (dot: the dtypes before the sizes)
