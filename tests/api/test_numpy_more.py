"""didax.numpy's composites (joining, rearranging, matrices, statistics, logic, einsum) vs JAX.

Each case is a function of a numpy module (``jnp`` or ``dnp``) and runs in
both, eagerly and under jit; values, shapes, dtypes and weak types must be
JAX's. Differentiable cases are also compared under grad.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp

rng = np.random.RandomState(0)
M = rng.randn(3, 4)
S = rng.randn(4, 4)
V = rng.randn(5)
T = rng.randn(2, 3, 4)
I = np.array([[0, 3, 0], [2, 0, 1]])
B = np.array([True, False, True, True])
NANS = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, 2.0]])

Case = Callable[[Any], Any]

CASES: dict[str, Case] = {
    # joining, splitting, tiling
    "atleast_1d": lambda np_: np_.atleast_1d(np_.asarray(2.0)),
    "atleast_2d": lambda np_: np_.atleast_2d(np_.asarray(V)),
    "atleast_3d_vec": lambda np_: np_.atleast_3d(np_.asarray(V)),
    "atleast_3d_mat": lambda np_: np_.atleast_3d(np_.asarray(M)),
    "vstack": lambda np_: np_.vstack([np_.asarray(V), np_.asarray(V)]),
    "hstack": lambda np_: np_.hstack([np_.asarray(M), np_.asarray(M)]),
    "hstack_vec": lambda np_: np_.hstack([np_.asarray(V), np_.asarray(V[:2])]),
    "dstack": lambda np_: np_.dstack([np_.asarray(M), np_.asarray(M)]),
    "column_stack": lambda np_: np_.column_stack([np_.asarray(V), np_.asarray(V)]),
    "append": lambda np_: np_.append(np_.asarray(M), np_.asarray(V)),
    "append_axis": lambda np_: np_.append(np_.asarray(M), np_.asarray(M), axis=1),
    "split": lambda np_: np_.split(np_.asarray(T), 2, axis=2),
    "split_points": lambda np_: np_.split(np_.asarray(V), [1, 3, 4]),
    "array_split": lambda np_: np_.array_split(np_.asarray(V), 3),
    "hsplit": lambda np_: np_.hsplit(np_.asarray(M), 2),
    "vsplit": lambda np_: np_.vsplit(np_.asarray(S), [1]),
    "dsplit": lambda np_: np_.dsplit(np_.asarray(T), 2),
    "tile": lambda np_: np_.tile(np_.asarray(M), (2, 1, 2)),
    "tile_int": lambda np_: np_.tile(np_.asarray(V), 3),
    "repeat": lambda np_: np_.repeat(np_.asarray(M), 2, axis=1),
    "repeat_flat": lambda np_: np_.repeat(np_.asarray(M), 2),
    "repeat_counts": lambda np_: np_.repeat(np_.asarray(V), np.array([1, 0, 2, 1, 3])),
    # rearranging
    "flip": lambda np_: np_.flip(np_.asarray(T), axis=(0, 2)),
    "flip_all": lambda np_: np_.flip(np_.asarray(M)),
    "fliplr": lambda np_: np_.fliplr(np_.asarray(M)),
    "flipud": lambda np_: np_.flipud(np_.asarray(M)),
    "rot90": lambda np_: np_.rot90(np_.asarray(M)),
    "rot90_k3": lambda np_: np_.rot90(np_.asarray(T), 3, axes=(1, 2)),
    "rot90_k2": lambda np_: np_.rot90(np_.asarray(M), -2),
    "roll": lambda np_: np_.roll(np_.asarray(V), 2),
    "roll_neg_axis": lambda np_: np_.roll(np_.asarray(M), -1, axis=1),
    "roll_flat": lambda np_: np_.roll(np_.asarray(M), 5),
    "roll_multi": lambda np_: np_.roll(np_.asarray(T), (1, 2), axis=(0, 2)),
    "rollaxis": lambda np_: np_.rollaxis(np_.asarray(T), 2),
    "rollaxis_start": lambda np_: np_.rollaxis(np_.asarray(T), 0, 2),
    "diff": lambda np_: np_.diff(np_.asarray(M)),
    "diff_n2_axis0": lambda np_: np_.diff(np_.asarray(T), n=2, axis=1),
    "diff_prepend": lambda np_: np_.diff(np_.asarray(V), prepend=0.0, append=np_.asarray([1.0])),
    "diff_bool": lambda np_: np_.diff(np_.asarray(B)),
    "ediff1d": lambda np_: np_.ediff1d(np_.asarray(M), to_begin=np_.asarray([9.0])),
    "pad_constant": lambda np_: np_.pad(np_.asarray(M), ((1, 2), (0, 1))),
    "pad_constant_value": lambda np_: np_.pad(np_.asarray(V), 2, constant_values=7.0),
    "pad_edge": lambda np_: np_.pad(np_.asarray(M), 2, mode="edge"),
    "pad_reflect": lambda np_: np_.pad(np_.asarray(V), (3, 2), mode="reflect"),
    "pad_symmetric": lambda np_: np_.pad(np_.asarray(M), (2, 3), mode="symmetric"),
    "pad_wrap": lambda np_: np_.pad(np_.asarray(V), (6, 2), mode="wrap"),
    # matrices
    "full_like": lambda np_: np_.full_like(np_.asarray(M), 3),
    "full_like_dtype": lambda np_: np_.full_like(np_.asarray(M), 3, dtype=np_.int32),
    "empty": lambda np_: np_.empty((2, 3)),
    "empty_like": lambda np_: np_.empty_like(np_.asarray(I)),
    "identity": lambda np_: np_.identity(3),
    "tri": lambda np_: np_.tri(3, 4, 1),
    "tril": lambda np_: np_.tril(np_.asarray(T)),
    "tril_k": lambda np_: np_.tril(np_.asarray(M), -1),
    "triu": lambda np_: np_.triu(np_.asarray(M), 1),
    "diag_of_matrix": lambda np_: np_.diag(np_.asarray(M)),
    "diag_of_matrix_k": lambda np_: np_.diag(np_.asarray(M), -1),
    "diag_of_vector": lambda np_: np_.diag(np_.asarray(V)),
    "diag_of_vector_k": lambda np_: np_.diag(np_.asarray(V), 2),
    "diag_of_vector_neg_k": lambda np_: np_.diag(np_.asarray(V), -1),
    "diagflat": lambda np_: np_.diagflat(np_.asarray(M[:1, :2])),
    "diagonal": lambda np_: np_.diagonal(np_.asarray(T), 1, 1, 2),
    "diagonal_neg": lambda np_: np_.diagonal(np_.asarray(M), -1),
    "trace": lambda np_: np_.trace(np_.asarray(S)),
    "trace_int": lambda np_: np_.trace(np_.asarray(I)),
    "diag_indices": lambda np_: np_.diag_indices(3),
    "tril_indices": lambda np_: np_.tril_indices(3),
    "triu_indices": lambda np_: np_.triu_indices(4, 1, 3),
    "meshgrid": lambda np_: np_.meshgrid(np_.asarray(V[:2]), np_.asarray(V)),
    "meshgrid_ij": lambda np_: np_.meshgrid(np_.asarray(V[:2]), np_.asarray(V), indexing="ij"),
    "meshgrid_sparse": lambda np_: np_.meshgrid(
        np_.asarray(V[:2]), np_.asarray(V), np_.asarray(V[:3]), sparse=True
    ),
    # statistics
    "all": lambda np_: np_.all(np_.asarray(B)),
    "any_axis": lambda np_: np_.any(np_.asarray(I), axis=0),
    "all_keepdims": lambda np_: np_.all(np_.asarray(M) > 0, axis=1, keepdims=True),
    "all_empty": lambda np_: np_.all(np_.zeros((0, 2)), axis=0),
    "any_empty": lambda np_: np_.any(np_.zeros((0,))),
    "count_nonzero": lambda np_: np_.count_nonzero(np_.asarray(I), axis=1),
    "cumprod": lambda np_: np_.cumprod(np_.asarray(M), axis=1),
    "cumprod_flat_int": lambda np_: np_.cumprod(np_.asarray(I)),
    "var": lambda np_: np_.var(np_.asarray(M)),
    "var_axis_ddof": lambda np_: np_.var(np_.asarray(T), axis=(0, 2), ddof=1),
    "var_int": lambda np_: np_.var(np_.asarray(I), axis=0),
    "std": lambda np_: np_.std(np_.asarray(M), axis=1, keepdims=True),
    "average": lambda np_: np_.average(np_.asarray(M)),
    "average_weights": lambda np_: np_.average(np_.asarray(M), axis=1, weights=np_.asarray(V[:4])),
    "average_returned": lambda np_: np_.average(np_.asarray(M), axis=0, returned=True),
    "cov": lambda np_: np_.cov(np_.asarray(M)),
    "cov_cols_bias": lambda np_: np_.cov(np_.asarray(M), rowvar=False, bias=True),
    "cov_xy": lambda np_: np_.cov(np_.asarray(V), np_.asarray(V[::-1])),
    "corrcoef": lambda np_: np_.corrcoef(np_.asarray(M)),
    "nansum": lambda np_: np_.nansum(np_.asarray(NANS), axis=1),
    "nanprod": lambda np_: np_.nanprod(np_.asarray(NANS)),
    "nanmean": lambda np_: np_.nanmean(np_.asarray(NANS), axis=0),
    "nanmax": lambda np_: np_.nanmax(np_.asarray(NANS), axis=0),
    "nanmin": lambda np_: np_.nanmin(np_.asarray(NANS), axis=1),
    "nanvar": lambda np_: np_.nanvar(np_.asarray(NANS), axis=1),
    "nanstd": lambda np_: np_.nanstd(np_.asarray(NANS)),
    # logic
    "isclose": lambda np_: np_.isclose(
        np_.asarray([1.0, np.inf, -np.inf, np.nan, 1.0]),
        np_.asarray([1.0 + 1e-9, np.inf, np.inf, np.nan, 2.0]),
    ),
    "isclose_equal_nan": lambda np_: np_.isclose(
        np_.asarray([np.nan, 1.0]), np_.asarray([np.nan, 1.0]), equal_nan=True
    ),
    "isclose_int": lambda np_: np_.isclose(np_.asarray(I), 0),
    "allclose": lambda np_: np_.allclose(np_.asarray(M), np_.asarray(M) + 1e-10),
    "array_equal": lambda np_: np_.array_equal(np_.asarray(M), np_.asarray(M)),
    "array_equal_shapes": lambda np_: np_.array_equal(np_.asarray(M), np_.asarray(V)),
    "array_equiv": lambda np_: np_.array_equiv(np_.asarray(M[:1]), np_.asarray(M[:1])),
    "select": lambda np_: np_.select(
        [np_.asarray(V) > 0.5, np_.asarray(V) < -0.5], [np_.asarray(V), -np_.asarray(V)], 0.0
    ),
    "piecewise": lambda np_: np_.piecewise(
        np_.asarray(V), [np_.asarray(V) < 0, np_.asarray(V) >= 0], [lambda x: -x, lambda x: x * 2]
    ),
    "piecewise_default": lambda np_: np_.piecewise(
        np_.asarray(V), [np_.asarray(V) < 0], [0.0, lambda x: x + 1]
    ),
    "nonzero_sized": lambda np_: np_.nonzero(np_.asarray(I), size=5, fill_value=-1),
    "flatnonzero_sized": lambda np_: np_.flatnonzero(np_.asarray(I), size=2),
    "argwhere_sized": lambda np_: np_.argwhere(np_.asarray(I), size=4),
    "polyval": lambda np_: np_.polyval(np_.asarray([1.0, -2.0, 0.5]), np_.asarray(V)),
    "polyval_int": lambda np_: np_.polyval(np_.asarray([1, 2, 3]), np_.asarray(I)),
    "convolve": lambda np_: np_.convolve(np_.asarray(V), np_.asarray(V[:3])),
    "convolve_same": lambda np_: np_.convolve(np_.asarray(V[:3]), np_.asarray(V), mode="same"),
    "convolve_valid": lambda np_: np_.convolve(np_.asarray(V), np_.asarray(V[:2]), mode="valid"),
    "correlate": lambda np_: np_.correlate(np_.asarray(V), np_.asarray(V[:3]), mode="full"),
    "correlate_swap": lambda np_: np_.correlate(np_.asarray(V[:2]), np_.asarray(V), mode="full"),
    "correlate_valid": lambda np_: np_.correlate(np_.asarray(V), np_.asarray(V[:3])),
    "gradient": lambda np_: np_.gradient(np_.asarray(V)),
    "gradient_2d": lambda np_: np_.gradient(np_.asarray(M), 0.5),
    "gradient_axis": lambda np_: np_.gradient(np_.asarray(M), axis=1),
    "real": lambda np_: np_.real(np_.asarray(V)),
    "imag": lambda np_: np_.imag(np_.asarray(V)),
    "conj": lambda np_: np_.conj(np_.asarray(I)),
    "angle": lambda np_: np_.angle(np_.asarray(V)),
    "angle_deg_int": lambda np_: np_.angle(np_.asarray(I) - 1, deg=True),
    "searchsorted": lambda np_: np_.searchsorted(np_.asarray(np.sort(V)), np_.asarray(M)),
    "searchsorted_right": lambda np_: np_.searchsorted(
        np_.asarray([1.0, 2.0, 2.0, 5.0]), np_.asarray([2.0, 0.0, 9.0, 5.0]), side="right"
    ),
    # NaNs and signed zeros in the sort's total order, as JAX's comparators.
    "searchsorted_total_order": lambda np_: np_.searchsorted(
        np_.asarray([-np.inf, -1.0, 0.0, 0.0, 2.0, np.nan]),
        np_.asarray([np.nan, -0.0, 0.0, np.inf, -np.inf, 2.0]),
        side="right",
    ),
    "searchsorted_sorter": lambda np_: np_.searchsorted(
        np_.asarray(V), np_.asarray(M), sorter=np_.asarray(np.argsort(V))
    ),
    "histogram": lambda np_: np_.histogram(np_.asarray(T)),
    "histogram_range": lambda np_: np_.histogram(np_.asarray(M), bins=4, range=(-1.0, 1.0)),
    "histogram_edges_density": lambda np_: np_.histogram(
        np_.asarray(V), bins=np_.asarray([-2.0, 0.0, 0.5, 2.0]), density=True
    ),
    "histogram_weights": lambda np_: np_.histogram(
        np_.asarray(M), bins=3, weights=np_.abs(np_.asarray(M))
    ),
    "histogram_bin_edges": lambda np_: np_.histogram_bin_edges(np_.asarray(V), bins=4),
    # contractions
    "einsum_matmul": lambda np_: np_.einsum("ij,jk->ik", np_.asarray(M), np_.asarray(S)),
    "einsum_three": lambda np_: np_.einsum(
        "ij,jk,kl->il", np_.asarray(M), np_.asarray(S), np_.asarray(S)
    ),
    "einsum_one_trace": lambda np_: np_.einsum("ii", np_.asarray(S)),
    "einsum_one_diag": lambda np_: np_.einsum("ii->i", np_.asarray(S)),
    "einsum_one_transpose": lambda np_: np_.einsum("ij->ji", np_.asarray(M)),
    "einsum_one_sum": lambda np_: np_.einsum("ijk->j", np_.asarray(T)),
    "einsum_ellipsis": lambda np_: np_.einsum("...ij,...jk->...ik", np_.asarray(T), np_.asarray(S)),
    "einsum_ellipsis_broadcast": lambda np_: np_.einsum(
        "...j,j->...", np_.asarray(T), np_.asarray(V[:4])
    ),
    "einsum_implicit": lambda np_: np_.einsum("ij,jk", np_.asarray(M), np_.asarray(S)),
    "einsum_outer": lambda np_: np_.einsum("i,j->ij", np_.asarray(V), np_.asarray(V[:2])),
    "einsum_batch": lambda np_: np_.einsum(
        "bij,bjk->bik", np_.asarray(T), np_.asarray(T).transpose(0, 2, 1)
    ),
    "einsum_four": lambda np_: np_.einsum(
        "ab,bc,cd,d->a", np_.asarray(S), np_.asarray(S), np_.asarray(S), np_.asarray(V[:4])
    ),
    "einsum_sublist": lambda np_: np_.einsum(
        np_.asarray(M), [0, 1], np_.asarray(S), [1, 2], [0, 2]
    ),
    "einsum_repeated_across": lambda np_: np_.einsum("ii,ij->j", np_.asarray(S), np_.asarray(S)),
    "einsum_int": lambda np_: np_.einsum("ij,j->i", np_.asarray(I), np_.asarray(I[0])),
    "tensordot": lambda np_: np_.tensordot(np_.asarray(T), np_.asarray(rng_t()), 2),
    "tensordot_axes": lambda np_: np_.tensordot(np_.asarray(T), np_.asarray(M), ((1, 2), (0, 1))),
    "tensordot_zero": lambda np_: np_.tensordot(np_.asarray(V), np_.asarray(V[:2]), 0),
    "inner": lambda np_: np_.inner(np_.asarray(M), np_.asarray(M)),
    "vdot": lambda np_: np_.vdot(np_.asarray(M), np_.asarray(M)),
    "kron": lambda np_: np_.kron(np_.asarray(M[:2, :2]), np_.asarray(S[:3, :2])),
    "kron_mixed_rank": lambda np_: np_.kron(np_.asarray(V[:2]), np_.asarray(I)),
    "cross": lambda np_: np_.cross(np_.asarray(M[:, :3]), np_.asarray(S[:3, :3])),
    "cross_2d": lambda np_: np_.cross(np_.asarray(M[:, :2]), np_.asarray(M[:, 2:])),
    "cross_mixed": lambda np_: np_.cross(np_.asarray(M[:, :3]), np_.asarray(V[:2])),
    "constants": lambda np_: np_.asarray([np_.pi, np_.e, np_.euler_gamma, np_.inf]),
}


def rng_t() -> np.ndarray[Any, Any]:
    return np.random.RandomState(1).randn(3, 4, 2)


# Cases whose result shape depends on the values: eager only (JAX raises under jit too).
EAGER_ONLY: frozenset[str] = frozenset()


def _leaves(out: Any) -> list[Any]:
    return jax.tree_util.tree_leaves(out)


def _compare(got: Any, want: Any) -> None:
    g, w = _leaves(got), _leaves(want)
    assert len(g) == len(w)
    for a, b in zip(g, w, strict=True):
        assert isinstance(a, dx.Array), type(a)
        assert a.shape == b.shape
        assert a.dtype == b.dtype
        assert a.weak_type == b.weak_type
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_matches_jax(name: str) -> None:
    case = CASES[name]
    _compare(case(dnp), case(jnp))


@pytest.mark.parametrize("name", sorted(set(CASES) - EAGER_ONLY))
def test_jit_matches_jax(name: str) -> None:
    case = CASES[name]
    _compare(dx.jit(lambda: case(dnp))(), jax.jit(lambda: case(jnp))())


GRAD_CASES: dict[str, Callable[[Any, Any], Any]] = {
    "tile": lambda np_, x: np_.tile(x, (2, 3)),
    "repeat_counts": lambda np_, x: np_.repeat(x, np.array([2, 0, 1, 3]), axis=1),
    "roll": lambda np_, x: np_.roll(x, (1, -2), axis=(0, 1)),
    "rot90": lambda np_, x: np_.rot90(x, 3),
    "pad_reflect": lambda np_, x: np_.pad(x, 2, mode="reflect"),
    "pad_constant": lambda np_, x: np_.pad(x, 1, constant_values=2.0),
    "diff": lambda np_, x: np_.diff(x, n=2, axis=1),
    "tril": lambda np_, x: np_.tril(x, 1),
    "diagonal": lambda np_, x: np_.diagonal(x, 1),
    "trace": lambda np_, x: np_.trace(x),
    "var": lambda np_, x: np_.var(x, axis=0),
    "std": lambda np_, x: np_.std(x),
    "cumprod": lambda np_, x: np_.cumprod(x, axis=1),
    "cov": lambda np_, x: np_.cov(x),
    "corrcoef": lambda np_, x: np_.corrcoef(x),
    "average": lambda np_, x: np_.average(x, axis=1, weights=np_.asarray([1.0, 2.0, 3.0, 4.0])),
    "polyval": lambda np_, x: np_.polyval(x[0], x[1]),
    "convolve": lambda np_, x: np_.convolve(x[0], x[1, :2], mode="same"),
    "gradient": lambda np_, x: np_.gradient(x, axis=1),
    "einsum_three": lambda np_, x: np_.einsum("ij,jk,kl->il", x, x.T, x),
    "einsum_diag": lambda np_, x: np_.einsum("ii->i", x[:, :3]),
    "tensordot": lambda np_, x: np_.tensordot(x, x, ((0,), (0,))),
    "kron": lambda np_, x: np_.kron(x[:2, :2], x[1:, 2:]),
    "cross": lambda np_, x: np_.cross(x[:, :3], x[:, 1:]),
    "nanmean": lambda np_, x: np_.nanmean(x, axis=0),
    "select": lambda np_, x: np_.select([x > 0], [x * x], -x),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grad_matches_jax(name: str) -> None:
    case = GRAD_CASES[name]
    x = rng.randn(3, 4)
    w = np.random.RandomState(2).randn(*np.shape(case(np, x) if name != "select" else x))

    def loss(np_: Any) -> Callable[[Any], Any]:
        return lambda v: np_.sum(case(np_, v) * w)

    got = dx.grad(loss(dnp))(x)
    want = jax.grad(loss(jnp))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-10, atol=1e-10)
    got_jit = dx.jit(dx.grad(loss(dnp)))(x)
    np.testing.assert_allclose(np.asarray(got_jit), np.asarray(want), rtol=1e-10, atol=1e-10)


def test_vmap_of_composites_matches_jax() -> None:
    x = rng.randn(5, 3, 4)
    for f in (
        lambda np_, v: np_.roll(np_.tril(v), 1, axis=0),
        lambda np_, v: np_.einsum("ij,jk->ik", v, v.T),
        lambda np_, v: np_.var(np_.pad(v, 1, mode="edge"), axis=1),
        lambda np_, v: np_.cumprod(v, axis=1),
    ):
        got = dx.vmap(lambda v, f=f: f(dnp, v))(x)
        want = jax.vmap(lambda v, f=f: f(jnp, v))(x)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)


def test_value_dependent_shapes_need_concrete_values_or_size() -> None:
    got = dnp.nonzero(np.array([[0, 1], [2, 0]]))
    want = jnp.nonzero(np.array([[0, 1], [2, 0]]))
    _compare(got, want)
    _compare(dnp.argwhere(np.array([0, 3, 4])), jnp.argwhere(np.array([0, 3, 4])))
    with pytest.raises(dx.errors.ConcretizationTypeError, match="size"):
        dx.jit(dnp.nonzero)(np.array([0, 1]))


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: dnp.split(np.arange(5), 2), ValueError),
        (lambda: dnp.vsplit(np.arange(5), 1), ValueError),
        (lambda: dnp.repeat(np.arange(3), [1, 2]), ValueError),
        (lambda: dnp.pad(np.arange(3), 1, mode="median"), NotImplementedError),
        (lambda: dnp.tensordot(np.ones((2, 3)), np.ones((2, 3)), 1), TypeError),
        (lambda: dnp.einsum("ij,jk->ik", np.ones((2, 3)), np.ones((4, 5))), ValueError),
        (lambda: dnp.einsum("ij->iz", np.ones((2, 3))), ValueError),
        (lambda: dnp.cross(np.ones(4), np.ones(3)), ValueError),
        (lambda: dnp.convolve(np.ones((2, 2)), np.ones(2)), ValueError),
        (lambda: dnp.diagonal(np.ones(3)), ValueError),
    ],
)
def test_bad_arguments_raise_as_jax(call: Callable[[], Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        call()


NORM_CASES: list[tuple[Any, Any, bool]] = [
    (None, None, False),
    (None, 0, True),
    (2, 1, False),
    (1, -1, False),
    (np.inf, 0, False),
    (-np.inf, 1, False),
    (0, 1, False),
    (3, 0, False),
    (0.5, 1, True),
    ("fro", (0, 1), False),
    (1, (0, 1), False),
    (-1, (1, 0), True),
    (np.inf, (0, 1), False),
    (-np.inf, (0, 1), True),
    (None, (0, 2), False),
]


@pytest.mark.parametrize(("ord_", "axis", "keepdims"), NORM_CASES)
def test_linalg_norm_matches_jax(ord_: Any, axis: Any, keepdims: bool) -> None:
    x = T if isinstance(axis, tuple) and 2 in axis else M
    got = dnp.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims)
    want = jnp.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims)
    _compare(got, want)
    g = dx.grad(lambda v: dnp.sum(dnp.linalg.norm(v, ord=ord_, axis=axis)))(x)
    w = jax.grad(lambda v: jnp.sum(jnp.linalg.norm(v, ord=ord_, axis=axis)))(x)
    np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-10)


@pytest.mark.parametrize("ord_", [2, -2, "nuc"])
def test_norm_through_svd_matches_jax(ord_: Any) -> None:
    # The spectral and nuclear norms (issue 11: through svd), over moved axes too.
    for x, axis, keepdims in ((M, None, False), (T, (2, 0), True)):
        got = dnp.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims)
        want = jnp.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims)
        _compare(got, want)
    g = dx.grad(lambda v: dnp.linalg.norm(v, ord=ord_))(M)
    w = jax.grad(lambda v: jnp.linalg.norm(v, ord=ord_))(M)
    np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-9, atol=1e-12)


def test_one_argument_where_is_nonzero() -> None:
    cond = np.array([[0, 2], [3, 0]])
    _compare(dnp.where(cond), jnp.where(cond))
    got = dx.jit(lambda c: dnp.where(c, size=3, fill_value=-1))(cond)
    want = jax.jit(lambda c: jnp.where(c, size=3, fill_value=-1))(cond)
    _compare(got, want)


def test_unique_on_concrete_values_as_jax() -> None:
    x = np.array([[3, 1, 2], [3, 1, 7]])
    _compare(
        dnp.unique(x, return_index=True, return_inverse=True, return_counts=True),
        jnp.unique(x, return_index=True, return_inverse=True, return_counts=True),
    )
    _compare(dnp.unique(x, size=6), jnp.unique(x, size=6))
    _compare(dnp.unique(x, size=2), jnp.unique(x, size=2))
    with pytest.raises(dx.errors.ConcretizationTypeError):
        dx.jit(dnp.unique)(x)
