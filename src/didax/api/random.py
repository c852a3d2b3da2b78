"""didax.random: JAX's samplers over counter-based PRNG keys, bit for bit.

Keys, the Threefry-2x32 hash and raw bits are ``api.prng``'s (re-exported
here); this module draws from them the same samples as JAX for the same
seeds, shapes and dtypes.

Design rules:
- The samplers follow JAX's formulas operation for operation, and run
  jitted as JAX's do (``_uniform``, ``_normal``, ... are ``jit``-ted
  functions with static shapes and dtypes): eager calls then compute with
  XLA, as JAX's, so that floating-point results (``log``, ``erf_inv``)
  agree to the bit, not only within NumPy's rounding.
- Permutations sort random keys, as JAX's ``_shuffle``; ``top_k`` (for
  sampling without replacement) is a stable sort.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from didax.api.jit import jit
from didax.api.numpy import elementwise as enp
from didax.api.numpy import manipulation as mnp
from didax.api.numpy import reductions as rnp
from didax.api.numpy.array_types import Array
from didax.api.numpy.operands import as_result, asarray, broadcast_shapes, operand
from didax.api.prng import (
    UINT_DTYPES,
    KeyLike,
    PRNGKey,
    PRNGKeyArray,
    Shape,
    bits,
    fold_in,
    key,
    key_data,
    key_data_of,
    random_bits,
    shape_arg,
    split,
    split_impl,
    wrap_key_data,
)
from didax.api.prng import UNROLL_FROM as UNROLL_FROM
from didax.api.prng import threefry2x32 as threefry2x32
from didax.api.prng import threefry_2x32 as threefry_2x32
from didax.core import dtypes, lax
from didax.core.dtypes import DType, DTypeLike
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
    "gumbel",
]


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


def _float_dtype(name: str, dtype: DTypeLike) -> DType:
    dt = dtypes.canonicalize(float if dtype is None else dtype)
    if not dtypes.is_float(dt):
        raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {dt}")
    return dt


def _to_rank(x: Array, shape: Shape) -> Array:
    """``x`` broadcast to ``shape`` (NumPy's rule; JAX's lax broadcasts size-1 axes alike)."""
    return mnp.broadcast_to(x, shape) if get_aval(x).shape != shape else x


def _uniform_impl(
    key_data: Array, minval: ArrayLike, maxval: ArrayLike, shape: Shape, dtype: DType
) -> Array:
    minval = _to_rank(lax.convert_element_type(minval, dtype), shape)
    maxval = _to_rank(lax.convert_element_type(maxval, dtype), shape)
    finfo = _finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = 8 if nmant < 8 else nbits
    raw = random_bits(key_data, rng_bits, shape)
    uint_dtype = UINT_DTYPES[nbits]
    if rng_bits != nbits:
        raw = lax.convert_element_type(raw, uint_dtype)
    # Random mantissa bits under the exponent of 1.0: a float in [1, 2), less one.
    float_bits = lax.or_(
        lax.shift_right_logical(raw, lax.full(shape, rng_bits - nmant, uint_dtype)),
        lax.full(shape, int(np.array(1.0, dtype).view(uint_dtype)), uint_dtype),
    )
    floats = lax.sub(lax.bitcast_convert_type(float_bits, dtype), lax.full(shape, 1.0, dtype))
    scaled = lax.add(lax.mul(floats, lax.sub(maxval, minval)), minval)
    out: Array = lax.max(minval, scaled)
    return out


def _finfo(dtype: DType) -> Any:
    """NumPy's ``finfo`` (ml_dtypes' for bfloat16)."""
    if dtype == dtypes.bfloat16:
        import ml_dtypes

        return ml_dtypes.finfo(dtype)
    return np.finfo(dtype)


_uniform_jit: Final = jit(_uniform_impl, static_argnums=(3, 4))


def _bound(x: ArrayLike) -> ArrayLike:
    """A minval/maxval argument as an operand (Python scalars weak, as JAX's)."""
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) else operand(x)


def uniform(
    key: KeyLike,
    shape: Sequence[int] = (),
    dtype: DTypeLike = None,
    minval: ArrayLike = 0.0,
    maxval: ArrayLike = 1.0,
) -> Array:
    """Uniform floats in ``[minval, maxval)`` of ``shape`` and ``dtype`` (default float64).

    >>> uniform(PRNGKey(0), (3,))
    Array([0.947667  , 0.9785799 , 0.33229148], dtype=float32)
    """
    data, _ = key_data_of("uniform", key)
    dt = _float_dtype("uniform", dtype)
    out: Array = _uniform_jit(data, _bound(minval), _bound(maxval), shape_arg(shape, "uniform"), dt)
    return out


# --- normal, truncated normal ----------------------------------------------------------------


def _normal_impl(key_data: Array, shape: Shape, dtype: DType) -> Array:
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = _uniform_impl(key_data, lo, np.array(1.0, dtype), shape, dtype)
    out: Array = lax.mul(lax.full(shape, np.sqrt(2), dtype), lax.erf_inv(u))
    return out


def _normal_inexact_impl(key_data: Array, shape: Shape, dtype: DType) -> Array:
    if not dtypes.is_complex(dtype):
        return _normal_impl(key_data, shape, dtype)
    # JAX's complex draw: real and imaginary parts from split keys, scaled by
    # 1/sqrt(2) so that E|z|^2 = 1.
    key_re, key_im = _split_pair(key_data)
    real = dtypes.real_dtype(dtype)
    re = lax.convert_element_type(_normal_impl(key_re, shape, real), dtype)
    im = lax.convert_element_type(_normal_impl(key_im, shape, real), dtype)
    z = enp.add(re, enp.multiply(1j, im))
    return as_result(enp.divide(z, np.array(np.sqrt(2), dtype)))


_normal_jit: Final = jit(_normal_inexact_impl, static_argnums=(1, 2))


def normal(key: KeyLike, shape: Sequence[int] = (), dtype: DTypeLike = None) -> Array:
    """Standard normal values of ``shape`` and ``dtype``: ``sqrt(2) * erf_inv(u)``, u uniform.

    A complex dtype draws its real and imaginary parts apart, scaled by
    ``1/sqrt(2)``, as JAX's.
    """
    data, _ = key_data_of("normal", key)
    dt = dtypes.canonicalize(float if dtype is None else dtype)
    if not (dtypes.is_float(dt) or dtypes.is_complex(dt)):
        raise ValueError(f"dtype argument to `normal` must be a float or complex dtype, got {dt}")
    out: Array = _normal_jit(data, shape_arg(shape, "normal"), dt)
    return out


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
    result: Array = lax.min(high, lax.max(low, out))
    return result


_truncated_normal_jit: Final = jit(_truncated_normal_impl, static_argnums=(3, 4))


def _shape_of(x: ArrayLike) -> Shape:
    return tuple(get_aval(x).shape) if not isinstance(x, (int, float)) else ()


def truncated_normal(
    key: KeyLike,
    lower: ArrayLike,
    upper: ArrayLike,
    shape: Sequence[int] | None = None,
    dtype: DTypeLike = None,
) -> Array:
    """Standard normal floats truncated to the open interval ``(lower, upper)``."""
    data, _ = key_data_of("truncated_normal", key)
    dt = _float_dtype("truncated_normal", dtype)
    lo, hi = _bound(lower), _bound(upper)
    if shape is None:
        out_shape = broadcast_shapes("truncated_normal", _shape_of(lo), _shape_of(hi))
    else:
        out_shape = shape_arg(shape, "truncated_normal")
        _check_shape("truncated_normal", out_shape, _shape_of(lo), _shape_of(hi))
    out: Array = _truncated_normal_jit(data, lo, hi, out_shape, dt)
    return out


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
        result: Array = lax.lt(u2, lax.sub(p, u1))
        return result
    out: Array = lax.lt(_uniform_impl(key_data, 0.0, 1.0, shape, dtype), p)
    return out


_bernoulli_jit: Final = jit(_bernoulli_impl, static_argnums=(2, 3))


def bernoulli(
    key: KeyLike, p: ArrayLike = 0.5, shape: Sequence[int] | None = None, mode: str = "low"
) -> Array:
    """Booleans that are True with probability ``p`` (a float, or floats broadcasting to shape).

    >>> bernoulli(PRNGKey(0), 0.5, (4,))
    Array([False, False,  True,  True], dtype=bool)
    """
    if mode not in ("high", "low"):
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    data, _ = key_data_of("bernoulli", key)
    value = operand(p)
    aval = get_aval(value)
    if not dtypes.is_float(aval.dtype):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {aval.dtype}.")
    if shape is None:
        out_shape = tuple(aval.shape)
    else:
        out_shape = shape_arg(shape, "bernoulli")
        _check_shape("bernoulli", out_shape, aval.shape)
    out: Array = _bernoulli_jit(data, lax.convert_element_type(value, aval.dtype), out_shape, mode)
    return out


def _convert_and_clip_integer(val: Array, dtype: DType) -> Array:
    """``val`` as ``dtype``, clipped to its range instead of wrapping (JAX's helper)."""
    src = get_aval(val).dtype
    lo = max(int(np.iinfo(dtype.name).min), int(np.iinfo(src.name).min))
    hi = min(int(np.iinfo(dtype.name).max), int(np.iinfo(src.name).max))
    clipped = lax.min(lax.max(val, lax.full_like(val, lo)), lax.full_like(val, hi))
    out: Array = lax.convert_element_type(clipped, dtype)
    return out


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
    higher_bits = random_bits(k1, nbits, shape)
    lower_bits = random_bits(k2, nbits, shape)
    unsigned = UINT_DTYPES[nbits]
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
    out: Array = lax.add(minval, lax.convert_element_type(offset, dtype))
    return out


_randint_jit: Final = jit(_randint_impl, static_argnums=(3, 4))


def _integer_bound(x: ArrayLike) -> Array:
    v = asarray(x)
    if not dtypes.is_integer(get_aval(v).dtype):
        v = lax.convert_element_type(v, dtypes.default_int())
    return v


def randint(
    key: KeyLike,
    shape: Sequence[int],
    minval: ArrayLike,
    maxval: ArrayLike,
    dtype: DTypeLike = None,
) -> Array:
    """Uniform integers in ``[minval, maxval)`` (dtype: the default int).

    >>> randint(PRNGKey(0), (4,), 0, 10)
    Array([9, 0, 2, 3], dtype=int32)
    """
    data, _ = key_data_of("randint", key)
    dt = dtypes.canonicalize(int if dtype is None else dtype)
    if not dtypes.is_integer(dt):
        raise TypeError(f"randint only accepts integer dtypes, got {dt}")
    out_shape = shape_arg(shape, "randint")
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
    result: Array = _randint_jit(data, lo, hi, out_shape, dt)
    return result


def _split_pair(key_data: Array) -> tuple[Array, Array]:
    keys = split_impl(key_data, (2,))
    first = lax.reshape(lax.slice(keys, (0, 0), (1, 2)), (2,))
    second = lax.reshape(lax.slice(keys, (1, 0), (2, 2)), (2,))
    return first, second


# --- gumbel, categorical ------------------------------------------------------------------------


def _safe_int_to_float(hi: Array, lo: Array) -> Array:
    """Two words of bits as a float32 in (0, 1) with all its precision (JAX's helper)."""
    shape = get_aval(hi).shape
    u32 = dtypes.uint32

    def c(v: int) -> Array:
        out: Array = lax.full(shape, v, u32)
        return out

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
    out: Array = lax.bitcast_convert_type(lax.or_(exp, mantissa), dtypes.float32)
    return out


def _gumbel_impl(key_data: Array, shape: Shape, dtype: DType, mode: str) -> Array:
    finfo = _finfo(dtype)
    if dtype == dtypes.float32 and mode == "highest":
        raw = random_bits(key_data, 32, (2, *shape))
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
        res: Array = lax.select(flip, small, large)
        return res
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
        result: Array = lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(x)))))
        return result
    u = _uniform_impl(key_data, float(finfo.tiny), 1.0, shape, dtype)
    out: Array = lax.neg(lax.log(lax.neg(lax.log(u))))
    return out


_gumbel_jit: Final = jit(_gumbel_impl, static_argnums=(1, 2, 3))


def _gumbel_mode(mode: str | None) -> str:
    mode = "low" if mode is None else mode
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    return mode


def gumbel(
    key: KeyLike, shape: Sequence[int] = (), dtype: DTypeLike = None, mode: str | None = None
) -> Array:
    """Gumbel floats: ``-log(-log(u))`` of uniform ``u`` (mode 'high' uses more bits)."""
    data, _ = key_data_of("gumbel", key)
    dt = _float_dtype("gumbel", dtype)
    out: Array = _gumbel_jit(data, shape_arg(shape, "gumbel"), dt, _gumbel_mode(mode))
    return out


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
    key: KeyLike,
    logits: ArrayLike,
    axis: int = -1,
    shape: Sequence[int] | None = None,
    replace: bool = True,
    mode: str | None = None,
) -> Array:
    """Samples of categories with log-probabilities ``logits`` (the Gumbel-max trick).

    >>> categorical(PRNGKey(0), np.log(np.array([0.1, 0.2, 0.7])), shape=(5,))
    Array([1, 2, 2, 1, 2], dtype=int32)
    """
    data, _ = key_data_of("categorical", key)
    logits_arr = asarray(logits)
    aval = get_aval(logits_arr)
    ndim = aval.ndim
    if not -ndim <= axis < ndim:
        raise ValueError(f"categorical: axis {axis} is out of bounds for rank {ndim}")
    batch_shape = tuple(s for i, s in enumerate(aval.shape) if i != axis % ndim)
    if shape is None:
        out_shape = batch_shape
    else:
        out_shape = shape_arg(shape, "categorical")
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
