"""Complex numbers against JAX: promotion, every primitive that takes them, and derivatives.

JAX's conventions are the oracle: linear maps are transposed without
conjugation, so ``grad`` of a real function of a complex ``z`` is
``df/dx - i df/dy`` (``2 * conj(z)`` for ``|z|**2``), checked against JAX and
against central differences along the real and imaginary axes;
``holomorphic=True`` gives the complex derivative.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from tests.slicing import diagonal

import didax as dx
import didax.lax as dlax
import didax.numpy as dnp

RNG = np.random.default_rng(0)


def _z(shape: tuple[int, ...], dtype: Any = np.complex128, scale: float = 1.0) -> Any:
    re = RNG.uniform(-1, 1, shape) * scale
    im = RNG.uniform(-1, 1, shape) * scale
    return (re + 1j * im).astype(dtype)


Z = _z((2, 3))
W = _z((2, 3))
Z64 = Z.astype(np.complex64)


def _close(got: Any, want: Any, rtol: float = 1e-12) -> None:
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        tol = 2e-5 if g.dtype in (np.complex64, np.float32) else rtol
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


# --- promotion --------------------------------------------------------------------------

DTYPES = [np.bool_, np.int32, np.int64, np.uint8, np.float16, np.float32, np.float64]
DTYPES += [jnp.bfloat16, np.complex64, np.complex128]


@pytest.mark.parametrize("a", DTYPES, ids=lambda d: np.dtype(d).name)
def test_promotion_with_complex_is_jaxs(a: Any) -> None:
    for b in (np.complex64, np.complex128):
        assert dnp.promote_types(a, b) == jnp.promote_types(a, b)
    # Python complex scalars are weak: they keep a complex64 partner's width.
    x = np.ones(2, a)
    got, want = dnp.multiply(x, 1j), jnp.multiply(x, 1j)
    assert got.dtype == want.dtype
    assert got.weak_type == want.weak_type


def test_python_complex_scalars_are_weak() -> None:
    out = dnp.asarray(2.0) * 1j
    assert out.dtype == np.complex128
    assert out.weak_type
    # asarray keeps a Python scalar's weakness, as JAX's.
    x32 = np.ones(2, np.float32)
    assert (x32 * dnp.asarray(1j)).dtype == (x32 * jnp.asarray(1j)).dtype == np.complex64
    assert dx.make_jaxpr(lambda x: x * 1j)(np.float32(1)).out_avals[0].dtype == np.complex64


# --- primitives: values, jvp and vmap ------------------------------------------------------


def _unary(name: str) -> Callable[..., Any]:
    return lambda L, x: getattr(L, name)(x)


UNARY: dict[str, Callable[..., Any]] = {
    name: _unary(name)
    for name in [
        "neg",
        "sign",
        "abs",
        "exp",
        "log",
        "log1p",
        "expm1",
        "sin",
        "cos",
        "tan",
        "tanh",
        "logistic",
        "sqrt",
        "rsqrt",
        "real",
        "imag",
        "conj",
        "sinh",
        "cosh",
        "asin",
        "acos",
        "atan",
        "asinh",
        "acosh",
        "atanh",
        "exp2",
    ]
}
UNARY_MORE: dict[str, Callable[..., Any]] = {
    "integer_pow": lambda L, x: L.integer_pow(x, 3),
    "integer_pow_neg": lambda L, x: L.integer_pow(x, -2),
    "reduce_sum": lambda L, x: L.reduce_sum(x, (1,)),
    "reduce_prod": lambda L, x: L.reduce_prod(x, (0,)),
    "cumsum": lambda L, x: L.cumsum(x, 1),
    "cumprod": lambda L, x: L.cumprod(x, 1),
    "to_real": lambda L, x: L.real(x) * 2.0,
    "transpose": lambda L, x: L.transpose(x, (1, 0)),
    # Lexicographic order (real parts, then imaginary), as JAX's.
    "reduce_max": lambda L, x: L.reduce_max(x, (1,)),
    "reduce_min": lambda L, x: L.reduce_min(x, (0,)),
    "cummax": lambda L, x: L.cummax(x, 1),
    # Real parts rounded down: ties decided by the imaginary parts.
    "cummin": lambda L, x: L.cummin(L.complex(L.floor(L.real(x)), L.imag(x)), 0, reverse=True),
}
BINARY: dict[str, Callable[..., Any]] = {
    "add": lambda L, x, y: L.add(x, y),
    "sub": lambda L, x, y: L.sub(x, y),
    "mul": lambda L, x, y: L.mul(x, y),
    "div": lambda L, x, y: L.div(x, y),
    "pow": lambda L, x, y: L.pow(x, y),
    "max": lambda L, x, y: L.max(x, y),
    "min": lambda L, x, y: L.min(L.complex(L.real(y), L.imag(x)), y),  # real-part ties
    "eq": lambda L, x, y: L.eq(x, x),
    "ne": lambda L, x, y: L.ne(x, y),
    "select": lambda L, x, y: L.select(L.eq(x, x), x, y),
    "dot_general": lambda L, x, y: L.dot_general(x, y, (((1,), (1,)), ((), ()))),
    "complex": lambda L, x, y: L.complex(L.real(x), L.imag(y)),
}
ALL: dict[str, Callable[..., Any]] = {**UNARY, **UNARY_MORE, **BINARY}


def _args(name: str, dtype: Any) -> tuple[Any, ...]:
    z, w = Z.astype(dtype), W.astype(dtype)
    return (z,) if name in UNARY or name in UNARY_MORE else (z, w)


# Slice: every primitive at one width, alternating; both widths are met, by the same rules.
@pytest.mark.parametrize(("dtype", "name"), diagonal(2, [np.complex64, np.complex128], list(ALL)))
def test_primitive_values_and_jvp_equal_jaxs(name: str, dtype: Any) -> None:
    fn = ALL[name]
    args = _args(name, dtype)
    want = fn(jax.lax, *args)
    _close(fn(dlax, *args), want)  # eager (NumPy)
    _close(dx.jit(lambda *a: fn(dlax, *a))(*args), want)  # XLA
    tangents = tuple(_z(a.shape, dtype) for a in args)
    got_jvp = dx.jvp(lambda *a: fn(dlax, *a), args, tangents)
    want_jvp = jax.jvp(lambda *a: fn(jax.lax, *a), args, tangents)
    if np.asarray(want_jvp[1]).dtype == jax.dtypes.float0:
        return  # comparisons: a zero tangent of float0
    _close(got_jvp, want_jvp)


@pytest.mark.parametrize("name", ["mul", "exp", "abs", "conj", "complex", "reduce_prod"])
def test_vmap_of_complex_primitives_equals_jaxs(name: str) -> None:
    fn = ALL[name]
    args = _args(name, np.complex128)
    _close(
        dx.vmap(lambda *a: fn(dlax, *a))(*args),
        jax.vmap(lambda *a: fn(jax.lax, *a))(*args),
    )


# --- reverse mode -----------------------------------------------------------------------

# Real-valued functions of complex inputs: their gradient is JAX's conj-gradient.
REAL_VALUED: dict[str, Callable[..., Any]] = {
    "abs_squared": lambda np_, z: np_.sum(np_.abs(z) ** 2),
    "real_of_product": lambda np_, z: np_.sum(np_.real(z * z * (1 + 2j))),
    "imag_of_exp": lambda np_, z: np_.sum(np_.imag(np_.exp(z))),
    "abs_of_sin": lambda np_, z: np_.sum(np_.abs(np_.sin(z))),
    "angle": lambda np_, z: np_.sum(np_.angle(z)),
    "conj_dot": lambda np_, z: np_.real(np_.vdot(z, z * 3.0)),
    "mean_var": lambda np_, z: np_.var(z) + np_.real(np_.mean(np_.sqrt(z))),
    "to_real_and_back": lambda np_, z: np_.sum(np_.real(np_.conj(z) * np_.asarray(z).real)),
}


def _conj_gradient_by_differences(f: Callable[[Any], Any], z: Any, h: float = 1e-6) -> Any:
    """df/dx - i df/dy by central differences: JAX's gradient of a real f."""
    out = np.zeros(z.shape, np.complex128)
    for idx in np.ndindex(z.shape):
        e = np.zeros(z.shape)
        e[idx] = h
        dx_ = (f(z + e) - f(z - e)) / (2 * h)
        dy_ = (f(z + 1j * e) - f(z - 1j * e)) / (2 * h)
        out[idx] = dx_ - 1j * dy_
    return out


@pytest.mark.parametrize("name", list(REAL_VALUED))
def test_grad_of_real_function_of_complex_equals_jax_and_differences(name: str) -> None:
    fn = REAL_VALUED[name]
    z = _z((2, 3))
    want = jax.grad(lambda v: fn(jnp, v))(z)
    got = dx.grad(lambda v: fn(dnp, v))(z)
    _close(got, want, rtol=1e-10)
    _close(dx.jit(dx.grad(lambda v: fn(dnp, v)))(z), want, rtol=1e-10)
    numeric = _conj_gradient_by_differences(lambda v: float(fn(np, v)), z)
    np.testing.assert_allclose(np.asarray(got), numeric, rtol=1e-6, atol=1e-6)


def test_abs_squared_gradient_is_twice_the_conjugate() -> None:
    g = dx.grad(lambda z: dnp.abs(z) ** 2)(3.0 + 4.0j)
    assert abs(complex(g) - (6 - 8j)) < 1e-12
    _close(g, jax.grad(lambda z: jnp.abs(z) ** 2)(3.0 + 4.0j))


HOLOMORPHIC: dict[str, Callable[..., Any]] = {
    "poly": lambda np_, z: z**3 + 2j * z,
    "exp_sin": lambda np_, z: np_.exp(np_.sin(z)),
    "log_sqrt": lambda np_, z: np_.log(z) * np_.sqrt(z),
    "div": lambda np_, z: (z + 1) / (z * z + 2),
}


@pytest.mark.parametrize("name", list(HOLOMORPHIC))
def test_holomorphic_derivatives_equal_jaxs(name: str) -> None:
    fn = HOLOMORPHIC[name]
    z = complex(0.7 + 0.4j)
    _close(
        dx.grad(lambda v: fn(dnp, v), holomorphic=True)(z),
        jax.grad(lambda v: fn(jnp, v), holomorphic=True)(z),
    )
    v = _z((3,))
    for mine, theirs in ((dx.jacfwd, jax.jacfwd), (dx.jacrev, jax.jacrev)):
        _close(
            mine(lambda a: fn(dnp, a), holomorphic=True)(v),
            theirs(lambda a: fn(jnp, a), holomorphic=True)(v),
        )
    # The complex derivative by a difference along the real axis.
    h = 1e-7
    numeric = (complex(fn(np, z + h)) - complex(fn(np, z - h))) / (2 * h)
    got = complex(dx.grad(lambda v: fn(dnp, v), holomorphic=True)(z))
    assert abs(got - numeric) < 1e-6


def test_jacrev_of_real_outputs_of_complex_inputs_equals_jaxs() -> None:
    z = _z((3,))
    fn = REAL_VALUED["abs_of_sin"]
    _close(
        dx.jacrev(lambda v: dnp.abs(dnp.sin(v)))(z),
        jax.jacrev(lambda v: jnp.abs(jnp.sin(v)))(z),
    )
    _close(dx.vjp(lambda v: fn(dnp, v), z)[1](1.0), jax.vjp(lambda v: fn(jnp, v), z)[1](1.0))


@pytest.mark.parametrize("name", ["real", "imag", "conj", "complex", "to_real"])
def test_vjp_of_complex_parts(name: str) -> None:
    # The transposes of the four linear parts (and of the complex-to-real
    # conversion) against JAX's, with random cotangents.
    fn = ALL[name]
    args = _args(name, np.complex128)
    out = np.asarray(fn(jax.lax, *args))
    ct = _z(out.shape) if out.dtype.kind == "c" else RNG.standard_normal(out.shape)
    _close(
        dx.vjp(lambda *a: fn(dlax, *a), *args)[1](ct),
        jax.vjp(lambda *a: fn(jax.lax, *a), *args)[1](ct),
    )
    _close(
        dx.jit(dx.vjp(lambda *a: fn(dlax, *a), *args)[1])(ct),
        jax.vjp(lambda *a: fn(jax.lax, *a), *args)[1](ct),
    )


def test_linearize_and_vjp_of_complex_function() -> None:
    z, t = _z((3,)), _z((3,))

    def f(np_: Any) -> Callable[[Any], Any]:
        return lambda v: np_.exp(v) * np_.conj(v)

    _, f_lin = dx.linearize(f(dnp), z)
    _, j_lin = jax.linearize(f(jnp), z)
    _close(f_lin(t), j_lin(t))
    _close(dx.vjp(f(dnp), z)[1](t), jax.vjp(f(jnp), z)[1](t))


# --- JAX's errors ----------------------------------------------------------------------

ERRORS: dict[str, Callable[[Any], Any]] = {
    "grad of a complex output": lambda L: L.grad(lambda z: z * z)(1j),
    "holomorphic grad of a real input": lambda L: L.grad(lambda z: z * z, holomorphic=True)(1.0),
    "holomorphic grad of a real output": lambda L: L.grad(
        lambda z: L.numpy.abs(z), holomorphic=True
    )(1j),
    "jacfwd of a complex input": lambda L: L.jacfwd(lambda z: L.numpy.abs(z))(np.ones(2) * 1j),
    "jacrev of a complex output": lambda L: L.jacrev(lambda z: z * 2j)(np.ones(2)),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_transformations_refuse_what_jax_refuses(case: str) -> None:
    with pytest.raises(TypeError) as want:
        ERRORS[case](jax)
    with pytest.raises(TypeError) as got:
        ERRORS[case](dx)
    # The same sentence, apart from the library's name.
    assert str(got.value).split(".")[0] == str(want.value).split(".")[0]


@pytest.mark.parametrize(
    "call",
    [
        lambda: dlax.lt(Z, W),
        lambda: dlax.floor(Z),
        lambda: dlax.rem(Z, W),
        lambda: dlax.argmax(Z, 0),
        lambda: dlax.real(np.ones(2)),
        lambda: dlax.complex(np.ones(2, np.float16), np.ones(2, np.float16)),
        lambda: dlax.erf(Z),
    ],
)
def test_operations_without_complex_meaning_are_refused_at_trace_time(call: Any) -> None:
    with pytest.raises(TypeError, match=r"complex|float"):
        call()


def test_cumulative_extrema_of_a_long_axis_equal_jaxs() -> None:
    # Past the window length: the associative scan, eagerly and jitted.
    rng = np.random.default_rng(3)
    x = (rng.integers(-3, 3, 3000) + 1j * rng.integers(-3, 3, 3000)).astype(np.complex64)
    pairs: list[tuple[Any, Any]] = [(dlax.cummax, jax.lax.cummax), (dlax.cummin, jax.lax.cummin)]
    for d, j in pairs:
        want = np.asarray(j(x, reverse=True))
        np.testing.assert_array_equal(np.asarray(d(x, reverse=True)), want)
        np.testing.assert_array_equal(np.asarray(dx.jit(lambda v, d=d: d(v, 0, True))(x)), want)


def test_cummax_keeps_an_infinite_real_part_with_its_imaginary_part() -> None:
    # JAX's identity -inf + 0j leaks out here (its cummax gives -inf + 0j);
    # didax's is -inf - inf j, below every complex number.
    x = np.array([complex(-np.inf, -1.0)], np.complex64)
    np.testing.assert_array_equal(np.asarray(dlax.cummax(x)), x)
    np.testing.assert_array_equal(np.asarray(dx.jit(dlax.cummax)(x)), x)
    np.testing.assert_array_equal(np.asarray(dlax.cummin(-x)), -x)


def test_nan_and_inf_tests_look_at_both_parts() -> None:
    z = np.array([complex(1, np.nan), complex(np.inf, 0), complex(np.nan, np.inf), 1j])
    for name in ("isnan", "isinf", "isfinite"):
        _close(getattr(dnp, name)(z), getattr(jnp, name)(z))


def test_casting_complex_to_real_warns_and_keeps_the_real_part() -> None:
    with pytest.warns(np.exceptions.ComplexWarning):
        out = dnp.asarray(Z).astype(np.float64)
    np.testing.assert_array_equal(out, Z.real)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        jitted = dx.jit(lambda z: dlax.convert_element_type(z, np.float32))(Z)
    np.testing.assert_array_equal(jitted, Z.real.astype(np.float32))


# --- printing and lowering ----------------------------------------------------------------


def test_jaxpr_and_stablehlo_name_complex_types() -> None:
    jaxpr = dx.make_jaxpr(lambda z: dlax.real(z * dlax.conj(z)))(Z64)
    text = str(jaxpr)
    for part in ("c64[2,3]", "conj", "real"):
        assert part in text
    hlo = dx.jit(lambda z: dlax.abs(z)).lower(Z64).as_text()
    assert "complex<f32>" in hlo


def test_array_repr_and_python_conversion() -> None:
    x = dnp.asarray(np.complex128(1 - 2j))
    assert repr(x) == "Array(1.-2.j, dtype=complex128)"
    assert complex(x) == 1 - 2j
    assert x.real.dtype == np.float64
    assert float(x.imag) == -2.0
    assert dnp.iscomplexobj(x)
    assert not dnp.isrealobj(x)


def test_complex128_is_complex64_without_x64() -> None:
    code = (
        "import didax as dx, didax.numpy as dnp, numpy as np\n"
        "dx.config.update('jax_enable_x64', False)\n"
        "x = dnp.asarray(np.array([1 + 1j]))\n"
        "print(x.dtype, (x * 1j).dtype, (dnp.ones(2, np.float32) * 1j).dtype,"
        " dx.jit(lambda z: z * 2)(np.array([1j])).dtype)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["complex64"] * 4


def test_jitted_python_complex_scalars_keep_signed_zeros_and_nans() -> None:
    # The device copies of Python scalars are cached by their parts' bits:
    # complex(0, -0.0) == complex(0, 0) must not share one buffer.
    f = dx.jit(lambda z: z * 1)
    assert np.signbit(np.asarray(f(complex(0.0, -0.0))).imag)
    assert not np.signbit(np.asarray(f(complex(0.0, 0.0))).imag)
    assert np.isnan(complex(f(complex(np.nan, 1.0))).real)
    assert complex(f(2j)) == 2j
