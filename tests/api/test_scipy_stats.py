"""didax.scipy.stats against jax.scipy.stats: every function of every distribution module.

Each distribution's functions run on a grid with edge values (outside the
support, +-inf, NaN, invalid parameters) for values, and on an interior
grid for gradients with respect to ``x`` and to the parameters (where JAX
differentiates: ``beta``'s CDFs only in ``x``, as ``betainc``). Each table
is one compiled program per library (``scipy_checks``): values eagerly,
jitted and under vmap, in float32 and float64, and again in the 32-bit
default mode. Then the multivariate ones, ``mode``, ``rankdata``, ``sem``
and the refusals.
"""

from __future__ import annotations

from typing import Any, Final

import jax.scipy.stats as jst
import numpy as np
import pytest
from tests.api.scipy_checks import Case, check_table

import didax.scipy.stats as dst

INF, NAN = np.inf, np.nan
X: Final = [-INF, -3.0, -0.5, 0.0, 0.7, 2.5, INF, NAN]
# Cauchy's CDF at -inf (sf at inf) is 1/2 + arctan(-inf) / pi: exactly 0 eagerly (NumPy's arctan),
# a rounding error under XLA (whose log is NaN): a large finite x instead.
X_CAUCHY: Final = [-1e3, *X[1:6], 1e3, NAN]
POS: Final = [-1.0, 0.0, 0.2, 1.0, 2.5, 7.0, INF, NAN]  # for supports on [0, inf)
UNIT: Final = [-0.1, 0.0, 0.1, 0.5, 0.9, 1.0, 1.5, NAN]  # for [0, 1]
Q: Final = [0.0, 1e-6, 0.1, 0.5, 0.9, 1.0, -0.1, NAN]
LOC: Final = [0.0, 0.3, -1.0, 0.0, 1.0, 0.5, 0.0, 0.0]
SCALE: Final = [1.0, 2.0, 0.5, 1.0, 3.0, -1.0, 1.0, 1.0]  # one invalid scale
SHAPE: Final = [0.5, 1.0, 2.0, 3.5, 0.0, 9.0, 1.0, 2.0]  # one invalid (0) shape
SHAPE2: Final = [2.0, 0.5, 1.0, 1.5, 3.0, 2.0, 4.0, 1.0]
# Interior points for gradients.
GX: Final = [-1.5, -0.5, 0.2, 0.7, 1.3, 2.5]
GPOS: Final = [0.3, 0.9, 1.7, 2.5, 4.0, 6.0]
GUNIT: Final = [0.1, 0.25, 0.4, 0.6, 0.75, 0.9]
GQ: Final = [0.05, 0.2, 0.4, 0.6, 0.8, 0.95]
GLOC: Final = [0.0, 0.3, -0.2, 0.1, -0.4, 0.2]
GSCALE: Final = [1.0, 2.0, 0.5, 1.5, 3.0, 0.8]
GSHAPE: Final = [0.7, 1.0, 2.0, 3.5, 5.0, 9.0]
GSHAPE2: Final = [2.0, 0.5, 1.0, 1.5, 3.0, 2.0]


def _cases(
    dist: str,
    names: str,
    args: tuple[Any, ...],
    grad_args: tuple[Any, ...] = (),
    argnums: tuple[int, ...] | None = None,
) -> dict[str, Case]:
    """A case per function of ``dist`` in ``names``: ``m.<dist>.<name>(*args)``."""
    out = {}
    for name in names.split():
        nums = tuple(range(len(grad_args))) if argnums is None else argnums
        out[f"{dist}.{name}"] = Case(
            lambda m, *a, name=name: getattr(getattr(m, dist), name)(*a),
            args,
            nums if grad_args else (),
            grad_args,
        )
    return out


LS: Final = (LOC, SCALE)
GLS: Final = (GLOC, GSCALE)
CONTINUOUS: Final = {
    **_cases("norm", "logpdf pdf cdf logcdf sf logsf", (X, *LS), (GX, *GLS)),
    **_cases("norm", "ppf isf", (Q, *LS), (GQ, *GLS)),
    **_cases("cauchy", "logpdf pdf cdf logcdf sf logsf", (X_CAUCHY, *LS), (GX, *GLS)),
    **_cases("cauchy", "ppf isf", (Q, *LS), (GQ, *GLS)),
    **_cases("expon", "logpdf pdf cdf logcdf sf logsf", (POS, *LS), (GPOS, GLOC, GSCALE)),
    **_cases("expon", "ppf", (Q, *LS), (GQ, *GLS)),
    **_cases("laplace", "logpdf pdf cdf", (X, *LS), (GX, *GLS)),
    **_cases("logistic", "logpdf pdf cdf sf", (X, *LS), (GX, *GLS)),
    **_cases("logistic", "ppf isf", (Q, *LS), (GQ, *GLS)),
    **_cases("uniform", "logpdf pdf cdf", (X, *LS), (GX, GLOC, [4.0] * 6)),
    **_cases("uniform", "ppf", (Q, *LS), (GQ, *GLS)),
    # JAX cannot differentiate the Gumbel densities and quantiles (its xlogy(-1, scale)
    # gets an integer tangent): those are compared in value only.
    **_cases("gumbel_l", "cdf logcdf sf logsf", (X, *LS), (GX, *GLS)),
    **_cases("gumbel_l", "logpdf pdf", (X, *LS)),
    **_cases("gumbel_l", "ppf", (Q, *LS)),
    **_cases("gumbel_r", "cdf logcdf sf logsf", (X, *LS), (GX, *GLS)),
    **_cases("gumbel_r", "logpdf pdf", (X, *LS)),
    **_cases("gumbel_r", "ppf", (Q, *LS)),
    **_cases(
        "pareto",
        "logpdf pdf cdf logcdf sf logsf",
        (POS, SHAPE, *LS),
        (GPOS, GSHAPE, GLOC, [0.2] * 6),
    ),
    **_cases("pareto", "ppf", (Q, SHAPE, *LS), (GQ, GSHAPE, *GLS)),
    **_cases("t", "logpdf pdf", (X, SHAPE, *LS), (GX, GSHAPE, *GLS)),
    **_cases("chi2", "logpdf pdf", (POS, SHAPE, *LS), (GPOS, GSHAPE, GLOC, GSCALE)),
    **_cases("gamma", "logpdf pdf", (POS, SHAPE, *LS), (GPOS, GSHAPE, GLOC, GSCALE)),
    **_cases("beta", "logpdf pdf", (UNIT, SHAPE, SHAPE2, *LS), (GUNIT, GSHAPE, GSHAPE2)),
    **_cases("gennorm", "logpdf pdf", (X, SHAPE), (GX, GSHAPE)),
    **_cases("vonmises", "logpdf pdf", (X, SHAPE), (GX, GSHAPE)),
    **_cases("wrapcauchy", "logpdf pdf", (POS, UNIT), (GPOS, GUNIT)),
    **_cases(
        "truncnorm",
        "logpdf pdf cdf logcdf sf logsf",
        (X, [-1.0] * 8, [2.0] * 8),
        (GX[:4], [-2.0] * 4, [1.5] * 4),
    ),
    **_cases("truncnorm", "logpdf cdf logsf", (X, [3.0] * 8, [8.0] * 8, LOC, SCALE)),
}
# Through the incomplete gamma and beta functions (slow to compile: a table of their own).
INCOMPLETE: Final = {
    **_cases("chi2", "cdf logcdf sf logsf", (POS, SHAPE, *LS), (GPOS, GSHAPE)),
    **_cases("gamma", "cdf logcdf sf logsf", (POS, SHAPE, *LS), (GPOS, GSHAPE)),
    **_cases(
        "beta", "cdf logcdf sf logsf", (UNIT, SHAPE, SHAPE2, *LS), (GUNIT, GSHAPE, GSHAPE2), (0,)
    ),
    **_cases("gennorm", "cdf", (X, SHAPE), (GX, GSHAPE)),
    **_cases(
        "poisson", "cdf", ([-1.0, 0.0, 1.0, 2.5, 3.0, 10.0, INF, NAN], SHAPE), (GPOS, GSHAPE), (1,)
    ),
}
K: Final = [-1.0, 0.0, 1.0, 2.0, 3.0, 2.5, 7.0, NAN]
P: Final = [0.5, 0.2, 1.0, 0.0, 0.7, 0.3, 1.5, 0.4]
N: Final = [3.0, 1.0, 5.0, 2.0, 0.0, 4.0, 6.0, 3.0]
GK: Final = [0.0, 1.0, 2.0, 3.0, 1.0, 4.0]
GP: Final = [0.5, 0.2, 0.9, 0.1, 0.7, 0.3]
GN: Final = [3.0, 2.0, 5.0, 4.0, 1.0, 6.0]
DISCRETE: Final = {
    **_cases("bernoulli", "logpmf pmf", (K, P, LOC), (GK, GP), (1,)),
    **_cases("bernoulli", "cdf", (K, P), (GK, GP), (1,)),
    **_cases("bernoulli", "ppf", (Q, P)),
    **_cases("binom", "logpmf pmf", (K, N, P, LOC), (GK, GN, GP), (2,)),
    **_cases(
        "betabinom", "logpmf pmf", (K, N, SHAPE, SHAPE2, LOC), (GK, GN, GSHAPE, GSHAPE2), (2, 3)
    ),
    **_cases("geom", "logpmf pmf", (K, P, LOC), (GK, GP), (1,)),
    **_cases("nbinom", "logpmf pmf", (K, N, P, LOC), (GK, GN, GP), (1, 2)),
    **_cases("poisson", "logpmf pmf", (K, SHAPE, LOC), (GK, GSHAPE), (1,)),
    **_cases("poisson", "entropy", ([0.0, 0.5, 3.0, 9.9, 10.0, 50.0, 100.0, 1e4],), (GSHAPE,)),
}
DTYPES: Final = pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])


@DTYPES
@pytest.mark.parametrize(
    "table", ["continuous", "incomplete", "discrete"], ids=["continuous", "incomplete", "discrete"]
)
def test_distributions_against_jax(table: str, dtype: Any) -> None:
    cases = {"continuous": CONTINUOUS, "incomplete": INCOMPLETE, "discrete": DISCRETE}[table]
    check_table(dst, jst, cases, dtype, ulps=512, grad_ulps=2048)


@pytest.mark.x64_off
def test_32_bit_mode() -> None:
    # float64 data becomes float32 (ppf: the default float, float32 here), as in JAX.
    check_table(dst, jst, {**CONTINUOUS, **DISCRETE}, np.float64, ulps=512, grad_ulps=2048)
