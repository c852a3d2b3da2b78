"""``select_and_scatter_p``: XLA's SelectAndScatter with the user's select and scatter programs.

JAX binds it from no public function (its ``_select_and_scatter`` helper
is the oracle here) and gives it typing and lowering only; didax the same,
plus flops and eager evaluation through its compiled program.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src.lax.windowed_reductions import _select_and_scatter

import didax as dx
from didax import lax
from didax.core.abstract import ShapedArray
from didax.errors import DTypeError, ShapeError
from didax.interpreters.staging import trace_to_jaxpr
from didax.ir.jaxpr import Jaxpr

Fn = Callable[[Any, Any], Any]
# (name, operand shape, window, strides, padding, select (didax, jax), scatter, init)
CASES: Final[
    list[tuple[str, tuple[int, ...], tuple[int, ...], tuple[int, ...], Any, str, str, float]]
] = [
    ("max-pool grad", (4, 6), (2, 2), (2, 2), ((0, 0), (0, 0)), "ge", "add", 0.0),
    ("min, max-scatter, padded", (7,), (3,), (1,), ((1, 1),), "le", "max", -np.inf),
    ("strided 2-d, mul", (5, 4), (3, 2), (2, 1), ((1, 0), (0, 1)), "ge", "mul", 1.0),
    (
        "overlapping 3-d",
        (3, 4, 5),
        (2, 2, 3),
        (1, 2, 1),
        ((0, 0), (1, 1), (0, 2)),
        "gt",
        "add",
        0.5,
    ),
]


def _program(fn: Fn, dtype: Any) -> Jaxpr:
    scalar = ShapedArray((), np.dtype(dtype))
    return trace_to_jaxpr(lambda a, b: [fn(a, b)], [scalar, scalar], "select_and_scatter").jaxpr


def _windows(shape: tuple[int, ...], window: Any, strides: Any, padding: Any) -> tuple[int, ...]:
    return lax.reduce_window_shape_tuple(shape, window, strides, padding)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_equals_jax_eager_and_jitted(case: Any, dtype: Any) -> None:
    _, shape, window, strides, padding, select, scatter, init = case
    rng = np.random.default_rng(len(shape))
    x = rng.normal(size=shape).astype(dtype)
    src = rng.normal(size=_windows(shape, window, strides, padding)).astype(dtype)
    init_value = np.asarray(init, dtype)
    params = dict(window_dimensions=window, window_strides=strides, padding=padding)

    def ours(x: Any, src: Any, init_value: Any) -> Any:
        return lax.select_and_scatter_p.bind(
            x,
            src,
            init_value,
            select_jaxpr=_program(getattr(lax, select), dtype),
            scatter_jaxpr=_program(getattr(lax, scatter), dtype),
            **params,
        )

    want = _select_and_scatter(
        jnp.asarray(x),
        getattr(jax.lax, select),
        window,
        strides,
        padding,
        jnp.asarray(src),
        jnp.asarray(init_value),
        getattr(jax.lax, scatter),
    )
    for got in (ours(x, src, init_value), dx.jit(ours)(x, src, init_value)):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_flops_are_select_and_scatter_adds() -> None:
    # With select ge and scatter add it is select_and_scatter_add's count.
    x, src = np.zeros((4, 6), np.float32), np.ones((2, 3), np.float32)
    f = lambda x, src: lax.select_and_scatter_p.bind(  # noqa: E731
        x,
        src,
        np.float32(0),
        select_jaxpr=_program(lax.ge, np.float32),
        scatter_jaxpr=_program(lax.add, np.float32),
        window_dimensions=(2, 2),
        window_strides=(2, 2),
        padding=((0, 0), (0, 0)),
    )
    assert dx.flops(f)(x, src) == 6 * 3 + 6


def test_rank_0_is_scatter_of_init_and_source() -> None:
    out = lax.select_and_scatter_p.bind(
        np.float32(3),
        np.float32(2),
        np.float32(5),
        select_jaxpr=_program(lax.ge, np.float32),
        scatter_jaxpr=_program(lax.mul, np.float32),
        window_dimensions=(),
        window_strides=(),
        padding=(),
    )
    assert float(out) == 10.0


def test_bad_inputs_raise_naming_the_primitive() -> None:
    kw: dict[str, Any] = dict(
        select_jaxpr=_program(lax.ge, np.float32),
        scatter_jaxpr=_program(lax.add, np.float32),
        window_dimensions=(2, 2),
        window_strides=(2, 2),
        padding=((0, 0), (0, 0)),
    )
    x = np.zeros((4, 6), np.float32)
    with pytest.raises(ShapeError, match=r"select_and_scatter.*windows' shape"):
        lax.select_and_scatter_p.bind(x, np.ones((3, 3), np.float32), np.float32(0), **kw)
    with pytest.raises(DTypeError, match="select_and_scatter"):
        lax.select_and_scatter_p.bind(x, np.ones((2, 3), np.float64), np.float32(0), **kw)
    with pytest.raises(ShapeError, match="inconsistent window_strides"):
        lax.select_and_scatter_p.bind(
            x, np.ones((2, 3), np.float32), np.float32(0), **{**kw, "window_strides": (2,)}
        )
