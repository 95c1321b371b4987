"""Per-op RNG seeding inside a backend device context (cstorch's ``GeneratorContext``).

Inside ``with backend.device:`` every random op that was not given a generator draws one integer
seed from the global default generator and runs on a fresh generator seeded with it. Each random
op therefore consumes exactly one draw of the global stream, whatever its size, so values depend
only on the seed and the order of random-op *calls* — the property lazy initialization needs.
"""
from __future__ import annotations

import sys

from ..torch import _dispatch
from ..torch._random import Generator, default_generator

__all__ = ["push_generator_context", "pop_generator_context", "draw_seed"]

_RANDOM_OPS = {"random_fill", "random_new", "bernoulli", "multinomial"}


def draw_seed() -> int:
    """One seed from the global generator, as the real stack draws ``randint(sys.maxsize)``."""
    return int(default_generator._np.integers(0, sys.maxsize))


def seeded_generator() -> Generator:
    return Generator().manual_seed(draw_seed())


class GeneratorMode(_dispatch.Mode):
    """Dispatch mode giving each generator-less random op its own freshly seeded generator."""

    def dispatch(self, op, args, attrs, target):
        if op.name in _RANDOM_OPS and attrs.get("generator") is None:
            attrs = dict(attrs, generator=seeded_generator())
        return _dispatch.redispatch(self, op, args, attrs, target)


def push_generator_context():
    return GeneratorMode().enter()


def pop_generator_context(mode):
    mode.exit()
