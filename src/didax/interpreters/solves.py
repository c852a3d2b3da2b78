"""``linear_solve``'s interpreter rules: jvp, transposition, batching, flops (implicit derivatives).

``linear_solve_p`` (declared and typed in ``core.lax.solves``) binds
``(*consts, *b)`` with the programs ``matvec``, ``vecmat``, ``solve`` and
``transpose_solve``; every rule reads them as ``SolveParams``.

Design rules:
- The derivatives are those of ``x = A^{-1} b``, never of ``solve``'s own
  steps (JAX's implicit differentiation): from ``A x = b``,
  ``dx = A^{-1} (db - dA x)``, one more solve of the same system, where
  ``dA x`` is the jvp of ``matvec`` in its constants at fixed ``x``. Aux
  results have zero tangents.
- The solve is linear in ``b``; its transpose is the solve of ``A^T``:
  the same primitive with ``vecmat`` and ``matvec``, ``transpose_solve``
  and ``solve`` swapped (``SolveParams.transposed``). Without
  ``transpose_solve`` reverse mode raises JAX's error; a cotangent through
  the constants (``A`` itself linear) is JAX's ``NotImplementedError`` too.
- Batching iterates to a fixpoint which leaves of ``x`` and ``b`` are
  batched, so that the four programs agree: ``solve`` and ``vecmat`` map
  ``b`` to ``x``'s space, ``matvec`` and ``transpose_solve`` ``x`` to
  ``b``'s (as JAX's rule). Each batched program's hoisted constants join
  its constants.
- Partial evaluation and DCE keep the primitive whole (the defaults): under
  ``linearize`` the tangent solve is staged with its known constants as
  residuals, which is what transposition needs.
- A solve costs its ``solve`` program. No impl rule: eager evaluation runs
  the compiled program, in which ``lowering.solves`` inlines ``solve``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.lax.solves import SolveParams, linear_solve_p, transposed_operands
from didax.core.values import ArrayLike
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front
from didax.interpreters.flops import FLOPS_RULES, Counted, Operand, count_jaxpr
from didax.interpreters.jaxpr_transforms import Flags, fixpoint, jaxpr_as_fun, union, vmap_jaxpr
from didax.interpreters.jvp import JVP_RULES, Zero, add_tangents, instantiate_zeros, jvp_flat
from didax.interpreters.transpose import TRANSPOSE_RULES, UndefinedPrimal, is_undefined
from didax.ir.jaxpr import Jaxpr

__all__: list[str] = []


# --- jvp ---------------------------------------------------------------------------------


@JVP_RULES.defines(linear_solve_p)
def _linear_solve_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], **params: object
) -> tuple[list[Any], list[Any]]:
    p: SolveParams[Jaxpr] = SolveParams.read(params)
    x = p.bind(*primals)
    groups, _ = p.split(primals)
    t_groups, b_dot = p.split(tangents)
    x_leaves = x[: p.num_b]
    rhs: list[Any] = list(b_dot)
    if any(not isinstance(t, Zero) for t in t_groups[0]):
        # dA x: matvec's jvp in its constants at this x.
        x_zeros = [Zero.like(a) for a in p.matvec.in_avals[len(groups[0]) :]]
        _, da_x = jvp_flat(
            jaxpr_as_fun(p.matvec), [*groups[0], *x_leaves], [*t_groups[0], *x_zeros]
        )
        rhs = [
            add_tangents(r, Zero(t.aval) if isinstance(t, Zero) else lax.neg(t))
            for r, t in zip(rhs, da_x, strict=True)
        ]
    aux_dots = [Zero.like(a) for a in p.solve.out_avals[p.num_b :]]
    if all(isinstance(r, Zero) for r in rhs):
        return x, [*(Zero.like(a) for a in p.solve.out_avals[: p.num_b]), *aux_dots]
    consts = [c for g in groups for c in g]
    x_dot = p.bind(*consts, *(instantiate_zeros(r) for r in rhs))
    return x, [*x_dot[: p.num_b], *aux_dots]


# --- transposition -----------------------------------------------------------------------


@TRANSPOSE_RULES.defines(linear_solve_p)
def _linear_solve_transpose(
    cts: Sequence[Any], *args: ArrayLike | UndefinedPrimal, **params: object
) -> list[Any]:
    p: SolveParams[Jaxpr] = SolveParams.read(params)
    t = p.transposed()
    groups, b = p.split(args)
    if any(is_undefined(c) for g in groups for c in g):
        raise NotImplementedError(
            "transpose of custom_linear_solve: it is not linear in matvec's or solve's "
            "constants (as JAX's rule)"
        )
    x_cts, aux_cts = cts[: p.num_b], cts[p.num_b :]
    if any(not isinstance(c, Zero) for c in aux_cts):
        raise NotImplementedError(
            "transpose of custom_linear_solve: the aux results have no cotangent (as JAX's rule)"
        )
    if all(isinstance(c, Zero) for c in x_cts):
        return [None] * sum(p.const_lengths) + [
            Zero(x.aval) if isinstance(x, UndefinedPrimal) else None for x in b
        ]
    consts = [c for c in transposed_operands(groups) if not isinstance(c, UndefinedPrimal)]
    ct_b = t.bind(*consts, *(instantiate_zeros(c) for c in x_cts))
    return [None] * sum(p.const_lengths) + [
        c if is_undefined(x) else None for c, x in zip(ct_b[: p.num_b], b, strict=True)
    ]


# --- batching ----------------------------------------------------------------------------


@BATCH_RULES.defines(linear_solve_p)
def _linear_solve_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: object
) -> tuple[list[Any], list[Dim]]:
    n = axis_size
    p: SolveParams[Jaxpr] = SolveParams.read(params)
    groups, b = p.split(args)
    g_dims, b_dims = p.split(dims)
    g_bat = [tuple(d is not None for d in ds) for ds in g_dims]
    present = [(prog, cb) for prog, cb in zip(p.programs, g_bat, strict=True) if prog is not None]
    num_aux = len(p.solve.out_avals) - p.num_b

    def inst(program: Jaxpr, bat: Flags) -> Flags:
        return bat + (True,) * (len(program.outs) - p.num_b)  # aux results: always batched

    def step(bat: Flags) -> Flags:
        # x and b share one type, so one set of flags: whatever any program batches.
        outs = [
            vmap_jaxpr(prog, n, cb + bat, instantiate=inst(prog, bat))[1] for prog, cb in present
        ]
        return union(*(o[: p.num_b] for o in outs))

    bat = fixpoint(tuple(d is not None for d in b_dims), step)
    new_programs: list[Jaxpr | None] = []
    new_groups: list[list[Any]] = []
    for program, consts, cdims, cb in zip(p.programs, groups, g_dims, g_bat, strict=True):
        if program is None:
            new_programs.append(None)
            new_groups.append([])
            continue
        closed, _ = vmap_jaxpr(program, n, cb + bat, instantiate=inst(program, bat))
        new_programs.append(closed.jaxpr)
        moved = [
            c if d is None else bdim_at_front(c, d, n) for c, d in zip(consts, cdims, strict=True)
        ]
        new_groups.append([*closed.consts, *moved])
    new_b = [bdim_at_front(x, d, n) if now else x for x, d, now in zip(b, b_dims, bat, strict=True)]
    m, v, s, t = new_programs
    assert m is not None
    assert s is not None
    lengths = (len(new_groups[0]), len(new_groups[1]), len(new_groups[2]), len(new_groups[3]))
    outs = SolveParams(m, v, s, t, lengths).bind(*(c for g in new_groups for c in g), *new_b)
    return outs, [0 if x else None for x in (*bat, *(True,) * num_aux)]


# --- flops -------------------------------------------------------------------------------


@FLOPS_RULES.defines(linear_solve_p)
def _linear_solve_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **params: object
) -> Counted:
    p: SolveParams[Jaxpr] = SolveParams.read(params)
    groups, b = p.split(operands)
    return count_jaxpr(p.solve, [*groups[2], *b])
