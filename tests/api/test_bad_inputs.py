"""A battery of bad inputs: each is refused with JAX's exception type, at trace time, naming
the operation, the operand types and the user's file:line.

Each case is written once against a namespace (``lax``, ``numpy``, and the
transformations of ``jax`` or ``didax``); JAX's exception type is checked
beside didax's where JAX refuses the case (didax's may be a subclass, e.g.
``ShapeError`` is a ``TypeError``). Where JAX itself accepts or crashes, the
note says so.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax import lax as dlax
from didax.errors import ConcretizationTypeError, UnexpectedTracerError

JAX: Final = SimpleNamespace(lax=jax.lax, np=jnp, jit=jax.jit, vmap=jax.vmap, grad=jax.grad)
DIDAX: Final = SimpleNamespace(lax=dlax, np=dnp, jit=dx.jit, vmap=dx.vmap, grad=dx.grad)

F32: Final = np.ones(3, np.float32)
F32_4: Final = np.ones(4, np.float32)
I32: Final = np.ones(3, np.int32)
M: Final = np.ones((2, 3))


def _branch(ns: Any) -> Any:
    return ns.lax.cond(True, lambda x: x, lambda x: x[:1], np.ones(2))


# name -> (the misuse, didax's exception type, what the message must name)
CASES: Final[dict[str, tuple[Callable[[Any], Any], type[Exception], str]]] = {
    # ill-typed primitives
    "add shapes": (lambda ns: ns.lax.add(F32, F32_4), TypeError, r"add.*f32\[3\].*f32\[4\]"),
    "add dtypes": (lambda ns: ns.lax.add(F32, I32), TypeError, r"add.*f32\[3\].*i32\[3\]"),
    "dot_general contraction": (
        lambda ns: ns.lax.dot_general(M, np.ones((4, 2)), (((1,), (0,)), ((), ()))),
        TypeError,
        r"dot_general.*f64\[2,3\].*f64\[4,2\]",
    ),
    "transpose permutation": (
        lambda ns: ns.lax.transpose(M, (0, 0)),
        TypeError,
        r"transpose.*f64\[2,3\]",
    ),
    "concatenate shapes": (
        lambda ns: ns.lax.concatenate([M, np.ones((2, 4))], 0),
        TypeError,
        r"concatenate.*f64\[2,3\].*f64\[2,4\]",
    ),
    "reduce axes": (lambda ns: ns.lax.reduce_sum(F32, (2,)), ValueError, r"axis 2"),
    "cond branch types": (_branch, TypeError, r"cond.*f64\[1\].*f64\[2\]"),
    # tracer conversions
    "bool under jit": (
        lambda ns: ns.jit(lambda x: 1 if x > 0 else 2)(1.0),
        ConcretizationTypeError,
        r"bool\(\).*bool\[\].*jit",
    ),
    "int under jit": (
        lambda ns: ns.jit(lambda x: int(x))(1.0),
        ConcretizationTypeError,
        r"int\(\).*f64\[\].*jit",
    ),
    "traced shape": (
        lambda ns: ns.jit(lambda n: ns.np.zeros(n))(3),
        ConcretizationTypeError,
        r"zeros",
    ),
    # axis errors
    "numpy axis": (lambda ns: ns.np.sum(M, axis=5), ValueError, r"axis 5"),
    "vmap in_axes": (lambda ns: ns.vmap(lambda a: a, in_axes=2)(F32), ValueError, r"vmap.*2"),
    "vmap sizes": (
        lambda ns: ns.vmap(lambda a, b: a + b)(F32, F32_4),
        ValueError,
        r"vmap.*3.*4",
    ),
    # static arguments
    "static argnums out of range": (
        lambda ns: ns.jit(lambda x: x, static_argnums=3)(1.0),
        ValueError,
        r"static_argnums",
    ),
    "unhashable static": (
        lambda ns: ns.jit(lambda x: x, static_argnums=0)(np.ones(3)),
        ValueError,
        r"[Nn]on-hashable static",
    ),
    # gradients
    "grad of non-scalar": (
        lambda ns: ns.grad(lambda x: x * 2)(np.ones(3)),
        TypeError,
        r"grad.*scalar.*\(3,\)",
    ),
    "grad of an int": (lambda ns: ns.grad(lambda x: x * 2)(3), TypeError, r"grad.*int64"),
    # shapes
    "negative shape": (lambda ns: ns.np.zeros((2, -1)), TypeError, r"negative.*\(2, -1\)"),
    "numpy reshape": (lambda ns: ns.np.reshape(np.ones(3), (5,)), ValueError, r"reshape.*5"),
    "matmul shapes": (
        lambda ns: ns.np.matmul(M, M),
        TypeError,
        r"(matmul|dot).*\(2, 3\)|f64\[2,3\]",
    ),
    "concatenate ranks": (
        lambda ns: ns.np.concatenate([np.ones(3), np.ones((3, 1))]),
        TypeError,
        r"concatenate.*\(3,\).*\(3, 1\)",
    ),
    "too many indices": (lambda ns: ns.np.ones((2, 3))[0, 0, 0], IndexError, r"[Tt]oo many"),
    # zero-size arrays
    "max of nothing": (lambda ns: ns.np.max(np.zeros((0,))), ValueError, r"max.*zero-size"),
    "argmax of nothing": (lambda ns: ns.np.argmax(np.zeros((0,))), ValueError, r"argmax.*empty"),
}

# Cases whose message names the operation but not the user's line (raised
# before any didax frame is entered, or by a check with no user frame).
NO_LINE: Final = {"too many indices"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_as_jax_refuses_it(name: str) -> None:
    misuse, kind, names = CASES[name]
    with pytest.raises(Exception) as jax_error:  # noqa: PT011 - its type is checked below
        misuse(JAX)
    with pytest.raises(kind, match=names) as error:
        misuse(DIDAX)
    # JAX's builtin exception type (its own classes derive from these).
    builtin = next(c for c in type(jax_error.value).__mro__ if c.__module__ == "builtins")
    assert isinstance(error.value, builtin), (type(error.value), type(jax_error.value))
    if name not in NO_LINE:
        assert "test_bad_inputs.py:" in _text(error.value), _text(error.value)


def _text(e: BaseException) -> str:
    """The message with its notes (``didax.api.located`` notes the line of an argument error)."""
    return "\n".join([str(e), *getattr(e, "__notes__", ())])


def test_huge_shapes_are_refused_at_trace_time() -> None:
    # JAX 0.10.2 aborts the whole process compiling this (XLA's 64-bit size
    # arithmetic overflows); didax refuses the equation that makes the shape.
    for make in (
        lambda: dnp.zeros((2**40, 2**40)),
        lambda: dx.jit(lambda: dnp.ones((2**31, 2**31, 4)))(),
        lambda: dx.make_jaxpr(lambda x: x + dnp.zeros((2**62, 4)))(1.0),
    ):
        with pytest.raises(TypeError, match=r"broadcast_in_dim.*64-bit") as error:
            make()
        assert "test_bad_inputs.py:" in _text(error.value)


def test_leaked_tracer() -> None:
    leak: list[Any] = []

    def f(x: Any) -> Any:
        leak.append(x)
        return x

    dx.jit(f)(1.0)
    with pytest.raises(UnexpectedTracerError, match=r"f64\[\].*jit.*test_bad_inputs\.py:"):
        dnp.sin(leak[-1])
