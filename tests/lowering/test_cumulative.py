"""The cumulative primitives (``cumsum``, ``cumprod``, ``cummax``, ``cummin``, ``cumlogsumexp``).

Values against ``jax.lax``'s primitives of the same names (and
``jnp.cumsum``/``jnp.cumprod`` against ``didax.numpy``'s), eagerly (the
NumPy impls), under ``jit`` (the associative-scan lowering of
``lowering.scan_ops``) and under ``vmap``; derivatives against ``jax.jvp``,
``jax.grad`` and ``jax.hessian`` (ties of ``cummax``/``cummin`` included:
their tangents split as JAX's do) and against finite differences; the
lowering's shape (no ``reduce_window``, a logarithmic number of ops); flops.

The oracle runs JAX with 64-bit types (``jax.enable_x64``). Each family of
cases is compiled as one program, by both libraries, to keep compiles few.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, TypeAlias

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from tests.slicing import slice_params

import didax as dx
import didax.numpy as dnp
from didax import lax
from didax.api.flops import cost
from didax.errors import DTypeError
from didax.interpreters.flops import Cost
from didax.ir.typecheck import typecheck_jaxpr
from didax.lowering import scan_ops

Array: TypeAlias = np.ndarray[Any, Any]
Fn: TypeAlias = Callable[..., Any]

F16: Final = np.dtype(np.float16)
F32: Final = np.dtype(np.float32)
F64: Final = np.dtype(np.float64)
I32: Final = np.dtype(np.int32)
I64: Final = np.dtype(np.int64)

NAMES: Final = ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp")
NUMERIC: Final = (F32, F64, I32, I64)

# (shape, axis): sizes 0 to 33 along the axis, odd and even, 1-d to 3-d.
SHAPES: Final[list[tuple[tuple[int, ...], int]]] = [
    *(((n,), 0) for n in (0, 1, 2, 3, 4, 5, 7, 8, 16, 33)),
    ((3, 4), 0),
    ((3, 4), 1),
    ((4, 0), 0),
    ((4, 0), 1),
    ((2, 5, 3), 1),
    ((2, 5, 3), 2),
]
CASES: Final = [
    (shape, axis, rev) for (shape, axis), rev in itertools.product(SHAPES, (False, True))
]


def dtypes_of(name: str) -> tuple[np.dtype[Any], ...]:
    return (F32, F64) if name == "cumlogsumexp" else NUMERIC


def data(name: str, shape: Sequence[int], dtype: np.dtype[Any], seed: int = 0) -> Array:
    """Test data for ``name``: products of factors near +-1; ties among maxima and minima."""
    rng = np.random.default_rng(seed)
    shape = tuple(shape)
    if dtype.kind in "iu":
        ints: Array = rng.integers(-3, 4, shape).astype(dtype)
        return ints
    x: Array
    if name == "cumprod":
        x = rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
    elif name in ("cummax", "cummin"):
        x = np.round(rng.standard_normal(shape), 1)  # ties
    else:
        x = rng.standard_normal(shape)
    return x.astype(dtype)


def dfun(name: str) -> Fn:
    return getattr(lax, name)  # type: ignore[no-any-return]


def jfun(name: str) -> Fn:
    return getattr(jax.lax, name)  # type: ignore[no-any-return]


def jax_values(
    name: str, xs: Sequence[Array], cases: Sequence[tuple[Any, int, bool]]
) -> list[Array]:
    """JAX's results of ``name`` on each case, as one jitted program, with 64-bit types."""
    with jax.enable_x64(True):
        f = jax.jit(
            lambda *xs: [jfun(name)(x, axis, r) for x, (_, axis, r) in zip(xs, cases, strict=True)]
        )
        return [np.asarray(o) for o in f(*(jnp.asarray(x) for x in xs))]


def tolerance(dtype: np.dtype[Any], n: int) -> float:
    # Sums and products associate differently in each library (and in the impl).
    return {F16: 2e-2, F32: 2e-6 * max(n, 4), F64: 1e-13 * max(n, 4)}.get(dtype, 0.0)


def assert_same(actual: Any, expected: Any, tol: float = 0.0) -> None:
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.dtype == e.dtype, f"dtype {a.dtype} != expected {e.dtype}"
    assert a.shape == e.shape, f"shape {a.shape} != expected {e.shape}"
    if a.dtype.kind == "f":
        np.testing.assert_allclose(a, e, rtol=tol, atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(a, e)


# --- values: eager, jit, vmap ------------------------------------------------------------------

LOWERINGS: Final = ("window", "scan")
VALUE_PARAMS: Final = [(lo, n, d) for lo in LOWERINGS for n in NAMES for d in dtypes_of(n)]
# CI checks float64 and int32 (each row is a few seconds of compiles); float32
# and int64 are the slow session's.
_EVERYDAY: Final = {F64, I32}


def _in_value_slice(row: tuple[str, str, np.dtype[Any]]) -> bool:
    """CI's rows: each name on both lowerings, the window's identities at both kinds of dtype.

    cummax's and cummin's window pads with an identity of the dtype's kind
    (an integer's bound, a float's greatest value): both dtypes there, and
    on the scan float64 for cummax, int32 for cummin; cumsum's and cumprod's
    identities and combinations are alike for every dtype: int32 on the
    window, float64 on the scan. cumlogsumexp has no identity, so it always
    lowers to the scan: float64 there.
    """
    lowering, name, dtype = row
    if name == "cumlogsumexp":
        return lowering == "scan" and dtype == F64
    if dtype not in _EVERYDAY:
        return False
    if name in ("cummax", "cummin") and lowering == "window":
        return True
    return (lowering == "window") == (dtype == (F64 if name == "cummin" else I32))


@pytest.fixture(params=LOWERINGS)
def lowering(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Both lowerings at every size: one reduce_window, or the associative scan."""
    limit = 10**9 if request.param == "window" else 0
    monkeypatch.setattr(scan_ops, "WINDOW_MAX_LENGTH", limit)
    dx.clear_caches()  # executables compiled by the other lowering are keyed alike
    yield request.param
    dx.clear_caches()


@pytest.mark.parametrize(
    ("lowering", "name", "dtype"),
    slice_params(VALUE_PARAMS, _in_value_slice, lambda row: "-".join(map(str, row))),
    indirect=["lowering"],
)
def test_values_match_jax_eagerly_and_under_jit(
    name: str, dtype: np.dtype[Any], lowering: str
) -> None:
    xs = [data(name, shape, dtype, seed=i) for i, (shape, _, _) in enumerate(CASES)]
    expected = jax_values(name, xs, CASES)
    f = dfun(name)
    jitted = dx.jit(lambda *xs: [f(x, axis, r) for x, (_, axis, r) in zip(xs, CASES, strict=True)])(
        *xs
    )
    for x, (shape, axis, rev), e, j in zip(xs, CASES, expected, jitted, strict=True):
        tol = tolerance(dtype, shape[axis])
        assert_same(f(x, axis, rev), e, tol)
        assert_same(j, e, tol)


@pytest.mark.parametrize("name", NAMES)
def test_negative_axis_and_defaults(name: str) -> None:
    x = data(name, (3, 4), F64)
    assert_same(dfun(name)(x, -1), dfun(name)(x, 1))
    assert_same(dfun(name)(x), dfun(name)(x, 0, False))
    expected = jax_values(name, [x], [(None, 0, True)])[0]
    assert_same(dfun(name)(x, axis=-2, reverse=True), expected, 1e-13)


@pytest.mark.parametrize("name", NAMES)
def test_nans_and_infinities(name: str) -> None:
    x = np.array([1.0, np.nan, 2.0, -np.inf, np.inf, -np.inf, 0.5, np.inf, np.inf, -1.0])
    rows = np.stack([x, x[::-1], np.where(np.isnan(x), 0.0, x), np.full(10, -np.inf)])
    cases = [(None, 1, False), (None, 1, True)]
    expected = jax_values(name, [rows, rows], cases)
    f = dfun(name)
    for (_, axis, rev), e in zip(cases, expected, strict=True):
        assert_same(f(rows, axis, rev), e, 1e-15)
        assert_same(dx.jit(lambda x, a=axis, r=rev: f(x, a, r))(rows), e, 1e-15)


# CI's slice: each name at one batch axis, in turn: every batch axis is still
# checked, and the batcher the four scans share meets it before and after the scanned axis.
@pytest.mark.parametrize(
    ("name", "in_axis"),
    slice_params(
        [(n, b) for n in NAMES for b in (0, 1, 2)],
        lambda row: row[1] == NAMES.index(row[0]) % 3,
        lambda row: f"{row[1]}-{row[0]}",
    ),
)
def test_vmap_matches_jax(name: str, in_axis: int) -> None:
    x = data(name, (3, 5, 4), F64)
    for axis, rev in itertools.product((0, 1), (False, True)):

        def f(v: Any, a: int = axis, r: bool = rev) -> Any:
            return dfun(name)(v, a, r)

        def jf(v: Any, a: int = axis, r: bool = rev) -> Any:
            return jfun(name)(v, a, r)

        with jax.enable_x64(True):
            expected = np.asarray(jax.vmap(jf, in_axes=in_axis)(jnp.asarray(x)))
        assert_same(dx.vmap(f, in_axes=in_axis)(x), expected, 1e-13)
        assert_same(dx.jit(dx.vmap(f, in_axes=in_axis))(x), expected, 1e-13)
        typecheck_jaxpr(dx.make_jaxpr(dx.vmap(f, in_axes=in_axis))(x))


def test_vmap_of_vmap_and_unbatched_operands() -> None:
    x = data("cummax", (2, 3, 4), F64)
    out = dx.vmap(dx.vmap(lambda v: lax.cummax(v, 0, True)))(x)
    assert_same(out, np.flip(np.maximum.accumulate(np.flip(x, 2), axis=2), 2))
    y = data("cumprod", (4,), F64)
    out = dx.vmap(lambda a, b: lax.cumprod(b) * a, in_axes=(0, None))(np.arange(3.0), y)
    assert_same(out, np.arange(3.0)[:, None] * np.cumprod(y))


@pytest.mark.parametrize("dtype", [F16, np.dtype(dnp.bfloat16)], ids=str)
@pytest.mark.parametrize("name", NAMES)
def test_small_floats_jit_matches_eager(name: str, dtype: np.dtype[Any]) -> None:
    x = data(name, (3, 8), F32).astype(dtype)
    f = dfun(name)
    eager = np.asarray(f(x, 1, True)).astype(np.float32)
    jitted = dx.jit(lambda v: f(v, 1, True))(x)
    assert np.asarray(jitted).dtype == dtype
    np.testing.assert_allclose(np.asarray(jitted).astype(np.float32), eager, rtol=3e-2, atol=3e-2)


# --- didax.numpy --------------------------------------------------------------------------------


# CI's slice: one dtype of each kind (float, signed, unsigned, bool: each promotes its own way).
@pytest.mark.parametrize(
    "dtype",
    slice_params(
        [F32, F64, I32, I64, np.dtype(np.uint8), np.dtype(np.bool_)],
        lambda d: d not in (F64, I64),
        str,
    ),
)
def test_numpy_cumsum_and_cumprod_match_jax(dtype: np.dtype[Any]) -> None:
    if dtype.kind == "f":
        x = (data("cumprod", (3, 5), F64) * 2).astype(dtype)
    else:
        x = np.random.default_rng(1).integers(0, 3, (3, 5)).astype(dtype)
    calls: list[dict[str, Any]] = [{}, {"axis": 0}, {"axis": -1}, {"axis": 1, "dtype": F32}]
    for dname, kwargs in itertools.product(("cumsum", "cumprod"), calls):
        with jax.enable_x64(True):
            expected = np.asarray(getattr(jnp, dname)(jnp.asarray(x), **kwargs))
        f = getattr(dnp, dname)
        assert_same(f(x, **kwargs), expected, 1e-5)
        assert_same(dx.jit(lambda v, f=f, kw=kwargs: f(v, **kw))(x), expected, 1e-5)


def test_numpy_cumprod_weak_types_and_jaxpr() -> None:
    out = dnp.cumprod(2.0)
    assert out.dtype == F64
    assert out.weak_type
    jaxpr = dx.make_jaxpr(lambda v: dnp.cumprod(v, axis=1))(np.ones((2, 3)))
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["cumprod"]


# --- derivatives --------------------------------------------------------------------------------

DIFF_NAMES: Final = NAMES


def tied(name: str, shape: Sequence[int]) -> Array:
    """float64 data with ties (maxima and minima), zeros for cumprod, infinities not."""
    x = data(name, shape, F64, seed=3)
    if name == "cumprod" and x.size > 1:
        x = x.copy()
        x.flat[1] = 0.0  # the derivative of a product at a zero factor
    return x


JVP_SHAPES: Final = [((9,), 0), ((1,), 0), ((4, 6), 1), ((5, 3), 0)]


# CI's slice: every name at one element and at one longer shape, the three
# in turn (odd and even lengths, the last axis and the first), so each is checked.
@pytest.mark.parametrize(
    ("name", "shape", "axis"),
    slice_params(
        [(n, *sa) for n in DIFF_NAMES for sa in JVP_SHAPES],
        lambda row: JVP_SHAPES.index(row[1:]) in (1, (0, 2, 3)[DIFF_NAMES.index(row[0]) % 3]),
        lambda row: f"shape{JVP_SHAPES.index(row[1:])}-{row[2]}-{row[0]}",
    ),
)
def test_jvp_matches_jax(name: str, shape: tuple[int, ...], axis: int) -> None:
    x = tied(name, shape)
    t = np.random.default_rng(7).standard_normal(shape)
    for rev in (False, True):
        out, t_out = dx.jvp(lambda v, r=rev: dfun(name)(v, axis, r), (x,), (t,))
        with jax.enable_x64(True):
            j_out, j_t = jax.jvp(
                lambda v, r=rev: jfun(name)(v, axis, r), (jnp.asarray(x),), (jnp.asarray(t),)
            )
        assert_same(out, np.asarray(j_out), 1e-13)
        assert_same(t_out, np.asarray(j_t), 1e-13)


def test_cummax_ties_split_tangents_as_jax() -> None:
    # Three equal values: the scan's tree gives the last 1/2 and the others 1/4 each.
    x, t = np.ones(3), np.array([1.0, 10.0, 100.0])
    _, t_out = dx.jvp(lambda v: lax.cummax(v), (x,), (t,))
    assert_same(t_out, np.array([1.0, 5.5, 52.75]))
    _, t_out = dx.jvp(lambda v: lax.cummin(v, reverse=True), (x,), (t,))
    assert_same(t_out, np.array([28.0, 55.0, 100.0]))
    with jax.enable_x64(True):
        _, j_t = jax.jvp(
            lambda v: jax.lax.cummin(v, reverse=True), (jnp.ones(3),), (jnp.asarray(t),)
        )
    assert_same(t_out, np.asarray(j_t))


@pytest.mark.parametrize("name", DIFF_NAMES)
def test_grad_matches_jax(name: str) -> None:
    x = tied(name, (4, 7))
    w = np.random.default_rng(5).standard_normal((4, 7))

    def loss(v: Any) -> Any:
        return dnp.sum(w * dfun(name)(v, 1)) + dnp.sum(dfun(name)(v, 0, True) ** 2)

    def jloss(v: Any) -> Any:
        return jnp.sum(w * jfun(name)(v, 1)) + jnp.sum(jfun(name)(v, 0, True) ** 2)

    with jax.enable_x64(True):
        expected = np.asarray(jax.grad(jloss)(jnp.asarray(x)))
    assert_same(dx.grad(loss)(x), expected, 1e-12)
    assert_same(dx.jit(dx.grad(loss))(x), expected, 1e-12)
    typecheck_jaxpr(dx.make_jaxpr(dx.grad(loss))(x))


@pytest.mark.parametrize("name", ["cumprod", "cumlogsumexp", "cummax"])
def test_hessian_matches_jax(name: str) -> None:
    x = data(name, (5,), F64, seed=11)
    w = np.linspace(0.5, 1.5, 5)
    with jax.enable_x64(True):
        expected = np.asarray(
            jax.hessian(lambda v: jnp.sum(w * jfun(name)(v, 0, True)))(jnp.asarray(x))
        )
    assert_same(dx.hessian(lambda v: dnp.sum(w * dfun(name)(v, 0, True)))(x), expected, 1e-12)


@pytest.mark.parametrize("name", DIFF_NAMES)
def test_grad_matches_finite_differences(name: str) -> None:
    rng = np.random.default_rng(13)
    x = rng.standard_normal((3, 6)) + (1.0 if name == "cumprod" else 0.0)  # no ties
    w, direction = rng.standard_normal((3, 6)), rng.standard_normal((3, 6))

    def loss(v: Any) -> Any:
        return dnp.sum(w * dfun(name)(v, 1, True))

    h = 1e-6
    fd = (float(loss(x + h * direction)) - float(loss(x - h * direction))) / (2 * h)
    g = np.asarray(dx.grad(loss)(x))
    np.testing.assert_allclose(np.sum(g * direction), fd, rtol=1e-6, atol=1e-6)


def test_integer_operands_have_zero_tangents() -> None:
    x = np.array([3, 1, 2], np.int32)
    out, t_out = dx.jvp(lax.cummax, (x,), (np.zeros(3, jax.dtypes.float0),))
    assert_same(out, np.array([3, 3, 3], np.int32))
    assert np.asarray(t_out).dtype == jax.dtypes.float0


# --- the lowering -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_short_axes_lower_to_one_reduce_window(name: str) -> None:
    x = np.ones(scan_ops.WINDOW_MAX_LENGTH, np.float32)
    text = dx.jit(lambda v: dfun(name)(v, 0)).lower(x).as_text()
    # logaddexp has no identity to pad a window with: always the scan.
    assert ("reduce_window" in text) == (name != "cumlogsumexp")


@pytest.mark.parametrize("name", NAMES)
def test_long_axes_lower_to_an_associative_scan(name: str) -> None:
    x = np.ones(4096, np.float32)
    text = dx.jit(lambda v: dfun(name)(v, 0)).lower(x).as_text()
    assert "reduce_window" not in text
    assert "stablehlo.slice" in text
    assert "stablehlo.concatenate" in text
    # Two combinations per level of the recursion (12 levels for 4096): a
    # logarithmic number of ops, each over at most half of the axis.
    combining = {"cumsum": "add", "cumprod": "multiply", "cummax": "maximum", "cummin": "minimum"}
    op = combining.get(name, "log_plus_one")
    assert len(re.findall(rf"stablehlo\.{op}\b", text)) == 2 * 12 - 1
    assert "stablehlo.reverse" not in text
    assert "stablehlo.reverse" in dx.jit(lambda v: dfun(name)(v, 0, True)).lower(x).as_text()


def test_cumsum_of_4096_has_no_reduce_window() -> None:
    x = np.ones(4096, np.float32)
    text = dx.jit(lambda v: dnp.cumsum(v)).lower(x).as_text()
    assert "reduce_window" not in text
    assert_same(dx.jit(dnp.cumsum)(x), np.arange(1, 4097, dtype=np.float32))


def test_large_cumsum_is_accurate() -> None:
    x = np.random.default_rng(0).standard_normal(100_000).astype(np.float32)
    exact = np.cumsum(x.astype(np.float64))
    out = np.asarray(dx.jit(dnp.cumsum)(dnp.asarray(x)))
    # A tree of sums: errors grow like log n, not like n.
    np.testing.assert_allclose(out, exact, rtol=0, atol=1e-3)


# --- typing and flops ----------------------------------------------------------------------------


def test_typing_errors() -> None:
    with pytest.raises(DTypeError, match="cumlogsumexp"):
        lax.cumlogsumexp(np.arange(3))
    for name in ("cumprod", "cummax", "cummin"):
        with pytest.raises(DTypeError, match=name):
            dfun(name)(np.array([True, False]))
    with pytest.raises(ValueError, match="out of range"):
        lax.cummax(np.ones(3), axis=1)


def test_types_are_kept() -> None:
    for name in NAMES:
        jaxpr = dx.make_jaxpr(lambda v, n=name: dfun(n)(v, 1, True))(np.ones((2, 3), F32))
        assert jaxpr.out_avals[0].dtype == F32
        assert jaxpr.out_avals[0].shape == (2, 3)


def test_flops() -> None:
    x = np.ones((4, 5))
    for name in ("cumsum", "cumprod", "cummax", "cummin"):
        assert cost(lambda v, n=name: dfun(n)(v, 1))(x) == Cost(16)
        assert cost(lambda v, n=name: dfun(n)(v, 0, True))(x) == Cost(15)
    assert cost(lambda v: lax.cumlogsumexp(v, 1))(x) == Cost(128, 32)
    assert cost(lambda v: lax.cummax(v, 0))(np.ones((0, 3))) == Cost()
