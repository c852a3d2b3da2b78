"""didax's primitives, one module per family: declarations, typing rules and ``didax.lax`` wrappers.

Design rules:
- A primitive family lives in three modules of its name (the placement
  convention, ``tests/test_placement.py``): ``core.lax.<family>`` declares
  its primitives, registers their typing rules and holds its ``didax.lax``
  functions; ``interpreters.<family>`` registers every interpreter rule
  (impl, jvp, transpose, batching, flops); ``lowering.<family>`` its
  StableHLO lowering. The first-order families: ``elementwise``,
  ``structural``, ``slicing``, ``reductions``, ``contractions``
  (``dot_general``), ``conversions``, ``cumulative``, ``indexing``
  (gather, and what it shares with the scatters), ``scatter``, ``selection``
  (``select_n``, ``clamp``), ``sorting`` (with ``top_k``), ``bits``,
  ``special``, ``fft``, ``linalg``, ``eig`` (``geev``), ``schur`` (with ``hessenberg``),
  ``parallel`` (collectives),
  ``convolution``, ``windows`` (``reduce_window`` and its derivatives),
  ``random_bits`` (``rng_bit_generator``); ``ragged`` (``ragged_dot``)
  holds functions over ``dot_general``, and no primitive.
- The higher-order primitives, whose params hold programs, are families
  too: ``cond``, ``while_loop`` and ``scan`` (control flow, with
  ``WhileParams`` and ``ScanParams``), ``solves`` (``linear_solve_p``),
  the generic ``reduce_p`` and ``reduce_window_p`` (in their families), ``jit``, ``checkpoint`` and
  ``custom_derivatives`` (calls), and ``shard_map`` (a body run per device
  of a mesh); they are typed against ``programs.Program``, the types of a
  jaxpr, since core cannot import ``ir``.
- Inside didax, ``from didax.core import lax`` gives both kinds of names,
  as JAX's ``lax`` module does (``lax.add_p`` beside ``lax.add``), which
  is what interpreters' rules read best with, and the families' groups of
  primitives (``lax.COMPARISONS``, ``lax.SCATTERS``, ...). A family's
  ``__all__`` lists only its public names, which ``didax.lax`` re-exports.
  ``operands`` holds what the wrappers share; ``precision`` holds
  ``Precision`` and the canonical form of ``dot_general``'s ``precision``
  param.
- ``linalg`` (the decompositions: ``cholesky_p``, ``lu_p``, ...) stays a
  submodule, ``lax.linalg``, as in JAX, since its wrappers' names (``lu``,
  ``qr``, ``svd``) belong to that namespace.
"""

from typing import Final

from didax.core.lax import contractions as _contractions
from didax.core.lax import cumulative as _cumulative
from didax.core.lax import elementwise as _elementwise
from didax.core.lax import linalg as linalg
from didax.core.lax import reductions as _reductions
from didax.core.lax import schur as _schur  # noqa: F401  (registers its typing rules)
from didax.core.lax import slicing as _slicing
from didax.core.lax import structural as _structural
from didax.core.lax.bits import *  # noqa: F403
from didax.core.lax.bits import BIT_COUNTS as BIT_COUNTS
from didax.core.lax.bits import BIT_PRIMITIVES as BIT_PRIMITIVES
from didax.core.lax.bits import SHIFTS as SHIFTS
from didax.core.lax.callbacks import *  # noqa: F403
from didax.core.lax.checkify import *  # noqa: F403
from didax.core.lax.checkpoint import *  # noqa: F403
from didax.core.lax.cond import *  # noqa: F403
from didax.core.lax.contractions import *  # noqa: F403
from didax.core.lax.conversions import *  # noqa: F403
from didax.core.lax.convolution import *  # noqa: F403
from didax.core.lax.cumulative import *  # noqa: F403
from didax.core.lax.cumulative import CUMULATIVE_PRIMITIVES as CUMULATIVE_PRIMITIVES
from didax.core.lax.custom_derivatives import *  # noqa: F403
from didax.core.lax.eig import eig_p as eig_p
from didax.core.lax.elementwise import *  # noqa: F403
from didax.core.lax.elementwise import ARITHMETIC_BINARY as ARITHMETIC_BINARY
from didax.core.lax.elementwise import COMPARISONS as COMPARISONS
from didax.core.lax.elementwise import COMPLEX_PARTS as COMPLEX_PARTS
from didax.core.lax.elementwise import ELEMENTWISE as ELEMENTWISE
from didax.core.lax.elementwise import FLOAT_UNARY as FLOAT_UNARY
from didax.core.lax.elementwise import LOGICAL_BINARY as LOGICAL_BINARY
from didax.core.lax.elementwise import NUMERIC_UNARY as NUMERIC_UNARY
from didax.core.lax.elementwise import ROUND_AWAY_FROM_ZERO as ROUND_AWAY_FROM_ZERO
from didax.core.lax.elementwise import ROUND_TO_NEAREST_EVEN as ROUND_TO_NEAREST_EVEN
from didax.core.lax.ffi import *  # noqa: F403
from didax.core.lax.fft import *  # noqa: F403
from didax.core.lax.indexing import *  # noqa: F403
from didax.core.lax.jit import *  # noqa: F403
from didax.core.lax.linalg import LINALG_PRIMITIVES as LINALG_PRIMITIVES
from didax.core.lax.linear_call import *  # noqa: F403
from didax.core.lax.parallel import *  # noqa: F403
from didax.core.lax.precision import *  # noqa: F403
from didax.core.lax.random_bits import *  # noqa: F403
from didax.core.lax.reductions import *  # noqa: F403
from didax.core.lax.reductions import REDUCTIONS as REDUCTIONS
from didax.core.lax.scan import *  # noqa: F403
from didax.core.lax.scatter import *  # noqa: F403
from didax.core.lax.scatter import SCATTERS as SCATTERS
from didax.core.lax.selection import *  # noqa: F403
from didax.core.lax.selection import SELECTION_PRIMITIVES as SELECTION_PRIMITIVES
from didax.core.lax.shard_map import *  # noqa: F403
from didax.core.lax.slicing import *  # noqa: F403
from didax.core.lax.solves import *  # noqa: F403
from didax.core.lax.sorting import *  # noqa: F403
from didax.core.lax.special import *  # noqa: F403
from didax.core.lax.special import SPECIAL_BINARY as SPECIAL_BINARY
from didax.core.lax.special import SPECIAL_PRIMITIVES as SPECIAL_PRIMITIVES
from didax.core.lax.special import SPECIAL_TERNARY as SPECIAL_TERNARY
from didax.core.lax.special import SPECIAL_UNARY as SPECIAL_UNARY
from didax.core.lax.structural import *  # noqa: F403
from didax.core.lax.while_loop import *  # noqa: F403
from didax.core.lax.windows import *  # noqa: F403
from didax.core.primitive import Primitive

# Every standard primitive (the first-order families above that predate the
# family modules), for tests that walk them all.
STANDARD_PRIMITIVES: Final[tuple[Primitive, ...]] = (
    *_elementwise.ELEMENTWISE,
    _structural.broadcast_in_dim_p,
    _structural.reshape_p,
    _structural.transpose_p,
    _structural.squeeze_p,
    _structural.expand_dims_p,
    _slicing.slice_p,
    _slicing.dynamic_slice_p,
    _slicing.dynamic_update_slice_p,
    _structural.concatenate_p,
    _slicing.pad_p,
    _structural.rev_p,
    _structural.iota_p,
    *_reductions.REDUCTIONS,
    _reductions.argmax_p,
    _reductions.argmin_p,
    _cumulative.cumsum_p,
    _contractions.dot_general_p,
)
