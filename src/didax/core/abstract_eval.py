"""Abstract evaluation: the typing rule of every primitive, and how it fails.

Design rules:
- ``ABSTRACT_EVAL`` is core's rule table: from operand types (and params) to
  result types, never touching data. Every interpreter that needs result
  types (staging; vmap to check operands in the user's terms; eager
  evaluation, so that eager code fails exactly as traced code does) calls
  ``abstract_eval``.
- A rule signals an ill-typed application by raising ``TypingFailure`` with a
  reason; ``abstract_eval`` turns it into ``ShapeError``/``DTypeError`` naming
  the primitive, every operand type and the user's file:line. The checks
  every family's rules make (``check_kinds``, ``check_axes``, and the
  element-wise ``same_shapes_and_dtypes``) are here, so that they fail
  with one wording.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any, Final, Protocol

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.errors import DTypeError, ShapeError
from didax.core.primitive import Primitive, RuleTable
from didax.core.shape_poly import InconclusiveDimensionOperation, is_constant_shape


class AbstractEvalRule(Protocol):
    """``(*avals, **params) -> aval`` (a list when the primitive has multiple results).

    Each rule names its own operands and params, so only the result is typed.
    """

    def __call__(self, *avals: Any, **params: Any) -> ShapedArray | list[ShapedArray]: ...


ABSTRACT_EVAL: Final[RuleTable[AbstractEvalRule]] = RuleTable("abstract evaluation")


class TypingFailure(Exception):
    """Raised by typing rules; ``kind`` is ``'shape'`` or ``'dtype'``."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


def shape_failure(reason: str) -> TypingFailure:
    return TypingFailure("shape", reason)


def dtype_failure(reason: str) -> TypingFailure:
    return TypingFailure("dtype", reason)


def check_kinds(kinds: str, what: str, *avals: ShapedArray) -> None:
    """Refuses operands whose dtype kind (``dtypes.kind``) is not one of ``kinds``."""
    for a in avals:
        if dtypes.kind(a.dtype) not in kinds:
            raise dtype_failure(f"operands must be {what}, got {a.dtype}")


def check_axes(axes: Sequence[int], ndim: int, what: str) -> None:
    """Refuses repeated axes, and axes out of ``range(ndim)``; ``what`` names them."""
    if len(set(axes)) != len(axes):
        raise shape_failure(f"{what} {tuple(axes)} has repeated axes")
    for a in axes:
        if not 0 <= a < ndim:
            raise shape_failure(f"{what} {tuple(axes)} is out of range for rank {ndim}")


def same_shapes_and_dtypes(*avals: ShapedArray, scalars: bool = False) -> ShapedArray:
    """The operands' common type; with ``scalars``, rank-0 operands may join any shape.

    The element-wise typing rule of every family (``elementwise``,
    ``special``, ``bits``): one shape, one dtype, weak only if every operand is.
    """
    first = avals[0]
    shape = first.shape
    for a in avals[1:]:
        if a.shape != shape:
            if scalars and a.shape == ():
                pass
            elif scalars and shape == ():
                shape = a.shape
            else:
                raise shape_failure(
                    "operands must have equal shapes"
                    + (" (or be rank-0 scalars)" if scalars else "")
                    + ", got "
                    + " and ".join(str(x.shape) for x in avals)
                )
        if a.dtype != first.dtype:
            raise dtype_failure(
                "operands must have equal dtypes, got " + " and ".join(str(x.dtype) for x in avals)
            )
    return ShapedArray(shape, first.dtype, builtins.all(a.weak_type for a in avals))


def abstract_eval(
    prim: Primitive, avals: Sequence[ShapedArray], params: dict[str, Any]
) -> list[ShapedArray]:
    """Result types of ``prim`` applied to ``avals``, as a list (even for one result)."""
    try:
        out = ABSTRACT_EVAL[prim](*avals, **params)
    except TypingFailure as failure:
        raise typing_error(prim, avals, params, failure) from None
    except InconclusiveDimensionOperation as undecided:
        # A shape rule that needs concrete sizes, given symbolic ones: say which.
        types = ", ".join(a.str_short() for a in avals)
        raise InconclusiveDimensionOperation(
            f"{prim.name}({types}): symbolic dimensions are not supported by its shape "
            f"rule: {undecided}"
        ) from None
    outs = out if isinstance(out, list) else [out]
    for aval in outs:
        # (A symbolic dimension's size is checked by the module at each call.)
        if (
            is_constant_shape(aval.shape)
            and math.prod(aval.shape) * aval.dtype.itemsize > _MAX_BYTES
        ):
            # XLA's shape arithmetic is 64-bit: compiling such a shape aborts
            # the process (as it does under JAX), so it is refused here.
            reason = f"the result {aval.str_short()} has more bytes than 64-bit sizes can count"
            raise typing_error(prim, avals, params, shape_failure(reason))
    return outs


_MAX_BYTES: Final = 2**63 - 1


def typing_error(
    prim: Primitive, avals: Sequence[ShapedArray], params: dict[str, Any], failure: TypingFailure
) -> TypeError:
    from didax.core.source_info import user_frame_summary

    operands = ", ".join(a.str_short() for a in avals)
    shown = {k: v for k, v in params.items() if k not in ("jaxpr",)}
    param_text = f" with {', '.join(f'{k}={v}' for k, v in shown.items())}" if shown else ""
    cls = ShapeError if failure.kind == "shape" else DTypeError
    return cls(
        f"{prim.name} applied to operands of types ({operands}){param_text}: "
        f"{failure.reason} (at {user_frame_summary()})"
    )
