"""didax.scipy.stats: SciPy's statistical distributions and statistics, as ``jax.scipy.stats``.

One module per distribution (``didax.scipy.stats.norm``, ...), each with the
functions JAX's module of that name has, and ``mode``, ``rankdata``,
``sem`` and ``gaussian_kde``; they live in ``didax.api.stats`` and this
package only re-exports them.
"""

from didax.api.stats.descriptive import ModeResult as ModeResult
from didax.api.stats.descriptive import mode as mode
from didax.api.stats.descriptive import rankdata as rankdata
from didax.api.stats.descriptive import sem as sem
from didax.api.stats.kde import gaussian_kde as gaussian_kde
from didax.scipy.stats import bernoulli as bernoulli
from didax.scipy.stats import beta as beta
from didax.scipy.stats import betabinom as betabinom
from didax.scipy.stats import binom as binom
from didax.scipy.stats import cauchy as cauchy
from didax.scipy.stats import chi2 as chi2
from didax.scipy.stats import dirichlet as dirichlet
from didax.scipy.stats import expon as expon
from didax.scipy.stats import gamma as gamma
from didax.scipy.stats import gennorm as gennorm
from didax.scipy.stats import geom as geom
from didax.scipy.stats import gumbel_l as gumbel_l
from didax.scipy.stats import gumbel_r as gumbel_r
from didax.scipy.stats import laplace as laplace
from didax.scipy.stats import logistic as logistic
from didax.scipy.stats import multinomial as multinomial
from didax.scipy.stats import multivariate_normal as multivariate_normal
from didax.scipy.stats import nbinom as nbinom
from didax.scipy.stats import norm as norm
from didax.scipy.stats import pareto as pareto
from didax.scipy.stats import poisson as poisson
from didax.scipy.stats import t as t
from didax.scipy.stats import truncnorm as truncnorm
from didax.scipy.stats import uniform as uniform
from didax.scipy.stats import vonmises as vonmises
from didax.scipy.stats import wrapcauchy as wrapcauchy

__all__ = [
    "bernoulli",
    "beta",
    "betabinom",
    "binom",
    "cauchy",
    "chi2",
    "dirichlet",
    "expon",
    "gamma",
    "gennorm",
    "geom",
    "gumbel_l",
    "gumbel_r",
    "laplace",
    "logistic",
    "multinomial",
    "multivariate_normal",
    "nbinom",
    "norm",
    "pareto",
    "poisson",
    "t",
    "truncnorm",
    "uniform",
    "vonmises",
    "wrapcauchy",
    "mode",
    "rankdata",
    "sem",
    "gaussian_kde",
]
