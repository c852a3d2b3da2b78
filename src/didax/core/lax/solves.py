"""``linear_solve``: a linear solve whose derivatives are defined implicitly, and its typing rule.

``linear_solve_p`` (JAX's ``custom_linear_solve`` primitive, public as
``lax.linear_solve_p``) binds ``(*consts, *b)`` with four programs as
params: ``matvec`` (the linear map ``A``), ``vecmat`` (its transpose, or
``None``), ``solve`` (``b -> x`` with ``A x = b``, possibly returning aux
values after ``x``) and ``transpose_solve`` (the same for ``A^T``, or
``None``), and ``const_lengths``, how many of the leading operands each
program takes as its constants, in that order. It runs ``solve``; its
derivatives are those of ``x = A^{-1} b`` whatever ``solve`` does
(``interpreters.solves``). ``lax.custom_linear_solve`` and
``lax.custom_root`` are the api's (``api.solves``).

Design rules:
- Each program is constant-free and takes its constants, then one value
  per leaf of ``b``; the results are ``solve``'s: one per leaf of ``b``
  (``b``'s types), then its aux values.
- Every rule reads the params as ``SolveParams`` and splits the operands
  with it, as ``scan``'s rules read ``ScanParams``.
- Typed against ``core.lax.programs.Program``: core sees the programs'
  types, never their equations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final, Generic, cast

import attrs

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, shape_failure
from didax.core.lax.programs import P, Program, ProgramParams, T, check_types
from didax.core.primitive import Primitive

__all__ = ["linear_solve_p"]

linear_solve_p: Final = Primitive("custom_linear_solve", multiple_results=True)


# The programs' param names, in the order of their constants among the operands.
PROGRAMS: Final = ("matvec", "vecmat", "solve", "transpose_solve")


@attrs.frozen
class SolveParams(ProgramParams, Generic[P]):
    """``linear_solve_p``'s params; ``SolveParams(**eqn.params)`` reads an equation's."""

    primitive: ClassVar[Primitive] = linear_solve_p

    matvec: P
    vecmat: P | None
    solve: P
    transpose_solve: P | None
    const_lengths: tuple[int, int, int, int]

    @property
    def programs(self) -> tuple[P | None, P | None, P | None, P | None]:
        """The four programs, in ``PROGRAMS`` order."""
        return (self.matvec, self.vecmat, self.solve, self.transpose_solve)

    @property
    def num_b(self) -> int:
        """How many leaves ``b`` (and ``x``) has; ``solve``'s further results are aux values."""
        return len(self.matvec.out_avals)

    def split(self, operands: Sequence[T]) -> tuple[list[list[T]], list[T]]:
        """The operands as each program's constants (in ``PROGRAMS`` order), and ``b``'s."""
        groups: list[list[T]] = []
        start = 0
        for n in self.const_lengths:
            groups.append(list(operands[start : start + n]))
            start += n
        return groups, list(operands[start:])

    def transposed(self) -> SolveParams[P]:
        """The params of the transposed solve: ``A^T`` and ``A`` swapped, solves too."""
        m, v, s, t = self.const_lengths
        if self.vecmat is None or self.transpose_solve is None:
            raise TypeError(
                "transpose_solve required for backwards mode automatic differentiation of "
                "custom_linear_solve"
            )
        return SolveParams(self.vecmat, self.matvec, self.transpose_solve, self.solve, (v, m, t, s))

    @classmethod
    def read(cls, params: Mapping[str, object]) -> SolveParams[Any]:
        """An equation's (or a rule's keyword) params, as ``SolveParams``."""
        return cls(**cast(dict[str, Any], params))


def transposed_operands(groups: Sequence[Sequence[T]]) -> list[T]:
    """The constants of ``SolveParams.transposed()``'s programs, flat, from ``split``'s groups."""
    m, v, s, t = groups
    return [*v, *m, *t, *s]


@ABSTRACT_EVAL.defines(linear_solve_p)
def _linear_solve_abstract_eval(*args: ShapedArray, **params: object) -> list[ShapedArray]:
    p: SolveParams[Program] = SolveParams.read(params)
    if len(p.const_lengths) != len(PROGRAMS) or sum(p.const_lengths) > len(args):
        raise shape_failure(
            f"const_lengths {p.const_lengths} do not split the {len(args)} operands"
        )
    groups, b = p.split(args)
    for name, program, consts in zip(PROGRAMS, p.programs, groups, strict=True):
        if program is None:
            if consts:
                raise shape_failure(f"{name} is absent but has {len(consts)} constants")
            continue
        check_types(f"custom_linear_solve's {name} input", list(program.in_avals), [*consts, *b])
        outs = list(program.out_avals)[: len(b)]
        check_types(f"custom_linear_solve's {name} output", outs, b)
    return list(p.solve.out_avals)
