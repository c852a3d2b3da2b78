"""``conv_general_dilated`` (``core.lax.convolution``) against ``jax.lax``.

A table of convolutions (1-, 2- and 3-D; strides; string and explicit,
negative, paddings; lhs and rhs dilations; feature and batch groups;
dimension numbers as None, strings and ``ConvDimensionNumbers``), each
compared with JAX's: values eager and jitted in float32 and float64, jvp
and vjp with respect to both operands, vmap of lhs, rhs and both, grad of
grad, finite differences, and flops against XLA's cost analysis. Then the
convenience functions and the shape helpers, and the errors.

Each transformation runs the whole table as one jitted program (a list of
results, one per case) in each library, so the table costs one
compilation per transformation and dtype, not one per case; failures name
the case. Eager values and flops are per case (eager didax compiles each
convolution once, as a one-equation program).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Final

import attrs
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

import didax as dx
import didax.numpy as dnp
from didax import lax as dlax

F32: Final = np.dtype(np.float32)
F64: Final = np.dtype(np.float64)
NHWC: Final = ("NHWC", "HWIO", "NHWC")


@attrs.frozen
class Case:
    name: str
    lhs: tuple[int, ...]
    rhs: tuple[int, ...]
    kwargs: dict[str, Any]


def _case(
    name: str,
    lhs: tuple[int, ...],
    rhs: tuple[int, ...],
    strides: tuple[int, ...],
    padding: Any,
    lhs_dilation: tuple[int, ...] | None = None,
    rhs_dilation: tuple[int, ...] | None = None,
    dn: Any = None,
    fgc: int = 1,
    bgc: int = 1,
) -> Case:
    kwargs = {
        "window_strides": strides,
        "padding": padding,
        "lhs_dilation": lhs_dilation,
        "rhs_dilation": rhs_dilation,
        "dimension_numbers": dn,
        "feature_group_count": fgc,
        "batch_group_count": bgc,
    }
    return Case(name, lhs, rhs, kwargs)


CASES: Final = [
    # 1-D, NCW / OIW
    _case("1d_valid", (2, 3, 9), (4, 3, 3), (1,), "VALID"),
    _case("1d_same_s2", (2, 3, 9), (4, 3, 3), (2,), "SAME"),
    _case("1d_same_lower_s2", (2, 3, 8), (4, 3, 4), (2,), "SAME_LOWER"),
    _case("1d_explicit", (2, 3, 9), (4, 3, 3), (1,), [(1, 2)]),
    _case("1d_negative_pad", (2, 3, 9), (4, 3, 3), (1,), [(-1, 2)]),
    _case("1d_rhs_dil", (2, 3, 11), (4, 3, 3), (1,), "VALID", None, (2,)),
    _case("1d_lhs_dil", (2, 3, 6), (4, 3, 3), (1,), [(1, 1)], (2,)),
    _case("1d_lhs_dil_stride", (1, 2, 7), (3, 2, 2), (3,), [(2, 0)], (3,)),
    _case("1d_both_dil", (2, 3, 7), (2, 3, 3), (2,), [(2, 1)], (2,), (2,)),
    _case("1d_fgc3", (2, 6, 9), (6, 2, 3), (1,), "SAME", fgc=3),
    _case("1d_depthwise", (2, 4, 8), (8, 1, 3), (2,), "VALID", fgc=4),
    _case("1d_bgc2", (4, 3, 9), (4, 3, 3), (1,), "VALID", bgc=2),
    _case("1d_bgc4_stride", (8, 2, 10), (8, 2, 3), (2,), "SAME", bgc=4),
    _case("1d_nwc", (2, 9, 3), (3, 3, 4), (1,), "SAME", dn=("NWC", "WIO", "NWC")),
    _case("1d_wnc_owi_cwn", (9, 2, 3), (4, 3, 3), (2,), "VALID", dn=("WNC", "OWI", "CWN")),
    _case("1d_k1", (3, 5, 7), (2, 5, 1), (1,), "VALID"),
    _case("1d_kernel_eq_input", (2, 3, 5), (4, 3, 5), (1,), "VALID"),
    _case("1d_stride_gt_kernel", (2, 3, 13), (4, 3, 2), (4,), "VALID"),
    _case("1d_big_pad", (1, 2, 4), (3, 2, 3), (1,), [(4, 3)]),
    _case("1d_empty_out", (2, 3, 2), (4, 3, 3), (1,), "VALID"),
    _case("1d_fgc2_rhs_dil", (2, 4, 12), (6, 2, 3), (1,), [(0, 2)], None, (3,), fgc=2),
    _case("1d_bgc2_lhs_dil", (4, 2, 5), (6, 2, 2), (1,), [(1, 0)], (2,), bgc=2),
    # 2-D, NCHW / OIHW
    _case("2d_valid", (2, 3, 7, 6), (4, 3, 3, 2), (1, 1), "VALID"),
    _case("2d_same_s22", (2, 3, 9, 8), (4, 3, 3, 3), (2, 2), "SAME"),
    _case("2d_same_lower_s21", (2, 3, 8, 7), (4, 3, 2, 4), (2, 1), "SAME_LOWER"),
    _case("2d_explicit", (2, 3, 6, 7), (4, 3, 3, 3), (1, 2), [(1, 0), (2, 1)]),
    _case("2d_negative_pad", (1, 2, 8, 8), (3, 2, 3, 3), (1, 1), [(-2, 1), (0, 1)]),
    _case("2d_rhs_dil", (2, 3, 9, 9), (4, 3, 3, 2), (1, 1), "VALID", None, (2, 3)),
    _case("2d_rhs_dil_same", (2, 3, 9, 9), (4, 3, 3, 3), (1, 2), "SAME", None, (2, 1)),
    _case("2d_lhs_dil", (2, 3, 4, 5), (4, 3, 3, 3), (1, 1), [(2, 2), (1, 1)], (2, 2)),
    _case("2d_lhs_dil_stride", (1, 3, 5, 4), (2, 3, 3, 2), (2, 3), [(1, 2), (0, 1)], (3, 2)),
    _case("2d_all", (2, 2, 6, 7), (3, 2, 2, 3), (2, 1), [(1, 2), (2, 0)], (2, 1), (1, 2)),
    _case("2d_fgc2", (2, 4, 6, 6), (6, 2, 3, 3), (1, 1), "SAME", fgc=2),
    _case("2d_depthwise", (2, 4, 7, 7), (8, 1, 3, 3), (2, 2), "SAME", fgc=4),
    _case("2d_fgc3_strided", (1, 6, 9, 7), (3, 2, 2, 3), (2, 2), "VALID", fgc=3),
    _case("2d_bgc2", (4, 3, 6, 6), (4, 3, 3, 3), (1, 1), "VALID", bgc=2),
    _case("2d_bgc3_strides", (6, 2, 7, 8), (6, 2, 2, 3), (2, 2), "SAME", bgc=3),
    _case(
        "2d_bgc2_dil", (4, 2, 8, 6), (2, 2, 2, 2), (1, 1), [(1, 1), (0, 0)], (1, 2), (2, 1), bgc=2
    ),
    _case("2d_nhwc", (2, 7, 6, 3), (3, 3, 3, 4), (1, 1), "SAME", dn=NHWC),
    _case("2d_nhwc_strided", (2, 9, 8, 3), (3, 2, 3, 5), (2, 3), "VALID", dn=NHWC),
    _case("2d_nhwc_fgc", (2, 6, 6, 4), (3, 3, 2, 8), (1, 1), "SAME", dn=NHWC, fgc=2),
    _case("2d_nhwc_bgc", (4, 6, 5, 2), (2, 2, 2, 4), (1, 1), "VALID", dn=NHWC, bgc=2),
    _case("2d_mixed", (2, 6, 7, 3), (4, 3, 3, 3), (1, 1), "VALID", dn=("NHWC", "OIHW", "NCHW")),
    _case("2d_odd_layout", (6, 7, 2, 3), (3, 4, 3, 3), (2, 1), "SAME", dn=("HWNC", "IOHW", "NHWC")),
    _case(
        "2d_swapped_spatial",
        (2, 3, 7, 6),
        (4, 3, 2, 3),
        (1, 2),
        "VALID",
        dn=("NCHW", "OIWH", "NCWH"),
    ),
    _case(
        "2d_dimension_numbers_object",
        (2, 3, 6, 6),
        (3, 3, 3, 4),
        (1, 1),
        "SAME",
        dn=((0, 1, 2, 3), (3, 2, 0, 1), (0, 1, 2, 3)),  # each library's ConvDimensionNumbers
    ),
    _case("2d_1x1", (2, 5, 4, 4), (3, 5, 1, 1), (1, 1), "VALID"),
    _case("2d_1x1_strided", (2, 5, 7, 7), (3, 5, 1, 1), (2, 2), "SAME"),
    _case("2d_full_kernel", (2, 3, 4, 5), (2, 3, 4, 5), (1, 1), "VALID"),
    _case("2d_single_batch_feature", (1, 1, 6, 6), (1, 1, 3, 3), (1, 1), "VALID"),
    _case("2d_big_pad", (1, 2, 3, 3), (2, 2, 2, 2), (1, 1), [(3, 2), (2, 3)]),
    _case("2d_empty_out", (2, 3, 2, 5), (4, 3, 3, 3), (1, 1), "VALID"),
    _case("2d_stride_gt_kernel", (2, 2, 10, 11), (3, 2, 2, 2), (3, 4), "VALID"),
    _case("2d_lhs_dil_fgc", (2, 4, 4, 4), (4, 2, 2, 2), (1, 1), [(1, 1), (1, 1)], (2, 2), fgc=2),
    _case("2d_rhs_dil_bgc", (4, 2, 9, 9), (4, 2, 2, 2), (2, 2), "VALID", None, (3, 3), bgc=4),
    # 3-D, NCDHW / OIDHW
    _case("3d_valid", (2, 2, 5, 6, 4), (3, 2, 2, 3, 2), (1, 1, 1), "VALID"),
    _case("3d_same_strided", (2, 2, 6, 5, 5), (3, 2, 3, 3, 2), (2, 1, 2), "SAME"),
    _case("3d_explicit", (1, 2, 4, 5, 4), (2, 2, 2, 2, 2), (1, 2, 1), [(1, 0), (0, 1), (1, 1)]),
    _case(
        "3d_dilations",
        (1, 2, 5, 5, 5),
        (2, 2, 2, 2, 2),
        (1, 1, 1),
        [(1, 1)] * 3,
        (2, 1, 1),
        (1, 2, 2),
    ),
    _case("3d_fgc2", (2, 4, 4, 4, 4), (4, 2, 2, 2, 2), (1, 1, 1), "SAME", fgc=2),
    _case("3d_bgc2", (4, 2, 4, 5, 3), (4, 2, 2, 2, 2), (1, 1, 1), "VALID", bgc=2),
    _case(
        "3d_ndhwc",
        (2, 4, 5, 4, 3),
        (2, 2, 2, 3, 4),
        (1, 2, 1),
        "SAME",
        dn=("NDHWC", "DHWIO", "NDHWC"),
    ),
    _case("3d_same_lower", (1, 3, 5, 4, 6), (2, 3, 2, 3, 3), (2, 2, 2), "SAME_LOWER"),
]


RNG: Final = np.random.default_rng(0)
Arrays = list[tuple[np.ndarray[Any, Any], ...]]


def _random(shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
    return RNG.standard_normal(shape).astype(dtype)


def _out_shape(c: Case) -> tuple[int, ...]:
    x, w = np.zeros(c.lhs, F32), np.zeros(c.rhs, F32)
    return tuple(jax.eval_shape(_conv(jlax, c), x, w).shape)


def _args(dtype: np.dtype[Any], cases: list[Case] = CASES) -> Arrays:
    """Per case: lhs, rhs, their tangents, an output cotangent, lhs and rhs batched (3)."""
    return [
        (
            _random(c.lhs, dtype),
            _random(c.rhs, dtype),
            _random(c.lhs, dtype),
            _random(c.rhs, dtype),
            _random(_out_shape(c), dtype),
            _random((c.lhs[0], 3, *c.lhs[1:]), dtype),
            _random((*c.rhs, 3), dtype),
        )
        for c in cases
    ]


def _conv(lax_: Any, c: Case) -> Callable[..., Any]:
    kwargs = dict(c.kwargs)
    dn = kwargs.get("dimension_numbers")
    if isinstance(dn, tuple) and isinstance(dn[0], tuple):
        kwargs["dimension_numbers"] = lax_.ConvDimensionNumbers(*dn)
    return lambda x, w: lax_.conv_general_dilated(x, w, **kwargs)


def _close(name: str, got: Any, want: Any, dtype: np.dtype[Any], scale: float = 1.0) -> None:
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves), name
    tol = (2e-5 if dtype == F32 else 1e-12) * scale
    for g, w in zip(got_leaves, want_leaves, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype, (name, g.dtype, w.dtype)
        assert g.shape == w.shape, (name, g.shape, w.shape)
        atol = tol * max(1.0, float(np.abs(w).max(initial=0)))
        np.testing.assert_allclose(g, w, rtol=tol, atol=atol, err_msg=name)


# Programs over the whole table: (lax module, library, numpy module) -> per case results.
Program = Callable[[Any, Any, Any, list[Case]], Callable[[Arrays], list[Any]]]


def _per_case(one: Callable[[Any, Any, Any, Case, tuple[Any, ...]], Any]) -> Program:
    """The program applying ``one(lax, library, numpy, case, arrays)`` to each case."""

    def program(lax_: Any, lib: Any, np_: Any, cases: list[Case]) -> Callable[[Arrays], list[Any]]:
        return lambda args: [one(lax_, lib, np_, c, a) for c, a in zip(cases, args, strict=True)]

    return program


@_per_case
def _values(lax_: Any, lib: Any, np_: Any, c: Case, a: tuple[Any, ...]) -> Any:
    return _conv(lax_, c)(a[0], a[1])


@_per_case
def _derivatives(lax_: Any, lib: Any, np_: Any, c: Case, a: tuple[Any, ...]) -> Any:
    f = _conv(lax_, c)
    x, w, tx, tw, ct = a[:5]
    y, ty = lib.jvp(f, (x, w), (tx, tw))
    _, pullback = lib.vjp(f, x, w)
    return y, ty, pullback(ct)


@_per_case
def _jvps(lax_: Any, lib: Any, np_: Any, c: Case, a: tuple[Any, ...]) -> Any:
    return lib.jvp(_conv(lax_, c), (a[0], a[1]), (a[2], a[3]))


@_per_case
def _vjps(lax_: Any, lib: Any, np_: Any, c: Case, a: tuple[Any, ...]) -> Any:
    y, pullback = lib.vjp(_conv(lax_, c), a[0], a[1])
    return y, pullback(a[4])


@_per_case
def _vmaps(lax_: Any, lib: Any, np_: Any, c: Case, a: tuple[Any, ...]) -> Any:
    f = _conv(lax_, c)
    x, w, xs, ws = a[0], a[1], a[5], a[6]
    return (
        lib.vmap(f, in_axes=(1, None))(xs, w),
        lib.vmap(f, in_axes=(None, -1))(x, ws),
        lib.vmap(f, in_axes=(1, -1))(xs, ws),
    )


@_per_case
def _grads_of_grads(lax_: Any, lib: Any, np_: Any, c: Case, a: tuple[Any, ...]) -> Any:
    f = _conv(lax_, c)

    def inner(x: Any, w: Any) -> Any:
        return np_.sum(np_.sin(f(x, w)))

    def outer(x: Any, w: Any) -> Any:
        gx, gw = lib.grad(inner, argnums=(0, 1))(x, w)
        return np_.sum(gx * gx) + np_.sum(np_.cos(gw))

    return lib.grad(outer, argnums=(0, 1))(a[0], a[1])


def _compare(
    program: Program, dtype: np.dtype[Any], cases: list[Case], *, jit: bool, scale: float
) -> None:
    args = _args(dtype, cases)
    ours, theirs = program(dlax, dx, dnp, cases), program(jlax, jax, jnp, cases)
    want = jax.jit(theirs)(args)
    got = dx.jit(ours)(args) if jit else ours(args)
    for c, g, w in zip(cases, got, want, strict=True):
        _close(c.name, g, w, dtype, scale)


# Which cases each check runs: XLA compiles each convolution of a program in
# about a tenth of a second, so the table is covered, not multiplied: every
# case's values (float32) and flops, each other check on subsets that between them
# reach every kind of case (KINDS).
VALUES_F64: Final = CASES[1::6]
EAGER_VALUES: Final = CASES[::6]


def _named(*names: str) -> list[Case]:
    by_name = {c.name: c for c in CASES}
    return [by_name[n] for n in names]


VJP_F64: Final = _named(
    *("1d_negative_pad", "1d_lhs_dil_stride", "1d_fgc3", "1d_bgc4_stride", "1d_wnc_owi_cwn"),
    *("1d_empty_out", "2d_same_lower_s21", "2d_rhs_dil_same", "2d_all", "2d_depthwise"),
    *("2d_bgc2_dil", "2d_nhwc_strided", "3d_dilations"),
)
VJP_F32: Final = _named(
    *("1d_valid", "1d_big_pad", "2d_explicit", "2d_mixed", "2d_rhs_dil_bgc", "2d_odd_layout"),
    "3d_fgc2",
)
JVP: Final = _named(
    *("1d_same_s2", "1d_rhs_dil", "2d_lhs_dil", "2d_fgc3_strided", "2d_bgc3_strides", "2d_nhwc"),
    "3d_same_strided",
)
VMAP: Final = _named(
    *("1d_valid", "1d_same_lower_s2", "1d_lhs_dil", "1d_depthwise", "1d_bgc2", "1d_nwc"),
    *("1d_fgc2_rhs_dil", "2d_negative_pad", "2d_big_pad", "2d_empty_out", "2d_lhs_dil_fgc"),
    *("2d_nhwc_bgc", "2d_odd_layout"),
)
VMAP_F32: Final = _named("2d_mixed", "2d_bgc3_strides", "3d_explicit", "3d_bgc2")
GRAD_OF_GRAD: Final = CASES[4::20]
EAGER_TRANSFORMS: Final = CASES[5::30]
FINITE: Final = CASES[3::16]
# What the subsets must reach between them: each kind of case in the table.
KINDS: Final = (
    *("1d", "2d", "3d", "valid", "same", "explicit", "negative", "big_pad", "empty"),
    *("lhs_dil", "rhs_dil", "stride", "fgc", "depthwise", "bgc", "nhwc", "mixed", "layout"),
)


def test_table_size() -> None:
    assert len(CASES) >= 60
    assert len({c.name for c in CASES}) == len(CASES)


@functools.cache
def _jax_values_f32() -> tuple[Arrays, list[Any], dict[str, Any]]:
    """JAX's values of the whole table in float32, and its compiled program's cost analysis."""
    args = [a[:2] for a in _args(F32)]
    compiled = jax.jit(_values(jlax, jax, jnp, CASES)).lower(args).compile()
    analysis = compiled.cost_analysis()
    assert analysis is not None
    return args, compiled(args), dict(analysis)


# --- values, eager and jitted, and flops -------------------------------------------------


def test_values_equal_jaxs_jitted_float32() -> None:
    args, want, _ = _jax_values_f32()
    got = dx.jit(_values(dlax, dx, dnp, CASES))(args)
    for c, g, w in zip(CASES, got, want, strict=True):
        _close(c.name, g, w, F32)


def test_values_equal_jaxs_jitted_float64() -> None:
    _compare(_values, F64, VALUES_F64, jit=True, scale=1.0)


def test_values_equal_jaxs_eager() -> None:
    args, want, _ = _jax_values_f32()
    for i, c in enumerate(CASES):
        if c in EAGER_VALUES:
            _close(c.name, _conv(dlax, c)(*args[i]), want[i], F32)


def test_flops_equal_xla_cost_analysis() -> None:
    # The whole table as one program: XLA's cost analysis sums its convolutions.
    args, _, analysis = _jax_values_f32()
    counted = dx.flops(_values(dlax, dx, dnp, CASES))(args)
    if counted != int(analysis.get("flops", 0)):  # name the cases that differ
        for c, (x, w) in zip(CASES, args, strict=True):
            one = jax.jit(_conv(jlax, c)).lower(x, w).compile().cost_analysis()
            assert one is not None
            assert dx.flops(_conv(dlax, c))(x, w) == int(one.get("flops", 0)), c.name
    assert counted == int(analysis.get("flops", 0))


# --- derivatives, vmap ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("program", "dtype", "cases"),
    [
        pytest.param(_vjps, F64, VJP_F64, id="vjp-float64"),
        pytest.param(_vjps, F32, VJP_F32, id="vjp-float32", marks=pytest.mark.slow),
        pytest.param(_jvps, F64, JVP, id="jvp-float64"),
        pytest.param(_vmaps, F64, VMAP, id="vmap-float64"),
        pytest.param(_vmaps, F32, VMAP_F32, id="vmap-float32", marks=pytest.mark.slow),
        pytest.param(_grads_of_grads, F64, GRAD_OF_GRAD, id="grad_of_grad-float64"),
    ],
)
def test_transformations_equal_jaxs_jitted(
    program: Program, dtype: np.dtype[Any], cases: list[Case]
) -> None:
    _compare(program, dtype, cases, jit=True, scale=100.0 if program is _grads_of_grads else 5.0)


@pytest.mark.parametrize("program", [_derivatives, _vmaps], ids=["jvp_vjp", "vmap"])
def test_transformations_equal_jaxs_eagerly(program: Program) -> None:
    _compare(program, F64, EAGER_TRANSFORMS, jit=False, scale=5.0)


def test_every_kind_of_case_is_differentiated_and_batched() -> None:
    differentiated = {c.name for c in (*VJP_F64, *VJP_F32, *JVP)}
    batched = {c.name for c in (*VMAP, *VMAP_F32)}
    for names in (differentiated, batched):
        assert [k for k in KINDS if not any(k in n for n in names)] == []


@pytest.mark.parametrize("case", FINITE, ids=lambda c: c.name)
def test_derivatives_agree_with_finite_differences(case: Case) -> None:
    ((x, w, tx, tw, ct, _, _),) = _args(F64, [case])
    f = dx.jit(_conv(dlax, case))
    ((_, ty, (cx, cw)),) = dx.jit(_derivatives(dlax, dx, dnp, [case]))([(x, w, tx, tw, ct)])
    eps = 1e-4
    # Bilinear: the central difference is exact up to rounding.
    up, down = np.asarray(f(x + eps * tx, w + eps * tw)), np.asarray(f(x - eps * tx, w - eps * tw))
    numeric = (up - down) / (2 * eps)
    np.testing.assert_allclose(np.asarray(ty), numeric, rtol=1e-6, atol=1e-6)
    # <ct, J t> = <J^T ct, t>: the vjp is the jvp's transpose.
    forward = float(np.vdot(ct, numeric))
    backward = float(np.vdot(np.asarray(cx), tx) + np.vdot(np.asarray(cw), tw))
    np.testing.assert_allclose(forward, backward, rtol=1e-6, atol=1e-6)


def test_vmap_of_an_empty_batch() -> None:
    c = Case("empty", (2, 3, 5), (4, 3, 2), {"window_strides": (1,), "padding": "VALID"})
    xs, w = np.ones((0, 2, 3, 5), F32), np.ones((4, 3, 2), F32)
    got = dx.vmap(_conv(dlax, c), in_axes=(0, None))(xs, w)
    _close(c.name, got, jax.vmap(_conv(jlax, c), in_axes=(0, None))(xs, w), F32)
