"""didax.lax: one function per primitive, with strict types.

Operands of element-wise functions have one shape and one dtype, except that
weakly typed values (Python scalars) take their partner's dtype and shape.
The functions live in ``didax.core.lax.wrappers``; this module re-exports
them, and ``__all__`` is theirs.
"""

from didax.core.lax import wrappers as _wrappers
from didax.core.lax.wrappers import *  # noqa: F403

__all__ = [*_wrappers.__all__]
