"""didax.custom_derivatives: functions with user-defined derivatives (JAX's module of that name).

``custom_jvp``, ``custom_vjp`` and ``SymbolicZero`` live in
``didax.api.custom_derivatives``; ``custom_jvp`` and ``custom_vjp`` are also
``didax.custom_jvp`` and ``didax.custom_vjp``, as in JAX.
"""

from didax.api import custom_derivatives as _custom_derivatives
from didax.api import custom_gradient as _custom_gradient
from didax.api.custom_derivatives import *  # noqa: F403
from didax.api.custom_gradient import *  # noqa: F403
from didax.api.linear_call import linear_call as linear_call
from didax.core.lax.custom_derivatives import custom_jvp_call_p as custom_jvp_call_p
from didax.core.lax.custom_derivatives import custom_vjp_call_p as custom_vjp_call_p

__all__ = [
    *_custom_derivatives.__all__,
    *_custom_gradient.__all__,
    "linear_call",
    "custom_jvp_call_p",
    "custom_vjp_call_p",
]
