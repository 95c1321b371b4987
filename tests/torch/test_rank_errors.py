"""Inputs of the wrong rank (0-d, 1-d, one dim too many) get torch's exception class and
message: matrix functions (``trace``, ``mT``, ``tril``/``triu``, ``outer``, ``mv``), the 1-d and
2-d pools, the normalizations, the losses, ``linear``, ``embedding``, ``tensor_split``,
``chunk`` and ``flatten``. Each row was measured on torch 2.13 CPU; the oracle test measures it
again when torch is installed. (A differential campaign found the first of them: ``trace`` of a
0-d tensor raised IndexError, and ``trace``/``tril``/``outer``/``mv`` silently computed a result
for ranks torch refuses.)"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from minitorch_cs import torch
from tests.helpers import ours_and_torch

CALLS = {
    "trace": lambda T, x: T.trace(x),
    "mT": lambda T, x: x.mT,
    "max_pool1d": lambda T, x: T.nn.functional.max_pool1d(x, 1),
    "max_pool1d_idx": lambda T, x: T.nn.functional.max_pool1d(x, 1, return_indices=True),
    "avg_pool1d": lambda T, x: T.nn.functional.avg_pool1d(x, 1),
    "adaptive_avg_pool1d": lambda T, x: T.nn.functional.adaptive_avg_pool1d(x, 1),
    "avg_pool2d": lambda T, x: T.nn.functional.avg_pool2d(x, 1),
    "max_pool2d": lambda T, x: T.nn.functional.max_pool2d(x, 1),
    "adaptive_avg_pool2d_1": lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, 1),
    "adaptive_avg_pool2d_t": lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, (1, 2)),
    "group_norm": lambda T, x: T.nn.functional.group_norm(x, 1),
    "tensor_split": lambda T, x: T.tensor_split(x, 2),
    "batch_norm": lambda T, x: T.nn.functional.batch_norm(x, None, None, training=True),
    "tril": lambda T, x: T.tril(x),
    "triu": lambda T, x: T.triu(x),
    "outer": lambda T, x: T.outer(x, x),
    "mv": lambda T, x: T.mv(x, x),
    "flatten1": lambda T, x: T.flatten(x, 1),
    "chunk1": lambda T, x: x.chunk(2, 1),
    "embedding": lambda T, x: T.nn.functional.embedding(T.zeros(2, dtype=T.long), x),
    "linear": lambda T, x: T.nn.functional.linear(x, T.ones(1, 1)),
    "nll_loss": lambda T, x: T.nn.functional.nll_loss(x, T.zeros((), dtype=T.long)),
    "batch_norm_eval": lambda T, x: T.nn.functional.batch_norm(x, T.zeros(1), T.ones(1)),
    "batch_norm_eval_none": lambda T, x: T.nn.functional.batch_norm(x, None, None),
    "batch_norm_one": lambda T, x: T.nn.functional.batch_norm(x, None, None, training=True),
    "cross_entropy_probs": lambda T, x: T.nn.functional.cross_entropy(x, T.ones(())),
    "nll_loss_int32": lambda T, x: T.nn.functional.nll_loss(x, T.zeros(2, dtype=T.int32)),
    "outer_vec2": lambda T, x: T.outer(T.ones(2), x),
    "mv_matrix": lambda T, x: T.mv(T.ones(2, 2), x),
    "tril_": lambda T, x: x.tril_(),
    "flatten_0d": lambda T, x: T.flatten(x, -2, 0),
    "embedding_pad": lambda T, x: T.nn.functional.embedding(T.zeros(2, dtype=T.long), x,
                                                           padding_idx=-1),
}

# (call, input shape, exception class, message), torch 2.13 CPU
ROWS = [
    ('trace', (), RuntimeError, 'trace: expected a matrix, but got tensor with dim 0'),
    ('trace', (2,), RuntimeError, 'trace: expected a matrix, but got tensor with dim 1'),
    ('trace', (1, 1, 2), RuntimeError, 'trace: expected a matrix, but got tensor with dim 3'),
    ('mT', (2,), RuntimeError, 'tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.'),
    ('max_pool1d', (), RuntimeError, 'max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:[]'),
    ('max_pool1d', (2,), RuntimeError, 'max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:[2]'),
    ('max_pool1d', (1, 1, 1, 2), RuntimeError, 'max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:[1, 1, 1, 2]'),
    ('max_pool1d_idx', (), RuntimeError, "Expected 2 to 3 dimensions, but got 0-dimensional tensor for argument #1 'self' (while checking arguments for max_pool1d)"),
    ('max_pool1d_idx', (2,), RuntimeError, "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' (while checking arguments for max_pool1d)"),
    ('max_pool1d_idx', (1, 1, 1, 2), RuntimeError, "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 'self' (while checking arguments for max_pool1d)"),
    ('avg_pool1d', (), RuntimeError, "Expected 2 to 3 dimensions, but got 0-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)"),
    ('avg_pool1d', (2,), RuntimeError, "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)"),
    ('avg_pool1d', (1, 1, 1, 2), RuntimeError, "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)"),
    ('adaptive_avg_pool1d', (), RuntimeError, "Expected 2 to 3 dimensions, but got 0-dimensional tensor for argument #1 'self' (while checking arguments for adaptive_avg_pool1d)"),
    ('adaptive_avg_pool1d', (2,), RuntimeError, "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' (while checking arguments for adaptive_avg_pool1d)"),
    ('adaptive_avg_pool1d', (1, 1, 1, 2), RuntimeError, "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 'self' (while checking arguments for adaptive_avg_pool1d)"),
    ('avg_pool2d', (), IndexError, 'Dimension specified as -3 but tensor has no dimensions'),
    ('avg_pool2d', (2,), IndexError, 'Dimension out of range (expected to be in range of [-1, 0], but got -3)'),
    ('avg_pool2d', (1, 2), IndexError, 'Dimension out of range (expected to be in range of [-2, 1], but got -3)'),
    ('max_pool2d', (), RuntimeError, 'non-empty 3D or 4D (batch mode) tensor expected for input'),
    ('max_pool2d', (2,), RuntimeError, 'non-empty 3D or 4D (batch mode) tensor expected for input'),
    ('max_pool2d', (1, 2), RuntimeError, 'non-empty 3D or 4D (batch mode) tensor expected for input'),
    ('adaptive_avg_pool2d_1', (), IndexError, 'Dimension out of range (expected to be in range of [-1, 0], but got -2)'),
    ('adaptive_avg_pool2d_1', (2,), IndexError, 'Dimension out of range (expected to be in range of [-1, 0], but got -2)'),
    ('adaptive_avg_pool2d_t', (), ValueError, 'Input dimension should be at least 3'),
    ('adaptive_avg_pool2d_t', (2,), ValueError, 'Input dimension should be at least 3'),
    ('adaptive_avg_pool2d_t', (1, 2), ValueError, 'Input dimension should be at least 3'),
    ('group_norm', (), RuntimeError, 'Expected at least 2 dimensions for input tensor but received 0'),
    ('group_norm', (2,), RuntimeError, 'Expected at least 2 dimensions for input tensor but received 1'),
    ('tensor_split', (), RuntimeError, 'tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims'),
    ('batch_norm', (), IndexError, 'tuple index out of range'),
    ('batch_norm', (2,), IndexError, 'Dimension out of range (expected to be in range of [-1, 0], but got 1)'),
    ('tril', (), RuntimeError, 'tril: input tensor must have at least 2 dimensions'),
    ('tril', (2,), RuntimeError, 'tril: input tensor must have at least 2 dimensions'),
    ('triu', (), RuntimeError, 'triu: input tensor must have at least 2 dimensions'),
    ('triu', (2,), RuntimeError, 'triu: input tensor must have at least 2 dimensions'),
    ('outer', (), RuntimeError, 'outer: Expected 1-D argument self, but got 0-D'),
    ('outer', (1, 2), RuntimeError, 'outer: Expected 1-D argument self, but got 2-D'),
    ('mv', (), IndexError, 'Dimension specified as 0 but tensor has no dimensions'),
    ('mv', (2,), RuntimeError, 'vector + matrix @ vector expected, got 1, 1, 1'),
    ('flatten1', (), IndexError, 'Dimension out of range (expected to be in range of [-1, 0], but got 1)'),
    ('chunk1', (), RuntimeError, 'chunk expects at least a 1-dimensional tensor'),
    ('embedding', (), RuntimeError, "'weight' must be 2-D"),
    ('embedding', (2,), RuntimeError, "'weight' must be 2-D"),
    ('embedding', (1, 1, 2), RuntimeError, "'weight' must be 2-D"),
    ('linear', (), RuntimeError, 'both arguments to linear need to be at least 1D, but they are 0D and 2D'),
    ('nll_loss', (), ValueError, 'Expected 1 or more dimensions (got 0)'),
    ('batch_norm_eval', (), RuntimeError, 'running_mean should contain 0 elements not 1'),
    ('batch_norm_eval', (2,), RuntimeError, 'running_mean should contain 0 elements not 1'),
    ('batch_norm_eval_none', (2, 3), RuntimeError, 'running_mean must be defined in evaluation mode'),
    ('batch_norm_one', (1,), ValueError, 'Expected more than 1 value per channel when training, got input size torch.Size([1])'),
    ('cross_entropy_probs', (), IndexError, 'Dimension specified as 1 but tensor has no dimensions'),
    ('nll_loss_int32', (2, 3), RuntimeError, 'expected target dtype to be Long or Byte, but got Int'),
    ('outer_vec2', (1, 2), RuntimeError, 'outer: Expected 1-D argument vec2, but got 2-D'),
    ('mv_matrix', (2, 2), RuntimeError, 'vector + matrix @ vector expected, got 1, 2, 2'),
    ('tril_', (2,), RuntimeError, 'tril: input tensor must have at least 2 dimensions'),
    ('flatten_0d', (), IndexError, 'Dimension out of range (expected to be in range of [-1, 0], but got -2)'),
    ('embedding_pad', (), IndexError, 'Dimension specified as 0 but tensor has no dimensions'),
]


def _raise(T, name, shape):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        CALLS[name](T, T.ones(shape))


@pytest.mark.parametrize("name,shape,cls,msg", ROWS, ids=[f"{r[0]}{list(r[1])}" for r in ROWS])
def test_wrong_rank_raises_torchs_error(name, shape, cls, msg):
    """Ours raises the row's error; so does torch, when installed (the row stays torch's)."""
    for T in ours_and_torch():
        with pytest.raises(cls) as info:
            _raise(T, name, shape)
        assert type(info.value) is cls and str(info.value).splitlines()[0] == msg, T.__name__


def test_the_ranks_torch_accepts_still_compute():
    """``adaptive_avg_pool2d`` to one value is a mean over the last two dims of any rank from 2
    up; ``mT`` of a 0-d tensor is the tensor (torch warns that it is deprecated)."""
    x = torch.arange(10.0).reshape(1, 1, 1, 2, 5)
    np.testing.assert_array_equal(torch.nn.functional.adaptive_avg_pool2d(x, 1).numpy(),
                                  np.full((1, 1, 1, 1, 1), 4.5, np.float32))
    y = torch.nn.functional.adaptive_avg_pool2d(torch.arange(6.0).reshape(2, 3), 1)
    assert y.shape == (1, 1) and y.item() == 2.5
    with warnings.catch_warnings():  # (torch warns once per process)
        warnings.simplefilter("ignore")
        assert torch.tensor(3.0).mT.item() == 3.0
