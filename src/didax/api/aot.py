"""Ahead-of-time compilation: ``jit(f).lower(*args)`` and its ``compile()``, as JAX's stages.

Design rules:
- A ``Lowered`` is one traced signature of a jitted function (its trace
  cache's entry, or a fresh trace) with its SPMD layout, if any: its text
  is the StableHLO a call would compile, for this machine's platform or
  another one.
- ``Lowered.compile`` goes through the process-wide compile cache, so a
  program compiled ahead of time and the one a call runs are the same
  executable. A ``Compiled`` (JAX's name; ``CompiledFunction`` is its
  older didax name) checks its arguments' types against
  the signature it was compiled for and raises ``TypeError`` otherwise.
- Cost analyses come from XLA: before its passes (``Lowered``) or after
  (``Compiled``); ``didax.flops`` counts from the jaxpr instead.
- Both know the pytree of ``(args, kwargs)`` they were lowered for
  (``in_tree``, static arguments left out, as JAX's) and their results'
  shapes and dtypes (``out_info``, a pytree of ``ShapeDtypeStruct``).
"""

from __future__ import annotations

from typing import Any, final

import attrs
from jax import tree_util

from didax.api.arrays import ShapeDtypeStruct
from didax.api.trace_cache import Entry
from didax.core.abstract import ShapedArray
from didax.core.basearray import AvalAttributes
from didax.core.lax.programs import differ, types
from didax.core.values import get_aval
from didax.lowering.compiled import AnyCompiled, compile_jaxpr, spmd_annotations
from didax.lowering.mlir import ir, lower_to_module, lower_to_text
from didax.lowering.sharding import SpmdLayout
from didax.lowering.xla import lowered_cost_analysis, memory_analysis

__all__ = ["ArgInfo", "Compiled", "CompiledFunction", "Lowered"]


@final
@attrs.frozen
class ArgInfo(AvalAttributes):
    """An argument's type and whether it is donated (JAX's ``jax.stages.ArgInfo``)."""

    aval: ShapedArray
    donated: bool


def out_info(entry: Entry) -> Any:
    """The results' shapes and dtypes, as a pytree of ``ShapeDtypeStruct`` (JAX's ``out_info``)."""
    structs = [ShapeDtypeStruct(a.shape, a.dtype, a.weak_type) for a in entry.jaxpr.out_avals]
    return tree_util.tree_unflatten(entry.out_tree, structs)


class _Signature:
    """What a lowered and a compiled program say of their signature."""

    def __init__(
        self,
        entry: Entry,
        in_tree: tree_util.PyTreeDef | None = None,
        donated: frozenset[int] = frozenset(),
    ) -> None:
        self._entry = entry
        self._in_tree = in_tree
        self._donated = donated

    @property
    def args_info(self) -> Any:
        """The pytree of ``(args, kwargs)`` with an ``ArgInfo`` per array argument."""
        avals = self._entry.jaxpr.in_avals[len(self._entry.consts) :]
        infos = [ArgInfo(a, i in self._donated) for i, a in enumerate(avals)]
        return tree_util.tree_unflatten(self._in_tree, infos)

    @property
    def in_tree(self) -> tree_util.PyTreeDef:
        """The pytree structure of ``(args, kwargs)``, static arguments left out."""
        in_tree: tree_util.PyTreeDef = self._in_tree
        return in_tree

    @property
    def out_tree(self) -> tree_util.PyTreeDef:
        out_tree: tree_util.PyTreeDef = self._entry.out_tree
        return out_tree

    @property
    def out_info(self) -> Any:
        return out_info(self._entry)


class Staged(_Signature):
    """One traced signature of a jitted function, before compiling: ``Traced`` and ``Lowered``."""

    def __init__(
        self,
        entry: Entry,
        name: str,
        layout: SpmdLayout | None = None,
        in_tree: Any = None,
        donated: frozenset[int] = frozenset(),
    ) -> None:
        super().__init__(entry, in_tree, donated)
        self._name = name
        self._layout = layout


@final
class Lowered(Staged):
    """A jitted function lowered for one signature."""

    def as_text(self, platform: str | None = None) -> str:
        """The StableHLO module, as text (annotated with ``mhlo.sharding`` over a mesh).

        Lowered for ``platform`` ("cpu", "cuda"...; by default the backend's):
        a program's text for a platform this machine lacks, as JAX's
        ``jax.export(..., platforms=[...])`` gives it.
        """
        jaxpr = self._entry.jaxpr
        spmd = None if self._layout is None else spmd_annotations(jaxpr, self._layout)
        return lower_to_text(jaxpr, self._name, spmd, platform)

    def compiler_ir(self, dialect: str = "stablehlo") -> ir.Module:
        """The StableHLO module (JAX's ``compiler_ir``; ``"stablehlo"`` is the one dialect)."""
        if dialect != "stablehlo":
            raise ValueError(f"Lowered.compiler_ir: unknown dialect {dialect!r}; 'stablehlo' is")
        jaxpr = self._entry.jaxpr
        spmd = None if self._layout is None else spmd_annotations(jaxpr, self._layout)
        return lower_to_module(jaxpr, self._name, spmd=spmd)

    def compile(self) -> Compiled:
        compiled = compile_jaxpr(self._entry.jaxpr, self._name, layout=self._layout)
        return Compiled(self._entry, compiled, self._in_tree, self._donated)

    def cost_analysis(self) -> dict[str, float]:
        """XLA's cost analysis of the program as lowered, before XLA optimizes it.

        JAX's ``Lowered.cost_analysis()``: before XLA's passes fuse and
        simplify it (converting to HLO only drops dead code and trivial
        operations); ``CompiledFunction.cost_analysis`` is after. Raises
        ``NotImplementedError`` where XLA's client cannot do it (GPU plugins).
        """
        return lowered_cost_analysis(self.as_text())


@final
class Compiled(_Signature):
    """A compiled executable for one signature; call it with arguments of that signature."""

    def __init__(
        self,
        entry: Entry,
        compiled: AnyCompiled,
        in_tree: Any = None,
        donated: frozenset[int] = frozenset(),
    ) -> None:
        super().__init__(entry, in_tree, donated)
        self._compiled = compiled

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves = tree_util.tree_leaves((args, kwargs))
        expected = self._entry.jaxpr.in_avals[len(self._entry.consts) :]
        got = tuple(get_aval(x) for x in leaves)
        if differ(got, expected):
            raise TypeError(
                f"compiled function called with arguments of types {types(got)}, "
                f"compiled for {types(expected)}"
            )
        outs = self._compiled.run((), [*self._entry.consts, *leaves])
        return tree_util.tree_unflatten(self._entry.out_tree, outs)

    def as_text(self) -> str:
        return self._compiled.text

    def as_hlo_text(self) -> str:
        """The HLO XLA compiled: for a sharded program, one device's partitioned program."""
        return self._compiled.optimized_hlo()

    def memory_analysis(self) -> Any:
        """XLA's memory statistics of the executable (JAX's ``Compiled.memory_analysis()``).

        jaxlib's ``CompiledMemoryStats``: ``argument_size_in_bytes``,
        ``output_size_in_bytes``, ``temp_size_in_bytes``,
        ``generated_code_size_in_bytes`` and the rest.
        """
        return memory_analysis(self._compiled.executable)

    def cost_analysis(self) -> dict[str, float]:
        """XLA's cost analysis of the compiled program, as JAX's ``Compiled.cost_analysis()``.

        ``"flops"`` and ``"transcendentals"`` are absent when zero; XLA counts
        a loop's body once. ``didax.flops`` counts from the jaxpr instead.

        >>> import didax as dx
        >>> import numpy as np
        >>> compiled = dx.jit(lambda x: x * 2.0 + 1.0).lower(np.ones(3)).compile()
        >>> compiled.cost_analysis()["flops"]
        6.0
        """
        return self._compiled.cost_analysis()


# didax's earlier name for ``Compiled``.
CompiledFunction = Compiled
