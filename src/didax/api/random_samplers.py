"""didax.random's continuous samplers beyond the core ones, bit for bit with JAX's.

Each draws from ``api.random``'s uniform and normal samples (the same raw
bits for the same key) and transforms them by JAX's formula, operation for
operation: the inverse CDFs (``exponential``, ``cauchy``, ``laplace``,
``logistic``, ``weibull_min``, ``rayleigh``, ``geometric``,
``triangular``), functions of normal samples (``lognormal``, ``maxwell``,
``wald``, ``multivariate_normal``, ``orthogonal``), and the keys' own
queries (``key_impl``, ``key_dtype``, ``clone``).

Design rules:
- As in ``api.random``, each sampler is a ``jit``-ted implementation with
  static shapes and dtypes, so that eager calls compute with XLA as JAX's
  do and agree to the bit.
- Parameters are promoted as JAX promotes them: ``jax.lax`` steps here are
  ``lax`` calls on operands of one dtype, ``jax.numpy`` steps are
  ``didax.numpy`` calls (weak Python scalars, broadcasting), so that the
  result dtype follows JAX's (``weibull_min`` with a float64 ``scale``
  returns float64, as JAX's).
- Errors name the sampler and the offending dtype or shape, as JAX's do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import numpy as np

from didax.api.jit import jit
from didax.api.numpy import contractions, decompositions, matrices
from didax.api.numpy import elementwise as enp
from didax.api.numpy import manipulation as mnp
from didax.api.numpy.array_types import Array
from didax.api.numpy.linalg import norm
from didax.api.numpy.more_routines import matrix_transpose
from didax.api.numpy.operands import Operand, as_result, astype, broadcast_shapes, operand
from didax.api.prng import (
    KEY_DTYPE,
    KeyDType,
    KeyLike,
    Shape,
    key_data_of,
    shape_arg,
    split_impl,
)
from didax.api.random import (
    _bernoulli_impl,
    _bound,
    _check_shape,
    _finfo,
    _float_dtype,
    _normal_impl,
    _shape_of,
    _to_rank,
    _uniform_impl,
)
from didax.core import dtypes, lax
from didax.core.dtypes import DType, DTypeLike
from didax.core.values import ArrayLike, get_aval

__all__ = [
    "cauchy",
    "clone",
    "double_sided_maxwell",
    "exponential",
    "geometric",
    "key_dtype",
    "key_impl",
    "laplace",
    "logistic",
    "lognormal",
    "maxwell",
    "multivariate_normal",
    "orthogonal",
    "pareto",
    "rademacher",
    "rayleigh",
    "triangular",
    "wald",
    "weibull_min",
]

_THREEFRY: Final = "threefry2x32"
# JAX's default sigma of lognormal: a strong float32 one.
_ONE_F32: Final = np.float32(1)


# --- keys ------------------------------------------------------------------------------------


def key_impl(keys: KeyLike) -> str:
    """The name of the PRNG implementation of ``keys``: didax has one, ``'threefry2x32'``.

    >>> from didax.api.prng import key
    >>> key_impl(key(0))
    'threefry2x32'
    """
    key_data_of("key_impl", keys, allow_batched=True)
    return _THREEFRY


def key_dtype(impl_spec: str | None = None) -> KeyDType:
    """The dtype of typed keys of the implementation ``impl_spec`` (default Threefry-2x32).

    >>> key_dtype()
    key<fry>
    """
    if impl_spec is not None and impl_spec != _THREEFRY:
        if impl_spec in ("rbg", "unsafe_rbg", "threefry4x32", "philox2x32", "philox4x32"):
            raise NotImplementedError(
                f"key_dtype: didax implements only the {_THREEFRY!r} PRNG, not {impl_spec!r}"
            )
        raise ValueError(f"key_dtype: unrecognized PRNG implementation {impl_spec!r}")
    return KEY_DTYPE


def clone(key: KeyLike) -> KeyLike:
    """``key`` itself: Threefry keys are values, so a clone is the same key (as JAX's)."""
    key_data_of("clone", key, allow_batched=True)
    return key


# --- helpers ---------------------------------------------------------------------------------


def _keys(key_data: Array, n: int) -> list[Array]:
    """``n`` keys split from one (JAX's ``_split(key, n)``, unpacked)."""
    keys = split_impl(key_data, (n,))
    return [lax.reshape(lax.slice(keys, (i, 0), (i + 1, 2)), (2,)) for i in range(n)]


def _const(x: Array, value: float) -> Array:
    """``value`` in ``x``'s dtype and shape (JAX's ``lax._const``, broadcast)."""
    aval = get_aval(x)
    out: Array = lax.full(aval.shape, value, aval.dtype)
    return out


def _sampler_shape(name: str, shape: Sequence[int] | None, *params: ArrayLike) -> Shape:
    """``shape``, or the parameters' broadcast shape (JAX's ``_check_broadcast_shapes``)."""
    param_shapes = [_shape_of(p) for p in params]
    if shape is None:
        return broadcast_shapes(name, *param_shapes) if param_shapes else ()
    out = shape_arg(shape, name)
    _check_shape(name, out, *param_shapes)
    return out


def _check_safe_cast(name: str, dtype: DType, *params: ArrayLike) -> None:
    """JAX's rule: a parameter's dtype promotes to ``dtype`` (weak scalars always do)."""
    for p in params:
        aval = get_aval(p)
        if aval.dtype == dtype:
            continue
        if dtypes.result_type([(aval.dtype, aval.weak_type), (dtype, False)])[0] != dtype:
            # JAX's TypePromotionError is a ValueError.
            raise ValueError(
                f"In arguments to {name}, cannot safely cast argument of type {aval.dtype} "
                f"to {dtype}"
            )


def _params(*params: ArrayLike) -> list[ArrayLike]:
    """Parameters as operands; Python scalars stay weak (traced as JAX traces them)."""
    return [_bound(p) for p in params]


def _promote_inexact(*args: ArrayLike) -> list[Array]:
    """JAX's ``promote_dtypes_inexact``: one inexact dtype, weakness kept, shapes kept."""
    vals = [operand(a) for a in args]
    dtype, weak = dtypes.result_type((get_aval(v).dtype, get_aval(v).weak_type) for v in vals)
    dtype = dtypes.to_inexact(dtype)
    return [astype(v, dtype, weak) for v in vals]


_Impl = Callable[[Array, Shape, DType], Array]


def _unparameterized(
    name: str, impl: _Impl
) -> Callable[[KeyLike, Sequence[int], DTypeLike], Array]:
    """A sampler ``(key, shape=(), dtype=None)`` drawing floats with ``impl`` (jitted)."""
    compiled = jit(impl, static_argnums=(1, 2))

    def sample(key: KeyLike, shape: Sequence[int] = (), dtype: DTypeLike = None) -> Array:
        data, _ = key_data_of(name, key)
        out: Array = compiled(data, shape_arg(shape, name), _float_dtype(name, dtype))
        return out

    return sample


# --- samplers without parameters --------------------------------------------------------------


def _exponential_impl(key_data: Array, shape: Shape, dtype: DType) -> Array:
    u = _uniform_impl(key_data, 0.0, 1.0, shape, dtype)
    # log1p(-u): the domain of the log is (0, 1], never 0.
    out: Array = lax.neg(lax.log1p(lax.neg(u)))
    return out


def _cauchy_impl(key_data: Array, shape: Shape, dtype: DType) -> Array:
    u = _uniform_impl(key_data, float(_finfo(dtype).eps), 1.0, shape, dtype)
    out: Array = lax.tan(lax.mul(_const(u, np.pi), lax.sub(u, _const(u, 0.5))))
    return out


def _laplace_impl(key_data: Array, shape: Shape, dtype: DType) -> Array:
    u = _uniform_impl(key_data, -1.0 + float(_finfo(dtype).epsneg), 1.0, shape, dtype)
    out: Array = lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))
    return out


def _logistic_impl(key_data: Array, shape: Shape, dtype: DType) -> Array:
    x = _uniform_impl(key_data, float(_finfo(dtype).tiny), 1.0, shape, dtype)
    out: Array = lax.sub(lax.log(x), lax.log1p(lax.neg(x)))
    return out


def _maxwell_impl(key_data: Array, shape: Shape, dtype: DType) -> Array:
    # The norm of three standard normals.
    return norm(_normal_impl(key_data, (*shape, 3), dtype), axis=-1)


_exponential_sample: Final = _unparameterized("exponential", _exponential_impl)
_cauchy_sample: Final = _unparameterized("cauchy", _cauchy_impl)
_laplace_sample: Final = _unparameterized("laplace", _laplace_impl)
_logistic_sample: Final = _unparameterized("logistic", _logistic_impl)
_maxwell_sample: Final = _unparameterized("maxwell", _maxwell_impl)


def exponential(key: KeyLike, shape: Sequence[int] = (), dtype: DTypeLike = None) -> Array:
    """Exponential floats (rate 1): ``-log1p(-u)`` of uniform ``u``.

    >>> from didax.api.prng import PRNGKey
    >>> exponential(PRNGKey(0), (3,))
    Array([2.950128  , 3.8434246 , 0.40390354], dtype=float32)
    """
    return _exponential_sample(key, shape, dtype)


def cauchy(key: KeyLike, shape: Sequence[int] = (), dtype: DTypeLike = None) -> Array:
    """Standard Cauchy floats: ``tan(pi * (u - 1/2))`` of uniform ``u`` in ``[eps, 1)``."""
    return _cauchy_sample(key, shape, dtype)


def laplace(key: KeyLike, shape: Sequence[int] = (), dtype: DTypeLike = None) -> Array:
    """Standard Laplace floats: ``sign(u) * log1p(-|u|)`` of uniform ``u`` in ``(-1, 1)``."""
    return _laplace_sample(key, shape, dtype)


def logistic(key: KeyLike, shape: Sequence[int] = (), dtype: DTypeLike = None) -> Array:
    """Standard logistic floats: ``log(u) - log1p(-u)`` of uniform ``u`` in ``[tiny, 1)``."""
    return _logistic_sample(key, shape, dtype)


def maxwell(key: KeyLike, shape: Sequence[int] = (), dtype: DTypeLike = None) -> Array:
    """Maxwell floats: the Euclidean norm of three standard normals."""
    return _maxwell_sample(key, shape, dtype)


def _rademacher_impl(key_data: Array, shape: Shape, dtype: DType) -> Array:
    half = lax.full((), 0.5, dtypes.default_float())
    b = lax.convert_element_type(_bernoulli_impl(key_data, half, shape, "low"), dtype)
    out: Array = lax.sub(lax.mul(lax.full(shape, 2, dtype), b), lax.full(shape, 1, dtype))
    return out


_rademacher_jit: Final = jit(_rademacher_impl, static_argnums=(1, 2))


def rademacher(key: KeyLike, shape: Sequence[int] = (), dtype: DTypeLike = None) -> Array:
    """-1 or 1 with equal probability (``2 * bernoulli(0.5) - 1``), of ``dtype`` (the default int).

    >>> from didax.api.prng import PRNGKey
    >>> rademacher(PRNGKey(0), (4,))
    Array([-1, -1,  1,  1], dtype=int32)
    """
    data, _ = key_data_of("rademacher", key)
    dt = dtypes.canonicalize(int if dtype is None else dtype)
    out: Array = _rademacher_jit(data, shape_arg(shape, "rademacher"), dt)
    return out


# --- samplers with parameters ------------------------------------------------------------------


def _float_params(
    name: str, key: KeyLike, shape: Sequence[int] | None, dtype: DTypeLike, *params: ArrayLike
) -> tuple[Operand, list[ArrayLike], Shape, DType]:
    """The key data, the parameters, the sample shape and the float dtype of a sampler call."""
    data, _ = key_data_of(name, key)
    dt = _float_dtype(name, dtype)
    vals = _params(*params)
    out_shape = _sampler_shape(name, shape, *vals)
    _check_safe_cast(name, dt, *vals)
    return data, vals, out_shape, dt


def _pareto_impl(key_data: Array, b: Array, shape: Shape, dtype: DType) -> Array:
    e = _exponential_impl(key_data, shape, dtype)
    out: Array = lax.exp(enp.divide(e, lax.convert_element_type(b, dtype)))
    return out


_pareto_jit: Final = jit(_pareto_impl, static_argnums=(2, 3))


def pareto(
    key: KeyLike, b: ArrayLike, shape: Sequence[int] | None = None, dtype: DTypeLike = None
) -> Array:
    """Pareto floats of shape parameter ``b``: ``exp(e / b)`` of exponential ``e``."""
    data, (bv,), out_shape, dt = _float_params("pareto", key, shape, dtype, b)
    out: Array = _pareto_jit(data, bv, out_shape, dt)
    return out


def _rayleigh_impl(key_data: Array, scale: Array, shape: Shape, dtype: DType) -> Array:
    u = _uniform_impl(key_data, 0.0, 1.0, shape, dtype)
    scale = _to_rank(lax.convert_element_type(scale, dtype), shape)
    root = lax.sqrt(lax.mul(lax.log(u), _const(scale, -2)))
    out: Array = lax.mul(scale, root)
    return out


_rayleigh_jit: Final = jit(_rayleigh_impl, static_argnums=(2, 3))


def rayleigh(
    key: KeyLike, scale: ArrayLike, shape: Sequence[int] | None = None, dtype: DTypeLike = None
) -> Array:
    """Rayleigh floats of ``scale``: ``scale * sqrt(-2 log u)`` of uniform ``u``."""
    data, (sv,), out_shape, dt = _float_params("rayleigh", key, shape, dtype, scale)
    out: Array = _rayleigh_jit(data, sv, out_shape, dt)
    return out


def _wald_impl(key_data: Array, mean: Array, shape: Shape, dtype: DType) -> Array:
    k1, k2 = _keys(key_data, 2)
    mean = _to_rank(lax.convert_element_type(mean, dtype), shape)
    v = _normal_impl(k1, shape, dtype)
    z = _uniform_impl(k2, 0.0, 1.0, shape, dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    root = lax.sqrt(enp.add(enp.multiply(enp.multiply(4, mean), y), enp.multiply(mean_sq, y_sq)))
    x = enp.subtract(
        enp.add(mean, enp.divide(enp.multiply(mean_sq, y), 2)),
        enp.multiply(enp.divide(mean, 2), root),
    )
    out: Array = lax.select(
        lax.le(z, enp.divide(mean, enp.add(mean, x))), x, enp.divide(mean_sq, x)
    )
    return out


_wald_jit: Final = jit(_wald_impl, static_argnums=(2, 3))


def wald(
    key: KeyLike, mean: ArrayLike, shape: Sequence[int] | None = None, dtype: DTypeLike = None
) -> Array:
    """Wald (inverse Gaussian, scale 1) floats of ``mean``: Michael, Schucany and Haas' method."""
    data, (mv,), out_shape, dt = _float_params("wald", key, shape, dtype, mean)
    out: Array = _wald_jit(data, mv, out_shape, dt)
    return out


def _triangular_impl(
    key_data: Array, left: Array, mode: Array, right: Array, shape: Shape, dtype: DType
) -> Array:
    left, mode, right = (
        _to_rank(lax.convert_element_type(v, dtype), shape) for v in (left, mode, right)
    )
    width = lax.sub(right, left)
    fc = lax.div(lax.sub(mode, left), width)
    u = _uniform_impl(key_data, 0.0, 1.0, shape, dtype)
    out1 = lax.add(left, lax.sqrt(lax.mul(lax.mul(u, width), lax.sub(mode, left))))
    rest = lax.sub(_const(u, 1), u)
    out2 = lax.sub(right, lax.sqrt(lax.mul(lax.mul(rest, width), lax.sub(right, mode))))
    out: Array = lax.select(lax.lt(u, fc), out1, out2)
    return out


_triangular_jit: Final = jit(_triangular_impl, static_argnums=(4, 5))


def triangular(
    key: KeyLike,
    left: ArrayLike,
    mode: ArrayLike,
    right: ArrayLike,
    shape: Sequence[int] | None = None,
    dtype: DTypeLike = None,
) -> Array:
    """Triangular floats on ``[left, right]`` peaking at ``mode`` (inverse CDF of uniform ``u``)."""
    data, vals, out_shape, dt = _float_params("triangular", key, shape, dtype, left, mode, right)
    out: Array = _triangular_jit(data, *vals, out_shape, dt)
    return out


def _lognormal_impl(key_data: Array, sigma: Array, shape: Shape, dtype: DType) -> Array:
    sigma = lax.convert_element_type(sigma, dtype)
    out: Array = lax.exp(enp.multiply(_normal_impl(key_data, shape, dtype), sigma))
    return out


_lognormal_jit: Final = jit(_lognormal_impl, static_argnums=(2, 3))


def lognormal(
    key: KeyLike,
    sigma: ArrayLike = _ONE_F32,
    shape: Sequence[int] | None = None,
    dtype: DTypeLike = None,
) -> Array:
    """Log-normal floats: ``exp(sigma * n)`` of standard normal ``n`` (real dtypes)."""
    data, (sv,), out_shape, dt = _float_params("lognormal", key, shape, dtype, sigma)
    out: Array = _lognormal_jit(data, sv, out_shape, dt)
    return out


def _weibull_min_impl(
    key_data: Array, scale: Array, concentration: Array, shape: Shape, dtype: DType
) -> Array:
    u = _uniform_impl(key_data, 0.0, 1.0, shape, dtype)
    # The inverse of Weibull's CDF.
    base = enp.negative(enp.log1p(enp.negative(u)))
    return enp.multiply(enp.power(base, enp.divide(1.0, concentration)), scale)


_weibull_min_jit: Final = jit(_weibull_min_impl, static_argnums=(3, 4))


def weibull_min(
    key: KeyLike,
    scale: ArrayLike,
    concentration: ArrayLike,
    shape: Sequence[int] = (),
    dtype: DTypeLike = None,
) -> Array:
    """Weibull floats: ``(-log1p(-u)) ** (1 / concentration) * scale`` of uniform ``u``."""
    data, _ = key_data_of("weibull_min", key)
    dt = _float_dtype("weibull_min", dtype)
    sv, cv = _params(scale, concentration)
    out: Array = _weibull_min_jit(data, sv, cv, shape_arg(shape, "weibull_min"), dt)
    return out


def _double_sided_maxwell_impl(
    key_data: Array, loc: Array, scale: Array, shape: Shape, dtype: DType
) -> Array:
    params_shape = broadcast_shapes("double_sided_maxwell", _shape_of(loc), _shape_of(scale))
    # JAX's shapes: the parameters' shape is appended to ``shape`` (or is it, for ``()``).
    full = (*(shape or params_shape), *params_shape)
    maxwell_key, sign_key = _keys(key_data, 2)
    magnitude = _maxwell_impl(maxwell_key, full, dtype)
    sign = _rademacher_impl(sign_key, full, dtype)
    return enp.add(enp.multiply(enp.multiply(sign, magnitude), scale), loc)


_double_sided_maxwell_jit: Final = jit(_double_sided_maxwell_impl, static_argnums=(3, 4))


def double_sided_maxwell(
    key: KeyLike,
    loc: ArrayLike,
    scale: ArrayLike,
    shape: Sequence[int] = (),
    dtype: DTypeLike = None,
) -> Array:
    """Double-sided Maxwell floats: a Maxwell sample with a random sign, scaled and shifted."""
    data, _ = key_data_of("double_sided_maxwell", key)
    dt = _float_dtype("double_sided_maxwell", dtype)
    lv, sv = _params(loc, scale)
    out: Array = _double_sided_maxwell_jit(
        data, lv, sv, shape_arg(shape, "double_sided_maxwell"), dt
    )
    return out


def _geometric_impl(key_data: Array, p: Array, shape: Shape, dtype: DType) -> Array:
    (p,) = _promote_inexact(p)
    u = _uniform_impl(key_data, 0.0, 1.0, shape, get_aval(p).dtype)
    # JAX maps u = 0 to 1 (no infinite log), keeping every other sample.
    u = enp.where(enp.equal(u, 0), 1, u)
    log_one_minus_p = _to_rank(lax.log1p(lax.neg(p)), shape)
    g = enp.add(lax.floor(lax.div(lax.log(u), log_one_minus_p)), 1)
    out: Array = lax.convert_element_type(g, dtype)
    return out


_geometric_jit: Final = jit(_geometric_impl, static_argnums=(2, 3))


def geometric(
    key: KeyLike, p: ArrayLike, shape: Sequence[int] | None = None, dtype: DTypeLike = None
) -> Array:
    """Geometric integers (trials to the first success): ``floor(log u / log1p(-p)) + 1``."""
    data, _ = key_data_of("geometric", key)
    dt = dtypes.canonicalize(int if dtype is None else dtype)
    if not dtypes.is_integer(dt):
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dt}")
    (pv,) = _params(p)
    out: Array = _geometric_jit(data, pv, _sampler_shape("geometric", shape, pv), dt)
    return out


# --- matrices -----------------------------------------------------------------------------------


def _orthogonal_impl(key_data: Array, n: int, m: int, shape: Shape, dtype: DType) -> Array:
    z = _normal_impl(key_data, (*shape, max(n, m), min(n, m)), dtype)
    q, r = decompositions.qr(z)
    d = matrices.diagonal(r, axis1=-2, axis2=-1)
    # Signs of R's diagonal into Q's columns: Haar-distributed (Mezzadri's correction).
    x = enp.multiply(q, mnp.expand_dims(enp.sign(d), -2))
    return matrix_transpose(x) if n < m else x


_orthogonal_jit: Final = jit(_orthogonal_impl, static_argnums=(1, 2, 3, 4))


def orthogonal(
    key: KeyLike, n: int, shape: Sequence[int] = (), dtype: DTypeLike = None, m: int | None = None
) -> Array:
    """Haar-random ``n x m`` matrices with orthonormal columns (or rows), batched by ``shape``."""
    data, _ = key_data_of("orthogonal", key)
    dt = dtypes.canonicalize(float if dtype is None else dtype)
    rows, cols = _static_size("orthogonal", n), _static_size("orthogonal", n if m is None else m)
    out: Array = _orthogonal_jit(data, rows, cols, shape_arg(shape, "orthogonal"), dt)
    return out


def _static_size(name: str, x: object) -> int:
    try:
        return int(np.asarray(x).item()) if not isinstance(x, int) else x
    except Exception:
        raise TypeError(f"{name}: a size must be a concrete integer, got {x!r}") from None


def _multivariate_normal_impl(
    key_data: Array, mean: Array, cov: Array, shape: Shape | None, dtype: DType, method: str
) -> Array:
    mean_shape, cov_shape = _shape_of(mean), _shape_of(cov)
    if len(mean_shape) < 1:
        raise ValueError(
            f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {len(mean_shape)}"
        )
    if len(cov_shape) < 2:
        raise ValueError(
            f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {len(cov_shape)}"
        )
    n = mean_shape[-1]
    if cov_shape[-2:] != (n, n):
        raise ValueError(
            f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
            f"but got cov.shape == {cov_shape}."
        )
    if shape is None:
        shape = broadcast_shapes("multivariate_normal", mean_shape[:-1], cov_shape[:-2])
    else:
        _check_shape("normal", shape, mean_shape[:-1], cov_shape[:-2])
    if method == "svd":
        u, s, _ = decompositions.svd(cov)
        factor = enp.multiply(u, enp.sqrt(mnp.expand_dims(s, -2)))
    elif method == "eigh":
        w, v = decompositions.eigh(cov)
        factor = enp.multiply(v, enp.sqrt(mnp.expand_dims(w, -2)))
    else:
        factor = decompositions.cholesky(cov)
    samples = _normal_impl(key_data, (*shape, n), dtype)
    return enp.add(mean, contractions.einsum("...ij,...j->...i", factor, samples))


_multivariate_normal_jit: Final = jit(_multivariate_normal_impl, static_argnums=(3, 4, 5))


def multivariate_normal(
    key: KeyLike,
    mean: ArrayLike,
    cov: ArrayLike,
    shape: Sequence[int] | None = None,
    dtype: DTypeLike = None,
    method: str = "cholesky",
) -> Array:
    """Normal vectors of ``mean`` and covariance ``cov``: ``mean + factor @ n``.

    ``factor`` is ``cov``'s Cholesky factor (``method='cholesky'``), or
    ``u * sqrt(s)`` of its SVD or eigendecomposition (``'svd'``, ``'eigh'``:
    for singular covariances). The result has shape ``shape + mean.shape[-1:]``.
    """
    data, _ = key_data_of("multivariate_normal", key)
    mv, cv = _promote_inexact(mean, cov)
    if method not in ("svd", "eigh", "cholesky"):
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    dt = get_aval(mv).dtype if dtype is None else dtypes.canonicalize(dtype)
    if not dtypes.is_float(dt):
        raise ValueError(f"dtype argument to `multivariate_normal` must be a float dtype, got {dt}")
    out_shape = None if shape is None else shape_arg(shape, "multivariate_normal")
    out: Array = _multivariate_normal_jit(data, mv, cv, out_shape, dt, method)
    return as_result(out)
