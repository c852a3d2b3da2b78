"""The interpreters' rules for the random-bit primitives (``core.lax.random_bits``).

Design rules:
- No impl rule: the values are XLA's algorithms, so eager evaluation runs
  each primitive's compiled program (bit for bit JAX's).
- ``rng_bit_generator``'s results are integers: its tangents are zero.
  Its batching rule is JAX's: a batch of keys draws once, from the first
  key, bits with the batch as a leading axis, and only the first key is
  advanced (JAX's rule, kept so that values match).
- ``rng_uniform`` has no jvp or batching rule, as JAX's has none (it is
  stateful: a batch of its draws is not a ``vmap`` of one).
- Flops: XLA expands the generator into integer arithmetic whose count it
  reports after optimisation only; the rule gives the Philox and Threefry
  counts per block of a leading estimate, marked ``estimated``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.lax.random_bits import RandomAlgorithm, rng_bit_generator_p, rng_uniform_p
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front
from didax.interpreters.flops import FLOPS_RULES, Cost, Operand
from didax.interpreters.jvp import zero_jvp

__all__: list[str] = []

zero_jvp(rng_bit_generator_p)


@BATCH_RULES.defines(rng_bit_generator_p)
def _rng_bit_generator_batch(
    axis_size: int,
    args: Sequence[Any],
    dims: Sequence[Dim],
    *,
    shape: tuple[int, ...],
    dtype: Any,
    algorithm: RandomAlgorithm,
) -> tuple[Any, Any]:
    keys = bdim_at_front(args[0], dims[0], axis_size)
    key = lax.index_in_dim(keys, 0, 0, keepdims=False)
    new_key, bits = rng_bit_generator_p.bind(
        key, shape=(axis_size, *shape), dtype=dtype, algorithm=algorithm
    )
    new_keys = lax.dynamic_update_index_in_dim(keys, new_key, 0, 0)
    return [new_keys, bits], [0, 0]


@FLOPS_RULES.defines(rng_bit_generator_p)
def _rng_bit_generator_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    *,
    shape: tuple[int, ...],
    dtype: Any,
    algorithm: RandomAlgorithm,
) -> Cost:
    # Philox (XLA's default on CPUs) makes 4 words a block, Threefry 2; the
    # per-block counts are XLA's large-size slopes.
    words = out_avals[1].size * max(1, out_avals[1].dtype.itemsize // 4)
    if algorithm is RandomAlgorithm.RNG_THREE_FRY:
        return Cost(123 * -(-words // 2), estimated=True)
    return Cost(149 * -(-words // 4), estimated=True)


@FLOPS_RULES.defines(rng_uniform_p)
def _rng_uniform_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **_: object
) -> Cost:
    # XLA's expansion: a Philox draw per element, scaled into [a, b).
    return Cost(42 * out_avals[0].size, estimated=True)
