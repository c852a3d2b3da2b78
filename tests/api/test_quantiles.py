"""Quantiles, medians, ``interp`` and the index tricks (``r_``, ``c_``, ...) against jax.numpy.

Values, shapes, dtypes and weak types over a grid of axes, methods,
``keepdims`` and NaN placements; gradients equal JAX's; under jit and vmap.
"""

from __future__ import annotations

from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from tests.slicing import diagonal

import didax as dx
import didax.numpy as dnp

RNG: Final = np.random.default_rng(0)
A: Final = RNG.normal(size=(4, 5, 6))
A_NAN: Final = A.copy()
A_NAN[1, 2, 3] = np.nan
A_NAN[0, :, 0] = np.nan
INTS: Final = np.arange(12).reshape(3, 4)


def _same(got: Any, want: Any, rtol: float = 1e-13) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, (g.shape, w.shape)
    assert g.dtype == w.dtype, (g.dtype, w.dtype)
    if g.dtype == np.float32:
        rtol = max(rtol, 1e-6)  # XLA's fusion of the q/100 and the blend (one ulp)
    np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True)
    assert getattr(got, "weak_type", False) == getattr(want, "weak_type", False)


# Every combination (320) in ``nox -s slow``; the default run takes the
# quarter whose indices sum to a multiple of 4. It still meets every pair
# of values of any two axes (each method with each function, with NaNs and
# without, at a scalar and a vector ``q``; each axis with and without
# ``keepdims``): the other four axes' indices sum to every residue mod 4.
QUANTILE_CASES: Final = diagonal(
    4,
    ["quantile", "nanquantile"],
    ["A", "A_NAN"],
    [0.3, (0.0, 0.5, 1.0)],
    [None, 0, -1, (0, 2)],
    ["linear", "lower", "higher", "midpoint", "nearest"],
    [False, True],
)


@pytest.mark.parametrize(("name", "data", "q", "axis", "method", "keepdims"), QUANTILE_CASES)
def test_quantile(name: str, data: str, q: Any, axis: Any, method: str, keepdims: bool) -> None:
    a = {"A": A, "A_NAN": A_NAN}[data]
    qa = np.asarray(q) if isinstance(q, tuple) else q
    kwargs = {"axis": axis, "method": method, "keepdims": keepdims}
    _same(getattr(dnp, name)(a, qa, **kwargs), getattr(jnp, name)(a, qa, **kwargs))


@pytest.mark.parametrize("name", ["percentile", "nanpercentile"])
@pytest.mark.parametrize("q", [30, 99.5, np.array([10.0, 90.0])], ids=repr)
@pytest.mark.parametrize("a", [A_NAN, INTS, A.astype(np.float32)], ids=["nan", "int", "f32"])
def test_percentile(name: str, q: Any, a: Any) -> None:
    _same(getattr(dnp, name)(a, q, axis=1), getattr(jnp, name)(a, q, axis=1))
    _same(getattr(dnp, name)(a, q), getattr(jnp, name)(a, q))


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("axis", [None, 0, (0, 1), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_median(name: str, axis: Any, keepdims: bool) -> None:
    for a in (A_NAN[0], INTS, INTS.astype(np.float32)):
        _same(
            getattr(dnp, name)(a, axis, keepdims=keepdims),
            getattr(jnp, name)(a, axis, keepdims=keepdims),
        )


def test_quantiles_of_scalars_and_small_ints() -> None:
    _same(dnp.median(np.float32(3)), jnp.median(np.float32(3)))
    _same(dnp.median(3.0), jnp.median(3.0))
    _same(
        dnp.quantile(np.arange(5, dtype=np.int8), 0.5),
        jnp.quantile(np.arange(5, dtype=np.int8), 0.5),
    )


def test_quantile_refusals() -> None:
    with pytest.raises(ValueError, match="method"):
        dnp.quantile(A, 0.5, method="bogus")
    with pytest.raises(ValueError, match="rank"):
        dnp.quantile(A, np.ones((2, 2)))
    with pytest.raises(ValueError, match="out of bounds"):
        dnp.median(A, axis=3)
    with pytest.raises(ValueError, match="repeated"):
        dnp.median(A, axis=(0, 0))
    with pytest.raises(ValueError, match="overwrite_input"):
        dnp.median(A, overwrite_input=True)


def test_quantiles_under_jit_vmap_and_grad() -> None:
    _same(dx.jit(lambda a: dnp.median(a, axis=0))(A), jnp.median(A, axis=0))
    _same(dx.jit(lambda a, q: dnp.quantile(a, q, axis=1))(A, 0.25), jnp.quantile(A, 0.25, axis=1))
    _same(dx.vmap(dnp.nanmedian)(A_NAN), jax.vmap(jnp.nanmedian)(A_NAN))
    _same(
        dx.vmap(lambda q: dnp.percentile(A, q))(np.array([5.0, 50.0])),
        jax.vmap(lambda q: jnp.percentile(A, q))(np.array([5.0, 50.0])),
    )
    for method in ("linear", "midpoint", "nearest"):
        _same(
            dx.grad(lambda a, m=method: dnp.quantile(a, 0.3, axis=1, method=m).sum())(A),
            jax.grad(lambda a, m=method: jnp.quantile(a, 0.3, axis=1, method=m).sum())(A),
        )
    _same(dx.grad(lambda q: dnp.quantile(A, q))(0.37), jax.grad(lambda q: jnp.quantile(A, q))(0.37))


XP: Final = np.array([0.0, 1.0, 1.0, 3.0, 7.0])
FP: Final = np.array([1.0, 2.0, 5.0, -1.0, 4.0])
X: Final = np.linspace(-2.0, 9.0, 23)

INTERP_CASES: Final[dict[str, dict[str, Any]]] = {
    "default": {},
    "left/right": {"left": -5.0, "right": 9.0},
    "extrapolate": {"left": "extrapolate", "right": "extrapolate"},
    "period": {"period": 5.0},
}


@pytest.mark.parametrize("kwargs", INTERP_CASES.values(), ids=INTERP_CASES.keys())
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_interp(kwargs: dict[str, Any], dtype: Any) -> None:
    x, xp, fp = (v.astype(dtype) for v in (X, XP, FP))
    _same(dnp.interp(x, xp, fp, **kwargs), jnp.interp(x, xp, fp, **kwargs))
    _same(dx.jit(lambda x: dnp.interp(x, xp, fp, **kwargs))(x), jnp.interp(x, xp, fp, **kwargs))


def test_interp_ints_grads_and_errors() -> None:
    _same(
        dnp.interp(np.arange(5), np.arange(3), np.arange(3) * 2),
        jnp.interp(np.arange(5), np.arange(3), np.arange(3) * 2),
    )
    _same(dnp.interp(1.5, XP, FP), jnp.interp(1.5, XP, FP))
    # The zero-width interval at xp=1 gets a finite gradient, as JAX's.
    _same(
        dx.grad(lambda x: dnp.interp(x, XP, FP).sum())(X),
        jax.grad(lambda x: jnp.interp(x, XP, FP).sum())(X),
    )
    _same(
        dx.grad(lambda fp: dnp.interp(X, XP, fp).sum())(FP),
        jax.grad(lambda fp: jnp.interp(X, XP, fp).sum())(FP),
    )
    with pytest.raises(ValueError, match="one-dimensional"):
        dnp.interp(X, XP, FP[:3])
    with pytest.raises(ValueError, match="extrapolate"):
        dnp.interp(X, XP, FP, left="linear")


TRICKS: Final = [
    "r_[1:4, 0, np.array([7, 8])]",
    "r_[0:1:5j]",
    "r_[-1:1:6j, [0] * 3, 5, 6]",
    "r_['0,2', [1, 2, 3], [4, 5, 6]]",
    "r_['0,2,0', [1, 2, 3], [4, 5, 6]]",
    "r_['1,2,0', [1, 2, 3], [4, 5, 6]]",
    "r_['r', [1, 2, 3], [4, 5, 6]]",
    "r_['c', [1, 2, 3], [4, 5, 6]]",
    "r_[INTS, INTS]",
    "r_[1.5, 2]",
    "c_[np.array([1, 2, 3]), np.array([4, 5, 6])]",
    "c_[INTS, INTS]",
    "c_[np.array([[1, 2, 3]]), 0, 0, np.array([[4, 5, 6]])]",
    "mgrid[0:3, 0:2]",
    "mgrid[0:1:4j]",
    "mgrid[0:3, 0:1:3j]",
]


@pytest.mark.parametrize("expr", TRICKS)
def test_index_tricks(expr: str) -> None:
    env = {"np": np, "INTS": INTS}
    _same(eval("dnp." + expr, {"dnp": dnp, **env}), eval("jnp." + expr, {"jnp": jnp, **env}))


def test_ogrid_s_and_index_exp() -> None:
    for g, w in zip(dnp.ogrid[0:3, 0:2], jnp.ogrid[0:3, 0:2], strict=True):
        _same(g, w)
    assert dnp.s_[1:2, ::3] == jnp.s_[1:2, ::3]
    assert dnp.index_exp[2] == jnp.index_exp[2] == (2,)
    np.testing.assert_array_equal(
        dx.jit(lambda x: dnp.r_[x, 0.0, x])(np.ones(2)), [1.0, 1.0, 0.0, 1.0, 1.0]
    )
    with pytest.raises(ValueError, match="directive"):
        dnp.r_["a,b", [1]]
    with pytest.raises(ValueError, match="beginning"):
        dnp.r_[[1], "0"]
