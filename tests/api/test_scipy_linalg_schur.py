"""``schur``, ``hessenberg``, ``householder_product`` and the Schur-form functions, against JAX.

The primitives (``didax.lax.linalg``) call the LAPACK kernels JAX calls
(``gees``, ``gehrd``, ``orgqr``/``ungqr``), so their values are JAX's bit
for bit, eagerly, under ``jit`` and ``vmap``, for the four dtypes and a
batch. ``didax.scipy.linalg``'s ``schur``, ``rsf2csf``, ``sqrtm``,
``funm``, ``solve_sylvester`` and ``hessenberg`` are compared with JAX's in
one compiled program per library (``scipy_checks.check_table``), in both
x64 modes, and checked for what they mean: ``a = Z T Z^H``, ``sqrtm(a)^2 =
a``, ``funm(a, exp) = expm(a)``, ``A X + X B = C``, ``a = Q H Q^H``. JAX
defines no derivative of ``schur`` or ``hessenberg``; neither does didax.
"""

from __future__ import annotations

from typing import Any, Final, TypeAlias

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest
from tests.api.scipy_checks import Case, check_table, compare
from tests.lowering.test_linalg_platforms import _assert_same_calls

import didax as dx
import didax.numpy as dnp
import didax.scipy.linalg as dsl
from didax import lax

Arr: TypeAlias = np.ndarray[Any, Any]

RNG: Final = np.random.default_rng(2929)
A4: Final = RNG.normal(size=(4, 4))
B3: Final = RNG.normal(size=(3, 3)) + 3 * np.eye(3)
C43: Final = RNG.normal(size=(4, 3))
BATCH: Final = RNG.normal(size=(2, 3, 3))
CPLX: Final = RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3))

# The real Schur form of A4 has 2x2 blocks: rsf2csf and funm rotate them.
assert np.iscomplex(np.linalg.eigvals(A4)).any()


def _vmap(m: Any) -> Any:
    return dx.vmap if m is dsl else jax.vmap


def _exp(m: Any) -> Any:
    return dnp.exp if m is dsl else jnp.exp


def _sqrtm_batch(m: Any, a: Any) -> Any:
    return _vmap(m)(m.sqrtm)(a)


def _funm_batch(m: Any, a: Any) -> Any:
    return _vmap(m)(lambda x: m.funm(x, _exp(m), disp=False))(a)


TABLE: Final[dict[str, Case]] = {
    "schur": Case(lambda m, a: m.schur(a), (A4.tolist(),), vmap=False),
    "schur_batch": Case(lambda m, a: m.schur(a), (BATCH.tolist(),)),
    "schur_complex": Case(lambda m, a: m.schur(a, output="complex"), (BATCH.tolist(),)),
    "schur_of_complex": Case(lambda m, a: m.schur(a), (CPLX,), vmap=False),
    "rsf2csf": Case(lambda m, a: m.rsf2csf(*m.schur(a)), (BATCH.tolist(),)),
    "rsf2csf_blocks": Case(lambda m, a: m.rsf2csf(*m.schur(a)), (A4.tolist(),), vmap=False),
    "sqrtm": Case(lambda m, a: m.sqrtm(a), (A4.tolist(),), vmap=False),
    "sqrtm_batch": Case(_sqrtm_batch, (BATCH.tolist(),), vmap=False),
    "funm": Case(lambda m, a: m.funm(a, _exp(m)), (A4.tolist(),), vmap=False),
    "funm_disp": Case(_funm_batch, (BATCH.tolist(),), vmap=False),
    "sylvester": Case(
        lambda m, a, b, c: m.solve_sylvester(a, b, c),
        (A4.tolist(), B3.tolist(), C43.tolist()),
        vmap=False,
    ),
    "sylvester_batch": Case(
        lambda m, a, b, c: m.solve_sylvester(a, b, c),
        (BATCH.tolist(), BATCH[:, :2, :2].tolist(), BATCH[:, :, :2].tolist()),
    ),
    "sylvester_complex": Case(
        lambda m, a, b, c: m.solve_sylvester(a, b, c),
        (CPLX, B3.tolist(), C43[:3].tolist()),
        vmap=False,
    ),
    "sylvester_eigen": Case(
        lambda m, a, b, c: m.solve_sylvester(a, b, c, method="eigen"),
        (A4.tolist(), B3.tolist(), C43.tolist()),
        vmap=False,
    ),
    # A + (-A): every eigenvalue sum is 0, so JAX's answer is NaNs.
    "sylvester_singular": Case(
        lambda m, a, c: m.solve_sylvester(a, -a, c),
        (B3.tolist(), C43[:3].tolist()),
        vmap=False,
    ),
    "hessenberg": Case(lambda m, a: m.hessenberg(a), (A4.tolist(),), vmap=False),
    "hessenberg_q": Case(lambda m, a: m.hessenberg(a, calc_q=True), (BATCH.tolist(),)),
    "hessenberg_q_complex": Case(lambda m, a: m.hessenberg(a, calc_q=True), (CPLX,), vmap=False),
}


@pytest.mark.slow
@pytest.mark.parametrize(
    "dtype",
    [
        pytest.param(np.float64, id="x64"),
        pytest.param(np.float32, id="x32", marks=pytest.mark.x64_off),
    ],
)
def test_whole_table_matches_jax(dtype: Any) -> None:
    # Every loop (sqrtm's, funm's, the Sylvester scan) is a few seconds of XLA
    # compilation per library: CI runs the slice below.
    check_table(dsl, jsl, TABLE, dtype, ulps=64)


def _ci_slice(m: Any, a: Any, b: Any, c: Any, batch: Any, cplx: Any) -> Any:
    return {
        "schur": m.schur(a),
        "schur_complex": m.schur(cplx, output="complex"),
        "hessenberg_q": m.hessenberg(batch, calc_q=True),
        "sylvester": m.solve_sylvester(batch, b[:2, :2], c[:3, :2]),
        "sylvester_eigen": m.solve_sylvester(a, b, c, method="eigen"),
    }


def _ci_didax_only(a: Any, c: Any, tri: Any) -> Any:
    # Compared with the matrices' own meaning: JAX's program for these (its
    # loops) costs seconds of compilation, and the slow table has them.
    return dsl.funm(a, dnp.exp, disp=False), dsl.solve_sylvester(tri, -tri, c[:3])


def test_scipy_functions_match_jax_and_mean_what_they_say() -> None:
    args = (A4, B3, C43, BATCH, CPLX)
    want = jax.jit(lambda *v: _ci_slice(jsl, *v))(*args)
    got, (funm, singular) = dx.jit(
        lambda *v: (_ci_slice(dsl, *v[:5]), _ci_didax_only(v[0], v[2], v[5]))
    )(*args, np.triu(B3))
    for k, w in want.items():
        compare(got[k], w, 64, what=k)
    # Eagerly (schur and hessenberg are one compiled equation each): the same.
    compare(dsl.schur(A4), want["schur"], 64, what="eager schur")
    compare(dsl.hessenberg(BATCH, calc_q=True), want["hessenberg_q"], 64, what="eager hessenberg")
    t, z = (np.asarray(v) for v in got["schur"])
    np.testing.assert_allclose(z @ t @ z.T, A4, atol=1e-12)
    h, q = (np.asarray(v) for v in got["hessenberg_q"])
    np.testing.assert_array_equal(np.tril(h, -2), 0)
    np.testing.assert_allclose(q @ h @ np.swapaxes(q, -1, -2), BATCH, atol=1e-12)
    w, v = np.linalg.eig(A4)
    expm = v @ np.diag(np.exp(w)) @ np.linalg.inv(v)
    np.testing.assert_allclose(np.asarray(funm[0]), expm, atol=1e-12)
    assert 0 < float(funm[1]) < 1e-10
    x = np.asarray(got["sylvester"])
    np.testing.assert_allclose(
        BATCH @ x + x @ B3[:2, :2], np.broadcast_to(C43[:3, :2], x.shape), atol=1e-12
    )
    assert np.isnan(np.asarray(singular)).all()


@pytest.mark.x64_off
def test_32_bit_defaults_match_jax() -> None:
    want = jax.jit(lambda a, batch: (jsl.schur(a), jsl.hessenberg(batch, calc_q=True)))
    got = dx.jit(lambda a, batch: (dsl.schur(a), dsl.hessenberg(batch, calc_q=True)))
    compare(got(A4, BATCH), want(A4, BATCH), 64)
    root = dsl.sqrtm(A4)
    compare(root, jsl.sqrtm(A4), 64)
    np.testing.assert_allclose(np.asarray(root @ root), A4, atol=1e-5)


# --- the primitives -------------------------------------------------------------------------


def _primitives(linalg: Any) -> Any:
    def run(a: Any) -> Any:
        t, z = linalg.schur(a)
        (t_only,) = linalg.schur(a, compute_schur_vectors=False)
        packed, taus = linalg.hessenberg(a)
        q = linalg.householder_product(packed[..., 1:, :-1], taus)
        return t, z, t_only, packed, taus, q

    return run


def _inputs(dtypes: list[Any]) -> list[Arr]:
    out = []
    for dtype in dtypes:
        a = BATCH.astype(dtype)
        out.append(a + 1j * BATCH[::-1].astype(dtype) if np.iscomplexobj(a) else a)
    return out


@pytest.mark.parametrize(
    "dtypes",
    [
        pytest.param([np.float64, np.complex64], id="f64-c64"),
        pytest.param([np.float32, np.complex128], id="f32-c128", marks=pytest.mark.slow),
    ],
)
def test_primitives_are_jaxs_bit_for_bit(dtypes: list[Any]) -> None:
    inputs = _inputs(dtypes)
    want = jax.jit(lambda xs: [_primitives(jax.lax.linalg)(x) for x in xs])(inputs)
    got = dx.jit(lambda xs: [_primitives(lax.linalg)(x) for x in xs])(inputs)
    for a, outs, wants in zip(inputs, got, want, strict=True):
        for g, w in zip(outs, wants, strict=True):
            assert g.dtype == w.dtype
            assert g.shape == w.shape
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        # What they mean: a = Z T Z^H, T (quasi-)upper triangular, Z unitary.
        t, z = (np.asarray(v).astype(np.complex128) for v in outs[:2])
        eps = float(np.finfo(a.dtype).eps)
        np.testing.assert_allclose(z @ t @ np.conj(np.swapaxes(z, -1, -2)), a, atol=100 * eps)
        below = -1 if np.iscomplexobj(a) else -2  # the real form's 2x2 blocks
        np.testing.assert_array_equal(np.tril(t, below), 0)
    # Eagerly, each primitive is its compiled equation: the same values.
    t_eager, _ = lax.linalg.schur(inputs[0])
    np.testing.assert_array_equal(np.asarray(t_eager), np.asarray(want[0][0]))


def test_primitives_under_vmap_match_jax() -> None:
    a = np.stack([BATCH, BATCH[::-1]], axis=1)  # batched along axis 1
    want = jax.jit(jax.vmap(_primitives(jax.lax.linalg), in_axes=1))(a)
    got = dx.jit(dx.vmap(_primitives(lax.linalg), in_axes=1))(a)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_no_derivatives_as_in_jax() -> None:
    with pytest.raises(NotImplementedError, match="schur"):
        dx.jvp(lambda x: lax.linalg.schur(x)[0], (A4,), (A4,))
    with pytest.raises(NotImplementedError, match="hessenberg"):
        dx.grad(lambda x: lax.linalg.hessenberg(x)[0].sum())(A4)


def test_lowering_is_lapacks_and_cpu_only() -> None:
    text = dx.jit(lambda a: (lax.linalg.schur(a), lax.linalg.hessenberg(a))).lower(A4).as_text()
    assert "lapack_dgees_ffi" in text
    assert "lapack_dgehrd_ffi" in text
    for fn in (lax.linalg.schur, lax.linalg.hessenberg):
        with pytest.raises(NotImplementedError, match="cuda"):
            dx.jit(fn).lower(A4).as_text(platform="cuda")


def test_flops_are_lapacks_counts() -> None:
    a = np.ones((2, 4, 4), np.float32)
    assert dx.flops(lambda x: lax.linalg.schur(x))(a) == 2 * 25 * 4**3
    assert dx.flops(lambda x: lax.linalg.schur(x, compute_schur_vectors=False))(a) == 2 * 10 * 4**3
    assert dx.flops(lambda x: lax.linalg.hessenberg(x))(a) == 2 * 10 * 4**3 // 3
    # k = 4 reflectors into 4x4: 2 m n k - (m + n) k^2 + 2 k^3 / 3, per matrix.
    assert dx.flops(lambda x: lax.linalg.householder_product(x, x[..., 0]))(a) == 2 * 42


def _kernels(linalg: Any) -> Any:
    def run(a: Any) -> Any:
        packed, taus = linalg.hessenberg(a)
        return linalg.schur(a), linalg.schur(a, compute_schur_vectors=False), packed, taus

    return run


@pytest.mark.parametrize("dtype", [np.float32, np.complex128], ids=["f32", "c128"])
def test_kernel_calls_are_jaxs(dtype: Any) -> None:
    # The calls, their options and layouts, as JAX's lowered (and exported) modules have them.
    _assert_same_calls(_kernels(jax.lax.linalg), _kernels(lax.linalg), ((2, 3, 3),), dtype, "cpu")
    for platform in ("cpu", "cuda"):
        _assert_same_calls(
            jax.lax.linalg.householder_product,
            lax.linalg.householder_product,
            ((2, 3, 2), (2, 2)),
            dtype,
            platform,
        )


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: lax.linalg.schur(A4, sort_eig_vals=True), NotImplementedError, "sort"),
        (lambda: lax.linalg.schur(A4, select_callable=abs), NotImplementedError, "select"),
        (lambda: lax.linalg.schur(C43), TypeError, "square"),
        (lambda: lax.linalg.hessenberg(np.eye(3, dtype=np.int32)), TypeError, "float32"),
        (lambda: lax.linalg.schur(np.eye(3, dtype=np.float16)), TypeError, "float16"),
        (lambda: lax.linalg.householder_product(C43.T, np.ones(3)), TypeError, "rows"),
        (lambda: dsl.schur(A4, output="bad"), ValueError, "output"),
        (lambda: dsl.sqrtm(A4, blocksize=2), NotImplementedError, "Blocked"),
        (lambda: dsl.sqrtm(BATCH), ValueError, "sqrtm"),
        (lambda: dsl.funm(BATCH, dnp.exp), ValueError, "square"),
        (lambda: dsl.rsf2csf(A4, B3), ValueError, "shapes"),
        (lambda: dsl.solve_sylvester(A4, B3, C43.T), ValueError, "Sylvester"),
        (lambda: dsl.solve_sylvester(A4, B3, C43, method="qr"), ValueError, "method"),
    ],
)
def test_refusals(call: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        call()
