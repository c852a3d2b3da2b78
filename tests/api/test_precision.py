"""Matmul precision: ``lax.Precision``, ``dot_general``'s ``precision`` and
``preferred_element_type`` params, and ``jax_default_matmul_precision``, against JAX.

For each surface (``lax.dot_general``/``lax.dot``, the ``didax.numpy``
products, the linear-algebra rules), the ``dot_general`` equations of
didax's jaxpr carry the params JAX's jaxpr of the same call carries
(compared as multisets of ``(precision, preferred_element_type)``, since
transformations may order the products differently), the StableHLO
``dot_general`` ops read as JAX's lowering of the same program, and the
values and result types equal JAX's (on a CPU precision changes no
number). Then the params through jvp, vjp, vmap, linearize, DCE,
checkpoint and flops; the config option, its context manager and
environment variable, and the trace cache keyed on it; refused values;
``preferred_element_type``'s typing and values (int8 to int32, bfloat16
to float32, ...), eagerly (NumPy's impl) and under ``jit`` (XLA).
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any, Final

import jax
import jax.numpy as jnp
import jax.scipy.linalg  # (for the m.scipy.linalg of the cases below)
import ml_dtypes
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
import didax.scipy.linalg as dsl
from didax import lax
from didax.errors import DTypeError
from didax.ir.passes import dce_jaxpr

P = lax.Precision
JP = jax.lax.Precision
RNG: Final = np.random.default_rng(26)
DIMS: Final = (((1,), (0,)), ((), ()))
BF16: Final = np.dtype(ml_dtypes.bfloat16)

Params = tuple[Any, Any]  # (precision names or None, preferred dtype name or None)


def _mat(*shape: int, dtype: Any = np.float64) -> Any:
    return RNG.normal(size=shape).astype(dtype)


def _names(precision: Any) -> Any:
    return None if precision is None else tuple(p.name for p in precision)


def _dtype_name(dtype: Any) -> Any:
    return None if dtype is None else np.dtype(dtype).name


def _didax_dots(closed: Any) -> collections.Counter[Params]:
    """The (precision, preferred type) of every dot_general of a didax jaxpr, nested ones too."""
    found: collections.Counter[Params] = collections.Counter()

    def walk(jaxpr: Any) -> None:
        jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
        for eqn in jaxpr.eqns:
            if eqn.primitive.name == "dot_general":
                p = eqn.params
                found[_names(p["precision"]), _dtype_name(p["preferred_element_type"])] += 1
            for v in eqn.params.values():
                for w in v if isinstance(v, tuple) else (v,):
                    if hasattr(w, "eqns") or hasattr(getattr(w, "jaxpr", None), "eqns"):
                        walk(w)

    walk(closed)
    return found


def _jax_dots(closed: Any) -> collections.Counter[Params]:
    """The same of a JAX jaxpr (its sub-jaxprs: pjit, custom_jvp_call, cond, scan, ...)."""
    found: collections.Counter[Params] = collections.Counter()

    def walk(jaxpr: Any) -> None:
        jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
        for eqn in jaxpr.eqns:
            if eqn.primitive.name == "dot_general":
                p = eqn.params
                found[_names(p["precision"]), _dtype_name(p["preferred_element_type"])] += 1
            for v in eqn.params.values():
                for w in v if isinstance(v, (tuple, list)) else (v,):
                    if hasattr(w, "eqns") or hasattr(getattr(w, "jaxpr", None), "eqns"):
                        walk(w)

    walk(closed)
    return found


def _same_dots(dfun: Callable[..., Any], jfun: Callable[..., Any], *args: Any) -> None:
    """didax's and JAX's jaxprs of the same function have dots of the same params."""
    ours = _didax_dots(dx.make_jaxpr(dfun)(*args))
    theirs = _jax_dots(jax.make_jaxpr(jfun)(*args))
    assert ours, "no dot_general in didax's jaxpr"
    assert ours == theirs


def _hlo_dots(text: str) -> list[str]:
    """The StableHLO dot_general ops of a module, SSA names blanked."""
    return [
        re.sub(r"%[\w#]+", "%", line.strip().split("= ", 1)[1])
        for line in text.splitlines()
        if "stablehlo.dot_general" in line
    ]


def _same_values(ours: Any, theirs: Any) -> None:
    assert ours.dtype == theirs.dtype
    np.testing.assert_allclose(
        np.asarray(ours, np.float64) if ours.dtype == BF16 else np.asarray(ours),
        np.asarray(theirs, np.float64) if theirs.dtype == BF16 else np.asarray(theirs),
        rtol=1e-6 if ours.dtype.itemsize >= 4 else 1e-2,
    )


@pytest.fixture
def matmul_precision() -> Iterator[Callable[[Any], None]]:
    """Sets jax_default_matmul_precision in both libraries; restores None after the test."""

    def set_both(value: Any) -> None:
        dx.config.update("jax_default_matmul_precision", value)
        jax.config.update("jax_default_matmul_precision", value)

    yield set_both
    set_both(None)


# --- lax.Precision -------------------------------------------------------------------------


ALIASES: Final = (
    "default",
    "fastest",
    "bfloat16",
    "high",
    "bfloat16_3x",
    "tensorfloat32",
    "highest",
    "float32",
    None,
)


def test_precision_members_as_jax() -> None:
    assert [(p.name, p.value) for p in P] == [(p.name, p.value) for p in JP]
    for p, jp in zip(P, JP, strict=True):
        assert str(p) == str(jp)
        assert repr(p) == repr(jp)


@pytest.mark.parametrize("alias", ALIASES)
def test_precision_aliases_as_jax(alias: Any) -> None:
    assert P(alias).name == JP(alias).name


def test_precision_refuses_other_values() -> None:
    for bad in ("bogus", "HIGHEST", 7):
        with pytest.raises(ValueError, match="is not a valid Precision"):
            P(bad)
        with pytest.raises(ValueError, match="is not a valid Precision"):
            JP(bad)


# --- canonicalization: lax.dot_general and lax.dot -------------------------------------------

PRECISIONS: Final = (
    None,
    "highest",
    "float32",
    "tensorfloat32",
    "fastest",
    "bfloat16_3x",
    ("high", "highest"),
    ["default", "float32"],
)


def _both(precision: Any) -> tuple[Any, Any]:
    """``precision`` in didax's and JAX's terms (their enum members where it has them)."""
    if isinstance(precision, P):
        return precision, getattr(JP, precision.name)
    if isinstance(precision, (list, tuple)) and all(isinstance(p, P) for p in precision):
        return tuple(precision), tuple(getattr(JP, p.name) for p in precision)
    return precision, precision


@pytest.mark.parametrize(
    "precision",
    [*PRECISIONS, P.HIGH, (P.HIGH, P.HIGHEST), [P.DEFAULT, P.HIGHEST]],
    ids=repr,
)
def test_lax_dot_general_precision_param_as_jax(precision: Any) -> None:
    ours, theirs = _both(precision)
    a, b = _mat(2, 3), _mat(3, 4)
    _same_dots(
        lambda a, b: lax.dot_general(a, b, DIMS, precision=ours),
        lambda a, b: jax.lax.dot_general(a, b, DIMS, precision=theirs),
        a,
        b,
    )
    _same_dots(
        lambda a, b: lax.dot(a, b, precision=ours),
        lambda a, b: jax.lax.dot(a, b, precision=theirs),
        a,
        b,
    )


@pytest.mark.parametrize("bad", [1, "bogus", ("high", "bogus"), (P.HIGH, "high"), (None, None)])
def test_invalid_precision_is_refused_as_by_jax(bad: Any) -> None:
    a = _mat(2, 2)
    with pytest.raises(ValueError, match="Precision argument must be one of") as ours:
        lax.dot(a, a, precision=bad)
    jax_bad: Any = (JP.HIGH, "high") if isinstance(bad, tuple) and isinstance(bad[0], P) else bad
    with pytest.raises(ValueError, match="Precision argument must be one of") as theirs:
        jax.lax.dot(a, a, precision=jax_bad)
    # The same strings listed, the same value named (JAX lists its dot algorithms too).
    assert str(ours.value).splitlines()[-1] == str(theirs.value).splitlines()[-1]
    assert str(ours.value).splitlines()[2] == str(theirs.value).splitlines()[2]


def test_dot_algorithm_presets_are_refused_by_the_option() -> None:
    # dot_general takes them (tests/api/test_lax_structure.py); the option does not.
    with pytest.raises(NotImplementedError, match="dot algorithm presets"):
        dx.config.update("jax_default_matmul_precision", "F32_F32_F32")


def test_jaxpr_prints_the_params_as_jax() -> None:
    a, b = _mat(2, 3, dtype=np.float32), _mat(3, 4, dtype=np.float32)
    plain = str(dx.make_jaxpr(lambda a, b: lax.dot(a, b))(a, b))
    assert "precision" not in plain
    assert "preferred_element_type" not in plain
    text = str(dx.make_jaxpr(lambda a, b: dnp.dot(a, b, precision="highest"))(a, b))
    jax_text = str(jax.make_jaxpr(lambda a, b: jnp.dot(a, b, precision="highest"))(a, b))
    for needle in (
        "precision=(Precision.HIGHEST, Precision.HIGHEST)",
        "preferred_element_type=float32",
    ):
        assert needle in text
        assert needle in jax_text
    # didax keeps its own tuple spelling of the dimension numbers.
    assert "dimension_numbers=(((1,), (0,)), ((), ()))" in text


# --- preferred_element_type: typing ----------------------------------------------------------

PREFERRED_CASES: Final = [
    ("int8", "int32"),
    ("int8", "int16"),
    ("int8", "float32"),
    ("int8", "uint32"),
    ("uint8", "int32"),
    ("int32", "int8"),
    ("int32", "uint8"),
    ("uint32", "int8"),
    ("int32", "float32"),
    ("int32", "int64"),
    ("float32", "bfloat16"),
    ("float32", "float16"),
    ("float32", "float64"),
    ("float32", "int32"),
    ("float32", "complex64"),
    ("bfloat16", "float32"),
    ("bfloat16", "float16"),
    ("float16", "float32"),
    ("complex64", "float32"),
    ("complex64", "complex128"),
    ("complex128", "float32"),
    ("float64", "float32"),
]


@pytest.mark.parametrize(("operands", "preferred"), PREFERRED_CASES)
def test_preferred_element_type_typing_as_jax(operands: str, preferred: str) -> None:
    x = np.ones((2, 3), np.dtype(operands) if operands != "bfloat16" else BF16)
    pdt = np.dtype(preferred) if preferred != "bfloat16" else BF16

    def ours(x: Any) -> Any:
        return lax.dot_general(x, x, (((1,), (1,)), ((), ())), preferred_element_type=pdt)

    def theirs(x: Any) -> Any:
        return jax.lax.dot_general(x, x, (((1,), (1,)), ((), ())), preferred_element_type=pdt)

    try:
        expected = jax.eval_shape(theirs, x)
    except TypeError as e:
        jax_error: str | None = str(e)
    else:
        jax_error = None
    if jax_error is not None:
        assert "narrower" in jax_error
        with pytest.raises(DTypeError) as info:
            dx.eval_shape(ours, x)
        message = str(info.value)
        assert "must not be narrower than the original type" in message
        assert message.startswith("dot_general applied to operands of types")
        assert __file__ in message  # the user's line
        return
    got = dx.eval_shape(ours, x)
    assert got.dtype == expected.dtype
    assert got.weak_type == expected.weak_type


# --- preferred_element_type: values, eagerly and under jit --------------------------------------


def _operands(dtype: Any, preferred: Any) -> tuple[Any, Any]:
    """Operands on which the ways of computing a typed product disagree."""
    if np.dtype(dtype).kind in "iu":
        # Products and sums that overflow the operands' type.
        a = np.array([[100, -3, 7], [-100, 50, 2]]).astype(dtype)
        b = np.array([[100, 1], [100, -1], [3, 2]]).astype(dtype)
        return a, b
    if np.dtype(preferred).kind in "iu":
        return np.array([[0.75, 0.75, 1.5]], dtype), np.array([[1.0], [1.0], [1.0]], dtype)
    # 256 + 1: exact in float32 and float16, not in bfloat16 (rounded once).
    return np.array([[256.0, 1.0, 0.0]], dtype), np.array([[1.0], [1.0], [5.0]], dtype)


VALUE_CASES: Final = [
    ("int8", "int32"),
    ("int8", "int16"),
    ("int8", "uint32"),
    ("uint8", "int32"),
    ("int8", "float32"),
    ("int32", "float32"),
    ("bfloat16", "float32"),
    ("bfloat16", "float16"),
    ("float16", "float32"),
    ("float16", "bfloat16"),
    ("float32", "bfloat16"),
    ("float32", "int32"),
    ("float32", "float64"),
    ("float32", "complex64"),
    ("int8", None),
]


def _dt(name: str | None) -> Any:
    if name is None:
        return None
    return BF16 if name == "bfloat16" else np.dtype(name)


@pytest.mark.parametrize(("operands", "preferred"), VALUE_CASES)
def test_preferred_element_type_values_as_jax(operands: str, preferred: str | None) -> None:
    a, b = _operands(_dt(operands), _dt(preferred) or _dt(operands))
    pdt = _dt(preferred)

    def ours(a: Any, b: Any) -> Any:
        return lax.dot(a, b, preferred_element_type=pdt)

    expected = np.asarray(jax.jit(lambda a, b: jax.lax.dot(a, b, preferred_element_type=pdt))(a, b))
    eager, jitted = np.asarray(ours(a, b)), np.asarray(dx.jit(ours)(a, b))
    for got in (eager, jitted):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


@pytest.mark.x64_off
@pytest.mark.parametrize(("operands", "preferred"), [("int8", "int32"), ("bfloat16", "float32")])
def test_preferred_element_type_values_in_32_bit_mode(operands: str, preferred: str) -> None:
    a, b = _mat(3, 4, dtype=np.float32) * 20, _mat(4, 2, dtype=np.float32) * 20
    a, b = a.astype(_dt(operands)), b.astype(_dt(operands))
    pdt = _dt(preferred)
    expected = np.asarray(jnp.matmul(a, b, preferred_element_type=pdt))
    for got in (
        dnp.matmul(a, b, preferred_element_type=pdt),
        dx.jit(lambda a, b: dnp.matmul(a, b, preferred_element_type=pdt))(a, b),
        lax.dot_general(a, b, DIMS, preferred_element_type=pdt),
    ):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(np.asarray(got), expected)


def test_preferred_element_type_64_bit_request_in_32_bit_mode() -> None:
    a = _mat(2, 2, dtype=np.float32)
    with dx.enable_x64(False), jax.enable_x64(False):
        with pytest.warns(UserWarning, match="float64"):
            ours = dx.eval_shape(lambda a: lax.dot(a, a, preferred_element_type=np.float64), a)
        with pytest.warns(UserWarning, match="float64"):
            theirs = jax.eval_shape(
                lambda a: jax.lax.dot(a, a, preferred_element_type=np.float64), a
            )
    assert ours.dtype == theirs.dtype == np.float32


# --- didax.numpy -----------------------------------------------------------------------------

A3, B3, C3 = _mat(2, 3), _mat(3, 4), _mat(4, 5)
V3 = _mat(3)
T3 = _mat(2, 3, 4)


def _numpy_cases() -> list[tuple[str, Callable[..., Any], tuple[Any, ...], bool]]:
    """(name, f(np_module, *args, **kw), args, takes preferred_element_type)."""
    return [
        ("matmul_op", lambda n, a, b, **kw: a @ b, (A3, B3), False),
        ("dot", lambda n, a, b, **kw: n.dot(a, b, **kw), (A3, B3), True),
        ("dot_vector", lambda n, a, b, **kw: n.dot(a, b, **kw), (A3, V3), True),
        ("dot_scalar", lambda n, a, **kw: n.dot(a, 2.0, **kw), (A3,), True),
        ("dot_nd", lambda n, a, b, **kw: n.dot(a, b, **kw), (T3, C3), True),
        ("matmul", lambda n, a, b, **kw: n.matmul(a, b, **kw), (A3, B3), True),
        ("matmul_batched", lambda n, a, b, **kw: n.matmul(a, b, **kw), (T3, C3), True),
        (
            "einsum",
            lambda n, a, b, **kw: n.einsum("ij,jk->ik", a, b, **kw),
            (A3, B3),
            True,
        ),
        (
            "einsum_chain",
            lambda n, a, b, c, **kw: n.einsum("ij,jk,kl->il", a, b, c, **kw),
            (A3, B3, C3),
            True,
        ),
        ("tensordot", lambda n, a, b, **kw: n.tensordot(a, b, 1, **kw), (A3, B3), True),
        ("inner", lambda n, a, **kw: n.inner(a, a, **kw), (A3,), True),
        ("vdot", lambda n, a, **kw: n.vdot(a, a, **kw), (A3,), True),
        ("vecdot", lambda n, a, **kw: n.vecdot(a, a, **kw), (A3,), True),
        (
            "multi_dot",
            lambda n, a, b, c, **kw: n.linalg.multi_dot([a, b, c], **kw),
            (A3, B3, C3),
            False,
        ),
    ]


NUMPY_CASES: Final = _numpy_cases()


# Each product with each precision (``@`` takes none).
PRODUCTS: Final = [
    pytest.param(*case, precision, id=f"{case[0]}-{precision}")
    for case in NUMPY_CASES
    for precision in (None, "highest", (P.HIGH, P.DEFAULT))
    if case[0] != "matmul_op" or precision is None
]


@pytest.mark.parametrize(("name", "f", "args", "preferred_ok", "precision"), PRODUCTS)
def test_numpy_products_as_jax(
    name: str, f: Callable[..., Any], args: tuple[Any, ...], preferred_ok: bool, precision: Any
) -> None:
    ours_p, theirs_p = _both(precision)
    kw_ours: dict[str, Any] = {} if precision is None else {"precision": ours_p}
    kw_theirs: dict[str, Any] = {} if precision is None else {"precision": theirs_p}
    _same_dots(lambda *a: f(dnp, *a, **kw_ours), lambda *a: f(jnp, *a, **kw_theirs), *args)
    _same_values(f(dnp, *args, **kw_ours), f(jnp, *args, **kw_theirs))
    if preferred_ok:
        ints = [np.rint(a * 40).astype(np.int8) for a in args]
        kw_ours["preferred_element_type"] = kw_theirs["preferred_element_type"] = np.int32
        _same_dots(lambda *a: f(dnp, *a, **kw_ours), lambda *a: f(jnp, *a, **kw_theirs), *ints)
        ours, theirs = f(dnp, *ints, **kw_ours), f(jnp, *ints, **kw_theirs)
        assert ours.dtype == theirs.dtype == np.int32
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


@pytest.mark.x64_off
@pytest.mark.parametrize(
    ("name", "f", "args", "preferred_ok"), NUMPY_CASES, ids=[c[0] for c in NUMPY_CASES]
)
def test_numpy_products_as_jax_in_32_bit_mode(
    name: str, f: Callable[..., Any], args: tuple[Any, ...], preferred_ok: bool
) -> None:
    args32 = tuple(a.astype(np.float32) for a in args)
    _same_dots(lambda *a: f(dnp, *a), lambda *a: f(jnp, *a), *args32)
    ours, theirs = f(dnp, *args32), f(jnp, *args32)
    _same_values(ours, theirs)
    assert dx.eval_shape(lambda *a: f(dnp, *a), *args32).dtype == np.float32


@pytest.mark.parametrize(
    ("x", "y", "preferred"),
    [
        (2.0, 3.0, None),
        (np.ones(3, np.float32), 2.0, None),
        (np.ones(3, np.float32), np.ones(3, np.float32), np.float32),
        (np.ones(3, np.int8), np.ones(3, np.int8), np.float32),
    ],
    ids=["weak-weak", "strong-weak", "strong-strong-asked", "int8-asked-float"],
)
def test_numpy_dot_result_types_as_jax(x: Any, y: Any, preferred: Any) -> None:
    ours = dx.eval_shape(lambda: dnp.dot(x, y, preferred_element_type=preferred))
    theirs = jax.eval_shape(lambda: jnp.dot(x, y, preferred_element_type=preferred))
    assert (ours.dtype, ours.weak_type) == (theirs.dtype, theirs.weak_type)


def test_einsum_with_preferred_type_sums_in_it_as_jax() -> None:
    x = np.full((3, 40), 100, np.int8)
    spec = "ij,jk->i"  # k is summed out of the product's result, j contracted
    ours = dnp.einsum(spec, x, x.T, preferred_element_type=np.int32)
    theirs = jnp.einsum(spec, x, x.T, preferred_element_type=np.int32)
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
    one = dnp.einsum("ii->i", x[:, :3], preferred_element_type=np.int32)
    np.testing.assert_array_equal(
        np.asarray(one), np.asarray(jnp.einsum("ii->i", x[:, :3], preferred_element_type=np.int32))
    )


@pytest.mark.parametrize("name", ["convolve", "correlate"])
def test_convolutions_take_precision_and_preferred_type(name: str) -> None:
    a, v = np.array([1, 2, 3, 100], np.int8), np.array([100, 1], np.int8)
    ours = getattr(dnp, name)(a, v, precision="highest", preferred_element_type=np.int32)
    theirs = getattr(jnp, name)(a, v, precision="highest", preferred_element_type=np.int32)
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


def test_multi_dot_refuses_what_jax_refuses() -> None:
    with pytest.raises(ValueError, match="at least two arrays"):
        dnp.linalg.multi_dot([A3])
    with pytest.raises(ValueError, match="must match first dimension"):
        dnp.linalg.multi_dot([A3, C3])
    with pytest.raises(ValueError, match="two-dimensional"):
        dnp.linalg.multi_dot([A3, T3, C3])


# --- lowering ------------------------------------------------------------------------------

LOWERING_CASES: Final = {
    "none": (lambda m: lambda a, b: m.lax.dot(a, b), np.float32, np.float32, None),
    "highest": (
        lambda m: lambda a, b: m.lax.dot(a, b, precision=m.lax.Precision.HIGHEST),
        np.float32,
        np.float32,
        None,
    ),
    "mixed": (
        lambda m: (
            lambda a, b: m.lax.dot_general(
                a, b, DIMS, precision=(m.lax.Precision.HIGH, m.lax.Precision.DEFAULT)
            )
        ),
        np.float64,
        np.float64,
        None,
    ),
    "bf16_to_f32": (
        lambda m: lambda a, b: m.lax.dot(a, b, preferred_element_type=np.float32),
        BF16,
        BF16,
        None,
    ),
    "int8_to_int32": (
        lambda m: lambda a, b: m.lax.dot(a, b, preferred_element_type=np.int32),
        np.int8,
        np.int8,
        None,
    ),
    "numpy_matmul": (lambda m: lambda a, b: a @ b, np.float32, np.float32, None),
    "numpy_einsum_highest": (
        lambda m: lambda a, b: m.numpy.einsum("ij,jk->ik", a, b, precision="highest"),
        np.float32,
        np.float32,
        None,
    ),
}


@pytest.mark.parametrize("case", sorted(LOWERING_CASES))
def test_stablehlo_dot_as_jax(case: str) -> None:
    make, lt, rt, _ = LOWERING_CASES[case]
    a, b = _mat(2, 3).astype(lt), _mat(3, 4).astype(rt)
    ours = dx.jit(make(dx)).lower(a, b).as_text()
    theirs = jax.jit(make(jax)).lower(a, b).as_text()
    assert _hlo_dots(ours)
    assert _hlo_dots(ours) == _hlo_dots(theirs)


@pytest.mark.x64_off
@pytest.mark.parametrize("case", ["none", "bf16_to_f32", "int8_to_int32", "numpy_matmul"])
def test_stablehlo_dot_as_jax_in_32_bit_mode(case: str) -> None:
    test_stablehlo_dot_as_jax(case)


def test_stablehlo_of_a_vjp_with_preferred_type_as_jax() -> None:
    # The transposed products mix the cotangent's type (the preferred one)
    # with an operand's: JAX's lowering converts to the result type, and
    # didax's explicit conversion lowers to the same ops.
    a, b = _mat(2, 3).astype(BF16), _mat(3, 4).astype(BF16)

    def grads(m: Any) -> Any:
        def f(a: Any, b: Any) -> Any:
            out = m.lax.dot(a, b, preferred_element_type=np.float32)
            return m.numpy.sum(out * out)

        return m.grad(f, argnums=(0, 1))

    ours = _hlo_dots(dx.jit(grads(dx)).lower(a, b).as_text())
    theirs = _hlo_dots(jax.jit(grads(jax)).lower(a, b).as_text())
    assert sorted(ours) == sorted(theirs)
    ours_g, theirs_g = dx.grad(_sumsq_bf16, (0, 1))(a, b), jax.grad(_jsumsq_bf16, (0, 1))(a, b)
    for got, want in zip(ours_g, theirs_g, strict=True):
        _same_values(got, want)


def _sumsq_bf16(a: Any, b: Any) -> Any:
    out = lax.dot(a, b, preferred_element_type=np.float32)
    return dnp.sum(out * out)


def _jsumsq_bf16(a: Any, b: Any) -> Any:
    out = jax.lax.dot(a, b, preferred_element_type=np.float32)
    return jnp.sum(out * out)


# --- transformations -------------------------------------------------------------------------

PRECISE: Final = (P.HIGH, P.HIGHEST)


def _pair(m: Any) -> Callable[..., Any]:
    precision = (m.lax.Precision.HIGH, m.lax.Precision.HIGHEST)

    def f(a: Any, b: Any) -> Any:
        return m.numpy.tanh(m.numpy.matmul(a, b, precision=precision))

    return f


def test_params_survive_jvp_as_jax() -> None:
    a, b = _mat(2, 3), _mat(3, 4)
    _same_dots(
        lambda a, b: dx.jvp(_pair(dx), (a, b), (a, b)),
        lambda a, b: jax.jvp(_pair(jax), (a, b), (a, b)),
        a,
        b,
    )


def test_params_survive_vjp_and_grad_as_jax() -> None:
    a, b = _mat(2, 3), _mat(3, 4)
    _same_dots(
        lambda a, b: dx.vjp(_pair(dx), a, b)[1](a @ b),
        lambda a, b: jax.vjp(_pair(jax), a, b)[1](a @ b),
        a,
        b,
    )

    def loss(m: Any) -> Callable[..., Any]:
        return lambda a, b: m.numpy.sum(_pair(m)(a, b))

    _same_dots(dx.grad(loss(dx), (0, 1)), jax.grad(loss(jax), (0, 1)), a, b)
    ours_g, theirs_g = dx.grad(loss(dx), (0, 1))(a, b), jax.grad(loss(jax), (0, 1))(a, b)
    for got, want in zip(ours_g, theirs_g, strict=True):
        _same_values(got, want)


def test_transposes_of_a_typed_product_as_jax() -> None:
    # bfloat16 operands, float32 result: the cotangents come back bfloat16.
    a, b = _mat(2, 3).astype(BF16), _mat(3, 4).astype(BF16)
    _same_dots(
        lambda a, b: dx.vjp(lambda a, b: lax.dot(a, b, PRECISE, np.float32), a, b)[1](
            np.ones((2, 4), np.float32)
        ),
        lambda a, b: jax.vjp(
            lambda a, b: jax.lax.dot(
                a, b, precision=(JP.HIGH, JP.HIGHEST), preferred_element_type=np.float32
            ),
            a,
            b,
        )[1](np.ones((2, 4), np.float32)),
        a,
        b,
    )
    ct = np.ones((2, 4), np.float32)
    ours = dx.vjp(lambda a, b: lax.dot(a, b, PRECISE, np.float32), a, b)[1](ct)
    theirs = jax.vjp(lambda a, b: jax.lax.dot(a, b, preferred_element_type=np.float32), a, b)[1](ct)
    for got, want in zip(ours, theirs, strict=True):
        assert got.dtype == want.dtype == BF16
        _same_values(got, want)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 1), (1, 0)], ids=str)
def test_params_survive_vmap_as_jax(in_axes: tuple[Any, Any]) -> None:
    a = _mat(5, 2, 3) if in_axes[0] == 0 else _mat(2, 5, 3) if in_axes[0] == 1 else _mat(2, 3)
    b = _mat(3, 5, 4) if in_axes[1] == 1 else _mat(5, 3, 4) if in_axes[1] == 0 else _mat(3, 4)
    _same_dots(dx.vmap(_pair(dx), in_axes), jax.vmap(_pair(jax), in_axes), a, b)
    _same_values(dx.vmap(_pair(dx), in_axes)(a, b), jax.vmap(_pair(jax), in_axes)(a, b))


def test_params_survive_linearize_as_jax() -> None:
    a, b = _mat(2, 3), _mat(3, 4)
    ours = dx.make_jaxpr(dx.linearize(_pair(dx), a, b)[1])(a, b)
    theirs = jax.make_jaxpr(jax.linearize(_pair(jax), a, b)[1])(a, b)
    assert _didax_dots(ours) == _jax_dots(theirs)


def test_params_survive_dce() -> None:
    a, b = _mat(2, 3), _mat(3, 4)

    def f(a: Any, b: Any) -> Any:
        kept = lax.dot(a, b, precision="highest", preferred_element_type=np.float64)
        dropped = lax.dot(a, b, precision="fastest")
        return kept, dropped

    closed = dx.make_jaxpr(f)(a, b)
    pruned, _ = dce_jaxpr(closed.jaxpr, [True, False])
    assert _didax_dots(pruned) == collections.Counter({(("HIGHEST", "HIGHEST"), "float64"): 1})


@pytest.mark.parametrize("policy", ["dots_saveable", "nothing_saveable"])
def test_params_survive_checkpoint_as_jax(policy: str) -> None:
    a, b = _mat(2, 3), _mat(3, 4)

    def loss(m: Any) -> Callable[..., Any]:
        f = m.checkpoint(_pair(m), policy=getattr(m.checkpoint_policies, policy))
        return lambda a, b: m.numpy.sum(f(a, b))

    ours = _didax_dots(dx.make_jaxpr(dx.grad(loss(dx), (0, 1)))(a, b))
    theirs = _jax_dots(jax.make_jaxpr(jax.grad(loss(jax), (0, 1)))(a, b))
    # The same products (JAX's jaxpr also holds the checkpointed forward pass
    # inside its remat equation, counted the same way).
    assert set(ours) == set(theirs) == {(("HIGH", "HIGHEST"), "float64")}


def test_flops_do_not_depend_on_precision() -> None:
    a, b = _mat(2, 3), _mat(3, 4)
    counts = {
        p: dx.flops(lambda a, b, p=p: dnp.matmul(a, b, precision=p))(a, b)
        for p in (None, "highest", "fastest")
    }
    typed = dx.flops(lambda a, b: lax.dot(a, b, preferred_element_type=np.float32))(a, b)
    assert set(counts.values()) == {typed} == {2 * 2 * 3 * 4}


# --- the derivative rules of linear algebra ---------------------------------------------------


def _spd(n: int) -> Any:
    a = _mat(n, n)
    return a @ a.T + n * np.eye(n)


LINALG_JVPS: Final = {
    "cholesky": (lambda m: m.numpy.linalg.cholesky, lambda: (_spd(3),)),
    "eigh": (lambda m: lambda x: m.numpy.linalg.eigh(x)[1], lambda: (_spd(3),)),
    "qr": (lambda m: lambda x: m.numpy.linalg.qr(x)[1], lambda: (_mat(4, 3),)),
    "svd": (
        lambda m: lambda x: m.numpy.linalg.svd(x, full_matrices=False)[0],
        lambda: (_mat(4, 3),),
    ),
    "solve_triangular": (
        lambda m: lambda a, b: m.scipy.linalg.solve_triangular(a, b, lower=True),
        lambda: (np.tril(_spd(3)), _mat(3, 2)),
    ),
    "expm": (lambda m: m.scipy.linalg.expm, lambda: (_mat(3, 3) / 4,)),
    "pinv": (lambda m: m.numpy.linalg.pinv, lambda: (_mat(4, 3),)),
    "lstsq": (lambda m: lambda a, b: m.numpy.linalg.lstsq(a, b)[0], lambda: (_mat(4, 3), _mat(4))),
}


@pytest.mark.parametrize("name", sorted(LINALG_JVPS))
def test_linalg_products_take_jaxs_precision(name: str) -> None:
    make, args = LINALG_JVPS[name]
    xs = args()
    ours = _didax_dots(dx.make_jaxpr(lambda *x: dx.jvp(make(dx), x, x))(*xs))
    theirs = _jax_dots(jax.make_jaxpr(lambda *x: jax.jvp(make(jax), x, x))(*xs))
    assert ours
    assert set(ours) == set(theirs)


def test_lu_jvp_and_permutations_are_full_precision() -> None:
    # JAX's lu jvp multiplies under default_matmul_precision("highest") and
    # permutes rows by indexing (exact): didax's one-hot products are HIGHEST.
    x = _mat(3, 3) + 3 * np.eye(3)
    ours = _didax_dots(
        dx.make_jaxpr(lambda x: dx.jvp(lambda x: dx.lax.linalg.lu(x)[0], (x,), (x,)))(x)
    )
    assert {p for p, _ in ours} == {("HIGHEST", "HIGHEST")}
    lu = _didax_dots(dx.make_jaxpr(lambda x: dsl.lu(x, permute_l=True)[0])(x))
    assert set(lu) == {(("HIGHEST", "HIGHEST"), "float64")}


# --- jax_default_matmul_precision ------------------------------------------------------------


def test_config_option_sets_the_default_as_jax(matmul_precision: Callable[[Any], None]) -> None:
    a, b = _mat(2, 3), _mat(3, 4)
    for value in ("float32", "tensorfloat32", "bfloat16", "highest", None):
        matmul_precision(value)
        assert dx.config.jax_default_matmul_precision == value
        _same_dots(lambda a, b: a @ b, lambda a, b: a @ b, a, b)
        _same_dots(
            lambda a, b: lax.dot_general(a, b, DIMS),
            lambda a, b: jax.lax.dot_general(a, b, DIMS),
            a,
            b,
        )
        # An explicit precision wins over the option.
        _same_dots(
            lambda a, b: lax.dot(a, b, precision="fastest"),
            lambda a, b: jax.lax.dot(a, b, precision="fastest"),
            a,
            b,
        )


@pytest.mark.x64_off
def test_context_manager_and_decorator_as_jax() -> None:
    a, b = _mat(2, 3, dtype=np.float32), _mat(3, 4, dtype=np.float32)
    with dx.default_matmul_precision("float32"), jax.default_matmul_precision("float32"):
        _same_dots(lambda a, b: a @ b, lambda a, b: a @ b, a, b)
        with dx.default_matmul_precision(None), jax.default_matmul_precision(None):
            _same_dots(lambda a, b: a @ b, lambda a, b: a @ b, a, b)
        assert _didax_dots(dx.make_jaxpr(lambda a, b: a @ b)(a, b)) == {
            (("HIGHEST", "HIGHEST"), "float32"): 1
        }
    assert dx.config.jax_default_matmul_precision is None

    @dx.default_matmul_precision("tensorfloat32")
    def f(a: Any, b: Any) -> Any:
        return a @ b

    @jax.default_matmul_precision("tensorfloat32")
    def g(a: Any, b: Any) -> Any:
        return a @ b

    _same_dots(f, g, a, b)
    assert dx.config.jax_default_matmul_precision is None


@pytest.mark.parametrize("bad", ["bogus", "fastest", "HIGHEST", 3])
def test_invalid_option_values_are_refused_as_by_jax(bad: Any) -> None:
    with pytest.raises(ValueError, match="new enum value must be None or in"):
        dx.config.update("jax_default_matmul_precision", bad)
    with pytest.raises(ValueError, match="new enum value must be None or in"):
        jax.config.update("jax_default_matmul_precision", bad)
    with (
        pytest.raises(ValueError, match="new enum value must be None or in"),
        dx.default_matmul_precision(bad),
    ):
        pass
    assert dx.config.jax_default_matmul_precision is None


def test_jit_retraces_when_the_default_precision_changes() -> None:
    a, b = dx.device_put(_mat(2, 3)), dx.device_put(_mat(3, 4))
    f = dx.jit(lambda a, b: a @ b)
    outside = f(a, b)
    with dx.default_matmul_precision("float32"):
        inside = f(a, b)  # the hit path's key has the option: a new trace
        f(a, b)
        assert "precision = [HIGHEST, HIGHEST]" in f.lower(a, b).as_text()
    f(np.asarray(a), np.asarray(b))  # the miss path keys the same way
    info = f.cache_info()
    assert (info.misses, info.hits) == (2, 2)
    assert "precision = [DEFAULT, DEFAULT]" in f.lower(a, b).as_text()
    np.testing.assert_array_equal(np.asarray(inside), np.asarray(outside))
    # Set process-wide, too.
    dx.config.update("jax_default_matmul_precision", "tensorfloat32")
    try:
        f(a, b)
        assert f.cache_info().misses == 3
        assert "precision = [HIGH, HIGH]" in f.lower(a, b).as_text()
    finally:
        dx.config.update("jax_default_matmul_precision", None)
    f(a, b)
    assert f.cache_info().misses == 3


def test_environment_variable_sets_the_option() -> None:
    code = (
        "import numpy as np, didax as dx, didax.numpy as dnp\n"
        "a = np.ones((2, 2), np.float32)\n"
        "print(dx.config.jax_default_matmul_precision)\n"
        "print(dx.make_jaxpr(dnp.matmul)(a, a))\n"
    )
    env = {**os.environ, "JAX_DEFAULT_MATMUL_PRECISION": "tensorfloat32"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert out.startswith("tensorfloat32\n")
    assert "precision=(Precision.HIGH, Precision.HIGH)" in out
