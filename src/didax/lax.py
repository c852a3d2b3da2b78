"""didax.lax: one function per primitive, with strict types, and control flow.

Operands of element-wise functions have one shape and one dtype, except that
weakly typed values (Python scalars) take their partner's dtype and shape.
The functions live in ``didax.core.lax.wrappers`` (the bind wrappers) and
``didax.api.control_flow`` (``cond``, ``switch``, ``while_loop``,
``fori_loop``, ``scan``, ``map``); this module re-exports their ``__all__``.
"""

from didax.api import control_flow as _control_flow
from didax.api.control_flow import *  # noqa: F403
from didax.core.lax import wrappers as _wrappers
from didax.core.lax.wrappers import *  # noqa: F403

__all__ = [*_wrappers.__all__, *_control_flow.__all__]
