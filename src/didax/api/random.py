"""didax.random: JAX's counter-based PRNG (Threefry-2x32), bit for bit.

A key is 64 bits, two ``uint32``; random bits are the Threefry-2x32 hash
of a counter under the key, and ``split``/``fold_in`` hash counters (or
data) into new keys. Everything is computed by ordinary primitives (adds,
xors, shifts, bit casts), so it traces, jits, vmaps and lowers like any
other code, and the numbers are JAX's (``jax_threefry_partitionable``
on, JAX's default): the same keys, bits and samples for the same seeds,
shapes and dtypes.

Design rules:
- Keys come in JAX's two forms: raw ``uint32[..., 2]`` arrays
  (``PRNGKey``) and typed keys (``key``), a ``PRNGKeyArray`` wrapping such
  data with the key shape (the data's shape without its last axis). Every
  function takes both; ``split`` and ``fold_in`` return the form they got.
  A typed key is a pytree (its data the one leaf), so it passes through
  ``jit`` and ``vmap`` as JAX's key arrays do.
- The samplers follow JAX's formulas operation for operation, and run
  jitted as JAX's do (``_uniform``, ``_normal``, ... are ``jit``-ted
  functions with static shapes and dtypes): eager calls then compute with
  XLA, as JAX's, so that floating-point results (``log``, ``erf_inv``)
  agree to the bit, not only within NumPy's rounding.
- The counters are JAX's partitionable ones: element ``i`` (row-major) of
  an output of shape ``S`` hashes the 64-bit counter ``i`` split in two
  words, and the two hashed words are combined per element (``xor`` for
  32 bits, concatenated for 64).
- Permutations sort random keys, as JAX's ``_shuffle``; ``top_k`` (for
  sampling without replacement) is a stable sort.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterator, Sequence
from typing import Any, Final, final

import numpy as np
from jax import tree_util as _jax_tree_util

from didax.api.control_flow import fori_loop
from didax.api.jit import jit
from didax.api.numpy import elementwise as enp
from didax.api.numpy import indexing, searching
from didax.api.numpy import manipulation as mnp
from didax.api.numpy import methods as _methods  # noqa: F401  (indexing of key data)
from didax.api.numpy import reductions as rnp
from didax.api.numpy.operands import as_result, asarray, broadcast_shapes, operand
from didax.core import dtypes, lax
from didax.core.dtypes import DType
from didax.core.trace import Tracer
from didax.core.values import ArrayLike, get_aval

__all__ = [
    "PRNGKeyArray",
    "PRNGKey",
    "key",
    "key_data",
    "wrap_key_data",
    "split",
    "fold_in",
    "bits",
    "uniform",
    "normal",
    "truncated_normal",
    "bernoulli",
    "randint",
    "categorical",
    "permutation",
    "choice",
    "gumbel",
    "threefry_2x32",
]

Array = Any  # a didax Array, or a tracer under a transformation
Shape = tuple[int, ...]
_UINT_DTYPES: Final[dict[int, DType]] = {
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

    def __getitem__(self, index: Any) -> PRNGKeyArray:
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


def _key_data_of(name: str, k: Any, allow_batched: bool = False) -> tuple[Array, bool]:
    """The raw ``uint32[..., 2]`` data of a key of either form, and whether it was typed."""
    typed = isinstance(k, PRNGKeyArray)
    data = k._data if typed else operand(k)
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


def _shape_arg(shape: Any, name: str) -> Shape:
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        out = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"{name}: shape must be a sequence of integers, got {shape!r}") from None
    if any(s < 0 for s in out):
        raise ValueError(f"{name}: shape {out} has a negative size")
    return out


def _check_shape(name: str, shape: Shape, *param_shapes: Shape) -> None:
    """JAX's rule: parameters broadcast to ``shape``, and broadcasting gives ``shape``."""
    if param_shapes:
        got = broadcast_shapes(name, shape, *param_shapes)
        if got != shape:
            raise ValueError(
                f"{name} parameter shapes must be broadcast-compatible with shape argument, "
                f"and the result of broadcasting the shapes must equal the shape argument, "
                f"but got result {got} for shape argument {shape}."
            )


def _float_dtype(name: str, dtype: Any) -> DType:
    dt = dtypes.canonicalize(float if dtype is None else dtype)
    if not dtypes.is_float(dt):
        raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {dt}")
    return dt


# --- Threefry-2x32 -----------------------------------------------------------------------

_ROTATIONS: Final = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY: Final = 0x1BD11BDA


# From this many counters on, the rounds are unrolled (see ``threefry2x32``).
UNROLL_FROM: Final = 2**14


def threefry2x32(
    k1: Array, k2: Array, x1: Array, x2: Array, *, unrolled: bool | None = None
) -> tuple[Array, Array]:
    """The Threefry-2x32 hash (20 rounds) of the counter words ``x1, x2`` under key ``k1, k2``.

    Every operand is ``uint32``; the counters have one shape, the key words
    that shape or none (scalars, added to every element). The result is the
    two hashed words. The five groups of four rounds are a ``fori_loop``
    (JAX's lowering on CPUs), or unrolled (``unrolled=True``; by default
    from ``UNROLL_FROM`` counters on). XLA compiles the loop faster when
    several hashes share a program (``randint``'s three: 0.4 s against
    0.8 s), and runs the unrolled rounds about four times faster (a million
    counters: 2 ms against 8 ms on a CPU); the bits are the same. The
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
            return lax.full(shape, c, u32)
        return lax.broadcast_in_dim(c, shape, ()) if get_aval(c).shape != shape else c

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


def _hash(key_data: Array, hi: Array, lo: Array) -> tuple[Array, Array]:
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


def threefry_2x32(keypair: Array, count: Array) -> Array:
    """JAX's ``threefry_2x32``: hash a ``uint32`` array of counts, its halves as the two words.

    >>> threefry_2x32(PRNGKey(0), np.arange(4, dtype=np.uint32))
    Array([4146024105,  967050713, 2718843009, 1272950319], dtype=uint32)
    """
    count = operand(count)
    aval = get_aval(count)
    if aval.dtype != dtypes.uint32:
        raise TypeError(f"threefry_2x32 requires uint32 counts, got {aval.dtype}")
    data, _ = _key_data_of("threefry_2x32", keypair)
    flat = lax.reshape(count, (aval.size,))
    if aval.size % 2:
        flat = lax.concatenate([flat, np.zeros(1, np.uint32)], 0)
    half = get_aval(flat).shape[0] // 2
    x1, x2 = lax.slice(flat, (0,), (half,)), lax.slice(flat, (half,), (2 * half,))
    y1, y2 = _hash(data, x1, x2)
    out = lax.concatenate([y1, y2], 0)
    if aval.size % 2:
        out = lax.slice(out, (0,), (aval.size,))
    return as_result(lax.reshape(out, aval.shape))


def _random_bits(key_data: Array, bit_width: int, shape: Shape) -> Array:
    """Uniform ``uint{bit_width}`` bits of ``shape`` (JAX's partitionable Threefry bits)."""
    hi, lo = _iota_2x32(shape)
    bits1, bits2 = _hash(key_data, hi, lo)
    dtype = _UINT_DTYPES[bit_width]
    if bit_width == 64:
        wide_hi = lax.convert_element_type(bits1, dtype)
        wide_lo = lax.convert_element_type(bits2, dtype)
        return lax.or_(lax.shift_left(wide_hi, lax.full(shape, 32, dtype)), wide_lo)
    mixed = lax.bitwise_xor(bits1, bits2)
    return mixed if bit_width == 32 else lax.convert_element_type(mixed, dtype)


def _split_impl(key_data: Array, shape: Shape) -> Array:
    hi, lo = _iota_2x32(shape)
    bits1, bits2 = _hash(key_data, hi, lo)
    n = len(shape)
    return lax.concatenate([lax.expand_dims(bits1, (n,)), lax.expand_dims(bits2, (n,))], n)


def _fold_in_impl(key_data: Array, data: Array) -> Array:
    # JAX hashes the data's own seed key (0, data) as a two-element count.
    y1, y2 = _hash(key_data, np.zeros((), np.uint32), data)
    return lax.concatenate([lax.expand_dims(y1, (0,)), lax.expand_dims(y2, (0,))], 0)


_split_jit: Final = jit(_split_impl, static_argnums=1)
_fold_in_jit: Final = jit(_fold_in_impl)
_random_bits_jit: Final = jit(_random_bits, static_argnums=(1, 2))


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
    return lax.concatenate([lax.expand_dims(hi, (0,)), lax.expand_dims(lo, (0,))], 0)


_seed_jit: Final = jit(_seed_impl)


def _seed(name: str, seed: Any) -> Array:
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
    return _seed_jit(value)


def PRNGKey(seed: Any) -> Array:
    """A raw key, ``uint32[2]``, from an integer seed (its 64 bits, as two words).

    >>> PRNGKey(42)
    Array([ 0, 42], dtype=uint32)
    """
    return _seed("PRNGKey", seed)


def key(seed: Any) -> PRNGKeyArray:
    """A typed key (shape ``()``, dtype ``key<fry>``) from an integer seed.

    >>> key_data(key(42))
    Array([ 0, 42], dtype=uint32)
    """
    return PRNGKeyArray(_seed("key", seed))


def key_data(keys: Any) -> Array:
    """The ``uint32[..., 2]`` data of keys (a raw key is its own data)."""
    data, _ = _key_data_of("key_data", keys, allow_batched=True)
    return as_result(data)


def wrap_key_data(key_bits_array: Any) -> PRNGKeyArray:
    """Typed keys over ``uint32[..., 2]`` key data (of shape ``key_bits_array.shape[:-1]``)."""
    data, typed = _key_data_of("wrap_key_data", key_bits_array, allow_batched=True)
    if typed:
        raise TypeError("wrap_key_data takes key data (uint32), not typed keys")
    return PRNGKeyArray(as_result(data))


def _returned_keys(data: Array, typed: bool) -> Any:
    return PRNGKeyArray(data) if typed else as_result(data)


def split(key: Any, num: int | Sequence[int] = 2) -> Any:
    """``num`` new keys (a leading axis; or a shape, for a tuple ``num``) from one key.

    >>> split(PRNGKey(0))
    Array([[1797259609, 2579123966],
           [ 928981903, 3453687069]], dtype=uint32)
    """
    data, typed = _key_data_of("split", key)
    shape = _shape_arg(num, "split")
    return _returned_keys(_split_jit(data, shape), typed)


def fold_in(key: Any, data: Any) -> Any:
    """A new key from ``key`` and an integer ``data`` (taken as ``uint32``).

    >>> fold_in(PRNGKey(0), 1)
    Array([ 928981903, 3453687069], dtype=uint32)
    """
    raw, typed = _key_data_of("fold_in", key)
    if np.ndim(data) if not isinstance(data, Tracer) else get_aval(data).ndim:
        raise TypeError(
            f"fold_in accepts a scalar, but was given an array of shape {np.shape(data)} != (). "
            "Use didax.vmap for batching."
        )
    if isinstance(data, int) and not isinstance(data, bool):
        if not 0 <= data < 2**32:
            # As JAX's (NumPy's): a Python int must fit the uint32 it becomes.
            raise OverflowError(f"Python integer {data} out of bounds for uint32")
        value: Any = np.asarray(data, np.uint32)
    elif isinstance(data, np.integer):
        value = np.asarray(data).astype(np.uint32)  # wraps, as a conversion does
    else:
        value = lax.convert_element_type(operand(data), dtypes.uint32)
    return _returned_keys(_fold_in_jit(raw, value), typed)


# --- bits and uniform floats -----------------------------------------------------------------


def bits(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Array:
    """Uniform random bits: unsigned integers of ``dtype`` (the default uint, uint64 with x64).

    >>> bits(PRNGKey(0), (2,), np.uint32)
    Array([4070199207, 4202968722], dtype=uint32)
    """
    data, _ = _key_data_of("bits", key)
    dt = dtypes.default_uint() if dtype is None else dtypes.canonicalize(dtype)
    if not dtypes.is_unsigned(dt):
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dt}")
    return _random_bits_jit(data, 8 * dt.itemsize, _shape_arg(shape, "bits"))


def _to_rank(x: Array, shape: Shape) -> Array:
    """``x`` broadcast to ``shape`` (NumPy's rule; JAX's lax broadcasts size-1 axes alike)."""
    return mnp.broadcast_to(x, shape) if get_aval(x).shape != shape else x


def _uniform_impl(
    key_data: Array, minval: Array, maxval: Array, shape: Shape, dtype: DType
) -> Array:
    minval = _to_rank(lax.convert_element_type(minval, dtype), shape)
    maxval = _to_rank(lax.convert_element_type(maxval, dtype), shape)
    finfo = _finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = 8 if nmant < 8 else nbits
    raw = _random_bits(key_data, rng_bits, shape)
    uint_dtype = _UINT_DTYPES[nbits]
    if rng_bits != nbits:
        raw = lax.convert_element_type(raw, uint_dtype)
    # Random mantissa bits under the exponent of 1.0: a float in [1, 2), less one.
    float_bits = lax.or_(
        lax.shift_right_logical(raw, lax.full(shape, rng_bits - nmant, uint_dtype)),
        lax.full(shape, int(np.array(1.0, dtype).view(uint_dtype)), uint_dtype),
    )
    floats = lax.sub(lax.bitcast_convert_type(float_bits, dtype), lax.full(shape, 1.0, dtype))
    scaled = lax.add(lax.mul(floats, lax.sub(maxval, minval)), minval)
    return lax.max(minval, scaled)


def _finfo(dtype: DType) -> Any:
    """NumPy's ``finfo`` (ml_dtypes' for bfloat16)."""
    if dtype == dtypes.bfloat16:
        import ml_dtypes

        return ml_dtypes.finfo(dtype)
    return np.finfo(dtype)


_uniform_jit: Final = jit(_uniform_impl, static_argnums=(3, 4))


def _bound(x: Any) -> Any:
    """A minval/maxval argument as an operand (Python scalars weak, as JAX's)."""
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) else operand(x)


def uniform(
    key: Any,
    shape: Sequence[int] = (),
    dtype: Any = None,
    minval: Any = 0.0,
    maxval: Any = 1.0,
) -> Array:
    """Uniform floats in ``[minval, maxval)`` of ``shape`` and ``dtype`` (default float64).

    >>> uniform(PRNGKey(0), (3,))
    Array([0.947667  , 0.9785799 , 0.33229148], dtype=float32)
    """
    data, _ = _key_data_of("uniform", key)
    dt = _float_dtype("uniform", dtype)
    return _uniform_jit(data, _bound(minval), _bound(maxval), _shape_arg(shape, "uniform"), dt)


# --- normal, truncated normal ----------------------------------------------------------------


def _normal_impl(key_data: Array, shape: Shape, dtype: DType) -> Array:
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = _uniform_impl(key_data, lo, np.array(1.0, dtype), shape, dtype)
    return lax.mul(lax.full(shape, np.sqrt(2), dtype), lax.erf_inv(u))


_normal_jit: Final = jit(_normal_impl, static_argnums=(1, 2))


def normal(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Array:
    """Standard normal floats of ``shape`` and ``dtype``: ``sqrt(2) * erf_inv(u)``, u uniform."""
    data, _ = _key_data_of("normal", key)
    return _normal_jit(data, _shape_arg(shape, "normal"), _float_dtype("normal", dtype))


def _truncated_normal_impl(
    key_data: Array, lower: Array, upper: Array, shape: Shape, dtype: DType
) -> Array:
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    sqrt2 = float(np.sqrt(2))  # rounded to dtype by lax.full, as JAX's np.array(.., dtype)
    a = lax.erf(lax.div(lower, lax.full(get_aval(lower).shape, sqrt2, dtype)))
    b = lax.erf(lax.div(upper, lax.full(get_aval(upper).shape, sqrt2, dtype)))
    u = _uniform_impl(key_data, a, b, shape, dtype)
    out = lax.mul(lax.full(shape, sqrt2, dtype), lax.erf_inv(u))
    low = _to_rank(lax.nextafter(lax.stop_gradient(lower), np.inf), shape)
    high = _to_rank(lax.nextafter(lax.stop_gradient(upper), -np.inf), shape)
    # jnp.clip: the maximum with the lower bound, then the minimum with the upper one.
    return lax.min(high, lax.max(low, out))


_truncated_normal_jit: Final = jit(_truncated_normal_impl, static_argnums=(3, 4))


def _shape_of(x: Any) -> Shape:
    return tuple(get_aval(x).shape) if not isinstance(x, (int, float)) else ()


def truncated_normal(
    key: Any, lower: Any, upper: Any, shape: Sequence[int] | None = None, dtype: Any = None
) -> Array:
    """Standard normal floats truncated to the open interval ``(lower, upper)``."""
    data, _ = _key_data_of("truncated_normal", key)
    dt = _float_dtype("truncated_normal", dtype)
    lo, hi = _bound(lower), _bound(upper)
    if shape is None:
        out_shape = broadcast_shapes("truncated_normal", _shape_of(lo), _shape_of(hi))
    else:
        out_shape = _shape_arg(shape, "truncated_normal")
        _check_shape("truncated_normal", out_shape, _shape_of(lo), _shape_of(hi))
    return _truncated_normal_jit(data, lo, hi, out_shape, dt)


# --- bernoulli, randint ---------------------------------------------------------------------


def _bernoulli_impl(key_data: Array, p: Array, shape: Shape, mode: str) -> Array:
    dtype = get_aval(p).dtype
    p = _to_rank(p, shape)
    if mode == "high":
        u = _uniform_impl(key_data, 0.0, 1.0, (2, *shape), dtype)
        u1 = lax.reshape(lax.slice(u, (0,) * (len(shape) + 1), (1, *shape)), shape)
        u2 = lax.reshape(lax.slice(u, (1,) + (0,) * len(shape), (2, *shape)), shape)
        # The resolution of a uniform sample is 2 ** -nmant.
        u2 = lax.mul(u2, lax.full(shape, 2.0 ** -_finfo(dtype).nmant, dtype))
        return lax.lt(u2, lax.sub(p, u1))
    return lax.lt(_uniform_impl(key_data, 0.0, 1.0, shape, dtype), p)


_bernoulli_jit: Final = jit(_bernoulli_impl, static_argnums=(2, 3))


def bernoulli(
    key: Any, p: Any = 0.5, shape: Sequence[int] | None = None, mode: str = "low"
) -> Array:
    """Booleans that are True with probability ``p`` (a float, or floats broadcasting to shape).

    >>> bernoulli(PRNGKey(0), 0.5, (4,))
    Array([False, False,  True,  True], dtype=bool)
    """
    if mode not in ("high", "low"):
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    data, _ = _key_data_of("bernoulli", key)
    value = operand(p)
    aval = get_aval(value)
    if not dtypes.is_float(aval.dtype):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {aval.dtype}.")
    if shape is None:
        out_shape = tuple(aval.shape)
    else:
        out_shape = _shape_arg(shape, "bernoulli")
        _check_shape("bernoulli", out_shape, aval.shape)
    return _bernoulli_jit(data, lax.convert_element_type(value, aval.dtype), out_shape, mode)


def _convert_and_clip_integer(val: Array, dtype: DType) -> Array:
    """``val`` as ``dtype``, clipped to its range instead of wrapping (JAX's helper)."""
    src = get_aval(val).dtype
    lo = max(int(np.iinfo(dtype.name).min), int(np.iinfo(src.name).min))
    hi = min(int(np.iinfo(dtype.name).max), int(np.iinfo(src.name).max))
    clipped = lax.min(lax.max(val, lax.full_like(val, lo)), lax.full_like(val, hi))
    return lax.convert_element_type(clipped, dtype)


def _randint_impl(
    key_data: Array, minval: Array, maxval: Array, shape: Shape, dtype: DType
) -> Array:
    nbits = 8 * dtype.itemsize
    # maxval beyond the dtype (randint(k, s, 0, 256, uint8)) makes the span one larger.
    top = min(int(np.iinfo(dtype.name).max), int(np.iinfo(get_aval(maxval).dtype.name).max))
    maxval_out_of_range = lax.gt(maxval, lax.full_like(maxval, top))
    minval = _to_rank(_convert_and_clip_integer(minval, dtype), shape)
    maxval = _to_rank(_convert_and_clip_integer(maxval, dtype), shape)
    maxval_out_of_range = _to_rank(maxval_out_of_range, shape)
    k1, k2 = _split_pair(key_data)
    higher_bits = _random_bits(k1, nbits, shape)
    lower_bits = _random_bits(k2, nbits, shape)
    unsigned = _UINT_DTYPES[nbits]
    span = lax.convert_element_type(lax.sub(maxval, minval), unsigned)
    one = lax.full(shape, 1, unsigned)
    # maxval <= minval gives minval (span 1).
    span = lax.select(lax.le(maxval, minval), one, span)
    span = lax.select(
        lax.and_(maxval_out_of_range, lax.gt(maxval, minval)), lax.add(span, one), span
    )
    # (a * 2**nbits + b) % span without overflow: (a % span) * (2**nbits % span) + b % span.
    multiplier = lax.rem(lax.full(shape, 2 ** (nbits // 2), unsigned), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier), lax.rem(lower_bits, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


_randint_jit: Final = jit(_randint_impl, static_argnums=(3, 4))


def _integer_bound(x: Any) -> Array:
    v = asarray(x)
    if not dtypes.is_integer(get_aval(v).dtype):
        v = lax.convert_element_type(v, dtypes.default_int())
    return v


def randint(key: Any, shape: Sequence[int], minval: Any, maxval: Any, dtype: Any = None) -> Array:
    """Uniform integers in ``[minval, maxval)`` (dtype: the default int).

    >>> randint(PRNGKey(0), (4,), 0, 10)
    Array([9, 0, 2, 3], dtype=int32)
    """
    data, _ = _key_data_of("randint", key)
    dt = dtypes.canonicalize(int if dtype is None else dtype)
    if not dtypes.is_integer(dt):
        raise TypeError(f"randint only accepts integer dtypes, got {dt}")
    out_shape = _shape_arg(shape, "randint")
    lo, hi = _integer_bound(minval), _integer_bound(maxval)
    _check_shape("randint", out_shape, get_aval(lo).shape, get_aval(hi).shape)
    if dt.itemsize < 4:
        # Sampled in 32 bits, as JAX, to keep the modulus bias small.
        info = np.iinfo(dt.name)
        i32 = dtypes.int32
        lo = enp.clip(lax.convert_element_type(lo, i32), int(info.min), int(info.max))
        hi = enp.clip(lax.convert_element_type(hi, i32), int(info.min), int(info.max) + 1)
        out = _randint_jit(data, lo, hi, out_shape, i32)
        return as_result(lax.convert_element_type(out, dt))
    return _randint_jit(data, lo, hi, out_shape, dt)


def _split_pair(key_data: Array) -> tuple[Array, Array]:
    keys = _split_impl(key_data, (2,))
    first = lax.reshape(lax.slice(keys, (0, 0), (1, 2)), (2,))
    second = lax.reshape(lax.slice(keys, (1, 0), (2, 2)), (2,))
    return first, second


# --- gumbel, categorical ------------------------------------------------------------------------


def _safe_int_to_float(hi: Array, lo: Array) -> Array:
    """Two words of bits as a float32 in (0, 1) with all its precision (JAX's helper)."""
    shape = get_aval(hi).shape
    u32 = dtypes.uint32

    def c(v: int) -> Array:
        return lax.full(shape, v, u32)

    nbits, nmant, minexp = 32, 23, -126
    hiclz, loclz = lax.clz(hi), lax.clz(lo)
    hi_is_zero = lax.eq(hiclz, c(32))
    mantissa = lax.or_(
        lax.shift_left(hi, hiclz),
        lax.select(
            hi_is_zero,
            lax.shift_left(lo, loclz),
            lax.shift_right_logical(lo, lax.sub(c(nbits), hiclz)),
        ),
    )
    mantissa = lax.shift_right_logical(mantissa, c(nbits - nmant - 1))
    mantissa = lax.and_(mantissa, c((1 << nmant) - 1))
    exp = lax.shift_left(
        lax.sub(c(-minexp), lax.select(hi_is_zero, lax.add(c(32), loclz), hiclz)), c(nmant)
    )
    exp = lax.and_(exp, c((1 << (nbits - 2)) - (1 << (nmant - 1))))
    return lax.bitcast_convert_type(lax.or_(exp, mantissa), dtypes.float32)


def _gumbel_impl(key_data: Array, shape: Shape, dtype: DType, mode: str) -> Array:
    finfo = _finfo(dtype)
    if dtype == dtypes.float32 and mode == "highest":
        raw = _random_bits(key_data, 32, (2, *shape))
        n = len(shape)
        b0 = lax.reshape(lax.slice(raw, (0,) * (n + 1), (1, *shape)), shape)
        b1 = lax.reshape(lax.slice(raw, (1,) + (0,) * n, (2, *shape)), shape)
        u32 = dtypes.uint32
        neg0, neg1 = lax.not_(b0), lax.not_(b1)
        # 1 - bits in 64-bit fixed point: the low word's carry goes into the high one.
        carry = lax.convert_element_type(lax.eq(neg1, lax.full(shape, 0xFFFFFFFF, u32)), u32)
        neg0 = lax.add(neg0, carry)
        neg1 = lax.add(neg1, lax.full(shape, 1, u32))
        flip = lax.lt(b0, lax.full(shape, 1 << 31, u32))
        x = _safe_int_to_float(lax.select(flip, b0, neg0), lax.select(flip, b1, neg1))
        # log1p for (0, 0.5), log for [0.5, 1).
        small = lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(x)))))
        large = lax.neg(lax.log(lax.neg(lax.log(x))))
        return lax.select(flip, small, large)
    if mode in ("high", "highest"):
        u = _uniform_impl(key_data, 0.0, 1.0, (2, *shape), dtype)
        n = len(shape)
        high = lax.reshape(lax.slice(u, (0,) * (n + 1), (1, *shape)), shape)
        low = lax.reshape(lax.slice(u, (1,) + (0,) * n, (2, *shape)), shape)
        step = lax.full(shape, 2.0**-finfo.nmant, dtype)
        tiny = lax.full(shape, float(finfo.tiny), dtype)
        x = lax.select(
            lax.ge(high, lax.full(shape, 0.5, dtype)),
            high,
            lax.add(lax.add(high, lax.mul(step, low)), tiny),
        )
        return lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(x)))))
    u = _uniform_impl(key_data, float(finfo.tiny), 1.0, shape, dtype)
    return lax.neg(lax.log(lax.neg(lax.log(u))))


_gumbel_jit: Final = jit(_gumbel_impl, static_argnums=(1, 2, 3))


def _gumbel_mode(mode: str | None) -> str:
    mode = "low" if mode is None else mode
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    return mode


def gumbel(
    key: Any, shape: Sequence[int] = (), dtype: Any = None, mode: str | None = None
) -> Array:
    """Gumbel floats: ``-log(-log(u))`` of uniform ``u`` (mode 'high' uses more bits)."""
    data, _ = _key_data_of("gumbel", key)
    dt = _float_dtype("gumbel", dtype)
    return _gumbel_jit(data, _shape_arg(shape, "gumbel"), dt, _gumbel_mode(mode))


def top_k(operand_: Array, k: int) -> tuple[Array, Array]:
    """The ``k`` largest entries along the last axis and their (int32) indices, ties first-come.

    A stable ascending sort of the reversed axis, reversed back: the largest
    values first, equal values in their original order (as ``lax.top_k``).
    """
    aval = get_aval(operand_)
    last = aval.ndim - 1
    n = aval.shape[last]
    iota = lax.broadcast_in_dim(lax.iota(dtypes.int32, n), aval.shape, (last,))
    values, indices = lax.sort((lax.rev(operand_, (last,)), lax.rev(iota, (last,))), last, True, 1)
    values, indices = lax.rev(values, (last,)), lax.rev(indices, (last,))
    start = (0,) * aval.ndim
    limit = (*aval.shape[:-1], k)
    return lax.slice(values, start, limit), lax.slice(indices, start, limit)


def categorical(
    key: Any,
    logits: Any,
    axis: int = -1,
    shape: Sequence[int] | None = None,
    replace: bool = True,
    mode: str | None = None,
) -> Array:
    """Samples of categories with log-probabilities ``logits`` (the Gumbel-max trick).

    >>> categorical(PRNGKey(0), np.log(np.array([0.1, 0.2, 0.7])), shape=(5,))
    Array([1, 2, 2, 1, 2], dtype=int32)
    """
    data, _ = _key_data_of("categorical", key)
    logits_arr = asarray(logits)
    aval = get_aval(logits_arr)
    ndim = aval.ndim
    if not -ndim <= axis < ndim:
        raise ValueError(f"categorical: axis {axis} is out of bounds for rank {ndim}")
    batch_shape = tuple(s for i, s in enumerate(aval.shape) if i != axis % ndim)
    if shape is None:
        out_shape = batch_shape
    else:
        out_shape = _shape_arg(shape, "categorical")
        _check_shape("categorical", out_shape, batch_shape)
    prefix = out_shape[: len(out_shape) - len(batch_shape)]
    gmode = _gumbel_mode(mode)
    if replace:
        neg_axis = axis - ndim if axis >= 0 else axis
        logits_shape = list(out_shape[len(out_shape) - len(batch_shape) :])
        logits_shape.insert(neg_axis % ndim, aval.shape[neg_axis])
        g = _gumbel_jit(data, (*prefix, *logits_shape), aval.dtype, gmode)
        expanded = lax.expand_dims(logits_arr, tuple(range(len(prefix))))
        return rnp.argmax(enp.add(g, expanded), axis=neg_axis)
    noisy = enp.add(logits_arr, _gumbel_jit(data, tuple(aval.shape), aval.dtype, gmode))
    k = math.prod(prefix)
    if k > aval.shape[axis]:
        raise ValueError(
            f"Number of samples without replacement ({k}) cannot exceed number of "
            f"categories ({aval.shape[axis]})."
        )
    _, indices = top_k(mnp.moveaxis(noisy, axis, -1), k)
    n = len(batch_shape) + 1
    return as_result(lax.reshape(indices, out_shape, (n - 1, *range(n - 1))))


# --- permutation, choice --------------------------------------------------------------------------


def _shuffle_impl(key_data: Array, x: Array, axis: int, keys_shape: Shape) -> Array:
    """``x`` permuted along ``axis`` by sorting random 32-bit keys (JAX's ``_shuffle``).

    The keys have ``keys_shape``: ``x``'s shape to shuffle each vector along
    the axis on its own, or ``(n,)`` (broadcast along the other axes) to
    permute whole slices alike, which is JAX's ``take`` of a shuffled iota.
    """
    size = math.prod(keys_shape)
    exponent = 3  # JAX's (tjablin@'s) static number of rounds
    uint32max = np.iinfo(np.uint32).max
    num_rounds = int(np.ceil(exponent * np.log(max(1, size)) / np.log(uint32max)))
    shape = get_aval(x).shape
    for _ in range(num_rounds):
        key_data, subkey = _split_pair(key_data)
        sort_keys = _random_bits(subkey, 32, keys_shape)
        if keys_shape != shape:
            sort_keys = lax.broadcast_in_dim(sort_keys, shape, (axis,))
        _, x = lax.sort((sort_keys, x), axis, True, 1)
    return x


_shuffle_jit: Final = jit(_shuffle_impl, static_argnums=(2, 3))


def permutation(key: Any, x: Any, axis: int = 0, independent: bool = False) -> Array:
    """A random permutation of ``arange(x)`` (an integer ``x``) or of ``x`` along ``axis``.

    >>> permutation(PRNGKey(0), 5)
    Array([0, 1, 4, 3, 2], dtype=int32)
    """
    data, _ = _key_data_of("permutation", key)
    arr = asarray(x) if not isinstance(x, Tracer) else x
    aval = get_aval(arr)
    if aval.ndim == 0:
        if not dtypes.is_integer(aval.dtype):
            raise TypeError("x must be an integer or at least 1-dimensional")
        r = operator.index(x) if isinstance(x, (int, np.integer)) else int(np.asarray(x))
        base = lax.iota(dtypes.default_int(), r)
        return _shuffle_jit(data, base, 0, (r,))
    if not -aval.ndim <= axis < aval.ndim:
        raise ValueError(f"permutation: axis {axis} is out of bounds for rank {aval.ndim}")
    axis %= aval.ndim
    if independent or aval.ndim == 1:
        return _shuffle_jit(data, arr, axis, tuple(aval.shape))
    return _shuffle_jit(data, arr, axis, (aval.shape[axis],))


def choice(
    key: Any,
    a: Any,
    shape: Sequence[int] = (),
    replace: bool = True,
    p: Any = None,
    axis: int = 0,
    mode: str | None = None,
) -> Array:
    """Samples of ``a`` along ``axis`` (or of ``arange(a)``), weighted by ``p`` if given.

    >>> choice(PRNGKey(0), 5, (3,), replace=False)
    Array([0, 1, 4], dtype=int32)
    """
    _key_data_of("choice", key)  # checks the key; the samplers below take it
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of didax.random.choice must be a sequence, got {shape}")
    shape_t = _shape_arg(shape, "choice")
    arr = asarray(a) if not isinstance(a, Tracer) else a
    aval = get_aval(arr)
    if aval.ndim == 0:
        n_inputs = operator.index(a) if isinstance(a, (int, np.integer)) else int(np.asarray(a))
    else:
        if not -aval.ndim <= axis < aval.ndim:
            raise ValueError(f"choice: axis {axis} is out of bounds for rank {aval.ndim}")
        axis %= aval.ndim
        n_inputs = aval.shape[axis]
    n_draws = math.prod(shape_t)
    if n_draws == 0:
        return as_result(lax.full(shape_t, 0, aval.dtype))
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(
            f"Cannot take a larger sample (size {n_draws}) than population (size {n_inputs}) "
            "when 'replace=False'"
        )
    if p is None:
        if replace:
            ind = randint(key, shape_t, 0, n_inputs)
            result = ind if aval.ndim == 0 else indexing.take(arr, ind, axis)
        else:
            perm = permutation(key, n_inputs if aval.ndim == 0 else arr, axis)
            paval = get_aval(perm)
            limit = list(paval.shape)
            limit[axis if aval.ndim else 0] = n_draws
            result = lax.slice(perm, (0,) * paval.ndim, limit)
    else:
        p_arr = asarray(p)
        p_aval = get_aval(p_arr)
        if not dtypes.is_float(p_aval.dtype):
            p_arr = lax.convert_element_type(p_arr, dtypes.to_inexact(p_aval.dtype))
        if get_aval(p_arr).shape != (n_inputs,):
            raise ValueError(
                "p must be None or a 1D vector with the same size as a.shape[axis]. "
                f"p has shape {get_aval(p_arr).shape} and a.shape[axis] is {n_inputs}."
            )
        p_dtype = get_aval(p_arr).dtype
        if replace:
            p_cuml = rnp.cumsum(p_arr)
            total = lax.slice(p_cuml, (n_inputs - 1,), (n_inputs,))
            u = uniform(key, shape_t, p_dtype)
            r = enp.multiply(lax.reshape(total, ()), enp.subtract(1, u))
            ind = lax.convert_element_type(searching.searchsorted(p_cuml, r), dtypes.default_int())
        else:
            g = enp.add(gumbel(key, (n_inputs,), p_dtype, mode), enp.log(p_arr))
            ind = lax.convert_element_type(top_k(g, n_draws)[1], dtypes.default_int())
        result = ind if aval.ndim == 0 else indexing.take(arr, ind, axis)
    out_shape = (
        shape_t if aval.ndim == 0 else (*aval.shape[:axis], *shape_t, *aval.shape[axis + 1 :])
    )
    return as_result(lax.reshape(result, out_shape))
