"""didax.scipy.special: SciPy's special functions, as ``jax.scipy.special`` defines them.

``logsumexp``, ``erf``, ``erfc``, ``erfinv``, ``gammaln``, ``digamma``,
``xlogy``, ``xlog1py``, ``expit`` and ``logit``, re-exported from
``didax.api.scipy_special``; the gamma family, combinatorics and entropies
from ``didax.api.scipy_special_gamma``; the error-function relatives and
integrals from ``didax.api.scipy_special_integrals``; the exponential
integrals and Bessel functions from ``didax.api.scipy_special_expint``; the
hypergeometric functions and spherical harmonics from
``didax.api.scipy_special_hyper``.
"""

from didax.api import scipy_special as _scipy_special
from didax.api import scipy_special_dist as _dist
from didax.api import scipy_special_expint as _expint
from didax.api import scipy_special_gamma as _gamma
from didax.api import scipy_special_hyper as _hyper
from didax.api import scipy_special_integrals as _integrals
from didax.api.scipy_special import *  # noqa: F403
from didax.api.scipy_special_dist import *  # noqa: F403
from didax.api.scipy_special_expint import *  # noqa: F403
from didax.api.scipy_special_gamma import *  # noqa: F403
from didax.api.scipy_special_hyper import *  # noqa: F403
from didax.api.scipy_special_integrals import *  # noqa: F403

__all__ = [
    *_scipy_special.__all__,
    *_gamma.__all__,
    *_integrals.__all__,
    *_expint.__all__,
    *_hyper.__all__,
    *_dist.__all__,
]
