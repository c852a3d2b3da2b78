"""Linear algebra: ``didax.lax.linalg``, ``didax.numpy.linalg``, ``didax.scipy.linalg``.

Values against JAX's functions of the same names (eagerly, under ``jit``
and under ``vmap``), derivatives against ``jax.jvp`` and ``jax.grad`` and
against central finite differences, on small random well-conditioned
matrices (distinct eigenvalues and singular values, so that the
decompositions' derivatives exist). didax calls the same LAPACK kernels
as JAX, so even the sign conventions of ``qr``, ``eigh`` and ``svd``
agree, and the decompositions are compared directly. Then JAX's behaviour
on singular input (inf/NaN, no exception; a finite gradient of ``det``),
and clear typing errors on bad input. Then complex64/complex128: values,
jvps and gradients of real-valued functions against JAX (eigenvectors and
singular vectors through reconstructions, as their phases are arbitrary).
Last, ``numpy.linalg.norm`` over its orders and axes, with gradients.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from typing import Any, Final, TypeAlias

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest
from tests.slicing import slice_params

import didax as dx
import didax.numpy as dnp
import didax.scipy.linalg as dsl
from didax import lax
from didax.errors import DTypeError, ShapeError

Array: TypeAlias = np.ndarray[Any, Any]
Fn: TypeAlias = Callable[..., Any]

RNG: Final = np.random.default_rng(1234)


def _mat(*shape: int) -> Array:
    return RNG.normal(size=shape)


def _spd(n: int, *batch: int) -> Array:
    a = _mat(*batch, n, n)
    return np.asarray(a @ np.swapaxes(a, -1, -2) + n * np.eye(n))


def _tri(n: int, lower: bool, *batch: int) -> Array:
    a = _mat(*batch, n, n)
    t = np.tril(a) if lower else np.triu(a)
    return np.asarray(t + 3 * np.sign(np.diagonal(a, 0, -2, -1))[..., None] * np.eye(n))


def _general(n: int, *batch: int) -> Array:
    return np.asarray(_mat(*batch, n, n) + n * np.eye(n))


def _ts(**kw: bool) -> tuple[Fn, Fn]:
    return (
        lambda a, b: lax.linalg.triangular_solve(a, b, **kw),
        lambda a, b: jax.lax.linalg.triangular_solve(a, b, **kw),
    )


# name -> (didax function, JAX function, arguments). Every argument is a float array.
CASES: Final[dict[str, tuple[Fn, Fn, tuple[Array, ...]]]] = {
    # didax.lax.linalg
    "cholesky": (lax.linalg.cholesky, jax.lax.linalg.cholesky, (_spd(3),)),
    "ts_left_lower": (*_ts(left_side=True, lower=True), (_tri(3, True), _mat(3, 2))),
    "ts_left_upper_t": (
        *_ts(left_side=True, lower=False, transpose_a=True),
        (_tri(3, False), _mat(3, 2)),
    ),
    "ts_right_lower_t": (
        *_ts(left_side=False, lower=True, transpose_a=True),
        (_tri(3, True), _mat(2, 3)),
    ),
    "ts_right_upper_unit": (
        *_ts(left_side=False, lower=False, unit_diagonal=True),
        (_tri(3, False), _mat(2, 3)),
    ),
    "lu": (lax.linalg.lu, jax.lax.linalg.lu, (_mat(4, 4),)),
    "lu_wide": (lax.linalg.lu, jax.lax.linalg.lu, (_mat(3, 4),)),
    "qr_full_tall": (lax.linalg.qr, jax.lax.linalg.qr, (_mat(4, 3),)),
    "qr_thin_tall": (
        lambda x: lax.linalg.qr(x, full_matrices=False),
        lambda x: jax.lax.linalg.qr(x, full_matrices=False),
        (_mat(4, 3),),
    ),
    "qr_wide": (lax.linalg.qr, jax.lax.linalg.qr, (_mat(3, 4),)),
    "eigh": (lax.linalg.eigh, jax.lax.linalg.eigh, (_spd(4),)),
    "svd_thin": (
        lambda x: lax.linalg.svd(x, full_matrices=False),
        lambda x: jax.lax.linalg.svd(x, full_matrices=False),
        (_mat(4, 3),),
    ),
    "svd_square": (lax.linalg.svd, jax.lax.linalg.svd, (_mat(3, 3),)),
    "svd_values": (
        lambda x: lax.linalg.svd(x, compute_uv=False),
        lambda x: jax.lax.linalg.svd(x, compute_uv=False),
        (_mat(3, 4),),
    ),
    # didax.numpy.linalg
    "det": (dnp.linalg.det, jnp.linalg.det, (_general(4),)),
    "slogdet": (dnp.linalg.slogdet, jnp.linalg.slogdet, (_general(4),)),
    "inv": (dnp.linalg.inv, jnp.linalg.inv, (_general(3),)),
    "solve_vector": (dnp.linalg.solve, jnp.linalg.solve, (_general(3), _mat(3))),
    "solve_batched": (dnp.linalg.solve, jnp.linalg.solve, (_general(3, 2), _mat(3, 2))),
    "np_cholesky_upper": (
        lambda x: dnp.linalg.cholesky(x, upper=True),
        lambda x: jnp.linalg.cholesky(x, upper=True),
        (_spd(3),),
    ),
    "np_qr_r": (
        lambda x: dnp.linalg.qr(x, mode="r"),
        lambda x: jnp.linalg.qr(x, mode="r"),
        (_mat(4, 3),),
    ),
    "np_svd": (
        lambda x: dnp.linalg.svd(x, full_matrices=False),
        lambda x: jnp.linalg.svd(x, full_matrices=False),
        (_mat(3, 4),),
    ),
    "np_eigh": (dnp.linalg.eigh, jnp.linalg.eigh, (_spd(3),)),
    "eigvalsh": (dnp.linalg.eigvalsh, jnp.linalg.eigvalsh, (_spd(3),)),
    "lstsq": (
        lambda a, b: dnp.linalg.lstsq(a, b)[:2],
        lambda a, b: jnp.linalg.lstsq(a, b)[:2],
        (_mat(5, 3), _mat(5)),
    ),
    "pinv_tall": (dnp.linalg.pinv, jnp.linalg.pinv, (_mat(4, 3),)),
    "pinv_wide": (dnp.linalg.pinv, jnp.linalg.pinv, (_mat(2, 4),)),
    "matrix_power": (
        lambda x: dnp.linalg.matrix_power(x, 5),
        lambda x: jnp.linalg.matrix_power(x, 5),
        (_mat(3, 3) / 2,),
    ),
    "matrix_power_neg": (
        lambda x: dnp.linalg.matrix_power(x, -2),
        lambda x: jnp.linalg.matrix_power(x, -2),
        (_general(3),),
    ),
    "norm_2": (
        lambda x: dnp.linalg.norm(x, 2),
        lambda x: jnp.linalg.norm(x, 2),
        (_mat(3, 4),),
    ),
    "norm_nuc": (
        lambda x: dnp.linalg.norm(x, "nuc"),
        lambda x: jnp.linalg.norm(x, "nuc"),
        (_mat(4, 3),),
    ),
    "norm_m2": (
        lambda x: dnp.linalg.norm(x, -2),
        lambda x: jnp.linalg.norm(x, -2),
        (_mat(3, 3),),
    ),
    # didax.scipy.linalg
    "solve_triangular": (
        lambda a, b: dsl.solve_triangular(a, b, lower=True),
        lambda a, b: jsl.solve_triangular(a, b, lower=True),
        (_tri(3, True), _mat(3)),
    ),
    "solve_triangular_t": (
        lambda a, b: dsl.solve_triangular(a, b, trans=1),
        lambda a, b: jsl.solve_triangular(a, b, trans=1),
        (_tri(3, False), _mat(3, 2)),
    ),
    "cho_factor": (
        lambda x: dsl.cho_factor(x)[0],
        lambda x: jsl.cho_factor(x)[0],
        (_spd(3),),
    ),
    "cho_solve": (
        lambda a, b: dsl.cho_solve(dsl.cho_factor(a, lower=True), b),
        lambda a, b: jsl.cho_solve(jsl.cho_factor(a, lower=True), b),
        (_spd(3), _mat(3, 2)),
    ),
    "scipy_lu": (dsl.lu, jsl.lu, (_mat(4, 3),)),
    "lu_factor": (dsl.lu_factor, jsl.lu_factor, (_mat(3, 3),)),
    "lu_solve": (
        lambda a, b: dsl.lu_solve(dsl.lu_factor(a), b),
        lambda a, b: jsl.lu_solve(jsl.lu_factor(a), b),
        (_general(3), _mat(3)),
    ),
    "lu_solve_t": (
        lambda a, b: dsl.lu_solve(dsl.lu_factor(a), b, trans=1),
        lambda a, b: jsl.lu_solve(jsl.lu_factor(a), b, trans=1),
        (_general(3), _mat(3, 2)),
    ),
    "expm": (dsl.expm, jsl.expm, (_mat(3, 3),)),
    "expm_large": (dsl.expm, jsl.expm, (4 * _mat(3, 3),)),
}

# Not differentiable (integer results only) or not differentiable in didax or JAX.
NOT_DIFFERENTIABLE: Final = {"lu_factor", "matrix_rank"}
DIFF_CASES: Final = [n for n in CASES if n not in NOT_DIFFERENTIABLE]
# Reverse mode is the transposition of the jvp tested on every case: a sample of
# each family checks it (each case compiles two gradient programs).
GRAD_CASES: Final = [
    "cholesky",
    "ts_left_lower",
    "ts_right_lower_t",
    "lu_wide",
    "qr_full_tall",
    "qr_wide",
    "eigh",
    "svd_thin",
    "det",
    "slogdet",
    "solve_batched",
    "pinv_wide",
    "cho_solve",
    "lu_solve_t",
    "expm",
]
# The variants of a family (other flags, shapes or orders): the jvp table
# checks their values under jit (its primal outputs), so CI's values slice
# runs eagerly only the family's first case (the same kernels, run alone).
VARIANTS: Final = {
    "ts_left_upper_t",
    "ts_right_lower_t",
    "ts_right_upper_unit",
    "lu_wide",
    "qr_thin_tall",
    "qr_wide",
    "svd_square",
    "svd_values",
    "solve_batched",
    "pinv_wide",
    "matrix_power_neg",
    "norm_nuc",
    "norm_m2",
    "solve_triangular_t",
    "lu_solve_t",
    "expm_large",
}
# A sample for vmap: one of each family (each vmap compiles anew).
VMAP_CASES: Final = [
    "cholesky",
    "ts_left_lower",
    "lu",
    "qr_full_tall",
    "eigh",
    "svd_thin",
    "det",
    "solve_vector",
    "pinv_tall",
    "cho_solve",
    "lu_solve",
    "expm",
]


def _leaves(tree: Any) -> list[Array]:
    return [np.asarray(x) for x in jax.tree_util.tree_leaves(tree)]


def _assert_close(got: Any, want: Any, rtol: float = 1e-9, atol: float = 1e-9) -> None:
    g, w = _leaves(got), _leaves(want)
    assert len(g) == len(w)
    for a, b in zip(g, w, strict=True):
        assert a.shape == b.shape, (a.shape, b.shape)
        if np.issubdtype(b.dtype, np.inexact):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", slice_params(CASES, lambda n: n not in VARIANTS, str))
def test_values_match_jax_eager_and_jit(name: str) -> None:
    f, jf, args = CASES[name]
    want = jax.jit(jf)(*args)
    _assert_close(f(*args), want)
    _assert_close(dx.jit(f)(*args), want)


@pytest.mark.parametrize("name", VMAP_CASES)
def test_vmap_matches_jax(name: str) -> None:
    f, jf, args = CASES[name]
    # A batch of two: the case's arguments and a perturbation of them.
    batched = tuple(np.stack([x, x + 0.01 * _mat(*x.shape)]) for x in args)
    _assert_close(dx.jit(dx.vmap(f))(*batched), jax.jit(jax.vmap(jf))(*batched))


def _float_outputs(f: Fn) -> Fn:
    def g(*args: Any) -> list[Any]:
        return [
            x
            for x in jax.tree_util.tree_leaves(f(*args))
            if np.issubdtype(np.dtype(x.dtype), np.floating)
        ]

    return g


@pytest.mark.parametrize("name", DIFF_CASES)
def test_jvp_matches_jax_and_finite_differences(name: str) -> None:
    f, jf, args = CASES[name]
    tangents = tuple(_mat(*x.shape) for x in args)
    if name in ("cholesky", "eigh", "np_eigh", "eigvalsh", "np_cholesky_upper", "cho_factor"):
        tangents = tuple((t + t.T) / 2 for t in tangents)  # along symmetric matrices
    if name == "cho_solve":  # cho_factor reads one triangle: perturb a symmetrically
        tangents = ((tangents[0] + tangents[0].T) / 2, tangents[1])
    fo, jfo = _float_outputs(f), _float_outputs(jf)
    out, t_out = dx.jit(lambda *a: dx.jvp(fo, a, tangents))(*args)
    # (JAX's lu jvp indexes the tangent with a tracer: it must be a JAX array.)
    jax_tangents = tuple(jnp.asarray(t) for t in tangents)
    want_out, want_t = jax.jit(lambda *a: jax.jvp(jfo, a, jax_tangents))(*args)
    _assert_close(out, want_out)
    _assert_close(t_out, want_t, rtol=1e-7, atol=1e-8)
    eps = 1e-6
    plus = fo(*(x + eps * t for x, t in zip(args, tangents, strict=True)))
    minus = fo(*(x - eps * t for x, t in zip(args, tangents, strict=True)))
    fd = [(np.asarray(p) - np.asarray(m)) / (2 * eps) for p, m in zip(plus, minus, strict=True)]
    _assert_close(t_out, fd, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", GRAD_CASES)
def test_grad_matches_jax(name: str) -> None:
    f, jf, args = CASES[name]
    fo, jfo = _float_outputs(f), _float_outputs(jf)
    weights = [_mat(*np.shape(x)) for x in jfo(*args)]

    def loss(lib: Any, fn: Fn) -> Fn:
        def scalar(*a: Any) -> Any:
            return sum(lib.sum(o * w) for o, w in zip(fn(*a), weights, strict=True))

        return scalar

    argnums = tuple(range(len(args)))
    got = dx.jit(dx.grad(loss(dnp, fo), argnums=argnums))(*args)
    want = jax.jit(jax.grad(loss(jnp, jfo), argnums=argnums))(*args)
    _assert_close(got, want, rtol=1e-7, atol=1e-8)


def test_grad_of_solve_by_finite_differences() -> None:
    a, b = _general(3), _mat(3)
    g = dx.grad(lambda a, b: dnp.sum(dnp.linalg.solve(a, b) ** 2), argnums=(0, 1))(a, b)
    eps = 1e-6
    for arg, grad in ((0, g[0]), (1, g[1])):
        v = _mat(*(a, b)[arg].shape)

        def at(s: float, arg: int = arg, v: Array = v) -> float:
            xs = [a, b]
            xs[arg] = xs[arg] + s * v
            return float(np.sum(np.linalg.solve(xs[0], xs[1]) ** 2))

        fd = (at(eps) - at(-eps)) / (2 * eps)
        np.testing.assert_allclose(float(np.sum(np.asarray(grad) * v)), fd, rtol=1e-6)


# CI's slice: eigvalsh over every batch (the eigenvalues' jvp is eigh's, on
# its batch axes), eigh's eigenvectors over two batch axes (unbatched in the jvp table).
@pytest.mark.parametrize(
    ("eigenvalues_only", "batch"),
    slice_params(
        [(e, b) for e in (False, True) for b in ((), (2, 3), (2, 1, 2))],
        lambda row: row[0] or row[1] == (2, 3),
        lambda row: f"{'eigvalsh' if row[0] else 'eigh'}-{row[1]}",
    ),
)
def test_eigh_derivatives_over_any_batch(batch: tuple[int, ...], eigenvalues_only: bool) -> None:
    """jvp and vjp of eigh and eigvalsh on stacks: JAX's numbers, and finite differences."""
    rng = np.random.default_rng(len(batch))
    a = rng.normal(size=(*batch, 5, 5))
    a = a + np.swapaxes(a, -1, -2)
    weights = np.arange(5.0)

    def loss(np_: Any) -> Callable[[Array], Any]:
        def f(m: Array) -> Any:
            if eigenvalues_only:
                return np_.sum(np_.linalg.eigvalsh(m) * weights)
            w, v = np_.linalg.eigh(m)
            return np_.sum(w * weights) + np_.sum(v**2 * weights)

        return f

    ours, theirs = loss(dnp), loss(jnp)
    _assert_close(dx.grad(ours)(a), jax.grad(theirs)(a), rtol=1e-8, atol=1e-10)
    t = rng.normal(size=a.shape)
    t = t + np.swapaxes(t, -1, -2)
    jvp = dx.jvp(ours, (a,), (t,))[1]
    _assert_close(jvp, jax.jvp(theirs, (a,), (t,))[1], rtol=1e-8, atol=1e-10)
    eps = 1e-6
    fd = (float(theirs(a + eps * t)) - float(theirs(a - eps * t))) / (2 * eps)
    np.testing.assert_allclose(float(jvp), fd, rtol=1e-5)


def test_float32() -> None:
    a = _spd(4).astype(np.float32)
    _assert_close(
        lax.linalg.cholesky(a), jax.lax.linalg.cholesky(jnp.asarray(a)), rtol=1e-5, atol=1e-5
    )
    _assert_close(dnp.linalg.solve(a, a[0]), jnp.linalg.solve(a, a[0]), rtol=1e-4, atol=1e-5)
    assert dnp.linalg.eigh(a).eigenvalues.dtype == np.float32
    _assert_close(dsl.expm(a / 4), jsl.expm(a / 4), rtol=1e-5, atol=1e-5)


def test_integers_become_floats() -> None:
    a = np.array([[2, 1], [1, 3]])
    _assert_close(dnp.linalg.det(a), jnp.linalg.det(a))
    _assert_close(dnp.linalg.inv(a), jnp.linalg.inv(a))
    assert dnp.linalg.matrix_rank(a) == jnp.linalg.matrix_rank(a)


def test_matrix_rank() -> None:
    low = _mat(4, 2) @ _mat(2, 4)
    for m in (low, _mat(3, 3), np.zeros((2, 2)), np.stack([low, _mat(4, 4)])):
        _assert_close(dnp.linalg.matrix_rank(m), jnp.linalg.matrix_rank(m))
    _assert_close(dnp.linalg.matrix_rank(low, 1e-3), jnp.linalg.matrix_rank(low, 1e-3))


# --- singular input: JAX's inf/NaN, no exception ------------------------------------------

SINGULAR: Final = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])


@pytest.mark.parametrize(
    ("f", "jf"),
    [
        (dnp.linalg.inv, jnp.linalg.inv),
        (lambda a: dnp.linalg.solve(a, np.ones(3)), lambda a: jnp.linalg.solve(a, np.ones(3))),
        (dnp.linalg.det, jnp.linalg.det),
        (dnp.linalg.slogdet, jnp.linalg.slogdet),
        (lax.linalg.cholesky, jax.lax.linalg.cholesky),  # not positive definite: all NaN
        (dsl.cho_factor, jsl.cho_factor),
    ],
    ids=["inv", "solve", "det", "slogdet", "cholesky", "cho_factor"],
)
def test_singular_input_as_jax(f: Fn, jf: Fn) -> None:
    got, want = _leaves(dx.jit(f)(SINGULAR)), _leaves(jax.jit(jf)(SINGULAR))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.isfinite(g), np.isfinite(w))
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        finite = np.isfinite(w)
        np.testing.assert_allclose(g[finite], w[finite], rtol=1e-9, atol=1e-12)


def test_grad_of_det_at_singular_matrix_is_the_adjugate() -> None:
    # JAX's cofactor rule: finite at a rank n-1 matrix (the adjugate's transpose).
    got = dx.grad(dnp.linalg.det)(SINGULAR)
    want = jax.grad(jnp.linalg.det)(SINGULAR)
    assert np.all(np.isfinite(np.asarray(got)))
    _assert_close(got, want, rtol=1e-9, atol=1e-12)


# --- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("f", "error", "words"),
    [
        (lambda: lax.linalg.cholesky(np.ones((2, 3))), ShapeError, "square"),
        (lambda: lax.linalg.lu(np.ones(3)), ShapeError, "rank >= 2"),
        (
            lambda: lax.linalg.eigh(np.ones((2, 2), np.int32)),
            DTypeError,
            "float32, float64, complex64 or complex128",
        ),
        (lambda: lax.linalg.svd(np.ones((2, 2), np.float16)), DTypeError, "float16"),
        (
            lambda: lax.linalg.triangular_solve(np.eye(3), np.ones((2, 2)), left_side=True),
            ShapeError,
            "rows",
        ),
    ],
    ids=["nonsquare", "rank1", "int", "float16", "mismatch"],
)
def test_bad_input_is_a_clear_typing_error(f: Fn, error: type[Exception], words: str) -> None:
    with pytest.raises(error) as info:
        dx.jit(f)()
    message = str(info.value)
    assert words in message
    assert "test_linalg.py" in message  # the user's line


def test_numpy_level_shape_errors() -> None:
    with pytest.raises(ValueError, match="shape"):
        dnp.linalg.det(np.ones((2, 3)))
    with pytest.raises(ValueError, match="mode"):
        dnp.linalg.qr(np.eye(2), mode="economic")
    with pytest.raises(TypeError, match="integer"):
        dnp.linalg.matrix_power(np.eye(2), 1.5)  # type: ignore[arg-type]


def test_jaxpr_of_solve_is_typed() -> None:
    from didax.ir.typecheck import typecheck_jaxpr

    closed = dx.make_jaxpr(dx.grad(lambda a: dnp.sum(dnp.linalg.solve(a, np.ones(3)))))(_general(3))
    typecheck_jaxpr(closed.jaxpr)
    names = {e.primitive.name for e in closed.jaxpr.eqns}
    assert {"lu", "triangular_solve"} <= names


def test_flops() -> None:
    from didax.api.flops import cost

    n = 8
    c = cost(lambda a: lax.linalg.cholesky(a, symmetrize_input=False))(_spd(n))
    assert c.flops == n**3 // 3
    c = cost(lambda a: lax.linalg.eigh(a, symmetrize_input=False))(np.stack([_spd(n)] * 2))
    assert c.flops == 2 * 9 * n**3


GOLDEN: Final = pathlib.Path(__file__).parent.parent / "golden"


def test_golden_stablehlo_of_eigh() -> None:
    # A LAPACK custom call as JAX emits it (target, attributes, column-major
    # layouts, the aliasing of the operand), then the NaN fill of failed matrices.
    f = dx.jit(lambda x: lax.linalg.eigh(x, symmetrize_input=False))
    text = f.lower(np.ones((2, 3, 3))).as_text()
    assert text == (GOLDEN / "stablehlo_eigh.txt").read_text()
    jax_text = (
        jax.jit(lambda x: jax.lax.linalg.eigh(x, symmetrize_input=False))
        .lower(jnp.ones((2, 3, 3)))
        .as_text()
    )
    for piece in (
        "@lapack_dsyevd_ffi",
        "mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}",
        "operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]",
    ):
        assert piece in text
        assert piece in jax_text


# --- complex dtypes ---------------------------------------------------------------------


def _cmat(*shape: int) -> Array:
    return np.asarray(_mat(*shape) + 1j * _mat(*shape))


def _chpd(n: int) -> Array:
    """A Hermitian positive-definite complex matrix."""
    a = _cmat(n, n)
    return np.asarray(a @ a.conj().T + n * np.eye(n))


def _cgeneral(n: int) -> Array:
    return np.asarray(_cmat(n, n) + n * np.eye(n))


def _eigh_parts(lib: Any, eigh: Fn) -> Fn:
    # Eigenvalues and v diag(w) v^H: independent of the eigenvectors' phases.
    def f(h: Any) -> tuple[Any, Any]:
        v, w = eigh(h)
        return w, lib.matmul(v * w[..., None, :], lib.conj(lib.swapaxes(v, -1, -2)))

    return f


def _svd_parts(lib: Any, svd: Fn) -> Fn:
    def f(a: Any) -> tuple[Any, Any]:
        u, s, vh = svd(a, full_matrices=False)
        return s, lib.matmul(u * s[..., None, :], vh)

    return f


# name -> (didax function, JAX function, complex128 arguments).
COMPLEX_CASES: Final[dict[str, tuple[Fn, Fn, tuple[Array, ...]]]] = {
    "cholesky": (dnp.linalg.cholesky, jnp.linalg.cholesky, (_chpd(3),)),
    "solve": (dnp.linalg.solve, jnp.linalg.solve, (_cgeneral(3), _cmat(3, 2))),
    "inv": (dnp.linalg.inv, jnp.linalg.inv, (_cgeneral(3),)),
    "det": (dnp.linalg.det, jnp.linalg.det, (_cgeneral(3),)),
    "slogdet": (dnp.linalg.slogdet, jnp.linalg.slogdet, (_cgeneral(3),)),
    "qr": (dnp.linalg.qr, jnp.linalg.qr, (_cmat(4, 3),)),
    "qr_complete": (
        lambda x: dnp.linalg.qr(x, mode="complete"),
        lambda x: jnp.linalg.qr(x, mode="complete"),
        (_cmat(4, 3),),
    ),
    "eigh": (
        _eigh_parts(dnp, lambda h: lax.linalg.eigh(h)),
        _eigh_parts(jnp, lambda h: jax.lax.linalg.eigh(h)),
        (_chpd(4),),
    ),
    "svd": (
        _svd_parts(dnp, dnp.linalg.svd),
        _svd_parts(jnp, jnp.linalg.svd),
        (_cmat(4, 3),),
    ),
    "lu": (dsl.lu, jsl.lu, (_cmat(3, 3),)),
    "solve_triangular_c": (
        lambda a, b: dsl.solve_triangular(a, b, trans="C"),
        lambda a, b: jsl.solve_triangular(a, b, trans="C"),
        (np.triu(_cgeneral(3)), _cmat(3, 2)),
    ),
    "ts_conjugate": (
        *_ts(left_side=True, lower=True, conjugate_a=True),
        (np.tril(_cgeneral(3)), _cmat(3, 2)),
    ),
    "norm": (dnp.linalg.norm, jnp.linalg.norm, (_cmat(3, 3),)),
    "norm_vector_3": (
        lambda x: dnp.linalg.norm(x, 3, axis=-1),
        lambda x: jnp.linalg.norm(x, 3, axis=-1),
        (_cmat(2, 3),),
    ),
    "norm_2": (lambda x: dnp.linalg.norm(x, 2), lambda x: jnp.linalg.norm(x, 2), (_cmat(3, 3),)),
    "cho_solve": (
        lambda a, b: dsl.cho_solve(dsl.cho_factor(a), b),
        lambda a, b: jsl.cho_solve(jsl.cho_factor(a), b),
        (_chpd(3), _cmat(3)),
    ),
    "pinv": (dnp.linalg.pinv, jnp.linalg.pinv, (_cmat(3, 2),)),
    "expm": (dsl.expm, jsl.expm, (_cmat(3, 3),)),
}
COMPLEX_JVP_CASES: Final = [
    "cholesky",
    "solve",
    "det",
    "slogdet",
    "qr",
    "eigh",
    "svd",
    "lu",
    "ts_conjugate",
    "norm",
]
HERMITIAN_INPUT: Final = {"cholesky", "eigh", "cho_solve"}


# CI's slice: the cases the jvp table does not run, and eigh (the one
# primitive they do not reach eagerly); the jvp table checks the rest's values under jit.
@pytest.mark.parametrize(
    "name",
    slice_params(COMPLEX_CASES, lambda n: n == "eigh" or n not in COMPLEX_JVP_CASES, str),
)
def test_complex128_values_match_jax_eager_and_jit(name: str) -> None:
    f, jf, args = COMPLEX_CASES[name]
    want = jax.jit(jf)(*args)
    got, got_jit = f(*args), dx.jit(f)(*args)
    for g in (got, got_jit):
        _assert_close(g, want)
        assert [x.dtype for x in _leaves(g)] == [x.dtype for x in _leaves(want)]


def test_complex_eigenvalues_and_singular_values_are_real() -> None:
    for dtype, real in ((np.complex64, np.float32), (np.complex128, np.float64)):
        h = _chpd(3).astype(dtype)
        v, w = lax.linalg.eigh(h)
        assert (v.dtype, w.dtype) == (dtype, real)
        u, s, vt = lax.linalg.svd(h)
        assert (u.dtype, s.dtype, vt.dtype) == (dtype, real, dtype)
        assert dnp.linalg.norm(h).dtype == real
        assert dnp.linalg.slogdet(h).logabsdet.dtype == real


def test_complex128_vmap_matches_jax() -> None:
    h = np.stack([_chpd(3), _chpd(3)])
    f, jf, _ = COMPLEX_CASES["eigh"]
    _assert_close(dx.jit(dx.vmap(f))(h), jax.vmap(jf)(h))
    b = _cmat(2, 3)
    _assert_close(dx.vmap(dnp.linalg.solve)(h, b), jax.vmap(jnp.linalg.solve)(h, b))


def test_complex64_matches_jax() -> None:
    h = _chpd(4).astype(np.complex64)
    b = _cmat(4, 2).astype(np.complex64)
    tol = {"rtol": 1e-4, "atol": 1e-4}
    _assert_close(dnp.linalg.cholesky(h), jnp.linalg.cholesky(h), **tol)
    _assert_close(dx.jit(dnp.linalg.solve)(h, b), jnp.linalg.solve(h, b), **tol)
    _assert_close(dnp.linalg.eigvalsh(h), jnp.linalg.eigvalsh(h), **tol)
    _assert_close(dx.jit(_svd_parts(dnp, dnp.linalg.svd))(b), _svd_parts(jnp, jnp.linalg.svd)(b))
    _assert_close(dnp.linalg.qr(b), jnp.linalg.qr(b), **tol)
    _assert_close(dnp.linalg.det(h), jnp.linalg.det(h), rtol=1e-4)


@pytest.mark.parametrize("name", COMPLEX_JVP_CASES)
def test_complex128_jvp_matches_jax_and_finite_differences(name: str) -> None:
    f, jf, args = COMPLEX_CASES[name]
    tangents = tuple(_cmat(*x.shape) for x in args)
    if name in HERMITIAN_INPUT:
        tangents = tuple((t + t.conj().T) / 2 for t in tangents)
    out, t_out = dx.jit(lambda *a: dx.jvp(f, a, tangents))(*args)
    jax_tangents = tuple(jnp.asarray(t) for t in tangents)
    want_out, want_t = jax.jit(lambda *a: jax.jvp(jf, a, jax_tangents))(*args)
    _assert_close(out, want_out)
    _assert_close(t_out, want_t, rtol=1e-7, atol=1e-8)
    eps = 1e-6
    plus = f(*(x + eps * t for x, t in zip(args, tangents, strict=True)))
    minus = f(*(x - eps * t for x, t in zip(args, tangents, strict=True)))
    fd = [(p - m) / (2 * eps) for p, m in zip(_leaves(plus), _leaves(minus), strict=True)]
    _assert_close(t_out, fd, rtol=1e-5, atol=1e-5)


COMPLEX_GRADS: Final[dict[str, tuple[Fn, Fn, Array]]] = {
    "re_trace_inv": (
        lambda a: dnp.real(dnp.trace(dnp.linalg.inv(a))),
        lambda a: jnp.real(jnp.trace(jnp.linalg.inv(a))),
        _cgeneral(3),
    ),
    "weighted_eigvalsh": (
        lambda h: dnp.sum(dnp.linalg.eigvalsh(h) * np.arange(1.0, 4.0)),
        lambda h: jnp.sum(jnp.linalg.eigvalsh(h) * np.arange(1.0, 4.0)),
        _chpd(3),
    ),
    "weighted_singular_values": (
        lambda a: dnp.sum(dnp.linalg.svd(a, compute_uv=False) * np.arange(1.0, 4.0)),
        lambda a: jnp.sum(jnp.linalg.svd(a, compute_uv=False) * np.arange(1.0, 4.0)),
        _cmat(4, 3),
    ),
    "abs_cholesky": (
        lambda h: dnp.sum(dnp.abs(dnp.linalg.cholesky(h))),
        lambda h: jnp.sum(jnp.abs(jnp.linalg.cholesky(h))),
        _chpd(3),
    ),
    "abs_qr": (
        lambda a: dnp.sum(dnp.abs(dnp.linalg.qr(a).R)),
        lambda a: jnp.sum(jnp.abs(jnp.linalg.qr(a).R)),
        _cmat(4, 3),
    ),
    "norm": (dnp.linalg.norm, jnp.linalg.norm, _cmat(3, 3)),
}


@pytest.mark.parametrize("name", list(COMPLEX_GRADS))
def test_complex128_grad_of_real_function_matches_jax(name: str) -> None:
    # JAX's convention: the gradient is the conjugate of df/dz's Wirtinger form.
    f, jf, x = COMPLEX_GRADS[name]
    want = jax.grad(jf)(x)
    _assert_close(dx.jit(dx.grad(f))(x), want, rtol=1e-7, atol=1e-8)


def test_complex128_grad_through_solves_row_permutation() -> None:
    # The transpose of the row permutation (a gather) is a complex scatter-add.
    a = _cgeneral(3)
    b = _cgeneral(3)[:, 0]
    got = dx.grad(lambda a: dnp.abs(dnp.linalg.det(a)))(a)
    _assert_close(got, jax.grad(lambda a: jnp.abs(jnp.linalg.det(a)))(a), rtol=1e-7, atol=1e-8)
    got = dx.grad(lambda b: dnp.sum(dnp.abs(dnp.linalg.solve(a, b)) ** 2))(b)
    want = jax.grad(lambda b: jnp.sum(jnp.abs(jnp.linalg.solve(a, b)) ** 2))(b)
    _assert_close(got, want, rtol=1e-7, atol=1e-8)
    _, sl = dx.vjp(lambda a: dnp.linalg.slogdet(a)[1], a)
    _, jsl = jax.vjp(lambda a: jnp.linalg.slogdet(a)[1], a)
    _assert_close(sl(1.0)[0], jsl(1.0)[0], rtol=1e-7, atol=1e-8)


def test_complex_lapack_targets_are_jaxs() -> None:
    h = _chpd(3)
    for f, jf, target in (
        (lax.linalg.eigh, jax.lax.linalg.eigh, "@lapack_zheevd_ffi"),
        (lax.linalg.qr, jax.lax.linalg.qr, "@lapack_zungqr_ffi"),
        (lax.linalg.svd, jax.lax.linalg.svd, "@lapack_zgesdd_ffi"),
        (lax.linalg.lu, jax.lax.linalg.lu, "@lapack_zgetrf_ffi"),
    ):
        assert target in dx.jit(f).lower(h).as_text()
        assert target in jax.jit(jf).lower(h).as_text()


# --- norms ----------------------------------------------------------------------------

NORM_M: Final = np.random.RandomState(0).randn(3, 4)
NORM_T: Final = np.random.RandomState(3).randn(2, 3, 4)
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


# CI's slice drops the rows whose branch of norm another row takes: a vector's
# ord 2 (None's), 0.5 (3's), the matrix's -1 and inf (1's and -inf's), None on (0, 2) (fro's).
@pytest.mark.parametrize(
    ("ord_", "axis", "keepdims"),
    slice_params(NORM_CASES, lambda row: NORM_CASES.index(row) not in (2, 8, 11, 12, 14)),
)
def test_linalg_norm_matches_jax(
    ord_: Any, axis: Any, keepdims: bool, same_as_jax: Callable[[Any, Any], None]
) -> None:
    x = NORM_T if isinstance(axis, tuple) and 2 in axis else NORM_M
    got = dnp.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims)
    want = jnp.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims)
    same_as_jax(got, want)
    g = dx.grad(lambda v: dnp.sum(dnp.linalg.norm(v, ord=ord_, axis=axis)))(x)
    w = jax.grad(lambda v: jnp.sum(jnp.linalg.norm(v, ord=ord_, axis=axis)))(x)
    np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-10)


@pytest.mark.parametrize("ord_", [2, -2, "nuc"])
def test_norm_through_svd_matches_jax(ord_: Any, same_as_jax: Callable[[Any, Any], None]) -> None:
    # The spectral and nuclear norms (issue 11: through svd), over moved axes too.
    for x, axis, keepdims in ((NORM_M, None, False), (NORM_T, (2, 0), True)):
        got = dnp.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims)
        want = jnp.linalg.norm(x, ord=ord_, axis=axis, keepdims=keepdims)
        same_as_jax(got, want)
    g = dx.grad(lambda v: dnp.linalg.norm(v, ord=ord_))(NORM_M)
    w = jax.grad(lambda v: jnp.linalg.norm(v, ord=ord_))(NORM_M)
    np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-9, atol=1e-12)
