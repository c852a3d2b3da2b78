"""``lax.fft`` and ``didax.numpy.fft`` against JAX: values, jvp, vjp (the transposes), vmap."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.lax as dlax
import didax.numpy as dnp

RNG = np.random.default_rng(1)
X = RNG.standard_normal((3, 4, 6))
Z = X + 1j * RNG.standard_normal((3, 4, 6))


def _close(got: Any, want: Any, tol: float = 1e-10) -> None:
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        assert g.shape == w.shape
        t = 2e-4 if g.dtype in (np.complex64, np.float32) else tol
        np.testing.assert_allclose(g, w, rtol=t, atol=t)


# (name, function of (numpy module, operand), operand)
NUMPY_CASES: list[tuple[str, Callable[[Any, Any], Any], Any]] = [
    ("fft", lambda m, a: m.fft.fft(a), Z),
    ("fft_real_input", lambda m, a: m.fft.fft(a), X),
    ("fft_n_axis", lambda m, a: m.fft.fft(a, 8, 1), Z),
    ("fft_crop_ortho", lambda m, a: m.fft.fft(a, 3, 0, "ortho"), Z),
    ("ifft", lambda m, a: m.fft.ifft(a), Z),
    ("ifft_forward", lambda m, a: m.fft.ifft(a, 7, -1, "forward"), Z),
    ("rfft", lambda m, a: m.fft.rfft(a), X),
    ("rfft_odd_ortho", lambda m, a: m.fft.rfft(a, 9, 1, "ortho"), X),
    ("irfft", lambda m, a: m.fft.irfft(a), Z),
    ("irfft_odd", lambda m, a: m.fft.irfft(a, 9), Z),
    ("irfft_axis0_ortho", lambda m, a: m.fft.irfft(a, None, 0, "ortho"), Z),
    ("fft2", lambda m, a: m.fft.fft2(a), Z),
    ("ifft2_s", lambda m, a: m.fft.ifft2(a, (3, 8)), Z),
    ("rfft2", lambda m, a: m.fft.rfft2(a), X),
    ("irfft2", lambda m, a: m.fft.irfft2(a), Z),
    ("fftn", lambda m, a: m.fft.fftn(a), Z),
    ("ifftn_axes", lambda m, a: m.fft.ifftn(a, None, (0, 2)), Z),
    ("rfftn_s", lambda m, a: m.fft.rfftn(a, (4, 4, 4)), X),
    ("irfftn_s", lambda m, a: m.fft.irfftn(a, (3, 4, 7)), Z),
    ("fft_complex64", lambda m, a: m.fft.fft(a), Z.astype(np.complex64)),
    ("rfft_float32", lambda m, a: m.fft.rfft(a), X.astype(np.float32)),
    ("fftshift", lambda m, a: m.fft.fftshift(a), X),
    ("ifftshift_axis", lambda m, a: m.fft.ifftshift(a, 1), X),
]


@pytest.mark.parametrize(("fn", "a"), [pytest.param(f, a, id=n) for n, f, a in NUMPY_CASES])
def test_numpy_fft_equals_jax_eager_and_jitted(fn: Callable[..., Any], a: Any) -> None:
    want = fn(jnp, a)
    _close(fn(dnp, a), want)
    _close(dx.jit(lambda v: fn(dnp, v))(a), want)


@pytest.mark.parametrize("n", [1, 4, 7, 8])
def test_frequencies_equal_jaxs(n: int) -> None:
    _close(dnp.fft.fftfreq(n), jnp.fft.fftfreq(n))
    _close(dnp.fft.fftfreq(n, 0.25), jnp.fft.fftfreq(n, 0.25))
    _close(dnp.fft.rfftfreq(n, 2.0), jnp.fft.rfftfreq(n, 2.0))


# The four kinds of the primitive, with operands and lengths.
KINDS: list[tuple[str, Any, tuple[int, ...]]] = [
    ("FFT", Z, (4, 6)),
    ("IFFT", Z, (6,)),
    ("RFFT", X, (3, 4, 6)),
    ("IRFFT", Z[..., :4], (6,)),
    ("IRFFT", Z[..., :4], (7,)),
]
KIND_IDS = [f"{k}-{n}" for k, _, n in KINDS]


@pytest.mark.parametrize(("kind", "a", "lengths"), KINDS, ids=KIND_IDS)
def test_primitive_derivatives_and_transposes_equal_jaxs(
    kind: str, a: Any, lengths: tuple[int, ...]
) -> None:
    def mine(v: Any) -> Any:
        return dlax.fft(v, kind, lengths)

    def theirs(v: Any) -> Any:
        return jax.lax.fft(v, kind, lengths)

    out = np.asarray(theirs(a))
    t = RNG.standard_normal(a.shape) + (
        1j * RNG.standard_normal(a.shape) if a.dtype.kind == "c" else 0
    )
    ct = RNG.standard_normal(out.shape) + (
        1j * RNG.standard_normal(out.shape) if out.dtype.kind == "c" else 0
    )
    _close(mine(a), theirs(a))
    _close(dx.jvp(mine, (a,), (t,)), jax.jvp(theirs, (a,), (t,)))
    _close(dx.vjp(mine, a)[1](ct), jax.vjp(theirs, a)[1](ct))
    _close(dx.jit(dx.vjp(mine, a)[1])(ct), jax.vjp(theirs, a)[1](ct))
    _close(dx.vmap(mine)(np.stack([a, a * 2])), jax.vmap(theirs)(np.stack([a, a * 2])))
    _close(
        dx.vmap(mine, in_axes=1, out_axes=1)(np.stack([a, a], 1)),
        jax.vmap(theirs, 1, 1)(np.stack([a, a], 1)),
    )


def test_transpose_is_the_adjoint_under_jaxs_pairing() -> None:
    # <ct, L t> == <L^T ct, t> for the pairing Re(sum(a * b)) (no conjugation).
    for kind, a, lengths in KINDS:
        out = np.asarray(jax.lax.fft(a, kind, lengths))
        t = RNG.standard_normal(a.shape) + (
            1j * RNG.standard_normal(a.shape) if a.dtype.kind == "c" else 0
        )
        ct = RNG.standard_normal(out.shape) + (
            1j * RNG.standard_normal(out.shape) if out.dtype.kind == "c" else 0
        )
        lt = np.asarray(dlax.fft(t.astype(a.dtype), kind, lengths))
        (ltct,) = dx.vjp(lambda v, k=kind, n=lengths: dlax.fft(v, k, n), a)[1](ct.astype(out.dtype))
        lhs = np.real(np.sum(ct * lt))
        rhs = np.real(np.sum(np.asarray(ltct) * t))
        assert abs(lhs - rhs) < 1e-9 * (1 + abs(lhs)), kind


def test_grad_through_rfft_equals_jax_and_differences() -> None:
    w = RNG.standard_normal(5)

    def loss(np_: Any) -> Callable[[Any], Any]:
        return lambda v: (
            np_.sum(np_.abs(np_.fft.rfft(v * w)) ** 2)
            + np_.sum(np_.fft.irfft(np_.fft.fft(v)[:3]).real)
        )

    x = RNG.standard_normal(5)
    got = dx.grad(loss(dnp))(x)
    _close(got, jax.grad(loss(jnp))(x))
    h = 1e-6
    numeric = [
        (float(loss(np)(x + h * e)) - float(loss(np)(x - h * e))) / (2 * h) for e in np.eye(5)
    ]
    np.testing.assert_allclose(np.asarray(got), numeric, rtol=1e-6, atol=1e-6)


def test_an_fft_whose_result_goes_to_lapack_runs_jitted_as_in_jax() -> None:
    """The fuzzer's case: ``jit(grad)`` of an ``ifft`` along axis 0 whose result goes to ``eigh``.

    XLA's layout assignment carried ``eigh``'s column-major operand back
    through the element-wise ops to the FFT, whose CPU kernel reads and
    writes only row-major buffers: XLA raised a ``RET_CHECK`` where JAX's
    jit of the same program runs. didax's lowering pins an FFT's layouts.
    """

    def loss(np_: Any, lax_: Any) -> Callable[[Any], Any]:
        def f(x: Any) -> Any:
            z = np_.fft.ifft(lax_.complex(x, x), axis=0)
            t = np_.tanh(np_.real(z) + 0.5 * np_.imag(z)) * 0.15
            s = t + t.T + np_.diag(np_.arange(3, dtype=x.dtype) * 2.0)
            w, v = np_.linalg.eigh(s)
            out = v * v + w[None, :] * 0.1  # v's columns are known up to sign
            return np_.sum(out * out) + np_.sum(out) * 0.1

        return f

    x = RNG.standard_normal((3, 3))
    with dx.enable_x64(True), jax.enable_x64(True):
        got = dx.jit(dx.grad(loss(dnp, dlax)))(dnp.asarray(x))
        _close(got, jax.jit(jax.grad(loss(jnp, jax.lax)))(x))
        _close(got, dx.grad(loss(dnp, dlax))(x))  # eager: each FFT compiled alone


def test_bad_input_is_refused_at_trace_time_naming_the_primitive() -> None:
    with pytest.raises(TypeError, match="fft"):
        dlax.fft(Z, "RFFT", (6,))  # RFFT of a complex operand
    with pytest.raises(TypeError, match="fft"):
        dlax.fft(X, "FFT", (6,))  # FFT of a real operand
    with pytest.raises(dx.errors.ShapeError, match="fft"):
        dlax.fft(Z, "FFT", (5,))  # lengths differ from the axes
    with pytest.raises(ValueError, match="3D"):
        dnp.fft.fftn(np.ones((2, 2, 2, 2)))
    with pytest.raises(ValueError, match="norm"):
        dnp.fft.fft(Z, norm="bad")
    with pytest.raises(TypeError, match="real input"):
        dnp.fft.rfft(Z)


def test_jaxpr_and_flops_name_the_transform() -> None:
    text = str(dx.make_jaxpr(lambda v: dnp.fft.rfft(v))(X))
    assert "fft[fft_lengths=(6,) fft_type=FftType.RFFT]" in text.replace(", ", " ")
    a = Z.astype(np.complex64)
    cost = jax.jit(jnp.fft.fft).lower(a).compile().cost_analysis()
    assert cost is not None
    want = cost["flops"]
    assert dx.flops(dnp.fft.fft)(a) == want
