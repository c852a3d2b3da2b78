"""JAX's convolution functions on ``conv_general_dilated`` against ``jax.lax``.

``conv``, ``conv_with_general_padding``, ``conv_transpose`` (with
``transpose_kernel`` and consistent padding), the patches and the locally
connected layer, the shape helpers, complex operands, ``precision`` and
``preferred_element_type``, the staged params and the StableHLO, and the
errors. (The primitive's rules are tested on a table in
``tests/interpreters/test_convolution.py``.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

import didax as dx
from didax import lax as dlax

RNG: Final = np.random.default_rng(3)
NHWC: Final = ("NHWC", "HWIO", "NHWC")


def _r(*shape: int, dtype: Any = np.float32) -> np.ndarray[Any, Any]:
    return RNG.standard_normal(shape).astype(dtype)


def _close(got: Any, want: Any, tol: float = 2e-5) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype, (g.dtype, w.dtype)
    assert g.shape == w.shape, (g.shape, w.shape)
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


X2: Final = _r(2, 3, 7, 6)
W2: Final = _r(4, 3, 3, 2)
X_NHWC: Final = _r(2, 7, 6, 3)
W_HWIO: Final = _r(3, 2, 3, 4)

# (name, function of (lax module, x, w), x, w)
FUNCTIONS: Final[list[tuple[str, Callable[[Any, Any, Any], Any], Any, Any]]] = [
    ("conv_valid", lambda m, x, w: m.conv(x, w, (1, 1), "VALID"), X2, W2),
    ("conv_same_strided", lambda m, x, w: m.conv(x, w, (2, 1), "SAME"), X2, W2),
    (
        "conv_with_general_padding",
        lambda m, x, w: m.conv_with_general_padding(x, w, (1, 2), [(1, 2), (0, 1)], (2, 1), (1, 2)),
        X2,
        W2,
    ),
    (
        "conv_with_general_padding_none",
        lambda m, x, w: m.conv_with_general_padding(x, w, (1, 1), "SAME", None, None),
        X2,
        W2,
    ),
    ("conv_transpose_same", lambda m, x, w: m.conv_transpose(x, w, (2, 2), "SAME"), X_NHWC, W_HWIO),
    (
        "conv_transpose_valid",
        lambda m, x, w: m.conv_transpose(x, w, (2, 1), "VALID"),
        X_NHWC,
        W_HWIO,
    ),
    (
        "conv_transpose_pairs",
        lambda m, x, w: m.conv_transpose(x, w, (2, 2), [(1, 1), (2, 0)]),
        X_NHWC,
        W_HWIO,
    ),
    (
        "conv_transpose_kernel",
        lambda m, x, w: m.conv_transpose(x, w, (2, 2), "SAME", transpose_kernel=True),
        X_NHWC,
        _r(3, 2, 4, 3),
    ),
    (
        "conv_transpose_consistent_dilated",
        lambda m, x, w: m.conv_transpose(
            x, w, (2, 3), [(1, 0), (1, 1)], rhs_dilation=(2, 1), use_consistent_padding=True
        ),
        X_NHWC,
        W_HWIO,
    ),
    (
        "conv_transpose_1d_nchw",
        lambda m, x, w: m.conv_transpose(
            x, w, (3,), "SAME", dimension_numbers=("NCH", "OIH", "NCH")
        ),
        _r(2, 3, 5),
        _r(4, 3, 2),
    ),
    (
        "patches",
        lambda m, x, w: m.conv_general_dilated_patches(x, (2, 3), (1, 2), "SAME"),
        X2,
        None,
    ),
    (
        "patches_nhwc_dilated",
        lambda m, x, w: m.conv_general_dilated_patches(
            x, (2, 2), (1, 1), [(1, 0), (0, 1)], (1, 2), (2, 1), NHWC
        ),
        X_NHWC,
        None,
    ),
    (
        "local",
        lambda m, x, w: m.conv_general_dilated_local(x, w, (2, 2), "VALID", (2, 2)),
        _r(2, 3, 6, 6),
        _r(3 * 4, 4, 3, 3).transpose(1, 0, 2, 3).copy(),
    ),
    (
        "local_nhwc",
        lambda m, x, w: m.conv_general_dilated_local(
            x, w, (1, 1), "SAME", (3, 2), dimension_numbers=NHWC
        ),
        X_NHWC,
        _r(7, 6, 3 * 6, 5),
    ),
]


@pytest.mark.parametrize(
    ("fn", "x", "w"), [pytest.param(f, x, w, id=n) for n, f, x, w in FUNCTIONS]
)
def test_functions_equal_jaxs(fn: Callable[[Any, Any, Any], Any], x: Any, w: Any) -> None:
    want = jax.jit(lambda a, b: fn(jlax, a, b))(x, w)
    _close(dx.jit(lambda a, b: fn(dlax, a, b))(x, w), want)


def test_conv_transpose_with_transpose_kernel_is_the_gradient_of_conv() -> None:
    x, w = _r(1, 8, 8, 3), _r(3, 3, 3, 5)
    y = dlax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=NHWC)
    ct = _r(*y.shape)
    _, pullback = dx.vjp(
        lambda a: dlax.conv_general_dilated(a, w, (2, 2), "SAME", dimension_numbers=NHWC), x
    )
    (grad_x,) = pullback(ct)
    got = dlax.conv_transpose(ct, w, (2, 2), "SAME", dimension_numbers=NHWC, transpose_kernel=True)
    _close(got, grad_x, tol=1e-4)


SHAPES: Final = [
    ((2, 3, 9, 8), (4, 3, 3, 3), (2, 2), "SAME"),
    ((2, 3, 9, 8), (4, 3, 3, 3), (1, 3), "VALID"),
    ((2, 3, 9, 8), (4, 3, 3, 2), (1, 1), [(1, 2), (0, 3)]),
    ((1, 1, 5), (2, 1, 4), (3,), "SAME_LOWER"),
]


@pytest.mark.parametrize(("lhs", "rhs", "strides", "padding"), SHAPES)
def test_shape_helpers_equal_jaxs(lhs: Any, rhs: Any, strides: Any, padding: Any) -> None:
    assert dlax.conv_shape_tuple(lhs, rhs, strides, padding) == jlax.conv_shape_tuple(
        lhs, rhs, strides, padding
    )
    if isinstance(padding, str):
        pads = dlax.padtype_to_pads(lhs[2:], rhs[2:], strides, padding)
        assert pads == jlax.padtype_to_pads(lhs[2:], rhs[2:], strides, padding)
    if len(lhs) == 4 and padding != "SAME_LOWER":
        nhwc = (lhs[0], *lhs[2:], lhs[1])
        hwio = (*rhs[2:], rhs[1], rhs[0])
        for helper in ("conv_general_shape_tuple", "conv_transpose_shape_tuple"):
            got = getattr(dlax, helper)(nhwc, hwio, strides, padding, NHWC)
            assert got == tuple(getattr(jlax, helper)(nhwc, hwio, strides, padding, NHWC)), helper


@pytest.mark.parametrize(
    "spec",
    [NHWC, ("NCHW", "OIHW", "NCHW"), ("HWNC", "IOWH", "CNWH"), ("NWC", "WIO", "NCW")],
)
def test_dimension_numbers_equal_jaxs(spec: tuple[str, str, str]) -> None:
    shape = (1,) * len(spec[0])
    assert dlax.conv_general_permutations(spec) == jlax.conv_general_permutations(spec)
    got = dlax.conv_dimension_numbers(shape, shape, spec)
    assert tuple(got) == tuple(jlax.conv_dimension_numbers(shape, shape, spec))
    assert isinstance(got, dlax.ConvDimensionNumbers)
    assert dlax.conv_dimension_numbers(shape, shape, got) == got


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((("NHWC", "HWIO"),), "must be length 3"),
        ((("NHW", "HWIO", "NHWC"),), "must have len equal to the ndim"),
        ((("NHWW", "HWIO", "NHWC"),), "must contain the characters 'N' and 'C' exactly once"),
        ((("NHWC", "HWIO", "NHXC"),), "same set of spatial characters"),
        (([0, 1, 2, 3],), "must be length 3"),
    ],
)
def test_dimension_number_errors_are_jaxs(args: Any, match: str) -> None:
    shape = (1, 1, 1, 1)
    for lax_ in (dlax, jlax):
        with pytest.raises(TypeError, match=match):
            lax_.conv_dimension_numbers(shape, shape, *args)


@pytest.mark.parametrize(
    ("x", "w", "kwargs", "match"),
    [
        ((2, 4, 5), (2, 3, 2), {}, "4 // 1 != 3"),
        ((2, 4, 5), (3, 2, 2), {"feature_group_count": 2}, "multiple of feature_group_count"),
        ((2, 4, 5), (2, 4, 2), {"feature_group_count": 3}, "must divide lhs feature"),
        ((3, 4, 5), (2, 4, 2), {"batch_group_count": 2}, "must divide lhs batch"),
        ((4, 4, 5), (3, 4, 2), {"batch_group_count": 2}, "multiple of batch_group_count"),
        ((4, 4, 5), (4, 2, 2), {"batch_group_count": 2, "feature_group_count": 2}, "At most one"),
        ((2, 4, 5), (2, 4, 2), {"padding": [(-6, 0)]}, "Negative padding is larger"),
    ],
)
def test_typing_errors_name_the_primitive_and_jaxs_reason(
    x: tuple[int, ...], w: tuple[int, ...], kwargs: dict[str, Any], match: str
) -> None:
    kwargs = {"window_strides": (1,), "padding": "VALID", **kwargs}
    a, b = np.ones(x, np.float32), np.ones(w, np.float32)
    with pytest.raises((ValueError, TypeError), match=match):
        jlax.conv_general_dilated(jnp.asarray(a), jnp.asarray(b), **kwargs)
    with pytest.raises(dx.errors.ShapeError, match=r"conv_general_dilated applied to .*f32\["):
        dlax.conv_general_dilated(a, b, **kwargs)


def test_wrapper_errors_are_jaxs() -> None:
    x, w = np.ones((1, 2, 5), np.float32), np.ones((3, 2, 2), np.float32)
    lax_: Any
    for lax_ in (dlax, jlax):
        with pytest.raises(ValueError, match="String padding is not implemented"):
            lax_.conv_general_dilated(x, w, (1,), "SAME", lhs_dilation=(2,))
        with pytest.raises(ValueError, match="padding argument to conv_general_dilated"):
            lax_.conv_general_dilated(x, w, (1,), [1, 2])
        with pytest.raises(RuntimeError, match="Unrecognized padding type"):
            lax_.conv_general_dilated(x, w, (1,), "FULL")
        with pytest.raises(TypeError, match="ndim to be equal"):
            lax_.conv_general_dilated(x[None], w, (1,), "VALID")
    with pytest.raises(dx.errors.DTypeError, match="equal dtypes"):
        dlax.conv_general_dilated(x, w.astype(np.float64), (1,), "VALID")


def test_complex_operands_equal_jaxs() -> None:
    x = (_r(2, 3, 6) + 1j * _r(2, 3, 6)).astype(np.complex64)
    w = (_r(4, 3, 2) + 1j * _r(4, 3, 2)).astype(np.complex64)

    def f(m: Any) -> Callable[[Any, Any], Any]:
        return lambda a, b: m.conv_general_dilated(a, b, (1,), "SAME")

    _close(dx.jit(f(dlax))(x, w), jax.jit(f(jlax))(x, w), tol=1e-4)
    _close(f(dlax)(x, w), jax.jit(f(jlax))(x, w), tol=1e-4)
    text = dx.jit(f(dlax)).lower(x, w).as_text()
    assert text.count("stablehlo.convolution") == 3  # Gauss's three real products


def test_preferred_element_type_and_precision() -> None:
    x, w = np.ones((1, 2, 5), np.int8), np.ones((3, 2, 2), np.int8)
    kwargs: dict[str, Any] = {"preferred_element_type": np.int32}
    got = dlax.conv_general_dilated(x, w, (1,), "VALID", **kwargs)
    _close(got, jlax.conv_general_dilated(jnp.asarray(x), jnp.asarray(w), (1,), "VALID", **kwargs))
    xf, wf = x.astype(np.float32), w.astype(np.float32)

    def f(a: Any, b: Any) -> Any:
        return dlax.conv_general_dilated(a, b, (1,), "VALID", precision="highest")

    jaxpr = str(dx.make_jaxpr(f)(xf, wf))
    assert "precision=(Precision.HIGHEST, Precision.HIGHEST)" in jaxpr
    text = dx.jit(f).lower(xf, wf).as_text()
    assert "stablehlo.convolution" in text
    # JAX's lowering of the same convolution
    jtext = (
        jax.jit(lambda a, b: jlax.conv_general_dilated(a, b, (1,), "VALID", precision="highest"))
        .lower(xf, wf)
        .as_text()
    )
    assert (
        "precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]" in jtext
    )
    assert (
        "precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]" in text
    )


def test_weak_operands_take_their_partners_dtype() -> None:
    w = np.ones((1, 1, 1), np.float32)
    out = dlax.conv_general_dilated(np.ones((1, 1, 3), np.float32), w, (1,), "VALID")
    assert out.dtype == np.float32
    assert not out.aval.weak_type


def test_linearize_stages_the_tangent_convolutions() -> None:
    # Partial evaluation needs no rule of its own: the known primal is computed,
    # the tangent convolutions (one per operand) are staged.
    x, w, tx, tw = _r(2, 3, 6), _r(4, 3, 2), _r(2, 3, 6), _r(4, 3, 2)

    def f(m: Any) -> Callable[[Any, Any], Any]:
        return lambda a, b: m.conv_general_dilated(a, b, (2,), [(1, 0)], rhs_dilation=(2,))

    y, f_jvp = dx.linearize(f(dlax), x, w)
    want_y, want_t = jax.jvp(f(jlax), (x, w), (tx, tw))
    _close(y, want_y)
    _close(f_jvp(tx, tw), want_t)
    jaxpr = str(dx.make_jaxpr(f_jvp)(tx, tw))
    assert jaxpr.count("conv_general_dilated[") == 2


def test_dimension_numbers_are_stored_as_int_tuples() -> None:
    spec: Any = [0, 1, 2]  # (lists, as a user may give them)
    dn = dlax.ConvDimensionNumbers(spec, spec, spec)
    canonical = dlax.conv_dimension_numbers((1, 1, 1), (1, 1, 1), dn)
    assert canonical == ((0, 1, 2), (0, 1, 2), (0, 1, 2))
    assert all(type(spec) is tuple for spec in canonical)
