"""The transposition interpreter: ``backward_pass`` and the transpose rules.

Every case is a function linear in some operands of one primitive (the
others fixed random arrays, which become constants of the traced jaxpr,
i.e. defined inputs of the backward pass). For each case:

- transpose consistency: ``<u, J v> == <J^T u, v>`` for random ``u``, ``v``;
- ``J^T u`` equals JAX's (``jax.vjp`` of the same ``jax.lax`` function, and
  ``jax.linear_transpose`` where JAX's own rule allows it);
- the staged backward pass typechecks and evaluates to the same, eagerly
  and compiled under ``jit``.

Then the structural properties: repeated inputs, outputs that are inputs,
symbolic zero cotangents (which must create no equations), linear growth of
the transposed program, the jit call's transposed jaxprs and their cache,
composition with jit/vmap/jvp, and the errors.
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias

import jax
import numpy as np
import pytest
from jax import lax as jlax

import didax
from didax import lax as dlax
from didax.core import lax as core_lax
from didax.core.abstract import ShapedArray
from didax.core.lax.jit import jit_p
from didax.core.primitive import Primitive
from didax.interpreters import jaxpr_transforms
from didax.interpreters.evaluation import eval_closed_jaxpr
from didax.interpreters.jaxpr_transforms import transpose_jaxpr
from didax.interpreters.jvp import Zero, instantiate_zeros
from didax.interpreters.staging import trace_to_jaxpr
from didax.interpreters.transpose import (
    TRANSPOSE_RULES,
    NonlinearError,
    UndefinedPrimal,
    backward_pass,
    linear_transpose_flat,
)
from didax.ir.jaxpr import ClosedJaxpr, Jaxpr
from didax.ir.typecheck import typecheck_jaxpr

Array: TypeAlias = np.ndarray[Any, Any]
Shape: TypeAlias = tuple[int, ...]

F32: Final = np.dtype(np.float32)
F64: Final = np.dtype(np.float64)
C128: Final = np.dtype(np.complex128)


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(name.encode()))


def _dense(ct: Any) -> Array:
    return np.asarray(instantiate_zeros(ct))


# --- the cases ---------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Case:
    """A function linear in its arguments, in didax and in JAX."""

    id: str
    prim: Primitive  # the primitive whose rule the case exercises
    fun: Callable[..., Sequence[Any]]  # didax: linear args -> outputs
    oracle: Callable[..., Sequence[Any]]  # the same in jax.lax
    shapes: tuple[Shape, ...]  # of the linear args
    dtype: np.dtype[Any] = F64
    tol: float = 1e-12


def _fixed(name: str, *shapes: Shape, dtype: np.dtype[Any] = F64) -> list[Array]:
    """Fixed random operands for a case (the non-linear ones)."""
    rng = _rng("fixed-" + name)
    return [np.asarray(rng.standard_normal(s), dtype) for s in shapes]


def unary(
    name: str,
    prim: Primitive,
    d: Callable[[Any], Any],
    j: Callable[[Any], Any],
    shape: Shape,
    dtype: np.dtype[Any] = F64,
    tol: float = 1e-12,
) -> Case:
    return Case(name, prim, lambda x: [d(x)], lambda x: [j(x)], (shape,), dtype, tol)


def binary_cases(
    name: str, prim: Primitive, d: Callable[..., Any], j: Callable[..., Any], shape: Shape
) -> list[Case]:
    """One case per linear operand position (the other fixed), and both linear if allowed."""
    (c,) = _fixed(name, shape)
    cases = [
        Case(f"{name}-lhs", prim, lambda x: [d(x, c)], lambda x: [j(x, c)], (shape,)),
    ]
    if prim is not core_lax.div_p:
        cases.append(Case(f"{name}-rhs", prim, lambda y: [d(c, y)], lambda y: [j(c, y)], (shape,)))
    if prim in (core_lax.add_p, core_lax.sub_p):
        cases.append(
            Case(
                f"{name}-both", prim, lambda x, y: [d(x, y)], lambda x, y: [j(x, y)], (shape, shape)
            )
        )
    return cases


def _select_cases() -> list[Case]:
    pred = _rng("pred").random((3, 4)) < 0.5
    (c,) = _fixed("select", (3, 4))
    p = core_lax.select_p
    return [
        Case(
            "select-true",
            p,
            lambda x: [dlax.select(pred, x, c)],
            lambda x: [jlax.select(pred, x, c)],
            ((3, 4),),
        ),
        Case(
            "select-false",
            p,
            lambda x: [dlax.select(pred, c, x)],
            lambda x: [jlax.select(pred, c, x)],
            ((3, 4),),
        ),
        Case(
            "select-both",
            p,
            lambda x, y: [dlax.select(pred, x, y)],
            lambda x, y: [jlax.select(pred, x, y)],
            ((3, 4), (3, 4)),
        ),
    ]


def _broadcast_cases() -> list[Case]:
    p = core_lax.broadcast_in_dim_p

    def bcast(name: str, shape_in: Shape, shape: Shape, dims: Shape) -> Case:
        return unary(
            f"broadcast_in_dim-{name}",
            p,
            lambda x: dlax.broadcast_in_dim(x, shape, dims),
            lambda x: jlax.broadcast_in_dim(x, shape, dims),
            shape_in,
        )

    return [
        bcast("new_axis", (3,), (2, 3), (1,)),
        bcast("scalar", (), (2, 3), ()),
        bcast("size1", (1, 3), (4, 3), (0, 1)),
        bcast("size1_kept_and_stretched", (1, 1), (2, 1, 5), (1, 2)),
        bcast("size1_and_new", (3, 1), (3, 2, 4), (0, 2)),
        bcast("identity", (2, 3), (2, 3), (0, 1)),
    ]


def _slice_cases() -> list[Case]:
    p = core_lax.slice_p

    def sl(name: str, shape: Shape, start: Shape, limit: Shape, strides: Shape | None) -> Case:
        return unary(
            f"slice-{name}",
            p,
            lambda x: dlax.slice(x, start, limit, strides),
            lambda x: jlax.slice(x, start, limit, strides),
            shape,
        )

    return [
        sl("contiguous", (5, 6), (1, 2), (4, 6), None),
        sl("strided", (7, 10), (1, 2), (6, 9), (2, 3)),
        # limit - 1 is off the stride: a remainder after the last element taken.
        sl("strided_remainder", (9, 8), (0, 1), (6, 8), (4, 5)),
        sl("empty", (4, 3), (2, 0), (2, 3), (2, 1)),
    ]


def _pad_cases() -> list[Case]:
    p = core_lax.pad_p
    config = ((1, -2, 1), (-1, 2, 2))
    (x0,) = _fixed("pad", (4, 5))
    v0 = np.float64(0.5)
    return [
        Case(
            "pad-operand",
            p,
            lambda x: [dlax.pad(x, v0, config)],
            lambda x: [jlax.pad(x, v0, config)],
            ((4, 5),),
        ),
        Case(
            "pad-padding_value",
            p,
            lambda v: [dlax.pad(x0, v, config)],
            # JAX's own pad transpose fails when only the padding value is
            # linear (it sums the operand's cotangent, None): the same map, spelled
            # as a product with the padding mask.
            lambda v: [v * jlax.pad(np.zeros_like(x0), 1.0, config) + jlax.pad(x0, 0.0, config)],
            ((),),
        ),
        Case(
            "pad-both",
            p,
            lambda x, v: [dlax.pad(x, v, config)],
            lambda x, v: [jlax.pad(x, v, config)],
            ((4, 5), ()),
        ),
        Case(
            "pad-negative_only",
            p,
            lambda x: [dlax.pad(x, v0, ((-1, -1, 0), (0, -2, 0)))],
            lambda x: [jlax.pad(x, v0, ((-1, -1, 0), (0, -2, 0)))],
            ((4, 5),),
        ),
    ]


def _concatenate_cases() -> list[Case]:
    p = core_lax.concatenate_p
    (c,) = _fixed("concatenate", (2, 2))
    return [
        Case(
            "concatenate-several_linear",
            p,
            lambda x, y: [dlax.concatenate([x, c, y, x], 1)],
            lambda x, y: [jlax.concatenate([x, c, y, x], 1)],
            ((2, 3), (2, 1)),
        ),
        Case(
            "concatenate-axis0",
            p,
            lambda x: [dlax.concatenate([c, x], 0)],
            lambda x: [jlax.concatenate([c, x], 0)],
            ((3, 2),),
        ),
    ]


def _dynamic_cases() -> list[Case]:
    ds, dus = core_lax.dynamic_slice_p, core_lax.dynamic_update_slice_p
    (x0,) = _fixed("dus", (5, 6))
    (u0,) = _fixed("dus-update", (2, 3))
    cases = []
    # The second pair of indices is out of bounds: both primitives clamp it.
    for tag, (i, j) in (("in_bounds", (1, 2)), ("clamped", (4, 7))):
        si, sj = np.int64(i), np.int32(j)
        ji, jj = np.int64(i), np.int64(j)
        cases += [
            Case(
                f"dynamic_slice-{tag}",
                ds,
                lambda x, si=si, sj=sj: [dlax.dynamic_slice(x, (si, sj), (2, 3))],
                lambda x, ji=ji, jj=jj: [jlax.dynamic_slice(x, (ji, jj), (2, 3))],
                ((5, 6),),
            ),
            Case(
                f"dynamic_update_slice-operand-{tag}",
                dus,
                lambda x, si=si, sj=sj: [dlax.dynamic_update_slice(x, u0, (si, sj))],
                lambda x, ji=ji, jj=jj: [jlax.dynamic_update_slice(x, u0, (ji, jj))],
                ((5, 6),),
            ),
            Case(
                f"dynamic_update_slice-update-{tag}",
                dus,
                lambda u, si=si, sj=sj: [dlax.dynamic_update_slice(x0, u, (si, sj))],
                lambda u, ji=ji, jj=jj: [jlax.dynamic_update_slice(x0, u, (ji, jj))],
                ((2, 3),),
            ),
            Case(
                f"dynamic_update_slice-both-{tag}",
                dus,
                lambda x, u, si=si, sj=sj: [dlax.dynamic_update_slice(x, u, (si, sj))],
                lambda x, u, ji=ji, jj=jj: [jlax.dynamic_update_slice(x, u, (ji, jj))],
                ((5, 6), (2, 3)),
            ),
        ]
    return cases


DotDims: TypeAlias = tuple[tuple[Shape, Shape], tuple[Shape, Shape]]


def _dot_general_cases() -> list[Case]:
    p = core_lax.dot_general_p
    specs: list[tuple[str, Shape, Shape, DotDims]] = [
        ("matmul", (3, 4), (4, 5), (((1,), (0,)), ((), ()))),
        ("vector", (4,), (4,), (((0,), (0,)), ((), ()))),
        ("outer", (3,), (2,), (((), ()), ((), ()))),
        # Batch axes not leading, contracting axes in a different order on each side.
        ("batch", (2, 3, 4, 5), (2, 5, 6, 3), (((3, 1), (1, 3)), ((0,), (0,)))),
        ("batch_inner", (3, 4, 2), (4, 2, 5), (((1,), (0,)), ((2,), (1,)))),
        ("two_batch", (2, 4, 3, 5), (3, 4, 2, 6), (((1,), (1,)), ((0, 2), (2, 0)))),
    ]
    cases = []
    for name, ls, rs, dims in specs:
        lhs0, rhs0 = _fixed(f"dot-{name}", ls, rs)
        cases += [
            Case(
                f"dot_general-{name}-lhs",
                p,
                lambda x, r=rhs0, dims=dims: [dlax.dot_general(x, r, dims)],
                lambda x, r=rhs0, dims=dims: [jlax.dot_general(x, r, dims)],
                (ls,),
            ),
            Case(
                f"dot_general-{name}-rhs",
                p,
                lambda y, l=lhs0, dims=dims: [dlax.dot_general(l, y, dims)],
                lambda y, l=lhs0, dims=dims: [jlax.dot_general(l, y, dims)],
                (rs,),
            ),
        ]
    return cases


def _jit_cases() -> list[Case]:
    (c,) = _fixed("jit", (3, 4))

    def inner(a: Any) -> Any:
        return dlax.reduce_sum(dlax.mul(a, c), 1)

    def outer(x: Any, y: Any) -> Any:
        s = didax.jit(inner)(x)
        return (dlax.add(dlax.mul(s, 2.0), y), dlax.neg(x))

    def j_inner(a: Any) -> Any:
        return jlax.reduce_sum(a * c, (1,))

    def j_outer(x: Any, y: Any) -> Any:
        s = jax.jit(j_inner)(x)
        return (s * 2.0 + y, -x)

    def with_defined(x: Any, w: Any) -> Any:
        return dlax.mul(x, w)

    return [
        Case(
            "jit-nested",
            jit_p,
            lambda x, y: list(didax.jit(outer)(x, y)),
            lambda x, y: list(jax.jit(j_outer)(x, y)),
            ((3, 4), (3,)),
        ),
        # A linear operand the jitted function ignores gets a symbolic zero.
        Case(
            "jit-unused_linear_operand",
            jit_p,
            lambda x, y: [didax.jit(lambda a, b: dlax.neg(a))(x, y)],
            lambda x, y: [jax.jit(lambda a, b: -a)(x, y)],
            ((3, 4), (2,)),
        ),
        # The jitted function takes a defined operand (a constant of the linear map).
        Case(
            "jit-defined_operand",
            jit_p,
            lambda x: [didax.jit(with_defined)(x, c)],
            lambda x: [jax.jit(lambda x, w: x * w)(x, c)],
            ((3, 4),),
        ),
    ]


def _structural_unary() -> list[Case]:
    L = core_lax
    return [
        unary("neg", L.neg_p, dlax.neg, jlax.neg, (2, 3)),
        unary(
            "reduce_sum-one_axis",
            L.reduce_sum_p,
            lambda x: dlax.reduce_sum(x, (1,)),
            lambda x: jlax.reduce_sum(x, (1,)),
            (2, 3),
        ),
        unary(
            "reduce_sum-two_axes",
            L.reduce_sum_p,
            lambda x: dlax.reduce_sum(x, (0, 2)),
            lambda x: jlax.reduce_sum(x, (0, 2)),
            (2, 3, 4),
        ),
        unary(
            "reduce_sum-all",
            L.reduce_sum_p,
            lambda x: dlax.reduce_sum(x, (0, 1)),
            lambda x: jlax.reduce_sum(x, (0, 1)),
            (2, 3),
        ),
        unary(
            "reshape",
            L.reshape_p,
            lambda x: dlax.reshape(x, (3, 2)),
            lambda x: jlax.reshape(x, (3, 2)),
            (2, 3),
        ),
        unary(
            "reshape-merge",
            L.reshape_p,
            lambda x: dlax.reshape(x, (6, 4)),
            lambda x: jlax.reshape(x, (6, 4)),
            (2, 3, 4),
        ),
        unary(
            "transpose",
            L.transpose_p,
            lambda x: dlax.transpose(x, (2, 0, 1)),
            lambda x: jlax.transpose(x, (2, 0, 1)),
            (2, 3, 4),
        ),
        unary(
            "squeeze",
            L.squeeze_p,
            lambda x: dlax.squeeze(x, (1,)),
            lambda x: jlax.squeeze(x, (1,)),
            (2, 1, 3),
        ),
        unary(
            "expand_dims",
            L.expand_dims_p,
            lambda x: dlax.expand_dims(x, (0, 2)),
            lambda x: jlax.expand_dims(x, (0, 2)),
            (2, 3),
        ),
        unary(
            "convert-f64_to_f32",
            L.convert_element_type_p,
            lambda x: dlax.convert_element_type(x, F32),
            lambda x: jlax.convert_element_type(x, F32),
            (2, 3),
            tol=1e-6,
        ),
        unary(
            "convert-f32_to_f64",
            L.convert_element_type_p,
            lambda x: dlax.convert_element_type(x, F64),
            lambda x: jlax.convert_element_type(x, F64),
            (2, 3),
            F32,
            tol=1e-6,
        ),
        unary(
            "cumsum", L.cumsum_p, lambda x: dlax.cumsum(x, 1), lambda x: jlax.cumsum(x, 1), (3, 4)
        ),
        unary(
            "cumsum-reverse",
            L.cumsum_p,
            lambda x: dlax.cumsum(x, 0, reverse=True),
            lambda x: jlax.cumsum(x, 0, reverse=True),
            (3, 4),
        ),
        unary(
            "rev", L.rev_p, lambda x: dlax.rev(x, (0, 2)), lambda x: jlax.rev(x, (0, 2)), (2, 3, 4)
        ),
        # Complex numbers' parts, transposed without conjugation as JAX's (with
        # full complex cotangents in tests/api/test_complex.py).
        unary("real", L.real_p, dlax.real, jlax.real, (2, 3), C128),
        unary("imag", L.imag_p, dlax.imag, jlax.imag, (2, 3), C128),
        unary("conj", L.conj_p, dlax.conj, jlax.conj, (2, 3), C128),
        unary("conj-of-real", L.conj_p, dlax.conj, jlax.conj, (2, 3)),
        Case(
            "complex",
            L.complex_p,
            lambda x, y: [dlax.complex(x, y)],
            lambda x, y: [jlax.complex(x, y)],
            ((2, 3), (2, 3)),
        ),
    ]


def _program_cases() -> list[Case]:
    """Whole programs: repeated inputs, outputs that are inputs, forward-computed constants."""
    (c,) = _fixed("programs", (3,))
    L = core_lax
    return [
        Case(
            "program-input_used_twice",
            L.add_p,
            lambda x: [dlax.add(dlax.mul(x, c), x)],
            lambda x: [x * c + x],
            ((3,),),
        ),
        Case(
            "program-same_operand_twice",
            L.add_p,
            lambda x: [dlax.add(x, x)],
            lambda x: [x + x],
            ((3,),),
        ),
        Case(
            "program-output_is_input",
            L.add_p,
            lambda x, y: [x, dlax.add(x, y), x],
            lambda x, y: [x, x + y, x],
            ((3,), (3,)),
        ),
        Case(
            "program-unused_input",
            L.neg_p,
            lambda x, y: [dlax.neg(x)],
            lambda x, y: [-x],
            ((3,), (2,)),
        ),
        # sin(c) has no linear input: it is evaluated forward.
        Case(
            "program-forward_constant",
            L.mul_p,
            lambda x: [dlax.mul(x, dlax.sin(c))],
            lambda x: [x * jlax.sin(c)],
            ((3,),),
        ),
    ]


CASES: Final[list[Case]] = [
    *binary_cases("add", core_lax.add_p, dlax.add, jlax.add, (2, 3)),
    *binary_cases("sub", core_lax.sub_p, dlax.sub, jlax.sub, (2, 3)),
    *binary_cases("mul", core_lax.mul_p, dlax.mul, jlax.mul, (2, 3)),
    *binary_cases("div", core_lax.div_p, dlax.div, jlax.div, (2, 3)),
    *_select_cases(),
    *_structural_unary(),
    *_broadcast_cases(),
    *_slice_cases(),
    *_pad_cases(),
    *_concatenate_cases(),
    *_dynamic_cases(),
    *_dot_general_cases(),
    *_jit_cases(),
    *_program_cases(),
]


def _normal(rng: np.random.Generator, shape: Shape, dtype: np.dtype[Any]) -> Array:
    if dtype.kind == "c":
        return np.asarray(rng.standard_normal(shape) + 1j * rng.standard_normal(shape), dtype)
    return np.asarray(rng.standard_normal(shape), dtype)


def _pair(a: Array, b: Array) -> float:
    """JAX's pairing of cotangents with tangents: Re(sum(a * b)), no conjugation."""
    return float(np.real(np.sum(a.astype(np.complex128) * b.astype(np.complex128))))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_transpose(case: Case) -> None:
    rng = _rng(case.id)
    avals = [ShapedArray(s, case.dtype) for s in case.shapes]
    f_t = linear_transpose_flat(case.fun, avals)
    v = [_normal(rng, s, case.dtype) for s in case.shapes]
    # J v, also for the affine cases (a fixed operand of add, pad's fixed padding value).
    at_zero = [np.asarray(o) for o in case.fun(*(np.zeros_like(x) for x in v))]
    jv = [np.asarray(o) - z for o, z in zip(case.fun(*v), at_zero, strict=True)]
    u = [_normal(rng, o.shape, o.dtype) for o in jv]
    jtu = [_dense(ct) for ct in f_t(*u)]
    tol = case.tol

    for ct, a in zip(jtu, avals, strict=True):
        assert ct.shape == a.shape
        assert ct.dtype == a.dtype

    # <u, J v> == <J^T u, v>
    lhs = sum(_pair(ui, ji) for ui, ji in zip(u, jv, strict=True))
    rhs = sum(_pair(ci, vi) for ci, vi in zip(jtu, v, strict=True))
    np.testing.assert_allclose(lhs, rhs, rtol=tol, atol=tol)

    # JAX's transpose of the same function.
    _, f_vjp = jax.vjp(lambda *xs: tuple(case.oracle(*xs)), *v)
    for ours, theirs in zip(jtu, f_vjp(tuple(u)), strict=True):
        np.testing.assert_allclose(ours, np.asarray(theirs), rtol=tol, atol=tol)
    theirs_t = jax.linear_transpose(lambda *xs: tuple(case.oracle(*xs)), *v)(tuple(u))
    for ours, theirs in zip(jtu, theirs_t, strict=True):
        np.testing.assert_allclose(ours, np.asarray(theirs), rtol=tol, atol=tol)

    # The staged backward pass is well typed and computes the same, eagerly and compiled.
    def staged(*cts: Any) -> list[Any]:
        return [instantiate_zeros(ct) for ct in f_t(*cts)]

    closed = trace_to_jaxpr(staged, [ShapedArray(o.shape, o.dtype) for o in jv])
    typecheck_jaxpr(closed)
    _assert_jaxprs_typecheck(closed.jaxpr)
    for ours, again in zip(jtu, eval_closed_jaxpr(closed, u), strict=True):
        np.testing.assert_allclose(ours, np.asarray(again), rtol=tol, atol=tol)
    for ours, compiled in zip(jtu, didax.jit(staged)(*u), strict=True):
        np.testing.assert_allclose(ours, np.asarray(compiled), rtol=tol, atol=tol)


def _assert_jaxprs_typecheck(jaxpr: Jaxpr) -> None:
    """Typechecks the jaxprs nested in jit calls too."""
    for eqn in jaxpr.eqns:
        for p in eqn.params.values():
            if isinstance(p, ClosedJaxpr):
                typecheck_jaxpr(p)
                _assert_jaxprs_typecheck(p.jaxpr)


# --- coverage ------------------------------------------------------------------

LINEAR_PRIMITIVES: Final[tuple[Primitive, ...]] = (
    core_lax.add_p,
    core_lax.sub_p,
    core_lax.neg_p,
    core_lax.mul_p,
    core_lax.div_p,
    core_lax.reduce_sum_p,
    core_lax.broadcast_in_dim_p,
    core_lax.reshape_p,
    core_lax.transpose_p,
    core_lax.squeeze_p,
    core_lax.expand_dims_p,
    core_lax.convert_element_type_p,
    core_lax.select_p,
    core_lax.slice_p,
    core_lax.pad_p,
    core_lax.concatenate_p,
    core_lax.dynamic_slice_p,
    core_lax.dynamic_update_slice_p,
    core_lax.cumsum_p,
    core_lax.rev_p,
    core_lax.dot_general_p,
    *core_lax.COMPLEX_PARTS,
    jit_p,
)


def test_every_linear_primitive_has_a_rule_and_a_case() -> None:
    missing = [p.name for p in LINEAR_PRIMITIVES if p not in TRANSPOSE_RULES]
    assert not missing, f"no transpose rule: {missing}"
    untested = [p.name for p in LINEAR_PRIMITIVES if p not in {c.prim for c in CASES}]
    assert not untested, f"no transpose case: {untested}"
    # And no rule for a primitive that is never linear (stop_gradient is not the identity here).
    assert core_lax.stop_gradient_p not in TRANSPOSE_RULES
    # (Primitives that tests or users define, e.g. through didax.extend, are not ours.)
    ours = {p for p in TRANSPOSE_RULES if p in core_lax.STANDARD_PRIMITIVES or p is jit_p}
    assert ours == set(LINEAR_PRIMITIVES)


# --- symbolic zeros, program size ----------------------------------------------


def _prims(closed: ClosedJaxpr | Jaxpr) -> list[str]:
    jaxpr = closed.jaxpr if isinstance(closed, ClosedJaxpr) else closed
    return [e.primitive.name for e in jaxpr.eqns]


def test_zero_cotangent_creates_no_equations() -> None:
    (c,) = _fixed("zero-ct", (3,))
    a3 = ShapedArray((3,), F64)
    f_t = linear_transpose_flat(lambda x: [dlax.mul(x, c), dlax.neg(x)], [a3])
    closed = trace_to_jaxpr(lambda u: f_t(u, Zero(a3)), [a3])
    typecheck_jaxpr(closed)
    assert _prims(closed) == ["mul"]  # no neg, no broadcast of zeros, no add
    assert f_t(Zero(a3), Zero(a3)) == [Zero(a3)]


def test_zero_cotangent_through_jit() -> None:
    (c,) = _fixed("zero-ct-jit", (3,))
    a3 = ShapedArray((3,), F64)
    g = didax.jit(lambda x: (dlax.mul(x, c), dlax.neg(x), dlax.reduce_sum(x, 0)))
    f_t = linear_transpose_flat(lambda x: list(g(x)), [a3])
    scalar_zero = Zero(ShapedArray((), F64))
    closed = trace_to_jaxpr(lambda u: f_t(Zero(a3), u, scalar_zero), [a3])
    typecheck_jaxpr(closed)
    (eqn,) = [e for e in closed.jaxpr.eqns if e.primitive is jit_p]
    inner = eqn.params["jaxpr"]
    assert isinstance(inner, Jaxpr)
    # Inputs: the defined constant c, and the one nonzero cotangent.
    assert len(inner.in_binders) == 2
    assert _prims(inner) == ["neg"]
    u = _rng("u").standard_normal(3)
    (ct,) = f_t(Zero(a3), u, scalar_zero)
    np.testing.assert_allclose(np.asarray(ct), -u)
    # All cotangents zero: nothing is bound at all.
    result: list[Any] = []

    def all_zero() -> list[Any]:
        result.extend(f_t(Zero(a3), Zero(a3), scalar_zero))
        return []

    assert trace_to_jaxpr(all_zero, []).jaxpr.eqns == ()
    assert result == [Zero(a3)]


def test_input_without_cotangent_is_zero() -> None:
    a3, a2 = ShapedArray((3,), F64), ShapedArray((2,), F64)
    f_t = linear_transpose_flat(lambda x, y: [dlax.neg(x)], [a3, a2])
    cts = f_t(np.ones(3))
    np.testing.assert_array_equal(cts[0], -np.ones(3))
    assert cts[1] == Zero(a2)


def test_literal_and_defined_outputs_get_no_cotangent() -> None:
    (c,) = _fixed("literal-out", (3,))
    a3 = ShapedArray((3,), F64)
    f_t = linear_transpose_flat(lambda x: [dlax.neg(x), 2.0, dlax.sin(c)], [a3])
    (ct,) = f_t(np.ones(3), np.float64(5.0), np.ones(3))
    np.testing.assert_array_equal(ct, -np.ones(3))


def test_dead_forward_equations_are_not_evaluated() -> None:
    (c,) = _fixed("dead", (3,))
    a3 = ShapedArray((3,), F64)
    # cos(c) is a defined output: the backward pass does not need it.
    f_t = linear_transpose_flat(lambda x: [dlax.mul(x, dlax.sin(c)), dlax.cos(c)], [a3])
    closed = trace_to_jaxpr(lambda u: f_t(u, np.zeros(3)), [a3])
    assert sorted(_prims(closed)) == ["mul", "sin"]


@pytest.mark.parametrize("via_jit", [False, True], ids=["plain", "jit"])
def test_transpose_size_grows_linearly(via_jit: bool) -> None:
    (a,) = _fixed("chain", (4,))
    a4 = ShapedArray((4,), F64)

    def chain(depth: int) -> Callable[[Any], list[Any]]:
        def f(z: Any) -> list[Any]:
            for _ in range(depth):
                z = dlax.mul(a, dlax.add(z, z))
            return [z]

        return didax.jit(f) if via_jit else f

    def count(jaxpr: Jaxpr) -> int:
        n = 0
        for e in jaxpr.eqns:
            n += 1
            inner = e.params.get("jaxpr")
            if isinstance(inner, ClosedJaxpr):
                n += count(inner.jaxpr)
        return n

    sizes = {}
    for depth in (4, 8, 16):
        f_t = linear_transpose_flat(chain(depth), [a4])
        sizes[depth] = count(trace_to_jaxpr(lambda u, f_t=f_t: f_t(u), [a4]).jaxpr)
    assert sizes[16] - sizes[8] == 2 * (sizes[8] - sizes[4])
    assert sizes[16] <= 2 * 16 + 4
    # And the values: d/dz of the chain is prod(2 a) per level.
    u = _rng("chain-u").standard_normal(4)
    (ct,) = linear_transpose_flat(chain(8), [a4])(u)
    np.testing.assert_allclose(np.asarray(ct), u * (2 * a) ** 8, rtol=1e-12)


# --- the jit call --------------------------------------------------------------


def test_transpose_jaxpr_is_cached() -> None:
    (c,) = _fixed("cache", (3,))
    a3 = ShapedArray((3,), F64)
    body = trace_to_jaxpr(lambda x, w: [dlax.mul(x, w)], [a3, a3])
    jaxpr_transforms._TRANSPOSE.clear()
    first, nz = transpose_jaxpr(body.jaxpr, [True, False], [True])
    assert nz == (True,)
    assert first.type.in_types == (a3, a3)
    # An equal program (new variables) hits the cache.
    again = trace_to_jaxpr(lambda x, w: [dlax.mul(x, w)], [a3, a3])
    second, _ = transpose_jaxpr(again.jaxpr, [True, False], [True])
    assert second is first
    info = jaxpr_transforms._TRANSPOSE.info()
    assert (info.hits, info.misses) == (1, 1)
    # Other linear inputs are another program.
    third, _ = transpose_jaxpr(body.jaxpr, [False, True], [True])
    assert third is not first
    # Calling a transposed jit twice builds nothing new.
    g = didax.jit(lambda x: dlax.mul(x, c))
    f_t = linear_transpose_flat(lambda x: [g(x)], [a3])
    f_t(np.ones(3))
    misses = jaxpr_transforms._TRANSPOSE.info().misses
    f_t(np.ones(3))
    assert jaxpr_transforms._TRANSPOSE.info().misses == misses


def test_jit_bodies_are_constant_free() -> None:
    # A jit equation's body is a Jaxpr: its constants are explicit operands.
    closed = didax.make_jaxpr(didax.jit(lambda x: dlax.mul(x, np.arange(3.0))))(np.ones(3))
    (eqn,) = closed.eqns
    assert isinstance(eqn.params["jaxpr"], Jaxpr)
    assert len(eqn.inputs) == 2  # the hoisted constant, then x


# --- composition: the backward pass under other transformations -------------------


def _matvec_transpose(via_jit: bool) -> tuple[Callable[..., list[Any]], Array]:
    (m,) = _fixed("compose", (3, 4))

    def matvec(x: Any) -> Any:
        return dlax.dot(m, x)

    fun = didax.jit(matvec) if via_jit else matvec
    f_t = linear_transpose_flat(lambda x: [fun(x)], [ShapedArray((4,), F64)])
    return f_t, m


VIA_JIT: Final = pytest.mark.parametrize("via_jit", [False, True], ids=["plain", "jit"])


@VIA_JIT
def test_backward_pass_under_jit(via_jit: bool) -> None:
    f_t, m = _matvec_transpose(via_jit)
    u = _rng("jit-u").standard_normal(3)
    (out,) = didax.jit(f_t)(u)
    np.testing.assert_allclose(np.asarray(out), m.T @ u, rtol=1e-12)


@VIA_JIT
def test_backward_pass_under_vmap(via_jit: bool) -> None:
    f_t, m = _matvec_transpose(via_jit)
    us = _rng("vmap-u").standard_normal((5, 3))
    (out,) = didax.vmap(f_t)(us)
    np.testing.assert_allclose(np.asarray(out), us @ m, rtol=1e-12)


def test_backward_pass_under_jvp() -> None:
    # The backward pass of a function with a traced constant, differentiated in
    # that constant: what a hessian (jvp of grad) needs.
    a3 = ShapedArray((3,), F64)
    w0 = _rng("jvp-w").standard_normal(3)
    u = _rng("jvp-u").standard_normal(3)
    dw = _rng("jvp-dw").standard_normal(3)

    def ct_of(w: Any) -> Any:
        f_t = linear_transpose_flat(lambda x: [dlax.mul(dlax.sin(w), x)], [a3])
        return f_t(u)[0]

    out, t_out = didax.jvp(ct_of, (w0,), (dw,))
    np.testing.assert_allclose(np.asarray(out), np.sin(w0) * u, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(t_out), np.cos(w0) * dw * u, rtol=1e-12)


def test_backward_pass_with_a_traced_defined_input() -> None:
    a3 = ShapedArray((3,), F64)
    closed = trace_to_jaxpr(lambda x, w: [dlax.mul(x, w)], [a3, a3])
    u = _rng("traced-u").standard_normal(3)

    def ct_of(w: Any) -> Any:
        return backward_pass(closed.jaxpr, [UndefinedPrimal(a3), w], [u])[0]

    w0 = _rng("traced-w").standard_normal(3)
    np.testing.assert_allclose(np.asarray(didax.jit(ct_of)(w0)), w0 * u, rtol=1e-12)
    _, t = didax.jvp(ct_of, (w0,), (np.ones(3),))
    np.testing.assert_allclose(np.asarray(t), u, rtol=1e-12)


# --- errors ----------------------------------------------------------------------


def test_missing_rule_names_primitive_and_transpose() -> None:
    a3 = ShapedArray((3,), F64)
    f_t = linear_transpose_flat(lambda x: [dlax.sin(x)], [a3])
    with pytest.raises(NotImplementedError, match=r"'sin'.*transpose"):
        f_t(np.ones(3))


@pytest.mark.parametrize(
    ("name", "fun"),
    [
        ("mul", lambda x: [dlax.mul(x, x)]),
        ("div", lambda x: [dlax.div(np.ones(3), x)]),
        ("dot_general", lambda x: [dlax.dot(x, x)]),
    ],
    ids=["mul", "div", "dot_general"],
)
def test_nonlinear_use_is_an_error(name: str, fun: Callable[[Any], list[Any]]) -> None:
    f_t = linear_transpose_flat(fun, [ShapedArray((3,), F64)])
    out_shape = () if name == "dot_general" else (3,)
    with pytest.raises(NonlinearError, match=f"transpose of {name}"):
        f_t(np.ones(out_shape))


def test_python_scalar_cotangent_takes_the_output_dtype() -> None:
    a = ShapedArray((), F32)
    f_t = linear_transpose_flat(lambda x: [dlax.mul(x, np.float32(3.0))], [a])
    (ct,) = f_t(2.0)
    assert np.asarray(ct).dtype == F32
    np.testing.assert_allclose(np.asarray(ct), 6.0)
    (same,) = linear_transpose_flat(lambda x: [x], [a])(2.0)
    assert np.asarray(same).dtype == F32


def test_argument_counts_are_checked() -> None:
    a3 = ShapedArray((3,), F64)
    closed = trace_to_jaxpr(lambda x: [dlax.neg(x)], [a3])
    with pytest.raises(ValueError, match="2 arguments for 1 inputs"):
        backward_pass(closed.jaxpr, [UndefinedPrimal(a3), np.ones(3)], [np.ones(3)])
    with pytest.raises(ValueError, match="2 cotangents for 1 outputs"):
        backward_pass(closed.jaxpr, [UndefinedPrimal(a3)], [np.ones(3), np.ones(3)])


def test_undefined_primal_is_a_value() -> None:
    a = ShapedArray((2,), F64)
    assert UndefinedPrimal(a) == UndefinedPrimal(ShapedArray((2,), F64))
    assert hash(UndefinedPrimal(a)) == hash(UndefinedPrimal(a))
