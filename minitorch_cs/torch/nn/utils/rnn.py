"""``torch.nn.utils.rnn``: ``PackedSequence`` and packing/padding of variable-length batches.

A packed sequence stores the valid time steps of a batch time-major: step ``t`` holds the
``batch_sizes[t]`` sequences still running (the batch sorted by decreasing length), so
``data`` is (sum(lengths), *). Packing and unpacking are one gather each (``index_select``),
so gradients flow through them; the lengths are read on the host, as torch reads its CPU
``lengths`` tensor.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from ... import _creation as C
from ... import _dtype as D
from ... import _functions as T
from ..._tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def _bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """``(data, batch_sizes, sorted_indices, unsorted_indices)``; build it with
    :func:`pack_padded_sequence` or :func:`pack_sequence`, not directly."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes,
                                                                sorted_indices,
                                                                unsorted_indices))

    def pin_memory(self):
        return self

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cuda(self, *args, **kwargs):
        return self.to("cuda")

    def cpu(self, *args, **kwargs):
        return self.to("cpu")

    def double(self):
        return self.to(dtype=D.float64)

    def float(self):
        return self.to(dtype=D.float32)

    def half(self):
        return self.to(dtype=D.float16)

    def long(self):
        return self.to(dtype=D.int64)

    def int(self):
        return self.to(dtype=D.int32)

    def short(self):
        return self.to(dtype=D.int16)

    def char(self):
        return self.to(dtype=D.int8)

    def byte(self):
        return self.to(dtype=D.uint8)

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None,
                               unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation):
    """The inverse of a 1-D permutation tensor (None stays None)."""
    if permutation is None:
        return None
    out = C.empty_like(permutation)
    return out.scatter_(0, permutation, C.arange(0, permutation.numel(), dtype=permutation.dtype))


def _lengths_list(lengths):
    if isinstance(lengths, Tensor):
        if lengths.ndim != 1:
            raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                               f"{lengths.ndim}D cpu {D.scalar_name(lengths._dtype)} tensor")
        return [int(v) for v in lengths.to(D.int64).tolist()]
    return [int(v) for v in lengths]


def _batch_sizes(lengths):
    """Sequences still running at each step, for lengths sorted in decreasing order."""
    L = np.asarray(lengths, dtype=np.int64)
    return (L[None, :] > np.arange(int(L.max()))[:, None]).sum(axis=1).astype(np.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (T, B, *) (or (B, T, *) with ``batch_first``) of sequences of the given
    lengths. ``enforce_sorted=False`` sorts by decreasing length first (stable) and records the
    permutation in the result."""
    lens = _lengths_list(lengths)
    sorted_indices = None
    if not enforce_sorted:
        order = np.argsort(-np.asarray(lens, dtype=np.int64), kind="stable")
        sorted_indices = C.as_tensor(order.astype(np.int64))
        lens = [lens[i] for i in order]
        input = T.index_select(input, 0 if batch_first else 1, sorted_indices)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if batch_first:
        input = input.transpose(0, 1)
    steps, batch = input.shape[0], input.shape[1]
    if len(lens) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lens)} (batch_size={batch})")
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element "
                           "in 'lengths' that is <= 0")
    if any(a < b for a, b in zip(lens, lens[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    if lens[0] > steps:  # torch reads past the padded tensor here; refuse instead
        raise RuntimeError(f"pack_padded_sequence: the longest length ({lens[0]}) exceeds the "
                           f"padded sequence length ({steps})")
    bs = _batch_sizes(lens)
    t_idx, b_idx = np.nonzero(np.arange(batch)[None, :] < bs[:, None])
    flat = input.reshape((steps * batch,) + tuple(input.shape[2:]))
    data = T.index_select(flat, 0, C.as_tensor((t_idx * batch + b_idx).astype(np.int64)))
    return PackedSequence(data, C.as_tensor(bs), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo :func:`pack_padded_sequence`: ``(padded, lengths)`` with ``padded`` (T, B, *) (or
    batch first), positions past each length set to ``padding_value``, in the original batch
    order; ``total_length`` pads T further."""
    bs = np.asarray(sequence.batch_sizes.tolist(), dtype=np.int64)
    max_len = len(bs)
    if total_length is not None:
        if total_length < max_len:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {max_len}")
        max_len = total_length
    data = sequence.data
    batch = int(bs[0])
    n = data.shape[0]
    offsets = np.concatenate([[0], np.cumsum(bs)[:-1]])
    b = np.arange(batch)[None, :]
    gather = np.full((max_len, batch), n, np.int64)  # row n: the padding row
    valid = b < bs[:, None]
    gather[:len(bs)] = np.where(valid, offsets[:, None] + b, n)
    rest = tuple(data.shape[1:])
    pad_row = C.full((1,) + rest, padding_value, dtype=data.dtype)
    padded = T.index_select(T.cat([data, pad_row]), 0, C.as_tensor(gather.reshape(-1)))
    padded = padded.reshape((max_len, batch) + rest)
    lengths = C.as_tensor(valid.sum(axis=0).astype(np.int64))
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        idx = sequence.unsorted_indices
        return T.index_select(padded, 0 if batch_first else 1, idx), T.index_select(lengths, 0,
                                                                                    idx)
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of shapes (L_i, *) into (max L, B, *) (or (B, max L, *)), padding each
    with ``padding_value`` on the ``padding_side`` ("right" or "left"); the first sequence's
    dtype."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of "
                           f"type: {type(sequences)}")
    seqs = list(sequences.unbind(0)) if isinstance(sequences, Tensor) else list(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    if seqs[0].ndim == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    trailing = tuple(seqs[0].shape[1:])
    max_len = max(s.shape[0] for s in seqs)
    dtype = seqs[0].dtype
    padded = []
    for s in seqs:
        if tuple(s.shape[1:]) != trailing:
            d = next((i for i, (a, b) in enumerate(zip(trailing, s.shape[1:])) if a != b),
                     len(trailing))
            a = trailing[d] if d < len(trailing) else 1
            b = s.shape[1 + d] if d + 1 < s.ndim else 1
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b "
                               f"({b}) at non-singleton dimension {d + 1}")
        s = s.to(dtype)
        extra = max_len - s.shape[0]
        if extra:
            fill = C.full((extra,) + trailing, padding_value, dtype=dtype)
            s = T.cat([s, fill] if padding_side == "right" else [fill, s])
        padded.append(s)
    return T.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences of a padded batch, each cut to its length. Like torch, a
    time-major ``padded_sequences`` is transposed in place."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    lens = _lengths_list(lengths)
    return [seq[:n] for seq, n in zip(padded_sequences.unbind(0), lens)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences (L_i, *): ``pack_padded_sequence(pad_sequence(sequences), ...)``."""
    lengths = C.as_tensor(np.asarray([v.size(0) for v in sequences], dtype=np.int64))
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences of a :class:`PackedSequence`, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
