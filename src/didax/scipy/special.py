"""didax.scipy.special: SciPy's special functions, as ``jax.scipy.special`` defines them.

``logsumexp``, ``erf``, ``erfc``, ``erfinv``, ``gammaln``, ``digamma``,
``xlogy``, ``xlog1py``, ``expit`` and ``logit``, re-exported from
``didax.api.scipy_special``.
"""

from didax.api import scipy_special as _scipy_special
from didax.api import scipy_special_dist as _scipy_special_dist
from didax.api.scipy_special import *  # noqa: F403
from didax.api.scipy_special_dist import *  # noqa: F403

__all__ = [*_scipy_special.__all__, *_scipy_special_dist.__all__]
