"""``didax.nn.initializers``: JAX's ``jax.nn.initializers``, the same arrays for the same key.

Design rules:
- An initializer is a function ``init(key, shape, dtype=..., out_sharding=None)``
  (the ``Initializer`` protocol); the factories (``normal``, ``variance_scaling``,
  ``glorot_uniform``, ...) return one, with the factory's ``dtype`` as its
  default. Each draws from ``didax.random`` with JAX's sampler and JAX's
  arithmetic after it (``normal(key) * stddev``, ``uniform(key, -1) *
  sqrt(3 * variance)``, ...), so the values are JAX's bit for bit.
- ``variance_scaling``'s fans are JAX's ``_compute_fans``: the sizes of
  ``in_axis``/``out_axis`` times the receptive field (the axes that are
  none of ``in_axis``, ``out_axis``, ``batch_axis``). Its truncated normal
  is divided by the standard deviation of a standard normal truncated at
  ±2, so the result's deviation is the one asked for; complex dtypes draw
  from a disk (``uniform``) or a truncated complex normal, as JAX's.
- ``orthogonal`` is JAX's ``random.orthogonal``: the QR decomposition of a
  normal matrix, Q's columns multiplied by the signs of R's diagonal (Haar
  measure), reshaped so that ``column_axis`` holds the columns.
- ``out_sharding`` is accepted for JAX's signature; didax places arrays
  with ``device_put``, so a sharding other than None is refused.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Literal, Protocol, runtime_checkable

import numpy as np

from didax.api import random
from didax.api.numpy import creation
from didax.api.numpy import elementwise as enp
from didax.api.numpy import manipulation as mnp
from didax.api.numpy.array_types import Array
from didax.api.numpy.decompositions import qr
from didax.api.numpy.matrices import diagonal
from didax.api.numpy.operands import as_result, astype, named, operand
from didax.api.prng import KeyLike
from didax.core import dtypes
from didax.core.dtypes import DType, DTypeLike
from didax.core.values import ArrayLike

__all__ = [
    "Initializer",
    "constant",
    "delta_orthogonal",
    "glorot_normal",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "kaiming_normal",
    "kaiming_uniform",
    "lecun_normal",
    "lecun_uniform",
    "normal",
    "ones",
    "orthogonal",
    "truncated_normal",
    "uniform",
    "variance_scaling",
    "xavier_normal",
    "xavier_uniform",
    "zeros",
]

Axes = int | Sequence[int]
Mode = Literal["fan_in", "fan_out", "fan_avg", "fan_geo_avg"]
Distribution = Literal["truncated_normal", "normal", "uniform"]

# The standard deviations of a standard normal truncated at ±2: real, and
# complex (its modulus truncated at 2); JAX's constants.
_TRUNCATED_STD: float = 0.8796256610342398
_COMPLEX_TRUNCATED_STD: float = 0.9531116438049121


@runtime_checkable
class Initializer(Protocol):
    """A function ``(key, shape, dtype=None, out_sharding=None) -> Array``."""

    def __call__(
        self,
        key: KeyLike,
        shape: Sequence[int],
        dtype: DTypeLike = None,
        out_sharding: object = None,
    ) -> Array: ...


def _dtype(dtype: DTypeLike) -> DType:
    return dtypes.canonicalize(dtypes.default_float() if dtype is None else dtype)


def _no_sharding(name: str, out_sharding: object) -> None:
    if out_sharding is not None:
        raise NotImplementedError(
            f"{name}: out_sharding is not supported by didax's initializers; "
            "place the result with didax.device_put"
        )


def _shape(shape: int | Sequence[int]) -> tuple[int, ...]:
    return (operator.index(shape),) if not isinstance(shape, Sequence) else tuple(shape)


def _scalar(value: ArrayLike, dtype: DType) -> Array:
    """``jnp.array(value, dtype)``: a strongly typed scalar."""
    return astype(as_result(operand(value)), dtype, False)


def _is_complex(dtype: DType) -> bool:
    return bool(np.issubdtype(dtype, np.complexfloating))


def _real_of(dtype: DType) -> DType:
    return dtypes.canonicalize(np.array(0, dtype).real.dtype)


_Draw = Callable[[KeyLike, tuple[int, ...], DType], Array]


def _initializer(name: str, dtype: DTypeLike, draw: _Draw) -> Initializer:
    """The initializer ``name`` returns: ``draw(key, shape, dtype)`` with the shape a tuple,
    the dtype canonical (``dtype`` by default) and ``out_sharding`` refused."""

    def init(
        key: KeyLike, shape: Sequence[int], dtype: DTypeLike = dtype, out_sharding: object = None
    ) -> Array:
        _no_sharding(name, out_sharding)
        return draw(key, _shape(shape), _dtype(dtype))

    return init


def zeros(
    key: KeyLike, shape: Sequence[int], dtype: DTypeLike = None, out_sharding: object = None
) -> Array:
    """An array of zeros (``key`` is ignored).

    >>> import didax.random as random
    >>> zeros(random.PRNGKey(0), (2,))
    Array([0., 0.], dtype=float32)
    """
    _no_sharding("zeros", out_sharding)
    return creation.zeros(shape, _dtype(dtype))


def ones(
    key: KeyLike, shape: Sequence[int], dtype: DTypeLike = None, out_sharding: object = None
) -> Array:
    """An array of ones (``key`` is ignored)."""
    _no_sharding("ones", out_sharding)
    return creation.ones(shape, _dtype(dtype))


def constant(value: ArrayLike, dtype: DTypeLike = None) -> Initializer:
    """An initializer filling with ``value`` (``key`` is ignored).

    >>> import didax.random as random
    >>> constant(-7)(random.PRNGKey(0), (2,))
    Array([-7., -7.], dtype=float32)
    """

    return _initializer("constant", dtype, lambda key, shape, dt: creation.full(shape, value, dt))


def uniform(scale: ArrayLike = 1e-2, dtype: DTypeLike = None) -> Initializer:
    """An initializer drawing uniformly from ``[0, scale)``."""
    return _initializer(
        "uniform",
        dtype,
        lambda key, shape, dt: enp.multiply(random.uniform(key, shape, dt), _scalar(scale, dt)),
    )


def normal(stddev: ArrayLike = 1e-2, dtype: DTypeLike = None) -> Initializer:
    """An initializer drawing from a centred normal of deviation ``stddev``."""
    return _initializer(
        "normal",
        dtype,
        lambda key, shape, dt: enp.multiply(random.normal(key, shape, dt), _scalar(stddev, dt)),
    )


def truncated_normal(
    stddev: ArrayLike = 1e-2,
    dtype: DTypeLike = None,
    lower: ArrayLike = -2.0,
    upper: ArrayLike = 2.0,
) -> Initializer:
    """An initializer drawing ``stddev`` times a standard normal truncated to ``(lower, upper)``.

    (No correction of the deviation for the truncation: ``variance_scaling`` has one.)
    """

    def draw(key: KeyLike, shape: tuple[int, ...], dt: DType) -> Array:
        draws = random.truncated_normal(key, lower, upper, shape, dt)
        return enp.multiply(draws, _scalar(stddev, dt))

    return _initializer("truncated_normal", dtype, draw)


def _size(shape: tuple[int, ...], axes: Axes) -> int:
    if isinstance(axes, int):
        return shape[axes]
    return math.prod(shape[i] for i in axes)


def compute_fans(
    shape: tuple[int, ...], in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = ()
) -> tuple[float, float]:
    """``(fan_in, fan_out)`` of a dense or convolution kernel of ``shape`` (JAX's rule)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(
            f"Can't compute input and output sizes of a {len(shape)}-dimensional weights "
            "tensor with default in_axis. Must be at least 2D or specify in_axis explicitly."
        )
    in_size, out_size = _size(shape, in_axis), _size(shape, out_axis)
    receptive_field = math.prod(shape) / in_size / out_size / _size(shape, batch_axis)
    return in_size * receptive_field, out_size * receptive_field


def _polar_draws(key: KeyLike, shape: tuple[int, ...], dtype: DType) -> tuple[Array, Array]:
    """A uniform draw (radius's key) and ``exp(i theta)``, theta uniform in ``[0, 2 pi)``.

    Both of the complex dtype of ``dtype``'s real type, drawn from ``split(key)``, as JAX's.
    """
    key_r, key_theta = random.split(key)
    real = _real_of(dtype)
    complex_dt = dtypes.canonicalize(np.result_type(real, np.complex64))
    u = random.uniform(key_r, shape, real)
    theta = enp.multiply(2 * np.pi, astype(random.uniform(key_theta, shape, real), complex_dt))
    return u, enp.exp(enp.multiply(1j, theta))


def _complex_uniform(key: KeyLike, shape: tuple[int, ...], dtype: DType) -> Array:
    """Uniform on a disk: zero mean, unit variance."""
    u, phase = _polar_draws(key, shape, dtype)
    r = astype(enp.sqrt(enp.multiply(2, u)), phase.dtype)
    return enp.multiply(r, phase)


def _complex_truncated_normal(
    key: KeyLike, upper: float, shape: tuple[int, ...], dtype: DType
) -> Array:
    """A centred complex normal (unit variance before truncation), its modulus under ``upper``."""
    u, phase = _polar_draws(key, shape, dtype)
    complex_dt = phase.dtype
    head = enp.subtract(1, enp.exp(_scalar(-(upper**2), complex_dt)))
    t = enp.multiply(head, astype(u, complex_dt))
    r = enp.sqrt(enp.negative(enp.log(enp.subtract(1, t))))
    return enp.multiply(r, phase)


def _denominator(mode: str, fan_in: float, fan_out: float) -> float:
    if mode == "fan_in":
        return fan_in
    if mode == "fan_out":
        return fan_out
    if mode == "fan_avg":
        return (fan_in + fan_out) / 2
    if mode == "fan_geo_avg":
        return float((fan_in * fan_out) ** 0.5)
    raise ValueError(f"invalid mode for variance scaling initializer: {mode}")


def variance_scaling(
    scale: float,
    mode: Mode,
    distribution: Distribution,
    in_axis: Axes = -2,
    out_axis: Axes = -1,
    batch_axis: Axes = (),
    dtype: DTypeLike = None,
) -> Initializer:
    """An initializer of deviation ``sqrt(scale / n)``, ``n`` the fan ``mode`` names.

    >>> import didax.random as random
    >>> w = variance_scaling(2.0, "fan_in", "normal")(random.PRNGKey(0), (64, 32))
    >>> w.shape, w.dtype
    ((64, 32), dtype('float32'))
    """

    def draw(key: KeyLike, shp: tuple[int, ...], dt: DType) -> Array:
        fan_in, fan_out = compute_fans(shp, in_axis, out_axis, batch_axis)
        variance = _scalar(scale / _denominator(mode, fan_in, fan_out), dt)
        real = not _is_complex(dt)
        if distribution == "truncated_normal":
            std = enp.divide(
                enp.sqrt(variance),
                _scalar(_TRUNCATED_STD if real else _COMPLEX_TRUNCATED_STD, dt),
            )
            if real:
                return enp.multiply(random.truncated_normal(key, -2, 2, shp, dt), std)
            return enp.multiply(_complex_truncated_normal(key, 2, shp, dt), std)
        if distribution == "normal":
            return enp.multiply(random.normal(key, shp, dt), enp.sqrt(variance))
        if distribution == "uniform":
            if real:
                draws = random.uniform(key, shp, dt, -1)
                return enp.multiply(draws, enp.sqrt(enp.multiply(3, variance)))
            return enp.multiply(_complex_uniform(key, shp, dt), enp.sqrt(variance))
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")

    return _initializer("variance_scaling", dtype, draw)


class VarianceScalingPreset(Protocol):
    """The signature of ``glorot_uniform`` and the other fixed ``variance_scaling``s."""

    __name__: str

    def __call__(
        self,
        in_axis: Axes = -2,
        out_axis: Axes = -1,
        batch_axis: Axes = (),
        dtype: DTypeLike = None,
    ) -> Initializer: ...


def _preset(
    name: str, scale: float, mode: Mode, distribution: Distribution, also: str = ""
) -> VarianceScalingPreset:
    """``variance_scaling(scale, mode, distribution)`` as the public factory ``name``."""

    def preset(
        in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (), dtype: DTypeLike = None
    ) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)

    doc = f"``variance_scaling({scale}, {mode!r}, {distribution!r})``{also}."
    return named(preset, name, doc.replace("'", '"'))


glorot_uniform = _preset("glorot_uniform", 1.0, "fan_avg", "uniform", " (also ``xavier_uniform``)")
glorot_normal = _preset(
    "glorot_normal", 1.0, "fan_avg", "truncated_normal", " (also ``xavier_normal``)"
)
lecun_uniform = _preset("lecun_uniform", 1.0, "fan_in", "uniform")
lecun_normal = _preset("lecun_normal", 1.0, "fan_in", "truncated_normal")
he_uniform = _preset("he_uniform", 2.0, "fan_in", "uniform", " (also ``kaiming_uniform``)")
he_normal = _preset("he_normal", 2.0, "fan_in", "truncated_normal", " (also ``kaiming_normal``)")

xavier_uniform = glorot_uniform
xavier_normal = glorot_normal
kaiming_uniform = he_uniform
kaiming_normal = he_normal


def _orthogonal_matrix(key: KeyLike, n: int, m: int, dtype: DType) -> Array:
    """JAX's ``random.orthogonal(key, n, (), dtype, m)``: an ``(n, m)`` Haar-distributed matrix."""
    z = random.normal(key, (max(n, m), min(n, m)), dtype)
    q, r = qr(z)
    x = enp.multiply(q, mnp.expand_dims(enp.sign(diagonal(r, 0, -2, -1)), -2))
    return mnp.transpose(x) if n < m else x


def orthogonal(
    scale: ArrayLike = 1.0, column_axis: int = -1, dtype: DTypeLike = None
) -> Initializer:
    """An initializer of (scaled) orthogonal matrices: orthonormal rows or columns.

    The axes other than ``column_axis`` are flattened into rows.

    >>> import didax.random as random
    >>> import didax.numpy as dnp
    >>> w = orthogonal()(random.PRNGKey(0), (3, 3))
    >>> bool(dnp.allclose(w @ w.T, dnp.eye(3), atol=1e-6))
    True
    """

    def draw(key: KeyLike, shp: tuple[int, ...], dt: DType) -> Array:
        if len(shp) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if any(d == 0 for d in shp):
            return creation.zeros(shp, dt)
        n_cols = shp[column_axis]
        q = _orthogonal_matrix(key, math.prod(shp) // n_cols, n_cols, dt)
        rows = tuple(np.delete(np.array(shp), column_axis).tolist())
        q = mnp.moveaxis(mnp.reshape(q, (*rows, n_cols)), -1, column_axis)
        return enp.multiply(_scalar(scale, dt), q)

    return _initializer("orthogonal", dtype, draw)


def delta_orthogonal(
    scale: ArrayLike = 1.0, column_axis: int = -1, dtype: DTypeLike = None
) -> Initializer:
    """An initializer of delta-orthogonal convolution kernels (3D, 4D or 5D shapes).

    Zero but at the spatial centre, which holds an orthogonal ``(in, out)`` matrix.
    """

    def draw(key: KeyLike, shp: tuple[int, ...], dt: DType) -> Array:
        if len(shp) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shp[-1] < shp[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dt)(key, shp[-2:])
        centre = tuple((k - 1) // 2 for k in shp[:-2])
        out: Array = creation.zeros(shp, dt).at[centre].set(matrix)
        return out

    return _initializer("delta_orthogonal", dtype, draw)
