"""``scan``: the primitive looping a body program over the leading axis of its inputs; its typing.

``scan_p`` binds ``(*consts, *init, *xs)`` with params ``jaxpr`` (the body,
``consts, carry, x -> carry, y``), ``num_consts``, ``num_carry``,
``length``, ``reverse`` and ``unroll``; it returns the final carry and the
``ys`` stacked along a new leading axis of size ``length``. ``ScanParams``
holds the params and splits the operands. ``lax.scan``, ``lax.map`` and
``lax.fori_loop`` with static bounds bind it (``api.control_flow``). The
interpreters' rules are in ``interpreters.scan``, the lowering (a counted
``stablehlo.while``) in ``lowering.scan``.

Design rules:
- Equations keep their params as keywords (``eqn.params``, printed one by
  one); ``ScanParams`` is how every rule reads and rebuilds them, so the
  operand split (consts, carry, xs) is written once (``split``).
- Every ``x`` has a leading axis of the scan's length; the body takes the
  consts, the carry and one slice of each ``x``, and returns the carry's
  types (weak types aside) and one slice of each ``y``. A carry is weakly
  typed only if both the initial carry and the body's result are.
- Typed against ``core.lax.programs.Program``: core sees the body's types,
  never its equations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final, Generic

import attrs

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, shape_failure
from didax.core.lax.programs import P, Program, ProgramParams, T, differ, types
from didax.core.primitive import Primitive

# slice_aval and stacked_aval are imported by name: too generic for ``core.lax``'s namespace.
__all__ = ["scan_p"]

scan_p: Final = Primitive("scan", multiple_results=True)


@attrs.frozen
class ScanParams(ProgramParams, Generic[P]):
    """``scan_p``'s params; ``ScanParams(**eqn.params)`` reads an equation's."""

    primitive: ClassVar[Primitive] = scan_p

    jaxpr: P
    num_consts: int
    num_carry: int
    length: int
    reverse: bool
    unroll: int

    @property
    def num_ys(self) -> int:
        """How many ``ys`` the body returns after the carry."""
        return len(self.jaxpr.out_avals) - self.num_carry

    def split(self, operands: Sequence[T]) -> tuple[list[T], list[T], list[T]]:
        """The operands (or anything laid out as they are) as (consts, carry, xs)."""
        nc, ncar = self.num_consts, self.num_carry
        return list(operands[:nc]), list(operands[nc : nc + ncar]), list(operands[nc + ncar :])


def slice_aval(a: ShapedArray) -> ShapedArray:
    """The type of one slice of ``a`` along its leading axis (what the body sees of an ``x``)."""
    return ShapedArray(a.shape[1:], a.dtype, a.weak_type)


def stacked_aval(a: ShapedArray, length: int) -> ShapedArray:
    """The type of ``length`` values of type ``a`` stacked along a new leading axis."""
    return ShapedArray((length, *a.shape), a.dtype, a.weak_type)


@ABSTRACT_EVAL.defines(scan_p)
def _scan_abstract_eval(*avals: ShapedArray, **params: Any) -> list[ShapedArray]:
    p: ScanParams[Program] = ScanParams(**params)
    consts, carry, xs = p.split(avals)
    for x in xs:
        if x.ndim == 0 or x.shape[0] != p.length:
            raise shape_failure(f"xs must have a leading axis of the scan's length {p.length}")
    expected = p.jaxpr.in_avals
    got = [*consts, *carry, *(slice_aval(x) for x in xs)]
    if differ(got, expected):
        raise shape_failure(f"the body takes {types(expected)}, given {types(got)}")
    carry_out = p.jaxpr.out_avals[: p.num_carry]
    if differ(carry_out, carry):
        raise shape_failure(
            f"the body returns the carry {types(carry_out)} for a carry of types {types(carry)}"
        )
    if p.unroll < 1:
        raise shape_failure(f"unroll must be at least 1, got {p.unroll}")
    return [
        *(
            c.update(weak_type=c.weak_type and o.weak_type)
            for c, o in zip(carry, carry_out, strict=True)
        ),
        *(stacked_aval(y, p.length) for y in p.jaxpr.out_avals[p.num_carry :]),
    ]
