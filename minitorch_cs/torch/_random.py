"""Random number generation: ``Generator``, the default generator, and the random primitives.

Our bit stream is numpy's PCG64 seeded with the user's seed, not torch's Mersenne Twister: the same
seed always gives the same values here, but not torch's values (SPEC.md, "RNG").
Every random fill is a primitive op holding its generator, so graph capture and lazy-init recording
see it like any other op.
"""
from __future__ import annotations

import contextlib
import os

import numpy as np

from ._dispatch import Op, apply
from ._layout import laid_out, new_array

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "fork_rng"]

_DEFAULT_SEED = 67280421310721  # torch's default seed value, so initial_seed() reads the same


class Generator:
    """A random stream: ``Generator(device="cpu")``; ``manual_seed``, ``seed``, state get/set.

    Every change of state (``manual_seed``, ``seed``, ``set_state``) and every read of it
    (``get_state``) is an op at the dispatch point, like the random draws themselves: a traced
    step on the emulated wafer replays them, so the stream evolves step by step as on CPU.
    """

    def __init__(self, device="cpu"):
        self.device = device
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed) -> "Generator":
        seed = int(seed)
        if not -(2 ** 63) <= seed < 2 ** 64:
            raise RuntimeError(f"Overflow when unpacking long: seed {seed} is out of range")
        apply(GeneratorSeed, generator=self, seed=seed & ((1 << 64) - 1))
        return self

    def seed(self) -> int:
        s = int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)
        apply(GeneratorSeed, generator=self, seed=s, from_entropy=True)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        """The full state as a uint8 tensor (seed, PCG64 state and increment, little endian)."""
        return apply(GeneratorGetState, generator=self)

    def set_state(self, new_state) -> "Generator":
        from ._tensor import Tensor
        if not isinstance(new_state, Tensor):
            new_state = Tensor._wrap(np.asarray(new_state, dtype=np.uint8))
        if new_state.numel() != 80:
            raise RuntimeError(f"Expected either a generator state of 80 bytes, got "
                               f"{new_state.numel()}")
        apply(GeneratorSetState, new_state, generator=self)
        return self

    # -- the state itself (the ops below and internal users call these) -------------------------
    def _seed_raw(self, seed: int) -> None:
        self._seed = seed
        self._np = np.random.Generator(np.random.PCG64(seed))

    def _state_array(self) -> np.ndarray:
        st = self._np.bit_generator.state
        words = [self._seed, st["state"]["state"], st["state"]["inc"], st["has_uint32"],
                 st["uinteger"]]
        raw = b"".join(int(w).to_bytes(16, "little") for w in words)
        return np.frombuffer(raw, dtype=np.uint8).copy()

    def _set_state_array(self, arr) -> None:
        raw = np.asarray(arr, dtype=np.uint8).tobytes()
        words = [int.from_bytes(raw[i:i + 16], "little") for i in range(0, 80, 16)]
        self._seed = words[0]
        bg = np.random.PCG64()
        bg.state = {"bit_generator": "PCG64", "state": {"state": words[1], "inc": words[2]},
                    "has_uint32": words[3], "uinteger": words[4]}
        self._np = np.random.Generator(bg)

    def __repr__(self) -> str:
        return "<torch._C.Generator object>"


class GeneratorSeed(Op):
    """``generator.manual_seed(seed)`` (``from_entropy``: ``generator.seed()``, the seed drawn
    from the operating system)."""

    name = "generator_seed"
    differentiable = False
    n_outputs = 0

    @staticmethod
    def forward(ctx, generator, seed, from_entropy=False):
        generator._seed_raw(seed)


class GeneratorGetState(Op):
    """``generator.get_state()``: the state as 80 uint8 values."""

    name = "generator_get_state"
    differentiable = False

    @staticmethod
    def forward(ctx, generator):
        return generator._state_array()


class GeneratorSetState(Op):
    """``generator.set_state(state)``."""

    name = "generator_set_state"
    differentiable = False
    n_outputs = 0

    @staticmethod
    def forward(ctx, state, generator):
        generator._set_state_array(state)


default_generator = Generator()
default_generator.seed()  # as torch: each process starts the global stream from a random seed


def manual_seed(seed) -> Generator:
    """Seed the default generator (returns it, like torch)."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cpu"):
    """Restore the default generator's state on exit."""
    if not enabled:
        yield
        return
    state = default_generator.get_state()
    try:
        yield
    finally:
        default_generator.set_state(state)


def _gen(generator):
    return (generator or default_generator)._np


def _draw(kind, shape, dtype, generator, a=0.0, b=1.0):
    """Fresh samples in ``dtype`` (half dtypes draw float32 and cast; the definitions: SPEC 2.4)."""
    g = _gen(generator)
    if kind == "uniform":
        if dtype in (np.float32, np.float64):
            r = g.random(shape, dtype=dtype)
        else:
            r = g.random(shape, dtype=np.float32)
        if a != 0.0 or b != 1.0:
            r = r * (b - a) + a
    elif kind == "normal":
        r = np.empty(shape, dtype if dtype in (np.float32, np.float64) else np.float32)
        _normal_into(g, r.reshape(-1), b, a)
    elif kind == "exponential":
        r = g.standard_exponential(shape, dtype=np.float32 if dtype != np.float64 else np.float64)
        r /= a
    elif kind == "bernoulli":
        r = g.random(shape, dtype=np.float32 if dtype != np.float64 else np.float64) < a
    elif kind == "integers":
        r = g.integers(a, b, size=shape, dtype=np.int64)
    else:
        raise ValueError(kind)
    return np.asarray(r).astype(dtype, copy=False)


_CHUNK = 1 << 16  # elements per block: a block stays in cache between the draw and the affine step


def _fill_into(g, kind, out, a, b):
    """Draw ``kind`` samples straight into ``out`` (same stream and values as ``_draw``).

    Block by block, so the scale and shift touch each block while it is still in cache: one pass
    over the destination's memory instead of three. numpy's generators consume the stream element
    by element, so blocked calls give exactly the values of a single call.
    """
    flat = out.reshape(-1)
    if kind == "normal":
        _normal_into(g, flat, b, a)
        return
    for start in range(0, flat.size, _CHUNK):
        block = flat[start:start + _CHUNK]
        g.random(out=block, dtype=block.dtype)
        if b - a != 1.0:
            block *= b - a
        if a != 0.0:
            block += a


def _normal_into(g, flat, scale=1.0, shift=0.0):
    """Fill the 1-D contiguous float32/float64 ``flat`` with N(shift, scale**2) samples.

    Box-Muller on uniforms, as torch's CPU ``normal_`` does: draw ``n`` uniforms U (one more when
    ``n`` is odd) exactly as ``rand(n)`` would, let ``h = ceil(n / 2)``, and for ``i < h`` set
    ``r = sqrt(-2 log(1 - U[i]))``, ``t = 2 pi U[h + i]``, ``out[i] = r cos t`` and
    ``out[h + i] = r sin t`` (the last sine is dropped when ``n`` is odd); then scale and shift.
    """
    n = flat.size
    if n == 0:
        return
    dt = flat.dtype
    g.random(out=flat, dtype=dt)
    h = (n + 1) // 2
    if n % 2:
        last = np.empty(2, dt)
        last[0] = flat[h - 1]
        g.random(out=last[1:], dtype=dt)
        _box_muller(last[:1], last[1:], scale, shift)
    done = n // 2
    for start in range(0, done, _CHUNK):
        stop = min(start + _CHUNK, done)
        a, b = flat[start:stop], flat[h + start:h + stop]
        _box_muller(a, b, scale, shift)
    if n % 2:
        flat[h - 1] = last[0]


def _box_muller(a, b, scale, shift):
    """Uniform pairs (a, b) -> normal pairs, in place."""
    dt = a.dtype
    r = np.subtract(dt.type(1), a)
    np.log(r, out=r)
    r *= dt.type(-2)
    np.sqrt(r, out=r)
    t = np.multiply(b, dt.type(2 * np.pi))
    np.cos(t, out=a)
    a *= r
    np.sin(t, out=b)
    b *= r
    for x in (a, b):
        if scale != 1.0:
            x *= scale
        if shift != 0.0:
            x += shift


class RandomNew(Op):
    """A fresh random tensor (``rand``, ``randn``, ``randint``, ``randperm``)."""

    name = "random_new"
    differentiable = False

    @staticmethod
    def forward(ctx, shape, dtype, kind, a=0.0, b=1.0, generator=None, strides=None):
        if kind == "perm":
            return new_array(_gen(generator).permutation(int(a)).astype(dtype))
        r = _draw(kind, shape, dtype, generator, a, b)
        # (a memory format's layout: the same values by index)
        return new_array(r) if strides is None else laid_out(r, strides)
