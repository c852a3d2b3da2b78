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
- Tests run it after every transformation; it never runs on the hot path.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from didax.core.abstract_eval import abstract_eval

# Defined in core.errors, so that ``didax.errors`` names it without importing ir.
from didax.core.errors import JaxprTypeError as JaxprTypeError
from didax.ir.jaxpr import Atom, ClosedJaxpr, Jaxpr, JaxprType, Literal, Var


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
        for name, sub in _subjaxprs(eqn.params):
            if isinstance(sub, ClosedJaxpr):
                raise JaxprTypeError(
                    f"{eqn.primitive.name}'s param {name} is a ClosedJaxpr: a body carried "
                    "by a primitive must be constant-free (its constants explicit operands)"
                )
            try:
                typecheck_jaxpr(sub)
            except JaxprTypeError as e:
                raise JaxprTypeError(f"in {eqn.primitive.name}'s {name}: {e}") from e
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


def _subjaxprs(params: Mapping[str, Any]) -> Iterator[tuple[str, Jaxpr | ClosedJaxpr]]:
    for name, value in params.items():
        if isinstance(value, (Jaxpr, ClosedJaxpr)):
            yield name, value
        elif isinstance(value, tuple):
            for i, v in enumerate(value):
                if isinstance(v, (Jaxpr, ClosedJaxpr)):
                    yield f"{name}[{i}]", v
