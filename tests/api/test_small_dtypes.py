"""The small dtypes (bfloat16, float16, 8/16-bit ints, unsigned ints) through every primitive.

Every standard primitive that JAX's ``lax`` accepts for a dtype is applied
in didax eagerly and under jit and compared with JAX (dtype exactly, values
to the dtype's precision); primitives JAX refuses for a dtype are refused by
didax too. Float dtypes are also differentiated, and every dtype vmapped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import ml_dtypes
import numpy as np
import pytest
from jax import lax as jlax

import didax as dx
from didax import lax as dlax
from didax.core.lax import STANDARD_PRIMITIVES

FLOATS = [np.dtype(ml_dtypes.bfloat16), np.dtype(np.float16)]
INTS = [np.dtype(t) for t in (np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64)]
SMALL = FLOATS + INTS


def _data(
    dtype: np.dtype[Any], shape: tuple[int, ...] = (2, 3), offset: int = 0
) -> np.ndarray[Any, Any]:
    base = (np.arange(int(np.prod(shape))).reshape(shape) % 5 + 1 + offset).astype(np.float64)
    if dtype.kind == "V" or dtype.kind == "f":
        base = base * 0.37
    return base.astype(dtype)


# name -> (call on a lax module and operands, arity, accepts ints, accepts floats)
Op = tuple[Callable[..., Any], int, bool, bool]
OPS: dict[str, Op] = {
    "add": (lambda L, x, y: L.add(x, y), 2, True, True),
    "sub": (lambda L, x, y: L.sub(x, y), 2, True, True),
    "mul": (lambda L, x, y: L.mul(x, y), 2, True, True),
    "div": (lambda L, x, y: L.div(x, y), 2, True, True),
    "rem": (lambda L, x, y: L.rem(x, y), 2, True, True),
    "max": (lambda L, x, y: L.max(x, y), 2, True, True),
    "min": (lambda L, x, y: L.min(x, y), 2, True, True),
    "pow": (lambda L, x, y: L.pow(x, y), 2, False, True),
    "integer_pow": (lambda L, x: L.integer_pow(x, 3), 1, True, True),
    "neg": (lambda L, x: L.neg(x), 1, True, True),
    "sign": (lambda L, x: L.sign(x), 1, True, True),
    "abs": (lambda L, x: L.abs(x), 1, True, True),
    "square": (lambda L, x: L.square(x), 1, True, True),
    **{
        name: ((lambda L, x, name=name: getattr(L, name)(x)), 1, False, True)
        for name in (
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
            "cbrt",
            "floor",
            "ceil",
            "round",
        )
    },
    **{
        name: ((lambda L, x, y, name=name: getattr(L, name)(x, y)), 2, True, True)
        for name in ("eq", "ne", "lt", "le", "gt", "ge")
    },
    # JAX's lax names them bitwise_and/or/not; didax's API.md and_/or_/not_.
    "and_": (lambda L, x, y: (L.and_ if L is dlax else L.bitwise_and)(x, y), 2, True, False),
    "or_": (lambda L, x, y: (L.or_ if L is dlax else L.bitwise_or)(x, y), 2, True, False),
    "not_": (lambda L, x: (L.not_ if L is dlax else L.bitwise_not)(x), 1, True, False),
    "select": (lambda L, x, y: L.select(L.lt(x, y), x, y), 2, True, True),
    "convert_f32": (lambda L, x: L.convert_element_type(x, np.float32), 1, True, True),
    "convert_to_i8": (lambda L, x: L.convert_element_type(x, np.int8), 1, True, True),
    "stop_gradient": (lambda L, x: L.stop_gradient(x), 1, True, True),
    "broadcast_in_dim": (lambda L, x: L.broadcast_in_dim(x, (4, 2, 3), (1, 2)), 1, True, True),
    "reshape": (lambda L, x: L.reshape(x, (3, 2)), 1, True, True),
    "transpose": (lambda L, x: L.transpose(x, (1, 0)), 1, True, True),
    "squeeze_expand": (lambda L, x: L.squeeze(L.expand_dims(x, (0,)), (0,)), 1, True, True),
    "slice": (lambda L, x: L.slice(x, (0, 1), (2, 3)), 1, True, True),
    "dynamic_slice": (lambda L, x: L.dynamic_slice(x, (1, 1), (1, 2)), 1, True, True),
    "dynamic_update_slice": (
        lambda L, x, y: L.dynamic_update_slice(x, L.slice(y, (0, 0), (1, 2)), (1, 0)),
        2,
        True,
        True,
    ),
    "concatenate": (lambda L, x, y: L.concatenate([x, y], 1), 2, True, True),
    "pad": (
        lambda L, x: L.pad(x, L.convert_element_type(0, x.dtype), [(1, 0, 1), (0, 2, 0)]),
        1,
        True,
        True,
    ),
    "rev": (lambda L, x: L.rev(x, (0, 1)), 1, True, True),
    "reduce_sum": (lambda L, x: L.reduce_sum(x, (1,)), 1, True, True),
    "reduce_max": (lambda L, x: L.reduce_max(x, (0, 1)), 1, True, True),
    "reduce_min": (lambda L, x: L.reduce_min(x, (0,)), 1, True, True),
    "reduce_prod": (lambda L, x: L.reduce_prod(x, (1,)), 1, True, True),
    "argmax": (lambda L, x: L.argmax(x, 1, np.int32), 1, True, True),
    "argmin": (lambda L, x: L.argmin(x, 0, np.int32), 1, True, True),
    "cumsum": (lambda L, x: L.cumsum(x, 1), 1, True, True),
    "dot_general": (lambda L, x, y: L.dot_general(x, y, (((1,), (1,)), ((), ()))), 2, True, True),
    "iota": (
        lambda L, x: L.add(x, L.broadcast_in_dim(L.iota(x.dtype, 3), (2, 3), (1,))),
        1,
        True,
        True,
    ),
}


def _accepts(name: str, dt: np.dtype[Any]) -> bool:
    if name == "abs" and dt.kind == "u":  # JAX refuses abs of unsigned integers
        return False
    _, _, ints, floats = OPS[name]
    return ints if dt in INTS else floats


CASES = [(name, dt) for name in sorted(OPS) for dt in SMALL if _accepts(name, dt)]
REFUSED = [(name, dt) for name in sorted(OPS) for dt in SMALL if not _accepts(name, dt)]


def _operands(name: str, dt: np.dtype[Any]) -> list[np.ndarray[Any, Any]]:
    arity = OPS[name][1]
    return [_data(dt), _data(dt, offset=1)][:arity]


def _tolerance(dt: np.dtype[Any]) -> float:
    return {"bfloat16": 2e-2, "float16": 2e-3}.get(dt.name, 0.0)


def _compare(got: Any, want: Any, dt: np.dtype[Any]) -> None:
    assert isinstance(got, dx.Array)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    g = np.asarray(got).astype(np.float64)
    w = np.asarray(want).astype(np.float64)
    tol = _tolerance(dt)
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def _ci_cases() -> list[Any]:
    """Every accepted pair; CI runs each function at its first two small dtypes
    (a 16-bit float among them where accepted), the slow session at all."""
    out, seen = [], dict[str, int]()
    for name, dt in CASES:
        k = seen[name] = seen.get(name, 0) + 1
        marks = () if k <= 2 else (pytest.mark.slow,)
        out.append(pytest.param(name, dt, id=f"{name}-{dt.name}", marks=marks))
    return out


@pytest.mark.parametrize(("name", "dt"), _ci_cases())
def test_eager_and_jit_match_jax(name: str, dt: np.dtype[Any]) -> None:
    fn = OPS[name][0]
    args = _operands(name, dt)
    want = fn(jlax, *args)
    _compare(fn(dlax, *[dx.numpy.asarray(a) for a in args]), want, dt)
    _compare(dx.jit(lambda *xs: fn(dlax, *xs))(*args), want, dt)


@pytest.mark.parametrize(("name", "dt"), REFUSED, ids=[f"{n}-{d.name}" for n, d in REFUSED])
def test_refused_as_jax(name: str, dt: np.dtype[Any]) -> None:
    fn = OPS[name][0]
    args = _operands(name, dt)
    with pytest.raises(TypeError):
        fn(jlax, *args)
    with pytest.raises(TypeError):
        fn(dlax, *args)


def test_every_standard_primitive_is_exercised() -> None:
    # Each standard primitive appears in some case above (directly, or for
    # integer_pow/squeeze/expand_dims/iota inside one).
    covered = {
        "add",
        "sub",
        "mul",
        "div",
        "rem",
        "max",
        "min",
        "pow",
        "integer_pow",
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
        "cbrt",
        "square",
        "floor",
        "ceil",
        "round",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "and",
        "or",
        "not",
        "select_n",
        "select",
        "convert_element_type",
        "stop_gradient",
        # Complex numbers have no 16-bit dtype: tests/api/test_complex.py covers these.
        "real",
        "imag",
        "conj",
        "complex",
        "broadcast_in_dim",
        "reshape",
        "transpose",
        "squeeze",
        "expand_dims",
        "slice",
        "dynamic_slice",
        "dynamic_update_slice",
        "concatenate",
        "pad",
        "rev",
        "reduce_sum",
        "reduce_max",
        "reduce_min",
        "reduce_prod",
        "argmax",
        "argmin",
        "cumsum",
        "dot_general",
        "iota",
    }
    missing = [p.name for p in STANDARD_PRIMITIVES if p.name not in covered]
    assert not missing, f"add small-dtype cases for {missing}"


GRAD_OPS = [
    "add",
    "mul",
    "div",
    "sin",
    "exp",
    "tanh",
    "sqrt",
    "logistic",
    "reduce_sum",
    "dot_general",
    "cumsum",
    "pad",
    "max",
    "select",
    "transpose",
    "concatenate",
]


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("name", GRAD_OPS)
def test_grad_of_floats_matches_jax(name: str, dt: np.dtype[Any]) -> None:
    fn = OPS[name][0]
    args = _operands(name, dt)

    def loss(L: Any, s: Any) -> Callable[..., Any]:
        return lambda *xs: s(L, fn(L, *xs)).astype(np.float32)

    def total(L: Any, y: Any) -> Any:
        return L.reduce_sum(y, tuple(range(y.ndim)))

    got = dx.grad(loss(dlax, total), argnums=tuple(range(len(args))))(*args)
    want = jax.grad(loss(jlax, total), argnums=tuple(range(len(args))))(*args)
    for g, w in zip(got, want, strict=True):
        _compare(g, w, dt)
    got_jit = dx.jit(dx.grad(loss(dlax, total)))(*args)
    _compare(got_jit, want[0], dt)


@pytest.mark.parametrize("dt", SMALL, ids=lambda d: d.name)
@pytest.mark.parametrize(
    "name", ["add", "max", "reduce_sum", "dot_general", "cumsum", "select", "dynamic_slice"]
)
def test_vmap_matches_jax(name: str, dt: np.dtype[Any]) -> None:
    fn = OPS[name][0]
    args = [np.stack([a, a]) for a in _operands(name, dt)]
    got = dx.vmap(lambda *xs: fn(dlax, *xs))(*args)
    want = jax.vmap(lambda *xs: fn(jlax, *xs))(*args)
    _compare(got, want, dt)
