"""The jaxpr type checker (JAX's ``check_jaxpr``, mypyc's ``ircheck``).

Design rules:
- It trusts nothing a transformation produced: every variable must be bound
  exactly once before use, and every equation's out-binder types must be
  exactly what the primitive's typing rule computes from its inputs.
- It descends into every jaxpr a higher-order primitive carries (a param
  that is a ``Jaxpr``, or a tuple of them as ``cond``'s branches) and checks
  it on its own; the primitive's typing rule then checks the body against
  its equation (operand types against the body's inputs, carries against
  carries). A ``ClosedJaxpr`` param is refused: bodies are constant-free.
- An equation's effects must include what its primitive declares and its
  sub-jaxprs' effects: a body's print cannot vanish from the equation
  carrying it, or DCE and jit's token would miss it.
- Tests run it after every transformation; it never runs on the hot path.
"""

from __future__ import annotations

from didax.core.abstract_eval import abstract_eval
from didax.core.effects import Effects

# Defined in core.errors, so that ``didax.errors`` names it without importing ir.
from didax.core.errors import JaxprTypeError as JaxprTypeError
from didax.ir.jaxpr import (
    Atom,
    ClosedJaxpr,
    Jaxpr,
    JaxprType,
    Literal,
    Var,
    inferred_effects,
    sub_jaxprs,
)


def typecheck_jaxpr(jaxpr: Jaxpr | ClosedJaxpr) -> JaxprType:
    """Checks ``jaxpr`` and returns its type; raises ``JaxprTypeError`` if it is ill-typed.

    For a ``ClosedJaxpr`` the constants must match their binders' types, and
    the returned type leaves them out.
    """
    num_consts = 0
    if isinstance(jaxpr, ClosedJaxpr):
        num_consts = len(jaxpr.consts)
        for v, c in zip(jaxpr.jaxpr.in_binders, jaxpr.consts, strict=False):
            shape, dtype = getattr(c, "shape", None), getattr(c, "dtype", None)
            if (shape, dtype) != (v.aval.shape, v.aval.dtype):
                raise JaxprTypeError(
                    f"constant of shape {shape} and dtype {dtype} bound to {v.aval.str_short()}"
                )
        jaxpr = jaxpr.jaxpr
    env: set[Var] = set()

    def bind(v: Var) -> None:
        if v in env:
            raise JaxprTypeError(f"variable {v} is bound twice")
        env.add(v)

    def read(x: Atom) -> None:
        if isinstance(x, Var) and x not in env:
            raise JaxprTypeError(f"variable {x} is used before it is bound")
        if isinstance(x, Literal) and x.aval.shape != ():
            raise JaxprTypeError(f"literal {x} is not a scalar")

    for v in jaxpr.in_binders:
        bind(v)
    for eqn in jaxpr.eqns:
        for x in eqn.inputs:
            read(x)
        for name, sub in sub_jaxprs(eqn.params):
            if isinstance(sub, ClosedJaxpr):
                raise JaxprTypeError(
                    f"{eqn.primitive.name}'s param {name} is a ClosedJaxpr: a body carried "
                    "by a primitive must be constant-free (its constants explicit operands)"
                )
            try:
                typecheck_jaxpr(sub)
            except JaxprTypeError as e:
                raise JaxprTypeError(f"in {eqn.primitive.name}'s {name}: {e}") from e
        missing = inferred_effects(eqn.primitive, eqn.params) - eqn.effects
        if missing:
            raise JaxprTypeError(
                f"{eqn.primitive.name}'s equation has effects {_pp_effects(eqn.effects)}, "
                f"missing {_pp_effects(missing)} of its primitive or of its sub-jaxprs"
            )
        try:
            out_types = abstract_eval(eqn.primitive, [x.aval for x in eqn.inputs], dict(eqn.params))
        except TypeError as e:
            raise JaxprTypeError(f"ill-typed equation {eqn.primitive.name}: {e}") from e
        if len(out_types) != len(eqn.out_binders):
            raise JaxprTypeError(
                f"{eqn.primitive.name} returns {len(out_types)} values, "
                f"bound to {len(eqn.out_binders)} variables"
            )
        for v, t in zip(eqn.out_binders, out_types, strict=True):
            if v.aval.strip_weak() != t.strip_weak():
                raise JaxprTypeError(
                    f"{eqn.primitive.name} returns {t.str_short()}, bound to a variable "
                    f"of type {v.aval.str_short()}"
                )
            bind(v)
    for x in jaxpr.outs:
        read(x)
    return JaxprType(
        tuple(v.aval for v in jaxpr.in_binders[num_consts:]),
        tuple(x.aval for x in jaxpr.outs),
    )


def _pp_effects(effects: Effects) -> str:
    return "{" + ", ".join(sorted(map(repr, effects))) + "}"
