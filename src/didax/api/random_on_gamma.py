"""didax.random's samplers built on gamma samples: ``generalized_normal`` and ``ball``.

JAX's formulas: a generalized normal sample is a Gamma(1/p) sample to the
power 1/p with a Rademacher sign; a point uniform in the unit ``p``-ball is
``d`` such samples divided by ``(sum |g| ** p + e) ** (1/p)``, ``e``
exponential (Barthe, Guédon, Mendelson and Naor).

Design rules:
- The gamma samples are ``didax.random.gamma``'s (``api.random_gamma``,
  JAX's Marsaglia-Tsang loop), bit for bit with JAX's, so these are too.
- As the other samplers, each is a jitted implementation with static
  shapes and dtypes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from didax.api.jit import jit
from didax.api.numpy import elementwise as enp
from didax.api.numpy import manipulation as mnp
from didax.api.numpy import reductions as rnp
from didax.api.numpy.array_types import Array
from didax.api.prng import KeyLike, Shape, key_data_of, shape_arg
from didax.api.random_gamma import gamma
from didax.api.random_samplers import (
    _exponential_impl,
    _keys,
    _params,
    _rademacher_impl,
    _static_size,
)
from didax.core import dtypes
from didax.core.dtypes import DType, DTypeLike

__all__ = ["ball", "generalized_normal"]


def _generalized_normal_impl(key_data: Array, p: Array, shape: Shape, dtype: DType) -> Array:
    k1, k2 = _keys(key_data, 2)
    # |x| ** p is Gamma(1/p) distributed; a Rademacher sign makes it symmetric.
    g = gamma(k1, enp.divide(1, p), shape, dtype)
    r = _rademacher_impl(k2, shape, dtype)
    return enp.multiply(r, enp.power(g, enp.divide(1, p)))


_generalized_normal_jit: Final = jit(_generalized_normal_impl, static_argnums=(2, 3))


def generalized_normal(
    key: KeyLike, p: float, shape: Sequence[int] = (), dtype: DTypeLike = None
) -> Array:
    """Generalized normal floats (density ``exp(-|x| ** p)``): ``sign * gamma(1/p) ** (1/p)``."""
    data, _ = key_data_of("generalized_normal", key)
    dt = dtypes.canonicalize(float if dtype is None else dtype)
    (pv,) = _params(p)
    out: Array = _generalized_normal_jit(data, pv, shape_arg(shape, "generalized_normal"), dt)
    return out


def _ball_impl(key_data: Array, p: Array, d: int, shape: Shape, dtype: DType) -> Array:
    k1, k2 = _keys(key_data, 2)
    g = _generalized_normal_impl(k1, p, (*shape, d), dtype)
    e = _exponential_impl(k2, shape, dtype)
    # Barthe, Guedon, Mendelson and Naor: g / (||g||_p ** p + e) ** (1/p) is uniform in the ball.
    radius = enp.power(enp.add(rnp.sum(enp.power(enp.abs(g), p), axis=-1), e), enp.divide(1, p))
    return enp.divide(g, mnp.expand_dims(radius, -1))


_ball_jit: Final = jit(_ball_impl, static_argnums=(2, 3, 4))


def ball(
    key: KeyLike, d: int, p: float = 2, shape: Sequence[int] = (), dtype: DTypeLike = None
) -> Array:
    """Points uniform in the ``d``-dimensional unit ``p``-norm ball, batched by ``shape``."""
    data, _ = key_data_of("ball", key)
    dt = dtypes.canonicalize(float if dtype is None else dtype)
    (pv,) = _params(p)
    out: Array = _ball_jit(data, pv, _static_size("ball", d), shape_arg(shape, "ball"), dt)
    return out
