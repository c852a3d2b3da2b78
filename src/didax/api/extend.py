"""``didax.extend``: defining a new primitive with all its rules.

Design rules:
- A user primitive is a core ``Primitive`` whose ``def_*`` methods register
  into the same rule tables the standard primitives use (abstract
  evaluation, impl, jvp, batching, transpose, lowering), so it is
  transformed by exactly the same machinery; nothing is special-cased.
- The user-facing rule signatures are JAX's (API.md); where an interpreter's
  internal signature differs (batching also receives the axis size), the
  ``def_*`` method adapts.
- A missing rule raises ``NotImplementedError`` naming the primitive and the
  transformation that needed it, when the transformation traces it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from didax.core.abstract import ShapedArray as ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL
from didax.core.primitive import Primitive as _CorePrimitive
from didax.interpreters.batching import BATCH_RULES
from didax.interpreters.evaluation import IMPL_RULES
from didax.interpreters.jvp import JVP_RULES
from didax.interpreters.jvp import Zero as Zero
from didax.interpreters.transpose import TRANSPOSE_RULES
from didax.interpreters.transpose import UndefinedPrimal as UndefinedPrimal
from didax.lowering.mlir import LOWERING_RULES

__all__ = [
    "Primitive",
    "ShapedArray",
    "UndefinedPrimal",
    "Zero",
]


class Primitive(_CorePrimitive):
    """A primitive with ``def_*`` methods for its rules (JAX's ``core.Primitive``).

    >>> import numpy as np
    >>> twice_p = Primitive("twice")
    >>> twice_p.def_impl(lambda x: 2 * x)
    >>> twice_p.def_abstract_eval(lambda x: x)
    >>> twice_p.bind(np.arange(3.0))
    Array([0., 2., 4.], dtype=float32)
    """

    def def_impl(self, impl: Callable[..., Any]) -> None:
        """``impl(*arrays, **params)``: eager evaluation on NumPy arrays."""
        IMPL_RULES.register(self, impl)

    def def_abstract_eval(self, rule: Callable[..., Any]) -> None:
        """``rule(*avals, **params) -> ShapedArray`` (a list if multiple_results)."""
        ABSTRACT_EVAL.register(self, rule)

    def def_lowering(self, rule: Callable[..., Sequence[Any]], platform: str | None = None) -> None:
        """``rule(ctx, *ir_values, **params) -> [ir_value, ...]`` (StableHLO ops).

        For every platform, or for ``platform`` ("cpu", "cuda", "rocm") only,
        where it takes precedence (JAX's ``register_lowering(..., platform=)``);
        ``ctx.platform`` says which platform a module is lowered for.
        """
        LOWERING_RULES.register(self, rule, platform)

    def def_jvp(self, rule: Callable[..., tuple[Any, Any]]) -> None:
        """``rule(primals, tangents, **params) -> (primal_out, tangent_out)``.

        A tangent may be the symbolic ``Zero``.
        """
        JVP_RULES.register(self, rule)

    def def_transpose(self, rule: Callable[..., list[Any]]) -> None:
        """``rule(ct, *args, **params) -> cotangents``; linear args are ``UndefinedPrimal``."""
        TRANSPOSE_RULES.register(self, rule)

    def def_batching(self, rule: Callable[..., tuple[Any, Any]]) -> None:
        """``rule(args, dims, **params) -> (out, out_dim)``; dims entries are int or None."""

        def batch_rule(
            axis_size: int, args: Sequence[Any], dims: Sequence[int | None], **params: Any
        ) -> tuple[Any, Any]:
            return rule(args, dims, **params)

        BATCH_RULES.register(self, batch_rule)
