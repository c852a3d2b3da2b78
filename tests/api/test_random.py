"""didax.random against jax.random: the same keys, bits and samples, bit for bit.

Every sampler is compared with JAX (x64 on, ``jax_threefry_partitionable``
at JAX's default) for several seeds, shapes and dtypes: integers exactly,
floats to the bit (values, dtypes, shapes and weak types), eagerly, under
``didax.jit``, and under ``vmap`` over keys; derivatives of reparameterized
samples equal JAX's. Raw keys (``PRNGKey``) and typed keys (``key``) are
both taken everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import jax.random as jr
import numpy as np
import pytest

import didax as dx
import didax.random as dr
from didax.api import random as random_impl

SEEDS: Final = [0, 1, 42, -7, 2**40 + 3]
FLOATS: Final = [np.float32, np.float64]
SHAPES: Final = [(), (1,), (5,), (3, 4)]
# Most tests sample this shape: the samplers are jitted (in JAX and didax
# alike), so one shape and dtype compiles once for the whole file.
SHAPE: Final = (3, 4)


def _same(got: Any, want: Any) -> None:
    """Equal bits, dtypes, shapes and weak types."""
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype, (g.dtype, w.dtype)
    assert g.shape == w.shape, (g.shape, w.shape)
    if g.dtype.kind == "f" or g.dtype == jnp.bfloat16:
        width = f"u{g.dtype.itemsize}"
        np.testing.assert_array_equal(g.view(width), w.view(width))
    else:
        np.testing.assert_array_equal(g, w)
    assert getattr(got, "weak_type", False) == getattr(want, "weak_type", False)


def _keys(seed: int) -> tuple[Any, Any]:
    return dr.PRNGKey(seed), jr.PRNGKey(seed)


# --- keys ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "seed", [*SEEDS, np.int32(-1), np.uint32(7), np.int8(-3), np.uint64(2**63 + 5)], ids=repr
)
def test_prng_key_from_seed(seed: Any) -> None:
    _same(dr.PRNGKey(seed), jr.PRNGKey(seed))
    _same(dr.key_data(dr.key(seed)), jr.key_data(jr.key(seed)))


def test_seed_under_jit_and_vmap_and_refusals() -> None:
    _same(dx.jit(dr.PRNGKey)(np.int64(9)), jax.jit(jr.PRNGKey)(np.int64(9)))
    seeds = np.array([0, 5, -2])
    _same(dx.vmap(dr.PRNGKey)(seeds), jax.vmap(jr.PRNGKey)(seeds))
    with pytest.raises(TypeError, match="scalar seed"):
        dr.PRNGKey(np.arange(2))
    with pytest.raises(TypeError, match="integer"):
        dr.PRNGKey(1.5)
    a_key: Any = dr.key(0)  # not a seed: refused at run time
    with pytest.raises(TypeError, match="PRNG key"):
        dr.key(a_key)


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("num", [2, 3, (2, 3), ()])
def test_split(seed: int, num: Any) -> None:
    d, j = _keys(seed)
    _same(dr.split(d, num), jr.split(j, num))
    _same(dr.key_data(dr.split(dr.key(seed), num)), jr.key_data(jr.split(jr.key(seed), num)))


@pytest.mark.parametrize(
    "data", [0, 1, 12345, 2**32 - 1, np.uint32(77), np.int32(5), np.int64(-3)], ids=repr
)
def test_fold_in(data: Any) -> None:
    d, j = _keys(3)
    _same(dr.fold_in(d, data), jr.fold_in(j, data))
    _same(dr.key_data(dr.fold_in(dr.key(3), data)), jr.key_data(jr.fold_in(jr.key(3), data)))


def test_keys_under_jit_and_vmap() -> None:
    d, j = _keys(11)
    _same(dx.jit(lambda k: dr.split(k, 4))(d), jax.jit(lambda k: jr.split(k, 4))(j))
    _same(dx.jit(dr.fold_in)(d, np.uint32(8)), jax.jit(jr.fold_in)(j, np.uint32(8)))
    ks_d, ks_j = dr.split(d, 3), jr.split(j, 3)
    _same(dx.vmap(dr.split)(ks_d), jax.vmap(jr.split)(ks_j))
    data = np.arange(3)
    _same(dx.vmap(dr.fold_in)(ks_d, data), jax.vmap(jr.fold_in)(ks_j, data))
    typed = dx.jit(lambda k: dr.split(k))(dr.key(11))
    assert isinstance(typed, dr.PRNGKeyArray)
    assert typed.shape == (2,)
    _same(dr.key_data(typed), jr.key_data(jr.split(jr.key(11))))


def test_typed_keys_behave_as_jax_key_arrays() -> None:
    k, jk = dr.key(5), jr.key(5)
    assert k.shape == jk.shape == ()
    assert (k.ndim, k.size) == (0, 1)
    assert repr(k.dtype) == "key<fry>"
    assert repr(k) == repr(jk)
    ks, jks = dr.split(k, 4), jr.split(jk, 4)
    assert len(ks) == 4
    assert ks.shape == (4,)
    _same(dr.key_data(ks[2]), jr.key_data(jks[2]))
    _same(dr.key_data(ks[1:3]), jr.key_data(jks[1:3]))
    assert [np.asarray(dr.key_data(x)).tolist() for x in ks] == np.asarray(
        jr.key_data(jks)
    ).tolist()
    _same(ks == dr.split(k, 4), jks == jr.split(jk, 4))
    _same(ks[0] != ks[1], jks[0] != jks[1])
    wrapped = dr.wrap_key_data(dr.key_data(ks))
    _same(dr.key_data(wrapped), jr.key_data(jr.wrap_key_data(jr.key_data(jks))))
    with pytest.raises(TypeError):
        hash(k)


def test_key_refusals() -> None:
    with pytest.raises(ValueError, match="single key"):
        dr.uniform(dr.split(dr.PRNGKey(0)), (2,))
    with pytest.raises(ValueError, match="single key"):
        dr.split(dr.split(dr.key(0)))
    with pytest.raises(TypeError, match="uint32"):
        dr.normal(np.zeros(2, np.int32))
    with pytest.raises(TypeError, match="uint32"):
        dr.normal(np.zeros(3, np.uint32))
    with pytest.raises(TypeError, match="scalar"):
        dr.fold_in(dr.PRNGKey(0), np.arange(2))
    with pytest.raises(OverflowError, match="uint32"):
        dr.fold_in(dr.PRNGKey(0), -1)


# --- bits and floats -------------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [None, np.uint8, np.uint16, np.uint32, np.uint64], ids=str)
def test_bits(dtype: Any, shape: tuple[int, ...]) -> None:
    d, j = _keys(2)
    _same(dr.bits(d, shape, dtype), jr.bits(j, shape, dtype))


@pytest.mark.parametrize("dtype", [*FLOATS, np.float16, jnp.bfloat16], ids=str)
def test_uniform(dtype: Any) -> None:
    for seed in SEEDS:
        d, j = _keys(seed)
        _same(dr.uniform(d, SHAPE, dtype), jr.uniform(j, SHAPE, dtype))
    _same(dr.uniform(dr.key(1), SHAPE, dtype), jr.uniform(jr.key(1), SHAPE, dtype))


def test_uniform_bounds_and_defaults() -> None:
    d, j = _keys(4)
    _same(dr.uniform(d), jr.uniform(j))
    _same(dr.uniform(d, SHAPE, np.float32, -2.0, 5.0), jr.uniform(j, SHAPE, np.float32, -2.0, 5.0))
    lo, hi = np.array([0.0, 10.0, 3.0, 4.0]), np.array([[1.0], [100.0], [5.0]])
    _same(dr.uniform(d, SHAPE, minval=lo, maxval=hi), jr.uniform(j, SHAPE, minval=lo, maxval=hi))
    with pytest.raises(ValueError, match="float dtype"):
        dr.uniform(d, (2,), np.int32)
    with pytest.raises(ValueError, match="float or complex dtype"):
        dr.normal(d, (2,), np.int32)


@pytest.mark.parametrize("shape", [(), SHAPE], ids=str)
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_normal(shape: tuple[int, ...], dtype: Any) -> None:
    for seed in SEEDS:
        d, j = _keys(seed)
        _same(dr.normal(d, shape, dtype), jr.normal(j, shape, dtype))


def test_normal_of_a_large_and_half_precision_shape() -> None:
    # Large enough that the hash's rounds are unrolled (random_impl.UNROLL_FROM).
    d, j = _keys(8)
    shape = (random_impl.UNROLL_FROM + 3,)
    _same(dr.normal(d, shape, np.float32), jr.normal(j, shape, np.float32))
    _same(dr.normal(d, (6,), np.float16), jr.normal(j, (6,), np.float16))
    _same(dr.normal(dr.key(8), (6,), jnp.bfloat16), jr.normal(jr.key(8), (6,), jnp.bfloat16))
    # A complex dtype: real and imaginary parts from split keys, as JAX's.
    _same(dr.normal(d, (2, 3), np.complex64), jr.normal(j, (2, 3), np.complex64))


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize(
    ("lower", "upper", "shape"),
    [
        (-1.5, 2.0, (6,)),
        (-np.inf, 0.5, (4,)),
        (np.array([-1.0, 0.0, 2.0]), 3.0, None),
        (0.0, np.array([[1.0], [2.0]]), (2, 3)),
    ],
    ids=["scalars", "half-infinite", "array-lower", "broadcast"],
)
def test_truncated_normal(dtype: Any, lower: Any, upper: Any, shape: Any) -> None:
    d, j = _keys(6)
    got = dr.truncated_normal(d, lower, upper, shape, dtype)
    _same(got, jr.truncated_normal(j, lower, upper, shape, dtype))
    assert np.all(np.asarray(got) > lower)
    assert np.all(np.asarray(got) < upper)


# --- discrete samplers --------------------------------------------------------------------------


@pytest.mark.parametrize("p", [0.3, np.array([0.1, 0.5, 0.7, 0.9], np.float32)], ids=repr)
@pytest.mark.parametrize("mode", ["low", "high"])
def test_bernoulli(p: Any, mode: str) -> None:
    d, j = _keys(1)
    _same(dr.bernoulli(d, p, SHAPE, mode), jr.bernoulli(j, p, SHAPE, mode))


def test_bernoulli_default_shape_and_refusal() -> None:
    d, j = _keys(1)
    _same(dr.bernoulli(d, np.full(SHAPE, 0.25)), jr.bernoulli(j, np.full(SHAPE, 0.25)))
    with pytest.raises(TypeError, match="floating"):
        dr.bernoulli(d, 1)


INT_DTYPES: Final = [np.int8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_randint_dtypes(dtype: Any) -> None:
    d, j = _keys(5)
    _same(dr.randint(d, SHAPE, -5, 300, dtype), jr.randint(j, SHAPE, -5, 300, dtype))


@pytest.mark.parametrize(
    ("lo", "hi", "dtype"),
    [
        (0, 10, None),
        (np.array([0, 10, 20, 30]), 100, None),
        (0, 256, np.uint8),
        (5, 3, None),
        (-(2**63), 2**63 - 1, np.int64),
        (0, 2**32, np.uint32),
    ],
    ids=["small", "array", "u8-past-max", "empty", "int64-range", "u32-range"],
)
def test_randint_bounds(lo: Any, hi: Any, dtype: Any) -> None:
    d, j = _keys(9)
    _same(dr.randint(d, SHAPE, lo, hi, dtype), jr.randint(j, SHAPE, lo, hi, dtype))


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("mode", ["low", "high", "highest"])
def test_gumbel(dtype: Any, mode: str) -> None:
    d, j = _keys(12)
    _same(dr.gumbel(d, SHAPE, dtype, mode), jr.gumbel(j, SHAPE, dtype, mode))


LOGITS: Final = np.log(np.array([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]]))


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"axis": 0},
        {"shape": (5, 2)},
        {"shape": (2, 2), "replace": False},
        {"axis": 0, "shape": (2, 3), "replace": False},
        {"mode": "high"},
    ],
    ids=str,
)
def test_categorical(kwargs: dict[str, Any]) -> None:
    d, j = _keys(13)
    _same(dr.categorical(d, LOGITS, **kwargs), jr.categorical(j, LOGITS, **kwargs))


@pytest.mark.parametrize(
    ("x", "kwargs"),
    [
        (10, {}),
        (np.arange(7.0), {}),
        (np.arange(24).reshape(4, 6), {}),
        (np.arange(24).reshape(4, 6), {"axis": 1}),
        (np.arange(24.0).reshape(4, 6), {"axis": 1, "independent": True}),
    ],
    ids=["int", "vector", "rows", "columns", "independent"],
)
def test_permutation(x: Any, kwargs: dict[str, Any]) -> None:
    d, j = _keys(14)
    _same(dr.permutation(d, x, **kwargs), jr.permutation(j, x, **kwargs))


def test_permutation_of_many_elements_takes_two_rounds() -> None:
    # JAX's static round count: two sorts from about 1700 elements on.
    d, j = _keys(15)
    _same(dr.permutation(d, 2000), jr.permutation(j, 2000))


P: Final = np.array([0.1, 0.2, 0.3, 0.4])
A2: Final = np.arange(24.0).reshape(4, 6)


@pytest.mark.parametrize(
    ("a", "kwargs"),
    [
        (10, {"shape": (4,)}),
        (10, {"shape": (2, 3), "replace": False}),
        (4, {"shape": (6,), "p": P}),
        (4, {"shape": (3,), "replace": False, "p": P}),
        (A2, {"shape": (2,)}),
        (A2, {"shape": (2,), "replace": False, "axis": 1}),
        (A2, {"shape": (3, 2), "axis": 1, "p": np.full(6, 1 / 6)}),
        (A2, {"shape": (3,), "replace": False, "p": P}),
        (7, {}),
        (7, {"shape": (0,)}),
    ],
    ids=[
        "int",
        "int-noreplace",
        "p",
        "p-noreplace",
        "rows",
        "columns-noreplace",
        "columns-p",
        "rows-p-noreplace",
        "scalar",
        "empty",
    ],
)
def test_choice(a: Any, kwargs: dict[str, Any]) -> None:
    d, j = _keys(16)
    _same(dr.choice(d, a, **kwargs), jr.choice(j, a, **kwargs))


def test_choice_refusals() -> None:
    d = dr.PRNGKey(0)
    with pytest.raises(ValueError, match="larger sample"):
        dr.choice(d, 3, (4,), replace=False)
    with pytest.raises(TypeError, match="sequence"):
        dr.choice(d, 3, 4)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="1D vector"):
        dr.choice(d, 3, (2,), p=np.ones(4) / 4)


# --- transformations -----------------------------------------------------------------------------

SAMPLERS: Final[dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]]] = {
    "normal": (lambda k: dr.normal(k, (3,)), lambda k: jr.normal(k, (3,))),
    "truncated_normal": (
        lambda k: dr.truncated_normal(k, -1.0, 1.0, (3,)),
        lambda k: jr.truncated_normal(k, -1.0, 1.0, (3,)),
    ),
    "randint": (lambda k: dr.randint(k, (3,), 0, 9), lambda k: jr.randint(k, (3,), 0, 9)),
    "permutation": (lambda k: dr.permutation(k, 5), lambda k: jr.permutation(k, 5)),
    "categorical": (lambda k: dr.categorical(k, LOGITS), lambda k: jr.categorical(k, LOGITS)),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_samplers_under_jit_and_vmap_over_keys(name: str) -> None:
    dfn, jfn = SAMPLERS[name]
    d, j = _keys(17)
    _same(dx.jit(dfn)(d), jax.jit(jfn)(j))
    _same(dx.vmap(dfn)(dr.split(d, 4)), jax.vmap(jfn)(jr.split(j, 4)))


def test_vmap_over_typed_keys_and_jit_of_vmap() -> None:
    sample_d = lambda k: dr.normal(k, (3,))  # noqa: E731
    sample_j = lambda k: jr.normal(k, (3,))  # noqa: E731
    _same(dx.vmap(sample_d)(dr.split(dr.key(0), 5)), jax.vmap(sample_j)(jr.split(jr.key(0), 5)))
    d, j = _keys(0)
    _same(dx.jit(dx.vmap(sample_d))(dr.split(d, 5)), jax.jit(jax.vmap(sample_j))(jr.split(j, 5)))
    seeds = np.arange(4)
    _same(
        dx.vmap(lambda s: dr.uniform(dr.PRNGKey(s), (2,)))(seeds),
        jax.vmap(lambda s: jr.uniform(jr.PRNGKey(s), (2,)))(seeds),
    )


def test_grad_of_reparameterized_samples() -> None:
    d, j = _keys(21)
    # (Values and dtypes: didax's grad gives a strong float64 for a weak
    # Python float argument where JAX's gives a weak one, whatever the function.)
    g = dx.grad(lambda mu: (mu + dr.normal(d, ())).sum())(1.0)
    want_g = jax.grad(lambda mu: (mu + jr.normal(j, ())).sum())(1.0)
    assert np.asarray(g).dtype == want_g.dtype
    assert float(g) == float(want_g) == 1.0

    def loc_scale(mod: Any, key: Any) -> Callable[[Any, Any], Any]:
        return lambda mu, s: (mu + s * mod.normal(key, (4,)) ** 2).sum()

    got = dx.grad(loc_scale(dr, d), argnums=(0, 1))(np.float64(0.5), np.float64(2.0))
    want = jax.grad(loc_scale(jr, j), argnums=(0, 1))(np.float64(0.5), np.float64(2.0))
    for a, b in zip(got, want, strict=True):
        _same(a, b)

    def bounds(mod: Any, key: Any) -> Callable[[Any, Any], Any]:
        return lambda a, b: mod.uniform(key, (3,), minval=a, maxval=b).sum()

    got = dx.grad(bounds(dr, d), argnums=(0, 1))(-1.0, 2.0)
    want = jax.grad(bounds(jr, j), argnums=(0, 1))(-1.0, 2.0)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-14)
    np.testing.assert_allclose(dx.jit(dx.grad(bounds(dr, d)))(-1.0, 2.0), want[0], rtol=1e-14)

    def truncated(mod: Any, key: Any) -> Callable[[Any, Any], Any]:
        return lambda a, b: mod.truncated_normal(key, a, b, (3,)).sum()

    got = dx.grad(truncated(dr, d), argnums=(0, 1))(-1.0, 2.0)
    want = jax.grad(truncated(jr, j), argnums=(0, 1))(-1.0, 2.0)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_threefry_rolled_and_unrolled_agree_with_jax() -> None:
    from jax._src.random.threefry2x32 import threefry_2x32

    d, j = _keys(23)
    counts = np.arange(7, dtype=np.uint32) * np.uint32(2654435761)
    _same(random_impl.threefry_2x32(d, counts), threefry_2x32(j, counts))
    u32 = lambda v: np.asarray(v, np.uint32)  # noqa: E731
    words = (u32(1), u32(2), u32(np.arange(5)), u32(np.arange(5, 10)))
    rolled = random_impl.threefry2x32(*words, unrolled=False)
    unrolled = random_impl.threefry2x32(*words, unrolled=True)
    for a, b in zip(rolled, unrolled, strict=True):
        _same(a, b)
    jitted = dx.jit(lambda *w: random_impl.threefry2x32(*w, unrolled=True))(*words)
    for a, b in zip(jitted, rolled, strict=True):
        _same(a, b)
