"""didax.test_util against jax.test_util: both pass correct derivatives and fail wrong ones."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import jax.test_util
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
import didax.test_util

X: Final = np.array([0.3, 0.7, 1.1], np.float32)

# (name, didax's function, JAX's, arguments, order, modes)
# The complex row is the slow session's.
CASES: Final[list[Any]] = [
    ("sin", dnp.sin, jnp.sin, (0.5,), 2, ("fwd", "rev")),  # the order-2 recursion
    (
        "two_args",
        lambda x, y: dnp.tanh(x) * dnp.exp(y).sum(),
        lambda x, y: jnp.tanh(x) * jnp.exp(y).sum(),
        (X, X[:2]),
        1,
        ("lin",),
    ),
    (
        "pytree",
        lambda d: d["a"] * d["b"] ** 2,
        lambda d: d["a"] * d["b"] ** 2,
        ({"a": X, "b": X},),
        1,
        ("rev",),
    ),
    pytest.param(
        "complex",
        lambda z: dnp.sin(z) * z,
        lambda z: jnp.sin(z) * z,
        (np.complex64(0.3 + 0.2j),),
        1,
        ("rev",),
        marks=pytest.mark.slow,
    ),
]


@pytest.mark.parametrize(
    ("name", "ours", "theirs", "args", "order", "modes"),
    CASES,
    ids=[getattr(c, "values", c)[0] for c in CASES],
)
def test_correct_derivatives_pass(
    name: str,
    ours: Callable[..., Any],
    theirs: Callable[..., Any],
    args: tuple[Any, ...],
    order: int,
    modes: tuple[str, ...],
) -> None:
    didax.test_util.check_grads(ours, args, order, modes=modes)
    jax.test_util.check_grads(theirs, args, order, modes=modes)


def _wrong_custom_jvp(mod: Any, np_: Any) -> Any:
    @mod.custom_jvp
    def f(x: Any) -> Any:
        return np_.sin(x)

    f.defjvp(lambda p, t: (f(p[0]), 2.0 * t[0]))  # should be cos(x) * t
    return f


@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_wrong_custom_jvp_fails(mode: str) -> None:
    for check, mod, np_ in (
        (didax.test_util.check_grads, dx, dnp),
        (jax.test_util.check_grads, jax, jnp),
    ):
        with pytest.raises(AssertionError, match="JVP tangent" if mode == "fwd" else "VJP"):
            check(_wrong_custom_jvp(mod, np_), (0.5,), 1, modes=(mode,))


def test_check_jvp_and_vjp_directly() -> None:
    f = lambda x: dnp.sin(x) * x  # noqa: E731
    didax.test_util.check_jvp(f, functools.partial(dx.jvp, f), (X,))
    didax.test_util.check_vjp(f, functools.partial(dx.vjp, f), (X,))

    def bad_vjp(x: Any) -> Any:
        out, pullback = dx.vjp(f, x)
        return out, lambda ct: tuple(2 * c for c in pullback(ct))

    with pytest.raises(AssertionError, match="cotangent projection"):
        didax.test_util.check_vjp(f, bad_vjp, (X,))
    # Tolerances as JAX's: a loose one lets the wrong rule through.
    didax.test_util.check_vjp(f, bad_vjp, (X,), atol=10.0, rtol=10.0)
