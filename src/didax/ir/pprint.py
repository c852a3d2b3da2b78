"""The pretty-printer, in Autodidax's text form with JAX's short type names.

    { lambda a:f64[] .
      let b:f64[] = mul 2.0 a
      in ( b ) }

Design rules:
- Names are given in order of first appearance (a, b, ..., z, ab, ac, ...,
  as Autodidax), so printing is deterministic and golden files are stable.
- A closed jaxpr's constant binders come first, separated by ``;``.
- A jaxpr with effects prints them after its results, as JAX's printer
  with ``print_effects``: ``in ( a ) : { OrderedDebug } }``; one without
  prints as before, so golden files do not change.
- Params print sorted by name on the equation's line; a param holding a
  jaxpr prints it nested, indented under the equation. As JAX's printer,
  ``dot_general`` omits its ``precision`` and ``preferred_element_type``
  when they are None.
"""

from __future__ import annotations

import itertools
import string
from collections.abc import Iterator
from typing import Final

import numpy as np

from didax.core.lax.contractions import dot_general_p
from didax.core.primitive import Primitive
from didax.ir.jaxpr import Atom, ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var

# The params a primitive's equations omit when they are None (JAX's
# ``_dot_general_pp_rule``).
_OMITTED_IF_NONE: Final[dict[Primitive, frozenset[str]]] = {
    dot_general_p: frozenset({"precision", "preferred_element_type"}),
}


class _Names:
    def __init__(self) -> None:
        self._gen: Iterator[str] = (
            "".join(s)
            for r in itertools.count(1)
            for s in itertools.permutations(string.ascii_lowercase, r)
        )
        self._names: dict[Var, str] = {}

    def __getitem__(self, v: Var) -> str:
        name = self._names.get(v)
        if name is None:
            name = self._names[v] = next(self._gen)
        return name

    def atom(self, x: Atom) -> str:
        return str(x) if isinstance(x, Literal) else self[x]

    def binder(self, v: Var) -> str:
        return f"{self[v]}:{v.aval.str_short()}"


def pp_jaxpr(jaxpr: Jaxpr, num_consts: int = 0) -> str:
    """Prints ``jaxpr`` in Autodidax's form; the first ``num_consts`` binders are constants."""
    return "\n".join(_pp_jaxpr(jaxpr, num_consts, _Names()))


def _pp_jaxpr(jaxpr: Jaxpr, num_consts: int, names: _Names) -> list[str]:
    consts = " ".join(names.binder(v) for v in jaxpr.in_binders[:num_consts])
    ins = " ".join(names.binder(v) for v in jaxpr.in_binders[num_consts:])
    head = f"{{ lambda {consts} ; {ins} ." if num_consts else f"{{ lambda {ins} ."
    lines = [head]
    eqn_lines = [line for eqn in jaxpr.eqns for line in _pp_eqn(eqn, names)]
    if not eqn_lines:
        lines.append("  let")
    for i, line in enumerate(eqn_lines):
        lines.append(("  let " if i == 0 else "      ") + line)
    outs = ", ".join(names.atom(x) for x in jaxpr.outs)
    effects = jaxpr.effects
    shown = " : { " + ", ".join(sorted(map(repr, effects))) + " }" if effects else ""
    lines.append(f"  in ( {outs} ){shown} }}")
    return lines


def _pp_eqn(eqn: JaxprEqn, names: _Names) -> list[str]:
    ins = " ".join(names.atom(x) for x in eqn.inputs)
    simple: list[str] = []
    nested: list[str] = []
    omitted = _OMITTED_IF_NONE.get(eqn.primitive, frozenset())
    for k, v in sorted(eqn.params.items()):
        if v is None and k in omitted:
            continue
        if isinstance(v, (Jaxpr, ClosedJaxpr)):
            nested.extend(_pp_nested(k, v))
        elif isinstance(v, tuple) and v and all(isinstance(x, (Jaxpr, ClosedJaxpr)) for x in v):
            # cond's branches: one nested jaxpr each, labelled by position.
            for i, x in enumerate(v):
                nested.extend(_pp_nested(f"{k}[{i}]", x))
        else:
            simple.append(f"{k}={_pp_param(v)}")
    params = f"[{' '.join(simple)}]" if simple else ""
    lhs = " ".join(names.binder(v) for v in eqn.out_binders)
    # An equation with no results (a print) is written without "=", as JAX's.
    head = f"{lhs} = " if lhs else ""
    return [f"{head}{eqn.primitive.name}{params} {ins}".rstrip(), *nested]


def _pp_nested(label: str, v: Jaxpr | ClosedJaxpr) -> list[str]:
    inner = v.jaxpr if isinstance(v, ClosedJaxpr) else v
    n = len(v.consts) if isinstance(v, ClosedJaxpr) else 0
    body = _pp_jaxpr(inner, n, _Names())
    return [f"  {label}=" + body[0], *("  " + " " * (len(label) + 1) + line for line in body[1:])]


def _pp_param(v: object) -> str:
    if isinstance(v, np.dtype):
        return str(v)
    return repr(v) if isinstance(v, str) else str(v)
