"""Eager evaluation's compiled route: a primitive applied now runs as a one-equation program.

Design rules:
- As JAX's ``apply_primitive``: a primitive applied outside any
  transformation, where eager evaluation (``interpreters.evaluation``)
  takes the compiled route, is compiled by XLA as a program of one
  equation and run where its arguments live; results are device Arrays.
  Importing this module installs the route (``set_compiled_evaluator``).
- A jit equation's program is its jaxpr itself, run through the same
  ``Compiled.run`` as the api's cache-hit path: one dispatch path.
- The program for a (primitive, operands' jit keys, params) is found with
  one dict lookup (the jit keys hold the operands' types and, for an Array
  laid out over several devices, its sharding). The table is bounded by
  emptying it when full: the compile cache keeps the executables. A
  primitive with an unhashable param is compiled (found in the compile
  cache) at each application.
- Arguments laid out over a mesh, or a program that names one, make an
  SPMD program over it; everything else runs on one device.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, Final, final

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import abstract_eval
from didax.core.array import Array
from didax.core.lax.jit import jit_p
from didax.core.primitive import Primitive
from didax.core.sharding import Mesh, NamedSharding
from didax.core.values import get_aval
from didax.interpreters.evaluation import set_compiled_evaluator
from didax.interpreters.parallel import program_meshes
from didax.ir.jaxpr import Jaxpr, JaxprEqn, Var
from didax.lowering import xla
from didax.lowering.compiled import AnyCompiled, compile_jaxpr
from didax.lowering.mlir import LOWERING_RULES
from didax.lowering.sharding import SpmdLayout, mesh_of, replicated

EAGER_PROGRAMS: Final[dict[Hashable, AnyCompiled]] = {}
_EAGER_PROGRAMS_MAX: Final = 1024


def apply_primitive(prim: Primitive, *args: Any, **params: Any) -> list[Array]:
    """Runs ``prim`` on ``args`` now, compiled by XLA, where they live; results are device Arrays.

    A jit equation's program is its jaxpr itself (the one dispatch path:
    the api's cache-hit path runs ``Compiled.run`` too).
    """
    if prim is jit_p:
        return _compiled_for(params["jaxpr"], params["name"], args).run((), args)
    keys = [x.jit_key if type(x) is Array else get_aval(x) for x in args]
    try:
        key: Hashable = (prim, *keys, *params.items())
        program = EAGER_PROGRAMS.get(key)
    except TypeError:  # an unhashable param: compiled (and found in the compile cache) each time
        key, program = None, None
    if program is None:
        avals = [k if isinstance(k, ShapedArray) else k[0] for k in keys]
        program = _compiled_for(_one_equation(prim, avals, params), prim.name, args)
        if key is not None:
            if len(EAGER_PROGRAMS) >= _EAGER_PROGRAMS_MAX:
                EAGER_PROGRAMS.clear()
            EAGER_PROGRAMS[key] = program
    return program.run((), args)


def layout_for_args(
    args: Sequence[Any], n_outs: int, meshes: Sequence[Mesh] = ()
) -> SpmdLayout | None:
    """The layout a program takes from its arguments' shardings and the meshes it names.

    None when everything is on one device. Arguments laid out over a mesh
    keep their layout; the others are replicated over it; XLA chooses the
    results' layouts.
    """
    shardings = [x.committed_sharding if type(x) is Array else None for x in args]
    mesh = mesh_of([*shardings, *meshes])
    if mesh is None:
        return None
    ins = tuple(s if isinstance(s, NamedSharding) else replicated(mesh) for s in shardings)
    return SpmdLayout(mesh, ins, (None,) * n_outs)


def _compiled_for(jaxpr: Jaxpr, name: str, args: Sequence[Any]) -> AnyCompiled:
    """The program for ``jaxpr`` on these arguments: over a mesh if they or it name one."""
    meshes = program_meshes(jaxpr)
    if meshes or any(type(x) is Array and x.committed_sharding is not None for x in args):
        layout = layout_for_args(args, len(jaxpr.outs), meshes)
        if layout is not None:
            return compile_jaxpr(jaxpr, name, layout=layout)
    return compile_jaxpr(jaxpr, name)


def _one_equation(prim: Primitive, avals: Sequence[ShapedArray], params: dict[str, Any]) -> Jaxpr:
    ins = tuple(Var(a) for a in avals)
    outs = tuple(Var(a) for a in abstract_eval(prim, avals, params))
    return Jaxpr(ins, (JaxprEqn(prim, ins, params, outs),), outs)


@final
class _CompiledRoute:
    """Eager evaluation's compiled route (``interpreters.evaluation.CompiledEvaluator``)."""

    def run(self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> list[Any]:
        return apply_primitive(prim, *args, **params)

    def lowers(self, prim: Primitive) -> bool:
        return LOWERING_RULES.lowers_on(prim, xla.platform())

    def platform(self) -> str:
        return xla.platform()


set_compiled_evaluator(_CompiledRoute())
