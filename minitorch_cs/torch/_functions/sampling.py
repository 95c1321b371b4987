"""Sampling functions: ``bernoulli``, ``multinomial`` (and the ``Tensor.bernoulli_`` method).

The values follow the documented rules on our uniform stream (``_ops.sampling``, SPEC "RNG").
"""
from __future__ import annotations

import builtins

from .. import _dtype as D
from .._autograd import torch_named_inplace
from .._dispatch import apply
from .._ops.sampling import Bernoulli, Multinomial
from .._out import supports_out
from .._tensor import Tensor

__all__ = ["bernoulli", "multinomial"]

_BERNOULLI_OVERLOADS = ("Tensor input, *, torch.Generator generator = None, Tensor out = None",
                        "Tensor input, float p, *, torch.Generator generator = None")


def _bernoulli_parser_error(args):
    """torch's TypeError for a call matching no overload (it lists the overloads only)."""
    got = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in args)
    raise TypeError(f"bernoulli() received an invalid combination of arguments - got ({got}), "
                    "but expected one of:\n" + "".join(f" * ({o})\n" for o in _BERNOULLI_OVERLOADS))


def _check_float_p(p, what):
    if not p._dtype.is_floating_point:
        raise NotImplementedError(f'"{what}" not implemented for \'{D.scalar_name(p._dtype)}\'')


def _bernoulli(input, p=None, *, generator=None):
    if not isinstance(input, Tensor) or (p is not None and (
            isinstance(p, (Tensor, builtins.bool)) or not isinstance(p, (builtins.int,
                                                                        builtins.float)))):
        _bernoulli_parser_error((input,) if p is None else (input, p))
    if p is not None:  # a tensor shaped like input, every element drawn with probability p
        from .._creation import empty_like
        return empty_like(input).bernoulli_(p, generator=generator)
    _check_float_p(input, "bernoulli_tensor_cpu_p_")
    return apply(Bernoulli, input, generator=generator)


def bernoulli(input, p=None, *, generator=None, out=None):
    """``torch.bernoulli(input)``: 1 with probability ``input[i]`` (0 <= p <= 1), else 0, in
    ``input``'s dtype; ``torch.bernoulli(input, p)``: every element with probability ``p``."""
    if out is not None:
        return supports_out(_bernoulli)(input, p, generator=generator, out=out)
    return _bernoulli(input, p, generator=generator)


def _multinomial(input, num_samples, replacement=False, *, generator=None):
    return apply(Multinomial, input, int(num_samples), replacement=builtins.bool(replacement),
                 generator=generator)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """``num_samples`` int64 category indices per row of ``input`` (1-D or 2-D, non-negative
    weights, not necessarily normalised), with or without replacement."""
    if out is not None:
        return supports_out(_multinomial)(input, num_samples, replacement, generator=generator,
                                          out=out)
    return _multinomial(input, num_samples, replacement, generator=generator)


def bernoulli_method(self, p=None, *, generator=None):
    """``Tensor.bernoulli(p=None, *, generator=None)``."""
    return bernoulli(self, p, generator=generator)


def bernoulli_(self, p=0.5, *, generator=None):
    """``Tensor.bernoulli_(p=0.5, *, generator=None)``: fill ``self`` (any dtype) with draws of
    probability ``p`` (a number, or a tensor broadcast to ``self``'s shape)."""
    from .._ops.sampling import Bernoulli as _B
    from .._ops.sampling import RandomFill
    from .._dispatch import apply_inplace
    if isinstance(p, Tensor):
        _check_float_p(p, "bernoulli_tensor_cpu_p_")
        pe = p.expand_as(self)
        prev = self.grad_fn
        self.copy_(apply(_B, pe.contiguous(), generator=generator, dtype=self._dtype.np))
        return torch_named_inplace(self, prev, "BernoulliBackward1")  # (bernoulli_.Tensor)
    p = builtins.float(p)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    return apply_inplace(RandomFill, self, kind="bernoulli", a=p, generator=generator)
