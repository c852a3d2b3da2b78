"""PRNG keys and the Threefry-2x32 hash: JAX's counter-based PRNG, bit for bit.

A key is 64 bits, two ``uint32``; random bits are the Threefry-2x32 hash
of a counter under the key, and ``split``/``fold_in`` hash counters (or
data) into new keys. Everything is computed by ordinary primitives (adds,
xors, shifts, bit casts), so it traces, jits, vmaps and lowers like any
other code. The samplers built on these bits are ``api.random``'s.

Design rules:
- Keys come in JAX's two forms: raw ``uint32[..., 2]`` arrays
  (``PRNGKey``) and typed keys (``key``), a ``PRNGKeyArray`` wrapping such
  data with the key shape (the data's shape without its last axis). Every
  function takes both; ``split`` and ``fold_in`` return the form they got.
  A typed key is a pytree (its data the one leaf), so it passes through
  ``jit`` and ``vmap`` as JAX's key arrays do.
- The counters are JAX's partitionable ones (``jax_threefry_partitionable``
  on, JAX's default): element ``i`` (row-major) of an output of shape
  ``S`` hashes the 64-bit counter ``i`` split in two words, and the two
  hashed words are combined per element (``xor`` for 32 bits,
  concatenated for 64).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterator, Sequence
from typing import Any, Final, TypeAlias, final

import numpy as np
from jax import tree_util as _jax_tree_util

from didax.api.control_flow import fori_loop
from didax.api.jit import jit
from didax.api.numpy import elementwise as enp
from didax.api.numpy import methods as _methods  # noqa: F401  (indexing of key data)
from didax.api.numpy import reductions as rnp
from didax.api.numpy.array_types import Array
from didax.api.numpy.operands import Operand, as_result, operand
from didax.core import dtypes, lax
from didax.core.dtypes import DType, DTypeLike
from didax.core.trace import Tracer
from didax.core.values import ArrayLike, get_aval

__all__ = [
    "KEY_DTYPE",
    "UINT_DTYPES",
    "UNROLL_FROM",
    "KeyDType",
    "KeyLike",
    "PRNGKey",
    "PRNGKeyArray",
    "Shape",
    "bits",
    "fold_in",
    "key",
    "key_data",
    "key_data_of",
    "random_bits",
    "shape_arg",
    "split",
    "split_impl",
    "threefry2x32",
    "threefry_2x32",
    "wrap_key_data",
]

Shape = tuple[int, ...]
UINT_DTYPES: Final[dict[int, DType]] = {
    8: dtypes.uint8,
    16: dtypes.uint16,
    32: dtypes.uint32,
    64: dtypes.uint64,
}


# --- typed keys -------------------------------------------------------------------------


@final
class KeyDType:
    """The dtype of typed keys: ``key<fry>`` (Threefry-2x32 keys), as JAX prints it."""

    name: Final = "key<fry>"

    def __repr__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KeyDType)

    def __hash__(self) -> int:
        return hash(self.name)


KEY_DTYPE: Final = KeyDType()


@final
class PRNGKeyArray:
    """An array of typed PRNG keys: ``uint32`` key data with one more axis, of size 2.

    Its shape is the data's without the last axis; indexing, ``len`` and
    iteration work on keys. It is a pytree whose one leaf is the data.

    >>> k = key(0)
    >>> k.shape, k.dtype
    ((), key<fry>)
    >>> split(k, 3).shape
    (3,)
    >>> key_data(k)
    Array([0, 0], dtype=uint32)
    """

    __slots__ = ("_data",)

    def __init__(self, data: Any) -> None:
        self._data = data

    @property
    def shape(self) -> Shape:
        return tuple(get_aval(self._data).shape[:-1])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self) -> KeyDType:
        return KEY_DTYPE

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of an unsized key array")
        return self.shape[0]

    def __getitem__(self, index: object) -> PRNGKeyArray:
        if not isinstance(index, tuple):
            index = (index,)
        if any(i is Ellipsis for i in index):
            raise IndexError("key arrays take no Ellipsis: index their axes explicitly")
        return PRNGKeyArray(self._data[(*index, slice(None))])

    def __iter__(self) -> Iterator[PRNGKeyArray]:
        return (self[i] for i in range(len(self)))

    def __eq__(self, other: object) -> Any:
        """Element-wise key equality (both words equal), as JAX's key arrays compare."""
        if not isinstance(other, PRNGKeyArray):
            return NotImplemented
        same = enp.equal(self._data, other._data)
        return rnp.min(same, axis=-1)

    def __ne__(self, other: object) -> Any:
        equal = self.__eq__(other)
        return NotImplemented if equal is NotImplemented else enp.logical_not(equal)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        data = self._data
        if isinstance(data, Tracer):
            return f"PRNGKeyArray(shape={self.shape}, traced)"
        return f"Array({self.shape}, dtype=key<fry>) overlaying:\n{np.asarray(data)}"


_jax_tree_util.register_pytree_node(
    PRNGKeyArray, lambda k: ((k._data,), None), lambda _, leaves: PRNGKeyArray(leaves[0])
)


# A key of either form: typed keys, or raw ``uint32[..., 2]`` key data.
KeyLike: TypeAlias = PRNGKeyArray | ArrayLike


def key_data_of(name: str, k: KeyLike, allow_batched: bool = False) -> tuple[Operand, bool]:
    """The raw ``uint32[..., 2]`` data of a key of either form, and whether it was typed."""
    typed = isinstance(k, PRNGKeyArray)
    data = k._data if isinstance(k, PRNGKeyArray) else operand(k)
    aval = get_aval(data)
    if aval.dtype != dtypes.uint32 or aval.ndim == 0 or aval.shape[-1] != 2:
        raise TypeError(
            f"{name}: a PRNG key is a uint32 array of shape (..., 2) (from PRNGKey) or a "
            f"typed key (from key), got {aval.str_short()}"
        )
    if not allow_batched and aval.ndim > 1:
        raise ValueError(
            f"{name} accepts a single key, but was given a key array of shape "
            f"{aval.shape[:-1]} != (). Use didax.vmap for batching."
        )
    return data, typed


def shape_arg(shape: Any, name: str) -> Shape:
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        out = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"{name}: shape must be a sequence of integers, got {shape!r}") from None
    if any(s < 0 for s in out):
        raise ValueError(f"{name}: shape {out} has a negative size")
    return out


# --- Threefry-2x32 -----------------------------------------------------------------------

_ROTATIONS: Final = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY: Final = 0x1BD11BDA


# From this many counters on, the rounds are unrolled (see ``threefry2x32``).
UNROLL_FROM: Final = 2**14


def threefry2x32(
    k1: ArrayLike, k2: ArrayLike, x1: ArrayLike, x2: ArrayLike, *, unrolled: bool | None = None
) -> tuple[Array, Array]:
    """The Threefry-2x32 hash (20 rounds) of the counter words ``x1, x2`` under key ``k1, k2``.

    Every operand is ``uint32``; the counters have one shape, the key words
    that shape or none (scalars, added to every element). The result is the
    two hashed words. The five groups of four rounds are a ``fori_loop``
    (JAX's lowering on CPUs), or unrolled (``unrolled=True``; by default
    from ``UNROLL_FROM`` counters on). XLA compiles the loop faster when
    several hashes share a program, and runs the unrolled rounds faster
    (docs/performance.md has the figures); the bits are the same. The
    reference test vector of Salmon et al. (2011):

    >>> u = lambda v: np.asarray(v, np.uint32)
    >>> [hex(int(w)) for w in threefry2x32(u(0x13198A2E), u(0x03707344),
    ...                                    u(0x243F6A88), u(0x85A308D3))]
    ['0xc4923a9c', '0x483df7a0']
    """
    shape = get_aval(x1).shape
    u32 = dtypes.uint32

    def spread(c: Any) -> Array:
        """A ``uint32`` scalar (a Python int or a traced scalar) at every element."""
        if isinstance(c, int):
            result: Array = lax.full(shape, c, u32)
            return result
        out: Array = lax.broadcast_in_dim(c, shape, ()) if get_aval(c).shape != shape else c
        return out

    def rounds(v0: Array, v1: Array, rotations: Sequence[Any]) -> tuple[Array, Array]:
        for r in rotations:
            v0 = lax.add(v0, v1)
            left = lax.sub(np.asarray(32, u32), r) if not isinstance(r, int) else 32 - r
            rotated = lax.or_(
                lax.shift_left(v1, spread(r)), lax.shift_right_logical(v1, spread(left))
            )
            v1 = lax.bitwise_xor(v0, rotated)
        return v0, v1

    # The key words stay as small as they come (scalars, usually): the loop
    # carries them, and each use broadcasts them into the element-wise op.
    parity: ArrayLike = np.asarray(_PARITY, u32)
    if get_aval(k1).shape:
        parity = lax.full(get_aval(k1).shape, _PARITY, u32)
    ks = (k1, k2, lax.bitwise_xor(lax.bitwise_xor(k1, k2), parity))
    v0, v1 = lax.add(x1, spread(ks[0])), lax.add(x2, spread(ks[1]))
    if unrolled is None:
        unrolled = math.prod(shape) >= UNROLL_FROM
    if unrolled:
        for i in range(5):
            v0, v1 = rounds(v0, v1, _ROTATIONS[i % 2])
            v0 = lax.add(v0, spread(ks[(i + 1) % 3]))
            v1 = lax.add(lax.add(v1, spread(ks[(i + 2) % 3])), spread(i + 1))
        return v0, v1

    def step(i: Any, state: tuple[Array, ...]) -> tuple[Array, ...]:
        # Group i: rotations R[i % 2], then the key words rotated by i + 1.
        v0, v1, ka, kb, kc = state
        even = lax.eq(lax.rem(i, 2), 0)
        rotations = [
            lax.select(even, np.asarray(r0, u32), np.asarray(r1, u32))
            for r0, r1 in zip(*_ROTATIONS, strict=True)
        ]
        v0, v1 = rounds(v0, v1, rotations)
        count = lax.convert_element_type(lax.add(i, 1), u32)
        v0 = lax.add(v0, spread(ka))
        v1 = lax.add(lax.add(v1, spread(kb)), spread(count))
        return v0, v1, kb, kc, ka

    v0, v1, *_ = fori_loop(0, 5, step, (v0, v1, ks[1], ks[2], ks[0]))
    return v0, v1


def _hash(key_data: ArrayLike, hi: ArrayLike, lo: ArrayLike) -> tuple[Array, Array]:
    """``threefry2x32`` of the counters ``hi, lo`` under one key's data."""
    k1 = lax.reshape(lax.slice(key_data, (0,), (1,)), ())
    k2 = lax.reshape(lax.slice(key_data, (1,), (2,)), ())
    return threefry2x32(k1, k2, hi, lo)


def _iota_2x32(shape: Shape) -> tuple[Array, Array]:
    """The row-major 64-bit counter of each element of ``shape``, as (high, low) words."""
    size = math.prod(shape)
    if size > 2**32:
        raise NotImplementedError(f"random bits for more than 2**32 elements (shape {shape})")
    lo = lax.reshape(lax.iota(dtypes.uint32, size), shape)
    return lax.full(shape, 0, dtypes.uint32), lo


def threefry_2x32(keypair: KeyLike, count: ArrayLike) -> Array:
    """JAX's ``threefry_2x32``: hash a ``uint32`` array of counts, its halves as the two words.

    >>> threefry_2x32(PRNGKey(0), np.arange(4, dtype=np.uint32))
    Array([4146024105,  967050713, 2718843009, 1272950319], dtype=uint32)
    """
    counts = operand(count)
    aval = get_aval(counts)
    if aval.dtype != dtypes.uint32:
        raise TypeError(f"threefry_2x32 requires uint32 counts, got {aval.dtype}")
    data, _ = key_data_of("threefry_2x32", keypair)
    flat = lax.reshape(counts, (aval.size,))
    if aval.size % 2:
        flat = lax.concatenate([flat, np.zeros(1, np.uint32)], 0)
    half = get_aval(flat).shape[0] // 2
    x1, x2 = lax.slice(flat, (0,), (half,)), lax.slice(flat, (half,), (2 * half,))
    y1, y2 = _hash(data, x1, x2)
    out = lax.concatenate([y1, y2], 0)
    if aval.size % 2:
        out = lax.slice(out, (0,), (aval.size,))
    return as_result(lax.reshape(out, aval.shape))


def random_bits(key_data: Array, bit_width: int, shape: Shape) -> Array:
    """Uniform ``uint{bit_width}`` bits of ``shape`` (JAX's partitionable Threefry bits)."""
    hi, lo = _iota_2x32(shape)
    bits1, bits2 = _hash(key_data, hi, lo)
    dtype = UINT_DTYPES[bit_width]
    if bit_width == 64:
        wide_hi = lax.convert_element_type(bits1, dtype)
        wide_lo = lax.convert_element_type(bits2, dtype)
        result: Array = lax.or_(lax.shift_left(wide_hi, lax.full(shape, 32, dtype)), wide_lo)
        return result
    mixed = lax.bitwise_xor(bits1, bits2)
    out: Array = mixed if bit_width == 32 else lax.convert_element_type(mixed, dtype)
    return out


def split_impl(key_data: Array, shape: Shape) -> Array:
    hi, lo = _iota_2x32(shape)
    bits1, bits2 = _hash(key_data, hi, lo)
    n = len(shape)
    out: Array = lax.concatenate([lax.expand_dims(bits1, (n,)), lax.expand_dims(bits2, (n,))], n)
    return out


def _fold_in_impl(key_data: Array, data: Array) -> Array:
    # JAX hashes the data's own seed key (0, data) as a two-element count.
    y1, y2 = _hash(key_data, np.zeros((), np.uint32), data)
    out: Array = lax.concatenate([lax.expand_dims(y1, (0,)), lax.expand_dims(y2, (0,))], 0)
    return out


_split_jit: Final = jit(split_impl, static_argnums=1)
_fold_in_jit: Final = jit(_fold_in_impl)
_random_bits_jit: Final = jit(random_bits, static_argnums=(1, 2))


# --- keys ---------------------------------------------------------------------------------


def _seed_impl(seed: Array) -> Array:
    # A 64-bit seed is bit-cast into the two words (a narrower one: padded with zeros).
    aval = get_aval(seed)
    width = 8 * aval.dtype.itemsize
    hi = lax.convert_element_type(
        lax.shift_right_logical(seed, lax.full((), 32, aval.dtype))
        if width > 32
        else lax.full((), 0, aval.dtype),
        dtypes.uint32,
    )
    lo = lax.convert_element_type(seed, dtypes.uint32)
    out: Array = lax.concatenate([lax.expand_dims(hi, (0,)), lax.expand_dims(lo, (0,))], 0)
    return out


_seed_jit: Final = jit(_seed_impl)


def _seed(name: str, seed: KeyLike) -> Array:
    if isinstance(seed, PRNGKeyArray):
        raise TypeError(f"{name} accepts a scalar seed, but was given a PRNG key.")
    if isinstance(seed, (bool, np.bool_)):
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    if isinstance(seed, int):
        # As JAX: a Python int is an int64 seed, so large ints do not overflow.
        seed = np.int64(seed)
    value = operand(seed)
    aval = get_aval(value)
    if aval.ndim:
        raise TypeError(
            f"{name} accepts a scalar seed, but was given an array of shape {aval.shape} != (). "
            "Use didax.vmap for batching"
        )
    if not dtypes.is_integer(aval.dtype):
        raise TypeError(f"PRNG key seed must be an integer; got {aval.str_short()}")
    out: Array = _seed_jit(value)
    return out


def PRNGKey(seed: ArrayLike) -> Array:
    """A raw key, ``uint32[2]``, from an integer seed (its 64 bits, as two words).

    >>> PRNGKey(42)
    Array([ 0, 42], dtype=uint32)
    """
    return _seed("PRNGKey", seed)


def key(seed: ArrayLike) -> PRNGKeyArray:
    """A typed key (shape ``()``, dtype ``key<fry>``) from an integer seed.

    >>> key_data(key(42))
    Array([ 0, 42], dtype=uint32)
    """
    return PRNGKeyArray(_seed("key", seed))


def key_data(keys: KeyLike) -> Array:
    """The ``uint32[..., 2]`` data of keys (a raw key is its own data)."""
    data, _ = key_data_of("key_data", keys, allow_batched=True)
    return as_result(data)


def wrap_key_data(key_bits_array: KeyLike) -> PRNGKeyArray:
    """Typed keys over ``uint32[..., 2]`` key data (of shape ``key_bits_array.shape[:-1]``)."""
    data, typed = key_data_of("wrap_key_data", key_bits_array, allow_batched=True)
    if typed:
        raise TypeError("wrap_key_data takes key data (uint32), not typed keys")
    return PRNGKeyArray(as_result(data))


def _returned_keys(data: Array, typed: bool) -> Array | PRNGKeyArray:
    return PRNGKeyArray(data) if typed else as_result(data)


def split(key: KeyLike, num: int | Sequence[int] = 2) -> Array | PRNGKeyArray:
    """``num`` new keys (a leading axis; or a shape, for a tuple ``num``) from one key.

    >>> split(PRNGKey(0))
    Array([[1797259609, 2579123966],
           [ 928981903, 3453687069]], dtype=uint32)
    """
    data, typed = key_data_of("split", key)
    shape = shape_arg(num, "split")
    return _returned_keys(_split_jit(data, shape), typed)


def fold_in(key: KeyLike, data: ArrayLike) -> Array | PRNGKeyArray:
    """A new key from ``key`` and an integer ``data`` (taken as ``uint32``).

    >>> fold_in(PRNGKey(0), 1)
    Array([ 928981903, 3453687069], dtype=uint32)
    """
    raw, typed = key_data_of("fold_in", key)
    if np.ndim(data) if not isinstance(data, Tracer) else get_aval(data).ndim:
        raise TypeError(
            f"fold_in accepts a scalar, but was given an array of shape {np.shape(data)} != (). "
            "Use didax.vmap for batching."
        )
    if isinstance(data, int) and not isinstance(data, bool):
        if not 0 <= data < 2**32:
            # As JAX's (NumPy's): a Python int must fit the uint32 it becomes.
            raise OverflowError(f"Python integer {data} out of bounds for uint32")
        value: ArrayLike = np.asarray(data, np.uint32)
    elif isinstance(data, np.integer):
        value = np.asarray(data).astype(np.uint32)  # wraps, as a conversion does
    else:
        value = lax.convert_element_type(operand(data), dtypes.uint32)
    return _returned_keys(_fold_in_jit(raw, value), typed)


# --- bits and uniform floats -----------------------------------------------------------------


def bits(key: KeyLike, shape: Sequence[int] = (), dtype: DTypeLike = None) -> Array:
    """Uniform random bits: unsigned integers of ``dtype`` (the default uint, uint64 with x64).

    >>> bits(PRNGKey(0), (2,), np.uint32)
    Array([4070199207, 4202968722], dtype=uint32)
    """
    data, _ = key_data_of("bits", key)
    dt = dtypes.default_uint() if dtype is None else dtypes.canonicalize(dtype)
    if not dtypes.is_unsigned(dt):
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dt}")
    out: Array = _random_bits_jit(data, 8 * dt.itemsize, shape_arg(shape, "bits"))
    return out
