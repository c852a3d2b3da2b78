"""didax.random: JAX's counter-based PRNG (Threefry-2x32), bit for bit.

The functions live in ``didax.api.random`` (samplers) and ``didax.api.prng`` (keys,
bits); this module re-exports them.

    >>> import didax.random as random
    >>> k1, k2 = random.split(random.PRNGKey(0))
    >>> random.uniform(k1, (2,)).shape
    (2,)
"""

from didax.api.random import PRNGKey as PRNGKey
from didax.api.random import PRNGKeyArray as PRNGKeyArray
from didax.api.random import bernoulli as bernoulli
from didax.api.random import bits as bits
from didax.api.random import categorical as categorical
from didax.api.random import choice as choice
from didax.api.random import fold_in as fold_in
from didax.api.random import gumbel as gumbel
from didax.api.random import key as key
from didax.api.random import key_data as key_data
from didax.api.random import normal as normal
from didax.api.random import permutation as permutation
from didax.api.random import randint as randint
from didax.api.random import split as split
from didax.api.random import truncated_normal as truncated_normal
from didax.api.random import uniform as uniform
from didax.api.random import wrap_key_data as wrap_key_data

__all__ = [
    "PRNGKey",
    "PRNGKeyArray",
    "key",
    "key_data",
    "wrap_key_data",
    "split",
    "fold_in",
    "bits",
    "uniform",
    "normal",
    "truncated_normal",
    "bernoulli",
    "randint",
    "categorical",
    "permutation",
    "choice",
    "gumbel",
]
