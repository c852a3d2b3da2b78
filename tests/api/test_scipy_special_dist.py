"""didax.scipy.special's distribution functions against jax.scipy.special's.

``ndtr``, ``ndtri``, ``log_ndtr``, ``gammainc``, ``gammaincc``,
``betainc``, ``beta`` and ``betaln``: values eagerly and jitted, under
vmap and their gradients (where JAX differentiates), in float32 and
float64, over grids with edge values (0, +-inf, NaN, huge and tiny
arguments, both tails); then the same in the 32-bit default mode, and the
refusals. Each table is one compiled program per library (see
``scipy_checks``).
"""

from __future__ import annotations

from typing import Any, Final, cast

import jax.scipy.special as jsp
import numpy as np
import pytest
from tests.api.scipy_checks import Case, check_table, compare

import didax.scipy.special as dsp

INF, NAN = np.inf, np.nan
X: Final = [-INF, -40.0, -25.0, -15.0, -6.0, -1.0, -0.0, 0.0, 0.3, 1.0, 6.0, 9.0, 40.0, INF, NAN]
# Probabilities: 0, tiny (both Cephes tails), ordinary, 1, outside [0, 1], NaN.
P: Final = [0.0, 1e-30, 1e-20, 1e-5, 0.01, 0.1, 0.5, 0.9, 0.99, 1.0, -0.1, 1.1, NAN]
A: Final = [0.5, 1.0, 2.0, 5.0, 20.0, 100.0, 1e4, 1e-3, 0.0, -1.0, INF, NAN]
B: Final = [1.0, 0.5, 3.0, 2.0, 9.0, 50.0, 1e5, 7.0, 1.0, 2.0, 1.0, 1.0]
GX: Final = [0.1, 0.5, 3.0, 0.0, 25.0, 90.0, 1e4, 1.0, 0.5, 0.5, INF, 0.2]
BX: Final = [0.1, 0.5, 0.9, 0.3, 0.5, 0.6, 0.5, 1.0, 0.0, 0.5, -0.5, NAN]
# Positive and well inside the domain: where gradients are compared.
GA: Final = [0.5, 1.0, 2.0, 5.0, 20.0, 3.5]
GB: Final = [1.0, 0.5, 3.0, 2.0, 9.0, 12.0]
GBX: Final = [0.1, 0.5, 0.9, 0.3, 0.5, 0.6]

# The cheap functions (no igamma or betainc: those compile slowly).
ELEMENTARY: Final = {
    "ndtr": Case(lambda m, x: m.ndtr(x), (X,), (0,), (X[1:-4],)),
    "log_ndtr": Case(lambda m, x: m.log_ndtr(x), (X,), (0,), (X[1:-2],)),
    "log_ndtr_order_0": Case(lambda m, x: m.log_ndtr(x, series_order=0), (X,), (0,), (X[1:6],)),
    "log_ndtr_order_7": Case(lambda m, x: m.log_ndtr(x, series_order=7), (X,)),
    "ndtri": Case(lambda m, p: m.ndtri(p), (P,), (0,), (P[3:9],)),
    "beta": Case(lambda m, a, b: m.beta(a, b), (A, B), (0, 1), (GA, GB)),
    "betaln": Case(lambda m, a, b: m.betaln(a, b), (A, B), (0, 1), (GA, GB)),
    "beta_negative": Case(
        lambda m, a, b: m.beta(a, b), ([-0.5, -1.5, -2.0, -0.0], [1.5, 0.25, 1.0, 2.0])
    ),
}
INCOMPLETE: Final = {
    "gammainc": Case(lambda m, a, x: m.gammainc(a, x), (A, GX), (0, 1), (GA, GB)),
    "gammaincc": Case(lambda m, a, x: m.gammaincc(a, x), (A, GX), (0, 1), (GA, GB)),
    "betainc": Case(lambda m, a, b, x: m.betainc(a, b, x), (A, B, BX), (2,), (GA, GB, GBX)),
}
# float32 is the slow session's (test_32_bit_mode runs float32 in CI).
DTYPES: Final = pytest.mark.parametrize(
    "dtype", [pytest.param(np.float32, marks=pytest.mark.slow), np.float64], ids=["f32", "f64"]
)


@DTYPES
def test_elementary_against_jax(dtype: Any) -> None:
    check_table(dsp, jsp, ELEMENTARY, dtype, ulps=256)


@DTYPES
def test_incomplete_gamma_and_beta_against_jax(dtype: Any) -> None:
    check_table(dsp, jsp, INCOMPLETE, dtype, ulps=256)


@pytest.mark.x64_off
def test_32_bit_mode() -> None:
    # float64 NumPy data becomes float32, as in JAX.
    check_table(dsp, jsp, ELEMENTARY, np.float64, ulps=256)


def test_scalars_and_integers() -> None:
    compare(dsp.gammainc(2, 3), jsp.gammainc(2, 3))
    compare(dsp.gammaincc(2.0, 3), jsp.gammaincc(2.0, 3))
    compare(dsp.betainc(2, 3.0, 0.5), jsp.betainc(2, 3.0, 0.5))
    compare(dsp.betaln(2, 3), jsp.betaln(2, 3))
    compare(dsp.beta(2.0, np.float32(3.0)), jsp.beta(2.0, np.float32(3.0)))
    compare(dsp.ndtr(1.5), jsp.ndtr(1.5))
    compare(dsp.ndtri(0.25), jsp.ndtri(0.25))
    compare(dsp.log_ndtr(-3.0), jsp.log_ndtr(-3.0))


def test_refusals() -> None:
    with pytest.raises(TypeError, match="ndtr"):
        dsp.ndtr(np.array([1, 2]))
    with pytest.raises(TypeError, match="ndtri"):
        dsp.ndtri(np.array([0.5], np.float16))
    with pytest.raises(TypeError, match="series_order"):
        dsp.log_ndtr(1.0, series_order=cast(int, 2.0))
    with pytest.raises(ValueError, match="series_order"):
        dsp.log_ndtr(1.0, series_order=31)
    with pytest.raises(TypeError, match="betaln"):
        dsp.betaln(np.array([1j]), 2.0)
