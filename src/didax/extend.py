"""didax.extend: define new primitives (see docs/primitives.md).

``Primitive`` and the values its rules see come from ``didax.api.extend``;
``lowering`` (``didax.extend.lowering``) is what a lowering rule builds
StableHLO with.
"""

from didax.api import extend as _extend
from didax.api import extend_lowering as lowering
from didax.api.extend import *  # noqa: F403

__all__ = [*_extend.__all__, "lowering"]
