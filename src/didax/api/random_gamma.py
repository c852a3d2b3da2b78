"""didax.random's gamma family: ``gamma``, ``loggamma`` and the samplers built on them.

``beta``, ``dirichlet``, ``chisquare``, ``f`` and ``t`` are JAX's
transformations of Gamma samples; all of them give JAX's values bit for
bit for the same key, shape and dtype, and the reparameterisation
gradients of ``gamma``, ``loggamma``, ``beta`` and ``dirichlet`` in their
parameters are JAX's (implicit differentiation, ``interpreters.random_gamma``;
float64 ones to the bit, float32 ones to the last bits).

Design rules:
- The draws are ``random_gamma_p``'s (``core.lax.random_gamma``), bound
  as JAX binds its own: one key, ``a`` converted to the dtype and
  broadcast to the shape first. ``_gamma_impl`` below is what the
  primitive lowers to (JAX's ``_gamma_impl`` with ``use_vmap``): it is
  handed to ``lowering.random_gamma`` at import, since that layer cannot
  import this one.
- ``_gamma_one`` is Marsaglia and Tsang's method, operation for operation
  as JAX's ``_gamma_one``: ``a < 1`` is boosted to ``a + 1`` and the
  sample scaled by ``u ** (1 / a)`` (in log space, ``log u / a`` added,
  with ``log u`` drawn as ``-Exponential``, so that both spaces draw the
  same numbers); each candidate ``(1 + c x) ** 3`` needs a normal ``x``
  with ``1 + c x > 0``, itself a rejection loop.
- The public functions check their arguments and call a ``jit``-ted
  function with static shape and dtype, as JAX's do, so that eager and
  jitted calls compile the same program.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from didax.api.control_flow import while_loop
from didax.api.jit import jit
from didax.api.nn import softmax_custom_jvp
from didax.api.numpy import elementwise as enp
from didax.api.numpy.array_types import Array
from didax.api.numpy.operands import broadcast_shapes
from didax.api.prng import KeyLike, Shape, key_data_of, shape_arg, split_impl
from didax.api.random import (
    _bound,
    _check_shape,
    _float_dtype,
    _normal_impl,
    _shape_of,
    _split_pair,
    _to_rank,
    _uniform_impl,
)
from didax.api.transformations import vmap
from didax.core import dtypes, lax
from didax.core.basearray import Value
from didax.core.dtypes import DType, DTypeLike
from didax.core.lax.random_gamma import random_gamma_p
from didax.core.values import ArrayLike, get_aval
from didax.lowering.random_gamma import set_sampler

__all__ = [
    "random_gamma_p",
    "gamma",
    "loggamma",
    "beta",
    "dirichlet",
    "chisquare",
    "f",
    "t",
]


# --- the rejection loop (what random_gamma_p lowers to) --------------------------------------


def _gamma_one(key: Array, alpha: Array, log_space: bool) -> Array:
    """One ``Gamma(alpha, 1)`` sample (or its log) from one key: JAX's ``_gamma_one``."""
    dtype = get_aval(alpha).dtype

    def const(v: float) -> Array:
        out: Array = lax.full((), v, dtype)
        return out

    zero, one, minus_one = const(0), const(1), const(-1)
    one_third = const(1.0 / 3.0)
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, one_third)
    c = lax.div(one_third, lax.sqrt(d))

    def accepts_not(state: tuple[Array, Array, Array, Array]) -> Value:
        # Loops while the candidate is rejected: the squeeze test, then the full test.
        _, x2, v, u = state
        squeeze = lax.ge(u, lax.sub(one, lax.mul(const(0.0331), lax.mul(x2, x2))))
        full = lax.ge(
            lax.log(u),
            lax.add(lax.mul(x2, const(0.5)), lax.mul(d, lax.add(lax.sub(one, v), lax.log(v)))),
        )
        return lax.and_(squeeze, full)

    def next_normal(state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        k, sub = _split_pair(state[0])
        x = _normal_impl(sub, (), dtype)
        return k, x, lax.add(one, lax.mul(x, c))

    def candidate(state: tuple[Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array]:
        keys = split_impl(state[0], (3,))
        k, x_key, u_key = (lax.reshape(lax.slice(keys, (i, 0), (i + 1, 2)), (2,)) for i in range(3))
        _, x, v = while_loop(lambda s: lax.le(s[2], zero), next_normal, (x_key, zero, minus_one))
        u = _uniform_impl(u_key, 0.0, 1.0, (), dtype)
        return k, lax.mul(x, x), lax.mul(lax.mul(v, v), v), u

    key, subkey = _split_pair(key)
    # The initial state (x2 = 0, v = 1, u = 2) is rejected, so the loop draws at least once.
    _, _, v, _ = while_loop(accepts_not, candidate, (key, zero, one, const(2)))
    inv_alpha = lax.div(one, alpha_orig)
    if log_space:
        u = _uniform_impl(subkey, 0.0, 1.0, (), dtype)
        log_u = lax.log1p(lax.neg(u))  # -Exponential: log(1 - u), in (-inf, 0]
        no_boost = lax.or_(boost_mask, lax.eq(log_u, zero))
        log_boost = lax.select(no_boost, zero, lax.mul(log_u, inv_alpha))
        out: Array = lax.add(lax.add(lax.log(d), lax.log(v)), log_boost)
        return out
    samples = lax.sub(one, _uniform_impl(subkey, 0.0, 1.0, (), dtype))
    boost = lax.select(boost_mask, one, lax.pow(samples, inv_alpha))
    result: Array = lax.mul(lax.mul(d, v), boost)
    return result


def _gamma_impl(key: Value, a: Value, log_space: bool) -> Value:
    """Samples of ``a``'s shape from keys of a prefix of it: JAX's ``_gamma_impl``."""
    key_aval, a_aval = get_aval(key), get_aval(a)
    key_shape = key_aval.shape[:-1]
    split_count = math.prod(a_aval.shape[len(key_shape) :])
    keys = lax.reshape(key, (math.prod(key_shape), 2))
    # Each key is split into one key per element it draws (even a single one).
    keys = vmap(lambda k: split_impl(k, (split_count,)))(keys)
    keys = lax.reshape(keys, (a_aval.size, 2))
    alphas = lax.reshape(a, (a_aval.size,))
    samples = vmap(lambda k, x: _gamma_one(k, x, log_space))(keys, alphas)
    out: Value = lax.reshape(samples, a_aval.shape)
    return out


set_sampler(_gamma_impl)


# --- gamma, loggamma ----------------------------------------------------------------------------


def _gamma(key: Array, a: ArrayLike, shape: Shape, dtype: DType, log_space: bool) -> Array:
    """``a`` as ``dtype`` broadcast to ``shape``, and its draws (JAX's ``_gamma``)."""
    a = _to_rank(lax.convert_element_type(a, dtype), shape)
    out: Array = random_gamma_p.bind(key, a, log_space=log_space)
    return out


_gamma_jit: Final = jit(_gamma, static_argnums=(2, 3, 4))


def _gamma_call(
    name: str, key: KeyLike, a: ArrayLike, shape: Sequence[int] | None, dtype: DTypeLike, log: bool
) -> Array:
    data, _ = key_data_of(name, key)
    dt = _float_dtype(name, dtype)
    value = _bound(a)
    if shape is None:
        out_shape = _shape_of(value)
    else:
        out_shape = shape_arg(shape, name)
        _check_shape(name, out_shape, _shape_of(value))
    out: Array = _gamma_jit(data, value, out_shape, dt, log)
    return out


def gamma(
    key: KeyLike, a: ArrayLike, shape: Sequence[int] | None = None, dtype: DTypeLike = None
) -> Array:
    """``Gamma(a, 1)`` samples (density ``x**(a-1) e**-x / Gamma(a)``) of ``shape``.

    ``a`` broadcasts to ``shape`` (default: ``a``'s shape). Divide by a rate
    (multiply by a scale) for other Gamma distributions.

    >>> import didax.random as random
    >>> random.gamma(random.PRNGKey(0), 2.0, (3,), "float32")
    Array([1.5897877, 1.7599413, 1.1290071], dtype=float32)
    """
    return _gamma_call("gamma", key, a, shape, dtype, False)


def loggamma(
    key: KeyLike, a: ArrayLike, shape: Sequence[int] | None = None, dtype: DTypeLike = None
) -> Array:
    """The logarithms of ``Gamma(a, 1)`` samples, accurate where the samples underflow.

    ``exp(loggamma(...))`` equals ``gamma(...)`` for the same arguments (to
    rounding); for small ``a`` most samples are below the smallest float,
    and their logarithms are still finite.
    """
    return _gamma_call("loggamma", key, a, shape, dtype, True)


# --- beta, dirichlet ----------------------------------------------------------------------


def _check_safe_cast(name: str, dtype: DType, *args: ArrayLike) -> None:
    """JAX's rule: an argument must promote to ``dtype`` itself (no narrowing of floats)."""
    for arg in args:
        if isinstance(arg, (int, float)) and not isinstance(arg, bool):
            continue  # weakly typed: takes the dtype
        src = get_aval(arg).dtype
        if dtypes.promote_types(src, dtype) != dtype:
            # ValueError: JAX raises its TypePromotionError, a ValueError.
            raise ValueError(
                f"In arguments to {name}, cannot safely cast argument of type {src} to {dtype}"
            )


def _broadcast_shape(name: str, shape: Sequence[int] | None, *args: ArrayLike) -> Shape:
    """``shape`` checked against the arguments' shapes, or their broadcast shape if None."""
    shapes = [_shape_of(a) for a in args]
    if shape is None:
        return broadcast_shapes(name, *shapes) if shapes else ()
    out = shape_arg(shape, name)
    _check_shape(name, out, *shapes)
    return out


def _beta_impl(key: Array, a: Array, b: Array, shape: Shape, dtype: DType) -> Array:
    key_a, key_b = _split_pair(key)
    log_a = _gamma(key_a, a, shape, dtype, True)
    log_b = _gamma(key_b, b, shape, dtype, True)
    # gamma_a / (gamma_a + gamma_b), both scaled by the larger so that neither underflows.
    log_max = lax.max(log_a, log_b)
    scaled_a = lax.exp(lax.sub(log_a, log_max))
    scaled_b = lax.exp(lax.sub(log_b, log_max))
    out: Array = lax.div(scaled_a, lax.add(scaled_a, scaled_b))
    return out


_beta_jit: Final = jit(_beta_impl, static_argnums=(3, 4))


def beta(
    key: KeyLike,
    a: ArrayLike,
    b: ArrayLike,
    shape: Sequence[int] | None = None,
    dtype: DTypeLike = None,
) -> Array:
    """``Beta(a, b)`` samples: ``G_a / (G_a + G_b)`` of two Gamma draws (in log space)."""
    data, _ = key_data_of("beta", key)
    dt = _float_dtype("beta", dtype)
    a_, b_ = _bound(a), _bound(b)
    _check_safe_cast("beta", dt, a_, b_)
    out_shape = _broadcast_shape("beta", shape, a_, b_)
    out: Array = _beta_jit(data, a_, b_, out_shape, dt)
    return out


def _dirichlet_impl(key: Array, alpha: Array, shape: Shape, dtype: DType) -> Array:
    alpha = lax.convert_element_type(alpha, dtype)
    # Gamma draws in log space (small alpha would underflow), normalised by a softmax.
    log_samples = _gamma(key, alpha, (*shape, get_aval(alpha).shape[-1]), dtype, True)
    out: Array = softmax_custom_jvp(log_samples)
    return out


_dirichlet_jit: Final = jit(_dirichlet_impl, static_argnums=(2, 3))


def dirichlet(
    key: KeyLike, alpha: ArrayLike, shape: Sequence[int] | None = None, dtype: DTypeLike = None
) -> Array:
    """``Dirichlet(alpha)`` samples along the last axis: normalised Gamma draws.

    The result's shape is ``shape + alpha.shape[-1:]`` (``shape`` defaults to
    ``alpha.shape[:-1]``, and must broadcast with it).
    """
    data, _ = key_data_of("dirichlet", key)
    dt = _float_dtype("dirichlet", dtype)
    value = _bound(alpha)
    alpha_shape = _shape_of(value)
    if not alpha_shape:
        raise ValueError(
            f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {len(alpha_shape)}"
        )
    if shape is None:
        out_shape = alpha_shape[:-1]
    else:
        out_shape = shape_arg(shape, "dirichlet")
        _check_shape("dirichlet", out_shape, alpha_shape[:-1])
    out: Array = _dirichlet_jit(data, value, out_shape, dt)
    return out


# --- chisquare, f, t ----------------------------------------------------------------------


def _chisquare_impl(key: Array, df: Array, shape: Shape, dtype: DType) -> Array:
    half_df = lax.div(lax.convert_element_type(df, dtype), lax.full((), 2, dtype))
    log_g = _gamma(key, half_df, shape, dtype, True)
    out: Array = lax.mul(lax.exp(log_g), lax.full((), 2, dtype))
    return out


_chisquare_jit: Final = jit(_chisquare_impl, static_argnums=(2, 3))


def _one_df(
    name: str, key: KeyLike, df: ArrayLike, shape: Sequence[int] | None, dtype: DTypeLike
) -> tuple[ArrayLike, ArrayLike, Shape, DType]:
    """The checked arguments of a sampler of one parameter: key data, df, shape, dtype."""
    data, _ = key_data_of(name, key)
    dt = _float_dtype(name, dtype)
    value = _bound(df)
    out_shape = _broadcast_shape(name, shape, value)
    _check_safe_cast(name, dt, value)
    return data, value, out_shape, dt


def chisquare(
    key: KeyLike, df: ArrayLike, shape: Sequence[int] | None = None, dtype: DTypeLike = None
) -> Array:
    """Chi-squared samples with ``df`` degrees of freedom: ``2 Gamma(df / 2, 1)``."""
    out: Array = _chisquare_jit(*_one_df("chisquare", key, df, shape, dtype))
    return out


def _f_impl(key: Array, dfnum: Array, dfden: Array, shape: Shape, dtype: DType) -> Array:
    dfden = lax.convert_element_type(dfden, dtype)
    dfnum = lax.convert_element_type(dfnum, dtype)
    key_dfd, key_dfn = _split_pair(key)
    chi2_dfn = _chisquare_impl(key_dfn, dfnum, shape, dtype)
    chi2_dfd = _chisquare_impl(key_dfd, dfden, shape, dtype)
    return enp.divide(enp.divide(chi2_dfn, dfnum), enp.divide(chi2_dfd, dfden))


_f_jit: Final = jit(_f_impl, static_argnums=(3, 4))


def f(
    key: KeyLike,
    dfnum: ArrayLike,
    dfden: ArrayLike,
    shape: Sequence[int] | None = None,
    dtype: DTypeLike = None,
) -> Array:
    """F-distribution samples: ``(X / dfnum) / (Y / dfden)`` of chi-squared ``X``, ``Y``."""
    data, _ = key_data_of("f", key)
    dt = _float_dtype("f", dtype)
    num, den = _bound(dfnum), _bound(dfden)
    out_shape = _broadcast_shape("f", shape, num, den)
    _check_safe_cast("f", dt, num, den)
    out: Array = _f_jit(data, num, den, out_shape, dt)
    return out


def _t_impl(key: Array, df: Array, shape: Shape, dtype: DType) -> Array:
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = _split_pair(key)
    n = _normal_impl(key_n, shape, dtype)
    half_df = lax.div(df, lax.full((), 2, dtype))
    g = _gamma(key_g, half_df, shape, dtype, False)
    return enp.multiply(n, enp.sqrt(enp.divide(half_df, g)))


_t_jit: Final = jit(_t_impl, static_argnums=(2, 3))


def t(
    key: KeyLike, df: ArrayLike, shape: Sequence[int] | None = None, dtype: DTypeLike = None
) -> Array:
    """Student's t samples with ``df`` degrees of freedom: ``N sqrt(df / 2 / Gamma(df / 2))``."""
    out: Array = _t_jit(*_one_df("t", key, df, shape, dtype))
    return out
