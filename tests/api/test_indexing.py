"""``x[idx]``, ``x.at[idx]``, ``take`` and ``take_along_axis`` against ``jax.numpy``.

A grid of index expressions is compared with JAX eagerly and under
``jit`` (values, shapes, dtypes and weak types), then with traced indices,
under ``grad`` (the gradient of a gather is a scatter-add) and ``vmap``;
functional updates with repeated and out-of-bounds indices; the routes
taken (a static ``slice``, a ``dynamic_slice``, a ``gather``); and the
errors JAX raises.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from tests.slicing import slice_params

import didax as dx
import didax.numpy as dnp
from didax.api.numpy.indexing import NonConcreteBooleanIndexError

RNG = np.random.default_rng(0)
X = np.arange(24.0).reshape(2, 3, 4)
I2 = np.array([[0, 2], [1, -1]])
MASK = np.array([True, False, True])


def _check(d: Any, j: Any) -> None:
    assert isinstance(d, dx.Array)
    assert d.shape == j.shape
    assert d.dtype == j.dtype
    assert d.weak_type == j.weak_type
    np.testing.assert_allclose(np.asarray(d), np.asarray(j), rtol=1e-12, equal_nan=True)


def _both(f: Callable[[Any], Any], x: np.ndarray[Any, Any]) -> None:
    expected = f(jnp.asarray(x))
    _check(f(dnp.asarray(x)), expected)
    _check(dx.jit(f)(dnp.asarray(x)), expected)


GETS: dict[str, Callable[[Any], Any]] = {
    "int": lambda x: x[1],
    "negative": lambda x: x[-1, -2],
    "out_of_bounds_clamps": lambda x: x[5],
    "out_of_bounds_negative": lambda x: x[-7, 9],
    "slice": lambda x: x[:, 1:],
    "steps": lambda x: x[:, ::2, 1::3],
    "negative_steps": lambda x: x[::-1, ::-2, -1:0:-3],
    "empty_slice": lambda x: x[:, 2:1],
    "none": lambda x: x[None, :, None, 1],
    "ellipsis": lambda x: x[..., 2],
    "ellipsis_middle": lambda x: x[0, ..., 1],
    "empty_tuple": lambda x: x[()],
    "array": lambda x: x[np.array([1, 0, 1])],
    "array_2d": lambda x: x[:, I2],
    "array_negative_and_oob": lambda x: x[:, np.array([-1, -3, 5, -9])],
    "arrays_adjacent": lambda x: x[:, np.array([0, 2]), np.array([1, 3])],
    "arrays_separated": lambda x: x[np.array([0, 1]), :, np.array([1, 3])],
    "array_and_int_separated": lambda x: x[np.array([0, 1]), 1:, 2],
    "arrays_around_none": lambda x: x[np.array([0, 1]), None, np.array([1, 2])],
    "arrays_broadcast": lambda x: x[np.array([[0], [1]]), np.array([0, 1, 2])],
    "array_and_step": lambda x: x[np.array([1, 0]), ::2],
    "array_and_negative_step": lambda x: x[np.array([1]), ::-1, 1:3],
    "mask": lambda x: x[:, MASK],
    "mask_2d": lambda x: x[X[..., 0] > 5],
    "mask_all_axes": lambda x: x[X > 20],
    "scalar_true": lambda x: x[True],
    "scalar_false": lambda x: x[False, 0],
    "scalar_bool_array": lambda x: x[np.asarray(True), 1],
    "zero_dim_array": lambda x: x[np.array(1)],
    "empty_array": lambda x: x[np.array([], np.int32)],
    "unsigned": lambda x: x[:, np.array([2, 0], np.uint8)],
    "list_inside_tuple": lambda x: x[(0, [1, 2])],
    "numpy_integer": lambda x: x[np.int32(1), np.uint8(2)],
}


# Outside CI's slice: forms that a row in it reaches with more in it (an int: negative;
# out of bounds: negative; a slice: steps; an ellipsis: in the middle; an array: 2-D, or
# beside a negative step; separated arrays: an array and an int; a mask: 2-D; True:
# False), so every route and rule of placement is still reached.
GET_VARIANTS: Final = {
    "int",
    "out_of_bounds_clamps",
    "slice",
    "ellipsis",
    "array",
    "array_and_step",
    "arrays_separated",
    "mask_all_axes",
    "scalar_true",
}


@pytest.mark.parametrize("name", slice_params(sorted(GETS), lambda n: n not in GET_VARIANTS, str))
def test_getitem_matches_jax(name: str) -> None:
    _both(GETS[name], X)


def test_getitem_of_weak_and_small_arrays() -> None:
    _both(lambda x: x[None], np.asarray(2.0))
    weak = dnp.asarray(2.0)
    assert weak[None].weak_type is True
    _check(weak[None], jnp.asarray(2.0)[None])
    _both(lambda x: x[np.array([2, 0])], np.arange(3, dtype=np.int8))
    _both(lambda x: x[1::2], np.array([True, False, True, True]))
    _both(lambda x: x[np.array([1, 0])], np.arange(6, dtype=np.float32).reshape(2, 3))


# --- routes --------------------------------------------------------------------------------


def _prims(f: Callable[..., Any], *args: Any) -> list[str]:
    return [e.primitive.name for e in dx.make_jaxpr(f)(*args).eqns]


def test_static_indices_are_static_slices() -> None:
    x = dnp.asarray(X)
    assert _prims(lambda x: x[1, ::2, None], x) == ["slice", "squeeze", "expand_dims"]
    assert _prims(lambda x: x[::-1], x) == ["rev"]
    assert _prims(lambda x: x[:0:-1], x) == ["slice", "rev"]
    assert _prims(lambda x: x[...], x) == []
    assert _prims(lambda x: x[:, :, 3], x) == ["slice", "squeeze"]


def test_scalar_tracers_and_out_of_bounds_ints_are_dynamic_slices() -> None:
    x = dnp.asarray(X)
    names = _prims(lambda x, i: x[i, 1:3], x, np.int32(1))
    assert "dynamic_slice" in names
    assert "gather" not in names
    assert "dynamic_slice" in _prims(lambda x: x[5], x)
    np.testing.assert_array_equal(dnp.ones(3)[5], jnp.ones(3)[5])


def test_arrays_and_masks_are_gathers() -> None:
    x = dnp.asarray(X)
    assert "gather" in _prims(lambda x, i: x[i], x, np.array([1, 0]))
    assert "gather" in _prims(lambda x: x[:, MASK], x)
    assert "gather" in _prims(lambda x, i: x[i, ::2], x, np.int32(1))
    text = dx.jit(lambda x, i: x[i]).lower(x, np.array([1, 0])).as_text()
    assert "stablehlo.gather" in text


# --- traced indices, grad, vmap --------------------------------------------------------------

TRACED: dict[str, Callable[[Any, Any], Any]] = {
    "array": lambda x, i: x[i],
    "array_second_axis": lambda x, i: x[:, i],
    "array_and_slice": lambda x, i: x[i, 1:3],
    "scalar": lambda x, i: x[i[0]],
    "scalar_and_step": lambda x, i: x[i[0], ::2],
    "two_arrays": lambda x, i: x[i, i[::-1]],
    "at_get_fill": lambda x, i: x.at[i].get(mode="fill", fill_value=-1.0),
    "at_add": lambda x, i: x.at[i].add(1.0),
    "at_set": lambda x, i: x.at[i, 1].set(5.0),
}
M = RNG.normal(size=(3, 4))
IDX = np.array([2, 0, 2, -1])
IDXS = np.array([[0, 1, 2, 0], [2, 2, 1, -1]])


# CI's slice: all but a lone array and an array beside a slice: two_arrays, at_add
# and at_get_fill gather by arrays, array_second_axis and scalar_and_step beside slices.
@pytest.mark.parametrize(
    "name",
    slice_params(sorted(TRACED), lambda n: n not in {"array", "array_and_slice"}, str),
)
def test_traced_indices(name: str) -> None:
    f = TRACED[name]
    dm, jm = dnp.asarray(M), jnp.asarray(M)
    _check(dx.jit(f)(dm, IDX), jax.jit(f)(jm, IDX))

    def loss(x: Any, i: Any) -> Any:
        return (f(x, i) ** 2).sum()

    _check(dx.grad(loss)(dm, IDX), jax.grad(loss)(jm, IDX))
    _check(dx.jit(dx.grad(loss))(dm, IDX), jax.jit(jax.grad(loss))(jm, IDX))
    ms = np.stack([M, -2 * M])
    dms, jms = dnp.asarray(ms), jnp.asarray(ms)
    for in_axes, xs, ixs in [
        ((None, 0), (dm, jm), IDXS),
        ((0, None), (dms, jms), IDX),
        ((0, 0), (dms, jms), IDXS),
    ]:
        _check(dx.vmap(f, in_axes)(xs[0], ixs), jax.vmap(f, in_axes)(xs[1], ixs))
    _check(dx.vmap(dx.grad(loss))(dms, IDXS), jax.vmap(jax.grad(loss))(jms, IDXS))


def test_gradient_of_gather_is_scatter_add() -> None:
    closed = dx.make_jaxpr(dx.grad(lambda x, i: x[i].sum()))(dnp.asarray(M), IDX)
    assert "scatter-add" in [e.primitive.name for e in closed.eqns]
    g = dx.grad(lambda x: x[np.array([0, 0, 2])].sum())(dnp.asarray(M))
    np.testing.assert_array_equal(np.asarray(g)[:, 0], [2, 0, 1])


def test_jvp_and_finite_differences() -> None:
    x = RNG.normal(size=5)
    t = RNG.normal(size=5)

    def f(x: Any) -> Any:
        return (x.at[np.array([1, 1, 3])].max(x[::-1][:3]) * x[np.array([4, 0, 1, 1, 2])]).sum()

    _, dt = dx.jvp(f, (dnp.asarray(x),), (dnp.asarray(t),))
    _, jt = jax.jvp(f, (jnp.asarray(x),), (jnp.asarray(t),))
    np.testing.assert_allclose(float(dt), float(jt), rtol=1e-10)
    eps = 1e-6
    fd = (float(f(dnp.asarray(x + eps * t))) - float(f(dnp.asarray(x - eps * t)))) / (2 * eps)
    np.testing.assert_allclose(float(dt), fd, rtol=1e-5)


# --- functional updates -----------------------------------------------------------------------

REPEATED = np.array([0, 0, 2, 5, -1])
UPDATES: dict[str, Callable[[Any], Any]] = {
    "set": lambda x: x.at[1].set(0.0),
    "set_steps_broadcast": lambda x: x.at[:, ::2].set(np.array([1.0, 2.0])),
    "set_mask": lambda x: x.at[M > 0].set(0.0),
    "set_out_of_bounds_dropped": lambda x: x.at[5].set(0.0),
    "set_clip": lambda x: x.at[5].set(0.0, mode="clip"),
    "set_negative": lambda x: x.at[-1].set(-1.0),
    "set_no_wrap_dropped": lambda x: x.at[-1].set(-1.0, wrap_negative_indices=False),
    "set_repeated": lambda x: x.at[REPEATED, 1].set(np.arange(5.0)),
    "set_reversed": lambda x: x.at[::-1].set(np.arange(4.0)),
    "set_list": lambda x: x.at[0, 1:3].set([7.0, 8.0]),
    "set_none": lambda x: x.at[None, 1].set(3.0),
    "set_scalar_bool": lambda x: x.at[True].set(1.0),
    "add_repeated": lambda x: x.at[REPEATED].add(1.0),
    "add_repeated_clip": lambda x: x.at[REPEATED].add(1.0, mode="clip"),
    "add_unique_promise": lambda x: x.at[np.array([2, 0])].add(
        1.0, unique_indices=True, indices_are_sorted=False, mode="promise_in_bounds"
    ),
    "subtract": lambda x: x.at[REPEATED].subtract(1.0),
    "mul_repeated": lambda x: x.at[REPEATED].mul(2.0),
    "multiply": lambda x: x.at[1:].multiply(3.0),
    "divide": lambda x: x.at[REPEATED].divide(2.0),
    "power": lambda x: x.at[1:].power(2),
    "min_repeated": lambda x: x.at[REPEATED, 1].min(np.array([-1.0, -2.0, 5.0, 3.0, -7.0])),
    "max_repeated": lambda x: x.at[REPEATED, 1].max(np.array([-1.0, 20.0, 5.0, 3.0, 30.0])),
    "get": lambda x: x.at[REPEATED].get(),
    "get_fill": lambda x: x.at[REPEATED].get(mode="fill"),
    "get_fill_value": lambda x: x.at[REPEATED].get(mode="fill", fill_value=-3),
    "get_clip": lambda x: x.at[REPEATED].get(mode="clip"),
    "get_no_wrap": lambda x: x.at[REPEATED].get(mode="fill", wrap_negative_indices=False),
    "get_sorted_unique": lambda x: x.at[np.array([0, 2])].get(
        indices_are_sorted=True, unique_indices=True
    ),
}


# CI's slice: every method and mode; outside it, rows another reaches with more in it
# (set and get as their variants; dropped out-of-bounds as no-wrap's; clip as set's).
AT_VARIANTS: Final = {"set", "set_out_of_bounds_dropped", "add_repeated_clip", "get", "get_fill"}


@pytest.mark.parametrize("name", slice_params(sorted(UPDATES), lambda n: n not in AT_VARIANTS, str))
def test_at_matches_jax(name: str) -> None:
    _both(UPDATES[name], M)


@pytest.mark.parametrize(
    ("make", "update"),
    [
        (lambda m: m.arange(5), lambda x: x.at[REPEATED].add(2)),
        (lambda m: m.arange(3, dtype=np.int8), lambda x: x.at[0].add(300)),
        (lambda m: m.asarray(2.0), lambda x: x.at[()].set(3)),
        (lambda m: m.arange(4, dtype=np.uint8), lambda x: x.at[np.array([1, 1])].max(np.uint8(9))),
        (lambda m: m.asarray([True, False]), lambda x: x.at[1].set(True)),
        (lambda m: m.zeros((2, 3), np.float32), lambda x: x.at[:, 1].add(2.5)),
        (lambda m: m.zeros(0), lambda x: x.at[np.array([], np.int32)].set(1.0)),
    ],
)
def test_at_dtypes_and_weak_types(make: Callable[[Any], Any], update: Callable[[Any], Any]) -> None:
    expected = update(make(jnp))
    _check(update(make(dnp)), expected)
    _check(dx.jit(lambda x: update(x))(make(dnp)), expected)


def test_unsafe_casts_warn_as_jax() -> None:
    for m in (jnp, dnp):
        with pytest.warns(FutureWarning, match="scatter inputs have incompatible types"):
            m.arange(3).at[0].set(1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        _check(dnp.arange(3).at[0].set(1.5), jnp.arange(3).at[0].set(1.5))


def test_at_does_not_modify_and_accumulates() -> None:
    x = dnp.zeros(4)
    y = x.at[np.array([0, 0, 2, 9])].add(1.0)
    np.testing.assert_array_equal(x, np.zeros(4))
    np.testing.assert_array_equal(y, [2.0, 0.0, 1.0, 0.0])
    assert repr(x.at).startswith("_IndexUpdateHelper(")


# CI's slice: all but max, whose derivative is min's rule (its values are in the table above).
@pytest.mark.parametrize(
    "method", slice_params(["set", "add", "mul", "min", "max"], lambda m: m != "max", str)
)
def test_at_gradients(method: str) -> None:
    idx = np.array([0, 0, 2]) if method != "mul" else np.array([0, 2])
    x = np.array([1.0, 5.0, 3.0, 2.0])
    u = np.array([4.0, 6.0, 3.0])[: len(idx)]
    w = np.arange(1.0, 5.0)

    def f(x: Any, u: Any) -> Any:
        # (scatter_mul's derivatives need unique indices, as in JAX)
        return (getattr(x.at[idx], method)(u, unique_indices=method == "mul") * w).sum()

    for argnums in (0, 1):
        expected = jax.grad(f, argnums)(jnp.asarray(x), jnp.asarray(u))
        _check(dx.grad(f, argnums)(dnp.asarray(x), dnp.asarray(u)), expected)
    _, dt = dx.jvp(f, (dnp.asarray(x), dnp.asarray(u)), (dnp.ones(4), dnp.ones(len(idx))))
    _, jt = jax.jvp(f, (jnp.asarray(x), jnp.asarray(u)), (jnp.ones(4), jnp.ones(len(idx))))
    np.testing.assert_allclose(float(dt), float(jt), rtol=1e-12)


def test_at_under_vmap() -> None:
    xs = RNG.normal(size=(3, 5))
    idx = np.array([[0, 1], [4, 4], [2, 9]])
    vals = RNG.normal(size=(3, 2))

    def f(x: Any, i: Any, v: Any) -> Any:
        return x.at[i].add(v)

    expected = jax.vmap(f)(jnp.asarray(xs), idx, jnp.asarray(vals))
    _check(dx.vmap(f)(dnp.asarray(xs), idx, dnp.asarray(vals)), expected)
    _check(dx.jit(dx.vmap(f))(dnp.asarray(xs), idx, dnp.asarray(vals)), expected)


# --- take, take_along_axis ---------------------------------------------------------------------


# CI's slice: each axis once and each mode once (a diagonal of the grid).
@pytest.mark.parametrize(
    ("axis", "mode"),
    slice_params(
        [(a, m) for a in (None, 0, 1, -1) for m in (None, "fill", "clip", "wrap")],
        lambda row: row in {(None, None), (0, "fill"), (1, "clip"), (-1, "wrap")},
        lambda row: f"{row[0]}-{row[1]}",
    ),
)
def test_take(axis: int | None, mode: str | None) -> None:
    idx = np.array([[2, -1], [7, 0]])

    def f(m: Any, x: Any) -> Any:
        return m.take(x, idx, axis=axis, mode=mode)

    expected = f(jnp, jnp.asarray(M))
    _check(f(dnp, dnp.asarray(M)), expected)
    _check(dx.jit(lambda x: f(dnp, x))(dnp.asarray(M)), expected)


def test_take_options_and_errors() -> None:
    x = dnp.asarray(M)
    _check(
        dnp.take(x, np.array([9]), axis=0, fill_value=-1.0),
        jnp.take(jnp.asarray(M), np.array([9]), axis=0, fill_value=-1.0),
    )
    _check(
        dnp.take(x, np.zeros((0, 2), np.int32), axis=1),
        jnp.take(jnp.asarray(M), np.zeros((0, 2), np.int32), axis=1),
    )
    with pytest.raises(ValueError, match="Invalid mode"):
        dnp.take(x, np.array([1]), mode="bad")
    with pytest.raises(NotImplementedError):
        dnp.take(x, np.array([1]), mode="raise")
    g = dx.grad(lambda x: dnp.take(x, np.array([1, 1, 3])).sum())(x)
    j = jax.grad(lambda x: jnp.take(x, np.array([1, 1, 3])).sum())(jnp.asarray(M))
    _check(g, j)


# CI's slice: axis 0, a broadcast index, a broadcast operand (3-D, last axis) and no
# axis; the other two take along axis 1 as the broadcast index's row does.
@pytest.mark.parametrize(
    ("shape", "idx_shape", "axis"),
    slice_params(
        [
            ((3, 4), (3, 2), 1),
            ((3, 4), (5, 4), 0),
            ((3, 4), (1, 6), 1),
            ((2, 3, 4), (2, 1, 4), 1),
            ((2, 1, 4), (2, 5, 3), 2),
            ((12,), (5,), None),
        ],
        lambda row: row[2] != 1 or row[1] == (1, 6),
        [f"shape{i}-idx_shape{i}-{a}" for i, a in enumerate([1, 0, 1, 1, 2, None])],
    ),
)
def test_take_along_axis(
    shape: tuple[int, ...], idx_shape: tuple[int, ...], axis: int | None
) -> None:
    x = RNG.normal(size=shape)
    n = x.size if axis is None else shape[axis]
    idx = RNG.integers(-n - 1, n + 1, size=idx_shape)

    def f(m: Any, x: Any) -> Any:
        return m.take_along_axis(x, idx, axis=axis)

    expected = f(jnp, jnp.asarray(x))
    _check(f(dnp, dnp.asarray(x)), expected)
    _check(dx.jit(lambda x: f(dnp, x))(dnp.asarray(x)), expected)
    for mode in ("clip", "promise_in_bounds"):
        e = jnp.take_along_axis(jnp.asarray(x), idx, axis=axis, mode=mode)
        _check(dnp.take_along_axis(dnp.asarray(x), idx, axis=axis, mode=mode), e)
    w = RNG.normal(size=np.shape(expected))
    _check(
        dx.grad(lambda x: (f(dnp, x) * w).sum())(dnp.asarray(x)),
        jax.grad(lambda x: jnp.sum(jnp.nan_to_num(f(jnp, x)) * w))(jnp.asarray(x)),
    )


def test_take_along_axis_errors() -> None:
    x = dnp.asarray(M)
    with pytest.raises(TypeError, match="integer type"):
        dnp.take_along_axis(x, np.ones((3, 1)), axis=1)
    with pytest.raises(ValueError, match="same number of dimensions"):
        dnp.take_along_axis(x, np.ones(3, np.int32), axis=1)
    with pytest.raises(ValueError, match="1D if axis=None"):
        dnp.take_along_axis(x, np.ones((3, 1), np.int32), axis=None)


# --- errors -------------------------------------------------------------------------------------


def test_a_list_as_the_index_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="non-tuple sequence"):
        dnp.asarray(X)[[0, 1]]
    with pytest.raises(TypeError, match="non-tuple sequence"):
        dnp.asarray(X).at[[0, 1]].set(0.0)
    with pytest.raises(TypeError):
        jnp.asarray(X)[[0, 1]]


def test_boolean_masks_must_be_concrete() -> None:
    with pytest.raises(IndexError, match="boolean indices must be concrete") as info:
        dx.jit(lambda x: x[x > 1])(dnp.asarray(M))
    assert isinstance(info.value, NonConcreteBooleanIndexError)
    with pytest.raises(NonConcreteBooleanIndexError):
        dx.vmap(lambda x: x[x > 0])(dnp.asarray(M))
    with pytest.raises(IndexError):
        dx.jit(lambda x: x.at[x > 1].set(0.0))(dnp.asarray(M))
    # A mask that is a constant of the traced function is fine, as in JAX.
    _check(dx.jit(lambda x: x[:, MASK])(dnp.asarray(X)), jnp.asarray(X)[:, MASK])


@pytest.mark.parametrize(
    ("index", "error", "match"),
    [
        (1.0, TypeError, "integer or boolean type"),
        (np.array([1.0]), TypeError, "integer or boolean type"),
        ("a", TypeError, "string indexing"),
        (object(), IndexError, "valid indices"),
        ((0, 0, 0, 0), IndexError, "Too many indices"),
        ((Ellipsis, 0, Ellipsis), IndexError, "single ellipsis"),
        (np.array([[True, False]]), IndexError, "boolean index did not match"),
    ],
)
def test_bad_indices(index: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        dnp.asarray(X)[index]
    with pytest.raises(error):
        jnp.asarray(X)[index]


def test_traced_slice_bounds_and_empty_axes() -> None:
    with pytest.raises(IndexError, match="Slice entries must be static"):
        dx.jit(lambda x, i: x[i:])(dnp.asarray(M), np.int32(1))
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 0"):
        dnp.zeros((0, 3))[0]
    # A concrete array as a slice bound is fine.
    _check(dnp.asarray(M)[dnp.asarray(1) :], jnp.asarray(M)[jnp.asarray(1) :])


def test_item_assignment_points_to_at() -> None:
    x: Any = dnp.zeros(3)  # a Value declares no item assignment: refused at run time too
    with pytest.raises(TypeError, match=r"\.at\[idx\]\.set"):
        x[0] = 1.0
