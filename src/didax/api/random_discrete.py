"""didax.random's discrete samplers: Poisson, binomial, multinomial, permutation and choice.

Each is bit for bit with JAX's; the algorithms are JAX's (which follow
TensorFlow's and NumPy's):

- ``poisson``: Knuth's product of uniforms for ``lam < 10`` (and NaN), and
  Hörmann's transformed rejection (PTRS) above; ``lam`` is sampled in
  float32 whatever the result dtype.
- ``binomial``: inversion by summing geometric waiting times when
  ``n * min(p, 1 - p) <= 10``, Hörmann's BTRS rejection otherwise, with
  ``p > 1/2`` sampled as ``n - binomial(n, 1 - p)``.
- ``multinomial``: a ``scan`` of binomials over the categories, each on
  what is left of ``n`` with the conditional probability of its category.
- ``permutation``: sorts by random 32-bit keys, in JAX's number of rounds;
  ``choice`` draws indices (``randint``, a permutation's prefix, an inverse
  CDF or Gumbel top-k for weights) and takes them.

Design rules:
- Both regimes are sampled for every element (from the same key) and one
  is selected, as JAX's: the other regime runs on a harmless parameter.
- The rejection loops are ``while_loop``s that run until every element is
  accepted: under ``vmap`` accepted elements keep their value, so a batch
  draws what each key draws alone.
- Arithmetic is written with the operators of didax values (``jax.numpy``'s
  promotion: Python constants are weak), as JAX writes it, so that each
  constant has JAX's dtype and each expression JAX's order of operations.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Final

import numpy as np

from didax.api.control_flow import scan, while_loop
from didax.api.jit import jit
from didax.api.numpy import elementwise as enp
from didax.api.numpy import indexing, searching
from didax.api.numpy import manipulation as mnp
from didax.api.numpy import more_elementwise as menp
from didax.api.numpy import reductions as rnp
from didax.api.numpy import statistics as snp
from didax.api.numpy.array_types import Array
from didax.api.numpy.operands import as_result, asarray, broadcast_shapes, operand
from didax.api.prng import (
    KeyLike,
    Shape,
    key_data_of,
    random_bits,
    shape_arg,
    split_impl,
)
from didax.api.random import (
    _check_shape,
    _float_dtype,
    _shape_of,
    _split_pair,
    _to_rank,
    _uniform_impl,
    gumbel,
    randint,
    top_k,
    uniform,
)
from didax.api.random_samplers import _keys, _promote_inexact
from didax.core import dtypes, lax
from didax.core.dtypes import DType, DTypeLike
from didax.core.trace import Tracer
from didax.core.values import ArrayLike, get_aval

__all__ = ["binomial", "choice", "multinomial", "permutation", "poisson"]

# A rejection loop's carry: the trip count, two per-element states and the key.
_Carry = tuple[Array, Array, Array, Array]


def _uniform(key_data: Array, like: Array, shape: Shape) -> Array:
    return _uniform_impl(key_data, 0.0, 1.0, shape, get_aval(like).dtype)


def _isnan(x: Array) -> Array:
    out: Array = lax.ne(x, x)
    return out


def _until_accepted(
    body: Callable[[_Carry], _Carry],
    key_data: Array,
    draw_dtype: DType,
    shape: Shape,
    dtype: DType,
    max_iters: object,
) -> Array:
    """The loop of a transformed rejection sampler (JAX's PTRS and BTRS alike).

    The carry is ``(i, k, accepted, rng)``: ``body`` draws a candidate for each
    element not yet accepted; the loop ends when all are, or after ``max_iters``.
    """

    def cond(carry: _Carry) -> Array:
        i, accepted = carry[0], carry[2]
        return snp.any(~accepted) & (i < max_iters)

    init = (0, lax.full(shape, -1, draw_dtype), lax.full(shape, False, dtypes.bool_), key_data)
    k: Array = while_loop(cond, body, init)[1]
    out: Array = lax.convert_element_type(k, dtype)
    return out


# --- poisson ---------------------------------------------------------------------------------


def _poisson_knuth(
    key_data: Array, lam: Array, shape: Shape, dtype: DType, max_iters: object
) -> Array:
    """Knuth's method: count uniforms until their product falls below ``exp(-lam)``."""

    def body(carry: _Carry) -> _Carry:
        i, k, rng, log_prod = carry
        rng, subkey = _keys(rng, 2)
        k = lax.select(log_prod > -lam, k + 1, k)
        u = _uniform_impl(subkey, 0.0, 1.0, shape, dtypes.float32)
        return i + 1, k, rng, log_prod + lax.log(u)

    def cond(carry: _Carry) -> Array:
        i, log_prod = carry[0], carry[3]
        return snp.any(log_prod > -lam) & (i < max_iters)

    init = (0, lax.full(shape, 0, dtype), key_data, lax.full(shape, 0, dtypes.float32))
    k: Array = while_loop(cond, body, init)[1]
    out: Array = lax.convert_element_type(k - 1, dtype)
    return out


def _poisson_rejection(
    key_data: Array, lam: Array, shape: Shape, dtype: DType, max_iters: object
) -> Array:
    """Hörmann's transformed rejection with squeeze (PTRS), for ``lam >= 10``."""
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body(carry: _Carry) -> _Carry:
        i, k_out, accepted, rng = carry
        rng, subkey_0, subkey_1 = _keys(rng, 3)
        u = _uniform(subkey_0, lam, shape) - 0.5
        v = _uniform(subkey_1, lam, shape)
        u_shifted = 0.5 - abs(u)
        k = lax.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = lax.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - lax.lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept = accept1 | (~reject & (s <= t))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, rng

    return _until_accepted(body, key_data, get_aval(lam).dtype, shape, dtype, max_iters)


def _poisson_impl(key_data: Array, lam: Array, shape: Shape, dtype: DType) -> Array:
    use_knuth = _isnan(lam) | (lam < 10)
    lam_knuth = lax.select(use_knuth, lam, lax.full(shape, 0.0, dtypes.float32))
    # PTRS accepts at most 89% as lam grows: any large value serves the unused lanes.
    lam_rejection = lax.select(use_knuth, lax.full(shape, 1e5, dtypes.float32), lam)
    max_iters = np.array(np.iinfo(dtype.name).max, dtype.name)  # never reached
    result = lax.select(
        use_knuth,
        _poisson_knuth(key_data, lam_knuth, shape, dtype, max_iters),
        _poisson_rejection(key_data, lam_rejection, shape, dtype, max_iters),
    )
    out: Array = lax.select(lam == 0, lax.full(shape, 0, dtype), result)
    return out


_poisson_jit: Final = jit(_poisson_impl, static_argnums=(2, 3))


def poisson(
    key: KeyLike, lam: ArrayLike, shape: Sequence[int] | None = None, dtype: DTypeLike = None
) -> Array:
    """Poisson integers of rate ``lam`` (of ``dtype``, the default int).

    >>> from didax.api.prng import PRNGKey
    >>> poisson(PRNGKey(0), 3.0, (5,))
    Array([0, 0, 4, 4, 1], dtype=int32)
    """
    data, _ = key_data_of("poisson", key)
    dt = dtypes.canonicalize(int if dtype is None else dtype)
    if not dtypes.is_integer(dt):
        raise ValueError(f"dtype argument to `poisson` must be an int dtype, got {dt}")
    lam_v = operand(lam)
    out_shape = _shape_of(lam_v) if shape is None else shape_arg(shape, "poisson")
    lam_v = lax.convert_element_type(mnp.broadcast_to(lam_v, out_shape), dtypes.float32)
    out: Array = _poisson_jit(data, lam_v, out_shape, dt)
    return out


# --- binomial --------------------------------------------------------------------------------

# Stirling's series tail, log(k!) - (k + 1/2) log(k + 1) + (k + 1) - log(2 pi)/2, for k <= 9.
_STIRLING_TAIL: Final = (
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
)


def _stirling_approx_tail(k: Array) -> Array:
    dt = get_aval(k).dtype
    table = lax.convert_element_type(np.array(_STIRLING_TAIL), dt)
    use_table = k <= 9
    k = lax.clamp(lax.full((), 0.0, dt), k, lax.full((), 9.0, dt))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    index = lax.convert_element_type(lax.floor(k), dtypes.int32)
    out: Array = lax.select(use_table, table[index], approx)
    return out


def _binomial_inversion(
    key_data: Array, count: Array, prob: Array, shape: Shape, dtype: DType, max_iters: object
) -> Array:
    """Count geometric waiting times (in trials) until they pass ``count``."""
    log1minusprob = enp.log1p(-prob)

    def body(carry: _Carry) -> _Carry:
        i, num_geom, geom_sum, rng = carry
        subkey, rng = _keys(rng, 2)
        num_geom_out = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = _uniform(subkey, prob, shape)
        geom = enp.ceil(enp.log(u) / log1minusprob)
        return i + 1, num_geom_out, geom_sum + geom, rng

    def cond(carry: _Carry) -> Array:
        i, geom_sum = carry[0], carry[2]
        return snp.any(geom_sum <= count) & (i < max_iters)

    dt = get_aval(prob).dtype
    init = (0, lax.full(shape, 0, dt), lax.full(shape, 0, dt), key_data)
    k: Array = while_loop(cond, body, init)[1]
    out: Array = lax.convert_element_type(k - 1, dtype)
    return out


def _btrs(
    key_data: Array, count: Array, prob: Array, shape: Shape, dtype: DType, max_iters: object
) -> Array:
    """Hörmann's transformed rejection (BTRS), for ``count * prob > 10``."""
    stddev = enp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = enp.floor((count + 1) * prob)
    log = enp.log

    def body(carry: _Carry) -> _Carry:
        i, k_out, accepted, rng = carry
        rng, subkey_0, subkey_1 = _keys(rng, 3)
        u = _uniform(subkey_0, prob, shape)
        v = _uniform(subkey_1, prob, shape)
        u = u - 0.5
        us = 0.5 - abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = enp.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = log(v * alpha / (a / (us * us) + b))
        ub = (
            (m + 0.5) * log((m + 1) / (r * (count - m + 1)))
            + (count + 1) * log((count - m + 1) / (count - k + 1))
            + (k + 0.5) * log(r * (count - k + 1) / (k + 1))
            + _stirling_approx_tail(m)
            + _stirling_approx_tail(count - m)
            - _stirling_approx_tail(k)
            - _stirling_approx_tail(count - k)
        )
        accept = accept1 | (~reject & (v <= ub))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, rng

    return _until_accepted(body, key_data, get_aval(prob).dtype, shape, dtype, max_iters)


def _binomial_impl(
    key_data: Array, count: Array, prob: Array, shape: Shape | None, dtype: DType
) -> Array:
    if shape is None:
        shape = broadcast_shapes("binomial", _shape_of(count), _shape_of(prob))
    else:
        _check_shape("binomial", shape, _shape_of(count), _shape_of(prob))
    (prob,) = _promote_inexact(prob)
    pdt = get_aval(prob).dtype
    count = _to_rank(lax.convert_element_type(count, pdt), shape)
    prob = _to_rank(prob, shape)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)
    count_nan_or_neg = _isnan(count) | (count < 0.0)
    count_inf = menp.isinf(count)
    q_is_nan = _isnan(q)
    q_l_0 = q < 0.0
    q = lax.select(q_is_nan | q_l_0, lax.full(shape, 0.01, pdt), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    # A float count is floored, as NumPy's binomial.
    count = enp.floor(count)
    count_inv = lax.select(use_inversion, count, lax.full(shape, 0.0, pdt))
    count_btrs = lax.select(use_inversion, lax.full(shape, 1e4, pdt), count)
    q_btrs = lax.select(use_inversion, lax.full(shape, 0.5, pdt), q)
    max_iters = np.array(np.finfo(dtype.name).max, dtype.name)  # never reached
    samples = lax.select(
        use_inversion,
        _binomial_inversion(key_data, count_inv, q, shape, dtype, max_iters),
        _btrs(key_data, count_btrs, q_btrs, shape, dtype, max_iters),
    )
    # NaN for a NaN or negative p or count, infinity for an infinite count.
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = lax.select(invalid, lax.full(shape, np.nan, dtype), samples)
    samples = lax.select(count_inf & ~invalid, lax.full(shape, np.inf, dtype), samples)
    out: Array = lax.select(
        p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples, count.astype(dtype) - samples
    )
    return out


_binomial_jit: Final = jit(_binomial_impl, static_argnums=(3, 4))


def binomial(
    key: KeyLike,
    n: ArrayLike,
    p: ArrayLike,
    shape: Sequence[int] | None = None,
    dtype: DTypeLike = None,
) -> Array:
    """Binomial counts of ``n`` trials of success probability ``p``, as floats of ``dtype``.

    >>> from didax.api.prng import PRNGKey
    >>> binomial(PRNGKey(0), 20.0, 0.3, (4,))
    Array([6., 4., 6., 5.], dtype=float32)
    """
    data, _ = key_data_of("binomial", key)
    nv, pv = operand(n), operand(p)
    dt = _float_dtype("binomial", dtype)
    out_shape = None if shape is None else shape_arg(shape, "binomial")
    out: Array = _binomial_jit(data, nv, pv, out_shape, dt)
    return out


# --- multinomial -----------------------------------------------------------------------------


def multinomial(
    key: KeyLike,
    n: ArrayLike,
    p: ArrayLike,
    *,
    shape: Sequence[int] | None = None,
    dtype: DTypeLike = None,
    unroll: int | bool = 1,
) -> Array:
    """Counts of ``n`` draws among the categories (last axis) of probabilities ``p``.

    >>> from didax.api.prng import PRNGKey
    >>> multinomial(PRNGKey(0), 10.0, np.array([0.2, 0.3, 0.5]))
    Array([1., 1., 8.], dtype=float32)
    """
    data, _ = key_data_of("multinomial", key)
    nv, pv = _promote_inexact(operand(n), operand(p))
    dt = _float_dtype("multinomial", dtype)
    out_shape = _shape_of(pv) if shape is None else shape_arg(shape, "multinomial")
    if not out_shape:
        raise ValueError("multinomial: p (or shape) needs a category axis, got shape ()")
    nv = mnp.broadcast_to(nv, out_shape[:-1])
    pv = mnp.moveaxis(mnp.broadcast_to(pv, out_shape), -1, 0)
    remaining = lax.cumsum(pv, 0, reverse=True)
    ratios = pv / enp.where(remaining == 0, 1, remaining)
    keys = split_impl(as_result(data), (out_shape[-1],))

    def step(remainder: Array, ratio_key: tuple[Array, Array]) -> tuple[Array, Array]:
        ratio, k = ratio_key
        count = _binomial_jit(
            k,
            remainder,
            enp.clip(ratio, 0, 1),
            None,
            get_aval(remainder).dtype,
        )
        return remainder - count, count

    _, counts = scan(step, nv, (ratios, keys), unroll=unroll)
    return as_result(mnp.moveaxis(counts, 0, -1).astype(dt))


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
        sort_keys = random_bits(subkey, 32, keys_shape)
        if keys_shape != shape:
            sort_keys = lax.broadcast_in_dim(sort_keys, shape, (axis,))
        _, x = lax.sort((sort_keys, x), axis, True, 1)
    return x


_shuffle_jit: Final = jit(_shuffle_impl, static_argnums=(2, 3))


def permutation(key: KeyLike, x: ArrayLike, axis: int = 0, independent: bool = False) -> Array:
    """A random permutation of ``arange(x)`` (an integer ``x``) or of ``x`` along ``axis``.

    >>> from didax.random import PRNGKey
    >>> permutation(PRNGKey(0), 5)
    Array([0, 1, 4, 3, 2], dtype=int32)
    """
    data, _ = key_data_of("permutation", key)
    arr = asarray(x) if not isinstance(x, Tracer) else x
    aval = get_aval(arr)
    if aval.ndim == 0:
        if not dtypes.is_integer(aval.dtype):
            raise TypeError("x must be an integer or at least 1-dimensional")
        r = operator.index(x) if isinstance(x, (int, np.integer)) else int(np.asarray(x))
        base = lax.iota(dtypes.default_int(), r)
        res: Array = _shuffle_jit(data, base, 0, (r,))
        return res
    if not -aval.ndim <= axis < aval.ndim:
        raise ValueError(f"permutation: axis {axis} is out of bounds for rank {aval.ndim}")
    axis %= aval.ndim
    if independent or aval.ndim == 1:
        result: Array = _shuffle_jit(data, arr, axis, tuple(aval.shape))
        return result
    out: Array = _shuffle_jit(data, arr, axis, (aval.shape[axis],))
    return out


def choice(
    key: KeyLike,
    a: ArrayLike,
    shape: Sequence[int] = (),
    replace: bool = True,
    p: ArrayLike | None = None,
    axis: int = 0,
    mode: str | None = None,
) -> Array:
    """Samples of ``a`` along ``axis`` (or of ``arange(a)``), weighted by ``p`` if given.

    >>> from didax.random import PRNGKey
    >>> choice(PRNGKey(0), 5, (3,), replace=False)
    Array([0, 1, 4], dtype=int32)
    """
    key_data_of("choice", key)  # checks the key; the samplers below take it
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of didax.random.choice must be a sequence, got {shape}")
    shape_t = shape_arg(shape, "choice")
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
