"""didax.random: JAX's counter-based PRNG (Threefry-2x32), bit for bit.

The functions live in ``didax.api.random`` (the first samplers),
``didax.api.random_gamma`` (the gamma family), ``didax.api.random_samplers``,
``didax.api.random_discrete`` and ``didax.api.random_on_gamma`` (the rest) and
``didax.api.prng`` (keys, bits); this module re-exports their ``__all__``.

    >>> import didax.random as random
    >>> k1, k2 = random.split(random.PRNGKey(0))
    >>> random.uniform(k1, (2,)).shape
    (2,)
"""

from didax.api import random as _random
from didax.api import random_discrete as _random_discrete
from didax.api import random_gamma as _random_gamma
from didax.api import random_on_gamma as _random_on_gamma
from didax.api import random_samplers as _random_samplers
from didax.api.random import *  # noqa: F403
from didax.api.random_discrete import *  # noqa: F403
from didax.api.random_gamma import *  # noqa: F403
from didax.api.random_on_gamma import *  # noqa: F403
from didax.api.random_samplers import *  # noqa: F403

__all__ = [
    *_random.__all__,
    *_random_gamma.__all__,
    *_random_samplers.__all__,
    *_random_discrete.__all__,
    *_random_on_gamma.__all__,
]
