"""The standard primitives: declarations, typing rules and ``didax.lax``'s bind wrappers.

Three modules, one concern each: ``primitives`` declares them (``add_p``,
...), ``typing_rules`` registers their abstract-evaluation rules, and
``wrappers`` holds the strict ``didax.lax`` functions (``add``, ...).
Inside didax, ``from didax.core import lax`` gives both kinds of names, as
JAX's ``lax`` module does (``lax.add_p`` beside ``lax.add``), which is what
interpreters' rules read best with.

``indexing`` holds a family whole (``gather_p`` and the scatters, their
dimension numbers, typing rules and wrappers), as ``cumulative`` does
(``cumprod_p``, ``cummax_p``, ``cummin_p``, ``cumlogsumexp_p``) and ``fft``
(``fft_p`` and ``FftType``); ``precision`` holds ``Precision`` and the
canonical form of ``dot_general``'s ``precision`` param.
``linalg`` (the decompositions: ``cholesky_p``, ``lu_p``, ...) stays a
submodule, ``lax.linalg``, as in JAX, since its wrappers' names (``lu``,
``qr``, ``svd``) belong to that namespace.
"""

from didax.core.lax import linalg as linalg
from didax.core.lax import typing_rules as _typing_rules  # noqa: F401  (registers the rules)
from didax.core.lax.bits import *  # noqa: F403
from didax.core.lax.contractions import *  # noqa: F403
from didax.core.lax.conversions import *  # noqa: F403
from didax.core.lax.cumulative import *  # noqa: F403
from didax.core.lax.fft import *  # noqa: F403
from didax.core.lax.indexing import *  # noqa: F403
from didax.core.lax.linalg import LINALG_PRIMITIVES as LINALG_PRIMITIVES
from didax.core.lax.parallel import *  # noqa: F403
from didax.core.lax.precision import *  # noqa: F403
from didax.core.lax.primitives import *  # noqa: F403
from didax.core.lax.reductions import *  # noqa: F403
from didax.core.lax.slicing import *  # noqa: F403
from didax.core.lax.sorting import *  # noqa: F403
from didax.core.lax.special import *  # noqa: F403
from didax.core.lax.structural import *  # noqa: F403
from didax.core.lax.wrappers import *  # noqa: F403
