"""``didax.errors``' classes are raised where JAX raises the classes of the same name.

Each program runs under ``jax.jit`` and ``didax.jit`` on the same input;
both must raise, and the classes' names must agree.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.errors
import didax.numpy as dnp

# (name, program, didax's class): each program fails while tracing under jit.
PROGRAMS: Final[list[tuple[str, Callable[[Any], Any], type[Exception]]]] = [
    ("bool", lambda x: bool(x[0] > 0), didax.errors.TracerBoolConversionError),
    ("if", lambda x: x if x[0] > 0 else -x, didax.errors.TracerBoolConversionError),
    ("int", lambda x: int(x[0]), didax.errors.ConcretizationTypeError),
    ("float", lambda x: float(x[0]), didax.errors.ConcretizationTypeError),
    (
        "index",
        lambda x: operator.index(x[0].astype(np.int32)),
        didax.errors.TracerIntegerConversionError,
    ),
    ("range", lambda x: range(x[0].astype(np.int32)), didax.errors.TracerIntegerConversionError),
    ("asarray", np.asarray, didax.errors.TracerArrayConversionError),
    ("mask", lambda x: x[x > 0], didax.errors.NonConcreteBooleanIndexError),
]


@pytest.mark.parametrize(("name", "program", "cls"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_raised_where_jax_raises(
    name: str, program: Callable[[Any], Any], cls: type[Exception]
) -> None:
    with pytest.raises(cls) as ours:
        dx.jit(program)(dnp.arange(3.0))
    with pytest.raises((TypeError, IndexError)) as theirs:
        jax.jit(program)(jnp.arange(3.0))
    assert type(ours.value).__name__ == type(theirs.value).__name__ == cls.__name__
    assert type(ours.value) is cls


def test_asarray_of_a_differentiated_value() -> None:
    """np.asarray under grad would drop the derivative: both refuse with the same class."""

    def f(x: Any) -> Any:
        np.asarray(x)
        return x

    with pytest.raises(didax.errors.TracerArrayConversionError):
        dx.grad(f)(1.0)
    with pytest.raises(jax.errors.TracerArrayConversionError):
        jax.grad(f)(1.0)


def test_leaked_tracer() -> None:
    leaked: list[Any] = []

    def keep(x: Any) -> Any:
        leaked.append(x)
        return x

    dx.jit(keep)(1.0)
    jax.jit(keep)(1.0)
    with pytest.raises(didax.errors.UnexpectedTracerError):
        dx.jit(lambda y: y + leaked[0])(1.0)
    with pytest.raises(jax.errors.UnexpectedTracerError):
        jax.jit(lambda y: y + leaked[1])(1.0)


def test_runtime_error_is_jaxlibs() -> None:
    """A program the device cannot run raises jaxlib's class, which both name."""
    assert didax.errors.JaxRuntimeError is jax.errors.JaxRuntimeError
    huge = (2**45,)  # bytes: more than any host has, so the allocation fails at once
    with pytest.raises(didax.errors.JaxRuntimeError, match="RESOURCE_EXHAUSTED"):
        dx.block_until_ready(dx.jit(lambda: dnp.zeros(huge, dtype=np.uint8))())


def test_hierarchy() -> None:
    """Catching what didax raised before (and JAX's bases) still works."""
    e = didax.errors
    assert issubclass(e.TracerBoolConversionError, e.ConcretizationTypeError)
    assert issubclass(e.TracerIntegerConversionError, e.ConcretizationTypeError)
    assert issubclass(e.TracerArrayConversionError, e.ConcretizationTypeError)
    for base in (e.ConcretizationTypeError, e.UnexpectedTracerError, e.KeyReuseError):
        assert issubclass(base, e.JAXTypeError)
    assert issubclass(e.NonConcreteBooleanIndexError, e.JAXIndexError)
    assert issubclass(e.NonConcreteBooleanIndexError, IndexError)
    core = set(e.__all__) - {"JaxRuntimeError"}
    assert all(getattr(e, n).__module__ == "didax.errors" for n in core)
