"""The rest of jax.numpy (issue 29) against JAX: values, dtypes, jit, grad, vmap, both x64 modes.

Each case is a function of a numpy module (``jnp`` or ``dnp``). The
traceable cases run eagerly one by one, then all together in one jitted
program per library (one compilation each, so the table stays cheap), and
again in one jitted program with the 32-bit defaults (``x64_off``). The
cases whose result's shape depends on values (sets, ``trim_zeros``, ...)
run eagerly. Gradients of the differentiable cases are one jitted
``grad`` of a weighted sum per library, checked against finite
differences for a few; the methods of ``Array`` and of tracers are
compared the same way.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Iterable
from typing import Any

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp

Case = Callable[[Any], Any]

rng = np.random.RandomState(0)
M = rng.randn(3, 4)
K = rng.randint(0, 5, (3, 7))
U8 = rng.randint(0, 4, (2, 9)).astype(np.uint8)
V = np.array([3.0, -1.0, 2.5, 0.5])
P = np.array([1.0, -3.0, 2.0])
PTS = rng.randn(20, 3)
W = rng.uniform(size=20)
PH = np.cumsum(rng.uniform(-2.5, 2.5, 12))
BOOLS = rng.randint(0, 2, (3, 11)).astype(bool)
# Edge values: zeros of both signs, infinities, NaN, huge and tiny (normal) magnitudes.
EDGE = np.array([0.0, -0.0, 1.0, -8.0, 27.5, np.inf, -np.inf, np.nan, 1e300, -1e-300, 3e-308])
EXP = np.array([1, -2, 3, 0, 5, 2, -1, 4, 30, -5, 10])


def _ufunc(np_: Any) -> Any:
    return np_.frompyfunc(lambda a, b: a * b + a, 2, 1, identity=0)


# Traceable cases: eager, and all in one jitted program.
CASES: dict[str, Case] = {
    "cbrt": lambda np_: np_.cbrt(np_.asarray(EDGE)),
    "nextafter": lambda np_: np_.nextafter(np_.asarray(EDGE), 1.0),
    "spacing": lambda np_: np_.spacing(np_.asarray(EDGE)),
    "frexp": lambda np_: np_.frexp(np_.asarray(EDGE)),
    "ldexp": lambda np_: np_.ldexp(np_.asarray(EDGE), np_.asarray(EXP)),
    "ldexp_big": lambda np_: np_.ldexp(np_.asarray([1e-300, 0.5]), np_.asarray([1900, 1024])),
    "i0": lambda np_: np_.i0(np_.asarray([0.0, 0.5, -3.0, 30.0, 700.0, np.inf])),
    "unwrap": lambda np_: np_.unwrap(np_.asarray(PH)),
    "unwrap_int": lambda np_: np_.unwrap(np_.asarray([0, 5, 10, 1]), period=8),
    "sort_complex": lambda np_: np_.sort_complex(np_.asarray(K)),
    "bartlett": lambda np_: np_.bartlett(6),
    "blackman": lambda np_: np_.blackman(7),
    "hamming": lambda np_: np_.hamming(1),
    "hanning": lambda np_: np_.hanning(5),
    "kaiser": lambda np_: np_.kaiser(6, 3.0),
    "partition": lambda np_: np_.partition(np_.asarray(K), 2),
    "partition_0": lambda np_: np_.partition(np_.asarray(M), 1, axis=0),
    "argpartition": lambda np_: np_.argpartition(np_.asarray(K), 3),
    "argpartition_u8": lambda np_: np_.argpartition(np_.asarray(U8), 0, axis=1),
    "lexsort": lambda np_: np_.lexsort([np_.asarray(K[0]), np_.asarray(K[1] % 2)]),
    "compress_size": lambda np_: np_.compress(
        np_.asarray([True, False, True]), np_.asarray(M), 0, size=2
    ),
    "extract_size": lambda np_: np_.extract(
        np_.asarray(M > 0), np_.asarray(M), size=8, fill_value=-9
    ),
    "choose_wrap": lambda np_: np_.choose(
        np_.asarray([0, 3, -1, 1]), [np_.asarray(V), 10.0], mode="wrap"
    ),
    "choose_clip": lambda np_: np_.choose(
        np_.asarray([0, 3, -1, 1]), [np_.asarray(V), 10.0], mode="clip"
    ),
    "insert": lambda np_: np_.insert(np_.asarray(M), 1, 9.0, axis=1),
    "insert_many": lambda np_: np_.insert(
        np_.asarray(V), np_.asarray([0, -1, 9]), np_.asarray([7.0, 8.0, 9.0])
    ),
    "insert_slice": lambda np_: np_.insert(np_.asarray(K), slice(0, 3), 5, axis=0),
    "delete": lambda np_: np_.delete(np_.asarray(M), 1, axis=1),
    "delete_slice": lambda np_: np_.delete(np_.asarray(K), slice(0, None, 2), axis=1),
    "delete_unique": lambda np_: np_.delete(
        np_.asarray(K), np_.asarray([0, 2]), axis=1, assume_unique_indices=True
    ),
    "place": lambda np_: np_.place(
        np_.asarray(K), np_.asarray(K % 3 == 0), np_.asarray([50, 60]), inplace=False
    ),
    "put": lambda np_: np_.put(
        np_.asarray(M), np_.asarray([0, 5, 20]), np_.asarray([-1.0, -2.0]), inplace=False
    ),
    "put_clip": lambda np_: np_.put(
        np_.asarray(M), np_.asarray([0, 20]), 7.0, mode="clip", inplace=False
    ),
    "put_wrap": lambda np_: np_.put(
        np_.asarray(M), np_.asarray([-1, 13]), 7.0, mode="wrap", inplace=False
    ),
    "put_along_axis": lambda np_: np_.put_along_axis(
        np_.asarray(M), np_.asarray([[0], [2], [3]]), 9.0, 1, inplace=False
    ),
    "fill_diagonal": lambda np_: np_.fill_diagonal(
        np_.asarray(M), np_.asarray([1.0, 2.0]), inplace=False
    ),
    "resize": lambda np_: np_.resize(np_.asarray(V), (3, 3)),
    "block": lambda np_: np_.block([[np_.asarray(M), np_.zeros((3, 1))], [np_.ones((1, 4)), 5.0]]),
    "poly": lambda np_: np_.poly(np_.asarray(V)),
    "polyadd": lambda np_: np_.polyadd(np_.asarray([1, 2]), np_.asarray([1, 2, 3, 4])),
    "polysub": lambda np_: np_.polysub(np_.asarray(P), np_.asarray(V)),
    "polymul": lambda np_: np_.polymul(np_.asarray(P), np_.asarray(V)),
    "polydiv": lambda np_: np_.polydiv(np_.asarray(V), np_.asarray(P)),
    "polyder": lambda np_: np_.polyder(np_.asarray(V), 2),
    "polyint": lambda np_: np_.polyint(np_.asarray(V), 2, k=np_.asarray([1.0, 2.0])),
    "vander": lambda np_: np_.vander(np_.asarray(V), 3, increasing=True),
    "polyfit": lambda np_: np_.polyfit(np_.asarray(PTS[:, 0]), np_.asarray(PTS[:, 1]), 2),
    "polyfit_full": lambda np_: np_.polyfit(
        np_.asarray(PTS[:, 0]), np_.asarray(PTS[:, 1:]), 1, full=True
    ),
    "polyfit_cov": lambda np_: np_.polyfit(
        np_.asarray(PTS[:, 0]), np_.asarray(PTS[:, 1]), 1, w=np_.asarray(W), cov=True
    ),
    "apply_along_axis": lambda np_: np_.apply_along_axis(lambda v: v * v.sum(), 0, np_.asarray(M)),
    "apply_over_axes": lambda np_: np_.apply_over_axes(np_.sum, np_.asarray(M), [0, 1]),
    "fromfunction": lambda np_: np_.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=int),
    "vectorize": lambda np_: np_.vectorize(lambda a, b: a * b + 1)(
        np_.asarray(V), np_.asarray(M[:, :1])
    ),
    "vectorize_signature": lambda np_: np_.vectorize(
        lambda m, v: m @ v, signature="(m,n),(n)->(m)"
    )(np_.asarray(M[None]), np_.asarray(V)),
    "ufunc_call": lambda np_: _ufunc(np_)(np_.asarray(M), 2.0),
    "ufunc_outer": lambda np_: _ufunc(np_).outer(np_.asarray(V), np_.asarray(P)),
    "ufunc_reduce": lambda np_: _ufunc(np_).reduce(np_.asarray(M), axis=1),
    "ufunc_reduce_initial": lambda np_: _ufunc(np_).reduce(
        np_.asarray(M), axis=0, keepdims=True, initial=1.0
    ),
    "ufunc_accumulate": lambda np_: _ufunc(np_).accumulate(np_.asarray(M), axis=1),
    "ufunc_at": lambda np_: _ufunc(np_).at(
        np_.asarray(V), np_.asarray([0, 0, 3]), np_.asarray([1.0, 2.0, 3.0]), inplace=False
    ),
    "histogram2d": lambda np_: np_.histogram2d(
        np_.asarray(PTS[:, 0]),
        np_.asarray(PTS[:, 1]),
        bins=(3, 4),
        weights=np_.asarray(W),
        density=True,
    ),
    "histogram2d_edges": lambda np_: np_.histogram2d(
        np_.asarray(PTS[:, 0]), np_.asarray(PTS[:, 1]), bins=np_.asarray([-2.0, 0.0, 1.0, 2.0])
    ),
    "histogramdd": lambda np_: np_.histogramdd(
        np_.asarray(PTS), bins=[2, 3, 4], range=[(-2, 2), None, (-1, 1)]
    ),
    "packbits": lambda np_: np_.packbits(np_.asarray(BOOLS), axis=1),
    "packbits_little": lambda np_: np_.packbits(np_.asarray(BOOLS), bitorder="little"),
    "unpackbits": lambda np_: np_.unpackbits(np_.asarray(U8 * 60), axis=0, count=3),
    "astype": lambda np_: np_.astype(np_.asarray(M * 3), np_.int8),
    "copy": lambda np_: np_.copy(np_.asarray(K)),
    "scalar_types": lambda np_: [
        getattr(np_, n)(3)
        for n in ("bool", "float_", "int_", "uint", "single", "double", "csingle", "cdouble")
    ],
}

# Cases whose result's length depends on the values: concrete only. With ``size=`` JAX
# runs them under jit, so its results come from one jitted program; a few without
# ``size=`` are compared with JAX's eager results.
SIZED_CASES: dict[str, Case] = {
    "unique_all": lambda np_: np_.unique_all(np_.asarray(K), size=6, fill_value=-1),
    "unique_counts": lambda np_: np_.unique_counts(np_.asarray(K[0]), size=3),
    "unique_inverse": lambda np_: np_.unique_inverse(np_.asarray(K), size=5),
    "unique_values": lambda np_: np_.unique_values(np_.asarray(M.round()), size=4),
    "union1d": lambda np_: np_.union1d(np_.asarray(K[0]), np_.asarray(V), size=12),
    "intersect1d": lambda np_: np_.intersect1d(
        np_.asarray(K[0]), np_.asarray(K[1]), return_indices=True, size=5
    ),
    "setdiff1d": lambda np_: np_.setdiff1d(np_.asarray(K[0]), np_.asarray(V), size=6),
    "setxor1d": lambda np_: np_.setxor1d(
        np_.asarray(K[0]), np_.asarray(K[1]), size=6, fill_value=-1
    ),
}
EAGER_CASES: dict[str, Case] = {
    "unique_all": lambda np_: np_.unique_all(np_.asarray(K)),
    "trim_zeros": lambda np_: np_.trim_zeros(np_.asarray([[0, 0, 0], [0, 1, 0]]), "b"),
    "compress": lambda np_: np_.compress(np_.asarray([1, 0, 1, 1]), np_.asarray(M), axis=1),
    "delete_mask": lambda np_: np_.delete(np_.asarray(M), np_.asarray([True, False, True]), axis=0),
    "polydiv_trim": lambda np_: np_.polydiv(
        np_.asarray(P), np_.asarray([1.0, -1.0]), trim_leading_zeros=True
    ),
}


def _leaves(x: Any) -> list[Any]:
    return jax.tree_util.tree_leaves(x)


def _compare(got: Any, want: Any, *, weak: bool = True, subnormals: bool = True) -> None:
    """Leaf by leaf: a didax Array of JAX's shape and dtype (and weak type), and its values."""
    g, w = _leaves(got), _leaves(want)
    assert len(g) == len(w)
    for a, b in zip(g, w, strict=True):
        assert isinstance(a, dx.Array), type(a)
        assert (a.shape, a.dtype) == (b.shape, b.dtype)
        if weak:
            assert a.weak_type == b.weak_type
        wide = a.dtype in (np.float64, np.complex128)
        tol = 1e-12 if wide else 2e-6
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def _all_cases(np_: Any, names: Iterable[str] = CASES) -> dict[str, Any]:
    return {name: CASES[name](np_) for name in names}


@functools.cache
def _jax_results() -> dict[str, Any]:
    """JAX's results of every case, from one jitted program (JAX's eager mode compiles each
    operation on its own, which would cost more than the whole table)."""
    return dict(jax.jit(_all_cases, static_argnums=0)(jnp))


# Eagerly, a sample (each eager primitive compiles on its own; the whole table runs
# under jit below, once).
EAGER_SAMPLE = ("cbrt", "nextafter", "spacing", "frexp", "ldexp", "i0", "kaiser", "polydiv")


@pytest.mark.parametrize("name", EAGER_SAMPLE)
def test_eager_matches_jax(name: str) -> None:
    _compare(CASES[name](dnp), _jax_results()[name])


@functools.cache
def _jax_sized() -> dict[str, Any]:
    return dict(jax.jit(lambda: {k: f(jnp) for k, f in SIZED_CASES.items()})())


@pytest.mark.parametrize("name", sorted(SIZED_CASES))
def test_sized_cases_match_jax(name: str) -> None:
    _compare(SIZED_CASES[name](dnp), _jax_sized()[name])


@pytest.mark.parametrize("name", sorted(EAGER_CASES))
def test_concrete_cases_match_jax(name: str) -> None:
    _compare(EAGER_CASES[name](dnp), EAGER_CASES[name](jnp))


def test_concrete_cases_match_numpy() -> None:
    """More value-dependent cases, on NumPy's values (which JAX's equal here)."""
    assert np.array_equal(dnp.extract(K > 2, dnp.asarray(K)), np.extract(K > 2, K))
    assert np.array_equal(dnp.delete(V, np.array([0, 2, 2])), np.delete(V, [0, 2, 2]))
    assert np.array_equal(
        dnp.choose(np.array([0, 1, 1, 0]), [V, -V]), np.choose([0, 1, 1, 0], [V, -V])
    )
    for got, want in zip(
        dnp.mask_indices(4, dnp.triu, 1), np.mask_indices(4, np.triu, 1), strict=True
    ):
        assert np.array_equal(got, want)
    assert np.array_equal(dnp.trim_zeros(np.array([0, 0, 1, 2, 0])), [1, 2])
    assert np.array_equal(dnp.setdiff1d(K[0], V), np.setdiff1d(K[0], V))


def test_jit_matches_jax() -> None:
    """All traceable cases in one jitted program per library (one compilation each)."""
    _compare(dx.jit(lambda: _all_cases(dnp))(), _jax_results())


# The cases whose dtypes the x64 mode decides (no 64-bit-only edge values: they would
# overflow float32; not sort_complex of integers, for which JAX itself warns that it
# truncates complex128, nor insert, where it warns that it truncates float64).
X32_CASES = (
    "i0",
    "unwrap_int",
    "kaiser",
    "argpartition",
    "lexsort",
    "polyadd",
    "polyfit",
    "fromfunction",
    "ufunc_reduce",
    "histogramdd",
    "packbits",
    "astype",
)


@pytest.mark.x64_off
# The float64 test data are truncated to float32 in this mode, and JAX warns so from
# inside some of its functions (put, insert, ...): the values and dtypes are compared.
@pytest.mark.filterwarnings("ignore:Explicitly requested dtype float64")
def test_jit_matches_jax_in_32_bits() -> None:
    """The x64-sensitive cases with the 32-bit defaults: JAX's float32 and int32 results."""
    _compare(
        dx.jit(lambda: _all_cases(dnp, X32_CASES))(),
        jax.jit(lambda: _all_cases(jnp, X32_CASES))(),
    )


# Differentiable cases: functions of one float64 array of shape (3, 4).
GRAD_CASES: dict[str, Callable[[Any, Any], Any]] = {
    "cbrt": lambda np_, x: np_.cbrt(x + 2.0),
    "frexp": lambda np_, x: np_.frexp(x * 9.0)[0],
    "ldexp": lambda np_, x: np_.ldexp(x, np_.asarray([1, 2, -3, 0])),
    "i0": lambda np_, x: np_.i0(x),
    "kaiser": lambda np_, x: np_.kaiser(5, 2.0 + x[0, 0] ** 2),
    "unwrap": lambda np_, x: np_.unwrap(x * 4.0, axis=1),
    "partition": lambda np_, x: np_.partition(x, 1, axis=1),
    "choose": lambda np_, x: np_.choose(
        np_.asarray([[0, 1, 2, 0]]), [x[0], x[1], x[2]], mode="clip"
    ),
    "insert": lambda np_, x: np_.insert(x, np_.asarray([1, 3]), x[0, :2], axis=1),
    "put_along_axis": lambda np_, x: np_.put_along_axis(
        x, np_.asarray([[0], [2], [3]]), x[:, :1] ** 2, 1, inplace=False
    ),
    "fill_diagonal": lambda np_, x: np_.fill_diagonal(x, x[0, 3] * 2.0, inplace=False),
    "polydiv": lambda np_, x: np_.polydiv(x[0], x[1, :2] + np_.asarray([2.0, 0.0]))[0],
    "polyint": lambda np_, x: np_.polyint(x[0], 2, k=x[1, :2]),
    "polyfit": lambda np_, x: np_.polyfit(np_.asarray(np.linspace(0, 1, 4)), x[0], 2),
    "vectorize": lambda np_, x: np_.vectorize(lambda a, b: a * np_.sin(b))(x, x[0]),
    "apply_along_axis": lambda np_, x: np_.apply_along_axis(lambda v: v * v.sum(), 1, x),
    "ufunc_reduce": lambda np_, x: _ufunc(np_).reduce(x, axis=1),
    "compress_size": lambda np_, x: np_.compress(np_.asarray([True, False, True]), x, 0, size=2),
}


def _weighted(np_: Any, x: Any) -> Any:
    """The sum of every gradient case's output, each weighted by fixed random numbers."""
    total = 0.0
    for i, case in enumerate(GRAD_CASES.values()):
        out = case(np_, x)
        w = np.random.RandomState(i).randn(*out.shape)
        total = total + np_.sum(out * w)
    return total


def test_grad_matches_jax() -> None:
    x = np.random.RandomState(1).randn(3, 4)
    got = dx.jit(dx.grad(lambda v: _weighted(dnp, v)))(x)
    want = jax.jit(jax.grad(lambda v: _weighted(jnp, v)))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", ["i0", "frexp", "polydiv", "ufunc_reduce"])
def test_grad_matches_finite_differences(name: str) -> None:
    x = np.random.RandomState(1).randn(3, 4)
    direction = np.random.RandomState(3).randn(3, 4)

    def f(v: Any) -> Any:
        out = GRAD_CASES[name](dnp, v)
        return dnp.sum(out * np.random.RandomState(4).randn(*out.shape))

    eps = 1e-6
    numeric = (float(f(x + eps * direction)) - float(f(x - eps * direction))) / (2 * eps)
    analytic = float(dnp.sum(dx.grad(f)(x) * direction))
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6)


def test_vmap_matches_jax() -> None:
    """A batch of the per-row cases in one vmapped, jitted program per library."""

    def row(np_: Any, v: Any) -> Any:
        return (
            np_.partition(v, 1),
            np_.argpartition(v, 2),
            np_.insert(v, 1, 0.5),
            np_.delete(v, 0),
            np_.polymul(v, v[:2]),
            np_.polyder(v),
            np_.vander(v, 2),
            np_.unwrap(v * 3.0),
            np_.frexp(v),
            np_.cbrt(v),
            np_.i0(v),
            np_.compress(v > 0, v, size=2),
            np_.put(v, np_.asarray([1]), 0.0, inplace=False),
        )

    _compare(
        dx.jit(dx.vmap(lambda v: row(dnp, v)))(M),
        jax.jit(jax.vmap(lambda v: row(jnp, v)))(jnp.asarray(M)),
    )


# --- the names that are NumPy's or types ---------------------------------------------------


def test_type_names_are_numpys_and_didaxs() -> None:
    x = dnp.asarray(M)
    assert isinstance(x, dnp.ndarray)
    assert dx.jit(lambda v: isinstance(v, dnp.ndarray) and v)(x) is not None
    for name in (
        "generic",
        "number",
        "integer",
        "signedinteger",
        "unsignedinteger",
        "inexact",
        "floating",
        "complexfloating",
        "character",
        "flexible",
        "object_",
    ):
        assert getattr(dnp, name) is getattr(jnp, name)
    assert dnp.issubdtype(x.dtype, dnp.floating)
    assert dnp.ComplexWarning is jnp.ComplexWarning
    assert dnp.iterable([1])
    assert not dnp.iterable(1)
    with dnp.printoptions(precision=2):
        assert dnp.get_printoptions()["precision"] == 2
    assert dnp.get_printoptions() == jnp.get_printoptions()
    assert dnp.array_str(np.arange(3)) == jnp.array_str(np.arange(3))
    assert dnp.array_repr(np.arange(3)) == jnp.array_repr(np.arange(3))


@pytest.mark.parametrize(
    "dtype",
    [np.bool_, np.int8, np.uint32, np.float16, ml_dtypes.bfloat16, np.float64, np.complex64],
)
@pytest.mark.parametrize(
    "kind",
    [
        "bool",
        "signed integer",
        "unsigned integer",
        "integral",
        "real floating",
        "complex floating",
        "numeric",
        ("integral", "real floating"),
        np.float64,
    ],
)
def test_isdtype_matches_jax(dtype: Any, kind: Any) -> None:
    assert dnp.isdtype(dtype, kind) == jnp.isdtype(dtype, kind)


def test_io_forwards_as_jax() -> None:
    f = io.BytesIO()
    dnp.save(f, np.asarray(dnp.asarray(V, dnp.bfloat16)))
    f.seek(0)
    loaded = dnp.load(f)
    assert isinstance(loaded, dx.Array)
    assert loaded.dtype == dnp.bfloat16
    _compare(dnp.frombuffer(np.arange(3.0).tobytes()), jnp.frombuffer(np.arange(3.0).tobytes()))
    _compare(dnp.fromstring("1 2 3", sep=" "), jnp.fromstring("1 2 3", sep=" "))
    _compare(dnp.from_dlpack(np.arange(3.0)), jnp.from_dlpack(np.arange(3.0)))
    for refused in (dnp.fromfile, dnp.fromiter):
        with pytest.raises(NotImplementedError, match="asarray"):
            refused("x")


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: dnp.put(np.arange(3), np.array([0]), 1), NotImplementedError),
        (lambda: dnp.place(np.arange(3), np.array([True] * 3), 1), NotImplementedError),
        (lambda: dnp.fill_diagonal(np.eye(2), 1.0), NotImplementedError),
        (lambda: dnp.put_along_axis(np.eye(2), np.zeros((2, 1), int), 1.0, 1), NotImplementedError),
        (lambda: dnp.choose(np.array([0, 2]), [np.zeros(2), np.ones(2)]), ValueError),
        (lambda: dnp.frexp(np.array([1j])), TypeError),
        (lambda: dnp.ldexp(np.array([1.0]), np.array([1.5])), ValueError),
        (lambda: dnp.partition(np.array([1j, 2j]), 0), NotImplementedError),
        (
            lambda: dx.jit(dnp.union1d)(np.arange(3), np.arange(2)),
            dx.errors.ConcretizationTypeError,
        ),
        (lambda: dnp.isdtype(np.float32, "reals"), ValueError),
        (lambda: dnp.vectorize(lambda a: a, signature="(n->()")(np.ones(2)), ValueError),
        (lambda: dnp.frompyfunc(lambda a: a, 1, 1).outer(np.ones(2), np.ones(2)), ValueError),
        (lambda: dnp.packbits(np.ones(3, np.int32), bitorder="middle"), ValueError),
        (lambda: dnp.unpackbits(np.ones(3, np.int32)), TypeError),
    ],
)
def test_bad_arguments_raise_as_jax(call: Callable[[], Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        call()


# --- Array methods --------------------------------------------------------------------------

METHOD_CASES: dict[str, Case] = {
    "all": lambda x: x.all(),
    "any": lambda x: x.any(axis=1, keepdims=True),
    "std": lambda x: x.std(0, ddof=1),
    "var": lambda x: x.var(axis=1, keepdims=True),
    "var_correction": lambda x: x.var(correction=2),
    "ptp": lambda x: x.ptp(0),
    "cumprod": lambda x: x.cumprod(1),
    "sort": lambda x: x.sort(0, descending=True),
    "argsort": lambda x: x.argsort(),
    "argpartition": lambda x: x.argpartition(1),
    "take": lambda x: x.take(np.array([0, 5]), mode="clip"),
    "repeat": lambda x: x.repeat(2, axis=0),
    "diagonal": lambda x: x.diagonal(1),
    "trace": lambda x: x.trace(-1),
    "nonzero": lambda x: x.nonzero(size=4),
    "searchsorted": lambda x: x[0].sort().searchsorted(np.array([0.0, 1.0])),
    "compress": lambda x: x.compress(np.array([True, False, True]), axis=0, size=2),
    "choose": lambda x: (x > 0).astype(np.int32).choose([x * 0, x], mode="clip"),
    "view": lambda x: x.view(np.int32),
    "view_complex": lambda x: x.view(np.complex128),
    "view_u8": lambda x: x.astype(np.float32).view(np.uint8),
    "byteswap": lambda x: x.byteswap(),
}


def test_array_methods_match_jax() -> None:
    # didax's methods on an Array, eagerly; JAX's reference in one jax.jit
    # (the same values: eagerly JAX compiles each operation on its own, 6x
    # this test's time for no other check).
    x = dnp.asarray(M)
    _compare(
        {k: f(x) for k, f in METHOD_CASES.items()},
        jax.jit(lambda v: {k: f(v) for k, f in METHOD_CASES.items()})(jnp.asarray(M)),
    )


def test_tracer_methods_match_jax() -> None:
    """The same methods on tracers: one jitted program and one vmapped one per library."""

    def all_methods(v: Any) -> Any:
        return {k: f(v) for k, f in METHOD_CASES.items()}

    _compare(dx.jit(all_methods)(M), jax.jit(all_methods)(M))
    per_row = {
        k: METHOD_CASES[k] for k in ("std", "sort", "argsort", "cumprod", "view", "byteswap")
    }
    batch = np.stack([M, -M])
    _compare(
        dx.vmap(lambda v: {k: f(v) for k, f in per_row.items()})(batch),
        jax.vmap(lambda v: {k: f(v) for k, f in per_row.items()})(batch),
    )


def test_array_device_attributes() -> None:
    x: Any = dnp.asarray(M)  # (to_device and flat are installed by didax.numpy, as JAX's)
    assert x.device == dx.devices()[0]
    assert not x.committed
    assert x.is_fully_addressable
    assert x.is_fully_replicated
    assert [s.device for s in x.global_shards] == [x.device]
    np.testing.assert_array_equal(np.asarray(x.addressable_data(0)), M)
    assert x.copy_to_host_async() is None
    moved = x.to_device(dx.devices()[0])
    np.testing.assert_array_equal(np.asarray(moved), M)
    with pytest.raises(NotImplementedError, match="flatten"):
        _ = x.flat
