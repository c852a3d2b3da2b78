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

from typing import Any, Final, cast

import jax
import jax.scipy.stats as jst
import numpy as np
import pytest
from tests.api.scipy_checks import Case, check_table, compare

import didax as dx
import didax.scipy.stats as dst

INF, NAN = np.inf, np.nan
X: Final = [-INF, -3.0, -0.5, 0.0, 0.7, 2.5, INF, NAN]
# Cauchy's CDF at -inf (sf at inf) is 1/2 + arctan(-inf) / pi: exactly 0 eagerly (NumPy's arctan),
# a rounding error under XLA (whose log is NaN): a large finite x instead.
X_CAUCHY: Final = [-1e3, *X[1:6], 1e3, NAN]
# Gumbel's z - exp(z) at z = +-inf is NaN in NumPy (eager) but inf under XLA in float32.
X_GUMBEL: Final = [-40.0, *X[1:6], 40.0, NAN]
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
    **_cases("gumbel_l", "cdf logcdf sf logsf", (X_GUMBEL, *LS), (GX, *GLS)),
    **_cases("gumbel_l", "logpdf pdf", (X_GUMBEL, *LS)),
    **_cases("gumbel_l", "ppf", (Q, *LS)),
    **_cases("gumbel_r", "cdf logcdf sf logsf", (X_GUMBEL, *LS), (GX, *GLS)),
    **_cases("gumbel_r", "logpdf pdf", (X_GUMBEL, *LS)),
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
# The slow session's: CI's slice is test_32_bit_mode (four families in float32)
# and the multivariate, descriptive and KDE tests below.
DTYPES: Final = pytest.mark.parametrize(
    "dtype",
    [
        pytest.param(np.float32, marks=pytest.mark.slow),
        pytest.param(np.float64, marks=pytest.mark.slow),
    ],
    ids=["f32", "f64"],
)
MULTIVARIATE_DTYPES: Final = pytest.mark.parametrize(
    "dtype", [pytest.param(np.float32, marks=pytest.mark.slow), np.float64], ids=["f32", "f64"]
)


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
    # A few families only: the dtype rule is one function (arguments.inexact) for all.
    table = {
        k: c
        for k, c in {**CONTINUOUS, **DISCRETE}.items()
        if k.split(".")[0] in ("norm", "gamma", "poisson", "bernoulli")
    }
    check_table(dst, jst, table, np.float64, ulps=512, grad_ulps=2048)


_RNG: Final = np.random.default_rng(0)
_COV: Final = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]])
_SIMPLEX: Final = np.array([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.5, 0.5, 0.0], [0.6, 0.5, 0.1]]).T
MULTIVARIATE: Final = {
    "mvn_matrix": Case(
        lambda m, x, mu, c: m.multivariate_normal.logpdf(x, mu, c),
        (_RNG.normal(size=(4, 3)), np.array([0.1, -0.2, 0.3]), _COV),
        (0, 1, 2),
        (_RNG.normal(size=(4, 3)), np.array([0.1, -0.2, 0.3]), _COV),
        vmap=False,
    ),
    "mvn_batched_cov": Case(
        lambda m, x, mu, c: m.multivariate_normal.pdf(x, mu, c),
        (_RNG.normal(size=(2, 3)), np.zeros(3), np.stack([_COV, 2 * _COV])),
        vmap=False,
    ),
    "mvn_scalar_cov": Case(
        lambda m, x, mu: m.multivariate_normal.logpdf(x, mu, 1.5),
        (_RNG.normal(size=(4, 3)), np.array([0.1, -0.2, 0.3])),
        (0, 1),
        (_RNG.normal(size=(4, 3)), np.array([0.1, -0.2, 0.3])),
        vmap=False,
    ),
    "mvn_scalar_mean": Case(
        lambda m, x: m.multivariate_normal.logpdf(x, 0.5, 2.0), (np.array([0.0, 1.0, -3.0]),)
    ),
    "dirichlet": Case(
        lambda m, x, a: m.dirichlet.logpdf(x, a),
        (_SIMPLEX, np.array([1.5, 2.0, 0.7])),
        (1,),
        (_SIMPLEX[:, :2], np.array([1.5, 2.0, 0.7])),
        vmap=False,
    ),
    "dirichlet_short": Case(
        lambda m, x, a: m.dirichlet.pdf(x, a), (_SIMPLEX[:2], np.array([1.5, 2.0, 0.7])), vmap=False
    ),
    "multinomial": Case(
        lambda m, x, p: m.multinomial.logpmf(x, 6, p),
        (np.array([[1, 2, 3], [0, 0, 6], [2, 2, 1]]), np.array([0.2, 0.3, 0.5])),
        (1,),
        (np.array([[1, 2, 3], [0, 0, 6]]), np.array([0.2, 0.3, 0.5])),
        vmap=False,
    ),
}


@MULTIVARIATE_DTYPES
def test_multivariate_against_jax(dtype: Any) -> None:
    # Integer counts stay integers (multinomial requires them); the rest become ``dtype``.
    table = {
        k: Case(
            c.fn,
            tuple(a if a.dtype.kind == "i" else a.astype(dtype) for a in c.args),
            c.argnums,
            tuple(a if a.dtype.kind == "i" else a.astype(dtype) for a in c.grad_args),
            c.vmap,
        )
        for k, c in MULTIVARIATE.items()
    }
    check_table(dst, jst, table, dtype, ulps=512, grad_ulps=2048)


DATA: Final = np.array([[3.0, 1.0, 3.0, 2.0], [2.0, NAN, 3.0, 2.0], [1.0, 1.0, 2.0, 5.0]])
INTS: Final = np.array([[4, 1, 4, 2, 2], [0, 0, 7, 7, 1]])


@pytest.mark.parametrize(
    "axis",
    [
        pytest.param(0, marks=pytest.mark.slow),
        pytest.param(1, marks=pytest.mark.slow),
        pytest.param(-1, marks=pytest.mark.slow),
        None,
    ],
)
def test_mode_rankdata_sem_against_jax(axis: int | None) -> None:
    for data in (DATA, INTS, DATA[:, :0] if axis == 1 else DATA):
        for keepdims in (False, True):
            compare(
                dst.mode(data, axis, keepdims=keepdims), jst.mode(data, axis, keepdims=keepdims)
            )
        for ddof in (0, 1):
            compare(dst.sem(data, axis, ddof), jst.sem(data, axis, ddof), types=False)
            compare(
                dst.sem(data, axis, ddof, "omit"), jst.sem(data, axis, ddof, "omit"), types=False
            )
    for method in ("average", "min", "max", "dense", "ordinal"):
        for data in (DATA, INTS, np.array([[2.0, 2.0], [1.0, 2.0]])):
            compare(dst.rankdata(data, method, axis=axis), jst.rankdata(data, method, axis=axis))
    compare(dx.jit(lambda a: dst.mode(a, axis))(INTS), jax.jit(lambda a: jst.mode(a, axis))(INTS))
    compare(
        dx.jit(lambda a: dst.rankdata(a, axis=axis))(DATA),
        jax.jit(lambda a: jst.rankdata(a, axis=axis))(DATA),
    )


def test_gaussian_kde_against_jax() -> None:
    data, w = _RNG.normal(size=(2, 20)), _RNG.uniform(size=20)
    pts = _RNG.normal(size=(2, 5))
    methods: tuple[Any, ...] = (None, "silverman", 0.4, lambda k: 0.5 * k.neff ** (-1 / 6))
    for bw in methods:
        ours, theirs = dst.gaussian_kde(data, bw, w), jst.gaussian_kde(data, bw, w)
        for attr in ("neff", "dataset", "weights", "covariance", "inv_cov"):
            compare(getattr(ours, attr), getattr(theirs, attr), ulps=512, types=False)
        compare(ours(pts), theirs(pts), ulps=512)
        compare(ours.logpdf(pts), theirs.logpdf(pts), ulps=512)
    mean, cov = np.array([0.1, 0.2]), np.eye(2)
    compare(ours.integrate_gaussian(mean, cov), theirs.integrate_gaussian(mean, cov), ulps=512)
    compare(ours.integrate_kde(ours), theirs.integrate_kde(theirs), ulps=512)
    one, one_j = dst.gaussian_kde(data[0]), jst.gaussian_kde(data[0])
    compare(one.integrate_box_1d(-0.5, 1.0), one_j.integrate_box_1d(-0.5, 1.0), ulps=512)
    compare(one.pdf(0.3), one_j.pdf(0.3), ulps=512)
    compare(
        dx.jit(lambda k, p: k.logpdf(p))(ours, pts),
        jax.jit(lambda k, p: k.logpdf(p))(theirs, pts),
        ulps=512,
    )
    # resample: the same draws as JAX's for the same key.
    got = ours.resample(dx.random.PRNGKey(3), (4,))
    want = theirs.resample(jax.random.PRNGKey(3), (4,))
    compare(got, want, ulps=512)
    with pytest.raises(NotImplementedError, match="integrate_box_1d"):
        ours.integrate_box(0.0, 1.0)
    with pytest.raises(NotImplementedError, match="bandwidth"):
        ours.set_bandwidth("scott")
    with pytest.raises(ValueError, match="bw_method"):
        dst.gaussian_kde(data, "nope")


def test_scalars_and_integers() -> None:
    # Python scalars stay weak; integers become the default float, as in JAX.
    for f in (
        lambda m: m.norm.logpdf(1.0),
        lambda m: m.norm.cdf(1, 0, 2),
        lambda m: m.expon.logpdf(2, scale=3),
        lambda m: m.poisson.logpmf(3, 2.5),
        lambda m: m.gamma.logpdf(np.float32(2.0), 2),
        lambda m: m.t.pdf(0.5, 3),
        lambda m: m.norm.ppf(np.float32(0.3)),
        lambda m: m.poisson.entropy(np.array([0.5, 20.0, 200.0])),
    ):
        compare(f(dst), f(jst), ulps=512, types=False)


def test_refusals() -> None:
    with pytest.raises(TypeError, match=r"norm\.logpdf"):
        dst.norm.logpdf(np.array([1j]))
    with pytest.raises(TypeError, match=r"norm\.logpdf"):  # a ShapeError
        dst.norm.logpdf(np.zeros(3), np.zeros(2))
    with pytest.raises(ValueError, match="integer"):
        dst.multinomial.logpmf(np.array([1.0, 2.0]), 3, np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="alpha"):
        dst.dirichlet.logpdf(np.array([0.5, 0.5]), np.ones((2, 2)))
    with pytest.raises(ValueError, match="incompatible"):
        dst.multivariate_normal.logpdf(np.zeros(3), np.zeros(3), np.eye(2))
    with pytest.raises(NotImplementedError, match="allow_singular"):
        dst.multivariate_normal.logpdf(
            np.zeros(2), np.zeros(2), np.eye(2), allow_singular=cast(None, True)
        )
    with pytest.raises(NotImplementedError, match="omit"):
        dst.mode(DATA, nan_policy="omit")
    with pytest.raises(ValueError, match="nan_policy"):
        dst.rankdata(DATA, nan_policy="nope")
    with pytest.raises(ValueError, match="method"):
        dst.rankdata(DATA, "nope")
