"""The standard primitives: declarations, typing rules and ``didax.lax``'s bind wrappers.

Three modules, one concern each: ``primitives`` declares them (``add_p``,
...), ``typing_rules`` registers their abstract-evaluation rules, and
``wrappers`` holds the strict ``didax.lax`` functions (``add``, ...).
Inside didax, ``from didax.core import lax`` gives both kinds of names, as
JAX's ``lax`` module does (``lax.add_p`` beside ``lax.add``), which is what
interpreters' rules read best with.

Each family is whole in its module: ``indexing`` (``gather_p``, its typing
rule and wrapper, and the dimension numbers and modes it shares with the
scatters), ``scatter`` (``scatter_p``, ``scatter_add_p``, ...),
``cumulative`` (``cumprod_p``, ``cummax_p``, ``cummin_p``,
``cumlogsumexp_p``) and ``fft`` (``fft_p`` and ``FftType``); ``precision``
holds ``Precision`` and the canonical form of ``dot_general``'s
``precision`` param.
The higher-order primitives, whose params hold programs, are families
too: ``cond``, ``while_loop`` and ``scan`` (control flow, with
``WhileParams`` and ``ScanParams``), ``jit``, ``checkpoint`` and
``custom_derivatives`` (calls), and ``shard_map`` (a body run per
device of a mesh); they are typed against
``programs.Program``, the types of a jaxpr, since core cannot import ``ir``.
``linalg`` (the decompositions: ``cholesky_p``, ``lu_p``, ...) stays a
submodule, ``lax.linalg``, as in JAX, since its wrappers' names (``lu``,
``qr``, ``svd``) belong to that namespace.
"""

from didax.core.lax import linalg as linalg
from didax.core.lax import typing_rules as _typing_rules  # noqa: F401  (registers the rules)
from didax.core.lax.bits import *  # noqa: F403
from didax.core.lax.checkpoint import *  # noqa: F403
from didax.core.lax.cond import *  # noqa: F403
from didax.core.lax.cumulative import *  # noqa: F403
from didax.core.lax.custom_derivatives import *  # noqa: F403
from didax.core.lax.fft import *  # noqa: F403
from didax.core.lax.indexing import *  # noqa: F403
from didax.core.lax.jit import *  # noqa: F403
from didax.core.lax.linalg import LINALG_PRIMITIVES as LINALG_PRIMITIVES
from didax.core.lax.parallel import *  # noqa: F403
from didax.core.lax.precision import *  # noqa: F403
from didax.core.lax.primitives import *  # noqa: F403
from didax.core.lax.scan import *  # noqa: F403
from didax.core.lax.scatter import *  # noqa: F403
from didax.core.lax.shard_map import *  # noqa: F403
from didax.core.lax.sorting import *  # noqa: F403
from didax.core.lax.special import *  # noqa: F403
from didax.core.lax.while_loop import *  # noqa: F403
from didax.core.lax.wrappers import *  # noqa: F403
