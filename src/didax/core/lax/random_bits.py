"""Random bits: ``rng_bit_generator`` and ``rng_uniform``, their typing rules and wrappers.

XLA's two random-number operations, as JAX's ``lax`` exposes them:
``rng_bit_generator_p`` (stateless: a key in, the next key and bits of
``shape`` out, by ``RandomAlgorithm``: XLA's default, Threefry or Philox)
and ``rng_uniform_p`` (XLA's stateful uniform numbers in ``[a, b)``, which
JAX discourages). ``didax.random`` does not use them: its keys are JAX's
threefry keys. The interpreters' rules are in ``interpreters.random_bits``,
the lowerings in ``lowering.random_bits``.

Design rules:
- A key is a ``uint32[4]`` (or, as JAX allows, a ``uint64[2]``); the new
  key has the key's type, the bits are an unsigned integer dtype
  (``uint8``, ``uint16``, ``uint32`` or ``uint64``), never weak.
- Both are XLA's algorithms: their values are what XLA computes (bit for
  bit JAX's on the same platform), so neither has a NumPy impl; eagerly
  each runs as its compiled one-equation program.
- ``algorithm`` is a ``RandomAlgorithm`` param (an ``IntEnum``, as JAX's).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Final

from numpy.typing import DTypeLike

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, dtype_failure, shape_failure
from didax.core.basearray import Value
from didax.core.dtypes import DType
from didax.core.lax.operands import as_operand, bind_value
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike

__all__ = [
    "rng_bit_generator_p",
    "rng_uniform_p",
    "RandomAlgorithm",
    "rng_bit_generator",
    "rng_uniform",
]

rng_bit_generator_p: Final = Primitive("rng_bit_generator", multiple_results=True)
rng_uniform_p: Final = Primitive("rng_uniform")


class RandomAlgorithm(enum.IntEnum):
    """Which algorithm ``rng_bit_generator`` uses (JAX's ``lax.RandomAlgorithm``).

    >>> str(RandomAlgorithm.RNG_PHILOX)
    'RNG_PHILOX'
    """

    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self) -> str:
        return self.name


BIT_DTYPES: Final[tuple[DType, ...]] = (
    dtypes.uint8,
    dtypes.uint16,
    dtypes.uint32,
    dtypes.uint64,
)


def _check_shape(shape: tuple[int, ...]) -> None:
    if any(s < 0 for s in shape):
        raise shape_failure(f"shape {shape} has a negative size")


@ABSTRACT_EVAL.defines(rng_bit_generator_p)
def _rng_bit_generator_abstract_eval(
    key: ShapedArray, *, shape: tuple[int, ...], dtype: DType, algorithm: RandomAlgorithm
) -> list[ShapedArray]:
    if (key.shape, key.dtype) not in (((4,), dtypes.uint32), ((2,), dtypes.uint64)):
        raise dtype_failure(f"the key must be a uint32[4] or a uint64[2], got {key.str_short()}")
    if dtype not in BIT_DTYPES:
        raise dtype_failure(f"unsupported dtype {dtype}: one of uint8, uint16, uint32, uint64")
    _check_shape(shape)
    return [ShapedArray(key.shape, key.dtype, key.weak_type), ShapedArray(shape, dtype)]


@ABSTRACT_EVAL.defines(rng_uniform_p)
def _rng_uniform_abstract_eval(
    a: ShapedArray, b: ShapedArray, *, shape: tuple[int, ...]
) -> ShapedArray:
    if a.dtype != b.dtype:
        raise dtype_failure(f"a and b must have identical dtypes, got {a.dtype} and {b.dtype}")
    if a.shape != () or b.shape != ():
        raise shape_failure(f"a and b must be scalars, got shapes {a.shape} and {b.shape}")
    # XLA's expander takes floats and 32/64-bit integers (it aborts on smaller ones).
    if not dtypes.is_float(a.dtype) and (a.dtype.kind not in "iu" or a.dtype.itemsize < 4):
        raise dtype_failure(f"a and b must be floats or 32/64-bit integers, got {a.dtype}")
    _check_shape(shape)
    return ShapedArray(shape, a.dtype, a.weak_type and b.weak_type)


def rng_bit_generator(
    key: ArrayLike,
    shape: Sequence[int],
    dtype: DTypeLike = dtypes.uint32,
    algorithm: RandomAlgorithm = RandomAlgorithm.RNG_DEFAULT,
) -> tuple[Value, Value]:
    """``(new_key, bits)``: uniformly random bits of ``shape`` and an unsigned ``dtype``.

    XLA's stateless generator: the same key gives the same bits (JAX's, on
    the same platform), and ``new_key`` continues the stream.

    >>> import numpy as np
    >>> new_key, bits = rng_bit_generator(np.array([1, 2, 3, 4], np.uint32), (2,))
    >>> bits.shape, bits.dtype, new_key.dtype
    ((2,), dtype('uint32'), dtype('uint32'))
    """
    dt = dtypes.canonicalize(dtype)
    if dt not in BIT_DTYPES:
        raise TypeError(f"rng_bit_generator: unsupported dtype {dt}")
    outs = rng_bit_generator_p.bind(
        as_operand(key),
        shape=tuple(int(s) for s in shape),
        dtype=dt,
        algorithm=RandomAlgorithm(algorithm),
    )
    return outs[0], outs[1]


def rng_uniform(a: ArrayLike, b: ArrayLike, shape: Sequence[int]) -> Value:
    """XLA's stateful uniform numbers in ``[a, b)`` of ``shape`` (JAX discourages it: no key)."""
    return bind_value(
        rng_uniform_p, as_operand(a), as_operand(b), shape=tuple(int(s) for s in shape)
    )
