"""``SyntheticDataset``: samples generated from a spec of tensors or callables."""
from __future__ import annotations

from ...torch._tensor import Tensor
from ...torch.utils.data import IterableDataset

__all__ = ["SyntheticDataset"]


def _sample(spec, index):
    if isinstance(spec, Tensor):
        return spec.clone()
    if callable(spec):
        return spec(index)
    if isinstance(spec, dict):
        return {k: _sample(v, index) for k, v in spec.items()}
    if isinstance(spec, (list, tuple)):
        return type(spec)(_sample(v, index) for v in spec)
    raise TypeError(f"SyntheticDataset spec leaves must be tensors or callables taking the sample "
                    f"index, got {type(spec).__name__}")


class SyntheticDataset(IterableDataset):
    """Yields ``num_samples`` samples (forever when None) built from ``sample_spec``: tensors are
    copied, callables are called with the sample index."""

    def __init__(self, sample_spec, num_samples=None):
        if num_samples is not None and (not isinstance(num_samples, int) or num_samples < 1):
            raise ValueError(f"num_samples must be a positive integer or None, got {num_samples}")
        _sample(sample_spec, 0)  # validate the spec eagerly
        self.sample_spec = sample_spec
        self.num_samples = num_samples

    def __iter__(self):
        i = 0
        while self.num_samples is None or i < self.num_samples:
            yield _sample(self.sample_spec, i)
            i += 1

    def __len__(self) -> int:
        if self.num_samples is None:
            raise TypeError("SyntheticDataset with num_samples=None has no length")
        return self.num_samples
